"""scikit-learn estimator that tunes its own hyperparameters by minimising a LOO bound.

``BoundSVC.fit`` (1) builds the criterion (e.g. the radius–margin bound of the chosen loss),
(2) minimises it over θ = (ln C, kernel θ) with the chosen search (projected BFGS, Chung §4.2),
(3) applies Chung §4.3 — an L1 solution with no bounded support vector (typically after the
search ran towards ln C = 10) is reported with C = max α, which leaves the model unchanged; a
grid search keeps its grid point — and (4) trains the final SVM of that loss at the chosen
point.
"""

from __future__ import annotations

import time

import numpy as np
from sklearn.base import ClassifierMixin
from sklearn.utils._param_validation import StrOptions
from sklearn.exceptions import NotFittedError
from sklearn.utils._available_if import available_if
from sklearn.utils.validation import check_is_fitted

from ._parallel import worker_cap
from ._validation import check_binary_y, check_class_y
from .criteria import criterion_class, make_criterion
from .estimator_base import COMMON_CONSTRAINTS, GRADIENT_SEARCHES, SEARCHES, BoundSVMBase
from .export import model_of
from .export import to_svc as export_to_svc
from .export import feature_base, write_libsvm_model
from .fit_flow import BinaryMachine, OneVsOneMachine, fit_bound_svm
from .kernels import ARD_KERNELS, ESTIMATOR_KERNELS, base_kernel, split_degree
from .multiclass import decision_function as ovo_decision_function
from .multiclass import fit_per_pair, pair_threads
from .multiclass import predict as ovo_predict
from .multiclass import predict_proba as ovo_predict_proba
from .probability import MIN_PROB, sigmoid_predict
from .solvers import DEFAULT_CACHE_MB, Problem
from .training_data import TrainingData, weights_and_kept

__all__ = ["BoundSVC", "SEARCHES", "GRADIENT_SEARCHES", "ARD_KERNELS", "ESTIMATOR_KERNELS"]


class BoundSVC(ClassifierMixin, BoundSVMBase):
    """SVM whose C and kernel parameters are tuned by minimising a leave-one-out bound.

    Two classes: one binary SVM. Three or more: one-vs-one as scikit-learn's SVC and LIBSVM do
    it (``svmbound.multiclass``): a binary SVM per pair of classes, prediction by voting, one
    θ shared by the pairs and tuned on the sum of the pairs' criteria (or one θ per pair,
    ``multiclass_theta``); with criterion='auto' the candidates are compared by the CV error of
    the voting machine.

    Parameters
    ----------
    loss : 'l2' | 'l1'
        L2-SVM (squared hinge, Chung 1.7) or L1-SVM (hinge, Chung 1.5; the usual SVC).
    criterion : str
        'auto' (default): the bounds find the region, a validation picks
        (``svmbound.strategy``): from scikit-learn's gamma='scale' start, projected BFGS on the
        span bound and on the radius–margin bound of the loss; their minima and, with C·e²,
        the radius–margin minimum (L2) or the span minimum (L1) are candidates (the start only
        when none beats the majority class), and the one with the smallest ``n_folds``-fold CV error
        wins (from 2,000 rows: searches on a subsample, a hold-out error picks): a bound's
        minimum alone can be far off (BENCHMARKS.md). With a non-gradient search 'auto' means
        'radius-margin'. Or 'radius-margin' (the radius–margin bound of the loss alone, Chung)
        or any name of ``svmbound.criteria.CRITERIA``, minimised by ``search``.
    kernel : 'rbf' | 'linear' | 'poly' | 'ard' | 'ard-poly'
        'ard' is the RBF kernel with one σ_k² per feature, exp(−Σ(x_k − z_k)²/(2σ_k²)), and
        'ard-poly' the scaled polynomial (1 + Σ x_k z_k/σ_k²)^degree (Chapelle §7.3, §8); both
        tune ln C and every ln σ_k² (or one per group, see ``groups``).
    search : 'bfgs' | 'lbfgsb' | 'projected-gradient' | 'grid' | 'annealing' | 'convex'
        'bfgs': projected BFGS of Chung §4.2. 'lbfgsb' / 'projected-gradient': SciPy's L-BFGS-B
        / projected gradient steps (Chapelle §5), for many parameters (ARD). 'grid': an
        exhaustive grid over (ln C, kernel parameter). 'annealing': Acevedo's adaptive simulated
        annealing (§3) — any criterion, differentiable or not, and an integer degree.
        'convex': C of the L2-SVM by De Bie's convex criterion at the kernel of ``start``
        (``criterion`` is not used).
    grid : dict or None
        For search='grid': {"log_C": (begin, end, step), "<kernel param>": (begin, end, step)};
        default: the box with step 1.
    start : array or None
        Start point in θ = (ln C, kernel θ); default (0, 0) for the RBF kernel, 0 for every
        ARD ln σ_k². For search='annealing' the default is Acevedo's uniform random start.
    bounds : (lower, upper) or one pair per parameter, or None for [−10, 10] (Chung §4.2).
    degree : int, or (low, high) / 'auto' (= 1..10) to search the polynomial degree by annealing.
    coef0 : start value of the polynomial kernel's c (tuned).
    groups : None, or an int array mapping each feature to a group that shares one σ² (ARD
        kernels only; e.g. ``svmbound.kernels.ard.tile_groups``, Chapelle Fig. 4).
    tol : solver tolerance of criterion evaluations (Chung §4.3 uses 1e-6) and of the final
        model of a named criterion. With criterion='auto' the final model is trained at
        max(tol, 1e-3) (SVC's and LIBSVM's default, ``svmbound.strategy.VALIDATION_TOL``; on
        20,000 rows at tol 1e-6 it took 1.2–1.9× as long as at 1e-3, for the same test error:
        ``benchmarks/final_tolerance.py``); the bound searches, which only have to find the
        region, solve at max(tol, 1e-3) too (``svmbound.strategy.STAGE_TOL``), and the CV
        trainings, which only count held-out errors, at max(tol, 1e-2)
        (``svmbound.strategy.CV_TOL``).
    max_iter : maximal iterations of the gradient searches.
    max_epochs : epochs (evaluations after the start) of the annealing search (Acevedo §3).
    n_folds : folds of the cross-validation that picks among the candidates of
        criterion='auto' (stratified, shuffled with ``random_state``).
    tune_subsample : int or None (default 5000)
        Large data, criterion='auto': from 2,000 rows (or on more than 2·tune_subsample) the
        bound searches run on a stratified random subsample (``random_state``) of min(n/2, m)
        rows, m = tune_subsample, and at most an eighth of the rows beyond m/2 (2,500 rows from
        5,000 to 20,000 rows; one-vs-one, of the two largest classes), and the candidates are
        compared by their hold-out error on up to 4 times that many other rows instead of the
        k-fold CV; the final SVM is trained on every row. m is smaller where the span bound's
        working memory on m rows (about 2.4·8·m² bytes) would not fit in half of
        ``cache_size``: at SVC's 200 MB, 2,336 rows; with "auto" on a machine of 16 GB or more,
        10,575 (``svmbound.strategy.span_memory_rows``).
        None: always every row, whatever the memory (``docs/decisions.md``).
    strategy_config : ``svmbound.strategy.StrategyConfig`` or None
        The default strategy's settings (None: ``DEFAULT_CONFIG``); ``ISOTROPIC_CONFIG`` leaves
        out its per-feature stage (one σ² for every feature, as grid search; a plain SVC on
        export); for experiments, ``dataclasses.replace(DEFAULT_CONFIG, field=value)``.
    probability : bool (default False)
        Also fit Platt's sigmoid of each machine (``probA_``, ``probB_``) for
        :meth:`predict_proba`, as SVC's ``probability=True``, on out-of-fold decision values:
        with criterion='auto' those of the validation that picked the model — no extra
        training (SVC and LIBSVM train 5 more times) — else of an ``n_folds``-fold CV at the
        tuned point. Three or more classes: pairwise coupling (Wu, Lin & Weng 2004, LIBSVM's).
        As with SVC, :meth:`predict` follows the decision function, not the probabilities: on
        a few points near the boundary the class of largest probability can differ.
    gtol : gradient searches stop when the projected gradient is below gtol·|f(start)|
        (relative, because the criterion's gradient is only as accurate as the solver
        tolerance, Chung §4.3).
    n_jobs : joblib workers (threads) for independent work of criterion='auto': its two bound
        searches and its CV folds (None: 1, or the active ``joblib.parallel_config``; -1: all
        cores); a solve of ≥ 4,096 dense rows running alone (the final training of large data; by
        blocks, ``solvers.qp.BLOCK_MIN_ROWS``) computes its kernel rows and its passes on all of
        them. The result does not depend on it. Threads are capped at the CPUs this process
        may use; searches on at most 100 rows (``StrategyConfig.serial_rows``) and a multi-class
        problem whose pairs are too small for threads to pay (``svmbound.multiclass.pair_threads``)
        run on one. A backend of ``joblib.parallel_config``
        takes precedence over threads: with ``backend="dask"`` (``pip install
        "svmbound[dask]"``) the work runs on a dask.distributed cluster, with the same result;
        Ctrl-C then stops only the solves of this process.
    cache_size : kernel-row cache in MB, or "auto" (a quarter of the memory, 200 MB to 4 GB).
    random_state : seed for every random choice (annealing, validation splits, CV folds).
    class_weight : None, 'balanced' or a dict {label: weight}, as scikit-learn's SVC: the C of
        class k becomes C·class_weight[k] ('balanced': n_samples / (n_classes · count of k)).
        With ``fit(X, y, sample_weight=s)`` too, sample i has C_i = C·class_weight[y_i]·s_i —
        in the L1 box (0 ≤ α_i ≤ C_i), the L2 diagonal (K + diag(1/C_i)), R̃², every bound and
        gradient, and the CV of criterion='auto' (whose held-out errors then count with their
        weights: with 'balanced', the balanced error rate). Samples of weight 0 are dropped
        (as LIBSVM does); ``support_`` still indexes the rows of the X given to ``fit``.
        Three or more classes: w_i = class_weight[y_i]·s_i is computed once on all samples
        and each one-vs-one pair trains and is tuned with the weights of its rows; the voting
        CV of criterion='auto' counts held-out errors with their weights.
    verbose : lines on stderr, as scikit-learn's searches: 1 each step (a search's end, each
        candidate's validation error, the pick, the final training), 2 also every search
        iteration, 3 also every criterion evaluation.
    criterion_params : dict or None
        Extra keyword arguments of the criterion, e.g. ``{"n_folds": 10}`` for 'cv-error'.
    progress : a progress bar (tqdm) on stderr, one step per criterion evaluation and one for
        the final training, with the stage and (criterion='auto') a total and an ETA; default
        off.
    log_file : None, or a path: every criterion evaluation of the search is appended to it as
        one JSON line (θ, value, gradient, solver statistics, time; ``svmbound.search.log``),
        with the solver warm-start state in ``<log_file>.state``.
    resume : with ``log_file``: if the file exists, continue the run it records — the same
        search runs again, evaluations already in the log are answered from it without solving,
        and the run ends where an uninterrupted one ends. The log must come from the same data
        and parameters (otherwise ValueError). Without an existing file a new log is started.
        False: the log of an earlier run at log_file is replaced (``SearchLogWarning``); a
        file there that is not a svmbound log is refused (ValueError) and left as it is.
    decision_function_shape : 'ovr' (default) | 'ovo'
        Three or more classes: ``decision_function`` returns scikit-learn SVC's one-vs-rest
        shape (n, k) or the pairs' values (n, k(k−1)/2), positive for the pair's first class.
        Prediction is by one-vs-one voting either way (as SVC), unless ``break_ties``. Not used
        for two classes.
    break_ties : bool (default False)
        As SVC's: with three or more classes and decision_function_shape='ovr', ``predict``
        returns the class of the largest ``decision_function`` value (the vote with its ties
        broken by the confidences) instead of the plain one-vs-one vote (whose ties go to the
        first class); a ValueError with 'ovo'. Not used for two classes.
    multiclass_theta : 'shared' (default) | 'per-pair'
        Three or more classes: 'shared' tunes one θ for all pairs by minimising the sum of the
        pairs' criteria (evaluated in ``n_jobs`` threads); 'per-pair' fits every pair as a
        binary BoundSVC with its own θ (pairs in ``n_jobs`` threads; then ``best_params_`` maps
        each pair of labels to its parameters, ``kernel_`` is None, ``pair_estimators_`` holds
        the pair models). Not used for two classes.

    Interruption: Ctrl-C (KeyboardInterrupt) stops a fit within a fraction of a second, even
    inside a long solve. ``fit`` then re-raises the KeyboardInterrupt after keeping the search
    so far: ``search_`` is set to a partial ``SearchResult`` (``interrupted=True``,
    ``status=-1``, ``x``/``fun`` the best point evaluated, ``params`` its C and kernel
    parameters, ``path`` every evaluation) and the same object is attached to the exception as
    ``exc.search_result``. Nothing else is fitted. With ``log_file``, ``resume=True`` continues.

    Attributes
    ----------
    classes_, best_params_ (C, gamma, sigma2 / degree, coef0 …), best_theta_, best_value_,
    search_ (the search result with its path), n_trainings_ (SVM solves, final training
    included), n_iter_ (the number of criterion EVALUATIONS the search made, ``search_.nfev``
    — not its iterations ``search_.nit``, which can be 0 when the start already meets the stop
    rule; with criterion='auto' the evaluations of both bound searches plus the CV-scored
    candidates; grid: the grid points; per-pair multi-class: the sum over the pairs),
    n_features_in_, feature_names_in_ (only when fitted on a DataFrame with string column
    names; predicting on a frame whose columns differ or are reordered is a ValueError, as
    for SVC), support_, support_vectors_, dual_coef_ (α_i y_i), intercept_, alpha_,
    n_support_, kernel_, class_weight_ (the weight of each class in ``classes_``),
    feature_scales_ (1/σ_k of each feature when the model's kernel is an ARD kernel — the
    default's per-feature candidate (``search_.ard``), or kernel='ard' — else None). Three or
    more classes: SVC's layout — ``dual_coef_`` (k − 1, n_SV),
    one ``intercept_`` per pair, ``n_support_`` per class — and ``pair_models_`` (per pair:
    classes, C, kernel, θ, support rows, α·y, b); no ``alpha_`` (see ``svmbound.multiclass``).
    """

    #: scikit-learn's parameter validation (``sklearn.utils._param_validation``), run at the
    #: start of ``fit`` (and of ``make_criterion``): a wrong type or value is an
    #: ``InvalidParameterError`` (a ValueError) naming the parameter, what it accepts and what
    #: it got. What depends on several parameters or on the data (a criterion for the loss,
    #: a degree range only with annealing, start inside bounds, groups per feature) is checked
    #: by ``_validate`` and ``fit`` after it.
    _parameter_constraints: dict = {
        **COMMON_CONSTRAINTS,
        "search": [StrOptions(set(SEARCHES))],
        "class_weight": [dict, StrOptions({"balanced"}), None],
        "decision_function_shape": [StrOptions({"ovr", "ovo"})],
        "multiclass_theta": [StrOptions({"shared", "per-pair"})],
        "probability": ["boolean"],
        "break_ties": ["boolean"],
    }

    def __init__(self, loss="l2", criterion="auto", kernel="rbf", search="bfgs",
                 start=None, bounds=None, grid=None, degree=3, coef0=1.0, groups=None, tol=1e-6,
                 max_iter=100, max_epochs=200, gtol=1e-4, n_folds=5,
                 cache_size=DEFAULT_CACHE_MB, random_state=None, verbose=0, progress=False,
                 log_file=None, resume=False, criterion_params=None, n_jobs=None,
                 class_weight=None, decision_function_shape="ovr",
                 multiclass_theta="shared", tune_subsample=5000, strategy_config=None,
                 probability=False, break_ties=False):
        self.loss = loss
        self.criterion = criterion
        self.kernel = kernel
        self.search = search
        self.start = start
        self.bounds = bounds
        self.grid = grid
        self.degree = degree
        self.coef0 = coef0
        self.groups = groups
        self.tol = tol
        self.max_iter = max_iter
        self.max_epochs = max_epochs
        self.gtol = gtol
        self.n_folds = n_folds
        self.cache_size = cache_size
        self.random_state = random_state
        self.verbose = verbose
        self.progress = progress
        self.log_file = log_file
        self.resume = resume
        self.criterion_params = criterion_params
        self.n_jobs = n_jobs
        self.tune_subsample = tune_subsample
        self.class_weight = class_weight
        self.decision_function_shape = decision_function_shape
        self.multiclass_theta = multiclass_theta
        self.strategy_config = strategy_config
        self.probability = probability
        self.break_ties = break_ties

    # -- fitting -------------------------------------------------------------------------
    def _validate(self, params_checked: bool = False):
        """Parameters: scikit-learn's ``_parameter_constraints`` (unless ``params_checked``:
        the caller just did), then what depends on several of them; returns the criterion
        class."""
        if not params_checked:
            self._validate_params()
        split_degree(self.degree, self.kernel, self.search)
        cls = criterion_class(self._criterion_name(), self.loss, task="classification")
        if self.search in GRADIENT_SEARCHES and not cls.differentiable:
            raise ValueError(f"criterion {cls.name!r} is not differentiable; search="
                             f"{self.search!r} cannot minimise it — use the grid or annealing "
                             "search")
        if self.search == "convex" and self.loss != "l2":
            raise ValueError("search='convex' (De Bie et al.) tunes C of the L2-SVM only; "
                             "use loss='l2'")
        if self._uses_auto() and self.criterion_params:
            raise ValueError("criterion_params apply to one named criterion; criterion='auto' "
                             "runs several (its CV folds are set by n_folds)")
        self._criterion_params(cls)
        return cls

    def make_criterion(self, X, y_pm, weights=None):
        """The criterion object a single search minimises, on ±1 labels (for criterion='auto'
        the radius–margin bound of the loss, e.g. for contour plots); ``weights``: per-sample
        weights w_i > 0 (C_i = C·w_i, see :meth:`sample_weights`)."""
        cls = self._validate()
        degree, _ = split_degree(self.degree, self.kernel, self.search)
        kernel = base_kernel(self.kernel, degree, self.coef0, X.shape[1], self.groups)
        return make_criterion(cls.name, Problem(X, y_pm, weights), kernel, loss=self.loss,
                              random_state=self.random_state, tol=self.tol,
                              cache_size=self.cache_size, **self._criterion_params(cls))

    def sample_weights(self, y_pm, sample_weight=None):
        """(w, kept): the per-sample weights w_i = class_weight[y_i]·sample_weight_i of the
        samples of weight > 0 (None when all are 1) and the indices of those samples (None when
        none has weight 0), for ±1 labels; sets ``class_weight_``. Needs ``classes_``."""
        w, kept, self.class_weight_ = weights_and_kept((np.asarray(y_pm) > 0).astype(int),
                                                       self.classes_, sample_weight,
                                                       self.class_weight)
        return w, kept

    def _fit(self, X, y, sample_weight=None):
        t0 = time.perf_counter()
        X = self._check_input(X, reset=True)
        if X.shape[0] < 2:
            raise ValueError("X has 1 sample (n_samples = 1); an SVM needs at least 2 samples, "
                             "one of each class")
        y_idx, classes = check_class_y(y, X.shape[0], warn=True)
        if classes.size == 2:
            check_binary_y(y, X.shape[0])    # two fractional values are a regression target
        self.classes_ = np.asarray(classes)
        data = TrainingData.build(X, y_idx, self.classes_, sample_weight, self.class_weight)
        self.class_weight_ = data.class_weight
        self._validate(params_checked=True)     # _validate_params ran in fit
        if data.n_classes == 2:
            self.shape_fit_ = data.shape
            return fit_bound_svm(self, data, BinaryMachine(self, data), t0)
        # one-vs-one: the pair problems are small and the parallelism is over the pairs
        # (n_jobs threads); pairs too small for threads to pay run on one (pair_threads)
        with worker_cap(pair_threads(data.X, data.y_idx, data.n_classes)):
            if self.multiclass_theta == "per-pair":
                fit_per_pair(self, data.X_full, data.y_idx, data.weights)
            else:
                fit_bound_svm(self, data, OneVsOneMachine(self, data), t0)
        if data.kept is not None:   # rows of the X given to fit
            self.support_ = data.kept[self.support_].astype(np.int32)
            for m in self.pair_models_:
                m.support = data.kept[m.support]
        self.shape_fit_ = data.shape
        self.n_iter_ = int(self.search_.nfev)
        self.fit_time_ = time.perf_counter() - t0
        return self

    #: What a fit sets besides ``search_``: forgotten when a fit is interrupted, so that an
    #: earlier fit's model is not taken for this one's.
    _FITTED = ("dual_coef_", "intercept_", "support_", "support_vectors_", "n_support_",
               "alpha_", "solution_", "kernel_", "pair_models_", "pair_estimators_",
               "best_params_", "best_theta_", "best_value_", "c_projected_", "n_trainings_",
               "n_iter_", "fit_time_", "probA_", "probB_", "criterion_name_", "shape_fit_",
               "feature_scales_")

    # -- prediction ----------------------------------------------------------------------
    def decision_function(self, X):
        """f(x) = Σ α_i y_i K(x_i, x) + b; positive values predict ``classes_[1]``. Three or
        more classes: see ``decision_function_shape`` (``svmbound.multiclass``)."""
        check_is_fitted(self, "dual_coef_")
        if len(self.classes_) > 2:
            return ovo_decision_function(self, X)
        X = self._check_input(X, reset=False)
        if self.support_.size == 0:
            return np.full(X.shape[0], self.intercept_[0])
        return (self.kernel_.block_dot(X, self.support_vectors_, self.dual_coef_[0])
                + self.intercept_[0])

    def predict(self, X):
        """``classes_[1]`` where the decision function is positive, else ``classes_[0]``; with
        three or more classes the one-vs-one vote, or with ``break_ties`` the class of the
        largest one-vs-rest decision value (``NotFittedError`` before ``fit``)."""
        check_is_fitted(self, "dual_coef_")
        if self.break_ties and self.decision_function_shape == "ovo":
            raise ValueError("break_ties must be False when decision_function_shape is 'ovo'")
        if len(self.classes_) > 2:
            if self.break_ties:
                return self.classes_[np.argmax(self.decision_function(X), axis=1)]
            return ovo_predict(self, X)   # one-vs-one voting
        return self.classes_[(self.decision_function(X) > 0).astype(int)]

    def _check_proba(self):
        if not self.probability:
            raise AttributeError("predict_proba is not available when probability=False")
        return True

    @available_if(_check_proba)
    def predict_proba(self, X):
        """(n, n_classes) class probabilities, columns in ``classes_`` order: Platt's sigmoid of
        the decision function (two classes), or of each pair's decision value coupled by Wu,
        Lin & Weng's method 2 (three or more; ``svmbound.probability``), clipped to
        [1e-7, 1 − 1e-7] per machine as LIBSVM does. Needs ``probability=True`` at fit."""
        check_is_fitted(self, "dual_coef_")
        if not hasattr(self, "probA_"):
            raise NotFittedError("predict_proba is not available when fitted with "
                                 "probability=False")
        if len(self.classes_) > 2:
            return ovo_predict_proba(self, X)
        p1 = np.clip(sigmoid_predict(self.decision_function(X), self.probA_[0],
                                     -self.probB_[0]), MIN_PROB, 1.0 - MIN_PROB)   # SVC's B
        return np.column_stack([1.0 - p1, p1])

    @available_if(_check_proba)
    def predict_log_proba(self, X):
        """The log of :meth:`predict_proba`."""
        return np.log(self.predict_proba(X))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True     # accepted, and made dense (``check_X``)
        return tags

    # -- criterion parameters, export ------------------------------------------------------
    def to_svc(self):
        """A fitted ``sklearn.svm.SVC`` with this model — nothing is retrained, so ``predict``
        is identical and ``decision_function`` equal up to rounding (``svmbound.export``):
        the tuned C and kernel parameters (rbf: gamma = 1/(2σ²); poly: gamma = 1, coef0 = c,
        degree = d), the same support vectors, coefficients, intercept and ``class_weight``.
        Either loss: the L2-SVM's decision function has the same form (its α may exceed C;
        ``clone(svc).fit`` trains an L1-SVM). ARD kernels give a ``Pipeline`` of a per-feature
        scaler (x_k/σ_k) and the SVC. With ``probability=True`` the SVC carries the sigmoids
        (scikit-learn couples even two classes by Wu, Lin & Weng's iteration: its binary
        probabilities agree with ours to about 0.005). Three or more classes need one kernel
        for all pairs (multiclass_theta='shared'). A model fitted on sparse X gives the SVC
        that ``SVC.fit`` makes from sparse X (CSR support vectors, never densified). The SVC
        has this estimator's ``decision_function_shape`` and ``break_ties``."""
        return export_to_svc(model_of(self, first=0), self.classes_, tol=self._final_tol(),
                             decision_function_shape=self.decision_function_shape,
                             break_ties=self.break_ties)

    def save_libsvm_model(self, path, range_path=None, zero_based=False):
        """Write this model in LIBSVM's text format (``svm_load_model`` / ``svm-predict`` read
        it). The first label is ``classes_[1]``, so LIBSVM's decision values equal
        ``decision_function``; with three or more classes the labels are ``classes_`` in order
        and LIBSVM's decision values are those of decision_function_shape='ovo'. Needs integer
        class labels; the same export rules as ``to_svc``. With ``probability=True`` the file
        carries ``probA``/``probB`` (``svm-predict -b 1`` gives :meth:`predict_proba`). An ARD
        model is written on the scaled features x_k/σ_k, with svm-scale's range file beside it
        (``range_path``, default ``<path>.range``: ``svm-scale -r`` it before ``svm-predict``).
        The format is sparse: each support vector line lists its non-zeros, column j as feature
        j + 1 (LIBSVM's numbering), or as feature j with ``zero_based=True`` (a model for data
        numbered from 0, e.g. written by ``dump_svmlight_file``; its range file too)."""
        write_libsvm_model(model_of(self, first=1), path, range_path=range_path,
                           base=feature_base(zero_based))
        return self
