"""The whole-history problem's data: the games of a log as rows over player-periods (:func:`build_history`).

Player-periods (a player in a period in which they played) are numbered player by player, then period by
period, so that each player's random-walk chain is one tridiagonal block of the Hessian
(:mod:`discrank.solvers._history`, the solver); rows are the games of one pair of player-periods with one
covariate value, oriented ``lo < hi``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

__all__ = ["INT32_KEYS", "History", "build_history", "chain_links", "chains", "carry", "chain_pivots",
           "chain_variances"]

#: build_history codes the player-periods with int32 keys when ``n_players * periods`` is at most this.
INT32_KEYS = np.iinfo(np.int32).max


@dataclass
class History:
    """The games of a log as rows over player-periods, with the structure the solver reuses.

    Attributes
    ----------
    n_players, n_pp : int
        Players, and player-periods (a player in a period in which they played).
    pp_player, pp_bin : ndarray of int64, shape (n_pp,)
        The player and the period of each player-period, sorted by player then period.
    first : ndarray of bool, shape (n_pp,)
        Whether the player-period is its player's first.
    gap : ndarray of float, shape (n_pp - 1,)
        Periods between player-period ``k`` and ``k + 1`` when they belong to one player, else 0 (no link).
    lo, hi : ndarray of int32 (int64 beyond 2^31 - 1 player-periods), shape (n_rows,)
        The two player-periods of each row (games of one pair of player-periods with one covariate
        value, oriented ``lo < hi``).
    x : ndarray of float, shape (n_rows, n_cov)
        The covariates of each row, attributed to ``lo``.
    n, win, draw : ndarray of float, shape (n_rows,)
        Games, wins of ``lo`` (a draw counting half without a draw model), draws (read-only zeros without one).
    ctx : ndarray of int32, shape (n_rows,), optional
        The context of each row's games (a row holds the games of one context), a code in ``[0, n_ctx)``; None
        without contexts.
    n_ctx : int
        Contexts (0 without). Each player has one context effect per context, numbered ``player * n_ctx +
        context``.
    margin : tuple of ndarray, optional
        The margin rows (:mod:`discrank.solvers._history_core`): ``(lo, hi, x, n, win, ctx)`` as the results' rows,
        ``n`` the sub-contests of their games and ``win`` those won by ``lo`` (``ctx`` None without contexts);
        None without margins.
    fmt : ndarray of int32, shape (n_rows,), optional
        The match format of each row's games (a row holds the games of one format), a code in ``[0, n_fmt)``;
        None without formats (:func:`discrank.solvers._history.solve_history`'s ``format_scales`` index them).
    n_fmt : int
        Formats (0 without).
    """

    n_players: int
    n_pp: int
    pp_player: np.ndarray
    pp_bin: np.ndarray
    first: np.ndarray
    gap: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    x: np.ndarray
    n: np.ndarray
    win: np.ndarray
    draw: np.ndarray
    ctx: Optional[np.ndarray] = None
    n_ctx: int = 0
    margin: Optional[tuple] = None
    fmt: Optional[np.ndarray] = None
    n_fmt: int = 0

    @property
    def n_cov(self) -> int:
        return int(self.x.shape[1])

    @property
    def n_eff(self) -> int:
        """The context effects: one per player and context (0 without contexts)."""
        return self.n_players * self.n_ctx if self.ctx is not None else 0

    def before(self, period: int) -> "History":
        """The history of the games in periods before ``period``: its player-periods and rows in the same
        order (each row's games are of one period), numbered again."""
        keep = self.pp_bin < period
        index = np.cumsum(keep) - 1
        rows = keep[self.lo]
        pp_player, pp_bin = self.pp_player[keep], self.pp_bin[keep]
        return History(self.n_players, int(pp_player.size), pp_player, pp_bin, *chain_links(pp_player, pp_bin),
                       index[self.lo[rows]].astype(self.lo.dtype), index[self.hi[rows]].astype(self.hi.dtype),
                       self.x[rows], self.n[rows], self.win[rows],
                       self.draw[rows] if self.draw.strides[0] else self.draw[:int(np.count_nonzero(rows))],
                       None if self.ctx is None else self.ctx[rows], self.n_ctx, self._margin_before(keep, index),
                       None if self.fmt is None else self.fmt[rows], self.n_fmt)

    def _margin_before(self, keep: np.ndarray, index: np.ndarray) -> Optional[tuple]:
        """The margin rows of the player-periods ``keep``, numbered ``index``."""
        if self.margin is None:
            return None
        lo, hi, x, n, win, ctx = self.margin
        rows = keep[lo]
        return (index[lo[rows]].astype(lo.dtype), index[hi[rows]].astype(hi.dtype), x[rows], n[rows], win[rows],
                None if ctx is None else ctx[rows])


def build_history(ca: np.ndarray, cb: np.ndarray, score: np.ndarray, bins: np.ndarray, x: Optional[np.ndarray],
                  n_players: int, draws: bool, w: Optional[np.ndarray] = None, ctx: Optional[np.ndarray] = None,
                  n_ctx: int = 0, margin: Optional[np.ndarray] = None, fmt: Optional[np.ndarray] = None,
                  n_fmt: int = 0) -> History:
    """Rows over player-periods from coded games.

    Parameters
    ----------
    ca, cb : ndarray of int64
        Player codes of a and b, in ``[0, n_players)``.
    score : ndarray of float
        Score of a (1, 0.5, 0; any value in [0, 1] without a draw model).
    bins : ndarray of int64
        Period of each game.
    x : ndarray of float, shape (n_games, n_cov), optional
        Covariates attributed to a.
    n_players : int
        Number of player codes.
    draws : bool
        Whether the rows keep wins and draws apart (a draw model); else ``win`` is the score sum.
    w : ndarray of float, optional
        The number of games each entry stands for (games summed by :class:`discrank.PeriodGames`);
        default one each.
    ctx : ndarray of int, optional
        The context code of each game, in ``[0, n_ctx)`` (rows then hold the games of one context).
    n_ctx : int
        The contexts' count (with ``ctx``).
    margin : ndarray, shape (n_games, 2), optional
        The sub-contests won by a and by b in each game (its margin rows; games without any have none).
    fmt : ndarray of int, optional
        The match format code of each game, in ``[0, n_fmt)``, 0 the reference (rows then hold the games of one
        format; the margin rows do not: a sub-contest is the same whatever the match's length).
    n_fmt : int
        The formats' count (with ``fmt``).

    Returns
    -------
    History
    """
    ca = np.asarray(ca, dtype=np.int64)
    cb = np.asarray(cb, dtype=np.int64)
    n_games = ca.size
    bmin = int(bins.min())
    rel = bins - bmin
    span = int(rel.max()) + 1
    # player-periods: sorted by player, then period (keys as int32 where they fit: numpy sorts them faster)
    keys = np.empty(2 * n_games, dtype=np.int32 if n_players * span <= INT32_KEYS else np.int64)
    for k, codes in enumerate((ca, cb)):
        np.add(codes * span, rel, out=keys[k * n_games:(k + 1) * n_games], casting="unsafe")
    uniq, inv = np.unique(keys, return_inverse=True)
    del keys
    uniq = uniq.astype(np.int64, copy=False)
    inv = inv.reshape(-1)
    pa, pb = inv[:n_games], inv[n_games:]
    pp_player = uniq // span
    pp_bin = uniq % span + bmin
    n_pp = uniq.size
    first, gap = chain_links(pp_player, pp_bin)
    lo, hi, r_x, rows_n, win, draw, r_ctx, r_fmt = _rows(pa, pb, score, x, n_pp, draws, w, ctx, n_ctx, fmt, n_fmt)
    rows_m = None
    if margin is not None:  # the sub-contests: a row's share won by lo, weighed by their count
        total = margin[:, 0] + margin[:, 1]
        if w is not None:
            total = total * w
        some = total > 0
        share = margin[some, 0] / (margin[some, 0] + margin[some, 1])
        m_lo, m_hi, m_x, m_n, m_win, _, m_ctx, _ = _rows(pa[some], pb[some], share, None if x is None else x[some],
                                                      n_pp, False, total[some], None if ctx is None else ctx[some],
                                                      n_ctx)
        rows_m = (m_lo, m_hi, m_x, m_n, m_win, m_ctx)
    return History(n_players, n_pp, pp_player, pp_bin, first, gap, lo, hi, r_x, rows_n, win, draw, r_ctx,
                   n_ctx if ctx is not None else 0, rows_m, r_fmt, n_fmt if fmt is not None else 0)


def _rows(pa: np.ndarray, pb: np.ndarray, score: np.ndarray, x: Optional[np.ndarray], n_pp: int, draws: bool,
          w: Optional[np.ndarray], ctx: Optional[np.ndarray] = None, n_ctx: int = 0, fmt: Optional[np.ndarray] = None,
          n_fmt: int = 0) -> tuple:
    """(lo, hi, x, n, win, draw, ctx, fmt) of :class:`History`: the games between the player-periods ``pa`` and
    ``pb`` summed by row (pair of player-periods oriented ``lo < hi``, covariate value, context, format)."""
    swap = pa > pb
    key = np.minimum(pa, pb) * n_pp + np.maximum(pa, pb)
    y = np.where(swap, 1.0 - score, score)
    if x is None or x.shape[1] == 0:
        n_x, xrows = 1, None
    else:
        xrows, xcode = np.unique(x * np.where(swap, -1.0, 1.0)[:, None], axis=0, return_inverse=True)
        n_x = xrows.shape[0]
        key = key * n_x + xcode.reshape(-1)
    n_c = n_ctx if ctx is not None else 1
    if ctx is not None:
        key = key * n_c + np.asarray(ctx, dtype=np.int64)
    n_f = n_fmt if fmt is not None else 1
    if fmt is not None:
        key = key * n_f + np.asarray(fmt, dtype=np.int64)
    del swap
    ukey, rinv = np.unique(key, return_inverse=True)
    del key
    n_rows = ukey.size
    if w is None:
        rows_n = np.bincount(rinv, minlength=n_rows).astype(np.float64)
    else:
        w = np.asarray(w, dtype=np.float64)
        rows_n = np.bincount(rinv, w, n_rows)
    if draws:
        is_win, is_draw = (y == 1.0).astype(np.float64), (y == 0.5).astype(np.float64)
        if w is not None:
            is_win, is_draw = is_win * w, is_draw * w
        win = np.bincount(rinv, is_win, n_rows)
        draw = np.bincount(rinv, is_draw, n_rows)
    else:
        win = np.bincount(rinv, y if w is None else y * w, n_rows)
        draw = np.broadcast_to(0.0, (n_rows,))  # no draw model: zeros that take no memory (read-only)
    del rinv, y
    r_fmt = None if fmt is None else (ukey % n_f).astype(np.int32)
    ukey = ukey if n_f == 1 else ukey // n_f
    r_ctx = None if ctx is None else (ukey % n_c).astype(np.int32)
    ukey = ukey if n_c == 1 else ukey // n_c
    pairkey = ukey if n_x == 1 else ukey // n_x
    kind = np.int32 if n_pp <= np.iinfo(np.int32).max else np.int64
    lo, hi = (pairkey // n_pp).astype(kind), (pairkey % n_pp).astype(kind)
    xr = np.zeros((n_rows, 0)) if xrows is None else xrows[ukey % n_x]
    return lo, hi, xr, rows_n, win, draw, r_ctx, r_fmt


def chain_links(pp_player: np.ndarray, pp_bin: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(first, gap) of :class:`History` for player-periods sorted by player, then period: whether each starts
    its player's chain, and the periods from each to the next of its player (0 where the next is another's)."""
    same = pp_player[1:] == pp_player[:-1]
    first = np.ones(pp_player.size, dtype=bool)
    first[1:] = ~same
    return first, np.where(same, (pp_bin[1:] - pp_bin[:-1]).astype(np.float64), 0.0)


def chains(h: History) -> tuple[np.ndarray, np.ndarray]:
    """(start, count): each player's first player-period and how many it has (-1 and 0 for a player with
    no game)."""
    first = np.flatnonzero(h.first)
    start = np.full(h.n_players, -1, dtype=np.int64)
    count = np.zeros(h.n_players, dtype=np.int64)
    start[h.pp_player[first]] = first
    count[h.pp_player[first]] = np.diff(np.append(first, h.n_pp))
    return start, count


def carry(pp_player: np.ndarray, pp_bin: np.ndarray, r: np.ndarray, tail: np.ndarray, h: "History") -> np.ndarray:
    """A warm start for the history ``h`` from a fit over fewer games: each player-period starts at its
    player's latest fitted rating at or before it (a new player at 0), then the global parameters
    ``tail`` (beta, eta) as fitted.

    Parameters
    ----------
    pp_player, pp_bin, r : ndarray
        The fitted player-periods (sorted by player, then period) and their ratings.
    tail : ndarray
        The fitted beta, then eta.
    h : History
        The new history.

    Returns
    -------
    ndarray
        The parameter vector of ``h``.
    """
    bmin = int(min(h.pp_bin.min(), pp_bin.min()))
    span = int(max(h.pp_bin.max(), pp_bin.max())) - bmin + 1
    pos = np.searchsorted(pp_player * span + (pp_bin - bmin), h.pp_player * span + (h.pp_bin - bmin), side="right") - 1
    ok = pos >= 0
    ok[ok] = pp_player[pos[ok]] == h.pp_player[ok]
    out = np.zeros(h.n_pp)
    out[ok] = r[pos[ok]]
    return np.concatenate([out, np.asarray(tail, dtype=np.float64)])


def chain_pivots(diag: np.ndarray, off: np.ndarray, first: np.ndarray) -> np.ndarray:
    """The pivots ``d`` of the forward elimination of the block-diagonal tridiagonal matrix (one block per
    player, in the core's chains.hpp): ``d_k = diag_k - off_{k-1}^2 / d_{k-1}`` within a block, ``diag_k`` at
    its start; ``1 / d`` at a block's last entry is that entry's variance (:func:`chain_variances`).

    Parameters
    ----------
    diag : ndarray, shape (n_pp,)
        The diagonal.
    off : ndarray, shape (n_pp - 1,)
        The off-diagonal (0 between two players).
    first : ndarray of bool, shape (n_pp,)
        Whether each entry starts a player's block.

    Returns
    -------
    ndarray, shape (n_pp,)
    """
    from discrank.core import _core
    return _core.chain_pivots(*_chain_arrays(diag, off, first))[0]


def _chain_arrays(diag: np.ndarray, off: np.ndarray, first: np.ndarray) -> tuple:
    """``diag``, ``off`` and ``first`` as the core's chain kernels take them (float64, bool, contiguous)."""
    return (np.ascontiguousarray(diag, dtype=np.float64), np.ascontiguousarray(off, dtype=np.float64),
            np.ascontiguousarray(first, dtype=bool))


def chain_variances(diag: np.ndarray, off: np.ndarray, first: np.ndarray) -> np.ndarray:
    """The diagonal of the inverse of the block-diagonal tridiagonal matrix (one block per player).

    Each player's block (its chain, games' curvature and prior, the other players held at their MAP) gives the
    variance of each of its ratings, as Whole-History Rating does: the pivots forward, then
    ``var_k = 1 / d_k + (off_k / d_k)^2 var_{k+1}`` back from each block's last ``1 / d`` (chains.hpp).

    Parameters
    ----------
    diag : ndarray, shape (n_pp,)
        The diagonal.
    off : ndarray, shape (n_pp - 1,)
        The off-diagonal (0 between two players).
    first : ndarray of bool, shape (n_pp,)
        Whether each entry starts a player's block.

    Returns
    -------
    ndarray, shape (n_pp,)
    """
    from discrank.core import _core
    return _core.chain_pivots(*_chain_arrays(diag, off, first), variances=True)[1]
