"""Reading a disc decomposition: transitive or cyclic (Prop. 1), strength and consistency (Prop. 2),
the normal decomposition (Theorem 2), the share of each component, and Nash clustering."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

import numpy as np
import scipy.linalg
from scipy.optimize import linprog
from scipy.spatial import ConvexHull

__all__ = [
    "DiscVerdict",
    "Reparametrization",
    "TransitivitySummary",
    "disc_verdict",
    "is_transitive",
    "nash_clustering",
    "normal_decomposition",
    "reparametrize",
    "transitivity_summary",
]

#: Relative tolerance for "the origin is on the border of the hull" and "all points on a line".
GEOMETRY_RTOL = 1e-9

#: Largest unnormalised equilibrium weight in the Nash-support LP: players an equilibrium uses with
#: less than 1/NASH_SCALE of its largest weight may be left to the next cluster (see _max_support_nash).
NASH_SCALE = 1e3


@dataclass(frozen=True)
class DiscVerdict:
    """Where the origin lies relative to the convex hull of the points (u_i, v_i).

    ``transitive`` is False exactly when the origin is in the interior of the hull (Prop. 1). ``margin``: the
    distance from the origin to the hull's border (positive inside) relative to the largest |(u_i, v_i)|.
    ``case``: ``"interior"``, ``"exterior"``, ``"border"`` (ties but no cycle: transitive), ``"line"`` or
    ``"fewer than 3 players"``.
    """

    transitive: bool
    margin: float
    case: str


def _as_points(u: Any, v: Any) -> np.ndarray:
    u = np.asarray(u, dtype=np.float64)
    v = np.asarray(v, dtype=np.float64)
    if u.ndim != 1 or u.shape != v.shape:
        raise ValueError(f"u and v must be 1-D of the same length, got shapes {u.shape} and {v.shape}")
    if u.size == 0:
        raise ValueError("u and v are empty")
    bad = ~(np.isfinite(u) & np.isfinite(v))
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        raise ValueError(f"(u, v)[{k}] = ({u[k]}, {v[k]}) is not finite")
    return np.stack([u, v], axis=1)


def disc_verdict(u: Any, v: Any) -> DiscVerdict:
    """Proposition 1 for the disc game ``P_ij = sigmoid(u_i v_j - v_i u_j)``, with its degenerate cases.

    Parameters
    ----------
    u, v : array_like of float, shape (n_players,)
        The players' points ``(u_i, v_i)`` of one disc component: 1-D, of the same length, not empty, finite.

    Returns
    -------
    DiscVerdict

    Raises
    ------
    ValueError
        ``u`` and ``v`` not 1-D of the same length, empty, or with a point that is not finite.
    """
    pts = _as_points(u, v)
    scale = float(np.max(np.linalg.norm(pts, axis=1)))
    if scale == 0.0:
        return DiscVerdict(True, 0.0, "line")  # every point at the origin: all games are ties
    if pts.shape[0] < 3:
        return DiscVerdict(True, -np.inf, "fewer than 3 players")  # two players cannot form a cycle
    centred = pts - pts.mean(axis=0)
    sv = np.linalg.svd(centred, compute_uv=False)
    if sv[1] <= GEOMETRY_RTOL * max(sv[0], scale):
        # All on one line: through the origin every game is a tie (u_i v_j - v_i u_j = 0); otherwise
        # the origin is outside the segment. Neither has a cycle.
        direction = np.linalg.svd(centred)[2][0] if sv[0] > 0 else np.array([1.0, 0.0])
        normal = np.array([-direction[1], direction[0]])
        distance = abs(float(pts.mean(axis=0) @ normal)) / scale
        return DiscVerdict(True, -distance, "line")
    hull = ConvexHull(pts)
    # hull.equations: unit normal n and offset c with n.x + c <= 0 inside; at the origin, n.0 + c = c.
    margin = float(-np.max(hull.equations[:, 2])) / scale
    if margin > GEOMETRY_RTOL:
        return DiscVerdict(False, margin, "interior")
    if margin < -GEOMETRY_RTOL:
        return DiscVerdict(True, margin, "exterior")
    return DiscVerdict(True, margin, "border")


def is_transitive(u: Any, v: Any) -> bool:
    """Proposition 1: whether the disc game of (u, v) is fully transitive (the origin not in the interior of
    the convex hull of the points (u_i, v_i)); otherwise it is fully cyclic.

    Parameters
    ----------
    u, v : array_like of float, shape (n_players,)
        The players' points ``(u_i, v_i)``, as in :func:`disc_verdict`.

    Returns
    -------
    bool
        ``disc_verdict(u, v).transitive``.

    Raises
    ------
    ValueError
        Invalid ``u`` and ``v``, as in :func:`disc_verdict`.
    """
    return disc_verdict(u, v).transitive


@dataclass(frozen=True)
class Reparametrization:
    """Proposition 2 for a transitive disc game: ``u_i v_j - v_i u_j = c_i c_j (s_i - s_j)``.

    ``strength`` (s = u~/v~) and ``consistency`` (c = v~ > 0); ``u``, ``v`` the reparametrised points;
    ``matrix`` M (det 1) with ``(u~, v~) = M (u, v)``.
    """

    strength: np.ndarray
    consistency: np.ndarray
    u: np.ndarray
    v: np.ndarray
    matrix: np.ndarray


def reparametrize(u: Any, v: Any, weights: Optional[np.ndarray] = None) -> Reparametrization:
    """Proposition 2: rewrite a transitive disc game with ``v > 0`` for every player.

    Of the maps of determinant 1 (which keep every prediction), this takes the one that makes the consistency
    as constant as possible, with (weighted) mean 1 (an Elo game gets ``consistency = 1`` and its ratings as
    ``strength``), the strength centred at 0. Where that would leave a consistency <= 0, the rotation of the
    paper's proof is used: v~ along the bisector of the points' angular range, scaled to mean 1.

    Parameters
    ----------
    u, v : array_like of float, shape (n_players,)
        The players' points ``(u_i, v_i)`` of a transitive disc component, as in :func:`disc_verdict`.
    weights : array_like of float, shape (n_players,), optional
        Weights of the players in the (weighted) means, normalised to sum 1; default: equal weights.

    Returns
    -------
    Reparametrization

    Raises
    ------
    ValueError
        The game is cyclic; every game is a tie (all points on a line through the origin); the origin is on
        the border of the players' convex hull (some consistency would be 0); or invalid ``u`` and ``v``.
    """
    pts = _as_points(u, v)
    verdict = disc_verdict(pts[:, 0], pts[:, 1])
    if not verdict.transitive:
        raise ValueError(
            "the disc game is cyclic (the origin is inside the convex hull of the players, Prop. 1): it has no "
            "strength/consistency form; use the angles and radii instead"
        )
    if verdict.case == "line" and abs(verdict.margin) <= GEOMETRY_RTOL:
        raise ValueError("every game of this disc game is a tie (all points on a line through the origin): "
                         "there is no strength to read")
    w = np.ones(pts.shape[0]) if weights is None else np.asarray(weights, dtype=np.float64)
    w = w / w.sum()
    mean = w @ pts
    cov = (pts - mean).T @ ((pts - mean) * w[:, None])
    # The new v is a . (u_i, v_i): minimise Var(a . p) subject to mean(a . p) = 1, a = C^-1 m / (m C^-1 m).
    a = None
    if np.linalg.norm(mean) > GEOMETRY_RTOL * np.max(np.linalg.norm(pts, axis=1)):
        direction = np.linalg.lstsq(cov + 1e-15 * np.trace(cov) * np.eye(2), mean, rcond=None)[0]
        if direction @ mean != 0:
            a = direction / (direction @ mean)
            if np.min(pts @ a) <= 0:
                a = None
    if a is None:
        angles = np.arctan2(pts[:, 1], pts[:, 0])
        order = np.sort(angles)
        gaps = np.diff(np.concatenate([order, order[:1] + 2 * np.pi]))
        start = int(np.argmax(gaps))  # the points occupy the complement of the largest gap
        lo, hi = order[(start + 1) % order.size], order[start]
        width = (hi - lo) % (2 * np.pi)
        mid = lo + width / 2
        a = np.array([np.cos(mid), np.sin(mid)])
        a = a / (w @ (pts @ a))
    if np.min(pts @ a) <= 0:
        raise ValueError("the origin is on the border of the players' convex hull: some consistency would be 0")
    # M = [[b1, b2], [a1, a2]] with det = b1 a2 - b2 a1 = 1; b = a_perp / |a|^2 plus t a (a shear).
    b = np.array([a[1], -a[0]]) / (a @ a)
    v_new = pts @ a
    u_new = pts @ b
    t = -(w @ (u_new / v_new))  # centre the strength: u~ -> u~ + t v~ shifts every strength by t
    b = b + t * a
    u_new = pts @ b
    M = np.array([b, a])
    return Reparametrization(u_new / v_new, v_new, u_new, v_new, M)


def normal_decomposition(A: Any, n_components: Optional[int] = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Theorem 2: ``A = sum_l u_l v_l^T - v_l u_l^T`` for a real skew-symmetric A, by a real Schur form.

    The columns are orthogonal, with ``|u_l| = |v_l|``; truncating to k gives the best rank-2k skew-symmetric
    approximation in Frobenius norm.

    Parameters
    ----------
    A : array_like of float, shape (n, n)
        A finite real skew-symmetric matrix (to ``1e-9`` times ``max(1, max |A|)``); its part
        ``(A - A^T) / 2`` is decomposed.
    n_components : int, optional
        Number of components kept; default ``n // 2``. Columns beyond the nonzero 2x2 blocks are 0.

    Returns
    -------
    U, V : ndarray, shape (n, n_components)
        The components' ``u_l`` and ``v_l``, one per column.
    lam : ndarray, shape (n_components,)
        ``lam_l = |u_l| |v_l|``, decreasing.

    Raises
    ------
    ValueError
        ``A`` not square, with non-finite entries, or not skew-symmetric.
    """
    A = np.asarray(A, dtype=np.float64)
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise ValueError(f"A must be a square matrix, got shape {A.shape}")
    if not np.all(np.isfinite(A)):
        raise ValueError("A has non-finite entries")
    asym = np.abs(A + A.T).max()
    if asym > 1e-9 * max(np.abs(A).max(), 1.0):
        raise ValueError(f"A must be skew-symmetric (A = -A^T); max |A + A^T| = {asym:.3g}")
    n = A.shape[0]
    k = n // 2 if n_components is None else int(n_components)
    A = 0.5 * (A - A.T)
    T, Z = scipy.linalg.schur(A, output="real")
    blocks = []
    r = 0
    while r < n - 1:
        if abs(T[r + 1, r]) > 0.0:
            lam = 0.5 * (T[r, r + 1] - T[r + 1, r])
            blocks.append((abs(lam), r, lam > 0))
            r += 2
        else:
            r += 1
    blocks.sort(key=lambda b: -b[0])
    U = np.zeros((n, k))
    V = np.zeros((n, k))
    lams = np.zeros(k)
    for col, (lam, r, positive) in enumerate(blocks[:k]):
        first, second = (Z[:, r], Z[:, r + 1]) if positive else (Z[:, r + 1], Z[:, r])
        U[:, col], V[:, col], lams[col] = np.sqrt(lam) * first, np.sqrt(lam) * second, lam
    return U, V, lams


@dataclass(frozen=True)
class TransitivitySummary:
    """How transitive a fitted decomposition is.

    ``share[l]``: component l's share of the squared Frobenius norm of the fitted skew-symmetric matrix
    (``2 lam_l^2`` over their sum, ``lam_l = sqrt(|u_l|^2 |v_l|^2 - <u_l, v_l>^2)``, Theorem 2's values).
    ``transitive[l]``: Proposition 1 for component l; ``main_transitive`` for the first (Section 3.2).
    By Theorem 3 at most one component of an exact normal decomposition is transitive.
    """

    share: np.ndarray
    transitive: np.ndarray
    verdicts: tuple
    main_transitive: bool


def transitivity_summary(U: Any, V: Any) -> TransitivitySummary:
    """Summary of the components ``(U[:, l], V[:, l])`` of a disc decomposition (fitted or exact).

    Parameters
    ----------
    U, V : array_like of float, shape (n_players, k) or (n_players,)
        The components' ``u_l`` and ``v_l``, one per column, of the same shape; 1-D arrays are one
        component.

    Returns
    -------
    TransitivitySummary
        The shares are NaN when every ``lam_l`` is 0.

    Raises
    ------
    ValueError
        ``U`` and ``V`` not of the same shape ``(n, k)``, or a component with invalid points, as in
        :func:`disc_verdict`.
    """
    U = np.asarray(U, dtype=np.float64)
    V = np.asarray(V, dtype=np.float64)
    if U.ndim == 1:
        U, V = U[:, None], V[:, None]
    if U.shape != V.shape or U.ndim != 2:
        raise ValueError(f"U and V must have the same shape (n, k), got {U.shape} and {V.shape}")
    lam2 = np.einsum("il,il->l", U, U) * np.einsum("il,il->l", V, V) - np.einsum("il,il->l", U, V) ** 2
    total = lam2.sum()
    share = lam2 / total if total > 0 else np.full(U.shape[1], np.nan)
    verdicts = tuple(disc_verdict(U[:, l], V[:, l]) for l in range(U.shape[1]))
    transitive = np.array([vd.transitive for vd in verdicts])
    return TransitivitySummary(share, transitive, verdicts, bool(transitive[0]))


def _max_support_nash(M: np.ndarray) -> np.ndarray:
    """Players in the support of some Nash equilibrium of the symmetric zero-sum game M (M = -M^T).

    The unnormalised equilibria form the cone ``{q >= 0 : M^T q >= 0}`` (the value is 0). Maximising
    ``sum_i t_i`` with ``t_i <= q_i``, ``t_i <= 1``, ``q_i <= NASH_SCALE`` over it gives ``t_i = 1`` to every
    player some equilibrium uses with at least 1/NASH_SCALE of its largest weight, about 0 to the others: one
    LP for the union of the supports. Players kept at t_i > 1/2.
    """
    m = M.shape[0]
    c = np.concatenate([np.zeros(m), -np.ones(m)])  # variables (q, t); minimise -sum t
    A_ub = np.block([[-M.T, np.zeros((m, m))], [-np.eye(m), np.eye(m)]])
    b_ub = np.zeros(2 * m)
    res = linprog(c, A_ub=A_ub, b_ub=b_ub, bounds=[(0, NASH_SCALE)] * m + [(0, 1)] * m, method="highs")
    if res.status != 0:
        raise RuntimeError(f"Nash LP failed: {res.message}")
    return res.x[m:] > 0.5


def nash_clustering(P: Any) -> list[np.ndarray]:
    """Nash clustering of Czarnecki et al. (2020): peel off the support of the game's Nash equilibria,
    then of the remaining players' game, and so on.

    The game is the zero-sum ``2 P - 1``. "The number of clusters is a measure of transitivity": an Elo game
    with distinct ratings has one player per cluster, rock-paper-scissors one cluster.

    Parameters
    ----------
    P : array_like of float, shape (n, n)
        A complete payoff matrix ``P[i, j] = P(i beats j)``: finite off the diagonal (no NaN), with
        ``P_ij + P_ji = 1`` to 1e-9; the diagonal is ignored.

    Returns
    -------
    list of ndarray
        The clusters, strongest first, each an array of player indices; together they hold every player
        once.

    Raises
    ------
    ValueError
        ``P`` not square, with missing (NaN) or infinite entries off the diagonal, or with
        ``P_ij + P_ji != 1``.
    RuntimeError
        The linear program of a cluster's Nash support fails.
    """
    P = np.asarray(P, dtype=np.float64)
    if P.ndim != 2 or P.shape[0] != P.shape[1]:
        raise ValueError(f"P must be a square matrix, got shape {P.shape}")
    off = ~np.eye(P.shape[0], dtype=bool)
    if not np.all(np.isfinite(P[off])):
        raise ValueError("Nash clustering needs a complete matrix: P has missing (NaN) or infinite entries")
    gap = np.abs(P + P.T - 1.0)[off]
    if gap.size and gap.max() > 1e-9:
        raise ValueError(f"P must satisfy P_ij + P_ji = 1; max |P_ij + P_ji - 1| = {gap.max():.3g}")
    M = 2.0 * P - 1.0
    np.fill_diagonal(M, 0.0)
    remaining = np.arange(P.shape[0])
    clusters = []
    while remaining.size:
        support = _max_support_nash(M[np.ix_(remaining, remaining)])
        clusters.append(remaining[support])
        remaining = remaining[~support]
    return clusters
