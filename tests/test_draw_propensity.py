"""DynamicElo's draw propensities (issue 36, item 5): ``draw_propensity_scale`` gives each player a propensity
``delta_p`` added to Davidson's draw parameter of their games. The solver's exact Newton steps against
finite differences and L-BFGS, the recovery of a league's propensities and its forecasts, updates, threads, and
the bad input."""

import warnings

import numpy as np
import pytest
from _map_checks import check_derivatives, lbfgs

from discrank import DynamicElo, GameLog, load
from discrank.solvers._history import _Problem, build_history, covariance_at, default_start, solve_history


def drawing_league(seed=5, n=60, games=20000, days=400.0, spread=0.6):
    """Players with ratings of spread 0.6 and draw propensities of standard deviation ``spread`` around a draw
    parameter of -0.3 (Davidson's model): (codes a, codes b, scores, times, propensities)."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, n, games)
    b = (a + rng.integers(1, n, games)) % n
    t = np.sort(rng.uniform(0.0, days, games))
    s, prop = rng.normal(scale=0.6, size=n), rng.normal(scale=spread, size=n)
    d, eta = s[a] - s[b], -0.3 + prop[a] + prop[b]
    pa, pb, pd = np.exp(d / 2), np.exp(-d / 2), np.exp(eta)
    u = rng.random(games) * (pa + pb + pd)
    y = np.where(u < pa, 1.0, np.where(u < pa + pd, 0.5, 0.0))
    return a, b, y, t, prop


def league_log(**kw):
    a, b, y, t, prop = drawing_league(**kw)
    labels = np.array([f"p{k:02d}" for k in range(prop.size)], dtype=object)
    return GameLog.from_arrays(labels[a], labels[b], y, t), prop


def three_outcome_loss(p, score):
    col = np.where(score == 1.0, 0, np.where(score == 0.5, 1, 2))
    return -np.log(p[np.arange(score.size), col])


@pytest.mark.parametrize("extra", ["none", "covariate", "contexts", "disc"])
def test_the_propensities_gradient_and_hessian_match_finite_differences_and_newton_reaches_lbfgs(extra):
    rng = np.random.default_rng(3)
    a, b, y, _, _ = drawing_league(n=12, games=3000)
    bins = np.sort(rng.integers(0, 10, a.size))
    x = rng.normal(size=(a.size, 1)) if extra == "covariate" else None
    ctx = rng.integers(0, 2, a.size) if extra == "contexts" else None
    h = build_history(a, b, y, bins, x, 12, "davidson", None, ctx, 2 if ctx is not None else 0)
    disc = 1 if extra == "disc" else 0
    kw = dict(context_scale=0.5 if ctx is not None else 0.0, disc=disc, disc_scale=1.0 if disc else 0.0,
              propensity_scale=0.6)
    prob = _Problem(h, 0.1, 1.5, "davidson", **kw)
    start = default_start(h, "davidson", disc, True)
    assert start.size == h.n_pp + h.n_eff + (2 * disc + 1) * 12 + h.n_cov + 1
    check_derivatives(prob, start + rng.normal(scale=0.2, size=start.size), rng, grad_atol=3e-6, hessp_atol=3e-5,
                      every=1)
    res = solve_history(h, 0.1, 1.5, "davidson", tol=1e-10, **kw)
    ref = lbfgs(prob, start)
    assert res.converged and res.n_iter <= 15  # 7 steps measured (12 with the disc)
    assert res.objective == pytest.approx(ref.fun, abs=1e-6)
    assert res.propensity.shape == (12,) and np.all(res.propensity_diag > 1.0 / 0.6 ** 2)
    if not disc:  # the global block's covariance sees the propensities' cross terms: finite and positive
        cov = covariance_at(h, 0.1, 1.5, "davidson", res.theta, **kw)
        assert np.all(np.isfinite(cov)) and np.all(np.diag(cov) > 0)


def test_a_league_of_drawers_gets_its_propensities_back_and_forecasts_draws_better():
    log, prop = league_log()
    past, future = log.filter(end=320.0), log.filter(start=320.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (a scale at its bound would warn: not the point here)
        model = DynamicElo(period=7.0, draws="davidson").fit(past)  # (the scale tuned by default)
    plain = DynamicElo(period=7.0, draws="davidson", draw_propensity_scale=0).fit(past)
    assert plain.draw_propensity_ is None and plain.draw_propensity_scale_ is None
    assert np.corrcoef(model.draw_propensity_, prop)[0, 1] > 0.95  # 0.98 measured
    assert 0.3 <= model.draw_propensity_scale_ <= 1.6  # the truth: 0.6 (0.8 chosen)
    assert set(model.tuning_["draw_propensity_scales"]) >= {0.2, 0.4, 0.8}
    diff = (three_outcome_loss(model.predict_outcomes(future), np.asarray(future.score))
            - three_outcome_loss(plain.predict_outcomes(future), np.asarray(future.score)))
    se = diff.std(ddof=1) / np.sqrt(diff.size)
    assert diff.mean() < -0.02 and diff.mean() < -5 * se  # -0.05 measured


def fixed(**kw):
    return DynamicElo(period=7.0, drift=0.05, prior_scale=1.0, variance_scale=1.0, draws="davidson",
                      draw_propensity_scale=0.5, **kw)


def test_an_update_with_propensities_equals_the_refit_of_every_game():
    log, _ = league_log(games=3000)
    past, new = log.filter(end=300.0), log.filter(start=300.0)
    model = fixed().fit(past).update(new)
    ref = fixed().fit(log)
    # (the update stops at update_tol, looser than tol: 1.5e-5 measured on a propensity)
    np.testing.assert_allclose(model.draw_propensity_, ref.draw_propensity_, rtol=0, atol=1e-4)
    np.testing.assert_allclose(model.predict_outcomes(log), ref.predict_outcomes(log), rtol=0, atol=1e-5)


def test_the_propensities_are_the_same_whatever_the_threads():
    log, _ = league_log(games=3000)
    one, two = fixed(n_jobs=1).fit(log), fixed(n_jobs=2).fit(log)
    np.testing.assert_allclose(one.draw_propensity_, two.draw_propensity_, rtol=0, atol=1e-9)


def test_the_bad_input_of_the_propensities_is_refused_naming_it(tmp_path):
    log, _ = league_log(games=500)
    for bad in (-0.5, float("nan"), "1"):
        with pytest.raises((TypeError, ValueError), match="draw_propensity_scale"):
            DynamicElo(period=7.0, draws="davidson", draw_propensity_scale=bad).fit(log)
    for draws in (None, "rao-kupper"):
        with pytest.raises(ValueError, match=r"draw_propensity_scale=0.5 .* needs draws='davidson'"):
            DynamicElo(period=7.0, draws=draws, draw_propensity_scale=0.5).fit(log)
    model = fixed().fit(log)
    model.save(tmp_path / "model.npz")  # (its file holds the feature: tests/test_feature_files.py)
    np.testing.assert_array_equal(load(tmp_path / "model.npz").predict_games(log), model.predict_games(log))
