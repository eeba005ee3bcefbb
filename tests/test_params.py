"""One table of parameter rules (discrank._util.params.RULES): a model's fit and the load of a tampered model
file refuse a bad parameter in the same words, and DynamicElo's prior scale is finite by a rule of its own."""

import json
import math
import warnings

import numpy as np
import pytest

from discrank import DiscDecomposition, DynamicElo, Elo, GameLog, PairwiseData, SchurDecomposition, load
from discrank._util.checks import show
from discrank._util.params import FINITE_PRIOR_SCALE, RULES, check_param, rule_of
from discrank.online import OnlineElo


def pairs():
    return PairwiseData.from_games(["x", "y", "z", "w", "x", "y"], ["y", "z", "w", "x", "z", "w"],
                                   [1.0, 0.0, 0.5, 1.0, 0.0, 1.0])


def dated_log():
    rng = np.random.default_rng(0)
    a = rng.integers(0, 6, 120)
    b = (a + rng.integers(1, 6, 120)) % 6
    t = np.datetime64("2024-01-01") + np.sort(rng.integers(0, 60, 120)).astype("timedelta64[D]")
    return GameLog.from_arrays(a.astype(str), b.astype(str), rng.integers(0, 2, 120).astype(float), t)


MODELS = {
    "Elo": (lambda **kw: Elo(**kw), pairs),
    "DiscDecomposition": (lambda **kw: DiscDecomposition(**{"n_components": 1, "random_state": 0, **kw}), pairs),
    "SchurDecomposition": (lambda **kw: SchurDecomposition(**{"n_components": 1, **kw}), lambda: PairwiseData.from_matrix(
        np.array([[0.5, 0.7, 0.4, 0.6], [0.3, 0.5, 0.8, 0.5], [0.6, 0.2, 0.5, 0.7], [0.4, 0.5, 0.3, 0.5]]))),
    "DynamicElo": (lambda **kw: DynamicElo(**{"drift": 0.2, "prior_scale": 1.0, **kw}), dated_log),
    "OnlineElo": (lambda **kw: OnlineElo(**kw), dated_log),
}

# (model, parameter, a value its rule refuses): every rule of the table, and DynamicElo's own prior rule
CASES = [
    ("DiscDecomposition", "tol", 0.0),
    ("Elo", "max_iter", 0),
    ("DiscDecomposition", "regularization", -1.0),
    ("DynamicElo", "update_tol", -1.0),
    ("DynamicElo", "drift", 0.0),
    ("DynamicElo", "variance_scale", -2.0),
    ("DiscDecomposition", "n_components", 0),
    ("SchurDecomposition", "n_components", 0),
    ("Elo", "prior_scale", -1.0),
    ("DiscDecomposition", "random_state", -3),
    ("Elo", "n_jobs", 0),
    ("DynamicElo", "period", "fortnight"),
    ("DynamicElo", "prior_scale", math.inf),
    ("DynamicElo", "verbose", -1),
    ("DynamicElo", "tuning_budget", 0),
    ("DynamicElo", "context_scale", -1.0),
    ("DynamicElo", "margin_scale", -0.5),
    ("DynamicElo", "disc_components", -1),
    ("DynamicElo", "disc_scale", 0.0),
    ("DynamicElo", "draw_propensity_scale", -0.2),
    ("DynamicElo", "format_scales", {"bo5": -1.0}),
]


def fit_error(model, name, value):
    make, data = MODELS[model]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises((ValueError, TypeError)) as info:
            make(**{name: value}).fit(data())
    return str(info.value)


def file_error(tmp_path, model, name, value):
    make, data = MODELS[model]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        make().fit(data()).save(tmp_path / "m.npz")
    with np.load(tmp_path / "m.npz") as z:
        files = {k: z[k] for k in z.files}
    head = json.loads(str(files["__discrank__"]))
    head["params"][name] = value
    files["__discrank__"] = np.array(json.dumps(head))
    np.savez_compressed(tmp_path / "tampered.npz", **files)
    with pytest.raises(ValueError) as info:
        load(tmp_path / "tampered.npz")
    message = str(info.value)
    assert message.startswith(f"{tmp_path / 'tampered.npz'}: ")
    return message[len(f"{tmp_path / 'tampered.npz'}: "):]


# (model, parameter, a value its rule refuses) of the models that write no model file: fit alone
FIT_CASES = [
    ("OnlineElo", "step", -0.1),
]


def test_the_cases_cover_every_rule_of_the_table():
    assert {name for _, name, _ in CASES + FIT_CASES} == set(RULES)


@pytest.mark.parametrize("model, name, value", FIT_CASES, ids=[f"{m}-{n}" for m, n, _ in FIT_CASES])
def test_a_rule_refuses_a_bad_value_in_the_tables_words_from_fit(model, name, value):
    rule = rule_of(type(MODELS[model][0]()), name)
    assert fit_error(model, name, value) == f"{name} must be {rule.what}, got {show(value)}"


@pytest.mark.parametrize("model, name, value", CASES, ids=[f"{m}-{n}" for m, n, _ in CASES])
def test_a_rule_refuses_a_bad_value_in_the_same_words_from_fit_and_from_a_model_file(tmp_path, model, name, value):
    cls = type(MODELS[model][0]())
    rule = rule_of(cls, name)
    said = fit_error(model, name, value)
    from_file = file_error(tmp_path, model, name, value)
    if name in getattr(cls, "_param_rules", {}):  # a rule of the class's own: the file says what fit says
        assert from_file == said
    elif rule.check is None:  # the table's words: "x must be WHAT, got V" / "params.x = V is not [None or ]WHAT"
        assert said == f"{name} must be {rule.what}, got {show(value)}"
        optional = "None or " if name in cls._optional_params else ""
        assert from_file == f"params.{name} = {show(value)} is not {optional}{rule.what}"
    else:  # a check with words of its own: the file says what the model says, after the field
        assert from_file.startswith(f"params.{name} = {show(value)} is not ") and from_file.endswith(f": {said}")
    assert show(value) in said and name in said


def test_dynamic_elo_refuses_an_infinite_prior_scale_that_elo_accepts(tmp_path):
    # Elo takes no prior; DynamicElo's own rule refuses it (its prior alone pins the common level), and
    # a model file says so in the words of fit
    assert rule_of(DynamicElo, "prior_scale") is FINITE_PRIOR_SCALE and rule_of(Elo, "prior_scale") is RULES["prior_scale"]
    assert check_param(Elo, "prior_scale", math.inf) == math.inf
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert Elo(prior_scale=math.inf).fit(pairs()).prior_scale_ == math.inf
    said = fit_error("DynamicElo", "prior_scale", math.inf)
    assert said == f"prior_scale must be {FINITE_PRIOR_SCALE.what}, got inf"
    assert "common level" in said
    assert file_error(tmp_path, "DynamicElo", "prior_scale", math.inf) == said


@pytest.mark.parametrize("name, good, bad", [
    ("tol", [1e-9, 2, np.float32(0.5)], [0, -1.0, math.inf, math.nan, True, "1e-9"]),
    ("max_iter", [1, np.int64(7), 2**40], [0, 2.5, True, "3"]),
    ("regularization", [0, 0.5, np.float64(2.0)], [-1e-9, math.inf, math.nan, False]),
    ("n_components", [1, np.int32(3)], [0, 1.5, True]),
    ("n_jobs", [None, 1, -1, 2**64], [0, 1.5, -(2**16) - 1, True]),
    ("period", ["day", "week", "month", "year", 7, 0.5], ["fortnight", 0, -1.0, math.inf, True]),
    ("prior_scale", [None, 0.5, math.inf], [0.0, -1.0, math.nan, 1e-300, "wide", True]),
    ("verbose", [0, 1, 2, True, False, np.int64(3), np.bool_(True)], [-1, 1.0, 0.5, "yes", None, np.float64(1.0)]),
    ("tuning_budget", [1, 8, np.int64(3)], [0, -1, 2.5, "8", True, np.bool_(True), np.float64(2.0)]),
])
def test_each_rules_predicate_is_what_its_model_check_accepts(name, good, bad):
    rule = RULES[name]
    for value in good:
        assert rule.accepts(value), value
    for value in bad:
        assert not rule.accepts(value), value
        with pytest.raises((ValueError, TypeError)):
            check_param(Elo, name, value)
