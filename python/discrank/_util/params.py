"""The rules of the models' parameters, written once: what each parameter must be, by name.

:data:`RULES` maps a parameter's name to its :class:`Rule`: a predicate of the values it accepts and what
the value must be, in words. The models check their parameters with it (:func:`check_params`, in ``fit``)
and :mod:`discrank.persist.model_file` checks a model file's with it, so a value refused by one is refused by
the other in the same words: ``"{name} must be {what}, got {value}"`` from a model,
``"params.{name} = {value} is not {what}"`` from a file (:func:`file_refusal`). A class may give a parameter
a rule of its own (``_param_rules``: :class:`discrank.DynamicElo`'s ``prior_scale`` must be finite) and
declares the parameters None is allowed for (``_optional_params``); the choices of string parameters are
its ``_choices``. A rule with a ``check`` raises that check's own messages (say why ``prior_scale=1e-300``
is refused); its predicate is the check.
"""

from __future__ import annotations

import math
import numbers
from typing import Any, Callable, NamedTuple, Optional

from discrank._util.calendar import PERIODS
from discrank._util.checks import check_positive_int, check_random_state, check_verbose, show
from discrank._util.threads import resolve_n_jobs

__all__ = ["Rule", "RULES", "FINITE_PRIOR_SCALE", "MAX_NEGATIVE_N_JOBS", "rule_of", "check_param", "check_params",
           "file_refusal", "check_prior_scale"]

#: The most negative ``n_jobs`` a parameter may hold (``-cores``, all but ``cores - 1`` cores), whatever the
#: machine: a fit checks it against the machine's cores (:func:`discrank._util.threads.resolve_n_jobs`).
MAX_NEGATIVE_N_JOBS = 1 << 16


class Rule(NamedTuple):
    """What one parameter must be."""

    #: Whether a value is accepted.
    accepts: Callable[[Any], bool]
    #: What an accepted value is, in words ("a positive finite number").
    what: str
    #: ``check(value, name)`` -> the value, or its own ValueError/TypeError naming the value; None: the
    #: message of :func:`check_param`.
    check: Optional[Callable[[Any, str], Any]] = None


def check_prior_scale(value: Any, name: str = "prior_scale") -> Optional[float]:
    """None (tune), a positive float, or ``inf`` (no prior); anything else is a ValueError/TypeError."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be None (tuned), a positive number or numpy.inf (no prior), got {value!r}")
    given, value = value, float(value)
    if math.isnan(value) or value <= 0.0:
        raise ValueError(f"{name} must be a positive number (or numpy.inf for no prior, None to tune it), got {given!r}")
    if value != math.inf and (value * value == 0.0 or 1.0 / (value * value) == math.inf):
        raise ValueError(f"{name}={given!r} is too small: 1 / {name}^2 overflows")
    if value != math.inf and 1.0 / (value * value) == 0.0:
        raise ValueError(f"{name}={given!r} is too large: 1 / {name}^2 underflows to 0; numpy.inf is no prior")
    return value


def _is_int(v: Any) -> bool:
    return isinstance(v, numbers.Integral) and not isinstance(v, bool) and type(v).__name__ != "bool_"


def _is_real(v: Any) -> bool:
    return (isinstance(v, numbers.Real) and not isinstance(v, bool) and type(v).__name__ != "bool_"
            and not math.isnan(v))


def _positive_finite(v: Any) -> bool:
    return _is_real(v) and math.isfinite(v) and v > 0


def _passes(check: Callable[[Any, str], Any]) -> Callable[[Any], bool]:
    """The predicate of a check: whether it takes the value without an error."""

    def accepts(v: Any) -> bool:
        try:
            check(v, "value")
        except (TypeError, ValueError, ArithmeticError):
            return False
        return True

    return accepts


def _n_jobs_in_range(v: Any) -> bool:
    return v is None or (_is_int(v) and v != 0 and v >= -MAX_NEGATIVE_N_JOBS)


def _check_n_jobs(value: Any, name: str) -> Any:
    """The machine's rule first (its messages: a non-integer, 0, below ``-cores``), then the table's."""
    resolve_n_jobs(value, warn=False)  # a fit resolves it again, and warns there
    if not _n_jobs_in_range(value):
        raise ValueError(f"{name} must be {RULES[name].what}, got {show(value)}")
    return value


def _check_period(value: Any, name: str) -> Any:
    """A calendar period (:data:`discrank._util.calendar.PERIODS`) or a positive finite bin width."""
    if isinstance(value, str):
        if value not in PERIODS:
            raise ValueError(f"{name}={value!r} is not one of {PERIODS} (or a positive finite bin width)")
    elif not _positive_finite(value):
        raise ValueError(f"{name}={show(value)} is not a positive finite bin width (or one of {PERIODS})")
    return value


def _positive(meaning: str = "") -> Rule:
    return Rule(_positive_finite, "a positive finite number" + (f" ({meaning})" if meaning else ""))


#: The rule of each numeric parameter of the models, by name.
RULES: dict[str, Rule] = {
    "n_components": Rule(lambda v: _is_int(v) and v >= 1, "a positive integer", check=check_positive_int),
    "prior_scale": Rule(_passes(check_prior_scale), "None (tuned), a positive number or numpy.inf (no prior)",
                        check=check_prior_scale),
    "regularization": Rule(lambda v: _is_real(v) and math.isfinite(v) and v >= 0, "a finite number >= 0"),
    "tol": _positive(),
    "update_tol": _positive(),
    "max_iter": Rule(lambda v: _is_int(v) and v >= 1, "an integer >= 1"),
    "random_state": Rule(_passes(check_random_state), "None, an integer >= 0, a sequence of them, or a numpy "
                         "Generator, BitGenerator or SeedSequence", check=check_random_state),
    "n_jobs": Rule(_n_jobs_in_range, f"None or a nonzero integer >= -{MAX_NEGATIVE_N_JOBS}", check=_check_n_jobs),
    "period": Rule(_passes(_check_period), "'day', 'week', 'month', 'year' or a positive finite number",
                   check=_check_period),
    "drift": _positive("the standard deviation of a rating's change per period"),
    "variance_scale": _positive("the multiplier of a forecast's variance"),
    "disc_components": Rule(lambda v: _is_int(v) and v >= 0, "an integer >= 0 (the disc game's components; 0: none)"),
    "disc_scale": _positive("the standard deviation of a disc component's u and v"),
    "margin_scale": Rule(lambda v: _is_real(v) and math.isfinite(v) and v >= 0,
                         "a finite number >= 0 (the logit scale of a sub-contest relative to the game's; 0: none)"),
    "context_scale": Rule(lambda v: _is_real(v) and math.isfinite(v) and v >= 0,
                          "a finite number >= 0 (the standard deviation of a player's effect in a context; 0: none)"),
    "format_scales": Rule(lambda v: (isinstance(v, dict) and len(v) > 0 and all(
        _is_real(s) and math.isfinite(s) and s > 0 for s in v.values())) or (_is_real(v) and v == 0),
        "0 (formats unused) or a dict of each match format's scale of the logit (finite numbers > 0)"),
    "draw_propensity_scale": Rule(lambda v: _is_real(v) and math.isfinite(v) and v >= 0,
                                  "a finite number >= 0 (a player's draw propensity's prior scale; 0: none)"),
    "step": _positive("the online update's step, in logits"),
    "tuning_budget": Rule(lambda v: _is_int(v) and v >= 1, "a positive integer (the most (drift, prior) candidates "
                          "the tuning scores)"),
    "verbose": Rule(_passes(check_verbose), "True, False or an integer >= 0 (the level of progress reports)",
                    check=check_verbose),
}

#: The rule of a first rating's scale where the prior must be proper (:class:`discrank.DynamicElo`): with
#: no prior (inf) nothing pins the common level of every rating, so the posterior has no mode to find
#: and no covariance to predict with.
FINITE_PRIOR_SCALE = _positive("the standard deviation of a first rating; inf, no prior, would leave the "
                               "common level of the ratings unpinned")


def rule_of(cls: type, name: str) -> Optional[Rule]:
    """The rule of the parameter ``name`` of the class ``cls``: the class's own (``_param_rules``), else
    :data:`RULES`'s.

    Parameters
    ----------
    cls : type
        The model class.
    name : str
        The parameter.

    Returns
    -------
    Rule or None
        None for a parameter with no rule here (a choice of the class's ``_choices``, or a free value).
    """
    own = getattr(cls, "_param_rules", {})
    return own[name] if name in own else RULES.get(name)


def check_param(cls: type, name: str, value: Any) -> Any:
    """``value`` when the rule of ``cls``'s parameter ``name`` accepts it (None too, for the class's
    ``_optional_params``), else a ``ValueError`` (or the rule's check's error) that names the parameter,
    what it must be and the value.

    Parameters
    ----------
    cls : type
        The model class.
    name : str
        The parameter.
    value : object
        Its value.

    Returns
    -------
    object
        The value (as the rule's check returns it, where the rule has one).
    """
    if value is None and name in getattr(cls, "_optional_params", ()):
        return None
    rule = rule_of(cls, name)
    if rule is None:
        return value
    if rule.check is not None:
        return rule.check(value, name)
    if not rule.accepts(value):
        raise ValueError(f"{name} must be {rule.what}, got {show(value)}")
    return value


def file_refusal(cls: type, name: str, value: Any, what: str) -> str:
    """How :mod:`discrank.persist.model_file` refuses a model file's parameter that its rule refuses:
    ``"params.{name} = {value} is not {what}"``, in the words of the model's own message, followed by the
    model's message where the rule's check has words of its own; where the rule is the class's own
    (``_param_rules``), the model's message itself, as its ``fit`` says it.

    Parameters
    ----------
    cls : type
        The model class of the file.
    name : str
        The parameter.
    value : object
        Its value in the file.
    what : str
        What the parameter must be (the rule's ``what``, with "None or" for an optional parameter).

    Returns
    -------
    str
        The message.
    """
    rule, own = rule_of(cls, name), name in getattr(cls, "_param_rules", {})
    said = None
    if rule is not None and (rule.check is not None or own):
        try:
            check_param(cls, name, value)
        except (TypeError, ValueError) as exc:
            said = str(exc)
    if own and said is not None:
        return said
    field = f"params.{name} = {show(value)} is not {what}"
    return field if said is None else f"{field}: {said}"


def check_params(model: Any, names: tuple) -> None:
    """Check the parameters ``names`` of ``model`` by their rules (:func:`check_param`).

    Parameters
    ----------
    model : object
        The model.
    names : tuple of str
        The parameters to check.
    """
    for name in names:
        check_param(type(model), name, getattr(model, name))
