"""Observed pairwise results: the input of every model.

A :class:`PairwiseData` holds, for each observed unordered pair of players ``i < j``, the empirical
probability ``p`` that ``i`` beats ``j`` and, when known, the number of games behind it. Observation is
explicit (a list of pairs): a win rate of exactly 0 or 1 is an observation, never a missing entry.
Each unordered pair is stored once, so hiding a pair hides both ``(i, j)`` and ``(j, i)``.
"""

from __future__ import annotations

import warnings
from typing import Any, Optional

import numpy as np

from discrank import _core
from discrank._labels import LabelIndex, as_label_array, check_same_kind, factorize_pair, show

__all__ = ["PairwiseData"]

#: Largest allowed |P_ij + P_ji - 1| for a matrix or pair list giving both orientations of a pair.
CONSISTENCY_TOL = 1e-9

_WEIGHTS = ("uniform", "games")


def _float_vector(values: Any, name: str, length: Optional[int] = None, finite: bool = True) -> np.ndarray:
    """``values`` as a 1-D float64 array (no copy when it is one); ``finite``: reject NaN and inf here."""
    arr = np.asarray(values)
    if arr.dtype.kind not in "iufb":
        raise TypeError(f"{name} must be numeric, got dtype {arr.dtype}")
    arr = arr.astype(np.float64, copy=False)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {arr.shape}")
    if length is not None and arr.shape[0] != length:
        raise ValueError(f"found inputs of inconsistent lengths: {name} has {arr.shape[0]}, expected {length}")
    if finite:
        _check_finite(arr, name)
    return arr


def _check_finite(arr: np.ndarray, name: str) -> None:
    bad = ~np.isfinite(arr)
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        raise ValueError(f"{name} contains {show(arr[k])} at position {k}; only finite values are allowed")


def _check_probabilities(p: np.ndarray, name: str) -> None:
    """Every value in [0, 1]; NaN and inf are named as such."""
    if np.all((p >= 0.0) & (p <= 1.0)):  # False for NaN: one pass in the common case
        return
    _check_finite(p, name)
    bad = (p < 0.0) | (p > 1.0)
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        raise ValueError(f"{name} must lie in [0, 1]; got {show(p[k])} at position {k}")


def _check_min_games(min_games: Any) -> int:
    if isinstance(min_games, bool) or not isinstance(min_games, (int, np.integer)) or min_games < 1:
        raise ValueError(f"min_games must be an integer >= 1, got {min_games!r}")
    return int(min_games)


#: Largest total of the game counts: float64 counts games exactly up to 2^53, and more is no count of games.
MAX_TOTAL_GAMES = 2.0**53


def _check_counts(n: np.ndarray, name: str) -> None:
    """Every count positive (and finite: checked before), and their total at most :data:`MAX_TOTAL_GAMES`.
    Fractional counts are accepted (they weigh the pairs)."""
    bad = n <= 0
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        raise ValueError(f"{name} must be positive; got {show(n[k])} at position {k}")
    with np.errstate(over="ignore"):
        total = float(np.sum(n))
    if not total <= MAX_TOTAL_GAMES:
        k = int(np.argmax(n))
        raise ValueError(
            f"{name} adds up to {show(total)} games (the largest, {name}[{k}] = {show(n[k])}): the counts must add up "
            f"to at most 2^53 = {MAX_TOTAL_GAMES:.4g}, the most games float64 counts exactly"
        )


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
            big = (arr > np.iinfo(np.int32).max) | (arr < 0)
            if big.any():
                k = int(np.flatnonzero(big)[0])
                raise ValueError(f"{name}[{k}] = {show(arr[k])} is not a player index in [0, 2^31 - 1)")
        m = i.shape[0]
        if j.shape[0] != m:
            raise ValueError(f"found inputs of inconsistent lengths: i has {m}, j has {j.shape[0]}")
        p = _float_vector(p, "p", m)
        _check_probabilities(p, "p")
        if n_games is not None:
            n_games = _float_vector(n_games, "n_games", m)
            _check_counts(n_games, "n_games")
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
            bad = (arr < 0) | (arr >= n_players)
            if bad.any():
                k = int(np.flatnonzero(bad)[0])
                raise ValueError(f"{name}[{k}] = {show(arr[k])} is not a player index in [0, {n_players})")
        same = i == j
        if same.any():
            k = int(np.flatnonzero(same)[0])
            raise ValueError(f"pair {k} is player {show(i[k])} against themself")
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
        if weights is None:
            weights = "games" if n_games is not None else "uniform"
        if weights not in _WEIGHTS:
            raise ValueError(f"weights must be one of {_WEIGHTS}, got {weights!r}")
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
        self._index: Optional[LabelIndex] = index if labels is not None else None

    @classmethod
    def _trusted(cls, i, j, p, n_games, labels, weights) -> "PairwiseData":
        """From arrays the aggregating constructors built and checked: distinct pairs, i < j, sorted by
        (i, j), or in tile order for a fit's own copy (models/_base.py: in_tile_order)."""
        data = cls.__new__(cls)
        data.n_players = int(len(labels))
        data.labels = labels
        data.i, data.j = i, j
        data.p = np.ascontiguousarray(p, dtype=np.float64)
        data.n_games = None if n_games is None else np.ascontiguousarray(n_games, dtype=np.float64)
        if weights is None:
            weights = "games" if n_games is not None else "uniform"
        if weights not in _WEIGHTS:
            raise ValueError(f"weights must be one of {_WEIGHTS}, got {weights!r}")
        data.weights = weights
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
            Score of ``a``: 1 a win, 0 a loss, 0.5 a draw (any value in [0, 1] is a fractional result).
        labels : array, optional
            All the players, in the order of the ratings. Default: the sorted distinct labels of a and b.
            A label of ``a`` or ``b`` not in ``labels`` is an error.
        min_games : int
            Keep only pairs with at least this many games (players left without a pair are dropped).
        weights : {"games", "uniform"}, optional
            See :class:`PairwiseData`; default ``"games"``.
        """
        return cls._aggregate(a, b, score, None, labels, min_games, weights or "games", "game", "score")

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
        """
        return cls._aggregate(a, b, p, n_games, labels, min_games, weights, "pair", "p")

    @classmethod
    def _aggregate(cls, a: Any, b: Any, p: Any, n_games: Any, labels: Any, min_games: Any, weights: Optional[str],
                   what: str, p_name: str) -> "PairwiseData":
        """Orient each entry to its unordered pair (lower index first) and pool the entries of a pair.

        ``n_games=None`` with ``what="game"``: every entry is one game. ``n_games=None`` with
        ``what="pair"``: the entries of a pair must agree.
        """
        min_games = _check_min_games(min_games)
        a = as_label_array(a, "a")
        b = as_label_array(b, "b")
        if what == "game" and np.asarray(p).dtype.kind not in "iufb":
            from discrank.logs import parse_results  # results as PGN strings: "1-0", "0-1", "1/2-1/2"

            p = parse_results(np.asarray(p, dtype=object), p_name)
        p = _float_vector(p, p_name, finite=False)  # the [0, 1] check below also rejects NaN and inf
        lengths = {"a": a.shape[0], "b": b.shape[0], p_name: p.shape[0]}
        if n_games is not None:
            n_games = _float_vector(n_games, "n_games")
            lengths["n_games"] = n_games.shape[0]
        if len(set(lengths.values())) != 1:
            raise ValueError(f"found inputs of inconsistent lengths: {lengths}")
        if a.shape[0] == 0:
            raise ValueError(f"no {what} given: the data is empty")
        _check_probabilities(p, p_name)
        counts_given = n_games is not None
        if counts_given:
            _check_counts(n_games, "n_games")
        ia, ib, index = _encode(a, b, labels)
        n = len(index)

        def self_play() -> None:
            same = ia == ib
            if same.any():
                k = int(np.flatnonzero(same)[0])
                raise ValueError(f"{what} {k} is player {show(a[k])} against themself")

        if what == "game" or counts_given:
            # orientation, grouping and the sums in one pass of the core (game order kept within a pair)
            try:
                pair_lo, pair_hi, games, wins = _core.aggregate_games(n, ia, ib, p, n_games)
            except ValueError:
                self_play()  # the only entry the core can refuse: the codes are in range
                raise
            p_pair = wins
            with np.errstate(invalid="ignore", divide="ignore"):
                np.divide(wins, games, out=p_pair)
            if counts_given and np.any(games <= 0):  # counts of 1 each add up to >= 1
                k = int(np.flatnonzero(games <= 0)[0])
                raise ValueError(
                    f"pair ({show(index.labels[pair_lo[k]])}, {show(index.labels[pair_hi[k]])}) has no games "
                    "(all its n_games are 0): drop it"
                )
            # wins <= games term by term, and rounding is monotone: p_pair <= 1 already; kept as a guard
            np.clip(p_pair, 0.0, 1.0, out=p_pair)
            data = cls._trusted(pair_lo, pair_hi, p_pair, games, index.labels, weights)
            return data.filter(min_games) if min_games > 1 else data
        self_play()
        lo = np.minimum(ia, ib).astype(np.int32)
        hi = np.maximum(ia, ib).astype(np.int32)
        p_lo = np.where(ia < ib, p, 1.0 - p)
        inverse, pair_lo, pair_hi = _core.group_pairs(n, lo, hi)
        n_pairs = pair_lo.size
        games = None
        p_pair = np.bincount(inverse, weights=p_lo, minlength=n_pairs) / np.bincount(inverse, minlength=n_pairs)
        spread = np.abs(p_lo - p_pair[inverse])
        if np.any(spread > CONSISTENCY_TOL):
            k = int(np.argmax(spread))
            raise ValueError(
                f"pair ({show(a[k])}, {show(b[k])}) is given with disagreeing probabilities (p = {show(p[k])} "
                "differs from the other entries of that pair); give n_games to pool repeated pairs"
            )
        data = cls(pair_lo, pair_hi, np.clip(p_pair, 0.0, 1.0), games, index.labels, weights=weights)
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

        The rows go through :meth:`discrank.GameLog.from_frame`: filtered by time, then checked, then
        filtered by ``min_player_games``, then aggregated. For time-ordered splits and online updates keep
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
        from discrank.logs import GameLog

        log = GameLog.from_frame(df, a=a, b=b, score=score, winner=winner, time=time, start=start, end=end,
                                 min_player_games=min_player_games, invalid=invalid)
        return log.to_pairs(labels=labels, min_games=min_games, weights=weights)

    @classmethod
    def from_matrix(cls, P: Any, labels: Any = None, *, weights: Optional[str] = None) -> "PairwiseData":
        """Build from a dense payoff matrix ``P[i, j] = P(i beats j)``, NaN where unobserved.

        Where both ``P[i, j]`` and ``P[j, i]`` are observed they must satisfy ``P[i, j] + P[j, i] = 1``
        (Definition 2.1 of the paper) to 1e-9; where only one is observed it is used. The diagonal is
        ignored. ``P`` is read in blocks of rows (never copied whole, float32 stays float32): beyond ``P``
        the memory used is the result's (16 bytes per observed pair) and a few blocks of at most 8 MB.
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
        if weights is not None and weights not in _WEIGHTS:
            raise ValueError(f"weights must be one of {_WEIGHTS}, got {weights!r}")
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
        return f"PairwiseData(n_players={self.n_players}, n_pairs={self.n_pairs}{games}, weights={self.weights!r})"

    def pair_weights(self, copy: bool = True) -> np.ndarray:
        """Weight of each pair in a fit (not normalised): 1, or its number of games. ``copy=False``: a
        read-only view where the weights are the game counts (no copy of an array of ``n_pairs``)."""
        if self.weights != "games":
            return np.ones(self.n_pairs)
        if copy:
            return self.n_games.copy()
        view = self.n_games.view()
        view.flags.writeable = False
        return view

    def index(self, players: Any) -> np.ndarray:
        """Indices of the players with the given labels; a ``ValueError`` names unknown labels."""
        if self._index is None:
            self._index = LabelIndex(self.labels)
        return self._index.index(players)

    def components(self) -> tuple[int, np.ndarray]:
        """Connected pieces of the comparison graph: ``(n_pieces, piece of each player)``.

        A player with no observed pair is a piece of their own.
        """
        n_pieces, piece = _core.connected_pieces(self.n_players, self.i, self.j)
        return int(n_pieces), piece

    def player_games(self) -> np.ndarray:
        """Total weight of each player's pairs (the sum of ``pair_weights`` over the pairs they are in)."""
        w = self.pair_weights()
        return np.bincount(self.i, w, self.n_players) + np.bincount(self.j, w, self.n_players)

    def to_matrix(self) -> np.ndarray:
        """Dense ``n x n`` payoff matrix with NaN where unobserved and 0.5 on the diagonal."""
        P = np.full((self.n_players, self.n_players), np.nan)
        P[self.i, self.j] = self.p
        P[self.j, self.i] = 1.0 - self.p
        np.fill_diagonal(P, 0.5)
        return P

    def subset(self, mask: Any) -> "PairwiseData":
        """The pairs selected by a boolean mask or index array, on the same players."""
        sel = np.asarray(mask)
        return PairwiseData(
            self.i[sel], self.j[sel], self.p[sel], None if self.n_games is None else self.n_games[sel],
            self.labels, weights=self.weights,
        )

    def filter(self, min_games: int) -> "PairwiseData":
        """Keep pairs with at least ``min_games`` games; drop the players left without any pair."""
        min_games = _check_min_games(min_games)
        if self.n_games is None:
            raise ValueError("min_games needs the number of games per pair; this data has none")
        keep = self.n_games >= min_games
        if not keep.any():
            raise ValueError(f"no pair has at least min_games={min_games} games (the most is {self.n_games.max():.0f})")
        used = np.zeros(self.n_players, dtype=bool)
        used[self.i[keep]] = True
        used[self.j[keep]] = True
        new_index = np.cumsum(used) - 1
        return PairwiseData(
            new_index[self.i[keep]], new_index[self.j[keep]], self.p[keep], self.n_games[keep],
            self.labels[used], weights=self.weights,
        )

    def split(self, test_fraction: float = 0.2, seed: Any = None) -> tuple["PairwiseData", "PairwiseData"]:
        """Hide a random share of the pairs (both orientations of each), as in the paper's experiments.

        Returns ``(train, test)`` on the same players and labels.
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

