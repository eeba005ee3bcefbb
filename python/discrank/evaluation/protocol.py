"""The protocol of a rating model: what :func:`discrank.evaluate` asks of every model it compares.

Every discrank estimator follows :class:`RatingModel` (``discrank.models._base.Model`` declares its
capabilities, each class sets its own). Any other object with ``fit(log)`` and ``predict_proba(a, b)`` is read
once, at the boundary, by :class:`ForeignModel`; the evaluation then asks the protocol alone.
"""

from __future__ import annotations

import copy
import inspect
from typing import Any, Protocol, runtime_checkable

import numpy as np

__all__ = ["RatingModel", "ForeignModel", "as_rating_model"]


@runtime_checkable
class RatingModel(Protocol):
    """A model that :func:`discrank.evaluate` fits on the past and asks to predict the future.

    Attributes
    ----------
    sequential_updates : bool
        Its ratings move after every game (online Elo): the online protocol gives it one group per
        distinct time, each game predicted from every game before it.
    batch_updates : bool
        ``update(a)`` then ``update(b)`` is ``update(a + b)``: the groups with no scored game are given at
        once.
    updates : bool
        ``update(log)`` continues the fit with later games; otherwise the online protocol refits a copy
        (:meth:`refit_copy`) on every game so far.
    takes_advantage : bool
        It fits advantage covariates; otherwise it is given logs without them.
    takes_context : bool
        It fits the log's contexts (:attr:`discrank.GameLog.context`); otherwise it is given logs without them.
    takes_margin : bool
        It fits the log's margins (:attr:`discrank.GameLog.margin`: the sub-contests won by each side) in the
        games it is fitted and updated on; otherwise it is given logs without them. A game to predict never
        has its margin.
    takes_format : bool
        It fits the log's match formats (:attr:`discrank.GameLog.match_format`: "bo3", "bo5"); otherwise it is
        given logs without them.
    predicts_draws : bool
        ``predict_outcomes`` gives draws a probability: its three outcomes are scored.

    discrank's models declare one more capability, ``distributed_parts``, which :func:`discrank.dask.fit`
    reads: ``"pairs"`` or ``"rows"`` (what its solver spreads over the workers), or None (a fit of its
    own, in process).
    """

    sequential_updates: bool
    batch_updates: bool
    updates: bool
    takes_advantage: bool
    takes_context: bool
    takes_margin: bool
    takes_format: bool

    @property
    def predicts_draws(self) -> bool: ...

    def get_params(self, deep: bool = True) -> dict: ...

    def fit(self, data: Any, *, validation: Any = None) -> Any: ...

    def predict_games(self, log: Any, *, unseen: str = "raise") -> np.ndarray: ...

    def predict_outcomes(self, log: Any, *, unseen: str = "raise") -> np.ndarray: ...

    def refit_copy(self) -> Any: ...

    def relabel(self, labels: np.ndarray) -> None: ...


class ForeignModel:
    """:class:`RatingModel` for an object of another library with ``fit(log)`` and ``predict_proba(a, b)``
    (and, optionally, ``update(log)``, ``sequential_updates``, ``batch_updates``, ``takes_advantage``,
    ``takes_context``, ``takes_margin``, ``takes_format``, ``predict_games``, ``predict_outcomes``, ``predicts_draws``,
    ``relabel`` and a ``validation=`` argument of ``fit``), its capabilities read once, here.

    Parameters
    ----------
    model : object
        The model; :attr:`model` is it, fitted in place.
    """

    def __init__(self, model: Any) -> None:
        if not (callable(getattr(model, "fit", None)) and callable(getattr(model, "predict_proba", None))):
            raise TypeError(f"{type(model).__name__} has no fit / predict_proba: a model to evaluate follows "
                            "discrank.evaluation.protocol.RatingModel, or has fit(log) and predict_proba(a, b)")
        self.model = model
        self.sequential_updates = getattr(model, "sequential_updates", False) is True
        self.batch_updates = getattr(model, "batch_updates", False) is True
        self.updates = callable(getattr(model, "update", None))
        self.takes_advantage = getattr(model, "takes_advantage", True) is not False
        self.takes_context = getattr(model, "takes_context", False) is True
        self.takes_margin = getattr(model, "takes_margin", False) is True
        self.takes_format = getattr(model, "takes_format", False) is True
        self._games = callable(getattr(model, "predict_games", None))
        self._outcomes = (callable(getattr(model, "predict_outcomes", None))
                          and getattr(model, "predicts_draws", True) is not False)
        try:
            self._validation = "validation" in inspect.signature(model.fit).parameters
        except (TypeError, ValueError):
            self._validation = False

    @property
    def predicts_draws(self) -> bool:
        """Whether its ``predict_outcomes`` is scored (it has one, and does not declare ``predicts_draws``
        False)."""
        return self._outcomes

    def get_params(self, deep: bool = True) -> dict:
        """``{"model": a deep copy of the model}`` (the model itself when it cannot be copied: it is then
        refitted in place), so that ``ForeignModel(**get_params())`` is a fresh copy to fit."""
        try:
            return {"model": copy.deepcopy(self.model)}
        except (TypeError, copy.Error):
            return {"model": self.model}

    def fit(self, data: Any, *, validation: Any = None) -> "ForeignModel":
        """The model's ``fit(data)`` (with ``validation`` where its ``fit`` takes it)."""
        if self._validation:
            self.model.fit(data, validation=validation)
        else:
            self.model.fit(data)
        return self

    def update(self, log: Any) -> "ForeignModel":
        """The model's ``update(log)``."""
        self.model.update(log)
        return self

    def predict_games(self, log: Any, *, unseen: str = "raise") -> np.ndarray:
        """The model's ``predict_games(log)``, else ``predict_proba(log.a, log.b)`` (``unseen`` passed on
        when it is "prior")."""
        kw = {"unseen": "prior"} if unseen == "prior" else {}
        if self._games:
            return np.asarray(self.model.predict_games(log, **kw), dtype=np.float64)
        return np.asarray(self.model.predict_proba(log.a, log.b, **kw), dtype=np.float64)

    def predict_outcomes(self, log: Any, *, unseen: str = "raise") -> np.ndarray:
        """The model's ``predict_outcomes(log)``; [p, 0, 1 - p] for a model without one."""
        kw = {"unseen": "prior"} if unseen == "prior" else {}
        if callable(getattr(self.model, "predict_outcomes", None)):
            return np.asarray(self.model.predict_outcomes(log, **kw), dtype=np.float64)
        p = self.predict_games(log, unseen=unseen)
        return np.stack([p, np.zeros_like(p), 1.0 - p], axis=1)

    def refit_copy(self) -> "ForeignModel":
        """Itself: an object of another library is refitted in place."""
        return self

    def relabel(self, labels: np.ndarray) -> None:
        """The model's ``relabel(labels)``, where it has one."""
        if callable(getattr(self.model, "relabel", None)):
            self.model.relabel(labels)


def as_rating_model(model: Any) -> Any:
    """``model`` when it follows :class:`RatingModel`, else :class:`ForeignModel` of it."""
    return model if isinstance(model, RatingModel) else ForeignModel(model)
