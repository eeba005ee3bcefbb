"""The files of :func:`discrank.scan_games`: the paths found and their formats told, and each file read in
chunks (Parquet row batches, pyarrow's streaming CSV reader, blocks of JSON lines, PGN header blocks), each
chunk's rows screened by the readers' own rules."""

from __future__ import annotations

import glob
import os
from dataclasses import dataclass, field
from typing import Any, Iterator, Optional

import numpy as np

from discrank._util.checks import check_choice, show
from discrank.data._advantage import advantage_columns
from discrank.data._rows import read_frame_rows
from discrank.data._votes import check_winner_sides, vote_frame
from discrank.data.formats import STREAMED, decompression_errors, format_of, formats, open_text, strip_compression

__all__ = ["FORMATS", "READERS", "Chunk", "bad_json_line", "parquet_rows", "sources"]

#: The formats :func:`scan_games` reads, and the file names it recognises (compressed CSV, JSON lines and PGN
#: too).
FORMATS = formats(parquet=("parquet",), csv=("csv", "tsv"), jsonl=("jsonl",), pgn=("pgn",))


def sources(paths: Any, fmt: Optional[str]) -> list[tuple[str, str]]:
    """(path, format) of every file named: a folder (given, matched by a glob or met inside a folder, links
    followed) is read recursively in sorted order, names starting with "." or "_" skipped; a file is read
    once, however many paths name it (a warning names each file named again); anything that is neither a
    regular file nor a folder (a named pipe, a socket, a device) is refused by name."""
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
        if os.path.exists(p):
            files += _files_of(p)
        elif glob.has_magic(p):
            found = sorted(glob.glob(p, recursive=True))
            if not found:
                raise ValueError(f"no file matches {p!r}")
            for f in found:
                files += _files_of(f)
        else:
            raise FileNotFoundError(f"no such file or directory: {p!r}")
    out, seen, again = [], set(), []
    for f in files:
        real = os.path.realpath(f)
        if real in seen:
            again.append(f)
            continue
        seen.add(real)
        kind = fmt or format_of(f, FORMATS)
        if kind is None:
            raise ValueError(f"{f}: not a file scan_games reads (by its name: {_known()}); pass format=...")
        out.append((f, kind))
    if again:
        import warnings

        warnings.warn(f"{len(again)} file(s) named more than once by the paths given (overlapping paths or links), "
                      f"read once each: {', '.join(map(repr, again[:5]))}{' ...' if len(again) > 5 else ''}",
                      UserWarning, stacklevel=3)
    return out


def _files_of(p: str) -> list[str]:
    """The files of the path ``p``: itself, or a folder's files (:func:`sources`' rule); a ValueError names
    a path that is neither a regular file nor a folder, or a folder that holds no file."""
    import stat

    if os.path.isdir(p):
        found, visited = [], set()
        for root, dirs, names in os.walk(p, followlinks=True):
            real = os.path.realpath(root)
            if real in visited:  # (a link back up the tree: its files are read once)
                dirs[:] = []
                continue
            visited.add(real)
            dirs[:] = sorted(d for d in dirs if not d.startswith((".", "_")))
            for n in sorted(names):
                if not n.startswith((".", "_")):
                    found.append(_regular(os.path.join(root, n), stat))
        if not found:
            raise ValueError(f"{p}: the directory holds no file")
        return found
    return [_regular(p, stat)]


def _regular(path: str, stat: Any) -> str:
    """``path``, or a ValueError naming it when it is not a regular file (a link is followed)."""
    if not stat.S_ISREG(os.stat(path).st_mode):
        raise ValueError(f"{path}: not a regular file (a named pipe, a socket or a device): scan_games reads "
                         "files and folders of them only, as reading it could block")
    return path


def _known() -> str:
    return (", ".join(e for exts in FORMATS.values() for e in exts)
            + f" (CSV, JSON lines and PGN also {', '.join(STREAMED)})")


@dataclass
class Chunk:
    """The valid games of one chunk: labels (checked), scores, covariates, and the rows read."""

    a: np.ndarray
    b: np.ndarray
    score: np.ndarray
    x: Optional[np.ndarray]
    rows: int
    dropped: dict = field(default_factory=dict)
    time: Optional[np.ndarray] = None


def _frame_chunk(df: Any, path: str, row0: int, spec: dict) -> Chunk:
    """A chunk of a CSV, Parquet or JSON-lines file (a pandas frame) screened by ``read_frame_rows``, after
    the votes that ``bothbad="ignore"`` drops (the rows keep their numbers); a winner that reads two ways is
    refused first."""
    n_rows = len(df)
    if spec["winner"] is not None:
        try:
            check_winner_sides(df, spec["a"], spec["b"], spec["winner"], row0)
        except ValueError as exc:
            raise ValueError(f"{path}: {exc}") from None
    df, at = vote_frame(df, spec["winner"], spec["bothbad"], row0)
    if len(df) == 0:
        return Chunk(np.empty(0, dtype=object), np.empty(0, dtype=object), np.empty(0), None, n_rows)
    try:
        rows = read_frame_rows(df, spec["a"], spec["b"], spec["score"], spec["winner"], spec["time"],
                               start=spec["start"], end=spec["end"], invalid=spec["invalid"],
                               advantage=spec["advantage"], row0=at, empty_ok=True)
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None
    except TypeError as exc:
        raise TypeError(f"{path}: {exc}") from None
    return Chunk(rows.a, rows.b, rows.score, rows.advantage, n_rows, rows.dropped, rows.time)


def _arrow_columns(spec: dict) -> list[str]:
    cols = [spec["a"], spec["b"], spec["score"] or spec["winner"]]
    if spec["time"] is not None:
        cols.append(spec["time"])
    return cols + list(advantage_columns(spec["advantage"]))


def _missing_columns(path: str, have: list, want: list) -> None:
    lost = [c for c in want if c not in have]
    if lost:
        raise ValueError(f"{path}: no column {lost[0]!r}; its columns are {list(have)}")


def _parquet_chunks(path: str, spec: dict) -> Iterator[Chunk]:
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


def _csv_chunks(path: str, spec: dict) -> Iterator[Chunk]:
    import pyarrow as pa
    import pyarrow.csv as pcsv

    cols = _arrow_columns(spec)
    delimiter = "\t" if strip_compression(path)[0].endswith(".tsv") else ","
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


def _json_chunks(path: str, spec: dict) -> Iterator[Chunk]:
    """A JSON-lines file (compressed by its suffix) in blocks of lines (about ``json_block_bytes`` of text, at
    most ``batch_rows`` lines), each read by ``pandas.read_json(lines=True)``; rows numbered as records (blank
    lines skipped). A line that is no JSON object names the file, its line and its row."""
    import io

    import pandas as pd


    cols = _arrow_columns(spec)
    row0 = line0 = 0
    with open_text(path, errors="strict") as fh:
        while True:
            lines: list = []
            try:
                _line_block(fh, lines, spec["batch_rows"], spec["json_block_bytes"])
            except (OSError, EOFError, ValueError, *decompression_errors()) as exc:
                if isinstance(exc, OSError) and exc.errno is not None:
                    raise
                line = line0 + len(lines)
                raise ValueError(f"{path}: cannot read the file after line {line} (row {row0 + _records(lines)}) "
                                 f"({type(exc).__name__}: {exc}); a corrupt or truncated file") from None
            if not lines:
                return
            text = "".join(lines)
            if text.strip():
                try:
                    df = pd.read_json(io.StringIO(text), lines=True)
                except (ValueError, TypeError, AttributeError) as exc:  # (pandas 2.2's parser: an AttributeError)
                    raise ValueError(_json_error(path, lines, line0, row0, exc)) from None
                lost = [c for c in cols if c not in df.columns]
                if lost and row0 == 0:
                    raise ValueError(f"{path}: no key {lost[0]!r} in its first {len(df)} records; their keys are "
                                     f"{list(df.columns)[:20]}")
                if lost:  # a key that no record of a later block holds: missing values, invalid rows as such
                    df = df.assign(**{c: None for c in lost})
                yield _frame_chunk(df[cols], path, row0, spec)
                row0 += len(df)
            line0 += len(lines)


def _line_block(fh: Any, lines: list, max_lines: int, max_chars: int) -> None:
    """The next lines of ``fh`` appended to ``lines``: up to ``max_lines``, or until they hold ``max_chars``
    characters (those read before an error are in ``lines``)."""
    size = 0
    for line in fh:
        lines.append(line)
        size += len(line)
        if len(lines) >= max_lines or size >= max_chars:
            break


def _records(lines: list) -> int:
    """The records of JSON lines: the lines that are not blank."""
    return sum(1 for line in lines if line.strip())


def bad_json_line(lines: Any) -> Optional[tuple[int, int, str]]:
    """The first of JSON ``lines`` that is no JSON object (blank lines skipped): its index, the records
    before it, and why (the parser's message, or the JSON type it holds); None when every line is one."""
    import json

    records = 0
    for k, line in enumerate(lines):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except ValueError as err:
            return k, records, str(err)
        if not isinstance(value, dict):
            return k, records, f"a JSON {type(value).__name__}, not an object"
        records += 1
    return None


def _json_error(path: str, lines: list, line0: int, row0: int, exc: BaseException) -> str:
    """The message for a block of JSON lines (the file's from line ``line0 + 1``, row ``row0``) that pandas
    cannot read: its first line that is no JSON object, with the file's line and row numbers."""
    bad = bad_json_line(lines)
    if bad is None:
        return (f"{path}: cannot read the lines {line0 + 1} to {line0 + len(lines)} (rows from {row0}) "
                f"({type(exc).__name__}: {exc})")
    k, records, reason = bad
    line = lines[k]
    cut = "" if line.endswith("\n") else "; the file's last line, with no newline: a truncated file?"
    return (f"{path}: cannot read line {line0 + k + 1} (row {row0 + records}): {show(line.strip(), 60)} is not a "
            f"JSON object ({reason}{cut}); a corrupt or truncated file")


def _pgn_chunks(path: str, spec: dict) -> Iterator[Chunk]:
    from discrank.data.pgn import pgn_columns, pgn_headers, pgn_rows

    def screen(records: list, game0: int) -> Chunk:
        white, black, score, dates, kind_arr, results = pgn_columns(records)
        W, B, s, t, dropped = pgn_rows(path, white, black, score, dates, kind_arr, results, start=spec["start"],
                                        end=spec["end"], min_player_games=1, invalid=spec["invalid"], game0=game0,
                                        empty_ok=True, need_time=spec["period"] is not None)
        return Chunk(W, B, s, None, len(records), dropped, t)

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


READERS = {"parquet": _parquet_chunks, "csv": _csv_chunks, "jsonl": _json_chunks, "pgn": _pgn_chunks}


def parquet_rows(files: list[tuple[str, str]]) -> Optional[int]:
    if any(f != "parquet" for _, f in files):
        return None
    import pyarrow.parquet as pq

    try:
        return int(sum(pq.ParquetFile(p).metadata.num_rows for p, _ in files))
    except Exception:  # noqa: BLE001 - the scan itself names a file it cannot read
        return None
