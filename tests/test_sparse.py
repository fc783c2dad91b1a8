"""Sparse (CSR) input end to end (issue 13): kernels, solvers, criteria, gradients and BoundSVC
on a scipy CSR matrix give what they give on the dense array, without densifying."""

import time
import tracemalloc
import warnings

import numpy as np
import pytest

sp = pytest.importorskip("scipy.sparse")

from _wide import forbid_densifying, wide_csr  # noqa: E402
from svmbound._validation import check_X  # noqa: E402
from svmbound.criteria import Problem, make_criterion  # noqa: E402
from svmbound.estimators import BoundSVC  # noqa: E402
from svmbound.kernels import LinearKernel, PolynomialKernel, RBFKernel  # noqa: E402
from svmbound.kernels.ard import ARDRBFKernel  # noqa: E402
from svmbound.solvers.radius import solve_radius  # noqa: E402
from svmbound.solvers.svm import solve_svm_dual  # noqa: E402
from svmbound.strategy import ISOTROPIC_CONFIG  # noqa: E402

KERNELS = [RBFKernel(0.7), LinearKernel(), PolynomialKernel(3, 0.5)]


def _rel(a, b):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return float(np.abs(a - b).max() / max(np.abs(b).max(), 1e-300)) if b.size else 0.0


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = sp.random(120, 40, density=0.15, random_state=1, format="csr")
    Xd = X.toarray()
    y = np.where(Xd[:, :5].sum(1) + 0.1 * rng.normal(size=120) > 0.2, 1.0, -1.0)
    Z = sp.random(30, 40, density=0.3, random_state=2, format="csr")
    return X, Xd, y, Z, Z.toarray()


def test_check_X_keeps_csr_canonical_float64():
    X = sp.coo_matrix((np.array([1, 2, 3], dtype=np.int32), ([0, 0, 1], [2, 2, 0])), shape=(2, 3))
    S = check_X(X)
    assert S.format == "csr" and S.dtype == np.float64 and S.has_canonical_format
    np.testing.assert_array_equal(S.toarray(), [[0, 0, 3], [3, 0, 0]])
    with pytest.raises(ValueError, match="NaN or infinity .*row 1, column 0"):
        check_X(sp.csr_matrix(np.array([[0, 1.0], [np.nan, 0]])))
    with pytest.raises(ValueError, match="0 features"):
        check_X(sp.csr_matrix((3, 0)))


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.name)
def test_kernel_blocks_rows_contractions_equal_dense(data, kernel):
    X, Xd, y, Z, Zd = data
    for A, B, Ad, Bd in [(X, None, Xd, None), (X, Z, Xd, Zd), (X, Zd, Xd, Zd), (Xd, Z, Xd, Zd)]:
        assert _rel(kernel.block(A, B), kernel.block(Ad, Bd)) < 1e-10
    assert _rel(kernel.block(X[3:4], X), kernel.block(Xd[3:4], Xd)) < 1e-10   # one row
    v = np.random.default_rng(1).normal(size=(30, 2))
    assert _rel(kernel.block_dot(X, Z, v), kernel.block_dot(Xd, Zd, v)) < 1e-10
    assert _rel(kernel.diag(X), kernel.diag(Xd)) < 1e-10
    rng = np.random.default_rng(2)
    a = rng.normal(size=120) * (rng.random(120) < 0.5)
    b = rng.normal(size=120)
    assert _rel(kernel.contract(X, a, b), kernel.contract(Xd, a, b)) < 1e-10
    assert _rel(kernel.contract(X, a), kernel.contract(Xd, a)) < 1e-10
    assert _rel(kernel.diag_contract(X, b), kernel.diag_contract(Xd, b)) < 1e-10


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.name)
@pytest.mark.parametrize("loss", ["l1", "l2"])
def test_solve_svm_dual_and_radius_on_csr_equal_dense(data, kernel, loss):
    X, Xd, y, _, _ = data
    s = solve_svm_dual(X, y, kernel, 5.0, loss=loss, tol=1e-10)
    d = solve_svm_dual(Xd, y, kernel, 5.0, loss=loss, tol=1e-10)
    assert s.converged
    np.testing.assert_allclose(s.alpha, d.alpha, rtol=1e-6, atol=1e-7 * d.alpha.max())
    assert abs(s.b - d.b) < 1e-6 * max(1.0, abs(d.b))
    r, rd = solve_radius(X, kernel, tol=1e-10), solve_radius(Xd, kernel, tol=1e-10)
    assert abs(r.r2 - rd.r2) < 1e-8 * rd.r2


def test_solve_svm_dual_on_csr_matches_sklearn_svc(data):
    from sklearn.svm import SVC

    X, _, y, _, _ = data
    k = RBFKernel(0.5)
    s = solve_svm_dual(X, y, k, 10.0, tol=1e-8)
    svc = SVC(C=10.0, gamma=k.gamma, tol=1e-8).fit(X, y)
    a = np.zeros(y.size)
    a[svc.support_] = np.abs(np.asarray(svc.dual_coef_.toarray())[0])
    np.testing.assert_allclose(s.alpha, a, atol=1e-6)
    assert abs(s.b - svc.intercept_[0]) < 1e-6


@pytest.mark.parametrize("name", ["rm-l2", "rm-l1", "span", "cv-error", "smoothed-validation",
                                  "r2-gamma2", "jaakkola-haussler"])
@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.name)
def test_criteria_values_and_gradients_on_csr_equal_dense(data, name, kernel):
    X, Xd, y, _, _ = data
    theta = [1.0] + [0.3] * len(kernel.param_names)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        es = make_criterion(name, Problem(X, y), kernel, random_state=0).evaluate(theta)
        ed = make_criterion(name, Problem(Xd, y), kernel, random_state=0).evaluate(theta)
    assert abs(es.value - ed.value) <= 1e-6 * max(1.0, abs(ed.value))
    if ed.grad is not None:
        assert _rel(es.grad, ed.grad) < 1e-5


@pytest.mark.parametrize("kw", [{}, {"kernel": "poly"}, {"kernel": "linear"},
                                {"criterion": "rm-l1", "loss": "l1"}])
def test_boundsvc_on_csr_gives_the_dense_model(data, kw):
    X, Xd, y, Z, Zd = data
    # (the default's per-feature search needs dense rows: CSR input skips it and says so, so
    # the two are compared with one σ² for every feature)
    kw = dict(kw, strategy_config=ISOTROPIC_CONFIG)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = BoundSVC(**kw).fit(X, y)
        b = BoundSVC(**kw).fit(Xd, y)
    if "criterion" not in kw and "kernel" not in kw:
        assert "sparse" in BoundSVC().fit(X, y).search_.ard["reason"]
    np.testing.assert_allclose(a.best_theta_, b.best_theta_, rtol=0, atol=1e-8)
    assert sp.issparse(a.support_vectors_) and a.support_vectors_.format == "csr"
    np.testing.assert_array_equal(a.support_, b.support_)
    # the final models are solved to the final tolerance (1e-3 for criterion='auto', SVC's;
    # tol = 1e-6 for a named criterion) from kernel values that differ in the last bits, so
    # their decision values agree to about that tolerance
    tol = 10 * a._final_tol()
    for T, Td in [(X, Xd), (Z, Zd)]:
        np.testing.assert_array_equal(a.predict(T), b.predict(Td))
        np.testing.assert_allclose(a.decision_function(T), b.decision_function(Td), atol=tol)
        np.testing.assert_allclose(a.decision_function(Td), a.decision_function(T), atol=1e-10)


def test_boundsvc_multiclass_on_csr(data):
    X, Xd, _, _, _ = data
    y = np.argmax(Xd[:, :3], axis=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = BoundSVC(strategy_config=ISOTROPIC_CONFIG).fit(X, y)
        b = BoundSVC(strategy_config=ISOTROPIC_CONFIG).fit(Xd, y)
    np.testing.assert_array_equal(a.predict(X), b.predict(Xd))
    # to the final tolerance, as in the binary test above
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(Xd),
                               atol=10 * a._final_tol())


def test_large_sparse_fit_never_densifies(monkeypatch):
    """1000 x 100,000 with 20 non-zeros a row: the dense matrix would be 800 MB."""
    forbid_densifying(monkeypatch)
    X, y = wide_csr(1000)
    tracemalloc.start()
    try:
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = BoundSVC().fit(X, y)
        elapsed = time.perf_counter() - t0
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 200 * 2**20, f"peak {peak / 2**20:.0f} MB"
    assert elapsed < 60.0
    assert sp.issparse(model.support_vectors_)
    assert model.predict(X[:10]).shape == (10,)


def test_ard_kernel_and_selectors_refuse_sparse_clearly(data):
    X, _, y, _, _ = data
    with pytest.raises(ValueError, match="ard-rbf kernel .* does not support sparse X"):
        ARDRBFKernel(np.ones(40)).block(X)
    with pytest.raises(ValueError, match="does not support sparse X"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            BoundSVC(kernel="ard").fit(X, y)
    from svmbound.selection import ScalingSelector

    with pytest.raises(ValueError, match="ScalingSelector .* does not support sparse X"):
        ScalingSelector().fit(X, y)


# ---------------------------------------------------------------------------------------------
# LIBSVM files and the CLI


@pytest.fixture()
def libsvm_files(tmp_path, data):
    from sklearn.datasets import dump_svmlight_file

    X, _, y, Z, _ = data
    dump_svmlight_file(X, y, str(tmp_path / "train.txt"), zero_based=False)
    dump_svmlight_file(Z, np.where(np.arange(30) % 2, 1.0, -1.0), str(tmp_path / "test.txt"),
                       zero_based=False)
    return tmp_path


def test_load_libsvm_sparse_keeps_csr_and_the_checks(libsvm_files, data, tmp_path):
    from svmbound.datasets import load_libsvm, load_libsvm_files

    X, Xd, y, _, _ = data
    S, ys = load_libsvm(libsvm_files / "train.txt", n_features=40, sparse=True)
    assert S.format == "csr" and S.dtype == np.float64
    np.testing.assert_allclose(S.toarray(), Xd, rtol=1e-15)   # %.17g round trip
    np.testing.assert_array_equal(ys, y)
    parts, info = load_libsvm_files([libsvm_files / "train.txt"], return_info=True,
                                    sparse="auto")
    assert info["sparse"] is False          # 15 % non-zeros: dense under "auto"
    bad = tmp_path / "bad.txt"
    bad.write_text("1 1:0.5 3:1\n-1 2000000000:1\n")
    with pytest.raises(ValueError, match="line 2: feature index 2000000000 would make"):
        load_libsvm(bad, sparse=True)
    with pytest.raises(ValueError, match="exceeds n_features=2"):
        load_libsvm(bad, n_features=2, sparse=True)


def test_cli_tune_sparse_equals_dense(libsvm_files, capsys):
    import json

    from svmbound.cli import main

    results = []
    for mode in ("yes", "no"):
        assert main(["tune", str(libsvm_files / "train.txt"), "--test",
                     str(libsvm_files / "test.txt"), "--sparse", mode, "--json", "--quiet",
                     "--isotropic"]) == 0   # (sparse rows skip the per-feature search)
        results.append(json.loads(capsys.readouterr().out))
    s, d = results
    assert s["test_accuracy"] == d["test_accuracy"]
    assert s["train_accuracy"] == d["train_accuracy"]
    assert main(["tune", str(libsvm_files / "train.txt"), "--sparse", "yes", "--scale",
                 "--quiet"]) == 2
    assert "--scale" in capsys.readouterr().err


# -- columns without a value are free (issue 29 item 9) ----------------------------------------
@pytest.mark.parametrize("multiclass_theta", [None, "shared", "per-pair"])
def test_empty_columns_change_nothing_and_cost_nothing(multiclass_theta, monkeypatch):
    """CSR X widened by 10⁷ columns that hold no value: the same θ, coefficients and decision
    values as the narrow X (with a start that does not depend on the width: gamma='scale'
    does), the support vectors at the full width; the solvers see the used columns only."""
    from sklearn.datasets import load_iris, make_classification

    if multiclass_theta is None:
        X, y = make_classification(120, 5, n_informative=3, n_redundant=0, random_state=0)
        kw = {}
    else:
        X, y = load_iris(return_X_y=True)
        kw = {"multiclass_theta": multiclass_theta}
    narrow = sp.csr_matrix(X)
    wide = sp.csr_matrix((narrow.data, narrow.indices, narrow.indptr),
                         shape=(X.shape[0], 10**7))
    kw.update(random_state=0, start=(0.0, 1.0), bounds=[(-10, 10), (-9, 11)])
    a = BoundSVC(**kw).fit(narrow, y)
    import svmbound.fit_flow as flow
    import svmbound.multiclass as mc

    widths = []
    for module in (flow, mc):
        real = module.solve_svm_dual
        monkeypatch.setattr(module, "solve_svm_dual",
                            lambda X, *a, real=real, **k: widths.append(X.shape[1])
                            or real(X, *a, **k))
    b = BoundSVC(**kw).fit(wide, y)
    assert widths and set(widths) == {X.shape[1]}      # the final trainings: used columns
    np.testing.assert_array_equal(a.best_theta_, b.best_theta_)
    np.testing.assert_array_equal(_dense(a.dual_coef_), _dense(b.dual_coef_))
    np.testing.assert_array_equal(a.decision_function(narrow), b.decision_function(wide))
    assert b.support_vectors_.shape[1] == 10**7 and b.n_features_in_ == 10**7


def _dense(a):
    return a.toarray() if sp.issparse(a) else np.asarray(a)


def test_prediction_with_empty_columns_allocates_nothing_per_column():
    """A model of a CSR X 10⁸ columns wide predicts without a column-indexed copy of that
    width (``_sparse.UsedColumns``): the peak memory of decision_function stays far below the
    0.4 GB one pointer per column would take, and the values are those of the narrow model."""
    from sklearn.datasets import make_classification

    X, y = make_classification(100, 4, n_informative=3, n_redundant=0, random_state=1)
    narrow = sp.csr_matrix(X)
    wide = sp.csr_matrix((narrow.data, narrow.indices, narrow.indptr), shape=(100, 10**8))
    kw = dict(random_state=0, start=(0.0, 1.0), bounds=[(-10, 10), (-9, 11)])
    est = BoundSVC(**kw).fit(wide, y)
    ref = BoundSVC(**kw).fit(narrow, y).decision_function(narrow)
    tracemalloc.start()
    try:
        f = est.decision_function(wide)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 50 * 2**20
    np.testing.assert_array_equal(f, ref)


def test_row_helpers_give_the_same_rows_and_costs_dense_or_csr():
    """``_sparse.stack_rows`` stacks dense and CSR blocks (CSR when any is sparse) row for row;
    ``entries_per_row`` is the columns of dense X and the stored values per row of CSR X;
    ``entry_variance`` is ``X.var()`` of the dense matrix either way."""
    from svmbound._sparse import c_contiguous, entries_per_row, entry_variance, stack_rows

    rng = np.random.RandomState(0)
    A = np.where(rng.rand(4, 5) > 0.6, rng.randn(4, 5), 0.0)
    B = sp.csr_matrix(np.where(rng.rand(3, 5) > 0.6, rng.randn(3, 5), 0.0))
    mixed = stack_rows(A, B)
    assert sp.issparse(mixed) and mixed.format == "csr"
    np.testing.assert_array_equal(mixed.toarray(), np.vstack([A, B.toarray()]))
    dense = stack_rows(A, A)
    assert isinstance(dense, np.ndarray) and np.array_equal(dense, np.vstack([A, A]))
    assert entries_per_row(A) == 5 and entries_per_row(B) == B.nnz / 3
    assert entry_variance(A) == float(A.var())
    assert entry_variance(sp.csr_matrix(A)) == pytest.approx(A.var(), rel=1e-12)
    assert c_contiguous(B) is B and c_contiguous(A.T).flags["C_CONTIGUOUS"]


def test_walk_share_is_what_the_sparse_walk_reads_over_what_rows_in_pieces_read():
    """Σ_k nnz_k² / (n·nnz) = Σ_i Σ_j |nz(x_i) ∩ nz(x_j)| (the entries the walk visits for every
    row) over n · nnz (the entries of Xᵀ that rows in pieces read); the density when every
    column holds as many entries."""
    from svmbound._sparse import walk_share

    X = sp.random(60, 25, density=0.3, random_state=3, format="csr")
    nz = (X.toarray() != 0).astype(np.int64)
    assert walk_share(X) == pytest.approx((nz @ nz.T).sum() / (60 * X.nnz), rel=1e-12)
    Z = sp.random(45, 25, density=0.5, random_state=4, format="csr")
    nzz = (Z.toarray() != 0).astype(np.int64)
    assert walk_share(X, Z) == pytest.approx((nz @ nzz.T).sum() / (45 * X.nnz), rel=1e-12)
    even = sp.csr_matrix(np.kron(np.eye(4), np.ones((5, 3))))   # each column 5 of 20 rows
    assert walk_share(even) == pytest.approx(0.25, rel=1e-12)
    assert walk_share(sp.csr_matrix((7, 3))) == 0.0


def _filled_csr(n, d, density, seed, binary=False):
    """CSR data whose columns are filled unevenly (a few in most rows, as one-hot features),
    with an empty column; labels from the first columns."""
    rng = np.random.default_rng(seed)
    fill = density * np.linspace(1.9, 0.1, d)
    mask = rng.random((n, d)) < fill
    mask[:, 3] = False
    X = np.where(mask, 1.0 if binary else rng.normal(size=(n, d)), 0.0)
    y = np.where(X[:, 0] - X[:, 1] + 0.5 * X[:, 2] + 0.3 * rng.normal(size=n) > 0, 1.0, -1.0)
    return sp.csr_matrix(X), X, y


def test_sparse_rows_come_from_a_dense_transpose_when_the_walk_reads_as_much():
    """``smo_rows_data``: sparse X whose walk share reaches DENSE_MIN_WALK and whose
    dense Xᵀ (the columns used) fits in DENSE_SPARSE_CACHE_SHARE of the row cache gets rows in
    pieces from that Xᵀ, not centred; sparser data, or a cache too small, keep the walk."""
    from svmbound._sparse import DENSE_MIN_WALK, walk_share
    from svmbound.kernels.precomputed import DENSE_SPARSE_CACHE_SHARE, smo_rows_data

    X, Xd, _ = _filled_csr(400, 30, 0.4, seed=5)
    kernel = RBFKernel(2.0)
    assert walk_share(X) >= DENSE_MIN_WALK
    used = np.flatnonzero(np.abs(Xd).sum(axis=0))
    assert used.size == 29
    need = 8.0 * 400 * used.size / DENSE_SPARSE_CACHE_SHARE      # the cache that Xᵀ fits
    laid = smo_rows_data(X, kernel, need)
    assert laid.pieces == 1 and np.array_equal(laid.data, Xd[:, used].T)
    assert laid.data.flags.c_contiguous
    np.testing.assert_allclose(laid.sq, np.einsum("ij,ij->i", Xd, Xd), rtol=1e-14)
    assert isinstance(smo_rows_data(X, kernel, 0.99 * need).data, tuple)     # the walk
    sparser = _filled_csr(400, 30, 0.05, seed=5)[0]
    assert walk_share(sparser) < DENSE_MIN_WALK
    assert isinstance(smo_rows_data(sparser, kernel, 1e12).data, tuple)


@pytest.mark.parametrize("loss", ["l1", "l2"])
def test_a_solve_on_csr_by_a_dense_transpose_is_the_walks_and_the_dense_solve(monkeypatch, loss):
    """The solve from CSR X with rows in pieces from its dense Xᵀ meets the KKT conditions on K
    recomputed from X and has the objective of the solve by the sparse walk (to 1e-9); on 0/1
    data, where every sum is exact, its α are the dense array's solve (also in pieces) bit for
    bit."""
    from svmbound import _sparse
    from svmbound.solvers import qp
    from test_solvers import assert_kkt

    X, Xd, y = _filled_csr(600, 24, 0.35, seed=6, binary=True)
    kernel, C, tol = RBFKernel(sigma2=3.0), 2.0, 1e-6
    sol = solve_svm_dual(X, y, kernel, C, loss=loss, tol=tol)
    assert qp.smo_rows_data(X, kernel, 2e8).pieces == 1
    assert_kkt(sol, y, C, loss, tol, K=kernel.block(Xd))
    dense = solve_svm_dual(Xd, y, kernel, C, loss=loss, tol=tol)
    np.testing.assert_array_equal(sol.alpha, dense.alpha)
    assert sol.b == dense.b
    monkeypatch.setattr(_sparse, "DENSE_MIN_WALK", 2.0)                      # the walk
    walk = solve_svm_dual(X, y, kernel, C, loss=loss, tol=tol)
    assert sol.objective == pytest.approx(walk.objective, rel=1e-9)


@pytest.mark.parametrize("used_columns", [False, True])
def test_sparse_inner_products_by_blas_where_the_walk_would_read_as_much(monkeypatch,
                                                                        used_columns):
    """``_sparse.dots`` of two sparse matrices whose walk share reaches DENSE_MIN_WALK (and
    whose dense copies are no larger than the block) multiplies dense copies over the columns Z
    uses (X's other columns dropped) — the walk's products to rounding; otherwise it walks."""
    from svmbound import _sparse

    X = _filled_csr(300, 40, 0.4, seed=7)[0]
    Z = _filled_csr(200, 40, 0.4, seed=8)[0][:, :35]      # X has columns Z lacks
    Z = sp.hstack([Z, sp.csr_matrix((200, 5))]).tocsr()
    Zarg = _sparse.UsedColumns(Z) if used_columns else Z
    ref = X.toarray() @ Z.toarray().T
    walked = []
    inner = _sparse._csr_csc_dots
    monkeypatch.setattr(_sparse, "_csr_csc_dots", lambda *a: walked.append(1) or inner(*a))
    np.testing.assert_allclose(_sparse.dots(X, Zarg), ref, rtol=1e-12, atol=1e-12)
    assert not walked
    thin = _filled_csr(200, 40, 0.04, seed=8)[0]            # its columns: few rows each
    thin_arg = _sparse.UsedColumns(thin) if used_columns else thin
    np.testing.assert_allclose(_sparse.dots(X, thin_arg), X.toarray() @ thin.toarray().T,
                               rtol=1e-12, atol=1e-12)
    assert walked
    walked.clear()
    _sparse.dots(X[:3], Zarg)                  # dense copies larger than the 3 × 200 block
    assert walked


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_sq_norms_of_dense_rows_are_scikit_learns_row_norms_bit_for_bit(order, dtype):
    """``sq_norms`` takes a dense array's ‖x_i‖² from einsum itself, without ``row_norms``'s
    dispatch: the same bits as ``row_norms(X, squared=True)``, C- or F-ordered, and for CSR."""
    from sklearn.utils.extmath import row_norms

    from svmbound._sparse import sq_norms

    X = np.asarray(np.random.default_rng(0).normal(size=(37, 11)) * 1e3, dtype=dtype,
                   order=order)
    got = sq_norms(X)
    assert got.dtype == row_norms(X, squared=True).dtype
    np.testing.assert_array_equal(got, row_norms(X, squared=True))
    Xs = sp.csr_matrix(X)
    np.testing.assert_array_equal(sq_norms(Xs), row_norms(Xs, squared=True))
