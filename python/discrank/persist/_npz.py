"""The ``.npz`` archive of a model file (:mod:`discrank.persist.model_file`): its members' npy headers read and
checked against their sizes before any array is allocated (:func:`open_archive`), and the players'
labels stored without pickle, of the kind they were fitted with (:func:`labels_to_save`,
:func:`read_labels`)."""

from __future__ import annotations

import math
import os
import zipfile
import zlib
from typing import Any, Callable, NoReturn, Optional

import numpy as np

from discrank._util.labels import show

__all__ = ["MAX_COMPRESSION_RATIO", "MAX_MEMBERS", "LABEL_KINDS", "Refused", "Archive", "open_archive",
           "labels_to_save", "read_labels", "label_arrays", "label_count", "check_values"]

#: The largest uncompressed size of a model file's members over the file's size, when they add up to more
#: than ``_RATIO_FLOOR`` bytes (the whole file, not each member: a dynamic model's games compress far more
#: than its ratings).
MAX_COMPRESSION_RATIO = 200
_RATIO_FLOOR = 16 << 20

#: The most members a model file has (a DynamicElo with every feature holds about 30 arrays).
MAX_MEMBERS = 40

#: The kinds of labels a file holds, by numpy dtype kind (the header's ``"labels"``; ``"utf8"`` besides).
LABEL_KINDS = {"U": "str", "S": "bytes", "i": "int", "u": "uint", "f": "float"}


class Refused(ValueError):
    """A check of a model file failed (:func:`discrank.persist.model_file.load`; the message is complete: the file,
    the field, the value)."""


class Archive:
    """The members of an ``.npz`` file: their npy headers read and checked against the members' sizes
    on opening; an array read (and allocated) only when asked for."""

    def __init__(self, zf: zipfile.ZipFile, infos: dict, headers: dict, where: str):
        self.zf, self.infos, self.headers, self.where = zf, infos, headers, where

    def __enter__(self) -> "Archive":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.zf.close()

    def read(self, key: str) -> np.ndarray:
        try:
            with self.zf.open(self.infos[key]) as fp:
                return np.lib.format.read_array(fp, allow_pickle=False)
        except (zipfile.BadZipFile, OSError, EOFError, ValueError, zlib.error, RuntimeError,
                NotImplementedError) as exc:
            raise Refused(f"{self.where}: the array {key} cannot be read ({type(exc).__name__}: {exc})") from None


def open_archive(path: Any, where: str) -> Archive:
    """Open the zip and check every member's npy header (shape, dtype) against the member's declared
    size, and that size against its compressed size, before any array is read.

    Parameters
    ----------
    path : str or path-like
        The model file.
    where : str
        The file as the messages name it.

    Returns
    -------
    Archive
        The open archive (a context manager), its members' headers checked.

    Raises
    ------
    Refused
        A file that is not a readable zip of npy members, or a zip bomb (the message names the file).
    FileNotFoundError
        A missing file.
    """

    def refuse(message: str) -> NoReturn:
        raise Refused(f"{where}: {message}")

    try:
        on_disk = os.path.getsize(path)
        zf = zipfile.ZipFile(path)
    except FileNotFoundError:
        raise
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, ValueError, NotImplementedError) as exc:
        refuse(f"not a readable discrank model file (not an .npz archive: {type(exc).__name__}: {exc})")
    try:
        infos: dict = {}
        headers: dict = {}
        members = zf.infolist()
        if len(members) > MAX_MEMBERS:
            refuse(f"not a discrank model file: {len(members)} members, a model has at most {MAX_MEMBERS}")
        for info in members:
            if not info.filename.endswith(".npy"):
                refuse(f"not a discrank model file: the member {show(info.filename)} is not an .npy array")
            key = info.filename[:-4]
            if key in infos:
                refuse(f"the member {show(info.filename)} appears twice")
            if info.compress_size > on_disk:
                refuse(f"the member {show(info.filename)} claims {info.compress_size} compressed bytes, more than the "
                       f"file's {on_disk}: the file is truncated or corrupted")
            try:
                with zf.open(info) as fp:
                    version = np.lib.format.read_magic(fp)
                    if version == (1, 0):
                        shape, fortran, dtype = np.lib.format.read_array_header_1_0(fp)
                    elif version == (2, 0):
                        shape, fortran, dtype = np.lib.format.read_array_header_2_0(fp)
                    else:
                        refuse(f"the array {key} has npy format {version}, expected 1.0 or 2.0")
                    offset = fp.tell()
            except Refused:
                raise
            except (zipfile.BadZipFile, OSError, EOFError, ValueError, zlib.error, RuntimeError,
                    NotImplementedError, SyntaxError, TypeError) as exc:
                refuse(f"the array {key} has no readable npy header ({type(exc).__name__}: {exc})")
            if dtype.hasobject or dtype.kind not in "biufcUS" or dtype.names is not None or dtype.subdtype is not None:
                refuse(f"the array {key} has dtype {show(str(dtype))}, not one a model holds")
            declared = math.prod(shape) * dtype.itemsize
            if offset + declared != info.file_size:
                refuse(f"the array {key} declares shape {shape} of {dtype} ({declared} bytes), but its member holds "
                       f"{info.file_size - offset} bytes of data")
            infos[key], headers[key] = info, (tuple(shape), dtype)
        total = sum(info.file_size for info in members)
        if total > _RATIO_FLOOR and total > MAX_COMPRESSION_RATIO * max(on_disk, 1):
            big = max(members, key=lambda info: info.file_size)
            refuse(f"the file's {on_disk} bytes would decompress to {total} (the member {show(big.filename)} to "
                   f"{big.file_size}), a ratio above {MAX_COMPRESSION_RATIO}:1 that no model file has (a zip bomb?); "
                   "refused before decompressing it")
        return Archive(zf, infos, headers, where)
    except BaseException:
        zf.close()
        raise


def labels_to_save(labels: np.ndarray) -> tuple[str, dict[str, np.ndarray]]:
    """The label kind and the arrays that store the labels without pickle, of the kind they were fitted
    with (str, bytes, int, uint, float); an object array of one kind becomes that kind's array. Strings
    whose fixed-width ``<U`` array would be mostly padding (one long name among short ones) are stored
    as their UTF-8 bytes and where each ends (kind ``"utf8"``), so that the file and the memory grow
    with the total length of the labels.

    Parameters
    ----------
    labels : ndarray
        The players' labels (1-D).

    Returns
    -------
    tuple
        The kind (a value of :data:`LABEL_KINDS`, or ``"utf8"``) and the arrays by name.

    Raises
    ------
    TypeError
        Labels that cannot be stored without pickle (mixed kinds, integers beyond 64 bits, a bytes label
        ending with NUL).
    """
    if labels.ndim != 1:
        raise TypeError(f"labels_ must be 1-D to be saved, got shape {labels.shape}")
    if labels.dtype.kind == "U":
        labels = labels.astype(object)
    if labels.dtype.kind == "O":
        values = labels.tolist()
        kinds = {type(v) for v in values}
        if kinds <= {str}:
            lengths = [len(v) for v in values]
            longest = max(lengths, default=0)
            if len(values) * longest > 4 * sum(lengths) + 4096:
                encoded = [v.encode("utf-8", "surrogatepass") for v in values]
                blob = np.frombuffer(b"".join(encoded), dtype=np.uint8)
                ends = np.cumsum([len(e) for e in encoded], dtype=np.int64)
                return "utf8", {"labels_": blob, "labels_ends_": ends}
            out = np.array(values, dtype=f"<U{max(longest, 1)}")
        elif kinds <= {bytes}:
            out = np.array(values, dtype=bytes)
        elif all(issubclass(k, (int, np.integer)) and not issubclass(k, (bool, np.bool_)) for k in kinds):
            ints = [int(v) for v in values]
            if all(-(1 << 63) <= v < (1 << 63) for v in ints):
                out = np.array(ints, dtype=np.int64)
            elif all(0 <= v < (1 << 64) for v in ints):
                out = np.array(ints, dtype=np.uint64)
            else:
                raise TypeError(f"integer labels beyond 64 bits (such as {show(max(ints, key=abs))}) cannot be saved")
        elif all(issubclass(k, (float, np.floating)) for k in kinds):
            out = np.array(values, dtype=np.float64)
        else:
            raise TypeError(f"labels of types {sorted(k.__name__ for k in kinds)} cannot be saved; use labels of "
                            "one kind: str, bytes, int or float")
        if out.dtype.kind in "US" and out.tolist() != values:  # numpy's fixed-width strings drop trailing NULs
            bad = next(v for v, w in zip(values, out.tolist()) if v != w)
            if out.dtype.kind == "S":
                raise TypeError(f"the label {show(bad)} ends with a NUL byte, which an .npz file cannot keep")
            encoded = [v.encode("utf-8", "surrogatepass") for v in values]
            return "utf8", {"labels_": np.frombuffer(b"".join(encoded), dtype=np.uint8),
                            "labels_ends_": np.cumsum([len(e) for e in encoded], dtype=np.int64)}
        labels = out
    if labels.dtype.kind not in LABEL_KINDS:
        raise TypeError(f"labels of dtype {labels.dtype} cannot be saved; use str, bytes, int or float labels")
    return LABEL_KINDS[labels.dtype.kind], {"labels_": labels.astype(labels.dtype.newbyteorder("="), copy=False)}


def read_labels(labels: np.ndarray, ends: Optional[np.ndarray], refuse: Callable[[str], NoReturn],
                name: str = "labels_") -> np.ndarray:
    """The labels as a fit gives them: an object array of str for text, numbers in their dtype; checked
    (no NaN, no label twice).

    Parameters
    ----------
    labels : ndarray
        The file's ``labels_``.
    ends : ndarray or None
        The file's ``labels_ends_`` (labels of kind ``"utf8"``), else None.
    refuse : callable
        Raises the file's refusal with a message.
    name : str
        The labels' array in the file (``labels_``, the players'; or a label set such as ``context_labels_``).

    Returns
    -------
    ndarray
        The labels.
    """
    from discrank._util.labels import text_array

    ends_name = label_arrays(name, "utf8")[1]
    if ends is not None:  # "utf8": the labels' UTF-8 bytes, and where each ends
        starts = np.concatenate([[0], ends[:-1]])
        if ends[-1] != labels.shape[0] or (ends < starts).any() or starts[0] < 0:
            refuse(f"{ends_name} does not cut the {labels.shape[0]} bytes of {name} into labels (it must increase "
                   f"from 0 to {labels.shape[0]}; it ends at {show(ends[-1])})")
        blob = labels.tobytes()
        try:
            values = [blob[i:j].decode("utf-8", "surrogatepass") for i, j in zip(starts.tolist(), ends.tolist())]
        except UnicodeDecodeError as exc:
            refuse(f"{name} is not UTF-8 text ({exc.reason} at byte {exc.start})")
        labels = text_array(values)
    elif labels.dtype.kind == "U":
        labels = text_array(labels.tolist())
    else:
        labels = labels.astype(labels.dtype.newbyteorder("="), copy=False)
    _check_labels(labels, refuse, name)
    return labels


def _check_labels(labels: np.ndarray, refuse: Callable[[str], NoReturn], name: str) -> None:
    if labels.dtype.kind == "f":
        bad = ~np.isfinite(labels)
        if bad.any():
            k = int(np.flatnonzero(bad)[0])
            refuse(f"{name}[{k}] = {show(labels[k])} is not a label (NaN or infinite)")
    ordered = np.sort(labels, kind="stable")
    dup = ordered[1:] == ordered[:-1]
    if dup.any():
        refuse(f"{name} repeats the label {show(ordered[1:][dup][0])}: labels must be unique")


def label_arrays(name: str, kind: Optional[str]) -> tuple[str, ...]:
    """The file's arrays of the labels ``name`` of the kind ``kind``.

    Parameters
    ----------
    name : str
        The labels' array (``labels_``, or a label set such as ``context_labels_``).
    kind : str or None
        Their kind (a value of :data:`LABEL_KINDS`, ``"utf8"``, or None).

    Returns
    -------
    tuple of str
        The labels' array, and for ``"utf8"`` where each label ends (``labels_ends_``, ``context_labels_ends_``).
    """
    return (name, name[:-1] + "_ends_") if kind == "utf8" else (name,)


def label_count(name: str, kind: Optional[str], headers: dict, refuse: Callable[[str], NoReturn],
                what: str = "players") -> int:
    """The number of labels the arrays of ``name`` hold, of the kind ``kind`` (None: no kind in the header,
    ``<U`` or integers), from their npy headers (checked: 1-D, at least one label, the dtype of
    the kind) before they are read.

    Parameters
    ----------
    name : str
        The labels' array (``labels_``, or a label set's).
    kind : str or None
        The kind the header gives them (a value of :data:`LABEL_KINDS`, or ``"utf8"``).
    headers : dict
        The archive's ``(shape, dtype)`` by array (:attr:`Archive.headers`), holding the labels' arrays (the
        caller refuses a file without them, naming the model).
    refuse : callable
        Raises the file's refusal with a message.
    what : str
        What the labels are, for the messages.

    Returns
    -------
    int
        The labels' count.
    """
    arrays = label_arrays(name, kind)
    shape, dtype = headers[name]
    if kind == "utf8":
        ends_shape, ends_dtype = headers[arrays[1]]
        if len(shape) != 1 or dtype != np.uint8:
            refuse(f"{name} has shape {shape} and dtype {dtype}, expected the UTF-8 bytes of the labels (uint8)")
        if len(ends_shape) != 1 or ends_shape[0] < 1 or ends_dtype.kind != "i":
            refuse(f"{arrays[1]} has shape {ends_shape} and dtype {ends_dtype}, expected (n_{what},) integers")
        return int(ends_shape[0])
    kinds = "iuU" if kind is None else next(k for k, v in LABEL_KINDS.items() if v == kind)
    if len(shape) != 1 or shape[0] < 1:
        refuse(f"{name} has shape {shape}, expected (n_{what},) with at least one label")
    if dtype.kind not in kinds:
        said = "" if kind is None else f" (the header says {kind!r} labels)"
        refuse(f"{name} has dtype {dtype}, expected {'/'.join(LABEL_KINDS[k] for k in kinds)} labels{said}")
    return int(shape[0])


def check_values(spec: Any, value: np.ndarray, refuse: Callable[[str], NoReturn]) -> None:
    """Check a fitted array's values as its :class:`discrank.persist.model_file.FittedArray` declares (``spec``):
    integers within int64 and counts >= 0; floats finite, non-negative where declared, and within the bound.

    Parameters
    ----------
    spec : discrank.persist.model_file.FittedArray
        The array's declaration.
    value : ndarray
        Its values in the file.
    refuse : callable
        Raises the file's refusal with a message.
    """
    key = spec.name
    if spec.kind == "i":
        if value.dtype.kind == "u" and value.size and value.max() > np.iinfo(np.int64).max:
            refuse(f"{key} holds {show(value.max())}, beyond the int64 codes a model holds")
        if spec.nonnegative is not None and value.size and value.min() < 0:
            refuse(f"{key} holds {show(value.min())}, a negative {spec.nonnegative}")
        return
    finite = np.isfinite(value)
    if not finite.all():
        pos = np.unravel_index(int(np.flatnonzero(~finite.ravel())[0]), value.shape)
        refuse(f"{key}[{', '.join(map(str, pos))}] = {show(value[pos])} is not finite")
    if spec.nonnegative is not None and value.size and value.min() < 0:
        refuse(f"{key} holds {show(value.min())}, a negative {spec.nonnegative}")
    if spec.bound is None:
        return
    big = np.abs(value) > spec.bound
    if big.any():
        pos = np.unravel_index(int(np.flatnonzero(big.ravel())[0]), value.shape)
        refuse(f"{key}[{', '.join(map(str, pos))}] = {show(value[pos])} is {spec.bound_text}")
