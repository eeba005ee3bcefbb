"""Arena logs: pairwise votes between models or agents (Chatbot Arena and its copies, agent leagues).

Their files hold ``model_a, model_b, winner`` with ``winner`` in {"model_a", "model_b", "tie", "tie
(bothbad)"}; the readers take them as they are (a winner that names a player's column names that side; both
ties score 0.5). :func:`apply_ties` sets how the ties count (:data:`TIES`); :func:`read_arena` does both, from
a CSV, Parquet or JSON file or a frame. A model named like a winner value ("model_b", "tie") is refused.
"""

from __future__ import annotations

import os
from typing import Any, Optional

import numpy as np

from discrank._util.checks import show
from discrank.data._votes import BOTH_BAD, both_bad, check_bothbad, check_winner_sides, tie_rows, winner_keyword
from discrank.data.formats import COMPRESSIONS, format_of, formats, open_text, strip_compression

__all__ = ["BOTH_BAD", "STYLE_METADATA", "TIES", "apply_ties", "both_bad", "fast_votes", "frame_of", "read_arena",
           "style_features"]

#: The ties policies of :func:`apply_ties`.
TIES = ("half", "davidson", "ignore", "one-win-each")


def apply_ties(log: Any, ties: str = "half") -> Any:
    """The games of an arena log with its ties counted by the policy ``ties``.

    Parameters
    ----------
    log : GameLog
        The votes; a tie is a game scored 0.5.
    ties : {"half", "davidson", "ignore", "one-win-each"}, default "half"
        - "half": a tie is half a win for each side (the log as it is);
        - "davidson": the log as it is, for a draw model to fit the ties (``Elo(draws="davidson")``);
        - "ignore": the ties are dropped;
        - "one-win-each": FastChat's rule: every vote is two games, a decisive vote two wins for its
          winner, a tie one win for each side (a Bradley-Terry fit gives the ratings of "half" on twice
          the games).

    Returns
    -------
    GameLog
        ``log`` itself for "half" and "davidson"; otherwise a new log, times and advantage columns kept
        with their games (each vote's two games of "one-win-each" at its place).

    Raises
    ------
    ValueError
        ``ties`` not one of :data:`TIES`, a log whose every vote is a tie with "ignore" (no game left).
    TypeError
        ``log`` is not a GameLog.
    """
    from discrank.data.logs import GameLog

    if not isinstance(log, GameLog):
        raise TypeError(f"apply_ties expects a discrank.GameLog, got {type(log).__name__}")
    if not isinstance(ties, str) or ties not in TIES:
        raise ValueError(f"ties={ties!r} is not one of {TIES}")
    got = tie_rows(log.score, ties)
    if got is None:
        return log
    rows, score = got
    if rows.size == 0:
        raise ValueError(f"ties='ignore': every one of the {len(log)} votes is a tie, so no game is left")
    out = log._take(rows, log.dropped)
    out.score = score
    return out


#: The style features :func:`style_features` derives from a conversation-metadata column (Chatbot
#: Arena's ``conv_metadata``): each name, the metadata keys of model a's answer and of model b's (a number,
#: or a dict of counts summed). ``"md"`` stands for the three markdown ones.
STYLE_METADATA = {
    "len": ("sum_assistant_a_tokens", "sum_assistant_b_tokens"),
    "header": ("header_count_a", "header_count_b"),
    "list": ("list_count_a", "list_count_b"),
    "bold": ("bold_count_a", "bold_count_b"),
}
#: The markdown features ``"md"`` stands for.
MARKDOWN = ("header", "list", "bold")


def _metadata_sum(values: Any, key: str, column: str) -> np.ndarray:
    """The metadata ``key`` of each row (a number, or a dict of counts summed); a ValueError names the row."""
    out = np.empty(len(values))
    for i, meta in enumerate(values):
        v = meta.get(key) if isinstance(meta, dict) else None
        if isinstance(v, dict):
            v = sum(float(c) for c in v.values())
        if v is None:
            raise ValueError(f"{column!r}, row {i}: no {key!r} in the conversation metadata ({meta!r:.80})")
        out[i] = float(v)
    return out


def style_features(frame: Any, names: Any, metadata: str = "conv_metadata") -> tuple[np.ndarray, tuple]:
    """Style features of the votes, one column per name, each a's answer against b's.

    Each name is, in order of preference: a column of the frame, taken as it is; a pair of columns
    ``name_a`` and ``name_b``, whose normalised difference ``(a - b) / (a + b)`` (0 where both are 0) is the
    feature; or one of :data:`STYLE_METADATA` (``"md"`` for the three markdown counts) read from the
    conversation-metadata column ``metadata``, as Chatbot Arena's style-controlled board derives them.

    Returns
    -------
    z : ndarray, shape (n_votes, n_features)
    names : tuple of str

    Raises
    ------
    ValueError
        A name none of these, a missing or non-finite value (naming the column and row).
    """
    if isinstance(names, str):
        names = [n.strip() for n in names.split(",") if n.strip()]
    names = list(names)
    expanded = []
    for name in names:
        if name == "md" and name not in frame.columns:
            expanded.extend(MARKDOWN)
        else:
            expanded.append(name)
    cols = []
    for name in expanded:
        if name in frame.columns:
            z = _numeric(frame[name], name)
        elif f"{name}_a" in frame.columns and f"{name}_b" in frame.columns:
            za, zb = _numeric(frame[f"{name}_a"], f"{name}_a"), _numeric(frame[f"{name}_b"], f"{name}_b")
            z = _normalised_difference(za, zb)
        elif name in STYLE_METADATA and metadata in frame.columns:
            meta = frame[metadata].tolist()
            key_a, key_b = STYLE_METADATA[name]
            z = _normalised_difference(_metadata_sum(meta, key_a, metadata), _metadata_sum(meta, key_b, metadata))
        else:
            raise ValueError(f"style {name!r}: no column {name!r}, no columns {name + '_a'!r} and {name + '_b'!r}"
                             + (f", and not one of the metadata features {sorted(STYLE_METADATA)} + ['md']"
                                if metadata in frame.columns else f", and no {metadata!r} column to derive it from"))
        cols.append(z)
    return (np.column_stack(cols) if cols else np.zeros((len(frame), 0))), tuple(expanded)


def _numeric(col: Any, name: str) -> np.ndarray:
    import pandas as pd

    values = pd.to_numeric(col, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
    bad = np.flatnonzero(~np.isfinite(values))
    if bad.size:
        raise ValueError(f"style column {name!r}, row {bad[0]}: {col.iloc[bad[0]]!r} is not a finite number "
                         f"({bad.size} such rows)")
    return values


def _normalised_difference(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    total = a + b
    return np.divide(a - b, total, out=np.zeros_like(total), where=total != 0)


#: The file suffixes :func:`read_arena` reads, by format (a compression suffix after them is read too).
FORMATS = formats(csv=("csv",), parquet=("parquet",), jsonl=("jsonl", "json"))


def _format(path: Any) -> str:
    """The format of ``path`` by its suffix (a compression suffix after it allowed); a ValueError names it."""
    fmt = format_of(os.fspath(path), FORMATS, tuple(COMPRESSIONS))
    if fmt is not None:
        return fmt
    raise ValueError(f"{os.fspath(path)!r}: not a file read_arena reads (suffixes "
                     f"{sorted(s for v in FORMATS.values() for s in v)}, optionally compressed {tuple(COMPRESSIONS)})")


def read_arena(source: Any, *, model_a: str = "model_a", model_b: str = "model_b", winner: str = "winner",
               ties: str = "half", time: Optional[str] = None, style: Any = None, bothbad: str = "tie",
               invalid: str = "raise", **options: Any) -> Any:
    """An arena log (pairwise votes) as a :class:`~discrank.GameLog`, its ties counted by ``ties``.

    Parameters
    ----------
    source : str, path-like or pandas.DataFrame
        A CSV (``.csv``), Parquet (``.parquet``) or JSON (``.jsonl``, ``.json``: one vote per line, or a
        ``.json`` array of votes) file, compressed or not; or a frame of the votes.
    model_a, model_b, winner : str
        The columns: the two models, and the winner (the name of the winner's column, a draw marker, or
        the winning model's name). A winner that reads both ways (a model named "tie") is refused.
    ties : {"half", "davidson", "ignore", "one-win-each"}, default "half"
        How the ties count (:func:`apply_ties`).
    time : str, optional
        A column of the votes' times (numbers or dates).
    style : str or list of str, optional
        Style features (the answers' length, markdown counts), as :func:`style_features` reads or derives
        them, held as the log's advantage covariates attributed to ``model_a``.
    bothbad : {"tie", "ignore"}, default "tie"
        The ties in which both answers were bad (:data:`BOTH_BAD`): ties like the others, or dropped.
    invalid : {"raise", "drop"}
        What to do with invalid rows, as in :meth:`discrank.GameLog.from_frame`.
    **options
        Passed to :meth:`discrank.GameLog.from_frame` (``start``, ``end``, ``min_player_games``,
        ``max_invalid``).

    Returns
    -------
    GameLog

    Raises
    ------
    ValueError
        A file of another suffix, or one that is truncated, corrupt, empty or without a row; a winner value
        none of those, or one that is also the name of a model of its vote; a model against itself, a style
        column with a missing value, a ``ties`` or ``bothbad`` not one of the choices; every vote dropped by
        ``bothbad="ignore"``.
    TypeError
        An option in ``**options`` that the reader does not take.
    """
    log, _ = read_votes(source, model_a=model_a, model_b=model_b, winner=winner, time=time, style=style,
                        bothbad=bothbad, invalid=invalid, **options)
    return apply_ties(log, ties)


def frame_of(source: Any) -> Any:
    """The votes of a frame (as it is) or of a CSV, Parquet or JSON file (read whole); a file that cannot be
    read is a ValueError naming it."""
    import pandas as pd

    from discrank.data._frame_files import read_csv_frame, read_parquet_frame

    if isinstance(source, pd.DataFrame):
        return source
    fmt = _format(source)
    path = os.fspath(source)
    if fmt == "jsonl":
        frame = _json_frame(pd, path)
    elif fmt == "csv":
        frame = read_csv_frame(pd, source, {}, "raise", keep_hint=None)
    else:
        frame = read_parquet_frame(pd, source, {}, ())
    if len(frame) == 0:
        raise ValueError(f"{path!r}: no votes: the file has the columns {list(frame.columns)[:12]} but no row"
                         if len(frame.columns) else f"{path!r}: no votes: the file is empty")
    return frame


def _json_frame(pd: Any, path: str) -> Any:
    """The votes of a JSON file: one vote (an object) per line, or (a ``.json`` file) an array of votes; a
    file that is truncated, corrupt, empty or neither is a ValueError naming it."""
    import json

    from discrank.data._frame_files import read_errors_named

    def read(how: Any) -> Any:
        try:
            with read_errors_named(repr(path)), _open_json(path) as handle:
                return how(handle)
        except EOFError as err:  # a compressed file cut short
            raise ValueError(f"{path!r}: the compressed file is truncated or corrupt ({err})") from None

    def first_char(handle: Any) -> str:
        while True:
            block = handle.read(1 << 16)
            if not block:
                return ""
            if block.strip():
                return block.lstrip()[0]

    first = read(first_char)
    if first == "":
        raise ValueError(f"{path!r}: no votes: the file is empty")
    if first == "[":
        if not strip_compression(path, tuple(COMPRESSIONS))[0].endswith(".json"):
            raise ValueError(f"{path!r}: a JSON array, not JSON lines (one vote, an object, per line); an array of "
                             "votes is read from a .json file")
        try:
            records = read(json.load)
        except json.JSONDecodeError as err:
            raise ValueError(f"{path!r}: not a JSON array of votes ({err})") from None
        if not records:  # (a list: the text begins with "[")
            raise ValueError(f"{path!r}: no votes: the file holds an empty JSON array")
        bad = next((k for k, r in enumerate(records) if not isinstance(r, dict)), None)
        if bad is not None:
            raise ValueError(f"{path!r}: element {bad} of the JSON array is a JSON {type(records[bad]).__name__}, "
                             f"not a vote (an object): {show(records[bad])}")
        return pd.DataFrame.from_records(records)
    try:
        return read(lambda handle: pd.read_json(handle, lines=True))
    except ValueError as err:
        if f"{path!r}" in str(err):
            raise
        raise ValueError(_bad_json_line(path, err)) from err


def _open_json(path: str, errors: str = "strict") -> Any:
    """A JSON file as text, decompressed by its suffix (:func:`discrank.data.formats.open_text`; a ``.zip`` holds
    one file, as pandas reads it)."""
    if not path.lower().endswith(".zip"):
        return open_text(path, errors=errors)
    import io
    import zipfile

    try:
        with zipfile.ZipFile(path) as archive:
            members = [m for m in archive.namelist() if not m.endswith("/")]
            if len(members) != 1:
                raise ValueError(f"{path!r}: a zip archive of votes holds one file, not {len(members)} "
                                 f"({members[:5]})")
            data = archive.read(members[0])
    except zipfile.BadZipFile as err:
        raise ValueError(f"{path!r}: not a zip archive, or a truncated one ({err})") from None
    return io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors=errors)


def _bad_json_line(path: Any, err: Exception) -> str:
    """The message of a JSON-lines file pandas could not read: its first line that is no JSON object
    (:func:`discrank.data._scan_files.bad_json_line`)."""
    from discrank.data._scan_files import bad_json_line

    with _open_json(os.fspath(path), errors="replace") as handle:
        lines = handle.readlines()
    bad = bad_json_line(lines)
    if bad is None:
        return f"{os.fspath(path)!r}: not a JSON-lines file pandas reads ({err})"
    k, _, reason = bad
    cut = "" if lines[k].endswith("\n") else "; the file's last line, with no newline: a truncated file?"
    return f"{os.fspath(path)!r}, line {k + 1}: not a JSON object ({reason}{cut}): {lines[k].strip()[:60]!r}"


#: The options of :func:`read_arena` passed on to :meth:`discrank.GameLog.from_frame`.
READ_OPTIONS = ("start", "end", "min_player_games", "max_invalid")


def check_read_options(options: dict) -> None:
    """Refuse an option the votes' readers do not take (a TypeError naming it), rather than let it pass unused."""
    unknown = sorted(set(options) - set(READ_OPTIONS))
    if unknown:
        raise TypeError(f"the votes' reader takes no option {unknown[0]!r} (it takes model_a, model_b, winner, time, "
                        f"style, bothbad, invalid, {', '.join(READ_OPTIONS)})")


def read_votes(source: Any, *, model_a: str = "model_a", model_b: str = "model_b", winner: str = "winner",
               time: Optional[str] = None, style: Any = None, bothbad: str = "tie", invalid: str = "raise",
               extra: Optional[str] = None, **options: Any) -> tuple[Any, Optional[np.ndarray]]:
    """:func:`read_arena`'s log before its ties policy, and the values of the column ``extra`` (a category)
    of the votes it kept (None without ``extra``)."""
    from discrank.data.logs import GameLog

    check_bothbad(bothbad, winner)
    check_read_options(options)
    frame = frame_of(source)
    for col in (model_a, model_b, winner) + tuple(c for c in (time, extra) if c is not None):
        if col not in frame.columns:
            raise ValueError(f"no column {col!r} in the votes (columns: {list(frame.columns)[:12]})")
    check_winner_sides(frame, model_a, model_b, winner)
    z, names = style_features(frame, style) if style is not None else (np.zeros((len(frame), 0)), ())
    row = np.arange(len(frame), dtype=np.float64)
    cols = {f"__style{j}": z[:, j] for j in range(z.shape[1])}
    work = frame[[c for c in (model_a, model_b, winner, time) if c is not None]].assign(**cols, __row=row)
    log = GameLog.from_frame(work, a=model_a, b=model_b, winner=winner, time=time,
                             advantage=list(cols) + ["__row"], invalid=invalid, **options)
    kept = log.advantage[:, -1].astype(np.int64)
    if bothbad == "ignore":  # dropped after the read, so that the read's messages number the file's rows
        keep = ~both_bad(frame, winner)[kept]
        if not keep.any():
            raise ValueError(f"bothbad='ignore': every one of the {len(log)} votes is a tie in which both answers "
                             "were bad, so no vote is left")
        log, kept = log._take(keep, log.dropped), kept[keep]
    log.advantage = np.ascontiguousarray(log.advantage[:, :-1]) if names else None
    log.advantage_names = tuple(names)
    values = None if extra is None else frame[extra].to_numpy()[kept]
    return log, values


def fast_votes(frame: Any, model_a: str, model_b: str, winner: str) -> Optional[tuple]:
    """The votes of a well-formed arena frame, coded without building a GameLog: ``(labels, code of a, code
    of b, score)`` with the labels sorted as :func:`discrank._util.labels.factorize_pair` sorts them, and the
    winner one of "model_a", "model_b" or a draw marker. None for anything else (a number label, a missing
    name, a model against itself, another winner value, a model named like a winner value): the readers then
    take the frame and name what is wrong."""
    import pandas as pd

    from discrank._util.labels import sort_codes
    from discrank.data._rows import DRAW_MARKERS

    cols = [frame[model_a], frame[model_b]]
    if any(not (pd.api.types.is_string_dtype(c) or c.dtype == object) for c in cols) or len(frame) == 0:
        return None
    codes, found = pd.factorize(pd.concat(cols, ignore_index=True), sort=False)
    if (codes < 0).any() or any(not isinstance(v, str) or not v.strip() for v in found):
        return None
    found, codes = sort_codes([str(v) for v in found], codes, np.int32)  # int32: the codes the board takes
    n = len(frame)
    ca, cb = codes[:n], codes[n:]
    wcodes, wfound = pd.factorize(frame[winner], sort=False)
    value = {v: 0.5 for v in DRAW_MARKERS}
    value.update({model_a: 1.0, model_b: 0.0})
    if (wcodes < 0).any() or (ca == cb).any() or any(not isinstance(v, str) or v.strip() not in value for v in wfound) \
            or any(winner_keyword(v, (model_a, model_b)) is not None for v in found):
        return None
    score = np.array([value[v.strip()] for v in wfound])[wcodes]
    return np.array(found, dtype=object), ca, cb, score
