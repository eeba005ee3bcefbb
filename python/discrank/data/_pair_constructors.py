"""The constructors of :class:`~discrank.PairwiseData`: games, pairs, a frame or a payoff matrix checked,
coded and aggregated to the canonical pairs (the core's radix-sort aggregation), with each pair's draws.

:class:`PairConstructors` holds them as classmethods; ``PairwiseData`` derives from it and adds the
canonical constructor (``PairwiseData(i, j, p, ...)``, ``PairwiseData._trusted``) that they end in.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from discrank.core import _core
from discrank._util.checks import (as_float_vector, check_counts, check_no_self_play, check_one_of, check_player_indices,
                              check_positive_int, check_probabilities, check_same_length, show)
from discrank._util.labels import LabelIndex, as_label_array, check_same_kind, factorize_pair
from discrank.data._rows import parse_results, read_frame_rows
from discrank.data._screen import MAX_INVALID

__all__ = ["CONSISTENCY_TOL", "WEIGHTS", "PairConstructors", "are_results", "check_weights", "draw_counts"]

#: Largest allowed |P_ij + P_ji - 1| for a matrix or pair list giving both orientations of a pair.
CONSISTENCY_TOL = 1e-9

#: The ways pairs count in a fit (``weights=``).
WEIGHTS = ("uniform", "games")


def check_weights(weights: Any, has_games: bool) -> str:
    """``weights`` checked (:data:`WEIGHTS`); None: ``"games"`` when the game counts are known, else
    ``"uniform"``."""
    if weights is None:
        return "games" if has_games else "uniform"
    return check_one_of(weights, "weights", WEIGHTS)


def are_results(score: np.ndarray) -> bool:
    """Whether every score is a result, 1, 0.5 or 0 (a win, a draw, a loss): then the draws can be counted."""
    return bool(np.all((score == 0.5) | (score == 0.0) | (score == 1.0)))


def draw_counts(n_players: int, ia: np.ndarray, ib: np.ndarray, score: np.ndarray, pair_lo: np.ndarray,
                pair_hi: np.ndarray) -> Optional[np.ndarray]:
    """Each pair's games scored 0.5 (its draws), the pairs ``pair_lo < pair_hi`` sorted as the core's
    aggregation gives them; None when some score is not a result (:func:`are_results`). The drawn games
    alone are aggregated by the core and placed among the pairs by a binary search.
    """
    if not are_results(score):
        return None
    drawn = score == 0.5
    draws = np.zeros(pair_lo.size)
    if drawn.any():
        lo, hi, games, _ = _core.aggregate_games(n_players, ia[drawn], ib[drawn], score[drawn], None)
        key = pair_lo.astype(np.int64) * n_players + pair_hi
        draws[np.searchsorted(key, lo.astype(np.int64) * n_players + hi)] = games
    return draws


class PairConstructors:
    """The classmethods that build a :class:`~discrank.PairwiseData` from games, pairs, a frame or a
    matrix; each ends in ``cls(...)`` or ``cls._trusted(...)``, the canonical constructors of the class
    that derives from this one."""

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
            Labels of the two players of each game: numbers or strings, one kind for both; no missing label,
            no blank string, no bytes (decode them) or bools. Integers stay exact (int64, or uint64 above
            2^63 - 1).
        score : array of float, shape (n_games,)
            Score of ``a``: 1 a win, 0 a loss, 0.5 a draw, any value in [0, 1], or PGN result strings.
        labels : array, optional
            All the players, in the order of the ratings (default: the sorted distinct labels of a and b);
            a label of ``a`` or ``b`` not in it is an error.
        min_games : int
            Keep only pairs with at least this many games (players left without a pair are dropped).
        weights : {"games", "uniform"}, optional
            See :class:`PairwiseData`; default ``"games"``.

        Returns
        -------
        PairwiseData
            The pairs, with their draws in ``draws`` when every score is 1, 0.5 or 0 (else None).

        Raises
        ------
        ValueError
            Inputs of different lengths, no game, a score outside [0, 1], a game of a player against
            themself, labels of mixed kinds or missing, or a ``min_games`` that no pair reaches.
        TypeError
            Labels of a type that is not a label (bools, bytes, other objects).
        """
        min_games = check_positive_int(min_games, "min_games")
        a, b, score, _ = entries(a, b, score, None, "score", "game")
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
        """Aggregate games whose columns are checked already (a :class:`discrank.GameLog`'s: labels of one
        kind, float64 scores in [0, 1], equal lengths, at least one game), as :meth:`from_games` does.

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
        a, b, p, n_games = entries(a, b, p, n_games, "p", "pair")
        if n_games is None:
            return cls._merge(a, b, p, labels, min_games, weights)
        return cls._pool(a, b, p, n_games, labels, min_games, weights, "pair")

    @classmethod
    def _pool(cls, a: np.ndarray, b: np.ndarray, p: np.ndarray, n_games: Optional[np.ndarray], labels: Any,
              min_games: int, weights: Optional[str], what: str) -> "PairwiseData":
        """Entries of labels ``a``, ``b`` pooled into their unordered pairs (:meth:`_pool_codes`)."""
        ia, ib, index = encode(a, b, labels)
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
        ``n_games[t]`` games; one pass of the core. ``what`` ("game", "pair") and ``shown`` (the players of
        ``ia`` as given; default ``labels[ia]``) word the message on an entry of a player against themself.
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
            data.draws = draw_counts(len(labels), ia, ib, p, pair_lo, pair_hi)
        return data.filter(min_games) if min_games > 1 else data

    @classmethod
    def _merge(cls, a: np.ndarray, b: np.ndarray, p: np.ndarray, labels: Any, min_games: int,
               weights: Optional[str]) -> "PairwiseData":
        """Entries without game counts merged into their unordered pairs: the entries of a pair (in either
        orientation) must agree to :data:`CONSISTENCY_TOL`, and their mean is the pair's probability."""
        ia, ib, index = encode(a, b, labels)
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
        max_invalid: float = MAX_INVALID,
    ) -> "PairwiseData":
        """Aggregate a pandas DataFrame of games (one row per game) to pairs.

        The rows are read as :meth:`discrank.GameLog.from_frame` reads them, then aggregated
        (:meth:`from_games`). To keep the games, use :class:`discrank.GameLog`.

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
            An invalid row: a ``ValueError`` naming it (default), or dropped and reported by one
            :class:`~discrank._util.exceptions.InvalidRowsWarning` (as in :meth:`discrank.GameLog.from_frame`).
        max_invalid : float, optional
            With ``invalid="drop"``: the largest share of the rows dropped (default 0.5); more is refused.

        Returns
        -------
        PairwiseData
        """
        min_games = check_positive_int(min_games, "min_games")
        rows = read_frame_rows(df, a=a, b=b, score=score, winner=winner, time=time, start=start, end=end,
                               min_player_games=min_player_games, invalid=invalid, max_invalid=max_invalid)
        return cls.from_games(rows.a, rows.b, rows.score, labels, min_games=min_games, weights=weights)

    @classmethod
    def from_matrix(cls, P: Any, labels: Any = None, *, weights: Optional[str] = None) -> "PairwiseData":
        """Build from a dense payoff matrix ``P[i, j] = P(i beats j)``, NaN where unobserved.

        Where both ``P[i, j]`` and ``P[j, i]`` are observed they must satisfy ``P[i, j] + P[j, i] = 1``
        (Definition 2.1 of the paper) to 1e-9; where only one is observed it is used. The diagonal is
        ignored. ``P`` is read in blocks of rows, never copied whole.

        Parameters
        ----------
        P : array_like of numbers, shape (n, n)
            The payoff matrix, probabilities in [0, 1], NaN where unobserved; at least 2 players.
        labels : array, shape (n,), optional
            The players' labels, in the order of the rows; default ``0 .. n - 1``.
        weights : {"uniform"}, optional
            ``"uniform"`` (the default). ``"games"`` is refused: a matrix has no number of games.

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
            check_one_of(weights, "weights", WEIGHTS)
        if weights == "games":
            raise ValueError('weights="games" needs n_games (the number of games per pair); a matrix has none')
        if n < 2:
            raise ValueError(f"at least 2 players are needed, got {n}")
        rows = max(1, min(2**20, max(2**16, n * n // 64)) // n)
        blocks = [(r0, min(n, r0 + rows)) for r0 in range(0, n, rows)]
        counts, unpaired = [], None
        for r0, r1 in blocks:
            # every entry is checked to be a probability before any pair is checked to add up to 1
            keep, gap = matrix_block(P, r0, r1, check=True, pairs=unpaired is None)[2:4]
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
            upper, lower, keep, _, has_u = matrix_block(P, r0, r1, check=False)
            r, c = np.nonzero(keep)
            i[at: at + count] = r + r0
            j[at: at + count] = c + r0
            p[at: at + count] = np.where(has_u[keep], upper[keep], 1.0 - lower[keep])
            at += count
        data = cls._trusted(i, j, p, None, np.arange(n) if index is None else index.labels, weights or "uniform")
        data._index = index
        return data



def entries(a: Any, b: Any, p: Any, n_games: Any, p_name: str,
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


def encode(a: np.ndarray, b: np.ndarray, labels: Any) -> tuple[np.ndarray, np.ndarray, LabelIndex]:
    """Player codes of ``a`` and ``b`` (int32) and the index of the labels."""
    if labels is None:
        uniq, code_a, code_b = factorize_pair(a, b)
        return code_a.astype(np.int32, copy=False), code_b.astype(np.int32, copy=False), LabelIndex(uniq)
    index = LabelIndex(labels)
    check_same_kind(("a", a), ("b", b), ("labels", index.labels))
    return index.index(a, "a").astype(np.int32, copy=False), index.index(b, "b").astype(np.int32, copy=False), index


def matrix_block(P: np.ndarray, r0: int, r1: int, check: bool, pairs: bool = True) -> tuple:
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
