"""The disc game's row kernel of the whole-history problem (``_core.DiscRows``, cpp/include/discrank/disc_rows.hpp)
against numpy, and the block that uses it (``discrank._history_rows.Extra``)."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from discrank import _core
from discrank._history_rows import Extra


def _rows(k: int, n: int = 40, m: int = 3000, seed: int = 0):
    """(nodes, size, w, lo, hi): m rows between random distinct players of n (each its own player-period), k
    components, a block with two context effects per player in front (so that the disc's nodes start past 0)."""
    rng = np.random.default_rng(seed)
    lo = rng.integers(0, n, m)
    hi = (lo + rng.integers(1, n, m)) % n
    off = 2 * n
    nodes = np.stack([np.stack([off + j * n + lo, off + (k + j) * n + lo, off + j * n + hi, off + (k + j) * n + hi])
                      for j in range(k)]).astype(np.int32) if k else np.empty((0, 4, m), np.int32)
    size = off + 2 * k * n
    return nodes, size, rng.standard_normal(size), lo.astype(np.int32), hi.astype(np.int32)


def _kernel(nodes, size, lo, hi):
    return _core.DiscRows(nodes, size, lo, hi, int(max(lo.max(), hi.max())) + 1)


def _jv(kern, w, v, n_pp, threads=0):
    """Each row's derivative at ``w`` along ``v`` (J v): the product's ``delta`` along ``(0, v)``, with no shift."""
    m = kern.term(w).size
    return kern.product(w, np.ones(m), np.zeros(m), np.zeros(n_pp), v, keep_delta=True, n_threads=threads)[3]


def _reference(nodes, w, v, c, f, size):
    """(terms, J v, J^T c + sum f d'' v) in numpy, component by component."""
    term, jv, out = 0.0, 0.0, np.zeros(size)
    for ul, vl, uh, vh in nodes:
        term = term + w[ul] * w[vh] - w[vl] * w[uh]
        jv = jv + w[vh] * v[ul] - w[uh] * v[vl] - w[vl] * v[uh] + w[ul] * v[vh]
        for node, coef, partner in ((ul, w[vh], vh), (vl, -w[uh], uh), (uh, -w[vl], vl), (vh, w[ul], ul)):
            sign = 1.0 if node is ul or node is vh else -1.0
            out += np.bincount(node, c * coef + sign * f * v[partner], size)
    return term, jv, out


@pytest.mark.parametrize("k", [1, 3])
def test_kernels_match_numpy(k):
    nodes, size, w, lo, hi = _rows(k)
    rng = np.random.default_rng(1)
    v, c, f = rng.standard_normal(size), rng.standard_normal(nodes.shape[2]), rng.standard_normal(nodes.shape[2])
    term, jv, jtc = _reference(nodes, w, v, c, f, size)
    kern = _kernel(nodes, size, lo, hi)
    np.testing.assert_allclose(kern.term(w), term, rtol=0, atol=1e-12)
    np.testing.assert_allclose(_jv(kern, w, v, int(max(lo.max(), hi.max())) + 1), jv, rtol=0, atol=1e-12)
    out = np.ones(size)
    kern.net(w, c, out, f, v)
    np.testing.assert_allclose(out, 1.0 + jtc, rtol=0, atol=1e-10)
    first = np.ones(size)
    kern.net(w, c, first)  # without f and v: J^T c alone
    np.testing.assert_allclose(first, 1.0 + _reference(nodes, w, v, c, 0.0 * f, size)[2], rtol=0, atol=1e-10)


def test_products_are_the_derivatives_of_the_terms():
    """J v is the directional derivative of the terms, and J^T c + f d'' v the derivative of J^T c along v when f = c
    (the bilinear terms' second derivative is exact): central differences, within 1e-7."""
    nodes, size, w, lo, hi = _rows(2)
    kern = _kernel(nodes, size, lo, hi)
    rng = np.random.default_rng(2)
    v, c = rng.standard_normal(size), rng.standard_normal(nodes.shape[2])
    h = 1e-6
    np.testing.assert_allclose(_jv(kern, w, v, int(max(lo.max(), hi.max())) + 1),
                               (kern.term(w + h * v) - kern.term(w - h * v)) / (2 * h), atol=1e-7)

    def jtc(x):
        out = np.zeros(size)
        kern.net(x, c, out)
        return out

    second = np.zeros(size)
    kern.net(w, np.zeros_like(c), second, c, v)
    np.testing.assert_allclose(second, (jtc(w + h * v) - jtc(w - h * v)) / (2 * h), atol=1e-7)


@pytest.mark.parametrize("threads", [1, 2, 3, 8])
def test_kernels_are_bitwise_the_same_for_any_thread_count(threads):
    nodes, size, w, lo, hi = _rows(2, n=300, m=50_000, seed=3)
    kern = _kernel(nodes, size, lo, hi)
    rng = np.random.default_rng(4)
    v, c, f = rng.standard_normal(size), rng.standard_normal(lo.size), rng.standard_normal(lo.size)
    vr = rng.standard_normal(int(max(lo.max(), hi.max())) + 1)
    np.testing.assert_array_equal(kern.term(w, threads), kern.term(w, 1))
    outs = [np.ones(size), np.ones(size)]
    kern.net(w, c, outs[0], f, v, n_threads=1)
    kern.net(w, c, outs[1], f, v, n_threads=threads)
    np.testing.assert_array_equal(outs[0], outs[1])
    one = kern.product(w, c, f, vr, v, None, f, True, n_threads=1)
    for a, b in zip(one, kern.product(w, c, f, vr, v, None, f, True, n_threads=threads)):
        np.testing.assert_array_equal(a, b)


def test_kernel_checks_its_nodes_and_shapes():
    nodes, size, w, lo, hi = _rows(1, n=5, m=10)
    with pytest.raises(ValueError, match=rf"node {size} at flat position \d+ is outside the block \[0, {size}\)"):
        bad = nodes.copy()
        bad[0, 3, 7] = size
        _core.DiscRows(bad, size, lo, hi, 5)
    with pytest.raises(ValueError, match=r"node -1 at flat position 2 is outside"):
        bad = nodes.copy()
        bad[0, 0, 2] = -1
        _core.DiscRows(bad, size, lo, hi, 5)
    with pytest.raises(ValueError, match=r"nodes must have shape \(k, 4, m\), got \(1, 3, 10\)"):
        _core.DiscRows(nodes[:, :3], size, lo, hi, 5)
    with pytest.raises(TypeError):
        _core.DiscRows(nodes.astype(np.int64), size, lo, hi, 5)
    with pytest.raises(ValueError, match=r"player index \(\d, 5\) of row 4 is outside \[0, 5\)"):
        bad = hi.copy()
        bad[4] = 5
        _core.DiscRows(nodes, size, lo, bad, 5)
    with pytest.raises(ValueError, match=r"hi must have shape \(10,\), got \(9,\)"):
        _core.DiscRows(nodes, size, lo, hi[:9], 5)
    kern = _core.DiscRows(nodes, size, lo, hi, 5)
    with pytest.raises(ValueError, match=rf"w must have shape \({size},\), got \(3,\)"):
        kern.term(np.zeros(3))
    with pytest.raises(ValueError, match=r"c must have shape \(10,\), got \(9,\)"):
        kern.net(w, np.zeros(9), np.zeros(size))
    with pytest.raises(ValueError, match="f and v must be given together"):
        kern.net(w, np.zeros(10), np.zeros(size), np.zeros(10))
    with pytest.raises(ValueError, match="w and f_d are needed with disc components"):
        kern.product(None, np.zeros(10), None, np.zeros(5), np.zeros(size))
    with pytest.raises(ValueError, match=r"vr must have shape \(5,\), got \(4,\)"):
        kern.product(w, np.zeros(10), np.zeros(10), np.zeros(4), np.zeros(size))


@pytest.mark.parametrize("k", [0, 1, 2])
@pytest.mark.parametrize("extras", [False, True])
def test_product_is_the_rows_hessian_product(k, extras):
    """The games' product in one pass: each row's derivative d = vr_lo - vr_hi + J ve (+ shift), weighed, f_dd d
    (+ add), summed into the ratings (+ at lo, - at hi) and the block (J^T, with the second-order part)."""
    nodes, size, w, lo, hi = _rows(k, seed=6)
    m, n_pp = lo.size, int(max(lo.max(), hi.max())) + 1
    kern = _core.DiscRows(nodes, size, lo, hi, n_pp)
    rng = np.random.default_rng(7)
    f_dd, f_d, vr, ve = rng.random(m), rng.standard_normal(m), rng.standard_normal(n_pp), rng.standard_normal(size)
    shift, add = (rng.standard_normal(m), rng.standard_normal(m)) if extras else (None, None)
    out, out_e, along, delta = kern.product(w if k else None, f_dd, f_d if k else None, vr, ve, shift, add, True)
    jv = _reference(nodes, w, ve, np.zeros(m), np.zeros(m), size)[1] if k else 0.0
    d = vr[lo] - vr[hi] + jv + (shift if extras else 0.0)
    a = f_dd * d + (add if extras else 0.0)
    np.testing.assert_allclose(delta, d, rtol=0, atol=1e-12)
    np.testing.assert_allclose(along, a, rtol=0, atol=1e-12)
    np.testing.assert_allclose(out, np.bincount(lo, a, n_pp) - np.bincount(hi, a, n_pp), rtol=0, atol=1e-10)
    expect = np.zeros(size)
    if k:
        kern.net(w, a, expect, f_d, ve)
    np.testing.assert_allclose(out_e, expect, rtol=0, atol=1e-10)
    assert kern.product(w if k else None, f_dd, f_d if k else None, vr, ve)[3] is None


def test_the_block_survives_a_trip_to_a_worker():
    """A Dask part pickles the block to its worker: the kernel is rebuilt there, with the same results."""
    n, k = 30, 2
    rng = np.random.default_rng(5)
    lo = rng.integers(0, n, 500)
    hi = (lo + 1 + rng.integers(0, n - 1, 500)) % n
    block = Extra(0, None, None, k, n, lo, hi, lo, hi, n)
    copy = pickle.loads(pickle.dumps(block))
    w, v = rng.standard_normal(block.size), rng.standard_normal(block.size)
    term, slots, point = block.linearize(w)
    term2, slots2, point2 = copy.linearize(w)
    np.testing.assert_array_equal(term, term2)
    np.testing.assert_array_equal(_jv(block.kernel, point, v, n), _jv(copy.kernel, point2, v, n))
    np.testing.assert_array_equal(block.net(slots, term, point), copy.net(slots2, term, point2))
    f_dd = rng.random(500)
    np.testing.assert_array_equal(block.diagonal(slots, f_dd, point), copy.diagonal(slots2, f_dd, point2))
    # the diagonal is that of J^T diag(f_dd) J: J's columns from unit vectors
    J = np.stack([_jv(block.kernel, point, e, n) for e in np.eye(block.size)], axis=1)
    np.testing.assert_allclose(block.diagonal(slots, f_dd, point), np.einsum("ri,r,ri->i", J, f_dd, J), atol=1e-12)


def test_a_block_too_large_for_the_kernel_is_named():
    one = np.zeros(1, np.int64)
    with pytest.raises(ValueError, match=r"has 2147483648 entries; the core's row kernel takes at most 2\^31 - 1"):
        Extra(2 ** 31, one, one, 0, 10, one, one + 1, one, one + 1, 2)
