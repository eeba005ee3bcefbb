"""What every model shares (:class:`Model`): parameters, the fitted check, the players, saving and loading
from declared fields, the prediction protocol and the table. The pair models' base is
:class:`~discrank.models._pairwise.PairwiseModel`."""

from __future__ import annotations

import functools
import inspect
from typing import Any, Callable, Optional

import numpy as np

from discrank.core import _core
from discrank.persist import model_file as persist
from discrank._util.labels import LabelIndex
from discrank._util.params import check_param
from discrank._util.exceptions import NotFittedError, UnusedColumnWarning
from discrank.models._prediction import GamePredictions, code_players
from discrank.models._table import table_rows

__all__ = ["Model", "Params", "elo_points", "atomic", "stores_params", "unused_columns", "LOSSES"]

#: Loss names and their ids in the compiled core (cpp/include/discrank/losses.hpp).
LOSSES = {
    "bce": _core.LOSS_BCE,
    "squared_logit": _core.LOSS_SQUARED_LOGIT,
    "probability": _core.LOSS_PROBABILITY,
    "sigmoid_squared": _core.LOSS_SIGMOID_SQUARED,
}


def atomic(fit: Callable) -> Callable:
    """Make a ``fit`` method all or nothing: when it raises or is interrupted (Ctrl-C), the estimator is
    left as it was before the call, unfitted or with its previous fit whole (the fitted attributes are
    new arrays, never written in place, so the previous ones are kept by reference)."""

    @functools.wraps(fit)
    def wrapper(self, *args, **kwargs):
        before = dict(self.__dict__)
        try:
            return fit(self, *args, **kwargs)
        except BaseException:
            self.__dict__.clear()
            self.__dict__.update(before)
            raise

    return wrapper


def stores_params(init: Callable) -> Callable:
    """A model's ``__init__`` written as its signature alone: each argument is stored under its name, as
    scikit-learn's contract asks (the constructor only stores its parameters), and the signature stays the
    decorated function's, which :meth:`Params._param_names` reads."""
    signature = inspect.signature(init)

    @functools.wraps(init)
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        bound = signature.bind(self, *args, **kwargs)
        bound.apply_defaults()
        for name, value in list(bound.arguments.items())[1:]:
            setattr(self, name, value)

    return __init__


class Params:
    """scikit-learn's parameter contract from the constructor's signature: ``get_params``,
    ``set_params`` and the ``repr`` (shared by the pair models, OnlineElo and DynamicElo)."""

    @classmethod
    def _param_names(cls) -> list[str]:
        sig = inspect.signature(cls.__init__)
        return [p.name for p in sig.parameters.values() if p.name != "self" and p.kind != p.VAR_KEYWORD]

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """The constructor's parameters (scikit-learn's contract; ``sklearn.base.clone`` works).

        Parameters
        ----------
        deep : bool, optional
            Ignored: no parameter is an estimator.

        Returns
        -------
        dict
            Each parameter's name and value.
        """
        return {name: getattr(self, name) for name in self._param_names()}

    def set_params(self, **params: Any) -> "Params":
        """Set parameters by name; checked by the next ``fit``.

        Parameters
        ----------
        **params
            Parameters of the constructor.

        Returns
        -------
        object
            ``self``.

        Raises
        ------
        ValueError
            A name that is not a parameter of the model.
        """
        valid = self._param_names()
        for name, value in params.items():
            if name not in valid:
                raise ValueError(f"invalid parameter {name!r} for {type(self).__name__}; valid: {valid}")
            setattr(self, name, value)
        return self

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({args})"

    # ---------------------------------------------------------------- draws
    #: The draw models the class fits: the values its ``draws`` parameter takes besides None (among
    #: ``discrank.solvers._draws.DRAWS``). Empty: two outcomes only. The CLI and the docs read it.
    draw_models: tuple = ()


class Model(Params, GamePredictions):
    """The base of every estimator: what each model does the same way, written once.

    - the parameter contract (:class:`Params`) and the checks of :meth:`_check_params` (the rules of
      :mod:`discrank._util.params`, which model files are checked by too);
    - the fitted check: a model used before ``fit`` raises :class:`~discrank._util.exceptions.NotFittedError`;
    - the players: ``labels_``, the lookup from labels to codes, :meth:`relabel`;
    - saving and loading from the fields declared below (``_fitted_arrays``, ``_fitted_scalars``, ``_choices``,
      ``_optional_params`` ...): a public class that declares ``_fitted_arrays`` is registered with
      :mod:`discrank.persist.model_file`, and :meth:`_rebuild` derives and checks the rest after loading;
    - the prediction protocol (:class:`~discrank.models._prediction.GamePredictions`);
    - the table of ``ratings_frame`` (:meth:`_frame`).
    """

    #: The advantage coefficients and their columns' names: none until a fit with covariates sets them.
    beta_: Optional[np.ndarray] = None
    advantage_names_: tuple = ()
    #: The fitted arrays a model file holds (``discrank.persist.model_file``); empty: the model is not saved itself.
    _fitted_arrays: tuple = ()
    #: The fitted scalars a model file holds, by name (``discrank.persist.model_file`` checks each by its rule).
    _fitted_scalars: tuple = ()
    #: The fitted dataclasses whose fields are fitted arrays (``"games_.a"``), by attribute.
    _fitted_records: dict = {}
    #: The allowed values of the parameters and fitted scalars that take one of a few strings.
    _choices: dict = {}
    #: Parameters for which None is allowed beside their rule (None: a default resolved by the fit).
    _optional_params: tuple = ()
    #: Fitted attributes a model file holds that the model derives again on loading instead (the
    #: covariates' standard errors of a model that computes them from its state).
    _derived_on_load: tuple = ()
    #: Fitted records (dicts) a model file holds as JSON (:mod:`discrank.persist.model_file`): the tuning's.
    _fitted_json: tuple = ()
    #: The capabilities of the rating-model protocol (:class:`discrank.evaluation.protocol.RatingModel`), which
    #: ``discrank.evaluate`` reads: ratings moved after every game, updates that batch, an ``update``
    #: that continues the fit (else a refit of :meth:`refit_copy`), advantage covariates fitted.
    sequential_updates: bool = False
    batch_updates: bool = False
    updates: bool = False
    takes_advantage: bool = True
    #: Whether ``fit`` uses a log's contexts (:attr:`discrank.GameLog.context`): DynamicElo's context effects.
    takes_context: bool = False
    #: Whether ``fit`` uses a log's margins (:attr:`discrank.GameLog.margin`): DynamicElo's margin likelihood.
    takes_margin: bool = False
    #: Whether ``fit`` uses a log's match formats (:attr:`discrank.GameLog.match_format`: "bo3", "bo5").
    takes_format: bool = False
    #: What :func:`discrank.dask.fit` spreads over the workers: ``"pairs"`` (the pair models' pipeline,
    #: ``_fit_pairs``, given the fit data's builder), ``"rows"`` (the whole-history rows, ``_fit_log``
    #: given ``rows_of``), or None: a fit of its own, in process.
    distributed_parts: Optional[str] = None

    def refit_copy(self) -> "Model":
        """A fresh copy of this fitted model to refit on more games with no tuning: its parameters, with a
        ``prior_scale`` of None set to the tuned ``prior_scale_`` (the online protocol's refits).

        Returns
        -------
        Model
            Unfitted.
        """
        params = self.get_params()
        if params.get("prior_scale", 0.0) is None and getattr(self, "prior_scale_", None) is not None:
            params["prior_scale"] = float(self.prior_scale_)
        return type(self)(**params)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Register a public model class that declares its fitted arrays with :mod:`discrank.persist.model_file`."""
        super().__init_subclass__(**kwargs)
        if cls._fitted_arrays and not cls.__name__.startswith("_"):
            persist.register(cls)

    def _check_params(self, names: Optional[tuple] = None) -> None:
        """Check the parameters ``names`` (default: every parameter) by their rules: one of the class's
        ``_choices`` (or None, for ``_optional_params``), else the rule of :mod:`discrank._util.params`; a
        ValueError or TypeError names the parameter and the value."""
        for name in self._param_names() if names is None else names:
            value = getattr(self, name)
            if name in self._choices:
                if value is None and name in self._optional_params:
                    continue
                if not isinstance(value, str) or value not in self._choices[name]:
                    none = " or None" if name in self._optional_params else ""
                    raise ValueError(f"{name}={value!r} is not one of {tuple(self._choices[name])}{none}")
            else:
                check_param(type(self), name, value)

    # ------------------------------------------------------------------ the fitted state
    def __sklearn_is_fitted__(self) -> bool:
        """Whether ``fit`` has run (``sklearn.utils.validation.check_is_fitted`` asks this)."""
        return hasattr(self, "labels_")

    def _check_fitted(self) -> None:
        """A :class:`~discrank._util.exceptions.NotFittedError` naming the class when ``fit`` has not run."""
        if not hasattr(self, "labels_"):
            raise NotFittedError(f"this {type(self).__name__} is not fitted yet: call fit(data) first")

    def _forget_labels(self) -> None:
        """Drop the label lookup, built again from ``labels_`` when next needed."""
        self._label_index = None

    def _label_lookup(self) -> LabelIndex:
        """The lookup from labels to player indices, built from ``labels_`` on first use."""
        if getattr(self, "_label_index", None) is None:
            self._label_index = LabelIndex(self.labels_)
        return self._label_index

    def _player_codes(self, a: Any, b: Any, unseen: str) -> tuple[np.ndarray, np.ndarray]:
        """The codes of the players ``a`` and ``b`` (:func:`code_players`): -1 for a player not seen with
        ``unseen="prior"``, else an :class:`~discrank._util.exceptions.UnknownPlayerError`."""
        self._check_fitted()
        return code_players(self._label_lookup(), a, b, unseen, type(self).__name__)

    def relabel(self, labels: np.ndarray) -> None:
        """Give a model fitted on player codes its players' labels (``discrank.evaluate`` fits on codes).

        Parameters
        ----------
        labels : ndarray
            ``labels[c]`` is the label of the player coded ``c``; ``labels_`` becomes ``labels[labels_]``.
        """
        self._check_fitted()
        self.labels_ = labels[np.asarray(self.labels_, dtype=np.int64)]
        self._forget_labels()

    # ------------------------------------------------------------------ saving and loading
    def save(self, path: Any) -> None:
        """Write the fitted model to an ``.npz`` file (``discrank.load`` reads it; no pickle).

        Parameters
        ----------
        path : str or path-like
            The file (numpy adds ``.npz`` when missing).

        Raises
        ------
        discrank._util.exceptions.NotFittedError
            The model is not fitted.
        TypeError
            A model whose class declares no fitted state to save.
        """
        persist.save(self, path)

    def _saved_model(self) -> "Model":
        """The model a file holds for this one (``discrank.persist.model_file.save``): itself."""
        return self

    def _load_state(self, labels: np.ndarray, fields: dict[str, Any], scalars: dict[str, Any],
                    advantage: tuple = ((), None, None)) -> None:
        """Set the fitted state read from a model file (``discrank.persist.model_file.load``), then :meth:`_rebuild`.

        Parameters
        ----------
        labels : ndarray
            The players.
        fields : dict
            The fitted arrays by their declared name (``_fitted_arrays``; a field of a fitted dataclass,
            ``"games_.a"``, goes into that dataclass of ``_fitted_records``; an optional one absent: None).
        scalars : dict
            The fitted scalars, checked against ``_fitted_scalars``.
        advantage : tuple, optional
            ``(names, beta, beta_se)`` of a model fitted with advantage covariates; default: none.
        """
        records: dict[str, dict] = {}
        for name, value in {**fields, **scalars}.items():
            owner, _, field = name.partition(".")
            if field:
                records.setdefault(owner, {})[field] = value
            else:
                setattr(self, name, value)
        for owner, values in records.items():
            setattr(self, owner, self._fitted_records[owner](**values))
        names, beta, se = advantage
        self.advantage_names_, self.beta_ = tuple(names), beta
        if "beta_se_" not in self._derived_on_load:
            self.beta_se_ = se
        self.labels_ = labels
        self._forget_labels()
        self._rebuild()

    def _rebuild(self) -> None:
        """Compute again what the fit derives from the fitted fields, checking them against each other (a
        ValueError names the field); none here."""

    # ------------------------------------------------------------------ the table
    def _frame(self, columns: dict[str, np.ndarray], key: Optional[np.ndarray], games: np.ndarray, *,
               elo: Optional[np.ndarray] = None, anchor: Any = None, anchor_rating: float = 1500.0,
               keep: Optional[np.ndarray] = None, min_games: Any = None, max_sd: Any = None, since: str = ""):
        """The table of ``ratings_frame``: ``player``, ``rank``, ``games``, ``elo`` and ``columns`` (in the
        players' order), one row per player (those of the mask ``keep``), sorted by ``key`` best first.

        Parameters
        ----------
        columns : dict
            The model's columns.
        key : ndarray or None
            The values the players are ranked by, higher first; None: no ranking (``rank`` NaN, unsorted).
        games : ndarray
            Each player's games.
        elo : ndarray, optional
            Logit-scale ratings shown as the ``elo`` column (:func:`elo_points`: ``anchor`` and
            ``anchor_rating``, the reference taken over every player); None: no such column.
        keep : ndarray of bool, optional
            The players ``active_since`` keeps (``since``: its value); default: every player.
        min_games, max_sd : optional
            Hide the players with fewer games, and the ratings of a larger standard deviation (the column ``sd``).

        Returns
        -------
        pandas.DataFrame
            The players shown (ranked among themselves), with the column ``provisional``
            (:mod:`discrank.models._table`'s rule); ``df.attrs["model"]`` the class name and ``df.attrs["note"]``
            the line that says how many players are hidden and marked.
        """
        try:
            import pandas as pd
        except ImportError as exc:  # pragma: no cover
            raise ImportError("ratings_frame needs pandas: pip install 'discrank[pandas]'") from exc
        if elo is not None:
            columns = {"elo": elo_points(elo, self._label_lookup(), anchor, anchor_rating), **columns}
        shown, provisional, note = table_rows(type(self).__name__, games, columns.get("sd"), keep, min_games, max_sd,
                                              since)
        frame = pd.DataFrame({"player": self.labels_, "games": games, **columns, "provisional": provisional})
        if not shown.all():
            frame, key = frame[shown], None if key is None else key[shown]
        if key is not None:
            frame = frame.iloc[np.argsort(-key, kind="stable")].reset_index(drop=True)
            frame.insert(1, "rank", np.arange(1, len(frame) + 1))
        else:
            frame = frame.reset_index(drop=True)
            frame.insert(1, "rank", np.full(len(frame), np.nan))
        frame.attrs["model"] = type(self).__name__
        frame.attrs["note"] = note
        return frame




def elo_points(ratings: np.ndarray, lookup: LabelIndex, anchor: Any, anchor_rating: float) -> np.ndarray:
    """Ratings in logits on the familiar Elo scale: ``anchor_rating + 400 / ln 10 * (rating - reference)``,
    the reference being the mean rating or, with ``anchor=label``, that player's (``lookup`` codes it)."""
    ref = float(np.mean(ratings)) if anchor is None else float(ratings[lookup.index([anchor], "anchor")[0]])
    return anchor_rating + 400.0 / np.log(10.0) * (ratings - ref)


#: The columns of a game log that only DynamicElo fits: (attribute, what a model that takes none does with it,
#: what DynamicElo makes of it).
_DYNAMIC_COLUMNS = (
    ("context", "takes no contexts and ignores the log's context column (its ratings hold across contexts)",
     "a player-by-context effect (context_scale)"),
    ("margin", "takes no margins and ignores the log's margin columns (it fits the results alone)",
     "a margin likelihood (margin_scale)"),
    ("match_format", "takes no match formats and ignores the log's match_format column (its ratings hold across "
     "formats)", "each format's scale of the logit"),
)


def unused_columns(log: Any, where: str, model: Optional[str] = None) -> None:
    """An :class:`~discrank._util.exceptions.UnusedColumnWarning` for each column of ``log`` that ``where``
    (``"Elo.fit"``), a model that takes none (``takes_context``, ``takes_margin``, ``takes_format`` False),
    ignores: a context column (it fits the games over every context), margin columns (it fits the games' results
    alone), a match format column (it fits the games over every format). ``model``: the model's name in the
    message (default: ``where`` up to its first dot)."""
    from discrank.data._screen import warn_user

    model = where.split(".")[0] if model is None else model
    for attr, ignored, fitted in _DYNAMIC_COLUMNS:
        if getattr(log, attr, None) is not None:
            warn_user(f"{where}: {model} {ignored}; DynamicElo fits {fitted}", UnusedColumnWarning)
