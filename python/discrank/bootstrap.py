"""Bootstrap confidence intervals on ratings and ranks, resampling games (as Chatbot-Arena's leaderboards).

Each replicate draws the games with replacement (a multinomial count per game), aggregates them with
those counts and refits a clone of the estimator; percentiles of the replicates give the intervals.
Replicate ``r`` uses ``numpy.random.default_rng([seed, r])``: the result is the same whatever the number
of workers. Workers are threads (the fits release the GIL), each fit on one core thread.
"""

from __future__ import annotations

import warnings
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Optional

import numpy as np

from discrank.data import PairwiseData
from discrank.exceptions import ConvergenceWarning

__all__ = ["BootstrapResult", "bootstrap"]


@dataclass
class BootstrapResult:
    """``scores``: (n_boot, n_players) ratings of each replicate (Elo: ``ratings_``; disc models:
    ``strength_``), NaN for a player absent from a replicate's games (or a cyclic disc replicate).
    ``labels``: the players; ``point``: the estimator fitted on all the games; ``ci``: the level."""

    labels: np.ndarray
    point: np.ndarray
    scores: np.ndarray
    ci: float

    def intervals(self) -> tuple[np.ndarray, np.ndarray]:
        """Per player, the ``ci`` interval of their score over the replicates.

        Returns
        -------
        lo, hi : ndarray, shape (n_players,)
            The ``50 (1 - ci)`` and ``50 (1 + ci)`` percentiles of each player's scores, the replicates'
            NaN left out; NaN for a player without a score in any replicate.
        """
        lo, hi = 50.0 * (1.0 - self.ci), 50.0 * (1.0 + self.ci)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN columns give NaN
            return np.nanpercentile(self.scores, lo, axis=0), np.nanpercentile(self.scores, hi, axis=0)

    def rank_intervals(self) -> tuple[np.ndarray, np.ndarray]:
        """Per player, the ``ci`` interval of their rank (1 = best) over the replicates."""
        filled = np.where(np.isnan(self.scores), -np.inf, self.scores)
        ranks = np.argsort(np.argsort(-filled, axis=1, kind="stable"), axis=1) + 1.0
        ranks[np.isnan(self.scores)] = np.nan
        lo, hi = 50.0 * (1.0 - self.ci), 50.0 * (1.0 + self.ci)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            return np.nanpercentile(ranks, lo, axis=0), np.nanpercentile(ranks, hi, axis=0)

    def frame(self):
        """A DataFrame, best first: player, rank, score, its interval (lo, hi) and the rank interval."""
        import pandas as pd

        lo, hi = self.intervals()
        rlo, rhi = self.rank_intervals()
        order = np.argsort(-self.point, kind="stable")
        return pd.DataFrame({
            "player": self.labels[order], "rank": np.arange(1, order.size + 1), "score": self.point[order],
            "lo": lo[order], "hi": hi[order], "rank_lo": rlo[order], "rank_hi": rhi[order],
        })


def _scores(model: Any) -> np.ndarray:
    """The values the fitted model ranks its players by (``_sort_key``: Elo's ratings, m-Elo's mean score,
    a disc model's strength), as float64; NaN for a model without a ranking (a cyclic disc component)."""
    key = model._sort_key()
    if key is None:
        return np.full(model.n_players_, np.nan)
    return np.array(key, dtype=np.float64)


def bootstrap(estimator: Any, a: Any, b: Any, score: Any, *, n_boot: int = 200, ci: float = 0.95,
              seed: int = 0, n_jobs: Optional[int] = None, weights: Optional[str] = None,
              anchor: Any = None) -> BootstrapResult:
    """Refit ``estimator`` (unfitted; cloned with its parameters) on ``n_boot`` resamples of the games
    ``(a, b, score)``; returns the replicates' scores with the point estimate on all the games.

    Disc models are compared on their strength (Proposition 2), which exists when the first component
    is transitive (NaN otherwise). ``anchor``: a player whose score is set to 0 in every replicate (and
    in the point estimate), so that the intervals are relative to that reference player; default: each
    fit's own centring (mean 0). Warnings of the replicates (players missing from a resample, a graph
    in pieces) are collected: one ``ConvergenceWarning`` says how many replicates did not converge.

    Parameters
    ----------
    estimator : PairwiseModel
        The model to refit, unfitted: each fit is a new ``type(estimator)(**estimator.get_params())``.
    a, b : array_like, shape (n_games,)
        Labels of the two players of each game.
    score : array_like, shape (n_games,)
        Score of ``a`` in each game, as in :meth:`~discrank.GameLog.from_arrays`.
    n_boot : int, optional
        Number of replicates, an integer >= 2; default 200.
    ci : float, optional
        Level of the intervals, in (0, 1); default 0.95.
    seed : int, optional
        An integer >= 0; replicate ``r`` draws from ``numpy.random.default_rng([seed, r])``. Default 0.
    n_jobs : int, optional
        None (default): one worker, each fit then using OpenMP's default threads. Otherwise that many
        worker threads, with scikit-learn's meaning of ``n_jobs`` (-1: all cores; a count above the limit
        clamped with a ``ThreadCountWarning``), never more than the replicates; with more than one worker,
        the replicates of an estimator with an ``n_jobs`` parameter fit with ``n_jobs=1``.
    weights : {"games", "uniform"}, optional
        How pairs count in each fit, as in :meth:`PairwiseData.from_games`; default ``"games"``.
    anchor : label, optional
        A player whose score is set to 0 in every replicate and in the point estimate; default: none.

    Returns
    -------
    BootstrapResult
        The players, the point estimate, the replicates' scores (NaN for a player absent from a
        replicate, or everywhere in a replicate the anchor sat out) and ``ci``.

    Raises
    ------
    TypeError
        A ``seed`` that is not an integer, or an ``n_jobs`` that is neither an int nor None.
    ValueError
        A negative ``seed``, an ``n_boot`` that is not an integer >= 2, a ``ci`` outside (0, 1),
        ``n_jobs=0`` or below minus the number of cores, an unknown ``anchor``, or invalid games.

    Warns
    -----
    ConvergenceWarning
        Some replicates did not converge (one warning with their number).
    """
    from discrank._tuning import pairs_from_codes
    from discrank.logs import GameLog
    from discrank.models._base import resolve_n_jobs

    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"seed must be an integer >= 0 (replicate r draws from default_rng([seed, r])), got {seed!r}")
    if seed < 0:
        raise ValueError(f"seed must be an integer >= 0 (replicate r draws from default_rng([seed, r])), got {seed!r}")
    if isinstance(n_boot, bool) or not isinstance(n_boot, (int, np.integer)) or n_boot < 2:
        raise ValueError(f"n_boot must be an integer >= 2, got {n_boot!r}")
    if not 0.0 < float(ci) < 1.0:
        raise ValueError(f"ci must be in (0, 1), got {ci!r}")
    # None: one worker (each fit then uses OpenMP's default threads); else that many threads (a count
    # above the limit clamped with a ThreadCountWarning), never more than the replicates
    workers = 1 if n_jobs is None else min(resolve_n_jobs(n_jobs), int(n_boot))
    log = GameLog.from_arrays(a, b, score)
    full = PairwiseData.from_games(log.a, log.b, log.score, weights=weights)
    labels = full.labels
    params = estimator.get_params()
    point = _scores(type(estimator)(**params).fit(full))
    ia, ib = full.index(log.a), full.index(log.b)
    players = np.arange(labels.size)
    ref = None if anchor is None else int(full.index([anchor])[0])
    if ref is not None:
        point -= point[ref]
    G = len(log)
    fit_params = dict(params)
    if "n_jobs" in fit_params:
        fit_params["n_jobs"] = 1 if workers > 1 else params.get("n_jobs")

    def replicate(r: int) -> np.ndarray:
        rng = np.random.default_rng([seed, r])
        counts = rng.multinomial(G, np.full(G, 1.0 / G)).astype(np.float64)
        keep = counts > 0
        times = counts[keep].astype(np.int64)
        # the drawn games, each as often as it was drawn, coded by the players' indices in ``labels``
        data = pairs_from_codes(labels, np.repeat(ia[keep], times), np.repeat(ib[keep], times),
                                np.repeat(log.score[keep], times), weights, players)
        out = _scores(type(estimator)(**fit_params).fit(data))
        present = np.zeros(labels.size, dtype=bool)
        present[ia[keep]] = True
        present[ib[keep]] = True
        out[~present] = np.nan
        if ref is not None:
            out -= out[ref]  # NaN everywhere when the anchor sat out this replicate
        return out

    # The warning filters are process-wide: set once here, around all the workers.
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if workers > 1:
            with ThreadPoolExecutor(max_workers=workers) as pool:
                rows = list(pool.map(replicate, range(n_boot)))
        else:
            rows = [replicate(r) for r in range(n_boot)]
    unconverged = sum(issubclass(w.category, ConvergenceWarning) for w in caught)
    if unconverged:
        warnings.warn(f"{unconverged} of {n_boot} bootstrap replicates did not converge", ConvergenceWarning,
                      stacklevel=2)
    return BootstrapResult(labels, np.asarray(point, dtype=np.float64), np.vstack(rows), float(ci))
