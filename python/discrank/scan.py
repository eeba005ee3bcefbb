"""Game logs larger than memory, aggregated to pairs in one pass: :func:`scan_games`.

The games are read in chunks (Parquet row batches, pyarrow's streaming CSV reader, PGN header blocks),
each chunk's rows are screened by the readers' own rules (:meth:`discrank.GameLog.from_frame`,
:func:`discrank.read_pgn`), its labels coded by a table in the core (``_core.LabelTable``: the labels'
bytes in one arena, no Python object per label) and its games summed by pair. The partial pair tables
are merged in memory; when they outgrow ``memory_limit`` the merged table is written to a temporary
directory as a sorted run, and the runs are merged at the end, one key range at a time. The result is
the :class:`~discrank.PairwiseData` that ``GameLog.read_*(...).to_pairs()`` gives for the same files:
the same labels, pairs, game counts and scores (identical for scores that are multiples of 1/2; other
fractional scores are summed in another order, equal to the last bits). With ``period=`` the games
are kept by period as well, with their draws: the result is the :class:`~discrank.PeriodGames` that
``PeriodGames.from_log`` gives for the files' log, what :class:`~discrank.DynamicElo` fits.
"""

from __future__ import annotations

import glob
import os
import re
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from typing import Any, Iterator, Optional

import numpy as np

from discrank import _core
from discrank._checks import check_choice, check_positive_int, show
from discrank._labels import as_label_array
from discrank._rows import INVALID_KINDS, advantage_columns, check_invalid, pandas_module, read_frame_rows, warn_user
from discrank._calendar import check_span, period_index
from discrank.data import PairwiseData, covariate_data
from discrank.periods import PeriodGames

__all__ = ["scan_games", "FORMATS", "parse_bytes"]

#: The formats :func:`scan_games` reads, and the file names it recognises (compressed CSV and PGN too).
FORMATS = {"parquet": (".parquet", ".pq"), "csv": (".csv", ".tsv"), "pgn": (".pgn",)}
_COMPRESSED = (".gz", ".bz2", ".xz", ".zst")
#: Games per chunk for Parquet and PGN (CSV chunks are pyarrow blocks of about ``BLOCK_BYTES``).
BATCH_ROWS = 1 << 20
BLOCK_BYTES = 64 << 20
#: Bytes per row of a partial pair table in memory (key, covariate code, games, score sum), and more with
#: ``period=`` (the period, the draws).
_ROW_BYTES = 28
_PERIOD_ROW_BYTES = 16
#: The most distinct covariate rows a scan codes.
MAX_COVARIATE_ROWS = 1 << 20


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


# ---------------------------------------------------------------------------------------------- files
def _format_of(path: str) -> Optional[str]:
    name = path.lower()
    for ext in _COMPRESSED:
        if name.endswith(ext):
            name = name[: -len(ext)]
            break
    for fmt, exts in FORMATS.items():
        if name.endswith(exts):
            return fmt
    return None


def _sources(paths: Any, fmt: Optional[str]) -> list[tuple[str, str]]:
    """(path, format) of every file named: files, directories (their files, recursively, in sorted order,
    skipping names that start with "." or "_", as Parquet writers leave them) and glob patterns."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    try:
        paths = [os.fspath(p) for p in paths]
    except TypeError:
        raise TypeError(f"paths must be a path, a glob pattern or a list of them, got {paths!r}") from None
    if not paths:
        raise ValueError("no path given")
    if fmt is not None:
        check_choice(fmt, "format", tuple(FORMATS), "the files' format, instead of their names'")
    files: list[str] = []
    for p in paths:
        if os.path.isdir(p):
            found = []
            for root, dirs, names in os.walk(p):
                dirs[:] = sorted(d for d in dirs if not d.startswith((".", "_")))
                found += [os.path.join(root, n) for n in sorted(names) if not n.startswith((".", "_"))]
            if not found:
                raise ValueError(f"{p}: the directory holds no file")
            files += found
        elif os.path.exists(p):
            files.append(p)
        elif glob.has_magic(p):
            found = sorted(glob.glob(p, recursive=True))
            if not found:
                raise ValueError(f"no file matches {p!r}")
            files += [f for f in found if os.path.isfile(f)]
        else:
            raise FileNotFoundError(f"no such file or directory: {p!r}")
    out = []
    for f in files:
        kind = fmt or _format_of(f)
        if kind is None:
            raise ValueError(f"{f}: not a file scan_games reads (by its name: {_known()}); pass format=...")
        out.append((f, kind))
    return out


def _known() -> str:
    return ", ".join(e for exts in FORMATS.values() for e in exts) + f" (CSV and PGN also {', '.join(_COMPRESSED)})"


@dataclass
class _Chunk:
    """The valid games of one chunk: labels (checked), scores, covariates, and the rows read."""

    a: np.ndarray
    b: np.ndarray
    score: np.ndarray
    x: Optional[np.ndarray]
    rows: int
    dropped: dict = field(default_factory=dict)
    time: Optional[np.ndarray] = None


def _frame_chunk(df: Any, path: str, row0: int, spec: dict) -> _Chunk:
    """A chunk of a CSV or Parquet file (a pandas frame) screened by ``read_frame_rows``."""
    try:
        rows = read_frame_rows(df, spec["a"], spec["b"], spec["score"], spec["winner"], spec["time"],
                               start=spec["start"], end=spec["end"], invalid=spec["invalid"],
                               advantage=spec["advantage"], row0=row0, empty_ok=True)
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None
    except TypeError as exc:
        raise TypeError(f"{path}: {exc}") from None
    return _Chunk(rows.a, rows.b, rows.score, rows.advantage, len(df), rows.dropped, rows.time)


def _arrow_columns(spec: dict) -> list[str]:
    cols = [spec["a"], spec["b"], spec["score"] or spec["winner"]]
    if spec["time"] is not None:
        cols.append(spec["time"])
    return cols + list(advantage_columns(spec["advantage"]))


def _missing_columns(path: str, have: list, want: list) -> None:
    lost = [c for c in want if c not in have]
    if lost:
        raise ValueError(f"{path}: no column {lost[0]!r}; its columns are {list(have)}")


def _parquet_chunks(path: str, spec: dict) -> Iterator[_Chunk]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        pf = pq.ParquetFile(path)
    except (pa.ArrowException, OSError) as exc:
        if isinstance(exc, OSError) and exc.errno is not None:
            raise
        raise ValueError(f"{path}: not a readable Parquet file ({exc})") from None
    cols = _arrow_columns(spec)
    _missing_columns(path, pf.schema_arrow.names, cols)
    for c in cols:
        t = pf.schema_arrow.field(c).type
        if pa.types.is_nested(t):
            raise ValueError(f"{path}: column {c!r} holds {t}, not one value per game")
    row0 = 0
    batches = pf.iter_batches(batch_size=spec["batch_rows"], columns=cols)
    while True:
        try:
            batch = next(batches)
        except StopIteration:
            return
        except (pa.ArrowException, OSError) as exc:
            raise ValueError(f"{path}: cannot read the rows from row {row0} on ({exc})") from None
        yield _frame_chunk(batch.to_pandas(), path, row0, spec)
        row0 += batch.num_rows


def _csv_stream(path: str) -> Any:
    import pyarrow as pa

    if path.lower().endswith(".xz"):
        import lzma

        return pa.PythonFile(lzma.open(path, "rb"), mode="r")
    return pa.input_stream(path, compression="detect")


def _csv_chunks(path: str, spec: dict) -> Iterator[_Chunk]:
    import pyarrow as pa
    import pyarrow.csv as pcsv

    cols = _arrow_columns(spec)
    delimiter = "\t" if _format_name(path).endswith(".tsv") else ","
    row0 = 0
    try:
        reader = pcsv.open_csv(_csv_stream(path), read_options=pcsv.ReadOptions(block_size=spec["block_bytes"]),
                               parse_options=pcsv.ParseOptions(delimiter=delimiter),
                               convert_options=pcsv.ConvertOptions(include_columns=cols,
                                                                   include_missing_columns=False))
    except (pa.ArrowException, OSError, EOFError) as exc:
        if isinstance(exc, OSError) and exc.errno is not None:
            raise
        text = str(exc)
        if "include_columns" in text or "not found" in text.lower():
            raise ValueError(f"{path}: a column is missing ({text}); wanted {cols}") from None
        raise ValueError(f"{path}: cannot read the CSV header ({type(exc).__name__}: {exc})") from None
    with reader:
        _missing_columns(path, reader.schema.names, cols)
        while True:
            try:
                batch = reader.read_next_batch()
            except StopIteration:
                return
            except (pa.ArrowException, OSError, EOFError) as exc:
                raise ValueError(f"{path}: cannot read the rows from row {row0} on ({type(exc).__name__}: {exc}); "
                                 "a corrupt or truncated file, or a column whose values change type after the "
                                 "first block") from None
            if batch.num_rows:
                yield _frame_chunk(batch.to_pandas(), path, row0, spec)
            row0 += batch.num_rows


def _format_name(path: str) -> str:
    name = path.lower()
    for ext in _COMPRESSED:
        if name.endswith(ext):
            return name[: -len(ext)]
    return name


def _pgn_chunks(path: str, spec: dict) -> Iterator[_Chunk]:
    from discrank._rows import BAD_RESULT, PGN_RESULTS
    from discrank.pgn import pgn_game, pgn_headers, pgn_rows

    def screen(records: list, game0: int) -> _Chunk:
        white, black, score, dates, kinds, results = [], [], [], [], bytearray(), {}
        for k, headers in enumerate(records):
            w, b, result, d, kind = pgn_game(headers)
            if kind == BAD_RESULT:
                results[k] = result
            white.append(w), black.append(b), dates.append(d), kinds.append(kind)
            score.append(PGN_RESULTS.get(result, np.nan))
        kind_arr = np.frombuffer(bytes(kinds), dtype=np.int8).copy()
        W, B, s, t, dropped = pgn_rows(path, white, black, score, dates, kind_arr, results, start=spec["start"],
                                        end=spec["end"], min_player_games=1, invalid=spec["invalid"], game0=game0,
                                        empty_ok=True, need_time=spec["period"] is not None)
        return _Chunk(W, B, s, None, len(records), dropped, t)

    records: list = []
    game0 = 0
    for headers in pgn_headers(path, False, "raise"):
        records.append(headers)
        if len(records) >= spec["batch_rows"]:
            yield screen(records, game0)
            game0 += len(records)
            records = []
    if records:
        yield screen(records, game0)


_READERS = {"parquet": _parquet_chunks, "csv": _csv_chunks, "pgn": _pgn_chunks}


# ---------------------------------------------------------------------------------------------- coding
class _Coder:
    """Global codes of the labels (first-seen order) and of the covariate rows, across chunks."""

    def __init__(self) -> None:
        self.table: Any = None
        self.kind: Optional[str] = None  # "str" or "int"
        self.first: Optional[str] = None  # where the first labels came from
        self.unsigned = False
        self.negative = False
        self.x_index: dict = {}
        self.x_rows: list = []
        self._neg = np.empty(0, dtype=np.int32)

    def labels(self, a: np.ndarray, b: np.ndarray, where: str) -> tuple[np.ndarray, np.ndarray]:
        a, b = as_label_array(a, "a"), as_label_array(b, "b")
        codes = []
        for arr, name in ((a, "a"), (b, "b")):
            kind = arr.dtype.kind
            if kind == "U":
                arr = arr.astype(object)
                kind = "O"
            if kind == "f":
                raise ValueError(f"{where}: column {name} holds non-integral numbers ({show(arr[0])}...); scan_games "
                                 "codes integer or string labels")
            this = "str" if kind == "O" else "int"
            if self.table is None:
                self.table, self.kind, self.first = _core.LabelTable(this), this, where
            elif this != self.kind:
                raise ValueError(f"{where}: the players are {'strings' if this == 'str' else 'integers'}, but in "
                                 f"{self.first} they are {'strings' if self.kind == 'str' else 'integers'}: one log "
                                 "has labels of one kind (read the ids as strings)")
            if this == "str":
                codes.append(self.table.code_strings(np.ascontiguousarray(arr)))
            else:
                if kind == "u":
                    self.unsigned = True
                    arr = arr.astype(np.uint64).view(np.int64)
                else:
                    self.negative = self.negative or bool(arr.size and arr.min() < 0)
                    arr = np.ascontiguousarray(arr, dtype=np.int64)
                if self.unsigned and self.negative:
                    raise ValueError(f"{where}: the integer labels hold both negative numbers and numbers above "
                                     "2^63 - 1, which no integer type holds")
                codes.append(self.table.code_ints(arr))
        return codes[0], codes[1]

    def covariates(self, x: np.ndarray) -> np.ndarray:
        """Codes of covariate rows (``x`` and ``-x`` both coded, so that a pair's flip has a code)."""
        x = x + 0.0  # -0.0 as 0.0
        values, inverse = np.unique(x, axis=0, return_inverse=True)
        local = np.empty(values.shape[0], dtype=np.int32)
        for k, row in enumerate(values):
            for r in (row, -row + 0.0):
                key = tuple(r.tolist())
                if key not in self.x_index:
                    if len(self.x_rows) >= MAX_COVARIATE_ROWS:
                        raise ValueError(f"more than {MAX_COVARIATE_ROWS} distinct advantage covariate rows: "
                                         "scan_games keeps the games by covariate value (discrete covariates)")
                    self.x_index[key] = len(self.x_rows)
                    self.x_rows.append(key)
            local[k] = self.x_index[tuple(row.tolist())]
        return local[inverse.reshape(-1)]

    def negation(self) -> np.ndarray:
        """The code of ``-x`` for each code of ``x``."""
        if self._neg.size != len(self.x_rows):
            self._neg = np.array([self.x_index[tuple((-np.array(r) + 0.0).tolist())] for r in self.x_rows],
                                 dtype=np.int32)
        return self._neg


# ---------------------------------------------------------------------------------------------- tables
@dataclass
class _Table:
    """Partial sums by (pair key, period, covariate code), sorted by key, then period, then code: key = lo *
    2^32 + hi over the scan's first-seen codes (lo < hi), ``n`` the games, ``w`` the score sum of lo;
    with ``period=``, ``bin`` the period and ``d`` the draws (else both None)."""

    key: np.ndarray
    x: np.ndarray
    n: np.ndarray
    w: np.ndarray
    bin: Optional[np.ndarray] = None
    d: Optional[np.ndarray] = None

    def __len__(self) -> int:
        return int(self.key.shape[0])

    def columns(self) -> tuple:
        """The names of the columns held."""
        return _COLUMNS if self.bin is None else _COLUMNS + _PERIOD_COLUMNS


_COLUMNS = ("key", "x", "n", "w")
_PERIOD_COLUMNS = ("bin", "d")


def _empty(by_bin: bool) -> _Table:
    extra = (np.empty(0, np.int64), np.empty(0)) if by_bin else (None, None)
    return _Table(np.empty(0, np.int64), np.empty(0, np.int32), np.empty(0), np.empty(0), *extra)


def _reduce(key: np.ndarray, x: np.ndarray, n: np.ndarray, w: np.ndarray, by_x: bool, n_labels: int,
            bin: Optional[np.ndarray] = None, d: Optional[np.ndarray] = None) -> _Table:
    """Rows with equal (key, bin, x) summed, in (key, bin, x) order; the sums run in the rows' order (the
    core's grouping by pair, else a stable sort)."""
    if key.size == 0:
        return _Table(key, x, n, w, bin, d)
    if not by_x and bin is None:
        inverse, lo, hi = _core.group_pairs(n_labels, (key >> 32).astype(np.int32), (key & 0xFFFFFFFF).astype(np.int32))
        k = lo.size
        return _Table((lo.astype(np.int64) << 32) | hi, np.zeros(k, dtype=np.int32), np.bincount(inverse, n, k),
                      np.bincount(inverse, w, k))
    order = np.lexsort((x, key) if bin is None else (x, bin, key))
    key, x, n, w = key[order], x[order], n[order], w[order]
    new = np.empty(key.size, dtype=bool)
    new[0] = True
    new[1:] = (key[1:] != key[:-1]) | (x[1:] != x[:-1])
    if bin is not None:
        bin, d = bin[order], d[order]
        new[1:] |= bin[1:] != bin[:-1]
    starts = np.flatnonzero(new)
    if starts.size == key.size:
        return _Table(key, x, n, w, bin, d)
    return _Table(key[starts], x[starts], np.add.reduceat(n, starts), np.add.reduceat(w, starts),
                  None if bin is None else bin[starts], None if d is None else np.add.reduceat(d, starts))


def _chunk_table(ca: np.ndarray, cb: np.ndarray, score: np.ndarray, xcode: Optional[np.ndarray],
                 n_labels: int, bins: Optional[np.ndarray] = None) -> _Table:
    """One chunk's games summed by pair (and period, and covariate code, already that of the pair's first
    player), oriented lo < hi in first-seen codes: without covariates or periods by the core's aggregation
    (the in-memory one)."""
    if xcode is None and bins is None:
        lo, hi, games, wins = _core.aggregate_games(n_labels, ca, cb, score, None)
        return _Table((lo.astype(np.int64) << 32) | hi, np.zeros(lo.size, dtype=np.int32), games, wins)
    swap = ca > cb
    lo = np.where(swap, cb, ca).astype(np.int64)
    hi = np.where(swap, ca, cb).astype(np.int64)
    y = np.where(swap, 1.0 - score, score)
    key = (lo << 32) | hi
    x = np.zeros(key.size, dtype=np.int32) if xcode is None else xcode
    draws = None if bins is None else (score == 0.5).astype(np.float64)
    return _reduce(key, x, np.ones(key.size), y, xcode is not None, n_labels, bins, draws)


class _Accumulator:
    """Partial pair tables merged in memory, spilled as sorted runs when they outgrow the budget."""

    def __init__(self, budget: int, tmpdir: Optional[str], by_x: bool, by_bin: bool = False) -> None:
        row_bytes = _ROW_BYTES + (_PERIOD_ROW_BYTES if by_bin else 0)
        self.cap = max(budget // (3 * row_bytes), 1 << 12)  # rows held before merging
        self.by_x = by_x
        self.by_bin = by_bin
        self.table = _empty(by_bin)
        self.pending: list[_Table] = []
        self.pending_rows = 0
        self.runs: list[str] = []
        self.tmp_parent = tmpdir
        self.tmp: Optional[str] = None
        self.spilled_rows = 0
        self.n_labels = 1  # codes seen so far (the core's grouping takes their count)

    def add(self, t: _Table) -> None:
        self.pending.append(t)
        self.pending_rows += len(t)
        if self.pending_rows + len(self.table) > self.cap:
            self._merge()
            if len(self.table) > self.cap // 2:
                self._spill()

    def _merge(self) -> None:
        parts = [self.table] + self.pending
        self.pending, self.pending_rows = [], 0
        self.table = self._reduced([[getattr(p, f) for p in parts] for f in self.table.columns()])

    def _reduced(self, columns: list) -> _Table:
        """``_reduce`` of the tables whose columns (in ``_Table.columns()`` order) are listed."""
        key, x, n, w, *extra = (np.concatenate(c) for c in columns)
        return _reduce(key, x, n, w, self.by_x, self.n_labels, *extra)

    def _spill(self) -> None:
        if self.tmp is None:
            self.tmp = tempfile.mkdtemp(prefix="discrank-scan-", dir=self.tmp_parent)
        run = os.path.join(self.tmp, f"run{len(self.runs):05d}")
        os.mkdir(run)
        for f in self.table.columns():
            np.save(os.path.join(run, f + ".npy"), getattr(self.table, f))
        self.runs.append(run)
        self.spilled_rows += len(self.table)
        self.table = _empty(self.by_bin)

    def result(self) -> _Table:
        """All the sums, merged: in memory, or the runs merged one key range at a time."""
        self._merge()
        if not self.runs:
            return self.table
        self._spill()
        keys = [np.load(os.path.join(r, "key.npy"), mmap_mode="r") for r in self.runs]
        total = sum(k.shape[0] for k in keys)
        n_ranges = max(1, -(-total // self.cap))
        stride = max(1, total // (64 * n_ranges * len(keys)) or 1)
        sample = np.sort(np.concatenate([np.asarray(k[::stride]) for k in keys]))
        cuts = np.unique(sample[(np.arange(1, n_ranges) * sample.size) // n_ranges]) if n_ranges > 1 else sample[:0]
        bounds = [[0, *np.searchsorted(k, cuts, side="left").tolist(), k.shape[0]] for k in keys]
        out: list[_Table] = []
        names = self.table.columns()
        for r in range(cuts.size + 1):
            parts = []
            for run, bd in zip(self.runs, bounds):
                lo, hi = bd[r], bd[r + 1]
                if hi > lo:
                    parts.append([np.array(np.load(os.path.join(run, f + ".npy"), mmap_mode="r")[lo:hi])
                                  for f in names])
            if parts:
                out.append(self._reduced([[p[c] for p in parts] for c in range(len(names))]))
        del keys
        return _Table(*(np.concatenate([getattr(t, f) for t in out]) for f in names))

    def cleanup(self) -> None:
        if self.tmp is not None:
            shutil.rmtree(self.tmp, ignore_errors=True)
            self.tmp = None


# ---------------------------------------------------------------------------------------------- result
def _k_core(lo: np.ndarray, hi: np.ndarray, n: np.ndarray, n_players: int, least: int) -> np.ndarray:
    """The rows kept by ``min_player_games``: every remaining player has at least ``least`` games,
    repeated until it holds (the readers' rule over games, here over the summed rows)."""
    keep = np.ones(lo.size, dtype=bool)
    while True:
        counts = (np.bincount(lo[keep], n[keep], n_players) + np.bincount(hi[keep], n[keep], n_players))
        alive = counts >= least
        now = keep & alive[lo] & alive[hi]
        if now.sum() == keep.sum():
            return keep
        keep = now


def _assemble(held: list, coder: _Coder, spec: dict) -> Any:
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
        keep = _k_core(lo, hi, n, n_labels, spec["min_player_games"])
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


def _parquet_rows(files: list[tuple[str, str]]) -> Optional[int]:
    if any(f != "parquet" for _, f in files):
        return None
    import pyarrow.parquet as pq

    try:
        return int(sum(pq.ParquetFile(p).metadata.num_rows for p, _ in files))
    except Exception:  # noqa: BLE001 - the scan itself names a file it cannot read
        return None


def scan_games(paths: Any, a: str = "a", b: str = "b", score: Optional[str] = None, winner: Optional[str] = None,
               time: Optional[str] = None, *, format: Optional[str] = None, start: Any = None, end: Any = None,
               min_player_games: int = 1, invalid: str = "raise", advantage: Any = None,
               weights: Optional[str] = None, period: Any = None, memory_limit: Any = "1GiB", tmpdir: Any = None,
               progress: Optional[bool] = None, batch_rows: int = BATCH_ROWS) -> Any:
    """Aggregate game logs larger than memory to pairs: the :class:`~discrank.PairwiseData` that reading
    every file into a :class:`~discrank.GameLog` and calling ``to_pairs()`` gives, without holding the
    games.

    Each file is read in chunks (module docstring), each chunk screened by the readers' rules, its labels
    coded in the core and its games summed by pair; the partial tables stay under ``memory_limit``,
    spilling sorted runs to a temporary directory (removed when the scan ends, is interrupted or fails).

    Parameters
    ----------
    paths : str, path or list of them
        Files, directories (every file inside, recursively, in sorted order; names starting with "." or
        "_" skipped) or glob patterns. By name: Parquet (``.parquet``, ``.pq``), CSV (``.csv``, ``.tsv``,
        also ``.gz``, ``.bz2``, ``.xz``, ``.zst`` compressed) and PGN (``.pgn``, compressed alike).
    a, b, score, winner, time, start, end, invalid, advantage
        As in :meth:`GameLog.from_frame` (Parquet, CSV) and :func:`read_pgn` (PGN files: the White and
        Black tags, White's result, the date; these arguments name no column there). ``start`` / ``end``
        filter by ``time`` before the checks; ``invalid="drop"`` drops the invalid rows and reports them
        in one warning for the whole scan.
    format : {"parquet", "csv", "pgn"}, optional
        The format of every file, instead of their names'.
    min_player_games : int
        Keep the players with at least this many valid games, repeated until each remaining one has
        them (the readers' rule, applied to the summed pairs). Invalid rows are raised on or counted as
        they are met, before this filter (the in-memory readers skip the invalid rows of the players it
        removes).
    weights : {"games", "uniform"}, optional
        As in :class:`PairwiseData` (not with ``period``).
    period : {"day", "week", "month", "year"} or float, optional
        Keep the games by period of ``time`` too (the periods of :class:`discrank.DynamicElo`), with
        their draws: the result is then a :class:`discrank.PeriodGames`, which ``DynamicElo(period=...)``
        fits as it fits the log itself (a game without a time is an invalid row, "missing time").
    memory_limit : int or str
        Bytes for the partial pair tables (say "2GiB"; at least 1 MiB): beyond it they are spilled.
        A chunk being read takes memory besides (about 200 bytes a game for ``batch_rows`` games).
    tmpdir : str, optional
        Where the spilled runs go (default: the system's temporary directory).
    progress : bool, optional
        A progress bar on stderr (tqdm; default: when stderr is a terminal).
    batch_rows : int
        Games per chunk (Parquet, PGN); CSV chunks are blocks of 64 MiB of text.

    Returns
    -------
    PairwiseData or PeriodGames
        Labels sorted; with ``advantage``, the games kept by covariate value (``covariates``), as
        :meth:`GameLog.to_pairs` keeps them. With ``period``: a :class:`~discrank.PeriodGames`, the
        ``PeriodGames.from_log`` of the files' log.

    Raises
    ------
    ValueError
        No file, a file of an unknown kind, a missing column, a corrupt or truncated file (naming it and
        the row or game from which it cannot be read), an invalid row (``invalid="raise"``, naming the file
        and the row), labels of different kinds in different files, or no valid game.
    FileNotFoundError
        A path that does not exist.
    """
    invalid = check_invalid(invalid)
    min_player_games = check_positive_int(min_player_games, "min_player_games")
    batch_rows = check_positive_int(batch_rows, "batch_rows")
    budget = parse_bytes(memory_limit)
    if weights is not None:
        check_choice(weights, "weights", ("games", "uniform"), "a pair's weight: its games, or 1")
    files = _sources(paths, format)
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
    names = advantage_columns(advantage)
    if names and any(f == "pgn" for _, f in files):
        raise ValueError("advantage= names columns: PGN files have none (use CSV or Parquet)")
    pandas_module()
    spec = dict(a=a, b=b, score=score, winner=winner, time=time, start=start, end=end, invalid=invalid,
                advantage=list(names) if names else None, advantage_names=tuple(names), by_x=bool(names),
                min_player_games=min_player_games, weights=weights, batch_rows=batch_rows, block_bytes=BLOCK_BYTES,
                period=period, results=True, dates=None, first_times=None, dropped={})
    coder = _Coder()
    acc = _Accumulator(budget, None if tmpdir is None else os.fspath(tmpdir), bool(names), period is not None)
    dropped: dict[str, int] = {}
    dropped_in: list[str] = []
    games = 0
    bar = _progress_bar(progress, _parquet_rows(files))
    try:
        for path, fmt in files:
            file_dropped = 0
            for chunk in _READERS[fmt](path, spec):
                if bar is not None:
                    bar.update(chunk.rows)
                for kind, count in chunk.dropped.items():
                    dropped[kind] = dropped.get(kind, 0) + count
                    file_dropped += count
                if chunk.a.size == 0:
                    continue
                ca, cb = coder.labels(chunk.a, chunk.b, path)
                xcode = None
                if chunk.x is not None:  # the covariates of a, as those of the pair's first player
                    xcode = coder.covariates(np.asarray(chunk.x, dtype=np.float64))
                    xcode = np.where(ca > cb, coder.negation()[xcode], xcode)
                acc.n_labels = coder.table.size
                bins = None if period is None else _chunk_bins(chunk, spec, path)
                acc.add(_chunk_table(ca, cb, np.asarray(chunk.score, dtype=np.float64), xcode, acc.n_labels, bins))
                games += chunk.a.size
            if file_dropped:
                dropped_in.append(f"{os.path.basename(path)} ({file_dropped})")
        if games == 0:
            raise ValueError(f"no valid game in {len(files)} file{'s' if len(files) > 1 else ''}"
                             + (f" (dropped: {dropped})" if dropped else ""))
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
                  f"{'s' if len(files) != 1 else ''}: {parts}; in {shown}")
    spec["dropped"] = dropped
    held = [table]
    del table
    return _assemble(held, coder, spec)


def _chunk_bins(chunk: _Chunk, spec: dict, path: str) -> np.ndarray:
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
