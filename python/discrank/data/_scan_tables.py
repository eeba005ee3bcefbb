"""The sums of :func:`discrank.scan_games`: labels and covariate rows coded across chunks (the labels in the
core's ``LabelTable``), each chunk's games summed by pair (and period, and covariate value), and the
partial tables merged in memory, spilled as sorted runs to a temporary directory when they outgrow the
budget, and the runs merged one key range at a time."""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass
from typing import Any, Optional

import numpy as np

from discrank.core import _core
from discrank._util.checks import show
from discrank._util.labels import as_label_array

__all__ = ["MAX_COVARIATE_ROWS", "Accumulator", "Coder", "Table", "chunk_table"]

#: Bytes per row of a partial pair table in memory (key, covariate code, games, score sum), and more with
#: ``period=`` (the period, the draws).
_ROW_BYTES = 28
_PERIOD_ROW_BYTES = 16
#: The most distinct covariate rows a scan codes.
MAX_COVARIATE_ROWS = 1 << 20


class Coder:
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
class Table:
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


def _empty(by_bin: bool) -> Table:
    extra = (np.empty(0, np.int64), np.empty(0)) if by_bin else (None, None)
    return Table(np.empty(0, np.int64), np.empty(0, np.int32), np.empty(0), np.empty(0), *extra)


def _reduce(key: np.ndarray, x: np.ndarray, n: np.ndarray, w: np.ndarray, by_x: bool, n_labels: int,
            bin: Optional[np.ndarray] = None, d: Optional[np.ndarray] = None) -> Table:
    """Rows with equal (key, bin, x) summed, in (key, bin, x) order; the sums run in the rows' order (the
    core's grouping by pair, else a stable sort)."""
    if key.size == 0:
        return Table(key, x, n, w, bin, d)
    if not by_x and bin is None:
        inverse, lo, hi = _core.group_pairs(n_labels, (key >> 32).astype(np.int32), (key & 0xFFFFFFFF).astype(np.int32))
        k = lo.size
        return Table((lo.astype(np.int64) << 32) | hi, np.zeros(k, dtype=np.int32), np.bincount(inverse, n, k),
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
        return Table(key, x, n, w, bin, d)
    return Table(key[starts], x[starts], np.add.reduceat(n, starts), np.add.reduceat(w, starts),
                  None if bin is None else bin[starts], None if d is None else np.add.reduceat(d, starts))


def chunk_table(ca: np.ndarray, cb: np.ndarray, score: np.ndarray, xcode: Optional[np.ndarray],
                 n_labels: int, bins: Optional[np.ndarray] = None) -> Table:
    """One chunk's games summed by pair (and period, and covariate code, already that of the pair's first
    player), oriented lo < hi in first-seen codes: without covariates or periods by the core's aggregation
    (the in-memory one)."""
    if xcode is None and bins is None:
        lo, hi, games, wins = _core.aggregate_games(n_labels, ca, cb, score, None)
        return Table((lo.astype(np.int64) << 32) | hi, np.zeros(lo.size, dtype=np.int32), games, wins)
    swap = ca > cb
    lo = np.where(swap, cb, ca).astype(np.int64)
    hi = np.where(swap, ca, cb).astype(np.int64)
    y = np.where(swap, 1.0 - score, score)
    key = (lo << 32) | hi
    x = np.zeros(key.size, dtype=np.int32) if xcode is None else xcode
    draws = None if bins is None else (score == 0.5).astype(np.float64)
    return _reduce(key, x, np.ones(key.size), y, xcode is not None, n_labels, bins, draws)


class Accumulator:
    """Partial pair tables merged in memory, spilled as sorted runs when they outgrow the budget."""

    def __init__(self, budget: int, tmpdir: Optional[str], by_x: bool, by_bin: bool = False) -> None:
        row_bytes = _ROW_BYTES + (_PERIOD_ROW_BYTES if by_bin else 0)
        self.cap = max(budget // (3 * row_bytes), 1 << 12)  # rows held before merging
        self.by_x = by_x
        self.by_bin = by_bin
        self.table = _empty(by_bin)
        self.pending: list[Table] = []
        self.pending_rows = 0
        self.runs: list[str] = []
        self.tmp_parent = tmpdir
        self.tmp: Optional[str] = None
        self.spilled_rows = 0
        self.n_labels = 1  # codes seen so far (the core's grouping takes their count)

    def add(self, t: Table) -> None:
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

    def _reduced(self, columns: list) -> Table:
        """``_reduce`` of the tables whose columns (in ``Table.columns()`` order) are listed."""
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

    def result(self) -> Table:
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
        out: list[Table] = []
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
        return Table(*(np.concatenate([getattr(t, f) for t in out]) for f in names))

    def cleanup(self) -> None:
        if self.tmp is not None:
            shutil.rmtree(self.tmp, ignore_errors=True)
            self.tmp = None
