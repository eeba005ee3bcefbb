"""One component of the disc decomposition (Eq. (4)): Algorithm 1's objectives and the two solvers.

:class:`Component` holds the objectives of one component on top of the previous ones (an offset);
:func:`alternate_blocks` is Algorithm 1 (u-step, v-step, until both blocks are stationary) and
:func:`alternate_then_joint` runs L-BFGS on (u, v) together. ``models/disc.py`` fits the components one
after another (Algorithm 2).

With a draw model (Davidson, Rao-Kupper) the loss is the core's three-outcome negative log-likelihood
(``evaluate_draws``, which also gives ``dL/deta`` and ``d2L/deta2``), and the draw parameter ``eta`` (flat
prior) is one more coordinate: the last of the joint solver's vector, and of each block step (the u-step
solves (u, eta), the v-step (v, eta)), under the same scaled-gradient stopping rule. The solvers see Rao and
Kupper's threshold (``eta > 0``) as its logarithm, so no step leaves the model.
"""

from __future__ import annotations

import math
from typing import Any, Optional

import numpy as np

from discrank.core import _core
from discrank.solvers._optim import minimize_scaled, pair_curvature, scaled_gradient

__all__ = ["COARSE_REL", "COLLAPSE", "INNER_MAX_ITER", "Component", "alternate_blocks", "alternate_then_joint", "is_live",
           "orthogonality_penalty", "unit_columns"]

#: Most L-BFGS iterations of one block update (u-step or v-step) of Algorithm 1.
INNER_MAX_ITER = 500

#: Inner tolerance of the first round of Algorithm 1, relative to the starting gradient measure (it
#: tightens with the progress).
COARSE_REL = 1e-3

#: An unconverged fit with |u| <= COLLAPSE * max(1, |v|) is tested against the prior's collapsed point.
COLLAPSE = 1e-3


def unit_columns(vectors: list[np.ndarray]) -> np.ndarray:
    """The non-zero vectors, normalised, as columns of an n x q matrix."""
    cols = [v / np.linalg.norm(v) for v in vectors if np.linalg.norm(v) > 0]
    n = vectors[0].shape[0] if vectors else 0
    return np.stack(cols, axis=1) if cols else np.zeros((n, 0))


def orthogonality_penalty(x: np.ndarray, Q: np.ndarray, weight: float) -> tuple[float, np.ndarray]:
    """Algorithm 1's penalty ``weight * sum_q <x, q>^2 / ||q||^2`` and its gradient, for unit columns ``Q``."""
    if Q.shape[1] == 0:
        return 0.0, np.zeros_like(x)
    c = Q.T @ x
    return weight * float(c @ c), (2.0 * weight) * (Q @ c)


def _pair_penalty(u: np.ndarray, v: np.ndarray, weight: float) -> tuple[float, np.ndarray, np.ndarray]:
    """Algorithm 1's ``weight * <u, v>^2 / ||u||^2`` and its gradients in u and in v."""
    uu = float(u @ u)
    if uu == 0.0:
        return 0.0, np.zeros_like(u), np.zeros_like(v)
    c = float(u @ v)
    return (
        weight * c * c / uu,
        (2.0 * weight * c / uu) * (v - (c / uu) * u),
        (2.0 * weight * c / uu) * u,
    )


class Component:
    """The objectives of Algorithm 1 for one component, on top of the previous ones (an offset)."""

    def __init__(self, objective: Any, loss_id: int, n_players: int, w: np.ndarray, offset: Optional[np.ndarray],
                 Q: np.ndarray, pen_weight: float, n_threads: int, reg_weight: float = 0.0,
                 prior_weight: float = 0.0, v_centre: float = 0.0, draw: Optional[tuple] = None):
        self.objective, self.loss_id, self.w = objective, loss_id, w
        # a draw model: (its core id, the pairs' draw shares); eta its parameter, from the caller's start
        self.draw, self.eta = draw, 0.0
        self._eta_terms = (0.0, 1.0)  # dL/deta and d2L/deta2 of the last evaluation
        self._log_eta = draw is not None and draw[0] == _core.DRAW_RAO_KUPPER  # the solvers' coordinate: log eta
        self.offset, self.Q, self.pen_weight, self.n_threads = offset, Q, pen_weight, n_threads
        self.reg_weight = reg_weight  # reg_weight * sum (v_i - 1)^2, Appendix B.2
        # Gaussian priors u_i ~ N(0, s^2), v_i ~ N(v_centre, s^2): prior_weight / 2 (|u|^2 + |v - v_centre|^2)
        self.prior_weight, self.v_centre = prior_weight, v_centre
        self.balance_weight = 0.0  # see joint_objective
        self._curv_memo: list = []  # the last two (factor, curvature) pairs
        self.n = n_players

    def loss(self, u: np.ndarray, v: np.ndarray, grad_u: bool, grad_v: bool, eta: Optional[float] = None):
        """The data loss at (u, v) (and the draw parameter ``eta``, default ``self.eta``) with the asked
        gradients; with a draw model, keeps ``dL/deta`` and ``d2L/deta2``."""
        n = self.n
        factors = dict(U=u.reshape(n, 1), V=v.reshape(n, 1), offset=self.offset, grad_u=grad_u, grad_v=grad_v,
                       n_threads=self.n_threads)
        eta = self.eta if eta is None else float(eta)
        if self.draw is None:
            f, gu, gv, _ = self.objective.evaluate(self.loss_id, **factors)
        else:
            f, gu, gv, _, g_eta, h_eta = self.objective.evaluate_draws(self.draw[0], self.draw[1], eta, **factors)
            self._eta_terms = (g_eta, h_eta)
        self._last = (u.copy(), v.copy(), eta, f)
        return f, None if gu is None else gu[:, 0], None if gv is None else gv[:, 0]

    def loss_at(self, u: np.ndarray, v: np.ndarray) -> float:
        """The data loss (the previous components' scores included) at (u, v) and ``self.eta``: the last
        evaluation's when it was at this very point, else a pass."""
        last = getattr(self, "_last", None)
        if (last is not None and np.array_equal(last[0], u) and np.array_equal(last[1], v)
                and last[2] == self.eta):
            return float(last[3])
        return float(self.loss(u, v, False, False)[0])

    def eta_second_derivative(self) -> float:
        """``d2L/deta2`` of the data loss at the last evaluation (in eta itself, whatever the coordinate)."""
        return float(self._eta_terms[1])

    def eta_coordinate(self) -> float:
        """The solvers' coordinate of ``self.eta``: eta, or its logarithm (Rao and Kupper's threshold)."""
        return math.log(self.eta) if self._log_eta else self.eta

    def eta_at(self, c: float) -> float:
        """The draw parameter at the solvers' coordinate ``c``."""
        return math.exp(c) if self._log_eta else float(c)

    def eta_gradient(self) -> float:
        """The loss's derivative in the solvers' coordinate of eta at the last evaluation."""
        return self._eta_terms[0] * (self._last[2] if self._log_eta else 1.0)

    def eta_curvature(self) -> np.ndarray:
        """The curvature scale of the solvers' coordinate of eta (a vector of one): ``d2L/deta2`` (times
        eta^2 for log eta) at the last evaluation (1 where it is not positive and finite)."""
        h = self._eta_terms[1] * (self._last[2] ** 2 if self._log_eta else 1.0)
        return np.array([h if np.isfinite(h) and h > 0.0 else 1.0])

    def stack(self, u: np.ndarray, v: np.ndarray) -> np.ndarray:
        """The joint solver's vector: (u, v), and the coordinate of ``self.eta`` last with a draw model."""
        return np.concatenate([u, v] + ([] if self.draw is None else [[self.eta_coordinate()]]))

    def scales(self, x: np.ndarray) -> np.ndarray:
        """The curvature scales of the joint vector ``x`` (:meth:`stack`)."""
        n = self.n
        h = [self.curvature_u(x[n:2 * n]), self.curvature_v(x[:n])]
        return np.concatenate(h + ([] if self.draw is None else [self.eta_curvature()]))

    def _curvature(self, c: np.ndarray) -> np.ndarray:
        # The same factor comes back several times in a row (the stopping test, the balancing, the next
        # solve's scale): one pass over the pairs for each distinct vector, compared in O(n).
        for known, value in self._curv_memo:
            if np.array_equal(known, c):
                return value.copy()
        value = pair_curvature(self.objective, self.w, c, self.n_threads)
        self._curv_memo = [(c.copy(), value)] + self._curv_memo[:1]
        return value.copy()

    def curvature_u(self, v: np.ndarray) -> np.ndarray:
        return self._curvature(v) + self.prior_weight

    def curvature_v(self, u: np.ndarray) -> np.ndarray:
        return self._curvature(u) + 2.0 * self.reg_weight + self.prior_weight

    def regularizer(self, v: np.ndarray) -> tuple[float, np.ndarray]:
        """Appendix B.2's ``lambda / 2 sum_i (v_i - 1)^2`` and the prior on v, with their gradient."""
        f, g = 0.0, np.zeros_like(v)
        if self.reg_weight != 0.0:
            d = v - 1.0
            f, g = self.reg_weight * float(d @ d), (2.0 * self.reg_weight) * d
        if self.prior_weight != 0.0:
            d = v - self.v_centre
            f, g = f + 0.5 * self.prior_weight * float(d @ d), g + self.prior_weight * d
        return f, g

    def u_prior(self, u: np.ndarray) -> tuple[float, np.ndarray]:
        """The prior on u, ``prior_weight / 2 |u|^2``, and its gradient."""
        if self.prior_weight == 0.0:
            return 0.0, np.zeros_like(u)
        return 0.5 * self.prior_weight * float(u @ u), self.prior_weight * u

    def u_step_objective(self, u: np.ndarray, v: np.ndarray, eta: Optional[float] = None) -> tuple[float, np.ndarray]:
        """f + sum_m <u, us_m>^2/|us_m|^2 + <u, vs_m>^2/|vs_m|^2 (Algorithm 1, u-step), at the draw parameter
        ``eta`` (default ``self.eta``)."""
        f, gu, _ = self.loss(u, v, True, False, eta)
        pen, gpen = orthogonality_penalty(u, self.Q, self.pen_weight)
        pri, gpri = self.u_prior(u)
        return f + pen + pri, gu + gpen + gpri

    def v_step_objective(self, u: np.ndarray, v: np.ndarray, eta: Optional[float] = None) -> tuple[float, np.ndarray]:
        """f + <u, v>^2/|u|^2 + sum_m <v, us_m>^2/|us_m|^2 + <v, vs_m>^2/|vs_m|^2 (Algorithm 1, v-step), at the
        draw parameter ``eta`` (default ``self.eta``)."""
        f, _, gv = self.loss(u, v, False, True, eta)
        pen, gpen = orthogonality_penalty(v, self.Q, self.pen_weight)
        puv, _, gpuv = _pair_penalty(u, v, self.pen_weight)
        reg, greg = self.regularizer(v)
        return f + pen + puv + reg, gv + gpen + gpuv + greg

    def project(self, x: np.ndarray) -> np.ndarray:
        """x without its part in the span of the previous components."""
        return x - self.Q @ (self.Q.T @ x) if self.Q.shape[1] else x

    def joint_objective(self, x: np.ndarray) -> tuple[float, np.ndarray]:
        """Eq. (4) for this component with (u, v) stacked: the loss, Algorithm 1's <u, v> penalty, the
        regulariser, and orthogonality to the previous components as an exact constraint (u and v are
        projected on their orthogonal complement) instead of Algorithm 1's penalties."""
        n = self.n
        u, v = self.project(x[:n]), self.project(x[n:2 * n])
        eta = None if self.draw is None else self.eta_at(x[2 * n])
        f, gu, gv = self.loss(u, v, True, True, eta)
        puv, gpuv_u, gpuv_v = _pair_penalty(u, v, self.pen_weight)
        reg, greg = self.regularizer(v)
        pri, gpri = self.u_prior(u)
        reg, gpuv_u = reg + pri, gpuv_u + gpri
        # (u, v) -> (a u, v / a) changes neither the loss nor (at <u, v> = 0) the penalty: left free,
        # L-BFGS drifts along it. This term, zero with zero gradient when |u| = |v|, pins it without
        # moving the balanced stationary points.
        gap = float(u @ u - v @ v)
        bal = self.balance_weight * gap * gap
        gbal = 4.0 * self.balance_weight * gap
        grad = [self.project(gu + gpuv_u + gbal * u), self.project(gv + gpuv_v + greg - gbal * v)]
        if self.draw is not None:
            grad.append([self.eta_gradient()])
        return f + puv + reg + bal, np.concatenate(grad)

    def balance(self, u: np.ndarray, v: np.ndarray, set_weight: bool = True) -> tuple[np.ndarray, np.ndarray]:
        """Rescale to |u| = |v| (every prediction kept) and (``set_weight``) set the balancing weight around
        that scale for the next joint solve; nothing with the regulariser or the prior, which fix the scale."""
        if self.reg_weight > 0 or self.prior_weight > 0:
            return u, v
        nu, nv = np.linalg.norm(u), np.linalg.norm(v)
        if nu == 0 or nv == 0:
            return u, v
        u, v = u * np.sqrt(nv / nu), v * np.sqrt(nu / nv)
        if not set_weight:
            return u, v
        # curvature along the scale direction, 16 weight r^2 at |u| = |v| = r, matched to the data's
        h_mean = 0.5 * (self.curvature_u(v).mean() + self.curvature_v(u).mean())
        self.balance_weight = h_mean / (16.0 * nu * nv)
        return u, v

    def block_measure(self, u: np.ndarray, v: np.ndarray) -> float:
        """Scaled gradient of the u-step and v-step objectives at (u, v) (one kernel call for both blocks)."""
        _, gu, gv = self.loss(u, v, True, True)
        gu = gu + orthogonality_penalty(u, self.Q, self.pen_weight)[1] + self.u_prior(u)[1]
        gv = gv + orthogonality_penalty(v, self.Q, self.pen_weight)[1] + _pair_penalty(u, v, self.pen_weight)[2]
        gv = gv + self.regularizer(v)[1]
        measure = max(scaled_gradient(gu, self.curvature_u(v)), scaled_gradient(gv, self.curvature_v(u)))
        if self.draw is not None:
            measure = max(measure, scaled_gradient(np.array([self.eta_gradient()]), self.eta_curvature()))
        return measure


def is_live(u: np.ndarray, v: np.ndarray) -> bool:
    """Whether u is a start away from the saddle u = 0: not zero, nor rounding residue (1e-16) of it."""
    return bool(np.linalg.norm(u) > 1e-8 * max(1.0, float(np.linalg.norm(v))))


def _collapsed(problem: Component, u: np.ndarray, v: np.ndarray, tol: float,
               measure: float) -> tuple[np.ndarray, np.ndarray, float]:
    """(u, v, measure), or the prior's collapsed point when the fit ended unconverged next to it.

    Where the prior outweighs the data's cyclic part, the MAP of a component is u = 0, v at its prior
    centre, where ``<u, v>^2 / |u|^2`` is not differentiable. When the fit ended within
    ``COLLAPSE * max(1, |v|)`` of u = 0, that point is taken if its scaled gradient meets ``tol`` and its
    objective is no higher.
    """
    if measure <= tol or problem.prior_weight == 0.0:
        return u, v, measure
    if np.linalg.norm(u) > COLLAPSE * max(1.0, float(np.linalg.norm(v))):
        return u, v, measure
    # v's optimum at u = 0 (the loss does not depend on v there): the regulariser and the prior
    reg, prior = 2.0 * problem.reg_weight, problem.prior_weight
    u0, v0 = np.zeros_like(u), problem.project(np.full_like(v, (reg + prior * problem.v_centre) / (reg + prior)))
    m0 = problem.block_measure(u0, v0)
    lower = problem.joint_objective(problem.stack(u0, v0))[0] <= problem.joint_objective(problem.stack(u, v))[0]
    if m0 <= tol and lower:
        return u0, v0, m0
    return u, v, measure


def alternate_blocks(problem: Component, u: np.ndarray, v: np.ndarray, tol: float,
               max_iter: int) -> tuple[np.ndarray, np.ndarray, int, float]:
    """Algorithm 1: u-step, v-step, each by L-BFGS (:func:`_block_step`), until both blocks meet ``tol`` (or
    ``max_iter`` rounds), to an inner tolerance that tightens with the progress from ``_first_tol``.
    """
    inner_tol = _first_tol(problem, u, v, tol)
    measure = np.inf
    for it in range(1, max_iter + 1):
        u = _block_step(problem, lambda x, eta: problem.u_step_objective(x, v, eta), u, problem.curvature_u(v),
                        inner_tol)
        v = _block_step(problem, lambda x, eta: problem.v_step_objective(u, x, eta), v, problem.curvature_v(u),
                        inner_tol)
        measure = problem.block_measure(u, v)
        if measure <= tol:
            break
        inner_tol = max(tol, min(inner_tol, 0.1 * measure))
    u, v, measure = _collapsed(problem, u, v, tol, measure)
    return u, v, it, measure


def _block_step(problem: Component, objective: Any, x: np.ndarray, h: np.ndarray, tol: float) -> np.ndarray:
    """A block step of Algorithm 1 by L-BFGS from ``x`` (curvature scales ``h``): ``objective(x, eta)``
    minimised over ``x``, and with a draw model over ``(x, eta)`` together (``problem.eta`` the start and
    the result)."""
    if problem.draw is None:
        return minimize_scaled(lambda z: objective(z, None), x, h, tol, INNER_MAX_ITER).x
    n = x.shape[0]

    def fun(z: np.ndarray) -> tuple[float, np.ndarray]:
        f, g = objective(z[:n], problem.eta_at(z[n]))
        return f, np.append(g, problem.eta_gradient())

    z = minimize_scaled(fun, np.append(x, problem.eta_coordinate()), np.append(h, problem.eta_curvature()), tol,
                        INNER_MAX_ITER).x
    problem.eta = problem.eta_at(z[n])
    return z[:n]


def _first_tol(problem: Component, u: np.ndarray, v: np.ndarray, tol: float) -> float:
    """The first block solves stop at COARSE_REL times the starting measure: an absolute tolerance
    would accept the start itself (u = 0, a saddle) when the component to find is small."""
    return max(tol, COARSE_REL * problem.block_measure(u, v))


def alternate_then_joint(problem: Component, u: np.ndarray, v: np.ndarray, tol: float,
                          max_iter: int) -> tuple[np.ndarray, np.ndarray, int, float]:
    """L-BFGS on (u, v) jointly (``joint_objective``; with a draw model, on (u, v, eta), ``problem.eta`` the
    start and the result), from (u, v); from u = 0, after Algorithm 1's first u-step (a coarse solve) as a
    warm start."""
    if not is_live(u, v):  # u = 0 is a saddle of the joint objective: leave it by Algorithm 1's u-step first
        u = minimize_scaled(lambda x: problem.u_step_objective(x, v), u, problem.curvature_u(v),
                            _first_tol(problem, u, v, tol), INNER_MAX_ITER).x
    n = problem.n
    x = problem.stack(problem.project(u), problem.project(v))
    used = 0
    while used < max_iter:
        x = problem.stack(*problem.balance(problem.project(x[:n]), problem.project(x[n:2 * n])))
        if problem.draw is not None:
            problem.loss(x[:n], x[n:2 * n], False, False)  # eta's curvature scale at the start
        res = minimize_scaled(problem.joint_objective, x, problem.scales(x), tol, max_iter - used)
        x, used, measure = res.x, used + max(res.n_iter, 1), res.grad_measure
        if problem.draw is not None:
            problem.eta = problem.eta_at(x[2 * n])
        # The curvature scale moves with (u, v): a run converged for the old one is checked again.
        if res.converged:
            measure = scaled_gradient(res.grad, problem.scales(x))
            if measure <= tol:
                break
        elif res.n_iter == 0:
            break
    u, v, measure = _collapsed(problem, problem.project(x[:n]), problem.project(x[n:2 * n]), tol, measure)
    return u, v, 1 + used, measure
