"""The dynamic model's fit without waste (issue 35): a log in time order used as it is, the history's
rows without copies or all-zero columns, the same ratings as before to 1e-12."""

import numpy as np

from discrank import DynamicElo, GameLog


def league(n=12, periods=15, games=900, seed=0, draws=False, with_x=True):
    """Games between ``n`` players over ``periods`` periods in time order (numeric times, one home column)."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, n, games)
    b = (a + rng.integers(1, n, games)) % n
    t = np.sort(rng.integers(0, periods, games)).astype(float)
    home = rng.choice([-1.0, 0.0, 1.0], games)
    y = (rng.random(games) < 1.0 / (1.0 + np.exp(-(a - b) / n - 0.3 * home))).astype(float)
    if draws:
        y[rng.random(games) < 0.2] = 0.5
    return GameLog.from_arrays(a, b, y, t, advantage={"home": home} if with_x else None)


def test_a_log_in_time_order_is_fitted_from_read_only_views_of_its_arrays():
    log = league()
    _, g = DynamicElo(period=1.0)._games(log)
    for fitted, own in ((g.score, log.score), (g.time, log.time), (g.x, log.advantage)):
        assert np.shares_memory(fitted, own) and not fitted.flags.writeable
    np.testing.assert_array_equal(g.x[:, 0], log.advantage[:, 0])


def test_a_shuffled_log_is_fitted_as_the_same_log_in_time_order():
    log = league(games=600)
    t = log.time + np.arange(len(log)) * 1e-6  # distinct times, in the same periods: one order
    log = GameLog.from_arrays(log.a, log.b, log.score, t, advantage={"home": log.advantage[:, 0]})
    perm = np.random.default_rng(1).permutation(len(log))
    shuffled = GameLog.from_arrays(log.a[perm], log.b[perm], log.score[perm], t[perm],
                                   advantage={"home": log.advantage[perm, 0]})
    kw = dict(period=1.0, drift=0.2, prior_scale=1.0, variance_scale=1.0)
    m1, m2 = DynamicElo(**kw).fit(log), DynamicElo(**kw).fit(shuffled)
    _, g = m2._games(shuffled)
    assert not np.shares_memory(g.score, shuffled.score) and not g.score.flags.writeable
    np.testing.assert_array_equal(m1.games_.time, m2.games_.time)
    np.testing.assert_array_equal(m1.games_.score, m2.games_.score)
    np.testing.assert_allclose(m1.pp_rating_, m2.pp_rating_, rtol=0, atol=1e-12)
    np.testing.assert_allclose(m1.beta_, m2.beta_, rtol=0, atol=1e-12)


def test_fixed_width_labels_are_coded_as_the_sorted_distinct_labels_of_both_columns():
    # a and b sorted apart and their distinct labels merged (issue 35: no copy of the two together): the
    # same labels and codes as np.unique over both, with labels only in a, only in b, and widths that differ
    from discrank._util.labels import factorize_pair

    rng = np.random.default_rng(5)
    pool = np.array([f"p{k}" * (1 + k % 3) for k in range(60)])
    a = pool[rng.integers(0, 40, 500)]  # p0 .. p39
    b = pool[rng.integers(20, 60, 500)].astype("<U12")  # p20 .. p59, wider
    labels, ca, cb = factorize_pair(a, b)
    ref, inv = np.unique(np.concatenate([a, b]), return_inverse=True)
    assert labels.tolist() == ref.tolist() and len(labels) == 60
    np.testing.assert_array_equal(ca, inv[:500])
    np.testing.assert_array_equal(cb, inv[500:])
    assert ca.dtype == cb.dtype == np.int64


def test_history_rows_are_int32_used_by_the_core_as_they_are_and_without_a_zero_draw_column():
    from discrank.solvers._history import build_history
    from discrank.solvers._history_core import core_rows

    log = league()
    m = DynamicElo(period=1.0)
    labels, g = m._games(log)
    h = build_history(g.a, g.b, g.score, g.bins, None, len(labels), False)
    assert h.lo.dtype == h.hi.dtype == np.int32 and (h.lo < h.hi).all()
    assert h.draw.shape == h.n.shape and h.draw.strides == (0,) and not h.draw.any()  # no memory per row
    assert h.x.shape == (h.n.size, 0) and h.pp_player.dtype == h.pp_bin.dtype == np.int64
    rows = core_rows(h, None)
    assert rows["lo"] is h.lo and rows["hi"] is h.hi and rows["draw"] is None
    drawn = build_history(g.a, g.b, g.score, g.bins, g.x, len(labels), True)  # a draw model: its draws kept
    assert drawn.draw.strides == (8,) and drawn.n_cov == 1


def test_a_warm_start_is_neither_written_nor_returned_as_the_ratings():
    from discrank.solvers._history import build_history, solve_history

    log = league(games=400)
    labels, g = DynamicElo(period=1.0)._games(log)
    h = build_history(g.a, g.b, g.score, g.bins, None, len(labels), False)
    cold = solve_history(h, 0.2, 1.0, None, tol=1e-12)
    theta0 = cold.r.copy()
    kept = theta0.copy()
    warm = solve_history(h, 0.2, 1.0, None, theta0=theta0, tol=1e-3)  # converged at the start: no step
    assert warm.n_iter == 0 and not np.shares_memory(warm.r, theta0)
    np.testing.assert_array_equal(theta0, kept)
    np.testing.assert_array_equal(warm.r, kept)
    stepped = solve_history(h, 0.3, 1.0, None, theta0=theta0, tol=1e-12)  # another drift: Newton steps
    assert stepped.n_iter > 0
    np.testing.assert_array_equal(theta0, kept)
    np.testing.assert_allclose(stepped.r, solve_history(h, 0.3, 1.0, None, tol=1e-12).r, rtol=0, atol=1e-9)
