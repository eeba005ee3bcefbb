"""DynamicElo: the whole-history MAP against an independent dense solution, its variances, updates,
covariates, draws, and the bad inputs."""

import json
import math
import re

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.special import expit

import discrank
from discrank import DynamicElo, GameLog, Validation
from discrank._util.calendar import period_index


def league(n=12, periods=15, games=900, drift=0.25, beta=0.4, draws=False, seed=0):
    rng = np.random.default_rng(seed)
    true = np.cumsum(rng.normal(0, drift, (n, periods)), axis=1) + rng.normal(0, 1, (n, 1))
    a = rng.integers(0, n, games)
    b = (a + rng.integers(1, n, games)) % n
    t = np.sort(rng.integers(0, periods, games)).astype(float)
    home = rng.choice([-1.0, 0.0, 1.0], games)
    d = true[a, t.astype(int)] - true[b, t.astype(int)] + beta * home
    if draws:
        pa, pb, pd = np.exp(d / 2), np.exp(-d / 2), 0.8
        z = pa + pb + pd
        u = rng.random(games) * z
        y = np.where(u < pa, 1.0, np.where(u < pa + pd, 0.5, 0.0))
    else:
        y = (rng.random(games) < expit(d)).astype(float)
    log = GameLog.from_arrays(a, b, y, t, advantage={"home": home})
    return log


def dense_map(log, drift, prior, draws=False, with_x=True):
    """The MAP by scipy's trust-region Newton on a dense Hessian, from the games one by one (no
    aggregation, no chain numbering shared with the library); beta's prior N(0, (10 / rms(x))^2)."""
    a, b, y, t = log.a, log.b, log.score, log.time.astype(int)
    x = log.advantage[:, 0] if with_x else np.zeros(len(log))
    nodes = sorted({(int(p), int(k)) for p, k in zip(a, t)} | {(int(p), int(k)) for p, k in zip(b, t)})
    index = {node: i for i, node in enumerate(nodes)}
    ia = np.array([index[(int(p), int(k))] for p, k in zip(a, t)])
    ib = np.array([index[(int(p), int(k))] for p, k in zip(b, t)])
    links = [(index[u], index[v], v[1] - u[1]) for u, v in zip(nodes[:-1], nodes[1:]) if u[0] == v[0]]
    firsts = [index[u] for k, u in enumerate(nodes) if k == 0 or nodes[k - 1][0] != u[0]]
    n = len(nodes)
    size = n + 1 + (1 if draws else 0)

    def parts(th):
        r, beta = th[:n], th[n]
        d = r[ia] - r[ib] + beta * x
        J = np.zeros((len(y), size))
        J[np.arange(len(y)), ia] += 1
        J[np.arange(len(y)), ib] -= 1
        J[:, n] = x
        return r, d, J

    def f(th):
        r, d, J = parts(th)
        if not draws:
            val = np.sum(np.logaddexp(0, d) - y * d)
            gd = expit(d) - y
            hd = expit(d) * (1 - expit(d))
            g = J.T @ gd
            H = J.T @ (J * hd[:, None])
        else:
            eta = th[-1]
            u = np.stack([d / 2, -d / 2, np.full_like(d, eta)], 1)
            lse = np.logaddexp.reduce(u, axis=1)
            p = np.exp(u - lse[:, None])
            obs = np.where(y == 1, 0, np.where(y == 0.5, 2, 1))
            val = np.sum(lse - u[np.arange(len(y)), obs])
            Ju = np.zeros((len(y), 3, size))
            Ju[:, 0, :] = J / 2
            Ju[:, 1, :] = -J / 2
            Ju[:, 2, -1] = 1
            resid = p.copy()
            resid[np.arange(len(y)), obs] -= 1
            g = np.einsum("gk,gks->s", resid, Ju)
            Hu = np.einsum("gk,kl->gkl", p, np.eye(3)) - np.einsum("gk,gl->gkl", p, p)
            H = np.einsum("gks,gkl,glt->st", Ju, Hu, Ju)
        for i, j, dt in links:
            w = 1 / (drift ** 2 * dt)
            dr = th[j] - th[i]
            val += 0.5 * w * dr * dr
            g[i] -= w * dr
            g[j] += w * dr
            H[i, i] += w
            H[j, j] += w
            H[i, j] -= w
            H[j, i] -= w
        for i in firsts:
            val += 0.5 * th[i] ** 2 / prior ** 2
            g[i] += th[i] / prior ** 2
            H[i, i] += 1 / prior ** 2
        if with_x:  # beta's prior: N(0, (10 / rms(x))^2)
            lam = np.mean(x * x) / 10.0 ** 2
            val += 0.5 * lam * th[n] ** 2
            g[n] += lam * th[n]
            H[n, n] += lam
        else:
            H[n, n] += 1.0  # beta is not a parameter: pin it at 0
        return val, g, H

    res = minimize(lambda th: f(th)[0], np.zeros(size), jac=lambda th: f(th)[1], hess=lambda th: f(th)[2],
                   method="trust-exact", options={"gtol": 1e-12})
    H = f(res.x)[2]
    return nodes, res.x, H


def rao_kupper_posterior(log, drift, prior, theta, nodes):
    """The negative log posterior of Rao and Kupper's ordered logit, written from the games one by one:
    P(a wins) = sigmoid(d - kappa), P(b wins) = sigmoid(-d - kappa), P(draw) the rest."""
    index = {node: i for i, node in enumerate(nodes)}
    a, b, y, t = log.a, log.b, log.score, log.time.astype(int)
    ia = np.array([index[(int(p), int(k))] for p, k in zip(a, t)])
    ib = np.array([index[(int(p), int(k))] for p, k in zip(b, t)])
    n = len(nodes)
    r, beta, kappa = theta[:n], theta[n], theta[n + 1]
    d = r[ia] - r[ib] + beta * log.advantage[:, 0]
    pw, pl = expit(d - kappa), expit(-d - kappa)
    p = np.where(y == 1, pw, np.where(y == 0, pl, 1.0 - pw - pl))
    val = -np.sum(np.log(p))
    for (u, k), (v, m) in zip(nodes[:-1], nodes[1:]):
        if u == v:
            val += 0.5 * (r[index[(v, m)]] - r[index[(u, k)]]) ** 2 / (drift ** 2 * (m - k))
    firsts = [i for i, node in enumerate(nodes) if i == 0 or nodes[i - 1][0] != node[0]]
    beta_sd = 10.0 / np.sqrt(np.mean(log.advantage[:, 0] ** 2))  # beta's prior
    return val + 0.5 * np.sum(r[firsts] ** 2) / prior ** 2 + 0.5 * (beta / beta_sd) ** 2


def test_rao_kupper_draws_are_the_mode_of_an_independent_posterior():
    log = league(draws=True, seed=3)
    model = DynamicElo(period=1.0, drift=0.2, prior_scale=1.0, draws="rao-kupper").fit(log)
    assert model.converged_ and model.draw_nu_ is None and model.draw_threshold_ > 0
    nodes = sorted((int(model.labels_[p]), int(k)) for p, k in zip(model.pp_player_, model.pp_bin_))
    got = {(int(model.labels_[p]), int(k)): r for p, k, r in zip(model.pp_player_, model.pp_bin_, model.pp_rating_)}
    theta = np.array([got[node] for node in nodes] + [model.beta_[0], model.draw_threshold_])
    f0 = rao_kupper_posterior(log, 0.2, 1.0, theta, nodes)
    eps = 1e-5
    grad = np.array([(rao_kupper_posterior(log, 0.2, 1.0, theta + eps * e, nodes)
                      - rao_kupper_posterior(log, 0.2, 1.0, theta - eps * e, nodes)) / (2 * eps)
                     for e in np.eye(theta.size)])
    assert np.abs(grad).max() < 1e-5  # central differences of a posterior summing ~900 games
    rng = np.random.default_rng(0)
    for _ in range(5):  # a convex posterior: every nearby point is higher
        assert rao_kupper_posterior(log, 0.2, 1.0, theta + 1e-3 * rng.standard_normal(theta.size), nodes) > f0
    q = model.predict_outcomes(log)
    assert q.shape == (len(log), 3) and np.allclose(q.sum(axis=1), 1.0, atol=1e-12) and np.all(q > 0)
    assert model.draw_eta_se_ > 0


def test_map_equals_an_independent_dense_solution_with_a_covariate():
    log = league()
    model = DynamicElo(period=1.0, drift=0.3, prior_scale=1.5).fit(log)
    nodes, theta, H = dense_map(log, 0.3, 1.5)
    n = len(nodes)
    got = {(int(model.labels_[p]), int(k)): r for p, k, r in zip(model.pp_player_, model.pp_bin_, model.pp_rating_)}
    want = {node: theta[i] for i, node in enumerate(nodes)}
    assert got.keys() == want.keys()
    assert max(abs(got[k] - want[k]) for k in want) < 1e-8
    assert abs(model.beta_[0] - theta[n]) < 1e-8
    assert model.converged_ and model.gradient_ < 1e-9
    # beta's standard error: the marginal of the inverse Hessian (Laplace approximation)
    cov = np.linalg.inv(H)
    assert model.beta_se_[0] == pytest.approx(math.sqrt(cov[n, n]), rel=1e-6)


def test_davidson_draws_equal_the_dense_solution():
    log = league(draws=True, seed=3)
    model = DynamicElo(period=1.0, drift=0.2, prior_scale=1.0, draws="davidson", draw_propensity_scale=0).fit(log)
    nodes, theta, H = dense_map(log, 0.2, 1.0, draws=True)
    want = {node: theta[i] for i, node in enumerate(nodes)}
    got = {(int(model.labels_[p]), int(k)): r for p, k, r in zip(model.pp_player_, model.pp_bin_, model.pp_rating_)}
    assert max(abs(got[k] - want[k]) for k in want) < 1e-8
    assert model.beta_[0] == pytest.approx(theta[len(nodes)], abs=1e-8)
    assert math.log(model.draw_nu_) == pytest.approx(theta[-1], abs=1e-8)
    cov = np.linalg.inv(H)
    assert model.draw_eta_se_ == pytest.approx(math.sqrt(cov[-1, -1]), rel=1e-6)
    q = model.predict_outcomes(log)
    assert q.shape == (len(log), 3) and np.allclose(q.sum(axis=1), 1.0, atol=1e-12)


def test_variances_are_each_players_block_of_the_hessian():
    log = league(seed=5)
    model = DynamicElo(period=1.0, drift=0.3, prior_scale=1.5).fit(log)
    nodes, theta, H = dense_map(log, 0.3, 1.5)
    for player in (0, 7):
        idx = [i for i, node in enumerate(nodes) if node[0] == player]
        block = np.linalg.inv(H[np.ix_(idx, idx)])
        hist = model.history([player])
        assert np.allclose(hist["sd"].to_numpy(), np.sqrt(np.diag(block)), rtol=1e-8)


def test_update_equals_a_fit_of_the_whole_log():
    log = league(games=1200, seed=2)
    past = log._take(log.time < 10)
    future = log._take(log.time >= 10)
    # both converged past the 1e-8 compared (a relative gradient of 1e-11)
    updated = DynamicElo(period=1.0, drift=0.3, prior_scale=1.5, variance_scale=1.0, tol=1e-11,
                         update_tol=1e-11).fit(past).update(future)
    whole = DynamicElo(period=1.0, drift=0.3, prior_scale=1.5, variance_scale=1.0, tol=1e-11).fit(log)
    assert np.array_equal(updated.pp_bin_, whole.pp_bin_)
    assert np.max(np.abs(updated.pp_rating_ - whole.pp_rating_)) < 1e-8
    assert updated.beta_[0] == pytest.approx(whole.beta_[0], abs=1e-8)
    # the default update stops at a relative gradient of 1e-5: its predictions are within 1e-5
    quick = DynamicElo(period=1.0, drift=0.3, prior_scale=1.5, variance_scale=1.0).fit(past).update(future)
    assert quick.update_tol == 1e-5 and quick.gradient_ <= 1e-5
    assert np.max(np.abs(quick.predict_games(log) - whole.predict_games(log))) < 1e-5


def test_stationary_mode_equals_elo_with_the_same_prior():
    log = league(seed=4)
    plain = GameLog.from_arrays(log.a, log.b, log.score, log.time)
    dyn = DynamicElo(period=None, prior_scale=1.3).fit(plain)
    elo = discrank.Elo(prior_scale=1.3).fit(plain.to_pairs())
    order = np.argsort(dyn.labels_[dyn.pp_player_])
    assert np.allclose(dyn.pp_rating_[order], elo.ratings_, atol=1e-7)


@pytest.mark.parametrize("times", ["periods", "distinct", "none"])
def test_stationary_mode_tunes_its_prior_on_forecasts_of_later_times(times):
    # period=None has one period: the tuning's origins are the validation window's distinct times (its
    # games without times), each fit on every earlier game; the chosen prior is the best scored
    from discrank.dynamic import PRIOR_GRID
    from discrank.models.dynamic._tuning import PRIOR_BOUNDS

    log = league(seed=4)
    t = {"periods": log.time, "distinct": np.arange(len(log), dtype=float), "none": None}[times]
    plain = GameLog.from_arrays(log.a, log.b, log.score, t) if t is not None else GameLog.from_arrays(log.a, log.b, log.score)
    dyn = DynamicElo(period=None).fit(plain)
    scores = dyn.tuning_["scores"]
    tried = {p: scores[dyn._candidate(1.0, p)] for p in dyn.tuning_["scanned"]["prior_scale"]}
    assert len(tried) == len(scores)
    _assert_walked(PRIOR_GRID, tried, PRIOR_GRID[(len(PRIOR_GRID) - 1) // 2], PRIOR_BOUNDS, dyn.tuning_["edge_gain"])
    costed = {p: loss + _edge_cost(PRIOR_GRID, p, dyn.tuning_["edge_gain"]) for p, loss in tried.items()}
    assert dyn.prior_scale_ == min(costed, key=costed.get)
    assert dyn.tuning_["periods"] > 1 and dyn.drift_ is None
    fixed = DynamicElo(period=None, prior_scale=dyn.prior_scale_).fit(plain)
    np.testing.assert_allclose(dyn.pp_rating_, fixed.pp_rating_, rtol=0, atol=1e-12)


def _search_values(grid, bounds):
    """The values a search of DynamicElo's tuning may score, in order: ``grid``, and past each edge the
    edge times the grid's ratio at that edge, a step at a time, as far as ``bounds``."""
    below, above = [], []
    while grid[0] * (grid[0] / grid[1]) ** (len(below) + 1) >= bounds[0] * (1 - 1e-12):
        below.append(grid[0] * (grid[0] / grid[1]) ** (len(below) + 1))
    while grid[-1] * (grid[-1] / grid[-2]) ** (len(above) + 1) <= bounds[1] * (1 + 1e-12):
        above.append(grid[-1] * (grid[-1] / grid[-2]) ** (len(above) + 1))
    return below[::-1] + list(grid) + above


def _edge_cost(grid, value, gain):
    """What a value past ``grid``'s edges must gain to be chosen: ``gain`` (the validation log loss per game,
    ``tuning_["edge_gain"]``) per step past the edge, a step the grid's ratio at that edge."""
    if value < grid[0]:
        return gain * math.log(value / grid[0]) / math.log(grid[0] / grid[1])
    if value > grid[-1]:
        return gain * math.log(value / grid[-1]) / math.log(grid[-1] / grid[-2])
    return 0.0


def _assert_walked(grid, tried, start, bounds, gain):
    """``tried`` (value -> validation loss) is what a walk from ``start`` scores on ``grid`` extended to
    ``bounds`` (:func:`_search_values`), each value compared at its loss plus :func:`_edge_cost`: a run of
    values holding ``start`` whose best value has every neighbour scored and higher, and the walk past it
    stopped there (a run of strictly falling losses from ``start`` to the best)."""
    values = _search_values(grid, bounds)

    def index(v):
        (i,) = [i for i, u in enumerate(values) if math.isclose(u, v, rel_tol=1e-9)]
        return i

    cost = {index(v): loss + _edge_cost(grid, v, gain) for v, loss in tried.items()}
    idx = sorted(cost)
    i0, ib = index(start), min(cost, key=cost.get)
    assert idx == list(range(idx[0], idx[-1] + 1)) and i0 in idx
    for j in (ib - 1, ib + 1):
        if 0 <= j < len(values):
            assert j in cost and cost[j] > cost[ib]
    path = [cost[i] for i in (range(i0, ib + 1) if ib >= i0 else range(i0, ib - 1, -1))]
    assert all(later < earlier for earlier, later in zip(path, path[1:]))
    assert len(tried) <= abs(ib - i0) + 3  # the run to the best, one past it, and the first step the other way


def test_ratings_between_after_and_before_games():
    log = league(seed=6)
    model = DynamicElo(period=1.0, drift=0.3, prior_scale=1.5).fit(log)
    hist = model.history([0])
    k_last, r_last, sd_last = hist["period"].iloc[-1], hist["rating"].iloc[-1], hist["sd"].iloc[-1]
    later = model.ratings_at(float(k_last + 4), [0])
    assert later["rating"].iloc[0] == pytest.approx(r_last, abs=1e-12)
    assert later["sd"].iloc[0] == pytest.approx(math.sqrt(sd_last ** 2 + 4 * 0.3 ** 2), rel=1e-12)
    before = model.ratings_at(-5.0, [0])
    assert not before["known"].iloc[0] and before["rating"].iloc[0] == 0.0 and before["sd"].iloc[0] == 1.5
    # at a period of play: the MAP itself
    at = model.ratings_at(float(hist["period"].iloc[0]), [0])
    assert at["rating"].iloc[0] == pytest.approx(hist["rating"].iloc[0], abs=1e-12)


def test_future_prediction_grows_the_variance_by_the_drift():
    log = league(seed=7)
    model = DynamicElo(period=1.0, drift=0.3, prior_scale=1.5, variance_scale=1.0).fit(log)
    a, b = np.array([1]), np.array([2])
    near = GameLog(a, b, np.array([0.5]), np.array([20.0]), {}, np.zeros((1, 1)), ("home",))
    far = GameLog(a, b, np.array([0.5]), np.array([400.0]), {}, np.zeros((1, 1)), ("home",))
    q_near, q_far = model.predict_games(near)[0], model.predict_games(far)[0]
    assert abs(q_far - 0.5) < abs(q_near - 0.5)  # more uncertain, closer to a coin
    ra = model.ratings_at(400.0, [1, 2])
    d, v = ra["rating"].iloc[0] - ra["rating"].iloc[1], ra["sd"].iloc[0] ** 2 + ra["sd"].iloc[1] ** 2
    assert q_far == pytest.approx(expit(d / math.sqrt(1 + math.pi * v / 8)), abs=1e-12)


def test_variance_scale_multiplies_the_forecast_variance_and_is_tuned_with_the_drift():
    from discrank.dynamic import VARIANCE_GRID

    log = league(seed=7)
    fixed = DynamicElo(period=1.0, drift=0.3, prior_scale=1.5, variance_scale=3.0).fit(log)
    plain = DynamicElo(period=1.0, drift=0.3, prior_scale=1.5, variance_scale=1.0).fit(log)
    assert plain.variance_scale_ == 1.0 and plain.tuning_ is None  # all three given: nothing tuned
    np.testing.assert_array_equal(fixed.pp_rating_, plain.pp_rating_)  # the fit does not depend on it
    game = GameLog(np.array([1]), np.array([2]), np.array([0.5]), np.array([60.0]), {}, np.zeros((1, 1)), ("home",))
    ra = fixed.ratings_at(60.0, [1, 2])
    d, v = ra["rating"].iloc[0] - ra["rating"].iloc[1], ra["sd"].iloc[0] ** 2 + ra["sd"].iloc[1] ** 2
    assert fixed.predict_games(game)[0] == pytest.approx(expit(d / math.sqrt(1 + 3.0 * math.pi * v / 8)), abs=1e-12)
    assert plain.predict_games(game)[0] == pytest.approx(expit(d / math.sqrt(1 + math.pi * v / 8)), abs=1e-12)
    tuned = DynamicElo(period=1.0, drift=0.3).fit(log)  # the prior tuned: the scale with it
    key = f"drift=0.3, prior_scale={tuned.prior_scale_:.3g}"
    assert tuned.tuning_["variance_scales"][key] == tuned.variance_scale_
    assert set(VARIANCE_GRID) <= set(tuned.tuning_["scanned"]["variance_scale"])
    assert tuned.variance_scale_ in tuned.tuning_["scanned"]["variance_scale"]
    assert set(tuned.tuning_["variance_scales"]) == set(tuned.tuning_["scores"])
    given = DynamicElo(period=1.0, drift=0.3, variance_scale=2.5).fit(log)
    assert given.variance_scale_ == 2.5 and set(given.tuning_["variance_scales"].values()) == {2.5}
    with pytest.raises(ValueError, match="variance_scale must be a positive finite number .the multiplier"):
        DynamicElo(period=1.0, drift=0.3, variance_scale=0.0).fit(log)


def test_weeks_start_on_monday():
    t = np.array(["2024-01-07", "2024-01-08", "2024-01-14", "2024-01-15"], dtype="datetime64[D]")  # Sun, Mon, Sun, Mon
    w = period_index(t, "week")
    assert w[0] + 1 == w[1] == w[2] and w[3] == w[2] + 1


def test_tuned_drift_is_on_the_grid_and_recovers_the_scale():
    log = league(n=20, periods=30, games=4000, drift=0.3, seed=8)
    model = DynamicElo(period=1.0).fit(log)
    assert model.tuning_ is not None and len(model.tuning_["scores"]) > 1
    assert 0.1 <= model.drift_ <= 0.8
    # the candidates: the drift grid at the middle prior, the best drift over and times sqrt 2, then
    # the prior grid at the best drift, each walk past its grid's edge while a step gains edge_gain; the
    # chosen pair has the lowest validation log loss, a value past an edge counted with its cost
    from discrank.dynamic import DRIFT_GRID, PRIOR_GRID
    from discrank.models.dynamic._tuning import DRIFT_BOUNDS, PRIOR_BOUNDS

    record = model.tuning_
    scores = {(d, p): record["scores"][model._candidate(d, p)] for d in record["scanned"]["drift"]
              for p in record["scanned"]["prior_scale"] if model._candidate(d, p) in record["scores"]}
    assert len(scores) == len(record["scores"])
    mid = PRIOR_GRID[(len(PRIOR_GRID) - 1) // 2]
    steps = _search_values(DRIFT_GRID, DRIFT_BOUNDS)
    on_grid = {g: scores[d, p] for d, p in scores for g in steps if p == mid and math.isclose(d, 0.1 * g, rel_tol=1e-9)}
    gain = record["edge_gain"]
    _assert_walked(DRIFT_GRID, on_grid, 1.0, DRIFT_BOUNDS, gain)
    best = 0.1 * min(on_grid, key=lambda g: on_grid[g] + _edge_cost(DRIFT_GRID, g, gain))
    fine = sorted(d for d, p in scores if p == mid and not any(math.isclose(d, 0.1 * g, rel_tol=1e-9) for g in steps))
    assert fine == pytest.approx([best / math.sqrt(2), best * math.sqrt(2)], rel=1e-9)

    def costed(c):
        return scores[c] + _edge_cost(DRIFT_GRID, c[0] / 0.1, gain) + _edge_cost(PRIOR_GRID, c[1], gain)

    best_drift = min(((d, p) for d, p in scores if p == mid), key=costed)[0]
    priors = {p: loss for (d, p), loss in scores.items() if d == best_drift}
    _assert_walked(PRIOR_GRID, priors, mid, PRIOR_BOUNDS, gain)
    assert len(scores) == len(on_grid) + 2 + len(priors) - 1
    assert (model.drift_, model.prior_scale_) == min(scores, key=costed)


def shifted_league(q, games=3000, late=0.3, seed=0, n=12):
    """A stationary log of ``n`` players rated 0.5 logit apart whose last ``late`` share of games is, each
    with probability ``q``, a coin flip: forecasts of those games from the earlier ones want a wider
    variance than the ratings' own."""
    rng = np.random.default_rng(seed)
    r = 0.5 * (np.arange(n) - (n - 1) / 2)
    a = rng.integers(0, n, games)
    b = (a + rng.integers(1, n, games)) % n
    y = rng.random(games) < expit(r[a] - r[b])
    coin = (np.arange(games) >= (1 - late) * games) & (rng.random(games) < q)
    y = np.where(coin, rng.random(games) < 0.5, y).astype(float)
    return GameLog.from_arrays(a, b, y, np.sort(rng.integers(0, 30, games)).astype(float))


def test_tuned_variance_scale_goes_past_the_grid_edge_to_a_best_value_beyond_it():
    # a sixth of the validation games are coin flips: the variance scale goes past the grid's edge (8)
    # while each step gains more than EDGE_NATS in all, to 44.9 (no warning: warnings are errors here)
    from discrank.dynamic import VARIANCE_GRID
    from discrank.models.dynamic._tuning import EDGE_NATS, VARIANCE_BOUNDS

    log = shifted_league(0.15)
    model = DynamicElo(period=None, prior_scale=2.0).fit(log, validation=discrank.Validation(fraction=0.3))
    record = model.tuning_
    past = [8.0 * (4 / 3) ** k for k in range(1, 8)]  # the steps past the edge: 10.7 .. 59.9, the bound
    assert record["scanned"]["variance_scale"] == pytest.approx(list(VARIANCE_GRID) + past, rel=1e-12)
    assert model.variance_scale_ == pytest.approx(past[5]) and model.variance_scale_ > VARIANCE_GRID[-1]
    assert record["bounds"]["variance_scale"] == pytest.approx((VARIANCE_BOUNDS[0], past[6]), rel=1e-12)
    # each step to it raised the likelihood by more than EDGE_NATS; the next one, to the bound, did not
    n = EDGE_NATS / record["edge_gain"]
    assert n == 900  # the validation games scored (the last 30%)
    key = model._candidate(1.0, 2.0)
    losses = [_frozen_validation_loss(log, c, 0.3) for c in [8.0] + past]
    assert all(n * (a - b) > EDGE_NATS for a, b in zip(losses[:6], losses[1:7]))
    assert 0 < n * (losses[6] - losses[7]) < EDGE_NATS
    # the tuning's fits stop at TUNE_TOL (1e-3): their score sits within 3e-5 of the exact fits' here
    assert record["scores"][key] == pytest.approx(losses[6], abs=3e-5) and record["at_bound"] == {}


def _frozen_validation_loss(log, variance_scale, fraction):
    """The log loss per game of the latest ``fraction`` of ``log``'s games (both players seen before), each
    forecast by ``DynamicElo(period=None, prior_scale=2)`` at ``variance_scale`` fitted on the games of
    earlier times: the frozen rule of ``Validation(fraction=...)``, written again."""
    cut = int(math.floor((1 - fraction) * len(log)))
    fit = log._take(log.time < log.time[cut])
    val = log._take(np.arange(len(log)) >= cut)
    seen = np.union1d(fit.a, fit.b)
    val = val._take(np.isin(val.a, seen) & np.isin(val.b, seen))
    p = DynamicElo(period=None, prior_scale=2.0, variance_scale=variance_scale).fit(fit).predict_games(val)
    return float(np.mean(-(val.score * np.log(p) + (1 - val.score) * np.log1p(-p))))


def test_tuning_warns_once_when_the_variance_scale_reaches_its_hard_bound():
    from discrank.exceptions import TuningWarning

    with pytest.warns(TuningWarning, match=r"variance_scale=59.93 is the upper bound of its search \(6.104e-05 \.\. "
                      r"59.93\).* give variance_scale=") as caught:
        model = DynamicElo(period=None, prior_scale=2.0).fit(shifted_league(1.0))
    assert sum(issubclass(w.category, TuningWarning) for w in caught) == 1
    assert model.variance_scale_ == pytest.approx(8.0 * (4 / 3) ** 7)
    assert model.tuning_["at_bound"] == {"variance_scale": model.variance_scale_}


def test_fixing_drift_and_prior_still_tunes_the_variance_scale_on_the_same_window(monkeypatch):
    from discrank.dynamic import VARIANCE_GRID
    from discrank.models.dynamic import _candidates as _dynamic_candidates

    log = league(n=12, periods=30, games=2000, drift=1.0, seed=0)
    fixed = DynamicElo(period=1.0, drift=0.1, prior_scale=2.0).fit(log)
    key = fixed._candidate(0.1, 2.0)
    # a drift ten times too small: the forecasts want a wider variance (6 beats 1 by 3e-3 a game)
    assert (fixed.drift_, fixed.prior_scale_, fixed.variance_scale_) == (0.1, 2.0, 6.0)
    record = fixed.tuning_
    assert list(record["scores"]) == [key] and record["variance_scales"] == {key: 6.0}
    assert record["scanned"]["drift"] == [0.1] and record["scanned"]["prior_scale"] == [2.0]
    assert set(VARIANCE_GRID) <= set(record["scanned"]["variance_scale"])
    # the window and origins of a tuning of the drift and the prior, whose walk starts at (0.1, 2): (0.1, 2)
    # forecasts far worse than the best and is raced out after its first origins, its score estimated above the best's
    tuned = DynamicElo(period=1.0).fit(log)
    assert tuned.tuning_["periods"] == record["periods"] > 1
    assert 2 <= tuned.tuning_["raced"][key] < record["periods"]
    assert tuned.tuning_["scores"][key] > min(tuned.tuning_["scores"].values()) + 1e-3
    # without the race, the same forecasts as the fixed model's tuning: the same score
    monkeypatch.setattr(_dynamic_candidates, "RACE_Z", math.inf)
    walked = DynamicElo(period=1.0).fit(log)
    assert walked.tuning_["raced"] == {}
    assert record["scores"][key] == pytest.approx(walked.tuning_["scores"][key], abs=1e-5)
    assert walked.tuning_["variance_scales"][key] == 6.0
    # the fit is that of the given drift and prior; with variance_scale given too, nothing is tuned
    given = DynamicElo(period=1.0, drift=0.1, prior_scale=2.0, variance_scale=1.0).fit(log)
    # (the fit after a tuning starts from the tuning's fit at the last origin: the same MAP, to tol 1e-9)
    np.testing.assert_allclose(fixed.pp_rating_, given.pp_rating_, rtol=0, atol=1e-8)
    assert given.tuning_ is None and given.variance_scale_ == 1.0
    # the stationary model with its prior given tunes its variance scale alone the same way
    stationary = DynamicElo(period=None, prior_scale=2.0).fit(shifted_league(0.0))
    assert list(stationary.tuning_["scanned"]) == ["prior_scale", "variance_scale"]
    assert stationary.tuning_["scanned"]["prior_scale"] == [2.0]


@pytest.mark.parametrize("kw, message", [
    ({"drift": 0.0}, "drift must be a positive finite number"),
    ({"drift": float("nan")}, "drift must be a positive finite number"),
    ({"drift": -1.0}, "got -1.0"),
    ({"prior_scale": 0.0}, "prior_scale must be a positive"),
    ({"draws": "rao"}, "draws='rao' is not one of"),
    ({"period": "fortnight"}, "period='fortnight' is not one of"),
])
def test_bad_parameters_are_named(kw, message):
    t = np.array(["2024-01-01", "2024-01-02", "2024-01-03"], dtype="datetime64[D]")
    log = GameLog.from_arrays(["x", "y", "x"], ["y", "z", "z"], [1.0, 0.0, 0.5], t)
    params = {"drift": 0.1, "prior_scale": 1.0, **kw}
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        DynamicElo(**params).fit(log)


def test_bad_logs_are_named():
    t = np.array([0.0, 1e9])
    log = GameLog.from_arrays(["x", "y"], ["y", "x"], [1.0, 0.0], t)
    with pytest.raises(ValueError, match=r"period=1e-06 makes 1000000000000001 periods"):
        DynamicElo(period=1e-6, drift=0.1, prior_scale=1.0).fit(log)
    no_draws = GameLog.from_arrays(["x", "y"], ["y", "x"], [1.0, 0.0], [0.0, 1.0])
    with pytest.raises(ValueError, match="the log has no draw"):
        DynamicElo(period=1.0, drift=0.1, prior_scale=1.0, draws="davidson").fit(no_draws)
    with pytest.raises(ValueError, match="needs the games' times"):
        DynamicElo().fit(GameLog.from_arrays(["x"], ["y"], [1.0]))
    with pytest.raises(ValueError, match="not a time"):
        GameLog.from_arrays(["x"], ["y"], [1.0], [float("nan")])
    zero = GameLog(np.array(["x", "y"]), np.array(["y", "x"]), np.array([1.0, 0.0]), np.array([0.0, 1.0]), {},
                   np.zeros((2, 1)), ("home",))
    with pytest.raises(ValueError, match="advantage column 'home' is 0 in every game"):
        DynamicElo(period=1.0, drift=0.1, prior_scale=1.0).fit(zero)
    columns = (np.array(["x", "y"]), np.array(["y", "x"]), np.array([1.0, 0.0]), np.array([0.0, 1.0]), {},
               np.array([[1.0], [np.nan]]), ("home",))
    with pytest.raises(ValueError, match="advantage column 'home' has the value nan at row 1"):
        GameLog(*columns)  # the constructor checks its columns
    with pytest.raises(ValueError, match="advantage column 'home' has a missing value .* at game 1"):
        DynamicElo(period=1.0, drift=0.1, prior_scale=1.0).fit(GameLog._trusted(*columns))  # and so does the fit


def test_unfitted_and_unknown_players():
    with pytest.raises(discrank.NotFittedError):
        DynamicElo().predict_proba(["x"], ["y"])
    log = league(seed=9)
    model = DynamicElo(period=1.0, drift=0.3, prior_scale=1.5).fit(log)
    with pytest.raises(ValueError, match="unknown player 99"):
        model.history([99])
    assert not model.predicts_draws  # no draw model: P(draw) is 0
    q = model.predict_outcomes(log)
    np.testing.assert_array_equal(q[:, 1], 0.0)
    np.testing.assert_array_equal(q[:, 0], model.predict_games(log))
    with pytest.raises(discrank.UnknownPlayerError, match="unknown player label.*99.*DynamicElo"):
        model.predict_proba(99, log.a[0])


def test_online_protocol_equals_a_manual_loop_of_update_and_predict():
    log = league(games=1000, periods=20, seed=11)
    ev = discrank.evaluate({"dyn": DynamicElo(period=1.0, drift=0.3, prior_scale=1.5, variance_scale=1.0)}, log,
                           cutoff=14.0, protocol="online", refit=1.0)
    manual = DynamicElo(period=1.0, drift=0.3, prior_scale=1.5, variance_scale=1.0).fit(log._take(log.time < 14))
    seen = np.union1d(log.a[log.time < 14], log.b[log.time < 14])
    preds = []
    for k in range(14, 20):
        week = log._take(log.time == k)
        keep = np.isin(week.a, seen) & np.isin(week.b, seen)
        preds.append(manual.predict_games(week)[keep])
        manual.update(week)
    assert np.allclose(ev.predictions["dyn"], np.concatenate(preds), atol=1e-12)
    assert ev.summary()[0]["log_loss"] < math.log(2)


@pytest.mark.parametrize("draws", [None, "davidson", "rao-kupper"])
def test_the_kernels_thread_count_does_not_change_the_fit(draws):
    # the games' terms run in the core's pair kernel; its sums are in a fixed order whatever the threads
    log = league(n=40, periods=30, games=6000, draws=draws is not None, seed=5)
    fits = [DynamicElo(period=1.0, drift=0.2, prior_scale=1.0, draws=draws, n_jobs=k).fit(log) for k in (1, 2, 3)]
    for other in fits[1:]:
        assert np.abs(other.pp_rating_ - fits[0].pp_rating_).max() < 1e-12
        assert np.abs(other.beta_ - fits[0].beta_).max() < 1e-12
        assert np.abs(other.pp_sd_ - fits[0].pp_sd_).max() < 1e-12


# ------------------------------------------------------------------------------- save and load
def _rows(log, rows):
    """The games ``rows`` of a log (in time order)."""
    return GameLog.from_arrays(log.a[rows], log.b[rows], log.score[rows], None if log.time is None else log.time[rows],
                               advantage={"home": log.advantage[rows, 0]})


def _dated(log, unit="D"):
    """``log`` with its numeric times as dates (period week)."""
    return GameLog.from_arrays(log.a, log.b, log.score, (log.time * 7).astype(f"datetime64[{unit}]"),
                               advantage={"home": log.advantage[:, 0]})


@pytest.mark.parametrize("case", ["dates", "numbers", "float times", "stationary", "davidson", "rao-kupper"])
def test_a_saved_model_predicts_and_updates_as_the_original(tmp_path, case):
    log = league(draws=case in ("davidson", "rao-kupper"))
    if case == "dates":
        log, model = _dated(log), DynamicElo(period="week", drift=0.2, prior_scale=1.0)
    elif case == "numbers":  # integer times, a bin of 2
        log = GameLog.from_arrays(log.a, log.b, log.score, log.time.astype(np.int64), advantage={"home": log.advantage[:, 0]})
        model = DynamicElo(period=2, drift=0.2, prior_scale=1.0)
    elif case == "float times":
        model = DynamicElo(period=1.0, drift=0.2, prior_scale=1.0)
    elif case == "stationary":  # no times at all
        log = GameLog.from_arrays(log.a, log.b, log.score, advantage={"home": log.advantage[:, 0]})
        model = DynamicElo(period=None, prior_scale=1.0)
    else:
        model = DynamicElo(period=1.0, drift=0.2, prior_scale=1.0, draws=case)
    half = len(log) // 2
    first, second = (_rows(log, rows) for rows in (slice(None, half), slice(half, None)))
    model.fit(first)
    model.save(tmp_path / "m.npz")
    back = discrank.load(tmp_path / "m.npz")
    assert type(back) is DynamicElo and back.get_params() == model.get_params()
    np.testing.assert_array_equal(back.predict_games(log), model.predict_games(log))
    np.testing.assert_array_equal(back.predict_proba(log.a[:20], log.b[:20]), model.predict_proba(log.a[:20], log.b[:20]))
    assert back.history().equals(model.history())
    for attr in ("drift_", "prior_scale_", "variance_scale_", "converged_", "n_iter_", "draw_nu_", "draw_threshold_",
                 "last_bin_", "advantage_names_"):
        assert getattr(back, attr) == getattr(model, attr), attr
    np.testing.assert_array_equal(back.beta_, model.beta_)
    np.testing.assert_allclose(back.beta_se_, model.beta_se_, rtol=1e-12)  # derived again from the games
    if model.draws is not None:
        assert back.draw_eta_se_ == pytest.approx(model.draw_eta_se_, rel=1e-12)
    if model.period is not None:
        at = log.time[half]
        assert back.ratings_at(at).equals(model.ratings_at(at))
    # the tuning's record as JSON holds it (number keys as text, tuples as lists), None where nothing was tuned
    assert back.tuning_ == (None if model.tuning_ is None else json.loads(json.dumps(
        model.tuning_, default=lambda v: v.item() if hasattr(v, "item") else v.tolist())))
    # update goes on from the file as from the model
    model.update(second)
    back.update(second)
    np.testing.assert_array_equal(back.pp_rating_, model.pp_rating_)
    np.testing.assert_array_equal(back.predict_games(log), model.predict_games(log))


def test_a_saved_model_keeps_its_labels_and_a_refitted_one_is_equal(tmp_path):
    log = _dated(league())
    named = GameLog.from_arrays(np.char.add("p", log.a.astype(str)), np.char.add("p", log.b.astype(str)), log.score,
                                log.time, advantage={"home": log.advantage[:, 0]})
    model = DynamicElo(drift=0.2, prior_scale=1.0).fit(named)
    model.save(tmp_path / "m.npz")
    back = discrank.load(tmp_path / "m.npz")
    assert back.labels_.tolist() == model.labels_.tolist()
    refit = DynamicElo(drift=0.2, prior_scale=1.0).fit(named)
    np.testing.assert_array_equal(back.pp_rating_, refit.pp_rating_)


def _tampered(tmp_path, change, draws=None, meta=None):
    import json

    log = _dated(league(draws=draws is not None))
    DynamicElo(drift=0.2, prior_scale=1.0, draws=draws).fit(log).save(tmp_path / "m.npz")
    with np.load(tmp_path / "m.npz") as z:
        files = {k: z[k] for k in z.files}
    if change:
        change(files)
    if meta:
        head = json.loads(str(files["__discrank__"]))
        meta(head)
        files["__discrank__"] = np.array(json.dumps(head))
    out = tmp_path / "tampered.npz"
    np.savez_compressed(out, **files)
    return out


def _set(key, index, value):
    def change(files):
        arr = files[key].copy()
        arr[index] = value
        files[key] = arr
    return change


@pytest.mark.parametrize("change, message", [
    (_set("games_a_", 3, 99), r"games_a_\[3\] = 99 is not a player code \(labels_ holds 12 players\)"),
    (_set("games_b_", 0, -1), r"games_b_ holds -1, a negative player code"),
    (lambda f: f.__setitem__("games_b_", f["games_a_"].copy()), r"game 0 has the player 0 against themself"),
    (_set("games_score_", 5, 1.5), r"games_score_\[5\] = 1.5 is outside \[0, 1\] \(a score\)"),
    (_set("games_score_", 5, -0.5), r"games_score_\[5\] = -0.5 is outside \[0, 1\] \(a score\)"),
    (_set("games_score_", 5, np.nan), r"games_score_\[5\] = nan is not finite"),
    (_set("games_bin_", 7, 10_000), r"games_bin_\[7\] = 10000 is not the period of the game's time"),
    (_set("games_time_int_", 0, 10**12), r"the games are not in time order: game 1 is earlier than game 0"),
    (lambda f: f.pop("games_time_int_"), r"time_dtype_ = 'datetime64\[D\]' needs games_time_int_"),
    (lambda f: f.__setitem__("games_x_", f["games_x_"][:-1]), r"games_x_ has shape \(899, 1\), expected \(900, 1\)"),
    (lambda f: f.__setitem__("games_x_", np.zeros_like(f["games_x_"])), r"advantage column 'home' is 0 in every game"),
    (lambda f: f.__setitem__("pp_rating_", f["pp_rating_"][:-1]), r"pp_rating_ has shape \(\d+,\), but the games make \d+ player-periods"),
    (_set("pp_sd_", 2, -1.0), r"pp_sd_ holds -1.0, a negative standard deviation"),
    (_set("pp_rating_", 2, np.inf), r"pp_rating_\[2\] = inf is not finite"),
    (_set("pp_rating_", 2, 1e9), r"pp_rating_\[2\] = 1000000000.0 is above MAX_ABS_PARAMETER"),
    (lambda f: f.__setitem__("theta_tail_", np.zeros(3)), r"theta_tail_ has shape \(3,\), expected \(1,\)"),
    (_set("theta_tail_", 0, 0.123), r"beta_ = \[[-0-9.e]+\] differs from the coefficients in theta_tail_ \(\[0.123\]\)"),
    (lambda f: f.__setitem__("games_score_", f["games_score_"].astype(np.int64)), r"games_score_ has shape \(900,\) and dtype int64, expected 1 dimension\(s\) of floats"),
    (lambda f: f.__setitem__("pp_rating_", f["pp_rating_"].reshape(1, -1)), r"pp_rating_ has shape \(1, \d+\) and dtype float64, expected 1 dimension"),
])
def test_a_tampered_dynamic_model_file_is_refused_naming_the_field(tmp_path, change, message):
    with pytest.raises(ValueError, match=r"tampered\.npz: " + message):
        discrank.load(_tampered(tmp_path, change))


@pytest.mark.parametrize("meta, message", [
    (lambda h: h["scalars"].pop("drift_"), r"scalars\.drift_ is missing"),
    (lambda h: h["scalars"].__setitem__("drift_", -1.0), r"scalars\.drift_ = -1.0 is not a positive finite number"),
    (lambda h: h["scalars"].__setitem__("variance_scale_", 0), r"scalars\.variance_scale_ = 0 is not a positive finite number"),
    (lambda h: h["scalars"].pop("prior_scale_"), r"scalars\.prior_scale_ is missing"),
    (lambda h: h["scalars"].__setitem__("time_dtype_", "datetime64[fs]"), r"scalars\.time_dtype_ = 'datetime64\[fs\]' is not"),
    (lambda h: h["scalars"].pop("time_dtype_"), r"the file holds times \(games_time_int_\) but no time_dtype_"),
    (lambda h: h["params"].__setitem__("period", "fortnight"), r"params\.period = 'fortnight' is not None or 'day', 'week', 'month', 'year' or a positive finite number"),
    (lambda h: h["params"].__setitem__("period", 1.0), r"period=1.0 is not one of \('day', 'week', 'month', 'year'\) \(this log's times are dates\)"),
    (lambda h: h["params"].__setitem__("period", "month"), r"games_bin_\[\d+\] = \d+ is not the period of the game's time \(\d+\)"),
    (lambda h: h["params"].__setitem__("draws", "davidson"), r"draws='davidson': the log has no draw"),
    (lambda h: h["params"].__setitem__("prior_scale", float("inf")), r"prior_scale must be a positive finite number"),
    (lambda h: h.pop("advantage"), r"unexpected array 'beta_'"),
])
def test_a_dynamic_model_file_with_a_bad_header_is_refused_naming_the_field(tmp_path, meta, message):
    with pytest.raises(ValueError, match=r"tampered\.npz: " + message):
        discrank.load(_tampered(tmp_path, None, meta=meta))


def test_a_draw_model_file_with_a_score_that_is_not_a_result_is_refused(tmp_path):
    with pytest.raises(ValueError, match=r"tampered\.npz: draws='davidson' needs results 1, 0.5 or 0; game 4"):
        discrank.load(_tampered(tmp_path, _set("games_score_", 4, 0.3), draws="davidson"))


def test_an_unfitted_dynamic_model_is_not_saved(tmp_path):
    from discrank.exceptions import NotFittedError

    with pytest.raises(NotFittedError, match="not fitted"):
        DynamicElo().save(tmp_path / "m.npz")


def test_the_history_is_the_same_with_int32_and_int64_player_period_keys(monkeypatch):
    from discrank.solvers import _history, _history_build

    log = league(n=30, periods=40, games=3000, draws=True, seed=4)
    m = DynamicElo(period=1.0)
    labels, g = m._games(log)
    small = _history.build_history(g.a, g.b, g.score, g.bins, g.x, len(labels), True)
    monkeypatch.setattr(_history_build, "INT32_KEYS", 0)  # the int64 path of logs with n_players * periods >= 2^31
    wide = _history.build_history(g.a, g.b, g.score, g.bins, g.x, len(labels), True)
    for name in ("n_players", "n_pp", "pp_player", "pp_bin", "first", "gap", "lo", "hi", "x", "n", "win", "draw"):
        a, b = getattr(small, name), getattr(wide, name)
        assert np.asarray(a).dtype == np.asarray(b).dtype, name
        np.testing.assert_array_equal(a, b, err_msg=name)


def test_a_frozen_validation_scores_forecasts_from_the_fit_before_its_gap():
    # Validation(online=False) given (evaluate's frozen protocol): one origin, the games before the gap;
    # every game of the window is forecast from that fit, as a frozen model predicts the test games
    from discrank.evaluation._evaluate import game_losses

    log = league(periods=20, games=1500, seed=9)
    validation = Validation(window=4.0, gap=3.0)
    dyn = DynamicElo(period=1.0, variance_scale=2.0).fit(log, validation=validation)
    assert dyn.tuning_["periods"] == 1 and "before the gap (frozen)" in dyn.tuning_["rule"]
    t = log.time
    past, window = t <= t[-1] - 4.0 - 3.0, t > t[-1] - 4.0  # the window: the last 4 time units, after the gap
    fixed = DynamicElo(period=1.0, drift=dyn.drift_, prior_scale=dyn.prior_scale_, variance_scale=2.0)
    fixed.fit(GameLog.from_arrays(log.a[past], log.b[past], log.score[past], t[past],
                                  advantage={"home": log.advantage[past, 0]}))
    seen = np.isin(log.a[window], log.a[past]) | np.isin(log.a[window], log.b[past])
    seen &= np.isin(log.b[window], log.a[past]) | np.isin(log.b[window], log.b[past])
    test = GameLog.from_arrays(log.a[window][seen], log.b[window][seen], np.full(seen.sum(), 0.5), t[window][seen],
                               advantage={"home": log.advantage[window][seen, 0]})
    q = fixed.predict_games(test)
    manual = float(np.mean(game_losses(q, log.score[window][seen])["log_loss"]))
    # the tuning's fits stop at a relative gradient of 1e-4: the scores agree to about 1e-5
    assert dyn.tuning_["scores"][dyn._candidate(dyn.drift_, dyn.prior_scale_)] == pytest.approx(manual, abs=1e-4)
    # the online validation (the default) forecasts from several origins inside the window
    online = DynamicElo(period=1.0, variance_scale=2.0).fit(log, validation=Validation(window=4.0, online=True))
    assert online.tuning_["periods"] > 1


def test_validation_origins_sets_the_tunings_forecast_origins():
    from discrank.models.dynamic._tuning import ORIGIN_GAMES, ORIGINS

    log = league(periods=20, games=1500, seed=9)
    window = Validation(window=6.0, online=True)
    default = DynamicElo(period=1.0, drift=0.1, prior_scale=2.0).fit(log, validation=window)
    # the default: one origin per period of the 6-period window (ORIGIN_GAMES // 1500 games is more than 6)
    assert ORIGIN_GAMES // len(log) > 6 >= ORIGINS - 2 and default.tuning_["periods"] == 6
    for k in (1, 3, 6, 50):  # evenly spread over the window's periods, one per period at most
        model = DynamicElo(period=1.0, drift=0.1, prior_scale=2.0).fit(
            log, validation=Validation(window=6.0, online=True, origins=k))
        assert model.tuning_["periods"] == min(k, 6)
        if k >= 6:  # the same origins: the same scores
            assert model.tuning_["scores"] == default.tuning_["scores"]
    # one origin forecasts the window from further back: wider forecasts, a higher validation log loss
    one = DynamicElo(period=1.0, drift=0.1, prior_scale=2.0).fit(log, validation=Validation(window=6.0, online=True,
                                                                                            origins=1))
    key = one._candidate(0.1, 2.0)
    assert one.tuning_["scores"][key] > default.tuning_["scores"][key]


@pytest.mark.parametrize("value, online", [(0, True), (-2, True), (1.5, True), (True, True), ("3", True), (3, False)])
def test_validation_origins_must_be_a_positive_integer_with_online_validation(value, online):
    # online=False forecasts the window from one fit before its gap: origins would be silently unused
    with pytest.raises(ValueError, match=re.escape(f"Validation.origins must be a positive integer with online=True, "
                                                   f"got {value!r} with online={online}")):
        Validation(origins=value, online=online)


def test_newton_reaches_a_tolerance_below_the_objectives_rounding():
    # near the MAP a Newton step's decrease is below the rounding of the objective (about 3000 here), so
    # Armijo's test cannot see it: the step is taken when it shrinks the gradient. Judged by the value
    # alone, this fit halved its steps to nothing and stopped at max_iter with a relative gradient of 6e-11.
    rng = np.random.default_rng(13)
    n, periods, games = 40, 20, 5000
    true = np.cumsum(rng.normal(0, 0.2, (n, periods)), axis=1) + rng.normal(0, 1, (n, 1))
    a = rng.integers(0, n, games)
    b = (a + rng.integers(1, n, games)) % n
    t = np.sort(rng.integers(0, periods, games))
    home = rng.choice([-1.0, 0.0, 1.0], games)
    p = expit(true[a, t] - true[b, t] + 0.4 * home)
    u = rng.random(games)
    y = np.where(u < p - 0.1, 1.0, np.where(u < p + 0.1, 0.5, 0.0))
    log = GameLog.from_arrays(a, b, y, t.astype(float), advantage={"home": home})
    m = DynamicElo(period=1.0, drift=0.2, prior_scale=1.0, draws="davidson", tol=1e-12).fit(log)
    assert m.converged_ and m.n_iter_ <= 10 and m.gradient_ <= 1e-12


def test_the_fitted_games_are_a_frozen_games_record_in_time_order_and_update_appends_to_it():
    import dataclasses

    from discrank.models.dynamic._state import Games

    log = league(games=300)
    order = np.argsort(log.time, kind="stable")
    half = 150
    model = DynamicElo(period=1.0, drift=0.3, prior_scale=1.5).fit(_rows(log, order[:half]))
    games = model.games_
    assert type(games) is Games and dataclasses.is_dataclass(games) and len(games) == half
    with pytest.raises(dataclasses.FrozenInstanceError):
        games.score = games.score[::-1]
    labels = model.labels_
    np.testing.assert_array_equal(labels[games.a], log.a[order[:half]])
    np.testing.assert_array_equal(labels[games.b], log.b[order[:half]])
    np.testing.assert_array_equal(games.score, log.score[order[:half]])
    np.testing.assert_array_equal(games.time, log.time[order[:half]])
    np.testing.assert_array_equal(games.bins, np.floor(log.time[order[:half]]).astype(np.int64))
    np.testing.assert_array_equal(games.x[:, 0], log.advantage[order[:half], 0])
    assert games.count is None and games.n_games == half
    model.update(_rows(log, order[half:]))
    assert len(model.games_) == 300 and model.games_.n_games == 300
    np.testing.assert_array_equal(model.games_.score[:half], games.score)
    np.testing.assert_array_equal(model.labels_[model.games_.a], log.a[order])
