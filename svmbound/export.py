"""Export a tuned L1-SVM as a fitted scikit-learn ``SVC`` or as a LIBSVM model file.

Both hold LIBSVM's ``svm_model``: the support vectors grouped by class (label) in the model's
label order, ``nr_class − 1`` rows of coefficients and one ρ per pair of classes. The decision
value of the pair (i, j), i < j, is Σ coef·K(sv, x) − ρ, and a positive value votes for label i
(LIBSVM's ``svm_predict_values``). ``LibsvmModel`` keeps these arrays for any number of classes;
``binary_model`` builds one from a fitted binary ``BoundSVC``, ``multiclass_model`` from a
multi-class one (its attributes are already in SVC's / LIBSVM's layout, ``svmbound.multiclass``);
``to_svc`` and ``write_libsvm_model`` only read a ``LibsvmModel``.

The support vectors keep the storage of the training data: a dense array for dense X, a CSR
matrix for sparse X (``_sv_matrix``), never densified. Everything else reads them through
storage-agnostic code: row selection, the file's ``index:value`` lines of the non-zeros
(``_sv_entries``), and SVC, which has a sparse mode of its own (``to_svc``).

What can be exported: the L1-SVM (loss='l1', LIBSVM's C-SVC) with the kernels 'rbf'
(γ = 1/(2σ²)), 'linear' and 'poly' ((⟨x, z⟩ + c)^d is LIBSVM's (γ⟨x, z⟩ + coef0)^degree with
γ = 1, coef0 = c). Not the L2-SVM — it is an SVM with the kernel K + I/C on the training points,
a kernel that SVC and LIBSVM cannot express (theirs act on feature vectors) — and not the ARD
kernels, which are not among LIBSVM's kernels (linear, poly, rbf, sigmoid).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from ._sparse import issparse
from .kernels import LinearKernel, PolynomialKernel, RBFKernel
from .kernels.ard import ARDRBFKernel, ScaledPolynomialKernel

#: Kernels of the estimator that SVC / LIBSVM have, with LIBSVM's ``kernel_type`` name.
EXPORTABLE_KERNELS = {"rbf": "rbf", "linear": "linear", "poly": "polynomial"}
#: scikit-learn's name of each LIBSVM ``kernel_type``.
_SKLEARN_KERNEL = {"rbf": "rbf", "linear": "linear", "polynomial": "poly"}
_EXPORTABLE = "loss='l1' with kernel 'rbf', 'linear' or 'poly'"


def check_exportable(loss: str, kernel: str) -> None:
    """Raise a ValueError saying why (loss, kernel) cannot become an SVC / LIBSVM model."""
    if loss != "l1":
        raise ValueError(
            f"a model with loss={loss!r} cannot be exported: the L2-SVM is an SVM with the kernel "
            "K + I/C on the training points, which scikit-learn's SVC and LIBSVM cannot express "
            f"(their kernels act on feature vectors); exportable is {_EXPORTABLE} "
            "(LIBSVM's C-SVC)")
    if kernel not in EXPORTABLE_KERNELS:
        extra = ""
        if kernel in ("ard", "ard-poly"):
            extra = (" (the same model is an SVC on the features divided by sigma_k, "
                     "kernel_.prepare(X), with the rbf kernel and gamma = 0.5, or the poly kernel "
                     "with gamma = 1, coef0 = 1; svmbound does not export that pipeline)")
        raise ValueError(
            f"a model with kernel={kernel!r} cannot be exported: it is not one of the kernels of "
            f"scikit-learn's SVC and LIBSVM (linear, poly, rbf, sigmoid){extra}; exportable is "
            f"{_EXPORTABLE}")


@dataclass
class LibsvmModel:
    """LIBSVM's ``svm_model`` of a C-SVC, any number of classes.

    ``support_vectors`` are grouped by class in the order of ``labels`` (``n_sv[k]`` rows for
    ``labels[k]``); ``sv_coef`` has nr_class − 1 rows; ``rho`` one entry per pair (i, j), i < j,
    in the order (0, 1), (0, 2), …, (1, 2), …; ``support`` the rows of the training data.
    """

    kernel_type: str               # LIBSVM name: 'linear' | 'polynomial' | 'rbf'
    gamma: float
    coef0: float
    degree: int
    C: float
    labels: np.ndarray             # (nr_class,)
    n_sv: np.ndarray               # (nr_class,)
    sv_coef: np.ndarray            # (nr_class − 1, total_sv)
    rho: np.ndarray                # (nr_class (nr_class − 1) / 2,)
    support: np.ndarray            # (total_sv,) rows of the training data
    support_vectors: object        # (total_sv, n_features) float64 array or CSR (_sv_matrix)
    n_samples: int                 # rows of the training data
    n_iter: np.ndarray             # (nr_pairs,) solver iterations per pair

    @property
    def nr_class(self) -> int:
        return int(self.labels.size)


def _sv_matrix(sv, rows=None):
    """Rows ``rows`` (all when None, in that order) of the support vectors ``sv``, in the
    storage they came in: a C-contiguous float64 array for dense ``sv``; for a scipy sparse
    ``sv`` (a model fitted on CSR X) a canonical float64 CSR matrix — sorted indices, no
    duplicates, int32 indices and row pointers — never a dense copy.

    That CSR form is what scikit-learn's ``libsvm_sparse`` reads (an SVC fitted on sparse X
    holds its support vectors so, and LIBSVM's sparse kernels merge two rows by their sorted
    indices); the LIBSVM file writer reads the rows' non-zeros from it (``_sv_entries``).
    Support vectors with more stored entries or features than an int32 can index are refused:
    neither SVC nor LIBSVM can hold them."""
    if not issparse(sv):
        sv = np.asarray(sv, dtype=np.float64)
        return np.ascontiguousarray(sv if rows is None else sv[rows])
    import scipy.sparse as sp

    S = sp.csr_matrix(sv if rows is None else sv[rows], dtype=np.float64, copy=True)
    S.sum_duplicates()                                  # also sorts the indices of each row
    limit = np.iinfo(np.int32).max
    if S.nnz > limit or S.shape[1] > limit:
        raise ValueError(f"the support vectors ({S.shape[0]} x {S.shape[1]}, {S.nnz} non-zeros) "
                         "need 64-bit indices, which scikit-learn's SVC and LIBSVM cannot hold")
    S.indices = S.indices.astype(np.int32, copy=False)
    S.indptr = S.indptr.astype(np.int32, copy=False)
    return S


def _sv_entries(sv):
    """Per support vector (row of a dense array or sparse matrix), the 0-based column indices,
    ascending as a LIBSVM model line needs them, and the values of its non-zero entries. Sparse
    rows are read from their canonical CSR form (``_sv_matrix``; explicit zeros skipped), never
    densified."""
    sv = _sv_matrix(sv)
    if issparse(sv):
        for lo, hi in zip(sv.indptr[:-1], sv.indptr[1:]):
            cols, vals = sv.indices[lo:hi], sv.data[lo:hi]
            keep = vals != 0
            yield cols[keep], vals[keep]
        return
    for row in sv:
        cols = np.flatnonzero(row)
        yield cols, row[cols]


def _kernel_name(kernel) -> str:
    """The estimator's kernel name of a fitted kernel object ('rbf', 'linear', 'poly', or the
    object's own name for the others)."""
    for cls, name in ((RBFKernel, "rbf"), (LinearKernel, "linear"), (PolynomialKernel, "poly"),
                      (ARDRBFKernel, "ard"), (ScaledPolynomialKernel, "ard-poly")):
        if type(kernel) is cls:
            return name
    return getattr(kernel, "name", type(kernel).__name__)


def _kernel_params(kernel) -> tuple[str, float, float, int]:
    """(LIBSVM kernel_type, gamma, coef0, degree) with exactly the kernel's values."""
    name = _kernel_name(kernel)
    if name == "rbf":
        return "rbf", 1.0 / (2.0 * kernel.sigma2), 0.0, 3
    if name == "poly":
        return "polynomial", 1.0, float(kernel.coef0), int(kernel.degree)
    return "linear", 1.0, 0.0, 3


def binary_model(estimator, first: int = 1) -> LibsvmModel:
    """The ``LibsvmModel`` of a fitted binary ``BoundSVC`` with ``classes_[first]`` as the
    first label, i.e. the label that positive decision values predict.

    BoundSVC's f(x) = Σ α_i y_i K(x_i, x) + b is positive for ``classes_[1]``; LIBSVM's value
    Σ coef K − ρ is positive for its first label. So first=1 gives coef = α y and ρ = −b (LIBSVM's
    decision values equal ``decision_function``); first=0 gives coef = −α y and ρ = b (the
    order of scikit-learn's SVC, which keeps its classes sorted).
    """
    from sklearn.utils.validation import check_is_fitted

    check_is_fitted(estimator, "dual_coef_")
    check_exportable(estimator.solution_.loss, _kernel_name(estimator.kernel_))
    if first not in (0, 1):
        raise ValueError(f"first must be 0 or 1 (an index into classes_), got {first!r}")
    classes = np.asarray(estimator.classes_)
    if classes.size != 2:
        raise ValueError(f"binary_model needs two classes, the estimator has {classes.size}")
    coef = np.asarray(estimator.dual_coef_, dtype=float)[0]          # α_i y_i
    sign = 1.0 if first == 1 else -1.0
    positive = coef > 0                                                # y_i = +1: classes_[1]
    in_first = positive if first == 1 else ~positive
    order = np.concatenate([np.flatnonzero(in_first), np.flatnonzero(~in_first)])
    kernel_type, gamma, coef0, degree = _kernel_params(estimator.kernel_)
    return LibsvmModel(
        kernel_type=kernel_type, gamma=gamma, coef0=coef0, degree=degree,
        C=float(estimator.best_params_["C"]),
        labels=classes[[first, 1 - first]],
        n_sv=np.array([in_first.sum(), (~in_first).sum()], dtype=np.int32),
        sv_coef=np.ascontiguousarray(sign * coef[order])[None, :],
        rho=np.array([-sign * float(estimator.intercept_[0])]),
        support=np.asarray(estimator.support_)[order].astype(np.int32),
        support_vectors=_sv_matrix(estimator.support_vectors_, order),
        n_samples=int(estimator.solution_.alpha.shape[0]),
        n_iter=np.array([estimator.solution_.n_iter], dtype=np.int32))


def multiclass_model(estimator) -> LibsvmModel:
    """The ``LibsvmModel`` of a fitted ``BoundSVC`` with three or more classes.

    Its attributes are LIBSVM's already: support vectors grouped by class in ``classes_``
    order, ``dual_coef_`` = ``sv_coef`` (k − 1 rows), one ``intercept_`` b = −ρ per pair whose
    decision value is positive for the pair's first class. LIBSVM keeps one kernel for all
    pairs, so a model with per-pair θ (``multiclass_theta='per-pair'``) is exportable only when
    the pairs' kernels coincide (the per-pair C do not enter prediction; the largest is
    written)."""
    from sklearn.utils.validation import check_is_fitted

    check_is_fitted(estimator, "dual_coef_")
    models = getattr(estimator, "pair_models_", None)
    classes = np.asarray(estimator.classes_)
    if models is None or classes.size < 3:
        raise ValueError("multiclass_model needs a BoundSVC fitted on three or more classes")
    kernel = estimator.kernel_
    if kernel is None:
        first = models[0].kernel
        if any(type(m.kernel) is not type(first) or m.kernel.get_params() != first.get_params()
               for m in models):
            raise ValueError("a model with one kernel per class pair (multiclass_theta="
                             "'per-pair') cannot be exported: SVC and LIBSVM use one kernel for "
                             "all pairs; fit with multiclass_theta='shared'")
        kernel = first
    check_exportable(estimator.loss, _kernel_name(kernel))
    kernel_type, gamma, coef0, degree = _kernel_params(kernel)
    return LibsvmModel(
        kernel_type=kernel_type, gamma=gamma, coef0=coef0, degree=degree,
        C=float(max(m.C for m in models)), labels=classes.copy(),
        n_sv=np.asarray(estimator.n_support_, dtype=np.int32),
        sv_coef=np.ascontiguousarray(estimator.dual_coef_, dtype=np.float64),
        rho=-np.asarray(estimator.intercept_, dtype=np.float64),
        support=np.asarray(estimator.support_, dtype=np.int32),
        support_vectors=_sv_matrix(estimator.support_vectors_),
        n_samples=int(estimator.shape_fit_[0]),
        n_iter=np.array([m.n_iter for m in models], dtype=np.int32))


# -------------------------------------------------------------------------------------------
# scikit-learn
# -------------------------------------------------------------------------------------------
def _csr_coef(sv_coef):
    """``sv_coef`` as the CSR matrix an SVC fitted on sparse X keeps in ``_dual_coef_``: every
    entry stored, zeros included. ``libsvm_sparse`` reads ``_dual_coef_.data`` as the dense
    (nr_class − 1) × total_sv array, row by row (``csr_set_model``), and a multi-class model has
    zeros there (a support vector of class i has no coefficient in the pairs it is not a
    support vector of); a CSR built from the dense array would drop them and shift the rest."""
    import scipy.sparse as sp

    coef = np.ascontiguousarray(sv_coef, dtype=np.float64)
    rows, n_sv = coef.shape
    return sp.csr_matrix((coef.ravel(), np.tile(np.arange(n_sv, dtype=np.int32), rows),
                          np.arange(rows + 1, dtype=np.int32) * n_sv), shape=coef.shape)


def to_svc(model: LibsvmModel, classes, tol: float = 1e-3):
    """A fitted ``sklearn.svm.SVC`` holding ``model`` (nothing is trained).

    ``model.labels`` must be ``classes`` (sorted, as SVC keeps them). SVC stores LIBSVM's arrays
    in ``_dual_coef_`` / ``_intercept_`` (= −ρ) and, for two classes, shows them with the sign
    flipped (``dual_coef_``, ``intercept_``, ``decision_function`` positive for classes_[1]).
    With CSR support vectors (a model fitted on sparse X) the SVC is the one ``SVC.fit`` makes
    from sparse X: ``_sparse`` set, CSR ``support_vectors_`` and ``dual_coef_``, prediction
    through ``libsvm_sparse`` for sparse and dense X alike.
    """
    from sklearn.svm import SVC


    classes = np.asarray(classes)
    if model.labels.shape != classes.shape or np.any(model.labels != classes):
        raise ValueError(f"the model's label order {model.labels.tolist()} is not the sorted "
                         f"classes {classes.tolist()} that SVC needs")
    svc = SVC(C=model.C, kernel=_SKLEARN_KERNEL[model.kernel_type], degree=model.degree,
              gamma=model.gamma, coef0=model.coef0, tol=tol)
    sparse = issparse(model.support_vectors)
    n_features = model.support_vectors.shape[1]
    svc.classes_ = classes
    svc.class_weight_ = np.ones(classes.size)
    svc.support_ = np.ascontiguousarray(model.support, dtype=np.int32)
    svc.support_vectors_ = _sv_matrix(model.support_vectors)
    svc._n_support = np.ascontiguousarray(model.n_sv, dtype=np.int32)
    svc._dual_coef_ = (_csr_coef(model.sv_coef) if sparse
                       else np.ascontiguousarray(model.sv_coef, dtype=np.float64))
    svc._intercept_ = np.ascontiguousarray(-model.rho, dtype=np.float64)
    if classes.size == 2:      # what SVC.fit does for binary problems (sklearn/svm/_base.py)
        svc.dual_coef_ = -svc._dual_coef_
        svc.intercept_ = -svc._intercept_
    else:
        svc.dual_coef_ = svc._dual_coef_
        svc.intercept_ = svc._intercept_.copy()
    svc._probA = np.empty(0)
    svc._probB = np.empty(0)
    svc._effective_probability = False
    svc._gamma = float(model.gamma)
    svc._sparse = sparse       # SVC predicts through libsvm_sparse (dense X is converted to CSR)
    svc.fit_status_ = 0
    svc._num_iter = np.ascontiguousarray(model.n_iter, dtype=np.int32)
    svc.n_iter_ = svc._num_iter
    svc.shape_fit_ = (model.n_samples, n_features)
    svc.n_features_in_ = n_features
    return svc


# -------------------------------------------------------------------------------------------
# LIBSVM model file
# -------------------------------------------------------------------------------------------
def _num(v) -> str:
    """A float as the shortest text that reads back to the same double."""
    return repr(float(v))


def check_int_labels(labels) -> list[int]:
    """LIBSVM model files store labels as integers (``%d``)."""
    labels = np.asarray(labels)
    ok = labels.dtype.kind in "iub"
    if labels.dtype.kind == "f":
        ok = bool(np.all(np.isfinite(labels)) and np.all(labels == np.round(labels)))
    if not ok:
        raise ValueError(f"a LIBSVM model file stores integer labels, but the classes are "
                         f"{sorted(labels.tolist())}; fit on integer labels (e.g. with "
                         "sklearn.preprocessing.LabelEncoder) to write a model file")
    return [int(v) for v in labels]


def libsvm_model_text(model: LibsvmModel) -> str:
    """LIBSVM's text model format (``svm_save_model``), at full double precision (LIBSVM itself
    writes support vectors with 8 digits)."""
    labels = check_int_labels(model.labels)
    k = model.nr_class
    if model.sv_coef.shape != (k - 1, model.support_vectors.shape[0]):
        raise ValueError(f"sv_coef has shape {model.sv_coef.shape}, expected "
                         f"{(k - 1, model.support_vectors.shape[0])}")
    if model.rho.shape != (k * (k - 1) // 2,) or int(np.sum(model.n_sv)) != model.sv_coef.shape[1]:
        raise ValueError("rho needs one entry per pair of classes and n_sv must add up to the "
                         "number of support vectors")
    lines = ["svm_type c_svc", f"kernel_type {model.kernel_type}"]
    if model.kernel_type == "polynomial":
        lines.append(f"degree {int(model.degree)}")
    if model.kernel_type in ("polynomial", "rbf"):
        lines.append(f"gamma {_num(model.gamma)}")
    if model.kernel_type == "polynomial":
        lines.append(f"coef0 {_num(model.coef0)}")
    lines += [f"nr_class {k}",
              f"total_sv {model.support_vectors.shape[0]}",
              "rho " + " ".join(_num(r) for r in model.rho),
              "label " + " ".join(str(v) for v in labels),
              "nr_sv " + " ".join(str(int(n)) for n in model.n_sv),
              "SV"]
    for i, (cols, vals) in enumerate(_sv_entries(model.support_vectors)):
        coefs = " ".join(_num(c) for c in model.sv_coef[:, i])
        feats = " ".join(f"{j + 1}:{_num(v)}" for j, v in zip(cols, vals))   # 1-based
        lines.append(f"{coefs} {feats}".rstrip() + " ")
    return "\n".join(lines) + "\n"


def write_libsvm_model(model: LibsvmModel, path) -> None:
    """Write ``model`` to ``path`` in LIBSVM's text format (``svm_load_model`` reads it)."""
    text = libsvm_model_text(model)
    with open(os.fspath(path), "w", encoding="ascii", newline="\n") as fh:
        fh.write(text)
