"""Game logs in: pandas frames, CSV / Parquet files, PGN files; filters; time-ordered splits.

A :class:`GameLog` keeps one row per game (player a, player b, score of a, optional time), so that it
can be filtered by date, split by time, fed to the online updates, or aggregated to the pairs that the
stationary models fit (:meth:`GameLog.to_pairs` -> :class:`discrank.PairwiseData`).

Results are read as numbers (1 a win of a, 0.5 a draw, 0 a loss; any value in [0, 1]), as PGN result
strings ("1-0", "0-1", "1/2-1/2", also "½-½"), or from a ``winner`` column holding the winner's label
(or a draw marker: "draw", "1/2-1/2", "tie", "=").
"""

from __future__ import annotations

import os
import sys
import time as _time
from dataclasses import dataclass
from typing import Any, Iterator, Optional

import numpy as np

from discrank._labels import as_label_array, show
from discrank.data import PairwiseData

__all__ = ["GameLog", "parse_results", "read_pgn", "DRAW_MARKERS"]

PGN_RESULTS = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5, "½-½": 0.5, "0.5-0.5": 0.5}
DRAW_MARKERS = ("draw", "Draw", "DRAW", "1/2-1/2", "½-½", "tie", "Tie", "=")


def _pandas():
    try:
        import pandas as pd
    except ImportError as exc:  # pragma: no cover - pandas is in the test extra
        raise ImportError("reading frames and files needs pandas: pip install 'discrank[pandas]'") from exc
    return pd


def parse_results(values: Any, name: str = "score") -> np.ndarray:
    """Scores of the first player from numbers in [0, 1] or PGN result strings; errors name the value."""
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {arr.shape}")
    if arr.dtype.kind in "iufb":
        out = arr.astype(np.float64)
    else:
        out = np.empty(arr.shape[0])
        for k, v in enumerate(arr.tolist()):
            if isinstance(v, str):
                key = v.strip()
                if key in PGN_RESULTS:
                    out[k] = PGN_RESULTS[key]
                    continue
                try:
                    out[k] = float(key)
                    continue
                except ValueError:
                    pass
                raise ValueError(
                    f"{name}[{k}] = {v!r} is not a result: use a number in [0, 1] or one of "
                    f"{sorted(PGN_RESULTS)} ('*', an unfinished game, has no result)"
                )
            if isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool):
                out[k] = float(v)
                continue
            raise ValueError(f"{name}[{k}] = {v!r} is not a result: use a number in [0, 1] or a PGN result string")
    bad = ~np.isfinite(out) | (out < 0.0) | (out > 1.0)
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        raise ValueError(f"{name}[{k}] = {show(arr[k])} is not a score in [0, 1] (1 win, 0.5 draw, 0 loss)")
    return out


def _winner_scores(a: np.ndarray, b: np.ndarray, winner: Any) -> np.ndarray:
    w = np.asarray(winner, dtype=object)
    out = np.empty(a.shape[0])
    for k, (x, y, v) in enumerate(zip(a.tolist(), b.tolist(), w.tolist())):
        if v == x:
            out[k] = 1.0
        elif v == y:
            out[k] = 0.0
        elif isinstance(v, str) and v.strip() in DRAW_MARKERS:
            out[k] = 0.5
        else:
            raise ValueError(
                f"winner[{k}] = {v!r} is neither player of that game ({show(x)}, {show(y)}) nor a draw marker "
                f"{DRAW_MARKERS}"
            )
    return out


def _as_times(values: Any, name: str = "time") -> np.ndarray:
    t = np.asarray(values)
    if t.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {t.shape}")
    if t.dtype.kind == "M":
        if np.isnat(t).any():
            raise ValueError(f"{name}[{int(np.flatnonzero(np.isnat(t))[0])}] is missing (NaT)")
        return t
    if t.dtype.kind in "iuf":
        if t.dtype.kind == "f" and not np.isfinite(t).all():
            k = int(np.flatnonzero(~np.isfinite(t))[0])
            raise ValueError(f"{name}[{k}] = {show(t[k])} is not a time")
        return t
    try:  # dates as strings ("2024-05-01", "2024.05.01")
        return np.array([np.datetime64(str(v).replace(".", "-")) for v in t.tolist()])
    except ValueError:
        pass
    for k, v in enumerate(t.tolist()):
        try:
            np.datetime64(str(v).replace(".", "-"))
        except ValueError:
            raise ValueError(f"{name}[{k}] = {v!r} is not a time (a number, a datetime or an ISO date)") from None
    raise ValueError(f"{name} is not a time column")  # pragma: no cover


@dataclass
class GameLog:
    """One row per game: labels ``a``, ``b``, the score of ``a`` in [0, 1], and an optional ``time``.

    Build with :meth:`from_arrays`, :meth:`from_frame`, :meth:`read_csv`, :meth:`read_parquet` or
    :func:`read_pgn`; the checks are those of :meth:`PairwiseData.from_games` (no player against themself,
    no NaN, equal lengths), with the offending row named.
    """

    a: np.ndarray
    b: np.ndarray
    score: np.ndarray
    time: Optional[np.ndarray] = None

    @classmethod
    def from_arrays(cls, a: Any, b: Any, score: Any, time: Any = None) -> "GameLog":
        a = as_label_array(a, "a")
        b = as_label_array(b, "b")
        score = parse_results(score, "score")
        lengths = {"a": a.shape[0], "b": b.shape[0], "score": score.shape[0]}
        if time is not None:
            time = _as_times(time)
            lengths["time"] = time.shape[0]
        if len(set(lengths.values())) != 1:
            raise ValueError(f"found columns of inconsistent lengths: {lengths}")
        if a.shape[0] == 0:
            raise ValueError("the game log is empty")
        same = a == b
        if np.any(same):
            k = int(np.flatnonzero(same)[0])
            raise ValueError(f"game {k} is player {show(a[k])} against themself")
        return cls(a, b, score, time)

    @classmethod
    def from_frame(cls, df: Any, a: str = "a", b: str = "b", score: Optional[str] = None,
                   winner: Optional[str] = None, time: Optional[str] = None) -> "GameLog":
        """From a pandas DataFrame: columns ``a`` and ``b`` (players), and ``score`` (numbers or PGN result
        strings) or ``winner`` (the winner's label or a draw marker), optionally ``time``."""
        pd = _pandas()
        if not isinstance(df, pd.DataFrame):
            raise TypeError(f"from_frame expects a pandas DataFrame, got {type(df).__name__}")
        if (score is None) == (winner is None):
            raise ValueError("give exactly one of score= (results of a) and winner= (label of the winner)")
        wanted = {"a": a, "b": b, "score": score, "winner": winner, "time": time}
        for role, col in wanted.items():
            if col is not None and col not in df.columns:
                raise ValueError(f"column {col!r} (for {role}) is not in the frame; its columns are {list(df.columns)}")
        if len(df) == 0:
            raise ValueError("the frame has no rows: the game log is empty")
        col_a, col_b = df[a].to_numpy(), df[b].to_numpy()
        for name, col in ((a, col_a), (b, col_b)):
            missing = pd.isna(col)
            if missing.any():
                raise ValueError(f"column {name!r} is missing a player at row {int(np.flatnonzero(missing)[0])}")
        if score is not None:
            values = df[score].to_numpy()
            missing = pd.isna(values)
            if missing.any():
                k = int(np.flatnonzero(missing)[0])
                raise ValueError(f"column {score!r} has no result at row {k} (NaN): drop or fill the row")
            s = parse_results(values, score)
        else:
            s = _winner_scores(np.asarray(col_a, dtype=object), np.asarray(col_b, dtype=object), df[winner].to_numpy())
        t = None
        if time is not None:
            tcol = df[time]
            t = tcol.to_numpy() if tcol.dtype.kind in "iufM" else pd.to_datetime(tcol, errors="raise").to_numpy()
        return cls.from_arrays(col_a, col_b, s, t)

    @classmethod
    def read_csv(cls, path: Any, a: str = "a", b: str = "b", score: Optional[str] = None,
                 winner: Optional[str] = None, time: Optional[str] = None, **read_kw: Any) -> "GameLog":
        """A CSV file through ``pandas.read_csv`` (extra keywords go to it), then :meth:`from_frame`."""
        pd = _pandas()
        try:
            df = pd.read_csv(path, **read_kw)
        except UnicodeDecodeError as exc:
            raise ValueError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start}); pass encoding=...") from None
        except pd.errors.EmptyDataError:
            raise ValueError(f"{path}: the file is empty") from None
        return cls.from_frame(df, a=a, b=b, score=score, winner=winner, time=time)

    @classmethod
    def read_parquet(cls, path: Any, a: str = "a", b: str = "b", score: Optional[str] = None,
                     winner: Optional[str] = None, time: Optional[str] = None) -> "GameLog":
        """A Parquet file through ``pandas.read_parquet`` (needs pyarrow), then :meth:`from_frame`."""
        return cls.from_frame(_pandas().read_parquet(path), a=a, b=b, score=score, winner=winner, time=time)

    def __len__(self) -> int:
        return int(self.a.shape[0])

    def _take(self, keep: np.ndarray) -> "GameLog":
        if not keep.any():
            raise ValueError("no game is left after filtering")
        return GameLog(self.a[keep], self.b[keep], self.score[keep], None if self.time is None else self.time[keep])

    def filter(self, *, start: Any = None, end: Any = None, min_player_games: int = 1) -> "GameLog":
        """Games with ``start <= time < end`` (needs a time column), then only players with at least
        ``min_player_games`` games (repeated until every remaining player has that many)."""
        keep = np.ones(len(self), dtype=bool)
        if start is not None or end is not None:
            if self.time is None:
                raise ValueError("start / end need a time column (time=...)")
            conv = (lambda v: np.datetime64(v)) if self.time.dtype.kind == "M" else (lambda v: v)
            if start is not None:
                keep &= self.time >= conv(start)
            if end is not None:
                keep &= self.time < conv(end)
        out = self._take(keep)
        if isinstance(min_player_games, bool) or not isinstance(min_player_games, (int, np.integer)) or min_player_games < 1:
            raise ValueError(f"min_player_games must be an integer >= 1, got {min_player_games!r}")
        while min_player_games > 1:
            labels, code = np.unique(np.r_[out.a, out.b], return_inverse=True)
            counts = np.bincount(code, minlength=labels.size)
            n = len(out)
            ok = (counts[code[:n]] >= min_player_games) & (counts[code[n:]] >= min_player_games)
            if ok.all():
                break
            if not ok.any():
                raise ValueError(f"no player has at least min_player_games={min_player_games} games")
            out = out._take(ok)
        return out

    def sorted_by_time(self) -> "GameLog":
        if self.time is None:
            raise ValueError("this game log has no time column")
        order = np.argsort(self.time, kind="stable")
        return GameLog(self.a[order], self.b[order], self.score[order], self.time[order])

    def split_time(self, test_fraction: float = 0.1) -> tuple["GameLog", "GameLog"]:
        """(past, future): the earliest ``1 - test_fraction`` of the games, and the rest."""
        if not 0.0 < float(test_fraction) < 1.0:
            raise ValueError(f"test_fraction must be in (0, 1), got {test_fraction!r}")
        log = self.sorted_by_time()
        cut = int(round((1.0 - test_fraction) * len(log)))
        if cut in (0, len(log)):
            raise ValueError(f"test_fraction={test_fraction} of {len(log)} games leaves an empty part")
        idx = np.arange(len(log))
        return log._take(idx < cut), log._take(idx >= cut)

    def to_pairs(self, *, labels: Any = None, min_games: int = 1, weights: Optional[str] = None) -> PairwiseData:
        """Aggregate to :class:`PairwiseData` (``PairwiseData.from_games``)."""
        return PairwiseData.from_games(self.a, self.b, self.score, labels, min_games=min_games, weights=weights)

    def to_frame(self):
        pd = _pandas()
        cols = {"a": self.a, "b": self.b, "score": self.score}
        if self.time is not None:
            cols["time"] = self.time
        return pd.DataFrame(cols)


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


def iter_pgn(path: Any, *, progress: Optional[bool] = None) -> Iterator[tuple[str, str, float, Optional[str]]]:
    """Stream (white, black, score of white, date or None) from a PGN file, one game at a time.

    Reads headers only (``chess.pgn.read_headers``), never the whole file; unfinished games ("*") and
    games without both player names are skipped. ``.pgn.gz``, ``.pgn.bz2`` and ``.pgn.xz`` are read
    compressed. Needs python-chess (``pip install 'discrank[pgn]'``).
    """
    try:
        import chess.pgn
    except ImportError as exc:
        raise ImportError("reading PGN needs python-chess: pip install 'discrank[pgn]'") from exc
    path = os.fspath(path)
    opener: Any = open
    if path.endswith(".gz"):
        import gzip as opener  # type: ignore[no-redef]
    elif path.endswith(".bz2"):
        import bz2 as opener  # type: ignore[no-redef]
    elif path.endswith(".xz"):
        import lzma as opener  # type: ignore[no-redef]
    bar = _Progress(f"{os.path.basename(path)}: games read", progress)
    with (opener.open(path, "rt", encoding="utf-8", errors="replace") if opener is not open
          else open(path, encoding="utf-8", errors="replace")) as fh:
        while True:
            headers = chess.pgn.read_headers(fh)
            if headers is None:
                break
            bar.update()
            result = headers.get("Result", "*").strip()
            white, black = headers.get("White", "").strip(), headers.get("Black", "").strip()
            if result not in PGN_RESULTS or not white or not black or white in ("?", "") or black in ("?", ""):
                continue
            date = headers.get("UTCDate") or headers.get("Date")
            if date and "?" in date:
                date = None
            yield white, black, PGN_RESULTS[result], date
    bar.close()


def read_pgn(path: Any, *, progress: Optional[bool] = None, max_games: Optional[int] = None) -> GameLog:
    """A PGN file (Lichess's format) as a :class:`GameLog`, streamed game by game.

    The players are the White and Black tags, the score White's ("1-0" 1, "1/2-1/2" 0.5, "0-1" 0), the
    time the UTCDate (else Date) tag when every kept game has one. Only the four columns are kept in
    memory (about 100 bytes a game), never the moves. ``progress``: a games-read counter on stderr
    (default: when stderr is a terminal).
    """
    white: list[str] = []
    black: list[str] = []
    score: list[float] = []
    dates: list[Optional[str]] = []
    for w, b, s, d in iter_pgn(path, progress=progress):
        if w == b:
            continue  # a player against themself carries no information (and is refused downstream)
        white.append(w), black.append(b), score.append(s), dates.append(d)
        if max_games is not None and len(white) >= max_games:
            break
    if not white:
        raise ValueError(f"{os.fspath(path)}: no finished game with two named players")
    time = None
    if all(d is not None for d in dates):
        time = np.array([np.datetime64(d.replace(".", "-")) for d in dates])  # type: ignore[union-attr]
    return GameLog.from_arrays(np.array(white), np.array(black), np.array(score), time)
