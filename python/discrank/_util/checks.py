"""Argument checks shared by the modules of discrank, one function per check.

Each check returns the value it accepts (converted where it says so) or raises a ``ValueError`` or
``TypeError`` naming the argument and the value (shown by :func:`show`). It imports nothing from discrank.
"""

from __future__ import annotations

import numbers
from typing import Any, Mapping, Optional

import numpy as np

__all__ = [
    "MAX_TOTAL_GAMES",
    "SHOW_LIMIT",
    "as_float_vector",
    "check_counts",
    "check_choice",
    "check_finite",
    "check_n_components",
    "check_no_self_play",
    "check_one_of",
    "check_player_indices",
    "check_positive_float",
    "check_positive_int",
    "check_probabilities",
    "check_random_state",
    "check_verbose",
    "check_same_length",
    "self_play_message",
    "show",
    "show_time",
]

#: Characters of a value that :func:`show` prints before cutting it.
SHOW_LIMIT = 80

#: Largest total of the game counts: float64 counts games exactly up to 2^53, and more is no count of games.
MAX_TOTAL_GAMES = 2.0**53


def show(value: Any, limit: int = SHOW_LIMIT) -> str:
    """The repr of a value as the user wrote it (a numpy scalar as its Python scalar), cut to about ``limit``
    characters.

    Parameters
    ----------
    value : object
    limit : int, optional
        About the most characters of the result.

    Returns
    -------
    str
        ``repr(value)``, or its first characters followed by ``... (N characters)``.
    """
    value = value.item() if isinstance(value, np.generic) else value
    if isinstance(value, (str, bytes)) and len(value) > limit:
        # the repr of a prefix only: a 1 GB name is never copied to be cut
        return f"{repr(value[:limit])[: limit - 20]}... ({len(value)} characters)"
    text = repr(value)
    if len(text) <= limit:
        return text
    return f"{text[: limit - 20]}... ({len(text)} characters)"


def show_time(value: Any) -> str:
    """A time as the user reads it: ISO text for a datetime64, :func:`show` of anything else.

    Parameters
    ----------
    value : object

    Returns
    -------
    str
    """
    if isinstance(value, np.datetime64):
        return str(value)
    return show(value)


# ------------------------------------------------------------------ scalars
def check_positive_float(value: Any, name: str) -> float:
    """A positive finite real number, as a float.

    Parameters
    ----------
    value : object
    name : str
        Its name, for the message.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        ``value`` is a bool, not a real number, not finite, or not positive.
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a positive finite number, got {value!r}")
    return float(value)


def check_positive_int(value: Any, name: str, *, allow_none: bool = False) -> Optional[int]:
    """An integer >= 1, as an int.

    Parameters
    ----------
    value : object
        The argument: a Python or numpy integer, never a bool.
    name : str
        Its name, for the message.
    allow_none : bool, optional
        Accept None too (and return it).

    Returns
    -------
    int or None

    Raises
    ------
    ValueError
        ``value`` is a bool, not an integer, or below 1.
    """
    if allow_none and value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        allowed = "None or an integer >= 1" if allow_none else "an integer >= 1"
        raise ValueError(f"{name} must be {allowed}, got {value!r}")
    return int(value)


def check_verbose(value: Any, name: str = "verbose") -> int:
    """A level of progress reports as an int: 0 (none), 1 (the stages), 2 or more (also each iteration).

    Parameters
    ----------
    value : object
        The argument: a bool (Python or numpy) or an integer >= 0.
    name : str, optional
        Its name, for the message.

    Returns
    -------
    int

    Raises
    ------
    TypeError
        ``value`` is not a bool or an integer (None, a float, a string).
    ValueError
        ``value`` is a negative integer.
    """
    if isinstance(value, (bool, np.bool_)):
        return int(value)
    what = "True, False or an integer >= 0 (0: silent, 1: the stages, 2: also each iteration)"
    if not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be {what}, got {show(value)}")
    if value < 0:
        raise ValueError(f"{name} must be {what}, got {show(value)}")
    return int(value)


def check_random_state(value: Any, name: str = "random_state") -> Any:
    """A seed that ``numpy.random.default_rng`` takes.

    Parameters
    ----------
    value : object
        None, an integer >= 0, a sequence of them, a ``SeedSequence``, a ``BitGenerator`` or a
        ``Generator``.
    name : str, optional
        Its name, for the message.

    Returns
    -------
    object
        ``value`` itself.

    Raises
    ------
    TypeError
        A bool, or a value of another type.
    ValueError
        A negative integer, or a sequence that is not a seed.
    """
    if value is None or isinstance(value, (np.random.Generator, np.random.BitGenerator, np.random.SeedSequence)):
        return value
    allowed = "None, an integer >= 0, a sequence of them, or a numpy Generator, BitGenerator or SeedSequence"
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be {allowed}; got {value!r}")
    if isinstance(value, numbers.Integral):
        if value < 0:
            raise ValueError(f"{name} must be {allowed}; got {value!r}, which is negative")
        return value
    if isinstance(value, (list, tuple, np.ndarray)):
        try:
            np.random.SeedSequence(value)
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"{name} must be {allowed}; got {show(value)} ({exc})") from None
        return value
    raise TypeError(f"{name} must be {allowed}; got {show(value)} of type {type(value).__name__}")


def check_n_components(value: Any, n_players: int) -> int:
    """A number of components ``1 <= k <= n / 2``.

    Theorem 2: a skew-symmetric ``n x n`` matrix has at most ``n // 2`` components.

    Parameters
    ----------
    value : object
        The requested number of components.
    n_players : int
        The number of players of the data.

    Returns
    -------
    int

    Raises
    ------
    ValueError
        ``value`` is not an integer >= 1, or exceeds ``n_players / 2``.
    """
    k = check_positive_int(value, "n_components")
    if 2 * k > n_players:
        raise ValueError(f"n_components={k} needs at least {2 * k} players (k <= n/2, Theorem 2); the data has {n_players}")
    return k


def check_one_of(value: Any, name: str, choices: tuple) -> str:
    """One of the string options ``choices``.

    Parameters
    ----------
    value : object
    name : str
        Its name, for the message.
    choices : tuple of str
        The options.

    Returns
    -------
    str
        ``value``.

    Raises
    ------
    ValueError
        ``value`` is not one of ``choices`` (``{name} must be one of {choices}, got {value!r}``).
    """
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"{name} must be one of {choices}, got {value!r}")
    return value


def check_choice(value: Any, name: str, choices: tuple, meaning: str) -> str:
    """One of the string options ``choices``, refused with what each option does.

    Parameters
    ----------
    value : object
    name : str
        Its name, for the message.
    choices : tuple of str
        The options.
    meaning : str
        What the options do, appended to the message.

    Returns
    -------
    str
        ``value``.

    Raises
    ------
    ValueError
        ``value`` is not one of ``choices`` (``{name}={value} is not one of {choices}: {meaning}``).
    """
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"{name}={show(value)} is not one of {choices}: {meaning}")
    return value


# ------------------------------------------------------------------ arrays
def check_same_length(lengths: Mapping[str, int], what: str = "inputs") -> int:
    """The one length of several inputs.

    Parameters
    ----------
    lengths : mapping of str to int
        Each input's name and length, in the order the message names them.
    what : str, optional
        What the inputs are, for the message ("inputs", "columns").

    Returns
    -------
    int
        The common length (0 when ``lengths`` is empty).

    Raises
    ------
    ValueError
        The lengths differ. Two inputs are named each with its length (``a has 2, b has 1``); more are
        given as a dict of the lengths.
    """
    values = list(lengths.values())
    if len(set(values)) > 1:
        if len(values) == 2:
            (n1, m1), (n2, m2) = lengths.items()
            shown = f"{n1} has {m1}, {n2} has {m2}"
        else:
            shown = str(dict(lengths))
        raise ValueError(f"found {what} of inconsistent lengths: {shown}")
    return values[0] if values else 0


def as_float_vector(values: Any, name: str, finite: bool = True) -> np.ndarray:
    """``values`` as a 1-D float64 array (no copy when it is one).

    Parameters
    ----------
    values : array-like
        Numbers (ints, floats or bools).
    name : str
        Its name, for the messages.
    finite : bool, optional
        Refuse NaN and inf here (:func:`check_finite`).

    Returns
    -------
    ndarray of float64, shape (n,)

    Raises
    ------
    TypeError
        ``values`` is not numeric.
    ValueError
        ``values`` is not 1-D, or (``finite``) holds NaN or inf.
    """
    arr = np.asarray(values)
    if arr.dtype.kind not in "iufb":
        raise TypeError(f"{name} must be numeric, got dtype {arr.dtype}")
    arr = arr.astype(np.float64, copy=False)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {arr.shape}")
    if finite:
        check_finite(arr, name)
    return arr


def check_finite(arr: np.ndarray, name: str) -> None:
    """Refuse NaN and inf in a float array.

    Parameters
    ----------
    arr : ndarray of float
        The values.
    name : str
        Their name, for the message.

    Raises
    ------
    ValueError
        Naming the first value that is not finite and its position.
    """
    bad = ~np.isfinite(arr)
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        raise ValueError(f"{name} contains {show(arr[k])} at position {k}; only finite values are allowed")


def check_probabilities(p: np.ndarray, name: str) -> None:
    """Every value of a float array in [0, 1].

    Parameters
    ----------
    p : ndarray of float
        The values.
    name : str
        Their name, for the message.

    Raises
    ------
    ValueError
        Naming the first value that is NaN, infinite or outside [0, 1], and its position.
    """
    if np.all((p >= 0.0) & (p <= 1.0)):  # False for NaN: one pass in the common case
        return
    check_finite(p, name)
    bad = (p < 0.0) | (p > 1.0)
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        raise ValueError(f"{name} must lie in [0, 1]; got {show(p[k])} at position {k}")


def check_counts(n: np.ndarray, name: str) -> None:
    """Game counts (fractional ones accepted): every count positive, their total at most :data:`MAX_TOTAL_GAMES`.

    Parameters
    ----------
    n : ndarray of float
        The counts.
    name : str
        Their name, for the message.

    Raises
    ------
    ValueError
        A count that is not positive, or a total above 2^53 (naming the largest count).
    """
    bad = n <= 0
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        raise ValueError(f"{name} must be positive; got {show(n[k])} at position {k}")
    with np.errstate(over="ignore"):
        total = float(np.sum(n))
    if not total <= MAX_TOTAL_GAMES:
        k = int(np.argmax(n))
        raise ValueError(
            f"{name} adds up to {show(total)} games (the largest, {name}[{k}] = {show(n[k])}): the counts must add up "
            f"to at most 2^53 = {MAX_TOTAL_GAMES:.4g}, the most games float64 counts exactly"
        )


def check_player_indices(arr: np.ndarray, name: str, n_players: int, bound: Optional[str] = None) -> None:
    """Every entry of an integer array a player index in ``[0, n_players)``.

    Parameters
    ----------
    arr : ndarray of int
        The indices.
    name : str
        Their name, for the message.
    n_players : int
        One more than the largest index allowed.
    bound : str, optional
        How the message writes ``n_players`` (say ``"2^31 - 1"``); default the number.

    Raises
    ------
    ValueError
        Naming the first index out of range and its position.
    """
    bad = (arr < 0) | (arr >= n_players)
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        raise ValueError(f"{name}[{k}] = {show(arr[k])} is not a player index in [0, {bound or n_players})")


def self_play_message(what: str, k: int, player: Any) -> str:
    """The words for entry ``k`` (a game, a pair) of a player against themself.

    Parameters
    ----------
    what : str
        What the entries are ("game", "pair").
    k : int
        The entry's position.
    player : object
        The player, shown by :func:`show`.

    Returns
    -------
    str
    """
    return f"{what} {k} is player {show(player)} against themself"


def check_no_self_play(x: np.ndarray, y: np.ndarray, players: Optional[np.ndarray] = None,
                       what: str = "game") -> None:
    """Refuse an entry whose two players are the same.

    Parameters
    ----------
    x, y : ndarray, shape (n,)
        The two players of each entry (indices, codes or labels of one kind).
    players : ndarray, shape (n,), optional
        The first player of each entry as the message names it (the labels when ``x`` holds codes);
        default ``x``.
    what : str, optional
        What the entries are ("game", "pair"), for the message.

    Raises
    ------
    ValueError
        Naming the first such entry and its player (:func:`self_play_message`).
    """
    same = x == y
    if np.any(same):
        k = int(np.flatnonzero(same)[0])
        raise ValueError(self_play_message(what, k, (x if players is None else players)[k]))
