"""Game logs in: pandas frames, CSV / Parquet files, PGN files; filters; time-ordered splits.

A :class:`GameLog` keeps one row per game (player a, player b, score of a, optional time) to be filtered by date,
split by time, fed to the online updates, or aggregated to pairs (:meth:`GameLog.to_pairs`).

Results are read as numbers in [0, 1] (1 a win of a, 0.5 a draw), as PGN results ("1-0", "0-1", "1/2-1/2",
"½-½"), or from a ``winner`` column (the winner's label, or one of :data:`DRAW_MARKERS`).

The readers raise on the first invalid row (a player against themself, a missing name, result or time), naming
its row and value, or with ``invalid="drop"`` drop them and report the count of each kind (:data:`INVALID_KINDS`)
in one :class:`~discrank._util.exceptions.InvalidRowsWarning` and in :attr:`GameLog.dropped`. The ``start`` /
``end`` filters come first: rows outside are never checked.

The log carries through its filters and splits the advantage covariates attributed to ``a`` (``advantage=``),
each game's context (``context=``: a surface, a map) and match format (``match_format=``: "bo3", "bo5"), which
belong to the game, and its margin (``margin=``: the sub-contests won by ``a`` and by ``b``).
"""

from __future__ import annotations

import os
import warnings
from dataclasses import dataclass, field
from typing import Any, Optional

import numpy as np

from discrank.data._advantage import as_advantage, named_columns
from discrank._util.checks import check_no_self_play, check_positive_int, check_random_state, check_same_length, show
from discrank.data._frame_files import read_csv_frame, read_parquet_frame
from discrank._util.labels import as_label_array, check_same_kind
from discrank.data._margin import as_margin
from discrank.data._rows import (DRAW_MARKERS, PGN_RESULTS, as_context, as_times, column_roles, pandas_module,  # noqa: F401 - PGN_RESULTS re-export
                            parse_results, read_frame_rows, LINE0, LINE_SHIFTS)
from discrank.data._screen import INVALID_KINDS, MAX_INVALID, SELF_PLAY, check_invalid, check_max_invalid, check_reading
from discrank.data._screen import describe_log, kept_games
from discrank.data.pairs import PairwiseData
from discrank.data.pgn import check_truncated, iter_pgn, pgn_columns, pgn_headers, pgn_rows  # noqa: F401 - iter_pgn re-export

__all__ = ["GameLog", "parse_results", "read_pgn", "DRAW_MARKERS", "INVALID_KINDS"]


@dataclass
class GameLog:
    """One row per game: labels ``a``, ``b``, the score of ``a`` in [0, 1], and an optional ``time``.

    Build with :meth:`from_arrays`, :meth:`from_frame`, :meth:`read_csv`, :meth:`read_parquet` or
    :func:`read_pgn`. The constructor, ``GameLog(a, b, score, time)``, checks and converts its columns as
    :meth:`from_arrays` does (``advantage`` an array whose columns are named by ``advantage_names``, or a dict).

    Attributes
    ----------
    a, b : array, shape (n_games,)
        The two players of each game.
    score : array of float, shape (n_games,)
        Score of ``a``: 1 a win, 0.5 a draw, 0 a loss.
    time : array, shape (n_games,), optional
        Time of each game (numbers or datetime64).
    dropped : dict of str to int
        The invalid rows a reader dropped (``invalid="drop"``), counted by kind (the keys are among
        :data:`INVALID_KINDS`); empty when none was dropped.
    advantage : ndarray of float, shape (n_games, n_covariates), optional
        Advantage covariates of each game, attributed to ``a`` (1 when ``a`` is at home, -1 when ``b`` is):
        the models that take them predict logit P(a beats b) = s_a - s_b + beta . x.
    advantage_names : tuple of str
        The name of each column of ``advantage`` (empty without covariates).
    context : array, shape (n_games,), optional
        The context of each game (a surface, a time control, a map): labels of one kind, text or numbers,
        none missing; the same for both sides.
    margin : ndarray of float, shape (n_games, 2), optional
        The sub-contests (points, games, goals) won by ``a`` and by ``b`` in each game: finite numbers
        >= 0, (0, 0) for a walkover.
    match_format : array, shape (n_games,), optional
        The format of each game's match (tennis: "bo3", "bo5"), as the context.
    """

    a: np.ndarray
    b: np.ndarray
    score: np.ndarray
    time: Optional[np.ndarray] = None
    dropped: dict = field(default_factory=dict)
    advantage: Optional[np.ndarray] = None
    advantage_names: tuple = ()
    context: Optional[np.ndarray] = None
    margin: Optional[np.ndarray] = None
    match_format: Optional[np.ndarray] = None
    #: Whether the columns are known to be checked (built by :meth:`from_arrays` or taken from such a log):
    #: :meth:`to_pairs` then aggregates them without checking the labels again.
    _checked: bool = field(default=False, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        """Check and convert the columns (:meth:`from_arrays`' checks), naming the offending value."""
        a = as_label_array(self.a, "a")
        b = as_label_array(self.b, "b")
        check_same_kind(("a", a), ("b", b))
        score = parse_results(self.score, "score")
        lengths = {"a": a.shape[0], "b": b.shape[0], "score": score.shape[0]}
        time = None
        if self.time is not None:
            time = as_times(self.time)
            lengths["time"] = time.shape[0]
        if (n := check_same_length(lengths, "columns")) == 0:
            raise ValueError("the game log is empty")
        check_no_self_play(a, b)
        x, names = as_advantage(named_columns(self.advantage, self.advantage_names), a.shape[0])
        self.a, self.b, self.score, self.time, self.advantage, self.advantage_names = a, b, score, time, x, names
        self.context = None if self.context is None else as_context(self.context, n)
        self.margin = None if self.margin is None else as_margin(self.margin, score)
        self.match_format = None if self.match_format is None else as_context(self.match_format, n, "match_format")
        self.dropped = dict(self.dropped)
        self._checked = True

    @classmethod
    def _trusted(cls, a: np.ndarray, b: np.ndarray, score: np.ndarray, time: Optional[np.ndarray] = None,
                 dropped: Optional[dict] = None, advantage: Optional[np.ndarray] = None, advantage_names: tuple = (),
                 checked: bool = False, context: Optional[np.ndarray] = None,
                 margin: Optional[np.ndarray] = None, match_format: Optional[np.ndarray] = None) -> "GameLog":
        """A log of columns already checked or made by the library (player codes, a log's rows), without
        the constructor's checks; ``checked``: whether they passed :meth:`from_arrays`' (see ``_checked``)."""
        log = object.__new__(cls)
        log.a, log.b, log.score, log.time = a, b, score, time
        log.dropped = {} if dropped is None else dict(dropped)
        log.advantage, log.advantage_names, log._checked = advantage, tuple(advantage_names), checked
        log.context, log.margin, log.match_format = context, margin, match_format
        return log

    @classmethod
    def from_arrays(cls, a: Any, b: Any, score: Any, time: Any = None, advantage: Any = None,
                    context: Any = None, margin: Any = None, match_format: Any = None) -> "GameLog":
        """A game log from its columns, checked.

        Parameters
        ----------
        a, b : array, shape (n_games,)
            The two players of each game: labels of one kind (numbers or strings,
            :func:`discrank._util.labels.as_label_array`).
        score : array, shape (n_games,)
            Score of ``a``: numbers in [0, 1] or PGN result strings (:func:`parse_results`).
        time : array, shape (n_games,), optional
            Time of each game: numbers, datetimes or ISO dates.
        advantage : array or dict of str to array, optional
            Advantage covariates attributed to ``a`` (1 when ``a`` is at home, 0 at a neutral venue, -1 when
            ``b`` is): an array (n_games,) or (n_games, n_covariates) of numbers or bools (0 / 1), columns named
            "x0", "x1", ...; or a dict (or DataFrame) of columns by name. A column constant over the games is
            valid; identifiability is the fit's check.
        context : array, shape (n_games,), optional
            The context of each game (a surface, a time control, a map): labels of one kind, text or
            numbers. One value in every game is valid.
        margin : array, shape (n_games, 2), or a pair of columns, optional
            The sub-contests (points, games, sets, goals) won by ``a`` and by ``b`` in each game: an array
            (n_games, 2) or two 1-D columns; finite numbers >= 0, (0, 0) for a walkover. A winner with fewer
            sub-contests than the loser (tennis: 6-4 0-6 6-3) is refused in more than half of the decided games
            whose margin is not (0, 0): the columns look swapped.
        match_format : array, shape (n_games,), optional
            The format of each game's match (tennis: "bo3", "bo5"), as the context.

        Returns
        -------
        GameLog

        Raises
        ------
        ValueError
            Columns of different lengths, an empty log, a result or time that is not one, labels of mixed
            kinds, a game of a player against themself; an advantage column with a NaN or infinite value; a
            context or match format with a missing value; a margin of the wrong shape, with a missing, negative
            or infinite value, or whose columns look swapped. Each names the game (or column) and the value.
        TypeError
            Labels (players', contexts, match formats) that are bools, bytes or other objects; an advantage
            or margin value that is not a number.
        """
        return cls(a, b, score, time, {}, advantage, (), context, margin, match_format)

    @classmethod
    def from_frame(cls, df: Any, a: str = "a", b: str = "b", score: Optional[str] = None,
                   winner: Optional[str] = None, time: Optional[str] = None, *, start: Any = None, end: Any = None,
                   min_player_games: int = 1, invalid: str = "raise", advantage: Any = None,
                   max_invalid: float = MAX_INVALID, context: Optional[str] = None,
                   margin: Optional[tuple] = None, match_format: Optional[str] = None) -> "GameLog":
        """A game log from a pandas DataFrame, one row per game.

        The rows are filtered by time, then checked, then filtered by ``min_player_games``: a row outside
        ``[start, end)`` is never checked, nor an invalid row of a player that ``min_player_games`` removes.

        Parameters
        ----------
        df : pandas.DataFrame
            The games.
        a, b : str
            Columns of the two players (numbers or text).
        score : str, optional
            Column of the results of ``a``: numbers in [0, 1] or PGN results ("1-0", "0-1", "1/2-1/2").
        winner : str, optional
            Instead of ``score``: column of the winner's label, or of its column's name (arena files: "model_a"
            or "model_b"), or a draw marker (:data:`DRAW_MARKERS`, "tie" and "tie (bothbad)" among them).
        time : str, optional
            Column of the games' times: numbers (as they are, say 20240501) or dates.
        start, end : optional
            Keep the games with ``start <= time < end`` (needs ``time``). A row whose time is missing or
            not a time cannot be placed: it is invalid.
        min_player_games : int
            Keep the players with at least this many valid games (repeated until every remaining player
            has that many). Default 1: keep every player.
        invalid : {"raise", "drop"}
            What to do with an invalid row: a player against themself, a missing player name, a missing or
            unparseable result (for ``winner``, a label that is neither player nor a draw marker), a missing or
            unparseable time. ``"raise"`` (default): a ``ValueError`` naming the first such row (from 0) and its
            value. ``"drop"``: drop them, warn once with an :class:`~discrank._util.exceptions.InvalidRowsWarning`
            (the count of each kind, the first rows) and keep the counts in :attr:`GameLog.dropped`.
        advantage : str or list of str, optional
            Columns of advantage covariates attributed to ``a`` (a home indicator, playing White): numbers,
            bools (0 / 1), text that reads as a number; a missing value, or one not a finite number, is invalid.
        context : str, optional
            Column of each game's context (a surface, a time control, a map); a missing value is invalid.
        margin : tuple of two str, optional
            The columns of the sub-contests won by ``a`` and by ``b`` (``("games_a", "games_b")``); a missing
            value, or one not a finite number >= 0, is invalid.
        match_format : str, optional
            Column of each game's match format ("bo3", "bo5"); a missing value is invalid.
        max_invalid : float, optional
            With ``invalid="drop"``: the largest share of the rows (in the time window) that may be dropped, in
            [0, 1] (default 0.5; 1 drops any number). More usually means a misread column, and is refused with
            their count, share and most common kind.

        Returns
        -------
        GameLog
            The valid games in the frame's order; integer ids that pandas read as floats (because of dropped
            missing entries) are integers again.

        Raises
        ------
        ValueError
            A column that is not in the frame, an empty frame, an invalid row (``invalid="raise"``), more than
            ``max_invalid`` of the rows invalid, no game left after the filters, an unknown ``invalid`` or
            ``max_invalid``, a ``margin`` that is not a pair of column names, or the errors of :meth:`from_arrays`.
        TypeError
            ``df`` is not a DataFrame.
        """
        rows = read_frame_rows(df, a=a, b=b, score=score, winner=winner, time=time, start=start, end=end,
                               min_player_games=min_player_games, invalid=invalid, advantage=advantage,
                               max_invalid=max_invalid, context=context, margin=margin, match_format=match_format)
        return cls.from_rows(rows)

    @classmethod
    def from_rows(cls, rows: Any, dropped: Optional[dict] = None) -> "GameLog":
        """The game log of the rows a frame's reader kept.

        Parameters
        ----------
        rows : FrameRows
            What :func:`discrank.data._rows.read_frame_rows` returned.
        dropped : dict, optional
            A reader's own counts of dropped rows, kept before those of ``rows``.

        Returns
        -------
        GameLog
        """
        x = None if rows.advantage is None else dict(zip(rows.advantage_names, rows.advantage.T))
        log = cls.from_arrays(rows.a, rows.b, rows.score, rows.time, x, rows.context, rows.margin, rows.match_format)
        log.dropped = {**(dropped or {}), **rows.dropped}
        return log

    @classmethod
    def read_csv(cls, path: Any, a: str = "a", b: str = "b", score: Optional[str] = None,
                 winner: Optional[str] = None, time: Optional[str] = None, *, start: Any = None, end: Any = None,
                 min_player_games: int = 1, invalid: str = "raise", truncated: str = "raise",
                 advantage: Any = None, max_invalid: float = MAX_INVALID, context: Optional[str] = None,
                 margin: Optional[tuple] = None, match_format: Optional[str] = None, **read_kw: Any) -> "GameLog":
        """A game log from a CSV file, through ``pandas.read_csv`` then :meth:`from_frame`.

        Parameters
        ----------
        path : str or path-like
            The file (compressed files too, as pandas reads them).
        a, b, score, winner, time, context, margin, match_format, start, end, min_player_games, invalid, max_invalid
            As in :meth:`from_frame`; an invalid row is named by its number and its line in the file.
        truncated : {"raise", "keep"}
            A ``.gz``, ``.bz2`` or ``.xz`` file that ends before its end-of-stream marker (a download cut short):
            ``"raise"`` (default) a ``ValueError`` naming the file, the byte and line where its text ends and the
            last complete row; ``"keep"`` keeps the complete lines read before, with a ``TruncatedFileWarning``.
        advantage : str or list of str, optional
            Columns of advantage covariates, as in :meth:`from_frame` (pandas reads "True" / "False" as bools: 1 / 0).
        **read_kw
            Passed to ``pandas.read_csv``; ``low_memory=False`` unless given (each column typed from all its rows).

        Returns
        -------
        GameLog

        Raises
        ------
        ValueError
            A file that is empty, not UTF-8 text, truncated (``truncated="raise"``) or corrupted (compressed data
            that does not decompress), and the errors of :meth:`from_frame`.
        """
        pd = pandas_module()
        check_reading(invalid, max_invalid, min_player_games)
        df = read_csv_frame(pd, path, read_kw, check_truncated(truncated))
        if not LINE_SHIFTS & set(read_kw):
            df.attrs[LINE0] = 2  # (the file's line of row 0, for the messages: read_frame_rows)
        return cls.from_frame(df, a=a, b=b, score=score, winner=winner, time=time, start=start, end=end,
                              min_player_games=min_player_games, invalid=invalid, advantage=advantage,
                              max_invalid=max_invalid, context=context, margin=margin, match_format=match_format)

    @classmethod
    def read_parquet(cls, path: Any, a: str = "a", b: str = "b", score: Optional[str] = None,
                     winner: Optional[str] = None, time: Optional[str] = None, *, start: Any = None,
                     end: Any = None, min_player_games: int = 1, invalid: str = "raise", advantage: Any = None,
                     max_invalid: float = MAX_INVALID, context: Optional[str] = None, margin: Optional[tuple] = None,
                     match_format: Optional[str] = None, **read_kw: Any) -> "GameLog":
        """A game log from a Parquet file, through ``pandas.read_parquet`` (needs pyarrow) then :meth:`from_frame`.

        Parameters
        ----------
        path : str or path-like
            The file.
        a, b, score, winner, time, context, margin, match_format, start, end, min_player_games, invalid, max_invalid
            As in :meth:`from_frame`.
        advantage : str or list of str, optional
            Columns of advantage covariates, as in :meth:`from_frame`.
        **read_kw
            Passed to ``pandas.read_parquet``.

        Returns
        -------
        GameLog

        Raises
        ------
        ValueError
            A file that is not Parquet, a column used that holds lists, arrays or structs instead of one value
            per game (named with its type), and the errors of :meth:`from_frame`.
        """
        pd = pandas_module()
        check_reading(invalid, max_invalid, min_player_games)
        roles = column_roles(a, b, score, winner, time, advantage, context, margin, match_format)
        df = read_parquet_frame(pd, path, read_kw, roles)
        return cls.from_frame(df, a=a, b=b, score=score, winner=winner, time=time, start=start, end=end,
                              min_player_games=min_player_games, invalid=invalid, advantage=advantage,
                              max_invalid=max_invalid, context=context, margin=margin, match_format=match_format)

    def __len__(self) -> int:
        return int(self.a.shape[0])

    def __repr__(self) -> str:
        return describe_log(self)

    def _take(self, keep: np.ndarray, dropped: Optional[dict] = None) -> "GameLog":
        """The games selected by ``keep`` (a mask or indices, in the order given), with ``dropped``."""
        empty = not keep.any() if keep.dtype == bool else keep.size == 0
        if empty:
            raise ValueError("no game is left after filtering")
        return GameLog._trusted(self.a[keep], self.b[keep], self.score[keep],
                                None if self.time is None else self.time[keep], dropped,
                                None if self.advantage is None else self.advantage[keep], self.advantage_names,
                                self._checked, None if self.context is None else self.context[keep],
                                None if self.margin is None else self.margin[keep],
                                None if self.match_format is None else self.match_format[keep])

    def filter(self, *, start: Any = None, end: Any = None, min_player_games: int = 1) -> "GameLog":
        """Games with ``start <= time < end``, then only players with at least ``min_player_games`` games.

        Parameters
        ----------
        start, end : optional
            Bounds of the times (needs a time column): dates for datetimes; numbers (or text that reads as
            one, such as "20100101") for numeric times.
        min_player_games : int
            Keep the players with at least this many games, repeated until every remaining player has
            that many.

        Returns
        -------
        GameLog
            The games kept, in order; :attr:`dropped` is carried over.
        """
        min_player_games = check_positive_int(min_player_games, "min_player_games")
        return self._take(kept_games(self.a, self.b, self.time, start, end, min_player_games), self.dropped)

    def sorted_by_time(self) -> "GameLog":
        """The games in time order (stable: games of one time keep their order).

        Returns
        -------
        GameLog
            The same games sorted by ``time``; :attr:`dropped` is carried over.

        Raises
        ------
        ValueError
            The log has no time column.
        """
        if self.time is None:
            raise ValueError("this game log has no time column")
        return self._take(np.argsort(self.time, kind="stable"), self.dropped)

    def shuffle_sides(self, random_state: Any) -> "GameLog":
        """The same games with the sides of a random half swapped: for a log written winner first.

        A log whose ``a`` is always the winner fits as any other, but a table of predictions by side (the
        calibration of :func:`discrank.evaluate`) then reads 1.0 in every bin. Here ``len(log) // 2`` games
        drawn at random have ``a`` and ``b`` swapped, their score ``1 - score``, their advantage covariates
        negated and their margin's columns swapped; context and match format are unchanged.

        Parameters
        ----------
        random_state : int, numpy Generator or SeedSequence
            The seed of the draw (``numpy.random.default_rng``); the same seed swaps the same games.

        Returns
        -------
        GameLog
            The games in the same order, with the same times; :attr:`dropped` is carried over.

        Raises
        ------
        TypeError, ValueError
            A ``random_state`` that is no seed, named.
        """
        rng = np.random.default_rng(check_random_state(random_state))
        swap = np.zeros(len(self), dtype=bool)
        swap[rng.permutation(len(self))[: len(self) // 2]] = True
        adv = None if self.advantage is None else np.where(swap[:, None], -self.advantage, self.advantage) + 0.0
        margin = None if self.margin is None else np.where(swap[:, None], self.margin[:, ::-1], self.margin)
        return GameLog._trusted(np.where(swap, self.b, self.a), np.where(swap, self.a, self.b),
                                np.where(swap, 1.0 - self.score, self.score),
                                None if self.time is None else self.time.copy(), self.dropped, adv,
                                self.advantage_names, self._checked,
                                None if self.context is None else self.context.copy(), margin,
                                None if self.match_format is None else self.match_format.copy())

    def split_time(self, test_fraction: float = 0.1) -> tuple["GameLog", "GameLog"]:
        """(past, future): the earliest ``1 - test_fraction`` of the games, and the rest.

        Parameters
        ----------
        test_fraction : float, optional
            Share of the latest games in the second part, in (0, 1); default 0.1. The cut is after
            ``round((1 - test_fraction) * n_games)`` games in time order.

        Returns
        -------
        past, future : GameLog
            The earliest games and the latest ones, each sorted by time.

        Raises
        ------
        ValueError
            A ``test_fraction`` that is not a number in (0, 1), one that leaves an empty part, or a log
            without a time column.
        """
        f = test_fraction
        if isinstance(f, (bool, np.bool_)) or not isinstance(f, (int, float, np.integer, np.floating)) \
                or not 0.0 < float(f) < 1.0:
            raise ValueError(f"test_fraction must be a number in (0, 1), the share of the latest games held out; "
                             f"got {show(f)}")
        test_fraction = float(f)
        log = self.sorted_by_time()
        cut = int(round((1.0 - test_fraction) * len(log)))
        if cut in (0, len(log)):
            raise ValueError(f"test_fraction={test_fraction} of {len(log)} games leaves an empty part")
        idx = np.arange(len(log))
        return log._take(idx < cut), log._take(idx >= cut)

    def to_pairs(self, *, labels: Any = None, min_games: int = 1, weights: Optional[str] = None) -> PairwiseData:
        """Aggregate the games to pairs, as :meth:`PairwiseData.from_games` does.

        With advantage columns the games of each pair are also kept by covariate value, oriented for the pair's
        first player (``PairwiseData.covariates``); ``min_games`` and ``labels`` are then refused. Each pair
        keeps its draws (``PairwiseData.draws``) when every score is 1, 0.5 or 0. The context, match format and
        margin columns are not kept: an ``UnusedColumnWarning`` names them.

        Parameters
        ----------
        labels : array, optional
            All the players, in the order of the ratings; default the sorted distinct labels.
        min_games : int
            Keep the pairs with at least this many games.
        weights : {"games", "uniform"}, optional
            See :class:`PairwiseData`; default ``"games"``.

        Returns
        -------
        PairwiseData
            Of every game of a log with times (no ``labels``, ``min_games`` 1), the pairs keep the log
            (``PairwiseData.games_log``), whose latest games tune the stationary models' default prior.
        """
        from discrank.data._coding import game_log_pairs
        from discrank._util.exceptions import UnusedColumnWarning

        dropped = [name for name in ("context", "match_format", "margin") if getattr(self, name) is not None]
        if dropped:
            warnings.warn(f"to_pairs: the pairs keep no {', '.join(dropped)} column: the log's are dropped (a "
                          "DynamicElo fitted on the log itself uses them)", UnusedColumnWarning, stacklevel=2)
        return game_log_pairs(self, labels, min_games, weights)


def read_pgn(path: Any, *, progress: Optional[bool] = None, max_games: Optional[int] = None, start: Any = None,
             end: Any = None, min_player_games: int = 1, invalid: str = "raise", truncated: str = "raise",
             max_invalid: float = MAX_INVALID) -> GameLog:
    """A PGN file (Lichess's format) as a :class:`GameLog`, streamed game by game.

    The players are the White and Black tags, the score White's, the time the UTCDate (else Date) tag when
    every kept game has one; the moves are not kept. Games are numbered from 0 in file order.

    Unfinished games (Result "*"), games with a result that is not a PGN result, and games without both player
    names (a missing, empty or "?" tag) are skipped, and counted in the report when ``invalid="drop"``. A game
    of a player against themself, or whose date tag is not a date (a date with "??" parts is no date, not an
    invalid one), is invalid.

    Parameters
    ----------
    path : str or path-like
        The PGN file; ``.pgn.gz``, ``.pgn.bz2``, ``.pgn.xz``, ``.pgn.zst`` (Lichess's; needs zstandard) compressed.
    progress : bool, optional
        A games-read counter on stderr (default: when stderr is a terminal).
    max_games : int, optional
        Stop after this many finished games of two different named players (counted before ``start`` / ``end``).
    start, end : optional
        Keep the games with ``start <= date < end``, before the checks; a game without a readable date is then
        invalid.
    min_player_games : int
        Keep the players with at least this many valid games (after ``start`` / ``end``); an invalid game of a
        player removed is not raised on or reported.
    invalid : {"raise", "drop"}
        ``"raise"`` (default): a ``ValueError`` naming the file, the first invalid game and its value.
        ``"drop"``: drop them, warn once with an :class:`~discrank._util.exceptions.InvalidRowsWarning` (the
        count of each kind, skipped games included) and keep the counts in :attr:`GameLog.dropped`.
    truncated : {"raise", "keep"}
        A compressed file that ends before its end-of-stream marker (a download cut short): ``"raise"`` (default) a
        ``ValueError`` naming the file, where its text ends and the last complete game; ``"keep"`` keeps the games
        read before, with a ``TruncatedFileWarning`` saying how many.
    max_invalid : float, optional
        As in :meth:`GameLog.from_frame` (default 0.5); the skipped games are not counted.

    Returns
    -------
    GameLog

    Raises
    ------
    ValueError
        No finished game with two named players, a game of a player against themself or with a bad date
        (``invalid="raise"``), a truncated (``truncated="raise"``) or corrupted compressed file, no game left after
        the filters, or an unknown ``invalid`` or ``truncated``.
    ImportError
        python-chess is not installed.
    """
    invalid = check_invalid(invalid)
    max_invalid = check_max_invalid(max_invalid)
    min_player_games = check_positive_int(min_player_games, "min_player_games")
    truncated = check_truncated(truncated)
    white, black, score, dates, kind_arr, results = pgn_columns(pgn_headers(path, progress, truncated), max_games)
    if not np.isin(kind_arr, (0, SELF_PLAY)).any():
        raise ValueError(f"{os.fspath(path)}: no finished game with two named players")
    W, B, sc, time, dropped = pgn_rows(path, white, black, score, dates, kind_arr, results, start=start, end=end,
                                        min_player_games=min_player_games, invalid=invalid, max_invalid=max_invalid)
    if np.isnat(time).any():
        time = None
    log = GameLog.from_arrays(W, B, sc, time)
    log.dropped = dropped
    return log
