"""CSV and Parquet files read into frames (:meth:`discrank.GameLog.read_csv`, ``read_parquet``): their errors
worded with the file, the complete lines of a truncated compressed CSV file, and the refusal of a Parquet
column that holds lists or records."""

from __future__ import annotations

import contextlib
import os
from typing import Any, Iterator

import numpy as np

from discrank._util.checks import show
from discrank.data._screen import warn_user
from discrank._util.exceptions import TruncatedFileWarning
from discrank.data.formats import decompression_errors

__all__ = ["KEEP_HINT", "check_scalar_column", "read_csv_frame", "read_errors_named", "read_parquet_frame",
           "truncated_csv"]


#: How a reader keeps the complete rows of a truncated file, as :func:`truncated_csv` names it.
KEEP_HINT = 'truncated="keep" (discrank fit --keep-truncated)'


def read_csv_frame(pd: Any, path: Any, read_kw: dict, truncated: str, keep_hint: Any = KEEP_HINT) -> Any:
    """A CSV file read by ``pandas.read_csv(path, **read_kw)`` (``low_memory=False`` with the C parser unless
    given). A truncated compressed file (:func:`truncated_csv`; ``keep_hint``: the option that keeps its complete
    rows, or None), one that does not decompress, text that is not UTF-8 and an empty file are a ``ValueError``
    naming the file; a system error is raised as it is."""
    if "low_memory" not in read_kw and read_kw.get("engine") in (None, "c"):
        read_kw["low_memory"] = False
    try:
        with read_errors_named(str(path), "; pass encoding=..."):
            return pd.read_csv(path, **read_kw)
    except EOFError as exc:  # a compressed file cut short
        return truncated_csv(pd, path, read_kw, truncated, exc, keep_hint)
    except pd.errors.EmptyDataError:
        raise ValueError(f"{path}: the file is empty") from None


@contextlib.contextmanager
def read_errors_named(shown: str, encoding_hint: str = "") -> Iterator[None]:
    """Within the block, a file (``shown``: its name in the messages) that does not decompress, or whose text is
    not UTF-8 (``encoding_hint`` added), is a ``ValueError`` naming it; a system error is raised as it is, and an
    ``EOFError`` (a compressed file cut short) is left to the caller."""
    try:
        yield
    except (*decompression_errors(), OSError) as exc:
        if isinstance(exc, OSError) and (exc.errno is not None or exc.filename is not None):
            raise  # a system error (no such file, permission): it names the file
        raise ValueError(f"{shown}: cannot be decompressed ({type(exc).__name__}: {exc})") from None
    except UnicodeDecodeError as exc:
        raise ValueError(f"{shown}: not UTF-8 text ({exc.reason} at byte {exc.start}){encoding_hint}") from None


def read_parquet_frame(pd: Any, path: Any, read_kw: dict, columns: tuple) -> Any:
    """A Parquet file read by ``pandas.read_parquet(path, **read_kw)``, its errors as a ``ValueError`` naming
    the file (a missing file raised as it is); each of ``columns`` (``(role, name)``, name None when not
    used) that the frame has is checked to hold one value per game (:func:`check_scalar_column`)."""
    try:
        df = pd.read_parquet(path, **read_kw)
    except FileNotFoundError:
        raise
    except (ValueError, OSError) as exc:
        text = str(exc)
        raise ValueError(text if os.fspath(path) in text else f"{path}: {text}") from None
    for role, col in columns:
        if col is not None and col in df.columns:
            check_scalar_column(pd, df[col], col, role, path)
    return df


def truncated_csv(pd: Any, path: Any, read_kw: dict, truncated: str, exc: BaseException,
                  keep_hint: Any = KEEP_HINT) -> Any:
    """The frame of the complete lines of a truncated compressed CSV file (``truncated="keep"``, with a
    warning), or a ``ValueError`` naming the file, where its text ends, the last complete row and (unless
    ``keep_hint`` is None) the option that keeps the rows before the cut."""
    import bz2
    import gzip
    import io
    import lzma

    where = os.fspath(path) if isinstance(path, (str, os.PathLike)) else repr(path)
    method = read_kw.get("compression", "infer")
    if isinstance(method, dict):
        method = method.get("method")
    if method == "infer":
        method = {".gz": "gzip", ".bz2": "bz2", ".xz": "xz"}.get(os.path.splitext(where)[1].lower())
    opener = {"gzip": gzip, "bz2": bz2, "xz": lzma}.get(method) if isinstance(path, (str, os.PathLike)) else None
    if opener is None:
        keep = "" if keep_hint is None else f"; {keep_hint} reads .gz, .bz2 and .xz files given by path"
        raise ValueError(f"{where}: the compressed file is truncated ({exc}){keep}") from None
    chunks = []
    with opener.open(path, "rb") as fh:
        try:
            while True:
                block = fh.read1(1 << 16)  # (read() would drop what it had decompressed when it meets the end)
                if not block:
                    break
                chunks.append(block)
        except EOFError:
            pass
    text = b"".join(chunks)
    complete = text[: text.rfind(b"\n") + 1]
    lines = complete.count(b"\n")
    kw = {k: v for k, v in read_kw.items() if k != "compression"}
    try:
        df = pd.read_csv(io.BytesIO(complete), **kw)
    except (pd.errors.EmptyDataError, pd.errors.ParserError, ValueError):
        df = None
    rows = 0 if df is None else len(df)
    ends = f"its text ends at byte {len(text):,}, in line {lines + 1}"
    last = f"the last complete row is row {rows - 1}, on line {lines}" if rows else "no row is complete"
    if truncated == "raise":
        keep = f"keeps the {rows} complete rows before it" if rows else "keeps nothing here"
        keep = "" if keep_hint is None else f"; {keep_hint} {keep}"
        raise ValueError(f"{where}: the compressed file is truncated ({exc}): {ends}; {last}{keep}") from None
    if not rows:
        raise ValueError(f"{where}: the compressed file is truncated: {ends}, and no row is complete") from None
    warn_user(f"{where}: the compressed file is truncated: {ends}; kept the {rows} complete rows read before the "
          f"truncation; {last}", TruncatedFileWarning)
    return df


def check_scalar_column(pd: Any, col: Any, name: str, role: str, path: Any) -> None:
    """A ``ValueError`` when a column holds lists, arrays or structs (a Parquet list or struct column)
    instead of one value per game, naming the column and its type."""
    dtype = col.dtype
    nested = None
    arrow = getattr(dtype, "pyarrow_dtype", None)
    if arrow is not None:
        import pyarrow as pa

        if pa.types.is_nested(arrow):
            nested = (0, None, str(arrow))
    elif dtype == object and pd.api.types.infer_dtype(col, skipna=True) == "mixed":
        for k, v in enumerate(col.tolist()):
            if isinstance(v, (list, tuple, dict, set, np.ndarray)):
                nested = (k, v, type(v).__name__)
                break
    if nested is None:
        return
    k, v, kind = nested
    try:  # the column's type in the file, when pyarrow can read the schema
        import pyarrow.parquet as pq

        kind = str(pq.read_schema(path).field(name).type)
    except Exception:  # noqa: BLE001 - the Python type of the value is named instead
        pass
    value = "" if v is None else f" (row {k}: {show(v.tolist() if isinstance(v, np.ndarray) else v)})"
    raise ValueError(f"{path}: column {name!r} (for {role}) has the type {kind}: it holds lists or records{value}, "
                     "not one value per game")
