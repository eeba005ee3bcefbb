"""Checks shared by the tests of the whole-history problem's blocks (context effects, margins, the disc): its
gradient and Hessian products against finite differences, its Newton MAP against L-BFGS's."""

import numpy as np
import pytest
from scipy.optimize import minimize

STEP = 1e-6


def check_derivatives(prob, theta, rng, grad_atol, hessp_atol=None, every=7):
    """The gradient of ``prob`` (a ``discrank._history._Problem``) at ``theta`` against central differences of its
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
