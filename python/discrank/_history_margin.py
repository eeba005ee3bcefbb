"""The margin likelihood of the whole-history problem: the sub-contests of each game (the games of a tennis match,
the goals of a football match) as binomial rows on the game's logit scaled by ``margin_scale``.

A game between ``a`` and ``b`` with logit ``d`` (the ratings' difference, the context effects and ``beta . x``)
whose margin is ``(m_a, m_b)`` adds ``m_a log sigmoid(kappa d) + m_b log sigmoid(-kappa d)`` to the
log-likelihood of its result: each sub-contest is won by ``a`` with probability ``sigmoid(kappa d)``, ``kappa =
margin_scale`` (a game of tennis is less decisive than a match, so ``kappa < 1``). The terms are those of a
:class:`discrank._history.Rows` over the margin rows of the history (:attr:`discrank._history_build.History.margin`:
the games of one pair of player-periods, covariate value and context, their sub-contests summed), in numpy:
:class:`MarginRows`. :class:`SumRows` adds them to the results' rows, so that the MAP stays one convex problem
(``kappa`` is fixed during a fit; the tuning chooses it) and the Newton solver sees one set of rows. The forecasts
of a game's result are the result model's, from ratings that the margins informed.
"""

from __future__ import annotations

from typing import Optional

import numpy as np
from scipy.special import expit

from discrank._history import Rows
from discrank._history_build import History

__all__ = ["MarginRows", "SumRows", "games_rows"]


class MarginRows(Rows):
    """The binomial terms of the margin rows of a history at the logit scale ``kappa`` (see the module). Their
    tail (beta, and a zero for the draw parameter when the problem has one) matches the results' rows."""

    def __init__(self, h: History, draws, kappa: float) -> None:
        lo, hi, x, n, win, ctx = h.margin
        effects = None
        if h.n_eff:
            kind = np.int32 if h.n_eff <= np.iinfo(np.int32).max else np.int64
            effects = (h.n_eff, (h.pp_player[lo] * h.n_ctx).astype(kind) + ctx.astype(kind),
                       (h.pp_player[hi] * h.n_ctx).astype(kind) + ctx.astype(kind))
        super().__init__(h.n_pp, lo, hi, x, n, win, np.zeros(n.size), draws, effects)
        self.kappa = float(kappa)

    def evaluate(self, r: np.ndarray, beta: np.ndarray, eta: Optional[float], n_threads: int = 0,
                 e: Optional[np.ndarray] = None):
        """(value, gradient in r, gradient in (beta, eta)[, gradient in the effects]) of the rows' binomial loss;
        keeps the curvature in the game's logit ``d`` (``kappa^2`` times the binomial's)."""
        base = r[self.lo] - r[self.hi]
        if self.n_cov:
            base = base + self.x @ beta
        if self.effects is not None:
            _, e_lo, e_hi = self.effects
            base = base + e[e_lo] - e[e_hi]
        d = self.kappa * base
        p = expit(d)
        value = float(np.sum(self.n * np.logaddexp(0.0, d) - self.win * d))
        f_d = self.kappa * (self.n * p - self.win)
        f_dd = self.kappa ** 2 * self.n * p * (1.0 - p)
        zero = np.zeros(self.n.size) if self.draws else None
        self.curv, self._coef = (f_dd, zero, zero), None
        tail = [self.x.T @ f_d] if self.n_cov else []
        if self.draws:
            tail.append(np.zeros(1))
        tail = np.concatenate(tail) if tail else np.zeros(0)
        if self.effects is None:
            return value, self._net(f_d), tail
        return value, self._net(f_d), tail, self._net_effects(f_d)


class SumRows:
    """The sum of the terms of several :class:`~discrank._history.Rows` over one history (the results' rows and
    the margin rows): each method adds up its parts'."""

    def __init__(self, parts: list) -> None:
        self.parts = parts
        self.n_pp, self.m, self.effects = parts[0].n_pp, parts[0].m, parts[0].effects

    def evaluate(self, *args, **kwargs):
        out = [part.evaluate(*args, **kwargs) for part in self.parts]
        return (sum(o[0] for o in out),) + tuple(sum(o[k] for o in out) for k in range(1, len(out[0])))

    def diagonal(self) -> np.ndarray:
        return sum(part.diagonal() for part in self.parts)

    def global_block(self) -> np.ndarray:
        return sum(part.global_block() for part in self.parts)

    def product(self, *args, **kwargs):
        out = [part.product(*args, **kwargs) for part in self.parts]
        return tuple(sum(o[k] for o in out) for k in range(len(out[0])))

    def cross(self) -> np.ndarray:
        return sum(part.cross() for part in self.parts)

    def close(self) -> None:
        for part in self.parts:
            part.close()


def games_rows(h: History, draws, margin_scale: float = 0.0):
    """The games' terms of ``h`` in process: its results' rows, plus its margin rows at ``margin_scale`` when it
    has them (a ValueError for a history with margins and no positive scale)."""
    rows = Rows.of(h, draws)
    if h.margin is None:
        return rows
    if not margin_scale > 0:
        raise ValueError(f"a margin likelihood needs a positive margin_scale, got {margin_scale!r}")
    return SumRows([rows, MarginRows(h, draws, margin_scale)])
