"""Search log and resume: one JSON line per criterion evaluation, replayed to continue a run.

Every search (projected BFGS, L-BFGS-B, projected gradient, grid, annealing) is deterministic
given the values and gradients its criterion returns (annealing: given its seed too). So a run
that was killed — Ctrl-C, ``kill -9``, a lost machine — is resumed by running the *same* search
again on a criterion that answers the evaluations already made from the log, without solving,
and evaluates (and logs) only the points after them. The resumed run ends where the
uninterrupted one ends and makes no evaluation twice.

Pieces:

* :class:`SearchLog` — the file. Line 1 is a header: ``{"svmbound_log": 1, "data": <sha256 of
  X and y>, "run": {<the estimator parameters>}, "created": …}``; a resume refuses a log whose
  data fingerprint or parameters differ (``LogMismatch``, a ValueError that names them). Then
  one line per evaluation::

      {"i": 0, "tag": "search", "theta": [...], "need_grad": true, "value": 0.93,
       "grad": [...] | null, "time_s": 0.012, "wall": 1718000000.0, "n_trainings": 1,
       "info": {"C": ..., "n_sv": ..., "n_iter": ..., "R2": ..., ...}}

  — θ and need_grad identify the evaluation, value and grad are what the search needs to go
  on, time_s and info (the criterion's diagnostics: solver iterations, support vectors, R²…)
  are for the reader. Floats are written with ``repr`` precision, so θ, value and gradient come
  back bit for bit. Each line is written with one ``write`` and flushed, so a killed process
  leaves at most a partly written last line; it is dropped (and cut off the file) on resume.
* A state file ``<log>.state`` (and ``<log>.state.prev``, the one before): the
  criterion's ``warm_state()`` as JSON plus NumPy arrays (``search.state_file``: nothing in it
  can run code) — warm-start solutions, cached R², counters — after the latest
  logged evaluation. The first evaluation after the replay is warm-started exactly as in the
  uninterrupted run, so it returns the same bits and the search continues on the same path. The
  state is written (atomically, by rename) before the log line, the previous one kept, so that
  after a kill at any moment one of the two matches the log. Without a matching state file the
  resumed run still works but starts its solves cold (a warning says so) and may differ from an
  uninterrupted run at the level of the solver tolerance; so does a damaged or foreign state
  file (an older pickle one included), with a warning that says why.
* :class:`LoggedCriterion` — wraps any criterion object (``evaluate``/``fun``/``grad``; other
  attributes are passed through, also for assignment) and answers evaluations from the log in
  order while it can, then evaluates and logs. It also keeps every evaluation of the run (for
  the best point so far after an interruption, :meth:`LoggedCriterion.partial_result`) and
  calls ``on_evaluation(ev, replayed)`` after each one (progress bars). Without a log it only
  records. Several criteria (stages of one fit) may share one log under different ``tag``\\ s;
  the replay follows the order of the log across them.

While a :class:`SearchLog` is open it holds an exclusive advisory lock on the log file
(``fcntl.flock``, LOCK_EX | LOCK_NB, taken before the file is read or cut): a second run that
opens the same log to write it — two ``--resume run.jsonl`` at once, or a resume of a log that
another run still writes — gets :class:`LogInUse` at once, naming the file, instead of
interleaving lines or reading a half-written one. The lock goes with the process (a killed run
leaves none behind). Where the file system cannot lock (some network file systems), a
warning says so and the log is used without the lock.

Replayed evaluations do not change the wrapped criterion (no solve); their ``info`` carries
``"replayed": True``. Code that reads solver state off the criterion right after an evaluation
(``criterion._svm_prev``) sees the state restored after the last replayed one.
"""

from __future__ import annotations

import json
import os
import time
import warnings

import numpy as np

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX: no lock (a warning says so)
    fcntl = None

from ..criteria.base import Evaluation, Objective
from ..exceptions import SearchLogWarning
from ..kernels import with_gamma
from .result import SearchResult
from .state_file import StateFileError, encode, read_states, write_states

__all__ = ["SearchLog", "LoggedCriterion", "RunControl", "LogMismatch", "LogInUse",
           "jsonable", "partial_result", "LOG_VERSION", "INTERRUPTED"]

LOG_VERSION = 1
#: ``status`` of the partial SearchResult of an interrupted search.
INTERRUPTED = -1


class LogMismatch(ValueError):
    """The log does not belong to this run (other data, other parameters, or the search asks
    for other points than the log holds)."""


class LogInUse(ValueError):
    """Another process (or another open :class:`SearchLog`) is writing this log: it holds the
    file's lock."""


def _lock(fd: int, path: str) -> None:
    """Take the exclusive lock of the log open as ``fd``, without waiting: ``LogInUse`` when
    another holds it; a warning where the file system cannot lock."""
    if fcntl is None:  # pragma: no cover - not POSIX
        warnings.warn(f"{path}: this system has no fcntl.flock; the log is not locked against "
                      "a second run writing it", RuntimeWarning, stacklevel=4)
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise LogInUse(f"{path} is in use: another svmbound run is writing it (it holds the "
                       "file's lock); wait until that run ends, or log to another file") from None
    except OSError as exc:
        warnings.warn(f"{path}: cannot lock the log ({exc.strerror or exc}); a second run "
                      "writing it at the same time would damage it", RuntimeWarning,
                      stacklevel=4)


def jsonable(obj):
    """``obj`` with numpy scalars and arrays as Python numbers and lists, tuples as lists,
    dict keys as strings, and anything else JSON cannot hold as its ``repr``."""
    if isinstance(obj, dict):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return jsonable(obj.tolist())
    if isinstance(obj, np.generic):
        return obj.item()
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    return repr(obj)


def _normalised(obj):
    """What ``obj`` reads back as from a JSON line (for comparing with a logged header)."""
    return json.loads(json.dumps(jsonable(obj)))


def _number(x, finite: bool = True) -> bool:
    """Whether x is a JSON number (not a boolean) that float64 holds: finite with ``finite``,
    else not NaN (an integer beyond float64's range is none)."""
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return False
    try:
        v = float(x)
    except OverflowError:
        return False
    return np.isfinite(v) if finite else not np.isnan(v)


def _numbers(v) -> bool:
    """Whether v is a JSON list of finite numbers."""
    return isinstance(v, list) and all(_number(x) for x in v)


def _entry_problem(entry: dict) -> str | None:
    """What is wrong with a logged evaluation (the fields ``SearchLog.record`` writes that a
    replay reads), or None: θ a list of finite numbers, the value a number (±inf allowed, as a
    criterion may return it; not NaN), the gradient null or finite numbers, one per θ entry."""
    theta, value, grad = entry.get("theta"), entry.get("value"), entry.get("grad")
    if not isinstance(entry.get("tag"), str):
        return "no stage tag"
    if not _numbers(theta) or not theta:
        return f"theta {theta!r} is not a list of finite numbers"
    if not isinstance(entry.get("need_grad"), bool):
        return "need_grad is not true or false"
    if not _number(value, finite=False):
        return f"value {value!r} is not a number"
    if grad is not None and not (_numbers(grad) and len(grad) == len(theta)):
        return f"gradient {grad!r} is not {len(theta)} finite numbers"
    if not isinstance(entry.get("info"), dict):
        return "info is not a JSON object"
    return None


class SearchLog:
    """An append-only JSON-lines log of criterion evaluations, with the replay cursor of a
    resumed run (module docstring).

    Parameters
    ----------
    path : the log file.
    data : the fingerprint of the training data (``training_data.data_fingerprint``).
    run : dict of the parameters that determine the search (JSON-able after :func:`jsonable`).
    resume : continue the log at ``path`` if it exists (replaying its evaluations); otherwise,
        or when False, start a new log there (an earlier run's log is replaced, with a
        ``SearchLogWarning``; a file that is not a svmbound log is refused: ``LogMismatch``).
    """

    def __init__(self, path, data: str, run: dict, *, resume: bool = False):
        self.path = os.fspath(path)
        self.state_path = self.path + ".state"
        self.data = data
        self.run = _normalised(run)
        self.entries: list[dict] = []
        self.cursor = 0                  # next entry to replay
        self._restore_at: dict = {}      # entry index -> warm state to restore after it
        self._states: dict = {}          # tag -> (entry index, encoded warm state)
        self.resumed = False
        self._file = None
        # opened without cutting it, locked, then read or cut: never touched unlocked
        self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o666)
        try:
            _lock(self._fd, self.path)
            if resume and os.fstat(self._fd).st_size > 0:
                self._open_existing()
                self.resumed = True
            else:
                self._check_replaceable()
                self._start_new()
        except BaseException:
            self.close()
            raise

    # -- opening -------------------------------------------------------------------------
    def _check_replaceable(self):
        """Before a new log replaces the file at ``path``: a file that is not a svmbound search
        log (its first line not a log header) is refused (``LogMismatch``, the file untouched);
        an earlier run's log is replaced with a warning that says how many evaluations it held
        (``resume=True`` continues it instead)."""
        if os.fstat(self._fd).st_size == 0:
            return
        os.lseek(self._fd, 0, os.SEEK_SET)
        with open(self._fd, "rb", closefd=False) as f:
            lines = f.read().split(b"\n")
        try:
            header = json.loads(lines[0])
        except ValueError:
            header = None
        if not (isinstance(header, dict) and "svmbound_log" in header):
            raise LogMismatch(f"{self.path} exists and is not a svmbound search log: it is left "
                              "as it is; give the log a path of its own")
        done = sum(1 for line in lines[1:] if line.strip())
        warnings.warn(f"svmbound: {self.path} held the log of an earlier run ({done} "
                      "evaluations): replaced by this run's (resume=True continues a logged "
                      "run)", SearchLogWarning, stacklevel=4)

    def _start_new(self):
        for p in (self.state_path, self.state_path + ".prev"):
            if os.path.exists(p):
                os.remove(p)
        os.ftruncate(self._fd, 0)
        self._open_for_append()
        header = {"svmbound_log": LOG_VERSION, "data": self.data, "run": self.run,
                  "created": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
        self._write_line(header)

    def _open_for_append(self):
        """The text file the lines are written to, on the locked descriptor (its end)."""
        os.lseek(self._fd, 0, os.SEEK_END)
        self._file = open(self._fd, "a", encoding="utf-8", closefd=True)
        self._fd = None                  # closed with the file (which releases the lock)

    def _open_existing(self):
        os.lseek(self._fd, 0, os.SEEK_SET)
        with open(self._fd, "rb", closefd=False) as f:
            raw = f.read()
        lines = raw.split(b"\n")
        tail = lines.pop()               # b"" when the file ends with a newline
        good_len = len(raw) - len(tail)
        if not lines:                    # only a partly written header: start again
            self._start_new()
            return
        try:
            header = json.loads(lines[0])
        except ValueError:
            raise LogMismatch(f"{self.path} is not a svmbound search log (line 1 is not "
                              "JSON)") from None
        if not isinstance(header, dict) or header.get("svmbound_log") != LOG_VERSION:
            raise LogMismatch(f"{self.path} is not a svmbound search log (version "
                              f"{LOG_VERSION})")
        self._check_header(header)
        for k, line in enumerate(lines[1:], start=2):
            try:
                entry = json.loads(line)
            except ValueError:
                raise LogMismatch(f"{self.path} line {k} is not valid JSON: the log is "
                                  "damaged") from None
            if not isinstance(entry, dict):
                raise LogMismatch(f"{self.path} line {k} is not an evaluation (a JSON object): "
                                  "the log is damaged")
            if entry.get("i") != len(self.entries):
                raise LogMismatch(f"{self.path} line {k}: evaluation number {entry.get('i')}, "
                                  f"expected {len(self.entries)}: the log is damaged")
            why = _entry_problem(entry)
            if why is not None:
                raise LogMismatch(f"{self.path} line {k}: {why}: the log is damaged")
            self.entries.append(entry)
        if tail:                         # a line cut short by a kill: drop it
            os.ftruncate(self._fd, good_len)
        self._load_states()
        self._open_for_append()

    def _check_header(self, header):
        if header.get("data") != self.data:
            raise LogMismatch(f"{self.path} was written for other training data (fingerprint "
                              f"{str(header.get('data'))[:12]}…, this data "
                              f"{self.data[:12]}…); start a new log")
        logged = header.get("run", {})
        if not isinstance(logged, dict):
            raise LogMismatch(f"{self.path}: the parameters in line 1 are not a JSON object: "
                              "the log is damaged")
        if logged != self.run:
            keys = sorted(set(logged) | set(self.run))
            diff = [f"{k}: {logged.get(k, '<absent>')!r} in the log, "
                    f"{self.run.get(k, '<absent>')!r} now"
                    for k in keys if logged.get(k, "<absent>") != self.run.get(k, "<absent>")]
            raise LogMismatch(f"{self.path} was written with other parameters ("
                              + "; ".join(diff) + "); start a new log or use the same ones")

    def _load_states(self):
        """Find, per tag, the warm state saved right after that tag's last logged evaluation."""
        last = {}
        for i, e in enumerate(self.entries):
            last[e["tag"]] = i
        candidates, problems = [], []
        for p in (self.state_path, self.state_path + ".prev"):
            if not os.path.exists(p):
                continue
            try:
                candidates.append(read_states(p))
            except (OSError, StateFileError) as exc:
                problems.append(f"{os.path.basename(p)} ignored: {exc}")
        for tag, i in last.items():
            for states in candidates:
                found = states.get(tag)
                if found is not None and found[0] == i:
                    arrays = {}
                    self._states[tag] = (i, (encode(found[1], arrays), arrays))
                    self._restore_at[i] = found[1]
                    break
            else:
                why = f" ({'; '.join(problems)})" if problems else ""
                warnings.warn(f"{self.path}: no solver state saved after evaluation {i} "
                              f"({tag!r}){why}; the resumed run starts its solves cold and may "
                              "differ slightly from an uninterrupted one", RuntimeWarning,
                              stacklevel=3)

    # -- replay and record ---------------------------------------------------------------
    @property
    def n_entries(self) -> int:
        return len(self.entries)

    @property
    def replaying(self) -> bool:
        return self.cursor < len(self.entries)

    def replay(self, tag: str, theta: np.ndarray, need_grad: bool):
        """(entry, warm state to restore or None) for the next evaluation if the log holds it,
        else (None, None). Raises ``LogMismatch`` if the log holds a different one."""
        if self.cursor >= len(self.entries):
            return None, None
        entry = self.entries[self.cursor]
        if (entry["tag"] != tag or entry["theta"] != theta.tolist()
                or bool(entry["need_grad"]) != bool(need_grad)):
            raise LogMismatch(
                f"{self.path}: evaluation {self.cursor} of the log is at theta = "
                f"{entry['theta']} ({entry['tag']}, gradient: {entry['need_grad']}), but the "
                f"resumed search asks for theta = {theta.tolist()} ({tag}, gradient: "
                f"{need_grad}): the log comes from another run; start a new log")
        state = self._restore_at.pop(self.cursor, None)
        self.cursor += 1
        return entry, state

    def record(self, tag: str, ev: Evaluation, need_grad: bool, state: dict | None = None,
               n_trainings: int | None = None) -> dict:
        """Append the evaluation ``ev`` (and save ``state``, the criterion's warm state after
        it, first). Returns the entry."""
        i = len(self.entries)
        entry = {"i": i, "tag": tag, "theta": [float(v) for v in ev.theta],
                 "need_grad": bool(need_grad), "value": float(ev.value),
                 "grad": None if ev.grad is None else [float(v) for v in ev.grad],
                 "time_s": float(ev.info.get("time_s", 0.0)), "wall": time.time(),
                 "n_trainings": n_trainings, "info": jsonable(ev.info)}
        if state is not None:
            arrays = {}
            try:
                self._states[tag] = (i, (encode(state, arrays), arrays))
            except StateFileError as exc:       # a resume of this tag will start cold
                self._states.pop(tag, None)
                warnings.warn(f"{self.path}: the solver state after evaluation {i} is not "
                              f"saved ({exc})", RuntimeWarning, stacklevel=3)
            self._save_states()
        self._write_line(entry)
        self.entries.append(entry)
        self.cursor = len(self.entries)
        return entry

    def _save_states(self):
        write_states(self.state_path, self._states, previous=self.state_path + ".prev")

    def _write_line(self, obj):
        self._file.write(json.dumps(obj) + "\n")   # one write: a kill leaves a prefix at most
        self._file.flush()

    def close(self):
        """Close the log and release its lock."""
        f = getattr(self, "_file", None)
        if f is not None and not f.closed:
            f.close()
        fd = getattr(self, "_fd", None)
        if fd is not None:
            self._fd = None
            os.close(fd)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


class LoggedCriterion(Objective):
    """A criterion whose evaluations are recorded, logged to a :class:`SearchLog` and, on a
    resumed run, answered from it (module docstring). Use it wherever the criterion goes
    (``fun``/``grad`` for the gradient searches, ``evaluate`` for the grid,
    ``criterion_objective`` for annealing); every other attribute is the wrapped criterion's.

    Parameters
    ----------
    criterion : a criterion object (``svmbound.criteria``) — or anything with ``evaluate``,
        ``differentiable``, and for a log ``warm_state``/``set_warm_state``.
    log : SearchLog or None (record only).
    tag : name of this criterion's evaluations in a log shared by several criteria.
    on_evaluation : ``on_evaluation(ev, replayed)`` after each evaluation, or None.
    """

    _OWN = ("_inner", "_log", "_tag", "_on_evaluation", "_last", "evaluations", "replayed",
            "n_grad_calls", "_t0")

    def __init__(self, criterion, log: SearchLog | None = None, *, tag: str = "search",
                 on_evaluation=None):
        object.__setattr__(self, "_inner", criterion)
        object.__setattr__(self, "_log", log)
        object.__setattr__(self, "_tag", tag)
        object.__setattr__(self, "_on_evaluation", on_evaluation)
        object.__setattr__(self, "_last", None)
        object.__setattr__(self, "evaluations", [])   # every Evaluation, in order
        object.__setattr__(self, "replayed", [])      # whether each was answered from the log
        object.__setattr__(self, "n_grad_calls", 0)
        object.__setattr__(self, "_t0", time.perf_counter())

    # -- pass-through --------------------------------------------------------------------
    def __getattr__(self, name):
        return getattr(self._inner, name)

    def __setattr__(self, name, value):
        if name in self._OWN:
            object.__setattr__(self, name, value)
        else:
            setattr(self._inner, name, value)

    @property
    def criterion(self):
        """The wrapped criterion."""
        return self._inner

    @property
    def last(self) -> Evaluation | None:
        return self._last

    # -- evaluations ---------------------------------------------------------------------
    def evaluate(self, theta, need_grad: bool = True) -> Evaluation:
        theta = np.array(theta, dtype=np.float64).ravel()
        entry = state = None
        if self._log is not None:
            entry, state = self._log.replay(self._tag, theta, need_grad)
        if entry is not None:
            grad = entry["grad"]
            ev = Evaluation(theta=theta, value=float(entry["value"]),
                            grad=None if grad is None else np.array(grad, dtype=np.float64),
                            info={**entry["info"], "replayed": True})
            if state is not None:
                self._inner.set_warm_state(state)
        else:
            ev = self._inner.evaluate(theta, need_grad=need_grad)
            if self._log is not None:
                self._log.record(self._tag, ev, need_grad, state=self._inner.warm_state(),
                                 n_trainings=getattr(self._inner, "n_trainings", None))
        ev.info.setdefault("elapsed_s", time.perf_counter() - self._t0)
        ev.info.setdefault("stage", self._tag)          # for the progress bar
        self._last = ev
        self.evaluations.append(ev)
        self.replayed.append(entry is not None)
        if self._on_evaluation is not None:
            self._on_evaluation(ev, entry is not None)
        return ev

    def logged_ahead(self) -> int:
        """How many of the next evaluations of this criterion a resumed run's log answers: its
        entries from the replay cursor on, up to the first of another tag (0 without a log)."""
        log = self._log
        if log is None:
            return 0
        n = 0
        for entry in log.entries[log.cursor:]:
            if entry["tag"] != self._tag:
                break
            n += 1
        return n

    def _count_grad_call(self) -> None:
        self.n_grad_calls += 1

    def partial_result(self, message: str = "interrupted") -> SearchResult:
        """The search so far as a :class:`SearchResult` (see :func:`partial_result`)."""
        return partial_result(self.evaluations, message=message, split_theta=self.split_theta,
                              replayed=self.replayed, njev=self.n_grad_calls,
                              criterion=getattr(self._inner, "name", None))


def partial_result(evaluations, *, message: str = "interrupted", split_theta=None,
                   replayed=None, njev: int = 0, criterion: str | None = None) -> SearchResult:
    """The best point among ``evaluations`` (smallest finite value) as a SearchResult with
    ``status = INTERRUPTED``, ``success = False``, ``interrupted = True``, ``nfev`` = number of
    evaluations, ``path`` (every evaluation, the best one ``accepted``) and, when
    ``split_theta`` (the criterion's) is given, ``params``: C and the kernel parameters of the
    best point; ``criterion``: its name. ``x``/``fun`` are None when nothing was evaluated."""
    path = []
    for k, ev in enumerate(evaluations):
        path.append({"x": [float(v) for v in ev.theta], "value": float(ev.value),
                     "grad": None if ev.grad is None else [float(v) for v in ev.grad],
                     "time_s": float(ev.info.get("elapsed_s", 0.0)), "accepted": False,
                     "replayed": bool(replayed[k]) if replayed is not None else False})
    values = np.array([ev.value for ev in evaluations], dtype=float)
    finite = np.flatnonzero(np.isfinite(values))
    x = fun = jac = params = None
    if finite.size:
        best = int(finite[np.argmin(values[finite])])
        path[best]["accepted"] = True
        ev = evaluations[best]
        x, fun, jac = ev.theta.copy(), float(ev.value), ev.grad
        if split_theta is not None:
            C, kernel = split_theta(ev.theta)
            params = with_gamma({"C": C, **kernel.get_params()})
    return SearchResult(x=x, fun=fun, jac=jac, nfev=len(evaluations), njev=int(njev), nit=0,
                        message=message, success=False, status=INTERRUPTED, path=path,
                        interrupted=True, params=params, criterion=criterion)


class RunControl:
    """What one fit needs around its searches: a shared :class:`SearchLog` (or None), an
    ``on_evaluation`` hook (progress), and the evaluations of every criterion it wrapped (for
    the best point so far when the fit is interrupted). A fit with several searches wraps each
    criterion with :meth:`wrap` (a distinct ``tag`` per stage) and closes the control at the
    end."""

    def __init__(self, log: SearchLog | None = None, on_evaluation=None):
        self.log = log
        self.on_evaluation = on_evaluation
        self.wrapped: list[LoggedCriterion] = []

    def wrap(self, criterion, tag: str = "search") -> LoggedCriterion:
        w = LoggedCriterion(criterion, self.log, tag=tag, on_evaluation=self.on_evaluation)
        self.wrapped.append(w)
        return w

    def partial_result(self, message: str = "interrupted") -> SearchResult:
        """The search so far: that of the last wrapped criterion which evaluated anything
        (values of different criteria are not comparable)."""
        for w in reversed(self.wrapped):
            if w.evaluations:
                return w.partial_result(message)
        return partial_result([], message=message)

    def close(self):
        if self.log is not None:
            self.log.close()
