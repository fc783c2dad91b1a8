"""Hostile input to the command line and the LIBSVM reader, round two (issue 29, items 9-13).

* 9: a stray huge feature index (``1 1:1 134217728:1``), or a large ``n_features``, is read as
  free empty columns of a CSR matrix (nothing of that width is allocated) with a DataWarning
  that names the line and the cost;
* 10: a file without line ends (``/dev/zero``, a long line) is refused after at most one line's
  limit, naming the file and the line;
* 11: every output path is checked before the search, naming its option; model, plot and
  ``-out`` files are written atomically; ``--log DIR`` is an error about a folder;
* 12: SIGTERM is handled as Ctrl-C: best-so-far report, exit status 143;
* 13: a log is locked while a run writes it; a second writer is refused.

The LIBSVM files are parsed by scikit-learn's ``load_svmlight_files`` (issue 28, item 6).
"""

import bz2
import json
import os
import signal
import subprocess
import sys
import time
import tracemalloc
import warnings

import numpy as np
import pytest
from sklearn.datasets import dump_svmlight_file, make_classification

from svmbound import libsvm_files as datasets
from svmbound.cli import main
from svmbound.datasets import load_libsvm, load_libsvm_files
from svmbound.exceptions import DataWarning

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = REPO + os.pathsep + env.get("PYTHONPATH", "")
    return env


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    """The issue's ``base.txt``: make_classification(200, 5), 1-based LIBSVM; and
    ``stray.txt``: the same plus the line ``1 1:1 134217728:1``."""
    d = tmp_path_factory.mktemp("hostile")
    X, y = make_classification(200, 5, n_informative=3, n_redundant=0, random_state=0)
    dump_svmlight_file(X, np.where(y == 1, 1, -1), str(d / "base.txt"), zero_based=False)
    text = (d / "base.txt").read_text()
    (d / "stray.txt").write_text(text + "1 1:1 134217728:1\n")
    return d


class _NoSearch(Exception):
    pass


def _no_search(monkeypatch):
    """Make BoundSVC.fit fail at once: what happens before the search is what is tested."""
    import svmbound.cli as cli

    def fit(self, X, y, sample_weight=None):
        raise _NoSearch(X.shape)

    monkeypatch.setattr(cli.BoundSVC, "fit", fit)


# -- item 9: a stray huge feature index ---------------------------------------------------------
def test_a_stray_huge_index_is_read_as_free_empty_columns_with_a_warning(base):
    tracemalloc.start()
    try:
        with pytest.warns(DataWarning) as rec:
            (X, y), info = load_libsvm_files([base / "stray.txt"], return_info=True,
                                             sparse="auto")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert info["sparse"] is True and X.format == "csr" and X.shape == (201, 134217728)
    assert X.nnz == 1002 and X[200, 134217727] == 1.0          # nothing the file says is dropped
    # empty columns are free: nothing of the width (1 GiB at 8 bytes a column) was allocated
    assert peak < 32 * 2**20, peak
    (msg,) = [str(w.message) for w in rec]
    assert "stray.txt, line 201: feature index 134217728" in msg
    assert "the next largest index is 5" in msg and "of which 6 hold a value" in msg
    assert "1 GiB" in msg and "column-pointer array" in msg


def test_a_normal_file_gives_no_warning_about_its_columns(base):
    with warnings.catch_warnings():
        warnings.simplefilter("error", DataWarning)
        for sparse in (False, True, "auto"):
            load_libsvm_files([base / "base.txt"], sparse=sparse)


def test_a_large_n_features_warns_with_the_cost_dense_and_sparse(base):
    with pytest.warns(DataWarning, match=r"n_features=100000000 makes 100000000 columns, of "
                                         r"which 5 hold a value; read as CSR.*763 MiB"):
        X, _ = load_libsvm(base / "base.txt", n_features=10**8, sparse=True)
    assert X.shape == (200, 10**8) and X.nnz == 1000
    with pytest.warns(DataWarning, match=r"read dense, the empty columns take 76\.\d MiB of "
                                         r"the 200 x 50000 float64 matrix"):
        X, _ = load_libsvm(base / "base.txt", n_features=50000)
    assert X.shape == (200, 50000)


def test_the_cli_warns_about_the_stray_index_before_the_search(base, capsys, monkeypatch):
    _no_search(monkeypatch)
    with pytest.raises(_NoSearch):
        main(["tune", str(base / "stray.txt"), "--quiet"])
    err = capsys.readouterr().err
    assert "svmbound: warning: " in err and "stray.txt, line 201: feature index 134217728" in err
    with pytest.raises(_NoSearch):
        main(["tune", str(base / "base.txt"), "--quiet", "--n-features", "100000000"])
    assert "n_features=100000000 makes 100000000 columns" in capsys.readouterr().err


def test_the_cli_refuses_a_dense_n_features_beyond_the_limit_before_allocating(base, capsys):
    """--n-features used to pad the dense matrix with np.hstack after the size check."""
    assert main(["tune", str(base / "base.txt"), "--quiet", "--sparse", "no",
                 "--n-features", "100000000"]) == 2
    err = capsys.readouterr().err
    assert "n_features=100000000 would make a dense 200 x 100000000 float64 matrix" in err


# -- item 10: no line end -----------------------------------------------------------------------
def test_dev_zero_is_refused_at_once_naming_the_file(capsys):
    t0 = time.perf_counter()
    with pytest.raises(ValueError, match=r"/dev/zero, line 1: a NUL byte \(binary data\)"):
        load_libsvm("/dev/zero")
    assert time.perf_counter() - t0 < 5
    assert main(["tune", "/dev/zero", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("svmbound: error: /dev/zero, line 1") and err.count("\n") == 1


def test_dev_zero_through_the_command_in_bounded_memory():
    """The command itself, with 3 GiB of address space: it used to read until the memory ran
    out and print 'out of memory ()' without the file."""
    import resource

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (3 * 2**30, 3 * 2**30))

    p = subprocess.run([sys.executable, "-m", "svmbound.cli", "tune", "/dev/zero", "--quiet"],
                       cwd=REPO, env=_env(), capture_output=True, text=True, timeout=120,
                       preexec_fn=limit)
    assert p.returncode == 2 and "/dev/zero, line 1" in p.stderr, p.stderr


@pytest.mark.parametrize("compress", ["", ".bz2"])
def test_a_line_longer_than_the_limit_is_refused_naming_the_line(tmp_path, compress, capsys,
                                                                 monkeypatch):
    path = tmp_path / ("long.txt" + compress)
    long = "1 " + " ".join(f"{k}:1" for k in range(1, 301))        # line 3: 1,693 bytes
    with (bz2.open if compress else open)(path, "wt") as fh:
        fh.write(f"1 1:1\n-1 2:1\n{long}\n-1 1:2\n")
    with pytest.raises(ValueError, match=r"long\.txt(\.bz2)?, line 3: longer than 1000 bytes "
                                         r"without a line end"):
        load_libsvm(path, max_line_bytes=1000)
    X, _ = load_libsvm(path, max_line_bytes=len(long))      # exactly at the limit: read
    assert X.shape == (4, 300)
    with pytest.raises(ValueError, match="line 3: longer than 1.65 KiB"):
        load_libsvm(path, max_line_bytes=len(long) - 1)
    monkeypatch.setattr(datasets, "MAX_LINE_BYTES", 1000)   # the command's limit
    assert main(["tune", str(path), "--quiet"]) == 2
    assert "long.txt" in capsys.readouterr().err


def test_the_reader_splits_lines_across_chunks_exactly(tmp_path, monkeypatch):
    """Lines that straddle the reader's chunks, CRLF ends and no final line end: the same
    matrix as scikit-learn's own reader of the open file."""
    from sklearn.datasets import load_svmlight_file

    rng = np.random.default_rng(0)
    lines = []
    for i in range(300):
        idx = np.sort(rng.choice(np.arange(1, 60), size=rng.integers(0, 20), replace=False))
        lines.append(f"{rng.choice([-1, 1])} " + " ".join(f"{k}:{rng.normal():.6g}" for k in idx))
    path = tmp_path / "mixed.txt"
    path.write_bytes(("\r\n".join(lines[:150]) + "\n" + "\n".join(lines[150:])).encode())
    monkeypatch.setattr(datasets, "_CHUNK_BYTES", 97)
    X, y = load_libsvm(path, sparse=True)
    ref, yr = load_svmlight_file(str(path), zero_based=False, n_features=X.shape[1])
    assert (X != ref).nnz == 0 and np.array_equal(y, yr)


def test_a_nul_byte_names_its_line(tmp_path):
    path = tmp_path / "nul.txt"
    path.write_bytes(b"1 1:1\n-1 2:1\n1 1:\x002\n")
    with pytest.raises(ValueError, match=r"nul\.txt, line 3: a NUL byte"):
        load_libsvm(path)


# -- issue 28, item 6: scikit-learn's load_svmlight_files -------------------------------------
def test_the_files_are_parsed_together_by_load_svmlight_files(base, tmp_path, monkeypatch):
    import sklearn.datasets

    calls = []
    real = sklearn.datasets.load_svmlight_files
    monkeypatch.setattr(sklearn.datasets, "load_svmlight_files",
                        lambda files, **kw: calls.append(len(files)) or real(files, **kw))
    X, y, Xt, yt = load_libsvm_files([base / "base.txt", base / "base.txt"])
    assert calls == [2] and X.shape == Xt.shape == (200, 5)
    bad = tmp_path / "bad_test.txt"
    bad.write_text("1 1:1\n-1 2:1\n1 3:x\n")
    with pytest.raises(ValueError, match=r"bad_test\.txt, line 3: value 'x'"):
        load_libsvm_files([base / "base.txt", bad])


# -- item 11: output paths ----------------------------------------------------------------------
@pytest.fixture()
def labelled(base, tmp_path):
    """base.txt with integer labels (a LIBSVM model needs them) and a folder for outputs."""
    out = tmp_path / "out"
    out.mkdir()
    return base / "base.txt", out


@pytest.mark.parametrize("argv, message", [
    (["--loss", "l1", "--model", "/proc/version"], "--model /proc/version: cannot write there"),
    (["--loss", "l1", "--model", "{out}"], "--model {out} is a folder, not a file name"),
    (["--loss", "l1", "--model", "{out}/no/m.txt"], "--model {out}/no/m.txt: folder"),
    (["-v", "3", "-out", "{out}"], "-out {out} is a folder, not a file name"),
    (["-v", "3", "-out", "/proc/version"], "-out /proc/version: cannot write there"),
    (["--plot", "{out}"], "--plot {out} is a folder, not a file name"),
    (["--plot", "/proc/x.png"], "--plot /proc/x.png: cannot write there"),
    (["--log", "{out}"], "--log {out} is a folder, not a file name"),
    (["--resume", "{out}"], "--resume {out} is a folder, not a file name"),
    (["--log", "/proc/run.jsonl"], "--log /proc/run.jsonl: cannot write there"),
    (["--loss", "l1", "--model", "{out}/m.png", "--plot", "{out}/m.png"],
     "--model and --plot name the same file"),
    (["--loss", "l1", "--model", "{out}/r.jsonl", "--log", "{out}/r.jsonl"],
     "--model and --log name the same file"),
])
def test_every_output_path_is_checked_before_the_data_and_the_search(labelled, capsys,
                                                                     monkeypatch, argv, message):
    train, out = labelled
    _no_search(monkeypatch)
    argv = [a.format(out=out) for a in argv]
    assert main(["tune", str(train), "--quiet"] + argv) == 2
    err = capsys.readouterr().err
    assert message.format(out=out) in err and err.count("\n") == 1, err
    assert "continue that run with --resume" not in err
    assert os.listdir(out) == []                       # no probe left behind


@pytest.mark.parametrize("argv, message", [
    (["--loss", "l1", "--model", "{train}"], "--model {train} is the training file"),
    (["--loss", "l1", "--test", "{test}", "--model", "{test}"],
     "--model {test} is the --test file"),
    (["-v", "3", "-log2c", "0,1,1", "-log2g", "0,0,1", "-out", "{train}"],
     "-out {train} is the training file"),
    (["-v", "3", "-log2c", "0,1,1", "-log2g", "0,1,1", "-png", "{train}"],
     "-png {train} is the training file"),
])
def test_an_output_naming_an_input_file_is_refused_and_the_data_kept(labelled, capsys,
                                                                     monkeypatch, argv, message):
    train, out = labelled
    mine, test = out / "train.txt", out / "test.txt"
    mine.write_bytes(train.read_bytes())
    test.write_bytes(train.read_bytes())
    _no_search(monkeypatch)
    argv = [a.format(train=mine, test=test) for a in argv]
    assert main(["tune", str(mine), "--quiet"] + argv) == 2
    err = capsys.readouterr().err
    assert message.format(train=mine, test=test) in err and "would replace the data" in err
    assert mine.read_bytes() == test.read_bytes() == train.read_bytes()


def test_a_full_disk_leaves_the_old_model_and_still_prints_the_result(labelled, capsys,
                                                                       monkeypatch):
    import errno

    import svmbound.cli as cli

    train, out = labelled
    model = out / "m.txt"
    model.write_text("the previous model\n")

    def full(self, path, **kw):
        with open(path, "w") as fh:
            fh.write("svm_type c_svc\nkernel_type rb")
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(cli.BoundSVC, "save_libsvm_model", full)
    assert main(["tune", str(train), "--loss", "l1", "--model", str(model), "--json", "--quiet",
                 "--max-iter", "2"]) == 2
    cap = capsys.readouterr()
    report = json.loads(cap.out)                       # the search's result is not lost
    assert report["C"] > 0 and "model" not in report
    assert "No space left on device" in report["output_errors"][0]
    assert cap.err.startswith(f"svmbound: error: --model {model}: cannot write (No space left")
    assert "the file is unchanged" in cap.err
    assert model.read_text() == "the previous model\n"
    assert os.listdir(out) == ["m.txt"]                # the temporary file is gone


def test_a_failed_plot_or_out_file_leaves_the_old_file(labelled, capsys, monkeypatch):
    import errno

    import svmbound.cli_gridpy as gridpy
    import svmbound.plots as plots

    train, out = labelled
    png, lines = out / "map.png", out / "grid.out"
    png.write_bytes(b"old png")
    lines.write_text("old lines\n")

    def full(grid, file, **kw):
        with open(file, "wb") as fh:
            fh.write(b"\x89PNG half")
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(plots, "plot_contours", full)
    assert main(["tune", str(train), "--quiet", "--plot", str(png), "--grid-log-c", "0", "1",
                 "1", "--grid-log-sigma2", "0", "1", "1", "--max-iter", "2"]) == 2
    assert f"--plot {png}: cannot write (No space" in capsys.readouterr().err
    assert png.read_bytes() == b"old png"
    # -out: a line that cannot be written (not ASCII) fails before anything replaces the file
    monkeypatch.setattr(gridpy.GridPy, "lines", lambda self, path, n: ["log2c=1 rate=5\u00e9"])
    assert main(["tune", str(train), "--quiet", "-log2c", "0,1,1", "-log2g", "0,0,1", "-v", "3",
                 "-out", str(lines)]) == 2
    assert lines.read_text() == "old lines\n"
    assert sorted(os.listdir(out)) == ["grid.out", "map.png"]


def test_write_atomic_keeps_links_modes_and_devices(tmp_path):
    from svmbound.cli_output import write_atomic, write_text_atomic

    target = tmp_path / "real.txt"
    target.write_text("old")
    os.chmod(target, 0o600)
    link = tmp_path / "link.txt"
    link.symlink_to(target)
    write_text_atomic(link, "--model", "new\n")
    assert link.is_symlink() and target.read_text() == "new\n"
    assert target.stat().st_mode & 0o777 == 0o600          # the replaced file's mode
    mask = os.umask(0o022)
    try:
        write_text_atomic(tmp_path / "fresh.txt", "-out", "x\n")
    finally:
        os.umask(mask)
    assert (tmp_path / "fresh.txt").stat().st_mode & 0o777 == 0o644
    write_text_atomic("/dev/null", "--model", "into the void\n")   # in place, not replaced
    assert os.path.exists("/dev/null") and not os.path.isfile("/dev/null")
    with pytest.raises(OSError, match=r"--plot .*fresh.txt: cannot write \(boom\); the file "
                                      r"is unchanged"):
        write_atomic(tmp_path / "fresh.txt", "--plot",
                     lambda tmp: (_ for _ in ()).throw(OSError(5, "boom")))
    assert sorted(os.listdir(tmp_path)) == ["fresh.txt", "link.txt", "real.txt"]


# -- item 12: SIGTERM is Ctrl-C -----------------------------------------------------------------
def _signal_after(monkeypatch, k, signum):
    """Raise ``signum`` in this thread from the progress hook after the k-th evaluation (as
    ``raise_signal``: delivered here and its handler run before the call returns; a signal sent
    to the process may be taken by another of its threads and reach the main thread later)."""
    import svmbound.progress as progress

    calls = [0]

    def hook(self, ev, replayed=False):
        calls[0] += 1
        if calls[0] == k:
            signal.raise_signal(signum)

    monkeypatch.setattr(progress.Progress, "on_evaluation", hook)


def test_sigterm_prints_the_best_point_so_far_and_exits_143(labelled, tmp_path, capsys,
                                                            monkeypatch, default_sigint):
    train, _ = labelled
    before = signal.getsignal(signal.SIGTERM)
    _signal_after(monkeypatch, 2, signal.SIGTERM)
    log = tmp_path / "run.jsonl"
    assert main(["tune", str(train), "--json", "--quiet", "--log", str(log)]) == 143
    cap = capsys.readouterr()
    report = json.loads(cap.out)
    assert report["interrupted"] is True and report["signal"] == "SIGTERM"
    assert report["nfev"] == 2 and report["value"] is not None
    assert report["resume"] == f"--resume {log}"
    assert cap.err == "svmbound: terminated (SIGTERM)\n"
    assert signal.getsignal(signal.SIGTERM) == before          # restored after the command
    _signal_after(monkeypatch, 2, signal.SIGINT)                # Ctrl-C keeps its status
    assert main(["tune", str(train), "--quiet"]) == 130
    out = capsys.readouterr()
    assert "svmbound: interrupted after 2 evaluations" in out.out
    assert out.err == "svmbound: interrupted\n"


@pytest.mark.parametrize("sigint", ["default", "ignored"])
def test_sigterm_during_a_deferred_solve_is_raised_when_it_returns(sigint, default_sigint):
    """``call_here`` defers Ctrl-C while a short numba call runs (an exception inside the numba
    dispatcher becomes a SystemError); a SIGTERM then is deferred the same way — also when
    SIGINT was ignored at the start, and a Ctrl-C stays ignored then."""
    from svmbound.cli import _Termination
    from svmbound.solvers.interrupt import StopFlag, call_here

    done = []

    def short_call():
        os.kill(os.getpid(), signal.SIGTERM)
        for _ in range(1000):          # bytecodes: the handler runs here, inside the call
            pass
        done.append(True)
        return 7

    before = signal.getsignal(signal.SIGINT)
    if sigint == "ignored":
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with _Termination() as term:
            if sigint == "ignored":
                os.kill(os.getpid(), signal.SIGINT)        # ignored, as before the command
                assert call_here(lambda: 3, flag=StopFlag()) == 3
            with pytest.raises(KeyboardInterrupt):
                call_here(short_call, flag=StopFlag())
            assert done == [True] and term.sigterm
            os.kill(os.getpid(), signal.SIGTERM)            # a second one: ignored
        assert signal.getsignal(signal.SIGINT) == (signal.SIG_IGN if sigint == "ignored"
                                                   else before)
    finally:
        signal.signal(signal.SIGINT, before)


def test_sigterm_inside_numba_code_is_raised_a_moment_later_outside_it(default_sigint):
    """A SIGTERM (or Ctrl-C) whose handler runs inside numba's own Python code (a dispatcher
    loading a cached function on its first call: an exception there becomes a SystemError) does
    not raise there; it is sent again and raised outside, as KeyboardInterrupt (``sigterm`` set
    for a SIGTERM)."""
    import types

    import llvmlite.binding.ffi
    import numba.core.serialize

    from svmbound.cli import _Termination

    inside = types.SimpleNamespace(f_back=None, f_code=types.SimpleNamespace(
        co_filename=numba.core.serialize.__file__))
    with _Termination() as term:
        term._on_sigterm(signal.SIGTERM, inside)                 # returns: nothing raised
        assert term.sigterm and not term._raised
        with pytest.raises(KeyboardInterrupt):
            time.sleep(5.0)                                      # the resent one, raised here
        assert term._raised
    llvmlite = types.SimpleNamespace(f_back=None, f_code=types.SimpleNamespace(
        co_filename=llvmlite.binding.ffi.__file__))
    with _Termination() as term:                                 # Ctrl-C: the same
        assert signal.getsignal(signal.SIGINT) is term._on_sigint
        term._on_sigint(signal.SIGINT, llvmlite)
        with pytest.raises(KeyboardInterrupt):
            time.sleep(5.0)
        assert not term.sigterm
    before = signal.getsignal(signal.SIGTERM)
    signal.signal(signal.SIGTERM, lambda *a: pytest.fail("sent after the command"))
    try:
        term._on_sigterm(signal.SIGTERM, inside)                 # after the command: not sent
        time.sleep(0.1)
    finally:
        signal.signal(signal.SIGTERM, before)


@pytest.mark.parametrize("sigint", ["default", "ignored"])
def test_sigterm_during_a_long_solve_exits_143_with_the_json(tmp_path, sigint):
    """As a batch system's time limit: SIGTERM in the first, seconds-long solve of the command.
    With SIGINT ignored (a background job of a script) a Ctrl-C before it changes nothing."""
    X, y = make_classification(n_samples=3000, n_features=10, n_informative=6, flip_y=0.2,
                               random_state=0)
    data = tmp_path / "long.txt"
    dump_svmlight_file(X, np.where(y == 1, 1, -1), str(data))
    log = tmp_path / "run.jsonl"
    cmd = [sys.executable, "-m", "svmbound.cli", "tune", str(data), "--loss", "l1", "--start",
           "7", "1.6", "--json", "--progress", "--log", str(log)]

    def preexec():
        signal.signal(signal.SIGINT, signal.SIG_IGN if sigint == "ignored" else signal.SIG_DFL)

    p = subprocess.Popen(cmd, cwd=REPO, env=_env(), stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, preexec_fn=preexec)
    try:
        p.stderr.read(1)               # the progress bar: the search has started
        time.sleep(1.0)
        if sigint == "ignored":
            p.send_signal(signal.SIGINT)
            time.sleep(0.3)
            assert p.poll() is None
        t0 = time.perf_counter()
        p.send_signal(signal.SIGTERM)
        out, err = p.communicate(timeout=60)
        elapsed = time.perf_counter() - t0
    finally:
        if p.poll() is None:
            p.kill()
    err = err.decode()
    assert p.returncode == 143, err
    assert elapsed < 5.0, elapsed
    report = json.loads(out)
    assert report["interrupted"] is True and report["signal"] == "SIGTERM"
    assert report["resume"] == f"--resume {log}"
    assert "Traceback" not in err and "SystemError" not in err
    assert err.rstrip().endswith("svmbound: terminated (SIGTERM)")


# -- item 13: one writer per log ----------------------------------------------------------------
def _holding(log, ready_file):
    """A process that opens ``log`` as a SearchLog (a new log) and keeps it open."""
    code = (f"import time\n"
            f"from svmbound.search.log import SearchLog\n"
            f"log = SearchLog({str(log)!r}, 'data', {{'a': 1}})\n"
            f"open({str(ready_file)!r}, 'w').close()\n"
            f"time.sleep(60)\n")
    p = subprocess.Popen([sys.executable, "-c", code], cwd=REPO, env=_env(),
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while not ready_file.exists():
        assert p.poll() is None and time.monotonic() < deadline, p.stderr.read()
        time.sleep(0.02)
    return p


def test_a_second_writer_of_a_log_is_refused_and_the_log_is_left_as_it_is(tmp_path):
    from svmbound.search.log import SearchLog

    log = tmp_path / "run.jsonl"
    p = _holding(log, tmp_path / "ready")
    try:
        before = log.read_bytes()
        for resume in (True, False):
            with pytest.raises(ValueError, match=rf"{log} is in use: another svmbound run is "
                                                 r"writing it") as exc:
                SearchLog(str(log), "data", {"a": 1}, resume=resume)
            assert type(exc.value).__name__ == "LogInUse"
        assert log.read_bytes() == before                  # not cut, not appended to
    finally:
        p.kill()
        p.wait()
    with SearchLog(str(log), "data", {"a": 1}, resume=True) as again:   # the lock went with it
        assert again.resumed and again.n_entries == 0
        with pytest.raises(ValueError, match="is in use"):              # also in one process
            SearchLog(str(log), "data", {"a": 1}, resume=True)
    SearchLog(str(log), "data", {"a": 1}, resume=True).close()          # closed: free again


def test_the_cli_refuses_to_resume_a_log_another_run_writes(labelled, tmp_path, capsys):
    train, _ = labelled
    log = tmp_path / "run.jsonl"
    p = _holding(log, tmp_path / "ready")
    try:
        assert main(["tune", str(train), "--quiet", "--resume", str(log)]) == 2
    finally:
        p.kill()
        p.wait()
    err = capsys.readouterr().err
    assert err.startswith(f"svmbound: error: {log} is in use") and err.count("\n") == 1
