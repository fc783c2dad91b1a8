"""The command line: JSON fields, summary, plot file, errors with exit code 2."""

import json

import numpy as np
import pytest
from sklearn.datasets import dump_svmlight_file, make_classification

from svmbound.cli import main


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("cli")
    X, y = make_classification(n_samples=160, n_features=4, n_informative=3, n_redundant=0,
                               random_state=0)
    y = np.where(y == 1, 1, -1)
    dump_svmlight_file(X[:100] * 10 + 3, y[:100], str(d / "train.txt"))
    dump_svmlight_file(X[100:] * 10 + 3, y[100:], str(d / "test.txt"))
    Xw = np.hstack([X[100:], np.ones((60, 2))])
    dump_svmlight_file(Xw, y[100:], str(d / "wide.txt"))
    (d / "bad.txt").write_text("+1 1:0.5 2:1\n-1 1:0.2 2:x\n")
    return d


def test_tune_json_has_the_documented_fields(files, capsys):
    code = main(["tune", str(files / "train.txt"), "--test", str(files / "test.txt"), "--scale",
                 "--json", "--quiet", "--max-iter", "5"])
    assert code == 0
    r = json.loads(capsys.readouterr().out)
    for key in ("C", "gamma", "sigma2", "log_C", "log_sigma2", "criterion", "value", "nfev",
                "njev", "n_sv", "train_accuracy", "test_accuracy", "time_s", "path"):
        assert key in r, key
    assert np.isclose(r["C"], np.exp(r["log_C"]))
    assert np.isclose(r["gamma"], 1 / (2 * r["sigma2"]))
    assert len(r["path"]) == r["nfev"]
    assert r["path"][0]["x"][0] == 0.0          # ln C = 0; ln sigma^2 from gamma='scale'
    assert r["criterion"] == "auto" and r["chosen"] in [c["source"] for c in r["candidates"]]
    # fewest CV errors, ties to the smaller C, then the smaller held-out hinge loss
    # (a per-feature candidate short of its margin is not one: strategy.ard)
    best = min((c for c in r["candidates"] if c.get("margin_met", True)),
               key=lambda c: (c["cv_errors"], c["x"][0], c["cv_hinge"]))
    assert [r["log_C"], r["log_sigma2"]] == best["x"]


def test_tune_summary_and_plot(files, capsys, tmp_path):
    png = tmp_path / "c.png"
    code = main(["tune", str(files / "train.txt"), "--test", str(files / "test.txt"), "--scale",
                 "--loss", "l1", "--plot", str(png), "--grid-log-c", "-4", "4", "2",
                 "--grid-log-sigma2", "-4", "4", "2", "--max-iter", "5"])
    assert code == 0
    out = capsys.readouterr()
    assert "bounds + cross-validation" in out.out and "test     accuracy" in out.out
    assert "[svmbound]" in out.err  # progress on stderr
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("args, match", [
    (["--start", "12", "0"], "outside the box"),
    (["--criterion", "nope"], "unknown criterion 'nope'"),
    (["--kernel", "nope"], "'kernel' parameter of BoundSVC must be a str among"),
    (["--search", "nope"], "'search' parameter of BoundSVC must be a str among"),
    (["--kernel", "poly", "--degree", "1", "4"], "needs search='annealing'"),
    (["--degree", "1", "2", "3"], "--degree takes one degree or a range LOW HIGH"),
    (["--kernel", "ard", "--plot", "x.png"], "the ard kernel has one per feature"),
])
def test_tune_errors(files, capsys, args, match):
    args = [a.format(d=files) for a in args]
    assert main(["tune", str(files / "train.txt"), "--quiet"] + args) == 2
    assert match in capsys.readouterr().err


def test_unreadable_file_names_the_line(files, capsys):
    assert main(["tune", str(files / "bad.txt")]) == 2
    err = capsys.readouterr().err
    assert "line 2" in err and "bad.txt" in err
    assert main(["tune", str(files / "missing.txt")]) == 2
    assert "missing.txt" in capsys.readouterr().err


def test_criteria_lists_every_registered_criterion(capsys):
    from svmbound.criteria import CRITERIA

    assert main(["criteria", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {r["name"] for r in rows} == set(CRITERIA)
    assert all({"loss", "differentiable", "formula", "source"} <= set(r) for r in rows)
    assert main(["criteria"]) == 0
    assert "rm-l1-3.2 (l1bound2)" in capsys.readouterr().out


def test_tune_grid_search(files, capsys):
    code = main(["tune", str(files / "train.txt"), "--scale", "--json", "--quiet", "--loss", "l1",
                 "--criterion", "l1bound1", "--search", "grid", "--grid-log-c", "-2", "2", "2",
                 "--grid-log-sigma2", "-2", "2", "2"])
    assert code == 0
    r = json.loads(capsys.readouterr().out)
    # Duan's bound (1.9) is vacuous on this 3x3 grid: its minimum predicts one class, so the
    # estimator falls back to the default strategy (issue 12) and says so
    fb = r["fallback"]
    assert fb["criterion"] == "rm-l1-1.9" and fb["search"] == "grid" and fb["nfev"] == 9
    best = min(fb["path"], key=lambda p: p["value"])
    assert fb["x"] == best["x"]
    assert any("predicts one class" in p for p in fb["problems"])
    assert r["criterion"] == "auto" and r["problems"] == []
    assert 0.7 < r["train_accuracy"]


def test_tune_ard_json_gives_one_factor_per_feature(files, capsys):
    code = main(["tune", str(files / "train.txt"), "--scale", "--kernel", "ard", "--search",
                 "lbfgsb", "--json", "--quiet", "--max-iter", "10"])
    assert code == 0
    r = json.loads(capsys.readouterr().out)
    assert len(r["sigma2"]) == len(r["log_sigma2"]) == len(r["scaling_factors"]) == 4
    np.testing.assert_allclose(r["scaling_factors"], 1 / np.sqrt(r["sigma2"]))
    np.testing.assert_allclose(r["gamma"], 1 / (2 * np.asarray(r["sigma2"])))


def test_tune_poly_annealing_json_gives_degree_and_coef0(files, capsys):
    code = main(["tune", str(files / "train.txt"), "--scale", "--kernel", "poly", "--degree",
                 "1", "3", "--search", "annealing", "--max-epochs", "15", "--random-state", "2",
                 "--json", "--quiet"])
    assert code == 0
    r = json.loads(capsys.readouterr().out)
    assert r["degree"] in (1, 2, 3) and isinstance(r["coef0"], float)
    best = min(r["path"], key=lambda p: p["value"])
    assert r["degree"] == int(best["x"][2]) and np.isclose(r["coef0"], best["x"][1])


def test_select_prints_the_selectors_features(files, capsys):
    from svmbound.cli import load_train_test
    from svmbound.selection import ScalingSelector

    code = main(["select", str(files / "train.txt"), "--keep", "2", "--scale", "--json",
                 "--quiet"])
    assert code == 0
    r = json.loads(capsys.readouterr().out)
    X, y, _, _ = load_train_test(str(files / "train.txt"), None, True)
    sel = ScalingSelector(n_features_to_select=2).fit(X, y)
    # train.txt is zero-based (dump_svmlight_file's default): features keep the file's numbers
    assert sorted(r["features"]) == sorted(np.flatnonzero(sel.get_support()).tolist())
    assert r["scaling_factors"] == sorted(r["scaling_factors"], reverse=True)
    assert main(["select", str(files / "train.txt"), "--keep", "0", "--quiet"]) == 2
    assert "n_features_to_select" in capsys.readouterr().err


def test_tune_n_jobs_gives_the_same_model_and_zero_is_refused(files, capsys):
    """--n-jobs runs the default's searches and CV folds on threads; the chosen θ and every
    candidate's CV errors are those of one thread. 0 workers is an argument error."""
    out = {}
    for n in ("1", "2"):
        code = main(["tune", str(files / "train.txt"), "--scale", "--json", "--quiet",
                     "--n-jobs", n])
        assert code == 0
        r = json.loads(capsys.readouterr().out)
        out[n] = (r["log_C"], r["log_sigma2"], [(c["x"], c["cv_errors"], c["cv_hinge"])
                                                 for c in r["candidates"]])
    assert out["1"] == out["2"]
    with pytest.raises(SystemExit) as exc:
        main(["tune", str(files / "train.txt"), "--n-jobs", "0"])
    assert exc.value.code == 2
    assert "non-zero integer" in capsys.readouterr().err


def test_json_carries_cv_results_and_best_score(files, capsys):
    """The default strategy's record of what it scored, as BoundSVC.cv_results_ has it."""
    assert main(["tune", str(files / "train.txt"), "--scale", "--json", "--quiet"]) == 0
    report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    r = report["cv_results"]
    n = len(report["candidates"])
    assert len(r["params"]) == len(r["mean_test_score"]) == len(r["rank_test_score"]) == n
    assert report["best_score"] == r["mean_test_score"][r["source"].index(report["chosen"])]
    assert {"split0_test_score", "std_test_score", "param_C"} <= set(r)


def test_plot_of_the_default_draws_both_searches_and_the_candidates(files, monkeypatch,
                                                                    capsys, tmp_path):
    """issue 30 item 6: the default strategy's plot draws each bound search's path and every
    candidate with its CV errors, and the chosen point."""
    from svmbound import plots

    seen = {}
    real = plots.plot_contours

    def spy(grid, file, **kw):
        seen.update(kw)
        return real(grid, file, **kw)

    monkeypatch.setattr(plots, "plot_contours", spy)
    out = tmp_path / "p.png"
    assert main(["tune", str(files / "train.txt"), "--scale", "--json", "--quiet", "--plot",
                 str(out), "--grid-log-c", "-2", "4", "2", "--grid-log-sigma2", "-2", "4",
                 "2"]) == 0
    report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert set(seen["paths"]) == {f"{s} search" for s in ("span", "rm-l2")}
    assert len(seen["candidates"]) == len([c for c in report["candidates"] if len(c["x"]) == 2])
    assert out.stat().st_size > 0
