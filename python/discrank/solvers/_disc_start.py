"""Where the whole-history fit starts the disc game: its Hessian's lowest mode at ``u = v = 0``.

At ``u = v = 0`` the disc's bilinear term has no gradient, and its block of the Hessian is exactly ``I /
disc_scale^2 - D(R)``: the prior's precision less the symmetric dilation ``D(R) = [[0, R], [R^T, 0]]`` (in the
``(u, v)`` layout) of ``R``, the skew-symmetric matrix of the games' residuals between each pair of players (the
derivative of the loss by the logit, summed over the pair's games). The other blocks' curvature in ``(u, v)``
vanishes there (it is weighted by the opponents' ``u`` and ``v``). So the zero disc is a local minimum exactly
when ``sigma_1(R) < 1 / disc_scale^2``, the threshold below which the MAP holds the disc at 0; above it, the
lowest eigenvector of that block is the top singular pair of ``R`` (the paper's disc game fitted to the residuals
of the ratings, Section 3) and the direction in which the objective falls fastest from the ratings' fit.

:func:`discrank.solvers._history.solve_history` fits the ratings with the disc held at 0, then
:func:`lowest_disc_mode` finds that eigenpair by Lanczos steps on Hessian products, and :func:`along_mode`
starts the disc along it, scaled by a line search, before the joint Newton steps.
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np

__all__ = ["lowest_disc_mode", "along_mode", "canonical_gauge", "LANCZOS_STEPS"]

#: Lanczos steps of :func:`lowest_disc_mode` (each one Hessian product), a fixed count. The lowest Ritz value is at
#: least the lowest eigenvalue, so ``sigma_1`` is measured at most its value, and a disc scale just past the
#: threshold may keep the disc at 0 where the MAP's would be tiny.
LANCZOS_STEPS = 30
#: Blocks of at most this many entries are formed whole (their columns' products) and solved densely.
DENSE = 64


def lowest_disc_mode(product: Callable[[np.ndarray], np.ndarray], size: int,
                     idx: np.ndarray) -> tuple[float, np.ndarray]:
    """(eigenvalue, unit eigenvector) of the lowest eigenvalue of the Hessian's block on the entries ``idx`` (a
    component's ``u`` of each player, then its ``v``), the Hessian's product with a vector of length ``size`` being
    ``product``: the lowest Ritz pair of :data:`LANCZOS_STEPS` Lanczos steps (fully reorthogonalized) from a fixed
    vector, so the same products give the same start; or the dense block on at most :data:`DENSE` entries."""
    n = idx.size

    def restricted(w):
        full = np.zeros(size)
        full[idx] = w
        return product(full)[idx]

    if n <= DENSE:
        block = np.column_stack([restricted(col) for col in np.eye(n)])
        vals, vecs = np.linalg.eigh(0.5 * (block + block.T))
        return float(vals[0]), vecs[:, 0]
    m = min(LANCZOS_STEPS, n)
    Q = np.zeros((m, n))
    alpha, beta = np.zeros(m), np.zeros(m)
    q = np.random.default_rng(0).standard_normal(n)
    q /= np.linalg.norm(q)
    steps = m
    for j in range(m):
        Q[j] = q
        w = restricted(q)
        alpha[j] = float(np.dot(q, w))
        w -= Q[:j + 1].T @ (Q[:j + 1] @ w)  # full reorthogonalization (twice: Kahan's rule)
        w -= Q[:j + 1].T @ (Q[:j + 1] @ w)
        beta[j] = float(np.linalg.norm(w))
        if beta[j] <= 1e-12 * max(1.0, abs(alpha[j])):  # an invariant subspace: its Ritz values are exact
            steps = j + 1
            break
        q = w / beta[j]
    T = np.diag(alpha[:steps]) + np.diag(beta[:steps - 1], 1) + np.diag(beta[:steps - 1], -1)
    vals, vecs = np.linalg.eigh(T)
    x = Q[:steps].T @ vecs[:, 0]
    return float(vals[0]), x / np.linalg.norm(x)


def along_mode(value: Callable[[np.ndarray], float], theta: np.ndarray, mode: np.ndarray, idx: np.ndarray,
               current: float, grow: float = 2.0, most: int = 40) -> np.ndarray:
    """``theta`` with its entries ``idx`` (a component's ``u`` and ``v``) set to ``alpha * mode`` for the
    ``alpha`` that minimizes ``value`` among ``1, grow, grow^2, ...`` (up to ``most`` of them, stopping at the
    first rise), refined by a parabola through the best and its neighbours; ``theta`` itself where no ``alpha``
    falls below ``current`` (its value)."""

    def at(alpha):
        out = theta.copy()
        out[idx] = alpha * mode
        return out

    alphas, values = [0.0], [current]
    alpha = 1.0
    for _ in range(most):
        alphas.append(alpha)
        values.append(value(at(alpha)))
        if values[-1] > values[-2]:
            break
        alpha *= grow
    i = int(np.argmin(values))
    if i == 0:
        return theta
    if 0 < i < len(values) - 1:  # a parabola through the best and its neighbours, in log alpha
        x = np.log(np.maximum(alphas[i - 1:i + 2], alphas[i] / grow ** 2))
        y = np.asarray(values[i - 1:i + 2])
        denom = (x[0] - x[1]) * (x[0] - x[2]) * (x[1] - x[2])
        a = (x[2] * (y[1] - y[0]) + x[1] * (y[0] - y[2]) + x[0] * (y[2] - y[1])) / denom
        b = (x[2] ** 2 * (y[0] - y[1]) + x[1] ** 2 * (y[2] - y[0]) + x[0] ** 2 * (y[1] - y[2])) / denom
        if a > 0:
            guess = float(np.exp(-b / (2 * a)))
            if alphas[i - 1] < guess < alphas[i + 1]:
                v = value(at(guess))
                if v < values[i]:
                    return at(guess)
    return at(alphas[i])


def canonical_gauge(vectors: tuple, start: int, k: int, n_players: int) -> tuple:
    """``vectors`` (parameter vectors, and gradients, of the whole-history problem) with each of the ``k`` disc
    components' ``(u, v)`` (at ``start``: u of each component, then v) rotated to the orientation where ``sum v =
    0`` and ``sum u >= 0``. A rotation of a component's ``(u, v)`` changes neither its disc game ``u_a v_b - v_a u_b``
    nor its prior ``|u|^2 + |v|^2``, so the MAP leaves it free, set by the path to it; this choice makes a fit's
    components the same whatever the path (threads, Dask parts) that reached them. The first vector decides the
    rotation; copies are returned."""
    first = vectors[0]
    out = [np.array(v, dtype=np.float64, copy=True) for v in vectors]
    for j in range(k):
        iu = slice(start + j * n_players, start + (j + 1) * n_players)
        iv = slice(start + (k + j) * n_players, start + (k + j + 1) * n_players)
        su, sv = float(np.sum(first[iu])), float(np.sum(first[iv]))
        norm = math.hypot(su, sv)
        if not norm > 0.0:
            continue
        c, s = su / norm, sv / norm
        for v in out:
            u_j, v_j = v[iu].copy(), v[iv].copy()
            v[iu] = c * u_j + s * v_j
            v[iv] = c * v_j - s * u_j
    return tuple(out)
