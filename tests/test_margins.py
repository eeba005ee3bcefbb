"""DynamicElo's margin likelihood (issue 36, item 4): the margin rows' terms against finite differences and
L-BFGS, the fit, tuning and updates on a league whose games carry their sub-contests, and the bad input."""

import warnings

import numpy as np
import pytest
from _map_checks import check_derivatives, check_map_against_lbfgs

from discrank import DynamicElo, GameLog, load
from discrank.solvers._history import _Problem, build_history, solve_history

GRAD_TOL = 1e-9  # the Newton MAP's largest gradient entry: the fit's tol 1e-11 times its scale (at most ~100)


def league(seed=5, n=40, games=6000, days=300.0, kappa=0.35, points=12):
    """A league with a slow drift whose games carry ``points`` sub-contests each, won by ``a`` with probability
    sigmoid(kappa d)."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, n, games)
    b = (a + rng.integers(1, n, games)) % n
    t = np.sort(rng.uniform(0.0, days, games))
    skill, trend = rng.normal(size=n), rng.normal(scale=0.5, size=n)
    d = skill[a] - skill[b] + (trend[a] - trend[b]) * t / days
    y = (rng.random(games) < 1.0 / (1.0 + np.exp(-d))).astype(np.float64)
    won = rng.binomial(points, 1.0 / (1.0 + np.exp(-kappa * d))).astype(np.float64)
    labels = np.array([f"p{k:02d}" for k in range(n)], dtype=object)
    return GameLog.from_arrays(labels[a], labels[b], y, t, margin=np.stack([won, points - won], axis=1))


def without_margin(log):
    return GameLog.from_arrays(log.a, log.b, log.score, log.time)


def fixed(**kw):
    return DynamicElo(period=10.0, drift=0.05, prior_scale=2.0, variance_scale=1.0, **kw)


def log_loss(p, y):
    return float(-np.mean(y * np.log(p) + (1.0 - y) * np.log(1.0 - p)))


@pytest.mark.parametrize("draws, n_cov, contexts", [(None, 0, False), ("davidson", 1, True), (None, 2, True)])
def test_the_margin_terms_match_finite_differences_and_the_map_matches_lbfgs(draws, n_cov, contexts):
    rng = np.random.default_rng(1)
    n_players, games, n_ctx = 12, 600, 3
    ca = rng.integers(0, n_players, games)
    cb = (ca + rng.integers(1, n_players, games)) % n_players
    bins, ctx = np.sort(rng.integers(0, 20, games)), rng.integers(0, n_ctx, games)
    d = rng.normal(size=n_players)[ca] - rng.normal(size=n_players)[cb]
    y = (rng.random(games) < 1.0 / (1.0 + np.exp(-d))).astype(float)
    if draws:
        y = np.where(rng.random(games) < 0.2, 0.5, y)
    won = rng.binomial(10, 1.0 / (1.0 + np.exp(-0.4 * d))).astype(float)
    margin = np.stack([won, 10 - won], axis=1)
    margin[:20] = 0.0  # walkovers: no margin row
    x = rng.normal(size=(games, n_cov)) if n_cov else None
    h = build_history(ca, cb, y, bins, x, n_players, draws, None, ctx if contexts else None,
                      n_ctx if contexts else 0, margin)
    assert h.margin[3].sum() == margin[20:].sum()  # every sub-contest in a margin row, none of the walkovers'
    prob = _Problem(h, 0.1, 1.5, draws, context_scale=0.7, margin_scale=0.4)
    theta = rng.normal(scale=0.3, size=h.n_pp + h.n_eff + h.n_cov + (1 if draws else 0))
    check_derivatives(prob, theta, rng, grad_atol=3e-6, hessp_atol=2e-6)
    res = solve_history(h, 0.1, 1.5, draws, context_scale=0.7, margin_scale=0.4, tol=1e-11)
    assert res.converged
    check_map_against_lbfgs(prob, res, np.zeros(theta.size), grad_tol=GRAD_TOL)


def test_margins_forecast_the_future_better_and_their_scale_is_tuned_near_the_truth():
    log = league()
    past, future = log.filter(end=250.0), log.filter(start=250.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (a scale at the bound of its search would warn: not the point here)
        model = DynamicElo(period=10.0, drift=0.05, prior_scale=2.0).fit(past)
    plain = DynamicElo(period=10.0, drift=0.05, prior_scale=2.0).fit(without_margin(past))
    assert 0.2 <= model.margin_scale_ <= 0.7  # the league's sub-contests are won with sigmoid(0.35 d)
    scores = model.tuning_["margin_scales"]
    assert scores[model.margin_scale_] == min(scores.values())
    gain = log_loss(plain.predict_games(future), future.score) - log_loss(model.predict_games(future), future.score)
    assert gain > 0.004  # 0.010 measured: twelve sub-contests a game tell the ratings more than one result
    assert plain.margin_scale_ is None


def test_margin_scale_zero_fits_the_results_alone():
    log = league(games=1500)
    off = fixed(margin_scale=0).fit(log)
    ref = fixed().fit(without_margin(log))
    assert off.margin_scale_ is None
    np.testing.assert_array_equal(off.pp_rating_, ref.pp_rating_)


def test_an_update_with_margins_equals_the_refit_of_every_game():
    log = league(games=3000)
    past, new = log.filter(end=250.0), log.filter(start=250.0)
    model = fixed(margin_scale=0.35).fit(past).update(new)
    ref = fixed(margin_scale=0.35).fit(log)
    np.testing.assert_allclose(model.predict_games(log), ref.predict_games(log), rtol=0, atol=1e-5)


def test_the_bad_input_of_margins_is_refused_naming_it(tmp_path):
    log = league(games=1000)
    with pytest.raises(ValueError, match=r"margin_scale=0.3 asks for a margin likelihood, but the log has no margin"):
        fixed(margin_scale=0.3).fit(without_margin(log))
    for bad in (-0.5, float("nan")):
        with pytest.raises(ValueError, match="margin_scale"):
            fixed(margin_scale=bad).fit(log)
    model = fixed(margin_scale=0.35).fit(log.filter(end=250.0))
    later = log.filter(start=250.0)
    with pytest.raises(ValueError, match="update's games have no margin columns; the DynamicElo was fitted with a "
                                         "margin likelihood"):
        model.update(without_margin(later))
    plain = fixed().fit(without_margin(log.filter(end=250.0)))
    with pytest.raises(ValueError, match="update's games have margin columns; the DynamicElo was fitted without"):
        plain.update(later)
    model.save(tmp_path / "model.npz")  # (its file holds the feature: tests/test_feature_files.py)
    np.testing.assert_array_equal(load(tmp_path / "model.npz").predict_games(log), model.predict_games(log))
