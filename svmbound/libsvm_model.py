"""LIBSVM's ``svm_model`` (``LibsvmModel``, its support vectors' storage) and its text files."""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from ._sparse import issparse

#: LIBSVM's ``svm_type`` of the models svmbound exports: the classifier and ε-SVR.
SVM_TYPES = ("c_svc", "epsilon_svr")


@dataclass
class LibsvmModel:
    """LIBSVM's ``svm_model`` of a C-SVC, any number of classes, or of an ε-SVR
    (``svm_type`` 'epsilon_svr', built by ``regression_model``).

    ``support_vectors`` are grouped by class in the order of ``labels`` (``n_sv[k]`` rows for
    ``labels[k]``); ``sv_coef`` has nr_class − 1 rows; ``rho`` one entry per pair (i, j), i < j,
    in the order (0, 1), (0, 2), …, (1, 2), …; ``support`` the rows of the training data.

    ``feature_scale`` (ARD kernels; None otherwise): σ_k per feature — the model (kernel,
    support vectors) is on the scaled features u_k = x_k/σ_k, and new points must be scaled so
    before prediction. ``class_weight``: the weight of each class in ``labels`` order (None:
    all 1); ``loss``: the estimator's loss ('l1' or 'l2'; both predict as a C-SVC);
    ``prob_a``/``prob_b``: the sigmoid P(first label of the pair) = 1/(1 + exp(A·f + B)) of
    each pair's LIBSVM decision value f, when the estimator was fitted with probability=True.

    An ε-SVR (``svm_type`` = 'epsilon_svr') has one row of ``sv_coef`` (α_i − α_i*), one ρ
    (= −b), no ``labels`` (empty), ``n_sv`` = [total_sv], and its tube width in ``epsilon``
    (LIBSVM's ``p``; training only). LIBSVM counts it as two classes (``nr_class``).
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
    feature_scale: np.ndarray | None = None   # (n_features,) σ_k of an ARD model, else None
    class_weight: np.ndarray | None = None    # (nr_class,) in labels order; None: all 1
    loss: str = "l1"
    prob_a: np.ndarray | None = None   # (nr_pairs,) Platt's A per pair (LIBSVM's probA), or None
    prob_b: np.ndarray | None = None   # (nr_pairs,) Platt's B per pair (probB)
    svm_type: str = "c_svc"            # LIBSVM name: 'c_svc' | 'epsilon_svr' (SVM_TYPES)
    epsilon: float | None = None       # ε of an ε-SVR (LIBSVM's p), None for a classifier

    @property
    def nr_class(self) -> int:
        """LIBSVM's ``nr_class``: the number of labels; 2 for a regression model."""
        return 2 if self.svm_type == "epsilon_svr" else int(self.labels.size)


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


def _kernel_lines(model: LibsvmModel) -> list[str]:
    """The ``kernel_type`` line and the parameters ``svm_save_model`` writes for it: ``degree``
    (polynomial), ``gamma`` (polynomial, rbf), ``coef0`` (polynomial)."""
    lines = [f"kernel_type {model.kernel_type}"]
    if model.kernel_type == "polynomial":
        lines.append(f"degree {int(model.degree)}")
    if model.kernel_type in ("polynomial", "rbf"):
        lines.append(f"gamma {_num(model.gamma)}")
    if model.kernel_type == "polynomial":
        lines.append(f"coef0 {_num(model.coef0)}")
    return lines


def check_base(base) -> int:
    """The feature index of column 0 in a LIBSVM file: 1 (LIBSVM's own numbering) or 0 (a
    zero-based file, e.g. scikit-learn's ``dump_svmlight_file`` default)."""
    if isinstance(base, bool) or base not in (0, 1):
        raise ValueError(f"the feature index of column 0 must be 0 or 1, got {base!r}")
    return int(base)


def feature_base(zero_based) -> int:
    """The feature index of column 0 that ``save_libsvm_model(zero_based=...)`` asks for: 1
    (False: LIBSVM's numbering, column j is feature j + 1) or 0 (True: as a zero-based file
    numbers them, e.g. scikit-learn's ``dump_svmlight_file`` by default)."""
    if not isinstance(zero_based, (bool, np.bool_)):
        raise ValueError(f"zero_based must be True or False, got {zero_based!r}")
    return 0 if zero_based else 1


def _sv_lines(model: LibsvmModel, base: int = 1) -> list[str]:
    """The lines after ``SV``: per support vector its nr_class − 1 coefficients, then its
    non-zero entries as ``index:value``, column j as index j + ``base`` (1: LIBSVM's numbering;
    0 for a model of a zero-based file, so that it reads that file's feature numbers)."""
    lines = []
    for i, (cols, vals) in enumerate(_sv_entries(model.support_vectors)):
        coefs = " ".join(_num(c) for c in model.sv_coef[:, i])
        feats = " ".join(f"{j + base}:{_num(v)}" for j, v in zip(cols, vals))
        lines.append(f"{coefs} {feats}".rstrip() + " ")
    return lines


def _regression_model_text(model: LibsvmModel, base: int = 1) -> str:
    """``libsvm_model_text`` of an ε-SVR: what ``svm_save_model`` writes for a model that
    ``svm_train`` made with svm_type EPSILON_SVR (label, nSV, probA and probB NULL):

        svm_type epsilon_svr
        kernel_type …  (degree / gamma / coef0 as the kernel has them)
        nr_class 2
        total_sv n
        rho ρ          (= −b)
        SV
        coef idx:val …  (one line per support vector: α_i − α_i*, then its non-zeros)

    ``svm_predict`` returns Σ coef·K(sv, x) − ρ."""
    n_sv = model.support_vectors.shape[0]
    if model.sv_coef.shape != (1, n_sv) or model.rho.shape != (1,):
        raise ValueError(f"an epsilon-SVR model has one row of sv_coef (1, {n_sv}) and one "
                         f"rho, got sv_coef {model.sv_coef.shape} and rho {model.rho.shape}")
    lines = ["svm_type epsilon_svr", *_kernel_lines(model), "nr_class 2", f"total_sv {n_sv}",
             f"rho {_num(model.rho[0])}", "SV", *_sv_lines(model, base)]
    return "\n".join(lines) + "\n"


def libsvm_model_text(model: LibsvmModel, base: int = 1) -> str:
    """LIBSVM's text model format (``svm_save_model``), at full double precision (LIBSVM itself
    writes support vectors with 8 digits): a C-SVC's, or an ε-SVR's (``svm_type``
    'epsilon_svr': ``_regression_model_text``). ``base``: the feature index of column 0
    (``check_base``)."""
    base = check_base(base)
    if model.svm_type not in SVM_TYPES:
        raise ValueError(f"svm_type must be one of {', '.join(map(repr, SVM_TYPES))}, got "
                         f"{model.svm_type!r}")
    if model.svm_type == "epsilon_svr":
        return _regression_model_text(model, base)
    labels = check_int_labels(model.labels)
    k = model.nr_class
    if model.sv_coef.shape != (k - 1, model.support_vectors.shape[0]):
        raise ValueError(f"sv_coef has shape {model.sv_coef.shape}, expected "
                         f"{(k - 1, model.support_vectors.shape[0])}")
    if model.rho.shape != (k * (k - 1) // 2,) or int(np.sum(model.n_sv)) != model.sv_coef.shape[1]:
        raise ValueError("rho needs one entry per pair of classes and n_sv must add up to the "
                         "number of support vectors")
    lines = ["svm_type c_svc", *_kernel_lines(model)]
    lines += [f"nr_class {k}",
              f"total_sv {model.support_vectors.shape[0]}",
              "rho " + " ".join(_num(r) for r in model.rho),
              "label " + " ".join(str(v) for v in labels)]
    if model.prob_a is not None:
        lines += ["probA " + " ".join(_num(a) for a in model.prob_a),
                  "probB " + " ".join(_num(b) for b in model.prob_b)]
    lines += ["nr_sv " + " ".join(str(int(n)) for n in model.n_sv),
              "SV", *_sv_lines(model, base)]
    return "\n".join(lines) + "\n"


def libsvm_range_text(model: LibsvmModel, base: int = 1) -> str:
    """svm-scale's range file (its ``-s`` format, read by ``svm-scale -r``) that maps the raw
    features x to the features u_k = x_k/σ_k of a model on scaled features (ARD):

        x
        0 1
        k 0 σ_k        (one line per feature k = 1 … d, σ_k at full double precision;
                        k = 0 … d − 1 with ``base`` 0, as the model's ``base``)

    svm-scale's rule, lower + (upper − lower)·(x − min)/(max − min), is then exactly x_k/σ_k
    (0 + 1·(x − 0)/(σ_k − 0); x = 0 stays 0 and is left out, so sparse rows stay sparse).
    Every feature is listed: svm-scale takes the range of a feature the file does not list
    from the data it scales. Beware that svm-scale prints the scaled values with ``%g``
    (6 significant digits), so decision values through ``svm-scale -r`` agree with ours to
    about 1e-6 relative; scaled at full precision (x_k / σ_k, e.g. by the exported pipeline's
    scaler) they agree to rounding."""
    if model.feature_scale is None:
        raise ValueError("the model is on the raw features: it needs no range file")
    sigma = np.asarray(model.feature_scale, dtype=np.float64)
    if not (sigma.ndim == 1 and np.all(np.isfinite(sigma)) and np.all(sigma > 0)):
        raise ValueError("feature_scale must be a 1-D array of finite values > 0")
    base = check_base(base)
    lines = ["x", "0 1"] + [f"{k + base} 0 {_num(s)}" for k, s in enumerate(sigma)]
    return "\n".join(lines) + "\n"


def range_path_of(path) -> str:
    """Where ``write_libsvm_model`` puts the range file of a model on scaled features when no
    other path is given: the model's path with ``.range`` appended."""
    return os.fspath(path) + ".range"


def _write_text(path, text: str) -> None:
    with open(os.fspath(path), "w", encoding="ascii", newline="\n") as fh:
        fh.write(text)


def write_libsvm_range(model: LibsvmModel, path) -> None:
    """Write the range file of a model on scaled features (``libsvm_range_text``) to
    ``path``."""
    _write_text(path, libsvm_range_text(model))


def write_libsvm_model(model: LibsvmModel, path, range_path=None, base: int = 1) -> None:
    """Write ``model`` — a C-SVC's or an ε-SVR's (``libsvm_model_text``) — to ``path`` in
    LIBSVM's text format (``svm_load_model`` reads it).

    A model on scaled features (ARD: ``model.feature_scale``) is the model of the scaled
    features u_k = x_k/σ_k; its range file (``libsvm_range_text``) is written as well, to
    ``range_path`` (None: ``range_path_of(path)``, i.e. ``<path>.range``; False: not written —
    for a caller that writes it itself, e.g. atomically with ``write_libsvm_range``). LIBSVM's
    tools then predict raw data as ours:

        svm-scale -r model.range test > test.scaled
        svm-predict test.scaled model out

    ``base``: the feature index of column 0 in both files (``check_base``; 0 for a model of a
    zero-based data file). Both texts are made before either file is opened: a model that
    cannot be written (e.g. non-integer labels) leaves no file."""
    files = [(path, libsvm_model_text(model, base))]
    if model.feature_scale is not None:
        if range_path is not False:
            files.append((range_path_of(path) if range_path is None else range_path,
                          libsvm_range_text(model, base)))
    elif range_path is not None and range_path is not False:
        raise ValueError("range_path: the model is on the raw features, it has no range file")
    for where, text in files:
        _write_text(where, text)
