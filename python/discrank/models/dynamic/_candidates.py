"""The validation scores of :class:`~discrank.DynamicElo`'s tuning candidates (:class:`Candidates`): each
candidate's forecasts of the validation window from the forecast origins, each origin's from the MAP of the
games before it, scored by their log loss at the best variance scale (:func:`scan_axis`); the walks that
choose the candidates are :mod:`discrank.models.dynamic._tuning`'s."""

from __future__ import annotations

import math
import time
from types import SimpleNamespace
from typing import Any, Callable, Iterator, Optional

import numpy as np

from discrank.solvers._history import chain_variances, release_memory
from discrank._util.losses import binary_log_loss, outcome_losses
from discrank._util.progress import report_stage
from discrank.models.dynamic._context import CONTEXTS
from discrank.models.dynamic._formats import FORMATS
from discrank.models.dynamic._part import forecast
from discrank.models.dynamic._state import difference, outcomes

__all__ = ["REACH", "TUNE_TOL", "RACE_Z", "RACE_MIN", "BudgetSpent", "Candidates", "scan_axis"]

#: A candidate is raced out (its later origins not fitted) once the paired differences of its forecasts' log
#: losses from the best candidate's, on the games of its first origins (at least ``RACE_MIN``), average more than
#: ``RACE_Z`` standard errors above 0: the walks only ask whether it beats the best, and it is then
#: significantly worse (its score is estimated as the best's plus that difference, ``tuning_["raced"]``).
RACE_Z = 3.0
RACE_MIN = 2

#: The periods back along each touched player's chain whose ratings the tuning's forecasts re-solve when they
#: absorb an origin's games (:meth:`discrank.solvers._history_update.HistoryState.absorb`).
REACH = 16
#: The relative gradient at which the tuning's fits stop: their validation log loss is then close to the exact
#: fits', below the gaps between candidates that decide.
TUNE_TOL = 1e-3


def scan_axis(axis: Any, loss: Callable[[float], float], gain: float) -> tuple[float, dict]:
    """The value of ``axis`` (a :class:`discrank.models.dynamic._tuning._Axis`) with the lowest ``loss`` (the
    first of equal ones) and every value scored (value -> loss): the whole grid, then past the winning edge a step
    at a time while each step lowers ``loss`` by more than ``gain``, within the axis's bounds."""
    losses = {i: loss(axis.value(i)) for i in range(axis.n)}
    best = min(losses, key=losses.get)
    step = -1 if best == 0 else 1 if best == axis.n - 1 else 0
    while step and axis.lo <= best + step <= axis.hi:
        losses[best + step] = loss(axis.value(best + step))
        if not losses[best + step] < losses[best] - gain:
            break
        best += step
    return axis.value(best), {axis.value(i): value for i, value in losses.items()}


class BudgetSpent(Exception):
    """A candidate past the tuning's budget (:meth:`Candidates.score`): the walk stops there."""


class Candidates:
    """The validation score of each (drift, prior) candidate (:meth:`score`, each computed once), at its
    best variance scale (``best_scale``; ``scanned``: every variance scale scored): the log loss per
    validation game of the forecasts from the origins, each origin's fit of the games before it
    warm-started from the previous origin's (the first origin's from the previous candidate's)."""

    def __init__(self, model: Any, games: tuple, n_players: int, fit_mask: np.ndarray, val_mask: np.ndarray,
                 origins: np.ndarray, scales: Any, rows_of: Any = None, budget: Optional[int] = None,
                 stationary: bool = False, edge_nats: float = 1.0) -> None:
        self.model, self.games, self.n_players, self.rows_of = model, games, n_players, rows_of
        # one period (or none): each origin's history made of the games before it, not cut at a period's start
        self.stationary = stationary or model.period is None
        self.budget, self.reached = budget, False  # the most candidates scored; whether one more was asked
        self.val_mask, self.origins, self.scales = val_mask, origins, scales
        ca, cb = games[0], games[1]
        n = len(games[2])
        # each game's origin (-1 before the first)
        self.block = (np.searchsorted(origins, np.arange(n), side="right") - 1).astype(np.int32)
        self.seen = np.zeros(n_players, dtype=bool)
        self.seen[ca[fit_mask]] = True
        self.seen[cb[fit_mask]] = True
        val = np.flatnonzero(val_mask & (self.block >= 0))  # the games scored: both players fitted before
        val = val[self.seen[ca[val]] & self.seen[cb[val]]]
        self.n_scored = max(val.size if games[5] is None else float(games[5][val].sum()), 1)
        # the log loss per scored game that each step past a grid's edge must gain (edge_nats in all)
        self.gain = edge_nats / self.n_scored
        self.scores: dict = {}
        self.best_scale: dict = {}
        self.scanned: set = set()
        self._whole, self._theta0 = None, None  # the history of every game, the last candidate's first fit
        self._last, self._kept = None, None  # the last origin's fit of the latest and the best candidates
        # the margin, context and disc scales' walks, by name: (axis, value -> (score, best variance scale))
        self.extra: dict = {}
        # the origins with scored games; the best candidate scored in full (score, each game's log loss at its
        # variance scale); the candidates raced out (their label -> the origins they were scored on)
        self.n_blocks = int(np.unique(self.block[val]).size)
        self._incumbent: Optional[tuple] = None
        self.raced: dict = {}
        self._scales: dict = {}  # each origin's stopping scale, by its margin and format scales (solve_history's)

    @property
    def n_scored_candidates(self) -> int:
        """The candidates scored so far, as the reports number them: the (drift, prior) ones and each feature walk's
        values (each walk's first is the best (drift, prior) candidate's, not scored again)."""
        return len(self.scores) + sum(len(s) - 1 for _, s in self.extra.values())

    def score(self, drift: float, prior: float) -> float:
        """Log loss per validation game of the forecasts at ``(drift, prior)``, at the best variance scale
        (:func:`scan_axis` on the variance scales), reported with its seconds to the listener of
        :func:`discrank._util.progress.staging`; :class:`BudgetSpent` for a new candidate once ``budget``
        candidates are scored."""
        if (drift, prior) in self.scores:
            return self.scores[drift, prior]
        self.scores[drift, prior], self.best_scale[drift, prior] = self.scored(drift, prior)
        if self._last is not None and min(self.scores.values()) == self.scores[drift, prior]:
            self._kept = ((drift, prior), self._last)  # the best candidate's fit at the last origin so far
        self._last = None
        return self.scores[drift, prior]

    def scored(self, drift: float, prior: float, name: str = "") -> tuple[float, float]:
        """(log loss per validation game, best variance scale) of the forecasts at ``(drift, prior)`` and the
        model's margin, context and disc scales, reported (as the candidate ``name`` after the drift and prior); a
        :class:`BudgetSpent` once ``budget`` candidates are scored."""
        scored = self.n_scored_candidates
        if self.budget is not None and scored >= self.budget:
            self.reached = True
            raise BudgetSpent
        clock = time.perf_counter()
        label = self.model._candidate(drift, prior) + (f", {name}" if name else "")
        blocks, raced = [], None
        forecasts = self._forecasts(drift, prior)
        for block in forecasts:
            blocks.append(block)
            if len(blocks) < self.n_blocks and (raced := self._raced_out(blocks)) is not None:
                forecasts.close()  # (its last origin's fit is not kept: self._last stays None)
                self.raced[label] = len(blocks)
                report_stage(f"tuning DynamicElo: candidate {scored + 1} ({label}): raced out after "
                             f"{len(blocks)} of {self.n_blocks} origins, validation log loss about {raced[0]:.5f}, "
                             f"{time.perf_counter() - clock:.1f} s")
                return raced
        stack = self._stack(blocks)
        best, losses = scan_axis(self.scales, lambda c: self._loss(stack, c) / self.n_scored, self.gain)
        self.scanned.update(losses)
        if self._incumbent is None or losses[best] < self._incumbent[0]:  # the best scored in full
            self._incumbent = (losses[best], self._game_losses(stack, best)[0])
        report_stage(f"tuning DynamicElo: candidate {scored + 1} ({label}): validation log loss {losses[best]:.5f} at "
                     f"variance_scale={best:.3g}, {time.perf_counter() - clock:.1f} s")
        return losses[best], best

    def _forecasts(self, drift: float, prior: float) -> Iterator[tuple]:
        """The forecasts of the validation games at ``(drift, prior)``, origin by origin (a generator, which a
        candidate raced out stops): ``(logit, variance, draw parameter, games)``, each origin's from the MAP of
        the games before it, to :data:`TUNE_TOL`. The first origin's fit starts from the previous candidate's;
        each later one from the previous origin's with the games between absorbed by
        :class:`discrank.solvers._history_update.HistoryState` (:data:`REACH` periods back along each touched chain),
        or, with contexts, margins or disc components (which it does not hold), carried to the origin's history."""
        from discrank.solvers._history_build import carry
        from discrank.solvers._history_update import HistoryState

        model, (ca, cb, score, bins, x, w, ctx, _, fmt) = self.model, self.games
        tol = max(model.tol, TUNE_TOL)
        state, prev = None, None
        carried = any(part.active(model) for part in model._parts)
        for i, k in enumerate(self.origins):  # the games before the origin: every game of an earlier period
            if i == 0:
                theta0 = self._theta0
            elif carried:  # the previous origin's fit, carried to this one's history below
                h = None
            else:
                j = int(self.origins[i - 1])
                state.absorb(ca[j:k], cb[j:k], score[j:k], bins[j:k], None if x is None else x[j:k],
                             None if w is None else w[j:k], self.n_players, reach=REACH, rounds=1)
                # the previous origin's history and state freed before this origin's are made
                theta0, state, h = state.theta, None, None
            h = self._history(int(k))
            if i and carried:
                n_prev = prev[0].size
                theta0 = carry(prev[0], prev[1], prev[2][:n_prev], prev[2][n_prev:], h)
                prev = None
            # the stopping rule's scale: the gradient at the default start, which the drift and prior do not change
            fscales = model._scales["format_scales"]
            key = (int(k), model._scales["margin_scale"] if h.margin is not None else 0.0,
                   None if fscales is None else np.asarray(fscales).tobytes())
            release_memory(h)  # the previous origin's history and state, freed, returned before this solve
            res = model._solve_built(h, drift, prior, theta0, tol, self.rows_of, ratings_scale=True,
                                     scale=self._scales.get(key))
            self._scales[key] = res.scale
            theta = res.theta  # (r, the context effects, beta, eta: a view of it is res.r)
            if i == 0:
                self._theta0 = theta.astype(np.float32)  # starts, kept in single precision (half the memory)
            if i + 1 == self.origins.size:
                self._last = None if carried else (int(k), theta.astype(np.float32))
            elif carried:
                prev = (h.pp_player, h.pp_bin, theta)
            else:
                state = HistoryState(h, theta, drift, prior, model.draws, tol * res.scale, grad=res.grad,
                                     games_diag=res.games_diag)
            games = np.flatnonzero(self.val_mask & (self.block == i))
            games = games[self.seen[ca[games]] & self.seen[cb[games]]]
            if games.size == 0:
                res = None
                continue
            var = chain_variances(res.hessian_diag, res.hessian_off, h.first)
            d, v = difference(h.pp_player, h.pp_bin, res.r, var, model._walk(drift), prior, ca[games], cb[games],
                              bins[games])
            fitted = SimpleNamespace()  # the fitted features, as the model keeps them
            for part in model._parts:
                fitted.__dict__.update(part.keep(model, res, self.n_players))
            codes = {key: None if col is None else col[games] for key, col in (("x", x), ("ctx", ctx), ("fmt", fmt))}
            d, v, eta = forecast(model._parts, fitted, d, v, res.eta, ca[games], cb[games], codes)
            res = var = None  # freed before the next origin's games are absorbed
            yield d, v, eta, games

    def start(self, best: tuple):
        """(history of every game, warm start, tolerance) of the final fit at ``best``: the whole log's history
        (built by the tuning), the best candidate's fit at the last origin carried to it (None where not
        kept), and the model's ``tol``."""
        from discrank.solvers._history_build import carry

        if self._whole is None:
            return None
        theta0 = None
        if self._kept is not None and self._kept[0] == best:
            k, theta = self._kept[1]
            whole = self._whole
            keep = whole.pp_bin < self._cut(k)  # the player-periods of the last origin's fit, in their order
            n = int(np.count_nonzero(keep))
            theta0 = carry(whole.pp_player[keep], whole.pp_bin[keep], theta[:n], theta[n:], whole)
        release_memory(self._whole)  # the tuning's fits and states, freed, returned before the final fit
        return self._whole, theta0, self.model.tol

    def _cut(self, k: int) -> int:
        """The first period not fitted at origin ``k`` (a game's index; past the last game: after its period)."""
        bins = self.games[3]
        return int(bins[k]) if k < bins.size else int(bins[-1]) + 1

    def _history(self, k: int):
        """The history of the games before game ``k`` (an origin): the whole log's history cut before the
        origin's period (built once), or for a model without periods built from the games."""
        from discrank.solvers._history_build import build_history

        model, (ca, cb, score, bins, x, w, ctx, margin, fmt) = self.model, self.games
        n_ctx = CONTEXTS.n_labels(model) if ctx is not None else 0
        n_fmt = FORMATS.n_labels(model) if fmt is not None else 0
        if self.stationary:
            cut = lambda v: None if v is None else v[:k]  # noqa: E731
            return build_history(ca[:k], cb[:k], score[:k], bins[:k], cut(x), self.n_players, model.draws, cut(w),
                                 cut(ctx), n_ctx, cut(margin), cut(fmt), n_fmt)
        if self._whole is None:
            self._whole = build_history(ca, cb, score, bins, x, self.n_players, model.draws, w, ctx, n_ctx, margin,
                                        fmt, n_fmt)
        return self._whole.before(self._cut(k))

    def _stack(self, blocks: list) -> tuple:
        """The forecasts ``blocks`` (each origin's) as one, in their order: (logits, variances, draw parameters or
        None, scores, weights or None), for :meth:`_game_losses` at each variance scale."""
        w = self.games[5]
        if not blocks:
            empty = np.zeros(0)
            return empty, empty, None, empty, None if w is None else empty
        d, v = np.concatenate([b[0] for b in blocks]), np.concatenate([b[1] for b in blocks])
        eta = None
        if blocks[0][2] is not None:  # (a draw model's parameter: one per origin, or one per game with propensities)
            eta = np.concatenate([np.broadcast_to(np.asarray(b[2], np.float64), b[0].shape) for b in blocks])
        games = np.concatenate([b[3] for b in blocks])
        return d, v, eta, self.games[2][games], None if w is None else w[games]

    def _loss(self, stack: tuple, c: float) -> float:
        """The summed log loss of the forecasts ``stack`` (:meth:`_stack`) with their variance scaled by ``c``."""
        loss, w = self._game_losses(stack, c)
        return float(loss.sum() if w is None else loss @ w)

    def _game_losses(self, stack: tuple, c: float) -> tuple[np.ndarray, Optional[np.ndarray]]:
        """(each game's log loss, its weight or None) of the forecasts ``stack`` (:meth:`_stack`) with their
        variance scaled by ``c``."""
        d, v, eta, score, w = stack
        draws = self.model.draws
        q = outcomes(d, c * v, eta, draws)
        return (binary_log_loss(q[:, 0] + 0.5 * q[:, 1], score) if draws is None else outcome_losses(q, score)), w

    def _raced_out(self, blocks: list) -> Optional[tuple[float, float]]:
        """(estimated score, best variance scale) of a candidate whose forecasts ``blocks`` (its first origins,
        not all) are worse than the best candidate scored in full (the incumbent) on the same games by more
        than :data:`RACE_Z` standard errors of the paired differences, at the candidate's best variance scale
        on them (the score then estimated as the incumbent's plus that mean difference); None to go on: before
        :data:`RACE_MIN` origins, or without an incumbent."""
        if self._incumbent is None or len(blocks) < RACE_MIN:
            return None
        m = sum(b[3].size for b in blocks)
        stack = self._stack(blocks)
        scale, _ = scan_axis(self.scales, lambda c: self._loss(stack, c), 0.0)
        loss, w = self._game_losses(stack, scale)
        diff = loss - self._incumbent[1][:m]
        w = np.ones(m) if w is None else w
        total = float(w.sum())
        mean = float(w @ diff) / total
        se = math.sqrt(max(float(w @ (diff - mean) ** 2) / max(total - 1.0, 1.0), 0.0) / total)
        if not mean > RACE_Z * se:
            return None
        return self._incumbent[0] + mean, scale
