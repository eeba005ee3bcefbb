"""DynamicElo's features as parts (discrank.models.dynamic._part): each feature's fields, parameter and advice in one
part, and a new part composed by the estimator without an edit of its code."""

import inspect

import numpy as np
import pytest

from discrank import DynamicElo, GameLog
from discrank.models.dynamic._part import Part
from discrank.models.dynamic._tuning import _advice
from discrank.models.dynamic._model import PARTS


def test_each_features_fields_are_one_parts():
    """No two parts declare the same fitted attribute, file array, label set or scalar, and the model's file holds the
    base arrays and scalars plus exactly each part's."""
    for kind in ("fitted", "arrays", "label_sets", "scalars"):
        names = [a.name if kind == "arrays" else a for part in PARTS for a in getattr(part, kind)]
        assert len(names) == len(set(names)), kind
    arrays = [a.name for a in DynamicElo._fitted_arrays]
    parts_arrays = [a.name for part in PARTS for a in part.arrays]
    assert arrays[-len(parts_arrays):] == parts_arrays
    assert not set(arrays[:-len(parts_arrays)]) & set(parts_arrays)
    assert DynamicElo._fitted_scalars[-sum(len(p.scalars) for p in PARTS):] == tuple(
        s for part in PARTS for s in part.scalars)
    assert DynamicElo._fitted_labels == {"context_labels_": "contexts", "format_labels_": "formats"}


def test_each_tuned_scale_is_a_parameter_with_its_advice():
    """A part with a tuning grid is a constructor parameter of DynamicElo, and the tuning's warning at either bound
    reads its part's advice."""
    params = inspect.signature(DynamicElo).parameters
    tuned = [part for part in PARTS if part.grid]
    assert [part.name for part in tuned] == ["margin_scale", "context_scale", "disc_scale", "draw_propensity_scale",
                                            "format_scales"]
    for part in tuned:
        assert part.name in params
        for side in ("lower", "upper"):
            name = f"{part.walk_name}[bo5]" if part.walk_name else part.name
            assert _advice(PARTS, name, side) == part.advice[side]
    assert _advice(PARTS, "drift", "upper").startswith("the ratings move faster")


class _Lean(Part):
    """A toy feature: each forecast's logit shifted by a fitted constant, ``lean_`` (here the fit's Newton steps
    over 100), with a line of its own in ``discrank info``."""

    name = "lean"
    fitted = ("lean_",)

    def keep(self, model, res, n_players):
        return {"lean_": res.n_iter / 100.0}

    def terms(self, fitted, d, v, eta, ia, ib, codes):
        return d + fitted.lean_, v, eta

    def verdict(self, model):
        return f"a lean of {model.lean_:.2f} logits"


class _LeaningElo(DynamicElo):
    _parts = PARTS + (_Lean(),)


def _league(seed=3):
    rng = np.random.default_rng(seed)
    n, g = 12, 600
    a = rng.integers(0, n, g)
    b = (a + rng.integers(1, n, g)) % n
    strength = rng.normal(size=n)
    y = (rng.random(g) < 1 / (1 + np.exp(strength[b] - strength[a]))).astype(float)
    return GameLog.from_arrays([f"p{i}" for i in a], [f"p{i}" for i in b], y, np.sort(rng.uniform(0, 60, g)))


def test_a_new_part_is_composed_without_an_edit_of_the_estimator():
    """A subclass that lists one more part fits the same ratings, keeps the part's fitted attribute, says its line in
    the verdict, and forecasts with its term: the logit before the probit's scaling moved by ``lean_`` exactly."""
    log = _league()
    params = dict(period=7.0, drift=0.1, prior_scale=1.5, variance_scale=2.0)
    base, lean = DynamicElo(**params).fit(log), _LeaningElo(**params).fit(log)
    np.testing.assert_array_equal(lean.pp_rating_, base.pp_rating_)
    assert lean.lean_ == pytest.approx(base.n_iter_ / 100.0, abs=0.0)
    assert lean._verdict().splitlines()[-1] == f"a lean of {lean.lean_:.2f} logits"
    a, b = np.array(["p0", "p1", "p2"]), np.array(["p5", "p7", "p9"])
    p0, p1 = base.predict_proba(a, b), lean.predict_proba(a, b)
    ia, ib = base._player_codes(a, b, "raise")
    bins = np.full(3, base.last_bin_)
    v = base._state_at(ia, bins)[1] + base._state_at(ib, bins)[1]
    shrink = np.sqrt(1.0 + 2.0 * np.pi * v / 8.0)
    logit = lambda p: np.log(p / (1 - p))  # noqa: E731
    np.testing.assert_allclose(logit(p1) - logit(p0), lean.lean_ / shrink, rtol=1e-9, atol=0.0)
    assert lean.lean_ > 0


def test_the_bound_warning_reads_each_scales_advice_for_a_feature_and_for_two_scales():
    """A feature's scale at a bound, and two scales at bounds together, each get their advice (the message that a
    fit's TuningWarning carries)."""
    from discrank.models.dynamic._context import CONTEXT_BOUNDS, CONTEXT_GRID, CONTEXTS
    from discrank.models.dynamic._tuning import DRIFT_BOUNDS, DRIFT_GRID, _Axis, _bound_message

    context, drift = _Axis(CONTEXT_GRID, CONTEXT_BOUNDS), _Axis(DRIFT_GRID, DRIFT_BOUNDS)
    text = _bound_message({"context_scale": context.bounds[1], "drift": drift.bounds[0]},
                          {"context_scale": context, "drift": drift}, PARTS)
    assert f"context_scale={context.bounds[1]:.4g} is the upper bound" in text
    assert CONTEXTS.advice["upper"] in text
    assert "the log shows almost no drift" in text
