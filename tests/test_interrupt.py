"""Interruption, search log and resume, progress (issue 15).

* the SMO returns early when its stop flag is set; ``request_stop`` stops a solve in progress;
* Ctrl-C (SIGINT) during a long solve of ``svmbound tune`` ends it within ~1 s with exit status
  130 and the best-so-far JSON (``"interrupted": true``), no traceback;
* ``BoundSVC.fit`` re-raises KeyboardInterrupt and keeps the search so far (``search_``);
* a run resumed from its log — after an interruption, with a partly written last line, or after
  ``kill -9`` — ends at the same θ with the same nfev as the uninterrupted run, for every search;
* a log from other data or parameters is refused.
"""

import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest
from sklearn.datasets import dump_svmlight_file, make_classification

from svmbound import BoundSVC
from svmbound.cli import main
from svmbound.kernels import make_kernel
from svmbound.search.log import LogMismatch
from svmbound.solvers import solve_svm_dual
from svmbound.kernels._rows import RBF
from svmbound.solvers._smo import smo
from svmbound.solvers.interrupt import SolverInterrupted, StopFlag, as_interrupt, stop_scope
from svmbound.strategy import ISOTROPIC_CONFIG

from _stopper import interrupt_after, stopped_solve

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = REPO + os.pathsep + env.get("PYTHONPATH", "")
    return env


def _default_sigint():
    """Popen's preexec_fn: the child starts with SIGINT's default action. A shell without job
    control starts background commands with SIGINT ignored, the child inherits that, and Python
    then installs no KeyboardInterrupt handler: the suite run in the background would see the
    child ignore the signal."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _sigint_after(cmd, started, delay):
    """Run ``cmd`` (SIGINT at its default action), wait for ``started(process)`` and ``delay``
    seconds, send SIGINT; (exit status, stdout bytes, stderr text, seconds from the signal to
    the exit)."""
    p = subprocess.Popen(cmd, cwd=REPO, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         preexec_fn=_default_sigint)
    try:
        started(p)
        time.sleep(delay)
        t0 = time.perf_counter()
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=30)
        elapsed = time.perf_counter() - t0
    finally:
        if p.poll() is None:
            p.kill()
    return p.returncode, out, err.decode(), elapsed


def _long_problem(n=3000):
    """An L1-SVM whose solve at C = e^7, σ² = 5 takes seconds (hundreds of thousands of SMO
    iterations): overlapping classes, 20 % flipped labels."""
    X, y = make_classification(n_samples=n, n_features=10, n_informative=6, flip_y=0.2,
                               random_state=0)
    return X, np.where(y == 1, 1.0, -1.0)


@pytest.fixture(scope="module")
def small():
    X, y = make_classification(n_samples=120, n_features=4, n_informative=3, n_redundant=0,
                               random_state=1)
    return X, y


# -- solver level ------------------------------------------------------------------------------
def test_smo_returns_at_once_when_the_stop_flag_is_set():
    X, y = _long_problem(300)
    n = y.size
    sq = np.einsum("ij,ij->i", X, X)
    args = (X, sq, y, -np.ones(n), np.full(n, 10.0), np.zeros(n), -np.ones(n), np.zeros(n),
            RBF, 0.1, 0.0, 3, 1.0, 0.0, 1e-6, 10**7, np.empty((n, n)))
    stop = np.zeros(1, dtype=np.int64)
    G, n_iter, _, _, interrupted = smo(*args, stop)
    assert not interrupted and n_iter > 100
    for a in (args[5], args[6], args[7]):          # fresh start: α = 0, G = p, Ḡ = 0
        a[:] = 0.0
    args[6][:] = -1.0
    stop[0] = 1
    G, n_iter, _, _, interrupted = smo(*args, stop)
    assert interrupted and n_iter == 0


def test_request_stop_ends_a_long_solve_within_a_fraction_of_a_second():
    X, y = _long_problem()
    kernel = make_kernel("rbf").with_theta([np.log(5.0)])
    late = stopped_solve(lambda: solve_svm_dual(X, y, kernel, np.exp(7.0), loss="l1", tol=1e-6))
    assert late < 0.5                               # the full solve takes seconds
    # the next solve is not affected by the earlier request (flags are per solve)
    sol = solve_svm_dual(X[:200], y[:200], kernel, 1.0, loss="l1")
    assert sol.converged


def test_a_set_scope_flag_stops_solves_that_start_later():
    X, y = _long_problem(200)
    flag = StopFlag()
    flag.set()
    with flag, stop_scope(flag), pytest.raises(SolverInterrupted):
        solve_svm_dual(X, y, make_kernel("rbf"), 1.0)


def test_call_here_defers_sigint_to_the_end_of_the_call_and_restores_the_handler():
    """A SIGINT during ``call_here`` (the small solves' path in the main thread) does not
    interrupt the call: it is raised again under the handler that was in
    place once the call has returned — a KeyboardInterrupt for Python's default handler, the
    user's handler called otherwise, nothing when SIGINT was ignored."""
    from svmbound.solvers.interrupt import call_here

    steps = []

    def fn(x):
        signal.raise_signal(signal.SIGINT)      # "Ctrl-C" in the middle of the call
        steps.append("finished")
        return x + 1

    before = signal.getsignal(signal.SIGINT)
    try:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        with StopFlag() as flag, pytest.raises(KeyboardInterrupt):
            call_here(fn, 1, flag=flag)
        assert steps == ["finished"] and flag.is_set
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
        seen = []
        signal.signal(signal.SIGINT, lambda signum, frame: seen.append(signum))
        with StopFlag() as flag:
            assert call_here(fn, 1, flag=flag) == 2
        assert seen == [signal.SIGINT] and not flag.is_set
        signal.signal(signal.SIGINT, signal.SIG_IGN)     # ignored before: ignored after
        with StopFlag() as flag:
            assert call_here(fn, 1, flag=flag) == 2
        assert not flag.is_set
    finally:
        signal.signal(signal.SIGINT, before)


def test_sigint_during_many_small_solves_in_the_main_thread_raises_at_once(tmp_path):
    """Small problems are solved in the main thread (no hand-off): a Ctrl-C among thousands
    of them still ends the program within a second, with a KeyboardInterrupt, no SystemError."""
    script = textwrap.dedent("""
        import sys, time
        import numpy as np
        from svmbound.kernels import make_kernel
        from svmbound.solvers import solve_svm_dual
        rng = np.random.default_rng(0)
        X = rng.standard_normal((150, 5))
        y = np.where(X[:, 0] + rng.standard_normal(150) > 0, 1.0, -1.0)
        k = make_kernel("rbf")
        solve_svm_dual(X, y, k, 10.0)
        print("ready", flush=True)
        t = time.time()
        while time.time() - t < 60:
            solve_svm_dual(X, y, k, 10.0)
    """)
    def started(p):
        assert p.stdout.readline().strip() == b"ready"

    code, _, err, elapsed = _sigint_after([sys.executable, "-c", script], started, 0.5)
    assert code != 0 and "KeyboardInterrupt" in err, err
    assert "SystemError" not in err
    assert elapsed < 2.0, elapsed


# -- Ctrl-C in a subprocess --------------------------------------------------------------------
def test_sigint_during_a_long_solve_exits_130_with_the_best_point_so_far(tmp_path):
    X, y = _long_problem()
    data = tmp_path / "long.txt"
    dump_svmlight_file(X, y, str(data))
    log = tmp_path / "run.jsonl"
    cmd = [sys.executable, "-m", "svmbound.cli", "tune", str(data), "--loss", "l1",
           "--start", "7", "1.6", "--json", "--progress", "--log", str(log)]
    # the progress bar on stderr: the search has started; then 1 s: inside the first solve
    code, out, err, elapsed = _sigint_after(cmd, lambda p: p.stderr.read(1), 1.0)
    assert code == 130, err
    assert elapsed < 2.5, elapsed    # ~0.6 s, most of it Python's own shutdown
    report = json.loads(out)
    assert report["interrupted"] is True
    assert report["resume"] == f"--resume {log}"
    assert "Traceback" not in err and "SystemError" not in err


# -- the estimator keeps the search so far -----------------------------------------------------
def test_fit_reraises_keyboardinterrupt_and_keeps_the_search_so_far(small, monkeypatch):
    X, y = small
    interrupt_after(monkeypatch, 3)
    est = BoundSVC()
    with pytest.raises(KeyboardInterrupt) as info:
        est.fit(X, y)
    res = est.search_
    assert res is info.value.search_result
    assert res.interrupted and res.status == -1 and not res.success
    assert res.nfev == 3 and len(res.path) == 3
    assert res.fun == min(p["value"] for p in res.path)
    assert np.isclose(res.params["C"], np.exp(res.x[0]))
    assert not hasattr(est, "dual_coef_")



def _dispatcher_error(interrupt):
    """What CPython raises when a numba dispatcher's own Python code (a cached function loaded
    on its first call) was interrupted: a SystemError caused by the KeyboardInterrupt."""
    try:
        raise interrupt
    except KeyboardInterrupt as exc:
        raise SystemError("CPUDispatcher(<function potrs_upper>) returned a result with an "
                          "exception set") from exc


def test_as_interrupt_finds_the_ctrl_c_behind_a_dispatcher_system_error():
    ki = KeyboardInterrupt()
    assert as_interrupt(ki) is ki
    with pytest.raises(SystemError) as info:
        _dispatcher_error(ki)
    assert as_interrupt(info.value) is ki
    assert as_interrupt(SystemError("returned a result with an exception set")) is None
    try:
        raise ValueError("x") from ki
    except ValueError as exc:
        assert as_interrupt(exc) is None


@pytest.mark.parametrize("phase", ["search", "final training"])
def test_a_ctrl_c_that_numba_turned_into_a_system_error_is_a_keyboardinterrupt(
        small, monkeypatch, phase):
    """The fit's Ctrl-C handling (the search so far in ``search_`` and on the exception) holds
    for a Ctrl-C raised inside numba's dispatcher, which reaches the fit as a SystemError; the
    user gets the KeyboardInterrupt. Another SystemError passes unchanged."""
    import svmbound.fit_flow as flow
    import svmbound.progress as progress

    X, y = small
    ki = KeyboardInterrupt()
    calls = [0]

    def hook(self, ev, replayed=False):
        calls[0] += 1
        if calls[0] == 3:
            _dispatcher_error(ki)

    if phase == "search":
        monkeypatch.setattr(progress.Progress, "on_evaluation", hook)
    else:
        monkeypatch.setattr(flow.BinaryMachine, "train", lambda *a, **k: _dispatcher_error(ki))
    est = BoundSVC(random_state=0)
    with pytest.raises(KeyboardInterrupt) as info:
        est.fit(X, y)
    assert info.value is ki and est.search_ is ki.search_result
    assert est.search_.phase == phase and not hasattr(est, "dual_coef_")
    if phase == "search":
        assert est.search_.interrupted and est.search_.nfev == 3
    other = SystemError("returned a result with an exception set")
    monkeypatch.setattr(flow.BinaryMachine, "train", lambda *a, **k: (_ for _ in ()).throw(other))
    monkeypatch.setattr(progress.Progress, "on_evaluation", lambda *a, **k: None)
    with pytest.raises(SystemError) as info:
        BoundSVC(random_state=0).fit(X, y)
    assert info.value is other


def test_a_ctrl_c_landing_in_the_jit_compiler_is_raised_a_moment_later(small, monkeypatch,
                                                                       default_sigint):
    """During a fit (main thread, SIGINT at Python's own handler) a Ctrl-C whose handler runs
    inside numba's or llvmlite's own code — where an exception is lost, becomes a SystemError
    or leaves LLVM without its buffer — is sent again ``RESEND_S`` later and raised outside it:
    the fit stops with the KeyboardInterrupt and the search so far. Python's handler is back
    after the fit; a handler of the caller's own is left alone."""
    import ctypes
    import types

    import llvmlite.binding.ffi

    import svmbound.progress as progress
    from svmbound.solvers.interrupt import in_jit_compiler

    X, y = small
    frame = lambda path, back=None: types.SimpleNamespace(            # noqa: E731
        f_back=back, f_code=types.SimpleNamespace(co_filename=path))
    in_llvmlite = frame(llvmlite.binding.ffi.__file__)
    assert in_jit_compiler(in_llvmlite)           # a folder merely named numba is not numba
    assert not in_jit_compiler(frame(os.path.join(os.sep, "home", "numba", "svmbound", "x.py")))
    assert in_jit_compiler(frame(ctypes.__file__, in_llvmlite))   # ctypes, called by llvmlite
    assert not in_jit_compiler(frame(ctypes.__file__, frame(__file__)))
    seen = []

    def hook(self, ev, replayed=False):
        seen.append(signal.getsignal(signal.SIGINT))
        if len(seen) == 2:
            seen[-1](signal.SIGINT, in_llvmlite)     # returns: nothing raised there
            time.sleep(5.0)                          # the Ctrl-C sent again, raised here

    monkeypatch.setattr(progress.Progress, "on_evaluation", hook)
    est = BoundSVC(random_state=0)
    with pytest.raises(KeyboardInterrupt) as info:
        est.fit(X, y)
    assert len(seen) == 2 and seen[0] is not signal.default_int_handler
    assert est.search_ is info.value.search_result and est.search_.nfev == 2
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    own = lambda *a: None                                            # noqa: E731
    signal.signal(signal.SIGINT, own)
    seen.clear()
    monkeypatch.setattr(progress.Progress, "on_evaluation",
                        lambda self, ev, replayed=False: seen.append(
                            signal.getsignal(signal.SIGINT)))
    BoundSVC(random_state=0).fit(X, y)
    assert set(seen) == {own} and signal.getsignal(signal.SIGINT) is own

# -- log and resume ----------------------------------------------------------------------------
SEARCHES = {
    "bfgs": {},
    "lbfgsb": {},
    "projected-gradient": {"max_iter": 8},
    "grid": {"grid": {"log_C": (-2, 4, 2), "log_sigma2": (-2, 4, 2)}},
    "annealing": {"max_epochs": 12, "random_state": 0},
}


def _assert_resumed_trainings(res, ref):
    """A resumed fit makes the trainings the uninterrupted one made, and at most one more: the
    L2 searches' common solve at θ₀ (``StrategyConfig.share_cold_solves``) is made before the
    searches, again when they resume from the log."""
    assert ref.n_trainings_ <= res.n_trainings_ <= ref.n_trainings_ + 1


@pytest.mark.parametrize("search", sorted(SEARCHES))
def test_resume_after_an_interruption_ends_where_the_uninterrupted_run_ends(
        small, tmp_path, monkeypatch, search):
    X, y = small
    kw = dict(search=search, **SEARCHES[search])
    ref = BoundSVC(**kw).fit(X, y)
    k = ref.search_.nfev // 2
    log = tmp_path / "run.jsonl"
    with monkeypatch.context() as m:
        interrupt_after(m, k)
        with pytest.raises(KeyboardInterrupt):
            BoundSVC(log_file=str(log), **kw).fit(X, y)
    lines = log.read_text().splitlines()
    assert len(lines) == 1 + k
    entry = json.loads(lines[1])
    for key in ("theta", "value", "grad", "time_s", "info"):
        assert key in entry
    with open(log, "a") as f:                      # a line cut short by the kill
        f.write(lines[-1][: len(lines[-1]) // 2])
    calls = []
    with monkeypatch.context() as m:
        import svmbound.criteria.base as base

        real = base.Criterion.evaluate
        m.setattr(base.Criterion, "evaluate",
                  lambda self, theta, need_grad=True: calls.append(1) or real(self, theta,
                                                                               need_grad))
        res = BoundSVC(log_file=str(log), resume=True, **kw).fit(X, y)
    assert np.abs(res.best_theta_ - ref.best_theta_).max() <= 1e-6
    assert res.search_.nfev <= ref.search_.nfev
    _assert_resumed_trainings(res, ref)
    n_total = len(log.read_text().splitlines()) - 1
    # + the fit's own f(start) (gtol) before each SciPy-style search; criterion='auto' (the
    # default) runs two of them (span and radius-margin; its per-feature search stops on its
    # budget, gtol 0, and makes none)
    assert n_total == ref.search_.nfev + 2 * (search in ("lbfgsb", "projected-gradient"))
    assert len(calls) == n_total - k                            # no evaluation made twice


def test_resume_in_the_validation_of_the_candidates_trains_only_what_the_log_lacks(
        small, tmp_path, monkeypatch):
    """Interrupted after the first CV candidate of criterion='auto' (the span minimum; with the
    L1 loss its step in C comes next): the resumed run answers it from the log, trains the
    folds of the others (the minimum's folds again, for the warm start of its step in C, whose
    values must be the uninterrupted run's) and picks what the uninterrupted run picked."""
    from svmbound.criteria.reference import CrossValidationError

    X, y = small
    kw = dict(loss="l1", strategy_config=ISOTROPIC_CONFIG)   # the candidates' CV comes last
    ref = BoundSVC(**kw).fit(X, y)
    n_cand = len(ref.search_.candidates)
    k = ref.search_.nfev - n_cand + 1
    log = tmp_path / "run.jsonl"
    with monkeypatch.context() as m:
        interrupt_after(m, k)
        with pytest.raises(KeyboardInterrupt):
            BoundSVC(log_file=str(log), **kw).fit(X, y)
    asked = []
    with monkeypatch.context() as m:
        real = CrossValidationError.precompute
        m.setattr(CrossValidationError, "precompute",
                  lambda self, thetas, skip=0: asked.append((len(thetas), skip)) or
                  real(self, thetas, skip))
        res = BoundSVC(log_file=str(log), resume=True, **kw).fit(X, y)
    assert asked == [(n_cand, 1)]
    assert "ln C +2" in ref.search_.candidates[1]["source"]
    assert res.search_.candidates == ref.search_.candidates
    np.testing.assert_array_equal(res.best_theta_, ref.best_theta_)
    np.testing.assert_array_equal(res.predict(X), ref.predict(X))

def test_a_log_from_other_data_or_parameters_is_refused(small, tmp_path):
    X, y = small
    log = str(tmp_path / "run.jsonl")
    BoundSVC(log_file=log, max_iter=2).fit(X, y)
    with pytest.raises(LogMismatch, match="other training data"):
        BoundSVC(log_file=log, resume=True, max_iter=2).fit(X[:-1], y[:-1])
    with pytest.raises(LogMismatch, match="max_iter: 2 in the log, 3 now"):
        BoundSVC(log_file=log, resume=True, max_iter=3).fit(X, y)



@pytest.mark.parametrize("change, message", [
    (lambda e: {**e, "grad": [float("nan")] * len(e["theta"])}, "gradient .* is not 2 finite"),
    (lambda e: {**e, "value": None}, "value None is not a number"),
    (lambda e: {**e, "value": float("nan")}, "value nan is not a number"),
    (lambda e: {**e, "theta": [10 ** 400, 0.0]}, "theta .* is not a list of finite numbers"),
    (lambda e: {k: v for k, v in e.items() if k != "tag"}, "no stage tag"),
    (lambda e: {k: v for k, v in e.items() if k != "theta"}, "theta None is not a list of"),
    (lambda e: {**e, "info": [1, 2]}, "info is not a JSON object"),
    (lambda e: {**e, "need_grad": "no"}, "need_grad is not true or false"),
    (lambda e: 5, " is not an evaluation"),
])
def test_a_damaged_log_entry_is_refused_by_line(small, tmp_path, change, message):
    """A resume reads every logged evaluation as the search would use it: one that is not an
    object, lacks a field, or holds a NaN (a NaN gradient moved the search silently) is a
    LogMismatch naming the file and the line, not a traceback from inside the replay."""
    import json

    X, y = small
    log = tmp_path / "run.jsonl"
    BoundSVC(log_file=str(log), max_iter=2, criterion="span").fit(X, y)
    lines = log.read_text().splitlines()
    lines[1] = json.dumps(change(json.loads(lines[1])))
    log.write_text("\n".join(lines) + "\n")
    with pytest.raises(LogMismatch, match=rf"run.jsonl line 2.*{message}"):
        BoundSVC(log_file=str(log), resume=True, max_iter=2, criterion="span").fit(X, y)


def test_a_new_log_refuses_a_file_that_is_not_a_log_and_says_it_replaces_one(small, tmp_path):
    from svmbound.exceptions import SearchLogWarning

    X, y = small
    data = tmp_path / "train.libsvm"
    data.write_text("1 1:0.5 2:1\n-1 1:0.25\n")
    with pytest.raises(LogMismatch, match="train.libsvm exists and is not a svmbound search log"):
        BoundSVC(log_file=str(data), max_iter=2).fit(X, y)
    assert data.read_text() == "1 1:0.5 2:1\n-1 1:0.25\n"          # left as it was
    log = tmp_path / "run.jsonl"
    BoundSVC(log_file=str(log), max_iter=2).fit(X, y)
    first = log.read_text().splitlines()
    with pytest.warns(SearchLogWarning, match=rf"held the log of an earlier run "
                                              rf"\({len(first) - 1} evaluations\): replaced"):
        BoundSVC(log_file=str(log), max_iter=2).fit(X, y)
    assert len(log.read_text().splitlines()) == len(first)

def test_resume_after_kill_9(small, tmp_path):
    """A subprocess whose evaluations are slowed down is killed with SIGKILL after a few logged
    evaluations; the resumed run matches the uninterrupted one."""
    X, y = small
    np.save(tmp_path / "X.npy", X)
    np.save(tmp_path / "y.npy", y)
    log = tmp_path / "run.jsonl"
    script = tmp_path / "slow.py"
    script.write_text(textwrap.dedent(f"""
        import time
        import numpy as np
        import svmbound.criteria.base as base
        from svmbound import BoundSVC
        real = base.Criterion.evaluate
        def slow(self, theta, need_grad=True):
            time.sleep(0.3)
            return real(self, theta, need_grad)
        base.Criterion.evaluate = slow
        X, y = np.load({str(tmp_path / "X.npy")!r}), np.load({str(tmp_path / "y.npy")!r})
        BoundSVC(log_file={str(log)!r}).fit(X, y)
        print("finished")
    """))
    p = subprocess.Popen([sys.executable, str(script)], cwd=REPO, env=_env(),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and p.poll() is None:
            if log.exists() and log.read_text().count("\n") >= 4:   # header + 3 evaluations
                break
            time.sleep(0.02)
        p.send_signal(signal.SIGKILL)
        out, err = p.communicate(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == -signal.SIGKILL and b"finished" not in out, err.decode()
    ref = BoundSVC().fit(X, y)
    res = BoundSVC(log_file=str(log), resume=True).fit(X, y)
    assert np.abs(res.best_theta_ - ref.best_theta_).max() <= 1e-6
    assert res.search_.nfev <= ref.search_.nfev
    _assert_resumed_trainings(res, ref)


# -- CLI ---------------------------------------------------------------------------------------
@pytest.fixture()
def train_file(small, tmp_path):
    X, y = small
    path = tmp_path / "train.txt"
    dump_svmlight_file(X, y, str(path))
    return path


def test_cli_log_then_resume_a_finished_run_repeats_nothing(train_file, tmp_path, capsys):
    log = tmp_path / "run.jsonl"
    assert main(["tune", str(train_file), "--json", "--quiet", "--log", str(log)]) == 0
    first = json.loads(capsys.readouterr().out)
    n_lines = len(log.read_text().splitlines())
    assert n_lines == 1 + first["nfev"]
    # --log refuses to overwrite a log; --resume continues it (here: nothing left to do)
    assert main(["tune", str(train_file), "--quiet", "--log", str(log)]) == 2
    assert "--resume" in capsys.readouterr().err
    assert main(["tune", str(train_file), "--json", "--quiet", "--resume", str(log)]) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["log_C"] == first["log_C"] and again["nfev"] == first["nfev"]
    assert len(log.read_text().splitlines()) == n_lines
    # other options than the log's: refused with the differing parameter named
    assert main(["tune", str(train_file), "--quiet", "--resume", str(log), "--tol", "1e-3"]) == 2
    assert "tol: 1e-06 in the log, 0.001 now" in capsys.readouterr().err


def test_cli_progress_bar_on_request_only(train_file, capsys):
    assert main(["tune", str(train_file), "--quiet", "--max-iter", "2"]) == 0
    assert capsys.readouterr().err == ""
    assert main(["tune", str(train_file), "--quiet", "--progress", "--max-iter", "2"]) == 0
    err = capsys.readouterr().err
    assert "svmbound bfgs" in err and "eval" in err and "[svmbound] iter" not in err


def test_cli_ctrl_c_between_evaluations_prints_the_best_point_and_returns_130(
        train_file, tmp_path, monkeypatch, capsys):
    interrupt_after(monkeypatch, 2)
    log = tmp_path / "run.jsonl"
    assert main(["tune", str(train_file), "--quiet", "--log", str(log)]) == 130
    out = capsys.readouterr()
    assert "interrupted after 2 evaluations" in out.out and "best so far" in out.out
    assert f"--resume {log}" in out.out and "Traceback" not in out.err
    monkeypatch.undo()
    assert main(["tune", str(train_file), "--json", "--quiet", "--resume", str(log)]) == 0
    done = json.loads(capsys.readouterr().out)
    assert main(["tune", str(train_file), "--json", "--quiet"]) == 0
    ref = json.loads(capsys.readouterr().out)
    assert done["log_C"] == ref["log_C"] and done["nfev"] == ref["nfev"]


def test_a_random_run_needs_an_int_seed_to_be_logged(small, tmp_path):
    X, y = small
    with pytest.raises(ValueError, match="int random_state"):
        BoundSVC(search="annealing", log_file=str(tmp_path / "a.jsonl")).fit(X, y)
    with pytest.raises(ValueError, match="int random_state"):
        BoundSVC(criterion="smoothed-validation",
                 log_file=str(tmp_path / "b.jsonl")).fit(X, y)
    BoundSVC(log_file=str(tmp_path / "c.jsonl"), max_iter=1).fit(X, y)   # rm-l2: no seed needed


def test_the_command_says_it_is_starting_within_a_second(tmp_path):
    """Issue 15: a long run's first progress line within a second — ``import svmbound`` no longer
    loads scikit-learn/SciPy/numba, and the entry point prints a line before loading them."""
    import subprocess
    import sys

    code = "import sys, svmbound; print(sorted(m for m in ('sklearn', 'scipy', 'numba') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
    f = tmp_path / "d.txt"
    f.write_text("+1 1:0.5\n-1 1:0.1\n")
    proc = subprocess.Popen([sys.executable, "-c", "import sys; from svmbound._launch import main; "
                             "sys.exit(main())", "tune", str(f), "--progress", "--max-iter", "1"],
                            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    first = proc.stderr.readline()      # printed before the heavy imports (see _launch)
    proc.kill()
    proc.wait()
    assert first.startswith("[svmbound] starting")


def test_a_run_logged_on_one_thread_resumes_on_two(small, tmp_path, monkeypatch):
    """n_jobs does not change the result, so it is not a setting of the log: a run logged
    with n_jobs=1 and interrupted resumes with n_jobs=2 and ends where the uninterrupted run
    ends."""
    X, y = small
    ref = BoundSVC(n_jobs=1).fit(X, y)
    log = tmp_path / "run.jsonl"
    with monkeypatch.context() as m:
        interrupt_after(m, ref.search_.nfev // 2)
        with pytest.raises(KeyboardInterrupt):
            BoundSVC(log_file=str(log), n_jobs=1).fit(X, y)
    res = BoundSVC(log_file=str(log), resume=True, n_jobs=2).fit(X, y)
    np.testing.assert_array_equal(res.best_theta_, ref.best_theta_)
    assert res.search_.candidates == ref.search_.candidates
    np.testing.assert_array_equal(res.predict(X), ref.predict(X))


# -- a stop after the search (issue 29 item 3) -------------------------------------------------
def test_ctrl_c_in_the_final_training_keeps_the_finished_search(small, monkeypatch):
    """The search had ended when Ctrl-C came in the final training: ``search_`` and the
    exception's ``search_result`` are that search, with its chosen point and the phase cut;
    no model of an earlier fit is left to be taken for this one's."""
    import svmbound.fit_flow as flow

    X, y = small
    est = BoundSVC(random_state=0).fit(X[::-1], y[::-1])      # an earlier fit
    ref = BoundSVC(random_state=0).fit(X, y)

    def cut(self, *a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(flow.BinaryMachine, "train", cut)
    with pytest.raises(KeyboardInterrupt) as info:
        est.fit(X, y)
    res = info.value.search_result
    assert est.search_ is res
    assert res.phase == "final training" and "final training" in res.message
    assert res.nfev == ref.search_.nfev
    np.testing.assert_array_equal(res.x, ref.search_.x)
    assert res.params["C"] == pytest.approx(np.exp(ref.search_.x[0]))
    assert not hasattr(est, "dual_coef_") and not hasattr(est, "best_params_")


def test_cli_ctrl_c_in_the_final_training_reports_the_search(train_file, monkeypatch, capsys):
    import svmbound.fit_flow as flow

    def cut(self, *a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(flow.BinaryMachine, "train", cut)
    assert main(["tune", str(train_file), "--json", "--quiet"]) == 130
    report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert report["interrupted"] and report["nfev"] > 0 and report["theta"] is not None
    assert "final training" in report["message"]


def test_n_folds_above_the_smallest_class_is_lowered_with_a_warning():
    from svmbound.exceptions import DataWarning

    X, y = make_classification(n_samples=60, n_features=4, weights=[0.95], flip_y=0,
                               random_state=0)
    assert np.bincount(y).min() == 3
    with pytest.warns(DataWarning, match="n_folds=5 but the smallest class has 3 samples: "
                                         "the validation uses 3 stratified folds"):
        est = BoundSVC(random_state=0).fit(X, y)
    assert est.search_.n_folds == 3


def test_progress_names_the_stage_and_keeps_one_best_per_stage():
    """issue 30 item 6: values of different criteria are not mixed: each stage's best."""
    import io

    from svmbound.criteria.base import Evaluation
    from svmbound.progress import Progress

    out = io.StringIO()
    bar = Progress(True, total=4, file=out)
    for stage, value in (("span", 10.0), ("span", 8.0), ("rm-l2", 120.0), ("rm-l2", 130.0)):
        bar.on_evaluation(Evaluation(np.zeros(2), value, None, {"stage": stage}))
    assert bar.best == {"span": 8.0, "rm-l2": 120.0}
    assert bar.bar.postfix is not None and "rm-l2" in bar.bar.postfix
    bar.close()


def test_default_strategy_progress_total_is_its_budget(small):
    """The bar of the default strategy has a total: the searches' budgets and the candidates
    (12 for L2: 4 + 5 evaluations, 3 candidates), so that tqdm shows an ETA."""
    X, y = small
    est = BoundSVC(random_state=0)
    assert est._progress_total(None, None, None) == 4 + 5 + 3
    assert BoundSVC(loss="l1")._progress_total(None, None, None) == 4 + 6 + 3
    # on dense rows the per-feature search too: its 8 evaluations and its candidate
    assert est._progress_total(None, None, None, X) == 4 + 5 + 3 + 8 + 1
    est.fit(X, y)
    # the total is what a fit about makes, or fewer when the per-feature search stopped early
    assert est.n_iter_ <= 21 + 4
    assert est.search_.ard["stopped"] or abs(est.n_iter_ - 21) <= 4
