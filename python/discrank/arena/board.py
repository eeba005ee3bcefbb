"""Arena leaderboards (docs/arena.md): Bradley-Terry boards of models from pairwise votes on the Elo scale,
with sandwich or bootstrap intervals, rank intervals, style control, per-category boards, a vote-drop
robustness check and held-out log loss::

    board = discrank.arena_board("battles.parquet", style="len,md", category="language")

The model is the contextual Bradley-Terry of ``discrank.arena._fit`` (the paper's Elo model, Eq. (1), with
style covariates); a rating is ``anchor_rating + 400 / ln 10 * theta``, the anchor (a model, or the mean) at
``anchor_rating``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Optional

import numpy as np

from discrank.arena._fit import BTFit, BTRows, fit_bt, rows_of
from discrank.arena._votes import (CI_METHODS, MAX_BOOT, Votes, check_board_args, check_graph,  # noqa: F401
                                   rateable, read_board_votes, votes_of)
from discrank._util.checks import show
from discrank.evaluation._bootstrap import rank_bounds

__all__ = ["ArenaBoard", "HeldOut", "VoteDrop", "arena_board"]

#: Elo points per logit.
ELO = 400.0 / math.log(10.0)
#: A model with fewer votes is marked ``preliminary`` (its rank interval is usually wide).
PRELIMINARY_VOTES = 500
#: Two ratings this close (logits) are tied for :meth:`ArenaBoard.votes_to_flip`: the fit's precision.
TIED = 1e-10


@dataclass
class VoteDrop:
    """The fewest votes whose removal changes the model at a rank (:meth:`ArenaBoard.votes_to_flip`).

    Attributes
    ----------
    rank : int
        The rank checked (1: the top model).
    holder : str
        The model at that rank on all the votes.
    challenger : str
        The model that takes its place when the votes are removed.
    approximate : int
        The first-order count: the most influential votes whose linearised influence closes the gap.
    votes : int
        The count verified by refits: the fewest of the most influential votes whose removal changes the
        holder (an upper bound; ``-1`` if removing all of them did not). ``0`` (``approximate`` too) when the
        challenger is tied with the holder (within :data:`TIED` logits).
    removed : ndarray of int
        The positions, in the board's votes, of the ``votes`` removed.
    gap : float
        The holder's and the challenger's gap on all the votes, in Elo points.
    """

    rank: int
    holder: str
    challenger: str
    approximate: int
    votes: int
    removed: np.ndarray = field(repr=False)
    gap: float


@dataclass
class HeldOut:
    """The held-out log loss of a board's predictions (:meth:`ArenaBoard.log_loss`), a tie's target 1/2.

    Attributes: ``n`` (votes scored), ``skipped`` (votes with a model the board has not rated),
    ``log_loss`` (mean, nats), ``coin`` (the coin's, ln 2), ``difference`` (board minus coin, mean of the
    paired per-vote differences) and ``se`` (its standard error).
    """

    n: int
    skipped: int
    log_loss: float
    coin: float
    difference: float
    se: float


class ArenaBoard:
    """A fitted arena leaderboard (:func:`arena_board`).

    Attributes
    ----------
    frame : pandas.DataFrame
        One row per model shown, best first: ``model``, ``rating`` (Elo points), ``lower``, ``upper`` (the
        ``level`` interval), ``se``, ``rank``, ``rank_lower``, ``rank_upper`` (FastChat's rule), ``votes``,
        ``preliminary``; with style control also ``rating_plain``, ``rank_plain`` and ``rank_change``
        (``rank_plain - rank``). ``frame.attrs["note"]`` says how many models are hidden and marked.
    style : pandas.DataFrame
        The style coefficients (logits per standard deviation with ``normalize``): ``name``, ``coef``, ``se``,
        ``lower``, ``upper``; empty without style.
    categories : dict of str to ArenaBoard
        The board of each category's votes (same settings), when a category was given.
    fit : the underlying fit (ratings with mean 0 and coefficients, in logits).
    """

    def __init__(self, votes: Votes, fit: BTFit, plain: Optional[BTFit], *, anchor: Any, anchor_rating: float,
                 ci: str, level: float, n_boot: int, seed: int, ridge: float, n_jobs: int, min_votes: int = 0,
                 where: str = "the board") -> None:
        self._votes, self.fit, self._plain = votes, fit, plain
        self.min_votes = min_votes
        self.labels = votes.labels
        self.anchor, self.anchor_rating, self.ci, self.level = anchor, anchor_rating, ci, level
        self.categories: dict = {}
        n = self.labels.size
        if anchor is None:
            self._anchor_index = None
        else:
            hits = np.flatnonzero(self.labels.astype(str) == str(anchor))
            if hits.size == 0:
                raise ValueError(f"anchor={anchor!r} is not a model of the board (models: "
                                 f"{show(list(self.labels[:8]))}{', ...' if n > 8 else ''})")
            self._anchor_index = int(hits[0])
        self.replicates: Optional[np.ndarray] = None
        self.steps: Optional[np.ndarray] = None
        x = fit.x
        if ci == "sandwich":
            cov = self._anchored_cov(fit.sandwich(ridge))
            se = np.sqrt(np.clip(np.diag(cov), 0.0, None))
            zq = _normal_quantile(0.5 + level / 2.0)
            point = self._ratings(x[:n])
            lower, upper = point - zq * ELO * se[:n], point + zq * ELO * se[:n]
            coef_lo, coef_hi = x[n:] - zq * se[n:], x[n:] + zq * se[n:]
            rating_se, coef_se = ELO * se[:n], se[n:]
        elif ci == "bootstrap":
            reps, steps = fit.bootstrap_reported(n_boot, seed, n_jobs, f"bootstrap of {where}")
            self.replicates, self.steps = reps, steps
            if np.any(steps < 0):
                import warnings

                from discrank._util.exceptions import ConvergenceWarning
                warnings.warn(f"{where}: {int(np.sum(steps < 0))} of {n_boot} bootstrap replicates did not converge (a "
                              "model without a finite rating in its resampled votes: one with few votes); the "
                              f"intervals rest on the other {int(np.sum(steps >= 0))}", ConvergenceWarning,
                              stacklevel=3)
            ok = reps[steps >= 0]
            rr = self._ratings(ok[:, :n])
            q = [50.0 * (1.0 - level), 50.0 * (1.0 + level)]
            point = self._ratings(x[:n])
            lower, upper = np.percentile(rr, q, axis=0) if ok.shape[0] else (np.full(n, np.nan),) * 2
            rating_se = rr.std(axis=0, ddof=1) if ok.shape[0] > 1 else np.full(n, np.nan)
            coefs = ok[:, n:]
            coef_lo, coef_hi = (np.percentile(coefs, q, axis=0) if ok.shape[0] else (np.full(x.size - n, np.nan),) * 2)
            coef_se = coefs.std(axis=0, ddof=1) if ok.shape[0] > 1 else np.full(x.size - n, np.nan)
        else:
            point = self._ratings(x[:n])
            lower = upper = rating_se = np.full(n, np.nan)
            coef_lo = coef_hi = coef_se = np.full(x.size - n, np.nan)
        self.frame = self._frame(point, lower, upper, rating_se)
        import pandas as pd

        self.style = pd.DataFrame({"name": list(votes.style_names), "coef": x[n:], "se": coef_se,
                                   "lower": coef_lo, "upper": coef_hi})

    # --- the scale and the anchor -------------------------------------------------------------------------
    def _ratings(self, theta: np.ndarray) -> np.ndarray:
        """Elo points of ratings in logits (the last axis: the models; a row per replicate allowed)."""
        ref = (theta.mean(axis=-1, keepdims=True) if self._anchor_index is None
               else theta[..., self._anchor_index:self._anchor_index + 1])
        return self.anchor_rating + ELO * (theta - ref)

    def _anchored_cov(self, cov: np.ndarray) -> np.ndarray:
        """The covariance of (ratings minus the anchor's, coefficients) from that of (ratings with mean 0,
        coefficients)."""
        n = self.labels.size
        t = np.eye(cov.shape[0])
        if self._anchor_index is None:
            t[:n, :n] -= 1.0 / n
        else:
            t[:n, self._anchor_index] -= 1.0
        return t @ cov @ t.T

    def _frame(self, point: np.ndarray, lower: np.ndarray, upper: np.ndarray, se: np.ndarray):
        """The table of the models with ``min_votes`` votes at least, best first, ranked among themselves."""
        import pandas as pd

        v = self._votes
        n_all = point.size
        votes_all = np.bincount(v.a, minlength=n_all) + np.bincount(v.b, minlength=n_all)
        shown = np.flatnonzero(votes_all >= self.min_votes)
        point, lower, upper, se, votes = (x[shown] for x in (point, lower, upper, se, votes_all))
        n = point.size
        order = np.argsort(-point, kind="stable")
        rank = np.empty(n, dtype=np.int64)
        rank[order] = np.arange(1, n + 1)
        rlo, rhi = rank_bounds(lower, upper, rank)
        preliminary = votes < PRELIMINARY_VOTES
        cols = {"model": self.labels[shown][order], "rating": point[order], "lower": lower[order],
                "upper": upper[order], "se": se[order], "rank": rank[order], "rank_lower": rlo[order],
                "rank_upper": rhi[order], "votes": votes[order], "preliminary": preliminary[order]}
        if self._plain is not None:
            plain = self._ratings(self._plain.x[:n_all])[shown]
            prank = np.empty(n, dtype=np.int64)
            prank[np.argsort(-plain, kind="stable")] = np.arange(1, n + 1)
            cols.update(rating_plain=plain[order], rank_plain=prank[order], rank_change=(prank - rank)[order])
        frame = pd.DataFrame(cols)
        frame.attrs.update(ci=self.ci, level=self.level, anchor=self.anchor, anchor_rating=self.anchor_rating,
                           votes=int(votes_all.sum()) // 2)
        hidden = f" (fewer than {self.min_votes} votes)" if n < n_all else ""
        frame.attrs["note"] = (f"{n_all - n} of {n_all} models hidden{hidden}; {int(preliminary.sum())} of the {n} "
                               f"shown preliminary (fewer than {PRELIMINARY_VOTES} votes)")
        return frame

    # --- predictions ---------------------------------------------------------------------------------------
    def predict(self, a: Any, b: Any, style: Optional[np.ndarray] = None) -> np.ndarray:
        """P(a beats b) for each vote, by the board's model.

        Parameters
        ----------
        a, b : sequence of str
            The models of each vote, by name (models of the board).
        style : array, shape (n_votes, n_features), optional
            The votes' raw style features (normalised as the fit's were); ignored by a board without style.

        Returns
        -------
        ndarray
            The probability that ``a`` beats ``b`` (a tie counting half).

        Raises
        ------
        KeyError
            A model the board has not rated.
        """
        index = {str(m): i for i, m in enumerate(self.labels)}
        ia = np.array([index[str(m)] for m in a], dtype=np.int64)
        ib = np.array([index[str(m)] for m in b], dtype=np.int64)
        z = None if style is None else (np.asarray(style, dtype=np.float64) - self._votes.center) / self._votes.scale
        return self.fit.predict(ia, ib, z)

    def log_loss(self, test: Any, **read: Any) -> HeldOut:
        """The mean log loss of the board's predictions on held-out votes, against the coin's.

        Parameters
        ----------
        test : GameLog, pandas.DataFrame, str or path-like
            The held-out votes, read as :func:`arena_board` reads them (their style features too).
        **read
            Column options of a frame or file (``model_a``, ``model_b``, ``winner``, ...).

        Returns
        -------
        HeldOut
            The votes scored, those skipped (a model the board has not rated), the mean log loss (a tie's
            target 1/2), the coin's (ln 2), and the mean paired difference with its standard error.

        Raises
        ------
        ValueError
            No held-out vote is between two models of the board.
        """
        from discrank._util.losses import binary_log_loss

        log = read_board_votes(test, style=self._votes.style_names or None, **read)[0]
        known = set(self.labels.astype(str).tolist())
        a, b = np.asarray(log.a).astype(str), np.asarray(log.b).astype(str)
        ok = np.array([x in known and y in known for x, y in zip(a, b)], dtype=bool)
        if not ok.any():
            raise ValueError(f"none of the {ok.size} held-out votes is between two models of the board")
        z = None if log.advantage is None or not self._votes.style_names else np.asarray(log.advantage)[ok]
        q = self.predict(a[ok], b[ok], z)
        y = np.asarray(log.score, dtype=np.float64)[ok]
        loss = binary_log_loss(q, y)
        diff = loss - math.log(2.0)
        se = float(diff.std(ddof=1) / math.sqrt(diff.size)) if diff.size > 1 else float("nan")
        return HeldOut(int(ok.sum()), int((~ok).sum()), float(loss.mean()), math.log(2.0), float(diff.mean()), se)

    # --- robustness ----------------------------------------------------------------------------------------
    def votes_to_flip(self, rank: int = 1, challengers: int = 5) -> VoteDrop:
        """The fewest votes whose removal changes the model at ``rank`` (1: the top model).

        Parameters
        ----------
        rank : int, default 1
            The rank checked, in [1, number of models].
        challengers : int, default 5
            How many neighbours on each side of ``rank`` in the table are tried as the model that takes
            its place.

        Returns
        -------
        VoteDrop

        Raises
        ------
        ValueError
            ``rank`` outside [1, number of models].

        Notes
        -----
        Broderick, Giordano and Meager's approximate maximum influence perturbation: removing vote ``i``
        moves the fit by ``A^-1 s_i`` to first order (``A``: the Hessian, ``s_i``: the vote's score); the
        votes that shrink the gap most are removed until the linearised gap closes (``approximate``), then
        refits verify the count (``votes``). Removing a vote removes all its weight. A neighbour tied with
        the model at ``rank`` is the challenger, with 0 votes and a gap of 0.
        """
        from discrank._util.threads import one_blas_thread

        n = self.labels.size
        if isinstance(rank, bool) or not isinstance(rank, (int, np.integer)) or not 1 <= rank <= n:
            raise ValueError(f"rank={show(rank)} must be an integer in [1, {n}]")
        with one_blas_thread():
            return self._votes_to_flip(int(rank), challengers)

    def _votes_to_flip(self, rank: int, challengers: int) -> VoteDrop:
        from scipy import linalg

        n = self.labels.size
        v, fit = self._votes, self.fit
        shown = (np.bincount(v.a, minlength=n) + np.bincount(v.b, minlength=n)) >= self.min_votes  # the table's
        if isinstance(rank, bool) or not isinstance(rank, (int, np.integer)) or not 1 <= rank <= shown.sum():
            raise ValueError(f"rank={show(rank)} must be an integer in [1, {int(shown.sum())}] (the table's ranks)")
        theta = fit.x[:n]
        order = np.argsort(-theta, kind="stable")
        order = order[shown[order]]  # ranked as the table ranks them: among the models shown
        holder = int(order[rank - 1])
        per_vote = BTRows(n, v.a, v.b, v.y, np.ones(v.a.size), v.mult, v.z if fit.rows.k else np.zeros((v.a.size, 0)))
        s = v.mult * (fit.predict(v.a, v.b, per_vote.z) - v.y)  # d loss / d logit of each vote
        factor = linalg.cho_factor(fit.bread(), lower=True)
        near = [int(order[j]) for j in range(max(0, rank - 1 - challengers), min(order.size, rank + challengers))
                if int(order[j]) != holder]
        tied = [c for c in near if abs(theta[holder] - theta[c]) <= TIED]
        if tied:  # the rank is shared already: no vote needs removing (a gap of 0 has no side to close)
            return VoteDrop(rank, str(self.labels[holder]), str(self.labels[tied[0]]), 0, 0,
                            np.zeros(0, dtype=np.int64), 0.0)
        best = None
        for c in near:
            contrast = np.zeros(n + fit.rows.k)
            contrast[holder], contrast[c] = 1.0, -1.0
            u = linalg.cho_solve(factor, contrast)
            infl = s * (u[v.a] - u[v.b] + (per_vote.z @ u[n:] if per_vote.k else 0.0))  # gap change if removed
            gap = theta[holder] - theta[c]
            closing = infl * np.sign(gap)
            idx = np.argsort(closing, kind="stable")
            cum = np.abs(gap) + np.cumsum(closing[idx])
            hit = np.flatnonzero(cum < 0)
            k = int(hit[0]) + 1 if hit.size else -1
            if k > 0 and (best is None or k < best[1]):
                best = (c, k, idx[closing[idx] < 0], gap)
        if best is None:
            return VoteDrop(rank, str(self.labels[holder]), "", -1, -1, np.zeros(0, dtype=np.int64), float("nan"))
        c, k, candidates, gap = best
        votes, removed, taker = self._verify(per_vote, holder, rank, candidates, k)
        if taker >= 0 and taker != c:  # another model took the rank on the refit: it is the challenger
            c, gap = taker, theta[holder] - theta[taker]
        return VoteDrop(rank, str(self.labels[holder]), str(self.labels[c]), k, votes, removed, float(ELO * gap))

    def _verify(self, rows: BTRows, holder: int, rank: int, candidates: np.ndarray,
                k: int) -> tuple[int, np.ndarray, int]:
        """The fewest of the most influential ``candidates`` whose removal changes the model at ``rank`` on
        a refit (from ``k`` up by a tenth, then bisection; -1 if none does), the removed positions, and the
        model at ``rank`` on that refit (-1: none or no finite ratings)."""
        def taker(count: int) -> int:
            """The model at ``rank`` without the first ``count`` candidates: ``holder`` if unchanged, -1 if
            the refit has no finite ratings (the board is changed)."""
            keep = np.ones(rows.a.size, dtype=bool)
            keep[candidates[:count]] = False
            sub = rows.take(keep)
            try:
                refit = fit_bt(rows_of(sub.n, sub.a, sub.b, sub.y, sub.mult, sub.z if sub.k else None),
                               self.fit.style_prec, x0=self.fit.x)
            except (ValueError, FloatingPointError):
                return -1
            ranking = np.argsort(-refit.x[:sub.n], kind="stable")
            return int(ranking[shown[ranking]][rank - 1])

        lo, hi = 0, min(k, candidates.size)  # removing none (lo) leaves the holder
        shown = (np.bincount(rows.a, minlength=rows.n) + np.bincount(rows.b, minlength=rows.n)) >= self.min_votes
        got = taker(hi)
        while got == holder:
            if hi >= candidates.size:
                return -1, np.zeros(0, dtype=np.int64), -1
            lo, hi = hi, min(candidates.size, hi + max(1, hi // 10))
            got = taker(hi)
        while hi - lo > 1:
            mid = (lo + hi) // 2
            now = taker(mid)
            if now != holder:
                hi, got = mid, now
            else:
                lo = mid
        return hi, np.sort(candidates[:hi]), got

    # --- output --------------------------------------------------------------------------------------------
    def plot(self, ax: Any = None, top: Optional[int] = None, title: Optional[str] = None):
        """The forest plot of the board (:func:`discrank.models.plot.plot_forest`).

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Where to draw; default a new figure sized to the models.
        top : int, optional
            Draw the first ``top`` models only; default all.
        title : str, optional

        Returns
        -------
        matplotlib Axes
        """
        from discrank.models.plot import plot_forest

        return plot_forest(self.frame, ax=ax, top=top, title=title)

    def __repr__(self) -> str:
        return (f"ArenaBoard({self.labels.size} models, {self._votes.a.size} votes, ci={self.ci!r}, "
                f"style={list(self._votes.style_names)})")


def _normal_quantile(p: float) -> float:
    from scipy.stats import norm

    return float(norm.ppf(p))


def arena_board(source: Any, *, style: Any = None, category: Any = None, ties: str = "half", bothbad: str = "tie",
                anchor: Any = None, anchor_rating: float = 1000.0, ci: str = "sandwich", level: float = 0.95,
                n_boot: int = 1000, seed: int = 0, style_reg: float = 0.0, ridge: float = 0.0,
                normalize: bool = True, n_jobs: Optional[int] = None, min_votes: int = 0, verbose: Any = None,
                reweighted: bool = False, min_pair_count: int = 50, **read: Any) -> ArenaBoard:
    """The Bradley-Terry leaderboard of an arena's votes.

    Parameters
    ----------
    source : GameLog, pandas.DataFrame, str or path-like
        A frame or a CSV, Parquet or JSON file with ``model_a``, ``model_b`` and ``winner`` columns
        (:func:`read_arena`), or a GameLog (its advantage columns the style features).
    style : str or list of str, optional
        Style features of a frame or file (:func:`discrank.data.arena.style_features`); with style, the frame
        also shows the plain board's ratings and the rank change.
    category : str or array-like, optional
        A column (of a frame or file) or one value per vote (of a GameLog): one board per category.
    ties : {"half", "ignore", "one-win-each"}, default "half"
        How a tie counts (:func:`discrank.data.arena.apply_ties`): half a win each, dropped, or FastChat's rule.
    bothbad : {"tie", "ignore"}, default "tie"
        The "tie (bothbad)" votes of a frame or file: ties, or dropped.
    anchor : str, optional
        The model shown at ``anchor_rating``; default: the mean of the ratings is.
    anchor_rating : float, default 1000
    ci : {"sandwich", "bootstrap", "none"}, default "sandwich"
        The sandwich (robust) intervals, or percentiles of ``n_boot`` Poisson-bootstrap replicates.
    level : float, default 0.95
    n_boot : int, default 1000
    seed : int, default 0
        Replicate ``t`` is seeded by ``(seed, t)``: the same board for any ``n_jobs``.
    style_reg : float, default 0
        An L2 penalty ``style_reg * votes / 2 |beta|^2`` on the style coefficients (arena-rank's ``reg``).
    ridge : float, default 0
        A ridge of ``ridge * votes`` on the sandwich's Hessian (arena-rank's ``hessian_reg``, 1e-5 there).
    normalize : bool, default True
        Standardise each style feature over the votes.
    n_jobs : int, optional
        Threads of the bootstrap; default all.
    reweighted : bool, default False
        Weigh each vote by ``1 / max(votes of its pair, min_pair_count)``, scaled to a mean of 1 (arena-rank's
        inverse-propensity reweighting).
    min_pair_count : int, default 50
        The floor of a pair's votes in ``reweighted``.
    verbose : bool, int or None, optional
        The bootstrap's progress on stderr (:func:`discrank.progress`); None (default): where a person watches.
    min_votes : int, default 0
        Show only the models with this many votes at least (all are fitted); a model with fewer than
        :data:`PRELIMINARY_VOTES` votes is marked ``preliminary``.
    **read
        Column options of a frame or file: ``model_a``, ``model_b``, ``winner``, ``time``, ``invalid``, ...

    Returns
    -------
    ArenaBoard

    Raises
    ------
    ValueError
        Fewer than two rateable models, a comparison graph in pieces, every vote (or every vote of a model)
        dropped by ``ties``/``bothbad="ignore"``, a style column constant or with a missing value, ``min_votes``
        below 0 or ``min_pair_count`` below 1, an anchor that is not a model, a level outside (0, 1), an unknown
        winner value, a winner that is also a model's name, a model against itself, a ``ci``, ``ties`` or
        ``bothbad`` not among the choices, a truncated, corrupt or empty file, a column option or
        ``bothbad="ignore"`` with a GameLog.
    TypeError
        A read option that the readers do not take (naming it).

    Warns
    -----
    UserWarning
        Every vote of a board is a tie (its zero-width intervals are no certainty); a model that won or lost
        every one of its votes is left out with its votes; a category that cannot be rated is skipped.
    """
    level = check_board_args(level, ci, n_boot, seed, style_reg, ridge, anchor_rating, ties, min_votes, min_pair_count)
    from discrank._util.progress import speaking

    listener = speaking(verbose)  # (checked first: the message names the value)
    log, cats = read_board_votes(source, style=style, category=category, bothbad=bothbad, **read)
    from discrank._util.threads import resolve_n_jobs

    settings = dict(anchor=anchor, anchor_rating=float(anchor_rating), ci=ci, level=level, n_boot=int(n_boot),
                    seed=int(seed), ridge=float(ridge), n_jobs=resolve_n_jobs(n_jobs), min_votes=int(min_votes),
                    min_pair_count=int(min_pair_count) if reweighted else None)
    with listener:
        return _boards(log, cats, ties, normalize, float(style_reg), settings, anchor)


def _boards(log: Any, cats: Any, ties: str, normalize: bool, style_reg: float, settings: dict,
            anchor: Any) -> ArenaBoard:
    """The board of ``log`` and, with ``cats``, of each category's votes (a category that cannot be rated
    skipped with a warning)."""
    board = _board(log, ties, normalize, style_reg, "the board", settings)
    if cats is not None:
        for value in sorted(set(cats.tolist())):
            sub = log.take(np.flatnonzero(cats == value))
            try:
                board.categories[str(value)] = _board(sub, ties, normalize, style_reg, f"category {value!r}",
                                                      dict(settings, anchor=_anchor_in(anchor, sub)))
            except ValueError as exc:  # one thin category does not block the others
                import warnings

                text = str(exc) if str(exc).startswith(f"category {value!r}") else f"category {value!r}: {exc}"
                warnings.warn(f"{text}: that category's board is skipped, the others are built", UserWarning,
                              stacklevel=4)
    return board


def _anchor_in(anchor: Any, log: Any) -> Any:
    """The anchor for a category's board: the overall anchor when the category rates it, else the mean."""
    if anchor is None:
        return None
    return anchor if str(anchor) in set(log.labels.astype(str).tolist()) else None


def _board(log: Any, ties: str, normalize: bool, style_reg: float, where: str, settings: dict) -> ArenaBoard:
    from discrank._util.threads import one_blas_thread

    with one_blas_thread():  # small dense solves: a pool of BLAS threads only slows them down
        return _fitted_board(log, ties, normalize, style_reg, where, settings)


def _fitted_board(log: Any, ties: str, normalize: bool, style_reg: float, where: str, settings: dict) -> ArenaBoard:
    settings = dict(settings)
    votes = votes_of(rateable(log, ties, where), ties, normalize, where, settings.pop("min_pair_count"))
    check_graph(votes, where)
    if settings["ci"] != "none" and votes.y.size and bool(np.all(votes.y == 0.5)):
        from discrank.data._screen import warn_user

        warn_user(f"{where}: every one of its {votes.y.size} votes is a tie: the board says the models are equal, "
                  "nothing about their order; its standard errors of 0 and intervals of no width are no certainty "
                  "(every vote is at the fit's prediction, so neither the sandwich nor the bootstrap sees any "
                  "spread in the outcomes)", UserWarning)
    prec = style_reg * float(np.sum(votes.mult))
    try:
        plain = fit_bt(votes.rows(style=False)) if votes.z.shape[1] else None
        start = None if plain is None else np.concatenate([plain.x, np.zeros(votes.z.shape[1])])
        fit = fit_bt(votes.rows(), prec, x0=start)  # from the plain board: a step or two fewer
    except FloatingPointError as err:
        raise ValueError(f"{where}: {err} (a model separated from the others by its wins or losses; "
                         "ratings are then not finite)") from err
    return ArenaBoard(votes, fit, plain, where=where, **settings)
