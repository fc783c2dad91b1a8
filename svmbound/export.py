"""Export a tuned model: its ``LibsvmModel``, and the fitted scikit-learn ``SVC``/``SVR`` of it.

A tuned model becomes a fitted scikit-learn ``SVC`` (or ``Pipeline``) or a LIBSVM model file
(``svmbound.libsvm_model``: the ``LibsvmModel`` class, its model and range files). Both hold
LIBSVM's ``svm_model``: the support vectors grouped by class (label) in the model's
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

What is exported — every model of the estimator with one kernel for all class pairs:

* Both losses. The L1-SVM is LIBSVM's C-SVC. The L2-SVM is trained as an SVM with the kernel
  K + I/C on the training points, but the I/C term only shapes the training: its decision
  function on new points is Σ α_i y_i K(x_i, x) + b, the form of a C-SVC model, so its support
  vectors, α_i y_i and b are exported as they are. The exported SVC's ``C`` is the tuned C; its
  α_i may exceed C (nothing in prediction reads C). Prediction is identical, but refitting the
  exported SVC (``clone(svc).fit``) trains an L1-SVM, not the L2-SVM.
* The kernels 'rbf' (γ = 1/(2σ²)), 'linear' and 'poly' ((⟨x, z⟩ + c)^d is LIBSVM's
  (γ⟨x, z⟩ + coef0)^degree with γ = 1, coef0 = c), and the ARD kernels, which are those
  kernels on the features scaled by 1/σ_k, u_k = x_k/σ_k: 'ard' is the rbf kernel with
  γ = ½ on u (exp(−Σ_k (x_k − z_k)²/(2σ_k²)) = exp(−½‖u − v‖²)), 'ard-poly' the polynomial
  kernel (1 + ⟨u, v⟩)^p (γ = 1, coef0 = 1). With ``groups`` σ_k is the σ of feature k's group.
  An ARD model is a ``LibsvmModel`` on u with ``feature_scale`` = σ_k: ``to_svc`` gives the
  ``Pipeline([("scale", FunctionTransformer(u = x·(1/σ_k))), ("svc", SVC)])``, and the LIBSVM
  export writes the model on u plus svm-scale's range file that maps x to u
  (``libsvm_range_text``).
* Class weights: the SVC carries ``class_weight`` = the fitted ``class_weight_`` (a dict
  {label: weight}; None when every weight is 1), so ``clone(svc).fit(X, y)`` of an L1 model on
  the training data solves the same problem (C_i = C·class_weight[y_i]). The LIBSVM model file
  has no place for them (svm-train's ``-wi`` does not enter prediction).

Not exported: a multi-class model with one kernel per class pair (multiclass_theta='per-pair')
whose pair kernels differ — SVC and LIBSVM use one kernel for all pairs.

ε-SVR (``regression_model``, ``to_svr``): the regression function
f(x) = Σ_i (α_i − α_i*) K(sv_i, x) + b is LIBSVM's ``epsilon_svr`` model — one row of
coefficients α_i − α_i*, ρ = −b, ``nr_class 2`` and neither labels nor ``nr_sv`` — and the
fitted ``sklearn.svm.SVR``. The same kernels export, the ARD ones with the same feature scaling
(a Pipeline of the scaler and the SVR; the range file beside the model file).
"""

from __future__ import annotations

from functools import partial

import numpy as np

from ._sparse import issparse
from ._validation import check_positive
from .kernels import LinearKernel, PolynomialKernel, RBFKernel
from .kernels.ard import ARDRBFKernel, ScaledPolynomialKernel
from .libsvm_model import (SVM_TYPES, LibsvmModel, _sv_matrix, check_int_labels,
                           feature_base, libsvm_model_text, libsvm_range_text, range_path_of,
                           write_libsvm_model, write_libsvm_range)

__all__ = ["EXPORTABLE_KERNELS", "EXPORTABLE_LOSSES", "SVM_TYPES", "LibsvmModel",
           "check_exportable", "binary_model", "multiclass_model", "regression_model",
           "model_of", "feature_scaler", "to_svc", "to_svr",
           # LIBSVM's model and range files (libsvm_model), here for the estimators' callers
           "check_int_labels", "feature_base", "libsvm_model_text", "libsvm_range_text",
           "range_path_of", "write_libsvm_range", "write_libsvm_model"]

#: Kernels of the estimator, with the LIBSVM ``kernel_type`` of the exported model (the ARD
#: kernels: that of the features scaled by 1/σ_k).
EXPORTABLE_KERNELS = {"rbf": "rbf", "linear": "linear", "poly": "polynomial",
                      "ard": "rbf", "ard-poly": "polynomial"}
#: scikit-learn's name of each LIBSVM ``kernel_type``.
_SKLEARN_KERNEL = {"rbf": "rbf", "linear": "linear", "polynomial": "poly"}
#: The kernels whose exported model is on the features scaled by 1/σ_k.
_SCALED_KERNELS = ("ard", "ard-poly")
#: The losses that export (both: see the module docstring).
EXPORTABLE_LOSSES = ("l1", "l2")


def check_exportable(loss: str, kernel: str, *, with_scaling: bool = False) -> None:
    """Raise a ValueError saying why (loss, kernel) cannot become an SVC / LIBSVM model. Every
    loss and kernel of the estimator can (a multi-class model with differing per-pair kernels
    cannot, ``multiclass_model``); the ARD kernels only with their feature scaling
    (``with_scaling``: the caller exports it too — the Pipeline's scaler, or the range file
    beside the model file, as ``to_svc`` and ``write_libsvm_model`` do). A caller that writes
    the model file alone (``with_scaling=False``, the default) gets the ARD kernels refused:
    their model file is on x_k/σ_k, and without the range file raw data would be predicted
    wrongly."""
    if loss not in EXPORTABLE_LOSSES:
        raise ValueError(f"a model with loss={loss!r} cannot be exported: the losses are "
                         f"{', '.join(map(repr, EXPORTABLE_LOSSES))}")
    if kernel not in EXPORTABLE_KERNELS:
        raise ValueError(f"a model with kernel={kernel!r} cannot be exported: exportable are "
                         f"the kernels {', '.join(map(repr, EXPORTABLE_KERNELS))}")
    if kernel in _SCALED_KERNELS and not with_scaling:
        raise ValueError(f"a model with kernel={kernel!r} cannot be exported as a model file "
                         "alone: it is the model of the features divided by sigma_k and needs "
                         "svm-scale's range file beside it (BoundSVC.save_libsvm_model(path) "
                         "writes both, path and path + '.range'; BoundSVC.to_svc() gives the "
                         "Pipeline of the scaling and the SVC)")


def _kernel_name(kernel) -> str:
    """The estimator's kernel name of a fitted kernel object ('rbf', 'linear', 'poly', or the
    object's own name for the others)."""
    for cls, name in ((RBFKernel, "rbf"), (LinearKernel, "linear"), (PolynomialKernel, "poly"),
                      (ARDRBFKernel, "ard"), (ScaledPolynomialKernel, "ard-poly")):
        if type(kernel) is cls:
            return name
    return getattr(kernel, "name", type(kernel).__name__)


def _kernel_params(kernel) -> tuple[str, float, float, int, np.ndarray | None]:
    """(LIBSVM kernel_type, gamma, coef0, degree, feature_scale) with exactly the kernel's
    values; ``feature_scale`` is σ_k per feature for the ARD kernels (the model is on
    u_k = x_k/σ_k: rbf with γ = ½, or the polynomial with γ = 1, coef0 = 1, the kernels'
    own ``spec()``), None for the others."""
    name = _kernel_name(kernel)
    if name == "rbf":
        return "rbf", 1.0 / (2.0 * kernel.sigma2), 0.0, 3, None
    if name == "poly":
        return "polynomial", 1.0, float(kernel.coef0), int(kernel.degree), None
    if name == "ard":
        return "rbf", 0.5, 0.0, 3, np.sqrt(kernel.feature_sigma2)
    if name == "ard-poly":
        return "polynomial", 1.0, 1.0, int(kernel.degree), np.sqrt(kernel.feature_sigma2)
    if name == "linear":
        return "linear", 1.0, 0.0, 3, None
    raise ValueError(f"a model with the kernel {kernel!r} cannot be exported: exportable are the "
                     f"kernels {', '.join(map(repr, EXPORTABLE_KERNELS))}")


def _scaled_sv(sv, feature_scale):
    """The support vectors on the features of the exported model: as they are, or for an ARD
    model u = x·(1/σ_k), the product the kernel itself computes (``prepare``), so that the
    exported SVC sees the numbers the estimator's kernel sees. (ARD models are dense: the ARD
    kernels refuse sparse X.)"""
    if feature_scale is None:
        return sv
    return sv * (1.0 / feature_scale)


def _class_weight(estimator, order) -> np.ndarray | None:
    """The fitted ``class_weight_`` in the model's label order (``order`` indexes
    ``classes_``); None when every weight is 1 (or none was recorded)."""
    cw = getattr(estimator, "class_weight_", None)
    if cw is None:
        return None
    cw = np.asarray(cw, dtype=np.float64)
    return None if np.all(cw == 1.0) else cw[np.asarray(order)]


def _platt(estimator, flip: bool = False) -> dict:
    """``prob_a``/``prob_b`` of the model from the estimator's ``probA_``/``probB_`` (none
    without), which are SVC's: P(a pair's first label | its value f) = 1/(1 + exp(A·f + B));
    two classes: P(classes_[0] | −f), f = ``decision_function``. A binary model with
    classes_[1] first (not ``flip``) has the value f and P(classes_[1] | f) = 1/(1 + exp(A·f
    − B)): the same A, −B."""
    if not hasattr(estimator, "probA_"):
        return {}
    A = np.asarray(estimator.probA_, dtype=np.float64).copy()
    B = np.asarray(estimator.probB_, dtype=np.float64).copy()
    binary = len(estimator.classes_) == 2
    return {"prob_a": A, "prob_b": -B if binary and not flip else B}


def binary_model(estimator, first: int = 1) -> LibsvmModel:
    """The ``LibsvmModel`` of a fitted binary ``BoundSVC`` with ``classes_[first]`` as the
    first label, i.e. the label that positive decision values predict.

    BoundSVC's f(x) = Σ α_i y_i K(x_i, x) + b is positive for ``classes_[1]``; LIBSVM's value
    Σ coef K − ρ is positive for its first label. So first=1 gives coef = α y and ρ = −b (LIBSVM's
    decision values equal ``decision_function``); first=0 gives coef = −α y and ρ = b (the
    order of scikit-learn's SVC, which keeps its classes sorted). Either loss: the L2-SVM's
    decision function has the same form (module docstring).
    """
    from sklearn.utils.validation import check_is_fitted

    check_is_fitted(estimator, "dual_coef_")
    loss = estimator.solution_.loss
    check_exportable(loss, _kernel_name(estimator.kernel_), with_scaling=True)
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
    kernel_type, gamma, coef0, degree, scale = _kernel_params(estimator.kernel_)
    return LibsvmModel(
        kernel_type=kernel_type, gamma=gamma, coef0=coef0, degree=degree,
        C=float(estimator.best_params_["C"]),
        labels=classes[[first, 1 - first]],
        n_sv=np.array([in_first.sum(), (~in_first).sum()], dtype=np.int32),
        sv_coef=np.ascontiguousarray(sign * coef[order])[None, :],
        rho=np.array([-sign * float(estimator.intercept_[0])]),
        support=np.asarray(estimator.support_)[order].astype(np.int32),
        support_vectors=_sv_matrix(_scaled_sv(estimator.support_vectors_, scale), order),
        n_samples=int(estimator.solution_.alpha.shape[0]),
        n_iter=np.array([estimator.solution_.n_iter], dtype=np.int32),
        feature_scale=scale, class_weight=_class_weight(estimator, [first, 1 - first]),
        loss=loss, **_platt(estimator, flip=first == 0))


def _same_kernel(a, b) -> bool:
    """Whether two fitted kernels are the same function (type and every parameter; array
    parameters such as the ARD σ² compared element by element)."""
    if type(a) is not type(b):
        return False
    pa, pb = a.get_params(), b.get_params()
    if pa.keys() != pb.keys():
        return False
    for k in pa:
        x, y = pa[k], pb[k]
        if x is None or y is None:
            if (x is None) != (y is None):
                return False
        elif not np.array_equal(np.asarray(x), np.asarray(y)):
            return False
    return True


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
        if any(not _same_kernel(m.kernel, first) for m in models):
            raise ValueError("a model with one kernel per class pair (multiclass_theta="
                             "'per-pair') cannot be exported: SVC and LIBSVM use one kernel for "
                             "all pairs; fit with multiclass_theta='shared'")
        kernel = first
    check_exportable(estimator.loss, _kernel_name(kernel), with_scaling=True)
    kernel_type, gamma, coef0, degree, scale = _kernel_params(kernel)
    return LibsvmModel(
        kernel_type=kernel_type, gamma=gamma, coef0=coef0, degree=degree,
        C=float(max(m.C for m in models)), labels=classes.copy(),
        n_sv=np.asarray(estimator.n_support_, dtype=np.int32),
        sv_coef=np.ascontiguousarray(estimator.dual_coef_, dtype=np.float64),
        rho=-np.asarray(estimator.intercept_, dtype=np.float64),
        support=np.asarray(estimator.support_, dtype=np.int32),
        support_vectors=_sv_matrix(_scaled_sv(estimator.support_vectors_, scale)),
        n_samples=int(estimator.shape_fit_[0]),
        n_iter=np.array([m.n_iter for m in models], dtype=np.int32),
        feature_scale=scale, class_weight=_class_weight(estimator, np.arange(classes.size)),
        loss=estimator.loss, **_platt(estimator))


def _finite_nonnegative(value, name: str) -> float:
    """A finite float >= 0, or a ValueError naming ``name``."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number >= 0, got {value!r}") from None
    if not np.isfinite(v) or v < 0:
        raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
    return v


def regression_model(kernel, support_vectors, dual_coef, intercept, *, C, epsilon,
                     support=None, n_samples=None, n_iter: int = 0) -> LibsvmModel:
    """The ``LibsvmModel`` (svm_type 'epsilon_svr') of the ε-SVR

        f(x) = Σ_i dual_coef[i]·K(sv_i, x) + intercept,   dual_coef[i] = α_i − α_i*,

    on plain arrays: ``kernel`` a svmbound kernel object (``RBFKernel``, ``LinearKernel``,
    ``PolynomialKernel``, ``ARDRBFKernel``, ``ScaledPolynomialKernel``: the kernels
    ``_kernel_params`` maps to LIBSVM's), ``support_vectors`` the n_SV rows sv_i (a dense array,
    or a scipy sparse matrix, kept sparse: ``_sv_matrix``), ``dual_coef`` n_SV numbers (1-D, or
    scikit-learn's (1, n_SV) ``dual_coef_``, dense or sparse), ``intercept`` b (a number or
    scikit-learn's (1,) ``intercept_``); ``C`` > 0 and ``epsilon`` >= 0 are the training
    problem's (they do not enter f; ``to_svr`` sets them so that refitting solves that
    problem). ``support`` (the SVs' rows of the training data; default 0 … n_SV − 1),
    ``n_samples`` (rows of the training data; default the largest of ``support`` + 1) and
    ``n_iter`` are recorded as scikit-learn's ``support_``, ``shape_fit_`` and ``n_iter_``.

    Filled: LIBSVM's ``sv_coef`` = [dual_coef] (one row), ``rho`` = [−intercept] (LIBSVM's
    value is Σ coef·K − ρ), ``nr_class`` 2 with no labels and no ``nr_sv``; the kernel's
    ``kernel_type``/``gamma``/``coef0``/``degree``. An ARD kernel gives the model on the scaled
    features u_k = x_k/σ_k (``feature_scale`` = σ_k, the support vectors scaled as the kernel
    scales them; they must be dense, as the ARD kernels need).

    Raises ValueError naming the problem: a kernel that does not export, support vectors that
    are not 2-D or not finite, a dual_coef whose length is not the number of support vectors
    or with non-finite entries, an intercept that is not one finite number, C not finite > 0,
    epsilon not finite >= 0, a support of the wrong length.
    """
    kernel_type, gamma, coef0, degree, scale = _kernel_params(kernel)
    sparse = issparse(support_vectors)
    sv = support_vectors if sparse else np.asarray(support_vectors, dtype=np.float64)
    if len(sv.shape) != 2:
        raise ValueError(f"support_vectors must be 2-D (n_SV, n_features), got shape "
                         f"{sv.shape}")
    if not np.all(np.isfinite(sv.data if sparse else sv)):
        raise ValueError("support_vectors has non-finite entries (NaN or infinity)")
    n_sv, n_features = sv.shape
    coef = np.asarray(dual_coef.toarray() if issparse(dual_coef) else dual_coef,
                      dtype=np.float64)
    if coef.ndim == 2 and coef.shape[0] == 1:          # scikit-learn's dual_coef_ (1, n_SV)
        coef = coef[0]
    if coef.ndim != 1 or coef.size != n_sv:
        raise ValueError(f"dual_coef has shape {np.shape(dual_coef)}: it needs one "
                         f"coefficient (alpha_i - alpha_i*) per support vector, {n_sv}")
    if not np.all(np.isfinite(coef)):
        raise ValueError("dual_coef has non-finite entries (NaN or infinity)")
    b = np.asarray(intercept, dtype=np.float64).ravel()
    if b.size != 1 or not np.isfinite(b[0]):
        raise ValueError(f"intercept must be one finite number, got {intercept!r}")
    C = check_positive(C, "C")
    epsilon = _finite_nonnegative(epsilon, "epsilon")
    support = (np.arange(n_sv, dtype=np.int32) if support is None
               else np.asarray(support, dtype=np.int32))
    if support.shape != (n_sv,):
        raise ValueError(f"support has shape {support.shape}: it needs one training row per "
                         f"support vector, {n_sv}")
    if n_samples is None:
        n_samples = int(support.max()) + 1 if n_sv else 0
    if scale is not None:
        if sparse:
            raise ValueError("an ARD kernel's model needs dense support vectors (the ARD "
                             "kernels refuse sparse X)")
        if np.shape(scale) != (n_features,):
            raise ValueError(f"the kernel scales {np.size(scale)} features, the support "
                             f"vectors have {n_features}")
    return LibsvmModel(
        kernel_type=kernel_type, gamma=gamma, coef0=coef0, degree=degree, C=C,
        labels=np.empty(0, dtype=np.int32), n_sv=np.array([n_sv], dtype=np.int32),
        sv_coef=np.ascontiguousarray(coef)[None, :], rho=np.array([-b[0]]),
        support=support, support_vectors=_sv_matrix(_scaled_sv(sv, scale)),
        n_samples=int(n_samples), n_iter=np.array([n_iter], dtype=np.int32),
        feature_scale=scale, svm_type="epsilon_svr", epsilon=epsilon)


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


def feature_scaler(feature_scale):
    """The first step of an exported ARD model: a fitted ``FunctionTransformer`` that maps x to
    u = x·(1/σ_k) (``partial(np.multiply, 1/σ)``: the product the ARD kernel computes, bit for
    bit; ``inverse_transform`` multiplies by σ_k). Plain NumPy and scikit-learn objects, so a
    pickled pipeline loads without svmbound; ``validate=True``: X is checked as SVC checks it
    (n_features_in_, no NaN, no sparse X — an ARD model is fitted on dense X and its SVC is
    dense). The scale is fixed: ``clone(pipeline).fit`` keeps it and trains the SVC on u."""
    from sklearn.preprocessing import FunctionTransformer

    sigma = np.array(feature_scale, dtype=np.float64)
    inv = 1.0 / sigma
    scaler = FunctionTransformer(partial(np.multiply, inv), partial(np.multiply, sigma),
                                 validate=True, accept_sparse=False, check_inverse=False,
                                 feature_names_out="one-to-one")
    return scaler.fit(np.zeros((1, sigma.size)))      # sets n_features_in_ (O(d), no data)


def _set_libsvm_fit(est, model: LibsvmModel, n_support) -> None:
    """Set on the scikit-learn estimator ``est`` (SVC or SVR) the fitted attributes that
    ``BaseLibSVM.fit`` sets from LIBSVM's model and that prediction reads
    (sklearn/svm/_base.py): ``support_``, ``support_vectors_``, ``_n_support`` (= ``n_support``),
    ``_dual_coef_`` (= ``sv_coef``; CSR for CSR support vectors, as ``_sparse_fit`` makes it),
    ``_intercept_`` (= −ρ), ``_gamma``, ``_sparse`` (CSR support vectors: prediction through
    ``libsvm_sparse``, dense X converted to CSR), ``fit_status_``, ``_num_iter``,
    ``shape_fit_`` and ``n_features_in_``. The public ``dual_coef_``/``intercept_``, ``n_iter_``
    and the probability fields differ between SVC and SVR: the callers set them."""
    sparse = issparse(model.support_vectors)
    n_features = model.support_vectors.shape[1]
    est.support_ = np.ascontiguousarray(model.support, dtype=np.int32)
    est.support_vectors_ = _sv_matrix(model.support_vectors)
    est._n_support = np.ascontiguousarray(n_support, dtype=np.int32)
    est._dual_coef_ = (_csr_coef(model.sv_coef) if sparse
                       else np.ascontiguousarray(model.sv_coef, dtype=np.float64))
    est._intercept_ = np.ascontiguousarray(-model.rho, dtype=np.float64)
    est._gamma = float(model.gamma)
    est._sparse = sparse
    est.fit_status_ = 0
    est._num_iter = np.ascontiguousarray(model.n_iter, dtype=np.int32)
    est.shape_fit_ = (model.n_samples, n_features)
    est.n_features_in_ = n_features


def _on_raw_features(model: LibsvmModel, name: str, est):
    """``est`` itself for a model on the raw features; for a model on scaled features (ARD,
    ``model.feature_scale``) the fitted ``Pipeline([("scale", feature_scaler(σ)), (name,
    est)])`` that predicts raw x."""
    if model.feature_scale is None:
        return est
    from sklearn.pipeline import Pipeline

    n_features = model.support_vectors.shape[1]
    if np.shape(model.feature_scale) != (n_features,):
        raise ValueError(f"feature_scale has shape {np.shape(model.feature_scale)}, expected "
                         f"({n_features},)")
    return Pipeline([("scale", feature_scaler(model.feature_scale)), (name, est)])


def to_svc(model: LibsvmModel, classes, tol: float = 1e-3, decision_function_shape: str = "ovr",
           break_ties: bool = False):
    """A fitted ``sklearn.svm.SVC`` holding ``model`` (nothing is trained); for a model on
    scaled features (ARD, ``model.feature_scale``) the fitted
    ``Pipeline([("scale", feature_scaler(σ)), ("svc", SVC)])``.

    ``model.labels`` must be ``classes`` (sorted, as SVC keeps them). SVC stores LIBSVM's arrays
    in ``_dual_coef_`` / ``_intercept_`` (= −ρ) and, for two classes, shows them with the sign
    flipped (``dual_coef_``, ``intercept_``, ``decision_function`` positive for classes_[1]).
    With CSR support vectors (a model fitted on sparse X) the SVC is the one ``SVC.fit`` makes
    from sparse X: ``_sparse`` set, CSR ``support_vectors_`` and ``dual_coef_``, prediction
    through ``libsvm_sparse`` for sparse and dense X alike.

    ``class_weight`` is the model's (the fitted ``class_weight_`` as a dict {label: weight},
    None when all are 1) and ``class_weight_`` its array, as ``SVC.fit`` sets them; ``C`` is
    the tuned C for both losses — refitting (``clone(svc).fit``) trains an L1-SVM (LIBSVM's
    C-SVC), the same problem as the estimator's for loss='l1', not for loss='l2'.
    ``decision_function_shape`` and ``break_ties``: the estimator's, which SVC's
    ``decision_function`` and ``predict`` (three or more classes) follow as ours do.
    """
    from sklearn.svm import SVC

    if model.svm_type != "c_svc":
        raise ValueError(f"to_svc needs a classifier (svm_type 'c_svc'), the model is "
                         f"{model.svm_type!r}: use to_svr")
    classes = np.asarray(classes)
    if model.labels.shape != classes.shape or np.any(model.labels != classes):
        raise ValueError(f"the model's label order {model.labels.tolist()} is not the sorted "
                         f"classes {classes.tolist()} that SVC needs")
    weights = (np.ones(classes.size) if model.class_weight is None
               else np.asarray(model.class_weight, dtype=np.float64))
    if weights.shape != classes.shape:
        raise ValueError(f"class_weight has {weights.size} entries for {classes.size} classes")
    svc = SVC(C=model.C, kernel=_SKLEARN_KERNEL[model.kernel_type], degree=model.degree,
              gamma=model.gamma, coef0=model.coef0, tol=tol,
              decision_function_shape=decision_function_shape, break_ties=break_ties,
              class_weight=(None if model.class_weight is None
                            else dict(zip(classes.tolist(), weights.tolist()))))
    _set_libsvm_fit(svc, model, model.n_sv)
    svc.classes_ = classes
    svc.class_weight_ = weights.copy()
    if classes.size == 2:      # what SVC.fit does for binary problems (sklearn/svm/_base.py)
        svc.dual_coef_ = -svc._dual_coef_
        svc.intercept_ = -svc._intercept_
    else:
        svc.dual_coef_ = svc._dual_coef_
        svc.intercept_ = svc._intercept_.copy()
    probability = model.prob_a is not None
    svc.probability = probability
    svc._probA = (np.ascontiguousarray(model.prob_a, dtype=np.float64) if probability
                  else np.empty(0))
    svc._probB = (np.ascontiguousarray(model.prob_b, dtype=np.float64) if probability
                  else np.empty(0))
    svc._effective_probability = probability
    svc.n_iter_ = svc._num_iter
    return _on_raw_features(model, "svc", svc)


def to_svr(model: LibsvmModel, tol: float = 1e-3):
    """A fitted ``sklearn.svm.SVR`` holding the ε-SVR ``model`` (``regression_model``; nothing
    is trained) whose ``predict`` is f(x) = Σ_i sv_coef[i]·K(sv_i, x) − ρ; for a model on
    scaled features (ARD, ``model.feature_scale``) the fitted
    ``Pipeline([("scale", feature_scaler(σ)), ("svr", SVR)])``.

    Filled as ``SVR.fit`` fills them (sklearn/svm/_base.py, ``_set_libsvm_fit``): for
    regression there is no sign flip — ``dual_coef_`` = ``_dual_coef_`` = sv_coef (1, n_SV),
    ``intercept_`` = ``_intercept_`` = −ρ (a copy) — ``_n_support`` = [n_SV, n_SV] for dense
    and [n_SV, 0] for CSR support vectors (``n_support_`` = [n_SV]), no probability
    (``_probA``/``_probB`` empty), ``n_iter_`` an int. The parameters ``C``, ``epsilon``,
    ``kernel``, ``gamma``, ``degree``, ``coef0`` and ``tol`` are the model's, so that
    ``clone(svr).fit(X, y)`` on the training data solves the same ε-SVR problem.
    """
    from sklearn.svm import SVR

    if model.svm_type != "epsilon_svr":
        raise ValueError(f"to_svr needs an epsilon-SVR model (svm_type 'epsilon_svr'), the "
                         f"model is {model.svm_type!r}: use to_svc")
    if model.sv_coef.shape != (1, model.support_vectors.shape[0]) or model.rho.shape != (1,):
        raise ValueError(f"an epsilon-SVR model has one row of sv_coef and one rho, got "
                         f"sv_coef {model.sv_coef.shape} and rho {model.rho.shape}")
    svr = SVR(C=model.C, epsilon=_finite_nonnegative(model.epsilon, "epsilon"),
              kernel=_SKLEARN_KERNEL[model.kernel_type], degree=model.degree,
              gamma=model.gamma, coef0=model.coef0, tol=tol)
    n_sv = model.support_vectors.shape[0]
    sparse = issparse(model.support_vectors)
    _set_libsvm_fit(svr, model, [n_sv, 0 if sparse else n_sv])
    svr.dual_coef_ = svr._dual_coef_
    svr.intercept_ = svr._intercept_.copy()
    svr._probA = np.empty(0)
    svr._probB = np.empty(0)
    svr._effective_probability = False
    svr.n_iter_ = int(svr._num_iter[0])
    return _on_raw_features(model, "svr", svr)


def model_of(estimator, first: int = 1) -> LibsvmModel:
    """The ``LibsvmModel`` of a fitted ``BoundSVC``: ``multiclass_model`` for three or more
    classes, else ``binary_model(estimator, first)`` (first=1: LIBSVM's decision values are
    ``decision_function``, for the model file; first=0: SVC's sorted order, for ``to_svc``)."""
    multi = len(getattr(estimator, "classes_", ())) > 2
    return multiclass_model(estimator) if multi else binary_model(estimator, first=first)
