"""The six games that the tests of a game log's columns share (tests/test_log_labels.py, test_log_context.py,
test_log_format.py, test_log_margin.py): their players, scores and times, ``log6`` that builds them with the
columns given, ``caught`` that runs a reader and keeps its InvalidRowsWarnings, and ``recording_elo``, a
stand-in model that takes a column and records what it is given."""

import warnings

from discrank import Elo, GameLog
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


def recording_elo(column: str, capability: str) -> type:
    """A stand-in class for a model that takes the log's ``column`` (its ``capability``, such as
    ``takes_margin``, True): Elo on the results, appending ``(what, a copy of the column or None)`` to the class's
    ``seen`` at each fit and each prediction (a class attribute, shared by evaluate's copies)."""

    def given(log):
        value = getattr(log, column)
        return None if value is None else value.copy()

    class RecordingElo:
        seen: list = []

        def __init__(self):
            self.elo = Elo(prior_scale=1.0)

        def fit(self, log):
            RecordingElo.seen.append(("fit", given(log)))
            self.elo.fit(GameLog.from_arrays(log.a, log.b, log.score, log.time))
            return self

        def predict_games(self, log):
            RecordingElo.seen.append(("predict", given(log)))
            return self.elo.predict_games(GameLog.from_arrays(log.a, log.b, log.score, log.time))

        def predict_proba(self, a, b):
            return self.elo.predict_proba(a, b)

    setattr(RecordingElo, capability, True)
    return RecordingElo
