"""PGN files (Lichess's format) read header by header: the games' players, results and dates, compressed
files, truncated downloads, and the screening of the games by :func:`discrank.read_pgn`'s rules.

:func:`discrank.read_pgn` builds a :class:`~discrank.GameLog` of a whole file, :func:`discrank.scan_games` screens
a file chunk by chunk; both read the headers with :func:`pgn_headers`, classify each game with :func:`pgn_game`
and keep the valid games with :func:`pgn_rows`. Reading needs python-chess (``pip install 'discrank[pgn]'``).
"""

from __future__ import annotations

import os
import sys
import time as _time
from typing import Any, Iterable, Iterator, Optional

import numpy as np

from discrank._util.checks import check_choice, self_play_message, show
from discrank._util.labels import text_array
from discrank.data._rows import PGN_RESULTS
from discrank.data._screen import (BAD_RESULT, BAD_TIME, INVALID_KINDS, MAX_INVALID, MISSING_NAME, MISSING_TIME, SELF_PLAY,
                              UNFINISHED, screen_rows, warn_user)
from discrank._util.exceptions import TruncatedFileWarning
from discrank.data.formats import decompression_errors, open_text, strip_compression

__all__ = ["iter_pgn", "pgn_headers", "pgn_game", "pgn_columns", "pgn_rows", "check_truncated", "SKIPPED",
           "SKIPPED_KINDS"]

#: The invalid games a PGN file skips in both modes (``invalid="raise"`` too): unfinished games, results
#: that are no PGN result, games without both player names; their codes and their names.
SKIPPED = (MISSING_NAME, UNFINISHED, BAD_RESULT)
SKIPPED_KINDS = tuple(INVALID_KINDS[code - 1] for code in SKIPPED)


class _Progress:
    """A one-line progress counter on stderr (only on a terminal unless forced)."""

    def __init__(self, what: str, enabled: Optional[bool] = None, every: float = 0.5):
        self.what, self.every = what, every
        self.enabled = sys.stderr.isatty() if enabled is None else enabled
        self.count, self.t0, self.last = 0, _time.perf_counter(), 0.0

    def update(self, k: int = 1) -> None:
        self.count += k
        if self.enabled:
            now = _time.perf_counter()
            if now - self.last >= self.every:
                self.last = now
                rate = self.count / max(now - self.t0, 1e-9)
                print(f"\r{self.what}: {self.count:,} ({rate:,.0f}/s)", end="", file=sys.stderr, flush=True)

    def close(self) -> None:
        if self.enabled:
            elapsed = _time.perf_counter() - self.t0
            print(f"\r{self.what}: {self.count:,} in {elapsed:.1f} s", file=sys.stderr, flush=True)


_TRUNCATED_CHOICES = ("raise", "keep")


def check_truncated(truncated: Any) -> str:
    return check_choice(truncated, "truncated", _TRUNCATED_CHOICES, "'raise' (the default) stops at a truncated "
                        "compressed file, 'keep' keeps the games read before the truncation")


def _truncation(path: str, games: int, last: str, where: str, truncated: str, exc: BaseException) -> None:
    """A truncated compressed file: a ``ValueError`` naming it and the last complete game, or with
    ``truncated="keep"`` a ``TruncatedFileWarning`` saying how many games are kept."""
    if truncated == "raise":
        raise ValueError(f"{path}: the compressed file is truncated ({exc}): it ends {where}, after {games} complete "
                         f"game{'s' if games != 1 else ''}{last}; truncated=\"keep\" (discrank fit --keep-truncated) "
                         "keeps the games read before the truncation") from None
    warn_user(f"{path}: the compressed file is truncated: it ends {where}; kept the {games} complete "
          f"game{'s' if games != 1 else ''} read before the truncation{last}", TruncatedFileWarning)


def pgn_headers(path: Any, progress: Optional[bool], truncated: str = "raise") -> Iterator[Any]:
    """The header block of every game of a PGN file, in file order (compressed files too). A truncated
    compressed file raises, or with ``truncated="keep"`` ends the games with a warning."""
    try:
        import chess.pgn
    except ImportError as exc:
        raise ImportError("reading PGN needs python-chess: pip install 'discrank[pgn]'") from exc
    path = os.fspath(path)
    bar = _Progress(f"{os.path.basename(path)}: games read", progress)
    with open_text(path) as fh:
        last = None
        while True:
            try:
                headers = chess.pgn.read_headers(fh)
            except EOFError as exc:  # the decompressor met the end of the file before the end of the stream
                try:
                    where = f"at byte {fh.buffer.tell():,} of the decompressed text"
                except (OSError, ValueError, AttributeError):  # pragma: no cover - tell() of the decompressors
                    where = "early"
                named = "" if last is None else (f" (the last, game {bar.count - 1}: {show(last.get('White', '?'))} "
                                                 f"against {show(last.get('Black', '?'))})")
                bar.close()
                _truncation(path, bar.count, named, where, truncated, exc)
                return
            except (OSError, *decompression_errors()) as exc:
                if strip_compression(path)[1] is None:
                    raise
                raise ValueError(f"{path}: cannot be decompressed after {bar.count} games ({type(exc).__name__}: "
                                 f"{exc})") from None
            if headers is None:
                break
            last = headers
            bar.update()
            yield headers
    bar.close()


def pgn_game(headers: Any) -> tuple[str, str, str, Optional[str], int]:
    """(white, black, result, date or None, kind): kind 0 for a finished game of two named players."""
    result = headers.get("Result", "*").strip()
    white, black = headers.get("White", "").strip(), headers.get("Black", "").strip()
    date = headers.get("UTCDate") or headers.get("Date")
    if date and "?" in date:
        date = None
    if not white or not black or white == "?" or black == "?":
        kind = MISSING_NAME
    elif result in ("*", ""):
        kind = UNFINISHED
    elif result not in PGN_RESULTS:
        kind = BAD_RESULT
    elif white == black:
        kind = SELF_PLAY
    else:
        kind = 0
    return white, black, result, date, kind


def pgn_columns(records: Iterable, max_games: Optional[int] = None) -> tuple:
    """The columns of PGN header records, each game classified by :func:`pgn_game`: (White, Black, White's
    score with NaN where the result is no PGN result, dates or None, each game's kind as int8, the
    results that are no PGN result by game), the input of :func:`pgn_rows`. ``max_games``: stop after
    this many finished games of two different named players."""
    white: list[str] = []
    black: list[str] = []
    score: list[float] = []
    dates: list[Optional[str]] = []
    kinds = bytearray()
    results: dict[int, str] = {}  # the results of the games whose result is not a PGN result
    finished = 0
    for headers in records:
        w, b, result, d, kind = pgn_game(headers)
        if kind == BAD_RESULT:
            results[len(kinds)] = result
        white.append(w), black.append(b), dates.append(d), kinds.append(kind)
        score.append(PGN_RESULTS.get(result, np.nan))
        finished += kind == 0
        if max_games is not None and finished >= max_games:
            break
    return white, black, score, dates, np.frombuffer(bytes(kinds), dtype=np.int8).copy(), results


def iter_pgn(path: Any, *, progress: Optional[bool] = None,
             truncated: str = "raise") -> Iterator[tuple[str, str, float, Optional[str]]]:
    """Stream (white, black, score of white, date or None) from a PGN file, one game at a time.

    Reads headers only; unfinished games ("*"), games with a result that is not one of ``PGN_RESULTS`` and
    games without both player names are skipped. ``.pgn.gz``, ``.pgn.bz2``, ``.pgn.xz`` and ``.pgn.zst`` are
    read compressed. Needs python-chess.

    Parameters
    ----------
    path : str or path-like
        The PGN file.
    progress : bool, optional
        A games-read counter on stderr (default: when stderr is a terminal).
    truncated : {"raise", "keep"}
        A compressed file cut short: ``"raise"`` (default) a ``ValueError`` naming the file and the last
        complete game; ``"keep"`` the games read before, with a ``TruncatedFileWarning``.

    Yields
    ------
    tuple of (str, str, float, str or None)
        White, Black, White's score, and the UTCDate (else Date) tag. A game of a player against themself
        is yielded as it is.
    """
    for headers in pgn_headers(path, progress, check_truncated(truncated)):
        white, black, result, date, kind = pgn_game(headers)
        if kind in (0, SELF_PLAY):
            yield white, black, PGN_RESULTS[result], date


def _pgn_dates(dates: list) -> np.ndarray:
    """Dates ("2024.03.01") as datetime64[D], NaT where missing or not a date."""
    text = [d.replace(".", "-") if d else "NaT" for d in dates]
    try:
        return np.array(text, dtype="datetime64[D]")
    except (ValueError, TypeError, OverflowError):
        out = np.empty(len(text), dtype="datetime64[D]")
        for k, d in enumerate(text):
            try:
                out[k] = np.datetime64(d, "D")
            except (ValueError, TypeError, OverflowError):
                out[k] = np.datetime64("NaT")
        return out


def pgn_rows(path: Any, white: list, black: list, score: list, dates: list, kind_arr: np.ndarray, results: dict, *,
              start: Any, end: Any, min_player_games: int, invalid: str, game0: int = 0, empty_ok: bool = False,
              need_time: bool = False, max_invalid: float = MAX_INVALID):
    """The valid games of PGN header records (:func:`discrank.read_pgn`'s rules): (White, Black, score, dates as
    datetime64[D] with NaT where a game has none, dropped counts). ``game0``: the number of the first
    record in its file (a chunk of a scan); ``empty_ok``: no valid game returns empty arrays;
    ``need_time``: a game without a date is invalid (a scan by period); ``max_invalid``: the largest share of
    the games that ``invalid="drop"`` drops (the games skipped in both modes not counted)."""
    W, B = text_array(white), text_array(black)  # object arrays: memory grows with the names' total length
    miss_w = np.isin(W, ("", "?"))
    miss_b = np.isin(B, ("", "?"))
    t = _pgn_dates(dates)
    t_missing = np.array([d is None for d in dates], dtype=bool)
    t_invalid = np.isnat(t)
    windowed = start is not None or end is not None
    if windowed or need_time:
        kind_arr[(kind_arr == 0) & t_missing] = MISSING_TIME
    kind_arr[(kind_arr == 0) & t_invalid & ~t_missing] = BAD_TIME  # a date tag that is not a date, in any case

    def explain(k: int) -> str:
        code = kind_arr[k]
        if code == SELF_PLAY:
            return self_play_message("game", k + game0, white[k])
        if code == MISSING_NAME:
            return f"game {k + game0} lacks a player name (White {show(white[k])}, Black {show(black[k])})"
        if code == UNFINISHED:
            return f"game {k + game0} is unfinished (Result '*')"
        if code == BAD_RESULT:
            return f"game {k + game0} has the result {results[k]!r}, not one of {sorted(PGN_RESULTS)}"
        if code == MISSING_TIME:
            return (f"game {k + game0} has no date (UTCDate or Date tag) "
                    + ("to compare with start / end" if windowed else "to put it in a period"))
        return f"game {k + game0} has the date {show(dates[k])}, which is not a date (YYYY.MM.DD)"

    idx, dropped = screen_rows(kind_arr, W, B, miss_w, miss_b, t if windowed else None,
                               t_invalid if windowed else None, start=start, end=end,
                               min_player_games=min_player_games, invalid=invalid,
                               explain=lambda k: f"{os.fspath(path)}: {explain(k)}", unit="game",
                               skip=SKIPPED, empty_ok=empty_ok, max_invalid=max_invalid)
    return W[idx], B[idx], np.asarray(score, dtype=np.float64)[idx], t[idx], dropped
