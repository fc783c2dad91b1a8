"""The search log's warm-start state file: no code runs from it, it round-trips every state a
fit saves bit for bit, and a damaged or foreign one gives a warning and a cold resume
(issue 29 item 1)."""

from __future__ import annotations

import json
import pickle
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_iris, make_classification

import svmbound.search.log as log_module
from svmbound import BoundSVC
from svmbound.search.state_file import StateFileError, encode, read_states, write_states

from _stopper import interrupt_after


@pytest.fixture(scope="module")
def small():
    return make_classification(n_samples=120, n_features=4, n_informative=3, n_redundant=0,
                               random_state=1)


class _Payload:
    """Unpickling this creates the file ``marker``: the proof that a pickle ran code."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))


def _same(a, b, path="state"):
    """a and b are the same tree: the same types, arrays equal with the same dtype and shape
    (NaN equal to NaN), floats bit for bit."""
    assert type(a) is type(b), f"{path}: {type(a)} != {type(b)}"
    if isinstance(a, dict):
        assert list(a) == list(b), path
        for k in a:
            _same(a[k], b[k], f"{path}[{k!r}]")
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), path
        for k, (u, v) in enumerate(zip(a, b)):
            _same(u, v, f"{path}[{k}]")
    elif isinstance(a, (np.ndarray, np.generic)):
        assert a.dtype == b.dtype and np.shape(a) == np.shape(b), path
        np.testing.assert_array_equal(a, b, err_msg=path)
    elif isinstance(a, float):
        assert np.float64(a).tobytes() == np.float64(b).tobytes(), path
    elif hasattr(a, "__dict__"):
        _same(vars(a), vars(b), f"{path}.{type(a).__name__}")
    else:
        assert a == b, path


def _log_and_interrupt(tmp_path, monkeypatch, X, y, k, **kw):
    log = tmp_path / "run.jsonl"
    with monkeypatch.context() as m:
        interrupt_after(m, k)
        with pytest.raises(KeyboardInterrupt):
            BoundSVC(log_file=str(log), **kw).fit(X, y)
    return log


def test_a_crafted_pickle_state_file_runs_no_code(small, tmp_path, monkeypatch):
    X, y = small
    log = _log_and_interrupt(tmp_path, monkeypatch, X, y, 3)
    marker = tmp_path / "pwned"
    for suffix in (".state", ".state.prev"):
        with open(str(log) + suffix, "wb") as f:
            pickle.dump({"version": 1, "states": {"x": (0, _Payload(marker))}}, f)
    with pytest.warns(RuntimeWarning, match="state.*ignored"):
        res = BoundSVC(log_file=str(log), resume=True).fit(X, y)
    assert not marker.exists()
    ref = BoundSVC().fit(X, y)
    assert np.abs(res.best_theta_ - ref.best_theta_).max() <= 1e-6


@pytest.mark.parametrize("name, kw", [
    ("default", {}),
    ("l1", {"loss": "l1"}),
    ("ard", {"kernel": "ard", "search": "lbfgsb"}),
    ("poly-annealing", {"kernel": "poly", "search": "annealing", "random_state": 0,
                        "max_epochs": 3}),
    ("cv-grid", {"criterion": "cv-error", "search": "grid", "loss": "l1", "random_state": 0}),
    ("multiclass", {}),
    ("sparse", {}),
])
def test_every_saved_state_round_trips_bit_for_bit(small, tmp_path, monkeypatch, name, kw):
    X, y = small
    if name == "multiclass":
        X, y = load_iris(return_X_y=True)
    elif name == "sparse":
        X = sp.csr_matrix(np.where(np.abs(X) < 0.5, 0.0, X))
    seen = []
    real = log_module.SearchLog.record

    def spy(self, tag, ev, need_grad, state=None, n_trainings=None):
        if state is not None:
            seen.append((tag, pickle.loads(pickle.dumps(state))))   # a snapshot to compare
        return real(self, tag, ev, need_grad, state=state, n_trainings=n_trainings)

    monkeypatch.setattr(log_module.SearchLog, "record", spy)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        BoundSVC(log_file=str(tmp_path / "run.jsonl"), **kw).fit(X, y)
    assert seen
    path = str(tmp_path / "one.state")
    for k, (tag, state) in enumerate(seen):
        arrays = {}
        write_states(path, {tag: (k, (encode(state, arrays), arrays))})
        back = read_states(path)
        assert list(back) == [tag] and back[tag][0] == k
        _same(state, back[tag][1])


def test_a_resume_from_the_state_file_continues_bit_for_bit(small, tmp_path, monkeypatch):
    X, y = small
    ref = BoundSVC(loss="l1").fit(X, y)
    log = _log_and_interrupt(tmp_path, monkeypatch, X, y, ref.search_.nfev // 2, loss="l1")
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message=".*no solver state.*")
        res = BoundSVC(loss="l1", log_file=str(log), resume=True).fit(X, y)
    np.testing.assert_array_equal(res.best_theta_, ref.best_theta_)
    np.testing.assert_array_equal(res.dual_coef_, ref.dual_coef_)


def _npz(path, doc, **arrays):
    with open(path, "wb") as f:            # a file object: np.savez adds no ".npz"
        np.savez(f, **{"state.json": np.frombuffer(json.dumps(doc).encode(), np.uint8)},
                 **arrays)


@pytest.mark.parametrize("kind", ["truncated", "noise", "object-array", "unknown-class",
                                  "version", "missing-array", "pickle"])
def test_a_damaged_or_foreign_state_file_is_refused_by_name(tmp_path, kind):
    path = tmp_path / "x.state"
    good = {"format": "svmbound-state", "version": 2,
            "states": {"search": [0, {"map": [["n_trainings", 3]]}]}}
    if kind == "truncated":
        _npz(path, good)
        path.write_bytes(path.read_bytes()[:40])
    elif kind == "noise":
        path.write_bytes(np.random.default_rng(0).bytes(500))
    elif kind == "object-array":
        _npz(path, good, a0=np.array([{"a": 1}], dtype=object))
    elif kind == "unknown-class":
        doc = dict(good, states={"search": [0, {"object": "os.system", "fields":
                                                {"map": [["x", 1]]}}]})
        _npz(path, doc)
    elif kind == "version":
        _npz(path, dict(good, version=1))
    elif kind == "missing-array":
        _npz(path, dict(good, states={"search": [0, {"map": [["a", {"array": "a9"}]]}]}))
    else:
        path.write_bytes(pickle.dumps(good))
    with pytest.raises(StateFileError):
        read_states(str(path))


def test_a_good_state_file_reads_back(tmp_path):
    state = {"kernel": None, "n_trainings": 3, "_svm_prev_key": ("rbf", (1.5,)),
             "alpha": np.arange(4.0), "c": np.float64(0.1)}
    arrays = {}
    write_states(str(tmp_path / "s"), {"search": (7, (encode(state, arrays), arrays))})
    back = read_states(str(tmp_path / "s"))
    assert back["search"][0] == 7
    _same(state, back["search"][1])


def test_a_state_that_cannot_be_stored_is_refused_by_name():
    with pytest.raises(StateFileError, match="cannot be stored"):
        encode({"f": lambda: 0}, {})
    with pytest.raises(StateFileError, match="objects"):
        encode(np.array([object()]), {})
