"""Game logs larger than memory, aggregated to pairs in one pass: :func:`scan_games`.

The games are read in chunks (Parquet row batches, CSV blocks, blocks of JSON lines, PGN header blocks); each
chunk's rows are screened by the readers' rules (:meth:`discrank.GameLog.from_frame`, :func:`discrank.read_pgn`),
its labels coded in the core (``_core.LabelTable``) and its games summed by pair. The partial tables are merged in
memory; beyond ``memory_limit`` they are written to a temporary directory as sorted runs, merged at the end one key
range at a time. The result is the :class:`~discrank.PairwiseData` that ``GameLog.read_*(...).to_pairs()`` gives
for the same files (fractional scores other than multiples of 1/2 may differ in the last bits); with ``period=``,
the :class:`~discrank.PeriodGames` that ``PeriodGames.from_log`` gives.

Files and chunks: :mod:`discrank.data._scan_files`; coding, partial tables and spilling:
:mod:`discrank.data._scan_tables`; this module checks the arguments, drives the scan and assembles the result.
"""

from __future__ import annotations

import os
import re
import sys
from typing import Any, Optional

import numpy as np

from discrank.core import _core
from discrank.data._advantage import advantage_columns
from discrank._util.calendar import check_span, period_index
from discrank._util.checks import check_choice, check_positive_int
from discrank.data._rows import pandas_module
from discrank.data._scan_files import FORMATS, READERS, Chunk, parquet_rows, sources
from discrank.data._scan_tables import MAX_COVARIATE_ROWS, Accumulator, Coder, chunk_table  # noqa: F401 - MAX_COVARIATE_ROWS re-export
from discrank.data._votes import check_bothbad, check_ties, tie_games
from discrank.data._screen import (INVALID_KINDS, MAX_INVALID, active_games, check_invalid, check_max_invalid,
                              large_share, refuse_mostly_invalid, warn_user)
from discrank.data.pairs import PairwiseData, covariate_data
from discrank.data.periods import PeriodGames
from discrank.data.pgn import SKIPPED_KINDS

__all__ = ["scan_games", "FORMATS", "parse_bytes"]

#: Games per chunk for Parquet and PGN (CSV chunks are pyarrow blocks of about ``BLOCK_BYTES``, JSON-lines
#: chunks blocks of lines of about ``JSON_BLOCK_BYTES``, at most ``BATCH_ROWS`` lines: pandas' parse of a
#: block holds many times its text).
BATCH_ROWS = 1 << 20
BLOCK_BYTES = 64 << 20
JSON_BLOCK_BYTES = 4 << 20


def parse_bytes(value: Any, name: str = "memory_limit") -> int:
    """A size in bytes from an int or a string such as "2GiB", "500 MB", "1e9".

    Raises
    ------
    ValueError
        A size that is not a positive number of bytes (naming the value).
    """
    units = {"": 1, "b": 1, "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12,
             "kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40}
    if isinstance(value, bool):
        raise TypeError(f"{name} must be a number of bytes or a string such as '2GiB', got {value!r}")
    if isinstance(value, (int, np.integer, float, np.floating)):
        n = float(value)
    elif isinstance(value, str):
        m = re.fullmatch(r"\s*([0-9.eE+-]+)\s*([a-zA-Z]*)\s*", value)
        if m is None or m.group(2).lower() not in units:
            raise ValueError(f"{name}={value!r} is not a size (say 2GiB, 500MB or a number of bytes)")
        try:
            n = float(m.group(1)) * units[m.group(2).lower()]
        except ValueError:
            raise ValueError(f"{name}={value!r} is not a size (say 2GiB, 500MB or a number of bytes)") from None
    else:
        raise TypeError(f"{name} must be a number of bytes or a string such as '2GiB', got {type(value).__name__}")
    if not (np.isfinite(n) and n >= 1 << 20):
        raise ValueError(f"{name}={value!r}: give at least 1 MiB")
    return int(n)


# ---------------------------------------------------------------------------------------------- result
def _assemble(held: list, coder: Coder, spec: dict) -> Any:
    """The scan's sums as the in-memory aggregation gives them: labels sorted, pairs and covariate rows
    in its order. ``held``: a list holding the table only (taken from it, so that its columns are freed
    as they are replaced)."""
    t = held.pop()
    order = coder.table.order(coder.unsigned)
    rank = np.empty(order.size, dtype=np.int32)
    rank[order] = np.arange(order.size)
    lo = rank[t.key >> 32]
    hi = rank[t.key & 0xFFFFFFFF]
    flip = lo > hi
    lo, hi = np.where(flip, hi, lo), np.where(flip, lo, hi)
    n = t.n
    w = np.where(flip, n - t.w, t.w)
    xcode = t.x
    if spec["by_x"]:
        xcode = np.where(flip, coder.negation()[t.x], t.x)
    bins, draws = t.bin, t.d
    del t, flip
    n_labels = order.size
    if spec["min_player_games"] > 1:
        # the readers' rule over games (repeated until every remaining player has them), over the summed rows
        keep = active_games(lo, hi, n_labels, np.ones(lo.size, dtype=bool), spec["min_player_games"], games=n)[0]
        if not keep.any():
            raise ValueError(f"no player has at least min_player_games={spec['min_player_games']} games")
        lo, hi, n, w, xcode = lo[keep], hi[keep], n[keep], w[keep], xcode[keep]
        if bins is not None:
            bins, draws = bins[keep], draws[keep]
    used = np.zeros(n_labels, dtype=bool)
    used[lo] = True
    used[hi] = True
    if not used.all():  # players left without a game by min_player_games
        new = np.cumsum(used) - 1
        lo, hi = new[lo], new[hi]
        order = order[used]
        n_labels = order.size
    labels = coder.table.labels(np.ascontiguousarray(order, dtype=np.int32))
    if coder.kind == "int" and coder.unsigned:
        labels = labels.view(np.uint64)
    if bins is not None:
        x = None
        if spec["by_x"]:
            x_all = np.array(coder.x_rows, dtype=np.float64).reshape(len(coder.x_rows), -1)
            x = x_all[xcode]
        return PeriodGames._grouped(labels, lo, hi, bins, x, n, w, draws, spec["results"], spec["period"],
                                    spec["advantage_names"], dict(spec["dropped"]), spec["dates"])
    lo32, hi32 = lo.astype(np.int32), hi.astype(np.int32)
    if not spec["by_x"]:
        # the pairs are distinct: the core's grouping sorts them, its inverse is where each one goes
        where, pair_lo, pair_hi = _core.group_pairs(n_labels, lo32, hi32)
        games = np.empty_like(n)
        games[where] = n
        p = np.empty_like(w)
        p[where] = w
        p /= games
        np.clip(p, 0.0, 1.0, out=p)
        return PairwiseData._trusted(pair_lo, pair_hi, p, games, labels, spec["weights"] or "games")
    # covariate rows: the in-memory codes are the ranks of the distinct rows that occur
    x_all = np.array(coder.x_rows, dtype=np.float64).reshape(len(coder.x_rows), -1)
    used_x = np.unique(xcode)
    values, xrank = np.unique(x_all[used_x], axis=0, return_inverse=True)
    xmap = np.zeros(x_all.shape[0], dtype=np.int64)
    xmap[used_x] = xrank.reshape(-1)
    xc = xmap[xcode]
    idx = np.lexsort((xc, hi, lo))
    lo32, hi32, n, w, xc = lo32[idx], hi32[idx], n[idx], w[idx], xc[idx]
    pair_new = np.ones(lo32.size, dtype=bool)
    pair_new[1:] = (lo32[1:] != lo32[:-1]) | (hi32[1:] != hi32[:-1])
    row_pair = np.cumsum(pair_new) - 1
    first = np.flatnonzero(pair_new)
    return covariate_data(row_pair, lo32[first], hi32[first], n, w, values[xc], spec["advantage_names"], labels,
                          spec["weights"])


# ---------------------------------------------------------------------------------------------- scan
def _progress_bar(enabled: Optional[bool], total: Optional[int]) -> Any:
    on = sys.stderr.isatty() if enabled is None else bool(enabled)
    if not on:
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError as exc:
        if enabled:
            raise ImportError("scan_games' progress bar needs tqdm: pip install 'discrank[scan]'") from exc
        return None
    return tqdm(total=total, unit=" games", unit_scale=True, desc="scan_games", file=sys.stderr, leave=True)


def scan_games(paths: Any, a: str = "a", b: str = "b", score: Optional[str] = None, winner: Optional[str] = None,
               time: Optional[str] = None, *, format: Optional[str] = None, start: Any = None, end: Any = None,
               min_player_games: int = 1, invalid: str = "raise", advantage: Any = None,
               weights: Optional[str] = None, period: Any = None, memory_limit: Any = "1GiB", tmpdir: Any = None,
               progress: Optional[bool] = None, batch_rows: int = BATCH_ROWS, max_invalid: float = MAX_INVALID,
               ties: str = "half", bothbad: str = "tie") -> Any:
    """Aggregate game logs larger than memory to pairs: what reading every file into a
    :class:`~discrank.GameLog` and calling ``to_pairs()`` gives, without holding the games.

    Parameters
    ----------
    paths : str, path or list of them
        Files, directories (every file inside, recursively, sorted; names starting with "." or "_" skipped)
        or glob patterns. By name: Parquet (``.parquet``, ``.pq``), CSV (``.csv``, ``.tsv``), JSON lines
        (``.jsonl``, ``.ndjson``, as ``pandas.read_json(lines=True)`` reads them) and PGN (``.pgn``); all but
        Parquet also ``.gz``, ``.bz2``, ``.xz`` or ``.zst`` compressed.
    a, b, score, winner, time, start, end, invalid, advantage
        As in :meth:`GameLog.from_frame` (Parquet, CSV) and :func:`read_pgn` (PGN: the White and Black tags,
        White's result, the date; these arguments name no column there). ``start`` / ``end`` filter by
        ``time`` before the checks; ``invalid="drop"`` reports the dropped rows in one warning for the scan.
        An arena log's winner column ("model_a", "model_b", "tie", "tie (bothbad)") is read as
        :func:`discrank.read_arena` reads it: ``a="model_a", b="model_b", winner="winner"``.
    format : {"parquet", "csv", "jsonl", "pgn"}, optional
        The format of every file, instead of their names'.
    min_player_games : int
        Keep the players with at least this many valid games, repeated until each remaining one has them
        (applied to the summed pairs). Invalid rows are raised on or counted before this filter.
    weights : {"games", "uniform"}, optional
        As in :class:`PairwiseData` (not with ``period``).
    period : {"day", "week", "month", "year"} or float, optional
        Keep the games by period of ``time`` too, with their draws: the result is a
        :class:`discrank.PeriodGames`, which ``DynamicElo(period=...)`` fits (a game without a time is an
        invalid row, "missing time").
    memory_limit : int or str
        Bytes for the partial pair tables (say "2GiB"; at least 1 MiB), beyond which they are spilled. A chunk
        being read takes about 200 bytes a game besides.
    tmpdir : str, optional
        Where the spilled runs go (default: the system's temporary directory); removed when the scan ends,
        is interrupted or fails.
    progress : bool, optional
        A progress bar on stderr (tqdm; default: when stderr is a terminal).
    batch_rows : int
        Games per chunk (Parquet, PGN; the most lines of a JSON-lines chunk); CSV chunks are blocks of 64 MiB
        of text, JSON-lines chunks blocks of about 4 MiB of lines.
    max_invalid : float, optional
        With ``invalid="drop"``: the largest share of the scan's rows (in the time window; not counting the
        games a PGN file skips in both modes) that may be dropped (default 0.5); more is refused after the scan.
    ties : {"half", "ignore", "one-win-each"}, default "half"
        How ties (games scored 0.5) count, as :func:`discrank.data.arena.apply_ties` counts them: half a win
        for each side, dropped, or FastChat's rule (every vote two games). With ``period=``, "davidson" too
        (the draws kept for a draw model).
    bothbad : {"tie", "ignore"}, default "tie"
        The votes whose winner marks a tie with both answers bad (``discrank.data.arena.BOTH_BAD``): ties
        like the others, or dropped before the checks as :func:`discrank.read_arena` drops them (needs
        ``winner``).

    Returns
    -------
    PairwiseData or PeriodGames
        Labels sorted; with ``advantage``, the games kept by covariate value (``covariates``), as
        :meth:`GameLog.to_pairs` keeps them. With ``period``: a :class:`~discrank.PeriodGames`.

    Raises
    ------
    ValueError
        No file, a file of an unknown kind, a missing column, a corrupt or truncated file (naming it and the
        row or game), an invalid row (``invalid="raise"``, naming the file and the row), more than
        ``max_invalid`` of the rows invalid, labels of different kinds in different files, no valid game
        (or none left by ``ties="ignore"``), or a ``ties`` or ``bothbad`` not one of those.
    FileNotFoundError
        A path that does not exist.
    """
    invalid = check_invalid(invalid)
    max_invalid = check_max_invalid(max_invalid)
    min_player_games = check_positive_int(min_player_games, "min_player_games")
    batch_rows = check_positive_int(batch_rows, "batch_rows")
    budget = parse_bytes(memory_limit)
    if weights is not None:
        check_choice(weights, "weights", ("games", "uniform"), "a pair's weight: its games, or 1")
    files = sources(paths, format)
    if (score is None) == (winner is None) and any(f != "pgn" for _, f in files):
        raise ValueError("give exactly one of score= (results of a) and winner= (label of the winner)")
    if (start is not None or end is not None) and time is None and any(f != "pgn" for _, f in files):
        raise ValueError("start / end need a time column (time=...)")
    if period is not None:
        if time is None and any(f != "pgn" for _, f in files):
            raise ValueError(f"period={period!r} needs a time column (time=...)")
        if weights is not None:
            raise ValueError("weights= is a PairwiseData's; scan_games with period= gives PeriodGames")
        period_index(np.zeros(0, dtype="datetime64[D]" if isinstance(period, str) else np.float64), period)
    ties, bothbad = check_ties(ties, period is not None), check_bothbad(bothbad, winner)
    names = advantage_columns(advantage)
    if names and any(f == "pgn" for _, f in files):
        raise ValueError("advantage= names columns: PGN files have none (use CSV or Parquet)")
    pandas_module()
    spec = dict(a=a, b=b, score=score, winner=winner, time=time, start=start, end=end, invalid=invalid,
                advantage=list(names) if names else None, advantage_names=tuple(names), by_x=bool(names),
                min_player_games=min_player_games, weights=weights, batch_rows=batch_rows, block_bytes=BLOCK_BYTES,
                json_block_bytes=JSON_BLOCK_BYTES, period=period, results=True, dates=None, first_times=None,
                dropped={}, bothbad=bothbad, ties=ties)
    coder = Coder()
    acc = Accumulator(budget, None if tmpdir is None else os.fspath(tmpdir), bool(names), period is not None)
    dropped: dict[str, int] = {}
    counted: dict[str, int] = {}  # the rows dropped that invalid="raise" would stop at
    dropped_in: list[str] = []
    games = kept = 0  # the valid games read; those the ties policy makes of them
    bar = _progress_bar(progress, parquet_rows(files))
    try:
        for path, fmt in files:
            file_dropped = 0
            for chunk in READERS[fmt](path, spec):
                if bar is not None:
                    bar.update(chunk.rows)
                file_dropped += _add_dropped(chunk.dropped, fmt, dropped, counted)
                games += chunk.a.size
                kept += _add_chunk(chunk, coder, acc, spec, path)
            if file_dropped:
                dropped_in.append(f"{os.path.basename(path)} ({file_dropped})")
        if kept == 0:
            raise ValueError(f"no valid game in {len(files)} file{'s' if len(files) > 1 else ''}"
                             + (f" (dropped: {dropped})" if dropped else "")
                             + (f": ties='ignore' dropped every one of the {games} votes, all ties" if games else ""))
        refuse_mostly_invalid(sum(counted.values()), games + sum(dropped.values()), counted, max_invalid)
        table = acc.result()
        if period is not None:
            check_span(table.bin, period)
    finally:
        acc.cleanup()
        if bar is not None:
            bar.close()
    if dropped:
        parts = ", ".join(f"{dropped[k]} {k}" for k in INVALID_KINDS if k in dropped)
        shown = ", ".join(dropped_in[:5]) + (", ..." if len(dropped_in) > 5 else "")
        total = sum(dropped.values())
        warn_user(f"dropped {total} invalid row{'s' if total != 1 else ''} of {len(files)} file"
                  f"{'s' if len(files) != 1 else ''}: {parts}; in {shown}" + large_share(total, total + games))
    spec["dropped"] = dropped
    held = [table]
    del table
    return _assemble(held, coder, spec)


def _add_chunk(chunk: Chunk, coder: Coder, acc: Accumulator, spec: dict, path: str) -> int:
    """Add a chunk's valid games to the tables, its ties counted by the scan's policy (``spec["ties"]``): its
    labels and covariate rows coded, its games summed by pair (and period, and covariate code); the number of
    games added."""
    chunk.score, chunk.a, chunk.b, chunk.x, chunk.time = tie_games(spec["ties"], chunk.score, chunk.a, chunk.b,
                                                                   chunk.x, chunk.time)
    if chunk.a.size == 0:
        return 0
    ca, cb = coder.labels(chunk.a, chunk.b, path)
    xcode = None
    if chunk.x is not None:  # the covariates of a, as those of the pair's first player
        xcode = coder.covariates(np.asarray(chunk.x, dtype=np.float64))
        xcode = np.where(ca > cb, coder.negation()[xcode], xcode)
    acc.n_labels = coder.table.size
    bins = None if spec["period"] is None else _chunk_bins(chunk, spec, path)
    acc.add(chunk_table(ca, cb, np.asarray(chunk.score, dtype=np.float64), xcode, acc.n_labels, bins))
    return int(chunk.a.size)


def _add_dropped(chunk: dict, fmt: str, dropped: dict, counted: dict) -> int:
    """Add a chunk's dropped rows by kind to the scan's (``dropped``; ``counted``: those that
    ``invalid="raise"`` stops at, not the games a PGN file skips in both modes); their number."""
    for kind, count in chunk.items():
        dropped[kind] = dropped.get(kind, 0) + count
        if not (fmt == "pgn" and kind in SKIPPED_KINDS):
            counted[kind] = counted.get(kind, 0) + count
    return sum(chunk.values())


def _chunk_bins(chunk: Chunk, spec: dict, path: str) -> np.ndarray:
    """The periods of a chunk's games; notes whether every score is a result and the times' kind (one
    kind in every file)."""
    t = np.asarray(chunk.time)
    dates = t.dtype.kind == "M"
    if spec["dates"] is None:
        spec["dates"], spec["first_times"] = dates, path
    elif dates != spec["dates"]:
        raise ValueError(f"{path}: the times are {'dates' if dates else 'numbers'}, but in {spec['first_times']} "
                         f"they are {'dates' if spec['dates'] else 'numbers'}")
    if spec["results"]:
        spec["results"] = bool(np.isin(chunk.score, (0.0, 0.5, 1.0)).all())
    try:
        return period_index(t, spec["period"])
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None
