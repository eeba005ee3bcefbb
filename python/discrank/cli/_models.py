"""The command line's view of the models: which estimator each ``discrank fit --model`` name builds, which
options apply to it, its table, and how ``info`` and ``plot`` read a fitted model.

A model option sets the constructor parameter of the same meaning and applies exactly when the estimator has
that parameter (``get_params``); ``--advantage`` applies when the model fits advantage covariates. An option
that does not apply is a ValueError naming the option and the model (exit status 2).
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Any, Callable, Optional

import numpy as np

from discrank.cli._args import as_labels_of
from discrank._util.labels import show

__all__ = ["load_model", "match_labels", "ModelChoice", "ModelOption", "MODEL_OPTIONS", "DEFAULT_MODEL", "model_choices", "options_of",
           "build_model", "check_fit_options", "check_fitted_advantage", "ratings_table", "verdict", "advantage_names",
           "advantage_values", "check_known", "has_draw_model", "coefficient_lines", "history_axes", "TABLE_OPTIONS"]

#: The model ``discrank fit`` fits when ``--model`` is not given.
DEFAULT_MODEL = "elo"


@dataclass(frozen=True)
class ModelChoice:
    """One ``--model`` name.

    Attributes
    ----------
    cls : type
        The estimator.
    games : bool
        Whether it is fitted on the games themselves (their times and order), not on their pairs.
    help : str
        Its line in ``discrank fit --help``.
    cv : type or None
        The estimator ``--regularization cv`` builds instead (cross-validated regularization).
    """

    cls: type
    games: bool
    help: str
    cv: Optional[type] = None


def model_choices() -> dict[str, ModelChoice]:
    """The models of ``discrank fit --model``, by name (the default, :data:`DEFAULT_MODEL`, first)."""
    from discrank import (DiscDecomposition, DiscDecompositionCV, DynamicElo, Elo, EloPlusPlus, MElo,
                          OnlineDisc, SchurDecomposition)
    from discrank.models.online._elo import OnlineElo

    return {
        "elo": ModelChoice(Elo, False, "stationary Elo (Bradley-Terry), its prior tuned: the default"),
        "elo++": ModelChoice(EloPlusPlus, False, "Elo's model fitted on the squared error (Elo++)"),
        "melo": ModelChoice(MElo, False, "m-Elo: mean scores and disc components in probability space"),
        "disc": ModelChoice(DiscDecomposition, False, "the disc decomposition (Bertrand et al. 2023), -k components",
                            cv=DiscDecompositionCV),
        "schur": ModelChoice(SchurDecomposition, False, "truncated Schur decomposition of a complete payoff matrix"),
        "dynamic": ModelChoice(DynamicElo, True, "whole-history dynamic Elo: a rating per player and --period "
                                                 "(needs --time)"),
        "online": ModelChoice(OnlineElo, True, "Elo's sequential update over the games in time order"),
        "online-disc": ModelChoice(OnlineDisc, True, "the paper's online disc update over the games in time order "
                                                     "(one component)"),
    }


@dataclass(frozen=True)
class ModelOption:
    """A ``discrank fit`` option that sets a constructor parameter of the model.

    Attributes
    ----------
    flag : str
        The option as ``--help`` shows it.
    dest : str
        Its attribute on the parsed arguments (None: not given).
    param : str
        The constructor parameter it sets.
    convert : callable
        From the parsed value to the parameter's.
    declared : str or None
        The class attribute where a model declares the values it takes (its capability, such as
        ``draw_models``); a model that declares none takes every value its parameter's checks accept.
    """

    flag: str
    dest: str
    param: str
    convert: Callable[[Any], Any] = lambda value: value
    declared: Optional[str] = None

    def refusal(self, cls: type, value: Any = None) -> Optional[str]:
        """Why the option (with ``value``; None: any value) does not apply to the model class ``cls``, or
        None when it does."""
        if self.param not in _params(cls):
            return f"{cls.__name__} has no {self.param} parameter"
        allowed = getattr(cls, self.declared, None) if self.declared else None
        if allowed is None or (value in allowed if value is not None else len(allowed) > 0):
            return None
        if not allowed:
            return f"{cls.__name__} takes no {self.param} ({self.declared} is empty)"
        return f"{cls.__name__} takes {self.param} in {tuple(allowed)}, not {value!r}"


#: The model options of ``discrank fit``; each applies to the models whose constructor takes its parameter.
MODEL_OPTIONS = (
    ModelOption("-k/--components", "components", "n_components"),
    ModelOption("--regularization", "regularization", "regularization"),
    ModelOption("--prior-scale", "prior_scale", "prior_scale"),
    ModelOption("--draws", "draws", "draws", declared="draw_models"),
    ModelOption("--period", "period", "period", lambda value: None if value == "none" else value),
    ModelOption("--drift", "drift", "drift"),
    ModelOption("--variance-scale", "variance_scale", "variance_scale"),
    ModelOption("--tuning-budget", "tuning_budget", "tuning_budget"),
    ModelOption("--context-scale", "context_scale", "context_scale"),
    ModelOption("--margin-scale", "margin_scale", "margin_scale"),
    ModelOption("--disc-components", "disc_components", "disc_components"),
    ModelOption("--disc-scale", "disc_scale", "disc_scale"),
    ModelOption("--draw-propensity-scale", "draw_propensity_scale", "draw_propensity_scale",
                lambda value: None if value == "tuned" else value),
    ModelOption("--step", "step", "step"),
    ModelOption("--threads", "threads", "n_jobs"),
)


def _params(cls: type) -> set:
    """The constructor parameters of a model class (those of an instance with the defaults)."""
    return set(cls().get_params())


def options_of(cls: type) -> list[str]:
    """The model options (:data:`MODEL_OPTIONS`) that apply to the estimator ``cls``, as flags."""
    return [o.flag for o in MODEL_OPTIONS if o.refusal(cls) is None]


def build_model(name: str, args: Any) -> Any:
    """The estimator of ``--model name`` with the model options given in ``args``.

    Parameters
    ----------
    name : str
        A key of :func:`model_choices`.
    args : argparse.Namespace
        The parsed ``fit`` arguments; a model option is given when its attribute is not None.

    Returns
    -------
    estimator
        Unfitted; ``random_state=0`` where the model takes one (the command's fits are reproducible).

    Raises
    ------
    ValueError
        A given option whose parameter the model does not take, naming the option and the model.
    """
    choice = model_choices()[name]
    params = _params(choice.cls)
    values = {}
    for option in MODEL_OPTIONS:
        value = getattr(args, option.dest, None)
        if value is None:
            continue
        why = option.refusal(choice.cls, value)
        if why is not None:
            raise ValueError(f"{option.flag} does not apply to --model {name}: {why}; its options: "
                             f"{', '.join(options_of(choice.cls)) or 'none'}")
        values[option.param] = option.convert(value)
    cls = choice.cls
    if values.get("regularization") == "cv":
        cls = choice.cv
        del values["regularization"]
    if "random_state" in params:
        values["random_state"] = 0
    return cls(**values)


def _takes_advantage(model: Any) -> bool:
    """Whether ``model`` fits advantage covariates (its ``takes_advantage``)."""
    return bool(model.takes_advantage)


def check_fit_options(name: str, model: Any, args: Any) -> None:
    """Refuse, before the fit, the ``fit`` options that do not apply to ``model`` (``--advantage``,
    ``--min-games``, ``--table-context``, ``--table-max-sd``): a ValueError names the option and the model."""
    what = f"--model {name}: {type(model).__name__}"
    if getattr(args, "advantage", None) and not _takes_advantage(model):
        raise ValueError(f"--advantage {' '.join(args.advantage)} does not apply to {what} fits no advantage "
                         "covariates")
    if model_choices()[name].games and args.min_games > 1:
        raise ValueError(f"--min-games does not apply to {what} is fitted on the games, not on their pairs "
                         "(--min-player-games filters its players)")
    takes_context = getattr(model, "takes_context", False)
    has_context = getattr(args, "context", None) or getattr(args, "reader", None) == "tennis"  # (its surfaces)
    if getattr(args, "table_context", None) is not None and not (takes_context and has_context):
        raise ValueError(f"--table-context does not apply to {what} is fitted without contexts (--model dynamic "
                         "with --context COL fits them)")
    if getattr(args, "table_max_sd", None) is not None and "variance_scale" not in model.get_params():
        raise ValueError(f"--table-max-sd does not apply to {what}'s ratings have no standard deviation (--model "
                         "dynamic's have one)")


def check_fitted_advantage(name: str, model: Any, log: Any) -> None:
    """After a fit on a log with advantage columns: a ValueError naming ``--advantage`` and the model when
    the model did not fit a coefficient for each column (``advantage_names_``)."""
    if log.advantage is None:
        return
    fitted = advantage_names(model)
    if fitted != tuple(log.advantage_names):
        raise ValueError(f"--advantage {' '.join(log.advantage_names)} does not apply to --model {name}: "
                         f"{type(model).__name__} fitted no coefficient for them")


def ratings_table(model: Any, **options: Any):
    """The model's table of ratings, best first: ``ratings_frame(**options)`` (the options not None), or for a
    model without one, each player's latest rating (``history()``) or ``ratings_``, ranked."""
    options = {key: value for key, value in options.items() if value is not None}
    labels = getattr(model, "context_labels_", None)
    if "context" in options and labels is not None:  # (a command-line value is text: read as the fitted labels)
        options["context"] = as_labels_of(np.asarray(labels), np.array([options["context"]], dtype=object),
                                           "--table-context")[0]
    frame = getattr(model, "ratings_frame", None)
    if frame is not None:
        return frame(**options)
    if options:
        raise ValueError(f"{type(model).__name__} has no table to filter: "
                         f"{', '.join(TABLE_OPTIONS[k] for k in options)} do not apply")
    import pandas as pd

    if hasattr(model, "history"):
        history = model.history()
        by_player = history.groupby("player", sort=False)
        table = by_player.tail(1)[["player", "time", "rating", "sd"]].rename(columns={"time": "last_period"})
        table.insert(1, "games", by_player["games"].sum().loc[table["player"]].to_numpy())
    else:
        table = pd.DataFrame({"player": model.labels_, "rating": model.ratings_})
    table = table.sort_values("rating", ascending=False, kind="stable").reset_index(drop=True)
    table.insert(1, "rank", np.arange(1, len(table) + 1))
    return table


#: The options of ``fit`` that shape its table, by their ``ratings_frame`` keyword.
TABLE_OPTIONS = {"min_games": "--table-min-games", "max_sd": "--table-max-sd", "active_since": "--active-since",
                 "context": "--table-context"}


def verdict(model: Any) -> str:
    """The model's summary of its fit (its ``_verdict``), or "" for a model without one."""
    describe = getattr(model, "_verdict", None)
    return describe() if describe is not None else ""


# ------------------------------------------------------------------ predictions
def advantage_names(model: Any) -> tuple:
    """The names of the advantage covariates ``model`` was fitted with (empty without)."""
    return tuple(getattr(model, "advantage_names_", ()) or ())


def has_draw_model(model: Any) -> bool:
    """Whether ``model`` predicts three outcomes: its ``predicts_draws`` where it declares it (the prediction
    protocol), else whether its ``draws`` parameter is set."""
    declared = getattr(model, "predicts_draws", None)
    return bool(declared) if declared is not None else model.get_params().get("draws") is not None


def advantage_values(model: Any, items: Optional[list], source: str) -> dict[str, float]:
    """The ``--advantage NAME=VALUE`` values of ``predict``, by covariate name.

    Raises
    ------
    ValueError
        Values for a model fitted without covariates, an item that is not ``NAME=VALUE``, a name that is
        not one of the model's covariates or a value that is not a finite number, each named.
    """
    names = advantage_names(model)
    if items and not names:
        raise ValueError(f"--advantage does not apply to {source}: its {type(model).__name__} was fitted without "
                         "advantage columns")
    values = {}
    for item in items or ():
        name, sep, text = item.partition("=")
        if not sep:
            raise ValueError(f"--advantage {item!r} is not NAME=VALUE (the model's advantage columns: "
                             f"{', '.join(names)})")
        if name not in names:
            raise ValueError(f"--advantage {name!r} is not an advantage column of {source}; its columns are "
                             f"{', '.join(map(repr, names))}")
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not math.isfinite(value):
            raise ValueError(f"--advantage {name}={text!r}: the value is not a finite number")
        values[name] = value
    return values


def check_known(model: Any, labels: np.ndarray, unseen: str, source: str) -> np.ndarray:
    """The distinct labels of ``labels`` that are not players of ``model``, in order of appearance; with
    ``unseen="raise"`` the first of them is a ValueError naming it (``source``: where it was given)."""
    unknown = labels[~np.isin(labels, np.asarray(model.labels_))]
    unknown = unknown[np.sort(np.unique(unknown, return_index=True)[1])]
    if unknown.size and unseen == "raise":
        from discrank.models._prediction import near_misses

        others = unknown.size - 1
        near = near_misses(unknown[0].item() if isinstance(unknown[0], np.generic) else unknown[0],
                           np.asarray(model.labels_))
        hint = f" (did you mean {' or '.join(show(v) for v in near)}?)" if near else ""
        raise ValueError(f"unknown player {show(unknown[0])}{hint}: not one of the {len(model.labels_)} players of "
                         f"{source}" + (f"; {others} other unknown label{'s' if others > 1 else ''}"
                                                if others else "")
                         + "; --unseen prior predicts an unknown player from the model's prior")
    return unknown


# ------------------------------------------------------------------ info and plot
def _draw_row(model: Any) -> Optional[tuple]:
    """(name, estimate, standard error) of the fitted draw parameter, on the scale it is fitted on."""
    draws = model.get_params().get("draws")
    if draws is None:
        return None
    eta = getattr(model, "draw_eta_", None)
    if eta is None:
        nu = getattr(model, "draw_nu_", None)
        eta = math.log(nu) if nu is not None else getattr(model, "draw_threshold_", None)
    name = "draws: log nu (Davidson)" if draws == "davidson" else "draws: threshold kappa (Rao-Kupper)"
    return name, eta, getattr(model, "draw_eta_se_", None)


#: Fitted scalars ``info`` prints where a model has them (no standard error), with their names.
_SCALARS = (("prior scale", "prior_scale_"), ("drift per period", "drift_"), ("variance scale", "variance_scale_"),
            ("step", "step_"))


def coefficient_lines(model: Any) -> list[str]:
    """The lines ``info`` prints of the fitted coefficients of ``model`` with their standard errors (advantage,
    draw parameter, then the scalars of :data:`_SCALARS`); empty when it has none."""
    rows = []
    names = advantage_names(model)
    beta, se = getattr(model, "beta_", None), getattr(model, "beta_se_", None) if names else None
    rows += [(f"advantage {name!r}", beta[k], None if se is None else se[k]) for k, name in enumerate(names)]
    draw = _draw_row(model)
    if draw is not None:
        rows.append(draw)
    rows += [(name, getattr(model, attr), None) for name, attr in _SCALARS if getattr(model, attr, None) is not None]
    if not rows:
        return []
    header = "fitted parameters"
    width = max(max(len(r[0]) for r in rows) + 2, len(header))
    lines = [f"{header:<{width + 2}}{'estimate':>10}  {'std. error':>10}"]
    for name, value, error in rows:
        lines.append(f"  {name:<{width}}{float(value):>10.4f}  {'' if error is None else f'{float(error):.4f}':>10}".rstrip())
    return lines


def history_axes(model: Any, players: Optional[np.ndarray], top: int, source: str) -> Any:
    """The plotted rating histories of ``players`` (default: the ``top`` best now, at most 8) of a whole-history
    model; None for a model without histories. ``players`` given there, or an unknown player, is a ValueError."""
    if not hasattr(model, "plot_history"):
        if players is not None:
            raise ValueError(f"--players does not apply to {source}: its {type(model).__name__} has no rating "
                             "histories (a dynamic model has: discrank fit --model dynamic)")
        return None
    if players is None:
        latest = model.history().groupby("player", sort=False).tail(1)  # each player's last period
        players = latest.sort_values("rating", ascending=False)["player"].to_numpy()[:min(top, 8)]
    check_known(model, players, "raise", source)
    return model.plot_history(players)


def load_model(path: str):
    from discrank.persist.model_file import load

    if not os.path.exists(path):
        raise ValueError(f"{path}: no such model file")
    return load(path)


def match_labels(model, values: np.ndarray) -> np.ndarray:
    """Command-line labels are text: read them as the model's labels are, integers, floats or text."""
    labels = np.asarray(model.labels_)
    if labels.dtype.kind in "iuf":
        number, kind = (int, "integers") if labels.dtype.kind in "iu" else (float, "numbers")
        out = []
        for v in values.tolist():
            try:
                out.append(number(v) if isinstance(v, str) else v)
            except ValueError:
                raise ValueError(f"unknown player {show(v)}: this model's players are {kind}") from None
        return np.array(out)
    return values.astype(str)

