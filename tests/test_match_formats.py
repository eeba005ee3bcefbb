"""DynamicElo's match formats (issue 36, item 3): a log with a ``match_format`` column gets a scale of the logit
per format (the most common format's 1, the others tuned on the validation window), so that longer matches are
more predictable. The solver's Newton steps at fixed scales against finite differences and L-BFGS, the
recovery of a league's scale and its forecasts, updates, threads, and the bad input."""

import numpy as np
import pytest
from _map_checks import check_derivatives, lbfgs

from discrank import DynamicElo, GameLog, load
from discrank.solvers._history import _Problem, build_history, covariance_at, default_start, solve_history
from discrank.exceptions import MissingColumnWarning

#: The league's formats and their true scales of the logit (bo3 the most common: the reference).
SCALES = {"bo3": 1.0, "bo5": 2.0}


def format_league(seed=11, n=50, games=16000, days=400.0, draws=False):
    """Players with fixed ratings of spread 0.7, 40% of the games best of five (the logit times 2), the rest
    best of three: (codes a, codes b, scores, times, format labels)."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, n, games)
    b = (a + rng.integers(1, n, games)) % n
    t = np.sort(rng.uniform(0.0, days, games))
    fmt = np.where(rng.random(games) < 0.4, "bo5", "bo3")
    s = rng.normal(scale=0.7, size=n)
    d = np.array([SCALES[f] for f in fmt]) * (s[a] - s[b])
    if draws:
        pa, pb, pd = np.exp(d / 2), np.exp(-d / 2), np.exp(-0.7)
        u = rng.random(games) * (pa + pb + pd)
        y = np.where(u < pa, 1.0, np.where(u < pa + pd, 0.5, 0.0))
    else:
        y = (rng.random(games) < 1.0 / (1.0 + np.exp(-d))).astype(np.float64)
    return a, b, y, t, fmt


def league_log(**kw):
    a, b, y, t, fmt = format_league(**kw)
    labels = np.array([f"p{k:02d}" for k in range(max(a.max(), b.max()) + 1)], dtype=object)
    return GameLog.from_arrays(labels[a], labels[b], y, t, match_format=fmt)


@pytest.mark.parametrize("extra", ["none", "covariate", "draws", "draws and propensities", "margins"])
def test_the_scaled_rows_derivatives_match_finite_differences_and_newton_reaches_lbfgs(extra):
    rng = np.random.default_rng(4)
    draws = "davidson" if extra.startswith("draws") else None
    a, b, y, _, fmt = format_league(n=12, games=3000, draws=draws is not None)
    codes = np.where(fmt == "bo3", 0, 1) + (rng.random(a.size) < 0.1)  # a third format, code 2
    bins = np.sort(rng.integers(0, 10, a.size))
    x = rng.normal(size=(a.size, 1)) if extra == "covariate" else None
    margin = None
    if extra == "margins":
        won = rng.binomial(10, 0.5, a.size).astype(float)
        margin = np.stack([won, 10 - won], axis=1)
    h = build_history(a, b, y, bins, x, 12, draws, None, None, 0, margin, codes, 3)
    assert h.n_fmt == 3 and h.fmt.max() == 2
    prop = extra == "draws and propensities"
    kw = dict(format_scales=np.array([1.0, 1.5, 0.7]), propensity_scale=0.5 if prop else 0.0,
              margin_scale=0.4 if margin is not None else 0.0)
    prob = _Problem(h, 0.1, 1.5, draws, **kw)
    start = default_start(h, draws, 0, prop)
    check_derivatives(prob, start + rng.normal(scale=0.2, size=start.size), rng,
                      grad_atol=2e-5 if margin is not None else 3e-6, hessp_atol=1e-4, every=1)
    res = solve_history(h, 0.1, 1.5, draws, tol=1e-10, **kw)
    ref = lbfgs(prob, start)
    assert res.converged and res.n_iter <= 15  # a convex problem at fixed scales
    assert res.objective == pytest.approx(ref.fun, abs=1e-6)
    if h.n_cov or draws:  # the global block's covariance sees the scaled rows
        cov = covariance_at(h, 0.1, 1.5, draws, res.theta, **kw)
        assert np.all(np.isfinite(cov)) and np.all(np.diag(cov) > 0)
    # a scale of 1 for every format is the fit without formats
    plain = solve_history(build_history(a, b, y, bins, x, 12, draws, None, None, 0, margin), 0.1, 1.5, draws,
                          tol=1e-10, **dict(kw, format_scales=None))
    ones = solve_history(h, 0.1, 1.5, draws, tol=1e-10, **dict(kw, format_scales=np.ones(3)))
    assert ones.objective == pytest.approx(plain.objective, abs=1e-8)


def test_a_league_of_two_formats_gets_its_scales_back_and_forecasts_the_longer_matches_better():
    log = league_log()
    past, future = log.filter(end=320.0), log.filter(start=320.0)
    model = DynamicElo(period=7.0).fit(past)
    plain = DynamicElo(period=7.0, format_scales=0).fit(past)
    assert list(model.format_labels_) == ["bo3", "bo5"] and plain.format_labels_ is None
    assert model.format_scales_[0] == 1.0 and 1.7 <= model.format_scales_[1] <= 2.4  # the truth: 2 (2.0 chosen)
    assert set(model.tuning_["format_scale[bo5]s"]) >= {1.0, 1.2, 1.4}
    y = np.asarray(future.score)
    loss = lambda m: -(y * np.log(m.predict_games(future)) + (1 - y) * np.log(1 - m.predict_games(future)))  # noqa
    diff = loss(model) - loss(plain)
    se = diff.std(ddof=1) / np.sqrt(diff.size)
    assert diff.mean() < -2 * se  # -0.0066 (0.0025) measured; -0.0070 (0.0018) and -0.0073 (0.0029) on seeds 12, 13
    # a game without its format is forecast at the reference's scale; one in "bo5" further from 1/2
    a, b = np.array(["p00"], dtype=object), np.array(["p01"], dtype=object)
    at = lambda f: model.predict_games(GameLog.from_arrays(a, b, [1.0], [399.0], match_format=f))  # noqa: E731
    p3, p5 = at(["bo3"])[0], at(["bo5"])[0]
    with pytest.warns(MissingColumnWarning, match=r"no match_format column; .* the formats \['bo3', 'bo5'\]"):
        bare = model.predict_games(GameLog.from_arrays(a, b, [1.0], [399.0]))[0]
    assert bare == pytest.approx(p3, abs=1e-15) and abs(p5 - 0.5) > abs(p3 - 0.5)


def fixed(**kw):
    return DynamicElo(period=7.0, drift=0.05, prior_scale=1.0, variance_scale=1.0,
                      **{"format_scales": {"bo3": 1.0, "bo5": 2.0}, **kw})


def test_an_update_with_formats_equals_the_refit_of_every_game():
    log = league_log(games=3000)
    past, new = log.filter(end=300.0), log.filter(start=300.0)
    model = fixed().fit(past).update(new)
    ref = fixed().fit(log)
    np.testing.assert_allclose(model.format_scales_, ref.format_scales_, rtol=0, atol=1e-5)
    np.testing.assert_allclose(model.predict_games(log), ref.predict_games(log), rtol=0, atol=1e-5)


def test_the_format_scales_are_the_same_whatever_the_threads():
    log = league_log(games=3000, draws=True)
    one, two = fixed(n_jobs=1, draws="davidson").fit(log), fixed(n_jobs=2, draws="davidson").fit(log)
    np.testing.assert_allclose(one.format_scales_, two.format_scales_, rtol=0, atol=1e-9)


def test_the_bad_input_of_the_formats_is_refused_naming_it(tmp_path):
    a, b, y, t, fmt = format_league(games=600)
    labels = np.array([f"p{k:02d}" for k in range(50)], dtype=object)
    once = fmt.copy()
    once[7] = "bo7"
    with pytest.raises(ValueError, match="the format 'bo7' in one game only"):
        fixed().fit(GameLog.from_arrays(labels[a], labels[b], y, t, match_format=once))
    with pytest.raises(ValueError, match=r"holds one value only \('bo3'\)"):
        fixed().fit(GameLog.from_arrays(labels[a], labels[b], y, t, match_format=np.full(a.size, "bo3")))
    log = GameLog.from_arrays(labels[a], labels[b], y, t, match_format=fmt)
    for bad in ({"bo3": 1.0, "bo5": -1.0}, {"bo5": float("inf")}, "1", 2.0, {}):
        with pytest.raises((TypeError, ValueError), match="format_scales"):
            fixed(format_scales=bad).fit(log)
    with pytest.raises(ValueError, match=r"gives no scale to the log's match format\(s\) \['bo3'\]"):
        fixed(format_scales={"bo5": 1.5}).fit(log)
    with pytest.raises(ValueError, match="but the log has no match_format column"):
        fixed().fit(GameLog.from_arrays(labels[a], labels[b], y, t))
    model = fixed().fit(log.filter(end=300.0))
    new = log.filter(start=300.0)
    other = np.asarray(new.match_format).astype(object)
    other[0] = "bo7"
    with pytest.raises(ValueError, match="the match format 'bo7', which the fit has not seen"):
        model.update(GameLog.from_arrays(new.a, new.b, new.score, new.time, match_format=other))
    with pytest.raises(ValueError, match="have no match_format column"):
        model.update(GameLog.from_arrays(new.a, new.b, new.score, new.time))
    model.save(tmp_path / "model.npz")  # (its file holds the feature: tests/test_feature_files.py)
    np.testing.assert_array_equal(load(tmp_path / "model.npz").predict_games(log), model.predict_games(log))
    with pytest.raises(ValueError, match="the games to predict have a match_format column; this DynamicElo was "
                                         "fitted without match formats"):
        fixed(format_scales=None).fit(GameLog.from_arrays(labels[a], labels[b], y, t)).predict_games(log)
