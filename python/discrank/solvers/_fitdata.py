"""The data of one fit, built once per fit in one place: the objective, the weights, the pieces of the
comparison graph, the pair order and the threads; and the plan of the fit.

The data path of a fit is ``PairwiseData -> FitData -> solver -> the model's fitted attributes``
(``PairwiseModel.fit``). A :class:`FitData` holds plain arrays in the objective's order (the
:class:`~discrank.PairwiseData` stays sorted by ``(i, j)``); a :class:`FitPlan` says how the fit runs (prior
scale, a tuning fit's tolerance, a warm start). The model's ``_fit`` takes both; neither is set on the model.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Optional

import numpy as np

from discrank.core import _core
from discrank.data._advantage import check_identifiable
from discrank.data.pairs import PairwiseData, warn_isolated
from discrank._util.exceptions import DisconnectedGraphWarning

__all__ = ["FitData", "FitPlan", "TILE_BITS", "TiledPairs", "build_fit_data", "in_tile_order"]

#: Players per tile of the pair order the iterative fits use (``_core.tile_pairs``): 2^11 = 2048.
TILE_BITS = 11


class TiledPairs(NamedTuple):
    """The objective's entries (the pairs of a :class:`~discrank.PairwiseData`, or its covariate rows),
    possibly in another order: plain arrays, no invariant."""

    i: np.ndarray
    j: np.ndarray
    p: np.ndarray
    n_games: Optional[np.ndarray]
    draws: Optional[np.ndarray] = None


def in_tile_order(data: PairwiseData, w: np.ndarray, n_threads: int) -> tuple[TiledPairs, np.ndarray]:
    """The pairs of ``data`` and their weights ``w`` in the objective's cache-friendly order.

    The order is stable by the second player's tile of ``2^TILE_BITS`` players (``_core.tile_pairs``), so
    that each pass reads the second players' parameters and gradient rows within one tile, in cache; only
    the order of the pairs (and of the sums) changes. With at most one tile of players the arrays of
    ``data`` and ``w`` themselves are returned; otherwise copies, held for the fit's duration.

    Parameters
    ----------
    data : PairwiseData
        The pairs, sorted by ``(i, j)``.
    w : ndarray, shape (n_pairs,)
        A weight per pair of ``data``.
    n_threads : int
        Threads of the core's counting sort (0: OpenMP's default).

    Returns
    -------
    pairs : TiledPairs
        ``i``, ``j``, ``p`` and ``n_games`` (None without game counts) in tile order.
    w : ndarray
        The weights in the same order.
    """
    pairs, w, _ = _tile_entries(data.n_players, TiledPairs(data.i, data.j, data.p, data.n_games), w, None, n_threads)
    return pairs, w


def _tile_entries(n_players: int, entries: TiledPairs, w: np.ndarray, x: Optional[np.ndarray],
                  n_threads: int) -> tuple[TiledPairs, np.ndarray, Optional[np.ndarray]]:
    """:func:`in_tile_order` of the objective's entries (pairs, or covariate rows with their covariates
    ``x``, moved along): the arrays themselves with at most one tile of players."""
    if n_players <= 1 << TILE_BITS:
        return entries, w, x
    cols = [entries.p, w] + [c for c in (entries.n_games, entries.draws) if c is not None]
    n_cols = len(cols)
    if x is not None:
        cols += [np.ascontiguousarray(c) for c in x.T]
    i, j, moved = _core.tile_pairs(n_players, entries.i, entries.j, cols, TILE_BITS, n_threads)
    extra = iter(moved[2:n_cols])
    n_games = None if entries.n_games is None else next(extra)
    draws = None if entries.draws is None else next(extra)
    return (TiledPairs(i, j, moved[0], n_games, draws), moved[1],
            None if x is None else np.column_stack(moved[n_cols:]))


@dataclass(frozen=True)
class FitPlan:
    """How one fit runs, given to the model's ``_fit`` beside its :class:`FitData`.

    The fit pipeline (``PairwiseModel.fit``) makes one for the final fit; the prior's tuning
    (:mod:`discrank.solvers._tuning`) one for each fit it scores.

    Attributes
    ----------
    scale : float or None
        The prior scale of the fit (``numpy.inf``: no prior); None for a model without a prior.
    tol : float or None
        A fit made while tuning, only to be scored: it runs to the looser of this tolerance and the
        model's ``tol``, with the model's cap on its iterations, and computes no standard errors. None: a
        fit to the model's own tolerance.
    warm_start : object or None
        What the fit starts from: the ``_warm_state()`` of a fit of the same model at a nearby scale (its
        players are matched by label); None: a cold start.
    """

    scale: Optional[float] = None
    tol: Optional[float] = None
    warm_start: Any = None

    @property
    def tuning(self) -> bool:
        """Whether the fit is made while tuning (``tol`` given): scored, never kept."""
        return self.tol is not None


@dataclass(frozen=True)
class FitData:
    """What a model's ``_fit`` works on, built by :func:`build_fit_data`.

    Attributes
    ----------
    pairs : PairwiseData
        The data of the fit, as given (sorted by ``(i, j)``): its labels, and the pairs for what does not
        depend on their order.
    i, j, p : ndarray
        The pairs in the objective's order (tile order for the fits that ask for it).
    n_games : ndarray or None
        Games per pair in that order (None without game counts).
    w : ndarray
        The pair weights in that order, normalised to sum 1: the objective is the weighted mean loss.
    total_weight : float
        The sum of the pair weights before normalising (``pairs.pair_weights().sum()``): the number of
        games with ``weights="games"``.
    objective : discrank.core._core.PairObjective
        The compiled objective over ``(i, j, p, w)``.
    n_pieces : int
        Connected pieces of the comparison graph (isolated players each a piece).
    piece : ndarray of int, shape (n_players,)
        The piece of each player.
    n_threads : int
        Threads of the core's kernels (0: OpenMP's default).
    x : ndarray or None
        With covariates (``build_fit_data(..., covariates=True)``): the objective's entries are the rows
        of ``pairs.covariates`` (a pair once per covariate value; ``i``, ``j``, ``p``, ``n_games`` and
        ``w`` are the rows'), and ``x`` their covariates, shape (n_rows, n_covariates). None otherwise.
    covariate_names : tuple
        The covariates' names (empty without).
    draws : ndarray or None
        Draws per entry in the objective's order (``PairwiseData.draws``, or the covariate rows'); None
        when the data has no draw counts.
    """

    pairs: PairwiseData
    i: np.ndarray
    j: np.ndarray
    p: np.ndarray
    n_games: Optional[np.ndarray]
    w: np.ndarray
    total_weight: Any
    objective: Any
    n_pieces: int
    piece: np.ndarray
    n_threads: int
    x: Optional[np.ndarray] = None
    covariate_names: tuple = ()
    draws: Optional[np.ndarray] = None
    _cache: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def n_players(self) -> int:
        """Players of the data."""
        return self.pairs.n_players

    @property
    def n_pairs(self) -> int:
        """Observed pairs."""
        return int(self.i.shape[0])

    @property
    def labels(self) -> np.ndarray:
        """The players' labels, in the order of their indices."""
        return self.pairs.labels

    def games_per_player(self) -> np.ndarray:
        """Games played by each player (pairs played, without game counts).

        Returns
        -------
        ndarray, shape (n_players,)
        """
        if "games" not in self._cache:
            counts = self.n_games if self.n_games is not None else np.ones(self.i.shape[0])
            self._cache["games"] = self.objective.player_sums(np.ascontiguousarray(counts, dtype=np.float64),
                                                              n_threads=self.n_threads)
        return self._cache["games"].copy()

    def score_sums(self) -> tuple:
        """Each player's total pair weight, weighted score and weighted conceded score
        (``objective.score_sums``), computed once per fit data (the prior's tuning fits every scale on
        one). Read-only: callers copy before writing.

        Returns
        -------
        tuple of ndarray, each shape (n_players,)
        """
        if "score_sums" not in self._cache:
            self._cache["score_sums"] = self.objective.score_sums(n_threads=self.n_threads)
        return self._cache["score_sums"]


def build_fit_data(data: PairwiseData, n_threads: int, tile: bool, stacklevel: int = 2,
                   covariates: bool = False, draws: bool = False) -> FitData:
    """The :class:`FitData` of ``data``, with the warnings about its comparison graph.

    Warns (``IsolatedPlayerWarning``, :func:`discrank.data.pairs.warn_isolated`) when some players have no
    pair, and (``DisconnectedGraphWarning``) when the other players are in several connected pieces,
    whose ratings are then not comparable.

    Parameters
    ----------
    data : PairwiseData
        The pairs of the fit.
    n_threads : int
        Threads of the core (``resolve_n_jobs``'s count; 0: OpenMP's default).
    tile : bool
        Put the pairs in tile order (:func:`in_tile_order`): for the fits that evaluate the objective
        many times, where the reordering (one counting sort) pays.
    stacklevel : int, optional
        Stack level of the ``DisconnectedGraphWarning``, counted from the caller.
    covariates : bool, optional
        Fit the rows of ``data.covariates`` (a pair once per covariate value) instead of the pairs.
    draws : bool, optional
        Keep the entries' draw counts (in the objective's order) for a draw model; a model without one
        leaves them (no copy of them in tile order).

    Returns
    -------
    FitData
    """
    n_pieces, piece = data.components()
    isolated = warn_isolated(data, piece)
    n_connected_pieces = n_pieces - int(isolated.sum())
    if n_connected_pieces > 1:
        sizes = np.sort(np.bincount(piece[~isolated]))[::-1]
        sizes = sizes[sizes > 0]
        warnings.warn(
            f"the comparison graph is in {n_connected_pieces} pieces (sizes {sizes[:5].tolist()}"
            f"{' ...' if sizes.size > 5 else ''}): ratings of different pieces are not comparable",
            DisconnectedGraphWarning,
            stacklevel=stacklevel + 1,
        )
    if covariates:
        rows = data.covariates
        weights = data.row_weights()
        entries = TiledPairs(data.i[rows.pair], data.j[rows.pair], rows.p, rows.n_games, rows.draws if draws else None)
        x, names = rows.x, tuple(rows.names)
        check_identifiable(x, names)
    else:
        weights = data.pair_weights(copy=False)
        entries = TiledPairs(data.i, data.j, data.p, data.n_games, data.draws if draws else None)
        x, names = None, ()
    total_weight = weights.sum()
    w = weights / total_weight
    if tile:
        entries, w, x = _tile_entries(data.n_players, entries, w, x, n_threads)
    objective = _core.PairObjective(data.n_players, entries.i, entries.j, entries.p, w)
    return FitData(data, entries.i, entries.j, entries.p, entries.n_games, w, total_weight, objective, int(n_pieces),
                   piece, n_threads, None if x is None else np.ascontiguousarray(x), names, entries.draws)
