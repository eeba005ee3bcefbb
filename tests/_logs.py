"""The six games that the tests of a game log's columns share (tests/test_log_labels.py, test_log_context.py,
test_log_format.py, test_log_margin.py): their players, scores and times, ``log6`` that builds them with the
columns given, and ``caught`` that runs a reader and keeps its InvalidRowsWarnings."""

import warnings

from discrank import GameLog
from discrank.exceptions import InvalidRowsWarning

A = ["p", "q", "r", "s", "p", "q"]
B = ["q", "r", "s", "p", "r", "s"]
S = [1.0, 0.0, 0.5, 1.0, 0.0, 1.0]
T = [6, 2, 5, 1, 4, 3]
SURFACE = ["Clay", "Hard", "Grass", "Clay", "Hard", "Clay"]


def log6(**kw):
    """The six games, with the columns ``kw`` (context=, match_format=, margin=, ...)."""
    return GameLog.from_arrays(A, B, S, T, **kw)


def caught(fn, *args, **kw):
    """``fn(*args, **kw)`` and the InvalidRowsWarnings it gave."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        out = fn(*args, **kw)
    return out, [w for w in seen if issubclass(w.category, InvalidRowsWarning)]
