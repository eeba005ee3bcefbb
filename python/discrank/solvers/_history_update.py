"""Incremental updates of the whole-history MAP (:class:`HistoryState`): new games absorbed by re-solving the
player-periods they touch, with the rest of the history held.

A fitted MAP (:mod:`discrank.solvers._history`) satisfies ``max |g| <= tau`` over every rating. New games, in
periods at or after each of their players' latest, add rows and player-periods (a new period is a new link of
the player's chain, started at its latest rating) and change the gradient only where they touch.
:meth:`HistoryState.absorb` restores the condition:

1. Newton's method on a set ``S`` of player-periods (those of the new games and ``reach`` periods back along
   their chains) with every other rating held: a sparse Hessian over ``S`` solved by conjugate gradients
   preconditioned by its chains' tridiagonal blocks;
2. the gradient of every other player-period moves only through the games and links it shares with ``S``:
   those changes are added to the kept gradient (tracked exactly), and where it now exceeds ``tau`` the
   player-period joins ``S``;
3. repeated (``rounds`` times at most) until no gradient outside ``S`` exceeds ``tau``; else
   :attr:`HistoryState.gradient` says how far it is.

The global parameters (``beta``, the draw parameter) are held, their gradient tracked the same way: when it
exceeds ``tau``, for late results (games before a player's latest period) and for a change that spreads past
``MAX_SHARE`` of the history, :meth:`~HistoryState.absorb` asks for a refit of the whole history. The games'
curvature is tracked too, so that the Laplace variances (:func:`discrank.solvers._history.chain_variances`) are
the MAP's when the state is read. Local solves alone drift from the MAP of every game, so the state serves as
the start of a whole-history solve (:mod:`discrank.models.dynamic._tuning`, :mod:`discrank.models.dynamic._update`).
"""

from __future__ import annotations

from typing import Optional

import numpy as np
from scipy import sparse
from scipy.linalg import lapack
from scipy.sparse.linalg import LinearOperator, cg
from scipy.special import expit

from discrank.core import _core
from discrank.solvers._history import chain_pivots, chain_precisions, chain_variances, gradient_at

__all__ = ["HistoryState", "LATE"]

#: :meth:`HistoryState.absorb`'s answer for games in a period earlier than one of their players' latest.
LATE = "late"
#: The largest share of the player-periods an update may move before it asks for a refit of the whole history.
MAX_SHARE = 0.25


class _Grow:
    """An array that grows at its end (its capacity an eighth over its size when it grows), read as :attr:`a`."""

    def __init__(self, values: np.ndarray) -> None:
        self.buf = values  # taken, not copied (the caller's array, or one given up to the state)
        self.size = len(values)

    def extend(self, values: np.ndarray) -> np.ndarray:
        """Append ``values``; returns the indices they got."""
        k = len(values)
        if self.size + k > len(self.buf):  # an eighth more than needed: updates add little to a history
            cap = max(self.size + k + (self.size + k) // 8, 16)
            new = np.empty((cap,) + self.buf.shape[1:], self.buf.dtype)
            new[:self.size] = self.buf[:self.size]
            self.buf = new
        self.buf[self.size:self.size + k] = values
        self.size += k
        return np.arange(self.size - k, self.size)

    @property
    def a(self) -> np.ndarray:
        return self.buf[:self.size]


def _ranges(starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The concatenation of ``arange(s, s + c)`` for each start and count."""
    total = int(counts.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    return np.repeat(starts - np.cumsum(counts) + counts, counts) + np.arange(total)


class HistoryState:
    """A whole-history MAP kept for incremental updates (see the module).

    Parameters
    ----------
    h : History
        The history fitted (:func:`discrank.solvers._history.build_history`); kept, not copied.
    theta : ndarray
        Its fitted parameters: the ratings of its player-periods, then ``beta``, then the draw parameter.
    drift, prior : float
        The random walk's drift per period and the prior scale of a first rating.
    draws : {None, "davidson", "rao-kupper"}
        The draw model.
    tau : float
        The gradient's bound (the caller's tolerance times its scale).
    n_threads : int
        Threads of the core's pair kernel for the one evaluation of the whole history at the start.
    grad, games_diag : ndarray, optional
        The gradient at ``theta`` and the games' curvature of each player-period there (a fit's
        :class:`discrank.solvers._history.HistoryResult` has them); taken by the state, which writes into them.
        None: one evaluation of the whole history.
    """

    def __init__(self, h, theta: np.ndarray, drift: float, prior: float, draws: Optional[str], tau: float,
                 n_threads: int = 0, grad: Optional[np.ndarray] = None,
                 games_diag: Optional[np.ndarray] = None) -> None:
        self.h, self.draws, self.tau = h, draws, float(tau)
        self.drift, self.prior_prec = float(drift), 1.0 / float(prior) ** 2
        n = h.n_pp
        self.n_base_pp, self.n_base_rows, self.n_cov = n, h.lo.size, h.n_cov
        theta = np.asarray(theta, dtype=np.float64)
        if grad is None or games_diag is None:
            grad, games_diag = gradient_at(h, drift, prior, draws, theta, n_threads)
        self.tail = theta[n:].copy()
        self.g_tail = grad[n:].copy()
        first = h.first
        # each player-period's predecessor and successor in its chain (-1: none), int32 (the core's kernel
        # takes at most 2^31 - 1 player-periods)
        prev = np.where(first, -1, np.arange(n, dtype=np.int32) - 1).astype(np.int32)
        nxt = np.full(n, -1, dtype=np.int32)
        nxt[prev[prev >= 0]] = np.flatnonzero(prev >= 0)
        link = np.zeros(n)
        link[1:] = chain_precisions(h.gap, drift)  # each player-period's link to the one before (0: none)
        # the history's players and periods shared (never written: copied when the state grows)
        self.pp_player = _Grow(np.asarray(h.pp_player, dtype=np.int64))
        self.pp_bin = _Grow(np.asarray(h.pp_bin, dtype=np.int64))
        self.prev, self.nxt, self.link = _Grow(prev), _Grow(nxt), _Grow(link)
        self.r, self.g = _Grow(theta[:n].copy()), _Grow(grad[:n])
        self.gdiag = _Grow(games_diag)  # the games' curvature of each player-period
        self.last = np.full(h.n_players, -1, dtype=np.int64)
        last_of = np.flatnonzero(np.r_[first[1:], True]) if n else np.zeros(0, dtype=np.int64)
        self.last[h.pp_player[last_of]] = last_of
        cols = max(self.n_cov, 1)
        self.rows = {"lo": _Grow(np.zeros(0, np.int64)), "hi": _Grow(np.zeros(0, np.int64)),
                     "x": _Grow(np.zeros((0, cols))), "n": _Grow(np.zeros(0)), "win": _Grow(np.zeros(0)),
                     "draw": _Grow(np.zeros(0))}
        self.ext_pp, self.ext_row = np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        self._loc = np.zeros(0, dtype=np.int64)  # player-period -> index in a local problem (-1: outside)
        self._sorted = None  # the player-periods in (player, period) order, once asked for

    # ------------------------------------------------------------------ structure
    @property
    def n_pp(self) -> int:
        return self.r.size

    def _diag(self, k: np.ndarray) -> np.ndarray:
        """The ratings' Hessian diagonal at player-periods ``k``: games, chain links on both sides, prior."""
        link, nxt = self.link.a, self.nxt.a
        after = np.where(nxt[k] >= 0, link[np.maximum(nxt[k], 0)], 0.0)
        return self.gdiag.a[k] + link[k] + after + np.where(self.prev.a[k] < 0, self.prior_prec, 0.0)

    def _rows_touching(self, s: np.ndarray) -> np.ndarray:
        """The rows (ids: the history's, then the appended ones after them) with an end in ``s``: the
        history's found by one pass over its rows' ends (a mask of ``s``), the appended ones by their sorted
        ends."""
        h = self.h
        mark = np.zeros(self.n_pp, dtype=bool)
        mark[s] = True
        parts = [np.flatnonzero(mark[h.lo] | mark[h.hi])]
        if self.ext_pp.size:
            left = np.searchsorted(self.ext_pp, s, "left")
            right = np.searchsorted(self.ext_pp, s, "right")
            parts.append(self.ext_row[_ranges(left, right - left)])
        return _union(self.n_base_rows + self.rows["lo"].size, parts)

    def _row_data(self, ids: np.ndarray) -> tuple:
        """(lo, hi, x, n, win, draw) of rows ``ids`` (sorted: the history's first)."""
        h, nb = self.h, self.n_base_rows
        cut = int(np.searchsorted(ids, nb))
        b, e = ids[:cut], ids[cut:] - nb
        ext = self.rows
        x_ext = ext["x"].a[e][:, :self.n_cov]
        return (np.concatenate([h.lo[b].astype(np.int64), ext["lo"].a[e]]),
                np.concatenate([h.hi[b].astype(np.int64), ext["hi"].a[e]]),
                np.concatenate([h.x[b], x_ext]), np.concatenate([h.n[b], ext["n"].a[e]]),
                np.concatenate([h.win[b], ext["win"].a[e]]), np.concatenate([h.draw[b], ext["draw"].a[e]]))

    # ------------------------------------------------------------------ new games
    def absorb(self, a: np.ndarray, b: np.ndarray, score: np.ndarray, bins: np.ndarray, x: Optional[np.ndarray],
               w: Optional[np.ndarray], n_players: int, reach: int = 16, rounds: int = 1,
               max_share: float = MAX_SHARE) -> Optional[str]:
        """Add games and restore ``max |g| <= tau`` (see the module).

        Parameters
        ----------
        a, b : ndarray of int64
            The players' codes (new players: codes from the state's count of players up to ``n_players``).
        score : ndarray of float
            The score of ``a`` (1, 0.5, 0 with a draw model).
        bins : ndarray of int64
            Each game's period.
        x : ndarray, shape (n_games, n_cov), optional
            The covariates, attributed to ``a``.
        w : ndarray, optional
            The games each entry stands for (default one each).
        n_players : int
            The players after the update.
        reach : int
            The player-periods back along each touched chain re-solved with the new ones (and with each
            player-period that joins).
        rounds : int
            The local solves at most: after each, the player-periods outside whose gradient exceeds ``tau``
            join (with ``reach`` before each), until none does.
        max_share : float
            The share of the player-periods past which the update stops and asks for a global refit.

        Returns
        -------
        None or str
            None: absorbed. :data:`LATE`: a game in a period before one of its players' latest (nothing
            changed). ``"partial"``: the rounds ran out with a gradient above ``tau`` outside the re-solved
            player-periods (:attr:`gradient` says how far). ``"global"``: absorbed with the global parameters'
            gradient above ``tau``, or with a change that spread past ``max_share`` of the player-periods,
            not finished: a refit of the whole history, started from these ratings, is needed.
        """
        if n_players > self.last.size:
            self.last = np.concatenate([self.last, np.full(n_players - self.last.size, -1, dtype=np.int64)])
        g = a.size
        players, periods = np.concatenate([a, b]), np.concatenate([bins, bins])
        pmin = int(bins.min())
        span = int(bins.max()) - pmin + 1
        keys, inv = np.unique(players * span + (periods - pmin), return_inverse=True)
        P, T = keys // span, keys % span + pmin
        lastpp = self.last[P]
        lastbin = np.where(lastpp >= 0, self.pp_bin.a[np.maximum(lastpp, 0)], np.iinfo(np.int64).min)
        if (T < lastbin).any():
            return LATE
        new = T != lastbin
        ids = lastpp.copy()
        ids[new] = self.n_pp + np.arange(int(new.sum()))
        same = np.r_[False, P[1:] == P[:-1]]
        prev = np.where(same, np.r_[-1, ids[:-1]], lastpp)[new]
        prevbin = np.where(same, np.r_[0, T[:-1]], lastbin)[new]
        has = prev >= 0
        link = chain_precisions(np.where(has, T[new] - prevbin, 0).astype(np.float64), self.drift)
        r = self.r.a
        self._sorted = None
        self.pp_player.extend(P[new])
        self.pp_bin.extend(T[new])
        self.prev.extend(prev)
        self.nxt.extend(np.full(prev.size, -1, dtype=np.int64))
        self.link.extend(link)
        known = lastpp[new] >= 0  # a new period starts at the player's latest rating (a new player at 0)
        self.r.extend(np.where(known, r[np.maximum(lastpp[new], 0)], 0.0))
        for grow in (self.g, self.gdiag):
            grow.extend(np.zeros(prev.size))
        fresh = ids[new]
        self.nxt.a[prev[has]] = fresh[has]  # a new period's predecessor may itself be new
        latest = np.r_[P[1:] != P[:-1], True]  # each player's last key: its latest player-period
        self.last[P[latest]] = ids[latest]
        pa, pb = ids[inv[:g]], ids[inv[g:]]
        rows = self._append_rows(pa, pb, score, x, w)
        s = self._chains_back(np.unique(np.concatenate([pa, pb])), reach)
        status = None
        for k in range(rounds):
            out = self._solve_on(s, rows)
            rows = None
            big = out[np.abs(self.g.a[out]) > self.tau]
            if big.size == 0:
                break
            if k + 1 == rounds:
                status = "partial"
                break
            s = _union(self.n_pp, [s, self._chains_back(big, reach)])
            if s.size > max_share * self.n_pp and s.size > 1000:
                status = "global"
                break
        if self.g_tail.size and float(np.abs(self.g_tail).max()) > self.tau:
            status = "global"
        return status

    def _chains_back(self, pps: np.ndarray, reach: int) -> np.ndarray:
        """``pps`` and up to ``reach`` player-periods before each along its chain."""
        prev, parts, cur = self.prev.a, [pps], pps
        for _ in range(reach):
            cur = prev[cur]
            cur = cur[cur >= 0]
            if cur.size == 0:
                break
            parts.append(cur)
        return _union(self.n_pp, parts)

    def _append_rows(self, pa: np.ndarray, pb: np.ndarray, score: np.ndarray, x: Optional[np.ndarray],
                     w: Optional[np.ndarray]) -> np.ndarray:
        """Append one row per game (player-periods ``pa``, ``pb``); returns their ids."""
        g = pa.size
        n = np.ones(g) if w is None else np.asarray(w, dtype=np.float64)
        if self.draws:
            win, draw = (score == 1.0) * n, (score == 0.5) * n
        else:
            win, draw = score * n, np.zeros(g)
        xs = np.zeros((g, self.rows["x"].buf.shape[1]))
        if self.n_cov:
            xs[:, :self.n_cov] = x
        ext = self.rows
        idx = ext["lo"].extend(pa)
        ext["hi"].extend(pb)
        ext["x"].extend(xs)
        for key, value in (("n", n), ("win", win), ("draw", draw)):
            ext[key].extend(value)
        ids = idx + self.n_base_rows
        ends, rid = np.concatenate([pa, pb]), np.concatenate([ids, ids])
        order = np.argsort(ends, kind="stable")
        pos = np.searchsorted(self.ext_pp, ends[order], "right")
        self.ext_pp = np.insert(self.ext_pp, pos, ends[order])
        self.ext_row = np.insert(self.ext_row, pos, rid[order])
        return ids

    def _terms(self, d: np.ndarray, n: np.ndarray, win: np.ndarray, draw: np.ndarray) -> tuple:
        """(f, f_d, f_dd, f_e) per row: the games' loss at logits ``d`` and its derivatives (``f_e``: in the draw
        parameter, None without a draw model), as the core's whole-history problem's."""
        if not self.draws:
            p = expit(d)
            return n * np.logaddexp(0.0, d) - win * d, n * p - win, n * p * (1.0 - p), None
        model = _core.DRAW_RAO_KUPPER if self.draws == "rao-kupper" else _core.DRAW_DAVIDSON
        f, f_d, f_dd, f_e, _, _ = _core.draw_terms(model, np.ascontiguousarray(d), (win + 0.5 * draw) / n, draw / n,
                                                   n, float(self.tail[-1]))
        return f, f_d, f_dd, f_e

    def _solve_on(self, s: np.ndarray, fresh: Optional[np.ndarray]) -> np.ndarray:
        """Newton's method on the ratings of ``s`` with the others held; the gradient and curvature kept for
        ``s`` and updated at its neighbours; returns the neighbours outside ``s``. ``fresh``: the ids of rows
        added by this update (their terms did not exist before, for the global parameters' gradient)."""
        s = s[np.lexsort((self.pp_bin.a[s], self.pp_player.a[s]))]  # chains in order: a tridiagonal block each
        m = s.size
        if self._loc.size < self.n_pp:
            self._loc = np.full(self.n_pp + self.n_pp // 8, -1, dtype=np.int64)
        loc, r = self._loc, self.r.a
        loc[s] = np.arange(m)
        ids = self._rows_touching(s)
        lo, hi, x, n, win, draw = self._row_data(ids)
        off = x @ self.tail[:self.n_cov] if self.n_cov else 0.0
        prev, nxt, link = self.prev.a, self.nxt.a, self.link.a
        c1 = s[prev[s] >= 0]
        par = s[nxt[s] >= 0]
        c2 = nxt[par]
        keep = loc[c2] < 0
        lc, lp = np.concatenate([c1, c2[keep]]), np.concatenate([prev[c1], par[keep]])
        chain = np.where(prev[s[1:]] == s[:-1], -link[s[1:]], 0.0)  # the local chains' off-diagonal
        local = _Local(loc[lo], loc[hi], loc[lc], loc[lp], link[lc], np.flatnonzero(prev[s] < 0), self.prior_prec, m,
                       chain)
        fixed = (r[lo], r[hi], r[lc], r[lp])
        z0 = r[s].copy()

        def evaluate(z):
            ra, rb, rc, rp = local.values(z, fixed)
            f, f_d, f_dd, f_e = self._terms(ra - rb + off, n, win, draw)
            value, grad = local.objective(z, f, f_d, rc - rp)
            return value, grad, f, f_d, f_dd, f_e

        z, first, last = _newton(evaluate, local, z0, 0.5 * self.tau)
        loc[s] = -1
        _, _, _, fd0, fdd0, fe0 = first
        _, gz, _, f_d, f_dd, f_e = last
        r[s] = z
        self.g.a[s] = gz
        self.gdiag.a[s] = local.curvature(f_dd)
        # the neighbours' gradient and curvature move by the change of the terms they share with s
        g, gdiag = self.g.a, self.gdiag.a
        outside = []
        for end, out, sign in ((lo, local.la < 0, 1.0), (hi, local.lb < 0, -1.0)):
            if out.any():
                _add(g, end[out], sign * (f_d - fd0)[out])
                _add(gdiag, end[out], (f_dd - fdd0)[out])
                outside.append(end[out])
        dz, w = z - z0, link[lc]
        for end, out, moved in ((lc, local.lcl < 0, local.lpl), (lp, local.lpl < 0, local.lcl)):
            if out.any():  # a link's gradient at its outside end moves by -w times the change of its inside end
                _add(g, end[out], -w[out] * dz[moved[out]])
                outside.append(end[out])
        if fresh is not None:  # the terms of this update's rows did not exist before it
            new = np.isin(ids, fresh)
            fd0 = np.where(new, 0.0, fd0)
            fe0 = None if fe0 is None else np.where(new, 0.0, fe0)
        if self.n_cov:
            self.g_tail[:self.n_cov] += x.T @ (f_d - fd0)
        if self.draws:
            self.g_tail[-1] += float((f_e - fe0).sum())
        return _union(self.n_pp, outside)

    # ------------------------------------------------------------------ reading the state
    def latest(self, players: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(rating, variance, period, known) of each player's latest player-period (-1 or a code beyond the
        state's players: unknown, zeros); the variance is ``1 / d_last``, the last pivot of the forward
        elimination of the player's chain (:func:`discrank.solvers._history.chain_variances`)."""
        order = self._order()
        pl = self.pp_player.a[order]
        last = np.r_[pl[1:] != pl[:-1], True] if pl.size else np.zeros(0, dtype=bool)
        first = self.prev.a[order] < 0
        piv = chain_pivots(self._diag(order), -self.link.a[order][1:], first)
        where = np.full(self.last.size, -1, dtype=np.int64)
        where[pl[last]] = np.flatnonzero(last)
        ok = (players >= 0) & (players < self.last.size)
        k = np.full(players.size, -1, dtype=np.int64)
        k[ok] = where[players[ok]]
        known = k >= 0
        kk = k[known]
        mean, var, period = np.zeros(players.size), np.zeros(players.size), np.zeros(players.size, dtype=np.int64)
        mean[known], var[known] = self.r.a[order][kk], 1.0 / piv[kk]
        period[known] = self.pp_bin.a[order][kk]
        return mean, var, period, known

    def ordered(self) -> tuple:
        """The player-periods in (player, period) order: (player, period, rating, standard deviation, games),
        the deviations from each chain's block of the Hessian (:func:`discrank.solvers._history.chain_variances`)."""
        order = self._order()
        h, ext = self.h, self.rows
        games = np.zeros(self.n_pp)
        for lo, hi, n in ((h.lo, h.hi, h.n), (ext["lo"].a, ext["hi"].a, ext["n"].a)):
            games += np.bincount(lo, n, self.n_pp) + np.bincount(hi, n, self.n_pp)
        first = self.prev.a[order] < 0
        var = chain_variances(self._diag(order), -self.link.a[order][1:], first)
        return self.pp_player.a[order], self.pp_bin.a[order], self.r.a[order], np.sqrt(var), games[order]

    def _order(self) -> np.ndarray:
        """The player-periods in (player, period) order (sorted once after each :meth:`absorb`)."""
        if self._sorted is None:
            pl, bn = self.pp_player.a, self.pp_bin.a
            bmin = int(bn.min())
            self._sorted = np.argsort(pl * (int(bn.max()) - bmin + 1) + (bn - bmin), kind="stable")
        return self._sorted

    def history(self):
        """The games absorbed so far as a :class:`discrank.solvers._history_build.History` in (player, period)
        order, numbered as :attr:`theta` (the appended games one row each), for a solve of the whole
        history."""
        from discrank.solvers._history_build import History, chain_links

        order = self._order()
        rank = np.empty_like(order)
        rank[order] = np.arange(order.size)
        h, ext = self.h, self.rows
        pl, bn = self.pp_player.a[order], self.pp_bin.a[order]
        kind = h.lo.dtype if self.n_pp <= np.iinfo(h.lo.dtype).max else np.int64
        lo = np.concatenate([rank[h.lo], rank[ext["lo"].a]]).astype(kind)
        hi = np.concatenate([rank[h.hi], rank[ext["hi"].a]]).astype(kind)
        return History(int(self.last.size), int(pl.size), pl, bn,
                       *chain_links(pl, bn), lo, hi,
                       np.concatenate([h.x, ext["x"].a[:, :self.n_cov]]), np.concatenate([h.n, ext["n"].a]),
                       np.concatenate([h.win, ext["win"].a]),
                       np.concatenate([h.draw, ext["draw"].a]) if self.draws else np.broadcast_to(0.0, lo.shape))

    @property
    def theta(self) -> np.ndarray:
        """The ratings in (player, period) order, then the global parameters."""
        return np.concatenate([self.r.a[self._order()], self.tail])

    @property
    def gradient(self) -> float:
        """The largest entry of the tracked gradient."""
        return max(float(np.abs(self.g.a).max(initial=0.0)), float(np.abs(self.g_tail).max(initial=0.0)))


def _add(target: np.ndarray, idx: np.ndarray, values: np.ndarray) -> None:
    """``target[idx] += values`` with repeated indices summed."""
    np.add.at(target, idx, values)


def _union(size: int, parts: list) -> np.ndarray:
    """The sorted distinct indices in ``parts`` (each below ``size``), by a mask rather than a sort."""
    mark = np.zeros(size, dtype=bool)
    for part in parts:
        mark[part] = True
    return np.flatnonzero(mark)


class _Local:
    """The structure of a local problem over ``m`` ratings (in chain order): its rows' ends (``la``, ``lb``: local
    indices, -1 outside), its links' ends (``lcl`` child, ``lpl`` parent, ``w`` precision), its first periods
    (``fl``, prior ``prec``), and its Hessian's tridiagonal part off the diagonal (``chain``: the links between
    consecutive local ratings, 0 elsewhere)."""

    def __init__(self, la, lb, lcl, lpl, w, fl, prec, m, chain) -> None:
        self.la, self.lb, self.lcl, self.lpl, self.w, self.fl, self.prec, self.m = la, lb, lcl, lpl, w, fl, prec, m
        self.chain = chain
        self.ia, self.ib, self.ic, self.ip = la >= 0, lb >= 0, lcl >= 0, lpl >= 0

    def values(self, z: np.ndarray, fixed: tuple) -> tuple:
        """The ratings at the rows' and links' ends: ``z`` inside, ``fixed`` outside."""
        out = []
        ends, inside_ = (self.la, self.lb, self.lcl, self.lpl), (self.ia, self.ib, self.ic, self.ip)
        for base, idx, inside in zip(fixed, ends, inside_):
            v = base.copy()
            v[inside] = z[idx[inside]]
            out.append(v)
        return tuple(out)

    def objective(self, z: np.ndarray, f: np.ndarray, f_d: np.ndarray, dl: np.ndarray) -> tuple:
        """(value, gradient) of the terms that involve the local ratings."""
        m, fl = self.m, self.fl
        wd = self.w * dl
        value = float(f.sum()) + 0.5 * float(np.dot(wd, dl)) + 0.5 * self.prec * float(np.dot(z[fl], z[fl]))
        grad = (np.bincount(self.la[self.ia], f_d[self.ia], m) - np.bincount(self.lb[self.ib], f_d[self.ib], m)
                + np.bincount(self.lcl[self.ic], wd[self.ic], m) - np.bincount(self.lpl[self.ip], wd[self.ip], m))
        grad[fl] += self.prec * z[fl]
        return value, grad

    def curvature(self, f_dd: np.ndarray) -> np.ndarray:
        """The games' curvature of each local rating."""
        return (np.bincount(self.la[self.ia], f_dd[self.ia], self.m)
                + np.bincount(self.lb[self.ib], f_dd[self.ib], self.m))

    def hessian(self, f_dd: np.ndarray):
        """The local Hessian (sparse CSR; its pattern found once, on the first call)."""
        both, bl = self.ia & self.ib, self.ic & self.ip
        w = self.w
        if getattr(self, "_pattern", None) is None:
            la, lb, lc, lp = self.la, self.lb, self.lcl, self.lpl
            i = np.concatenate([la[self.ia], lb[self.ib], la[both], lb[both], lc[self.ic], lp[self.ip], lc[bl],
                                lp[bl], self.fl])
            j = np.concatenate([la[self.ia], lb[self.ib], lb[both], la[both], lc[self.ic], lp[self.ip], lp[bl],
                                lc[bl], self.fl])
            keys, pos = np.unique(i * self.m + j, return_inverse=True)
            indptr = np.zeros(self.m + 1, dtype=np.int64)
            np.cumsum(np.bincount(keys // self.m, minlength=self.m), out=indptr[1:])
            self._pattern = (pos, keys % self.m, indptr)
        pos, indices, indptr = self._pattern
        data = np.concatenate([f_dd[self.ia], f_dd[self.ib], -f_dd[both], -f_dd[both], w[self.ic], w[self.ip],
                               -w[bl], -w[bl], np.full(self.fl.size, self.prec)])
        return sparse.csr_matrix((np.bincount(pos, data, indices.size), indices, indptr), shape=(self.m, self.m))

    def solve(self, f_dd: np.ndarray, grad: np.ndarray) -> np.ndarray:
        """The Newton step: the local Hessian's system solved by conjugate gradients to a relative residual of
        1e-4, preconditioned by its chains' tridiagonal part (exact along each chain)."""
        H = self.hessian(f_dd)
        fd, fe, info = lapack.dpttrf(H.diagonal(), self.chain)
        if info != 0:
            raise FloatingPointError(f"a local chain block is not positive definite (dpttrf info {info})")
        M = LinearOperator(H.shape, matvec=lambda v: lapack.dpttrs(fd, fe, v)[0], dtype=np.float64)
        step, _ = cg(H, -grad, rtol=1e-4, atol=0.0, maxiter=200, M=M)
        return step


def _newton(evaluate, local: _Local, z: np.ndarray, tol: float, max_iter: int = 50) -> tuple:
    """Newton's method with a backtracking line search on a local problem, to ``max |gradient| <= tol``;
    returns (z, the evaluation at the start, the evaluation at the end)."""
    first = last = evaluate(z)
    for _ in range(max_iter):
        value, grad, _, _, f_dd, _ = last
        g_max = float(np.abs(grad).max(initial=0.0))
        if g_max <= tol:
            break
        step = local.solve(f_dd, grad)
        slope = float(np.dot(grad, step))
        unseen = -slope <= 1e-13 * max(1.0, abs(value))  # a decrease below the value's rounding
        t = 1.0
        while True:
            trial = evaluate(z + t * step)
            if trial[0] <= value + 1e-4 * t * slope or t < 1e-10:
                break
            if unseen and float(np.abs(trial[1]).max()) < g_max:
                break
            t *= 0.5
        z, last = z + t * step, trial
    return z, first, last
