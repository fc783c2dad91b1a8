"""Every model exports (issue 30 item 2): both losses, the rbf, linear, poly and ARD kernels,
two and three classes, dense and CSR X, with and without class weights. The exported SVC (a
Pipeline of the feature scaling and an SVC for ARD) predicts exactly as the estimator and its
decision values agree to 1e-10 relative; the LIBSVM model file, read by LIBSVM's own binding
(with svm-scale's rule applied from the range file for ARD), predicts exactly as the estimator."""

import itertools
import pickle
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer, make_classification
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import FunctionTransformer, StandardScaler
from sklearn.svm import SVC

from svmbound import BoundSVC
from svmbound.checks import ModelWarning
from svmbound.export import binary_model
from svmbound.libsvm_model import libsvm_range_text, range_path_of

LOSSES = ("l1", "l2")
KERNELS = ("rbf", "linear", "poly", "ard", "ard-poly")
ARD = ("ard", "ard-poly")
#: (loss, kernel, number of classes, storage, class weights); the ARD kernels refuse CSR X.
CONFIGS = [c for c in itertools.product(LOSSES, KERNELS, (2, 3), ("dense", "csr"),
                                        ("unweighted", "weighted"))
           if not (c[1] in ARD and c[3] == "csr")]
LABELS = {2: np.array([-3, 7]), 3: np.array([-1, 2, 4])}


def _id(c):
    return "-".join(str(v) for v in c)


def _rel(a, b):
    """Largest difference relative to the largest |b|."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return float(np.abs(a - b).max() / np.abs(b).max())


@pytest.fixture(scope="module")
def svmutil():
    return pytest.importorskip("libsvm.svmutil", reason="libsvm-official (test extra) missing")


def _data(n_classes, storage):
    """120 rows, 80 for training and 40 for testing, integer labels (LIBSVM files need them):
    dense, standardised make_classification data, or 120 × 30 CSR with 15 % non-zeros."""
    if storage == "dense":
        X, y = make_classification(n_samples=120, n_features=4, n_informative=3, n_redundant=0,
                                   n_classes=n_classes, flip_y=0.05, random_state=n_classes)
        X = StandardScaler().fit_transform(X)
    else:
        rng = np.random.default_rng(n_classes)
        X = sp.random(120, 30, density=0.15, random_state=n_classes, format="csr")
        D = X.toarray()
        if n_classes == 2:
            y = (D[:, :6].sum(1) + 0.1 * rng.normal(size=120) > 0.4).astype(int)
        else:
            y = np.argmax(D[:, :3] + 0.05 * rng.normal(size=(120, 3)), axis=1)
    y = LABELS[n_classes][y]
    return X[:80], y[:80], X[80:], y[80:]


_FITS = {}


def _fit(config):
    """The fitted estimator of ``config`` and its data (cached for the module)."""
    if config not in _FITS:
        loss, kernel, n_classes, storage, weights = config
        X, y, Xt, yt = _data(n_classes, storage)
        labels = LABELS[n_classes]
        cw = {labels[0]: 2.5, labels[-1]: 0.6} if weights == "weighted" else None
        with warnings.catch_warnings():      # a vacuous bound at a short search: not the subject
            warnings.simplefilter("ignore", ModelWarning)
            est = BoundSVC(loss=loss, kernel=kernel, max_iter=3, class_weight=cw,
                           random_state=0).fit(X, y)
        _FITS[config] = est, (X, y, Xt, yt)
    return _FITS[config]


def _inputs(X, Xt):
    """The training and test rows, and for CSR data also their dense arrays."""
    out = [("train", X), ("test", Xt)]
    if sp.issparse(X):
        out += [("train dense", X.toarray()), ("test dense", Xt.toarray())]
    return out


def _svm_scale(range_text, X):
    """svm-scale -r on the rows of X, at full double precision (svm-scale.c ``output``):
    lower + (upper − lower)·(x − min)/(max − min), x = min ↦ lower, x = max ↦ upper."""
    lines = range_text.splitlines()
    assert lines[0] == "x"
    lower, upper = (float(v) for v in lines[1].split())
    fmin, fmax = np.zeros(X.shape[1]), np.zeros(X.shape[1])
    for line in lines[2:]:
        k, lo, hi = line.split()
        fmin[int(k) - 1], fmax[int(k) - 1] = float(lo), float(hi)
    X = np.asarray(X, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = lower + (upper - lower) * (X - fmin) / (fmax - fmin)
    out = np.where(X == fmin, lower, np.where(X == fmax, upper, out))
    return out


@pytest.mark.parametrize("config", CONFIGS, ids=_id)
def test_exported_svc_predicts_as_the_estimator(config):
    loss, kernel, n_classes, storage, weights = config
    est, (X, y, Xt, yt) = _fit(config)
    exported = est.to_svc()
    if kernel in ARD:
        assert isinstance(exported, Pipeline)
        assert [name for name, _ in exported.steps] == ["scale", "svc"]
        scaler, svc = exported.named_steps["scale"], exported.named_steps["svc"]
        assert isinstance(scaler, FunctionTransformer)
        # the scaler gives the numbers the estimator's kernel sees, bit for bit
        for Z in (X, Xt):
            np.testing.assert_array_equal(scaler.transform(Z), est.kernel_.prepare(Z))
    else:
        svc = exported
        assert isinstance(svc, SVC)
        assert svc._sparse == (storage == "csr") == sp.issparse(svc.support_vectors_)
    # the tuned C (for both losses) and the fitted class weights
    assert svc.C == est.best_params_["C"]
    np.testing.assert_array_equal(svc.class_weight_, est.class_weight_)
    if weights == "weighted":
        assert svc.class_weight == dict(zip(est.classes_.tolist(), est.class_weight_.tolist()))
        assert svc.class_weight[LABELS[n_classes][0]] == 2.5
    else:
        assert svc.class_weight is None
    shapes = ("ovr", "ovo") if n_classes > 2 else ("ovr",)
    for shape in shapes:
        est.set_params(decision_function_shape=shape)
        svc.set_params(decision_function_shape=shape)
        for what, Z in _inputs(X, Xt):
            np.testing.assert_array_equal(exported.predict(Z), est.predict(Z), err_msg=what)
            dec = est.decision_function(Z)
            assert _rel(exported.decision_function(Z), dec) < 1e-10, (shape, what)
    est.set_params(decision_function_shape="ovr")
    assert exported.score(Xt, yt) == est.score(Xt, yt)


@pytest.mark.parametrize("config", CONFIGS, ids=_id)
def test_libsvm_model_file_predicts_as_the_estimator(config, svmutil, tmp_path):
    loss, kernel, n_classes, storage, weights = config
    est, (X, y, Xt, yt) = _fit(config)
    path = tmp_path / "m.model"
    est.save_libsvm_model(path)
    m = svmutil.svm_load_model(str(path))
    assert m.get_nr_class() == n_classes and m.get_nr_sv() == est.support_.size
    range_file = tmp_path / "m.model.range"
    assert range_path_of(path) == str(range_file)
    assert range_file.exists() == (kernel in ARD)
    est.set_params(decision_function_shape="ovo")      # LIBSVM's values are the pairs'
    try:
        for what, Z in _inputs(X, Xt):
            fed = _svm_scale(range_file.read_text(), Z) if kernel in ARD else Z
            labels, _, vals = svmutil.svm_predict(np.zeros(Z.shape[0]), fed, m, "-q")
            np.testing.assert_array_equal(np.asarray(labels), est.predict(Z), err_msg=what)
            dec = est.decision_function(Z)
            assert _rel(np.asarray(vals).reshape(dec.shape), dec) < 1e-10, what
    finally:
        est.set_params(decision_function_shape="ovr")


def test_class_weighted_svc_refits_to_the_same_model():
    """clone(svc).fit on the training data solves the estimator's problem (L1 loss): with
    class_weight='balanced' on breast-cancer every one of the 569 predictions agrees; the same
    SVC without the class weights disagrees on one (the export before issue 30)."""
    X, y = load_breast_cancer(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    est = BoundSVC(loss="l1", class_weight="balanced").fit(X, y)
    svc = est.to_svc()
    n = np.bincount(y)
    np.testing.assert_allclose(svc.class_weight_, y.size / (2 * n), rtol=1e-15)
    refit = clone(svc).fit(X, y)
    np.testing.assert_array_equal(refit.class_weight_, est.class_weight_)
    np.testing.assert_array_equal(refit.predict(X), est.predict(X))
    np.testing.assert_allclose(refit.decision_function(X), est.decision_function(X), rtol=0,
                               atol=0.01)
    unweighted = clone(svc).set_params(class_weight=None).fit(X, y)
    assert (unweighted.predict(X) != est.predict(X)).sum() >= 1


def test_l2_model_exports_its_alphas_beyond_c():
    """The L2-SVM's α_i are not bounded by C: the export keeps them (the SVC's C is the tuned
    C all the same), predicts as the estimator in SVC and in LIBSVM, and refitting the SVC
    trains the L1-SVM instead (|α_i| ≤ C·class_weight)."""
    config = ("l2", "ard", 2, "dense", "unweighted")
    est, (X, y, Xt, _) = _fit(config)
    C = est.best_params_["C"]
    assert np.abs(est.dual_coef_).max() > 1.2 * C
    pipe = est.to_svc()
    svc = pipe.named_steps["svc"]
    assert svc.C == C
    np.testing.assert_array_equal(np.sort(np.abs(svc.dual_coef_[0])),
                                  np.sort(np.abs(est.dual_coef_[0])))
    refit = clone(pipe).fit(X, y).named_steps["svc"]
    assert np.abs(refit.dual_coef_).max() <= C * (1 + 1e-12)


def test_ard_pipeline_is_plain_scikit_learn_and_refits_on_the_scaled_features():
    """The pipeline pickles without svmbound (NumPy and scikit-learn objects only), and
    ``clone(pipeline).fit`` keeps the tuned scale: it trains an SVC on u = x/σ."""
    est, (X, y, Xt, _) = _fit(("l1", "ard", 3, "dense", "weighted"))
    pipe = est.to_svc()
    blob = pickle.dumps(pipe)
    assert b"svmbound" not in blob
    again = pickle.loads(blob)
    np.testing.assert_array_equal(again.decision_function(Xt), pipe.decision_function(Xt))
    np.testing.assert_array_equal(again.predict(Xt), est.predict(Xt))
    np.testing.assert_allclose(pipe.named_steps["scale"].inverse_transform(
        pipe.named_steps["scale"].transform(Xt)), Xt, rtol=1e-15, atol=0)
    refit = clone(pipe).fit(X, y)
    U = est.kernel_.prepare(X)
    np.testing.assert_array_equal(refit.named_steps["scale"].transform(X), U)
    ref = SVC(C=est.best_params_["C"], gamma=0.5, tol=pipe.named_steps["svc"].tol,
              class_weight=pipe.named_steps["svc"].class_weight).fit(U, y)
    np.testing.assert_array_equal(refit.decision_function(Xt),
                                  ref.decision_function(est.kernel_.prepare(Xt)))
    # sparse X is refused as the estimator refuses it (an ARD model is dense)
    with pytest.raises(TypeError, match="[Ss]parse"):
        pipe.predict(sp.csr_matrix(Xt))


def test_ard_with_groups_exports_one_scale_per_feature(svmutil, tmp_path):
    X, y, Xt, _ = _data(2, "dense")
    groups = np.array([0, 1, 1, 0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ModelWarning)
        est = BoundSVC(loss="l2", kernel="ard", groups=groups, max_iter=3).fit(X, y)
    sigma = np.sqrt(est.kernel_.sigma2)[groups]
    pipe = est.to_svc()
    np.testing.assert_array_equal(pipe.named_steps["scale"].transform(Xt), Xt * (1 / sigma))
    np.testing.assert_array_equal(pipe.predict(Xt), est.predict(Xt))
    assert _rel(pipe.decision_function(Xt), est.decision_function(Xt)) < 1e-10
    path = tmp_path / "g.model"
    est.save_libsvm_model(path)
    text = (tmp_path / "g.model.range").read_text()
    assert text.splitlines() == ["x", "0 1"] + [f"{k + 1} 0 {float(s)!r}"
                                                for k, s in enumerate(sigma)]
    # svm-scale's rule is x/σ exactly
    np.testing.assert_array_equal(_svm_scale(text, Xt), Xt / sigma)
    labels, _, vals = svmutil.svm_predict(np.zeros(len(Xt)), _svm_scale(text, Xt),
                                          svmutil.svm_load_model(str(path)), "-q")
    np.testing.assert_array_equal(labels, est.predict(Xt))
    assert _rel(np.asarray(vals)[:, 0], est.decision_function(Xt)) < 1e-10


def test_range_file_keeps_zeros_and_the_model_file_needs_it(svmutil, tmp_path):
    """svm-scale maps 0 to 0 (its sparse output stays sparse), and the model file alone on raw
    features predicts differently: the range file is needed."""
    est, (X, y, Xt, _) = _fit(("l1", "ard", 2, "dense", "unweighted"))
    path = tmp_path / "a.model"
    est.save_libsvm_model(path)
    text = (tmp_path / "a.model.range").read_text()
    Z = Xt.copy()
    Z[::3, 1] = 0.0
    scaled = _svm_scale(text, Z)
    assert np.all(scaled[::3, 1] == 0.0)
    m = svmutil.svm_load_model(str(path))
    _, _, raw = svmutil.svm_predict(np.zeros(len(Z)), Z, m, "-q")
    _, _, good = svmutil.svm_predict(np.zeros(len(Z)), scaled, m, "-q")
    assert _rel(np.asarray(good)[:, 0], est.decision_function(Z)) < 1e-10
    assert _rel(np.asarray(raw)[:, 0], est.decision_function(Z)) > 1e-3
    with pytest.raises(ValueError, match="raw features"):
        libsvm_range_text(binary_model(_fit(("l1", "rbf", 2, "dense", "unweighted"))[0]))


@pytest.mark.parametrize("kernel", ["rbf", "ard"])
def test_per_pair_kernels_that_differ_cannot_be_exported(tmp_path, kernel):
    X, y, _, _ = _data(3, "dense")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ModelWarning)
        est = BoundSVC(loss="l1", kernel=kernel, multiclass_theta="per-pair",
                       max_iter=3).fit(X, y)
    assert est.kernel_ is None
    for export in (est.to_svc, lambda: est.save_libsvm_model(tmp_path / "m.txt")):
        with pytest.raises(ValueError, match="one kernel per class pair"):
            export()
    assert list(tmp_path.iterdir()) == []


def test_where_the_range_file_goes(tmp_path):
    """Default ``<path>.range``; another path; False: the model file alone (for a caller that
    writes the range file itself, ``write_libsvm_range``); a model on raw features has none;
    a model that cannot be written (string labels) leaves neither file."""
    from svmbound.export import model_of
    from svmbound.libsvm_model import write_libsvm_model, write_libsvm_range

    est, (X, y, _, _) = _fit(("l2", "ard-poly", 3, "dense", "weighted"))
    model = model_of(est)
    assert model.feature_scale is not None and model.loss == "l2"
    write_libsvm_model(model, tmp_path / "a", range_path=tmp_path / "elsewhere.txt")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a", "elsewhere.txt"]
    write_libsvm_model(model, tmp_path / "b", range_path=False)
    assert not (tmp_path / "b.range").exists()
    write_libsvm_range(model, tmp_path / "b.range")
    est.save_libsvm_model(tmp_path / "c")
    for name in ("a", "b"):
        assert (tmp_path / name).read_text() == (tmp_path / "c").read_text()
    text = (tmp_path / "c.range").read_text()
    assert (tmp_path / "elsewhere.txt").read_text() == (tmp_path / "b.range").read_text() == text
    assert text == libsvm_range_text(model)
    plain = model_of(_fit(("l2", "poly", 3, "dense", "weighted"))[0])
    with pytest.raises(ValueError, match="raw features"):
        write_libsvm_model(plain, tmp_path / "d", range_path=tmp_path / "d.range")
    assert not (tmp_path / "d").exists()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ModelWarning)
        named = BoundSVC(kernel="ard", max_iter=2).fit(X, np.where(y > 0, "yes", "no"))
    out = tmp_path / "strings"
    out.mkdir()
    with pytest.raises(ValueError, match="integer labels"):
        named.save_libsvm_model(out / "m")
    assert list(out.iterdir()) == []


def test_check_exportable():
    """Both losses and every kernel export; the ARD kernels only with their scaling (a caller
    that writes the model file alone, today ``tune --model``, gets them refused)."""
    from svmbound.export import check_exportable

    for loss, kernel in itertools.product(LOSSES, KERNELS):
        check_exportable(loss, kernel, with_scaling=True)
        if kernel not in ARD:
            check_exportable(loss, kernel)
    for kernel in ARD:
        with pytest.raises(ValueError, match=f"kernel='{kernel}' cannot be exported as a model "
                                             "file alone: .* needs svm-scale's range file"):
            check_exportable("l2", kernel)
    with pytest.raises(ValueError, match="loss='hinge' cannot be exported"):
        check_exportable("hinge", "rbf")
    with pytest.raises(ValueError, match="kernel='sigmoid' cannot be exported"):
        check_exportable("l1", "sigmoid", with_scaling=True)
