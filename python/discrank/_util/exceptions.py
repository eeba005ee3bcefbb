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
    """The prior scale that ``prior_scale=None`` chose predicts the held-out games of its own validation
    worse than a coin (log 2 per game; log 3 for the three outcomes of a draw model), by more than two
    standard errors of the paired differences and 0.001 per game: the ratings carry no signal for the
    games that follow. The message names the model, the scale, the validation rule and the two losses."""


class DisconnectedGraphWarning(UserWarning):
    """The comparison graph is in several pieces: ratings of different pieces are not comparable."""


class InvalidRowsWarning(UserWarning):
    """Invalid rows of a game log were dropped (``invalid="drop"``, ``discrank fit --drop-invalid``); the
    message gives the count of each kind and its first rows, and ``GameLog.dropped`` keeps the counts."""


class OneSidedLogWarning(UserWarning):
    """One side of a game log (``a``, or ``b``) wins nearly every decided game: the log is written winner
    first (or loser first), as Sackmann's tennis files are, so that a table of predictions by the side
    they are given for (the calibration of :func:`discrank.evaluate`) measures the order of the columns,
    not the model. ``GameLog.shuffle_sides(random_state)`` (``discrank --shuffle-sides SEED``) orients the
    games at random."""


class IsolatedPlayerWarning(UserWarning):
    """Some players have no observed pair: the data says nothing about them."""


class SeparationWarning(UserWarning):
    """The results separate the players (some group never loses, or never wins, against the others):
    the maximum-likelihood ratings are infinite, and a documented prior keeps them finite."""


class UnusedColumnWarning(UserWarning):
    """A column of a game log that the model it was given to does not use: a context, a match format, margins
    or advantage columns given to a model that takes none (``takes_context``, ``takes_format``,
    ``takes_margin``, ``takes_advantage`` False), or to a model fitted without them, in ``fit``, ``update``,
    ``predict_games``, ``predict_outcomes``, :func:`discrank.evaluate` or :func:`discrank.evaluation._bootstrap`. The model
    fits or predicts as if the column were absent; the message names the column and the model, once per call.
    A ``UserWarning``."""


class MissingColumnWarning(UserWarning):
    """Games given to a model fitted with a column (a context, a match format) that they lack: the model forecasts
    them as games without it (no context effect, the reference format's scale); the message names the column and
    the fitted values. A ``UserWarning``."""


class NotFittedError(ValueError, AttributeError):
    """A model was used before ``fit`` (scikit-learn's convention: a ValueError and an AttributeError)."""


class NumericalError(ArithmeticError, ValueError):
    """A computation met values it cannot continue from (NaN or infinity where a finite number is needed):
    an ``ArithmeticError``, and a ``ValueError`` so that ``except ValueError`` around a fit still catches it."""


class UnknownPlayerError(ValueError):
    """A prediction named a player the model has not seen (``unseen="raise"``, the default of every
    model's ``predict_proba``, ``predict_games`` and ``predict_outcomes``); ``unseen="prior"`` predicts such
    a player from the model's prior instead. A ``ValueError``.

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
    """A thread count (``n_jobs``, or ``OMP_NUM_THREADS`` with ``n_jobs=None``) above the limit, 4 threads
    per processor and at most 1024 (``discrank._util.threads.thread_limit``), was clamped to it: the
    message gives the request and the count used."""


class TruncatedFileWarning(UserWarning):
    """A compressed game file ends mid-stream and ``truncated="keep"`` (``--keep-truncated``) kept the games
    read before the cut; the message names the file and the last complete game or row."""


class TuningWarning(UserWarning):
    """A tuning's search reached the hard bound of a parameter's range with the validation score still
    falling (:class:`~discrank.DynamicElo`'s drift, prior scale or variance scale): the value used is that
    bound, not a minimum. The message names the parameter, the value and what to do (give the parameter,
    or check the validation window); ``tuning_["at_bound"]`` keeps them."""
