"""The whole-history problem in the C++ core (``_core.HistoryProblem``, cpp/include/discrank/history.hpp): its
binomial rows over player-periods, the block after the ratings (the context effects, the disc components, the draw
propensities), the chains and the priors, with the objective, its gradient, its Hessian products and whole Newton
steps (the conjugate gradients with the chains' preconditioner and the line search) in one compiled object.

Its rows are the results of two-outcome games or of a draw model's three (Davidson's, Rao and Kupper's: losses.hpp's
``draw_block``, the draw parameter last, plus each player's propensity), each row's logit scaled by its match
format's scale; and the margin rows (each sub-contest a binomial row at the scale ``margin_scale``,
:mod:`discrank._history_rows`). Each logit adds the context effects, the disc game's bilinear term and the advantage
covariates (``beta . x``, with the weak prior of :func:`discrank._advantage.beta_precision`). Rows held by Dask
workers keep the rows of :mod:`discrank._history_rows` and the Python Newton loop of :mod:`discrank._history`.
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from discrank import _core
from discrank._history_build import History

__all__ = ["core_problem"]


def core_problem(h: History, chain: np.ndarray, prior: np.ndarray, eff_prior: np.ndarray, draws=None,
                 beta_prior: Optional[np.ndarray] = None, margin_scale: float = 0.0,
                 format_scales: Optional[np.ndarray] = None, two_level: bool = True, disc: int = 0,
                 propensity: bool = False) -> "_core.HistoryProblem":
    """The core's problem of ``h``: its results' rows (with the draw model ``draws``; each format's scale of the
    logit with ``format_scales``, ``h.fmt`` indexing them), its margin rows at the logit scale ``margin_scale`` when
    it has them, its context effects and covariates; the chains' link precisions ``chain``, each player-period's
    prior precision ``prior``, each block entry's ``eff_prior`` (the effects', then ``disc`` components' u and v,
    then with ``propensity`` each player's draw propensity) and each covariate's ``beta_prior``; with ``two_level``,
    the two-level preconditioner. A ValueError for a history with margins and no positive ``margin_scale``."""
    lo, hi, n, win, ctx, x = h.lo, h.hi, h.n, h.win, h.ctx, h.x
    m_results = lo.size
    draw = np.ascontiguousarray(h.draw, np.float64) if draws else None
    scale = None
    if format_scales is not None and h.fmt is not None:
        scale = np.asarray(format_scales, np.float64)[h.fmt]
    if h.margin is not None:
        if not margin_scale > 0:
            raise ValueError(f"a margin likelihood needs a positive margin_scale, got {margin_scale!r}")
        m_lo, m_hi, m_x, m_n, m_win, m_ctx = h.margin
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
    return _core.HistoryProblem(h.n_pp, h.n_eff, np.ascontiguousarray(lo, np.int32), np.ascontiguousarray(hi, np.int32),
                                np.ascontiguousarray(n, np.float64), np.ascontiguousarray(win, np.float64), scale,
                                e_lo, e_hi, np.ascontiguousarray(chain, np.float64),
                                np.ascontiguousarray(prior, np.float64), np.ascontiguousarray(eff_prior, np.float64),
                                np.ascontiguousarray(h.pp_player, np.int32) if two_level else None, h.n_players,
                                np.ascontiguousarray(x, np.float64) if h.n_cov else None,
                                None if beta_prior is None else np.ascontiguousarray(beta_prior, np.float64),
                                (_core.DRAW_RAO_KUPPER if draws == "rao-kupper" else _core.DRAW_DAVIDSON) if draws else -1,
                                draw, m_results, np.ascontiguousarray(h.pp_player, np.int32) if disc or propensity
                                else None, disc, propensity)
