"""Ratings that move with time: the whole-history MAP of a Gaussian random walk per player.

:class:`DynamicElo` is the model of Glicko, Whole-History Rating (Coulom 2008) and TrueSkill Through
Time, fitted exactly: each player's rating follows a Gaussian random walk, ``r_{p,t'} - r_{p,t} ~
N(0, drift^2 (t' - t))`` (``t`` in periods: days, weeks, months, years or a numeric width), from
``r_{p,first} ~ N(0, prior_scale^2)``; a game at time ``t`` gives ``logit P(a beats b) = r_{a,t} - r_{b,t}
+ beta . x`` with advantage covariates ``x`` (home side, White, Black in Go), or with ``draws="davidson"``
Davidson's three outcomes, ``P(a wins) : P(draw) : P(b wins) = e^{d/2} : nu : e^{-d/2}`` (``d`` that logit,
``nu = e^eta``). The ratings of every player-period, ``beta`` and ``eta`` are the maximum a posteriori
of the whole log, found by Newton's method (:mod:`discrank._history`).

With ``period=None`` the model is stationary (one rating per player, ``drift`` unused): Elo's
Bradley-Terry fit (the paper's Eq. (1) with a Gaussian prior) with advantage covariates and draws.
"""

from __future__ import annotations

import math
from typing import Any, Optional

import numpy as np

from discrank._checks import show
from discrank._draws import DRAWS, outcome_probabilities
from discrank._rows import time_bound
from discrank._losses import game_losses, outcome_losses
from discrank import persist
from discrank._params import FINITE_PRIOR_SCALE, check_param, check_params
from discrank._threads import one_blas_thread, resolve_n_jobs
from discrank.models._base import Params, elo_points
from discrank.models._prediction import GamePredictions, code_players, expected_score, log_covariates
from discrank.persist import FittedArray
from discrank.periods import PeriodGames
from discrank._calendar import check_span, period_index, period_start
from discrank._history import build_history, carry, chain_variances, chains, covariance_at, solve_history

__all__ = ["DynamicElo", "DRIFT_GRID", "PRIOR_GRID", "VARIANCE_GRID"]

#: Drifts (logits per square root of a period) tried when ``drift`` is None, as multiples of a base
#: drift of 0.1 logit per square root of a year (converted to the period).
DRIFT_GRID = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0)
#: Prior scales of a first rating tried when ``prior_scale`` is None.
PRIOR_GRID = (0.5, 1.0, 2.0, 4.0, 8.0)
#: Multipliers of the predictive variance tried when ``variance_scale`` is None (on each candidate's
#: validation forecasts: no fit of its own).
VARIANCE_GRID = (0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0)
#: Periods per year of each calendar period (to convert the drift grid).
_PER_YEAR = {"day": 365.25, "week": 365.25 / 7, "month": 12.0, "year": 1.0}
#: The times a model file holds (``time_dtype_``): numpy datetimes by unit, or numbers.
TIME_DTYPES = tuple(f"datetime64[{u}]" for u in ("Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns")) + ("int64", "float64")
#: Origins of the tuning's forecasts over the validation window, at least; a log of fewer than
#: ``ORIGIN_GAMES / ORIGINS`` games gets ``ORIGIN_GAMES // n_games`` (up to one per period).
ORIGINS = 8
ORIGIN_GAMES = 1_000_000
#: The relative gradient at which the tuning's fits stop (a validation log loss then moves by about 1e-6
#: or less, far below the gaps between candidates).
TUNE_TOL = 1e-4
_PI8 = math.pi / 8.0


class DynamicElo(Params, GamePredictions):
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
        Standard deviation of a player's first rating (the prior N(0, prior_scale^2)), finite: unlike
        Elo's, it cannot be ``inf`` (no prior). The games pin the differences between players and the
        walk those between a player's periods, so the prior alone pins the common level of every rating;
        without it the posterior has no mode to find and no covariance to forecast with. None (default):
        chosen with the drift.
    variance_scale : float, optional
        Multiplier of the predictive variance ``v`` (the two ratings' Laplace variances, grown by the
        drift since each player's last period) in the probit approximation of a forecast, ``sigmoid(d /
        sqrt(1 + variance_scale pi v / 8))``; it does not change the fit. The Laplace variance of a
        rating conditions on every other rating, so it understates the uncertainty of a difference (on
        the ATP log the tuned value is 2-3). None (default): chosen with the drift and the prior when
        either is tuned (see ``fit``), else 1.
    draws : {"davidson", "rao-kupper"} or None, default None
        None: two outcomes, a draw counting as half a win (the Bradley-Terry likelihood of the score).
        "davidson": Davidson's draw model, ``P(draw) = nu / (e^{d/2} + e^{-d/2} + nu)``, with ``nu``
        fitted with the ratings. "rao-kupper": Rao and Kupper's ordered logit, ``P(a wins) = sigmoid(d -
        kappa)``, ``P(b wins) = sigmoid(-d - kappa)``, the draw the rest, with the threshold ``kappa > 0``
        fitted with the ratings. Either needs draws in the log; both keep the problem convex. On the
        football log the two predict the three outcomes equally well (bench/PREDICTION.md, online:
        0.8540 and 0.8539 nats per game); Davidson is the one the docs use, as without draws it is
        Bradley-Terry itself and its ``nu`` is a draw propensity on the odds scale.
    tol : float, default 1e-9
        Newton stops when the largest entry of the gradient is below ``tol`` times the largest at the
        start (and at least ``tol``).
    update_tol : float, default 1e-5
        The same rule for the warm refits of :meth:`update` (a prediction then moves by less than 1e-5
        from the exact MAP's: tests/test_dynamic.py). The tuning's fits stop at :data:`TUNE_TOL` (1e-4).
    max_iter : int, default 100
        Newton steps at most.
    n_jobs : int, optional
        Threads of the core's pair kernel, scikit-learn's meaning (None: OpenMP's default). The result
        does not depend on it beyond rounding (the kernel's sums are in a fixed order).

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
    n_iter_ : int
    gradient_ : float
        The final largest gradient entry relative to the start's.
    tuning_ : dict or None
        The candidates tried and their validation log loss, when something was tuned (None for a model
        read from a file).

    Notes
    -----
    ``save`` writes the model with the games it was fitted on (``discrank.load`` reads it back, and
    :meth:`update` goes on from it): the coded games, their periods, times and covariates, and the
    fitted ratings of every player-period. ``beta_se_`` and ``draw_eta_se_`` are derived again from the
    games on loading.
    """

    #: What a model file holds (:mod:`discrank.persist`): the games in time order ("g" of them; codes into
    #: ``labels_``, scores, periods, times as numbers or datetimes, covariates), the ratings of the
    #: player-periods ("q") and the global parameters after them (beta, then the draw parameter).
    _fitted_arrays = (
        FittedArray("games_a_", ("g",), kind="i", nonnegative="player code"),
        FittedArray("games_b_", ("g",), kind="i", nonnegative="player code"),
        FittedArray("games_score_", ("g",), bound=1.0, bound_text="outside [0, 1] (a score)"),
        FittedArray("games_bin_", ("g",), kind="i"),
        FittedArray("games_time_", ("g",), required=False, bound=None),
        FittedArray("games_time_int_", ("g",), kind="i", required=False),
        FittedArray("games_x_", ("g", "c"), required=False, bound=None),
        FittedArray("games_count_", ("g",), required=False, bound=None, nonnegative="game count"),
        FittedArray("pp_rating_", ("q",)),
        FittedArray("pp_sd_", ("q",), nonnegative="standard deviation"),
        FittedArray("theta_tail_", ("e",)),
    )
    _fitted_scalars = ("drift_", "prior_scale_", "variance_scale_", "converged_", "n_iter_", "n_cg_", "gradient_",
                       "objective_", "time_dtype_")
    _choices = {"draws": DRAWS, "time_dtype_": TIME_DTYPES}
    draw_models = DRAWS
    _optional_params = ("period", "drift", "prior_scale", "variance_scale", "draws", "n_jobs")
    _param_rules = {"prior_scale": FINITE_PRIOR_SCALE}

    sequential_updates = False
    #: update(a) then update(b) is update(a + b) (the MAP of every game), so the online protocol gives a
    #: run of periods with no scored game at once
    batch_updates = True

    def __init__(self, period: Any = "week", drift: Optional[float] = None, prior_scale: Optional[float] = None,
                 variance_scale: Optional[float] = None, draws: Optional[str] = None, tol: float = 1e-9,
                 update_tol: float = 1e-5, max_iter: int = 100, n_jobs: Optional[int] = None):
        self.period = period
        self.drift = drift
        self.prior_scale = prior_scale
        self.variance_scale = variance_scale
        self.draws = draws
        self.tol = tol
        self.update_tol = update_tol
        self.max_iter = max_iter
        self.n_jobs = n_jobs

    def __sklearn_is_fitted__(self) -> bool:
        return hasattr(self, "labels_")

    # ------------------------------------------------------------------ checks
    def _check_params(self, log: Any) -> None:
        from discrank.data import PairwiseData
        from discrank.logs import GameLog

        if isinstance(log, PeriodGames):
            self._check_period_of(log)
        elif not isinstance(log, GameLog):
            why = (": a PairwiseData has summed its games over time, and the dynamic model follows each rating "
                   "from period to period" if isinstance(log, PairwiseData) else "")
            raise TypeError(f"DynamicElo.fit expects a discrank.GameLog or discrank.PeriodGames, got "
                            f"{type(log).__name__}{why}")
        elif self.period is not None and log.time is None:
            raise ValueError("DynamicElo needs the games' times (GameLog time=...); give period=None for a "
                             "stationary fit")
        self._check_own_params()

    def _check_period_of(self, games: "PeriodGames") -> None:
        """Games summed by period suit this model when their period is its period (or it has none)."""
        if self.period is None:
            return
        same = (games.period == self.period if isinstance(self.period, str) or isinstance(games.period, str)
                else float(games.period) == float(self.period))
        if not same:
            raise ValueError(f"the games are summed by period={games.period!r}, but this model's period is "
                             f"{self.period!r}: scan them with period={self.period!r} (or fit period=None)")

    def _check_own_params(self) -> None:
        """The parameters' checks that need no log (a ValueError or TypeError names the parameter)."""
        check_params(self, ("period", "drift", "prior_scale", "variance_scale"))
        if self.draws is not None and self.draws not in DRAWS:
            raise ValueError(f"draws={self.draws!r} is not one of {DRAWS} or None")
        check_params(self, ("tol", "update_tol", "max_iter", "n_jobs"))

    def _bins(self, t: Optional[np.ndarray]) -> np.ndarray:
        if self.period is None:
            return np.zeros(0 if t is None else len(t), dtype=np.int64)
        bins = period_index(np.asarray(t), self.period)
        check_span(bins, self.period)
        return bins

    # ------------------------------------------------------------------ fitting
    def _games(self, log: Any):
        """(labels, code a, code b, score, bins, times, x, weights) of a log, in time order (weights: None,
        or the games each entry stands for, :meth:`PeriodGames._weighted_games`)."""
        from discrank._coding import code_log

        if isinstance(log, PeriodGames):
            return (log.labels,) + self._period_games(log)
        labels, ca, cb = code_log(log)
        score = np.asarray(log.score, dtype=np.float64)
        if log.time is not None:
            order = np.argsort(log.time, kind="stable")
            ca, cb, score = ca[order], cb[order], score[order]
            t = np.asarray(log.time)[order]
        else:
            order, t = None, None
        x = None
        if log.advantage is not None:
            x = np.asarray(log.advantage, dtype=np.float64)
            x = x.reshape(len(log), -1)
            if order is not None:
                x = x[order]
        bins = self._bins(t) if self.period is not None else np.zeros(len(score), dtype=np.int64)
        return labels, ca, cb, score, bins, t, x, None

    def _period_games(self, games: "PeriodGames"):
        """(code a, code b, score, bins, times, x, weights) of games summed by period, as weighted games
        in time order (their codes into ``games.labels``)."""
        row, score, w = games.check()._weighted_games()
        x = None if games.advantage is None else games.advantage[row]
        bins = games.bins[row] if self.period is not None else np.zeros(row.size, dtype=np.int64)
        return (games.a[row].astype(np.int64), games.b[row].astype(np.int64), score, bins, games.time[row], x, w)

    def _check_draws(self, score: np.ndarray, game: str = "game") -> None:
        """A draw model needs results, and draws to fit its parameter; ``game``: what an entry is called
        (new games, those of :meth:`update`, need no draw)."""
        if self.draws is None:
            return
        bad = ~np.isin(score, (0.0, 0.5, 1.0))
        if bad.any():
            k = int(np.flatnonzero(bad)[0])
            raise ValueError(f"draws={self.draws!r} needs results 1, 0.5 or 0; {game} {k} (in time order) has "
                             f"score {score[k]!r}")
        if game == "game" and not (score == 0.5).any():
            raise ValueError(f"draws={self.draws!r}: the log has no draw, so the draw parameter cannot be fitted; "
                             "use draws=None")

    def _check_covariates(self, x: Optional[np.ndarray], names: tuple) -> None:
        if x is None:
            return
        for k in range(x.shape[1]):
            name = names[k] if k < len(names) else f"x{k}"
            col = x[:, k]
            bad = ~np.isfinite(col)
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                raise ValueError(f"advantage column {name!r} has a missing value (NaN or inf) at game {i}")
            if not col.any():
                raise ValueError(f"advantage column {name!r} is 0 in every game: its coefficient is not identifiable")

    def _walk_scale(self) -> float:
        """The drift grid's unit for this period: 0.1 logit per square root of a year."""
        if self.period is None:
            return 0.0
        if isinstance(self.period, str):
            return 0.1 / math.sqrt(_PER_YEAR[self.period])
        return 0.1

    def fit(self, log: Any, *, validation: Any = None) -> "DynamicElo":
        """Fit the whole history of ``log``.

        With ``drift`` or ``prior_scale`` None, they are chosen on the training log alone: every game of
        a validation window at its end (``validation``, a :class:`discrank.Validation`; default the
        latest 10% of the games) is predicted from the model fitted on every game before the latest of
        a few origins at or before its period (:data:`ORIGINS` periods spread over the window, more for a
        small log, :data:`ORIGIN_GAMES`; the first origin is the window's first period; each fit warm
        started from the previous origin's): forecasts of a model updated as the games come, as with
        ``Validation(online=True)``. A ``Validation`` with ``online=False`` given (``discrank.evaluate``'s
        frozen protocol) asks for a frozen model's forecasts instead: every game of the window predicted
        from one fit, of the games before its ``gap``, as the test games will be. A candidate (drift, prior
        scale) is scored by the log loss of those forecasts at the best value of :data:`VARIANCE_GRID` (or
        at ``variance_scale`` when given). The drift walks :data:`DRIFT_GRID` (times 0.1 logit per square root of a year, in the
        model's period) at the middle prior scale, from the grid's 1: up while the loss falls, else down
        while it falls; then the best drift divided and multiplied by sqrt 2 are scored; then the prior
        walks :data:`PRIOR_GRID` from its middle the same way at the best drift. The candidate with the
        lowest log loss is kept with its variance scale, and the model is refitted on the whole log.

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
            ``log`` is not a GameLog or PeriodGames.
        ValueError
            A parameter out of range, a log without times, NaN in a covariate or a covariate 0 in every
            game, a draw model on a log without draws, a period that makes more than
            ``MAX_PERIODS`` periods; PeriodGames of another period, or whose rows contradict each
            other (:meth:`PeriodGames.check`).
        """
        with one_blas_thread():  # small BLAS products: threads only contend
            return self._fit_log(log, validation)

    def _fit_log(self, log: Any, validation: Any) -> "DynamicElo":
        """:meth:`fit`'s body (see there)."""
        self._check_params(log)
        labels, ca, cb, score, bins, t, x, w = self._games(log)
        self._check_draws(score)
        names = tuple(log.advantage_names) if log.advantage is not None else ()
        if x is not None and len(names) < x.shape[1]:
            names = names + tuple(f"x{k}" for k in range(len(names), x.shape[1]))
        self._check_covariates(x, names)
        drift, prior = self.drift, self.prior_scale
        scale = 1.0 if self.variance_scale is None else float(self.variance_scale)
        tuning = None
        if (drift is None and self.period is not None) or prior is None:
            drift, prior, scale, tuning = self._tune(ca, cb, score, bins, t, x, len(labels), validation, w,
                                                     isinstance(log, PeriodGames))
        if self.period is None:
            drift = 1.0  # unused: one period
        self.variance_scale_ = scale
        self._store(labels, ca, cb, score, bins, t, x, w, names, drift, prior, tuning, warm=None)
        return self

    def _solve(self, ca, cb, score, bins, x, w, n_players, drift, prior, warm=None, tol=None):
        """(History, HistoryResult) of the games; ``warm``: (player, period, rating, tail) of a fit over
        fewer games to start from (:func:`discrank._history.carry`), refitted to ``update_tol`` (or to
        ``tol`` when given); ``w``: the games each entry stands for (None: one each)."""
        h = build_history(ca, cb, score, bins, x, n_players, self.draws, w)
        theta0 = None if warm is None else carry(*warm, h)
        if tol is None:
            tol = self.tol if warm is None else max(self.tol, self.update_tol)
        rows = None
        if getattr(self, "_rows_of", None) is not None:  # discrank.dask.fit: the rows on the workers
            rows = self._rows_of(h, self.draws)
        try:
            res = solve_history(h, drift, prior, self.draws, theta0=theta0, tol=tol,
                                max_iter=self.max_iter, n_threads=resolve_n_jobs(self.n_jobs), rows=rows)
        finally:
            if rows is not None:
                rows.close()
        return h, res

    def _store(self, labels, ca, cb, score, bins, t, x, w, names, drift, prior, tuning, warm) -> None:
        from discrank._labels import LabelIndex

        h, res = self._solve(ca, cb, score, bins, x, w, len(labels), drift, prior, warm=warm)
        if not np.all(np.isfinite(res.r)):
            from discrank.exceptions import NumericalError

            raise NumericalError("the whole-history fit produced non-finite ratings")
        var = chain_variances(res.hessian_diag, res.hessian_off, h.first)
        self.labels_ = labels
        self._index = LabelIndex(labels)
        self._games_ = (ca, cb, score, bins, t, x, w)
        self.drift_ = float(drift) if self.period is not None else None
        self.prior_scale_ = float(prior)
        self.tuning_ = tuning
        self.pp_player_, self.pp_bin_ = h.pp_player, h.pp_bin
        self.pp_rating_, self.pp_sd_ = res.r, np.sqrt(var)
        self.pp_games_ = (np.bincount(h.lo, h.n, h.n_pp) + np.bincount(h.hi, h.n, h.n_pp))
        self._start, self._count = chains(h)
        self.advantage_names_ = names
        k = len(names)
        self.beta_ = res.beta[:k].copy()
        self.draw_nu_ = float(math.exp(res.eta)) if self.draws == "davidson" else None
        self.draw_threshold_ = float(res.eta) if self.draws == "rao-kupper" else None
        self._cov_state = (h, drift, prior)
        self._cov = None
        self.converged_ = res.converged
        self.n_iter_ = res.n_iter
        self.n_cg_ = res.n_cg
        self.gradient_ = res.gradient
        self.objective_ = res.objective
        self.last_bin_ = int(bins.max()) if bins.size else 0
        self._theta = np.concatenate([res.r, res.beta, [] if res.eta is None else [res.eta]])

    def _global_cov(self) -> Optional[np.ndarray]:
        """The covariance of (beta, eta), computed on first use (the Schur complement of the ratings)."""
        self._check_fitted()
        if self._cov is None and (self.beta_.size or self.draws is not None):
            h, drift, prior = self._cov_state
            with one_blas_thread():
                self._cov = covariance_at(h, drift, prior, self.draws, self._theta,
                                          resolve_n_jobs(self.n_jobs))
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

    def update(self, log: Any) -> "DynamicElo":
        """Absorb new games and refit the whole history, warm started, with ``drift_`` and
        ``prior_scale_`` kept.

        Parameters
        ----------
        log : GameLog or PeriodGames
            The new games (at or after the fitted games' times); new players enter with the prior.

        Returns
        -------
        DynamicElo
            ``self``.
        """
        with one_blas_thread():
            return self._update_log(log)

    def _update_log(self, log: Any) -> "DynamicElo":
        """:meth:`update`'s body (see there)."""
        self._check_fitted()
        from discrank._labels import LabelIndex

        if len(log) == 0:
            return self
        ca0, cb0, s0, b0, t0, x0, w0 = self._games_
        if isinstance(log, PeriodGames):
            self._check_period_of(log)
        # the new games coded by their own labels, then by the model's (new players appended)
        new, ca1, cb1, s1, b1, t1, x1, w1 = self._games(log)
        idx = self._index.lookup(new)
        labels = self.labels_
        if (idx < 0).any():
            fresh = new[idx < 0]  # (sorted, distinct)
            labels = np.concatenate([labels, fresh.astype(labels.dtype) if labels.dtype != object else fresh])
            self._index = LabelIndex(labels)
            idx = self._index.lookup(new)
        ca1, cb1 = idx[ca1].astype(np.int64), idx[cb1].astype(np.int64)
        if (x0 is None) != (x1 is None):
            raise ValueError("the model was fitted with advantage covariates; the new games have none" if x1 is None
                             else "the new games have advantage covariates; the model was fitted without")
        self._check_draws(s1, "new game")
        if t0 is not None and t1 is not None and t0.dtype.kind != t1.dtype.kind:
            raise ValueError(f"the new games' times are {'dates' if t1.dtype.kind == 'M' else 'numbers'}, the "
                             f"fitted games' {'dates' if t0.dtype.kind == 'M' else 'numbers'}")
        ca, cb = np.concatenate([ca0, ca1]), np.concatenate([cb0, cb1])
        score = np.concatenate([s0, s1])
        bins = np.concatenate([b0, b1])
        t = None if t0 is None else np.concatenate([t0, t1])
        x = None if x0 is None else np.concatenate([x0, x1])
        w = None
        if w0 is not None or w1 is not None:
            w = np.concatenate([np.ones(ca0.size) if w0 is None else w0, np.ones(ca1.size) if w1 is None else w1])
        warm = (self.pp_player_, self.pp_bin_, self.pp_rating_, self._theta[self.pp_rating_.size:])
        self._store(labels, ca, cb, score, bins, t, x, w, self.advantage_names_, self.drift_ or 1.0,
                    self.prior_scale_, self.tuning_, warm)
        return self

    # ------------------------------------------------------------------ tuning
    def _tune(self, ca, cb, score, bins, t, x, n_players, validation, w=None, whole=False):
        from discrank._tuning import Validation, time_cut

        # Validation(online=False) given: the forecasts of a frozen model, all from the fit before the gap
        frozen = isinstance(validation, Validation) and not validation.online
        if validation is None:
            validation = Validation()
        if not isinstance(validation, Validation):
            raise TypeError(f"validation must be a discrank.Validation, got {type(validation).__name__}")
        weight = np.ones(len(score)) if w is None else w  # the games each entry stands for
        if t is not None:
            fit_mask, val_mask = time_cut(t, validation, w, whole)
        else:
            cut = int(len(score) * (1 - validation.fraction))
            fit_mask = np.arange(len(score)) < cut
            val_mask = ~fit_mask
        base = self._walk_scale()
        if self.period is None:
            drifts = [1.0]  # unused: one period
        else:
            drifts = [self.drift] if self.drift is not None else [base * g for g in DRIFT_GRID]
        priors = [self.prior_scale] if self.prior_scale is not None else list(PRIOR_GRID)
        scales = [self.variance_scale] if self.variance_scale is not None else list(VARIANCE_GRID)
        if weight[fit_mask].sum() < 10 or weight[val_mask].sum() < 10:
            return drifts[len(drifts) // 2], priors[len(priors) // 2], 1.0 if self.variance_scale is None else scales[0], None
        # the origins: the window's first period and others spread over it (more for a small log); every
        # validation game is predicted from the fit at the latest origin at or before its period (a
        # stationary model's periods: the distinct times, or the games of a log without times). Games are in
        # time order, so an origin is the index of its period's first game and the games before it a prefix.
        key = bins if self.period is not None else (t if t is not None else np.arange(len(score)))
        if frozen:  # one origin: the games before the gap (a prefix, the games being in time order)
            origins = np.array([int(np.count_nonzero(fit_mask))])
        else:
            val = np.flatnonzero(val_mask)
            units = key[val][np.r_[True, key[val][1:] != key[val][:-1]]]  # the window's periods
            n_origins = min(units.size, max(ORIGINS, int(ORIGIN_GAMES // max(weight.sum(), 1))))
            pick = units[np.unique(np.linspace(0, units.size - 1, n_origins).round().astype(int))]
            origins = np.searchsorted(key, pick, side="left")
        block = np.searchsorted(origins, np.arange(len(score)), side="right") - 1  # each game's origin
        seen_fit = np.zeros(n_players, dtype=bool)
        seen_fit[ca[fit_mask]] = True
        seen_fit[cb[fit_mask]] = True
        scores, best_scale = {}, {}
        first_fit = {}

        def score_of(drift, prior):
            """Log loss per validation game of the forecasts from the origins, at the best variance scale
            (kept in ``best_scale``)."""
            if (drift, prior) in scores:
                return scores[drift, prior]
            loss_sum, n_scored, prev = np.zeros(len(scales)), 0, None
            for i, k in enumerate(origins):  # the games before the origin: every game of an earlier period
                # the first origin starts from the previous candidate's fit of the same games
                h, res = self._solve(ca[:k], cb[:k], score[:k], bins[:k], None if x is None else x[:k],
                                     None if w is None else w[:k], n_players, drift, prior,
                                     warm=prev if i else first_fit.get("warm"), tol=max(self.tol, TUNE_TOL))
                prev = (h.pp_player, h.pp_bin, res.r,
                        np.concatenate([res.beta, [] if res.eta is None else [res.eta]]))
                if i == 0:
                    first_fit["warm"] = prev
                games = np.flatnonzero(val_mask & (block == i))
                games = games[seen_fit[ca[games]] & seen_fit[cb[games]]]
                if games.size == 0:
                    continue
                var = chain_variances(res.hessian_diag, res.hessian_off, h.first)
                d, v = _difference(h.pp_player, h.pp_bin, res.r, var, res.beta, self._walk(drift), prior,
                                   ca[games], cb[games], bins[games], None if x is None else x[games])
                y = score[games]
                for j, c in enumerate(scales):
                    q = _outcomes(d, c * v, res.eta, self.draws)
                    if self.draws is None:
                        loss = game_losses(q[:, 0] + 0.5 * q[:, 1], y)["log_loss"]
                    else:
                        loss = outcome_losses(q, y)
                    loss_sum[j] += float(loss.sum() if w is None else loss @ w[games])
                n_scored += games.size if w is None else float(w[games].sum())
            j = int(np.argmin(loss_sum))
            scores[drift, prior] = float(loss_sum[j]) / max(n_scored, 1)
            best_scale[drift, prior] = scales[j]
            return scores[drift, prior]

        # a walk on each grid: the drift at the middle prior (from the grid's base drift), refined between
        # the best drift and its neighbours (factors of sqrt 2), then the prior at the best drift
        mid_prior = priors[(len(priors) - 1) // 2]
        best_drift = drifts[_walk_grid(len(drifts), DRIFT_GRID.index(1.0) if len(drifts) > 1 else 0,
                                       lambda i: score_of(drifts[i], mid_prior))]
        if len(drifts) > 1:
            for drift in (best_drift / math.sqrt(2.0), best_drift * math.sqrt(2.0)):
                score_of(drift, mid_prior)
            best_drift = min(scores, key=scores.get)[0]
        _walk_grid(len(priors), priors.index(mid_prior), lambda i: score_of(best_drift, priors[i]))
        best = min(scores, key=scores.get)
        tuning = {"rule": (("every validation game forecast from the fit of the games before the gap (frozen)"
                            if frozen else "every validation game forecast from the latest origin before it")
                           + "; a walk on the drift grid, then on the prior grid, each candidate at its best "
                           "variance scale"),
                  "periods": int(origins.size),
                  "scores": {self._candidate(d, p): v for (d, p), v in scores.items()},
                  "variance_scales": {self._candidate(d, p): c for (d, p), c in best_scale.items()}}
        return best[0], best[1], best_scale[best], tuning

    def _candidate(self, drift: float, prior: float) -> str:
        """A tuning candidate's name in ``tuning_``."""
        return ("" if self.period is None else f"drift={drift:.4g}, ") + f"prior_scale={prior:.3g}"

    # ------------------------------------------------------------------ saving and loading
    def save(self, path: Any) -> None:
        """Write the fitted model, with the games it was fitted on, to an ``.npz`` file (``discrank.load``
        reads it; no pickle; see the class's Notes).

        Parameters
        ----------
        path : str or path-like
            The file (numpy adds ``.npz`` when missing).

        Raises
        ------
        discrank.exceptions.NotFittedError
            The model is not fitted.
        """
        persist.save(self, path)

    def _saved_model(self) -> "DynamicElo":
        return self

    def _verdict(self) -> str:
        """What the fit found, in a few lines (``discrank info``)."""
        self._check_fitted()
        walk = ("one rating per player (period=None)" if self.period is None else
                f"a random walk per {self.period!r} period, drift {self.drift_:.4g} logits per period")
        lines = [f"dynamic Elo: {walk}; prior scale {self.prior_scale_:.4g}, variance scale {self.variance_scale_:.4g}",
                 f"{self.pp_rating_.size} player-periods from {self._n_games():.0f} games"
                 + ("" if self.period is None else f", the last period {self._bin_start(np.array([self.last_bin_]))[0]}")]
        se = self.beta_se_
        for k, name in enumerate(self.advantage_names_):
            lines.append(f"advantage {name!r}: {self.beta_[k]:.4g} +- {se[k]:.2g} logits")
        if self.draw_nu_ is not None:
            lines.append(f"Davidson's draw parameter nu {self.draw_nu_:.4g} (se of log nu {self.draw_eta_se_:.2g})")
        if self.draw_threshold_ is not None:
            lines.append(f"Rao-Kupper's draw threshold {self.draw_threshold_:.4g} (se {self.draw_eta_se_:.2g})")
        return "\n".join(lines)

    def _n_games(self) -> float:
        """The games fitted."""
        w = self._games_[6]
        return float(self._games_[0].size if w is None else w.sum())

    def _state_to_save(self) -> tuple[dict, dict]:
        """The arrays and scalars of a model file (``_fitted_arrays``, ``_fitted_scalars``)."""
        ca, cb, score, bins, t, x, w = self._games_
        arrays = {"games_a_": ca, "games_b_": cb, "games_score_": score, "games_bin_": bins,
                  "pp_rating_": self.pp_rating_, "pp_sd_": self.pp_sd_,
                  "theta_tail_": self._theta[self.pp_rating_.size:], "games_x_": x, "games_count_": w}
        scalars = {"drift_": self.drift_, "prior_scale_": self.prior_scale_, "variance_scale_": self.variance_scale_,
                   "converged_": bool(self.converged_), "n_iter_": int(self.n_iter_), "n_cg_": int(self.n_cg_),
                   "gradient_": float(self.gradient_), "objective_": float(self.objective_)}
        if t is not None:
            if t.dtype.kind == "M":
                arrays["games_time_int_"], scalars["time_dtype_"] = t.view(np.int64), str(t.dtype)
            elif t.dtype.kind in "iu":
                arrays["games_time_int_"], scalars["time_dtype_"] = t.astype(np.int64), "int64"
            else:
                arrays["games_time_"], scalars["time_dtype_"] = t.astype(np.float64), "float64"
        return arrays, scalars

    def _load_advantage(self, names: tuple, coefficients: Optional[tuple]) -> None:
        """The covariates' names and coefficients of a model file (checked by :meth:`_load_state` against
        the games and the parameter vector); the standard errors are derived again from the games."""
        self.advantage_names_ = names
        self.beta_ = np.zeros(0) if coefficients is None else coefficients[0]

    def _load_state(self, labels: np.ndarray, arrays: dict, scalars: dict) -> None:
        """The fitted state of a model file, checked against itself: the games' codes, scores, periods and
        times, the player-periods they make, the parameters' sizes (a ValueError names the field)."""
        from discrank._labels import LabelIndex

        self._check_own_params()
        n = labels.shape[0]
        ca, cb, score, bins = (arrays[k] for k in ("games_a_", "games_b_", "games_score_", "games_bin_"))
        g = ca.shape[0]
        if g == 0:
            raise ValueError("games_a_ holds no game (a fitted model has at least one)")
        for key in ("games_b_", "games_score_", "games_bin_"):
            if arrays[key].shape != (g,):
                raise ValueError(f"{key} has shape {arrays[key].shape}, but games_a_ holds {g} games")
        for key, codes in (("games_a_", ca), ("games_b_", cb)):
            if codes.max() >= n:
                k = int(np.argmax(codes))
                raise ValueError(f"{key}[{k}] = {codes[k]} is not a player code (labels_ holds {n} players)")
        same = ca == cb
        if same.any():
            k = int(np.flatnonzero(same)[0])
            raise ValueError(f"game {k} has the player {show(labels[ca[k]])} against themself")
        if score.min() < 0.0:
            k = int(np.argmin(score))
            raise ValueError(f"games_score_[{k}] = {show(score[k])} is outside [0, 1] (a score)")
        if self.draws is not None:
            self._check_draws(score)
        t = self._saved_times(arrays, scalars, g)
        if t is not None and (t[1:] < t[:-1]).any():
            k = int(np.flatnonzero(t[1:] < t[:-1])[0]) + 1
            raise ValueError(f"the games are not in time order: game {k} is earlier than game {k - 1}")
        if self.period is None:
            expected = np.zeros(g, dtype=np.int64)
        elif t is None:
            raise ValueError(f"period={self.period!r} needs the games' times: the file holds none")
        else:
            expected = self._bins(t)
        wrong = bins != expected
        if wrong.any():
            k = int(np.flatnonzero(wrong)[0])
            raise ValueError(f"games_bin_[{k}] = {bins[k]} is not the period of the game's time ({expected[k]})")
        names = self.advantage_names_
        x = arrays.get("games_x_")
        if names and (x is None or x.shape != (g, len(names))):
            raise ValueError(f"games_x_ has shape {None if x is None else x.shape}, expected ({g}, {len(names)}): "
                             f"a value per game of the covariates {list(names)}")
        if not names and x is not None:
            raise ValueError("games_x_ holds covariates, but the header names no advantage")
        if x is not None:
            self._check_covariates(x, names)
        w = arrays.get("games_count_")
        if w is not None:
            if w.shape != (g,):
                raise ValueError(f"games_count_ has shape {w.shape}, but games_a_ holds {g} games")
            if not (w > 0).all():
                k = int(np.flatnonzero(~(w > 0))[0])
                raise ValueError(f"games_count_[{k}] = {show(w[k])} is not a positive number of games")
        h = build_history(ca, cb, score, bins, x, n, self.draws is not None, w)
        for key in ("pp_rating_", "pp_sd_"):
            if arrays[key].shape != (h.n_pp,):
                raise ValueError(f"{key} has shape {arrays[key].shape}, but the games make {h.n_pp} player-periods")
        tail = arrays["theta_tail_"]
        size = h.n_cov + (self.draws is not None)
        if tail.shape != (size,):
            raise ValueError(f"theta_tail_ has shape {tail.shape}, expected ({size},): the {h.n_cov} covariates' "
                             f"coefficients{', then the draw parameter' if self.draws else ''}")
        if not np.array_equal(tail[:len(names)], self.beta_):
            raise ValueError(f"beta_ = {self.beta_.tolist()} differs from the coefficients in theta_tail_ "
                             f"({tail[:len(names)].tolist()})")
        drift = scalars.get("drift_")
        if self.period is not None:
            if drift is None:
                raise ValueError("scalars.drift_ is missing (a model with a period has a drift)")
            check_param(type(self), "drift", drift)
        for key in ("prior_scale_", "variance_scale_"):
            if key not in scalars:
                raise ValueError(f"scalars.{key} is missing")
            check_param(type(self), key[:-1], scalars[key])
        self.labels_ = labels
        self._index = LabelIndex(labels)
        self._games_ = (ca, cb, score, bins, t, x, w)
        self.drift_ = None if self.period is None else float(drift)
        self.prior_scale_, self.variance_scale_ = float(scalars["prior_scale_"]), float(scalars["variance_scale_"])
        self.tuning_ = None
        self.pp_player_, self.pp_bin_ = h.pp_player, h.pp_bin
        self.pp_rating_, self.pp_sd_ = arrays["pp_rating_"], arrays["pp_sd_"]
        self.pp_games_ = np.bincount(h.lo, h.n, h.n_pp) + np.bincount(h.hi, h.n, h.n_pp)
        self._start, self._count = chains(h)
        eta = float(tail[-1]) if self.draws is not None else None
        self.draw_nu_ = math.exp(eta) if self.draws == "davidson" else None
        self.draw_threshold_ = eta if self.draws == "rao-kupper" else None
        self._cov_state = (h, self.drift_ or 1.0, self.prior_scale_)
        self._cov = None
        self.converged_ = bool(scalars.get("converged_", False))
        self.n_iter_ = int(scalars.get("n_iter_", 0))
        self.n_cg_ = int(scalars.get("n_cg_", 0))
        self.gradient_ = float(scalars.get("gradient_", np.nan))
        self.objective_ = float(scalars.get("objective_", np.nan))
        self.last_bin_ = int(bins.max())
        self._theta = np.concatenate([self.pp_rating_, tail])

    @staticmethod
    def _saved_times(arrays: dict, scalars: dict, g: int) -> Optional[np.ndarray]:
        """The games' times of a model file, in their dtype (``time_dtype_``), or None."""
        kind = scalars.get("time_dtype_")
        floats, ints = arrays.get("games_time_"), arrays.get("games_time_int_")
        if kind is None:
            if floats is not None or ints is not None:
                raise ValueError("the file holds the games' times but no time_dtype_ to read them")
            return None
        key, values = ("games_time_", floats) if kind == "float64" else ("games_time_int_", ints)
        if values is None or values.shape != (g,):
            raise ValueError(f"time_dtype_ = {kind!r} needs {key} with one time per game ({g}), got "
                             f"{None if values is None else values.shape}")
        if kind == "float64":
            return values
        return values if kind == "int64" else values.view(np.dtype(kind))

    # ------------------------------------------------------------------ reading the ratings
    def _check_fitted(self) -> None:
        if not hasattr(self, "labels_"):
            from discrank.exceptions import NotFittedError

            raise NotFittedError("this DynamicElo is not fitted yet: call fit(log) first")

    def _walk(self, drift: float) -> float:
        """The drift predictions grow the variance by (0 for a stationary model)."""
        return drift if self.period is not None else 0.0

    def _state_at(self, players: np.ndarray, b: np.ndarray):
        """(mean, variance, known) of each player's rating in period ``b`` (see :meth:`ratings_at`)."""
        return _state(self.pp_player_, self.pp_bin_, self.pp_rating_, self.pp_sd_ ** 2, players, b,
                      self._walk(self.drift_), self.prior_scale_)

    def _outcomes_at(self, ia: np.ndarray, ib: np.ndarray, b: np.ndarray, x: Optional[np.ndarray]) -> np.ndarray:
        """[P(a wins), P(draw), P(b wins)] of games of players ``ia``, ``ib`` in periods ``b``."""
        eta = math.log(self.draw_nu_) if self.draw_nu_ is not None else self.draw_threshold_
        d, v = _difference(self.pp_player_, self.pp_bin_, self.pp_rating_, self.pp_sd_ ** 2, self.beta_,
                           self._walk(self.drift_), self.prior_scale_, ia, ib, b, x)
        return _outcomes(d, self.variance_scale_ * v, eta, self.draws)

    def _players(self, players: Any) -> np.ndarray:
        """The codes of labels, every player for None; an unknown label is a ValueError naming it."""
        if players is None:
            return np.arange(len(self.labels_))
        idx, _ = self._coded(players, players)
        if (idx < 0).any():
            bad = np.atleast_1d(np.asarray(players))[idx < 0][0]
            raise ValueError(f"unknown player {show(bad)}")
        return idx

    def _coded(self, a: Any, b: Any):
        from discrank._labels import as_label_array, canonical_labels

        ia = self._index.lookup(canonical_labels(as_label_array(np.atleast_1d(np.asarray(a)), "a")))
        ib = self._index.lookup(canonical_labels(as_label_array(np.atleast_1d(np.asarray(b)), "b")))
        return ia, ib

    def _player_codes(self, a: Any, b: Any, unseen: str) -> tuple[np.ndarray, np.ndarray]:
        """The codes of the players ``a`` and ``b``: -1 for a player not seen (the prior) with ``unseen="prior"``,
        else an :class:`~discrank.exceptions.UnknownPlayerError`."""
        self._check_fitted()
        return code_players(self._index, a, b, unseen, "DynamicElo")

    def _log_outcomes(self, log: Any, ia: np.ndarray, ib: np.ndarray) -> np.ndarray:
        """[P(a wins), P(draw), P(b wins)] of each game of ``log`` at its time, with its covariates.

        The rating difference's uncertainty is integrated out by the probit approximation: the logit
        ``d`` is scaled by ``1 / sqrt(1 + variance_scale_ pi v / 8)``, ``v`` the sum of the two ratings'
        variances (a rating after its player's last game has its variance grown by ``drift^2`` per
        period). A player coded -1 (not seen, ``unseen="prior"``) is at the prior, N(0, prior_scale_^2).
        """
        if self.period is None:
            b = np.zeros(ia.size, dtype=np.int64)
        else:
            if log.time is None:
                raise ValueError("predicting games of a dynamic model needs their times (GameLog time=...)")
            b = period_index(np.asarray(log.time), self.period)
        return self._outcomes_at(ia, ib, b, log_covariates(log, self.advantage_names_, "DynamicElo"))

    def predict_proba(self, a: Any, b: Any, *, unseen: str = "raise") -> Any:
        """P(a beats b) (expected score, P(a wins) + P(draw) / 2) from each player's latest rating, at the
        last fitted period, with no covariates (see :meth:`predict_outcomes` for the uncertainty).

        Parameters
        ----------
        a, b : array_like or scalar
            Labels of the players.
        unseen : {"raise", "prior"}, optional
            A player the model has not seen is an :class:`~discrank.exceptions.UnknownPlayerError`
            (default), or with ``"prior"`` a player whose rating is the prior, N(0, prior_scale_^2).

        Returns
        -------
        float or ndarray of float
            A float for two scalars.

        Raises
        ------
        discrank.exceptions.NotFittedError
            The model is not fitted.
        discrank.exceptions.UnknownPlayerError
            A player not seen, with ``unseen="raise"``.
        ValueError
            ``unseen`` is not one of ``("raise", "prior")``.
        """
        ia, ib = self._player_codes(a, b, unseen)
        proba = expected_score(self._outcomes_at(ia, ib, np.full(ia.size, self.last_bin_, dtype=np.int64), None))
        return float(proba[0]) if np.ndim(a) == 0 and np.ndim(b) == 0 else proba

    def ratings_frame(self, *, active_since: Any = None, anchor: Any = None, anchor_rating: float = 1500.0):
        """The current table: each player's rating at the last fitted period, best first.

        Parameters
        ----------
        anchor : label, optional
            The player whose ``elo`` is ``anchor_rating``; default: the mean rating of every fitted player is
            (as :meth:`discrank.Elo.ratings_frame`).
        anchor_rating : float, optional
            The ``elo`` of the reference.
        active_since : time, optional
            Keep only the players whose last game is at or after it (a date for datetime times, a
            number for numeric times), within the fitted games' time range; default: every player.

        Returns
        -------
        pandas.DataFrame
            Columns ``player``, ``rank`` (1 first, among the rows kept), ``games`` (games played), ``elo``
            (``anchor_rating + 400 / ln 10 * (rating - reference)``, the scale of the pair models' tables),
            ``rating`` (logits: the mean at the last fitted period, the player's latest MAP rating),
            ``sd`` (its standard deviation, grown by the drift since the player's last period) and
            ``last_seen`` (the time of the player's last game, in the fitted times' units; NaN for a log
            without times). ``df.attrs["model"]`` is ``"DynamicElo"``.

        Raises
        ------
        discrank.exceptions.NotFittedError
            The model is not fitted.
        ValueError
            ``active_since`` outside the fitted games' time range, of the other kind (a date for numeric
            times, a number for dates), or given for a model fitted on games without times.
        """
        import pandas as pd

        self._check_fitted()
        n = len(self.labels_)
        mean, var, _ = self._state_at(np.arange(n), np.full(n, self.last_bin_, dtype=np.int64))
        last = self._last_seen()
        games = np.bincount(self.pp_player_, self.pp_games_, n)
        if np.array_equal(games, np.round(games)):
            games = games.astype(np.int64)
        elo = elo_points(mean, self._index, anchor, anchor_rating)
        frame = pd.DataFrame({"player": self.labels_, "games": games, "elo": elo, "rating": mean,
                              "sd": np.sqrt(var), "last_seen": last})
        if active_since is not None:
            frame = frame[last >= self._time_in_range(active_since, "active_since")]
        frame = frame.iloc[np.argsort(-frame["rating"].to_numpy(), kind="stable")].reset_index(drop=True)
        frame.insert(1, "rank", np.arange(1, len(frame) + 1))
        frame.attrs["model"] = type(self).__name__
        return frame

    def _last_seen(self) -> np.ndarray:
        """The time of each player's last game (NaN for every player of a log without times, NaT or NaN
        for a player without a game)."""
        import pandas as pd

        ca, cb, _, _, t, _, _ = self._games_
        n = len(self.labels_)
        if t is None:
            return np.full(n, np.nan)
        latest = pd.Series(np.concatenate([t, t])).groupby(np.concatenate([ca, cb])).max()
        if latest.size == n:  # (the groups sorted by code: every player has a game)
            return latest.to_numpy().astype(t.dtype)
        out = np.full(n, np.nan) if t.dtype.kind != "M" else np.full(n, np.datetime64("NaT"), dtype=t.dtype)
        out[latest.index.to_numpy()] = latest.to_numpy()
        return out

    def _time_in_range(self, value: Any, name: str) -> Any:
        """``value`` read in the units of the fitted games' times (:func:`discrank._rows.time_bound`); a
        ValueError names it and the fitted time range when it is outside it or of the other kind."""
        t = self._games_[4]
        if t is None:
            raise ValueError(f"{name}={show(value)}: this DynamicElo was fitted on games without times")
        lo, hi = t.min(), t.max()
        shown = f"the fitted games' times run from {_show_time(lo)} to {_show_time(hi)}"
        try:
            out = time_bound(value, t, name)
        except ValueError as exc:
            raise ValueError(f"{exc}; {shown}") from None
        if not lo <= out <= hi:
            raise ValueError(f"{name}={_show_time(out)} is outside the fitted games' time range: {shown}")
        return out

    def ratings_at(self, time: Any, players: Any = None):
        """Each player's rating and its standard deviation at ``time``.

        Between two periods in which a player played, the rating is interpolated (the mean of the random
        walk bridging the two MAP ratings); after the last, it stays, its variance grown by ``drift^2``
        per period; before the first game, the answer is the prior, N(0, prior_scale_^2) (``known`` is
        False).

        Parameters
        ----------
        time : datetime-like or number
            The time (one value).
        players : array_like, optional
            Labels (default: every player).

        Returns
        -------
        pandas.DataFrame
            Columns ``player``, ``rating``, ``sd``, ``known`` (False where the prior answers).
        """
        import pandas as pd

        self._check_fitted()
        idx = self._players(players)
        b = self._time_bin(time, idx.size)
        m, v, known = self._state_at(idx, b)
        return pd.DataFrame({"player": self.labels_[idx], "rating": m, "sd": np.sqrt(v), "known": known})

    def _time_bin(self, time: Any, n: int) -> np.ndarray:
        """The period of ``time`` (read in the units of the fitted times, :func:`discrank._rows.time_bound`),
        repeated ``n`` times."""
        if self.period is None:
            return np.zeros(n, dtype=np.int64)
        fitted = self._games_[4]
        value = time_bound(time, fitted, "time")
        if fitted.dtype.kind != "M" and not math.isfinite(value):
            raise ValueError(f"time={show(value)} is not a finite number")
        return np.full(n, period_index(np.array([value]).astype(fitted.dtype), self.period)[0], dtype=np.int64)

    def history(self, players: Any = None):
        """The rating history: one row per player and period in which the player played.

        Parameters
        ----------
        players : array_like, optional
            Labels (default: every player).

        Returns
        -------
        pandas.DataFrame
            Columns ``player``, ``period`` (the period's index: days, ISO weeks, months or years since
            1970, or ``floor(t / period)``), ``time`` (the period's start), ``rating``, ``sd`` (the
            standard deviation from the player's block of the Hessian, as Whole-History Rating), ``games``.
        """
        import pandas as pd

        self._check_fitted()
        if players is None:
            sel = np.arange(self.pp_player_.size)
        else:
            sel = np.concatenate([np.arange(self._start[i], self._start[i] + self._count[i]) for i in self._players(players)])
        return pd.DataFrame({"player": self.labels_[self.pp_player_[sel]], "period": self.pp_bin_[sel],
                             "time": self._bin_start(self.pp_bin_[sel]), "rating": self.pp_rating_[sel],
                             "sd": self.pp_sd_[sel], "games": self.pp_games_[sel]})

    def _bin_start(self, b: np.ndarray) -> np.ndarray:
        if self.period is None:
            return np.zeros(b.size)
        return period_start(b, self.period, isinstance(self.period, str))

    def plot_history(self, players: Any, ax: Any = None, band: float = 1.0):
        """Rating histories of chosen players, with a band of ``band`` standard deviations (needs
        matplotlib: ``pip install 'discrank[plot]'``).

        Parameters
        ----------
        players : array_like
            Labels of the players to draw.
        ax : matplotlib Axes, optional
            Where to draw; default: a new figure.
        band : float, default 1
            Half-width of the shaded band, in standard deviations (0: none).

        Returns
        -------
        matplotlib Axes
        """
        try:
            import matplotlib.pyplot as plt
        except ImportError as exc:  # pragma: no cover
            raise ImportError("plot_history needs matplotlib: pip install 'discrank[plot]'") from exc
        frame = self.history(np.atleast_1d(np.asarray(players)))
        if ax is None:
            _, ax = plt.subplots(figsize=(7, 4))
        for name, part in frame.groupby("player", sort=False):
            line, = ax.plot(part["time"], part["rating"], lw=1.2, label=str(name))
            if band > 0:
                ax.fill_between(part["time"], part["rating"] - band * part["sd"], part["rating"] + band * part["sd"],
                                color=line.get_color(), alpha=0.2, lw=0)
        ax.set_ylabel("rating (logits)")
        ax.legend(fontsize=7)
        return ax

    def relabel(self, labels: np.ndarray) -> None:
        """Labels from player codes (``discrank.evaluate`` fits on codes).

        Parameters
        ----------
        labels : ndarray
            ``labels[c]`` is the label of the player coded ``c``.
        """
        from discrank._labels import LabelIndex

        self.labels_ = labels[np.asarray(self.labels_, dtype=np.int64)]
        self._index = LabelIndex(self.labels_)


def _show_time(value: Any) -> str:
    """A time for a message: a date as its text, a number as written."""
    return str(value) if isinstance(value, np.datetime64) else show(value)


def _walk_grid(n: int, start: int, loss) -> int:
    """The index of the lowest ``loss(i)`` on a grid of ``n`` values found by a walk from ``start``: up the
    grid while the loss falls; if the first step up does not lower it, down the grid while it falls (the
    validation loss taken as unimodal along the grid, the far ends of which are the slowest fits)."""
    best = start
    for step in (1, -1):
        i = start + step
        while 0 <= i < n and loss(i) < loss(best):
            best, i = i, i + step
        if best != start:
            break
    return best


def _state(pp_player, pp_bin, r, var, players, b, drift, prior):
    """(mean, variance, known) of players' ratings at periods ``b`` (see DynamicElo.ratings_at); the
    player-periods are sorted by (player, period)."""
    n = players.size
    mean = np.zeros(n)
    v = np.full(n, prior * prior)
    known = np.zeros(n, dtype=bool)
    if n == 0 or pp_player.size == 0:
        return mean, v, known
    lo = int(min(pp_bin.min(), b.min()))
    span = int(max(pp_bin.max(), b.max())) - lo + 1
    # the last player-period at or before (player, b): the player's own, or it has none (the prior)
    k = np.searchsorted(pp_player * span + (pp_bin - lo), players * span + (b - lo), side="right") - 1
    ok = (players >= 0) & (k >= 0)
    ok[ok] = pp_player[k[ok]] == players[ok]
    kk, bb = k[ok], b[ok]
    nxt = np.minimum(kk + 1, pp_player.size - 1)
    last = (kk + 1 == pp_player.size) | (pp_player[nxt] != players[ok])
    exact = pp_bin[kk] == bb
    r_k, v_k = r[kk], var[kk]
    dt = (bb - pp_bin[kk]).astype(np.float64)
    mm = r_k.copy()
    vv = v_k + drift * drift * dt
    mid = ~exact & ~last
    if mid.any():
        k2 = kk[mid] + 1
        gap = (pp_bin[k2] - pp_bin[kk[mid]]).astype(np.float64)
        w = dt[mid] / gap
        mm[mid] = (1 - w) * r_k[mid] + w * r[k2]
        vv[mid] = ((1 - w) * np.sqrt(v_k[mid]) + w * np.sqrt(var[k2])) ** 2 + drift * drift * dt[mid] * (1 - w)
    mean[ok], v[ok], known[ok] = mm, vv, True
    return mean, v, known


def _difference(pp_player, pp_bin, r, var, beta, drift, prior, ia, ib, b, x) -> tuple[np.ndarray, np.ndarray]:
    """(logit, variance) of games between ``ia`` and ``ib`` in periods ``b`` with covariates ``x``: the
    ratings' difference plus ``beta . x``, and the sum of the two ratings' variances."""
    ma, va, _ = _state(pp_player, pp_bin, r, var, ia, b, drift, prior)
    mb, vb, _ = _state(pp_player, pp_bin, r, var, ib, b, drift, prior)
    d = ma - mb
    if x is not None and beta.size:
        d = d + x @ beta
    return d, va + vb


def _outcomes(d: np.ndarray, v: np.ndarray, eta: Optional[float], draws: Optional[str] = None) -> np.ndarray:
    """[P(a wins), P(draw), P(b wins)] for logit ``d`` with variance ``v`` (probit approximation); ``eta``:
    the draw parameter of the model ``draws`` (Davidson's log nu, Rao and Kupper's threshold)."""
    return outcome_probabilities(d / np.sqrt(1.0 + _PI8 * v), eta, draws)


persist.register(DynamicElo)
