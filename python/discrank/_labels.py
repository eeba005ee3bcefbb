"""Player labels: the user's names in and out, indices inside."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["LabelIndex", "as_label_array", "factorize_pair", "show"]


SHOW_LIMIT = 80


def show(value: Any, limit: int = SHOW_LIMIT) -> str:
    """repr of a value as the user wrote it (numpy scalars as Python ones), cut to about ``limit``
    characters: a 200 kB player name in a message names the player without printing the name."""
    text = repr(value.item() if isinstance(value, np.generic) else value)
    if len(text) <= limit:
        return text
    return f"{text[: limit - 20]}... ({len(text)} characters)"


def _describe(values: np.ndarray, limit: int = 5) -> str:
    shown = ", ".join(show(v) for v in values[:limit])
    return shown + (f", ... ({len(values)} in all)" if len(values) > limit else "")


def as_label_array(values: Any, name: str) -> np.ndarray:
    """Return ``values`` as a 1-D array of labels of one kind (numbers or strings), checked.

    Raises ``ValueError`` for missing labels (None, NaN) or labels of mixed kinds (say ints and strings),
    which cannot be ordered and usually mean a parsing mistake.
    """
    if isinstance(values, np.ndarray):
        arr = values
    else:
        # A list is checked element by element before numpy would turn ["x", 1] into ["x", "1"].
        arr = np.asarray(values, dtype=object)
        if arr.ndim == 1:
            _check_objects(arr, name)
            arr = np.asarray(arr.tolist()) if arr.size else np.zeros(0)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {arr.shape}")
    if arr.dtype.kind == "f":
        bad = ~np.isfinite(arr)
        if bad.any():
            raise ValueError(f"{name} contains a non-finite label {show(arr[bad][0])} at position {np.flatnonzero(bad)[0]}")
    if arr.dtype.kind == "O":
        _check_objects(arr, name)
    if arr.dtype.kind not in "iufUSO":
        raise TypeError(f"{name} must hold numbers or strings, got dtype {arr.dtype}")
    return arr


def factorize_pair(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct labels of ``a`` and ``b`` together (sorted), and the codes of ``a`` and of ``b``.

    A ``ValueError`` when the two hold labels of kinds that cannot be compared (ints in one, strings in
    the other).
    """
    if a.dtype.kind in "iu" and b.dtype.kind in "iu" and a.size and b.size:
        common = np.result_type(a.dtype, b.dtype)
        if common.kind == "i" or common.itemsize < 8:  # every id fits in int64
            from discrank import _core

            # integer ids of a range at most 4 times the number of ids: coded in the core by a presence
            # table, without a sort (and without a copy when both are int32 or both int64)
            work = np.int32 if common == np.int32 else np.int64
            coded = _core.factorize_ints(np.ascontiguousarray(a, dtype=work), np.ascontiguousarray(b, dtype=work),
                                         max_range=4 * (a.shape[0] + b.shape[0]) + 1024)
            if coded is not None:
                uniq, code_a, code_b = coded
                return uniq.astype(common, copy=False), code_a, code_b
    objects = a.dtype.kind == "O" or b.dtype.kind == "O"
    both = np.concatenate([a.astype(object), b.astype(object)]) if objects else np.concatenate([a, b])
    as_label_array(both, "a and b")
    try:
        uniq, inverse = np.unique(both, return_inverse=True)
    except TypeError as exc:
        raise ValueError(f"a and b mix label types that cannot be compared: {exc}") from None
    return uniq, inverse[: a.shape[0]], inverse[a.shape[0]:]


def _check_objects(arr: np.ndarray, name: str) -> None:
    kinds: dict[str, int] = {}
    for pos, v in enumerate(arr):
        if v is None or (isinstance(v, (float, np.floating)) and not np.isfinite(v)):
            raise ValueError(f"{name} contains a missing label {show(v)} at position {pos}")
        is_number = isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_))
        kinds.setdefault("number" if is_number else type(v).__name__, pos)
    if len(kinds) > 1:
        described = ", ".join(f"{k} (first at position {p})" for k, p in kinds.items())
        raise ValueError(f"{name} mixes label types: {described}; use labels of one type")


class LabelIndex:
    """Map labels to player indices 0..n-1 and back."""

    def __init__(self, labels: np.ndarray):
        labels = as_label_array(labels, "labels")
        self.labels = labels
        self._order = np.argsort(labels, kind="stable")
        self._sorted = labels[self._order]
        if len(labels) > 1:
            dup = self._sorted[1:] == self._sorted[:-1]
            if np.any(dup):
                raise ValueError(f"labels must be unique; repeated: {_describe(np.unique(self._sorted[1:][dup]))}")

    def __len__(self) -> int:
        return len(self.labels)

    def lookup(self, values: Any) -> np.ndarray:
        """Indices (int64) of ``values``, -1 for a label that is not known."""
        q = np.atleast_1d(np.asarray(values))
        if q.size == 0:
            return np.zeros(0, dtype=np.int64)
        if q.dtype.kind == "O" or self._sorted.dtype.kind == "O" or (q.dtype.kind in "US") != (self._sorted.dtype.kind in "US"):
            # Comparisons across kinds (str against int) are never matches: look up one by one.
            table = {(v.item() if isinstance(v, np.generic) else v): k for k, v in enumerate(self.labels)}
            out = np.empty(q.shape[0], dtype=np.int64)
            for t, v in enumerate(q):
                try:
                    out[t] = table.get(v.item() if isinstance(v, np.generic) else v, -1)
                except TypeError:  # unhashable
                    out[t] = -1
            return out
        pos = np.minimum(np.searchsorted(self._sorted, q), len(self._sorted) - 1)
        found = self._sorted[pos] == q
        return np.where(found, self._order[pos], -1).astype(np.int64)

    def index(self, values: Any, name: str = "player") -> np.ndarray:
        """Indices (int32) of ``values``; a ``ValueError`` names the labels that are not known."""
        q = np.atleast_1d(np.asarray(values))
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
