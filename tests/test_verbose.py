"""verbose levels (as scikit-learn's searches: 1 the steps, 2 also every search iteration, 3 also
every evaluation) and the progress bar's final-training stage."""

import pytest
from sklearn.datasets import load_breast_cancer, make_friedman1
from sklearn.preprocessing import StandardScaler

from svmbound import BoundSVC, BoundSVR
from svmbound.strategy import evaluation_budget


@pytest.fixture(scope="module")
def data():
    X, y = load_breast_cancer(return_X_y=True)
    X = StandardScaler().fit_transform(X)[::3]
    return X, y[::3]


def _lines(text, key):
    return [line for line in text.splitlines() if key in line]


@pytest.mark.parametrize("verbose", [0, 1, 2, 3])
def test_verbose_levels(data, capsys, verbose):
    X, y = data
    est = BoundSVC(verbose=verbose, random_state=0).fit(X, y)
    err = capsys.readouterr().err
    steps = _lines(err, "search: ")
    iters = _lines(err, "] iter: ")
    evals = _lines(err, "] eval ")
    # the span and rm-l2 searches' ends, and the per-feature search's where it ran
    assert (len(steps) == 2 + est.search_.ard["ran"]) == (verbose >= 1)
    assert bool(_lines(err, "final training at C=")) == (verbose >= 1)
    assert bool(_lines(err, est.search_.message)) == (verbose >= 1)
    assert bool(iters) == (verbose >= 2)
    # level 3: one line per evaluation, the searches' and the candidates' validation
    assert len(evals) == (est.search_.nfev if verbose >= 3 else 0)


def test_progress_bar_counts_the_final_training(data, capsys):
    X, y = data
    est = BoundSVC(progress=True, random_state=0).fit(X, y)
    err = capsys.readouterr().err
    total = evaluation_budget(est._config(), est.loss, est.search_.ard["ran"]) + 1
    assert f"/{total} " in err and "final training" in err
    X, y = make_friedman1(80, random_state=0)
    reg = BoundSVR(progress=True, random_state=0).fit(X, y)
    err = capsys.readouterr().err
    total = evaluation_budget(reg._config(), reg.loss) + 1
    assert f"/{total} " in err and "final training" in err
