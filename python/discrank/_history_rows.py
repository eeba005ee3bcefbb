"""The games' terms of the whole-history problem (:class:`Rows`: the results', over player-periods), and its margin
likelihood: the sub-contests of each game (the games of a tennis match, the goals of a football match) as
binomial rows on the game's logit scaled by ``margin_scale``.

A game between ``a`` and ``b`` with logit ``d`` (the ratings' difference, the context effects, the disc game and
``beta . x``) whose margin is ``(m_a, m_b)`` adds ``m_a log sigmoid(kappa d) + m_b log sigmoid(-kappa d)`` to the
log-likelihood of its result: each sub-contest is won by ``a`` with probability ``sigmoid(kappa d)``, ``kappa =
margin_scale`` (a game of tennis is less decisive than a match, so ``kappa < 1``). The terms are those of a
:class:`Rows` over the margin rows of the history (:attr:`discrank._history_build.History.margin`: the games of
one pair of player-periods, covariate value and context, their sub-contests summed), in numpy:
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

__all__ = ["Extra", "Rows", "MarginRows", "SumRows", "games_rows"]


def binomial_terms(d: np.ndarray, n: np.ndarray, win: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """(loss, its derivative, its second derivative in ``d``) of rows of ``n`` contests, ``win`` of them won, each
    with probability ``sigmoid(d)``: ``sum n log(1 + e^d) - win d``, ``n p - win``, ``n p (1 - p)``."""
    p = expit(d)
    return float(np.sum(n * np.logaddexp(0.0, d) - win * d)), n * p - win, n * p * (1.0 - p)


class Extra:
    """The parameters after the ratings that enter each row's logit: the context effects (``e_{p,c}``, lo's with
    ``+``, hi's with ``-``) and the disc components (``u_lo . v_hi - v_lo . u_hi``: the disc game of the paper's
    Section 3, one ``(u, v)`` per player and component, a rating's cyclic part). :meth:`linearize` gives each row's
    term at a point, the effects' derivatives as slots ``(nodes, coefficient)`` (their terms are linear), and the
    point for the disc's bilinear terms, whose products run in the core's row kernel (``_core.DiscRows``: its
    derivatives ``J v``, its sums ``J^T c`` and its exact second-order part, for Newton's steps; and the games'
    whole Hessian product in the ratings and the block, :meth:`Rows.product`'s, in one pass over the rows).

    With ``propensity``, each player's draw propensity ``delta_p`` follows: it enters the row's draw parameter,
    not its logit (``eta + delta_lo + delta_hi``, :meth:`eta_offset`), through the slots :attr:`eta_slots`.

    The block is laid out as the effects (``n_eff``: ``player * n_ctx + context``), then ``u`` of each component
    (``n_players`` each), then ``v`` of each component, then the draw propensities (``n_players``, with
    ``propensity``).
    """

    def __init__(self, n_eff: int, e_lo: Optional[np.ndarray], e_hi: Optional[np.ndarray], k: int, n_players: int,
                 p_lo: np.ndarray, p_hi: np.ndarray, lo: np.ndarray, hi: np.ndarray, n_pp: int,
                 propensity: bool = False) -> None:
        self.n_eff, self.k, self.n_players = int(n_eff), int(k), int(n_players)
        self.size = self.n_eff + (2 * self.k + (1 if propensity else 0)) * self.n_players
        if self.size > np.iinfo(np.int32).max:
            raise ValueError(f"the block after the ratings (context effects, disc, draw propensities) has {self.size} "
                             "entries; the core's row kernel takes at most 2^31 - 1: use fewer contexts or components")
        self.e = None if not self.n_eff else (e_lo.astype(np.int32), e_hi.astype(np.int32))
        p_lo, p_hi = p_lo.astype(np.int64), p_hi.astype(np.int64)
        n, off = self.n_players, self.n_eff
        #: each component's nodes (u of lo, v of lo, u of hi, v of hi), shape (k, 4, rows); the rows' player-periods;
        #: the core's kernel of the rows
        self.nodes = np.empty((0, 4, p_lo.size), np.int32)
        if self.k:
            self.nodes = np.stack([np.stack([off + j * n + p_lo, off + (self.k + j) * n + p_lo, off + j * n + p_hi,
                                             off + (self.k + j) * n + p_hi]) for j in range(self.k)]).astype(np.int32)
        self.lo, self.hi, self.n_pp = np.ascontiguousarray(lo, np.int32), np.ascontiguousarray(hi, np.int32), int(n_pp)
        self._kernel = None
        start = off + 2 * self.k * n
        #: the draw propensities' slots in each row's draw parameter (empty without)
        self.eta_slots = [(start + p_lo, 1.0), (start + p_hi, 1.0)] if propensity else []

    @property
    def kernel(self):
        """The core's kernel of the rows (``_core.DiscRows``), built on first use: a Dask part's block is built
        where the part is cut and used on its worker."""
        if self._kernel is None:
            self._kernel = _core.DiscRows(self.nodes, self.size, self.lo, self.hi, self.n_pp)
        return self._kernel

    def __getstate__(self) -> dict:
        """The block without its kernel (rebuilt on first use where the block is unpickled)."""
        return dict(self.__dict__, _kernel=None)

    def eta_offset(self, w: np.ndarray) -> Optional[np.ndarray]:
        """Each row's draw propensities at ``w`` (``delta_lo + delta_hi``); None without."""
        if not self.eta_slots:
            return None
        return self.along(self.eta_slots, w)

    def linearize(self, w: np.ndarray, n_threads: int = 0) -> tuple[Optional[np.ndarray], list, Optional[np.ndarray]]:
        """(each row's term at ``w``, the effects' slots ``(nodes, coefficient)`` of its derivative, the point of
        the disc's terms: ``w`` itself, None without components)."""
        term, slots, point = None, [], None
        if self.e is not None:
            e_lo, e_hi = self.e
            term = w[e_lo] - w[e_hi]
            slots += [(e_lo, 1.0), (e_hi, -1.0)]
        if self.k:
            point = np.array(w, dtype=np.float64)  # (a copy: the products' point, whatever becomes of w)
            cyclic = self.kernel.term(point, n_threads)
            term = cyclic if term is None else term + cyclic
        return term, slots, point

    def net(self, slots: list, c: np.ndarray, point: Optional[np.ndarray] = None, f: Optional[np.ndarray] = None,
            v: Optional[np.ndarray] = None, n_threads: int = 0) -> np.ndarray:
        """Each parameter's sum over the rows of ``c`` times its derivative (``J^T c``), the disc's at ``point``
        where given; with ``f`` and ``v``, plus the disc term's second-order part ``sum_rows f d''(point) v``."""
        out = np.zeros(self.size)
        for nodes, coef in slots:
            out += np.bincount(nodes, c * coef, self.size)
        if point is not None:
            self.kernel.net(point, np.ascontiguousarray(c, dtype=np.float64), out,
                          None if f is None else np.ascontiguousarray(f, dtype=np.float64),
                          None if v is None else np.ascontiguousarray(v, dtype=np.float64), n_threads)
        return out

    @staticmethod
    def along(slots: list, v: np.ndarray) -> Optional[np.ndarray]:
        """Each row's derivative along ``v`` through ``slots`` (``J v`` of the effects or the draw propensities; the
        disc's is in the kernel's :meth:`Rows.product`); None without slots."""
        out = None
        for nodes, coef in slots:
            part = coef * v[nodes]
            out = part if out is None else out + part
        return out

    def diagonal(self, slots: list, f_dd: np.ndarray, point: Optional[np.ndarray] = None) -> np.ndarray:
        """The diagonal of ``J^T diag(f_dd) J`` (the disc's at ``point`` where given)."""
        out = np.zeros(self.size)
        for nodes, coef in slots:
            out += np.bincount(nodes, f_dd * np.square(coef), self.size)
        if point is not None:
            for u_lo, v_lo, u_hi, v_hi in self.nodes:
                for node, partner in ((u_lo, v_hi), (v_lo, u_hi), (u_hi, v_lo), (v_hi, u_lo)):
                    out += np.bincount(node, f_dd * np.square(point[partner]), self.size)
        return out


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
    extra : Extra, optional
        The block after the ratings that enters the rows (context effects, disc, draw propensities).
    scale : ndarray of float, optional
        Each row's scale of its logit (its match format's, fixed during a fit): the row's logit is ``scale``
        times its ratings' difference and offsets (the loss and its derivatives then run in numpy: the core's
        pair kernel has no scale per row). None: 1.
    """

    def __init__(self, n_pp: int, lo: np.ndarray, hi: np.ndarray, x: np.ndarray, n: np.ndarray, win: np.ndarray,
                 draw: np.ndarray, draws, extra: Optional[Extra] = None, scale: Optional[np.ndarray] = None) -> None:
        self.n_pp, self.draws = int(n_pp), draws
        self.lo, self.hi = np.ascontiguousarray(lo, np.int32), np.ascontiguousarray(hi, np.int32)
        self.x = np.ascontiguousarray(x, np.float64)  # (n_rows, n_cov), as History.x
        self.n, self.win = np.ascontiguousarray(n, np.float64), np.ascontiguousarray(win, np.float64)
        self.draw = np.ascontiguousarray(draw, np.float64) if draws else None  # (no draw model: not read)
        self.n_cov = int(self.x.shape[1])
        self.scale = None if scale is None else np.ascontiguousarray(scale, np.float64)
        self.m = self.n_cov + (1 if draws else 0)
        y = np.zeros(self.n.size) if draws else self.win / self.n
        self.kernel = _core.PairObjective(max(self.n_pp, 1), self.lo, self.hi, y, self.n)
        self.curv: Optional[tuple] = None  # (f_dd, f_de, f_ee) of the last evaluation
        self._coef: Optional[tuple] = None  # its (rows' coefficients of beta and eta, global block)
        self._shares: Optional[tuple] = None  # the rows' score and draw shares, for the draw model's terms
        # the context effects and disc components (Extra), or None; its slots at the last evaluation
        self.extra = None if extra is None or not extra.size else extra
        self._slots: list = []
        self._point: Optional[np.ndarray] = None  # the disc's point at the last evaluation (None: no disc)
        self._f_d: Optional[np.ndarray] = None  # each row's first derivative at the last evaluation

    @classmethod
    def of(cls, h: History, draws, disc: int = 0, propensity: bool = False,
           format_scales: Optional[np.ndarray] = None) -> "Rows":
        """Every row of ``h`` (with ``disc`` components of the disc game, each player's draw propensity, and with
        ``format_scales`` each row's format's scale of the logit, ``h.fmt`` indexing them)."""
        return cls(*cls.args_of(h, draws, disc, propensity, format_scales))

    @staticmethod
    def args_of(h: History, draws, disc: int = 0, propensity: bool = False,
                format_scales: Optional[np.ndarray] = None, part: Optional[slice] = None) -> tuple:
        """The arguments of the :class:`Rows` of the rows ``part`` of ``h`` (None: every row, its arrays as they
        are; :meth:`of`; :mod:`discrank.dask` ships each part's to a worker)."""
        lo, hi = _part(h.lo, part), _part(h.hi, part)
        fmt = _part(h.fmt, part)
        scale = None if format_scales is None or fmt is None else np.asarray(format_scales, np.float64)[fmt]
        return (h.n_pp, lo, hi, _part(h.x, part), _part(h.n, part), _part(h.win, part),
                _part(h.draw, part) if draws else None, draws,
                extra_of(h, lo, hi, _part(h.ctx, part), disc, propensity), scale)

    def _draw_terms(self, d, eta, shift=None):
        """(f, f_d, f_dd, f_e, f_de, f_ee) per row of the draw model: the loss and its derivatives in d and
        the draw parameter (Davidson's eta = log nu, or Rao and Kupper's threshold kappa; kappa <= 0 is
        outside the model, an infinite loss that the line search backs away from), by the core's
        ``draw_terms`` (losses.hpp's ``draw_block``, also the disc decomposition's draw loss), each row
        weighing its games; ``shift`` (optional): each row's draw propensities, added to the draw parameter."""
        if self._shares is None:  # (score share, draw share) per row
            self._shares = ((self.win + 0.5 * self.draw) / self.n, self.draw / self.n)
        model = _core.DRAW_RAO_KUPPER if self.draws == "rao-kupper" else _core.DRAW_DAVIDSON
        rows_eta = None if shift is None else np.ascontiguousarray(float(eta) + shift)
        return _core.draw_terms(model, np.ascontiguousarray(d, dtype=np.float64), self._shares[0], self._shares[1],
                                self.n, float(eta), rows_eta)

    def evaluate(self, r: np.ndarray, beta: np.ndarray, eta: Optional[float], n_threads: int = 0,
                 e: Optional[np.ndarray] = None):
        """(value, gradient in r, gradient in (beta, eta)) of the rows' loss, and with the block ``e`` of the
        context effects and disc components (:class:`Extra`) its gradient in them after; keeps the curvature."""
        offset = self._offset(beta, e, n_threads)
        if self.draws or self.scale is not None:
            return self._evaluate_numpy(r, eta, offset, e, n_threads)
        f_dd = np.zeros(self.n.size)
        value, _, _, g = self.kernel.evaluate(_core.LOSS_BCE, s=r, offset=offset, grad_s=True, curv=f_dd,
                                              n_threads=n_threads)
        f_d = None
        if self.n_cov or self.extra is not None:
            f_d = self.n * expit(r[self.lo] - r[self.hi] + offset) - self.win
        tail = [self.x.T @ f_d] if self.n_cov else []
        self.curv, self._coef, self._f_d = (f_dd, None, None), None, f_d
        return self._results(value, g, tail, f_d, None, n_threads)

    def _results(self, value: float, g: np.ndarray, tail: list, f_d: np.ndarray, f_e: Optional[np.ndarray],
                 n_threads: int = 0):
        """:meth:`evaluate`'s tuple: the value, the ratings' gradient, the global block's, then the block's."""
        tail = np.concatenate(tail) if tail else np.zeros(0)
        if self.extra is None:
            return float(value), g, tail
        g_e = self.extra.net(self._slots, f_d, self._point, n_threads=n_threads)
        if self.draws and self.extra.eta_slots:
            g_e += self.extra.net(self.extra.eta_slots, f_e)
        return float(value), g, tail, g_e

    def _evaluate_numpy(self, r: np.ndarray, eta: Optional[float], offset, e, n_threads: int = 0):
        """:meth:`evaluate` in numpy: the rows of a draw model (the core's ``draw_terms``), or with a scale: the
        logit ``d = s b`` of each row's base ``b`` (its ratings' difference and offsets). The ratings, beta and the
        block see the loss through ``b``: its derivatives in ``b`` are ``s f_d`` and ``s^2 f_dd`` (the draw
        parameter's cross term ``s f_de``), kept as the rows' curvature; for a fixed ``s`` the problem stays as
        convex as without."""
        scale = self.scale
        d = r[self.lo] - r[self.hi]
        if offset is not None:
            d = d + offset
        if scale is not None:
            d = scale * d
        f_e = f_de = f_ee = None
        if not self.draws:
            value, f_d, f_dd = binomial_terms(d, self.n, self.win)
        else:
            shift = None if e is None else self.extra.eta_offset(e)
            f, f_d, f_dd, f_e, f_de, f_ee = self._draw_terms(d, eta, shift)
            value = float(np.sum(f))
        if scale is not None:
            f_d, f_dd, f_de = scale * f_d, scale * scale * f_dd, None if f_de is None else scale * f_de
        tail = [self.x.T @ f_d] if self.n_cov else []
        if self.draws:
            tail.append(np.array([f_e.sum()]))
        self.curv, self._coef, self._f_d = (f_dd, f_de, f_ee), None, f_d
        return self._results(value, self._net(f_d), tail, f_d, f_e, n_threads)

    def _offset(self, beta: np.ndarray, e: Optional[np.ndarray], n_threads: int = 0) -> Optional[np.ndarray]:
        """Each row's logit beyond its ratings' difference (``beta . x`` and the block ``e``'s term); the block's
        slots kept for the curvature's products."""
        offset = self.x @ beta if self.n_cov else None
        if self.extra is not None:
            shift, self._slots, self._point = self.extra.linearize(e, n_threads)
            if shift is not None:  # (None: a block of draw propensities alone, no logit term)
                offset = shift if offset is None else offset + shift
        return offset

    def _net(self, c: np.ndarray) -> np.ndarray:
        """Each player-period's sum of ``c`` over its rows as ``lo`` minus its sum as ``hi``."""
        return np.bincount(self.lo, c, self.n_pp) - np.bincount(self.hi, c, self.n_pp)

    def _coefficients(self) -> tuple:
        """(rowcoef, C) at the last evaluation, computed on first use: each row's coefficients of (beta,
        eta) in the Hessian's cross block, shape (n_rows, m), and the global block, shape (m, m)."""
        if self._coef is None:
            f_dd, f_de, f_ee = self.curv
            cols = [f_dd * self.x[:, k] for k in range(self.n_cov)]
            C = np.zeros((self.m, self.m))
            if self.draws:
                cols.append(f_de)
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
        if self.extra is None:
            return diag
        extra = self.extra.diagonal(self._slots, f_dd, self._point)
        if self.draws and self.extra.eta_slots:
            extra += self.extra.diagonal(self.extra.eta_slots, self.curv[2])
        return np.concatenate([diag, extra])

    def global_block(self) -> np.ndarray:
        """The (beta, eta) block of the games' Hessian, shape (m, m)."""
        return self._coefficients()[1] if self.m else np.zeros((0, 0))

    def product(self, vr: np.ndarray, vg: np.ndarray, n_threads: int = 0, ve: Optional[np.ndarray] = None):
        """The games' Hessian times (vr, vg), without the global block's ``C @ vg`` (the caller's, once); with
        context effects, times (vr, ve, vg), their part of the product last."""
        rowcoef = self._coefficients()[0] if self.m else None
        if self.extra is None:
            out = self.kernel.hessp_s(self.curv[0], vr, n_threads=n_threads)  # the games' Laplacian
            if not self.m:  # the games' Laplacian is the whole product
                return out, np.zeros(0)
            out += self._net(rowcoef @ vg)
            return out, rowcoef.T @ (vr[self.lo] - vr[self.hi])
        # with the block: each row's derivative along (vr, ve, vg), weighed by its curvature, summed into the
        # ratings and the disc in one pass over the rows (the core's kernel); the effects and propensities here
        f_dd, f_de, f_ee = self.curv
        shift = self.extra.along(self._slots, ve)  # the context effects' part of each row's derivative (or None)
        dp = self.extra.along(self.extra.eta_slots, ve) if self.draws and self.extra.eta_slots else None
        add = rowcoef @ vg if self.m else None
        if dp is not None:  # the draw propensities: the draw parameter's terms per row
            add = f_de * dp if add is None else add + f_de * dp
        out, out_e, along, delta = self.extra.kernel.product(self._point, f_dd, self._f_d, vr, ve, shift, add,
                                                             bool(self.m), n_threads)
        if self._slots:
            out_e += self.extra.net(self._slots, along)
        if dp is not None:
            jd = f_de * (delta + (self.x @ vg[:self.n_cov] if self.n_cov else 0.0))
            out_e += self.extra.net(self.extra.eta_slots, jd + f_ee * (vg[-1] + dp))
        if not self.m:  # (the block alone after the ratings)
            return out, np.zeros(0), out_e
        tail = rowcoef.T @ delta
        if dp is not None:
            tail[:self.n_cov] += self.x.T @ (f_de * dp)
            tail[-1] += float(np.dot(f_ee, dp))
        return out, tail, out_e

    def cross(self, n_threads: int = 0) -> np.ndarray:
        """The (ratings, (beta, eta)) block of the games' Hessian, shape (n_pp, m) (and the context effects'
        rows after the ratings')."""
        rowcoef = self._coefficients()[0]
        net = (self._net if self.extra is None
               else lambda c: np.concatenate([self._net(c), self.extra.net(self._slots, c, self._point,
                                                                           n_threads=n_threads)]))
        out = np.stack([net(rowcoef[:, k]) for k in range(self.m)], axis=1)
        if self.extra is not None and self.draws and self.extra.eta_slots:  # the draw propensities' rows
            _, f_de, f_ee = self.curv
            cols = [f_de * self.x[:, k] for k in range(self.n_cov)] + [f_ee]
            for k, c in enumerate(cols):
                out[self.n_pp:, k] += self.extra.net(self.extra.eta_slots, c)
        return out

    def close(self) -> None:
        """Nothing to release in process (:class:`discrank.dask` parts release their workers')."""



class MarginRows(Rows):
    """The binomial terms of the margin rows of a history at the logit scale ``kappa`` (see the module). Their
    tail (beta, and a zero for the draw parameter when the problem has one) matches the results' rows."""

    def __init__(self, n_pp: int, lo: np.ndarray, hi: np.ndarray, x: np.ndarray, n: np.ndarray, win: np.ndarray,
                 draws, kappa: float, extra: Optional[Extra] = None) -> None:
        super().__init__(n_pp, lo, hi, x, n, win, np.zeros(n.size), draws, extra)
        self.kappa = float(kappa)

    @classmethod
    def of(cls, h: History, draws, kappa: float, disc: int = 0, propensity: bool = False) -> "MarginRows":
        """Every margin row of ``h`` (:attr:`discrank._history_build.History.margin`), with ``disc`` components
        and each player's draw propensity as :meth:`Rows.of`."""
        return cls(*cls.args_of(h, draws, kappa, disc, propensity))

    @staticmethod
    def args_of(h: History, draws, kappa: float, disc: int = 0, propensity: bool = False,
                part: Optional[slice] = None) -> tuple:
        """The arguments of the :class:`MarginRows` of the margin rows ``part`` of ``h`` (None: every one); a
        ValueError for a scale ``kappa`` that is not positive."""
        if not kappa > 0:
            raise ValueError(f"a margin likelihood needs a positive margin_scale, got {kappa!r}")
        lo, hi, x, n, win, ctx = (_part(v, part) for v in h.margin)
        return (h.n_pp, lo, hi, x, n, win, draws, kappa, extra_of(h, lo, hi, ctx, disc, propensity))

    def evaluate(self, r: np.ndarray, beta: np.ndarray, eta: Optional[float], n_threads: int = 0,
                 e: Optional[np.ndarray] = None):
        """(value, gradient in r, gradient in (beta, eta)[, gradient in the effects]) of the rows' binomial loss;
        keeps the curvature in the game's logit ``d`` (``kappa^2`` times the binomial's)."""
        base = r[self.lo] - r[self.hi]
        offset = self._offset(beta, e, n_threads)
        if offset is not None:
            base = base + offset
        value, f_d, f_dd = binomial_terms(self.kappa * base, self.n, self.win)
        f_d, f_dd = self.kappa * f_d, self.kappa ** 2 * f_dd
        zero = np.zeros(self.n.size) if self.draws else None
        self.curv, self._coef, self._f_d = (f_dd, zero, zero), None, f_d
        tail = [self.x.T @ f_d] if self.n_cov else []
        if self.draws:
            tail.append(np.zeros(1))
        tail = np.concatenate(tail) if tail else np.zeros(0)
        if self.extra is None:
            return value, self._net(f_d), tail
        return value, self._net(f_d), tail, self.extra.net(self._slots, f_d, self._point, n_threads=n_threads)


class SumRows:
    """The sum of the terms of several :class:`~discrank._history.Rows` over one history (the results' rows and
    the margin rows): each method adds up its parts'."""

    def __init__(self, parts: list) -> None:
        self.parts = parts
        self.n_pp, self.m, self.extra = parts[0].n_pp, parts[0].m, parts[0].extra

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

    def cross(self, n_threads: int = 0) -> np.ndarray:
        return sum(part.cross(n_threads) for part in self.parts)

    def close(self) -> None:
        for part in self.parts:
            part.close()


def _part(values: Optional[np.ndarray], part: Optional[slice]) -> Optional[np.ndarray]:
    """The entries ``part`` of ``values`` (all of them, the array itself, for None; None for None)."""
    return values if values is None or part is None else values[part]


def extra_of(h: History, lo: np.ndarray, hi: np.ndarray, ctx: Optional[np.ndarray], disc: int,
             propensity: bool = False) -> Optional[Extra]:
    """The :class:`Extra` block of rows ``lo``, ``hi`` (player-periods of ``h``) in contexts ``ctx``: ``h``'s
    context effects, ``disc`` components of the disc game and with ``propensity`` each player's draw propensity
    (None: none of them)."""
    if not h.n_eff and not disc and not propensity:
        return None
    p_lo, p_hi = h.pp_player[lo], h.pp_player[hi]
    e_lo = e_hi = None
    if h.n_eff:
        e_lo, e_hi = p_lo * h.n_ctx + ctx, p_hi * h.n_ctx + ctx
    return Extra(h.n_eff, e_lo, e_hi, disc, h.n_players, p_lo, p_hi, lo, hi, h.n_pp, propensity)


def games_rows(h: History, draws, margin_scale: float = 0.0, disc: int = 0, propensity: bool = False,
               format_scales: Optional[np.ndarray] = None):
    """The games' terms of ``h`` in process: its results' rows, plus its margin rows at ``margin_scale`` when it
    has them (a ValueError for a history with margins and no positive scale); ``disc`` components of the disc
    game in the rows' logits; with ``propensity``, each player's draw propensity in the rows' draw parameter;
    ``format_scales``: each match format's scale of the results' logits (the margin rows unscaled: a
    sub-contest is the same whatever the match's length)."""
    rows = Rows.of(h, draws, disc, propensity, format_scales)
    if h.margin is None:
        return rows
    return SumRows([rows, MarginRows.of(h, draws, margin_scale, disc, propensity)])
