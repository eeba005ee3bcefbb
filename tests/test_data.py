"""PairwiseData: aggregation, orientation, filtering, splitting, and refusal of bad input."""

import numpy as np
import pytest

from discrank import PairwiseData


def test_from_games_aggregates_wins_and_draws_per_unordered_pair():
    a = ["ann", "bob", "ann", "cid", "bob", "ann"]
    b = ["bob", "ann", "bob", "ann", "cid", "cid"]
    score = [1.0, 1.0, 0.5, 0.0, 1.0, 1.0]
    data = PairwiseData.from_games(a, b, score)
    assert data.labels.tolist() == ["ann", "bob", "cid"]
    assert data.i.tolist() == [0, 0, 1] and data.j.tolist() == [1, 2, 2]
    # ann-bob: ann wins, bob wins, draw -> 1.5 / 3; ann-cid: ann wins twice -> 2 / 2; bob-cid: 1 / 1
    np.testing.assert_array_equal(data.p, [0.5, 1.0, 1.0])
    np.testing.assert_array_equal(data.n_games, [3.0, 2.0, 1.0])
    assert data.weights == "games"
    np.testing.assert_array_equal(data.pair_weights(), [3.0, 2.0, 1.0])


def test_from_games_keeps_a_win_rate_of_zero_as_an_observation():
    data = PairwiseData.from_games([0, 0], [1, 1], [0.0, 0.0])
    assert data.n_pairs == 1 and data.p[0] == 0.0


def test_from_games_with_given_labels_orders_players_by_them():
    data = PairwiseData.from_games(["x", "y"], ["y", "z"], [1, 0], labels=["z", "y", "x"])
    assert data.labels.tolist() == ["z", "y", "x"]
    # pair (z, y): y lost to z -> P(z beats y) = 1; pair (y, x): x beat y -> P(y beats x) = 0
    assert list(zip(data.i, data.j, data.p)) == [(0, 1, 1.0), (1, 2, 0.0)]


def test_min_games_keeps_pairs_with_enough_games_and_drops_lonely_players():
    a = [0, 0, 0, 1, 2]
    b = [1, 1, 1, 2, 3]
    data = PairwiseData.from_games(a, b, [1, 0, 1, 1, 0], min_games=2)
    assert data.n_players == 2 and data.labels.tolist() == [0, 1]
    assert data.n_pairs == 1 and data.p[0] == pytest.approx(2 / 3)


def test_uniform_weights_count_each_pair_once():
    data = PairwiseData.from_games([0, 0, 1], [1, 1, 2], [1, 1, 0], weights="uniform")
    np.testing.assert_array_equal(data.pair_weights(), [1.0, 1.0])


def test_from_matrix_reads_observed_entries_and_checks_consistency():
    P = np.array([[0.5, 0.7, np.nan], [0.3, 0.5, np.nan], [np.nan, 0.0, 0.5]])
    data = PairwiseData.from_matrix(P, labels=["a", "b", "c"])
    # (0,1) from both orientations; (1,2) only from P[2,1] = 0 -> P(1 beats 2) = 1; (0,2) unobserved
    assert list(zip(data.i, data.j)) == [(0, 1), (1, 2)]
    np.testing.assert_allclose(data.p, [0.7, 1.0])
    assert data.weights == "uniform" and data.n_games is None
    back = data.to_matrix()
    assert np.isnan(back[0, 2]) and back[2, 1] == 0.0 and back[1, 0] == pytest.approx(0.3)


def test_from_matrix_refuses_inconsistent_pair():
    P = np.array([[0.5, 0.7], [0.4, 0.5]])
    with pytest.raises(ValueError, match=r"P\[0, 1\] \+ P\[1, 0\] = 0.7 \+ 0.4"):
        PairwiseData.from_matrix(P)


def test_from_matrix_ignores_the_diagonal():
    P = np.array([[7.0, 0.6], [0.4, np.nan]])
    assert PairwiseData.from_matrix(P).p.tolist() == [0.6]


def test_from_pairs_pools_games_over_both_orientations():
    data = PairwiseData.from_pairs(["a", "b"], ["b", "a"], [0.75, 0.5], n_games=[4, 2])
    # a beats b: 3 of 4, then b beats a 1 of 2 -> a won 3 + 1 = 4 of 6
    assert data.n_pairs == 1 and data.p[0] == pytest.approx(4 / 6) and data.n_games[0] == 6


def test_from_pairs_without_counts_needs_agreeing_duplicates():
    data = PairwiseData.from_pairs(["a", "b"], ["b", "a"], [0.75, 0.25])
    assert data.p.tolist() == [0.75]
    with pytest.raises(ValueError, match="disagreeing probabilities"):
        PairwiseData.from_pairs(["a", "b"], ["b", "a"], [0.75, 0.5])


def test_split_hides_whole_pairs_and_keeps_players():
    rng = np.random.default_rng(0)
    P = rng.uniform(size=(30, 30))
    P = np.triu(P, 1) + np.tril(1 - P.T, -1)
    data = PairwiseData.from_matrix(P)
    train, test = data.split(0.2, seed=1)
    assert train.n_pairs + test.n_pairs == data.n_pairs == 435
    assert test.n_pairs == 87
    train_keys = set(zip(train.i.tolist(), train.j.tolist()))
    test_keys = set(zip(test.i.tolist(), test.j.tolist()))
    assert not train_keys & test_keys  # a hidden (i, j) is hidden as (j, i) too: one record per pair
    assert train.n_players == test.n_players == 30
    again, _ = data.split(0.2, seed=1)
    np.testing.assert_array_equal(again.i, train.i)


def test_components_counts_pieces_of_the_comparison_graph():
    data = PairwiseData.from_pairs([0, 2], [1, 3], [0.6, 0.4])
    n_pieces, piece = data.components()
    assert n_pieces == 2 and piece[0] == piece[1] != piece[2] == piece[3]


def test_index_maps_labels_and_names_unknown_ones():
    data = PairwiseData.from_games(["x", "y"], ["y", "z"], [1, 0])
    assert data.index(["z", "x"]).tolist() == [2, 0]
    with pytest.raises(ValueError, match="unknown player label.*'w'"):
        data.index(["w"])


BAD_GAMES = [
    (dict(a=[0, 1], b=[1, 1], score=[1, 0]), ValueError, r"game 1 is player 1 against themself"),
    (dict(a=[0, 1], b=[1, 2], score=[1, np.nan]), ValueError, r"score contains nan at position 1"),
    (dict(a=[0, 1], b=[1, 2], score=[1, np.inf]), ValueError, r"score contains inf at position 1"),
    (dict(a=[0, 1], b=[1, 2], score=[1, 1.5]), ValueError, r"score must lie in \[0, 1\]; got 1.5 at position 1"),
    (dict(a=[0, 1], b=[1, 2], score=[-0.5, 1]), ValueError, r"got -0.5 at position 0"),
    (dict(a=[0, 1, 2], b=[1, 2], score=[1, 0]), ValueError, r"inconsistent lengths: \{'a': 3, 'b': 2, 'score': 2\}"),
    (dict(a=[], b=[], score=[]), ValueError, r"the data is empty"),
    (dict(a=["x", 1], b=["y", "z"], score=[1, 0]), ValueError, r"mixes label types"),
    (dict(a=[None, "x"], b=["y", "z"], score=[1, 0]), ValueError, r"missing label None at position 0"),
    (dict(a=[0.0, np.nan], b=[1.0, 2.0], score=[1, 0]), ValueError, r"missing label nan at position 1"),
    (dict(a=np.array([0.0, np.nan]), b=[1.0, 2.0], score=[1, 0]), ValueError, r"non-finite label nan at position 1"),
    (dict(a=[[0, 1]], b=[[1, 2]], score=[1, 0]), ValueError, r"a must be 1-D, got shape \(1, 2\)"),
    (dict(a=["x"], b=["y"], score=["win"]), ValueError, r"score\[0\] = 'win' is not a result"),
    (dict(a=["x"], b=["q"], score=[1], labels=["x", "y"]), ValueError, r"unknown b label\(s\): 'q'"),
    (dict(a=["x"], b=["y"], score=[1], labels=["x", "y", "x"]), ValueError, r"labels must be unique; repeated: 'x'"),
    (dict(a=["x"], b=["y"], score=[1], min_games=0), ValueError, r"min_games must be an integer >= 1, got 0"),
    (dict(a=["x"], b=["y"], score=[1], min_games=5), ValueError, r"no pair has at least min_games=5 games"),
    (dict(a=["x"], b=["y"], score=[1], weights="equal"), ValueError, r"weights must be one of .* got 'equal'"),
]


@pytest.mark.parametrize("kwargs, exc, message", BAD_GAMES)
def test_from_games_refuses_bad_input_naming_it(kwargs, exc, message):
    with pytest.raises(exc, match=message):
        PairwiseData.from_games(**kwargs)


BAD_PAIRS = [
    (dict(a=[0], b=[1], p=[1.2]), r"p must lie in \[0, 1\]; got 1.2"),
    (dict(a=[0], b=[1], p=[0.5], n_games=[0]), r"n_games must be positive; got 0.0 at position 0"),
    (dict(a=[0], b=[1], p=[0.5], n_games=[-3]), r"n_games must be positive; got -3.0"),
    (dict(a=[0, 1], b=[1, 2], p=[0.5, 0.5], n_games=[1]), r"inconsistent lengths"),
    (dict(a=[3], b=[3], p=[0.5]), r"pair 0 is player 3 against themself"),
    (dict(a=[0], b=[1], p=[0.5], weights="games"), r'weights="games" needs n_games'),
    (dict(a=[0], b=[1], p=[0.5], min_games=2), r"min_games needs the number of games per pair"),
]


@pytest.mark.parametrize("kwargs, message", BAD_PAIRS)
def test_from_pairs_refuses_bad_input_naming_it(kwargs, message):
    with pytest.raises(ValueError, match=message):
        PairwiseData.from_pairs(**kwargs)


@pytest.mark.parametrize(
    "P, message",
    [
        (np.array([[0.5, 1.3], [-0.3, 0.5]]), r"P\[0, 1\] = 1.3 is not a probability"),
        (np.array([[0.5, np.inf], [0.0, 0.5]]), r"P\[0, 1\] = inf"),
        (np.ones((2, 3)) * 0.5, r"square matrix, got shape \(2, 3\)"),
        (np.full((3, 3), np.nan), r"no observed pair"),
    ],
)
def test_from_matrix_refuses_bad_input_naming_it(P, message):
    with pytest.raises(ValueError, match=message):
        PairwiseData.from_matrix(P)


def test_split_refuses_bad_fraction():
    data = PairwiseData.from_pairs([0, 1, 2], [1, 2, 3], [0.5, 0.6, 0.7])
    with pytest.raises(ValueError, match=r"test_fraction must be in \(0, 1\), got 1.5"):
        data.split(1.5)
    with pytest.raises(ValueError, match="empty train or test set"):
        data.split(0.01)


def test_constructor_refuses_duplicate_and_unordered_pairs():
    with pytest.raises(ValueError, match=r"pair \(0, 1\) appears more than once"):
        PairwiseData([0, 0], [1, 1], [0.5, 0.5])
    with pytest.raises(ValueError, match="pairs must have i < j"):
        PairwiseData([1], [0], [0.5])
    with pytest.raises(ValueError, match=r"j\[0\] = 5 is not a player index in \[0, 3\)"):
        PairwiseData([0], [5], [0.5], n_players=3)


@pytest.mark.parametrize(
    "values",
    [np.array([5, 3, 5, 9, 3, -2]), np.array([10**12, 7, 7]), np.array([3], dtype=np.uint32), np.array(["b", "a", "b"])],
)
def test_factorize_is_np_unique(values):
    from discrank._util.labels import factorize_pair

    # a = values, b = its first entry: integers of a compact range go through the core's presence table
    uniq, code_a, code_b = factorize_pair(values, values[:1])
    ref_uniq, ref_inverse = np.unique(np.concatenate([values, values[:1]]), return_inverse=True)
    np.testing.assert_array_equal(uniq, ref_uniq)
    np.testing.assert_array_equal(np.concatenate([code_a, code_b]), ref_inverse)
    # the labels come in the one dtype of their kind: int64 for integers, an object array of str for text
    assert uniq.dtype == (np.dtype(object) if values.dtype.kind == "U" else np.dtype(np.int64))
