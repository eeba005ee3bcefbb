"""The whole-history problem in the C++ core (discrank.solvers._history_core, cpp/include/discrank/history.hpp), with every
feature (contexts, margins, formats, covariates, draw models, the disc, draw propensities): its objective against
the objective written out in numpy, its gradient and Hessian products against finite differences, the sums of its
parts (discrank.solvers._history_core.CorePart, as the Dask workers hold them) against the whole, the Python Newton loop
over those parts against the core's, the same bits for any thread count, and its bad input."""

import numpy as np
import pytest

from discrank.core import _core
from discrank.data._advantage import beta_precision
from discrank.solvers._history import _Problem, build_history, solve_history
from discrank.solvers._history_core import CorePart, core_rows

DRIFT, PRIOR = 0.3, 1.5


def history(seed=0, contexts=False, margins=False, formats=False, n_players=40, n_games=1500, n_bins=12, reach=None,
            draws=None, n_cov=0, disc=0, propensity=False):
    """A seeded history: players whose skill drifts over ``n_bins`` periods, with two contexts, margins (the
    sub-contests of each game), two match formats, a fifth of the games drawn (with a draw model ``draws``) and
    ``n_cov`` advantage covariates as asked; opponents at most ``reach`` apart on a ring (a ladder; None:
    anyone). ``disc`` and ``propensity`` are the solver's features (:func:`options`), not the history's."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, n_players, n_games)
    b = (a + rng.integers(1, reach + 1 if reach else n_players, n_games)) % n_players
    bins = np.sort(rng.integers(0, n_bins, n_games))
    skill = rng.normal(size=n_players)
    y = (rng.random(n_games) < 1.0 / (1.0 + np.exp(-(skill[a] - skill[b])))).astype(float)
    ctx = rng.integers(0, 2, n_games) if contexts else None
    margin = None
    if margins:
        won = rng.integers(0, 7, n_games)
        margin = np.stack([won, rng.integers(0, 7, n_games)], axis=1).astype(float)
    fmt = rng.integers(0, 2, n_games) if formats else None
    if draws:
        y = np.where(rng.random(n_games) < 0.2, 0.5, y)
    x = rng.normal(size=(n_games, n_cov)) if n_cov else None
    return build_history(a, b, y, bins, x, n_players, draws, None, ctx, 2 if contexts else 0, margin, fmt,
                         2 if formats else 0)


FEATURES = [dict(), dict(contexts=True), dict(margins=True), dict(formats=True),
            dict(contexts=True, margins=True, formats=True), dict(n_cov=2), dict(draws="davidson"),
            dict(draws="rao-kupper", n_cov=1, margins=True, formats=True),
            dict(draws="davidson", n_cov=1, contexts=True, margins=True), dict(disc=1), dict(disc=2, formats=True),
            dict(draws="davidson", propensity=True), dict(draws="rao-kupper", propensity=True, disc=1, n_cov=1),
            dict(draws="davidson", propensity=True, disc=2, contexts=True, margins=True, formats=True)]


def draws_of(features):
    return features.get("draws")


def options(h, features):
    """The solver's options of a history with ``features``: the feature scales, the disc's components."""
    return dict(context_scale=0.7 if h.n_eff else 0.0, margin_scale=0.4 if h.margin is not None else 0.0,
                format_scales=np.array([1.0, 1.6]) if h.fmt is not None else None, disc=features.get("disc", 0),
                disc_scale=0.8 if features.get("disc") else 0.0,
                propensity_scale=0.5 if features.get("propensity") else 0.0)


class Parts:
    """The games' terms of a history split into ``n_parts`` :class:`CorePart` in process: the driver's view of
    :class:`discrank.dask._parts.DistributedRows` without Dask (the parts' sums added in part order)."""

    def __init__(self, h, draws, n_parts=3, margin_scale=0.0, disc=0, propensity=False, format_scales=None):
        cut = np.linspace(0, h.lo.size, n_parts + 1).astype(int)
        m_cut = np.linspace(0, 0 if h.margin is None else h.margin[0].size, n_parts + 1).astype(int)
        self.parts = [CorePart(core_rows(h, draws, margin_scale, format_scales, disc, propensity, slice(a, b),
                                         slice(c, d))) for a, b, c, d in zip(cut, cut[1:], m_cut, m_cut[1:])]

    def value_grad(self, theta):
        outs = [p.value_grad(theta) for p in self.parts]
        with np.errstate(invalid="ignore"):  # (as DistributedRows: past Rao and Kupper's threshold, an infinite value)
            return sum(o[0] for o in outs), sum(o[1] for o in outs)

    def hessp(self, v):
        return sum(p.hessp(v) for p in self.parts)

    def diagonal(self):
        return sum(p.diagonal() for p in self.parts)

    def global_block(self):
        return sum(p.global_block() for p in self.parts)


def reference_value(h, theta, draws, kw):
    """The objective at ``theta`` written out in numpy from its definition (discrank.solvers._history's and history.hpp's
    docstrings): the games' negative log-likelihood (binomial, or Davidson's three outcomes with each player's
    draw propensity in the draw parameter; each margin row binomial at ``kappa`` times its logit) plus the
    chains' and the priors' quadratic terms."""
    n, P, K = h.n_pp, h.n_players, kw["disc"]
    sizes = [n, h.n_eff, K * P, K * P, P if kw["propensity_scale"] else 0, h.n_cov]
    r, eff, u, v, delta, beta = np.split(theta[:sum(sizes)], np.cumsum(sizes)[:-1])
    u, v = u.reshape(K, P), v.reshape(K, P)
    eta = theta[-1] if draws else 0.0

    def logit(lo, hi, x, ctx):
        pl, ph = h.pp_player[lo], h.pp_player[hi]
        b = r[lo] - r[hi] + x @ beta + (u[:, pl] * v[:, ph] - v[:, pl] * u[:, ph]).sum(axis=0)
        if h.n_eff:
            b += eff[pl * h.n_ctx + ctx] - eff[ph * h.n_ctx + ctx]
        return b, pl, ph

    d, pl, ph = logit(h.lo, h.hi, h.x, h.ctx)
    if h.fmt is not None:
        d = d * kw["format_scales"][h.fmt]
    if draws == "davidson":
        e = eta + (delta[pl] + delta[ph] if delta.size else 0.0)
        norm = np.logaddexp(np.logaddexp(d / 2, -d / 2), e)
        loss = -np.sum(h.win * (d / 2 - norm) + (h.n - h.win - h.draw) * (-d / 2 - norm) + h.draw * (e - norm))
    else:
        loss = np.sum(h.n * np.logaddexp(0.0, d) - h.win * d)
    if h.margin is not None:
        m_lo, m_hi, m_x, m_n, m_win, m_ctx = h.margin
        dm = kw["margin_scale"] * logit(m_lo, m_hi, m_x, m_ctx)[0]
        loss += np.sum(m_n * np.logaddexp(0.0, dm) - m_win * dm)
    chain = np.where(h.gap > 0, 1.0 / (DRIFT ** 2 * np.maximum(h.gap, 1e-300)), 0.0)
    prior = (np.sum(chain * np.diff(r) ** 2) + np.sum(r[h.first] ** 2) / PRIOR ** 2
             + (np.sum(eff ** 2) / kw["context_scale"] ** 2 if h.n_eff else 0.0)
             + (np.sum(u ** 2 + v ** 2) / kw["disc_scale"] ** 2 if K else 0.0)
             + (np.sum(delta ** 2) / kw["propensity_scale"] ** 2 if delta.size else 0.0)
             + (np.sum(beta_precision(h.x, h.n) * beta ** 2) if h.n_cov else 0.0))
    return loss + 0.5 * prior


def rows_of(h, features, kw):
    """The rows of ``h`` with the options ``kw`` in three parts."""
    return Parts(h, draws_of(features), 3, kw["margin_scale"], kw["disc"], kw["propensity_scale"] > 0,
                 kw["format_scales"])


def problems(features, n_threads=1):
    """(the core's problem, the problem of its rows in three parts on the Python Newton loop) of one history with
    ``features``."""
    h = history(**features)
    kw = options(h, features)
    draws = draws_of(features)
    core = _Problem(h, DRIFT, PRIOR, draws, n_threads, **kw)
    plain = _Problem(h, DRIFT, PRIOR, draws, n_threads, rows=rows_of(h, features, kw), **kw)
    return h, core, plain, kw


def point(h, draws, rng, k=0, prop=0):
    """A random parameter vector of ``h`` with ``k`` entries between the effects and beta, the last ``prop`` of
    them draw propensities (small: Rao and Kupper's threshold plus two of them stays positive)."""
    theta = rng.normal(scale=0.5, size=h.n_pp + h.n_eff + k + h.n_cov + (1 if draws else 0))
    end = h.n_pp + h.n_eff + k
    theta[end - prop:end] *= 0.2
    if draws == "rao-kupper":
        theta[-1] = 0.6
    return theta


@pytest.mark.parametrize("features", FEATURES)
def test_the_cores_whole_is_its_parts_value_gradient_hessian_and_preconditioner(features):
    h, core, plain, _ = problems(features)
    assert core.core is not None and plain.core is None
    theta = point(h, draws_of(features), np.random.default_rng(1), core.k - h.n_eff, core.n_prop)
    value, grad = core.value_grad(theta)
    value_p, grad_p = plain.value_grad(theta)
    assert value == pytest.approx(value_p, rel=1e-13)
    np.testing.assert_allclose(grad, grad_p, rtol=0, atol=1e-11 * np.abs(grad_p).max())
    np.testing.assert_allclose(core.diagonal(), plain.diagonal(), rtol=1e-13)
    v = np.random.default_rng(2).normal(size=theta.size)
    H, M, _, _ = core.hessian()
    H_p, M_p, _, _ = plain.hessian()
    np.testing.assert_allclose(H.matvec(v), H_p.matvec(v), rtol=0, atol=1e-12 * np.abs(H_p.matvec(v)).max())
    np.testing.assert_allclose(M.matvec(v), M_p.matvec(v), rtol=1e-10, atol=1e-14)


@pytest.mark.parametrize("features", [f for f in FEATURES if f.get("draws") != "rao-kupper"])
def test_the_cores_value_is_the_objective_written_out(features):
    h, core, _, kw = problems(features)
    draws = draws_of(features)
    for seed in (1, 2):
        theta = point(h, draws, np.random.default_rng(seed), core.k - h.n_eff, core.n_prop)
        assert core.value_grad(theta)[0] == pytest.approx(reference_value(h, theta, draws, kw), rel=1e-12)


@pytest.mark.parametrize("features", [dict(), dict(contexts=True, margins=True, formats=True),
                                      dict(draws="rao-kupper", n_cov=2, margins=True, formats=True),
                                      dict(draws="davidson", propensity=True, disc=2, contexts=True, margins=True)])
def test_the_cores_gradient_and_hessian_are_the_objectives_derivatives(features):
    """Central differences of the value (step 1e-5: error ~1e-10 times the third derivative) and of the gradient."""
    h, core, _, _ = problems(features)
    rng = np.random.default_rng(3)
    theta = point(h, draws_of(features), rng, core.k - h.n_eff, core.n_prop)
    _, grad = core.value_grad(theta)
    H = core.hessian()[0]
    v = rng.normal(size=theta.size)
    hv = H.matvec(v)
    eps = 1e-5
    f_plus, g_plus = core.value_grad(theta + eps * v)
    f_minus, g_minus = core.value_grad(theta - eps * v)
    assert (f_plus - f_minus) / (2 * eps) == pytest.approx(float(grad @ v), rel=1e-7)
    np.testing.assert_allclose((g_plus - g_minus) / (2 * eps), hv, rtol=0, atol=1e-6 * np.abs(hv).max())


@pytest.mark.parametrize("features", FEATURES)
def test_the_cores_newton_fit_is_the_python_loops_fit_over_its_parts(features):
    h, _, _, kw = problems(features)
    draws = draws_of(features)
    rows = rows_of(h, features, kw)
    fast = solve_history(h, DRIFT, PRIOR, draws, tol=1e-11, **kw)
    slow = solve_history(h, DRIFT, PRIOR, draws, tol=1e-11, rows=rows, **kw)
    assert fast.converged and slow.converged
    assert fast.n_iter == slow.n_iter  # the same Newton steps and preconditioner: the same path to rounding
    assert abs(fast.n_cg - slow.n_cg) <= fast.n_iter
    np.testing.assert_allclose(fast.theta, slow.theta, rtol=0, atol=1e-9)
    assert fast.objective == pytest.approx(slow.objective, rel=1e-13)
    np.testing.assert_allclose(fast.hessian_diag, slow.hessian_diag, rtol=1e-9)


def test_the_cores_fit_is_the_same_bits_for_any_thread_count():
    h = history(contexts=True, margins=True, formats=True, n_players=300, n_games=40_000, n_bins=30)
    kw = dict(context_scale=0.7, margin_scale=0.4, format_scales=np.array([1.0, 1.6]))
    fits = [solve_history(h, DRIFT, PRIOR, False, n_threads=t, **kw) for t in (1, 2, 3)]
    assert fits[0].converged
    for other in fits[1:]:
        assert other.n_iter == fits[0].n_iter and other.n_cg == fits[0].n_cg
        np.testing.assert_array_equal(other.theta, fits[0].theta)
        assert other.objective == fits[0].objective


def core_args(m=3, n_pp=4):
    lo = np.array([0, 1, 2][:m], np.int32)
    hi = np.array([1, 2, 3][:m], np.int32)
    return dict(n_pp=n_pp, n_eff=0, lo=lo, hi=hi, n=np.ones(m), win=np.ones(m), scale=None, e_lo=None, e_hi=None,
                chain=np.ones(n_pp - 1), prior=np.ones(n_pp), eff_prior=np.zeros(0))


@pytest.mark.parametrize("change, match", [
    (dict(hi=np.array([1, 2, 7], np.int32)), "player index \\(2, 7\\) of row 2 is outside \\[0, 4\\)"),
    (dict(hi=np.array([1, 1, 3], np.int32)), "row 1 is player 1 against themself"),
    (dict(win=np.ones(2)), "lo, hi, n and win must have the same length 3, got \\(2,\\) for win"),
    (dict(chain=np.ones(4)), "chain must have shape \\(3,\\), got \\(4,\\)"),
    (dict(n_eff=2), "n_eff = 2 context effects need e_lo and e_hi"),
    (dict(n_eff=1, e_lo=np.zeros(3, np.int32), e_hi=np.array([0, 0, 1], np.int32), eff_prior=np.ones(1)),
     "player index \\(0, 1\\) of context effects of row 2 is outside \\[0, 1\\)"),
    (dict(n_disc=1, n_players=2, eff_prior=np.ones(4)), "the disc and draw propensities need each player-period's owner"),
    (dict(n_disc=-1), "n_disc must be at least 0, got -1"),
    (dict(n_disc=1, n_players=2, owner=np.array([0, 0, 1, 1], np.int32), eff_prior=np.ones(2)),
     "eff_prior must have shape \\(4,\\), got \\(2,\\)"),
    (dict(n_disc=1, n_players=2, owner=np.array([0, 0, 1, 5], np.int32), eff_prior=np.ones(4)),
     "player index \\(5, 5\\) of owner of player-period 3 is outside \\[0, 2\\)"),
    (dict(propensity=True, n_players=2, owner=np.array([0, 0, 1, 1], np.int32), eff_prior=np.ones(2)),
     "draw propensities need a draw model"),
])
def test_the_core_refuses_rows_it_cannot_hold_naming_them(change, match):
    with pytest.raises(ValueError, match=match):
        _core.HistoryProblem(**{**core_args(), **change})


def test_a_problem_with_the_disc_read_before_any_evaluation_gives_its_priors():
    """Before a value_grad the rows' curvature and the disc's point are 0: the Hessian is the chains' and priors'."""
    owner = np.array([0, 0, 1, 1], np.int32)
    prob = _core.HistoryProblem(**{**core_args(), "n_disc": 1, "n_players": 2, "owner": owner,
                                   "eff_prior": np.full(4, 2.0)})
    v = np.arange(1.0, 9.0)
    np.testing.assert_array_equal(prob.games_diagonal(), np.zeros(8))
    expect = np.r_[np.array([[2, -1, 0, 0], [-1, 3, -1, 0], [0, -1, 3, -1], [0, 0, -1, 2]]) @ v[:4], 2.0 * v[4:]]
    np.testing.assert_allclose(prob.hessp(v), expect, rtol=1e-15)


@pytest.mark.parametrize("option, value, match", [
    ("forcing_cap", 0.0, "forcing_cap must be in \\(0, 1\\), got 0"),
    ("forcing_cap", 1.5, "forcing_cap must be in \\(0, 1\\), got 1.5"),
    ("max_cg", 0, "max_cg must be at least 1, got 0"),
    ("scale", -1.0, "scale must be positive, got -1"),
])
def test_a_newton_step_refuses_options_out_of_range_naming_them(option, value, match):
    prob = _core.HistoryProblem(**core_args())
    theta = np.zeros(4)
    v, g = prob.value_grad(theta)
    kw = {**dict(scale=1.0, forcing_cap=0.1, rounding=1e-13, max_cg=10), option: value}
    with pytest.raises(ValueError, match=match):
        prob.newton_step(theta, v, g, **kw)


def test_the_two_level_preconditioner_is_the_bench_prototypes_and_symmetric_positive():
    """The core's balancing two-level preconditioner against bench/bench_preconditioner.py's numpy prototype (its
    reference, on a problem without context effects), and u . M v = v . M u, v . M v > 0."""
    import importlib.util
    import pathlib

    spec = importlib.util.spec_from_file_location(
        "bench_preconditioner", pathlib.Path(__file__).parent.parent / "bench" / "bench_preconditioner.py")
    proto = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(proto)
    h = history(margins=True, formats=True, n_players=60, n_games=3000, n_bins=20)
    kw = dict(margin_scale=0.4, format_scales=np.array([1.0, 1.6]))
    two = _Problem(h, DRIFT, PRIOR, False, 1, preconditioner="two-level", **kw)
    plain = _Problem(h, DRIFT, PRIOR, False, 1, rows=Parts(h, False, 1, 0.4, format_scales=kw["format_scales"]), **kw)
    rng = np.random.default_rng(4)
    theta = rng.normal(scale=0.5, size=h.n_pp)
    two.value_grad(theta)
    plain.value_grad(theta)
    M_ref = proto.two_level(plain, plain.hessian()[1], theta)
    M = two.hessian()[1]
    u, v = rng.normal(size=(2, h.n_pp))
    np.testing.assert_allclose(M.matvec(v), M_ref.matvec(v), rtol=1e-11, atol=1e-13)
    assert float(u @ M.matvec(v)) == pytest.approx(float(v @ M.matvec(u)), rel=1e-12)
    assert float(v @ M.matvec(v)) > 0


@pytest.mark.parametrize("features", [dict(), dict(contexts=True, margins=True, formats=True)])
def test_the_two_level_fit_takes_fewer_iterations_to_the_same_map(features):
    h = history(n_players=400, n_games=20_000, n_bins=40, reach=4, **features)  # a ladder: slow modes across it
    kw = dict(context_scale=0.7 if h.n_eff else 0.0, margin_scale=0.4 if h.margin is not None else 0.0,
              format_scales=np.array([1.0, 1.6]) if h.fmt is not None else None)
    chains = solve_history(h, DRIFT, PRIOR, False, tol=1e-10, **kw)
    two = solve_history(h, DRIFT, PRIOR, False, tol=1e-10, preconditioner="two-level", **kw)
    assert chains.converged and two.converged
    assert two.n_cg < 0.75 * chains.n_cg
    np.testing.assert_allclose(two.theta, chains.theta, rtol=0, atol=1e-7)
    again = solve_history(h, DRIFT, PRIOR, False, tol=1e-10, preconditioner="two-level", n_threads=3, **kw)
    np.testing.assert_array_equal(again.theta, two.theta)  # the same bits for any thread count


@pytest.mark.parametrize("features", [dict(), dict(contexts=True, margins=True, formats=True),
                                      dict(draws="davidson", propensity=True, disc=1, contexts=True)])
def test_the_chains_fit_is_the_same_bits_for_any_thread_count(features):
    # the chains' factor and solve by blocks on threads, the rows' sums and the conjugate gradients' inner products
    # by fixed chunks: the fit does not depend on the threads
    h = history(n_players=400, n_games=20_000, n_bins=40, reach=4, **features)
    kw = options(h, features)
    draws = draws_of(features)
    one = solve_history(h, DRIFT, PRIOR, draws, tol=1e-10, n_threads=1, **kw)
    assert one.converged and one.n_iter >= 3
    for threads in (2, 3, 8):
        again = solve_history(h, DRIFT, PRIOR, draws, tol=1e-10, n_threads=threads, **kw)
        np.testing.assert_array_equal(again.theta, one.theta)
        assert (again.n_iter, again.n_cg, again.objective) == (one.n_iter, one.n_cg, one.objective)


def test_a_preconditioner_out_of_range_is_refused_naming_it():
    h = history()
    with pytest.raises(ValueError, match="preconditioner must be one of 'chains', 'two-level', got 'jacobi'"):
        solve_history(h, DRIFT, PRIOR, False, preconditioner="jacobi")
    with pytest.raises(ValueError, match="the two-level preconditioner serves the problems the core holds: rows in process"):
        solve_history(history(), DRIFT, PRIOR, False, rows=Parts(h, False), preconditioner="two-level")
