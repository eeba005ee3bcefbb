"""Player labels: the user's names in and out, indices inside."""

from __future__ import annotations

import warnings
from typing import Any, Optional

import numpy as np

from discrank._util.checks import show

__all__ = ["LabelIndex", "as_label_array", "as_query", "canonical_labels", "check_same_kind", "extend_labels",
           "factorize_objects", "factorize_pair", "object_numbers", "show", "text_array"]


def _describe(values: np.ndarray, limit: int = 5) -> str:
    shown = ", ".join(show(v) for v in values[:limit])
    return shown + (f", ... ({len(values)} in all)" if len(values) > limit else "")


_INT64_MIN, _INT64_MAX, _UINT64_MAX = -(2**63), 2**63 - 1, 2**64 - 1
#: Integers of at most this size are held exactly by float64.
_FLOAT_EXACT = 2**53

_KIND_NAMES = {"number": "numbers", "text": "strings", "bytes": "bytes", "bool": "bools"}


def _kind_of(v: Any) -> str:
    """The kind of one label: "number", "text", "bytes", "bool", "missing" or the name of its type."""
    if v is None or type(v).__name__ in ("NAType", "NaTType"):  # pandas' missing values
        return "missing"
    if isinstance(v, (bool, np.bool_)):
        return "bool"
    if isinstance(v, (int, np.integer)):
        return "number"
    if isinstance(v, (float, np.floating)):
        return "missing" if not np.isfinite(v) else "number"
    if isinstance(v, str):
        return "text"
    if isinstance(v, (bytes, np.bytes_)):
        return "bytes"
    return type(v).__name__


def _array_kind(arr: np.ndarray) -> Optional[str]:
    """The kind of the labels of a checked array (:func:`as_label_array`); None when it is empty."""
    if arr.shape[0] == 0:
        return None
    k = arr.dtype.kind
    if k in "iuf":
        return "number"
    if k == "U":
        return "text"
    if k == "S":
        return "bytes"
    if k == "b":
        return "bool"
    return _kind_of(arr[0])


def _kind_text(kind: str) -> str:
    return _KIND_NAMES.get(kind, f"objects of type {kind}")


def text_array(values: Any) -> np.ndarray:
    """A 1-D object array of the given strings (memory grows with their total length, unlike ``<U`` arrays)."""
    values = list(values)
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


def as_label_array(values: Any, name: str) -> np.ndarray:
    """Return ``values`` as a 1-D array of labels of one kind (numbers or strings), checked.

    A list (or an object array) becomes an object array of its strings, or an exact numeric array: int64,
    uint64 when none is negative and some exceed 2^63 - 1, float64 for floats (mixed with integers: integers
    when every float is integral, else float64 when every integer is exact in it). Other arrays are kept as
    they are, other sequences as ``np.asarray`` gives them.

    Raises ``ValueError`` for missing labels (None, NaN, inf), labels of mixed kinds (each kind and its first
    position named), or integers that no one integer type holds; ``TypeError`` for bool, bytes or other labels.
    """
    if isinstance(values, np.ndarray):
        arr = values
    elif isinstance(values, (list, tuple)):
        # A list is checked element by element before numpy would turn ["x", 1] into ["x", "1"], or
        # [-1, 2**63] into floats.
        arr = np.asarray(values, dtype=object)
    else:
        arr = np.asarray(values)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {arr.shape}")
    kind = arr.dtype.kind
    if kind == "O":
        arr = _from_objects(arr, name)
        kind = arr.dtype.kind
    if kind == "f":
        bad = ~np.isfinite(arr)
        if bad.any():
            k = int(np.flatnonzero(bad)[0])
            raise ValueError(f"{name} contains a non-finite label {show(arr[k])} at position {k}; "
                             "every label must be a finite number or a string")
    elif kind == "b":
        raise TypeError(f"{name} holds bools{_first(arr)}; labels must be numbers or strings")
    elif kind == "S":
        raise TypeError(f"{name} holds bytes labels{_first(arr)}; labels must be numbers or str: decode them "
                        "first, e.g. np.char.decode(values, 'utf-8')")
    elif kind not in "iufUO":
        raise TypeError(f"{name} must hold numbers or strings, got dtype {arr.dtype}")
    return arr


def _first(arr: np.ndarray) -> str:
    return f" ({show(arr[0])} at position 0)" if arr.size else ""


def _from_objects(arr: np.ndarray, name: str) -> np.ndarray:
    """An object array (from a list, or given) checked: one kind of label, none missing. Strings stay an
    object array; numbers become an exact numeric array."""
    if arr.size == 0:
        return np.zeros(0, dtype=np.int64)
    types = set(map(type, arr))
    if types <= {str}:
        return arr
    if types <= {int}:  # the common cases, without a loop in Python
        return _exact_ints(arr.tolist(), None, name)
    if types <= {float}:
        out = np.array(arr.tolist(), dtype=np.float64)
        bad = ~np.isfinite(out)
        if bad.any():
            k = int(np.flatnonzero(bad)[0])
            what = "a non-finite" if np.isinf(out[k]) else "a missing"
            raise ValueError(f"{name} contains {what} label {show(out[k])} at position {k}; every label must be a "
                             "finite number or a string")
        return out
    kinds: dict[str, int] = {}
    for pos, v in enumerate(arr):
        kind = _kind_of(v)
        if kind == "missing":
            what = "a non-finite" if isinstance(v, (float, np.floating)) and np.isinf(v) else "a missing"
            raise ValueError(f"{name} contains {what} label {show(v)} at position {pos}; every label must be a "
                             "finite number or a string")
        kinds.setdefault(kind, pos)
    if len(kinds) > 1:
        described = ", ".join(f"{_kind_text(k)} (first {show(arr[p])} at position {p})" for k, p in kinds.items())
        raise ValueError(f"{name} mixes label types: {described}; use labels of one type")
    (kind, _), = kinds.items()
    if kind == "text":
        return arr if types <= {str} else text_array(str(v) for v in arr)
    if kind == "bytes":
        raise TypeError(f"{name} holds bytes labels ({show(arr[0])} at position 0); labels must be numbers or "
                        "str: decode them first, e.g. [v.decode('utf-8') for v in values]")
    if kind == "bool":
        raise TypeError(f"{name} holds bools ({show(arr[0])} at position 0); labels must be numbers or strings")
    if kind != "number":
        raise TypeError(f"{name} holds labels of type {kind} ({show(arr[0])} at position 0); labels must be "
                        "numbers or strings")
    is_int = np.fromiter((isinstance(v, (int, np.integer)) for v in arr), dtype=bool, count=arr.shape[0])
    ints = _exact_ints([int(v) for v in arr[is_int]], np.flatnonzero(is_int), name)
    if is_int.all():
        return ints
    floats = np.array(arr[~is_int].tolist(), dtype=np.float64)
    target = _common_number_dtype([(name, ints, np.flatnonzero(is_int)), (name, floats, np.flatnonzero(~is_int))])
    out = np.empty(arr.shape[0], dtype=target)
    out[is_int] = ints.astype(target)
    out[~is_int] = floats.astype(target)
    return out


def _exact_ints(values: list, positions: Optional[np.ndarray], name: str) -> np.ndarray:
    """Python ints as int64, or uint64 when none is negative and some exceed int64; a ``ValueError`` when no
    integer type holds them all. ``positions``: where each value is in the input (None: in order)."""
    if not values:
        return np.zeros(0, dtype=np.int64)
    lo, hi = min(values), max(values)
    if lo >= _INT64_MIN and hi <= _INT64_MAX:
        return np.array(values, dtype=np.int64)
    if lo >= 0 and hi <= _UINT64_MAX:
        return np.array(values, dtype=np.uint64)
    bad = hi if hi > _UINT64_MAX or lo >= _INT64_MIN else lo
    k = values.index(bad) if positions is None else int(positions[values.index(bad)])
    if lo < 0 and hi > _INT64_MAX and lo >= _INT64_MIN and hi <= _UINT64_MAX:
        k_lo = values.index(lo) if positions is None else int(positions[values.index(lo)])
        raise ValueError(f"{name} mixes the negative integer label {lo} (position {k_lo}) with {show(hi)} "
                         f"(position {k}), above 2^63 - 1: no integer type holds both (int64 holds -2^63 .. 2^63 - 1, uint64 holds "
                         "0 .. 2^64 - 1)")
    raise ValueError(f"{name} holds the integer label {show(bad)} at position {k}, outside the integer labels allowed: "
                     "-2^63 .. 2^63 - 1 (int64), or 0 .. 2^64 - 1 (uint64) when none is negative")


def _common_number_dtype(parts: list) -> np.dtype:
    """The dtype that holds every numeric label of ``parts`` (``(name, array, positions or None)``) exactly:
    int64, uint64 or float64."""
    ints = [(nm, x, pos) for nm, x, pos in parts if x.dtype.kind in "iu" and x.size]
    floats = [(nm, x, pos) for nm, x, pos in parts if x.dtype.kind == "f" and x.size]

    def where(nm: str, pos: Optional[np.ndarray], k: int) -> str:
        return f"{nm}[{int(pos[k]) if pos is not None else k}]"

    def int_range(groups: list) -> np.dtype:
        lo = hi = None
        for nm, x, pos in groups:
            k_lo, k_hi = int(np.argmin(x)), int(np.argmax(x))
            v_lo, v_hi = int(x[k_lo]), int(x[k_hi])
            if lo is None or v_lo < lo[0]:
                lo = (v_lo, where(nm, pos, k_lo))
            if hi is None or v_hi > hi[0]:
                hi = (v_hi, where(nm, pos, k_hi))
        if lo is None or (lo[0] >= _INT64_MIN and hi[0] <= _INT64_MAX):
            return np.dtype(np.int64)
        if lo[0] >= 0 and hi[0] <= _UINT64_MAX:
            return np.dtype(np.uint64)
        raise ValueError(f"the integer labels {lo[1]} = {lo[0]} and {hi[1]} = {hi[0]} have no common integer type "
                         "(int64 holds -2^63 .. 2^63 - 1; uint64 holds 0 .. 2^64 - 1, for labels none of which is "
                         "negative)")

    if not floats:
        return int_range(ints)
    if not ints:
        return np.dtype(np.float64)
    def as_int(x: np.ndarray) -> np.ndarray:
        return (x == np.floor(x)) & (x >= -(2.0**63)) & (x < 2.0**64)

    if all(np.all(as_int(x)) for _, x, _ in floats):  # integer ids that came as floats (say a column with missing entries): integers again
        return int_range(ints + floats)  # int() of an integral float is exact
    for nm, x, pos in ints:
        big = (x > _FLOAT_EXACT) if x.dtype.kind == "u" else ((x > _FLOAT_EXACT) | (x < -_FLOAT_EXACT))
        if big.any():
            k = int(np.flatnonzero(big)[0])
            fnm, fx, fpos = next(f for f in floats if not np.all(as_int(f[1])))
            j = int(np.flatnonzero(~as_int(fx))[0])
            raise ValueError(
                f"{where(nm, pos, k)} = {show(x[k])} is an integer label that float64 cannot hold exactly, and "
                f"{where(fnm, fpos, j)} = {show(fx[j])} is not an integer of int64 or uint64: integer labels are "
                "kept exact, so they cannot be mixed with such floats; use labels of one type"
            )
    return np.dtype(np.float64)


def canonical_labels(labels: np.ndarray) -> np.ndarray:
    """Checked labels in the one dtype of their kind: int64 (or uint64), float64, or an object array of str."""
    kind = labels.dtype.kind
    if kind in "iu":
        target = _common_number_dtype([("labels", labels, None)])
        return labels.astype(target, copy=False)
    if kind == "f":
        return labels.astype(np.float64, copy=False)
    if kind == "U":
        return text_array(labels.tolist())
    return labels


def check_same_kind(*named: tuple) -> None:
    """A ``ValueError`` naming each kind with its first label when the checked label arrays ``(name, array)``
    hold labels of different kinds."""
    seen: dict[str, tuple] = {}
    for name, arr in named:
        kind = _array_kind(arr)
        if kind is not None:
            seen.setdefault(kind, (name, arr))
    if len(seen) > 1:
        described = " and ".join(f"{nm} holds {_kind_text(k)} (first {show(arr[0])} at position 0)"
                                 for k, (nm, arr) in seen.items())
        raise ValueError(f"{described}: labels of one type are needed (strings are never equal to numbers)")


def _check_blank(uniq: list) -> Optional[int]:
    """Index in ``uniq`` of the first empty or blank string, or None."""
    for k, v in enumerate(uniq):
        if not v or v.isspace():
            return k
    return None


def _blank_error(name: str, value: str, pos: int) -> ValueError:
    return ValueError(f"{name} has an empty or blank player name {show(value)} at position {pos}; every label must "
                      "name a player (an empty or blank string is a missing name)")


def factorize_objects(values: np.ndarray) -> tuple[np.ndarray, list]:
    """Codes and distinct values (in order of first appearance) of an object array, by hashing.

    Parameters
    ----------
    values : ndarray of object
        The values (hashable).

    Returns
    -------
    codes : ndarray of int64
        The code of each value, -1 for None and NaN.
    uniques : list
        The distinct values other than None and NaN, by code.
    """
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - pandas is in the test extra
        table: dict = {}
        codes = np.empty(values.shape[0], dtype=np.int64)
        for k, v in enumerate(values.tolist()):
            codes[k] = -1 if v is None or (isinstance(v, float) and v != v) else table.setdefault(v, len(table))
        return codes, list(table)
    codes, uniques = pd.factorize(values)
    return np.asarray(codes, dtype=np.int64), list(np.asarray(uniques, dtype=object))


def object_numbers(values: np.ndarray, words: Optional[dict] = None,
                   bools: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """An object column read as numbers, each distinct value once (:func:`factorize_objects`).

    Parameters
    ----------
    values : ndarray
        The column (any dtype; read as objects).
    words : dict of str to float, optional
        Text read as a number by its stripped value (PGN results: "1-0" is 1), before text that reads as
        a number ("0.5").
    bools : bool, optional
        Read bools as 0 / 1; otherwise a bool is no number.

    Returns
    -------
    numbers : ndarray of float64
        Each row's number; NaN where it has none (missing, or a value that is no number).
    missing : ndarray of bool
        The rows whose value is missing: None, NaN, NA, or empty or blank text.
    """
    codes, uniques = factorize_objects(np.asarray(values, dtype=object))
    parsed = np.full(len(uniques) + 1, np.nan)  # the last slot: missing (code -1)
    blank = np.zeros(len(uniques) + 1, dtype=bool)
    blank[-1] = True
    for u, v in enumerate(uniques):
        if isinstance(v, str):
            key = v.strip()
            if not key:
                blank[u] = True
            elif words is not None and key in words:
                parsed[u] = words[key]
            else:
                try:
                    parsed[u] = float(key)
                except ValueError:
                    pass
        elif isinstance(v, (int, float, np.integer, np.floating, np.bool_)) and \
                (bools or not isinstance(v, (bool, np.bool_))):
            parsed[u] = float(v)
    return parsed[codes], blank[codes]


def sort_codes(found: list, codes: np.ndarray, dtype: Any = np.int64) -> tuple[list, np.ndarray]:
    """Codes into ``found`` (labels in first-seen order) turned into codes into the sorted labels: the
    sorted labels, and the codes (of ``dtype``). Only the distinct labels are sorted."""
    order = sorted(range(len(found)), key=found.__getitem__)
    rank = np.empty(len(found), dtype=dtype)
    rank[order] = np.arange(len(found))
    return [found[k] for k in order], rank[codes]


def factorize_pair(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct labels of the checked label arrays ``a`` and ``b`` together (sorted, in the dtype of
    :func:`canonical_labels`), and the codes of ``a`` and of ``b``. A ``ValueError`` for labels of different
    kinds, integers without a common integer type, or an empty or blank string label.
    """
    check_same_kind(("a", a), ("b", b))
    kind = _array_kind(a) or _array_kind(b)
    if kind == "number":
        return _factorize_numbers(a, b)
    if kind is None:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    if a.dtype.kind == "U" and b.dtype.kind == "U":
        from discrank.core import _core  # fixed-width arrays: hashed in the core, the distinct labels alone sorted

        codes, first = _core.factorize_fixed(a, b)
        k = int(np.searchsorted(first, a.shape[0]))  # the codes first seen in a, then those first seen in b
        uniq, codes = sort_codes(np.concatenate([a[first[:k]], b[first[k:] - a.shape[0]]]).tolist(), codes)
    else:
        # hashing, then sorting the distinct labels only
        both = np.concatenate([a.astype(object, copy=False), b.astype(object, copy=False)])
        codes, found = factorize_objects(both)
        uniq, codes = sort_codes([str(v) for v in found], codes)  # np.str_ to str
    blank = _check_blank(uniq)
    if blank is not None:
        k = int(np.flatnonzero(codes == blank)[0])
        raise _blank_error("a" if k < a.shape[0] else "b", uniq[blank], k if k < a.shape[0] else k - a.shape[0])
    return text_array(uniq), codes[: a.shape[0]], codes[a.shape[0]:]


def _factorize_numbers(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    target = _common_number_dtype([("a", a, None), ("b", b, None)])
    if target.kind in "iu" and a.size and b.size:
        from discrank.core import _core
        shift = None
        if target == np.uint64:
            # ids above 2^63 - 1: coded as offsets from the smallest when their range fits int64
            lo = min(int(a.min()), int(b.min()))
            if max(int(a.max()), int(b.max())) - lo <= _INT64_MAX:
                shift = np.uint64(lo)
        if target == np.int64 or shift is not None:
            if shift is not None:
                wa = (a.astype(np.uint64) - shift).astype(np.int64)
                wb = (b.astype(np.uint64) - shift).astype(np.int64)
            else:
                # integer ids of a range at most 4 times the number of ids: coded in the core by a presence
                # table, without a sort (and without a copy when both are int32 or both int64)
                work = np.int32 if a.dtype == np.int32 and b.dtype == np.int32 else np.int64
                wa = np.ascontiguousarray(a, dtype=work)
                wb = np.ascontiguousarray(b, dtype=work)
            coded = _core.factorize_ints(wa, wb, max_range=4 * (a.shape[0] + b.shape[0]) + 1024)
            if coded is not None:
                uniq, code_a, code_b = coded
                uniq = uniq.astype(np.uint64) + shift if shift is not None else uniq.astype(np.int64, copy=False)
                return uniq, code_a, code_b
    both = np.concatenate([a.astype(target, copy=False), b.astype(target, copy=False)])
    uniq, inverse = np.unique(both, return_inverse=True)
    inverse = inverse.reshape(-1)
    return uniq, inverse[: a.shape[0]], inverse[a.shape[0]:]


def as_query(values: Any, name: str) -> np.ndarray:
    """Labels to look up (a scalar or a 1-D sequence) as a 1-D array: lists of strings as object arrays, lists
    of ints as exact int64 / uint64; a ``ValueError`` for more dimensions."""
    if isinstance(values, np.ndarray):
        q = values
    else:
        q = np.asarray(values, dtype=object)
        if q.ndim == 1 and q.size:
            types = set(map(type, q))
            if types <= {int}:
                lo, hi = min(q.tolist()), max(q.tolist())
                if lo >= _INT64_MIN and hi <= _INT64_MAX:
                    q = q.astype(np.int64)
                elif lo >= 0 and hi <= _UINT64_MAX:
                    q = np.array(q.tolist(), dtype=np.uint64)
            elif types <= {float}:
                q = q.astype(np.float64)
    if q.ndim > 1:
        raise ValueError(f"{name} must be 1-D (or a single player), got shape {q.shape}")
    return q.reshape(1) if q.ndim == 0 else q


def _exact_in(q: np.ndarray, dtype: np.dtype) -> tuple[np.ndarray, np.ndarray]:
    """``q`` (numeric) converted to ``dtype`` and where the conversion is exact (no rounding, no wrap)."""
    with np.errstate(invalid="ignore", over="ignore"):
        if dtype.kind in "iu":
            lo, hi = (-(2.0**63), 2.0**63) if dtype.kind == "i" else (0.0, 2.0**64)
            if q.dtype.kind == "f":
                ok = (q >= lo) & (q < hi) & (q == np.floor(q))
                conv = np.where(ok, q, 0).astype(dtype)
                return conv, ok
            conv = q.astype(dtype)
            if q.dtype.kind == "i" and dtype.kind == "u":
                return conv, q >= 0
            if q.dtype.kind == "u" and dtype.kind == "i":
                return conv, q <= np.uint64(_INT64_MAX)
            return conv, np.ones(q.shape[0], dtype=bool)
        conv = q.astype(dtype)
        if q.dtype.kind in "iu":
            back_ok = (conv > -(2.0**63)) & (conv < 2.0**63) if q.dtype.kind == "i" else (conv < 2.0**64)
            back = np.where(back_ok, conv, 0).astype(q.dtype)
            return conv, back_ok & (back == q)
        return conv, np.isfinite(q)


class LabelIndex:
    """Map labels to player indices 0..n-1 and back.

    ``labels`` holds the checked labels (:func:`canonical_labels`); an empty or blank string label is refused.
    """

    def __init__(self, labels: np.ndarray):
        labels = canonical_labels(as_label_array(labels, "labels"))
        self.labels = labels
        self._table: Any = None
        if labels.dtype.kind == "O" and labels.size:
            blank = _check_blank(labels.tolist())
            if blank is not None:
                raise _blank_error("labels", labels[blank], blank)
        self._order = np.argsort(labels, kind="stable")
        self._sorted = labels[self._order]
        if len(labels) > 1:
            dup = self._sorted[1:] == self._sorted[:-1]
            if np.any(dup):
                raise ValueError(f"labels must be unique; repeated: {_describe(np.unique(self._sorted[1:][dup]))}")

    def __len__(self) -> int:
        return len(self.labels)

    def _text_lookup(self, q: np.ndarray) -> np.ndarray:
        """Indices of string queries among string labels, by hashing (-1 where not found)."""
        if self._table is None:
            try:
                import pandas as pd

                self._table = pd.Index(self.labels, dtype=object)
            except ImportError:  # pragma: no cover - pandas is in the test extra
                self._table = {v: k for k, v in enumerate(self.labels.tolist())}
        q = q.astype(object, copy=False)
        if isinstance(self._table, dict):
            return np.fromiter((self._table.get(v, -1) if isinstance(v, str) else -1 for v in q), dtype=np.int64,
                               count=q.shape[0])
        try:
            return np.asarray(self._table.get_indexer(q), dtype=np.int64)
        except TypeError:  # unhashable queries (lists): never labels
            return np.fromiter((self._table.get_loc(v) if isinstance(v, str) and v in self._table else -1
                                for v in q), dtype=np.int64, count=q.shape[0])

    def lookup(self, values: Any) -> np.ndarray:
        """Indices (int64) of ``values``, -1 for a label that is not known.

        Equality is exact: a string never equals a number, an integer label is found only by that exact
        integer (or an integral float equal to it), a bool is never a label.
        """
        q = as_query(values, "players")
        out = np.full(q.shape[0], -1, dtype=np.int64)
        if q.size == 0 or self.labels.size == 0:
            return out
        text = self.labels.dtype.kind == "O"
        if text:
            if q.dtype.kind in "UO":
                out = self._text_lookup(q)
            return out
        if q.dtype.kind in "iuf":
            conv, exact = _exact_in(q, self._sorted.dtype)
            pos = np.minimum(np.searchsorted(self._sorted, conv), len(self._sorted) - 1)
            found = exact & (self._sorted[pos] == conv)
            return np.where(found, self._order[pos], -1).astype(np.int64)
        if q.dtype.kind == "O":
            # numbers among other objects: one by one, by exact Python equality (1 == 1.0; never a bool)
            for t, v in enumerate(q):
                if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)):
                    continue
                if isinstance(v, (int, np.integer)):
                    if not _INT64_MIN <= int(v) <= _UINT64_MAX:
                        continue  # no label is that integer
                    one = np.array([int(v)], dtype=np.uint64 if int(v) > _INT64_MAX else np.int64)
                else:
                    one = np.array([float(v)])
                out[t] = self.lookup(one)[0]
        return out

    def index(self, values: Any, name: str = "player") -> np.ndarray:
        """Indices (int32) of ``values``; a ``ValueError`` names the labels that are not known."""
        q = as_query(values, name)
        idx = self.lookup(q)
        unknown = idx < 0
        if unknown.any():
            bad = q[unknown]
            try:
                bad = np.unique(bad)
            except TypeError:
                pass
            raise ValueError(f"unknown {name} label(s): {_describe(bad)}")
        return idx.astype(np.int32)


def extend_labels(known: np.ndarray, new: np.ndarray, name: str, index: Optional[LabelIndex] = None,
                  known_name: str = "labels_") -> tuple[np.ndarray, np.ndarray]:
    """(labels, position): a fitted model's labels ``known`` followed by the distinct labels of ``new`` that
    it lacks, as one checked array, and the index there of each of ``new``. ``index``: the lookup of ``known``
    when the model holds one. Labels of the other kind ("17" into a model of numbers) are a ValueError naming
    the first of each, ``name`` and ``known_name``. Non-integer labels given to a model of integer labels
    enter as new players with a UserWarning; an integral float (2.0) is the integer player it equals."""
    if known.size and new.size:
        check_same_kind((name, new), (known_name, known))
    position = (LabelIndex(known) if index is None else index).lookup(new)
    unseen = position < 0
    if not unseen.any():
        return known, position
    fresh = new[unseen]
    odd = fresh[fresh != np.floor(fresh)] if known.dtype.kind in "iu" and fresh.dtype.kind == "f" else fresh[:0]
    if odd.size:  # (a float on an integer log: almost always a typo)
        warnings.warn(f"{name} holds the player label(s) {_describe(odd)}, which are not integers, while the model's "
                      f"{known_name} are integers: each enters as a new player (never the integer player nearest "
                      "it); check the labels for a typo", UserWarning, stacklevel=3)
    position[unseen] = len(known) + np.arange(fresh.shape[0])
    if fresh.dtype == known.dtype:
        return np.concatenate([known, fresh]), position
    return canonical_labels(as_label_array(known.tolist() + fresh.tolist(), "labels")), position
