"""The arena board's model, Bradley-Terry with style covariates: its fit, sandwich covariance and bootstrap.

A vote between models ``a`` and ``b`` with style features ``z`` (a's answer against b's) has

    P(a beats b) = sigmoid(theta_a - theta_b + z . beta),

the paper's Elo model (its Eq. (1), logit scale) with advantage covariates. The loss is the sum over the
votes of ``w (softplus(d) - y d)`` (``y``: 1, 0 or 1/2; ``w``: the vote's weight) plus
``style_prec / 2 |beta|^2``; ratings are unpenalised, with mean 0. Votes without style are summed into cells
(pair, outcome); with style each vote is its own row. The fit is Newton's method on the dense
``(n_models + k)`` system. The sandwich covariance is ``A^-1 M A^-1`` (``A``: the Hessian plus a mean-fixing
term ``c 1 1^T`` or a ridge; ``M``: the sum of the votes' squared scores); the bootstrap draws Poisson counts
for the cells in the core, each replicate solved from the point estimate.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np
from scipy import linalg

__all__ = ["BTRows", "BTFit", "fit_bt", "rows_of"]

#: Newton's stopping rule on the fit: the largest step of any parameter, in logits.
TOL = 1e-7


@dataclass
class BTRows:
    """The rows of a fit: cells (a, b, y) standing for ``count`` votes of weight ``mult`` each, ``z``
    their style features (shape (m, k))."""

    n: int
    a: np.ndarray
    b: np.ndarray
    y: np.ndarray
    count: np.ndarray
    mult: np.ndarray
    z: np.ndarray

    @property
    def k(self) -> int:
        return int(self.z.shape[1])

    @property
    def votes(self) -> float:
        return float(self.count.sum())

    def take(self, keep: np.ndarray) -> "BTRows":
        return BTRows(self.n, self.a[keep], self.b[keep], self.y[keep], self.count[keep], self.mult[keep],
                      self.z[keep])


def rows_of(n: int, a: np.ndarray, b: np.ndarray, y: np.ndarray, mult: np.ndarray,
            z: Optional[np.ndarray] = None) -> BTRows:
    """The rows of the votes ``(a, b, y, mult, z)``: one row per vote with style features, else the votes
    summed into cells (the unordered pair, the outcome and the weight)."""
    a = np.asarray(a, dtype=np.int32)
    b = np.asarray(b, dtype=np.int32)
    y = np.asarray(y, dtype=np.float64)
    mult = np.asarray(mult, dtype=np.float64)
    if z is not None and z.shape[1] > 0:
        z = np.ascontiguousarray(z, dtype=np.float64)
        return BTRows(n, a, b, y, np.ones(a.size), mult, z)
    swap = a > b
    pair = np.minimum(a, b).astype(np.int64) * n + np.maximum(a, b)
    ys = np.where(swap, 1.0 - y, y)
    twice = ys * 2.0
    simple = n * n * 3 <= 50_000_000 and bool(np.all((twice == 0.0) | (twice == 1.0) | (twice == 2.0)))
    if simple:  # outcomes 0, 1/2, 1: the cells by one bincount over (pair, outcome)
        key = pair * 3 + twice.astype(np.int64)
        count = np.bincount(key, minlength=n * n * 3)
        cells = np.flatnonzero(count)
        cnt = count[cells].astype(np.float64)
        if mult.size and mult.min() == mult.max():  # one weight for every vote: no sum needed
            wsum = cnt * mult[0]
        else:
            wsum = np.bincount(key, weights=mult, minlength=n * n * 3)[cells]
        cy = (cells % 3) / 2.0
        cpair = cells // 3
    else:
        order = np.lexsort((mult, ys, pair))
        k_pair, k_y, k_m = pair[order], ys[order], mult[order]
        start = np.flatnonzero(np.r_[True, (np.diff(k_pair) != 0) | (np.diff(k_y) != 0) | (np.diff(k_m) != 0)])
        cnt = np.diff(np.r_[start, k_pair.size]).astype(np.float64)
        cpair, cy, wsum = k_pair[start], k_y[start], k_m[start] * cnt
    cmult = wsum / cnt
    return BTRows(n, (cpair // n).astype(np.int32), (cpair % n).astype(np.int32), cy.astype(np.float64), cnt,
                  cmult, np.zeros((cnt.size, 0)))


def _logits(rows: BTRows, x: np.ndarray) -> np.ndarray:
    d = x[rows.a] - x[rows.b]
    if rows.k:
        d = d + rows.z @ x[rows.n:]
    return d


def _sigmoid(d: np.ndarray) -> np.ndarray:
    e = np.exp(-np.abs(d))
    return np.where(d >= 0, 1.0, e) / (1.0 + e)


def assemble(rows: BTRows, v: np.ndarray, zv: Optional[np.ndarray] = None) -> np.ndarray:
    """``sum_r v[r] x_r x_r^T`` over the rows (``x_r``: +1 at a, -1 at b, then z[r]): the Hessian's or the
    meat's shape, dense ``(n + k) x (n + k)``."""
    n, k = rows.n, rows.k
    p = n + k
    out = np.zeros((p, p))
    pair = rows.a.astype(np.int64) * n + rows.b
    off = np.bincount(pair, weights=v, minlength=n * n).reshape(n, n)
    off = off + off.T
    rr = out[:n, :n]
    rr -= off
    rr[np.diag_indices(n)] += off.sum(axis=1)
    if k:
        vz = rows.z * v[:, None]
        cross = np.empty((n, k))
        for j in range(k):
            cross[:, j] = (np.bincount(rows.a, weights=vz[:, j], minlength=n)
                           - np.bincount(rows.b, weights=vz[:, j], minlength=n))
        out[:n, n:] = cross
        out[n:, :n] = cross.T
        out[n:, n:] = rows.z.T @ vz
    return out


def gradient(rows: BTRows, x: np.ndarray, w: np.ndarray, style_prec: float) -> tuple[np.ndarray, np.ndarray]:
    """The loss's gradient at ``x`` (votes weighted by ``w``), and each row's ``sigmoid(d)``."""
    n = rows.n
    s = _sigmoid(_logits(rows, x))
    r = w * (s - rows.y)
    g = np.empty(x.size)
    g[:n] = np.bincount(rows.a, weights=r, minlength=n) - np.bincount(rows.b, weights=r, minlength=n)
    if rows.k:
        g[n:] = rows.z.T @ r + style_prec * x[n:]
    return g, s


def anchored(h: np.ndarray, n: int, style_prec: float) -> np.ndarray:
    """``h`` with the term that fixes the ratings' mean (``c 1 1^T``, ``c`` the mean diagonal) and the
    style prior added: positive definite when the comparison graph is connected."""
    a = h.copy()
    c = max(float(np.trace(h[:n, :n])) / max(n, 1), 1e-300)
    a[:n, :n] += c
    a[np.arange(n, h.shape[0]), np.arange(n, h.shape[0])] += style_prec
    return a


@dataclass
class BTFit:
    """A fitted board model: ``x`` = (ratings with mean 0, style coefficients), in logits."""

    rows: BTRows
    x: np.ndarray
    style_prec: float
    iterations: int

    @property
    def n(self) -> int:
        return self.rows.n

    def hessian(self) -> np.ndarray:
        s = _sigmoid(_logits(self.rows, self.x))
        return assemble(self.rows, self.rows.count * self.rows.mult * s * (1.0 - s))

    def meat(self) -> np.ndarray:
        """The sum over the votes of their score's outer product (each of a cell's votes has the same)."""
        s = _sigmoid(_logits(self.rows, self.x))
        return assemble(self.rows, self.rows.count * (self.rows.mult * (s - self.rows.y)) ** 2)

    def bread(self, ridge: float = 0.0) -> np.ndarray:
        """The matrix ``A`` of the sandwich: the Hessian with the style prior, and either the mean-fixing
        term (``ridge=0``) or ``ridge * votes`` on the whole diagonal (arena-rank's stabiliser)."""
        h = self.hessian()
        if ridge > 0:
            h[np.diag_indices_from(h)] += ridge * self.rows.votes
            h[np.arange(self.n, h.shape[0]), np.arange(self.n, h.shape[0])] += self.style_prec
            return h
        return anchored(h, self.n, self.style_prec)

    def sandwich(self, ridge: float = 0.0) -> np.ndarray:
        """The sandwich (robust) covariance ``A^-1 M A^-1`` of ``x``: the votes independent, the model
        possibly wrong. With ``ridge=0`` it is the covariance of the ratings held at mean 0."""
        inv = linalg.cho_solve(linalg.cho_factor(self.bread(ridge), lower=True), np.eye(self.x.size))
        return inv @ self.meat() @ inv

    def bootstrap(self, n_boot: int, seed: int, n_jobs: int = 0, first: int = 0) -> tuple[np.ndarray, np.ndarray]:
        """``n_boot`` replicates of ``x`` (rows), each the fit on Poisson-resampled votes; and the Newton
        steps each took (-1: did not converge; its row NaN)."""
        from discrank.core import _core
        l0 = np.ascontiguousarray(linalg.cholesky(self.bread(), lower=True))
        r = self.rows
        return _core.bt_bootstrap(r.n, r.a, r.b, r.y, np.ascontiguousarray(r.count), np.ascontiguousarray(r.mult),
                                  r.z, np.ascontiguousarray(self.x), l0, 0.0, float(self.style_prec),
                                  int(seed), int(first), int(n_boot), 1e-6, 30, 50, int(n_jobs))

    def bootstrap_reported(self, n_boot: int, seed: int, n_jobs: int, what: str) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`bootstrap`, in twenty runs when someone listens to the progress (reported as ``what``): the
        same replicates."""
        from discrank._util.progress import Ticker

        ticker = Ticker(what, n_boot, "replicates")
        if ticker.hook is None:
            return self.bootstrap(n_boot, seed, n_jobs)
        runs, step = [], max(1, -(-n_boot // 20))
        for first in range(0, n_boot, step):
            runs.append(self.bootstrap(min(step, n_boot - first), seed, n_jobs, first=first))
            ticker.done(runs[-1][0].shape[0])
        return np.concatenate([r[0] for r in runs]), np.concatenate([r[1] for r in runs])

    def predict(self, a: np.ndarray, b: np.ndarray, z: Optional[np.ndarray] = None) -> np.ndarray:
        """P(a beats b) for each vote."""
        d = self.x[a] - self.x[b]
        if z is not None and self.rows.k:
            d = d + z @ self.x[self.n:]
        return _sigmoid(d)


def fit_bt(rows: BTRows, style_prec: float = 0.0, x0: Optional[np.ndarray] = None, max_iter: int = 100) -> BTFit:
    """The maximum-likelihood fit of the rows by Newton's method (steps capped at 2 logits), from ``x0``
    or zero.

    Raises
    ------
    ValueError
        The Hessian is singular (a comparison graph in pieces, a style column without variation).
    FloatingPointError
        The steps did not converge in ``max_iter`` (a model that won, or lost, every vote).
    """
    n, p = rows.n, rows.n + rows.k
    x = np.zeros(p) if x0 is None else np.array(x0, dtype=np.float64)
    w = rows.count * rows.mult
    for it in range(1, max_iter + 1):
        g, s = gradient(rows, x, w, style_prec)
        a = anchored(assemble(rows, w * s * (1.0 - s)), n, style_prec)
        try:
            step = linalg.cho_solve(linalg.cho_factor(a, lower=True), g)
        except linalg.LinAlgError as err:
            raise ValueError("the board's Hessian is singular (a comparison graph in pieces, or a style "
                             "column without variation)") from err
        size = float(np.max(np.abs(step))) if step.size else 0.0
        x -= step * (2.0 / size if size > 2.0 else 1.0)
        x[:n] -= x[:n].mean()
        if size <= TOL:
            return BTFit(rows, x, style_prec, it)
    raise FloatingPointError(f"the board's Newton steps did not converge in {max_iter} iterations")
