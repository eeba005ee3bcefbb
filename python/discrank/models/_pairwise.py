"""The stationary pair models' base, :class:`PairwiseModel`, over :class:`~discrank.PairwiseData`.

Its fit runs ``validate -> plan -> fit data -> _fit(fit_data, plan) -> store``: the parameters and the data
checked, the fit data built once (:func:`discrank.solvers._fitdata.build_fit_data`), the subclass's solver
run, the fitted attributes checked finite. Its predictions and scores come from
:class:`~discrank.models._pair_predictions.PairPredictions`.
"""

from __future__ import annotations

import copy
import warnings
from typing import Any, Callable, Optional

import numpy as np

from discrank.solvers._fitdata import FitData, FitPlan, build_fit_data
from discrank._util.labels import show
from discrank._util.params import check_param
from discrank._util.threads import one_blas_thread, resolve_n_jobs
from discrank.data.pairs import PairwiseData, check_data
from discrank._util.exceptions import NumericalError, UnusedColumnWarning
from discrank.models._base import Model, atomic, unused_columns
from discrank.models._pair_predictions import PairPredictions
from discrank.models._table import refuse_table

__all__ = ["PairwiseModel", "fit_pairs"]


class PairwiseModel(PairPredictions, Model):
    """The stationary pair models' base (:class:`Model`) over :class:`~discrank.PairwiseData`.

    A subclass implements ``_fit`` (the solver, on a :class:`~discrank.solvers._fitdata.FitData`) and
    ``_factors``, declares its fitted fields as :class:`Model` says, and writes:

    - :meth:`_rebuild`: the state derived from those attributes, computed again after loading;
    - :meth:`_sort_key`: the values its players are ranked by, and :meth:`_elo_scale`: the logit-scale
      ratings ``ratings_frame`` shows on the familiar Elo scale.
    """

    _loss: str = "bce"
    _fitted_json = ("prior_tuning_",)
    #: Whether the fit data puts the pairs in tile order (``discrank.solvers._fitdata.in_tile_order``): for the fits
    #: that evaluate the objective hundreds of times.
    _tile_pairs: bool = False
    #: Whether the model has a Gaussian prior whose scale ``prior_scale=None`` tunes (``discrank.solvers._tuning``).
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
        discrank._util.exceptions.NumericalError
            The solver ended on non-finite parameters.

        Warns
        -----
        discrank._util.exceptions.UnusedColumnWarning
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
            from discrank.solvers._tuning import check_validation

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
        start, :func:`discrank.solvers._tuning.tune_prior_scale`); sets ``prior_tuning_``."""
        self.prior_tuning_ = None
        if not self._has_prior:
            return FitPlan()
        sigma = check_param(type(self), "prior_scale", self.prior_scale)
        if sigma is not None:
            return FitPlan(scale=sigma)
        from discrank.solvers._tuning import tune_prior_scale

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
        """Raise :class:`~discrank._util.exceptions.NumericalError` when a fitted float array is not finite."""
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
        """What a fit at a nearby prior scale starts from (``discrank.solvers._tuning``); None: a cold start."""
        return None

    def _validate_params(self, data: PairwiseData) -> None:
        """Check the parameters by their rules (:data:`discrank._util.params.RULES`); fit resolves ``n_jobs``
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
        discrank._util.exceptions.NotFittedError
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
    its coding (:func:`discrank.solvers._tuning.code_log`) kept for a GameLog (or the pairs of all its games,
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
    from discrank.data.logs import GameLog
    from discrank.data.periods import PeriodGames

    log = coded = None
    if isinstance(data, GameLog):
        from discrank.solvers._tuning import code_log, log_pairs

        unused_columns(data, where)
        log, coded = data, code_log(data)
        data = log_pairs(log, coded)
    elif isinstance(data, PeriodGames):
        data = data.check().to_pairs()
    elif isinstance(data, PairwiseData) and getattr(data, "games_log", None) is not None:
        from discrank.solvers._tuning import code_log

        coded = code_log(data.games_log)  # the pairs of a log's every game (GameLog.to_pairs): its time order
        if np.array_equal(coded[0], data.labels):
            log = data.games_log
        else:
            coded = None
    check_data(data, where)
    return data, log, coded

