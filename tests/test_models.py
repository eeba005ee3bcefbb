"""Elo, Elo++ and the disc decomposition: what the paper says they do, and their contract."""

import warnings

import numpy as np
import pytest
import scipy.linalg
import scipy.optimize
from scipy.special import expit
from reference import random_pairs

from discrank import (
    ConvergenceWarning,
    DiscDecomposition,
    DisconnectedGraphWarning,
    Elo,
    EloPlusPlus,
    IsolatedPlayerWarning,
    MElo,
    PairwiseData,
)
from discrank.exceptions import NotFittedError
from discrank.data.games import disc_game, elo_game, example3, sample_games
from discrank.models._disc_problem import Component, unit_columns

EXACT_GAME_MSE = 1e-10  # Elo on an Elo game (issue 3)
DISC_GAME_MSE = 1e-6  # disc k=1 on a disc game (issue 3)
THEOREM2_REL = 1e-6  # objective of the truncated normal decomposition
ORTHO_TOL = 1e-6  # |cosine| between components
PROB_TOL = 1e-6  # Example 3's P(1 beats 2)
THREAD_TOL = 1e-10  # same seed, different thread counts


@pytest.fixture(scope="module")
def elo_data():
    rng = np.random.default_rng(0)
    return PairwiseData.from_matrix(elo_game(rng.normal(0, 1, 50))).split(0.2, seed=0)


@pytest.fixture(scope="module")
def disc_data():
    rng = np.random.default_rng(1)
    theta = rng.uniform(0, 2 * np.pi, 50)
    radius = rng.uniform(0.5, 2.0, 50)
    return PairwiseData.from_matrix(disc_game(radius * np.cos(theta), radius * np.sin(theta))).split(0.2, seed=0)


@pytest.mark.parametrize("model", [Elo(prior_scale=np.inf), EloPlusPlus(prior_scale=np.inf), DiscDecomposition(random_state=0, prior_scale=np.inf)])
def test_elo_game_is_predicted_exactly_on_hidden_pairs(elo_data, model):
    train, test = elo_data
    model.fit(train)
    assert model.converged_
    assert model.mse(test) < EXACT_GAME_MSE


def test_disc_game_is_predicted_by_one_disc_component(disc_data):
    train, test = disc_data
    model = DiscDecomposition(n_components=1, random_state=0, prior_scale=np.inf).fit(train)
    assert model.converged_
    assert model.mse(test) < DISC_GAME_MSE
    # ... where Elo cannot: a cyclic game has no ranking
    assert Elo(prior_scale=np.inf).fit(train).mse(test) > 1e-2


def _exact_elo(P):
    """Stationary Elo, Eq. (1), by an independent dense fit (all ordered pairs, scipy BFGS)."""
    n = P.shape[0]
    off = ~np.eye(n, dtype=bool)

    def f(s):
        A = s[:, None] - s[None, :]
        value = (P * np.logaddexp(0, -A) + (1 - P) * np.logaddexp(0, A))[off].sum()
        R = (expit(A) - P) * off
        return value, R.sum(1) - R.sum(0)

    return scipy.optimize.minimize(f, np.zeros(n), jac=True, method="BFGS", options={"gtol": 1e-12}).x


def test_example3_elo_ranks_player_2_first_but_disc_predicts_player_1_wins():
    # Figures 2 and 4 at gamma = 0.55, delta = 0.95: a transitive 3-player game that Elo misranks.
    P = example3(0.55, 0.95)
    data = PairwiseData.from_matrix(P)
    elo = Elo(tol=1e-9, prior_scale=np.inf).fit(data)
    exact = _exact_elo(P)
    gap = elo.ratings_[0] - elo.ratings_[1]
    assert gap == pytest.approx(exact[0] - exact[1], abs=1e-7)
    assert gap == pytest.approx(-0.44, abs=0.005)
    # (tol 1e-8: at 1e-9, scipy 1.13's L-BFGS-B line search stalls at a scaled gradient of 1.3e-9)
    disc = DiscDecomposition(n_components=1, tol=1e-8, random_state=0, prior_scale=np.inf).fit(data)
    # three players: logit(P) is one disc game, so the fit is exact
    np.testing.assert_allclose(disc.predict_proba([0, 0, 1], [1, 2, 2]), [0.55, 0.55, 0.95], atol=PROB_TOL)


def _normal_decomposition_loss(A, k, n_pairs):
    """Mean squared logit error over pairs of the truncated real Schur (normal) decomposition, Theorem 2."""
    T, _ = scipy.linalg.schur(A, output="real")
    lam = np.sort(np.abs(np.diag(T, 1)[::2]))[::-1]  # the 2x2 blocks' off-diagonal entries
    # ||A - A_k||_F^2 = 2 sum_{l > k} lam_l^2 over ordered pairs, half of it over unordered ones
    return np.sum(lam[k:] ** 2) / n_pairs


@pytest.mark.parametrize("k", [1, 2, 3])
def test_squared_logit_disc_reaches_the_truncated_normal_decomposition(k):
    rng = np.random.default_rng(1)
    n = 40
    G = rng.normal(size=(n, n))
    A = (G - G.T) / 2
    data = PairwiseData.from_matrix(expit(A))
    model = DiscDecomposition(n_components=k, loss="squared_logit", tol=1e-8, random_state=0, prior_scale=np.inf).fit(data)
    assert model.converged_
    assert model.loss_ == pytest.approx(_normal_decomposition_loss(A, k, data.n_pairs), rel=THEOREM2_REL)
    W = np.hstack([model.u_, model.v_])
    W /= np.linalg.norm(W, axis=0)
    gram = W.T @ W - np.eye(2 * k)
    assert np.abs(gram).max() < ORTHO_TOL


def test_same_seed_gives_the_same_fit_on_one_or_two_threads(disc_data):
    train, _ = disc_data
    one = DiscDecomposition(n_components=2, random_state=5, n_jobs=1).fit(train)
    two = DiscDecomposition(n_components=2, random_state=5, n_jobs=2).fit(train)
    assert np.abs(one.u_ - two.u_).max() <= THREAD_TOL
    assert np.abs(one.v_ - two.v_).max() <= THREAD_TOL


def test_the_seed_only_moves_the_start(disc_data):
    train, test = disc_data
    a = DiscDecomposition(random_state=1, prior_scale=np.inf).fit(train)
    b = DiscDecomposition(random_state=2, prior_scale=np.inf).fit(train)
    assert not np.array_equal(a.u_, b.u_)
    np.testing.assert_allclose(a.predict_proba(test), b.predict_proba(test), atol=1e-5)


def test_alternating_and_joint_solvers_reach_the_same_objective():
    rng = np.random.default_rng(3)
    n = 30
    skill = rng.normal(size=n)
    th = rng.uniform(0, 2 * np.pi, n)
    P = expit(skill[:, None] - skill[None, :] + np.sin(th[:, None] - th[None, :]))
    pairs = np.array(np.triu_indices(n, 1)).T
    a, b, s = sample_games(P, pairs, 30, seed=4)
    data = PairwiseData.from_games(a, b, s)
    joint = DiscDecomposition(tol=1e-7, random_state=0, prior_scale=np.inf).fit(data)
    alternating = DiscDecomposition(tol=1e-7, random_state=0, solver="alternating", prior_scale=np.inf).fit(data)
    assert joint.converged_ and alternating.converged_
    assert joint.loss_ == pytest.approx(alternating.loss_, rel=1e-9)
    np.testing.assert_allclose(joint.predict_proba(data), alternating.predict_proba(data), atol=1e-5)


@pytest.mark.parametrize("n_previous", [0, 1, 2])
def test_algorithm1_penalised_objectives_have_exact_gradients(n_previous):
    rng = np.random.default_rng(n_previous)
    n = 9
    P = expit(rng.normal(size=(n, n)))
    P = np.triu(P, 1) + np.tril(1 - P.T, -1)
    data = PairwiseData.from_matrix(P)
    train, _ = data.split(0.3, seed=0)
    from discrank.core import _core
    w = np.ones(train.n_pairs) / train.n_pairs
    obj = _core.PairObjective(n, train.i, train.j, train.p, w)
    Q = unit_columns([rng.normal(size=n) for _ in range(2 * n_previous)]) if n_previous else np.zeros((n, 0))
    problem = Component(obj, 0, train.n_players, w, rng.normal(size=train.n_pairs), Q, 0.7, 0)
    u, v = rng.normal(size=n), rng.normal(size=n)
    eps = 1e-6
    checks = [
        (lambda x: problem.u_step_objective(x, v), u),
        (lambda x: problem.v_step_objective(u, x), v),
        (problem.joint_objective, np.concatenate([u, v])),
    ]
    for fun, x0 in checks:
        _, grad = fun(x0)
        numeric = np.array([(fun(x0 + eps * e)[0] - fun(x0 - eps * e)[0]) / (2 * eps) for e in np.eye(x0.size)])
        np.testing.assert_allclose(grad, numeric, rtol=1e-6, atol=1e-8)


def test_probability_space_disc_predicts_within_zero_and_one(disc_data):
    train, test = disc_data
    model = DiscDecomposition(loss="probability", random_state=0, prior_scale=np.inf).fit(train)
    p = model.predict_proba(test)
    assert p.min() >= 0.0 and p.max() <= 1.0
    assert model.mse(test) < Elo(prior_scale=np.inf).fit(train).mse(test)


def test_disc_beats_elo_on_hidden_games_of_a_cyclic_league():
    from discrank.data.games import simulate_league

    a, b, score, _ = simulate_league(n_players=40, games_per_pair=20, seed=3)
    train, test = PairwiseData.from_games(a, b, score).split(0.2, seed=3)
    elo = Elo().fit(train)
    disc = DiscDecomposition(n_components=2, random_state=0).fit(train)
    assert disc.log_loss(test) < elo.log_loss(test) - 0.02


@pytest.fixture(scope="module")
def fitted():
    data = PairwiseData.from_games(["ann", "bob", "cid", "ann"], ["bob", "cid", "ann", "cid"], [1, 1, 0, 0.5])
    return Elo().fit(data), DiscDecomposition(random_state=0).fit(data)


class TestPrediction:

    def test_predictions_by_label_are_complementary(self, fitted):
        for model in fitted:
            p = model.predict_proba(["ann", "bob"], ["bob", "cid"])
            q = model.predict_proba(["bob", "cid"], ["ann", "bob"])
            np.testing.assert_allclose(p + q, 1.0, atol=1e-12)
            assert isinstance(model.predict_proba("ann", "bob"), float)

    def test_elo_prediction_is_the_sigmoid_of_the_rating_gap(self, fitted):
        elo = fitted[0]
        ia, ib = 0, 2
        assert elo.predict_proba("ann", "cid") == pytest.approx(expit(elo.ratings_[ia] - elo.ratings_[ib]), abs=1e-15)

    def test_unknown_label_is_named(self, fitted):
        with pytest.raises(ValueError, match="unknown player label.*'dan'"):
            fitted[0].predict_proba(["ann"], ["dan"])

    def test_mismatched_lengths_are_refused(self, fitted):
        with pytest.raises(ValueError, match="inconsistent lengths: a has 2, b has 1"):
            fitted[1].predict_proba(["ann", "bob"], ["cid"])

    def test_prediction_on_data_with_other_player_order(self, fitted):
        elo = fitted[0]
        other = PairwiseData.from_pairs(["cid"], ["ann"], [0.5], labels=["cid", "bob", "ann"])
        assert elo.predict_proba(other)[0] == pytest.approx(elo.predict_proba("cid", "ann"))

    def test_predict_before_fit_is_an_error(self):
        with pytest.raises(NotFittedError, match="not fitted yet"):
            Elo().predict_proba([0], [1])


def test_elo_ratings_have_mean_zero_in_each_piece():
    data = PairwiseData.from_pairs([0, 1, 3, 4], [1, 2, 4, 5], [0.8, 0.6, 0.3, 0.9])
    with pytest.warns(DisconnectedGraphWarning, match="2 pieces"):
        elo = Elo(prior_scale=np.inf).fit(data)
    assert elo.ratings_[:3].sum() == pytest.approx(0, abs=1e-12)
    assert elo.ratings_[3:].sum() == pytest.approx(0, abs=1e-12)


def test_isolated_player_is_warned_about_and_keeps_neutral_rating():
    data = PairwiseData.from_pairs(["a", "b"], ["b", "c"], [0.7, 0.6], labels=["a", "b", "c", "d"])
    with pytest.warns(IsolatedPlayerWarning, match="1 player.*'d'"):
        elo = Elo().fit(data)
    assert elo.ratings_[3] == 0.0


def test_stopping_short_is_a_convergence_warning(elo_data):
    train, _ = elo_data
    with pytest.warns(ConvergenceWarning, match="scaled gradient"):
        model = Elo(max_iter=2, prior_scale=np.inf).fit(train)
    assert not model.converged_ and model.n_iter_ == 2
    with pytest.warns(ConvergenceWarning, match="did not converge"):
        disc = DiscDecomposition(max_iter=1, random_state=0, prior_scale=np.inf).fit(train)
    assert not disc.converged_


def test_converged_fit_raises_no_warning(elo_data):
    train, _ = elo_data
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert Elo().fit(train).converged_


@pytest.mark.parametrize(
    "model, message",
    [
        (DiscDecomposition(n_components=0), r"n_components must be an integer >= 1, got 0"),
        (DiscDecomposition(n_components=3), r"n_components=3 needs at least 6 players .* has 5"),
        (DiscDecomposition(loss="hinge"), r"loss must be one of .* got 'hinge'"),
        (DiscDecomposition(solver="newton"), r"solver must be one of .* got 'newton'"),
        (Elo(tol=-1.0), r"tol must be a positive finite number, got -1.0"),
        (Elo(tol=float("nan")), r"tol must be a positive finite number, got nan"),
        (Elo(max_iter=0), r"max_iter must be an integer >= 1, got 0"),
        (Elo(n_jobs=0), r"n_jobs=0 is not allowed"),
        (Elo(n_jobs=-100), r"n_jobs=-100 asks for"),
    ],
)
def test_bad_parameters_are_refused_at_fit(model, message):
    data = PairwiseData.from_pairs([0, 1, 2, 3], [1, 2, 3, 4], [0.6, 0.6, 0.6, 0.6])
    with pytest.raises(ValueError, match=message):
        model.fit(data)


def test_n_jobs_of_the_wrong_type_is_a_type_error():
    data = PairwiseData.from_pairs([0], [1], [0.6])
    with pytest.raises(TypeError, match="n_jobs must be an int or None, got 1.5"):
        Elo(n_jobs=1.5).fit(data)


def test_squared_logit_refuses_certain_outcomes_naming_the_pair():
    data = PairwiseData.from_pairs(["a", "b"], ["b", "c"], [0.7, 1.0])
    with pytest.raises(ValueError, match=r"pair \('b', 'c'\) has p = 1.0.*Use loss='bce'"):
        DiscDecomposition(loss="squared_logit").fit(data)


def test_fit_needs_pairwise_data():
    with pytest.raises(TypeError, match="Elo.fit expects a discrank.PairwiseData, GameLog or PeriodGames, got ndarray"):
        Elo().fit(np.eye(3))


def test_params_round_trip():
    model = DiscDecomposition(n_components=2, loss="probability", random_state=3)
    params = model.get_params()
    assert params["n_components"] == 2 and params["loss"] == "probability" and params["random_state"] == 3
    clone = DiscDecomposition(**params)
    assert clone.get_params() == params
    assert model.set_params(tol=1e-3).tol == 1e-3
    with pytest.raises(ValueError, match="invalid parameter 'alpha'"):
        model.set_params(alpha=1)


@pytest.mark.parametrize("make", [lambda: DiscDecomposition(1, random_state=0),
                                  lambda: DiscDecomposition(2, random_state=0),
                                  lambda: DiscDecomposition(2, solver="alternating", random_state=0, max_iter=50),
                                  lambda: MElo(1, random_state=0)])
def test_loss_is_the_data_loss_at_the_fitted_factors(make):
    # loss_ is read from the solver's last evaluation (when it is at the answer): it must equal a fresh
    # evaluation of the data loss at the returned factors, to rounding (the final |u| = |v| rescaling)
    from discrank.core import _core
    from discrank.models._base import LOSSES

    rng = np.random.default_rng(5)
    n = 30
    A = rng.normal(size=(n, n))
    data = PairwiseData.from_matrix(expit(A - A.T))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = make().fit(data)
    w = data.pair_weights() / data.pair_weights().sum()
    obj = _core.PairObjective(data.n_players, data.i, data.j, data.p, w)
    fresh = obj.evaluate(LOSSES[model.loss], **model._factors())[0]
    assert model.loss_ == pytest.approx(fresh, rel=1e-12)


def test_disc_fit_in_tile_order_is_the_fit_in_pair_order():
    # with more than 2048 players the disc fits pass the pairs in tile order (discrank.solvers._fitdata): the same
    # objective summed in another order, so the same fit up to rounding, whatever the order of the data
    from discrank.core import _core
    from discrank.solvers import _fitdata
    rng = np.random.default_rng(8)
    n = 5000
    i, j = random_pairs(rng, n, 100_000)
    skill, theta = rng.normal(size=n), rng.uniform(0, 2 * np.pi, n)
    # probabilities inside (0, 1), no player separated: a finite optimum
    data = PairwiseData(i, j, expit(skill[i] - skill[j] + np.sin(theta[i] - theta[j])),
                        n_games=rng.integers(1, 5, i.size))
    w = data.pair_weights() / data.pair_weights().sum()
    tiled, wt = _fitdata.in_tile_order(data, w, 2)
    order = np.argsort(data.j >> _fitdata.TILE_BITS, kind="stable")
    assert not np.array_equal(order, np.arange(data.n_pairs))  # the order does change here
    assert np.array_equal(tiled.i, data.i[order]) and np.array_equal(wt, w[order])
    assert np.array_equal(tiled.p, data.p[order]) and np.array_equal(tiled.n_games, data.n_games[order])
    fits = {}
    for tile in (True, False):
        model = DiscDecomposition(n_components=2, tol=1e-8, max_iter=2000, random_state=0, prior_scale=np.inf)
        model._tile_pairs = tile
        fits[tile] = model.fit(data)
    assert fits[True].converged_ and fits[False].converged_
    assert fits[True].loss_ == pytest.approx(fits[False].loss_, rel=1e-12)
    probe = (rng.integers(0, n, 2000), rng.integers(0, n, 2000))
    probe = (probe[0][probe[0] != probe[1]], probe[1][probe[0] != probe[1]])
    assert np.max(np.abs(fits[True].predict_proba(*probe) - fits[False].predict_proba(*probe))) < 1e-8
    assert np.array_equal(fits[True].n_games_, fits[False].n_games_)
