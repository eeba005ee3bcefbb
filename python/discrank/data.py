"""Observed pairwise results: the input of every model.

A :class:`PairwiseData` holds, for each observed unordered pair of players ``i < j``, the empirical
probability ``p`` that ``i`` beats ``j`` and, when known, the number of games behind it. Observation is
explicit (a list of pairs): a win rate of exactly 0 or 1 is an observation, never a missing entry.
Each unordered pair is stored once, so hiding a pair hides both ``(i, j)`` and ``(j, i)``.
"""

from __future__ import annotations

import warnings
from typing import Any, NamedTuple, Optional

import numpy as np

from discrank import _core
from discrank._checks import (MAX_TOTAL_GAMES, as_float_vector, check_counts, check_finite, check_no_self_play,
                              check_one_of, check_player_indices, check_positive_int, check_probabilities,
                              check_same_length, show)
from discrank._labels import LabelIndex, as_label_array, check_same_kind, factorize_pair
from discrank._rows import parse_results, read_frame_rows

__all__ = ["CovariateRows", "PairwiseData", "MAX_TOTAL_GAMES", "check_data"]

#: Largest allowed |P_ij + P_ji - 1| for a matrix or pair list giving both orientations of a pair.
CONSISTENCY_TOL = 1e-9

_WEIGHTS = ("uniform", "games")


#: Players a PairwiseData may have beyond those its pairs name (isolated players, who still cost memory
#: in every fit); more means indices that are ids, not indices.
_SPARE_PLAYERS = 2**20


def _check_weights(weights: Any, has_games: bool) -> str:
    """``weights`` checked (:data:`_WEIGHTS`); None: ``"games"`` when the game counts are known, else
    ``"uniform"``."""
    if weights is None:
        return "games" if has_games else "uniform"
    return check_one_of(weights, "weights", _WEIGHTS)


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


class CovariateRows(NamedTuple):
    """The games of each pair of a :class:`PairwiseData` split by their advantage covariates' value.

    One row per distinct ``(pair, x)``, sorted by pair; the pair's own ``p`` and ``n_games`` are the sums
    over its rows. ``x`` is oriented for the pair's first player ``i`` (a game where ``j`` was at home
    has ``x = -1`` for a home indicator), as the logit ``s_i - s_j + beta . x`` reads it.
    """

    pair: np.ndarray  #: int64, the index of each row's pair
    p: np.ndarray  #: float64, the share of the row's games won by the pair's ``i`` (draws half)
    n_games: np.ndarray  #: float64, the row's games
    x: np.ndarray  #: float64, shape (n_rows, n_covariates): the covariates, oriented for ``i``
    names: tuple  #: the covariates' names
    #: float64, the row's games scored 0.5 (draws); None when unknown (as :attr:`PairwiseData.draws`)
    draws: Optional[np.ndarray] = None

    def take(self, keep: np.ndarray, new_pair: np.ndarray) -> "CovariateRows":
        """The rows of the pairs kept, their pair renumbered.

        Parameters
        ----------
        keep : ndarray of bool, shape (n_pairs,)
            The pairs kept.
        new_pair : ndarray of int, shape (n_pairs,)
            The new index of each kept pair (``cumsum(keep) - 1``).

        Returns
        -------
        CovariateRows
        """
        rows = keep[self.pair]
        return CovariateRows(new_pair[self.pair[rows]], self.p[rows], self.n_games[rows], self.x[rows], self.names,
                             None if self.draws is None else self.draws[rows])


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
        draws = (won == 0.5).astype(np.float64) if _results(won) else None
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


def _results(score: np.ndarray) -> bool:
    """Whether every score is a result, 1, 0.5 or 0 (a win, a draw, a loss): then the draws can be counted."""
    return bool(np.all((score == 0.5) | (score == 0.0) | (score == 1.0)))


def _draw_counts(n_players: int, ia: np.ndarray, ib: np.ndarray, score: np.ndarray, pair_lo: np.ndarray,
                 pair_hi: np.ndarray) -> Optional[np.ndarray]:
    """Each pair's games scored 0.5 (its draws), the pairs ``pair_lo < pair_hi`` sorted as the core's
    aggregation gives them; None when some score is not a result (:func:`_results`).

    The core's aggregation sums scores and games, not draws: the draws are the games of the core's
    aggregation of the drawn games alone, placed among the pairs by a binary search. The cost beyond the
    aggregation of every game is one pass over the scores, and for the drawn games one more aggregation
    and one search each.
    """
    if not _results(score):
        return None
    drawn = score == 0.5
    draws = np.zeros(pair_lo.size)
    if drawn.any():
        lo, hi, games, _ = _core.aggregate_games(n_players, ia[drawn], ib[drawn], score[drawn], None)
        key = pair_lo.astype(np.int64) * n_players + pair_hi
        draws[np.searchsorted(key, lo.astype(np.int64) * n_players + hi)] = games
    return draws


class PairwiseData:
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
        counts are accepted as weights). Needed for ``weights="games"`` and ``min_games``.
    labels : array, shape (n_players,), optional
        The players' labels (numbers or strings of one kind, unique; no empty or blank string). Default:
        ``0 .. n_players - 1``. Kept in the one dtype of their kind: int64 (uint64 for ids above 2^63 - 1),
        float64, or an object array of str.
    n_players : int, optional
        Number of players when ``labels`` is not given (an integer). Default: one more than the largest
        index. Without labels, at most 2^20 players beyond the ``2 * n_pairs`` the pairs can name: sparse
        integer ids belong in :meth:`from_games` / :meth:`from_pairs`, which code them.
    weights : {"games", "uniform"}, optional
        How pairs count in a fit. ``"uniform"``: every observed pair once, as in the paper (which then
        keeps only pairs with at least ``min_games`` games). ``"games"``: each pair by its number of games,
        the maximum-likelihood choice for game logs. Default: ``"games"`` when ``n_games`` is known,
        ``"uniform"`` otherwise.

    Attributes
    ----------
    i, j, p, n_games, labels, weights
        As above, ``i`` and ``j`` as int32, sorted by ``(i, j)``.
    n_players, n_pairs : int
    covariates : CovariateRows or None
        The games of each pair split by advantage covariates (``GameLog.to_pairs`` of a log with
        ``advantage`` columns): the models that take covariates (Elo, the disc decomposition) fit
        ``beta . x`` on these rows; None otherwise.
    draws : ndarray of float, shape (n_pairs,), or None
        The games of each pair scored 0.5 (its draws; its wins are ``p * n_games - draws / 2``), which a
        draw model (``Elo(draws="davidson")``) fits: counted by :meth:`from_games`, ``GameLog.to_pairs``
        and their covariate rows when every score is 1, 0.5 or 0, and carried by :meth:`subset`,
        :meth:`filter` and :meth:`split`. None when unknown: data built from pairs or a matrix, or from
        games with fractional scores (which are no wins, draws or losses).
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
        weights = _check_weights(weights, n_games is not None)
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
        self._index: Optional[LabelIndex] = index if labels is not None else None

    @classmethod
    def _trusted(cls, i, j, p, n_games, labels, weights) -> "PairwiseData":
        """From arrays the aggregating constructors built and checked: distinct pairs, i < j, sorted by
        (i, j), or in tile order for a fit's own copy (``discrank._fitdata.in_tile_order``)."""
        data = cls.__new__(cls)
        data.n_players = int(len(labels))
        data.labels = labels
        data.i, data.j = i, j
        data.p = np.ascontiguousarray(p, dtype=np.float64)
        data.n_games = None if n_games is None else np.ascontiguousarray(n_games, dtype=np.float64)
        data.weights = _check_weights(weights, n_games is not None)
        data.covariates = None
        data.draws = None
        data._index = None
        return data

    # ------------------------------------------------------------------ constructors
    @classmethod
    def from_games(
        cls,
        a: Any,
        b: Any,
        score: Any,
        labels: Any = None,
        *,
        min_games: int = 1,
        weights: Optional[str] = None,
    ) -> "PairwiseData":
        """Aggregate a game log to pairs.

        Parameters
        ----------
        a, b : array, shape (n_games,)
            Labels of the two players of each game: numbers or strings, one kind for both (a ``ValueError``
            names the kinds and their first positions otherwise); no missing label, no empty or blank string,
            no bytes (decode them) or bools. Integers stay exact: the labels are int64, or uint64 when none
            is negative and some exceed 2^63 - 1; strings are kept as an object array of str.
        score : array of float, shape (n_games,)
            Score of ``a``: 1 a win, 0 a loss, 0.5 a draw (any value in [0, 1] is a fractional result), or
            PGN result strings ("1-0", "0-1", "1/2-1/2").
        labels : array, optional
            All the players, in the order of the ratings. Default: the sorted distinct labels of a and b.
            A label of ``a`` or ``b`` not in ``labels`` is an error.
        min_games : int
            Keep only pairs with at least this many games (players left without a pair are dropped).
        weights : {"games", "uniform"}, optional
            See :class:`PairwiseData`; default ``"games"``.

        Returns
        -------
        PairwiseData
            The pairs, with each pair's draws (the games scored 0.5) in ``draws`` when every score is 1,
            0.5 or 0 (else ``draws`` is None).

        Raises
        ------
        ValueError
            Inputs of different lengths, no game, a score outside [0, 1], a game of a player against
            themself, labels as described above, or a ``min_games`` that no pair reaches.
        TypeError
            Labels of a type that is not a label (bools, bytes, other objects).
        """
        min_games = check_positive_int(min_games, "min_games")
        a, b, score, _ = _entries(a, b, score, None, "score", "game")
        return cls._from_checked_games(a, b, score, labels, min_games=min_games, weights=weights)

    @classmethod
    def _from_checked_games(
        cls,
        a: np.ndarray,
        b: np.ndarray,
        score: np.ndarray,
        labels: Any = None,
        *,
        min_games: int = 1,
        weights: Optional[str] = None,
    ) -> "PairwiseData":
        """Aggregate games whose columns are checked already, as :meth:`from_games` does (used by
        ``GameLog.to_pairs``).

        For the columns of a :class:`discrank.GameLog` built by its readers or ``from_arrays``: labels of
        one kind (``as_label_array``), scores as float64 in [0, 1], equal lengths, at least one game. They
        are aggregated without those checks being repeated.

        Parameters
        ----------
        a, b : ndarray, shape (n_games,)
            The checked labels of the two players of each game.
        score : ndarray of float64, shape (n_games,)
            The checked scores of ``a``.
        labels, min_games, weights
            As in :meth:`from_games`.

        Returns
        -------
        PairwiseData

        Raises
        ------
        ValueError
            A game of a player against themself, a label not in ``labels``, or a bad ``min_games`` or
            ``weights``.
        """
        min_games = check_positive_int(min_games, "min_games")
        return cls._pool(a, b, score, None, labels, min_games, weights or "games", "game")

    @classmethod
    def from_pairs(
        cls,
        a: Any,
        b: Any,
        p: Any,
        n_games: Any = None,
        labels: Any = None,
        *,
        min_games: int = 1,
        weights: Optional[str] = None,
    ) -> "PairwiseData":
        """Build from aggregated pairs: ``p[t]`` is the probability that ``a[t]`` beats ``b[t]``.

        A pair may be listed in both orientations. With ``n_games`` the entries of a pair are pooled
        (wins and games add up). Without it they must agree (``p(a, b) + p(b, a) = 1`` to 1e-9).

        Parameters
        ----------
        a, b : array, shape (n_entries,)
            Labels of the two players of each entry (as in :meth:`from_games`).
        p : array of float, shape (n_entries,)
            Probability that ``a`` beats ``b``, in [0, 1].
        n_games : array of float, shape (n_entries,), optional
            Games behind each entry: positive, adding up to at most 2^53.
        labels : array, optional
            All the players, in the order of the ratings (see :meth:`from_games`).
        min_games : int
            Keep only pairs with at least this many games (needs ``n_games``).
        weights : {"games", "uniform"}, optional
            See :class:`PairwiseData`.

        Returns
        -------
        PairwiseData

        Raises
        ------
        ValueError
            Inputs of different lengths, no entry, a probability outside [0, 1], a count that is not
            positive, an entry of a player against themself, entries of one pair that disagree (without
            ``n_games``), or a pair whose counts are all 0.
        """
        min_games = check_positive_int(min_games, "min_games")
        a, b, p, n_games = _entries(a, b, p, n_games, "p", "pair")
        if n_games is None:
            return cls._merge(a, b, p, labels, min_games, weights)
        return cls._pool(a, b, p, n_games, labels, min_games, weights, "pair")

    @classmethod
    def _pool(cls, a: np.ndarray, b: np.ndarray, p: np.ndarray, n_games: Optional[np.ndarray], labels: Any,
              min_games: int, weights: Optional[str], what: str) -> "PairwiseData":
        """Entries of labels ``a``, ``b`` pooled into their unordered pairs (:meth:`_pool_codes`)."""
        ia, ib, index = _encode(a, b, labels)
        return cls._pool_codes(ia, ib, p, n_games, index.labels, min_games, weights, what, a)

    @classmethod
    def _from_codes(cls, ia: np.ndarray, ib: np.ndarray, score: np.ndarray, labels: np.ndarray,
                    weights: Optional[str] = None) -> "PairwiseData":
        """Games between players given by their index into ``labels`` (checked, unique), with checked scores,
        aggregated to pairs as :meth:`from_games` does: for the subsets of a game log coded once
        (``_coding.pairs_from_codes``)."""
        ia = np.ascontiguousarray(ia, dtype=np.int32)
        ib = np.ascontiguousarray(ib, dtype=np.int32)
        check_player_indices(ia, "a", len(labels))
        check_player_indices(ib, "b", len(labels))
        return cls._pool_codes(ia, ib, score, None, labels, 1, weights or "games", "game", None)

    @classmethod
    def _pool_codes(cls, ia: np.ndarray, ib: np.ndarray, p: np.ndarray, n_games: Optional[np.ndarray],
                    labels: np.ndarray, min_games: int, weights: Optional[str], what: str,
                    shown: Optional[np.ndarray]) -> "PairwiseData":
        """Entries pooled into their unordered pairs: wins and games add up.

        ``ia``, ``ib``: int32 indices into ``labels``. Each entry is one game (``n_games=None``) or
        ``n_games[t]`` games. Orientation, grouping and the sums run in one pass of the core, game order
        kept within a pair. ``what`` ("game", "pair") and ``shown`` (the players of ``ia`` as the user gave
        them; default ``labels[ia]``) word the message on an entry of a player against themself.
        """
        try:
            pair_lo, pair_hi, games, wins = _core.aggregate_games(len(labels), ia, ib, p, n_games)
        except ValueError:
            # the only entry the core can refuse: the codes are in range
            check_no_self_play(ia, ib, labels[ia] if shown is None else shown, what)
            raise
        p_pair = wins
        with np.errstate(invalid="ignore", divide="ignore"):
            np.divide(wins, games, out=p_pair)
        if n_games is not None and np.any(games <= 0):  # counts of 1 each add up to >= 1
            k = int(np.flatnonzero(games <= 0)[0])
            raise ValueError(
                f"pair ({show(labels[pair_lo[k]])}, {show(labels[pair_hi[k]])}) has no games "
                "(all its n_games are 0): drop it"
            )
        # wins <= games term by term, and rounding is monotone: p_pair <= 1 already; kept as a guard
        np.clip(p_pair, 0.0, 1.0, out=p_pair)
        data = cls._trusted(pair_lo, pair_hi, p_pair, games, labels, weights)
        if what == "game" and n_games is None:  # one game per entry: its draws can be counted
            data.draws = _draw_counts(len(labels), ia, ib, p, pair_lo, pair_hi)
        return data.filter(min_games) if min_games > 1 else data

    @classmethod
    def _merge(cls, a: np.ndarray, b: np.ndarray, p: np.ndarray, labels: Any, min_games: int,
               weights: Optional[str]) -> "PairwiseData":
        """Entries without game counts merged into their unordered pairs: the entries of a pair (in either
        orientation) must agree to :data:`CONSISTENCY_TOL`, and their mean is the pair's probability."""
        ia, ib, index = _encode(a, b, labels)
        check_no_self_play(ia, ib, a, "pair")
        lo = np.minimum(ia, ib).astype(np.int32)
        hi = np.maximum(ia, ib).astype(np.int32)
        p_lo = np.where(ia < ib, p, 1.0 - p)
        inverse, pair_lo, pair_hi = _core.group_pairs(len(index), lo, hi)
        n_pairs = pair_lo.size
        p_pair = np.bincount(inverse, weights=p_lo, minlength=n_pairs) / np.bincount(inverse, minlength=n_pairs)
        spread = np.abs(p_lo - p_pair[inverse])
        if np.any(spread > CONSISTENCY_TOL):
            k = int(np.argmax(spread))
            raise ValueError(
                f"pair ({show(a[k])}, {show(b[k])}) is given with disagreeing probabilities (p = {show(p[k])} "
                "differs from the other entries of that pair); give n_games to pool repeated pairs"
            )
        data = cls(pair_lo, pair_hi, np.clip(p_pair, 0.0, 1.0), None, index.labels, weights=weights)
        return data.filter(min_games) if min_games > 1 else data

    @classmethod
    def from_frame(
        cls,
        df: Any,
        a: str = "a",
        b: str = "b",
        score: Optional[str] = None,
        winner: Optional[str] = None,
        time: Optional[str] = None,
        *,
        labels: Any = None,
        min_games: int = 1,
        min_player_games: int = 1,
        start: Any = None,
        end: Any = None,
        weights: Optional[str] = None,
        invalid: str = "raise",
    ) -> "PairwiseData":
        """Aggregate a pandas DataFrame of games (one row per game) to pairs.

        The rows are read as :meth:`discrank.GameLog.from_frame` reads them: filtered by time, then checked,
        then filtered by ``min_player_games``, then aggregated (:meth:`from_games`). For time-ordered splits and online updates keep
        the games: :class:`discrank.GameLog`.

        Parameters
        ----------
        df : pandas.DataFrame
            The games.
        a, b : str
            Columns of the two players.
        score : str, optional
            Column of the results of ``a``: numbers in [0, 1] or PGN strings "1-0", "0-1", "1/2-1/2".
        winner : str, optional
            Instead of ``score``: column of the winner's label or a draw marker.
        time : str, optional
            Column of the games' times (for ``start`` / ``end``).
        labels : array, optional
            All the players, in the order of the ratings (see :meth:`from_games`).
        min_games : int
            Keep the pairs with at least this many games.
        min_player_games : int
            Keep the players with at least this many valid games (repeated until all have that many).
        start, end : optional
            Keep the games with ``start <= time < end``; rows outside are never checked.
        weights : {"games", "uniform"}, optional
            See :class:`PairwiseData`; default ``"games"``.
        invalid : {"raise", "drop"}
            An invalid row (player against themself, missing player name, missing or unparseable result or
            time): a ``ValueError`` naming the row (default), or ``"drop"``: dropped and reported by one
            :class:`~discrank.exceptions.InvalidRowsWarning` (counts per kind, first rows).

        Returns
        -------
        PairwiseData
        """
        min_games = check_positive_int(min_games, "min_games")
        rows = read_frame_rows(df, a=a, b=b, score=score, winner=winner, time=time, start=start, end=end,
                               min_player_games=min_player_games, invalid=invalid)
        return cls.from_games(rows.a, rows.b, rows.score, labels, min_games=min_games, weights=weights)

    @classmethod
    def from_matrix(cls, P: Any, labels: Any = None, *, weights: Optional[str] = None) -> "PairwiseData":
        """Build from a dense payoff matrix ``P[i, j] = P(i beats j)``, NaN where unobserved.

        Where both ``P[i, j]`` and ``P[j, i]`` are observed they must satisfy ``P[i, j] + P[j, i] = 1``
        (Definition 2.1 of the paper) to 1e-9; where only one is observed it is used. The diagonal is
        ignored. ``P`` is read in blocks of rows (never copied whole, float32 stays float32): beyond ``P``
        the memory used is the result's (16 bytes per observed pair) and a few blocks of at most 8 MB.

        Parameters
        ----------
        P : array_like of numbers, shape (n, n)
            The payoff matrix, probabilities in [0, 1], NaN where unobserved; at least 2 players.
        labels : array, shape (n,), optional
            The players' labels, in the order of the rows; default ``0 .. n - 1``.
        weights : {"uniform"}, optional
            ``"uniform"`` (the default): every observed pair once. ``"games"`` is refused: a matrix has no
            number of games.

        Returns
        -------
        PairwiseData
            The observed pairs, without ``n_games``.

        Raises
        ------
        TypeError
            ``P`` is not numeric.
        ValueError
            ``P`` not square, fewer than 2 players, a number of labels other than ``n``, ``weights`` not
            one of the options or ``"games"``, an entry that is not a probability, two observed entries
            ``P[i, j]``, ``P[j, i]`` that do not add up to 1, or no observed pair.
        """
        P = np.asarray(P)
        if P.dtype.kind not in "iufb":
            raise TypeError(f"P must be numeric, got dtype {P.dtype}")
        if P.ndim != 2 or P.shape[0] != P.shape[1]:
            raise ValueError(f"P must be a square matrix, got shape {P.shape}")
        n = P.shape[0]
        index = None
        if labels is not None:
            index = LabelIndex(labels)
            if len(index) != n:
                raise ValueError(f"P has {n} rows (players) but {len(index)} labels were given")
        if weights is not None:
            check_one_of(weights, "weights", _WEIGHTS)
        if weights == "games":
            raise ValueError('weights="games" needs n_games (the number of games per pair); a matrix has none')
        if n < 2:
            raise ValueError(f"at least 2 players are needed, got {n}")
        rows = max(1, min(2**20, max(2**16, n * n // 64)) // n)
        blocks = [(r0, min(n, r0 + rows)) for r0 in range(0, n, rows)]
        counts, unpaired = [], None
        for r0, r1 in blocks:
            # every entry is checked to be a probability before any pair is checked to add up to 1
            keep, gap = _matrix_block(P, r0, r1, check=True, pairs=unpaired is None)[2:4]
            counts.append(int(np.count_nonzero(keep)) if unpaired is None else 0)
            unpaired = unpaired or gap
        if unpaired:
            raise ValueError(unpaired)
        total = sum(counts)
        if total == 0:
            raise ValueError("no observed pair: the data is empty")
        i = np.empty(total, dtype=np.int32)
        j = np.empty(total, dtype=np.int32)
        p = np.empty(total, dtype=np.float64)
        at = 0
        for (r0, r1), count in zip(blocks, counts):
            upper, lower, keep, _, has_u = _matrix_block(P, r0, r1, check=False)
            r, c = np.nonzero(keep)
            i[at: at + count] = r + r0
            j[at: at + count] = c + r0
            p[at: at + count] = np.where(has_u[keep], upper[keep], 1.0 - lower[keep])
            at += count
        data = cls._trusted(i, j, p, None, np.arange(n) if index is None else index.labels, weights or "uniform")
        data._index = index
        return data

    # ------------------------------------------------------------------ derived data
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
        """Weight of each pair in a fit (not normalised): 1, or its number of games. ``copy=False``: a
        read-only view where the weights are the game counts (no copy of an array of ``n_pairs``).

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

        A player with no observed pair is a piece of their own. Computed once for the same arrays ``i``,
        ``j`` (the prior's tuning and the fit ask for the pieces of the same pairs).
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
            out.draws = self.draws[np.searchsorted(self.i * n + self.j, out.i * n + out.j)]
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

        Returns ``(train, test)`` on the same players and labels.

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


def _entries(a: Any, b: Any, p: Any, n_games: Any, p_name: str,
             what: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, Optional[np.ndarray]]:
    """The columns of :meth:`PairwiseData.from_games` (``what="game"``: results may be PGN strings) or
    :meth:`PairwiseData.from_pairs` (``what="pair"``), checked: labels, equal lengths, at least one entry,
    probabilities in [0, 1], positive counts."""
    a = as_label_array(a, "a")
    b = as_label_array(b, "b")
    if what == "game" and np.asarray(p).dtype.kind not in "iufb":
        p = parse_results(np.asarray(p, dtype=object), p_name)  # results as PGN strings: "1-0", "0-1", "1/2-1/2"
    p = as_float_vector(p, p_name, finite=False)  # the [0, 1] check below also rejects NaN and inf
    lengths = {"a": a.shape[0], "b": b.shape[0], p_name: p.shape[0]}
    if n_games is not None:
        n_games = as_float_vector(n_games, "n_games")
        lengths["n_games"] = n_games.shape[0]
    if check_same_length(lengths) == 0:
        raise ValueError(f"no {what} given: the data is empty")
    check_probabilities(p, p_name)
    if n_games is not None:
        check_counts(n_games, "n_games")
    return a, b, p, n_games


def _encode(a: np.ndarray, b: np.ndarray, labels: Any) -> tuple[np.ndarray, np.ndarray, LabelIndex]:
    """Player codes of ``a`` and ``b`` (int32) and the index of the labels."""
    if labels is None:
        uniq, code_a, code_b = factorize_pair(a, b)
        return code_a.astype(np.int32, copy=False), code_b.astype(np.int32, copy=False), LabelIndex(uniq)
    index = LabelIndex(labels)
    check_same_kind(("a", a), ("b", b), ("labels", index.labels))
    return index.index(a, "a").astype(np.int32, copy=False), index.index(b, "b").astype(np.int32, copy=False), index


def _matrix_block(P: np.ndarray, r0: int, r1: int, check: bool, pairs: bool = True) -> tuple:
    """Rows ``r0 .. r1 - 1`` of the upper triangle of the payoff matrix ``P`` (as float64): ``upper[t, c]``
    is ``P[r0 + t, r0 + c]`` and ``lower[t, c]`` is ``P[r0 + c, r0 + t]``, the mask of the observed pairs
    (``c > t``, either entry not NaN), the message naming the first pair whose entries do not add up to 1
    (``check`` and ``pairs``; else None) and where the upper entry is observed. ``check``: refuse an entry
    of those rows that is not a probability (the first in row-major order, the diagonal ignored)."""
    b = r1 - r0
    full = np.asarray(P[r0:r1], dtype=np.float64)
    if check:
        with np.errstate(invalid="ignore"):
            bad = ~((full >= 0.0) & (full <= 1.0)) & ~np.isnan(full)
        bad[np.arange(b), r0 + np.arange(b)] = False
        if bad.any():
            t, c = np.argwhere(bad)[0]
            r, v = r0 + int(t), full[t, c]
            if np.isinf(v):
                raise ValueError(f"P[{r}, {c}] = {show(v)}; entries must be probabilities in [0, 1] or NaN "
                                 "(unobserved)")
            raise ValueError(f"P[{r}, {c}] = {show(v)} is not a probability in [0, 1]")
    upper = full[:, r0:]
    if check and not pairs:
        return None, None, None, None, None
    lower = np.asarray(P[r0:, r0:r1], dtype=np.float64).T
    above = np.arange(upper.shape[1])[None, :] > np.arange(b)[:, None]
    has_u = ~np.isnan(upper)
    has_u &= above
    has_l = ~np.isnan(lower)
    has_l &= above
    gap = None
    if check:
        with np.errstate(invalid="ignore"):
            off = has_u & has_l & (np.abs(upper + lower - 1.0) > CONSISTENCY_TOL)
        if off.any():
            t, c = np.argwhere(off)[0]
            r, c2 = r0 + int(t), r0 + int(c)
            u, lo = upper[t, c], lower[t, c]
            gap = (f"P[{r}, {c2}] + P[{c2}, {r}] = {show(u)} + {show(lo)} = {show(u + lo)}, "
                   f"not 1: a symmetric zero-sum game needs P_ij + P_ji = 1")
    return upper, lower, has_u | has_l, gap, has_u


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

    ``piece``: the players' pieces from ``data.components()``, if known (then O(players), not O(pairs)):
    a player without a pair is exactly a piece of one.
    """
    from discrank.exceptions import IsolatedPlayerWarning

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

