"""HistoryState (discrank.solvers._history_update): games absorbed into a whole-history MAP give the MAP of every
game, with the gradient tracked exactly; History.before cuts a history as a build of the earlier games does."""

import dataclasses

import numpy as np
import pytest

from discrank.solvers._history import build_history, chain_variances, gradient_at, solve_history
from discrank.solvers._history_update import LATE, HistoryState

DRIFT, PRIOR = 0.2, 1.0


def games(seed, n=1500, p=40, periods=40, draws=False, cov=False):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, p, n)
    b = (a + rng.integers(1, p, n)) % p
    y = rng.choice([0.0, 0.5, 1.0] if draws else [0.0, 1.0], n)
    t = np.sort(rng.integers(0, periods, n))
    x = rng.choice([0.0, 1.0, -1.0], (n, 1)) if cov else None
    return a, b, y, t, x, p


def fitted_state(a, b, y, t, x, p, cut, draws=None, tau=1e-10):
    part = None if x is None else x[:cut]
    h = build_history(a[:cut], b[:cut], y[:cut], t[:cut], part, p, draws is not None)
    res = solve_history(h, DRIFT, PRIOR, draws, tol=1e-13)
    theta = np.concatenate([res.r, res.beta, [] if res.eta is None else [res.eta]])
    return HistoryState(h, theta, DRIFT, PRIOR, draws, tau, grad=res.grad, games_diag=res.games_diag)


@pytest.mark.parametrize("seed", range(4))
def test_absorbed_periods_give_the_map_of_every_game_and_its_variances(seed):
    a, b, y, t, x, p = games(seed)
    cut = int(np.searchsorted(t, 30))
    state = fitted_state(a, b, y, t, x, p, cut)
    for part in np.array_split(np.arange(30, 40), 3):  # three updates of a few periods each
        sel = np.isin(t, part)
        status = state.absorb(a[sel], b[sel], y[sel], t[sel], None, None, p, reach=4, rounds=10_000, max_share=2.0)
        assert status is None
    whole = build_history(a, b, y, t, None, p, False)
    exact = solve_history(whole, DRIFT, PRIOR, None, tol=1e-13)
    player, period, rating, sd, played = state.ordered()
    np.testing.assert_array_equal(player, whole.pp_player)
    np.testing.assert_array_equal(period, whole.pp_bin)
    np.testing.assert_allclose(rating, exact.r, rtol=0, atol=1e-9)
    np.testing.assert_allclose(sd, np.sqrt(chain_variances(exact.hessian_diag, exact.hessian_off, whole.first)),
                               rtol=0, atol=1e-9)
    np.testing.assert_array_equal(played, np.bincount(whole.lo, whole.n, whole.n_pp)
                                  + np.bincount(whole.hi, whole.n, whole.n_pp))
    # the latest rating's variance is the chain's last pivot's inverse, the same as chain_variances'
    mean, var, last_period, known = state.latest(np.arange(p))
    last = np.r_[whole.first[1:], True]
    np.testing.assert_allclose(mean[whole.pp_player[last]], exact.r[last], rtol=0, atol=1e-9)
    np.testing.assert_array_equal(last_period[whole.pp_player[last]], whole.pp_bin[last])
    assert known.all()


@pytest.mark.parametrize("draws,cov", [(None, True), ("davidson", False), ("rao-kupper", True)])
def test_the_tracked_gradient_is_the_gradient_of_every_game_with_the_global_parameters_held(draws, cov):
    a, b, y, t, x, p = games(7, draws=draws is not None, cov=cov)
    cut = int(np.searchsorted(t, 30))
    state = fitted_state(a, b, y, t, x, p, cut, draws, tau=1e-3)
    sel = t >= 30
    status = state.absorb(a[sel], b[sel], y[sel], t[sel], None if x is None else x[sel], None, p, reach=2, rounds=3)
    whole = build_history(a, b, y, t, x, p, draws is not None)
    grad, _ = gradient_at(whole, DRIFT, PRIOR, draws, state.theta)
    order = np.lexsort((state.pp_bin.a, state.pp_player.a))
    np.testing.assert_allclose(state.g.a[order], grad[:whole.n_pp], rtol=0, atol=1e-9)
    np.testing.assert_allclose(state.g_tail, grad[whole.n_pp:], rtol=1e-6, atol=1e-9)
    # the global parameters' gradient passed tau: a refit of the whole history is asked for
    assert status == "global" and np.abs(state.g_tail).max() > 1e-3
    assert state.gradient == pytest.approx(max(np.abs(grad).max(), 0.0), rel=1e-6)


def test_games_before_a_players_latest_period_are_refused_and_change_nothing():
    a, b, y, t, x, p = games(3)
    cut = int(np.searchsorted(t, 30))
    state = fitted_state(a, b, y, t, x, p, cut)
    r = state.r.a.copy()
    early = np.flatnonzero(t < 20)[:5]
    assert state.absorb(a[early], b[early], y[early], t[early], None, None, p) == LATE
    np.testing.assert_array_equal(state.r.a, r)
    assert state.n_pp == r.size


@pytest.mark.parametrize("draws,cov", [(False, False), (True, True)])
def test_a_history_cut_before_a_period_is_the_history_of_the_earlier_games(draws, cov):
    a, b, y, t, x, p = games(11, draws=draws, cov=cov)
    whole = build_history(a, b, y, t, x, p, draws)
    for period in (1, 17, 39, 40):
        k = int(np.searchsorted(t, period))
        built = build_history(a[:k], b[:k], y[:k], t[:k], None if x is None else x[:k], p, draws)
        cut = whole.before(period)
        for field in dataclasses.fields(built):
            np.testing.assert_array_equal(getattr(cut, field.name), getattr(built, field.name), err_msg=field.name)


@pytest.mark.parametrize("draws,cov", [(None, False), ("davidson", True)])
def test_the_state_as_a_history_has_the_map_of_every_game(draws, cov):
    a, b, y, t, x, p = games(5, draws=draws is not None, cov=cov)
    cut = int(np.searchsorted(t, 30))
    state = fitted_state(a, b, y, t, x, p, cut, draws, tau=1e-3)
    sel = t >= 30
    state.absorb(a[sel], b[sel], y[sel], t[sel], None if x is None else x[sel], None, p)
    merged = state.history()
    built = build_history(a, b, y, t, x, p, draws is not None)
    np.testing.assert_array_equal(merged.pp_player, built.pp_player)
    np.testing.assert_array_equal(merged.pp_bin, built.pp_bin)
    np.testing.assert_array_equal(merged.first, built.first)
    np.testing.assert_array_equal(merged.gap, built.gap)
    assert merged.n.sum() == built.n.sum() and merged.n_cov == built.n_cov
    one = solve_history(merged, DRIFT, PRIOR, draws, theta0=state.theta, tol=1e-12)
    two = solve_history(built, DRIFT, PRIOR, draws, tol=1e-12)
    np.testing.assert_allclose(one.r, two.r, rtol=0, atol=1e-9)
    np.testing.assert_allclose(one.beta, two.beta, rtol=0, atol=1e-9)
    assert one.objective == pytest.approx(two.objective, rel=1e-12)
