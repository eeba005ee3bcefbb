"""Checks shared by the tests of the whole-history problem's blocks (context effects, margins, the disc): its
gradient and Hessian products against finite differences, its Newton MAP against L-BFGS's."""

import numpy as np
import pytest
from scipy.optimize import minimize

STEP = 1e-6


def check_derivatives(prob, theta, rng, grad_atol, hessp_atol=None, every=7):
    """The gradient of ``prob`` (a ``discrank.solvers._history._Problem``) at ``theta`` against central differences of its
    value, every ``every``-th entry, to ``grad_atol``; with ``hessp_atol``, its Hessian times a random vector
    against differences of the gradient."""
    _, g = prob.value_grad(theta)
    for k in range(0, theta.size, every):
        e = np.zeros(theta.size)
        e[k] = STEP
        fd = (prob.value_grad(theta + e)[0] - prob.value_grad(theta - e)[0]) / (2 * STEP)
        assert fd == pytest.approx(g[k], abs=grad_atol)
    if hessp_atol is None:
        return
    v = rng.normal(size=theta.size)
    gp, gm = prob.value_grad(theta + STEP * v)[1], prob.value_grad(theta - STEP * v)[1]
    prob.value_grad(theta)  # the rows keep the curvature of the last evaluation
    np.testing.assert_allclose(prob.hessian()[0].matvec(v), (gp - gm) / (2 * STEP), rtol=0, atol=hessp_atol)


def lbfgs(prob, start):
    """L-BFGS-B's minimum of ``prob`` from ``start``, run to tight tolerances."""
    return minimize(lambda t: prob.value_grad(t), start, jac=True, method="L-BFGS-B",
                    options=dict(maxiter=50000, gtol=1e-12, ftol=1e-15))


def check_map_against_lbfgs(prob, res, start, grad_tol, objective_tol=1e-9):
    """Newton's MAP ``res`` (a ``solve_history`` result) against L-BFGS-B's minimum of ``prob`` from ``start``,
    by objectives and gradients, not by points: along an almost flat direction, L-BFGS-B stops where its line
    searches stall, a distance from the optimum that depends on the scipy a user has (2.4e-5 seen), while its
    objective is within rounding of the optimum's. Newton's point is converged (its gradient's largest entry at
    most ``grad_tol``) and no worse than the reference's objective by more than ``objective_tol``; the reference
    is no better than the optimum (its objective at least Newton's less ``objective_tol``)."""
    value, grad = prob.value_grad(res.theta)
    assert value == pytest.approx(res.objective, rel=1e-12, abs=1e-12)
    assert np.abs(grad).max() <= grad_tol
    ref = lbfgs(prob, start)
    assert res.objective <= ref.fun + objective_tol
    assert ref.fun >= res.objective - objective_tol
    return ref
