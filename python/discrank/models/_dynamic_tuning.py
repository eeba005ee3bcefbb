"""How :class:`~discrank.DynamicElo` chooses its drift, prior scale and variance scale on the training log
(:class:`DynamicTuning`, a base of the estimator): forecasts of a validation window at its end, scored for
the candidates of a walk on each grid."""

from __future__ import annotations

import math
from typing import Any, Callable, Optional

import numpy as np

from discrank._history import chain_variances
from discrank._losses import game_losses, outcome_losses
from discrank.models._dynamic_state import difference, outcomes

__all__ = ["DynamicTuning", "DRIFT_GRID", "PRIOR_GRID", "VARIANCE_GRID", "ORIGINS", "ORIGIN_GAMES", "TUNE_TOL",
           "walk_grid"]

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
#: Origins of the tuning's forecasts over the validation window, at least; a log of fewer than
#: ``ORIGIN_GAMES / ORIGINS`` games gets ``ORIGIN_GAMES // n_games`` (up to one per period).
ORIGINS = 8
ORIGIN_GAMES = 1_000_000
#: The relative gradient at which the tuning's fits stop (a validation log loss then moves by about 1e-6
#: or less, far below the gaps between candidates).
TUNE_TOL = 1e-4


class DynamicTuning:
    """The tuning of :class:`~discrank.DynamicElo`'s drift, prior scale and variance scale (see its ``fit``);
    the estimator's ``_solve`` and ``_walk`` fit and forecast each candidate."""

    def _walk_scale(self) -> float:
        """The drift grid's unit for this period: 0.1 logit per square root of a year."""
        if self.period is None:
            return 0.0
        if isinstance(self.period, str):
            return 0.1 / math.sqrt(_PER_YEAR[self.period])
        return 0.1


    def _tune(self, ca, cb, score, bins, t, x, n_players, validation, w=None, whole=False, rows_of=None):
        """The drift, prior scale and variance scale that forecast a validation window at the end of the
        training games best, and the record of the search (``tuning_``): a walk on the drift grid at the
        middle prior, refined by factors of sqrt 2 around the best drift, then a walk on the prior grid at
        the best drift (:class:`discrank._tuning.Search`), each candidate at its best variance scale."""
        from discrank._tuning import Validation, check_validation

        # Validation(online=False) given: the forecasts of a frozen model, all from the fit before the gap
        frozen = isinstance(validation, Validation) and not validation.online
        validation = Validation() if validation is None else check_validation(validation)
        weight = np.ones(len(score)) if w is None else w  # the games each entry stands for
        fit_mask, val_mask = _split(score, t, validation, w, whole)
        drifts, priors, scales = self._grids()
        if weight[fit_mask].sum() < 10 or weight[val_mask].sum() < 10:
            return drifts[len(drifts) // 2], priors[len(priors) // 2], 1.0 if self.variance_scale is None else scales[0], None
        key = bins if self.period is not None else (t if t is not None else np.arange(len(score)))
        origins = _origins(key, fit_mask, val_mask, weight, frozen)
        games = (ca, cb, score, bins, x, w)
        cand = _Candidates(self, games, n_players, fit_mask, val_mask, origins, scales, rows_of)
        mid_prior = priors[(len(priors) - 1) // 2]
        best_drift = drifts[_grid_walk(len(drifts), DRIFT_GRID.index(1.0) if len(drifts) > 1 else 0,
                                       lambda i: cand.score(drifts[i], mid_prior))]
        if len(drifts) > 1:
            for drift in (best_drift / math.sqrt(2.0), best_drift * math.sqrt(2.0)):
                cand.score(drift, mid_prior)
            best_drift = min(cand.scores, key=cand.scores.get)[0]
        _grid_walk(len(priors), priors.index(mid_prior), lambda i: cand.score(best_drift, priors[i]))
        best = min(cand.scores, key=cand.scores.get)
        tuning = {"rule": (("every validation game forecast from the fit of the games before the gap (frozen)"
                            if frozen else "every validation game forecast from the latest origin before it")
                           + "; a walk on the drift grid, then on the prior grid, each candidate at its best "
                           "variance scale"),
                  "periods": int(origins.size),
                  "scores": {self._candidate(d, p): v for (d, p), v in cand.scores.items()},
                  "variance_scales": {self._candidate(d, p): c for (d, p), c in cand.best_scale.items()}}
        return best[0], best[1], cand.best_scale[best], tuning

    def _grids(self) -> tuple[list, list, list]:
        """The candidates of the drift, the prior scale and the variance scale: the given value, or the grid."""
        if self.period is None:
            drifts = [1.0]  # unused: one period
        else:
            drifts = [self.drift] if self.drift is not None else [self._walk_scale() * g for g in DRIFT_GRID]
        priors = [self.prior_scale] if self.prior_scale is not None else list(PRIOR_GRID)
        scales = [self.variance_scale] if self.variance_scale is not None else list(VARIANCE_GRID)
        return drifts, priors, scales

    def _candidate(self, drift: float, prior: float) -> str:
        """A tuning candidate's name in ``tuning_``."""
        return ("" if self.period is None else f"drift={drift:.4g}, ") + f"prior_scale={prior:.3g}"


def walk_grid(n: int, start: int, loss) -> int:
    """The index of the lowest ``loss(i)`` on a grid of ``n`` values found by a walk from ``start``: up the
    grid while the loss falls; if the first step up does not lower it, down the grid while it falls (the
    validation loss taken as unimodal along the grid, the far ends of which are the slowest fits). The
    walk of :class:`discrank._tuning.Search` on the grid's indices (:func:`_grid_walk`)."""
    return _grid_walk(n, start, loss)


def _grid_walk(n: int, start: int, loss: Callable[[int], float]) -> int:
    """:meth:`discrank._tuning.Search.walk` over the indices ``0 .. n - 1`` of a grid, each index scored once
    by ``loss``; ``start + 1`` is scored before ``start``, so that the candidates' fits (each warm-started
    from the one before) are made in the order of the walk's comparisons."""
    from discrank._tuning import Search

    if start + 1 < n:
        loss(start + 1)
    search = Search(lambda i, plan: (loss(int(i)), None), bounds=(-1, n))
    return int(search.walk(start))


def _split(score: np.ndarray, t: Optional[np.ndarray], validation: Any, w: Optional[np.ndarray],
           whole: bool) -> tuple[np.ndarray, np.ndarray]:
    """The games fitted and the validation window: the latest share (or the window) of the games in time
    order (:func:`discrank._tuning.time_cut`), or the last share of a log without times."""
    from discrank._tuning import time_cut

    if t is not None:
        return time_cut(t, validation, w, whole)
    cut = int(len(score) * (1 - validation.fraction))
    fit_mask = np.arange(len(score)) < cut
    return fit_mask, ~fit_mask


def _origins(key: np.ndarray, fit_mask: np.ndarray, val_mask: np.ndarray, weight: np.ndarray,
             frozen: bool) -> np.ndarray:
    """The forecasts' origins (indices of the games, in time order, where each fit stops): the window's
    first period and others spread over it (more for a small log), every validation game predicted from
    the latest origin at or before its period (``key``: the games' periods, or their times or order for a
    stationary model); frozen: one origin, the games before the gap."""
    if frozen:
        return np.array([int(np.count_nonzero(fit_mask))])
    val = np.flatnonzero(val_mask)
    units = key[val][np.r_[True, key[val][1:] != key[val][:-1]]]  # the window's periods
    n_origins = min(units.size, max(ORIGINS, int(ORIGIN_GAMES // max(weight.sum(), 1))))
    pick = units[np.unique(np.linspace(0, units.size - 1, n_origins).round().astype(int))]
    return np.searchsorted(key, pick, side="left")


class _Candidates:
    """The validation score of each (drift, prior) candidate (:meth:`score`, each computed once), at its
    best variance scale (``best_scale``): the log loss per validation game of the forecasts from the
    origins, each origin's fit of the games before it warm-started from the previous origin's (the
    first origin's from the previous candidate's)."""

    def __init__(self, model: Any, games: tuple, n_players: int, fit_mask: np.ndarray, val_mask: np.ndarray,
                 origins: np.ndarray, scales: list, rows_of: Any = None) -> None:
        self.model, self.games, self.n_players, self.rows_of = model, games, n_players, rows_of
        self.val_mask, self.origins, self.scales = val_mask, origins, scales
        ca, cb = games[0], games[1]
        n = len(games[2])
        self.block = np.searchsorted(origins, np.arange(n), side="right") - 1  # each game's origin
        self.seen = np.zeros(n_players, dtype=bool)
        self.seen[ca[fit_mask]] = True
        self.seen[cb[fit_mask]] = True
        self.scores: dict = {}
        self.best_scale: dict = {}
        self._first_warm = None

    def score(self, drift: float, prior: float) -> float:
        """Log loss per validation game of the forecasts at ``(drift, prior)``, at the best variance scale."""
        if (drift, prior) in self.scores:
            return self.scores[drift, prior]
        model, (ca, cb, score, bins, x, w) = self.model, self.games
        loss_sum, n_scored, prev = np.zeros(len(self.scales)), 0, None
        for i, k in enumerate(self.origins):  # the games before the origin: every game of an earlier period
            h, res = model._solve(ca[:k], cb[:k], score[:k], bins[:k], None if x is None else x[:k],
                                  None if w is None else w[:k], self.n_players, drift, prior,
                                  warm=prev if i else self._first_warm, tol=max(model.tol, TUNE_TOL),
                                  rows_of=self.rows_of)
            prev = (h.pp_player, h.pp_bin, res.r, np.concatenate([res.beta, [] if res.eta is None else [res.eta]]))
            if i == 0:
                self._first_warm = prev
            games = np.flatnonzero(self.val_mask & (self.block == i))
            games = games[self.seen[ca[games]] & self.seen[cb[games]]]
            if games.size == 0:
                continue
            var = chain_variances(res.hessian_diag, res.hessian_off, h.first)
            d, v = difference(h.pp_player, h.pp_bin, res.r, var, res.beta, model._walk(drift), prior,
                              ca[games], cb[games], bins[games], None if x is None else x[games])
            for j, c in enumerate(self.scales):
                q = outcomes(d, c * v, res.eta, model.draws)
                loss = (game_losses(q[:, 0] + 0.5 * q[:, 1], score[games])["log_loss"] if model.draws is None
                        else outcome_losses(q, score[games]))
                loss_sum[j] += float(loss.sum() if w is None else loss @ w[games])
            n_scored += games.size if w is None else float(w[games].sum())
        j = int(np.argmin(loss_sum))
        self.scores[drift, prior] = float(loss_sum[j]) / max(n_scored, 1)
        self.best_scale[drift, prior] = self.scales[j]
        return self.scores[drift, prior]
