"""The default strategy's per-feature (ARD) stage (issue 33; ``svmbound.strategy.ard``)."""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_classification
from sklearn.preprocessing import StandardScaler

from svmbound import BoundSVC
from svmbound.kernels import ARDRBFKernel, RBFKernel
from svmbound.search.result import SearchResult
from svmbound.strategy import DEFAULT_CONFIG
from svmbound.strategy.ard import ard_accepted, ard_reason, ard_stop, candidate_kernel
from svmbound.strategy.candidates import next_usable_candidate

INFORMATIVE = 3


def _few_relevant(n_train=240, d=30, n_classes=2, seed=0):
    """``INFORMATIVE`` informative features first, then noise; standardised on the training
    rows."""
    X, y = make_classification(n_train + 1000, d, n_informative=INFORMATIVE, n_redundant=0,
                               n_repeated=0, n_classes=n_classes, n_clusters_per_class=1,
                               shuffle=False, random_state=seed)
    p = np.random.RandomState(seed).permutation(y.size)
    X, y = X[p], y[p]
    sc = StandardScaler().fit(X[:n_train])
    return sc.transform(X[:n_train]), y[:n_train], sc.transform(X[n_train:]), y[n_train:]


ISOTROPIC = dataclasses.replace(DEFAULT_CONFIG, ard_max_fev=0)


@pytest.fixture(scope="module")
def few_relevant():
    Xtr, ytr, Xte, yte = _few_relevant()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ard = BoundSVC(random_state=0).fit(Xtr, ytr)
        iso = BoundSVC(random_state=0, strategy_config=ISOTROPIC).fit(Xtr, ytr)
    return Xtr, ytr, Xte, yte, ard, iso


def test_few_relevant_features_pick_the_per_feature_candidate(few_relevant):
    Xtr, ytr, Xte, yte, ard, iso = few_relevant
    assert ard.search_.chosen.startswith("per-feature")
    assert ard.search_.ard["ran"] and ard.search_.ard["margin_met"]
    assert isinstance(ard.kernel_, ARDRBFKernel) and isinstance(iso.kernel_, RBFKernel)
    # an informative feature gets the largest scaling factor 1/σ_k, and the informative ones
    # larger factors than the noise on average
    s = ard.feature_scales_
    assert s.shape == (Xtr.shape[1],) and np.argmax(s) < INFORMATIVE
    assert s[:INFORMATIVE].mean() > 2 * s[INFORMATIVE:].mean()
    assert iso.feature_scales_ is None and not iso.search_.ard["ran"]
    # and it predicts better than the isotropic default on the test rows
    err_ard, err_iso = np.mean(ard.predict(Xte) != yte), np.mean(iso.predict(Xte) != yte)
    assert err_ard < err_iso - 0.02
    # the isotropic candidates are those of the isotropic default, on the same folds
    iso_c = {c["source"]: c["cv_errors"] for c in iso.search_.candidates}
    assert {c["source"]: c["cv_errors"] for c in ard.search_.candidates
            if c["source"] in iso_c} == iso_c
    # cv_results_ lists it with its σ_k²
    i = ard.cv_results_["source"].index(ard.search_.chosen)
    np.testing.assert_allclose(ard.cv_results_["params"][i]["sigma2"],
                               1.0 / ard.feature_scales_ ** 2)
    assert ard.best_params_["C"] == pytest.approx(np.exp(ard.best_theta_[0]))


def test_a_per_feature_pick_searched_on_half_the_rows_trains_on_all_of_them():
    """With a hold-out split whose search half the per-feature search covers (ard_rows), the
    final training took that search's solve on the half as its warm start and failed ("warm_from
    must be a l2 solution with 3000 variables, got … 1500": make_classification(3000, 10) with
    the defaults). A split is forced here on 240 rows (half_split_rows), and the per-feature
    candidate let through (no margin or gain asked)."""
    Xtr, ytr, _, _ = _few_relevant()
    split = dataclasses.replace(DEFAULT_CONFIG, half_split_rows=200, ard_margin=0.0,
                                ard_min_gain=0.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = BoundSVC(random_state=0, strategy_config=split).fit(Xtr, ytr)
    assert est.search_.subsample["search"] == 120 and est.search_.chosen.startswith("per-f")
    assert est.solution_.alpha.shape == (240,)                  # trained on every row
    assert est.score(Xtr, ytr) > 0.9


def test_per_feature_model_exports_exactly(few_relevant):
    Xtr, _, Xte, _, ard, _ = few_relevant
    svc = ard.to_svc()
    np.testing.assert_allclose(svc.decision_function(Xte), ard.decision_function(Xte),
                               rtol=1e-9, atol=1e-9)
    np.testing.assert_array_equal(svc.predict(Xte), ard.predict(Xte))


def test_per_feature_with_probabilities_and_multiclass():
    Xtr, ytr, Xte, yte = _few_relevant(n_train=240, d=20, n_classes=3, seed=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = BoundSVC(random_state=0, probability=True).fit(Xtr, ytr)
    assert est.search_.ard["ran"]
    P = est.predict_proba(Xte)
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    if est.search_.chosen.startswith("per-feature"):
        assert isinstance(est.kernel_, ARDRBFKernel)
    assert np.mean(est.predict(Xte) == yte) > 0.6


@pytest.mark.parametrize("e_iso, e_ard, z, expected", [
    (40, 20, 2.0, True),     # 20 > 2·√60 = 15.5
    (30, 20, 2.0, False),    # 10 < 2·√50 = 14.1
    (30, 20, 1.0, True),     # 10 > √50 = 7.1
    (20, 20, 0.0, False),    # equal: never
])
def test_margin_of_the_per_feature_candidate(e_iso, e_ard, z, expected):
    n = 200
    assert ard_accepted({"cv_rate": e_ard / n}, {"cv_rate": e_iso / n}, n, z) is expected


def test_when_the_per_feature_search_does_not_run():
    X = np.random.RandomState(0).randn(20, 5)
    assert ard_reason(X, RBFKernel(1.0), "l2", DEFAULT_CONFIG) is None
    assert "sparse" in ard_reason(sp.csr_matrix(X), RBFKernel(1.0), "l2", DEFAULT_CONFIG)
    assert "1 features" in ard_reason(X[:, :1], RBFKernel(1.0), "l2", DEFAULT_CONFIG)
    from svmbound.kernels import make_kernel
    assert "not the isotropic RBF" in ard_reason(X, make_kernel("linear"), "l2", DEFAULT_CONFIG)
    assert "configuration" in ard_reason(X, RBFKernel(1.0), "l2", ISOTROPIC)
    no_span = dataclasses.replace(DEFAULT_CONFIG, bounds_by_loss={"l2": ("rm-l2",),
                                                                  "l1": ("rm-l1",)})
    assert "not one of the isotropic searches" in ard_reason(X, RBFKernel(1.0), "l2", no_span)


def test_sparse_input_says_why_there_is_no_per_feature_search():
    Xtr, ytr, _, _ = _few_relevant(n_train=120, d=8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = BoundSVC(random_state=0).fit(sp.csr_matrix(Xtr), ytr)
    assert not est.search_.ard["ran"] and "sparse" in est.search_.ard["reason"]
    assert not any(c["source"].startswith("per-feature") for c in est.search_.candidates)


def test_candidate_kernel_by_the_length_of_theta():
    k0 = RBFKernel(1.0)
    assert candidate_kernel(np.zeros(2), k0, 7, 2) is k0
    assert candidate_kernel(np.zeros(3), k0, 7, 3) is k0      # an SVR's (ln C, ln σ², ln ε)
    ard = candidate_kernel(np.zeros(8), k0, 7, 2)
    assert isinstance(ard, ARDRBFKernel) and ard.n_params == 7


def test_fallback_skips_a_per_feature_candidate_short_of_its_margin():
    cands = [{"source": "span minimum", "x": [0.0, 1.0], "cv_rate": 0.2, "cv_hinge": 1.0},
             {"source": "per-feature rm-l2 minimum", "x": [0.0, 1.0, 1.0], "cv_rate": 0.1,
              "cv_hinge": 1.0, "margin_met": False},
             {"source": "rm-l2 minimum", "x": [1.0, 1.0], "cv_rate": 0.3, "cv_hinge": 1.0}]
    result = SearchResult(x=np.array([0.0, 1.0]), fun=0.2, candidates=cands,
                          chosen="span minimum", message="chose")
    tried = []

    def train(theta):
        tried.append(theta.size)
        return theta, "model", []

    outcome, n = next_usable_candidate(result, ["unusable"], train)
    assert (outcome, n, tried) == ("model", 1, [2]) and result.chosen == "rm-l2 minimum"


def test_cli_model_of_a_per_feature_pick_comes_with_its_range_file(few_relevant, tmp_path,
                                                                   capsys):
    """tune (the default) picking one width per feature: the JSON says kernel 'ard' with the
    scaling factors, the model file is on x_k/σ_k and its range file beside it, and LIBSVM's
    predictions on the test rows scaled by that file give the reported accuracy."""
    import json

    from libsvm.svmutil import svm_load_model, svm_predict
    from sklearn.datasets import dump_svmlight_file

    from svmbound.cli import main

    Xtr, ytr, Xte, yte, ard, _ = few_relevant
    train, test, model = tmp_path / "train.txt", tmp_path / "test.txt", tmp_path / "m.txt"
    dump_svmlight_file(Xtr, ytr, str(train))
    dump_svmlight_file(Xte, yte, str(test))
    assert main(["tune", str(train), "--test", str(test), "--model", str(model), "--json",
                 "--quiet"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert r["kernel"] == "ard" and r["chosen"] == ard.search_.chosen
    np.testing.assert_allclose(r["scaling_factors"], ard.feature_scales_, rtol=1e-6)
    assert r["range_file"] == str(model) + ".range"
    lines = (tmp_path / "m.txt.range").read_text().split("\n")
    sigma = np.array([float(ln.split()[2]) for ln in lines[2:] if ln.strip()])
    rows = [{k: float(v) for k, v in enumerate(r)} for r in Xte / sigma]   # as the file: from 0
    pred, _, _ = svm_predict(list(yte), rows, svm_load_model(str(model)), "-q")
    assert np.mean(np.asarray(pred) == yte) == pytest.approx(r["test_accuracy"])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.txt", "m.txt.range", "test.txt",
                                                          "train.txt"]
    # --plot-scales draws the 1/σ_k of a per-feature model
    png = tmp_path / "scales.png"
    assert main(["tune", str(train), "--json", "--quiet", "--plot-scales", str(png)]) == 0
    assert json.loads(capsys.readouterr().out)["plot_scales"] == str(png)
    assert png.stat().st_size > 0
    png.unlink()
    # --isotropic: one σ² for every feature, a plain model file; no scales to draw (said)
    assert main(["tune", str(train), "--isotropic", "--json", "--quiet", "--plot-scales",
                 str(png)]) == 0
    cap = capsys.readouterr()
    r = json.loads(cap.out)
    assert r["kernel"] == "rbf" and not any(c["source"].startswith("per-feature")
                                            for c in r["candidates"])
    assert r["plot_scales"] is None and not png.exists() and "no file written" in cap.err
    # a file matplotlib cannot write is refused before the data are read
    assert main(["tune", str(train), "--quiet", "--plot-scales", str(tmp_path / "s.xyz")]) == 2
    assert "--plot-scales" in capsys.readouterr().err


def test_plot_of_the_feature_scales(few_relevant, tmp_path):
    from svmbound.plots import plot_feature_scales

    ard = few_relevant[4]
    out = plot_feature_scales(ard.feature_scales_, tmp_path / "s.png", relevant=[0, 1, 2])
    assert out.stat().st_size > 0
    with pytest.raises(ValueError, match="positive finite"):
        plot_feature_scales(np.array([1.0, 0.0]), tmp_path / "t.png")


def test_per_feature_search_rows_are_a_stratified_draw_beyond_ard_rows():
    from svmbound.strategy.ard import ard_rows

    config = dataclasses.replace(DEFAULT_CONFIG, ard_rows=50)
    y = np.r_[np.ones(90), -np.ones(30)]
    assert ard_rows(y[:50], config, 0) is None
    rows = ard_rows(y, config, 0)
    assert rows.size == 50 and np.all(np.diff(rows) > 0)
    assert np.sum(y[rows] < 0) == 12                  # the classes in proportion, 30/120
    np.testing.assert_array_equal(rows, ard_rows(y, config, 0))     # random_state fixes it
    # a fit records the rows its per-feature search used
    Xtr, ytr, _, _ = _few_relevant(n_train=120, d=6)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = BoundSVC(random_state=0, strategy_config=config).fit(Xtr, ytr)
    assert est.search_.ard["rows"] == 50


def test_resume_after_an_interruption_in_the_per_feature_search(tmp_path, monkeypatch):
    """Ctrl-C inside the per-feature search: the log resumes to the uninterrupted fit (the same
    θ, per-feature candidate and model), answering the logged evaluations without solving."""
    import json

    from _stopper import interrupt_after

    Xtr, ytr, Xte, _ = _few_relevant(n_train=150, d=12, seed=2)
    ref = BoundSVC(random_state=0).fit(Xtr, ytr)
    stages = ref.search_.stages
    assert ref.search_.ard["ran"] and stages["per-feature span"].nfev >= 3
    n_before = sum(st.nfev for k, st in stages.items() if not k.startswith("per-feature"))
    k = n_before + len(ref.search_.candidates) - 1 + 2    # 2 evaluations into that search
    log = tmp_path / "run.jsonl"
    with monkeypatch.context() as m:
        interrupt_after(m, k)
        with pytest.raises(KeyboardInterrupt):
            BoundSVC(random_state=0, log_file=str(log)).fit(Xtr, ytr)
    logged = [json.loads(ln) for ln in log.read_text().splitlines()[1:]]
    assert len(logged) == k and len(logged[-1]["theta"]) == 1 + Xtr.shape[1]
    res = BoundSVC(random_state=0, log_file=str(log), resume=True).fit(Xtr, ytr)
    np.testing.assert_array_equal(res.best_theta_, ref.best_theta_)
    assert res.search_.chosen == ref.search_.chosen
    np.testing.assert_allclose(res.decision_function(Xte), ref.decision_function(Xte),
                               rtol=1e-9, atol=1e-9)


def test_the_per_feature_search_starts_from_the_span_searchs_own_evaluation(few_relevant):
    """On every search row the per-feature search starts at the span search's minimum, whose
    evaluation gave the gradient over every width there (``SpanBound.per_feature_grad``): the
    start is not evaluated again — its path's first entry is that minimum's value, and every
    evaluation it counts is at another point."""
    _, _, _, _, ard, _ = few_relevant
    span, per = ard.search_.stages["span"], ard.search_.stages["per-feature span"]
    assert per.path[0]["value"] == span.fun
    np.testing.assert_array_equal(per.path[0]["x"][:2], span.x)
    assert per.nfev == len(per.path) - 1 >= 2 and per.path[0]["known"]
    assert len(ard.search_.path) == ard.search_.nfev      # each evaluation listed once
    assert per.path[0]["grad"][0] == pytest.approx(span.jac[0], rel=1e-12)
    assert sum(per.path[0]["grad"][1:]) == pytest.approx(span.jac[1], rel=1e-9)


def test_a_small_fall_of_the_bound_is_not_validated(few_relevant):
    """The per-feature minimum becomes a candidate only when the span bound fell by
    ``ard_min_gain`` in its search: the few-relevant case fell by more; with a gain no search
    reaches, its minimum is not validated, not listed, and the reason says so."""
    Xtr, ytr, _, _, ard, iso = few_relevant
    assert ard.search_.ard["validated"] and ard.search_.ard["gain"] >= DEFAULT_CONFIG.ard_min_gain
    never = dataclasses.replace(DEFAULT_CONFIG, ard_min_gain=1.01, ard_stop_factor=None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = BoundSVC(random_state=0, strategy_config=never).fit(Xtr, ytr)
    info = est.search_.ard
    assert info["ran"] and not info["validated"] and "ard_min_gain" in info["reason"]
    assert info["gain"] == pytest.approx(ard.search_.ard["gain"])
    assert [c["source"] for c in est.search_.candidates] == \
        [c["source"] for c in iso.search_.candidates]
    np.testing.assert_array_equal(est.best_theta_, iso.best_theta_)


def test_the_stop_rule_of_the_per_feature_search():
    """It stops after k >= 2 evaluations beyond the start when the fall so far plus the largest
    fall of one evaluation for each of the m + 1 - k left (m = ard_max_fev) is below
    ard_min_gain; the fall is that of the lowest value so far (a rejected trial is none)."""
    stop = ard_stop(DEFAULT_CONFIG)
    c, m, g = (DEFAULT_CONFIG.ard_stop_factor, DEFAULT_CONFIG.ard_max_fev,
               DEFAULT_CONFIG.ard_min_gain)
    assert not stop([10.0, 9.99])                         # one evaluation beyond the start
    assert stop([10.0, 9.99, 9.98])                       # 0.002 + 0.001·(m − 1) < g
    assert stop([10.0, 12.0, 9.98])                       # the trial above the start: no fall
    step = 10.0 * g / (c * (m - 1)) * 1.01                # just enough pace to reach g
    assert not stop([10.0, 10.0 - step, 10.0 - step])
    assert not stop([0.0, 0.0, 0.0])                      # no fall can be measured
    assert ard_stop(dataclasses.replace(DEFAULT_CONFIG, ard_stop_factor=None)) is None
    # the pace is the largest fall of the last ard_stop_window evaluations: a first step of
    # 0.1 props up a search that then falls 0.01 an evaluation only while it is in the window
    w = DEFAULT_CONFIG.ard_stop_window
    assert w is not None and w >= 1
    path = [10.0, 9.0] + [9.0 - 0.1 * i for i in range(1, w + 1)]
    k = len(path) - 1                                     # falls 0.1, then w of 0.01
    assert 0.1 + 0.01 * w + 0.1 * c * (m + 1 - k) >= g           # the first step's pace: on
    assert 0.1 + 0.01 * w + 0.01 * c * (m + 1 - k) < g            # the recent pace: stop
    assert stop(path) and not stop(path[:-1])             # (the first step still in the window)
    every = ard_stop(dataclasses.replace(DEFAULT_CONFIG, ard_stop_window=None))
    assert not every(path)


def test_a_stopped_per_feature_search_changes_nothing_but_its_length():
    """On two features of two moons the span bound barely falls per feature: the search stops
    early, says so, and the fit is the one that runs the search to its budget."""
    from sklearn.datasets import make_moons

    X, y = make_moons(200, noise=0.3, random_state=0)
    full = dataclasses.replace(DEFAULT_CONFIG, ard_stop_factor=None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = BoundSVC(random_state=0).fit(X, y)
        ref = BoundSVC(random_state=0, strategy_config=full).fit(X, y)
    info, ref_info = est.search_.ard, ref.search_.ard
    assert info["stopped"] and not ref_info["stopped"] and info["nfev"] < ref_info["nfev"]
    assert "stopped after" in info["reason"] and not info["validated"]
    assert info["gain"] <= ref_info["gain"] < DEFAULT_CONFIG.ard_min_gain
    assert est.search_.candidates == ref.search_.candidates
    np.testing.assert_array_equal(est.best_theta_, ref.best_theta_)
    np.testing.assert_array_equal(est.decision_function(X), ref.decision_function(X))
