"""Properties on random valid data (hypothesis): what must hold for every input, not only the examples."""

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reference import LOSS_IDS, objective, random_pairs

from discrank import DiscDecomposition, Elo, PairwiseData
from discrank.core import _core

SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def game_logs(draw, max_players=8, max_games=60):
    n = draw(st.integers(2, max_players))
    games = draw(st.integers(1, max_games))
    a = draw(st.lists(st.integers(0, n - 1), min_size=games, max_size=games))
    shift = draw(st.lists(st.integers(1, n - 1), min_size=games, max_size=games))
    b = [(x + d) % n for x, d in zip(a, shift)]
    score = draw(st.lists(st.sampled_from([0.0, 0.5, 1.0]), min_size=games, max_size=games))
    return np.array(a), np.array(b), np.array(score)


def quiet_fit(model, data):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return model.fit(data)


@SETTINGS
@given(game_logs())
def test_fits_never_raise_and_predictions_are_probabilities(log):
    a, b, s = log
    data = PairwiseData.from_games(a, b, s)
    for model in (Elo(), DiscDecomposition(1, random_state=0, max_iter=300)):
        quiet_fit(model, data)
        labels = data.labels
        x, y = np.meshgrid(labels, labels, indexing="ij")
        p = model.predict_proba(x.ravel(), y.ravel())
        q = model.predict_proba(y.ravel(), x.ravel())
        assert np.all((p >= 0) & (p <= 1)) and np.all(np.isfinite(p))
        np.testing.assert_allclose(p + q, 1.0, rtol=0, atol=1e-12)


@SETTINGS
@given(game_logs(), st.randoms(use_true_random=False))
def test_relabelling_players_permutes_the_ratings(log, rnd):
    a, b, s = log
    base = quiet_fit(Elo(prior_scale=np.inf), PairwiseData.from_games(a, b, s))
    n = int(max(a.max(), b.max())) + 1
    perm = list(range(n))
    rnd.shuffle(perm)
    perm = np.array(perm)
    names = np.array([f"p{k:02d}" for k in range(n)])
    relabelled = quiet_fit(Elo(prior_scale=np.inf), PairwiseData.from_games(names[perm[a]], names[perm[b]], s))
    for k, label in enumerate(base.labels_):
        other = relabelled.ratings_[list(relabelled.labels_).index(names[perm[label]])]
        assert other == pytest.approx(base.ratings_[k], abs=1e-7)


@SETTINGS
@given(game_logs(), st.randoms(use_true_random=False))
def test_game_order_does_not_change_a_stationary_fit(log, rnd):
    a, b, s = log
    order = list(range(a.size))
    rnd.shuffle(order)
    first = quiet_fit(Elo(), PairwiseData.from_games(a, b, s)).ratings_
    second = quiet_fit(Elo(), PairwiseData.from_games(a[order], b[order], s[order])).ratings_
    np.testing.assert_allclose(second, first, rtol=0, atol=1e-9)


@SETTINGS
@given(game_logs())
def test_duplicating_every_game_keeps_a_uniform_weight_fit(log):
    a, b, s = log
    once = quiet_fit(Elo(), PairwiseData.from_games(a, b, s, weights="uniform")).ratings_
    twice = quiet_fit(Elo(), PairwiseData.from_games(np.r_[a, a], np.r_[b, b], np.r_[s, s], weights="uniform")).ratings_
    np.testing.assert_allclose(twice, once, rtol=0, atol=1e-9)


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 30), st.integers(1, 200), st.integers(0, 3), st.sampled_from(sorted(LOSS_IDS)),
       st.integers(0, 2**32 - 1), st.sampled_from(["scatter", "gather"]))
def test_core_equals_the_numpy_reference_on_random_shapes(n, m, k, loss, seed, strategy):
    rng = np.random.default_rng(seed)
    i, j = (x.astype(np.int32) for x in random_pairs(rng, n, m))
    y = rng.uniform(0.05, 0.95, i.size) if loss == "squared_logit" else rng.choice([0.0, 0.3, 0.5, 1.0], i.size)
    w = rng.uniform(0.1, 3.0, i.size)
    s = rng.normal(size=n)
    U = rng.normal(size=(n, k)) if k else None
    V = rng.normal(size=(n, k)) if k else None
    got = _core.PairObjective(n, i, j, y, w, strategy=strategy).evaluate(
        LOSS_IDS[loss], U=U, V=V, s=s, grad_u=k > 0, grad_v=k > 0, grad_s=True)
    ref = objective(loss, n, i, j, y, w, U, V, s)
    assert got[0] == pytest.approx(ref[0], rel=1e-12)
    for g, r in zip(got[1:], ref[1:]):
        if r is not None:
            np.testing.assert_allclose(g, r, rtol=1e-11, atol=1e-12 * max(1.0, np.abs(r).max()))
