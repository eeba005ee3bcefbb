"""Elo's Newton solver: the exact maximum-likelihood optimum on ladders and on random pairings."""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.linalg import spsolve
from scipy.stats import spearmanr

from discrank import Elo, EloPlusPlus, PairwiseData
from reference import bradley_terry


def ladder(n, games, width, seed=0):
    rng = np.random.default_rng(seed)
    skill = np.sort(rng.normal(0.0, 1.5, n))
    a = rng.integers(0, n, games)
    b = np.clip(a + rng.integers(1, width + 1, games) * rng.choice([-1, 1], games), 0, n - 1)
    keep = a != b
    a, b = a[keep], b[keep]
    score = (rng.random(a.size) < 1.0 / (1.0 + np.exp(-(skill[a] - skill[b])))).astype(float)
    return PairwiseData.from_games(a, b, score, labels=np.arange(n)), skill



def laplacian(i, j, n, c):
    """The weighted Laplacian of the pairs (i, j) with pair weights c, as a sparse matrix."""
    return sp.coo_matrix((np.r_[c, c, -c, -c], (np.r_[i, j, i, j], np.r_[i, j, j, i])), shape=(n, n)).tocsr()


def reference_newton(data):
    """Independent exact fit: numpy objective, Newton with a sparse direct solve, player 0 grounded."""
    fun, w = bradley_terry(data)
    n, i, j = data.n_players, data.i, data.j
    s = np.zeros(n)
    for _ in range(50):
        f, g = fun(s)
        A = s[i] - s[j]
        c = w * 0.25 / np.cosh(0.5 * A) ** 2
        L = laplacian(i, j, n, c).tocsc()
        d = np.zeros(n)
        d[1:] = spsolve(L[1:, 1:], -g[1:])
        s = s + d
        if np.abs(d).max() < 1e-13:
            break
    return s - s.mean()


def test_ladder_reaches_the_exact_optimum_with_a_banded_factorisation():
    # 3000 players who meet only opponents 1-20 ranks away: a path-like Hessian, where first-order fits
    # stop early (bench/bench_peers.py --only ladder) and Jacobi-CG crawls.
    data, skill = ladder(3000, 150_000, 20)
    fun, _ = bradley_terry(data)
    model = Elo(prior_scale=np.inf).fit(data)
    assert model.converged_
    assert model.linear_solver_ == "banded Cholesky"
    assert model.n_iter_ <= 10
    g0 = np.linalg.norm(fun(np.zeros(data.n_players))[1])
    assert np.linalg.norm(fun(model.ratings_)[1]) <= 1e-8 * g0
    exact = reference_newton(data)
    np.testing.assert_allclose(model.ratings_, exact, atol=1e-7)
    assert spearmanr(model.ratings_, exact).correlation == pytest.approx(1.0, abs=1e-12)
    assert spearmanr(model.ratings_, skill).correlation > 0.95


def test_first_order_solver_stops_short_on_the_ladder_but_says_so():
    # The L-BFGS path with a small iteration budget must not claim convergence.
    data, _ = ladder(3000, 150_000, 20)
    with pytest.warns(Warning, match="did not converge"):
        model = Elo(solver="lbfgs", max_iter=20, prior_scale=np.inf).fit(data)
    assert not model.converged_


def test_random_pairings_use_conjugate_gradients_and_agree_with_lbfgs():
    rng = np.random.default_rng(3)
    n, games = 400, 40_000
    a = rng.integers(0, n, games)
    b = (a + rng.integers(1, n, games)) % n
    s_true = rng.normal(0, 1, n)
    score = (rng.random(games) < 1 / (1 + np.exp(-(s_true[a] - s_true[b])))).astype(float)
    data = PairwiseData.from_games(a, b, score)
    newton = Elo(prior_scale=np.inf).fit(data)
    lbfgs = Elo(solver="lbfgs", prior_scale=np.inf).fit(data)  # first order: its default tol 1e-7 is about as far as it gets
    assert newton.linear_solver_ == "cg"
    assert newton.converged_ and newton.grad_measure_ <= 1e-9
    np.testing.assert_allclose(newton.ratings_, lbfgs.ratings_, atol=1e-5)
    np.testing.assert_allclose(newton.ratings_, reference_newton(data), atol=1e-9)


def test_gauss_newton_elo_plus_plus_matches_lbfgs():
    data, _ = ladder(300, 30_000, 30, seed=4)
    gn = EloPlusPlus(solver="newton", tol=1e-9, prior_scale=np.inf).fit(data)
    lb = EloPlusPlus(tol=1e-7, prior_scale=np.inf).fit(data)
    assert gn.converged_ and lb.converged_
    # L-BFGS at its 1e-7 leaves a smooth tilt along the ladder (~1.7e-5); Gauss-Newton is below it
    assert gn.loss_ <= lb.loss_
    np.testing.assert_allclose(gn.ratings_, lb.ratings_, atol=1e-4)


def test_pieces_are_solved_separately_and_centred():
    # Two disjoint ladders: the Laplacian has one null direction per piece.
    d1, _ = ladder(200, 20_000, 10, seed=5)
    d2, _ = ladder(200, 20_000, 10, seed=6)
    data = PairwiseData(
        np.r_[d1.i, d2.i + 200], np.r_[d1.j, d2.j + 200], np.r_[d1.p, d2.p], np.r_[d1.n_games, d2.n_games]
    )
    with pytest.warns(Warning, match="2 pieces"):
        model = Elo(prior_scale=np.inf).fit(data)
    assert model.converged_
    for piece, part in ((slice(0, 200), d1), (slice(200, 400), d2)):
        assert model.ratings_[piece].mean() == pytest.approx(0.0, abs=1e-12)
        np.testing.assert_allclose(model.ratings_[piece], reference_newton(part), atol=1e-8)


@pytest.mark.parametrize("bad, message", [
    (dict(solver="sgd"), r"solver must be one of \('newton', 'lbfgs'\) or None, got 'sgd'"),
    (dict(tol=0.0), "tol must be a positive finite number, got 0.0"),
    (dict(max_iter=0), "max_iter must be an integer >= 1, got 0"),
])
def test_solver_parameters_are_checked(bad, message):
    data, _ = ladder(50, 2000, 5)
    with pytest.raises(ValueError, match=message):
        Elo(**bad).fit(data)


def test_curvature_scales_of_rounding_residue_are_filled_like_zeros():
    # A player whose opponents all have factors of ~1e-19 (rounding residue left by centring) gets a
    # curvature scale of ~1e-38: it must be filled like an exact zero, or the scaled gradient reads 1e29
    # and L-BFGS's scaled variables degenerate (a disc fit on the real tennis log stopped after 2
    # iterations so).
    from discrank.core import _core
    from discrank.solvers._optim import fill_zero_scales, pair_curvature

    h = fill_zero_scales(np.array([1e-38, 1.0, 2.0, 0.0, 3.0]))
    np.testing.assert_array_equal(h, [2.0, 1.0, 2.0, 2.0, 3.0])
    assert np.array_equal(fill_zero_scales(np.zeros(3)), np.ones(3))
    # players 0-1-2 in a path, 3-4 a pair: c of player 1 (player 0's only opponent) is 1e-19
    i = np.array([0, 1, 3], dtype=np.int32)
    j = np.array([1, 2, 4], dtype=np.int32)
    w = np.full(3, 1.0 / 3)
    obj = _core.PairObjective(5, i, j, np.full(3, 0.5), w)
    c = np.array([1.0, 1e-19, 2.0, 1.0, 1.0])
    h = pair_curvature(obj, w, c)
    raw = np.array([1e-38, 5.0, 1e-38, 1.0, 1.0]) / 3  # sum of w c_b^2 over each player's opponents
    normal = raw > 1e-30
    np.testing.assert_allclose(h[normal], raw[normal], rtol=1e-14)
    np.testing.assert_allclose(h[~normal], raw[normal].mean(), rtol=1e-14)


def _compiled_ladder(n, games, width, seed=0):
    from discrank.core import _core
    from discrank.solvers._newton import _LaplacianSolver

    data, _ = ladder(n, games, width, seed)
    w = data.pair_weights() / data.pair_weights().sum()
    _, piece = data.components()
    obj = _core.PairObjective(data.n_players, data.i, data.j, data.p, w)
    curv = np.empty(data.n_pairs)
    s = np.random.default_rng(seed).normal(0.0, 0.5, data.n_players)
    _, _, _, g = obj.evaluate(0, s=s, grad_s=True, curv=curv)
    return _LaplacianSolver(obj, data.i, data.j, data.n_players, piece, 0), curv, -g


def numpy_laplacian(solver, curv):
    """The weighted Laplacian of the solver's pairs, with pair weights ``curv``, as a sparse matrix."""
    return laplacian(solver.i, solver.j, solver.n, curv)


def numpy_pcg(solver, curv, rhs, rtol, delta):
    """Jacobi-preconditioned conjugate gradients written out, with the Laplacian as a sparse matrix."""
    L = numpy_laplacian(solver, curv)
    inv = 1.0 / (L.diagonal() + delta)
    x, r = np.zeros(solver.n), rhs.copy()
    z = inv * r
    p, rz, n_prod = z.copy(), r @ z, 0
    while np.linalg.norm(r) > rtol * np.linalg.norm(rhs):
        if n_prod == solver.CG_CAP:
            return x, n_prod, False
        q = L @ p + delta * p
        n_prod += 1
        alpha = rz / (p @ q)
        x, r = x + alpha * p, r - alpha * q
        z = inv * r
        rz, rz_old = r @ z, rz
        p = z + (rz / rz_old) * p
    return x, n_prod, True


@pytest.mark.parametrize("rtol", [0.1, 1e-3, 1e-8])
def test_conjugate_gradients_match_the_written_out_iteration(rtol):
    # The same iterates, the same count of products with L, and the same verdict at the cap.
    solver, curv, rhs = _compiled_ladder(400, 20_000, 10, seed=2)
    x, n_prod, ok = solver._cg(curv, rhs, rtol, 1e-9)
    x_ref, n_ref, ok_ref = numpy_pcg(solver, curv, rhs, rtol, 1e-9)
    assert (n_prod, ok) == (n_ref, ok_ref)
    np.testing.assert_allclose(x, x_ref, rtol=1e-9, atol=1e-9 * np.abs(x_ref).max())


def test_conjugate_gradients_stop_at_the_cap_and_keep_their_last_iterate():
    solver, curv, rhs = _compiled_ladder(3000, 150_000, 20)
    x, n_prod, ok = solver._cg(curv, rhs, 1e-12, 1e-12)
    assert not ok and n_prod == solver.CG_CAP
    x_ref, _, _ = numpy_pcg(solver, curv, rhs, 1e-12, 1e-12)
    np.testing.assert_allclose(x, x_ref, rtol=1e-8, atol=1e-8 * np.abs(x_ref).max())
    # a solve whose last allowed product meets the tolerance converges; one product fewer does not
    _, k, ok = solver._cg(curv, rhs, 1e-2, 1e-12)
    assert ok and 1 < k < solver.CG_CAP
    solver.CG_CAP = k
    assert solver._cg(curv, rhs, 1e-2, 1e-12)[1:] == (k, True)
    solver.CG_CAP = k - 1
    assert solver._cg(curv, rhs, 1e-2, 1e-12)[1:] == (k - 1, False)

def test_banded_solve_is_exact_and_centred():
    solver, curv, rhs = _compiled_ladder(3000, 150_000, 20)
    rhs = solver._project(rhs)
    d, n_prod = solver.solve(curv, rhs, 1e-12, 1e-12)  # CG hits its cap: the banded factorisation takes over
    assert solver.method == "banded Cholesky" and n_prod == 0
    assert abs(d.mean()) < 1e-12
    residual = rhs - (numpy_laplacian(solver, curv) @ d + 1e-12 * d)
    assert np.linalg.norm(residual) <= 1e-8 * np.linalg.norm(rhs)
