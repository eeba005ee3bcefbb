"""The compiled objective against the numpy reference, its gradients, its determinism and its guards."""

import math

import numpy as np
import pytest
from reference import LOSS_IDS, objective, random_pairs

from discrank.core import _core
REL_TOL = 1e-12  # kernel vs reference, loss and gradients
FD_REL_TOL = 1e-6  # central finite differences vs analytic gradient


def random_problem(rng, n, m, k, loss, with_s=True, with_offset=True, scale=1.0):
    a = rng.integers(0, n, 4 * m)
    b = rng.integers(0, n, 4 * m)
    keep = a != b
    key = np.unique(np.minimum(a, b)[keep].astype(np.int64) * n + np.maximum(a, b)[keep])[:m]
    i = (key // n).astype(np.int32)
    j = (key % n).astype(np.int32)
    if loss == "squared_logit":
        y = rng.uniform(0.02, 0.98, i.size)
    else:
        y = rng.choice([0.0, 0.5, 1.0, 0.3, 0.9], i.size)
    w = rng.uniform(0.1, 2.0, i.size)
    U = scale * rng.standard_normal((n, k)) if k else None
    V = scale * rng.standard_normal((n, k)) if k else None
    s = scale * rng.standard_normal(n) if with_s else None
    offset = rng.standard_normal(i.size) if with_offset else None
    return i, j, y, w, U, V, s, offset


STRATEGIES = ["scatter", "gather"]


def kernel(n, i, j, y, w, loss, U, V, s, offset, n_threads=0, strategy="auto"):
    obj = _core.PairObjective(n, i, j, y, w, strategy=strategy)
    return obj.evaluate(
        LOSS_IDS[loss], U=U, V=V, s=s, offset=offset,
        grad_u=U is not None, grad_v=U is not None, grad_s=s is not None, n_threads=n_threads,
    )


@pytest.mark.parametrize("order", ["sorted", "shuffled"])
@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("loss", list(LOSS_IDS))
@pytest.mark.parametrize("k, with_s, with_offset", [(0, True, False), (1, False, True), (2, True, True), (3, False, False),
                                                    (4, True, False), (5, False, True)])
def test_kernel_matches_numpy_reference(loss, k, with_s, with_offset, strategy, order):
    rng = np.random.default_rng(hash((loss, k)) % 2**32)
    n = 150
    # 5000 pairs: three vectorised blocks (the last one partial) and 16 chunks of the scatter strategy.
    # Sorted by (i, j) as PairwiseData holds them, or in random order: the kernel sums each first
    # player's run in registers, which must hold for runs of any length, split across blocks or chunks.
    i, j, y, w, U, V, s, offset = random_problem(rng, n, 5000, k, loss, with_s, with_offset)
    assert i.size == 5000
    if order == "shuffled":
        perm = rng.permutation(i.size)
        i, j, y, w = i[perm], j[perm], y[perm], w[perm]
        offset = None if offset is None else offset[perm]
    f, gU, gV, gs = kernel(n, i, j, y, w, loss, U, V, s, offset, strategy=strategy)
    rf, rgU, rgV, rgs = objective(loss, n, i, j, y, w, U, V, s, offset)
    assert f == pytest.approx(rf, rel=REL_TOL)
    for got, ref in ((gU, rgU), (gV, rgV), (gs, rgs)):
        if ref is None:
            assert got is None
        else:
            np.testing.assert_allclose(got, ref, rtol=REL_TOL, atol=REL_TOL * np.abs(ref).max())


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("k", [1, 2, 3, 4, 5])
def test_one_factor_gradient_alone_is_the_same(k, strategy):
    # the gradient in U alone (Algorithm 1's u-step) or in V alone is the same as with both
    rng = np.random.default_rng(30 + k)
    n = 150
    i, j, y, w, U, V, s, offset = random_problem(rng, n, 5000, k, "bce")
    obj = _core.PairObjective(n, i, j, y, w, strategy=strategy)
    f, gU, gV, _ = obj.evaluate(0, U=U, V=V, s=s, offset=offset, grad_u=True, grad_v=True)
    fu, gU1, gV1, _ = obj.evaluate(0, U=U, V=V, s=s, offset=offset, grad_u=True)
    fv, gU2, gV2, _ = obj.evaluate(0, U=U, V=V, s=s, offset=offset, grad_v=True)
    assert f == fu == fv and gV1 is None and gU2 is None
    assert np.array_equal(gU1, gU) and np.array_equal(gV2, gV)


@pytest.mark.parametrize("loss", list(LOSS_IDS))
@pytest.mark.parametrize("scale", [0.1, 1.0, 4.0])
def test_gradient_matches_finite_differences(loss, scale):
    rng = np.random.default_rng(7)
    n, k = 12, 2
    i, j, y, w, U, V, s, offset = random_problem(rng, n, 40, k, loss, True, True, scale)
    obj = _core.PairObjective(n, i, j, y, w)
    lid = LOSS_IDS[loss]
    _, gU, gV, gs = obj.evaluate(lid, U=U, V=V, s=s, offset=offset, grad_u=True, grad_v=True, grad_s=True)
    eps = 1e-6 * max(scale, 1.0)
    for name, param, grad in (("U", U, gU), ("V", V, gV), ("s", s, gs)):
        numeric = np.zeros_like(param)
        for idx in np.ndindex(param.shape):
            saved = param[idx]
            param[idx] = saved + eps
            fp = obj.evaluate(lid, U=U, V=V, s=s, offset=offset)[0]
            param[idx] = saved - eps
            fm = obj.evaluate(lid, U=U, V=V, s=s, offset=offset)[0]
            param[idx] = saved
            numeric[idx] = (fp - fm) / (2 * eps)
        err = np.abs(numeric - grad).max()
        assert err <= FD_REL_TOL * max(np.abs(grad).max(), 1e-3), f"{loss} d/d{name}: error {err}"


@pytest.mark.parametrize("loss", ["bce", "sigmoid_squared"])
def test_extreme_scores_stay_finite_and_exact(loss):
    # |A| = 1e4 with y in {0, 1}: no overflow, no NaN; the right answers are 0 or |A| and 0 or -1.
    i = np.array([0, 0, 1, 1], dtype=np.int32)
    j = np.array([1, 2, 2, 3], dtype=np.int32)
    y = np.array([1.0, 0.0, 1.0, 0.0])
    w = np.ones(4)
    s = np.array([1e4, 0.0, 0.0, -1e4])  # A = 1e4, 1e4, 0, 1e4
    f, _, _, gs = _core.PairObjective(4, i, j, y, w).evaluate(LOSS_IDS[loss], s=s, grad_s=True)
    assert np.isfinite(f) and np.all(np.isfinite(gs))
    if loss == "bce":
        # pair 0: y=1, A=1e4 -> 0; pair 1: y=0, A=1e4 -> 1e4; pair 2: y=1, A=0 -> log 2; pair 3: y=0, A=1e4 -> 1e4
        assert f == pytest.approx(2e4 + np.log(2.0), rel=REL_TOL)
    else:
        assert f == pytest.approx(0.5 + 0.125 + 0.5, rel=REL_TOL)


def test_bce_keeps_tiny_losses_exact():
    # A correct confident prediction costs log1p(e^-A): 4.2e-18 at A = 40, not 0 by cancellation.
    i, j = np.array([0], dtype=np.int32), np.array([1], dtype=np.int32)
    f = _core.PairObjective(2, i, j, np.array([1.0]), np.ones(1)).evaluate(0, s=np.array([40.0, 0.0]))[0]
    assert f == pytest.approx(np.log1p(np.exp(-40.0)), rel=REL_TOL)


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("threads", [1, 2, 3, 4])
def test_result_is_bitwise_identical_for_any_thread_count(threads, strategy):
    rng = np.random.default_rng(3)
    n = 500
    i, j, y, w, U, V, s, offset = random_problem(rng, n, 20000, 2, "bce")
    base = kernel(n, i, j, y, w, "bce", U, V, s, offset, n_threads=1, strategy=strategy)
    other = kernel(n, i, j, y, w, "bce", U, V, s, offset, n_threads=threads, strategy=strategy)
    assert other[0] == base[0]
    for a, b in zip(base[1:], other[1:]):
        assert np.array_equal(a, b)


def test_strategy_follows_the_data_not_the_threads():
    # scatter when the pairs outnumber 16 x the players, gather for sparse logs.
    rng = np.random.default_rng(5)
    dense = random_problem(rng, 100, 1600, 0, "bce")
    sparse = random_problem(rng, 1000, 1600, 0, "bce")
    assert _core.PairObjective(100, *dense[:4]).strategy == "scatter"
    assert _core.PairObjective(1000, *sparse[:4]).strategy == "gather"
    with pytest.raises(ValueError, match="strategy must be 'auto', 'scatter' or 'gather', got 'fast'"):
        _core.PairObjective(100, *dense[:4], strategy="fast")


def test_fast_exp_and_log1p_are_within_two_ulp_of_libm():
    # The vectorised exp(-|x|) and log1p(exp(-|x|)) of fastmath.hpp over the whole range a score can
    # take, down to the subnormals and past the underflow to 0.
    x = np.concatenate([np.linspace(0.0, 800.0, 2_000_001), np.geomspace(1e-300, 1.0, 10_001), [1e300, np.inf]])
    e, l1p = _core.fast_exp_log1p(x)
    ref_e = np.frompyfunc(lambda t: math.exp(-t), 1, 1)(x).astype(np.float64)  # libm's, not numpy's own
    normal = ref_e > np.finfo(float).tiny
    ulp = np.abs(e[normal] - ref_e[normal]) / np.spacing(ref_e[normal])
    assert ulp.max() <= 2.0
    # Subnormal results: exact to the subnormal spacing (2^-1074), then 0.
    assert np.max(np.abs(e[~normal] - ref_e[~normal])) <= 2 * 5e-324
    assert e[-1] == 0.0 and e[-2] == 0.0
    ref_l = np.frompyfunc(math.log1p, 1, 1)(e).astype(np.float64)
    pos = ref_l > 0
    assert (np.abs(l1p[pos] - ref_l[pos]) / np.spacing(ref_l[pos])).max() <= 2.0
    assert np.all(l1p[~pos] == 0.0)


@pytest.mark.parametrize("loss", list(LOSS_IDS))
def test_curvature_is_the_second_derivative(loss):
    # w_p L''(A_p), by central differences of the reference derivative (Gauss-Newton for
    # sigmoid_squared: w (sigmoid')^2).
    rng = np.random.default_rng(8)
    n = 30
    i, j, y, w, _, _, s, offset = random_problem(rng, n, 300, 0, loss, scale=1.5)
    curv = np.empty(i.size)
    _core.PairObjective(n, i, j, y, w).evaluate(LOSS_IDS[loss], s=s, offset=offset, curv=curv)
    A = s[i] - s[j] + offset
    if loss == "sigmoid_squared":
        sig = 1.0 / (1.0 + np.exp(-A))
        expected = w * (sig * (1.0 - sig)) ** 2
    else:
        from reference import loss_terms

        h = 1e-5
        expected = w * (loss_terms(loss, y, A + h)[1] - loss_terms(loss, y, A - h)[1]) / (2 * h)
    np.testing.assert_allclose(curv, expected, rtol=1e-8, atol=1e-12)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_hessian_product_is_the_weighted_laplacian(strategy):
    rng = np.random.default_rng(9)
    n = 40
    i, j, y, w, _, _, s, _ = random_problem(rng, n, 700, 0, "bce")
    obj = _core.PairObjective(n, i, j, y, w, strategy=strategy)
    curv = np.empty(i.size)
    obj.evaluate(0, s=s, curv=curv)
    L = np.zeros((n, n))
    np.add.at(L, (i, i), curv)
    np.add.at(L, (j, j), curv)
    np.add.at(L, (i, j), -curv)
    np.add.at(L, (j, i), -curv)
    x = rng.standard_normal(n)
    np.testing.assert_allclose(obj.hessp_s(curv, x), L @ x, rtol=1e-12, atol=1e-12 * np.abs(L @ x).max())
    # and the Hessian of the objective in s, by differences of the gradient
    h = 1e-6
    gp = obj.evaluate(0, s=s + h * x, grad_s=True)[3]
    gm = obj.evaluate(0, s=s - h * x, grad_s=True)[3]
    np.testing.assert_allclose((gp - gm) / (2 * h), L @ x, rtol=1e-6, atol=1e-8)


def test_scores_kernel_matches_reference():
    rng = np.random.default_rng(4)
    n = 20
    U, V, s = rng.standard_normal((n, 3)), rng.standard_normal((n, 3)), rng.standard_normal(n)
    a = rng.integers(0, n, 50).astype(np.int32)
    b = rng.integers(0, n, 50).astype(np.int32)
    got = _core.scores(a, b, n, U=U, V=V, s=s)
    expected = s[a] - s[b] + np.sum(U[a] * V[b] - V[a] * U[b], axis=1)
    np.testing.assert_allclose(got, expected, rtol=REL_TOL, atol=1e-14)


@pytest.mark.parametrize("k, with_s", [(0, True), (1, False), (2, True), (3, False), (4, True), (5, True)])
def test_scores_are_the_objectives_scores(k, with_s):
    # _core.scores gathers with the objective's own code: 5000 pairs, three blocks of 2048, every row width
    rng = np.random.default_rng(40 + k)
    n = 70
    U = rng.standard_normal((n, k)) if k else None
    V = rng.standard_normal((n, k)) if k else None
    s = rng.standard_normal(n) if with_s else None
    a = rng.integers(0, n, 5000).astype(np.int32)
    b = rng.integers(0, n, 5000).astype(np.int32)
    got = _core.scores(a, b, n, U=U, V=V, s=s)
    expected = np.zeros(a.size) if s is None else s[a] - s[b]
    if k:
        expected = expected + np.sum(U[a] * V[b] - V[a] * U[b], axis=1)
    np.testing.assert_allclose(got, expected, rtol=REL_TOL, atol=1e-13)
    for threads in (1, 2, 3):
        assert np.array_equal(_core.scores(a, b, n, U=U, V=V, s=s, n_threads=threads), got)


def _bad_pairs_calls():
    """(name, call on pairs (a, b) of 5 players, rule) for every binding that takes player indices."""
    s, w = np.zeros(5), np.ones(2)
    return [
        ("PairObjective", lambda a, b: _core.PairObjective(5, a, b, np.full(2, 0.5), w), "pair", "distinct"),
        ("scores", lambda a, b: _core.scores(a, b, 5, s=s), "pair", "in_range"),
        ("online_elo", lambda a, b: _core.online_elo(a, b, np.ones(2), 0.1, np.zeros(5)), "game", "distinct"),
        ("online_disc", lambda a, b: _core.online_disc(a, b, np.ones(2), 0.1, np.ones((2, 5))), "game", "distinct"),
        ("aggregate_games", lambda a, b: _core.aggregate_games(5, a, b, np.ones(2)), "game", "distinct"),
        ("group_pairs", lambda a, b: _core.group_pairs(5, a, b), "entry", "increasing"),
        ("tile_pairs", lambda a, b: _core.tile_pairs(5, a, b, []), "pair", "in_range"),
        ("connected_pieces", lambda a, b: _core.connected_pieces(5, a, b), "pair", "in_range"),
        ("beat_pieces", lambda a, b: _core.beat_pieces(5, a, b, np.ones(2)), "pair", "in_range"),
    ]


@pytest.mark.parametrize("name, call, noun, rule", _bad_pairs_calls(), ids=lambda x: x if isinstance(x, str) else "")
def test_every_index_check_names_the_first_bad_entry(name, call, noun, rule):
    def pairs(*values):
        return (np.array([1, values[0]], dtype=np.int32), np.array([2, values[1]], dtype=np.int32))

    call(*pairs(3, 4))  # good pairs pass
    if rule == "increasing":
        for bad in ((5, 6), (-1, 2), (4, 4), (4, 3)):
            with pytest.raises(ValueError, match=rf"^entry 1 is \({bad[0]}, {bad[1]}\); need 0 <= lo < hi < 5$"):
                call(*pairs(*bad))
        return
    for bad in ((0, 5), (-1, 2), (7, 7)):
        with pytest.raises(ValueError, match=rf"^player index \({bad[0]}, {bad[1]}\) of {noun} 1 is outside \[0, 5\)$"):
            call(*pairs(*bad))
    if rule == "distinct":
        with pytest.raises(ValueError, match=rf"^{noun} 1 is player 3 against themself$"):
            call(*pairs(3, 3))
    else:
        call(*pairs(3, 3))


class TestGuards:
    """The bindings refuse what would corrupt memory or silently convert values (a strided array of the
    right dtype is copied once, at the boundary)."""

    def setup_method(self):
        self.i = np.array([0, 1], dtype=np.int32)
        self.j = np.array([1, 2], dtype=np.int32)
        self.y = np.array([0.5, 0.7])
        self.w = np.ones(2)

    def test_index_out_of_range_is_a_value_error(self):
        with pytest.raises(ValueError, match=r"player index \(1, 2\) of pair 1 is outside \[0, 2\)"):
            _core.PairObjective(2, self.i, self.j, self.y, self.w)

    def test_negative_index_is_a_value_error(self):
        with pytest.raises(ValueError, match=r"\(-1, 1\)"):
            _core.PairObjective(3, np.array([-1, 1], dtype=np.int32), self.j, self.y, self.w)

    def test_self_pair_is_a_value_error(self):
        with pytest.raises(ValueError, match="player 1 against themself"):
            _core.PairObjective(3, np.array([0, 1], dtype=np.int32), np.array([1, 1], dtype=np.int32), self.y, self.w)

    def test_wrong_dtype_is_refused_not_copied(self):
        with pytest.raises(TypeError):
            _core.PairObjective(3, self.i.astype(np.int64), self.j, self.y, self.w)
        with pytest.raises(TypeError):
            _core.PairObjective(3, self.i, self.j, self.y.astype(np.float32), self.w)

    def test_strided_array_is_copied_at_the_boundary(self):
        y = np.array([0.5, 0.0, 0.7, 0.0])[::2]
        s = np.array([0.3, -0.2, 0.1])
        strided = _core.PairObjective(3, self.i, self.j, y, self.w).evaluate(_core.LOSS_BCE, s=s)[0]
        contiguous = _core.PairObjective(3, self.i, self.j, np.ascontiguousarray(y), self.w).evaluate(_core.LOSS_BCE, s=s)[0]
        assert strided == contiguous

    def test_mismatched_lengths(self):
        with pytest.raises(ValueError, match="same length 2"):
            _core.PairObjective(3, self.i, self.j, np.array([0.5]), self.w)

    def test_factor_shapes_are_checked(self):
        obj = _core.PairObjective(3, self.i, self.j, self.y, self.w)
        with pytest.raises(ValueError, match=r"U must have shape \(3, k\)"):
            obj.evaluate(0, U=np.zeros((2, 1)), V=np.zeros((2, 1)))
        with pytest.raises(ValueError, match="V must have the shape of U"):
            obj.evaluate(0, U=np.zeros((3, 1)), V=np.zeros((3, 2)))
        with pytest.raises(ValueError, match=r"offset must have shape \(2,\)"):
            obj.evaluate(0, s=np.zeros(3), offset=np.zeros(3))
        with pytest.raises(ValueError, match="unknown loss id 9"):
            obj.evaluate(9, s=np.zeros(3))

    def test_scores_bounds_are_checked(self):
        with pytest.raises(ValueError, match=r"player index \(0, 5\) of pair 1 is outside \[0, 3\)"):
            _core.scores(np.array([0, 0], dtype=np.int32), np.array([1, 5], dtype=np.int32), 3, s=np.zeros(3))


def test_kernel_releases_the_gil():
    # While one thread is inside a long evaluate call, another Python thread keeps running: the longest
    # pause of the main thread is far shorter than the call (with the GIL held it would be all of it).
    # The calls last at least 0.2 s (the pairs repeated until they do), far above the operating system's
    # scheduling pauses on a busy machine.
    import threading
    import time

    rng = np.random.default_rng(8)
    n = 5000
    i0, j0, y0, w0, U, V, s, offset = random_problem(rng, n, 400_000, 8, "bce")
    reps = 10  # 4M pairs (repeated pairs are allowed), more on a machine where a call takes under 0.2 s
    while True:
        i, j, y, w = (np.tile(a, reps) for a in (i0, j0, y0, w0))
        obj = _core.PairObjective(n, i, j, y, w)
        t0 = time.perf_counter()
        obj.evaluate(0, U=U, V=V, s=s, grad_u=True, grad_v=True, grad_s=True, n_threads=1)
        once = time.perf_counter() - t0
        if once >= 0.2 or reps >= 80:
            break
        reps = min(80, int(reps * 0.25 / once) + 1)
    span = {}

    def work():
        span["start"] = time.perf_counter()
        for _ in range(5):
            obj.evaluate(0, U=U, V=V, s=s, grad_u=True, grad_v=True, grad_s=True, n_threads=1)
        span["end"] = time.perf_counter()

    worker = threading.Thread(target=work)
    stamps = []
    worker.start()
    while worker.is_alive():
        stamps.append(time.perf_counter())
    worker.join()
    call = (span["end"] - span["start"]) / 5
    inside = np.array([t for t in stamps if span["start"] <= t <= span["end"]])
    longest_pause = np.diff(inside).max()
    assert call > 0.1  # the calls are long enough to tell
    assert longest_pause < 0.5 * call


@pytest.mark.parametrize("preset", [None, "ACTIVE", "PASSIVE"])
def test_import_leaves_the_environment_alone(preset):
    # The core loads with OMP_WAIT_POLICY=PASSIVE unless the user set it, and importing discrank and
    # fitting leave the environment as it was (``before`` is read after importing discrank's dependencies, since
    # threadpoolctl sets KMP_DUPLICATE_LIB_OK when imported).
    import json
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    if preset:
        env["OMP_WAIT_POLICY"] = preset
    code = ("import json, os, numpy, scipy.sparse, threadpoolctl; before = dict(os.environ); import discrank; "
            "discrank.Elo(prior_scale=1.0).fit(discrank.PairwiseData.from_games([0, 1, 2], [1, 2, 0], [1.0, 0.0, 1.0])); "
            "print(json.dumps([before == dict(os.environ), os.environ.get('OMP_WAIT_POLICY')]))")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert json.loads(out) == [True, preset]


@pytest.mark.parametrize("preset, expected", [(None, "PASSIVE"), ("ACTIVE", "ACTIVE")])
def test_core_threads_sleep_between_regions_unless_told_otherwise(preset, expected):
    # Spinning OpenMP threads made two concurrent fits 4.5x slower (bench/bench_oversubscription.py).
    # OMP_DISPLAY_ENV makes libgomp print the policy it read when it loaded with the core.
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    env["OMP_DISPLAY_ENV"] = "TRUE"
    if preset:
        env["OMP_WAIT_POLICY"] = preset
    done = subprocess.run([sys.executable, "-c", "import discrank"], env=env, capture_output=True, text=True, check=True)
    assert f"OMP_WAIT_POLICY = '{expected}'" in done.stderr + done.stdout


@pytest.mark.parametrize("n", [2, 300, 70_000])  # radix sort of 1, 2 and 5 passes; 32- and 64-bit keys
def test_group_pairs_matches_numpy_unique(n):
    rng = np.random.default_rng(11)
    a = rng.integers(0, n, 50_000)
    b = (a + rng.integers(1, n, a.size)) % n  # many repeated pairs (for n = 300)
    lo, hi = np.minimum(a, b).astype(np.int32), np.maximum(a, b).astype(np.int32)
    inverse, pair_lo, pair_hi = _core.group_pairs(n, lo, hi, n_threads=1)
    uniq, expected = np.unique(lo.astype(np.int64) * n + hi, return_inverse=True)
    assert np.array_equal(inverse, expected)
    assert np.array_equal(pair_lo.astype(np.int64) * n + pair_hi, uniq)
    for threads in (2, 3):
        other = _core.group_pairs(n, lo, hi, n_threads=threads)
        assert all(np.array_equal(x, y) for x, y in zip((inverse, pair_lo, pair_hi), other))
    with pytest.raises(ValueError, match=r"entry 1 is \(3, 3\); need 0 <= lo < hi < 5"):
        _core.group_pairs(5, np.array([0, 3], dtype=np.int32), np.array([1, 3], dtype=np.int32))


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_factorize_ints_matches_numpy_unique(dtype):
    rng = np.random.default_rng(16)
    a = rng.integers(-500, 3000, 20_000).astype(dtype)
    b = rng.integers(-500, 3000, 7_000).astype(dtype)
    uniq, code_a, code_b = _core.factorize_ints(a, b, max_range=10_000, n_threads=2)
    ref, inverse = np.unique(np.r_[a, b], return_inverse=True)
    assert uniq.dtype == dtype and code_a.dtype == np.int32
    assert np.array_equal(uniq, ref)
    assert np.array_equal(code_a, inverse[: a.size]) and np.array_equal(code_b, inverse[a.size:])
    # a range wider than max_range (here int64 extremes, whose width overflows int64) is left to the caller
    assert _core.factorize_ints(a, b, max_range=3000) is None
    big = np.array([np.iinfo(dtype).min, np.iinfo(dtype).max], dtype=dtype)
    assert _core.factorize_ints(big, big, max_range=1 << 40) is None
    with pytest.raises(TypeError, match="same dtype"):
        _core.factorize_ints(a, b.astype(np.float64), max_range=10_000)
    with pytest.raises(TypeError, match="int32 or int64"):
        _core.factorize_ints(a.astype(np.int16), b.astype(np.int16), max_range=10_000)


def test_tile_pairs_is_the_stable_sort_by_the_second_players_tile():
    rng = np.random.default_rng(21)
    n = 70_000  # 35 tiles of 2048 players and 3 of 2^15
    i, j = (x.astype(np.int32) for x in random_pairs(rng, n, 300_000))
    y, w = rng.random(i.size), rng.random(i.size)
    for bits in (11, 15):
        ref = np.argsort(j >> bits, kind="stable")
        for threads in (1, 2, 3):
            ti, tj, (ty, tw) = _core.tile_pairs(n, i, j, [y, w], bits, threads)
            assert ti.dtype == np.int32 and tj.dtype == np.int32
            for got, col in ((ti, i), (tj, j), (ty, y), (tw, w)):
                assert np.array_equal(got, col[ref])
        # pairs sorted by (i, j) come out sorted by (tile of j, i, j)
        assert np.all(np.diff(((tj >> bits).astype(np.int64) * n + ti) * n + tj) > 0)
    # one tile: the order is unchanged; no column, no pair
    ti, tj, cols = _core.tile_pairs(2048, i[:100] % 2048, j[:100] % 2048, [])
    assert np.array_equal(ti, i[:100] % 2048) and np.array_equal(tj, j[:100] % 2048) and cols == []
    assert _core.tile_pairs(n, i[:0], j[:0], [y[:0]])[0].size == 0
    with pytest.raises(ValueError, match=r"player index \(0, 3305\) of pair 1 is outside \[0, 100\)"):
        _core.tile_pairs(100, i[[0, 1]] % 100, j[[0, 1]] + np.array([0, 3305 - j[1]], dtype=np.int32), [])
    with pytest.raises(ValueError, match=r"cols\[1\] must have shape \(10,\)"):
        _core.tile_pairs(n, i[:10], j[:10], [y[:10], w[:9]])
    with pytest.raises(ValueError, match="tile_bits"):
        _core.tile_pairs(n, i, j, [], tile_bits=-1)


def test_connected_pieces_matches_scipy():
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    rng = np.random.default_rng(12)
    n = 2000
    # 1500 edges: hundreds of pieces; 40 000 edges: connected (the union-find stops at n - 1 joins)
    for m in (1500, 40_000):
        i = rng.integers(0, n, m).astype(np.int32)
        j = rng.integers(0, n, m).astype(np.int32)
        count, piece = _core.connected_pieces(n, i, j)
        ref_count, ref = connected_components(coo_matrix((np.ones(m), (i, j)), shape=(n, n)), directed=False)
        assert count == ref_count == (1 if m == 40_000 else count)
        # same partition, pieces numbered in the order of their smallest player
        assert np.array_equal(piece, ref)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_player_and_opponent_sums_match_bincount(strategy):
    rng = np.random.default_rng(13)
    n = 60
    i, j, y, w, _, _, _, _ = random_problem(rng, n, 1500, 0, "bce")
    obj = _core.PairObjective(n, i, j, y, w, strategy=strategy)
    c = rng.standard_normal(n)
    np.testing.assert_allclose(obj.player_sums(w), np.bincount(i, w, n) + np.bincount(j, w, n), rtol=1e-13)
    np.testing.assert_allclose(
        obj.opponent_sums(w, c), np.bincount(i, w * c[j] ** 2, n) + np.bincount(j, w * c[i] ** 2, n), rtol=1e-13
    )


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_score_sums(strategy):
    rng = np.random.default_rng(14)
    n = 50
    i, j, y, w, _, _, _, _ = random_problem(rng, n, 1200, 0, "bce")
    y[i == 3] = 1.0  # player 3 wins every pair where it is first...
    y[j == 3] = 0.0  # ...and where it is second
    obj = _core.PairObjective(n, i, j, y, w, strategy=strategy)
    total, scored, conceded = obj.score_sums()
    np.testing.assert_allclose(total, np.bincount(i, w, n) + np.bincount(j, w, n), rtol=1e-13)
    np.testing.assert_allclose(scored, np.bincount(i, w * y, n) + np.bincount(j, w * (1 - y), n), rtol=1e-13)
    np.testing.assert_allclose(conceded, np.bincount(i, w * (1 - y), n) + np.bincount(j, w * y, n), rtol=1e-13)
    assert scored[3] > 0 and conceded[3] == 0.0  # exactly 0: a sum of zeros
    exp_won = (np.bincount(i[y > 0], minlength=n) + np.bincount(j[y < 1], minlength=n)) > 0
    exp_lost = (np.bincount(j[y > 0], minlength=n) + np.bincount(i[y < 1], minlength=n)) > 0
    assert np.array_equal(scored > 0, exp_won) and np.array_equal(conceded > 0, exp_lost)
    # the bce Elo gradient at s = 0 is total / 2 - scored
    _, _, _, g0 = obj.evaluate(0, s=np.zeros(n), grad_s=True)
    np.testing.assert_allclose(g0, 0.5 * total - scored, rtol=1e-12, atol=1e-15)
    for threads in (1, 2, 3):
        assert all(np.array_equal(x, z) for x, z in zip((total, scored, conceded), obj.score_sums(n_threads=threads)))


@pytest.mark.parametrize("n", [2, 200, 70_000])  # radix sort of 1, 2 and 5 passes; 32- and 64-bit keys
@pytest.mark.parametrize("with_counts", [False, True])
def test_aggregate_games_matches_numpy_and_any_thread_count(with_counts, n):
    rng = np.random.default_rng(15)
    m = 30_000
    a = rng.integers(0, n, m).astype(np.int32)
    b = ((a + rng.integers(1, n, m)) % n).astype(np.int32)
    s = rng.choice([0.0, 0.5, 1.0, 0.3], m)
    c = rng.integers(1, 4, m).astype(float) if with_counts else None
    lo, hi, games, wins = _core.aggregate_games(n, a, b, s, c, n_threads=1)
    cc = np.ones(m) if c is None else c
    key = np.minimum(a, b).astype(np.int64) * n + np.maximum(a, b)
    uniq, inv = np.unique(key, return_inverse=True)
    assert np.array_equal(lo.astype(np.int64) * n + hi, uniq)
    # bincount adds in game order, as the core does within a pair: equal to the last bit
    assert np.array_equal(games, np.bincount(inv, cc))
    assert np.array_equal(wins, np.bincount(inv, cc * np.where(a < b, s, 1 - s)))
    for threads in (2, 3):
        other = _core.aggregate_games(n, a, b, s, c, n_threads=threads)
        assert all(np.array_equal(x, y) for x, y in zip((lo, hi, games, wins), other))


def _chains(n_blocks, seed):
    """A symmetric positive definite tridiagonal matrix of random blocks (the off-diagonal 0 between
    blocks, as between two players' chains): (diagonal, link weights >= 0)."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 9, n_blocks)
    n = int(sizes.sum())
    off = rng.random(n - 1) * 3.0
    off[np.cumsum(sizes)[:-1] - 1] = 0.0  # block boundaries
    diag = np.zeros(n)
    diag[:-1] += off
    diag[1:] += off
    diag += rng.random(n) + 0.05
    return diag, off


def test_chain_product_and_solve_match_dense_algebra():
    from scipy.linalg import lapack

    diag, off = _chains(300, seed=1)
    n = diag.size
    T = np.diag(diag) - np.diag(off, 1) - np.diag(off, -1)
    x = np.random.default_rng(2).standard_normal(n)
    out = np.ones(n)
    _core.chain_add(diag, off, x, out)
    np.testing.assert_allclose(out, 1.0 + T @ x, rtol=0, atol=1e-12)
    d, e, info = lapack.dpttrf(diag, -off)
    assert info == 0
    sol = _core.chain_solve(d, e, x)
    np.testing.assert_allclose(T @ sol, x, rtol=0, atol=1e-10)
    np.testing.assert_array_equal(sol, lapack.dpttrs(d, e, x)[0])  # LAPACK's dptts2, operation for operation


@pytest.mark.parametrize("threads", [1, 2, 3, 8])
def test_chain_solve_is_bitwise_the_same_for_any_thread_count(threads):
    from scipy.linalg import lapack

    diag, off = _chains(5000, seed=3)
    d, e, _ = lapack.dpttrf(diag, -off)
    b = np.random.default_rng(4).standard_normal(diag.size)
    np.testing.assert_array_equal(_core.chain_solve(d, e, b, threads), _core.chain_solve(d, e, b, 1))
    out1, out2 = np.zeros(diag.size), np.zeros(diag.size)
    _core.chain_add(diag, off, b, out1, 1)
    _core.chain_add(diag, off, b, out2, threads)
    np.testing.assert_array_equal(out1, out2)


@pytest.mark.parametrize("threads", [1, 2, 3, 8])
def test_chain_pivots_and_variances_are_the_dense_inverses_diagonal(threads):
    # each block's pivots forward and variances back (chains.hpp's chain_pivots), the blocks starting where
    # first is set (a block of one entry among them): the diagonal of the dense inverse, the last entry's variance
    # the inverse of its block's last pivot, the same bits for any thread count
    diag, off = _chains(300, seed=5)
    first = np.r_[True, off == 0.0]
    d, var = _core.chain_pivots(diag, off, first, True, threads)
    T = np.diag(diag) - np.diag(off, 1) - np.diag(off, -1)
    exact = np.diag(np.linalg.inv(T))
    np.testing.assert_allclose(var, exact, rtol=1e-12, atol=0)
    last = np.r_[first[1:], True]
    np.testing.assert_allclose(1.0 / d[last], exact[last], rtol=1e-12, atol=0)
    np.testing.assert_array_equal(var, _core.chain_pivots(diag, off, first, True, 1)[1])
    assert _core.chain_pivots(diag, off, first)[1] is None
    with pytest.raises(ValueError, match=r"first must have the length of diag, %d" % diag.size):
        _core.chain_pivots(diag, off, first[:-1])


def test_chain_kernels_check_their_shapes():
    z3, z2 = np.zeros(3), np.zeros(2)
    with pytest.raises(ValueError, match=r"off must have shape \(2,\), got \(3,\)"):
        _core.chain_add(z3, z3, z3, np.zeros(3))
    with pytest.raises(ValueError, match=r"diag, x and out must have the same length 3, got \(2,\) for out"):
        _core.chain_add(z3, z2, z3, z2)
    with pytest.raises(ValueError, match=r"e must have shape \(2,\), got \(3,\)"):
        _core.chain_solve(np.ones(3), z3, z3)
    with pytest.raises(TypeError):
        _core.chain_solve(np.ones(3, dtype=np.float32), z2, z3)
