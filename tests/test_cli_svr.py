"""``svmbound tune --svr``: the command line's regression — a BoundSVR tuned on a LIBSVM file of
real-valued labels, its test MSE/MAE/R², the JSON report, LIBSVM's epsilon_svr model file (and
svm-scale's range file with --scale), the options refused with --svr, the classifier's refusal
of regression targets, and ``svmbound criteria``'s task column."""

import json

import numpy as np
import pytest
from libsvm.svmutil import svm_load_model, svm_predict
from sklearn.datasets import dump_svmlight_file, load_svmlight_files, make_friedman1

from svmbound import BoundSVR, svm_scale
from svmbound.cli import main


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """make_friedman1: 150 training and 150 test rows, LIBSVM's 1-based files."""
    d = tmp_path_factory.mktemp("cli_svr")
    X, y = make_friedman1(n_samples=300, random_state=0)
    dump_svmlight_file(X[:150], y[:150], str(d / "train.txt"), zero_based=False)
    dump_svmlight_file(X[150:], y[150:], str(d / "test.txt"), zero_based=False)
    return d


@pytest.fixture(scope="module")
def data(files):
    X, y, Xt, yt = load_svmlight_files([str(files / "train.txt"), str(files / "test.txt")])
    return X.toarray(), y, Xt.toarray(), yt


@pytest.fixture(scope="module")
def reference(data):
    """The BoundSVR the CLI's defaults build (random_state 0, cache 'auto', one job)."""
    X, y, _, _ = data
    return BoundSVR(random_state=0, cache_size="auto", n_jobs=1).fit(X, y)


def _tune(files, *args):
    return main(["tune", str(files / "train.txt"), "--svr", "--quiet", *args])


def _json(capsys):
    return json.loads(capsys.readouterr().out.strip().splitlines()[-1])


def test_svr_json_reports_the_estimators_test_errors(files, data, reference, capsys):
    assert _tune(files, "--test", str(files / "test.txt"), "--json") == 0
    r = _json(capsys)
    for key in ("task", "C", "gamma", "sigma2", "epsilon", "log_C", "log_sigma2", "log_epsilon",
                "best_params", "criterion", "value", "nfev", "njev", "n_trainings", "n_sv",
                "train_mse", "train_mae", "train_r2", "test_mse", "test_mae", "test_r2",
                "time_s", "fit_time_s", "path", "candidates", "chosen", "cv_results",
                "best_score"):
        assert key in r, key
    assert r["task"] == "regression" and r["criterion"] == "auto"
    _, _, Xt, yt = data
    pred = reference.predict(Xt)
    assert abs(r["test_mse"] - np.mean((pred - yt) ** 2)) <= 1e-9
    assert abs(r["test_mae"] - np.mean(np.abs(pred - yt))) <= 1e-9
    r2 = 1 - np.sum((yt - pred) ** 2) / np.sum((yt - yt.mean()) ** 2)
    assert abs(r["test_r2"] - r2) <= 1e-9
    assert r["best_params"] == pytest.approx(reference.best_params_, rel=1e-12)
    assert r["epsilon"] == pytest.approx(reference.best_params_["epsilon"], rel=1e-12)
    assert np.isclose(r["epsilon"], np.exp(r["log_epsilon"]))
    assert r["n_trainings"] == reference.n_trainings_
    assert r["n_sv"] == reference.support_.size
    assert r["best_score"] == pytest.approx(reference.best_score_, rel=1e-12)
    assert len(r["path"]) == r["nfev"]


def test_svr_model_file_predicts_as_the_estimator(files, data, reference, capsys, tmp_path):
    """--model: LIBSVM's epsilon_svr model, read by LIBSVM's own binding; the plain summary
    gives the chosen epsilon and the test errors."""
    model = tmp_path / "svr.model"
    assert _tune(files, "--test", str(files / "test.txt"), "--model", str(model)) == 0
    out = capsys.readouterr().out
    assert "epsilon = " in out and "test     MSE" in out and "R^2" in out
    assert f"saved    LIBSVM model {model}" in out
    assert not (tmp_path / "svr.model.range").exists()
    assert model.read_text().splitlines()[0] == "svm_type epsilon_svr"
    _, _, Xt, yt = data
    pred, _, _ = svm_predict(yt, Xt, svm_load_model(str(model)), "-q")
    np.testing.assert_allclose(pred, reference.predict(Xt), rtol=0, atol=1e-8)


def _read_range(path, n_features):
    """svm-scale's range file → ``SvmScaleRanges`` (an unlisted feature: constant, scaled
    to 0, as ``svm-scale -r`` does)."""
    lines = path.read_text().splitlines()
    assert lines[0] == "x"
    lower, upper = map(float, lines[1].split())
    mins, maxs = np.zeros(n_features), np.zeros(n_features)
    for line in lines[2:]:
        k, lo, hi = line.split()
        mins[int(k) - 1], maxs[int(k) - 1] = float(lo), float(hi)
    return svm_scale.SvmScaleRanges(mins, maxs, lower, upper)


def test_svr_scale_model_writes_the_range_file(files, data, capsys, tmp_path):
    """--scale --model: svm-scale's range file beside the model; the raw test file scaled with
    it and fed to svm-predict gives the tool's predictions (its test MSE)."""
    model = tmp_path / "svr.model"
    assert _tune(files, "--test", str(files / "test.txt"), "--scale", "--model", str(model),
                 "--json") == 0
    r = _json(capsys)
    rng = tmp_path / "svr.model.range"
    assert r["model"] == str(model) and r["range_file"] == str(rng) and rng.exists()
    X, y, Xt, yt = data
    ranges = _read_range(rng, X.shape[1])
    assert rng.read_text() == svm_scale.range_text(svm_scale.fit_ranges(X))
    pred, _, _ = svm_predict(yt, svm_scale.scale(Xt, ranges), svm_load_model(str(model)), "-q")
    # the tool's model: BoundSVR on the training rows scaled by svm-scale's map
    tool = BoundSVR(random_state=0, cache_size="auto", n_jobs=1).fit(
        svm_scale.scale(X, svm_scale.fit_ranges(X)), y)
    np.testing.assert_allclose(pred, tool.predict(svm_scale.scale(Xt, ranges)), rtol=0,
                               atol=1e-8)
    assert abs(np.mean((np.asarray(pred) - yt) ** 2) - r["test_mse"]) <= 1e-8


def test_svr_passes_the_tune_options_on(files, monkeypatch, capsys):
    """The options that mean the same for BoundSVR reach it; --tune-subsample defaults to
    BoundSVR's own 3000 (BoundSVC's 5000 without --svr)."""
    seen = {}

    def stop(self, X, y, **kw):
        seen.update(self.get_params(), n=X.shape[0], y=np.asarray(y))
        raise ValueError("stopped before the search")

    monkeypatch.setattr(BoundSVR, "fit", stop)
    assert _tune(files, "--loss", "l1", "--kernel", "poly", "--degree", "2", "--coef0", "2",
                 "--criterion", "svr-cv", "--search", "annealing", "--max-epochs", "7",
                 "--random-state", "7", "--n-jobs", "2", "--start", "1", "0", "-1",
                 "--tol", "1e-4") == 2
    assert "stopped before the search" in capsys.readouterr().err
    assert {k: seen[k] for k in ("loss", "kernel", "degree", "coef0", "criterion", "search",
                                 "max_epochs", "random_state", "n_jobs", "tol",
                                 "tune_subsample")} == {
        "loss": "l1", "kernel": "poly", "degree": 2, "coef0": 2.0, "criterion": "svr-cv",
        "search": "annealing", "max_epochs": 7, "random_state": 7, "n_jobs": 2, "tol": 1e-4,
        "tune_subsample": 3000}
    assert list(seen["start"]) == [1.0, 0.0, -1.0] and seen["n"] == 150
    assert not np.all(seen["y"] == np.round(seen["y"]))       # the real-valued labels
    seen.clear()
    assert _tune(files, "--tune-subsample", "all") == 2
    assert seen["tune_subsample"] is None


@pytest.mark.parametrize("args, option", [
    (["--class-weight", "balanced"], "--class-weight"),
    (["-v", "5"], "-v"),
    (["-log2c", "-5,5,2"], "-log2c"),
    (["-log2g", "null", "-log2c", "1,2,1"], "-log2c"),
    (["-out", "grid.out"], "-out"),
])
def test_classifier_only_options_are_refused_with_svr(files, capsys, args, option):
    assert _tune(files, *args) == 2
    err = capsys.readouterr().err
    assert f"svmbound: error: {option} cannot be used with --svr" in err


def test_classification_criterion_with_svr_and_regression_criterion_without(files, capsys):
    assert _tune(files, "--criterion", "span") == 2
    err = capsys.readouterr().err
    assert "--criterion span is a classification criterion" in err and "svr-span" in err
    assert main(["tune", str(files / "train.txt"), "--quiet", "--criterion", "svr-span"]) == 2
    assert "use --svr" in capsys.readouterr().err


@pytest.mark.parametrize("with_test", [False, True])
def test_real_valued_labels_without_svr_are_refused(files, capsys, with_test):
    """Before: "Unknown label type" (or, with --test, a list of every unknown test label);
    now one error naming the file, the real-valued labels and --svr."""
    extra = ["--test", str(files / "test.txt")] if with_test else []
    assert main(["tune", str(files / "train.txt"), "--quiet", *extra]) == 2
    err = capsys.readouterr().err
    assert "train.txt: the labels are real-valued regression targets" in err
    assert "150 distinct values, non-integer ones among them" in err
    assert "use --svr" in err


def test_many_distinct_integer_labels_are_refused_and_few_classes_are_not(tmp_path, capsys,
                                                                          monkeypatch):
    from svmbound import cli

    X = np.random.default_rng(0).normal(size=(60, 3))
    dump_svmlight_file(X, np.arange(60) * 3, str(tmp_path / "counts.txt"), zero_based=False)
    assert main(["tune", str(tmp_path / "counts.txt"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "60 distinct integer values in 60 rows" in err and "use --svr" in err
    # a few integer classes (here 3): the classifier path goes on to the search
    monkeypatch.setattr(cli, "run_tune", lambda *a, **k: (_ for _ in ()).throw(
        ValueError("reached the classifier")))
    dump_svmlight_file(X, np.arange(60) % 3, str(tmp_path / "three.txt"), zero_based=False)
    assert main(["tune", str(tmp_path / "three.txt"), "--quiet"]) == 2
    assert "reached the classifier" in capsys.readouterr().err


def test_criteria_lists_the_regression_criteria_with_their_task(capsys):
    from svmbound.criteria import CRITERIA

    assert main(["criteria", "--json"]) == 0
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)}
    assert {"svr-span", "svr-span-exact", "svr-cv", "svr-loo"} <= {
        n for n, r in rows.items() if r["task"] == "regression"}
    assert rows["span"]["task"] == rows["rm-l2"]["task"] == "classification"
    assert all(rows[n]["task"] == c.task for n, c in CRITERIA.items())
    assert main(["criteria"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:2] == ["name", "task"]
    start = lines[0].index("task")                  # the column after the names
    task = {line.split()[0]: line[start:].split()[0] for line in lines[2:]
            if line and not line.startswith(" ") and line.split()[0] in CRITERIA}
    assert task["svr-span"] == "regression" and task["span"] == "classification"
    assert set(task) == set(CRITERIA)


def test_tune_help_documents_svr(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["tune", "--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert "--svr" in out and "epsilon-SVR" in out


def test_ctrl_c_reports_the_best_svr_point_so_far(files, monkeypatch, capsys):
    """Ctrl-C during tune --svr: the best point so far, with its epsilon, and status 130."""
    from _stopper import interrupt_after

    interrupt_after(monkeypatch, 3)
    assert _tune(files, "--json") == 130
    out = capsys.readouterr()
    r = json.loads(out.out.strip().splitlines()[-1])
    assert r["interrupted"] is True and r["signal"] == "SIGINT" and r["nfev"] >= 1
    assert len(r["theta"]) == 3 and r["log_epsilon"] == r["theta"][-1]
    assert r["epsilon"] == pytest.approx(np.exp(r["theta"][-1]), rel=1e-12)
    assert "svmbound: interrupted" in out.err


def test_svr_plot_draws_the_criterion_at_the_chosen_epsilon(files, data, reference, capsys,
                                                            tmp_path):
    """--plot with --svr: a PNG of the span estimate over ln C × ln σ² at the chosen ln ε and
    the test MSE map (the map's values: tests/test_svr.py)."""
    png = tmp_path / "map.png"
    assert _tune(files, "--test", str(files / "test.txt"), "--plot", str(png), "--json",
                 "--grid-log-c", "-1", "3", "2", "--grid-log-sigma2", "0", "2", "1") == 0
    report = _json(capsys)
    assert report["plot"] == str(png)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
