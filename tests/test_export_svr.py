"""Export of an ε-SVR on plain arrays (``svmbound.export.regression_model``, ``to_svr``,
``write_libsvm_model``): a ``sklearn.svm.SVR`` fitted here gives the parts (support vectors,
α − α*, b); rebuilt through the export with svmbound kernels of the same parameters, the
exported SVR, LIBSVM's official binding reading the written model file, and Σ coef·K + b
computed with the svmbound kernel must all predict as the fitted SVR."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.datasets import make_friedman1, make_regression
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVR

from svmbound.export import regression_model, to_svc, to_svr
from svmbound.kernels import (ARDRBFKernel, LinearKernel, PolynomialKernel, RBFKernel,
                              ScaledPolynomialKernel)
from svmbound.libsvm_model import libsvm_model_text, range_path_of, write_libsvm_model

C, EPSILON, TOL = 3.0, 0.1, 1e-8

#: svmbound kernel ↔ the SVR parameters of the same function (RBF: γ = 1/(2σ²); the
#: polynomial (⟨x, z⟩ + c)^d is LIBSVM's with γ = 1, coef0 = c).
KERNELS = {
    "rbf": (lambda: RBFKernel(sigma2=2.0), dict(kernel="rbf", gamma=0.25)),
    "linear": (LinearKernel, dict(kernel="linear")),
    "poly": (lambda: PolynomialKernel(degree=3, coef0=1.0),
             dict(kernel="poly", degree=3, gamma=1.0, coef0=1.0)),
}
CASES = [(k, s) for k in sorted(KERNELS) for s in ("dense", "csr")]


def _rel(a, b) -> float:
    """Largest difference relative to the largest magnitude of the reference ``b``."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    assert a.shape == b.shape
    return float(np.max(np.abs(a - b)) / max(np.max(np.abs(b)), 1e-300))


def _dense(Z):
    return Z.toarray() if sp.issparse(Z) else Z


@pytest.fixture(scope="module")
def svmutil():
    return pytest.importorskip("libsvm.svmutil", reason="libsvm-official (test extra) missing")


@pytest.fixture(scope="module")
def data():
    """Friedman #1 (dense; features and target standardised) and a sparse regression problem
    (about 60 % zeros, kept as CSR): 100 training rows, 60 test rows each."""
    X, y = make_friedman1(n_samples=160, n_features=6, noise=0.3, random_state=0)
    X = StandardScaler().fit_transform(X)
    y = (y - y.mean()) / y.std()
    Xs, ys = make_regression(n_samples=160, n_features=12, n_informative=6, noise=5.0,
                             random_state=1)
    Xs[np.abs(Xs) < 0.85] = 0.0
    ys = (ys - ys.mean()) / ys.std()
    Xs = sp.csr_matrix(Xs)
    return {"dense": (X[:100], y[:100], X[100:]), "csr": (Xs[:100], ys[:100], Xs[100:])}


@pytest.fixture(scope="module")
def fitted(data):
    """Per (kernel, storage): the reference SVR, the svmbound kernel, and the exported model."""
    out = {}
    for kernel, storage in CASES:
        make_kernel, params = KERNELS[kernel]
        X, y, _ = data[storage]
        ref = SVR(C=C, epsilon=EPSILON, tol=TOL, **params).fit(X, y)
        k = make_kernel()
        model = regression_model(k, ref.support_vectors_, ref.dual_coef_, ref.intercept_,
                                 C=C, epsilon=EPSILON, support=ref.support_,
                                 n_samples=X.shape[0])
        out[kernel, storage] = ref, k, model
    return out


def _inputs(storage, X, Xt):
    """What to predict: training and test rows; a sparse model also dense rows."""
    out = [("train", X), ("test", Xt)]
    if storage == "csr":
        out += [("train dense", X.toarray()), ("test dense", Xt.toarray())]
    return out


@pytest.mark.parametrize("kernel,storage", CASES)
def test_to_svr_predicts_as_the_fitted_svr(data, fitted, kernel, storage):
    X, y, Xt = data[storage]
    ref, k, model = fitted[kernel, storage]
    assert ref.support_.size > 10                        # a model, not a constant
    svr = to_svr(model, tol=TOL)
    assert isinstance(svr, SVR)
    params = KERNELS[kernel][1]
    got = svr.get_params()
    assert got["C"] == C and got["epsilon"] == EPSILON and got["tol"] == TOL
    assert all(got[name] == value for name, value in params.items())
    # the attributes SVR.fit sets, no more and no fewer, with the fitted SVR's values
    assert set(vars(svr)) == set(vars(ref))
    assert svr._sparse == ref._sparse == (storage == "csr")
    assert sp.issparse(svr.support_vectors_) == sp.issparse(svr.dual_coef_) == (storage == "csr")
    np.testing.assert_array_equal(svr._n_support, ref._n_support)
    np.testing.assert_array_equal(svr.n_support_, [ref.support_.size])
    np.testing.assert_array_equal(svr.support_, ref.support_)
    np.testing.assert_array_equal(_dense(svr.dual_coef_), _dense(ref.dual_coef_))
    np.testing.assert_array_equal(svr.intercept_, ref.intercept_)
    assert svr.shape_fit_ == ref.shape_fit_ and svr.n_features_in_ == ref.n_features_in_
    assert isinstance(svr.n_iter_, int)
    coef, b = _dense(ref.dual_coef_)[0], ref.intercept_[0]
    for what, Z in _inputs(storage, X, Xt):
        expected = ref.predict(Z)
        assert _rel(svr.predict(Z), expected) < 1e-10, what
        # the formula itself, with the svmbound kernel: Σ (α_i − α_i*) K(sv_i, x) + b
        direct = k.block(Z, ref.support_vectors_) @ coef + b
        assert _rel(direct, expected) < 1e-10, what
    if kernel == "linear":                   # w = Σ coef_i sv_i, as an SVR fitted so has it
        np.testing.assert_allclose(_dense(svr.coef_), _dense(ref.coef_), rtol=1e-12,
                                   atol=1e-14)


@pytest.mark.parametrize("kernel,storage", CASES)
def test_refitting_the_exported_svr_trains_the_same_model(data, fitted, kernel, storage):
    """C, epsilon, kernel, gamma, degree, coef0 and tol are the exported SVR's parameters:
    clone(svr).fit on the training data solves the same problem again."""
    X, y, Xt = data[storage]
    ref, _, model = fitted[kernel, storage]
    refit = clone(to_svr(model, tol=TOL)).fit(X, y)
    np.testing.assert_array_equal(refit.support_, ref.support_)
    for what, Z in _inputs(storage, X, Xt):
        assert _rel(refit.predict(Z), ref.predict(Z)) < 1e-8, what


@pytest.mark.parametrize("kernel,storage", CASES)
def test_libsvm_model_file_predicts_as_the_svr(data, fitted, svmutil, tmp_path, kernel,
                                               storage):
    X, y, Xt = data[storage]
    ref, _, model = fitted[kernel, storage]
    path = tmp_path / "svr.model"
    write_libsvm_model(model, path)
    assert not (tmp_path / "svr.model.range").exists()
    lines = path.read_text().splitlines()
    header = lines[:lines.index("SV")]
    n_sv = ref.support_.size
    assert header[0] == "svm_type epsilon_svr"
    assert header[1] == "kernel_type " + {"rbf": "rbf", "linear": "linear",
                                          "poly": "polynomial"}[kernel]
    assert "nr_class 2" in header and f"total_sv {n_sv}" in header
    (rho,) = [float(h.split()[1]) for h in header if h.startswith("rho ")]
    assert rho == -ref.intercept_[0]
    assert not any(h.split()[0] in ("label", "nr_sv", "probA", "probB") for h in header)
    sv_lines = lines[lines.index("SV") + 1:]
    assert len(sv_lines) == n_sv
    np.testing.assert_array_equal([float(s.split()[0]) for s in sv_lines],
                                  _dense(ref.dual_coef_)[0])
    m = svmutil.svm_load_model(str(path))
    assert m.get_svm_type() == svmutil.svm_forms.EPSILON_SVR and m.get_nr_sv() == n_sv
    np.testing.assert_array_equal(np.ravel(m.get_sv_coef()), _dense(ref.dual_coef_)[0])
    # LIBSVM's own writer, saving the model it read, writes the same header keys in order
    again = tmp_path / "again.model"
    svmutil.svm_save_model(str(again), m)
    theirs = again.read_text().splitlines()
    assert [h.split()[0] for h in theirs[:theirs.index("SV")]] == [h.split()[0] for h in header]
    svr = to_svr(model)
    for what, Z in _inputs(storage, X, Xt):
        fed = sp.csr_matrix(Z) if sp.issparse(Z) else Z
        pred, _, vals = svmutil.svm_predict(np.zeros(Z.shape[0]), fed, m, "-q")
        expected = ref.predict(Z)
        assert _rel(pred, expected) < 1e-10, what
        assert _rel(np.asarray(vals)[:, 0], expected) < 1e-10, what
        assert _rel(pred, svr.predict(Z)) < 1e-10, what


ARD = {
    "ard": (lambda s2: ARDRBFKernel(s2), dict(kernel="rbf", gamma=0.5)),
    "ard-poly": (lambda s2: ScaledPolynomialKernel(s2, degree=2),
                 dict(kernel="poly", degree=2, gamma=1.0, coef0=1.0)),
}


@pytest.mark.parametrize("kernel", sorted(ARD))
def test_ard_regression_exports_the_scaling(data, svmutil, tmp_path, kernel):
    """An ARD kernel is the plain kernel on u = x/σ_k: the export is the Pipeline of the
    scaling and the SVR on u, and the model file on u with svm-scale's range file beside it."""
    X, y, Xt = data["dense"]
    sigma2 = np.array([0.5, 1.0, 2.0, 4.0, 8.0, 16.0])
    inv = 1.0 / np.sqrt(sigma2)
    make_kernel, params = ARD[kernel]
    ref = SVR(C=C, epsilon=EPSILON, tol=TOL, **params).fit(X * inv, y)
    k = make_kernel(sigma2)
    # the parts on the raw features: the kernel scales them
    model = regression_model(k, X[ref.support_], ref.dual_coef_, ref.intercept_, C=C,
                             epsilon=EPSILON, support=ref.support_)
    np.testing.assert_array_equal(model.feature_scale, np.sqrt(sigma2))
    pipe = to_svr(model, tol=TOL)
    assert isinstance(pipe, Pipeline) and list(pipe.named_steps) == ["scale", "svr"]
    coef, b = ref.dual_coef_[0], ref.intercept_[0]
    for what, Z in (("train", X), ("test", Xt)):
        expected = ref.predict(Z * inv)
        assert _rel(pipe.predict(Z), expected) < 1e-10, what
        assert _rel(k.block(Z, X[ref.support_]) @ coef + b, expected) < 1e-10, what
    refit = clone(pipe).fit(X, y)
    assert _rel(refit.predict(Xt), ref.predict(Xt * inv)) < 1e-8
    path = tmp_path / "ard.model"
    write_libsvm_model(model, path)
    assert (tmp_path / "ard.model.range").read_text().splitlines() == (
        ["x", "0 1"] + [f"{j + 1} 0 {float(s)!r}" for j, s in enumerate(np.sqrt(sigma2))])
    assert range_path_of(path) == str(tmp_path / "ard.model.range")
    m = svmutil.svm_load_model(str(path))
    pred, _, _ = svmutil.svm_predict(np.zeros(len(Xt)), Xt * inv, m, "-q")
    assert _rel(pred, ref.predict(Xt * inv)) < 1e-10


def test_a_model_without_support_vectors_predicts_its_intercept(data, svmutil, tmp_path):
    """ε wider than the targets' spread: no support vector, f = b everywhere."""
    X, y, Xt = data["dense"]
    ref = SVR(C=C, epsilon=10.0, gamma=0.25).fit(X, y)
    assert ref.support_.size == 0
    model = regression_model(RBFKernel(2.0), ref.support_vectors_, ref.dual_coef_,
                             ref.intercept_, C=C, epsilon=10.0)
    np.testing.assert_array_equal(to_svr(model).predict(Xt), ref.predict(Xt))
    path = tmp_path / "flat.model"
    write_libsvm_model(model, path)
    pred, _, _ = svmutil.svm_predict(np.zeros(len(Xt)), Xt,
                                     svmutil.svm_load_model(str(path)), "-q")
    np.testing.assert_array_equal(pred, ref.predict(Xt))


def test_bad_parts_raise_value_errors_naming_the_problem(data, fitted):
    ref, k, model = fitted["rbf", "dense"]
    sv, coef, b = ref.support_vectors_, ref.dual_coef_[0], ref.intercept_

    def build(**change):
        parts = dict(kernel=k, support_vectors=sv, dual_coef=coef, intercept=b, C=C,
                     epsilon=EPSILON)
        parts.update(change)
        return regression_model(**parts)

    with pytest.raises(ValueError, match=rf"dual_coef .*per support vector, {sv.shape[0]}"):
        build(dual_coef=coef[:-1])
    with pytest.raises(ValueError, match="dual_coef has non-finite"):
        build(dual_coef=np.where(np.arange(coef.size) == 0, np.nan, coef))
    for bad in (np.nan, np.inf, -0.5, "wide"):
        with pytest.raises(ValueError, match="epsilon must be a"):
            build(epsilon=bad)
    for bad in (0.0, -1.0, np.inf):
        with pytest.raises(ValueError, match="C must be a finite number > 0"):
            build(C=bad)
    with pytest.raises(ValueError, match="intercept must be one finite number"):
        build(intercept=[np.inf])
    with pytest.raises(ValueError, match="intercept must be one finite number"):
        build(intercept=[0.0, 1.0])
    with pytest.raises(ValueError, match="support_vectors must be 2-D"):
        build(support_vectors=sv[0])
    with pytest.raises(ValueError, match="support_vectors has non-finite"):
        build(support_vectors=np.where(sv == sv[0, 0], np.nan, sv))
    with pytest.raises(ValueError, match="support has shape"):
        build(support=ref.support_[:-1])
    with pytest.raises(ValueError, match="cannot be exported"):
        build(kernel=object())
    with pytest.raises(ValueError, match="the kernel scales 3 features"):
        build(kernel=ARDRBFKernel(np.ones(3)))
    # a regression model is not a classifier, nor the other way round
    with pytest.raises(ValueError, match="use to_svr"):
        to_svc(model, [0, 1])
    classifier = type(model)(**{**vars(model), "svm_type": "c_svc"})
    with pytest.raises(ValueError, match="use to_svc"):
        to_svr(classifier)
    with pytest.raises(ValueError, match="svm_type must be one of"):
        libsvm_model_text(type(model)(**{**vars(model), "svm_type": "nu_svr"}))
