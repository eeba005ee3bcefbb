"""The kernel over parts of a set of pairs (the parts of discrank.dask's fits): a part cut at leaves of the
reduction tree gives its blocks' losses and its tree nodes, and adding those as the kernel does gives the
whole set's loss, gradients and per-player sums bit for bit, for the scatter and the gather ways."""

import numpy as np
import pytest

from discrank.core import _core
from discrank.dask import leaf_first_pair, tree_cover, tree_sum

CUTS = [[0, 16], [0, 8, 16], [0, 5, 11, 16], [0, 3, 4, 9, 16], list(range(17))]


def _pairs(n, m, seed):
    rng = np.random.default_rng(seed)
    i = rng.integers(0, n, m).astype(np.int32)
    j = ((i + rng.integers(1, n, m)) % n).astype(np.int32)
    return i, j, rng.random(m), rng.random(m) + 0.5


def _parts(n, i, j, y, w, cuts):
    m = i.size
    out = []
    for lo, hi in zip(cuts[:-1], cuts[1:]):
        a, b = leaf_first_pair(m, lo), leaf_first_pair(m, hi)
        out.append((_core.PairObjective(n, i[a:b], j[a:b], y[a:b], w[a:b], part=(m, a, lo, hi)), a, b, lo, hi))
    return out


@pytest.mark.parametrize("n, m, strategy", [(300, 100_000, "scatter"), (5000, 30_000, "gather"),
                                            (40, 700, "scatter")])  # 700 pairs: one block, empty leaves
@pytest.mark.parametrize("cuts", CUTS)
def test_parts_add_up_to_the_whole_bit_for_bit(n, m, strategy, cuts):
    i, j, y, w = _pairs(n, m, n)
    rng = np.random.default_rng(1)
    k = 2
    U, V, s = rng.normal(size=(n, k)), rng.normal(size=(n, k)), rng.normal(size=n)
    whole = _core.PairObjective(n, i, j, y, w)
    assert whole.strategy == strategy and whole.nodes == [(0, 4)]
    curv = np.empty(m)
    ref = whole.evaluate(0, U=U, V=V, s=s, grad_u=True, grad_v=True, grad_s=True, curv=curv)
    parts = _parts(n, i, j, y, w, cuts)
    covers = [tree_cover(lo, hi) for *_, lo, hi in parts]
    outs = []
    for (p, a, b, lo, hi), cover in zip(parts, covers):
        assert p.nodes == cover and p.strategy == strategy  # the whole set's way, not the part's own
        c = np.empty(b - a)
        outs.append(p.evaluate(0, U=U, V=V, s=s, grad_u=True, grad_v=True, grad_s=True, curv=c))
        assert np.array_equal(c, curv[a:b])
    loss = _core.compensated_sum(np.concatenate([p.block_losses() for p, *_ in parts]))
    assert loss == ref[0]
    for q in (1, 2, 3):
        got = tree_sum(covers, [o[q] for o in outs])
        assert np.array_equal(got, ref[q]), q
    for name, args in (("player_sums", (curv,)), ("hessp_s", (curv, s)), ("opponent_sums", (curv, s))):
        got = tree_sum(covers, [getattr(p, name)(args[0][a:b], *args[1:]) for p, a, b, *_ in parts])
        assert np.array_equal(got, getattr(whole, name)(*args)), name
    sums = [p.score_sums() for p, *_ in parts]
    for q, ref_q in enumerate(whole.score_sums()):
        got = tree_sum(covers, [o[q] for o in sums])
        assert np.array_equal(got, ref_q)


def test_tree_cover_and_sum():
    assert tree_cover(0, 16) == [(0, 4)]
    assert tree_cover(3, 9) == [(3, 0), (4, 2), (8, 0)]
    assert tree_cover(5, 11) == [(5, 0), (6, 1), (8, 1), (10, 0)]
    # the pairwise order: ((l0 + l1) + (l2 + l3)) ..., not the left-to-right one
    leaves = [np.array([v]) for v in (1.0, 1e16, -1e16, 1.0)] + [np.zeros(1)] * 12
    covers = [[(c, 0)] for c in range(16)]
    assert tree_sum(covers, [[v] for v in leaves])[0] == (1.0 + 1e16) + (-1e16 + 1.0) == 0.0  # left to right: 1


def test_a_part_that_does_not_sit_at_its_leaves_is_refused():
    i, j, y, w = _pairs(50, 10_000, 0)
    a, b = leaf_first_pair(10_000, 4), leaf_first_pair(10_000, 8)
    with pytest.raises(ValueError, match=r"holds the pairs \[2048, 4096\), got 2047 pairs from 2049"):
        _core.PairObjective(50, i[a + 1:b], j[a + 1:b], y[a + 1:b], w[a + 1:b], part=(10_000, a + 1, 4, 8))
    with pytest.raises(ValueError, match=r"0 <= leaf_lo < leaf_hi <= 16"):
        _core.PairObjective(50, i[a:b], j[a:b], y[a:b], w[a:b], part=(10_000, a, 8, 4))
