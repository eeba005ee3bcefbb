"""The whole-history problem in the C++ core (``_core.HistoryProblem``, cpp/include/discrank/history.hpp): rows
over player-periods, the block after the ratings (context effects, disc components, draw propensities), the
chains and the priors, with the objective, its gradient, Hessian products and whole Newton steps (conjugate
gradients with the chains' preconditioner, line search) in one compiled object.

Rows are two-outcome results or a draw model's three (losses.hpp's ``draw_block``, the draw parameter last, plus
each player's propensity), each logit scaled by its match format's scale; and margin rows: a margin ``(m_a, m_b)``
adds ``m_a log sigmoid(kappa d) + m_b log sigmoid(-kappa d)`` to its result's log-likelihood (each sub-contest
won by ``a`` with probability ``sigmoid(kappa d)``, ``kappa = margin_scale``), so the MAP stays convex. Each
logit adds the context effects, the disc game's bilinear term and ``beta . x`` (with the weak prior of
:func:`discrank.data._advantage.beta_precision`).

:class:`CorePart` holds a share of the rows without the chains and priors: a part of a fit on Dask workers
(:class:`discrank.dask._parts.DistributedRows`), whose driver adds the parts' sums and runs Newton's method.
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from discrank.core import _core
from discrank.solvers._history_build import History

__all__ = ["core_rows", "core_problem", "CorePart"]


def core_rows(h: History, draws=None, margin_scale: float = 0.0, format_scales: Optional[np.ndarray] = None,
              disc: int = 0, propensity: bool = False, part: Optional[slice] = None,
              margin_part: Optional[slice] = None) -> dict:
    """The arguments of ``_core.HistoryProblem`` that carry the rows of ``h``: its results' rows ``part`` (with
    the draw model ``draws``; each format's scale of the logit with ``format_scales``, ``h.fmt`` indexing them),
    its margin rows ``margin_part`` at the logit scale ``margin_scale`` (None: every row), their context effects,
    covariates, ``disc`` components and (``propensity``) draw propensities. A ValueError for a history with margins
    and no positive ``margin_scale``."""
    lo, hi, n, win, ctx, x, fmt = (_cut(a, part) for a in (h.lo, h.hi, h.n, h.win, h.ctx, h.x, h.fmt))
    m_results = lo.size
    draw = np.ascontiguousarray(_cut(h.draw, part), np.float64) if draws else None
    scale = None if format_scales is None or fmt is None else np.asarray(format_scales, np.float64)[fmt]
    if h.margin is not None:
        if not margin_scale > 0:
            raise ValueError(f"a margin likelihood needs a positive margin_scale, got {margin_scale!r}")
        m_lo, m_hi, m_x, m_n, m_win, m_ctx = (_cut(a, margin_part) for a in h.margin)
        scale = np.concatenate([np.ones(lo.size) if scale is None else scale, np.full(m_lo.size, float(margin_scale))])
        lo, hi, n, win = (np.concatenate([a, b]) for a, b in ((lo, m_lo), (hi, m_hi), (n, m_n), (win, m_win)))
        ctx = None if ctx is None else np.concatenate([ctx, m_ctx])
        x = np.concatenate([x, m_x])
        draw = None if draw is None else np.concatenate([draw, np.zeros(m_lo.size)])
    e_lo = e_hi = None
    if h.n_eff:
        player = np.asarray(h.pp_player, np.int64)
        e_lo = (player[lo] * h.n_ctx + ctx).astype(np.int32)
        e_hi = (player[hi] * h.n_ctx + ctx).astype(np.int32)
    draw_id = (_core.DRAW_RAO_KUPPER if draws == "rao-kupper" else _core.DRAW_DAVIDSON) if draws else -1
    return dict(n_pp=h.n_pp, n_eff=h.n_eff, lo=np.ascontiguousarray(lo, np.int32), hi=np.ascontiguousarray(hi, np.int32),
                n=np.ascontiguousarray(n, np.float64), win=np.ascontiguousarray(win, np.float64), scale=scale,
                e_lo=e_lo, e_hi=e_hi, n_players=h.n_players, x=np.ascontiguousarray(x, np.float64) if h.n_cov else None,
                draws=draw_id, draw=draw, m_results=m_results,
                owner=np.ascontiguousarray(h.pp_player, np.int32) if disc or propensity else None, n_disc=disc,
                propensity=propensity)


def _cut(values: Optional[np.ndarray], part: Optional[slice]) -> Optional[np.ndarray]:
    """The entries ``part`` of ``values`` (the array itself for None; None for None)."""
    return values if values is None or part is None else values[part]


def core_problem(h: History, chain: np.ndarray, prior: np.ndarray, eff_prior: np.ndarray, draws=None,
                 beta_prior: Optional[np.ndarray] = None, margin_scale: float = 0.0,
                 format_scales: Optional[np.ndarray] = None, two_level: bool = True, disc: int = 0,
                 propensity: bool = False) -> "_core.HistoryProblem":
    """The core's problem of every row of ``h`` (:func:`core_rows`); the chains' link precisions ``chain``, each
    player-period's prior precision ``prior``, each block entry's ``eff_prior`` (the effects', then ``disc``
    components' u and v, then with ``propensity`` each player's draw propensity) and each covariate's
    ``beta_prior``; with ``two_level``, the two-level preconditioner."""
    return _core.HistoryProblem(**core_rows(h, draws, margin_scale, format_scales, disc, propensity),
                                chain=np.ascontiguousarray(chain, np.float64),
                                prior=np.ascontiguousarray(prior, np.float64),
                                eff_prior=np.ascontiguousarray(eff_prior, np.float64),
                                player=np.ascontiguousarray(h.pp_player, np.int32) if two_level else None,
                                beta_prior=None if beta_prior is None else np.ascontiguousarray(beta_prior, np.float64))


class CorePart:
    """The games' terms of a share of a history's rows (``rows``: :func:`core_rows`' arguments) in the core,
    without the chains and priors (the driver adds them once): value, gradient, Hessian products, diagonal and
    global block. A part of :class:`discrank.dask._parts.DistributedRows`, built on a Dask worker."""

    def __init__(self, rows: dict, n_threads: int = 1) -> None:
        n_pp, n_cov = rows["n_pp"], 0 if rows["x"] is None else rows["x"].shape[1]
        n_block = rows["n_eff"] + (2 * rows["n_disc"] + (1 if rows["propensity"] else 0)) * rows["n_players"]
        self.n_threads = int(n_threads)
        self.core = _core.HistoryProblem(**rows, chain=np.zeros(max(n_pp - 1, 0)), prior=np.zeros(n_pp),
                                         eff_prior=np.zeros(n_block), beta_prior=np.zeros(n_cov) if n_cov else None)

    def value_grad(self, theta: np.ndarray) -> tuple:
        return self.core.value_grad(np.ascontiguousarray(theta, np.float64), self.n_threads)

    def hessp(self, v: np.ndarray) -> np.ndarray:
        return self.core.hessp(np.ascontiguousarray(v, np.float64), self.n_threads)

    def diagonal(self) -> np.ndarray:
        return self.core.games_diagonal(self.n_threads)

    def global_block(self) -> np.ndarray:
        return self.core.global_block(self.n_threads)
