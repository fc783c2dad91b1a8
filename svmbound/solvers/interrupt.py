"""Ctrl-C during a numba solve: stop flags and the thread that keeps the main thread listening.

A numba function holds the calling thread until it returns, and CPython runs signal handlers
only in the main thread between bytecodes: a SIGINT that arrives during a 20 s SMO solve called
from the main thread is seen 20 s later, and the numba dispatcher may then fail with
``SystemError: CPUDispatcher(...) returned a result with an exception set``. So:

* Every SMO loop (``_smo.smo``) reads a one-element int64 array ``stop`` before each iteration
  and returns early, with ``interrupted = True``, once it is non-zero.
* :func:`call_interruptibly` runs a ``nogil`` numba call. From the main thread it hands the
  call to a worker thread (one, reused) and waits in short slices, so that a KeyboardInterrupt
  is raised in the main thread within ~0.1 s; it then sets every registered stop flag
  (:func:`request_stop`: Ctrl-C stops every solve of the process, also those in other threads),
  waits for the worker to return (a few milliseconds) and re-raises the KeyboardInterrupt. No
  numba solver code runs in the main thread with SIGINT live (``call_here`` defers it), so no
  SystemError. From any other thread the call runs directly (only the main thread receives
  signals); its flag is still registered, so Ctrl-C stops it too.
* :func:`call_here` runs a *short* call (the SMO on a small problem, in bounded slices:
  ``qp.run_smo``) in the calling thread, also the main one, with SIGINT deferred: a Ctrl-C
  during the call is only recorded (no exception can be set inside the numba dispatcher) and
  re-raised, with the handler that was in place, when the call returns — within the slice's
  time. The hand-off of :func:`call_interruptibly` costs 0.1–0.2 ms a solve (thread switch and
  a core whose caches do not hold the data): more than a whole solve on a 100-row problem.
* A :class:`StopFlag` is registered while it is in use. :func:`stop_scope` makes a flag the one
  used by every solve of the current thread; a flag set once stays set for the scope, so a solve
  that a worker thread only *starts* after the interruption (the radius QP that
  ``Criterion.solve_svm_and_radius`` runs beside the SVM) returns at once instead of running to
  completion while the main thread waits for it.
* A solve that returned because its flag was set raises :class:`SolverInterrupted` (a
  KeyboardInterrupt), whichever thread it ran in; its partial result is never returned.

:func:`request_stop` is public: a GUI or a test can stop the running solves without a signal.
"""

from __future__ import annotations

import _signal
import os
import signal
import sys
import threading
from contextlib import contextmanager

import numpy as np

__all__ = ["StopFlag", "SolverInterrupted", "request_stop", "stop_scope", "call_interruptibly",
           "call_here", "current_flag", "as_interrupt", "ctrl_c_outside_the_compiler",
           "in_jit_compiler", "send_again_later", "sigint_handler"]

#: Seconds between two checks for a KeyboardInterrupt while the main thread waits for a solve.
POLL_S = 0.05

_registry: set = set()
_registry_lock = threading.Lock()
_local = threading.local()


class SolverInterrupted(KeyboardInterrupt):
    """A solve returned early because its stop flag was set (Ctrl-C or :func:`request_stop`)."""


class StopFlag:
    """A one-element int64 array ``array`` that SMO loops read; registered (so that
    :func:`request_stop` reaches it) inside ``with flag:``."""

    def __init__(self):
        self.array = np.zeros(1, dtype=np.int64)

    def set(self) -> None:
        self.array[0] = 1

    @property
    def is_set(self) -> bool:
        return bool(self.array[0])

    def __enter__(self):
        with _registry_lock:
            _registry.add(self)
        return self

    def __exit__(self, *exc):
        with _registry_lock:
            _registry.discard(self)
        return False


def request_stop() -> int:
    """Set the stop flag of every solve in progress (any thread); returns how many were set."""
    with _registry_lock:
        flags = list(_registry)
    for f in flags:
        f.set()
    return len(flags)


def as_interrupt(exc: BaseException) -> KeyboardInterrupt | None:
    """The Ctrl-C behind ``exc``: ``exc`` itself when it is a KeyboardInterrupt; the
    KeyboardInterrupt that caused a SystemError — a Ctrl-C whose handler ran inside a numba
    dispatcher's own Python code (a cached function loaded on its first call in the process)
    leaves the dispatcher "returning a result with an exception set", and CPython raises
    SystemError from that exception; None for anything else. A fit's handlers of Ctrl-C take
    both, so that the user gets the KeyboardInterrupt and the search so far either way."""
    if isinstance(exc, KeyboardInterrupt):
        return exc
    if isinstance(exc, SystemError) and isinstance(exc.__cause__, KeyboardInterrupt):
        return exc.__cause__
    return None


#: Seconds after which a Ctrl-C that arrived inside numba's or llvmlite's own Python code is
#: sent to the main thread again (:func:`ctrl_c_outside_the_compiler`, the CLI's handlers).
RESEND_S = 0.01


#: The packages whose own Python code a Ctrl-C must not raise in (:func:`in_jit_compiler`).
_JIT_PACKAGES = ("numba", "llvmlite")


def in_jit_compiler(frame) -> bool:
    """Whether a signal handler interrupted code that numba's or llvmlite's own Python code is
    running — a dispatcher loading a compiled function from its cache on its first call in the
    process: any frame of the stack from ``frame`` out (the innermost may be ctypes' or the
    standard library's, called by llvmlite). An exception raised there becomes ``SystemError:
    CPUDispatcher(...) returned a result with an exception set``, is ignored (a ``__del__``: the
    Ctrl-C is lost), or is ignored inside llvmlite's object-cache callback, which then hands
    LLVM no buffer: the process dies of a segmentation fault (2 of 95 first fits interrupted at
    random moments by a handler that raises wherever it lands, as Python's own does outside
    ``call_here``)."""
    dirs = tuple(d for d in map(_package_dir, _JIT_PACKAGES) if d is not None)
    while frame is not None:
        if frame.f_code.co_filename.startswith(dirs):
            return True
        frame = frame.f_back
    return False


def _package_dir(name: str) -> str | None:
    """The folder of the imported package ``name`` (with a trailing separator), None when it is
    not imported: a path that merely contains ".../numba/..." (a project folder) is not it."""
    path = getattr(sys.modules.get(name), "__file__", None)
    return None if path is None else os.path.dirname(os.path.abspath(path)) + os.sep


def send_again_later(signum: int, when=lambda: True) -> None:
    """Send ``signum`` to the main thread ``RESEND_S`` from now, if ``when()`` is still true
    then (a daemon timer thread)."""
    def resend():
        if when():
            signal.pthread_kill(threading.main_thread().ident, signum)

    timer = threading.Timer(RESEND_S, resend)
    timer.daemon = True
    timer.start()


def sigint_handler(when=lambda: True):
    """A SIGINT handler that is Python's ``default_int_handler``, except that a Ctrl-C landing
    inside the JIT compiler's own code (:func:`in_jit_compiler`) is sent again ``RESEND_S``
    later (:func:`send_again_later`, if ``when()`` is still true then) instead of raised
    there."""
    def on_sigint(signum, frame):
        if in_jit_compiler(frame):
            send_again_later(signum, when)
            return
        raise KeyboardInterrupt

    return on_sigint


_on_sigint = sigint_handler()


@contextmanager
def ctrl_c_outside_the_compiler():
    """Within the block (a fit), in the main thread, when SIGINT's handler is Python's own
    ``default_int_handler``: the same handler, except that a Ctrl-C landing inside numba's or
    llvmlite's code (:func:`in_jit_compiler`) is raised ``RESEND_S`` later, outside it — also
    after the block, where Python's handler raises it: no Ctrl-C is lost. Any other handler
    (the CLI's, the user's, an ignored SIGINT) is left as it is."""
    swapped = False
    if threading.current_thread() is threading.main_thread():
        try:
            swapped = signal.getsignal(signal.SIGINT) is signal.default_int_handler
            if swapped:
                signal.signal(signal.SIGINT, _on_sigint)
        except ValueError:                  # not the main interpreter
            swapped = False
    try:
        yield
    finally:
        if swapped and signal.getsignal(signal.SIGINT) is _on_sigint:
            signal.signal(signal.SIGINT, signal.default_int_handler)


def current_flag() -> StopFlag | None:
    """The flag of the innermost :func:`stop_scope` of this thread, or None."""
    return getattr(_local, "flag", None)


@contextmanager
def stop_scope(flag: StopFlag):
    """Within the block, solves of this thread use (and stop on) ``flag``."""
    prev = getattr(_local, "flag", None)
    _local.flag = flag
    try:
        yield flag
    finally:
        _local.flag = prev


class _Worker:
    """One daemon thread that runs the main thread's solver calls, one at a time (the main
    thread waits for each). Reused: starting a thread per solve cost ~0.3 ms, a hand-off to a
    waiting one ~20 µs. Recreated after a fork (a forked child has no such thread)."""

    def __init__(self):
        import queue

        self.jobs = queue.SimpleQueue()
        self.pid = os.getpid()
        self.thread = threading.Thread(target=self._loop, name="svmbound-solver", daemon=True)
        self.thread.start()

    def _loop(self):
        while True:
            fn, args, box, done = self.jobs.get()
            try:
                box["result"] = fn(*args)
            except BaseException as exc:  # re-raised in the caller's thread
                box["error"] = exc
            finally:
                done.set()

    def submit(self, fn, args):
        box, done = {}, threading.Event()
        self.jobs.put((fn, args, box, done))
        return box, done


_worker: _Worker | None = None
_worker_lock = threading.Lock()


def _get_worker() -> _Worker:
    global _worker
    with _worker_lock:
        if _worker is None or _worker.pid != os.getpid() or not _worker.thread.is_alive():
            _worker = _Worker()
        return _worker


def call_here(fn, *args, flag: StopFlag):
    """``fn(*args)`` in this thread — for a call short enough that a Ctrl-C may wait for its
    end. From the main thread SIGINT is deferred meanwhile (module docstring): a signal that
    arrives is raised again, under the handler that was in place, after ``fn`` returns (an
    ignored SIGINT stays ignored); a KeyboardInterrupt then stops every registered solve
    (:func:`request_stop`) before it propagates. Where the handler cannot be swapped (it was
    not installed from Python, or this is not the main interpreter), the call goes through
    :func:`call_interruptibly`."""
    if threading.current_thread() is not threading.main_thread():
        return fn(*args)
    pending = []

    def defer(signum, frame):   # runs once fn has returned: only remember the signal
        pending.append(signum)

    # ``_signal``: the C functions that ``signal.signal`` / ``getsignal`` wrap, without their
    # conversion of handlers to enums (9 µs against 0.5 a solve: a small fit makes dozens)
    prev = _signal.getsignal(signal.SIGINT)
    if prev is None:
        return call_interruptibly(fn, *args, flag=flag)
    try:
        _signal.signal(signal.SIGINT, defer)
    except ValueError:                      # not the main interpreter's main thread
        return call_interruptibly(fn, *args, flag=flag)
    try:
        out = fn(*args)
    finally:
        _signal.signal(signal.SIGINT, prev)
    if pending:
        try:
            signal.raise_signal(signal.SIGINT)   # the restored handler runs here
        except KeyboardInterrupt:
            request_stop()
            raise
    return out


def _wait_ignoring_interrupts(done: threading.Event) -> None:
    """Wait for ``done``; a second Ctrl-C meanwhile is ignored (the solve is already stopping
    and returns within milliseconds)."""
    while not done.is_set():
        try:
            done.wait(POLL_S)
        except KeyboardInterrupt:
            pass


def call_interruptibly(fn, *args, flag: StopFlag):
    """``fn(*args)`` — a ``nogil`` numba function whose loop reads ``flag.array`` — such that a
    KeyboardInterrupt in the main thread stops it within ~0.1 s (module docstring). Returns
    ``fn``'s result (the caller checks whether the solve was interrupted)."""
    if threading.current_thread() is not threading.main_thread():
        return fn(*args)
    box, done = _get_worker().submit(fn, args)
    try:
        while not done.wait(POLL_S):
            pass
    except KeyboardInterrupt:
        flag.set()
        request_stop()
        _wait_ignoring_interrupts(done)
        raise
    if "error" in box:
        raise box["error"]
    return box["result"]
