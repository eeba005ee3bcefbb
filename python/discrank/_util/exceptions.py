"""The exceptions and warnings discrank raises beyond the built-in ones."""

from __future__ import annotations

__all__ = [
    "NotFittedError",
    "NumericalError",
    "ConvergenceWarning",
    "CoinWarning",
    "DisconnectedGraphWarning",
    "InvalidRowsWarning",
    "IsolatedPlayerWarning",
    "OneSidedLogWarning",
    "SeparationWarning",
    "TruncatedFileWarning",
    "ThreadCountWarning",
    "TuningWarning",
    "UnknownPlayerError",
    "UnusedColumnWarning",
]


class ConvergenceWarning(UserWarning):
    """A fit stopped before its gradient criterion was met (see ``converged_``)."""


class CoinWarning(UserWarning):
    """The prior scale that ``prior_scale=None`` chose predicts its own validation's held-out games worse than
    a coin (log 2 per game; log 3 with a draw model), by more than two standard errors and 0.001 per game."""


class DisconnectedGraphWarning(UserWarning):
    """The comparison graph is in several pieces: ratings of different pieces are not comparable."""


class InvalidRowsWarning(UserWarning):
    """Invalid rows of a game log were dropped (``invalid="drop"``); ``GameLog.dropped`` keeps the counts."""


class OneSidedLogWarning(UserWarning):
    """One side of a game log wins nearly every decided game: the log is written winner (or loser) first, so
    a calibration by side measures the column order, not the model. ``GameLog.shuffle_sides(random_state)``
    orients the games at random."""


class IsolatedPlayerWarning(UserWarning):
    """Some players have no observed pair: the data says nothing about them."""


class SeparationWarning(UserWarning):
    """The results separate the players (some group never loses, or never wins, against the others):
    the maximum-likelihood ratings are infinite, and a documented prior keeps them finite."""


class UnusedColumnWarning(UserWarning):
    """A column of a game log (a context, a match format, margins, advantage columns) that the model it was
    given to does not take or was fitted without: the model fits or predicts as if it were absent."""


class MissingColumnWarning(UserWarning):
    """Games given to a model fitted with a column (a context, a match format) that they lack: the model
    forecasts them without it (no context effect, the reference format's scale)."""


class NotFittedError(ValueError, AttributeError):
    """A model was used before ``fit`` (scikit-learn's convention: a ValueError and an AttributeError)."""


class NumericalError(ArithmeticError, ValueError):
    """A computation met values it cannot continue from (NaN or infinity where a finite number is needed):
    an ``ArithmeticError``, and a ``ValueError`` so that ``except ValueError`` around a fit still catches it."""


class UnknownPlayerError(ValueError):
    """A prediction named a player the model has not seen (``unseen="raise"``, the default);
    ``unseen="prior"`` predicts such a player from the model's prior instead.

    Attributes
    ----------
    labels : tuple
        The unknown labels named in the message (the first few, distinct).
    model : str
        The class name of the model asked.
    """

    def __init__(self, message: str, labels: tuple = (), model: str = ""):
        super().__init__(message)
        self.labels = tuple(labels)
        self.model = model

    def __reduce__(self):
        return type(self), (self.args[0], self.labels, self.model)


class ThreadCountWarning(UserWarning):
    """A thread count (``n_jobs``, or ``OMP_NUM_THREADS`` with ``n_jobs=None``) above the limit (4 per
    processor, at most 1024) was clamped to it."""


class TruncatedFileWarning(UserWarning):
    """A compressed game file ends mid-stream and ``truncated="keep"`` kept the games read before the cut."""


class TuningWarning(UserWarning):
    """A tuning's search stopped at the hard bound of a parameter's range with the validation score still
    falling: the value used is that bound, not a minimum (``tuning_["at_bound"]`` keeps them)."""
