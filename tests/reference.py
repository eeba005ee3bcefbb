"""Plain numpy references of the compiled objective, written independently of cpp/.

Each loss is written from the paper's formula with numpy's own functions (np.logaddexp, scipy's expit),
over the pairs, and its gradient by the chain rule with np.add.at scatters. Also the tests' draw of
random observed pairs (random_pairs).
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit, logit

LOSS_IDS = {"bce": 0, "squared_logit": 1, "probability": 2, "sigmoid_squared": 3}


def random_pairs(rng, n, draws):
    """(i, j) int64: the distinct unordered pairs, i < j, sorted by (i, j), among `draws` random games of
    n players (each game against a uniformly random other player)."""
    a = rng.integers(0, n, draws)
    b = (a + rng.integers(1, n, draws)) % n
    key = np.unique(np.minimum(a, b) * n + np.maximum(a, b))
    return key // n, key % n


def scores(i, j, U=None, V=None, s=None, offset=None):
    A = np.zeros(len(i)) if offset is None else offset.astype(float).copy()
    if s is not None:
        A += s[i] - s[j]
    if U is not None:
        A += np.sum(U[i] * V[j] - V[i] * U[j], axis=1)
    return A


def loss_terms(name, y, A):
    """Per-pair loss and dL/dA."""
    if name == "bce":
        # bce(y, sigmoid(A)) = y log(1 + e^-A) + (1 - y) log(1 + e^A)
        value = y * np.logaddexp(0.0, -A) + (1.0 - y) * np.logaddexp(0.0, A)
        return value, expit(A) - y
    if name == "squared_logit":
        r = logit(y) - A
        return r**2, -2.0 * r
    if name == "probability":
        r = y - 0.5 - A
        return 0.5 * r**2, -r
    if name == "sigmoid_squared":
        sig = expit(A)
        r = y - sig
        return 0.5 * r**2, -r * sig * (1.0 - sig)
    raise ValueError(name)


def objective(name, n, i, j, y, w, U=None, V=None, s=None, offset=None):
    """Loss sum_p w_p L(y_p, A_p) and its gradients (gU, gV, gs) (None where the block is absent)."""
    A = scores(i, j, U, V, s, offset)
    value, deriv = loss_terms(name, y, A)
    r = w * deriv
    gs = gU = gV = None
    if s is not None:
        gs = np.zeros(n)
        np.add.at(gs, i, r)
        np.add.at(gs, j, -r)
    if U is not None:
        gU = np.zeros_like(U)
        gV = np.zeros_like(V)
        np.add.at(gU, i, r[:, None] * V[j])
        np.add.at(gU, j, -r[:, None] * V[i])
        np.add.at(gV, i, -r[:, None] * U[j])
        np.add.at(gV, j, r[:, None] * U[i])
    return float(np.sum(w * value)), gU, gV, gs


def bradley_terry(data):
    """Plain numpy Bradley-Terry (stationary Elo, Eq. (1)) over aggregated pairs: ``(fun, w)``, where
    ``fun(s)`` is (the mean log loss per game of the ratings s, its gradient) and ``w`` the pair weights
    normalised to sum 1. The reference of tests/test_newton.py and of bench/bench_peers.py's peers."""
    i, j, y = data.i, data.j, data.p
    w = data.pair_weights() / data.pair_weights().sum()
    n = data.n_players

    def fun(s):
        A = s[i] - s[j]
        r = w * (0.5 * (1.0 + np.tanh(0.5 * A)) - y)
        return float(np.sum(w * (np.logaddexp(0.0, A) - y * A))), np.bincount(i, r, n) - np.bincount(j, r, n)

    return fun, w
