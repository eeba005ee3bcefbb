"""The other models of the paper: regularised disc, cross-validation, m-Elo, the Schur decomposition."""

import contextlib

import numpy as np
import pytest
from scipy.special import expit

from discrank import (
    ConvergenceWarning,
    DisconnectedGraphWarning,
    DiscDecomposition,
    DiscDecompositionCV,
    Elo,
    MElo,
    PairwiseData,
    SchurDecomposition,
)
from discrank.analysis import normal_decomposition
from discrank.data.games import simulate_league
from discrank.data.games import disc_game, elo_game, sample_games


@contextlib.contextmanager
def _no_warning():
    yield


@pytest.fixture(scope="module")
def mixed_game():
    rng = np.random.default_rng(11)
    n = 24
    s, th = rng.normal(size=n), rng.uniform(0, 2 * np.pi, n)
    return expit(0.7 * (s[:, None] - s[None, :]) + 0.8 * np.sin(th[:, None] - th[None, :]))


class TestRegularization:
    def test_large_lambda_turns_the_disc_game_into_elo(self, mixed_game):
        data = PairwiseData.from_matrix(mixed_game)
        disc = DiscDecomposition(regularization=1e9, random_state=0, prior_scale=np.inf).fit(data)
        elo = Elo(prior_scale=np.inf).fit(data)
        np.testing.assert_allclose(disc.v_[:, 0] / disc.v_[:, 0].mean(), 1.0, atol=1e-5)
        np.testing.assert_allclose(disc.predict_proba(data), elo.predict_proba(data), atol=1e-5)

    def test_lambda_zero_is_the_unregularised_fit(self, mixed_game):
        data = PairwiseData.from_matrix(mixed_game)
        a = DiscDecomposition(regularization=0.0, random_state=0).fit(data)
        b = DiscDecomposition(random_state=0).fit(data)
        assert a.loss_ == b.loss_

    def test_regularised_objective_gradient_is_exact(self, mixed_game):
        from discrank.core import _core
        from discrank.models._disc_problem import Component

        data = PairwiseData.from_matrix(mixed_game)
        w = np.ones(data.n_pairs) / data.n_pairs
        obj = _core.PairObjective(data.n_players, data.i, data.j, data.p, w)
        rng = np.random.default_rng(0)
        problem = Component(obj, 0, data.n_players, w, None, np.zeros((data.n_players, 0)), 0.3, 0, reg_weight=2.0)
        x = rng.normal(size=2 * data.n_players)
        _, grad = problem.joint_objective(x)
        eps = 1e-6
        numeric = [(problem.joint_objective(x + eps * e)[0] - problem.joint_objective(x - eps * e)[0]) / (2 * eps)
                   for e in np.eye(x.size)]
        np.testing.assert_allclose(grad, numeric, rtol=1e-6, atol=1e-8)

    @pytest.mark.parametrize("bad", [-1.0, float("nan"), float("inf"), "big"])
    def test_bad_lambda_is_refused(self, mixed_game, bad):
        with pytest.raises(ValueError, match="regularization must be a finite number >= 0"):
            DiscDecomposition(regularization=bad).fit(PairwiseData.from_matrix(mixed_game))


@pytest.fixture(scope="module")
def league():
    a, b, score, _ = simulate_league(n_players=30, games_per_pair=6, cyclic_strength=1.0, seed=5)
    return PairwiseData.from_games(a, b, score)


class TestCrossValidation:

    def test_picks_the_candidate_with_the_best_mean_score_and_refits(self, league):
        cv = DiscDecompositionCV(regularizations=(0.0, 10.0, 1e4), n_components=(1, 2), cv=3, random_state=0, prior_scale=np.inf)
        cv.fit(league)
        res = cv.cv_results_
        assert len(res["params"]) == 6 and res["mean_test_score"].shape == (6,)
        best = int(np.argmin(res["mean_test_score"]))
        assert res["rank_test_score"][best] == 1 and cv.best_params_ == res["params"][best]
        for f in range(3):
            assert res[f"split{f}_test_score"].shape == (6,)
        np.testing.assert_allclose(res["mean_test_score"],
                                   np.mean([res[f"split{f}_test_score"] for f in range(3)], axis=0))
        refit = DiscDecomposition(**cv.best_params_, random_state=0, prior_scale=np.inf).fit(league)
        np.testing.assert_array_equal(cv.u_, refit.u_)
        np.testing.assert_array_equal(cv.predict_proba(league), refit.predict_proba(league))

    def test_scores_are_held_out_fold_errors(self, league):
        cv = DiscDecompositionCV(regularizations=(100.0,), cv=2, random_state=3, scoring="log_loss", prior_scale=np.inf).fit(league)
        fold = np.random.default_rng(3).permutation(league.n_pairs) % 2
        model = DiscDecomposition(regularization=100.0, random_state=3, prior_scale=np.inf).fit(league.subset(fold != 0))
        assert cv.cv_results_["split0_test_score"][0] == pytest.approx(model.log_loss(league.subset(fold == 0)))

    def test_held_out_pairs_across_pieces_of_the_training_graph_are_not_scored(self):
        # two leagues joined by a few pairs: some folds cut them apart, and then a held-out pair between
        # the leagues has no defined prediction
        rng = np.random.default_rng(4)
        P = np.full((16, 16), np.nan)
        for block in (range(0, 8), range(8, 16)):
            for x in block:
                for y in block:
                    if x < y:
                        P[x, y] = rng.uniform(0.2, 0.8)
        P[0, 8], P[1, 9] = 0.6, 0.4
        P = np.where(np.isnan(P), 1.0 - P.T, P)
        data = PairwiseData.from_matrix(P)
        cv = DiscDecompositionCV(regularizations=(100.0,), cv=3, random_state=1, prior_scale=np.inf).fit(data)
        fold = np.random.default_rng(1).permutation(data.n_pairs) % 3
        cut_folds = 0
        for f in range(3):
            train, test = data.subset(fold != f), data.subset(fold == f)
            n_pieces, piece = train.components()
            cut_folds += n_pieces > 1
            inside = test.subset(piece[test.i] == piece[test.j])
            with pytest.warns(DisconnectedGraphWarning) if n_pieces > 1 else _no_warning():
                model = DiscDecomposition(regularization=100.0, random_state=1, prior_scale=np.inf).fit(train)
            assert cv.cv_results_[f"split{f}_test_score"][0] == pytest.approx(model.mse(inside))
        assert cut_folds >= 1  # the case under test happens

    @pytest.mark.parametrize(
        "kwargs, message",
        [
            (dict(regularizations=(-1.0,)), "regularizations must be finite numbers >= 0, got -1.0"),
            (dict(regularizations=()), "at least one candidate"),
            (dict(cv=1), "cv must be >= 2 folds, got 1"),
            (dict(scoring="auc"), "scoring must be one of"),
            (dict(n_components=(1, 0)), "n_components must be an integer >= 1, got 0"),
            (dict(n_components=40), "n_components=40 needs at least 80 players"),
        ],
    )
    def test_bad_candidates_are_refused(self, league, kwargs, message):
        with pytest.raises(ValueError, match=message):
            DiscDecompositionCV(**kwargs).fit(league)


class TestMElo:
    def test_ratings_are_mean_scores_minus_one_half(self, mixed_game):
        data = PairwiseData.from_matrix(mixed_game)
        model = MElo(n_components=1, prior_scale=np.inf, random_state=0).fit(data)
        n = data.n_players
        P = mixed_game.copy()
        np.fill_diagonal(P, np.nan)
        np.testing.assert_allclose(model.ratings_, np.nanmean(P, axis=1) - 0.5, atol=1e-12)
        assert model.u_.shape == model.v_.shape == (n, 1)  # (2k + 1) n parameters with ratings_

    def test_ratings_with_a_prior_are_the_posterior_mean_scores(self, mixed_game):
        # N(1/2, s^2) on each mean score, a game's score of variance 1/4: 1 / (4 s^2) draws added
        data = PairwiseData.from_matrix(mixed_game)
        s = 0.25
        model = MElo(n_components=1, prior_scale=s, random_state=0).fit(data)
        P = mixed_game.copy()
        np.fill_diagonal(P, np.nan)
        n_opp = data.n_players - 1
        pseudo = 1.0 / (4.0 * s * s)
        expected = (np.nansum(P, axis=1) + 0.5 * pseudo) / (n_opp + pseudo) - 0.5
        np.testing.assert_allclose(model.ratings_, expected, atol=1e-12)
        assert np.all(np.abs(model.ratings_) < np.abs(np.nanmean(P, axis=1) - 0.5) + 1e-15)

    def test_prediction_is_rating_gap_plus_the_disc_part(self, mixed_game):
        data = PairwiseData.from_matrix(mixed_game)
        model = MElo(n_components=2, random_state=0).fit(data)
        u, v, r = model.u_, model.v_, model.ratings_
        A = r[:, None] - r[None, :] + u @ v.T - v @ u.T
        i, j = np.triu_indices(data.n_players, 1)
        np.testing.assert_allclose(model.predict_proba(i, j), np.clip(0.5 + A[i, j], 0, 1), atol=1e-12)

    def test_gradient_game_plus_one_disc_is_fitted_exactly(self):
        # P = 1/2 + (r_i - r_j) + a probability-space disc game: exactly m-Elo's model with k = 1
        rng = np.random.default_rng(2)
        n = 16
        r = rng.uniform(-0.15, 0.15, n)
        u, v = 0.3 * rng.normal(size=n), 0.3 * rng.normal(size=n)
        P = 0.5 + (r[:, None] - r[None, :]) + (np.outer(u, v) - np.outer(v, u)) * 0.3
        data = PairwiseData.from_matrix(P)
        model = MElo(n_components=2, random_state=0, prior_scale=np.inf).fit(data)
        assert model.mse(data) < 1e-12

    def test_melo_beats_elo_on_a_cyclic_game(self):
        P = disc_game(*np.stack([np.cos(np.arange(20)), np.sin(np.arange(20))]))
        train, test = PairwiseData.from_matrix(P).split(0.2, seed=0)
        assert MElo(random_state=0, prior_scale=np.inf).fit(train).mse(test) < 0.1 * Elo(prior_scale=np.inf).fit(train).mse(test)


class TestSchur:
    def test_logit_space_equals_the_normal_decomposition(self, mixed_game):
        data = PairwiseData.from_matrix(mixed_game)
        model = SchurDecomposition(n_components=2, space="logit").fit(data)
        U, V, lam = normal_decomposition(np.log(mixed_game) - np.log1p(-mixed_game), 2)
        np.testing.assert_allclose(model.lambdas_, lam, rtol=1e-12)
        A = U @ V.T - V @ U.T
        i, j = np.triu_indices(data.n_players, 1)
        np.testing.assert_allclose(model.predict_proba(i, j), expit(A[i, j]), atol=1e-12)

    def test_all_components_of_2p_minus_1_reproduce_p(self, mixed_game):
        data = PairwiseData.from_matrix(mixed_game)
        model = SchurDecomposition(n_components=data.n_players // 2, space="probability").fit(data)
        i, j = np.triu_indices(data.n_players, 1)
        np.testing.assert_allclose(model.predict_proba(i, j), mixed_game[i, j], atol=1e-12)

    def test_same_optimum_as_squared_logit_disc_on_a_complete_matrix(self, mixed_game):
        data = PairwiseData.from_matrix(mixed_game)
        schur = SchurDecomposition(n_components=1, space="logit").fit(data)
        disc = DiscDecomposition(n_components=1, loss="squared_logit", tol=1e-9, random_state=0, prior_scale=np.inf).fit(data)
        np.testing.assert_allclose(disc.predict_proba(data), schur.predict_proba(data), atol=1e-7)

    def test_elo_game_first_component_is_transitive(self):
        s = np.random.default_rng(1).normal(size=10)
        model = SchurDecomposition(space="logit").fit(PairwiseData.from_matrix(elo_game(s)))
        assert model.transitive_ and model.transitivity().main_transitive
        np.testing.assert_allclose(model.consistency_, 1.0, atol=1e-10)

    def test_refuses_missing_pairs(self, mixed_game):
        train, _ = PairwiseData.from_matrix(mixed_game).split(0.1, seed=0)
        with pytest.raises(ValueError, match=r"complete matrix; 28 of 276 pairs are missing, e\.g\. \("):
            SchurDecomposition().fit(train)

    def test_refuses_infinite_logits(self):
        P = elo_game(np.arange(4.0))
        P[0, 1], P[1, 0] = 1.0, 0.0
        with pytest.raises(ValueError, match=r"pair \(0, 1\) has P = 1.0, an infinite logit"):
            SchurDecomposition(space="logit").fit(PairwiseData.from_matrix(P))
        SchurDecomposition(space="probability").fit(PairwiseData.from_matrix(P))  # fine in probability space

    def test_bad_space_and_components(self, mixed_game):
        data = PairwiseData.from_matrix(mixed_game)
        with pytest.raises(ValueError, match="space must be one of"):
            SchurDecomposition(space="log").fit(data)
        with pytest.raises(ValueError, match="n_components=13 needs at least 26 players"):
            SchurDecomposition(n_components=13).fit(data)


def test_cv_warns_when_a_fold_fit_does_not_converge():
    a, b, s = sample_games(elo_game(np.linspace(-1, 1, 8)), np.array(np.triu_indices(8, 1)).T, 3, seed=0)
    data = PairwiseData.from_games(a, b, s)
    with pytest.warns(ConvergenceWarning):
        cv = DiscDecompositionCV(regularizations=(0.0,), cv=2, max_iter=1, random_state=0).fit(data)
    assert cv.cv_results_["n_unconverged"][0] == 2
