"""The prediction protocol every model shares: ``predict_proba(a, b, *, unseen="raise")``,
``predict_games(log, ...)`` and ``predict_outcomes(log, ...)``. A label the model has not seen is an
:class:`~discrank._util.exceptions.UnknownPlayerError`, or with ``unseen="prior"`` a player predicted from
the model's prior. :class:`GamePredictions` writes the log predictions once over two hooks of the model.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from discrank._util.checks import check_same_length, show
from discrank._util.labels import LabelIndex, as_query
from discrank._util.exceptions import UnknownPlayerError

__all__ = ["UNSEEN", "CurrentStatePredictions", "GamePredictions", "advantage_rows", "check_unseen", "code_players",
           "expected_score", "log_covariates", "near_misses", "refuse_keywords", "unused_game_columns"]

#: The values of ``unseen=`` that every prediction takes: an unknown player is an error, or the prior's.
UNSEEN = ("raise", "prior")
#: Unknown labels an UnknownPlayerError names at most.
_NAMED = 5


def check_unseen(unseen: Any) -> str:
    """``unseen`` when it is one of :data:`UNSEEN`; else a ValueError naming the value and the allowed ones."""
    if not isinstance(unseen, str) or unseen not in UNSEEN:
        raise ValueError(f"unseen={unseen!r} is not one of {UNSEEN}: 'raise' (a player the model has not seen is "
                         "an error) or 'prior' (such a player is predicted from the model's prior)")
    return unseen


def code_players(index: LabelIndex, a: Any, b: Any, unseen: str, model: str) -> tuple[np.ndarray, np.ndarray]:
    """The codes (int64) in ``index`` of the players ``a`` and ``b`` (labels, one each or 1-D arrays of one
    length).

    Parameters
    ----------
    index : LabelIndex
        The model's players.
    a, b : label or array of labels
        The players of each game.
    unseen : {"raise", "prior"}
        "prior": an unknown label gets the code -1 (the caller predicts it from the prior); "raise": an
        :class:`~discrank._util.exceptions.UnknownPlayerError` naming the first unknown labels and ``model``.
    model : str
        The model's class name, for the message.

    Returns
    -------
    tuple of ndarray
        The codes of ``a`` and of ``b``.
    """
    check_unseen(unseen)
    a, b = as_query(a, "a"), as_query(b, "b")
    ia, ib = index.lookup(a), index.lookup(b)
    if unseen == "raise" and ((ia < 0).any() or (ib < 0).any()):
        raise _unknown(np.concatenate([a[ia < 0].astype(object), b[ib < 0].astype(object)]), model, index.labels)
    check_same_length({"a": ia.shape[0], "b": ib.shape[0]})
    return ia, ib


def near_misses(value: Any, labels: np.ndarray, n: int = 3) -> list:
    """Up to ``n`` of the text ``labels`` that ``value`` may have meant, for an error's message: those that hold
    it as a word, whatever the case, then the closest spellings; none for a label that is not text."""
    import difflib

    if not isinstance(value, str) or not value.strip() or labels.dtype.kind not in "UO":
        return []
    text = [v for v in labels.tolist() if isinstance(v, str)]
    low = value.strip().lower()
    found = [v for v in text if low in v.lower().replace(",", " ").split() or low == v.lower()]
    found += [v for v in difflib.get_close_matches(value, text, n=n, cutoff=0.75) if v not in found]
    return found[:n]


def _unknown(bad: np.ndarray, model: str, labels: Any = None) -> UnknownPlayerError:
    """The error naming the first few distinct labels of ``bad`` and the model, with near misses in ``labels``."""
    distinct: list = []
    for value in bad.tolist():
        if value not in distinct:
            distinct.append(value)
    shown = ", ".join(show(v) for v in distinct[:_NAMED])
    if len(distinct) > _NAMED:
        shown += f", ... ({len(distinct)} in all)"
    near = [] if labels is None else near_misses(distinct[0], np.asarray(labels))
    hint = f" (did you mean {' or '.join(show(v) for v in near)}?)" if near else ""
    return UnknownPlayerError(f"unknown player label(s): {shown}{hint}: this {model} has not seen them in its fit; "
                              "pass unseen='prior' to predict them from the model's prior",
                              tuple(distinct[:_NAMED]), model)


def expected_score(outcomes: np.ndarray) -> np.ndarray:
    """P(a wins) + P(draw) / 2 of rows [P(a wins), P(draw), P(b wins)]: the expected score of ``a``, which
    is P(a beats b) for a model without draws."""
    return outcomes[:, 0] + 0.5 * outcomes[:, 1]


def log_covariates(log: Any, names: tuple, model: str, games: str = "the games to predict") -> Any:
    """The advantage columns of ``log`` (n_games x n_covariates) that a model fitted with the covariates
    ``names`` needs; None for a model fitted without. Different columns are a ValueError naming both."""
    if not names:
        return None
    have = tuple(log.advantage_names) if log.advantage is not None else ()
    if have != tuple(names):
        raise ValueError(f"the {model} was fitted with the advantage column(s) {list(names)}; {games} "
                         f"have {list(have) if have else 'none'}: give the same columns (GameLog advantage=...)")
    return np.asarray(log.advantage, dtype=np.float64).reshape(len(log), -1)


#: Why a model whose ratings hold at every time and across contexts and formats cannot use each keyword of a forecast.
_UNUSED_KEYWORDS = {"time": "its ratings are the same at every time",
                    "context": "it takes no contexts (it predicts every context alike)",
                    "match_format": "it takes no match formats (it predicts every format alike)"}


def refuse_keywords(model: Any, **given: Any) -> None:
    """A ValueError naming the first keyword of ``predict_proba`` in ``given`` (``time``, ``context``,
    ``match_format``) that is not None: ``model`` cannot use it."""
    for key, value in given.items():
        if value is not None:
            raise ValueError(f"{key}= does not apply to {type(model).__name__}: {_UNUSED_KEYWORDS[key]}")


def advantage_rows(advantage: Any, n: int, names: tuple, model: str) -> Any:
    """The advantage covariates of ``n`` games as a checked array (n, len(names)), from a dict by name (a
    covariate not given is 0) or an array in the order of ``names``, each one for all games or one per game;
    None for None. A ValueError names what does not fit (``model`` fitted without, a name, a shape, a value)."""
    if advantage is None:
        return None
    if not names:
        raise ValueError(f"{model} was fitted without advantage covariates: advantage= has no coefficient to apply "
                         "(fit it on a GameLog with advantage columns)")
    c = len(names)
    if isinstance(advantage, dict):
        unknown = [key for key in advantage if key not in names]
        if unknown:
            raise ValueError(f"advantage names {show(unknown[0])}, which is not among {model}'s covariates "
                             f"{list(names)}")
        x = np.zeros((n, c))
        for k, name in enumerate(names):
            if name in advantage:
                value = np.asarray(advantage[name], dtype=np.float64)
                if value.ndim > 1 or (value.ndim == 1 and value.shape != (n,)):
                    raise ValueError(f"advantage {name!r} has shape {value.shape}: expected one value, or one per "
                                     f"game ({n})")
                x[:, k] = value
    else:
        x = np.asarray(advantage, dtype=np.float64)
        if x.ndim == 0 or (x.ndim == 1 and c > 1 and n == 1):
            x = x.reshape(1, -1)
        elif x.ndim == 1 and c == 1:
            x = x.reshape(-1, 1)
        if x.shape[0] == 1 and n > 1 and x.shape[1:] == (c,):
            x = np.repeat(x, n, axis=0)
        if x.shape != (n, c):
            raise ValueError(f"advantage has shape {np.shape(advantage)}: expected {n} game(s) x {c} covariate(s) "
                             f"({', '.join(map(repr, names))})")
    bad = ~np.isfinite(x)
    if bad.any():
        r, col = np.argwhere(bad)[0]
        raise ValueError(f"advantage {names[col]!r} is {x[r, col]} at row {r}: not a finite number")
    return x


#: The columns of games to predict that a model may leave unused: (attribute, the capability of a model that uses
#: it, what a model without the capability does with it). No prediction reads margins (an outcome).
_PREDICTED_COLUMNS = (
    ("context", "takes_context", "takes no contexts and ignores the games' context column (it predicts every "
                                 "context alike)"),
    ("match_format", "takes_format", "takes no match formats and ignores the games' match_format column (it "
                                     "predicts every format alike)"),
)


def unused_game_columns(model: Any, log: Any, where: str) -> None:
    """An :class:`~discrank._util.exceptions.UnusedColumnWarning` for each column of ``log`` that ``model`` leaves
    unused (``where``: the method): a context or match format given to a model that takes none, advantage
    columns given to a model fitted without them."""
    from discrank.data._screen import warn_user
    from discrank._util.exceptions import UnusedColumnWarning

    name = type(model).__name__
    for attr, capability, ignored in _PREDICTED_COLUMNS:
        if getattr(log, attr, None) is not None and not getattr(model, capability, False):
            warn_user(f"{where}: {name} {ignored}", UnusedColumnWarning)
    if getattr(log, "advantage", None) is not None and not tuple(getattr(model, "advantage_names_", ()) or ()):
        names = ", ".join(map(repr, log.advantage_names))
        warn_user(f"{where}: this {name} was fitted without advantage columns and ignores the games' column"
                  f"{'s' if len(log.advantage_names) != 1 else ''} {names} (it predicts every game as neutral; fit "
                  "it on a GameLog with them to use them)", UnusedColumnWarning)


def _check_log(log: Any, where: str) -> None:
    """A TypeError unless ``log`` is a GameLog (``where``: the method, for the message)."""
    from discrank.data.logs import GameLog

    if not isinstance(log, GameLog):
        raise TypeError(f"{where} expects a discrank.GameLog, got {type(log).__name__}")


class GamePredictions:
    """``predict_games`` and ``predict_outcomes`` of a game log, over two hooks of the model:
    ``_player_codes(a, b, unseen)`` and ``_log_outcomes(log, ia, ib)``."""

    @property
    def predicts_draws(self) -> bool:
        """Whether :meth:`predict_outcomes` gives draws a probability (the ``draws`` parameter is set)."""
        return self.get_params().get("draws") is not None  # type: ignore[attr-defined]

    def predict_outcomes(self, log: Any, *, unseen: str = "raise") -> np.ndarray:
        """[P(a wins), P(draw), P(b wins)] of each game of a log (at its time, with its advantage columns
        where the model uses them).

        Parameters
        ----------
        log : GameLog
            The games to predict (``score`` is not read), with the model's advantage columns if it has some.
        unseen : {"raise", "prior"}, optional
            A player the model has not seen is an :class:`~discrank._util.exceptions.UnknownPlayerError`
            (default), or with ``"prior"`` a player at the prior's mean.

        Returns
        -------
        ndarray, shape (n_games, 3)
            Rows summing to 1; P(draw) is 0 for a model without a draw model (:attr:`predicts_draws`).

        Raises
        ------
        discrank._util.exceptions.NotFittedError
            The model is not fitted.
        discrank._util.exceptions.UnknownPlayerError
            A player the model has not seen, with ``unseen="raise"``.
        TypeError
            ``log`` is not a :class:`~discrank.GameLog`.
        ValueError
            ``unseen`` is not one of ``("raise", "prior")``; a log without the model's advantage columns,
            or without times for a model that needs them.

        Warns
        -----
        discrank._util.exceptions.UnusedColumnWarning
            Once per column of ``log`` that the model leaves unused (:func:`unused_game_columns`).
        """
        return self._predicted_outcomes(log, unseen, f"{type(self).__name__}.predict_outcomes")

    def predict_games(self, log: Any, *, unseen: str = "raise") -> np.ndarray:
        """P(a beats b) of each game of a log: the expected score of ``a``, P(a wins) + P(draw) / 2 of
        :meth:`predict_outcomes`.

        Parameters
        ----------
        log : GameLog
            The games to predict, as for :meth:`predict_outcomes`.
        unseen : {"raise", "prior"}, optional
            As for :meth:`predict_outcomes`.

        Returns
        -------
        ndarray, shape (n_games,)

        Raises
        ------
        discrank._util.exceptions.UnknownPlayerError, TypeError, ValueError
            As :meth:`predict_outcomes`.

        Warns
        -----
        discrank._util.exceptions.UnusedColumnWarning
            As :meth:`predict_outcomes`.
        """
        return expected_score(self._predicted_outcomes(log, unseen, f"{type(self).__name__}.predict_games"))

    def _predicted_outcomes(self, log: Any, unseen: str, where: str) -> np.ndarray:
        """The three outcomes of the games of ``log`` (``where``: the method), unused columns warned about."""
        _check_log(log, where)
        ia, ib = self._player_codes(log.a, log.b, unseen)
        unused_game_columns(self, log, where)
        return self._log_outcomes(log, ia, ib)

    def _player_codes(self, a: Any, b: Any, unseen: str) -> tuple[np.ndarray, np.ndarray]:
        """The codes of the players ``a`` and ``b`` under the policy ``unseen`` (the model checks it is fitted)."""
        raise NotImplementedError

    def _log_outcomes(self, log: Any, ia: np.ndarray, ib: np.ndarray) -> np.ndarray:
        """[P(a wins), P(draw), P(b wins)] of the games of ``log`` between the coded players ``ia``, ``ib``."""
        raise NotImplementedError


class CurrentStatePredictions:
    """The predictions of a model that rates from its current state alone (OnlineElo, OnlineDisc), over its
    hook ``_outcome_proba(ia, ib)`` (-1: a player not seen): a game's time plays no part."""

    def _log_outcomes(self, log: Any, ia: np.ndarray, ib: np.ndarray) -> np.ndarray:
        """:meth:`_outcome_proba` of the games of ``log`` (the current state: times play no part)."""
        return self._outcome_proba(ia, ib)

    def predict_proba(self, a: Any, b: Any, *, unseen: str = "raise", time: Any = None, context: Any = None,
                      match_format: Any = None, outcomes: bool = False) -> Any:
        """P(a beats b) from the current state (the class says how).

        Parameters
        ----------
        a, b : array_like or scalar
            Labels of the players, one each or arrays of one length.
        unseen : {"raise", "prior"}, optional
            A player not seen is an :class:`~discrank._util.exceptions.UnknownPlayerError` (default), or with
            ``"prior"`` a player at the prior's state (the class says which).
        time, context, match_format : optional
            Refused (a ValueError naming it).
        outcomes : bool, default False
            Return [P(a wins), P(draw), P(b wins)] of each game (shape (n, 3)) instead of P(a beats b).

        Returns
        -------
        float or ndarray of float
            A float for two single players, else P(a beats b) for each pair.

        Raises
        ------
        discrank._util.exceptions.NotFittedError
            The estimator is not fitted.
        discrank._util.exceptions.UnknownPlayerError
            A player not seen, with ``unseen="raise"``.
        ValueError
            ``unseen`` is not one of ``("raise", "prior")``, or ``time``, ``context`` or ``match_format`` given.
        """
        refuse_keywords(self, context=context, match_format=match_format, time=time)
        ia, ib = self._player_codes(a, b, unseen)
        three = self._outcome_proba(ia, ib)
        if outcomes:
            return three
        proba = expected_score(three)
        return float(proba[0]) if np.ndim(a) == 0 and np.ndim(b) == 0 else proba
