"""Stop a running solve from another thread, as Ctrl-C handling or a supervising thread would."""

import threading
import time

import pytest

from svmbound.solvers.interrupt import SolverInterrupted, request_stop


def stopped_solve(solve) -> float:
    """Run ``solve()`` while another thread calls ``request_stop()`` from 0.3 s on, until a
    running solve has been reached; assert that the solve raised ``SolverInterrupted`` and
    return the seconds from the stop request to the end of the solve."""
    done = threading.Event()
    stopped_at = []

    def stopper():
        time.sleep(0.3)
        while not done.is_set() and not stopped_at:
            if request_stop():
                stopped_at.append(time.perf_counter())
            time.sleep(0.01)

    thread = threading.Thread(target=stopper)
    thread.start()
    try:
        with pytest.raises(SolverInterrupted):
            solve()
    finally:
        done.set()
        thread.join()
    assert stopped_at, "the solve ended before a stop was requested"
    return time.perf_counter() - stopped_at[0]


def interrupt_after(monkeypatch, k):
    """Raise KeyboardInterrupt from the progress hook after the k-th evaluation (as a Ctrl-C
    between two evaluations would)."""
    import svmbound.progress as progress

    calls = [0]

    def hook(self, ev, replayed=False):
        calls[0] += 1
        if calls[0] == k:
            raise KeyboardInterrupt

    monkeypatch.setattr(progress.Progress, "on_evaluation", hook)
