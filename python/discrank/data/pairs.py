"""Observed pairwise results: the input of every model.

A :class:`PairwiseData` holds, for each observed unordered pair of players ``i < j``, the empirical
probability ``p`` that ``i`` beats ``j`` and, when known, the number of games behind it. Observation is
explicit (a list of pairs): a win rate of exactly 0 or 1 is an observation, never a missing entry.
Each unordered pair is stored once, so hiding a pair hides both ``(i, j)`` and ``(j, i)``.

The constructors from games, pairs, a frame or a matrix are in :mod:`discrank.data._pair_constructors`.
"""

from __future__ import annotations

import warnings
from typing import Any, Optional

import numpy as np

from discrank.core import _core
from discrank._util.checks import (MAX_TOTAL_GAMES, as_float_vector, check_counts, check_finite, check_no_self_play,
                              check_player_indices, check_positive_int, check_probabilities, check_same_length, show)
from discrank.data._covariate_rows import CovariateRows
from discrank._util.labels import LabelIndex
from discrank.data._pair_constructors import (CONSISTENCY_TOL, PairConstructors, are_results,  # noqa: F401 - CONSISTENCY_TOL re-export
                                         check_weights)

__all__ = ["CovariateRows", "PairwiseData", "MAX_TOTAL_GAMES", "check_data"]


#: Players a PairwiseData may have beyond those its pairs name (isolated players, who still cost memory
#: in every fit); more means indices that are ids, not indices.
_SPARE_PLAYERS = 2**20


def _check_n_players(n_players: Any, n_pairs: int, dense: bool = True, inferred: bool = False) -> int:
    """``n_players`` as an int; ``dense`` (no labels given): at most :data:`_SPARE_PLAYERS` more than the
    pairs can name. ``inferred``: it is one more than the largest index (for the message)."""
    if isinstance(n_players, (bool, np.bool_)) or not isinstance(n_players, (int, np.integer)):
        raise ValueError(f"n_players must be an integer, got {show(n_players)}")
    n_players = int(n_players)
    limit = 2 * n_pairs + _SPARE_PLAYERS
    if dense and n_players > limit:
        raise ValueError(
            f"{'the largest index, ' + str(n_players - 1) + ', makes ' if inferred else ''}"
            f"n_players={n_players}: far more than the players that {n_pairs} pair(s) name (at most "
            f"{2 * n_pairs}): i and j are dense indices 0 .. n_players - 1, and every player, even one without a "
            f"pair, costs memory in a fit (at most {limit} here). For sparse integer ids, pass them as labels "
            "through PairwiseData.from_games or from_pairs, which code them"
        )
    return n_players


def covariate_pairs(ia: np.ndarray, ib: np.ndarray, score: np.ndarray, x: np.ndarray, names: tuple,
                    labels: np.ndarray, weights: Optional[str] = None) -> "PairwiseData":
    """Games aggregated by unordered pair and covariate value.

    Parameters
    ----------
    ia, ib : ndarray of int
        The players of each game, as indices into ``labels``.
    score : ndarray of float
        The score of ``a`` in each game (checked: in [0, 1]).
    x : ndarray of float, shape (n_games, n_covariates)
        The games' covariates, attributed to ``a`` (checked: finite).
    names : tuple of str
        The covariates' names.
    labels : ndarray
        The players' labels.
    weights : {"games", "uniform"}, optional
        As in :class:`PairwiseData`; default ``"games"``.

    Returns
    -------
    PairwiseData
        The pairs as :meth:`PairwiseData.from_games` gives them, with their :class:`CovariateRows` in
        ``covariates``.
    """
    ia = np.asarray(ia, dtype=np.int64)
    ib = np.asarray(ib, dtype=np.int64)
    check_no_self_play(ia, ib, labels[ia], "game")
    x = np.asarray(x, dtype=np.float64).reshape(ia.shape[0], -1)
    flip = ia > ib
    lo = np.where(flip, ib, ia).astype(np.int32)
    hi = np.where(flip, ia, ib).astype(np.int32)
    won = np.where(flip, 1.0 - score, score)
    xo = np.where(flip[:, None], -x, x)
    return oriented_covariate_data(lo, hi, won, xo, names, labels, weights)


def oriented_covariate_data(lo: np.ndarray, hi: np.ndarray, won: np.ndarray, x: np.ndarray, names: tuple,
                            labels: np.ndarray, weights: Optional[str] = None, games: Optional[np.ndarray] = None,
                            draws: Optional[np.ndarray] = None) -> "PairwiseData":
    """Entries oriented for their pair's first player, summed by pair and covariate value
    (:func:`covariate_pairs`' sums; :meth:`discrank.PeriodGames.to_pairs`).

    Parameters
    ----------
    lo, hi : ndarray of int32, shape (n,)
        The two players of each entry, ``lo < hi``.
    won : ndarray of float, shape (n,)
        The score (sum) of ``lo``.
    x : ndarray of float, shape (n, n_covariates)
        The covariates, attributed to ``lo``.
    names, labels, weights
        As in :func:`covariate_pairs`.
    games : ndarray of float, shape (n,), optional
        The games each entry stands for (default one each: the entries are games, and their draws, the
        scores of 0.5, are counted when every score is 1, 0.5 or 0).
    draws : ndarray of float, shape (n,), optional
        With ``games``: the draws each entry stands for (default: unknown).

    Returns
    -------
    PairwiseData
    """
    inverse, pair_lo, pair_hi = _core.group_pairs(len(labels), lo, hi)
    values, xcode = np.unique(x, axis=0, return_inverse=True)
    key = inverse.astype(np.int64) * values.shape[0] + xcode.reshape(-1)
    rows, row_of = np.unique(key, return_inverse=True)
    if games is None:
        games = np.bincount(row_of, minlength=rows.size).astype(np.float64)
        draws = (won == 0.5).astype(np.float64) if are_results(won) else None
    else:
        games = np.bincount(row_of, weights=games, minlength=rows.size)
    if draws is not None:
        draws = np.bincount(row_of, weights=draws, minlength=rows.size)
    won = np.bincount(row_of, weights=won, minlength=rows.size)
    return covariate_data(rows // values.shape[0], pair_lo, pair_hi, games, won, values[rows % values.shape[0]],
                          names, labels, weights, draws)


def covariate_data(row_pair: np.ndarray, pair_lo: np.ndarray, pair_hi: np.ndarray, games: np.ndarray,
                   won: np.ndarray, x: np.ndarray, names: tuple, labels: np.ndarray,
                   weights: Optional[str] = None, draws: Optional[np.ndarray] = None) -> "PairwiseData":
    """Pairs and their covariate rows from the rows' sums (:func:`covariate_pairs`, ``discrank.scan_games``).

    Parameters
    ----------
    row_pair : ndarray of int, shape (n_rows,)
        The pair of each row, rows sorted by pair then covariate value.
    pair_lo, pair_hi : ndarray of int32, shape (n_pairs,)
        The pairs, sorted, ``pair_lo < pair_hi``.
    games, won : ndarray of float, shape (n_rows,)
        The games of each row and the score sum of the pair's first player.
    x : ndarray of float, shape (n_rows, n_covariates)
        Each row's covariate values, attributed to the pair's first player.
    names, labels, weights
        As in :func:`covariate_pairs`.
    draws : ndarray of float, shape (n_rows,), optional
        The draws of each row (default: unknown, ``draws`` None).

    Returns
    -------
    PairwiseData
    """
    row_p = won / games
    n_pairs = pair_lo.size
    pair_games = np.bincount(row_pair, weights=games, minlength=n_pairs)
    pair_p = np.clip(np.bincount(row_pair, weights=games * row_p, minlength=n_pairs) / pair_games, 0.0, 1.0)
    data = PairwiseData._trusted(pair_lo, pair_hi, pair_p, pair_games, labels, weights or "games")
    data.covariates = CovariateRows(row_pair, np.clip(row_p, 0.0, 1.0), games, x, tuple(names), draws)
    if draws is not None:
        data.draws = np.bincount(row_pair, weights=draws, minlength=n_pairs)
    return data


class PairwiseData(PairConstructors):
    """Observed results between players, aggregated to unordered pairs.

    Build it with :meth:`from_games`, :meth:`from_pairs` or :meth:`from_matrix`; the constructor takes
    canonical arrays and is the low-level entry point.

    Parameters
    ----------
    i, j : array of int, shape (n_pairs,)
        Player indices of each pair, ``0 <= i < j < n_players``, each unordered pair at most once.
    p : array of float, shape (n_pairs,)
        Empirical probability that ``i`` beats ``j`` (draws count half), in [0, 1].
    n_games : array of float, shape (n_pairs,), optional
        Number of games behind each pair: positive and finite, adding up to at most 2^53 (fractional
        counts are weights). Needed for ``weights="games"`` and ``min_games``.
    labels : array, shape (n_players,), optional
        The players' labels (numbers or strings of one kind, unique; no blank string). Default:
        ``0 .. n_players - 1``. Kept as int64 (uint64 for ids above 2^63 - 1), float64, or an object array of str.
    n_players : int, optional
        Number of players when ``labels`` is not given. Default: one more than the largest index. At most
        2^20 beyond the ``2 * n_pairs`` the pairs can name: pass sparse integer ids to :meth:`from_games` /
        :meth:`from_pairs`, which code them.
    weights : {"games", "uniform"}, optional
        How pairs count in a fit. ``"uniform"``: every observed pair once, as in the paper. ``"games"``:
        each pair by its number of games (maximum likelihood for game logs). Default: ``"games"`` when
        ``n_games`` is known, ``"uniform"`` otherwise.

    Attributes
    ----------
    i, j, p, n_games, labels, weights
        As above, ``i`` and ``j`` as int32, sorted by ``(i, j)``.
    n_players, n_pairs : int
    covariates : CovariateRows or None
        The games of each pair split by advantage covariates (``GameLog.to_pairs`` of a log with
        ``advantage`` columns), on which the models fit ``beta . x``; None otherwise.
    draws : ndarray of float, shape (n_pairs,), or None
        The games of each pair scored 0.5 (its wins are ``p * n_games - draws / 2``), which a draw model
        (``Elo(draws="davidson")``) fits: counted from games when every score is 1, 0.5 or 0, carried by
        :meth:`subset`, :meth:`filter` and :meth:`split`. None when unknown (pairs, a matrix, fractional scores).
    games_log : GameLog or None
        The log whose every game these pairs sum (``GameLog.to_pairs`` of a log with times): the stationary
        models' default prior is tuned on its latest games. None otherwise (the prior is then tuned on random
        held-out pairs).
    """

    def __init__(
        self,
        i: Any,
        j: Any,
        p: Any,
        n_games: Any = None,
        labels: Any = None,
        *,
        n_players: Optional[int] = None,
        weights: Optional[str] = None,
    ):
        i = np.asarray(i)
        j = np.asarray(j)
        for name, arr in (("i", i), ("j", j)):
            if arr.ndim != 1:
                raise ValueError(f"{name} must be 1-D, got shape {arr.shape}")
            if arr.dtype.kind not in "iu":
                raise TypeError(f"{name} must hold integer player indices, got dtype {arr.dtype}")
        for name, arr in (("i", i), ("j", j)):
            check_player_indices(arr, name, np.iinfo(np.int32).max, bound="2^31 - 1")
        p = as_float_vector(p, "p", finite=False)
        lengths = {"i": i.shape[0], "j": j.shape[0], "p": p.shape[0]}
        if n_games is not None:
            n_games = as_float_vector(n_games, "n_games", finite=False)
            lengths["n_games"] = n_games.shape[0]
        m = check_same_length(lengths)
        check_probabilities(p, "p")
        if n_games is not None:
            check_finite(n_games, "n_games")
            check_counts(n_games, "n_games")
        if n_players is not None:
            n_players = _check_n_players(n_players, m, dense=labels is None)
        if labels is not None:
            index = LabelIndex(labels)
            if n_players is not None and n_players != len(index):
                raise ValueError(f"n_players={n_players} but {len(index)} labels were given")
            n_players = len(index)
        elif n_players is None:
            n_players = _check_n_players(int(max(i.max(initial=-1), j.max(initial=-1))) + 1, m, inferred=True)
        if m == 0:
            raise ValueError("no observed pair: the data is empty")
        if n_players < 2:
            raise ValueError(f"at least 2 players are needed, got {n_players}")
        for name, arr in (("i", i), ("j", j)):
            check_player_indices(arr, name, n_players)
        check_no_self_play(i, j, what="pair")
        flipped = i > j
        if flipped.any():
            raise ValueError(f"pairs must have i < j; pair {int(np.flatnonzero(flipped)[0])} does not")
        key = i.astype(np.int64) * n_players + j
        if m > 1 and np.all(key[1:] > key[:-1]):
            order = slice(None)  # already sorted and distinct (as the aggregating constructors give them)
        else:
            order = np.argsort(key, kind="stable")
            key = key[order]
            if m > 1 and np.any(key[1:] == key[:-1]):
                k = int(order[1:][key[1:] == key[:-1]][0])
                raise ValueError(f"pair ({show(i[k])}, {show(j[k])}) appears more than once")
        weights = check_weights(weights, n_games is not None)
        if weights == "games" and n_games is None:
            raise ValueError('weights="games" needs n_games (the number of games per pair)')

        self.n_players = int(n_players)
        self.labels = index.labels if labels is not None else np.arange(self.n_players)
        # copies, never views of the caller's arrays
        self.i = np.array(i[order], dtype=np.int32)
        self.j = np.array(j[order], dtype=np.int32)
        self.p = np.array(p[order], dtype=np.float64)
        self.n_games = None if n_games is None else np.array(n_games[order], dtype=np.float64)
        self.weights = weights
        self.covariates: Optional[CovariateRows] = None
        self.draws: Optional[np.ndarray] = None
        self.games_log: Any = None
        self._index: Optional[LabelIndex] = index if labels is not None else None

    @classmethod
    def _trusted(cls, i, j, p, n_games, labels, weights) -> "PairwiseData":
        """From arrays the aggregating constructors built and checked: distinct pairs, i < j, sorted by
        (i, j), or in tile order for a fit's own copy (``discrank.solvers._fitdata.in_tile_order``)."""
        data = cls.__new__(cls)
        data.n_players = int(len(labels))
        data.labels = labels
        data.i, data.j = i, j
        data.p = np.ascontiguousarray(p, dtype=np.float64)
        data.n_games = None if n_games is None else np.ascontiguousarray(n_games, dtype=np.float64)
        data.weights = check_weights(weights, n_games is not None)
        data.covariates = None
        data.draws = None
        data.games_log = None
        data._index = None
        return data

    @property
    def n_pairs(self) -> int:
        return int(self.i.shape[0])

    def __len__(self) -> int:
        return self.n_pairs

    def __repr__(self) -> str:
        games = "" if self.n_games is None else f", n_games={self.n_games.sum():.0f}"
        games += "" if self.draws is None else f", draws={self.draws.sum():.0f}"
        cov = "" if self.covariates is None else f", covariates={list(self.covariates.names)}"
        return (f"PairwiseData(n_players={self.n_players}, n_pairs={self.n_pairs}{games}, weights={self.weights!r}"
                f"{cov})")

    def row_weights(self) -> np.ndarray:
        """Weight of each row of :attr:`covariates` in a fit (not normalised).

        Returns
        -------
        ndarray of float, shape (n_rows,)
            Each row's share of its pair's weight: its games with ``weights="games"``, its share of the
            pair's games with ``"uniform"``, so that the rows of a pair weigh what the pair does.
        """
        rows = self.covariates
        if self.weights == "games":
            return rows.n_games.copy()
        return rows.n_games / self.n_games[rows.pair]

    def pair_weights(self, copy: bool = True) -> np.ndarray:
        """Weight of each pair in a fit (not normalised): 1, or its number of games.

        Parameters
        ----------
        copy : bool, optional
            True (default): a new array. False: with ``weights="games"``, a read-only view of ``n_games``.

        Returns
        -------
        ndarray of float, shape (n_pairs,)
            Ones with ``weights="uniform"``, the game counts with ``weights="games"``.
        """
        if self.weights != "games":
            return np.ones(self.n_pairs)
        if copy:
            return self.n_games.copy()
        view = self.n_games.view()
        view.flags.writeable = False
        return view

    def index(self, players: Any) -> np.ndarray:
        """Indices of the players with the given labels; a ``ValueError`` names unknown labels.

        Parameters
        ----------
        players : array_like or scalar
            Labels of players of the data (1-D, or a single player).

        Returns
        -------
        ndarray of int32
            The index of each player in ``labels``.

        Raises
        ------
        ValueError
            A label that is not a player of the data (the message names them), or ``players`` not 1-D.
        """
        if self._index is None:
            self._index = LabelIndex(self.labels)
        return self._index.index(players)

    def components(self) -> tuple[int, np.ndarray]:
        """Connected pieces of the comparison graph: ``(n_pieces, piece of each player)``.

        A player with no observed pair is a piece of their own. Cached for the same arrays ``i``, ``j``.
        """
        cached = getattr(self, "_pieces", None)
        if cached is not None and cached[0] is self.i and cached[1] is self.j:
            return cached[2], cached[3].copy()
        n_pieces, piece = _core.connected_pieces(self.n_players, self.i, self.j)
        self._pieces = (self.i, self.j, int(n_pieces), piece.copy())  # for the same pairs' next call
        return int(n_pieces), piece

    def to_matrix(self) -> np.ndarray:
        """Dense ``n x n`` payoff matrix with NaN where unobserved and 0.5 on the diagonal."""
        P = np.full((self.n_players, self.n_players), np.nan)
        P[self.i, self.j] = self.p
        P[self.j, self.i] = 1.0 - self.p
        np.fill_diagonal(P, 0.5)
        return P

    def subset(self, mask: Any) -> "PairwiseData":
        """The pairs selected by a boolean mask or index array, on the same players.

        Parameters
        ----------
        mask : array_like of bool, shape (n_pairs,), or array_like of int
            The pairs kept: a boolean mask over the pairs, or their indices.

        Returns
        -------
        PairwiseData
            The selected pairs with their ``n_games`` and ``draws``, on the same players, labels and
            ``weights``.
        """
        sel = np.asarray(mask)
        out = PairwiseData(
            self.i[sel], self.j[sel], self.p[sel], None if self.n_games is None else self.n_games[sel],
            self.labels, weights=self.weights,
        )
        if self.draws is not None:  # the pairs of ``out`` are sorted: each found among ours by its key
            n = np.int64(self.n_players)
            out.draws = self.draws[np.searchsorted(self.i.astype(np.int64) * n + self.j, out.i.astype(np.int64) * n + out.j)]
        if self.covariates is not None:
            keep = np.zeros(self.n_pairs, dtype=bool)
            keep[sel] = True
            if sel.dtype != bool and np.unique(sel).size != sel.size:
                raise ValueError("subset of data with covariates: an index array must not repeat a pair")
            if sel.dtype != bool and np.any(np.diff(sel) < 0):
                raise ValueError("subset of data with covariates: give the pairs' indices in increasing order "
                                 "(or a boolean mask)")
            new_pair = np.cumsum(keep) - 1
            out.covariates = self.covariates.take(keep, new_pair)
        return out

    def filter(self, min_games: int) -> "PairwiseData":
        """Keep pairs with at least ``min_games`` games; drop the players left without any pair.

        Parameters
        ----------
        min_games : int
            The least number of games of a pair kept, an integer >= 1.

        Returns
        -------
        PairwiseData
            The pairs kept (with their ``draws``), the players renumbered in their order, with their labels.

        Raises
        ------
        ValueError
            A ``min_games`` that is not an integer >= 1, data without ``n_games``, or no pair with at
            least ``min_games`` games.
        """
        min_games = check_positive_int(min_games, "min_games")
        if self.n_games is None:
            raise ValueError("min_games needs the number of games per pair; this data has none")
        keep = self.n_games >= min_games
        if not keep.any():
            raise ValueError(f"no pair has at least min_games={min_games} games (the most is {self.n_games.max():.0f})")
        used = np.zeros(self.n_players, dtype=bool)
        used[self.i[keep]] = True
        used[self.j[keep]] = True
        new_index = (np.cumsum(used) - 1).astype(np.int32)
        # an increasing renumbering of the players: the pairs kept stay distinct, i < j and sorted by (i, j),
        # and the labels kept stay unique and checked
        out = PairwiseData._trusted(new_index[self.i[keep]], new_index[self.j[keep]], self.p[keep],
                                    self.n_games[keep], self.labels[used], self.weights)
        out.draws = None if self.draws is None else self.draws[keep]
        if self.covariates is not None:
            out.covariates = self.covariates.take(keep, np.cumsum(keep) - 1)
        return out

    def split(self, test_fraction: float = 0.2, seed: Any = None) -> tuple["PairwiseData", "PairwiseData"]:
        """Hide a random share of the pairs (both orientations of each), as in the paper's experiments.

        Parameters
        ----------
        test_fraction : float, optional
            Share of the pairs held out, in (0, 1): ``round(test_fraction * n_pairs)`` pairs; default 0.2.
        seed : int, numpy.random.Generator or None, optional
            Seed of ``numpy.random.default_rng`` that draws the test pairs; default: fresh randomness.

        Returns
        -------
        train, test : PairwiseData
            The pairs kept and the pairs held out, on the same players and labels.

        Raises
        ------
        ValueError
            A ``test_fraction`` outside (0, 1), or one that leaves an empty train or test set.
        """
        if not isinstance(test_fraction, (float, int, np.floating)) or not 0.0 < float(test_fraction) < 1.0:
            raise ValueError(f"test_fraction must be in (0, 1), got {test_fraction!r}")
        n_test = int(round(test_fraction * self.n_pairs))
        if n_test == 0 or n_test == self.n_pairs:
            raise ValueError(
                f"test_fraction={test_fraction} of {self.n_pairs} pairs leaves an empty train or test set"
            )
        rng = np.random.default_rng(seed)
        test = np.zeros(self.n_pairs, dtype=bool)
        test[rng.choice(self.n_pairs, size=n_test, replace=False)] = True
        return self.subset(~test), self.subset(test)



def one_sided(piece: np.ndarray, scored: np.ndarray, conceded: np.ndarray) -> bool:
    """Whether some player with a pair never scored or never conceded (``scored``, ``conceded``: each
    player's weighted sums, ``PairObjective.score_sums``): the one-pass test of separated results."""
    has_pair = np.bincount(piece)[piece] > 1
    return bool(np.any(has_pair & ~((scored > 0.0) & (conceded > 0.0))))


def separated_examples(data: PairwiseData, strong: np.ndarray, limit: int = 5) -> list[str]:
    """A player of each of the ``limit`` smallest strong pieces of the beat graph (``_core.beat_pieces``),
    as the user wrote them: the separated groups a ``SeparationWarning`` names."""
    sizes = np.bincount(strong)
    smallest = np.argsort(sizes, kind="stable")[: min(limit, sizes.size)]
    return [show(data.labels[np.flatnonzero(strong == c)[0]]) for c in smallest]


def check_data(data: Any, where: str = "fit") -> None:
    """Refuse anything but a :class:`PairwiseData` (or a subclass) as the pairs of a fit.

    Parameters
    ----------
    data : object
        The pairs ``fit`` was given or built.
    where : str, optional
        The method named in the error (``"Elo.fit"``).

    Raises
    ------
    TypeError
        ``data`` is not a PairwiseData.
    """
    if not isinstance(data, PairwiseData):
        raise TypeError(f"{where} expects a discrank.PairwiseData, GameLog or PeriodGames, got {type(data).__name__}")


def warn_isolated(data: PairwiseData, piece: Optional[np.ndarray] = None) -> np.ndarray:
    """Warn about players with no observed pair and return a mask of them.

    ``piece``: the players' pieces from ``data.components()``, if known (a player without a pair is a piece
    of one).
    """
    from discrank._util.exceptions import IsolatedPlayerWarning

    if piece is not None:
        seen = np.bincount(piece)[piece] > 1
    else:
        seen = np.zeros(data.n_players, dtype=bool)
        seen[data.i] = True
        seen[data.j] = True
    if not seen.all():
        missing = data.labels[~seen]
        shown = ", ".join(show(v) for v in missing[:5]) + (" ..." if missing.size > 5 else "")
        warnings.warn(
            f"{missing.size} player(s) have no observed pair ({shown}); the data says nothing about them and "
            "they keep the neutral rating",
            IsolatedPlayerWarning,
            stacklevel=3,
        )
    return ~seen

