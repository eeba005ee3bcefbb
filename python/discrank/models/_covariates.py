"""Advantage covariates of the pair models: ``logit P(i beats j) = score(i, j) + beta . x``.

The loss is the binary cross-entropy (Elo, the disc decomposition) or Elo++'s squared error
``1/2 (P - sigmoid(d))^2`` (Gauss-Newton curvature ``w (q (1 - q))^2``), over a PairwiseData's rows by
covariate value (:class:`discrank.data.pairs.CovariateRows`). The players and ``beta`` are fitted by block
coordinate descent: the model's own solver at a fixed offset ``x beta``, then Newton's method on ``beta`` at
the fixed scores, until the scaled gradient in ``beta`` meets the tolerance right after a fit of the players.
On Elo's convex objective this converges to the joint optimum (Eq. (1) with the covariates), on the disc
decomposition's to a stationary point of the last component.

``beta`` has the weak prior of :data:`discrank.data._advantage.BETA_PRIOR_SCALE` (:func:`beta_prior`), which
keeps it finite where the games separate it. Its standard error is the Laplace approximation's: the inverse of
the Schur complement ``H_bb - H_bs H_ss^-1 H_sb`` (plus the prior) for Elo, the inverse of ``H_bb`` at the
fitted factors for the disc decomposition (given the factors). Elo++'s ``beta`` is an M-estimator with the
sandwich standard error of :func:`sandwich_se`.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Callable

import numpy as np
from scipy.special import expit

from discrank.data._advantage import beta_precision
from discrank._util.exceptions import ConvergenceWarning

__all__ = ["CovariateFit", "alternate", "beta_hessian", "beta_newton", "beta_prior", "elo_beta_covariance",
           "row_curvature", "row_gradient", "sandwich_se"]

#: Most rounds of (players, beta) of the block coordinate descent.
MAX_ROUNDS = 200


@dataclass
class CovariateFit:
    """The result of :func:`alternate`."""

    beta: np.ndarray
    rounds: int
    measure: float
    converged: bool
    scores: np.ndarray  #: the rows' scores without the covariates at the last fit of the players


def _loss(d: np.ndarray, p: np.ndarray, w: np.ndarray, loss: str = "bce") -> float:
    if loss == "bce":  # bce(p, sigmoid(d)) = log(1 + e^d) - p d, stable for any d
        return float(np.sum(w * (np.logaddexp(0.0, d) - p * d)))
    return 0.5 * float(np.sum(w * (p - expit(d)) ** 2))


def row_gradient(d: np.ndarray, p: np.ndarray, w: np.ndarray, loss: str = "bce") -> np.ndarray:
    """Each row's derivative of the loss in its logit ``d``: ``w (q - p)``, times ``q (1 - q)`` for the
    squared error (``q = sigmoid(d)``)."""
    q = expit(d)
    return w * (q - p) if loss == "bce" else w * (q - p) * q * (1.0 - q)


def row_curvature(d: np.ndarray, w: np.ndarray, loss: str = "bce") -> np.ndarray:
    """Each row's curvature of the loss at its logit ``d``: ``w q (1 - q)`` (bce), or the squared error's
    Gauss-Newton ``w (q (1 - q))^2`` (``q = sigmoid(d)``)."""
    q = expit(d)
    c = q * (1.0 - q)
    return w * c if loss == "bce" else w * c * c


def beta_hessian(c: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``H_bb = x^T diag(c) x`` for the rows' curvatures ``c`` (:func:`row_curvature`)."""
    return x.T @ (x * c[:, None])


def beta_prior(x: np.ndarray, w: np.ndarray, total_weight: float) -> np.ndarray:
    """The precision of ``beta``'s prior (:func:`discrank.data._advantage.beta_precision`) per unit weight of
    the rows ``w``."""
    return beta_precision(x, w) / float(total_weight)


def beta_newton(z: np.ndarray, x: np.ndarray, p: np.ndarray, w: np.ndarray, beta: np.ndarray, prec: np.ndarray,
                max_iter: int = 50, loss: str = "bce") -> np.ndarray:
    """``argmin_beta sum_r w_r loss(p_r, sigmoid(z_r + x_r . beta)) + 1/2 sum_k prec_k beta_k^2`` by Newton's
    method (Gauss-Newton for the squared error) with backtracking from ``beta``."""
    beta = np.array(beta, dtype=np.float64)
    f = _loss(z + x @ beta, p, w, loss) + 0.5 * float(prec @ (beta * beta))
    for _ in range(max_iter):
        d = z + x @ beta
        g = x.T @ row_gradient(d, p, w, loss) + prec * beta
        H = beta_hessian(row_curvature(d, w, loss), x) + np.diag(prec)
        try:
            step = -np.linalg.solve(H, g)
        except np.linalg.LinAlgError:
            step = -np.linalg.lstsq(H, g, rcond=None)[0]
        t = 1.0
        while True:
            trial = beta + t * step
            f_new = _loss(z + x @ trial, p, w, loss) + 0.5 * float(prec @ (trial * trial))
            if f_new <= f + 1e-4 * t * float(g @ step) or t < 1e-10:
                break
            t *= 0.5
        beta = beta + t * step
        converged = np.max(np.abs(t * step)) <= 1e-12 * max(1.0, float(np.max(np.abs(beta))))
        f = f_new
        if converged or t < 1e-10:
            break
    return beta


def alternate(fit_at: Callable[[np.ndarray], None], scores: Callable[[], np.ndarray], x: np.ndarray,
              p: np.ndarray, w: np.ndarray, prec: np.ndarray, tol: float, what: str, max_rounds: int = MAX_ROUNDS,
              loss: str = "bce") -> CovariateFit:
    """Block coordinate descent on (players, beta): ``fit_at(offset)`` fits the players at the fixed
    offset ``x beta`` (warm-started by the caller), ``scores()`` gives the rows' scores without the
    covariates at that fit. Stops when ``max_k |dL/dbeta_k| / sum_r w_r |x_rk| <= tol`` right after a fit
    of the players; ``what`` names the model in the warning of a run out of rounds; ``loss``: "bce" or
    "sigmoid_squared" (Elo++); ``prec``: the precision of ``beta``'s prior per unit weight (:func:`beta_prior`)."""
    beta = np.zeros(x.shape[1])
    scale = np.maximum(np.abs(x).T @ w, 1e-300)
    measure = np.inf
    for rounds in range(1, max_rounds + 1):
        fit_at(x @ beta)
        z = scores()
        g = x.T @ row_gradient(z + x @ beta, p, w, loss) + prec * beta
        measure = float(np.max(np.abs(g) / scale))
        if measure <= tol:
            return CovariateFit(beta, rounds, measure, True, z)
        beta = beta_newton(z, x, p, w, beta, prec, loss=loss)
    warnings.warn(f"{what}: the covariates' coefficients did not converge in {max_rounds} rounds (scaled "
                  f"gradient {measure:.3g} > tol {tol:.3g}); they are confounded with the ratings (an advantage "
                  "almost always held by the same players?)", ConvergenceWarning, stacklevel=4)
    return CovariateFit(beta, max_rounds, measure, False, z)


def elo_beta_covariance(data, d: np.ndarray, ridge: float) -> np.ndarray:
    """The covariance of Elo's ``beta`` in the Laplace approximation: ``(W S)^-1`` with ``S = H_bb - B^T
    (L + ridge I)^+ B``, at the rows' logits ``d`` (``data``: the fit's FitData with ``x``; ``W``: its total
    weight). ``L`` is the rows' Laplacian with weights ``w q (1 - q)``, ``B`` its coupling to ``beta``; each
    solve is Jacobi-preconditioned conjugate gradients to a relative residual of 1e-10."""
    from scipy.sparse.linalg import LinearOperator, cg

    n, x, nt = data.n_players, data.x, data.n_threads
    c = row_curvature(d, data.w)
    H_bb = beta_hessian(c, x) + np.diag(beta_prior(x, data.w, data.total_weight))
    diag = data.objective.player_sums(np.ascontiguousarray(c), n_threads=nt) + ridge
    delta = 1e-14 * float(diag.max())
    shifted = LinearOperator((n, n), matvec=lambda v: data.objective.hessp_s(c, v, n_threads=nt) + (ridge + delta) * v,
                             dtype=np.float64)
    jacobi = LinearOperator((n, n), matvec=(1.0 / np.maximum(diag + delta, 1e-300)).__mul__, dtype=np.float64)
    S = H_bb.copy()
    for k in range(x.shape[1]):
        ck = c * x[:, k]
        b = np.bincount(data.i, ck, n) - np.bincount(data.j, ck, n)
        if not np.any(b):
            continue
        y, _ = cg(shifted, b, rtol=1e-10, atol=0.0, maxiter=20 * n + 100, M=jacobi)
        S[:, k] -= _b_dot(data, c, x, y)
    S = 0.5 * (S + S.T) * float(data.total_weight)
    try:
        return np.linalg.inv(S)
    except np.linalg.LinAlgError:
        return np.full(S.shape, np.inf)


def sandwich_se(d: np.ndarray, x: np.ndarray, w: np.ndarray, total_weight: float) -> np.ndarray:
    """Standard errors of the squared error's ``beta`` given the ratings, at the rows' logits ``d``: the
    diagonal of ``H^-1 J H^-1`` with ``H = x^T diag(w g^2) x`` plus the prior (``g = q (1 - q)``) and
    ``J = x^T diag(w q (1 - q) g^2) x`` (each game a Bernoulli(q) draw), both times the total weight."""
    q = expit(d)
    c = row_curvature(d, w, "sigmoid_squared")  # w g^2
    H = (beta_hessian(c, x) + np.diag(beta_prior(x, w, total_weight))) * float(total_weight)
    J = beta_hessian(c * q * (1.0 - q), x) * float(total_weight)
    try:
        Hi = np.linalg.inv(H)
    except np.linalg.LinAlgError:
        return np.full(x.shape[1], np.inf)
    return np.sqrt(np.clip(np.diag(Hi @ J @ Hi), 0.0, None))


def _b_dot(data, c: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``B^T y``: for each covariate k, ``sum_r c_r x_rk (y_i - y_j)``."""
    return x.T @ (c * (y[data.i] - y[data.j]))
