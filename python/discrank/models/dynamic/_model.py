"""Ratings that move with time: :class:`DynamicElo`, the whole-history MAP of a Gaussian random walk per player.

The model of Glicko, Whole-History Rating (Coulom 2008) and TrueSkill Through Time, fitted exactly: each
rating follows ``r_{p,t'} - r_{p,t} ~ N(0, drift^2 (t' - t))`` (``t`` in periods) from ``r_{p,first} ~ N(0,
prior_scale^2)``; a game at time ``t`` gives ``logit P(a beats b) = d = r_{a,t} - r_{b,t} + beta . x`` (advantage
covariates ``x``), or with ``draws="davidson"`` ``P(a wins) : P(draw) : P(b wins) = e^{d/2} : nu : e^{-d/2}``
(``nu = e^eta``). Every player-period's rating, ``beta`` (the weak prior of
:data:`discrank.data._advantage.BETA_PRIOR_SCALE`) and ``eta`` are the MAP of the whole log, found by Newton's
method (:mod:`discrank.solvers._history`). With ``period=None`` the model is stationary: the paper's Eq. (1)
with a Gaussian prior, advantage covariates and draws.
"""

from __future__ import annotations

import math
import warnings
from typing import Any, Optional

import numpy as np

from discrank.solvers._draws import DRAWS
from discrank._util.params import FINITE_PRIOR_SCALE
from discrank._util.progress import speaking
from discrank._util.threads import one_blas_thread, resolve_n_jobs
from discrank._util.exceptions import ConvergenceWarning, NumericalError
from discrank.models._base import Model, stores_params
from discrank.models.dynamic._context import CONTEXTS
from discrank.models.dynamic._disc import DISC, DynamicDisc
from discrank.models.dynamic._draws import PROPENSITIES
from discrank.models.dynamic._formats import FORMATS
from discrank.models.dynamic._margin import MARGINS
from discrank.models.dynamic._covariates import COVARIATES
from discrank.models.dynamic._state import DynamicReadout, Games, check_draws, time_ordered
from discrank.models.dynamic._update import DynamicUpdates
from discrank.models.dynamic._tuning import (DRIFT_GRID, ORIGIN_GAMES, ORIGINS, PRIOR_GRID, TUNE_TOL,  # noqa: F401
                                             VARIANCE_GRID, DynamicTuning)
from discrank.models._timed import TimedRatings, last_seen
from discrank.persist.model_file import FittedArray
from discrank.data.periods import PeriodGames
from discrank._util.calendar import check_span, period_index
from discrank.solvers._history import build_history, carry, chain_variances, chains, covariance_at, solve_history

__all__ = ["DynamicElo", "DRIFT_GRID", "PRIOR_GRID", "VARIANCE_GRID", "PARTS"]

#: The model's features (:mod:`discrank.models.dynamic._part`), in the order of their forecast terms and tuning's walks;
#: the block after the ratings holds the context effects, the disc components and the draw propensities, in this order.
PARTS = (COVARIATES, MARGINS, CONTEXTS, DISC, PROPENSITIES, FORMATS)


class DynamicElo(DynamicTuning, DynamicUpdates, DynamicDisc, DynamicReadout, TimedRatings, Model):
    """Whole-history dynamic ratings, advantage covariates and draws, fitted as one exact MAP.

    Parameters
    ----------
    period : {"day", "week", "month", "year"}, float or None, default "week"
        The time step of the random walk: calendar periods for datetime times, a bin width for numeric
        times (a game at ``t`` falls in period ``floor(t / period)``). None: no walk, one rating per
        player (stationary Elo with covariates and draws).
    drift : float, optional
        Standard deviation of a rating's change over one period, in logits. None (default): chosen on
        the training log (see ``fit``).
    prior_scale : float, optional
        Standard deviation of a player's first rating (the prior N(0, prior_scale^2)), finite: the prior alone
        pins the common level of every rating. None (default): chosen with the drift.
    variance_scale : float, optional
        Multiplier of the predictive variance ``v`` (the two ratings' Laplace variances, grown by the drift
        since each player's last period) in a forecast's probit approximation, ``sigmoid(d / sqrt(1 +
        variance_scale pi v / 8))``; it does not change the fit. None (default): chosen on the training log
        (``fit``), at the drift and prior given or tuned (give it too for a fit with no tuning).
    draws : {"davidson", "rao-kupper"} or None, default None
        None: a draw counts as half a win. "davidson": ``P(draw) = nu / (e^{d/2} + e^{-d/2} + nu)``, ``nu``
        fitted with the ratings. "rao-kupper": the ordered logit ``P(a wins) = sigmoid(d - kappa)``, ``P(b wins)
        = sigmoid(-d - kappa)``, the threshold ``kappa > 0`` fitted with the ratings. Either needs draws in the
        log; both keep the problem convex.
    tol : float, default 1e-9
        Newton stops when the largest gradient entry is below ``tol`` times the largest at the start (and at
        least ``tol``); a fit started from the tuning's measures the start by the ratings' entries alone.
    update_tol : float, default 1e-5
        The same rule for the refits of :meth:`update` (the ratings' entries). The tuning's fits stop at
        :data:`TUNE_TOL`.
    max_iter : int, default 100
        Newton steps at most.
    n_jobs : int, optional
        Threads of the core's pair kernel, scikit-learn's meaning (None: OpenMP's default). The result
        does not depend on it beyond rounding (the kernel's sums are in a fixed order).
    verbose : bool, int or None, default None
        ``fit``'s progress on stderr (:func:`discrank.progress`): 1 or True, each tuning candidate, the choice
        and the final fit; 2, also each Newton step; 0, none of its own. None: 1 where a person watches (stderr
        a terminal, or a notebook), else 0. Saved in model files, as ``n_jobs``.
    tuning_budget : int, optional
        The most (drift, prior scale) candidates the tuning scores (a candidate's variance scales count as
        one); past it the best scored is kept and ``tuning_["budget_reached"]`` is True. None (default): no
        limit. Saved in model files, as ``n_jobs``.
    context_scale : float, optional
        With a log that has a context column (:attr:`discrank.GameLog.context`), the standard deviation of
        each player's Gaussian effect in each context around the rating (``logit P(a beats b) = r_a + e_{a,c}
        - r_b - e_{b,c} + beta . x``, :mod:`discrank.models.dynamic._context`). None (default): chosen on the
        training log; 0: contexts unused. A log without contexts takes None or 0.
    margin_scale : float, optional
        With a log that has margins (:attr:`discrank.GameLog.margin`), the logit scale of a sub-contest, won by
        ``a`` with probability ``sigmoid(margin_scale d)`` (a likelihood added to the result's). None
        (default): chosen on the training log; 0: margins unused.
    disc_components : int, default 0
        Components of the paper's disc game added to each game's logit (``sum_j u_{a,j} v_{b,j} - v_{a,j}
        u_{b,j}``, one ``(u, v)`` per player and component, held over the history while the rating moves:
        :mod:`discrank.models.dynamic._disc`); 0: none.
    disc_scale : float, optional
        The prior's standard deviation of each ``u`` and ``v``; None (default): chosen on the training log (with
        ``disc_components`` 0 a scale is refused: it would go unused).
    draw_propensity_scale : float, optional
        With ``draws="davidson"``, the prior's standard deviation of each player's draw propensity, added to the
        draw parameter of their games (``eta + delta_a + delta_b``, :mod:`discrank.models.dynamic._draws`). None
        (default): chosen on the training log with Davidson's draws (none with another draw model or without
        draws); 0: none.
    format_scales : dict or 0, optional
        With a log that has a match format column (:attr:`discrank.GameLog.match_format`), each format's scale of
        the logit (:mod:`discrank.models.dynamic._formats`). None (default): the most common format's 1, each
        other's chosen on the training log; a dict: the scale of each format by label; 0: formats unused.

    Attributes
    ----------
    labels_ : ndarray
        The players.
    drift_, prior_scale_, variance_scale_ : float
        The values used.
    beta_, beta_se_ : ndarray, shape (n_covariates,)
        The advantage coefficients (logits) and their standard errors (the Laplace approximation: the
        inverse of the Schur complement of the ratings in the Hessian).
    advantage_names_ : tuple of str
        The covariates' names.
    draw_nu_, draw_threshold_, draw_eta_se_ : float or None
        Davidson's ``nu``, Rao and Kupper's ``kappa``, and the standard error of the fitted draw
        parameter (``eta = log nu``, or ``kappa``); None where not fitted.
    converged_ : bool
        False (with a ConvergenceWarning naming the gradient) when ``max_iter`` Newton steps stopped the fit.
    n_iter_ : int
    gradient_ : float
        The final largest gradient entry relative to the start's.
    tuning_ : dict or None
        What the tuning did, when something was tuned (None for a model read from a file): ``"scores"``,
        each (drift, prior) candidate's validation log loss; ``"variance_scales"``, its best variance
        scale; ``"scanned"``, the values each search scored; ``"bounds"``, the first and last values each
        search may reach; ``"edge_gain"``, the validation log loss per game that each step past a grid's
        edge had to gain; ``"at_bound"``, the values chosen at a bound (each warned about); ``"budget"``, the
        ``tuning_budget``, ``"budget_reached"``, whether the walk stopped at it, ``"raced"``: those raced out (``fit``).
    games_ : Games
        The games fitted, in time order (:class:`discrank.models.dynamic._state.Games`: the players'
        codes, scores, periods, times, covariates and counts).
    pp_player_, pp_bin_, pp_rating_, pp_sd_, pp_games_ : ndarray
        Each player-period's player code, period, rating, standard deviation and games.
    theta_tail_ : ndarray
        The global parameters after the ratings: the covariates' coefficients, then the draw parameter.
    context_labels_, context_scale_ : ndarray or None, float or None
        The contexts of the fitted games and the context scale used (None: fitted without contexts).
    context_effects_, context_sd_ : ndarray, shape (n_players, n_contexts), or None
        Each player's effect in each context (logits) and its standard deviation (Laplace, the others held).
    margin_scale_ : float or None
        The margin scale used (None: fitted on the results alone).
    disc_u_, disc_v_ : ndarray, shape (n_players, disc_components), or None
        Each player's disc components (``cyclic_logits()``: the disc game between every two players), and
        ``disc_scale_`` the scale used (None without components).
    draw_propensity_, draw_propensity_sd_ : ndarray, shape (n_players,), or None
        Each player's draw propensity (in ``log nu``) and its standard deviation (Laplace, the others held), and
        ``draw_propensity_scale_`` the scale used (None without propensities).
    format_labels_, format_scales_ : ndarray, shape (n_formats,), or None
        The fitted match formats, the most common first, and each one's scale of the logit (None without).

    Notes
    -----
    ``save`` writes the model with the games it was fitted on (``discrank.load`` reads it back, and
    :meth:`update` goes on from it): the coded games, their periods, times, covariates, contexts, margins and
    match formats, the fitted ratings of every player-period, and the fitted features (context effects, disc
    components, draw propensities, format scales: each part's fields, :mod:`discrank.models.dynamic._part`).
    ``beta_se_`` and ``draw_eta_se_`` are derived again from the games on loading.
    """

    #: What a model file holds (:mod:`discrank.persist.model_file`): the games in time order ("g" of them; codes into
    #: ``labels_``, scores, periods, times as numbers or datetimes, covariates), the ratings of the
    #: player-periods ("q") and the global parameters after them (beta, then the draw parameter).
    _fitted_arrays = (
        FittedArray("games_a_", ("g",), kind="i", nonnegative="player code", attr="games_.a"),
        FittedArray("games_b_", ("g",), kind="i", nonnegative="player code", attr="games_.b"),
        FittedArray("games_score_", ("g",), bound=1.0, bound_text="outside [0, 1] (a score)", attr="games_.score"),
        FittedArray("games_bin_", ("g",), kind="i", attr="games_.bins"),
        FittedArray("games_time_", ("g",), kind="t", required=False, bound=None, attr="games_.time", ints="games_time_int_"),
        FittedArray("games_count_", ("g",), required=False, bound=None, nonnegative="game count", attr="games_.count"),
        FittedArray("pp_rating_", ("q",)), FittedArray("pp_sd_", ("q",), nonnegative="standard deviation"),
        FittedArray("theta_tail_", ("e",)),
    ) + tuple(array for part in PARTS for array in part.arrays)  # the features' (each part's)
    #: The label sets a model file holds besides the players (:mod:`discrank.persist.model_file`), and their sizes'
    #: symbols.
    _fitted_labels = {name: size for part in PARTS for name, size in part.label_sets.items()}
    _fitted_records = {"games_": Games}
    _derived_on_load = ("beta_se_",)
    _fitted_json = ("tuning_",)
    _fitted_scalars = ("drift_", "prior_scale_", "variance_scale_", "converged_", "n_iter_", "n_cg_", "gradient_",
                       "objective_") + tuple(scalar for part in PARTS for scalar in part.scalars)
    #: The features the estimator composes (a subclass may add its own part: its arrays and scalars then too).
    _parts = PARTS
    _choices = {"draws": DRAWS}
    draw_models = DRAWS
    _optional_params = ("period", "drift", "prior_scale", "variance_scale", "draws", "n_jobs", "tuning_budget",
                        "verbose", "context_scale", "margin_scale", "disc_scale", "draw_propensity_scale",
                        "format_scales")
    _param_rules = {"prior_scale": FINITE_PRIOR_SCALE}

    sequential_updates = False
    #: update(a) then update(b) is update(a + b) (the MAP of every game), so the online protocol gives a
    #: run of periods with no scored game at once
    batch_updates = True
    #: The rating-model protocol: ``update`` continues the fit; dask.fit spreads its rows (``rows_of``).
    updates, distributed_parts = True, "rows"
    takes_context = takes_margin = takes_format = True

    @stores_params
    def __init__(self, period: Any = "week", drift: Optional[float] = None, prior_scale: Optional[float] = None,
                 variance_scale: Optional[float] = None, draws: Optional[str] = None, tol: float = 1e-9,
                 update_tol: float = 1e-5, max_iter: int = 100, n_jobs: Optional[int] = None, verbose: Any = None,
                 tuning_budget: Optional[int] = None, context_scale: Optional[float] = None,
                 margin_scale: Optional[float] = None, disc_components: int = 0, disc_scale: Optional[float] = None,
                 draw_propensity_scale: Optional[float] = None, format_scales: Any = None):
        """The parameters, stored as they are (:func:`~discrank.models._base.stores_params`)."""

    # ------------------------------------------------------------------ checks
    def _check_input(self, log: Any) -> None:
        """Refuse data the model cannot fit, and parameters out of range (the error names the value)."""
        self._check_games(log, "DynamicElo.fit")
        self._check_params()

    def _check_games(self, log: Any, where: str) -> None:
        """Refuse games the model cannot fit or update with (``where``: the method, for the message): other than
        a GameLog or PeriodGames (a TypeError naming the type), of another period, or without times."""
        from discrank.data.pairs import PairwiseData
        from discrank.data.logs import GameLog

        if isinstance(log, PeriodGames):
            self._check_period_of(log)
        elif not isinstance(log, GameLog):
            why = (": a PairwiseData has summed its games over time, and the dynamic model follows each rating "
                   "from period to period" if isinstance(log, PairwiseData) else "")
            if type(log).__module__.startswith("dask"):
                why = (": read the games into one (GameLog.from_frame(frame.compute(), ...)) or scan their files "
                       "(discrank.scan_games(..., period=...)); the model and its fit of every game are held "
                       "in this process")
            raise TypeError(f"{where} expects a discrank.GameLog or discrank.PeriodGames, got "
                            f"{type(log).__name__}{why}")
        elif self.period is not None and log.time is None:
            raise ValueError("DynamicElo needs the games' times (GameLog time=...); give period=None for a "
                             "stationary fit")

    def _check_period_of(self, games: "PeriodGames") -> None:
        """Games summed by period suit this model when their period is its period (or it has none)."""
        if self.period is None:
            return
        same = (games.period == self.period if isinstance(self.period, str) or isinstance(games.period, str)
                else float(games.period) == float(self.period))
        if not same:
            raise ValueError(f"the games are summed by period={games.period!r}, but this model's period is "
                             f"{self.period!r}: scan them with period={self.period!r} (or fit period=None)")

    def _bins(self, t: Optional[np.ndarray]) -> np.ndarray:
        if self.period is None:
            return np.zeros(0 if t is None else len(t), dtype=np.int64)
        bins = period_index(np.asarray(t), self.period)
        check_span(bins, self.period)
        return bins

    # ------------------------------------------------------------------ fitting
    def _games(self, log: Any) -> tuple[np.ndarray, Games]:
        """(labels, :class:`Games`) of a log, in time order (:func:`time_ordered`: nothing copied for a log
        in time order), coded by the log's own labels."""
        from discrank.data._coding import code_log

        if isinstance(log, PeriodGames):
            return log.labels, self._period_games(log)
        labels, ca, cb = code_log(log)
        x = None if log.advantage is None else np.asarray(log.advantage, dtype=np.float64).reshape(len(log), -1)
        ca, cb, score, t, x, ctx, margin, fmt = time_ordered(
            ca, cb, np.asarray(log.score, dtype=np.float64), log.time, x, getattr(log, "context", None),
            getattr(log, "margin", None), getattr(log, "match_format", None))
        bins = self._bins(t) if self.period is not None else np.zeros(len(score), dtype=np.int64)
        return labels, Games(ca, cb, score, bins, t, x, ctx=ctx, margin=margin, fmt=fmt)

    def _period_games(self, games: "PeriodGames") -> Games:
        """Games summed by period as weighted :class:`Games` in time order (their codes into
        ``games.labels``; ``count``, the games each entry stands for, :meth:`PeriodGames._weighted_games`)."""
        row, score, w = games.check()._weighted_games()
        x = None if games.advantage is None else games.advantage[row]
        bins = games.bins[row] if self.period is not None else np.zeros(row.size, dtype=np.int64)
        return Games(games.a[row].astype(np.int64), games.b[row].astype(np.int64), score, bins, games.time[row], x, w)

    def fit(self, log: Any, *, validation: Any = None) -> "DynamicElo":
        """Fit the whole history of ``log``.

        The scales left None are chosen on the training log alone (docs/dynamic.md): every game of a
        validation window at its end (``validation``; default the latest 10% of the games) is forecast from
        the fit of the games before the latest of a few origins (:data:`ORIGINS` over the window, more for a
        small log by :data:`ORIGIN_GAMES`, or ``Validation(online=True, origins=k)``; each fit to
        :data:`TUNE_TOL`), or with ``Validation(online=False)`` from one fit of the games before its gap. A
        (drift, prior scale) candidate scores the log loss of its forecasts at its best :data:`VARIANCE_GRID`
        value (or at ``variance_scale``). The drift walks :data:`DRIFT_GRID` (times 0.1 logit per square root
        of a year) from 1 at the middle prior, refined by factors of sqrt 2; then the prior walks
        :data:`PRIOR_GRID` at the best drift. A candidate worse than the best on its first origins by more
        than ``RACE_Z`` standard errors is raced out. A search whose best value is its grid's edge goes past it
        while each step gains more than 1 nat of validation log-likelihood, up to hard bounds (a value chosen
        there warns). The features' scales (margin, context, disc from below the log's threshold scale, draw
        propensity, formats) then walk in turn at the best drift and prior, and the model is refitted.

        Parameters
        ----------
        log : GameLog or PeriodGames
            Games with times (unless ``period`` is None), and optionally advantage covariates
            (``log.advantage``); or the games summed by this model's period (``scan_games(...,
            period=...)``, :class:`discrank.PeriodGames`), which give the same fit (the validation
            window of the tuning then starts at a period's start, as the games have no order within
            a period).
        validation : discrank.Validation, optional
            The validation window of the tuning.

        Returns
        -------
        DynamicElo
            ``self``.

        Raises
        ------
        TypeError
            ``log`` is not a GameLog or PeriodGames, or ``verbose`` not a bool or an integer.
        ValueError
            A parameter out of range, a log without times, NaN in a covariate or a covariate 0 in every
            game, a draw model on a log without draws, a period that makes more than
            ``MAX_PERIODS`` periods; PeriodGames of another period, or whose rows contradict each
            other (:meth:`PeriodGames.check`).

        Warns
        -----
        discrank._util.exceptions.TuningWarning
            A tuned drift, prior scale or variance scale at the hard bound of its search.
        """
        with one_blas_thread(), speaking(self.verbose):  # small BLAS products: threads only contend
            return self._fit_log(log, validation)

    def _fit_log(self, log: Any, validation: Any, rows_of: Any = None) -> "DynamicElo":
        """:meth:`fit`'s body (see there); ``rows_of(history, draws)``, when given, makes the games' terms of
        each whole-history solve (:func:`discrank.solvers._history.solve_history`'s ``rows``: ``discrank.dask.fit``
        gives the rows on the workers)."""
        self._check_input(log)
        labels, games = self._games(log)
        for part in self._parts:
            games = part.fit_games(self, log, games)
        self._scales = {part.name: part.given(self, games) for part in self._parts}
        check_draws(self.draws, games.score)
        drift, prior = self.drift, self.prior_scale
        scale = 1.0 if self.variance_scale is None else float(self.variance_scale)
        tuning = start = None
        if ((drift is None and self.period is not None) or prior is None or self.variance_scale is None
                or any(part.to_tune(self) for part in self._parts)):
            g = games
            drift, prior, scale, tuning, start = self._tune(g.a, g.b, g.score, g.bins, g.time, g.x, len(labels),
                                                            validation, g.count, isinstance(log, PeriodGames),
                                                            rows_of, g.ctx, g.margin, g.fmt)
        if self.period is None:
            drift = 1.0  # unused: one period
        self.variance_scale_ = scale
        with self._fit_report(games, drift, prior):
            self._store(labels, games, drift, prior, tuning, warm=None, rows_of=rows_of, start=start)
        return self

    def _solve(self, ca, cb, score, bins, x, w, n_players, drift, prior, warm=None, tol=None, rows_of=None,
               ctx=None, margin=None, fmt=None):
        """(History, HistoryResult) of the games; ``warm``: (player, period, rating, tail) of a fit over
        fewer games to start from (:func:`discrank.solvers._history.carry`), refitted to ``update_tol`` (or to
        ``tol`` when given); ``w``: the games each entry stands for (None: one each); ``rows_of``: the maker
        of the games' terms (None: in process, :meth:`_fit_log`)."""
        h = build_history(ca, cb, score, bins, x, n_players, self.draws, w, ctx, CONTEXTS.n_labels(self), margin, fmt,
                          FORMATS.n_labels(self))
        theta0 = None if warm is None else self._carried(warm, h)
        if tol is None:
            tol = self.tol if warm is None else max(self.tol, self.update_tol)
        return h, self._solve_built(h, drift, prior, theta0, tol, rows_of, warm is not None)

    def _solve_built(self, h, drift, prior, theta0, tol, rows_of=None, ratings_scale=False, scale=None):
        """The HistoryResult of the history ``h`` from ``theta0`` (None: zero) to ``tol`` (relative to ``scale``,
        else to the ratings' gradient at zero alone with ``ratings_scale``:
        :func:`discrank.solvers._history.solve_history`)."""
        features = self._features(h)
        rows = None if rows_of is None else rows_of(h, self.draws, **features)
        try:
            return solve_history(h, drift, prior, self.draws, theta0=theta0, tol=tol, max_iter=self.max_iter,
                                 n_threads=resolve_n_jobs(self.n_jobs), rows=rows, ratings_scale=ratings_scale,
                                 scale=scale, **features)
        finally:
            if rows is not None:
                rows.close()

    def _features(self, h: Any) -> dict:
        """Each part's arguments of :func:`discrank.solvers._history.solve_history` for the history ``h``."""
        features: dict = {}
        for part in self._parts:
            features.update(part.solver(self, h))
        return features

    def _carried(self, warm: tuple, h: Any) -> np.ndarray:
        """A warm start for the history ``h`` from the fit ``warm`` (player, period, rating, tail of the
        player-periods fitted, :func:`discrank.solvers._history_build.carry`), the parts' fitted block between the
        ratings and the tail."""
        player, period, rating, tail = warm
        block = [part.start(self, h.n_players) for part in self._parts] + [tail]
        return carry(player, period, rating, np.concatenate(block), h)

    def _store(self, labels: np.ndarray, games: Games, drift: float, prior: float, tuning: Any,
               warm: Any, rows_of: Any = None, start: Any = None) -> None:
        """Fit ``games`` (warm started from ``warm``, :meth:`_solve`, with ``rows_of``; or ``start``: the
        history of the games already built, a start for it or None, and the tolerance) and set the fitted
        state."""
        g = games
        if start is not None:  # a fit from a start stops by the ratings' scale
            h, theta0, tol = start
            res = self._solve_built(h, drift, prior, theta0, tol, rows_of, ratings_scale=theta0 is not None)
        else:
            h, res = self._solve(g.a, g.b, g.score, g.bins, g.x, g.count, len(labels), drift, prior, warm=warm,
                                 rows_of=rows_of, ctx=g.ctx, margin=g.margin, fmt=g.fmt)
        if not np.all(np.isfinite(res.r)):
            raise NumericalError("the whole-history fit produced non-finite ratings")
        var = chain_variances(res.hessian_diag, res.hessian_off, h.first)
        self.labels_ = labels
        self.games_ = games
        self.drift_ = float(drift) if self.period is not None else None
        self.prior_scale_ = float(prior)
        self.tuning_ = tuning
        self.pp_rating_, self.pp_sd_ = res.r, np.sqrt(var)
        self.theta_tail_ = np.concatenate([res.beta, [] if res.eta is None else [res.eta]])
        for part in self._parts:
            for key, value in part.keep(self, res, len(labels)).items():
                setattr(self, key, value)
        self.converged_ = res.converged
        self.n_iter_ = res.n_iter
        self.n_cg_ = res.n_cg
        self.gradient_ = res.gradient
        self.objective_ = res.objective
        self._scale, self._terms = res.scale, (res.grad, res.games_diag)  # for update's HistoryState
        self._derive(h)
        if not res.converged:
            warnings.warn(f"DynamicElo did not converge in {res.n_iter} Newton steps (max_iter={self.max_iter}): its "
                          f"gradient is {res.gradient:.3g} of its scale, above tol={self.tol:g}", ConvergenceWarning, 4)

    def _derive(self, h: Any) -> None:
        """The state derived from the fitted fields and the history ``h`` of their games: the
        player-periods, the draw parameter, the covariance's inputs, the last period, the label lookup."""
        self._forget_labels()
        self.pp_player_, self.pp_bin_ = h.pp_player, h.pp_bin
        self.pp_games_ = np.bincount(h.lo, h.n, h.n_pp) + np.bincount(h.hi, h.n, h.n_pp)
        self._start, self._count = chains(h)
        eta = float(self.theta_tail_[-1]) if self.draws is not None else None
        self.draw_nu_ = math.exp(eta) if self.draws == "davidson" else None
        self.draw_threshold_ = eta if self.draws == "rao-kupper" else None
        self._cov_state = (h, self.drift_ or 1.0, self.prior_scale_)
        self._cov = None
        bins = self.games_.bins
        self.last_bin_ = int(bins.max()) if bins.size else 0
        self._scales = {part.name: part.derived(self) for part in self._parts}
        self._theta = np.concatenate([self.pp_rating_] + [part.start(self, h.n_players) for part in self._parts]
                                     + [self.theta_tail_])

    def _global_cov(self) -> Optional[np.ndarray]:
        """The covariance of (beta, eta), computed on first use (the Schur complement of the ratings)."""
        self._check_fitted()
        if self._cov is None and (self.beta_.size or self.draws is not None):
            h, drift, prior = self._cov_state
            with one_blas_thread():
                self._cov = covariance_at(h, drift, prior, self.draws, self._theta, resolve_n_jobs(self.n_jobs),
                                          **self._features(h))
        return self._cov

    @property
    def beta_se_(self) -> np.ndarray:
        """Standard errors of ``beta_`` (Laplace approximation; see the class)."""
        cov = self._global_cov()
        k = self.beta_.size
        return np.sqrt(np.diag(cov)[:k]) if k else np.zeros(0)

    @property
    def draw_eta_se_(self) -> Optional[float]:
        """Standard error of the draw parameter: ``log draw_nu_`` (Davidson) or ``draw_threshold_`` (Rao and
        Kupper); None without a draw model."""
        if self.draws is None:
            self._check_fitted()
            return None
        return float(math.sqrt(self._global_cov()[-1, -1]))

    # ------------------------------------------------------------------ a model file
    def _rebuild(self) -> None:
        """The state a model file's fields imply, checked against each other (a ValueError names the field):
        the games (:meth:`Games.check`, each in its time's period, draws and covariates as the parameters
        say), as many ratings as the games make player-periods, ``beta_`` the coefficients of
        ``theta_tail_``, and the fitted scalars; then the history of the games is built again, so that
        :meth:`update` goes on from the file."""
        self._check_params()
        games, labels = self.games_, self.labels_
        self.beta_ = np.zeros(0) if self.beta_ is None else self.beta_
        games.check(labels)
        g = len(games)
        if self.draws is not None:
            check_draws(self.draws, games.score)
        if self.period is not None and games.time is None:
            raise ValueError(f"period={self.period!r} needs the games' times: the file holds none")
        expected = np.zeros(g, dtype=np.int64) if self.period is None else self._bins(games.time)
        wrong = games.bins != expected
        if wrong.any():
            k = int(np.flatnonzero(wrong)[0])
            raise ValueError(f"games_bin_[{k}] = {games.bins[k]} is not the period of the game's time ({expected[k]})")
        for part in self._parts:  # each feature held whole, checked against the parameters and the games
            for attr in part.fitted:
                setattr(self, attr, getattr(self, attr, None))
            part.check_file(self, len(labels))
        h = build_history(games.a, games.b, games.score, games.bins, games.x, len(labels), self.draws is not None,
                          games.count, games.ctx, CONTEXTS.n_labels(self), games.margin, games.fmt,
                          FORMATS.n_labels(self))
        self._check_sizes(h)
        self._check_scalars()
        self.tuning_ = None
        self._derive(h)

    def _current(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Each player's rating at the last fitted period, its standard deviation and games."""
        n = len(self.labels_)
        mean, var, _ = self._state_at(np.arange(n), np.full(n, self.last_bin_, dtype=np.int64))
        games = np.bincount(self.pp_player_, self.pp_games_, n)
        if np.array_equal(games, np.round(games)):
            games = games.astype(np.int64)
        return mean, np.sqrt(var), games

    def _in_context(self, context: Any, rating: np.ndarray, sd: np.ndarray) -> tuple:
        """(rating, sd, effect) of each player in ``context``
        (:meth:`discrank.models.dynamic._context.Contexts.in_context`)."""
        return CONTEXTS.in_context(self, context, rating, sd)

    def _last_seen(self) -> np.ndarray:
        """The time of each player's last game (NaN for a log without times)."""
        return last_seen(self.games_.a, self.games_.b, self.games_.time, len(self.labels_))

    def _time_span(self) -> Optional[np.ndarray]:
        """The first and the last time of the fitted games (None: games without times)."""
        t = self.games_.time
        return None if t is None else np.array([t.min(), t.max()])
