"""DynamicElo's disc game (issue 36, item 1): ``disc_components=k`` adds the paper's disc game to each game's
logit over the whole history. The solver's exact Newton steps against L-BFGS, the recovery of a cyclic league's
disc and its forecasts, the tuned scale, updates, thread-independence, and the bad input."""

import warnings

import numpy as np
import pytest
from _map_checks import check_derivatives, lbfgs

from discrank import DynamicElo, GameLog, load
from discrank.solvers._history import _Problem, build_history, default_start, solve_history
from discrank.analysis import normal_decomposition, transitivity_summary


def cyclic_league(seed=7, n=40, games=8000, days=300.0):
    """Players with a small transitive spread and a disc game of radius 0.5 .. 1.5: (log, (u, v))."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, n, games)
    b = (a + rng.integers(1, n, games)) % n
    t = np.sort(rng.uniform(0.0, days, games))
    s, angle, radius = rng.normal(scale=0.5, size=n), rng.uniform(0, 2 * np.pi, n), rng.uniform(0.5, 1.5, n)
    u, v = radius * np.cos(angle), radius * np.sin(angle)
    d = s[a] - s[b] + u[a] * v[b] - v[a] * u[b]
    y = (rng.random(games) < 1.0 / (1.0 + np.exp(-d))).astype(np.float64)
    labels = np.array([f"p{k:02d}" for k in range(n)], dtype=object)
    return GameLog.from_arrays(labels[a], labels[b], y, t), (u, v)


def log_loss(p, y):
    return float(-np.mean(y * np.log(p) + (1.0 - y) * np.log(1.0 - p)))


def test_the_disc_gradient_matches_finite_differences_and_newton_reaches_the_lbfgs_optimum():
    rng = np.random.default_rng(2)
    n, games = 15, 3000
    ca = rng.integers(0, n, games)
    cb = (ca + rng.integers(1, n, games)) % n
    bins = np.sort(rng.integers(0, 20, games))
    angle = rng.uniform(0, 2 * np.pi, n)
    u, v = np.cos(angle), np.sin(angle)
    d = 0.3 * rng.normal(size=n)[ca] + u[ca] * v[cb] - v[ca] * u[cb]
    y = (rng.random(games) < 1.0 / (1.0 + np.exp(-d))).astype(float)
    h = build_history(ca, cb, y, bins, None, n, None)
    prob = _Problem(h, 0.1, 1.5, None, disc=1, disc_scale=1.0)
    theta = default_start(h, None, 1) + rng.normal(scale=0.2, size=h.n_pp + 2 * n)
    check_derivatives(prob, theta, rng, grad_atol=2e-6, every=3)
    res = solve_history(h, 0.1, 1.5, None, disc=1, disc_scale=1.0, tol=1e-9)
    ref = lbfgs(prob, default_start(h, None, 1))
    assert res.converged and res.n_iter < 40  # exact Newton: 17 steps measured (Gauss-Newton alone: > 100)
    assert res.objective == pytest.approx(ref.fun, abs=1e-6)


def test_a_cyclic_league_gets_its_disc_back_and_forecasts_better_than_ratings_alone():
    log, (u, v) = cyclic_league()
    past, future = log.filter(end=250.0), log.filter(start=250.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (a scale at its bound would warn: not the point here)
        model = DynamicElo(period=10.0, disc_components=1).fit(past)
    plain = DynamicElo(period=10.0).fit(past)
    assert model.disc_u_.shape == (40, 1) and plain.disc_u_ is None and plain.cyclic_logits() is None
    true = u[:, None] * v[None, :] - v[:, None] * u[None, :]
    got = model.cyclic_logits()
    np.testing.assert_allclose(got, -got.T, rtol=0, atol=1e-12)
    assert np.corrcoef(got.ravel(), true.ravel())[0, 1] > 0.9  # 0.937 measured
    assert 0.5 <= model.disc_scale_ <= 2.0
    gain = log_loss(plain.predict_games(future), future.score) - log_loss(model.predict_games(future), future.score)
    assert gain > 0.03  # 0.055 measured: a third of the league's variance is cyclic


def fixed(**kw):
    return DynamicElo(period=10.0, drift=0.05, prior_scale=1.0, variance_scale=1.0, disc_components=1,
                      disc_scale=1.0, **kw)


def test_an_update_with_a_disc_equals_the_refit_of_every_game():
    log, _ = cyclic_league(games=3000)
    past, new = log.filter(end=250.0), log.filter(start=250.0)
    model = fixed().fit(past).update(new)
    ref = fixed().fit(log)
    np.testing.assert_allclose(model.predict_games(log), ref.predict_games(log), rtol=0, atol=1e-5)


def test_the_disc_is_the_same_whatever_the_threads():
    log, _ = cyclic_league(games=3000)
    one, two = fixed(n_jobs=1).fit(log), fixed(n_jobs=2).fit(log)
    np.testing.assert_allclose(one.cyclic_logits(), two.cyclic_logits(), rtol=0, atol=1e-8)


def test_the_bad_input_of_the_disc_is_refused_naming_it(tmp_path):
    log, _ = cyclic_league(games=500)
    for bad in (-1, 1.5, "1"):
        with pytest.raises((TypeError, ValueError), match="disc_components"):
            DynamicElo(period=10.0, disc_components=bad).fit(log)
    with pytest.raises(ValueError, match="disc_scale"):
        DynamicElo(period=10.0, disc_components=1, disc_scale=-1.0).fit(log)
    model = fixed().fit(log)
    model.save(tmp_path / "model.npz")  # (its file holds the feature: tests/test_feature_files.py)
    np.testing.assert_array_equal(load(tmp_path / "model.npz").predict_games(log), model.predict_games(log))


def test_the_verdict_at_a_time_is_the_normal_decomposition_of_the_logits_then():
    log, _ = cyclic_league(games=3000)
    model = fixed().fit(log)
    idx, W, J = model._logit_factors(100.0, None)
    A = W @ J @ W.T  # the logits between every two players at day 100, dense (the method never builds it)
    rating = model.ratings_at(100.0)["rating"].to_numpy()
    np.testing.assert_allclose(A, rating[:, None] - rating[None, :] + model.cyclic_logits(), rtol=0, atol=1e-12)
    U, V, _ = normal_decomposition(A, 2)
    ref, got = transitivity_summary(U, V), model.transitivity_at(100.0)
    np.testing.assert_allclose(got.share, ref.share, rtol=0, atol=1e-10)
    assert list(got.transitive) == list(ref.transitive) == [False, False]  # the league's disc dominates: cyclic
    assert got.share[0] > 0.6  # 0.76 measured
    with pytest.raises(ValueError, match="main component is cyclic at that time"):
        model.strength_consistency_at(100.0)
    # the ratings alone: one transitive component, whose strength is the rating and consistency 1 (Prop. 2)
    plain = DynamicElo(period=10.0, drift=0.05, prior_scale=1.0, variance_scale=1.0).fit(log)
    summary = plain.transitivity_at(100.0, ["p00", "p01", "p02", "p03"])
    assert summary.share.tolist() == [1.0] and summary.main_transitive
    frame = plain.strength_consistency_at(100.0, ["p00", "p01", "p02", "p03"])
    r = plain.ratings_at(100.0, ["p00", "p01", "p02", "p03"])["rating"].to_numpy()
    np.testing.assert_allclose(frame["strength"], r - r.mean(), rtol=0, atol=1e-9)
    np.testing.assert_allclose(frame["consistency"], 1.0, rtol=0, atol=1e-9)


def residual_matrix(h, res):
    """The skew-symmetric matrix of the games' residuals between each pair of players (score minus
    probability, summed over the pair's games) at the ratings of ``res``, dense (discrank.solvers._disc_start)."""
    r = res.r
    pa, pb = h.pp_player[h.lo], h.pp_player[h.hi]
    p = 1.0 / (1.0 + np.exp(-(r[h.lo] - r[h.hi])))
    R = np.zeros((h.n_players, h.n_players))
    np.add.at(R, (pa, pb), h.win - h.n * p)
    return R - R.T


@pytest.mark.parametrize("n", [30, 100])  # the dense block (at most 64 entries), and Lanczos steps
def test_the_disc_is_exactly_zero_below_the_residuals_threshold_and_grows_above_it(n):
    """The disc block of the Hessian at u = v = 0 is I / s^2 - D(R) (discrank.solvers._disc_start): the zero disc is the
    MAP exactly when the residuals' largest singular value is below 1 / s^2. A transitive league (no cycle) is fitted
    just below and just above that threshold, computed here from the ratings' fit with numpy's SVD."""
    from discrank.solvers._disc_start import lowest_disc_mode

    rng = np.random.default_rng(5)
    games = 60 * n
    ca = rng.integers(0, n, games)
    cb = (ca + rng.integers(1, n, games)) % n
    bins = np.sort(rng.integers(0, 10, games))
    d = rng.normal(size=n)[ca] - rng.normal(size=n)[cb]
    y = (rng.random(games) < 1.0 / (1.0 + np.exp(-d))).astype(float)
    h = build_history(ca, cb, y, bins, None, n, None)
    plain = solve_history(h, 0.1, 1.5, None, tol=1e-12)
    sigma = np.linalg.svd(residual_matrix(h, plain), compute_uv=False)[0]
    threshold = 1.0 / np.sqrt(sigma)
    # the lowest mode of the disc block at the ratings' fit: 1 / s^2 - sigma_1 (Lanczos: within 1e-3 relative)
    prob = _Problem(h, 0.1, 1.5, None, disc=1, disc_scale=1.0)
    theta = np.insert(plain.theta, h.n_pp, np.zeros(2 * n))
    prob.value_grad(theta)
    lam, mode = lowest_disc_mode(prob.hessian()[0].matvec, theta.size, np.arange(h.n_pp, h.n_pp + 2 * n))
    assert lam == pytest.approx(1.0 - sigma, rel=1e-3 if n > 32 else 1e-10)
    assert np.linalg.norm(mode) == pytest.approx(1.0, rel=1e-12)
    for scale in (0.95 * threshold, 1e-3):  # (the stopping rule's scale ignores the disc's prior, however tight)
        below = solve_history(h, 0.1, 1.5, None, disc=1, disc_scale=scale, tol=1e-12)
        assert below.converged and not np.any(below.disc)  # exactly 0: the ratings' fit, with the plain one's steps
        np.testing.assert_allclose(below.r, plain.r, rtol=0, atol=1e-12)
        assert below.n_iter == plain.n_iter and below.disc_sigma == pytest.approx(sigma, rel=1e-3 if n > 32 else 1e-9)
    above = solve_history(h, 0.1, 1.5, None, disc=1, disc_scale=1.3 * threshold, tol=1e-12)
    assert above.converged and above.objective < below.objective - 1e-6
    assert np.abs(above.disc).max() > 0.3  # 0.82 and 0.91 measured: the disc fits the residuals' top pair
    # a warm start from the zero disc (a saddle point) reaches the same MAP as the fit from scratch
    warm = solve_history(h, 0.1, 1.5, None, disc=1, disc_scale=1.3 * threshold, tol=1e-12, theta0=below.theta)
    assert warm.converged and warm.objective == pytest.approx(above.objective, abs=1e-9)
    assert np.abs(above.disc).max() > 0.05  # 0.2 .. 0.3 measured: the disc fits the residuals' top pair


def test_the_fit_starts_the_disc_along_the_lowest_mode_and_fixes_its_free_rotation():
    """From the ratings' fit and the lowest mode, Newton takes fewer steps than from the small random start of
    :data:`discrank.solvers._history.DISC_START` (12 against 14, 81 against 107 CG iterations), to the same MAP; each component leaves the fit rotated to sum(v) =
    0, sum(u) > 0, and a rotation of (u, v) changes neither the objective nor the disc."""
    from discrank.solvers._disc_start import canonical_gauge

    log, _ = cyclic_league(games=4000)
    model = fixed(tol=1e-12).fit(log)
    u, v = model.disc_u_[:, 0], model.disc_v_[:, 0]
    assert abs(v.sum()) < 1e-10 and u.sum() > 0.1
    h = build_history(*_codes(log), None, 40, None)
    staged = solve_history(h, 0.05, 1.0, None, disc=1, disc_scale=1.0, tol=1e-12)
    from_draws = solve_history(h, 0.05, 1.0, None, disc=1, disc_scale=1.0, tol=1e-12,
                               theta0=default_start(h, None, 1))
    assert staged.converged and from_draws.converged and staged.n_iter < from_draws.n_iter
    assert staged.objective == pytest.approx(from_draws.objective, abs=1e-7)
    disc = lambda res: np.outer(res.disc[:40], res.disc[40:]) - np.outer(res.disc[40:], res.disc[:40])  # noqa: E731
    np.testing.assert_allclose(disc(staged), disc(from_draws), rtol=0, atol=1e-6)
    np.testing.assert_allclose(staged.disc, from_draws.disc, rtol=0, atol=1e-6)  # the same rotation too
    angle = 0.7
    turned = staged.theta.copy()
    iu, iv = slice(h.n_pp, h.n_pp + 40), slice(h.n_pp + 40, h.n_pp + 80)
    turned[iu] = np.cos(angle) * staged.theta[iu] - np.sin(angle) * staged.theta[iv]
    turned[iv] = np.sin(angle) * staged.theta[iu] + np.cos(angle) * staged.theta[iv]
    prob = _Problem(h, 0.05, 1.0, None, disc=1, disc_scale=1.0)
    assert prob.value_grad(turned)[0] == pytest.approx(staged.objective, rel=1e-13)
    back, = canonical_gauge((turned,), h.n_pp, 1, 40)
    np.testing.assert_allclose(back, staged.theta, rtol=0, atol=1e-12)


def _codes(log):
    """(codes of a, codes of b, score, bins of 10 days) of a cyclic_league log."""
    a = np.array([int(s[1:]) for s in log.a])
    b = np.array([int(s[1:]) for s in log.b])
    return a, b, np.asarray(log.score, dtype=float), (np.asarray(log.time) // 10.0).astype(np.int64)


def test_the_tuned_disc_of_a_transitive_league_is_exactly_zero_and_leaves_the_ratings_as_dynamic_elo_s():
    """The tuning searches the drift and prior without the disc, measures the residuals' threshold, and walks the disc
    scale over DISC_STEPS times it from below it: on a league with no cycle the walk stays there, so the fit is
    DynamicElo()'s (the same choices, the ratings to the solvers' rounding) with a disc of exact zeros; on the cyclic
    league the grid is the same multiples of its own threshold and the walk climbs it."""
    from discrank.models.dynamic._disc import DISC_STEPS

    rng = np.random.default_rng(3)
    n, games = 40, 8000
    a = rng.integers(0, n, games)
    b = (a + rng.integers(1, n, games)) % n
    t = np.sort(rng.uniform(0, 300, games))
    s = rng.normal(size=n)
    y = (rng.random(games) < 1 / (1 + np.exp(-(s[a] - s[b])))).astype(float)
    log = GameLog.from_arrays(a, b, y, t)
    model = DynamicElo(period=10.0, disc_components=1).fit(log)
    plain = DynamicElo(period=10.0).fit(log)
    assert not np.any(model.disc_u_) and not np.any(model.disc_v_)
    assert (model.drift_, model.prior_scale_, model.variance_scale_) == (plain.drift_, plain.prior_scale_,
                                                                          plain.variance_scale_)
    np.testing.assert_allclose(model.pp_rating_, plain.pp_rating_, rtol=0, atol=1e-9)  # 3.5e-13 measured
    walked = sorted(model.tuning_["disc_scales"])
    threshold = walked[0] / DISC_STEPS[0]
    np.testing.assert_allclose(walked, [threshold * m for m in DISC_STEPS[:len(walked)]], rtol=1e-12)
    assert model.disc_scale_ == walked[0] and len(walked) == 2  # the step above the threshold did not help
    cyclic, _ = cyclic_league()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tuned = DynamicElo(period=10.0, disc_components=1).fit(cyclic.filter(end=250.0))
    walked = sorted(tuned.tuning_["disc_scales"])
    assert len(walked) >= 4 and tuned.disc_scale_ >= walked[0] / DISC_STEPS[0] * DISC_STEPS[2]  # 4x measured
