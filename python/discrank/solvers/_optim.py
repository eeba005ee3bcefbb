"""L-BFGS driver with a gradient-based stopping rule.

scipy's objective-change rule (``ftol``) stops first-order fits far from the optimum on ladder-like data,
where players only meet near equals. Here it and scipy's own gradient rule are off, and a fit is converged
only when the *scaled gradient* is small for every parameter:

    max_i |g_i| / h_i <= tol,

where ``h_i`` is a curvature scale of parameter ``i`` (the player's total pair weight times the square
of the factor that multiplies it). For Elo, ``|g_i| / h_i`` is the gap between a player's expected and
actual mean score. The same ``h`` gives L-BFGS a diagonal (Jacobi) preconditioning: it runs on
``z = x * sqrt(h)``.

The module also holds the curvature scales (:func:`pair_curvature`). Each iteration is reported to the
progress hook of :func:`discrank._util.progress.reporting` (importable from here too). Elo's Newton method
is in :mod:`discrank.solvers._newton`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize

from discrank._util.progress import report_step, reporting  # noqa: F401 - reporting: importable from here

__all__ = ["BlockResult", "fill_zero_scales", "minimize_scaled", "pair_curvature", "report_step", "reporting",
           "scaled_gradient"]


@dataclass
class BlockResult:
    """The outcome of a solver run (:func:`minimize_scaled`, and Newton's method in :mod:`discrank.solvers._newton`).

    Attributes
    ----------
    x : numpy.ndarray
        The final point, in the shape of the start.
    fun : float
        The objective at ``x``.
    n_iter : int
        Iterations (L-BFGS) or Newton steps made.
    n_eval : int
        Evaluations of the objective and its gradient.
    grad_measure : float
        The scaled gradient (:func:`scaled_gradient`) at ``x``.
    converged : bool
        Whether ``grad_measure <= tol``.
    message : str
        Why the solver stopped, with the measure and the tolerance.
    grad : numpy.ndarray or None
        The gradient at ``x`` (not scaled), in the shape of ``x``.
    """

    x: np.ndarray
    fun: float
    n_iter: int
    n_eval: int
    grad_measure: float
    converged: bool
    message: str
    grad: np.ndarray | None = None


def scaled_gradient(g: np.ndarray, h: np.ndarray) -> float:
    """The stopping measure ``max_i |g_i| / h_i``.

    Parameters
    ----------
    g : numpy.ndarray
        The gradient.
    h : numpy.ndarray
        The positive curvature scale of each parameter (:func:`pair_curvature`), the shape of ``g``.

    Returns
    -------
    float
        ``max_i |g_i| / h_i``; 0 when ``g`` is empty. For Elo, the largest gap between a player's
        expected and actual mean score.
    """
    return float(np.max(np.abs(g) / h)) if g.size else 0.0


def minimize_scaled(
    fun: Callable[[np.ndarray], tuple[float, np.ndarray]],
    x0: np.ndarray,
    h: np.ndarray,
    tol: float,
    max_iter: int,
) -> BlockResult:
    """Minimise ``fun`` by L-BFGS from ``x0`` until the scaled gradient is at most ``tol``.

    scipy's L-BFGS-B runs on ``z = x * sqrt(h)`` (diagonal preconditioning) with its objective-change
    and gradient rules off; a callback stops it as soon as :func:`scaled_gradient` is at most ``tol``,
    and reports each iteration to the hook of :func:`reporting`.

    Parameters
    ----------
    fun : callable
        ``fun(x) -> (value, gradient)``, ``x`` and the gradient in the shape of ``x0``.
    x0 : numpy.ndarray
        The start.
    h : numpy.ndarray
        The positive curvature scale of each parameter (:func:`pair_curvature`), the shape of ``x0``.
    tol : float
        The tolerance on the scaled gradient.
    max_iter : int
        The most L-BFGS iterations.

    Returns
    -------
    BlockResult
        The final point (in the shape of ``x0``), with its objective, gradient and measure. ``x0``
        itself (0 iterations) when it meets ``tol`` already.
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
        return BlockResult(x0.copy(), f0, 0, 1, m0, True, "initial point meets the gradient tolerance",
                           np.array(cache["g"]).reshape(shape))

    state = {"measure": m0}

    def callback(intermediate_result) -> None:
        f_now, state["measure"] = measure_at(intermediate_result.x)
        state["it"] = state.get("it", 0) + 1
        report_step(state["it"], f_now, state["measure"])
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
    return BlockResult((res.x / root).reshape(shape), f, int(res.nit), int(res.nfev), measure, converged, message,
                       np.array(cache["g"]).reshape(shape))


def pair_curvature(objective, w: np.ndarray, c: np.ndarray | None = None, n_threads: int = 0) -> np.ndarray:
    """The curvature scale ``h_a = sum over a's pairs of w_p c_b^2``, ``b`` the other player of the pair.

    It is the diagonal of the Hessian of a unit-curvature loss in a parameter that multiplies ``c`` of
    the opponent (for Elo, ``c = 1``: each player's total pair weight). Players with ``h_a = 0`` (no
    pair, or opponents with ``c = 0``), or numerically zero (see :func:`fill_zero_scales`), get the mean
    of the others, so that the scaled gradient stays defined.

    Parameters
    ----------
    objective : discrank.core._core.PairObjective
        The compiled pairs, which sum over each player's pairs.
    w : numpy.ndarray
        The weight of each pair.
    c : numpy.ndarray or None
        The factor of each player that multiplies the opponent's parameter; None: 1 for every player.
    n_threads : int
        Threads for the core (0: OpenMP's default).

    Returns
    -------
    numpy.ndarray
        ``h``, one positive entry per player.
    """
    if c is None:
        return fill_zero_scales(objective.player_sums(w, n_threads=n_threads))
    return fill_zero_scales(objective.opponent_sums(w, np.ascontiguousarray(c, dtype=np.float64), n_threads=n_threads))


def fill_zero_scales(h: np.ndarray) -> np.ndarray:
    """``h`` with its zero entries, and those below 1e-12 of the median positive one (rounding residue, which
    would make the scaled gradient meaningless), set to the mean of the others (in place); all 1 when none is
    positive."""
    positive = h > 0
    if positive.any():
        positive &= h > 1e-12 * np.median(h[positive])
    fill = h[positive].mean() if positive.any() else 1.0
    h[~positive] = fill
    return h
