"""How :class:`~discrank.DynamicElo` chooses its drift, prior scale and variance scale on the training log
(:class:`DynamicTuning`, a base of the estimator): forecasts of a validation window at its end, scored for
the candidates of a walk on each grid."""

from __future__ import annotations

import math

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
                d, v = difference(h.pp_player, h.pp_bin, res.r, var, res.beta, self._walk(drift), prior,
                                   ca[games], cb[games], bins[games], None if x is None else x[games])
                y = score[games]
                for j, c in enumerate(scales):
                    q = outcomes(d, c * v, res.eta, self.draws)
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
        best_drift = drifts[walk_grid(len(drifts), DRIFT_GRID.index(1.0) if len(drifts) > 1 else 0,
                                       lambda i: score_of(drifts[i], mid_prior))]
        if len(drifts) > 1:
            for drift in (best_drift / math.sqrt(2.0), best_drift * math.sqrt(2.0)):
                score_of(drift, mid_prior)
            best_drift = min(scores, key=scores.get)[0]
        walk_grid(len(priors), priors.index(mid_prior), lambda i: score_of(best_drift, priors[i]))
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


def walk_grid(n: int, start: int, loss) -> int:
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

