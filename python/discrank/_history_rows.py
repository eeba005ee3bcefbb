"""The games' terms of the whole-history problem (:class:`Rows`: the results', over player-periods), and its margin
likelihood: the sub-contests of each game (the games of a tennis match,
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

from discrank import _core
from discrank._history_build import History

__all__ = ["Rows", "MarginRows", "SumRows", "games_rows"]


class Rows:
    """The games' terms of the MAP over a set of rows: those of a :class:`History` in process, or a part
    of them held by a Dask worker (:mod:`discrank.dask`).

    :meth:`evaluate` gives the games' loss and gradient at the ratings ``r`` (one per player-period, all
    of them), ``beta`` and the draw parameter, and keeps each row's curvature; :meth:`diagonal`,
    :meth:`global_block`, :meth:`product` and :meth:`cross` then give the games' part of the Hessian at
    that point. The two-outcome loss, its gradient, each row's curvature and the games' Laplacian
    product run in the C++ core's pair kernel over player-periods (``_core.PairObjective``); the
    covariates' and the draw model's terms are numpy over the rows. Every result is a sum over the
    rows, so the results of the parts of a split add up to those of the whole.

    Parameters
    ----------
    n_pp : int
        Player-periods (the length of ``r``).
    lo, hi, x, n, win, draw : ndarray
        The rows (as in :class:`History`; ``lo`` and ``hi`` are used as they are when int32, ``draw`` is
        not read without a draw model and may then be None).
    draws : {False, None, "davidson", "rao-kupper"}
        The draw model.
    """

    def __init__(self, n_pp: int, lo: np.ndarray, hi: np.ndarray, x: np.ndarray, n: np.ndarray, win: np.ndarray,
                 draw: np.ndarray, draws, effects: Optional[tuple] = None) -> None:
        self.n_pp, self.draws = int(n_pp), draws
        self.lo, self.hi = np.ascontiguousarray(lo, np.int32), np.ascontiguousarray(hi, np.int32)
        self.x = np.ascontiguousarray(x, np.float64)  # (n_rows, n_cov), as History.x
        self.n, self.win = np.ascontiguousarray(n, np.float64), np.ascontiguousarray(win, np.float64)
        self.draw = np.ascontiguousarray(draw, np.float64) if draws else None  # (no draw model: not read)
        self.n_cov = int(self.x.shape[1])
        self.m = self.n_cov + (1 if draws else 0)
        y = np.zeros(self.n.size) if draws else self.win / self.n
        self.kernel = _core.PairObjective(max(self.n_pp, 1), self.lo, self.hi, y, self.n)
        self.curv: Optional[tuple] = None  # (f_dd, f_de, f_ee) of the last evaluation
        self._coef: Optional[tuple] = None  # its (rows' coefficients of beta and eta, global block)
        self._shares: Optional[tuple] = None  # the rows' score and draw shares, for the draw model's terms
        # the context effects: (their count, each row's effect of lo, of hi), or None
        self.effects = None if effects is None or not effects[0] else effects

    @classmethod
    def of(cls, h: History, draws) -> "Rows":
        """Every row of ``h``."""
        return cls(h.n_pp, h.lo, h.hi, h.x, h.n, h.win, h.draw, draws,
                   (h.n_eff, *h.effect_nodes()) if h.n_eff else None)

    def _draw_terms(self, d, eta):
        """(f, f_d, f_dd, f_e, f_de, f_ee) per row of the draw model: the loss and its derivatives in d and
        the draw parameter (Davidson's eta = log nu, or Rao and Kupper's threshold kappa; kappa <= 0 is
        outside the model, an infinite loss that the line search backs away from), by the core's
        ``draw_terms`` (losses.hpp's ``draw_block``, also the disc decomposition's draw loss), each row
        weighing its games."""
        if self._shares is None:  # (score share, draw share) per row
            self._shares = ((self.win + 0.5 * self.draw) / self.n, self.draw / self.n)
        model = _core.DRAW_RAO_KUPPER if self.draws == "rao-kupper" else _core.DRAW_DAVIDSON
        return _core.draw_terms(model, np.ascontiguousarray(d, dtype=np.float64), self._shares[0], self._shares[1],
                                self.n, float(eta))

    def evaluate(self, r: np.ndarray, beta: np.ndarray, eta: Optional[float], n_threads: int = 0,
                 e: Optional[np.ndarray] = None):
        """(value, gradient in r, gradient in (beta, eta)) of the rows' loss, and with context effects ``e``
        its gradient in them after; keeps the curvature."""
        offset = self.x @ beta if self.n_cov else None
        if self.effects is not None:
            _, e_lo, e_hi = self.effects
            shift = e[e_lo] - e[e_hi]
            offset = shift if offset is None else offset + shift
        tail = []
        f_de = f_ee = None
        f_d = None
        if not self.draws:
            f_dd = np.zeros(self.n.size)
            value, _, _, g = self.kernel.evaluate(_core.LOSS_BCE, s=r, offset=offset, grad_s=True, curv=f_dd,
                                                  n_threads=n_threads)
            if self.n_cov or self.effects is not None:
                f_d = self.n * expit(r[self.lo] - r[self.hi] + offset) - self.win
            if self.n_cov:
                tail.append(self.x.T @ f_d)
        else:
            d = r[self.lo] - r[self.hi]
            if offset is not None:
                d = d + offset
            f, f_d, f_dd, f_e, f_de, f_ee = self._draw_terms(d, eta)
            value = float(np.sum(f))
            g = self._net(f_d)
            if self.n_cov:
                tail.append(self.x.T @ f_d)
            tail.append(np.array([f_e.sum()]))
        self.curv, self._coef = (f_dd, f_de, f_ee), None
        tail = np.concatenate(tail) if tail else np.zeros(0)
        if self.effects is None:
            return float(value), g, tail
        return float(value), g, tail, self._net_effects(f_d)

    def _net_effects(self, c: np.ndarray) -> np.ndarray:
        """Each context effect's sum of ``c`` over the rows where it is ``lo``'s minus where it is ``hi``'s."""
        k, e_lo, e_hi = self.effects
        return np.bincount(e_lo, c, k) - np.bincount(e_hi, c, k)

    def _net(self, c: np.ndarray) -> np.ndarray:
        """Each player-period's sum of ``c`` over its rows as ``lo`` minus its sum as ``hi``."""
        return np.bincount(self.lo, c, self.n_pp) - np.bincount(self.hi, c, self.n_pp)

    def _coefficients(self) -> tuple:
        """(rowcoef, C) at the last evaluation, computed on first use: each row's coefficients of (beta,
        eta) in the Hessian's cross block, shape (n_rows, m), and the global block, shape (m, m)."""
        if self._coef is None:
            f_dd, f_de, f_ee = self.curv
            cols = [f_dd * self.x[:, k] for k in range(self.n_cov)]
            if self.draws:
                cols.append(f_de)
            C = np.zeros((self.m, self.m))
            if self.n_cov:
                C[:self.n_cov, :self.n_cov] = (self.x * f_dd[:, None]).T @ self.x
            if self.draws:
                C[-1, -1] = f_ee.sum()
                if self.n_cov:
                    C[:self.n_cov, -1] = C[-1, :self.n_cov] = self.x.T @ f_de
            self._coef = (np.stack(cols, axis=1), C)
        return self._coef

    def diagonal(self) -> np.ndarray:
        """The games' part of the ratings' diagonal: each player-period's rows' curvature (then each context
        effect's, with effects)."""
        f_dd = self.curv[0]
        diag = np.bincount(self.lo, f_dd, self.n_pp) + np.bincount(self.hi, f_dd, self.n_pp)
        if self.effects is None:
            return diag
        k, e_lo, e_hi = self.effects
        return np.concatenate([diag, np.bincount(e_lo, f_dd, k) + np.bincount(e_hi, f_dd, k)])

    def global_block(self) -> np.ndarray:
        """The (beta, eta) block of the games' Hessian, shape (m, m)."""
        return self._coefficients()[1] if self.m else np.zeros((0, 0))

    def product(self, vr: np.ndarray, vg: np.ndarray, n_threads: int = 0, ve: Optional[np.ndarray] = None):
        """The games' Hessian times (vr, vg), without the global block's ``C @ vg`` (the caller's, once); with
        context effects, times (vr, ve, vg), their part of the product last."""
        out = self.kernel.hessp_s(self.curv[0], vr, n_threads=n_threads)  # the games' Laplacian
        rowcoef = self._coefficients()[0] if self.m else None
        if self.effects is not None:
            _, e_lo, e_hi = self.effects
            f_dd = self.curv[0]
            de = ve[e_lo] - ve[e_hi]
            out += self._net(f_dd * de)
            along = f_dd * (vr[self.lo] - vr[self.hi] + de)
            if self.m:
                along += rowcoef @ vg
            out_e = self._net_effects(along)
        if not self.m:
            return (out, np.zeros(0)) if self.effects is None else (out, np.zeros(0), out_e)
        out += self._net(rowcoef @ vg)
        dr = vr[self.lo] - vr[self.hi]
        if self.effects is None:
            return out, rowcoef.T @ dr
        return out, rowcoef.T @ (dr + de), out_e

    def cross(self) -> np.ndarray:
        """The (ratings, (beta, eta)) block of the games' Hessian, shape (n_pp, m) (and the context effects'
        rows after the ratings')."""
        rowcoef = self._coefficients()[0]
        net = (self._net if self.effects is None
               else lambda c: np.concatenate([self._net(c), self._net_effects(c)]))
        return np.stack([net(rowcoef[:, k]) for k in range(self.m)], axis=1)

    def close(self) -> None:
        """Nothing to release in process (:class:`discrank.dask` parts release their workers')."""



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
