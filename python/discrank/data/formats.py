"""File formats and compressions by suffix: the one table of every reader (``GameLog``'s, ``read_arena``,
``scan_games``, the command line), a file's format by its suffix, and compressed files opened as text."""

from __future__ import annotations

import os
from typing import Any, Optional

__all__ = ["SUFFIXES", "COMPRESSIONS", "STREAMED", "formats", "strip_compression", "format_of", "open_text",
           "decompression_errors"]

#: Each format's suffixes, lower case (a reader takes some of the formats: :func:`formats`).
SUFFIXES = {"csv": (".csv",), "tsv": (".tsv",), "parquet": (".parquet", ".pq"), "jsonl": (".jsonl", ".ndjson"),
            "json": (".json",), "pgn": (".pgn",)}

#: The compressions, by suffix: each the module that opens it (``.zst`` needs zstandard; a ``.zip`` archive
#: holds one file and is read by the arena's reader alone).
COMPRESSIONS = {".gz": "gzip", ".bz2": "bz2", ".xz": "lzma", ".zst": "zstandard", ".zip": "zipfile"}

#: The compressions every reader of text takes (all but ``.zip``).
STREAMED = (".gz", ".bz2", ".xz", ".zst")


def formats(**groups: tuple) -> dict[str, tuple]:
    """A reader's table, format -> suffixes, each format the :data:`SUFFIXES` of the formats ``groups`` names:
    ``formats(csv=("csv", "tsv"), pgn=("pgn",))`` reads ``.tsv`` files as CSV."""
    return {name: tuple(s for member in members for s in SUFFIXES[member]) for name, members in groups.items()}


def strip_compression(path: str, compressions: tuple = STREAMED) -> tuple[str, Optional[str]]:
    """``(name, compression)``: ``path`` in lower case without its compression suffix (one of
    ``compressions``), and that suffix (None when it has none)."""
    name = os.fspath(path).lower()
    for ext in compressions:
        if name.endswith(ext):
            return name[: -len(ext)], ext
    return name, None


def format_of(path: str, table: dict[str, tuple], compressions: tuple = STREAMED) -> Optional[str]:
    """The format of ``path`` in ``table`` (format -> suffixes) by its name's suffix, one of ``compressions``
    after it allowed; None for another name."""
    name, _ = strip_compression(path, compressions)
    for fmt, exts in table.items():
        if name.endswith(exts):
            return fmt
    return None


def open_text(path: str, errors: str = "replace") -> Any:
    """The file ``path`` opened as UTF-8 text (``errors`` as :func:`open`'s), decompressed by its suffix
    (:data:`STREAMED`; ``.zst`` needs zstandard)."""
    _, compression = strip_compression(path)
    if compression is None:
        return open(path, encoding="utf-8", errors=errors)
    try:
        opener = __import__(COMPRESSIONS[compression])
    except ImportError as exc:
        if compression != ".zst":  # a Python built without one of its own compression modules: as it says
            raise
        raise ImportError(f"{path}: reading .zst files needs zstandard: pip install 'discrank[pgn]'") from exc
    return opener.open(path, "rt", encoding="utf-8", errors=errors)


def decompression_errors() -> tuple:
    """What the decompressors raise on corrupted data (besides OSError)."""
    import lzma
    import zlib

    try:
        from zstandard import ZstdError
    except ImportError:
        return (zlib.error, lzma.LZMAError)
    return (zlib.error, lzma.LZMAError, ZstdError)
