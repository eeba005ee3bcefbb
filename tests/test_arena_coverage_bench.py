"""The premises of bench/arena_coverage.py (bench/ARENA_COVERAGE.md): what its synthetic arenas are and
what the board's estimator converges to on them, checked on one seed each."""

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
import arena_coverage as ac  # noqa: E402


@pytest.fixture(scope="module")
def world():
    return ac.make_world(0)


def test_coverage_arena_is_skewed_with_small_models_and_a_quarter_ties(world):
    frame, z, _ = ac.battles(world, np.random.default_rng([0, 1]), "consistent", ac.BETA)
    votes = frame["model_a"].value_counts().add(frame["model_b"].value_counts(), fill_value=0)
    assert len(votes) == ac.N_MODELS and len(frame) == ac.N_BATTLES
    assert 4 <= int((votes < ac.SMALL).sum()) <= 8  # the 6 new models (60 to 180 expected) and rarely a 7th
    assert votes.max() / votes.min() > 50
    tie = frame["winner"].str.startswith("tie").mean()
    assert 0.18 < tie < 0.25  # 1/4 between equals, fewer for unequal pairs
    assert 0.3 < (frame["winner"] == "tie (bothbad)").mean() / tie < 0.7
    assert z.shape == (ac.N_BATTLES, 2) and np.all(np.abs(z) <= 1.0)


def test_consistent_ties_make_the_half_board_converge_to_the_true_strengths(world):
    frame, z, expected = ac.battles(world, np.random.default_rng([0, 2]), "consistent", ac.BETA)
    ratings, coefs = ac.board_truth(world, frame, z, expected, style=True)
    true_ratings, true_coefs = ac.theta_truth(world, z, ac.BETA, style=True)
    # only the centring of the style features (a mean of about 1e-3, no intercept in the model) parts them, by 0.03 Elo
    np.testing.assert_allclose(ratings, true_ratings, atol=0.1)
    np.testing.assert_allclose(coefs, true_coefs, rtol=1e-4)


def test_omitted_style_and_davidson_ties_move_the_pseudo_truth_away_from_the_strengths(world):
    rng = np.random.default_rng([0, 3])
    frame, z, expected = ac.battles(world, rng, "consistent", ac.BETA)
    plain, _ = ac.board_truth(world, frame, z, expected, style=False)
    true_ratings, _ = ac.theta_truth(world, z, ac.BETA, style=False)
    # verbose models are the strong ones: leaving the style out credits them with it
    assert np.corrcoef(plain - true_ratings, world.theta)[0, 1] > 0.7
    assert np.abs(plain - true_ratings).max() > 40.0
    frame, z, expected = ac.battles(world, rng, "davidson", ac.BETA)
    ratings, _ = ac.board_truth(world, frame, z, expected, style=True)
    slope = np.polyfit(true_ratings, ratings, 1)[0]
    assert 0.7 < slope < 0.85  # Davidson's expected score is about sigmoid(eta * 2 / (2 + nu)) = sigmoid(0.75 eta)
