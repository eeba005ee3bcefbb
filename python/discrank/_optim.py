"""L-BFGS driver with a gradient-based stopping rule.

scipy's L-BFGS-B stops by default when the objective stops changing (``ftol``). On ladder-like data,
where players only meet near equals, that rule stops first-order fits far from the optimum. Here the
objective-change and scipy's own gradient rules are switched off, and a fit is converged only when the
*scaled gradient* is small for every parameter:

    max_i |g_i| / h_i <= tol,

where ``h_i`` is a curvature scale of parameter ``i`` (the player's total pair weight times the square
of the factor that multiplies it). For Elo, ``|g_i| / h_i`` is the gap between a player's expected and
actual mean score. The same ``h`` gives L-BFGS a diagonal (Jacobi) preconditioning: it runs on
``z = x * sqrt(h)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
from scipy.optimize import minimize

__all__ = ["BlockResult", "scaled_gradient", "minimize_scaled"]


@dataclass
class BlockResult:
    x: np.ndarray
    fun: float
    n_iter: int
    n_eval: int
    grad_measure: float
    converged: bool
    message: str


def scaled_gradient(g: np.ndarray, h: np.ndarray) -> float:
    """``max_i |g_i| / h_i``, the stopping measure."""
    return float(np.max(np.abs(g) / h)) if g.size else 0.0


def minimize_scaled(
    fun: Callable[[np.ndarray], tuple[float, np.ndarray]],
    x0: np.ndarray,
    h: np.ndarray,
    tol: float,
    max_iter: int,
) -> BlockResult:
    """Minimise ``fun`` (returning value and gradient) from ``x0`` until the scaled gradient <= tol.

    ``h`` (positive, same shape as ``x0``) is the per-parameter curvature scale.
    """
    shape = x0.shape
    h = h.reshape(-1)
    root = np.sqrt(h)
    cache: dict[str, object] = {}

    def wrapped(z: np.ndarray) -> tuple[float, np.ndarray]:
        x = (z / root).reshape(shape)
        f, g = fun(x)
        g = np.asarray(g, dtype=np.float64).reshape(-1)
        cache["z"], cache["f"], cache["g"] = z.copy(), f, g
        return f, g / root

    def measure_at(z: np.ndarray) -> tuple[float, float]:
        if "z" not in cache or not np.array_equal(cache["z"], z):
            wrapped(z)
        return float(cache["f"]), scaled_gradient(cache["g"], h)

    z0 = (x0.reshape(-1) * root).astype(np.float64)
    f0, m0 = measure_at(z0)
    if m0 <= tol:
        return BlockResult(x0.copy(), f0, 0, 1, m0, True, "initial point meets the gradient tolerance")

    state = {"measure": m0}

    def callback(intermediate_result) -> None:
        _, state["measure"] = measure_at(intermediate_result.x)
        if state["measure"] <= tol:
            raise StopIteration

    res = minimize(
        wrapped,
        z0,
        jac=True,
        method="L-BFGS-B",
        callback=callback,
        options={"maxiter": max_iter, "ftol": 0.0, "gtol": 0.0, "maxcor": 10},
    )
    f, measure = measure_at(res.x)
    converged = measure <= tol
    if converged:
        message = f"scaled gradient {measure:.3g} <= tol {tol:.3g}"
    else:
        message = f"scaled gradient {measure:.3g} > tol {tol:.3g} after {res.nit} iterations: {res.message}"
    return BlockResult((res.x / root).reshape(shape), f, int(res.nit), int(res.nfev), measure, converged, message)


def pair_curvature(i: np.ndarray, j: np.ndarray, w: np.ndarray, c: np.ndarray | None, n: int) -> np.ndarray:
    """Curvature scale ``h_a = sum over a's pairs of w_p c_b^2`` (``c = 1`` when None), b the other player.

    It is the diagonal of the Hessian of a unit-curvature loss in a parameter that multiplies ``c`` of
    the opponent. Players with ``h_a = 0`` (no pair, or opponents with ``c = 0``) get the mean of the
    positive values, so that the scaled gradient stays defined.
    """
    if c is None:
        h = np.bincount(i, w, n) + np.bincount(j, w, n)
    else:
        h = np.bincount(i, w * c[j] ** 2, n) + np.bincount(j, w * c[i] ** 2, n)
    positive = h > 0
    fill = h[positive].mean() if positive.any() else 1.0
    h[~positive] = fill
    return h
