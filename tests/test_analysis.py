"""Propositions 1 and 2, Theorems 2 and 3, the transitivity summary and Nash clustering."""

import numpy as np
import pytest
from scipy.special import expit, logit

from discrank import DiscDecomposition, PairwiseData
from discrank.analysis import (
    disc_verdict,
    is_transitive,
    nash_clustering,
    normal_decomposition,
    reparametrize,
    transitivity_summary,
)
from discrank.data.games import disc_game, elo_game

EXACT = 1e-12


def cross(u, v):
    return u[:, None] * v[None, :] - v[:, None] * u[None, :]


def circle(n, radius=1.0):
    theta = 2 * np.pi * np.arange(n) / n
    return radius * np.cos(theta), radius * np.sin(theta)


class TestProposition1:
    def test_elo_game_points_are_transitive(self):
        s = np.random.default_rng(0).normal(size=20)
        assert is_transitive(s, np.ones(20))  # Elo game = disc game with v = 1

    def test_points_around_the_origin_are_cyclic(self):
        u, v = circle(7)
        verdict = disc_verdict(u, v)
        assert not verdict.transitive and verdict.case == "interior"
        assert verdict.margin == pytest.approx(np.cos(np.pi / 7), rel=1e-12)  # distance to the nearest edge

    def test_verdict_agrees_with_definition_2_2_on_random_games(self):
        # fully cyclic iff some 3-cycle exists (Definition 2.2 and the lemma of Prop. 1's proof)
        rng = np.random.default_rng(1)
        for _ in range(200):
            u, v = rng.normal(size=6) + rng.normal() * 2, rng.normal(size=6) + rng.normal() * 2
            beats = cross(u, v) > 0
            has_cycle = bool(np.any(np.einsum("ij,jk,ki->i", beats, beats, beats)))
            assert is_transitive(u, v) == (not has_cycle)

    def test_fewer_than_three_players_are_transitive(self):
        assert disc_verdict([1.0, -1.0], [0.5, -2.0]).case == "fewer than 3 players"
        assert is_transitive([1.0, -1.0], [0.5, -2.0])

    def test_points_on_a_line_through_the_origin_are_all_ties(self):
        verdict = disc_verdict([1.0, 2.0, -3.0], [2.0, 4.0, -6.0])
        assert verdict.transitive and verdict.case == "line" and verdict.margin == pytest.approx(0.0, abs=EXACT)

    def test_points_on_a_line_off_the_origin(self):
        verdict = disc_verdict([-1.0, 0.0, 2.0], [1.0, 1.0, 1.0])
        assert verdict.transitive and verdict.case == "line" and verdict.margin < 0

    def test_origin_on_the_border_is_transitive(self):
        verdict = disc_verdict([1.0, -1.0, 0.0], [0.0, 0.0, 1.0])
        assert verdict.transitive and verdict.case == "border"

    def test_non_finite_points_are_refused(self):
        with pytest.raises(ValueError, match=r"\(u, v\)\[1\] = \(nan, 1.0\) is not finite"):
            is_transitive([1.0, np.nan, 2.0], [1.0, 1.0, 1.0])
        with pytest.raises(ValueError, match="same length"):
            is_transitive([1.0, 2.0], [1.0])


class TestProposition2:
    def test_reparametrisation_keeps_every_prediction(self):
        rng = np.random.default_rng(2)
        angle = rng.uniform(0.2, 2.5, 30)  # an arc narrower than pi: transitive
        r = rng.uniform(0.5, 2.0, 30)
        u, v = r * np.cos(angle + 1.0), r * np.sin(angle + 1.0)
        rep = reparametrize(u, v)
        assert np.all(rep.consistency > 0)
        np.testing.assert_allclose(cross(rep.u, rep.v), cross(u, v), atol=EXACT, rtol=0)
        assert np.linalg.det(rep.matrix) == pytest.approx(1.0, abs=EXACT)
        # the paper's form: u_i v_j - v_i u_j = c_i c_j (s_i - s_j)
        c, s = rep.consistency, rep.strength
        np.testing.assert_allclose(c[:, None] * c[None, :] * (s[:, None] - s[None, :]), cross(u, v), atol=1e-11)

    def test_elo_game_gets_consistency_one_and_its_ratings_as_strength(self):
        s = np.random.default_rng(3).normal(size=15)
        M = np.array([[2.0, 1.0], [-0.5, 0.25]])  # any det-1 disguise of the points (s_i, 1)
        M /= np.sqrt(np.linalg.det(M))
        pts = np.stack([s, np.ones(15)], 1) @ M.T
        rep = reparametrize(pts[:, 0], pts[:, 1])
        np.testing.assert_allclose(rep.consistency, 1.0, atol=1e-10)
        np.testing.assert_allclose(rep.strength, s - s.mean(), atol=1e-10)

    def test_cyclic_game_has_no_strength(self):
        with pytest.raises(ValueError, match="cyclic"):
            reparametrize(*circle(5))

    def test_ties_have_no_strength(self):
        with pytest.raises(ValueError, match="tie"):
            reparametrize([1.0, 2.0, -1.0], [1.0, 2.0, -1.0])

    def test_fitted_model_exposes_strength_when_transitive(self):
        s = np.random.default_rng(4).normal(size=25)
        model = DiscDecomposition(random_state=0, prior_scale=np.inf).fit(PairwiseData.from_matrix(elo_game(s)))
        assert model.transitive_
        np.testing.assert_allclose(model.consistency_, 1.0, atol=1e-4)
        np.testing.assert_allclose(model.strength_, s - s.mean(), atol=1e-4)
        assert model.ranking_.tolist() == np.argsort(-s).tolist()
        rep = reparametrize(model.u_[:, 0], model.v_[:, 0])
        np.testing.assert_allclose(expit(cross(rep.u, rep.v)), expit(cross(model.u_[:, 0], model.v_[:, 0])),
                                   atol=EXACT, rtol=0)

    def test_fitted_model_exposes_angles_when_cyclic(self):
        u, v = circle(12, radius=1.5)
        model = DiscDecomposition(random_state=0, prior_scale=np.inf).fit(PairwiseData.from_matrix(disc_game(u, v)))
        assert not model.transitive_ and model.strength_ is None and model.ranking_ is None
        np.testing.assert_allclose(model.radius_, 1.5, rtol=1e-4)
        steps = np.diff(np.unwrap(model.angle_))
        np.testing.assert_allclose(np.abs(steps), 2 * np.pi / 12, rtol=1e-4)


def random_skew(n, seed):
    G = np.random.default_rng(seed).normal(size=(n, n))
    return G - G.T


class TestTheorems2And3:
    @pytest.mark.parametrize("n", [6, 7, 20])
    def test_normal_decomposition_reconstructs_with_orthogonal_components(self, n):
        A = random_skew(n, n)
        U, V, lam = normal_decomposition(A)
        np.testing.assert_allclose(U @ V.T - V @ U.T, A, atol=1e-12 * np.abs(A).max() * n)
        W = np.hstack([U, V])
        gram = W.T @ W
        np.testing.assert_allclose(gram, np.diag(np.diag(gram)), atol=1e-12 * n)
        assert np.all(np.diff(lam) <= 0)
        np.testing.assert_allclose(np.linalg.norm(U, axis=0) * np.linalg.norm(V, axis=0), lam, rtol=1e-12)

    def test_at_most_one_transitive_component(self):
        for seed in range(50):
            n = 8 + seed % 5
            A = random_skew(n, 100 + seed) + 3 * cross(np.random.default_rng(seed).normal(size=n), np.ones(n))
            U, V, _ = normal_decomposition(A)
            assert transitivity_summary(U, V).transitive.sum() <= 1

    def test_summary_shares_are_theorem_2_lambdas(self):
        A = random_skew(9, 5)
        U, V, lam = normal_decomposition(A)
        summary = transitivity_summary(U, V)
        np.testing.assert_allclose(summary.share, lam**2 / np.sum(lam**2), rtol=1e-12)
        assert summary.share.sum() == pytest.approx(1.0, abs=EXACT)

    def test_elo_game_main_component_is_transitive(self):
        s = np.random.default_rng(6).normal(size=12)
        U, V, _ = normal_decomposition(logit(elo_game(s)))
        summary = transitivity_summary(U, V)
        assert summary.main_transitive and summary.share[0] == pytest.approx(1.0, abs=1e-12)

    def test_refuses_a_matrix_that_is_not_skew_symmetric(self):
        with pytest.raises(ValueError, match="skew-symmetric"):
            normal_decomposition(np.ones((3, 3)))


class TestNashClustering:
    def test_elo_game_has_one_player_per_cluster_strongest_first(self):
        s = np.random.default_rng(7).normal(size=10)
        clusters = nash_clustering(elo_game(s))
        assert [c.tolist() for c in clusters] == [[k] for k in np.argsort(-s)]

    def test_rock_paper_scissors_is_one_cluster(self):
        rps = np.array([[0.5, 0.0, 1.0], [1.0, 0.5, 0.0], [0.0, 1.0, 0.5]])
        clusters = nash_clustering(rps)
        assert len(clusters) == 1 and sorted(clusters[0].tolist()) == [0, 1, 2]

    def test_a_cycle_above_a_weaker_player(self):
        P = np.full((4, 4), 0.5)
        P[:3, :3] = [[0.5, 0.2, 0.8], [0.8, 0.5, 0.2], [0.2, 0.8, 0.5]]
        P[:3, 3], P[3, :3] = 0.9, 0.1
        assert [sorted(c.tolist()) for c in nash_clustering(P)] == [[0, 1, 2], [3]]

    def test_needs_a_complete_consistent_matrix(self):
        P = elo_game(np.arange(3.0))
        P[0, 1] = np.nan
        with pytest.raises(ValueError, match="complete matrix"):
            nash_clustering(P)
        with pytest.raises(ValueError, match=r"P_ij \+ P_ji = 1"):
            nash_clustering(np.full((3, 3), 0.7))
