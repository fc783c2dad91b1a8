"""Export of a tuned model: ``BoundSVC.to_svc`` (a fitted scikit-learn SVC, nothing retrained)
and ``BoundSVC.save_libsvm_model`` (LIBSVM's model file, read back by LIBSVM's own binding):
the L1-SVM's attributes in detail here; every loss, kernel and class count in
test_export_all.py."""

import warnings

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.exceptions import NotFittedError
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from svmbound import BoundSVC
from svmbound.checks import ModelWarning

#: One quick tuning per exportable kernel (the linear kernel has only ln C: a 1-D grid).
FITS = {
    "rbf": dict(kernel="rbf", max_iter=8),
    "linear": dict(kernel="linear", search="grid", criterion="rm-l1", grid={"log_C": (-3, 3, 1)}),
    "poly": dict(kernel="poly", degree=3, max_iter=5),
}


@pytest.fixture(scope="module")
def data():
    """Overlapping classes, 120 train / 80 test, labels 7 and −3 (integers, not ±1; the first
    training row is of class 7 = classes_[1])."""
    X, y = make_classification(n_samples=200, n_features=5, n_informative=3, n_redundant=0,
                               flip_y=0.05, random_state=3)
    X = StandardScaler().fit_transform(X)
    y = np.where(y == 1, 7, -3)
    return X[:120], y[:120], X[120:], y[120:]


@pytest.fixture(scope="module")
def fitted(data):
    X, y, _, _ = data
    return {k: BoundSVC(loss="l1", **kw).fit(X, y) for k, kw in FITS.items()}


@pytest.fixture(scope="module")
def svmutil():
    return pytest.importorskip("libsvm.svmutil", reason="libsvm-official (test extra) missing")


@pytest.mark.parametrize("kernel", sorted(FITS))
def test_to_svc_predicts_exactly_as_the_estimator(data, fitted, kernel):
    X, y, Xt, yt = data
    est = fitted[kernel]
    svc = est.to_svc()
    assert isinstance(svc, SVC)
    assert svc.kernel == kernel and svc.C == est.best_params_["C"]
    for Z in (X, Xt):
        np.testing.assert_array_equal(svc.predict(Z), est.predict(Z))
        np.testing.assert_allclose(svc.decision_function(Z), est.decision_function(Z),
                                   rtol=0, atol=1e-10)
    assert svc.score(Xt, yt) == est.score(Xt, yt)
    np.testing.assert_array_equal(svc.classes_, [-3, 7])
    # SVC's public attributes: α_i y_i with y = +1 for classes_[1], b, SV counts per class
    order = np.argsort(svc.support_)
    np.testing.assert_array_equal(svc.support_[order], est.support_)
    np.testing.assert_array_equal(svc.dual_coef_[0][order], est.dual_coef_[0])
    np.testing.assert_array_equal(svc.support_vectors_[order], est.support_vectors_)
    assert svc.intercept_[0] == est.intercept_[0]
    np.testing.assert_array_equal(svc.n_support_, est.n_support_)
    # the tuned kernel parameters, never gamma='scale'
    if kernel == "rbf":
        assert svc.gamma == 1.0 / (2.0 * est.best_params_["sigma2"]) == est.best_params_["gamma"]
    elif kernel == "poly":
        assert (svc.gamma, svc.coef0, svc.degree) == (1.0, est.best_params_["coef0"],
                                                      est.best_params_["degree"])
        assert est.best_params_["coef0"] != 1.0      # tuned away from the start value
    assert not isinstance(svc.gamma, str)


def test_to_svc_has_the_attributes_of_an_svc_trained_at_the_tuned_point(data, fitted):
    """LIBSVM (through SVC.fit) at the same C and gamma finds the same support vectors in the
    same order, the same signs of dual_coef_ and intercept_ — the export follows SVC's own
    conventions, not only its predictions."""
    X, y, Xt, _ = data
    # a named criterion: its final model is trained at tol (1e-6), not at the 1e-3 of
    # criterion='auto' (SVC's default), so that it matches SVC at tol 1e-10 to 1e-5
    est = BoundSVC(loss="l1", kernel="rbf", criterion="rm-l1", max_iter=8).fit(X, y)
    ours = est.to_svc()
    ref = SVC(C=ours.C, gamma=ours.gamma, tol=1e-10).fit(X, y)
    np.testing.assert_array_equal(ours.support_, ref.support_)
    np.testing.assert_array_equal(ours.n_support_, ref.n_support_)
    np.testing.assert_allclose(ours.dual_coef_, ref.dual_coef_, atol=1e-5)
    np.testing.assert_allclose(ours.intercept_, ref.intercept_, atol=1e-5)
    np.testing.assert_allclose(ours.decision_function(Xt), ref.decision_function(Xt), atol=1e-5)


def test_linear_svc_coef_is_the_primal_w(data, fitted):
    X, _, Xt, _ = data
    est = fitted["linear"]
    svc = est.to_svc()
    w = est.dual_coef_[0] @ est.support_vectors_
    np.testing.assert_allclose(svc.coef_[0], w, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(Xt @ svc.coef_[0] + svc.intercept_[0], est.decision_function(Xt),
                               rtol=0, atol=1e-10)


def test_string_labels_keep_the_sign_convention(data):
    """SVC's decision_function > 0 predicts classes_[1] whatever the labels; the first training
    row here is of classes_[0] (LIBSVM would list its label first)."""
    X, y, Xt, _ = data
    labels = np.where(y == -3, "yes", "no")          # 'no' < 'yes': classes_[1] = 'yes'
    assert labels[0] == "no"
    est = BoundSVC(loss="l1", max_iter=4).fit(X, labels)
    svc = est.to_svc()
    np.testing.assert_array_equal(svc.classes_, ["no", "yes"])
    d = svc.decision_function(Xt)
    np.testing.assert_allclose(d, est.decision_function(Xt), rtol=0, atol=1e-10)
    np.testing.assert_array_equal(svc.predict(Xt), np.where(d > 0, "yes", "no"))
    np.testing.assert_array_equal(svc.predict(Xt), est.predict(Xt))
    with pytest.raises(ValueError, match="integer labels"):
        est.save_libsvm_model("never-written.txt")


@pytest.mark.parametrize("kernel", sorted(FITS))
def test_libsvm_model_file_predicts_identically_in_libsvm(data, fitted, svmutil, tmp_path,
                                                           kernel):
    X, y, Xt, yt = data
    est = fitted[kernel]
    path = tmp_path / f"{kernel}.model"
    assert est.save_libsvm_model(path) is est
    m = svmutil.svm_load_model(str(path))
    assert m.get_labels() == [7, -3]                 # classes_[1] first: positive values
    assert m.get_nr_class() == 2 and m.get_nr_sv() == est.support_.size
    for Z, yz in ((Xt, yt), (X, y)):
        labels, acc, vals = svmutil.svm_predict(yz.astype(float), Z, m, "-q")
        np.testing.assert_array_equal(np.asarray(labels), est.predict(Z))
        np.testing.assert_allclose(np.asarray(vals)[:, 0], est.decision_function(Z),
                                   rtol=0, atol=1e-8)
        assert acc[0] == pytest.approx(100 * est.score(Z, yz))
    svc = est.to_svc()
    assert m.param.kernel_type == {"linear": 0, "poly": 1, "rbf": 2}[kernel]
    if kernel != "linear":
        assert m.param.gamma == svc.gamma
    if kernel == "poly":
        assert (m.param.degree, m.param.coef0) == (svc.degree, svc.coef0)
    lines = path.read_text().splitlines()
    header = dict(line.split(" ", 1) for line in lines[:lines.index("SV")])
    assert header["svm_type"] == "c_svc"
    assert float(header["rho"]) == -est.intercept_[0]
    assert header["label"] == "7 -3"
    n_pos = int((est.dual_coef_[0] > 0).sum())
    assert header["nr_sv"] == f"{n_pos} {est.support_.size - n_pos}"
    assert header["total_sv"] == str(est.support_.size)


def test_a_zero_based_model_file_predicts_zero_based_rows_as_the_estimator(data, fitted,
                                                                           svmutil, tmp_path):
    X, y, Xt, yt = data
    est = fitted["rbf"]
    path = tmp_path / "zero.model"
    est.save_libsvm_model(path, zero_based=True)
    m = svmutil.svm_load_model(str(path))
    rows = [{k: float(v) for k, v in enumerate(r) if v != 0} for r in Xt]   # features 0 … d−1
    labels, _, vals = svmutil.svm_predict(list(map(float, yt)), rows, m, "-q")
    np.testing.assert_array_equal(np.asarray(labels), est.predict(Xt))
    np.testing.assert_allclose(np.asarray(vals)[:, 0], est.decision_function(Xt), rtol=0,
                               atol=1e-8)
    with pytest.raises(ValueError, match="zero_based must be True or False, got 0"):
        est.save_libsvm_model(path, zero_based=0)


def test_unfitted_estimator_cannot_export(tmp_path):
    with pytest.raises(NotFittedError):
        BoundSVC(loss="l1").to_svc()
    with pytest.raises(NotFittedError):
        BoundSVC(loss="l1").save_libsvm_model(tmp_path / "m.txt")


def test_fractional_labels_cannot_go_to_a_libsvm_file(data, tmp_path):
    X, y, Xt, _ = data
    # fractional labels are continuous targets: fit refuses them up front (issue 15 item 6),
    # so no model with such classes can reach the export
    with pytest.raises(ValueError, match="Unknown label type: continuous"):
        BoundSVC(loss="l1", max_iter=3).fit(X, np.where(y == 7, 1.5, 0.5))


# ---------------------------------------------------------------------------------------------
# models fitted on sparse (CSR) X: exported without densifying the support vectors

sp = pytest.importorskip("scipy.sparse")

#: Sparse fits: binary (the three kernels, class and sample weights) and three classes.
SPARSE_FITS = {
    "rbf": dict(kernel="rbf", max_iter=6),
    "linear": dict(kernel="linear", search="grid", criterion="rm-l1", grid={"log_C": (0, 6, 1)}),
    "poly": dict(kernel="poly", degree=3, max_iter=4),
    "class_weight": dict(kernel="rbf", max_iter=4, class_weight={7: 3.0, -3: 0.5}),
    "sample_weight": dict(kernel="rbf", max_iter=4),
    "multiclass": dict(kernel="rbf", max_iter=4),
}


def _rel(a, b):
    """Largest difference relative to the largest |b|."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return float(np.abs(a - b).max() / np.abs(b).max())


@pytest.fixture(scope="module")
def sparse_data():
    """200 × 60 CSR with 10 % non-zeros (some rows empty), 150 train / 50 test, as CSR and
    dense; binary labels 7 / −3 and three classes 5, 7, 9."""
    rng = np.random.default_rng(0)
    X = sp.random(200, 60, density=0.1, random_state=1, format="csr")
    Xd = X.toarray()
    y2 = np.where(Xd[:, :8].sum(1) + 0.1 * rng.normal(size=200) > 0.3, 7, -3)
    y3 = np.array([5, 7, 9])[np.argmax(Xd[:, :3] + 0.05 * rng.normal(size=(200, 3)), axis=1)]
    return dict(X=X[:150], Xd=Xd[:150], Xt=X[150:], Xtd=Xd[150:], y2=y2[:150], yt2=y2[150:],
                y3=y3[:150], yt3=y3[150:])


@pytest.fixture(scope="module")
def sparse_fitted(sparse_data):
    d = sparse_data
    out = {}
    for name, kw in SPARSE_FITS.items():
        y = d["y3"] if name == "multiclass" else d["y2"]
        weights = (np.where(np.arange(150) % 3 == 0, 2.5, 1.0) if name == "sample_weight"
                   else None)
        with warnings.catch_warnings():       # a vacuous bound of the search: not the subject
            warnings.simplefilter("ignore", ModelWarning)
            out[name] = BoundSVC(loss="l1", **kw).fit(d["X"], y, sample_weight=weights)
    return out


def _test_sets(d):
    """(name, X) of the training and test rows, each as CSR and dense."""
    return [("train csr", d["X"]), ("train dense", d["Xd"]), ("test csr", d["Xt"]),
            ("test dense", d["Xtd"])]


@pytest.mark.parametrize("name", sorted(SPARSE_FITS))
def test_sparse_model_to_svc_is_a_sparse_svc_predicting_as_the_estimator(sparse_data,
                                                                         sparse_fitted, name):
    est = sparse_fitted[name]
    assert sp.issparse(est.support_vectors_)
    svc = est.to_svc()
    assert isinstance(svc, SVC) and svc._sparse
    S = svc.support_vectors_
    assert sp.issparse(S) and S.format == "csr" and S.dtype == np.float64
    assert S.has_sorted_indices and S.indices.dtype == S.indptr.dtype == np.int32
    assert sp.issparse(svc.dual_coef_)
    # the estimator's support vectors and coefficients, regrouped by class for SVC
    ours, theirs = np.argsort(svc.support_), np.argsort(est.support_)
    np.testing.assert_array_equal(svc.support_[ours], est.support_[theirs])
    assert (S[ours] != est.support_vectors_[theirs]).nnz == 0
    if name != "multiclass":
        np.testing.assert_array_equal(svc.dual_coef_.toarray()[0][ours], est.dual_coef_[0])
        assert svc.intercept_[0] == est.intercept_[0]
    np.testing.assert_array_equal(svc.n_support_, est.n_support_)
    for shape in ("ovr", "ovo"):
        est.set_params(decision_function_shape=shape)
        svc.set_params(decision_function_shape=shape)
        for what, Z in _test_sets(sparse_data):
            np.testing.assert_array_equal(svc.predict(Z), est.predict(Z), err_msg=what)
            dec = est.decision_function(Z)
            assert _rel(svc.decision_function(Z), dec) < 1e-12, what
    est.set_params(decision_function_shape="ovr")


def test_multiclass_sparse_svc_keeps_the_zero_coefficients(sparse_fitted):
    """libsvm_sparse reads _dual_coef_.data as the dense (k − 1) × n_SV array: the zeros of the
    pairs a support vector is not in must be stored, or the later coefficients would shift."""
    est = sparse_fitted["multiclass"]
    assert np.any(est.dual_coef_ == 0)
    svc = est.to_svc()
    D = svc._dual_coef_
    assert D.nnz == est.dual_coef_.size
    np.testing.assert_array_equal(D.data, est.dual_coef_.ravel())
    np.testing.assert_array_equal(D.toarray(), est.dual_coef_)


def test_sparse_svc_has_the_attributes_of_an_svc_trained_on_sparse_x(sparse_data, sparse_fitted):
    """SVC.fit on the CSR training data at the tuned C and gamma: the same kinds of attributes
    (CSR support_vectors_ and dual_coef_ of the same classes, _sparse set) and the same
    support vectors in the same order."""
    # a named criterion: its final model is trained at tol (1e-6), see the dense test above
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ModelWarning)
        est = BoundSVC(loss="l1", kernel="rbf", criterion="rm-l1", max_iter=6).fit(
            sparse_data["X"], sparse_data["y2"])
    ours = est.to_svc()
    ref = SVC(C=ours.C, gamma=ours.gamma, tol=1e-10).fit(sparse_data["X"], sparse_data["y2"])
    assert ref._sparse and ours._sparse
    assert type(ours.support_vectors_) is type(ref.support_vectors_)
    assert type(ours.dual_coef_) is type(ref.dual_coef_)
    np.testing.assert_array_equal(ours.support_, ref.support_)
    assert (ours.support_vectors_ != ref.support_vectors_).nnz == 0
    # LIBSVM caches the kernel in float32: its α are accurate to ~1e-5 relative to C (C ≈ 90)
    np.testing.assert_allclose(ours.dual_coef_.toarray(), ref.dual_coef_.toarray(), rtol=0,
                               atol=1e-4 * ours.C)
    np.testing.assert_allclose(ours.intercept_, ref.intercept_, rtol=0, atol=1e-4)


def test_sparse_linear_svc_coef_is_the_primal_w(sparse_fitted):
    est = sparse_fitted["linear"]
    w = est.support_vectors_.T @ est.dual_coef_[0]
    coef = est.to_svc().coef_            # sparse, as for an SVC fitted on sparse X
    assert sp.issparse(coef)
    np.testing.assert_allclose(coef.toarray()[0], w, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name", sorted(SPARSE_FITS))
def test_sparse_model_file_predicts_identically_in_libsvm(sparse_data, sparse_fitted, svmutil,
                                                          tmp_path, name):
    from svmbound.export import binary_model, multiclass_model
    from svmbound.libsvm_model import libsvm_model_text

    d = sparse_data
    est = sparse_fitted[name]
    multi = name == "multiclass"
    y, yt = (d["y3"], d["yt3"]) if multi else (d["y2"], d["yt2"])
    path = tmp_path / f"{name}.model"
    est.save_libsvm_model(path)
    m = svmutil.svm_load_model(str(path))
    assert m.get_nr_sv() == est.support_.size
    est.set_params(decision_function_shape="ovo")
    for Z, Zl, yz in ((d["Xt"], d["Xtd"], yt), (d["X"], d["Xd"], y)):
        # the binding takes CSR, and LIBSVM's own {index: value} rows (1-based)
        rows = [{int(j) + 1: float(r[j]) for j in np.flatnonzero(r)} for r in Zl]
        for fed in (sp.csr_matrix(Z), rows):
            labels, _, vals = svmutil.svm_predict(yz.astype(float), fed, m, "-q")
            np.testing.assert_array_equal(np.asarray(labels), est.predict(Z))
            dec = est.decision_function(Z)
            assert _rel(np.asarray(vals).reshape(dec.shape), dec) < 1e-12
    est.set_params(decision_function_shape="ovr")
    # each SV line lists the row's non-zeros, 1-based; the text is that of the densified model
    lines = path.read_text().splitlines()
    sv_lines = lines[lines.index("SV") + 1:]
    model = multiclass_model(est) if multi else binary_model(est, first=1)
    assert sp.issparse(model.support_vectors)
    for line, row in zip(sv_lines, model.support_vectors):
        feats = [t.split(":") for t in line.split() if ":" in t]
        assert [int(j) - 1 for j, _ in feats] == row.indices.tolist()
        assert [float(v) for _, v in feats] == row.data.tolist()
    model.support_vectors = model.support_vectors.toarray()
    assert libsvm_model_text(model) == path.read_text()


def test_model_text_of_a_non_canonical_csr_model(sparse_fitted):
    """A LibsvmModel whose CSR rows have unsorted indices, duplicates and stored zeros is
    written as its dense array is: ascending indices (LIBSVM needs them), summed duplicates,
    no zeros."""
    from svmbound.export import binary_model
    from svmbound.libsvm_model import libsvm_model_text

    model = binary_model(sparse_fitted["rbf"])
    S = model.support_vectors
    dense_text = libsvm_model_text(binary_model(sparse_fitted["rbf"]))
    rows = [(S.indices[lo:hi][::-1], S.data[lo:hi][::-1])
            for lo, hi in zip(S.indptr[:-1], S.indptr[1:])]
    # each row reversed, its first value split in two halves, a stored zero in column 0
    parts = [(np.r_[c, c[:1], 0], np.r_[v[:1] / 2, v[1:], v[:1] / 2, 0.0]) if c.size else
             (np.r_[0], np.r_[0.0]) for c, v in rows]
    model.support_vectors = sp.csr_matrix(
        (np.concatenate([v for _, v in parts]), np.concatenate([c for c, _ in parts]),
         np.r_[0, np.cumsum([c.size for c, _ in parts])]), shape=S.shape)
    assert not model.support_vectors.has_canonical_format
    assert libsvm_model_text(model) == dense_text


@pytest.mark.parametrize("loss", ["l1", "l2"])
def test_export_of_a_sparse_model_never_densifies(monkeypatch, svmutil, tmp_path, loss):
    """150 × 100,000 with 20 non-zeros a row: the support vectors stay CSR in the SVC and are
    written row by row (a dense copy of them would take ~1 MB per support vector); the same
    for both losses."""
    import tracemalloc

    from _wide import forbid_densifying, wide_csr

    dim, k = 100_000, 20
    X, y = wide_csr(170, dim, k)
    # test rows: 20 unseen and 30 training rows (both classes predicted)
    Xt, yt = sp.vstack([X[:30], X[150:]], format="csr"), np.concatenate([y[:30], y[150:]])
    X, y = X[:150], y[:150]
    with warnings.catch_warnings():           # one grid point: the bound is vacuous there
        warnings.simplefilter("ignore", ModelWarning)
        est = BoundSVC(loss=loss, search="grid",
                       grid={"log_C": (1, 1, 1), "log_sigma2": (2, 2, 1)}).fit(X, y)

    forbid_densifying(monkeypatch)
    path = tmp_path / "wide.model"
    tracemalloc.start()
    try:
        svc = est.to_svc()
        pred, dec = svc.predict(Xt), svc.decision_function(Xt)
        est.save_libsvm_model(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    n_sv = est.support_.size
    assert n_sv > 50
    assert peak < 16 * 2**20, f"peak {peak / 2**20:.0f} MB ({n_sv} SVs dense: {n_sv * 0.8:.0f} MB)"
    assert sp.issparse(svc.support_vectors_) and svc.support_vectors_.shape == (n_sv, dim)
    assert svc.support_vectors_.nnz == n_sv * k
    np.testing.assert_array_equal(pred, est.predict(Xt))
    assert set(pred) == {-1, 1}
    assert _rel(dec, est.decision_function(Xt)) < 1e-12
    text = path.read_text()
    assert text.count(":") == n_sv * k
    m = svmutil.svm_load_model(str(path))
    labels, _, vals = svmutil.svm_predict(yt.astype(float), Xt, m, "-q")
    np.testing.assert_array_equal(np.asarray(labels), pred)
    assert _rel(np.asarray(vals)[:, 0], dec) < 1e-12
