"""What every model shares: the model base (:class:`Model`: parameters and their validation, the fitted
check, the players, saving and loading from declared fields, the prediction protocol, the table), and the
stationary pair models' base (:class:`PairwiseModel`: the fit pipeline; their predictions and scores are
:class:`~discrank.models._pair_predictions.PairPredictions`).

A pair model's fit runs ``validate -> plan -> fit data -> _fit(fit_data, plan) -> store`` (:meth:`PairwiseModel.fit`): the parameters and the
data are checked, :func:`discrank._fitdata.build_fit_data` builds the objective, the weights, the pieces,
the pair order and the threads once, the subclass's ``_fit`` runs the solver and sets the fitted
attributes, and the fit checks they are finite. Each model class declares what it holds once fitted
(``_fitted_arrays``, ``_fitted_scalars``: :mod:`discrank.persist` saves and loads them without knowing
the class) and how its players are ordered (:meth:`PairwiseModel._sort_key`).
"""

from __future__ import annotations

import copy
import functools
import inspect
import warnings
from typing import Any, Callable, Optional

import numpy as np

from discrank import _core, persist
from discrank._fitdata import FitData, FitPlan, build_fit_data
from discrank._labels import LabelIndex, show
from discrank._losses import EPS as LOG_LOSS_EPS  # noqa: F401 - LOG_LOSS_EPS, as it was
from discrank._params import check_param
from discrank._threads import one_blas_thread, resolve_n_jobs, thread_limit
from discrank.data import PairwiseData, check_data
from discrank.exceptions import NotFittedError, NumericalError, UnusedColumnWarning
from discrank.models._pair_predictions import PairPredictions
from discrank.models._prediction import GamePredictions, code_players
from discrank.models._table import refuse_table, table_rows

__all__ = ["Model", "Params", "PairwiseModel", "elo_points", "fit_pairs", "LOSSES", "resolve_n_jobs", "one_blas_thread",
           "thread_limit"]

#: Loss names and their ids in the compiled core (cpp/include/discrank/losses.hpp).
LOSSES = {
    "bce": _core.LOSS_BCE,
    "squared_logit": _core.LOSS_SQUARED_LOGIT,
    "probability": _core.LOSS_PROBABILITY,
    "sigmoid_squared": _core.LOSS_SIGMOID_SQUARED,
}


def atomic(fit: Callable) -> Callable:
    """Make a ``fit`` method all or nothing: when it raises or is interrupted (Ctrl-C), the estimator is
    left as it was before the call, unfitted or with its previous fit whole (the fitted attributes are
    new arrays, never written in place, so the previous ones are kept by reference)."""

    @functools.wraps(fit)
    def wrapper(self, *args, **kwargs):
        before = dict(self.__dict__)
        try:
            return fit(self, *args, **kwargs)
        except BaseException:
            self.__dict__.clear()
            self.__dict__.update(before)
            raise

    return wrapper


class Params:
    """scikit-learn's parameter contract from the constructor's signature: ``get_params``,
    ``set_params`` and the ``repr`` (shared by the pair models, OnlineElo and DynamicElo)."""

    @classmethod
    def _param_names(cls) -> list[str]:
        sig = inspect.signature(cls.__init__)
        return [p.name for p in sig.parameters.values() if p.name != "self" and p.kind != p.VAR_KEYWORD]

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """The constructor's parameters (scikit-learn's contract; ``sklearn.base.clone`` works).

        Parameters
        ----------
        deep : bool, optional
            Ignored: no parameter is an estimator.

        Returns
        -------
        dict
            Each parameter's name and value.
        """
        return {name: getattr(self, name) for name in self._param_names()}

    def set_params(self, **params: Any) -> "Params":
        """Set parameters by name; checked by the next ``fit``.

        Parameters
        ----------
        **params
            Parameters of the constructor.

        Returns
        -------
        object
            ``self``.

        Raises
        ------
        ValueError
            A name that is not a parameter of the model.
        """
        valid = self._param_names()
        for name, value in params.items():
            if name not in valid:
                raise ValueError(f"invalid parameter {name!r} for {type(self).__name__}; valid: {valid}")
            setattr(self, name, value)
        return self

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({args})"

    # ---------------------------------------------------------------- draws
    #: The draw models the class fits: the values its ``draws`` parameter takes besides None (among
    #: ``discrank._draws.DRAWS``). Empty: two outcomes only. The CLI and the docs read it.
    draw_models: tuple = ()


class Model(Params, GamePredictions):
    """The base of every estimator: what each model does the same way, written once.

    - the parameter contract (:class:`Params`) and the parameters' checks by the rules of
      :mod:`discrank._params` (:meth:`_check_params`), the rules :mod:`discrank.persist` checks a file by;
    - the fitted check: a model used before ``fit`` raises :class:`~discrank.exceptions.NotFittedError`
      (``__sklearn_is_fitted__`` tells scikit-learn);
    - the players: ``labels_``, the lookup from labels to codes, :meth:`relabel`;
    - saving and loading from declared fields: ``_fitted_arrays`` (:class:`discrank.persist.FittedArray`,
      an attribute or a field of a fitted dataclass such as ``"games_.a"``), ``_fitted_scalars``,
      ``_choices`` (the allowed values of the parameters and scalars that take one of a few strings) and
      ``_optional_params``; a public class that declares ``_fitted_arrays`` is registered with
      :mod:`discrank.persist` when it is defined, and :meth:`_rebuild` derives (and checks) the rest of
      the state after loading;
    - the prediction protocol (:class:`~discrank.models._prediction.GamePredictions`:
      ``predict_games``, ``predict_outcomes``; a player not seen is an
      :class:`~discrank.exceptions.UnknownPlayerError` unless ``unseen="prior"``);
    - the table of ``ratings_frame`` (:meth:`_frame`): ``player``, ``rank``, ``games``, ``elo`` (on the
      familiar scale, :func:`elo_points`) and the model's columns, best first.
    """

    #: The advantage coefficients and their columns' names: none until a fit with covariates sets them.
    beta_: Optional[np.ndarray] = None
    advantage_names_: tuple = ()
    #: The fitted arrays a model file holds (``discrank.persist``); empty: the model is not saved itself.
    _fitted_arrays: tuple = ()
    #: The fitted scalars a model file holds, by name (``discrank.persist`` checks each by its rule).
    _fitted_scalars: tuple = ()
    #: The fitted dataclasses whose fields are fitted arrays (``"games_.a"``), by attribute.
    _fitted_records: dict = {}
    #: The allowed values of the parameters and fitted scalars that take one of a few strings.
    _choices: dict = {}
    #: Parameters for which None is allowed beside their rule (None: a default resolved by the fit).
    _optional_params: tuple = ()
    #: Fitted attributes a model file holds that the model derives again on loading instead (the
    #: covariates' standard errors of a model that computes them from its state).
    _derived_on_load: tuple = ()
    #: Fitted records (dicts) a model file holds as JSON (:mod:`discrank.persist`): the tuning's.
    _fitted_json: tuple = ()
    #: The capabilities of the rating-model protocol (:class:`discrank.protocol.RatingModel`), which
    #: ``discrank.evaluate`` reads: ratings moved after every game, updates that batch, an ``update``
    #: that continues the fit (else a refit of :meth:`refit_copy`), advantage covariates fitted.
    sequential_updates: bool = False
    batch_updates: bool = False
    updates: bool = False
    takes_advantage: bool = True
    #: Whether ``fit`` uses a log's contexts (:attr:`discrank.GameLog.context`): DynamicElo's context effects.
    takes_context: bool = False
    #: Whether ``fit`` uses a log's margins (:attr:`discrank.GameLog.margin`): DynamicElo's margin likelihood.
    takes_margin: bool = False
    #: Whether ``fit`` uses a log's match formats (:attr:`discrank.GameLog.match_format`: "bo3", "bo5").
    takes_format: bool = False
    #: What :func:`discrank.dask.fit` spreads over the workers: ``"pairs"`` (the pair models' pipeline,
    #: ``_fit_pairs``, given the fit data's builder), ``"rows"`` (the whole-history rows, ``_fit_log``
    #: given ``rows_of``), or None: a fit of its own, in process.
    distributed_parts: Optional[str] = None

    def refit_copy(self) -> "Model":
        """A fresh copy of this fitted model to refit on more games with no tuning: its parameters, with a
        ``prior_scale`` of None set to the tuned ``prior_scale_`` (the online protocol's refits).

        Returns
        -------
        Model
            Unfitted.
        """
        params = self.get_params()
        if params.get("prior_scale", 0.0) is None and getattr(self, "prior_scale_", None) is not None:
            params["prior_scale"] = float(self.prior_scale_)
        return type(self)(**params)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Register a public model class that declares its fitted arrays with :mod:`discrank.persist`."""
        super().__init_subclass__(**kwargs)
        if cls._fitted_arrays and not cls.__name__.startswith("_"):
            persist.register(cls)

    def _check_params(self, names: Optional[tuple] = None) -> None:
        """Check the parameters ``names`` (default: every parameter) by their rules: one of the class's
        ``_choices`` (or None, for ``_optional_params``), else the rule of :mod:`discrank._params`; a
        ValueError or TypeError names the parameter and the value."""
        for name in self._param_names() if names is None else names:
            value = getattr(self, name)
            if name in self._choices:
                if value is None and name in self._optional_params:
                    continue
                if not isinstance(value, str) or value not in self._choices[name]:
                    none = " or None" if name in self._optional_params else ""
                    raise ValueError(f"{name}={value!r} is not one of {tuple(self._choices[name])}{none}")
            else:
                check_param(type(self), name, value)

    # ------------------------------------------------------------------ the fitted state
    def __sklearn_is_fitted__(self) -> bool:
        """Whether ``fit`` has run (``sklearn.utils.validation.check_is_fitted`` asks this)."""
        return hasattr(self, "labels_")

    def _check_fitted(self) -> None:
        """A :class:`~discrank.exceptions.NotFittedError` naming the class when ``fit`` has not run."""
        if not hasattr(self, "labels_"):
            raise NotFittedError(f"this {type(self).__name__} is not fitted yet: call fit(data) first")

    def _forget_labels(self) -> None:
        """Drop the label lookup, built again from ``labels_`` when next needed."""
        self._label_index = None

    def _label_lookup(self) -> LabelIndex:
        """The lookup from labels to player indices, built from ``labels_`` on first use."""
        if getattr(self, "_label_index", None) is None:
            self._label_index = LabelIndex(self.labels_)
        return self._label_index

    def _player_codes(self, a: Any, b: Any, unseen: str) -> tuple[np.ndarray, np.ndarray]:
        """The codes of the players ``a`` and ``b`` (:func:`code_players`): -1 for a player not seen with
        ``unseen="prior"``, else an :class:`~discrank.exceptions.UnknownPlayerError`."""
        self._check_fitted()
        return code_players(self._label_lookup(), a, b, unseen, type(self).__name__)

    def relabel(self, labels: np.ndarray) -> None:
        """Give a model fitted on player codes its players' labels (``discrank.evaluate`` fits on codes).

        Parameters
        ----------
        labels : ndarray
            ``labels[c]`` is the label of the player coded ``c``; ``labels_`` becomes ``labels[labels_]``.
        """
        self._check_fitted()
        self.labels_ = labels[np.asarray(self.labels_, dtype=np.int64)]
        self._forget_labels()

    # ------------------------------------------------------------------ saving and loading
    def save(self, path: Any) -> None:
        """Write the fitted model to an ``.npz`` file (``discrank.load`` reads it; no pickle).

        Parameters
        ----------
        path : str or path-like
            The file (numpy adds ``.npz`` when missing).

        Raises
        ------
        discrank.exceptions.NotFittedError
            The model is not fitted.
        TypeError
            A model whose class declares no fitted state to save.
        """
        persist.save(self, path)

    def _saved_model(self) -> "Model":
        """The model a file holds for this one (``discrank.persist.save``): itself."""
        return self

    def _load_state(self, labels: np.ndarray, fields: dict[str, Any], scalars: dict[str, Any],
                    advantage: tuple = ((), None, None)) -> None:
        """Set the fitted state read from a model file (``discrank.persist.load``), then :meth:`_rebuild`.

        Parameters
        ----------
        labels : ndarray
            The players.
        fields : dict
            The fitted arrays by their declared name (``_fitted_arrays``; a field of a fitted dataclass,
            ``"games_.a"``, goes into that dataclass of ``_fitted_records``; an optional one absent: None).
        scalars : dict
            The fitted scalars, checked against ``_fitted_scalars``.
        advantage : tuple, optional
            ``(names, beta, beta_se)`` of a model fitted with advantage covariates; default: none.
        """
        records: dict[str, dict] = {}
        for name, value in {**fields, **scalars}.items():
            owner, _, field = name.partition(".")
            if field:
                records.setdefault(owner, {})[field] = value
            else:
                setattr(self, name, value)
        for owner, values in records.items():
            setattr(self, owner, self._fitted_records[owner](**values))
        names, beta, se = advantage
        self.advantage_names_, self.beta_ = tuple(names), beta
        if "beta_se_" not in self._derived_on_load:
            self.beta_se_ = se
        self.labels_ = labels
        self._forget_labels()
        self._rebuild()

    def _rebuild(self) -> None:
        """Compute again what the fit derives from the fitted fields, checking them against each other (a
        ValueError names the field); none here."""

    # ------------------------------------------------------------------ the table
    def _frame(self, columns: dict[str, np.ndarray], key: Optional[np.ndarray], games: np.ndarray, *,
               elo: Optional[np.ndarray] = None, anchor: Any = None, anchor_rating: float = 1500.0,
               keep: Optional[np.ndarray] = None, min_games: Any = None, max_sd: Any = None, since: str = ""):
        """The table of ``ratings_frame``: ``player``, ``rank``, ``games``, ``elo`` and ``columns`` (in the
        players' order), one row per player (those of the mask ``keep``), sorted by ``key`` best first.

        Parameters
        ----------
        columns : dict
            The model's columns.
        key : ndarray or None
            The values the players are ranked by, higher first; None: no ranking (``rank`` NaN, unsorted).
        games : ndarray
            Each player's games.
        elo : ndarray, optional
            Logit-scale ratings shown as the ``elo`` column (:func:`elo_points`: ``anchor`` and
            ``anchor_rating``, the reference taken over every player); None: no such column.
        keep : ndarray of bool, optional
            The players ``active_since`` keeps (``since``: its value); default: every player.
        min_games, max_sd : optional
            Hide the players with fewer games, and the ratings of a larger standard deviation (the column ``sd``).

        Returns
        -------
        pandas.DataFrame
            The players shown (ranked among themselves), with the column ``provisional``
            (:mod:`discrank.models._table`'s rule); ``df.attrs["model"]`` the class name and ``df.attrs["note"]``
            the line that says how many players are hidden and marked.
        """
        try:
            import pandas as pd
        except ImportError as exc:  # pragma: no cover
            raise ImportError("ratings_frame needs pandas: pip install 'discrank[pandas]'") from exc
        if elo is not None:
            columns = {"elo": elo_points(elo, self._label_lookup(), anchor, anchor_rating), **columns}
        shown, provisional, note = table_rows(type(self).__name__, games, columns.get("sd"), keep, min_games, max_sd,
                                              since)
        frame = pd.DataFrame({"player": self.labels_, "games": games, **columns, "provisional": provisional})
        if not shown.all():
            frame, key = frame[shown], None if key is None else key[shown]
        if key is not None:
            frame = frame.iloc[np.argsort(-key, kind="stable")].reset_index(drop=True)
            frame.insert(1, "rank", np.arange(1, len(frame) + 1))
        else:
            frame = frame.reset_index(drop=True)
            frame.insert(1, "rank", np.full(len(frame), np.nan))
        frame.attrs["model"] = type(self).__name__
        frame.attrs["note"] = note
        return frame


class PairwiseModel(PairPredictions, Model):
    """The stationary pair models' base (:class:`Model`) over :class:`~discrank.PairwiseData`.

    The constructor only stores parameters; :meth:`fit` validates them and the data, and sets the fitted
    attributes, whose names end in ``_``.

    A subclass implements ``_fit`` (the solver, on a :class:`~discrank._fitdata.FitData`) and
    ``_factors``, declares its fitted fields as :class:`Model` says, and writes:

    - :meth:`_rebuild`: the state derived from those attributes, computed again after loading;
    - :meth:`_sort_key`: the values its players are ranked by, and :meth:`_elo_scale`: the logit-scale
      ratings ``ratings_frame`` shows on the familiar Elo scale.
    """

    _loss: str = "bce"
    _fitted_json = ("prior_tuning_",)
    #: Whether the fit data puts the pairs in tile order (``discrank._fitdata.in_tile_order``): for the fits
    #: that evaluate the objective hundreds of times, where the reordering (one counting sort, about two
    #: objective calls: bench/bench_kernel.py) pays.
    _tile_pairs: bool = False
    #: Whether the model has a Gaussian prior whose scale ``prior_scale=None`` tunes (``discrank._tuning``).
    _has_prior: bool = False
    #: ``fit`` is the pair pipeline (``_fit_pairs``), which :func:`discrank.dask.fit` runs over the pairs.
    distributed_parts = "pairs"
    #: Prior mean of the first component's v (the parameters of a player the fit has not seen).
    _first_v_centre: float = 0.0

    # ------------------------------------------------------------------ fitting
    @atomic
    def fit(self, data: Any, *, validation: Any = None) -> "PairwiseModel":
        """Fit the model: validate, build the fit data, run the solver, store the fitted attributes.

        Parameters
        ----------
        data : PairwiseData, GameLog or PeriodGames
            The observed pairs, or a game log (aggregated to pairs with ``GameLog.to_pairs``), or games by
            period (summed over the periods with ``PeriodGames.to_pairs``: a stationary model of every
            period). A game log with times lets ``prior_scale=None`` tune the prior on its own time order.
        validation : discrank.Validation, optional
            How the prior is tuned in time order (the share of the latest games held out, or a window and
            a gap); default: the latest 10% of the games. Ignored when the prior scale is given.

        Returns
        -------
        PairwiseModel
            ``self``.

        Raises
        ------
        TypeError, ValueError
            Invalid parameters or data (the message names the value).
        discrank.exceptions.NumericalError
            The solver ended on non-finite parameters.

        Warns
        -----
        discrank.exceptions.UnusedColumnWarning
            Once per column of a game log that the model does not fit, naming it: its context, margin and match
            format columns (only DynamicElo fits them), and its advantage columns for a model that takes none.

        Notes
        -----
        The fit is all or nothing (:func:`atomic`): when it raises, the model is left as it was.
        """
        return self._fit_pairs(data, validation)

    def _fit_pairs(self, data: Any, validation: Any = None,
                   fit_data_builder: Optional[Callable[..., FitData]] = None) -> "PairwiseModel":
        """:meth:`fit`'s pipeline. ``fit_data_builder(model, pairs, stacklevel)`` builds the :class:`FitData`
        of ``model``'s fit of ``pairs``, for the fit and the prior's tuning fits (default
        :meth:`_build_fit_data`): :func:`discrank.dask.fit` passes one whose objective runs on the workers.
        Warnings point at the caller of :meth:`fit`."""
        build = type(self)._build_fit_data if fit_data_builder is None else fit_data_builder
        data, log, coded = fit_pairs(data, f"{type(self).__name__}.fit")
        data = self._covariates_or_not(data)
        if validation is not None:
            from discrank._tuning import check_validation

            check_validation(validation)
        self._validate_params(data)
        plan = self._resolve_prior(data, log, validation, coded, fit_data_builder)
        self._check_loss_domain(data)
        return self._fit_prepared(build(self, data, stacklevel=4), plan)

    def _build_fit_data(self, data: PairwiseData, stacklevel: int = 2) -> FitData:
        """The :class:`FitData` of checked ``data`` for this model (its threads, tiling and covariates);
        ``stacklevel`` of the graph warnings counted from the caller, as in :func:`build_fit_data`."""
        return build_fit_data(data, resolve_n_jobs(self.n_jobs), self._tile_pairs, stacklevel=stacklevel + 1,
                              covariates=data.covariates is not None,
                              draws=getattr(self, "draws", None) is not None)

    def _fit_prepared(self, fit_data: FitData, plan: FitPlan) -> "PairwiseModel":
        """The fit on built fit data (parameters validated) run as ``plan`` says (its prior scale, a tuning
        fit's tolerance, a warm start): the solver and the fitted attributes. The prior's tuning fits every
        scale on one :class:`FitData` of its held-out split, each with its own plan."""
        self.beta_ = self.beta_se_ = None
        self.advantage_names_ = tuple(fit_data.covariate_names)
        self._set_players(fit_data.labels.copy(), fit_data.n_threads)
        self.n_games_ = fit_data.games_per_player()
        # scipy's L-BFGS-B calls a threaded BLAS on small matrices; its threads then spin against the
        # core's OpenMP threads (kernel calls measured 2x slower on 2 cores). One BLAS thread is enough.
        # One process-wide, reference-counted limit (one_blas_thread), so that fits in concurrent Python
        # threads (bootstrap's workers) leave the original counts behind.
        with one_blas_thread():
            self._fit(fit_data, plan)
        self._check_finite_state()
        return self

    @property
    def takes_advantage(self) -> bool:  # type: ignore[override]
        """Whether the model fits advantage covariates (the rating-model protocol's capability): the logit
        models (:meth:`_takes_covariates`)."""
        return self._takes_covariates()

    def _takes_covariates(self) -> bool:
        """Whether the model fits advantage covariates (``logit P = score + beta . x``): the logit-space
        models (Elo and Elo++, the disc decomposition with the binary cross-entropy)."""
        return False

    def _covariates_or_not(self, data: PairwiseData) -> PairwiseData:
        """``data``, or with covariates a model that does not take them: the pairs without (a warning
        names the columns ignored)."""
        if data.covariates is None or self._takes_covariates():
            return data
        names = data.covariates.names
        warnings.warn(f"{type(self).__name__}{'' if self._loss == 'bce' else '(loss=' + repr(self._loss) + ')'} takes "
                      f"no advantage covariates (only the logit models do: Elo, EloPlusPlus, DiscDecomposition with "
                      f"loss='bce', DynamicElo): it fits "
                      f"the pairs and ignores the column{'s' if len(names) != 1 else ''} "
                      f"{', '.join(map(repr, names))}", UnusedColumnWarning, stacklevel=5)
        out = copy.copy(data)
        out.covariates = None
        return out

    def _resolve_prior(self, data: PairwiseData, log: Any, validation: Any, coded: Any,
                       fit_data_builder: Optional[Callable[..., FitData]] = None) -> FitPlan:
        """The plan of the fit: its prior scale, tuned when ``prior_scale=None`` (with the tuning's warm
        start, :func:`discrank._tuning.tune_prior_scale`); sets ``prior_tuning_``."""
        self.prior_tuning_ = None
        if not self._has_prior:
            return FitPlan()
        sigma = check_param(type(self), "prior_scale", self.prior_scale)
        if sigma is not None:
            return FitPlan(scale=sigma)
        from discrank._tuning import tune_prior_scale

        plan, record = tune_prior_scale(self, data, log, validation, coded, fit_data_builder, stacklevel=5)
        self.prior_tuning_ = record.as_dict()
        return plan

    def _check_loss_domain(self, data: PairwiseData) -> None:
        """Refuse probabilities of 0 or 1 with ``loss="squared_logit"``, whose logit is infinite."""
        if self._loss != "squared_logit":
            return
        bad = (data.p <= 0.0) | (data.p >= 1.0)
        if bad.any():
            k = int(np.flatnonzero(bad)[0])
            raise ValueError(
                f"loss='squared_logit' needs probabilities strictly inside (0, 1), where logit is finite; "
                f"pair ({show(data.labels[data.i[k]])}, {show(data.labels[data.j[k]])}) has p = {show(data.p[k])}. "
                "Use loss='bce', which handles 0 and 1"
            )

    def _set_players(self, labels: np.ndarray, n_threads: int) -> None:
        """Store the fitted players (``labels_``, ``n_players_``) and the core's thread count."""
        self.labels_ = labels
        self.n_players_ = int(labels.shape[0])
        self._n_threads = n_threads
        self._forget_labels()

    def _check_finite_state(self) -> None:
        """Raise :class:`~discrank.exceptions.NumericalError` when a fitted float array is not finite."""
        for spec in self._fitted_arrays:
            if spec.kind != "f":
                continue
            value = getattr(self, spec.name, None)
            if value is None:
                continue
            finite = np.isfinite(value)
            if not finite.all():
                pos = np.unravel_index(int(np.flatnonzero(~finite.ravel())[0]), np.shape(value))
                raise NumericalError(
                    f"{type(self).__name__}.fit ended on a non-finite {spec.name}[{', '.join(map(str, pos))}] = "
                    f"{show(value[pos])}: the solver met an overflow; a finite prior_scale keeps the parameters bounded"
                )

    def _warm_state(self) -> Any:
        """What a fit at a nearby prior scale starts from (``discrank._tuning``); None: a cold start."""
        return None

    def _validate_params(self, data: PairwiseData) -> None:
        """Check the parameters by their rules (:data:`discrank._params.RULES`); fit resolves ``n_jobs``
        again, and warns there."""
        self._check_params(tuple(name for name in ("tol", "max_iter", "n_jobs", "random_state")
                                 if name in self._param_names()))

    def _fit(self, data: FitData, plan: FitPlan) -> None:
        """Run the solver on ``data`` as ``plan`` says and set the fitted attributes."""
        raise NotImplementedError

    def _factors(self) -> dict[str, np.ndarray]:
        """Keyword arguments of ``_core.scores`` (``U``, ``V`` and/or ``s``)."""
        raise NotImplementedError

    def __sklearn_tags__(self) -> Any:
        """scikit-learn's tags (scikit-learn >= 1.6 asks for them, in ``check_is_fitted`` among others).

        Returns
        -------
        sklearn.utils.Tags
            An estimator of no scikit-learn type, fitted on a ``PairwiseData`` (not an array), with no
            target, that must be fitted before use.

        Raises
        ------
        ImportError
            scikit-learn (>= 1.6) is not installed; only scikit-learn calls this.
        """
        from sklearn.utils import InputTags, Tags, TargetTags

        return Tags(estimator_type=None, target_tags=TargetTags(required=False), requires_fit=True,
                    no_validation=True, input_tags=InputTags(two_d_array=False))

    # ------------------------------------------------------------------ fitted state
    def _load_state(self, labels: np.ndarray, fields: dict[str, Any], scalars: dict[str, Any],
                    advantage: tuple = ((), None, None)) -> None:
        """:meth:`Model._load_state`, the players counted first (``n_players_``) for :meth:`_rebuild`."""
        self._set_players(labels, 0)
        super()._load_state(labels, fields, scalars, advantage)

    def _sort_key(self) -> Optional[np.ndarray]:
        """The values the players are ranked by, higher first; None: the model has no ranking."""
        return None

    def _elo_scale(self) -> Optional[np.ndarray]:
        """Logit-scale ratings ``ratings_frame`` shows as its ``elo`` column; None: no such column."""
        return None

    def _rating_columns(self) -> dict[str, np.ndarray]:
        """Model-specific columns of ``ratings_frame``, in the players' order."""
        raise NotImplementedError

    def _verdict(self) -> str:
        """One line on the structure of the fitted game (``discrank info``, ``discrank fit``)."""
        return "Elo model: transitive by construction"

    # ------------------------------------------------------------------ output
    def ratings_frame(self, *, min_games: Any = None, max_sd: Any = None, active_since: Any = None, context: Any = None,
                      anchor: Any = None, anchor_rating: float = 1500.0):
        """A pandas DataFrame, one row per player, best first.

        Columns: ``player`` (label), ``rank``, ``games`` (games played, or pairs without game counts),
        then the model's: for Elo ``rating`` (natural-log units, the model's) and ``elo`` (the familiar
        scale: ``anchor_rating + 400 / ln 10 * (rating - reference)``, the reference being the mean
        rating or, with ``anchor=label``, that player's); for disc models ``strength`` and
        ``consistency`` (Proposition 2, when the first component is transitive; ``elo`` from the
        strength), and ``u_1 .. u_k``, ``v_1 .. v_k``; for m-Elo its ``rating`` (the mean score minus
        1/2) and the disc columns. ``df.attrs`` holds the model name and, for disc models, the
        transitivity summary (Theorem 2, Proposition 1).

        Parameters
        ----------
        min_games : int, optional
            Hide the players with fewer games (a model fitted on pairs without game counts refuses it).
        max_sd : float, optional
            Refused: a pair model's ratings have no standard deviation.
        active_since, context : optional
            Refused: a pair model keeps no times of the games, and takes no contexts.
        anchor : label, optional
            The player whose ``elo`` is ``anchor_rating``; default: the mean rating is.
        anchor_rating : float, optional
            The ``elo`` of the reference.

        Returns
        -------
        pandas.DataFrame
            Sorted by the model's ranking (:meth:`_sort_key`), ``rank`` 1 first; unsorted with ``rank``
            NaN for a model without one (a cyclic disc component). The column ``provisional`` marks the players
            with fewer than 10 games, and ``df.attrs["note"]`` says how many are hidden and marked
            (:mod:`discrank.models._table`).

        Raises
        ------
        discrank.exceptions.NotFittedError
            The model is not fitted.
        ValueError
            ``anchor`` is not a player of the fit; an option the model cannot use, or out of range (named).
        """
        self._check_fitted()
        refuse_table(self, active_since, context)
        games = getattr(self, "n_games_", np.full(self.n_players_, np.nan))
        return self._frame(self._rating_columns(), self._sort_key(), games, elo=self._elo_scale(), anchor=anchor,
                           anchor_rating=anchor_rating, min_games=min_games, max_sd=max_sd)


def fit_pairs(data: Any, where: str) -> tuple[PairwiseData, Any, Any]:
    """The pairs a pair model fits, from what its ``fit`` was given: ``(pairs, log, coded)``, the log and
    its coding (:func:`discrank._tuning.code_log`) kept for a GameLog (or the pairs of all its games,
    ``PairwiseData.games_log``), whose time order tunes the prior.

    Parameters
    ----------
    data : PairwiseData, GameLog or PeriodGames
        A GameLog is aggregated to pairs; PeriodGames are summed over their periods (checked first).
    where : str
        The method named in the error (``"Elo.fit"``).

    Returns
    -------
    tuple
        The pairs, and the GameLog and its coding (None for other data).
    """
    from discrank.logs import GameLog
    from discrank.periods import PeriodGames

    log = coded = None
    if isinstance(data, GameLog):
        from discrank._tuning import code_log, log_pairs

        unused_columns(data, where)
        log, coded = data, code_log(data)
        data = log_pairs(log, coded)
    elif isinstance(data, PeriodGames):
        data = data.check().to_pairs()
    elif isinstance(data, PairwiseData) and getattr(data, "games_log", None) is not None:
        from discrank._tuning import code_log

        coded = code_log(data.games_log)  # the pairs of a log's every game (GameLog.to_pairs): its time order
        if np.array_equal(coded[0], data.labels):
            log = data.games_log
        else:
            coded = None
    check_data(data, where)
    return data, log, coded


def elo_points(ratings: np.ndarray, lookup: LabelIndex, anchor: Any, anchor_rating: float) -> np.ndarray:
    """Ratings in logits on the familiar Elo scale: ``anchor_rating + 400 / ln 10 * (rating - reference)``,
    the reference being the mean rating or, with ``anchor=label``, that player's (``lookup`` codes it)."""
    ref = float(np.mean(ratings)) if anchor is None else float(ratings[lookup.index([anchor], "anchor")[0]])
    return anchor_rating + 400.0 / np.log(10.0) * (ratings - ref)


#: The columns of a game log that only DynamicElo fits: (attribute, what a model that takes none does with it,
#: what DynamicElo makes of it).
_DYNAMIC_COLUMNS = (
    ("context", "takes no contexts and ignores the log's context column (its ratings hold across contexts)",
     "a player-by-context effect (context_scale)"),
    ("margin", "takes no margins and ignores the log's margin columns (it fits the results alone)",
     "a margin likelihood (margin_scale)"),
    ("match_format", "takes no match formats and ignores the log's match_format column (its ratings hold across "
     "formats)", "each format's scale of the logit"),
)


def unused_columns(log: Any, where: str, model: Optional[str] = None) -> None:
    """An :class:`~discrank.exceptions.UnusedColumnWarning` for each column of ``log`` that ``where``
    (``"Elo.fit"``), a model that takes none (``takes_context``, ``takes_margin``, ``takes_format`` False),
    ignores: a context column (it fits the games over every context), margin columns (it fits the games' results
    alone), a match format column (it fits the games over every format). ``model``: the model's name in the
    message (default: ``where`` up to its first dot)."""
    from discrank._screen import warn_user

    model = where.split(".")[0] if model is None else model
    for attr, ignored, fitted in _DYNAMIC_COLUMNS:
        if getattr(log, attr, None) is not None:
            warn_user(f"{where}: {model} {ignored}; DynamicElo fits {fitted}", UnusedColumnWarning)
