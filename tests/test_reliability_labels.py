"""Regression tests of issue 15, labels and pairwise data: label kinds never mix, integer labels stay
exact, fitted models expose one dtype per kind, counts and n_players are checked, and memory grows with
the labels' total length (not the longest label times their number) and stays near the input for a
payoff matrix."""

import re
import tracemalloc
import warnings

import numpy as np
import pytest

from discrank import Elo, GameLog, PairwiseData
from discrank._util.labels import factorize_pair, show
from discrank.data.logs import read_pgn
from discrank.online import online_elo


def _peak(fn):
    """(result, peak bytes traced while it ran)."""
    tracemalloc.start()
    try:
        out = fn()
        return out, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


# ------------------------------------------------------------------ label kinds never mix
@pytest.mark.parametrize("as_array", [False, True])
@pytest.mark.parametrize("a, b", [(["x", "y"], [1, 2]), ([1, 2], ["x", "y"]), (["1", "2"], [2, 1]), ([0], [""])])
def test_strings_and_numbers_between_a_and_b_are_refused_naming_both(as_array, a, b):
    if as_array:
        a, b = np.array(a), np.array(b)
    with pytest.raises(ValueError, match=r"a holds (strings|numbers) \(first .* at position 0\) and b holds "):
        PairwiseData.from_games(a, b, np.zeros(len(a)))


@pytest.mark.parametrize("values, kinds", [
    (["x", 1], r"strings \(first 'x' at position 0\), numbers \(first 1 at position 1\)"),
    ([1.5, "y"], r"numbers \(first 1.5 at position 0\), strings \(first 'y' at position 1\)"),
    (["x", b"y"], r"strings .* bytes \(first b'y' at position 1\)"),
    ([1, True], r"numbers .* bools \(first True at position 1\)"),
    (np.array(["x", 1], dtype=object), r"strings .* numbers \(first 1 at position 1\)"),
])
def test_mixed_kinds_within_a_are_refused_naming_kinds_and_first_positions(values, kinds):
    with pytest.raises(ValueError, match="a mixes label types: " + kinds):
        PairwiseData.from_games(values, ["p", "q"], [1.0, 0.0])


def test_digit_strings_are_never_merged_with_ints():
    # once "1" and 1 were one player; now they are refused together, and each kind alone keeps its type
    with pytest.raises(ValueError, match="a holds strings"):
        PairwiseData.from_games(["1", "2"], [2, 1], [1.0, 0.0])
    data = PairwiseData.from_games(["1", "2"], ["2", "1"], [1.0, 0.0])
    assert data.labels.tolist() == ["1", "2"] and all(type(v) is str for v in data.labels)


@pytest.mark.parametrize("name", ["", " ", "\t"])
def test_empty_or_blank_string_label_is_refused_as_a_missing_name(name):
    with pytest.raises(ValueError, match=r"b has an empty or blank player name .* at position 1"):
        PairwiseData.from_games(["x", "y"], ["y", name], [1.0, 0.0])
    with pytest.raises(ValueError, match="labels has an empty or blank player name"):
        PairwiseData.from_games(["x"], ["y"], [1.0], labels=["x", "y", name])


def test_given_labels_of_another_kind_are_named():
    with pytest.raises(ValueError, match=r"a holds strings .* labels holds numbers"):
        PairwiseData.from_games(["x"], ["y"], [1.0], labels=[1, 2])


def test_game_log_from_arrays_refuses_mixed_kinds():
    with pytest.raises(ValueError, match="a holds strings"):
        GameLog.from_arrays(["x", "y"], [1, 2], [1.0, 0.0])


def test_online_elo_refuses_mixed_kinds_with_its_init():
    fitted = Elo().fit(PairwiseData.from_games(["x"], ["y"], [1.0]))
    with pytest.raises(ValueError, match=r"a holds numbers .* init.labels_ holds strings"):
        online_elo([1], [2], [1.0], init=fitted)


def _int_log(n=6):
    """A log of the integer players 0 .. n - 1 (each beats the next), with times."""
    a = np.arange(n)
    return GameLog.from_arrays(a, (a + 1) % n, np.ones(n), np.arange(n, dtype=float))


def _updated(kind, a, b):
    """The labels of a model of integer players updated with the games ``a`` against ``b`` (``kind``: the update)."""
    from discrank import DynamicElo
    from discrank.models import OnlineDisc, OnlineElo

    new = GameLog.from_arrays(a, b, np.ones(len(a)), np.full(len(a), 10.0))
    if kind == "online_elo":
        return online_elo(a, b, np.ones(len(a)), init=Elo(prior_scale=1.0).fit(_int_log().to_pairs())).labels
    model = {"DynamicElo": lambda: DynamicElo(period=5.0, drift=0.1, prior_scale=1.0, variance_scale=1.0),
             "OnlineElo": lambda: OnlineElo(step=0.1), "OnlineDisc": lambda: OnlineDisc(step=0.1)}[kind]()
    return model.fit(_int_log()).update(new).labels_


UPDATES = ["DynamicElo", "OnlineElo", "OnlineDisc", "online_elo"]


@pytest.mark.parametrize("kind", UPDATES)
def test_an_update_of_an_integer_model_with_fractional_labels_warns_naming_them(kind):
    # 1.5 and 2.5 were new players without a word: on a log of integer ids a float is almost always a typo
    with pytest.warns(UserWarning, match=re.escape("holds the player label(s) 1.5, 2.5, which are not integers, "
                                                   "while the model's") + ".* are integers: each enters as a new "
                                                                          "player"):
        labels = _updated(kind, [1.5, 0.0], [2.5, 3.0])
    assert labels.tolist() == [0, 1, 2, 3, 4, 5, 1.5, 2.5]  # new players, appended; 0.0 and 3.0 are 0 and 3


@pytest.mark.parametrize("kind", UPDATES)
def test_an_update_of_an_integer_model_with_integral_floats_is_silent(kind):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        labels = _updated(kind, [1.0, 7.0], [2.0, 0.0])
    assert labels.tolist() == [0, 1, 2, 3, 4, 5, 7]


@pytest.mark.parametrize("values, exc, message", [
    ([b"x", b"y"], TypeError, r"a holds bytes labels \(b'x' at position 0\).*decode"),
    (np.array([b"x", b"y"]), TypeError, r"a holds bytes labels .*np.char.decode"),
    ([True, False], TypeError, r"a holds bools \(True at position 0\)"),
    (np.array([True, False]), TypeError, r"a holds bools"),
    ([None, "y"], ValueError, r"missing label None at position 0"),
    (["x", float("nan")], ValueError, r"a contains a missing label nan at position 1"),
    ([(1, 2), (3, 4)], ValueError, r"a must be 1-D, got shape \(2, 2\)"),
])
def test_bytes_bools_and_missing_labels_are_refused(values, exc, message):
    with pytest.raises(exc, match=message):
        PairwiseData.from_games(values, ["p", "q"], [1.0, 0.0])


# ------------------------------------------------------------------ integer labels stay exact
def test_int64_with_uint64_labels_stay_exact_integers():
    a = np.array([1, 2**62 + 1, 3], dtype=np.int64)
    b = np.array([2**62 + 3, 3, 2**62 + 3], dtype=np.uint64)
    data = PairwiseData.from_games(a, b, [1.0, 0.0, 0.5])
    assert data.labels.dtype == np.int64  # every id fits int64
    assert data.labels.tolist() == [1, 3, 2**62 + 1, 2**62 + 3]  # 4 players, not 3; 1, never 1.0
    model = Elo().fit(data)
    assert model.labels_.dtype == np.int64
    assert model.predict_proba(2**62 + 1, 3) == pytest.approx(model.predict_proba(np.uint64(2**62 + 1), 3.0))
    assert model.predict_proba(2**62 + 1, 3) != pytest.approx(model.predict_proba(2**62 + 3, 3))


def test_labels_above_int64_are_uint64_and_exact():
    top = 2**64 - 1
    a = np.array([top, 2**63], dtype=np.uint64)
    data = PairwiseData.from_games(a, np.array([5, 7]), [1.0, 0.0])
    assert data.labels.dtype == np.uint64
    assert data.labels.tolist() == [5, 7, 2**63, top]
    data = PairwiseData.from_games([top, 2**63 + 1, top], [top - 1, 2**63, 2**63], [1.0, 0.0, 0.5])  # Python ints
    assert data.labels.dtype == np.uint64 and data.labels.tolist() == [2**63, 2**63 + 1, top - 1, top]
    model = Elo().fit(data)
    assert model.predict_proba([top], [top - 1]).shape == (1,)
    with pytest.raises(ValueError, match=r"unknown player label\(s\): 1.8446744073709552e\+19"):
        model.predict_proba(float(top), top - 1)  # 2.0**64 is no label: never rounded onto one


def test_game_log_player_filters_keep_int64_and_uint64_ids_apart():
    import pandas as pd

    x, y = 2**62 + 1, 2**62 + 3  # one float64: once counted as one player with 4 games
    a = np.array([x, 1, x])
    b = np.array([y, y, 3], dtype=np.uint64)
    log = GameLog.from_arrays(a, b, [1.0, 0.0, 1.0])
    with pytest.raises(ValueError, match="no player has at least min_player_games=2"):
        log.filter(min_player_games=2)  # x and y have 2 games each, but then only 1 against each other
    frame = pd.DataFrame({"a": a, "b": b, "s": [1.0, 0.0, 1.0]})
    with pytest.raises(ValueError, match="no player has at least min_player_games=2"):
        GameLog.from_frame(frame, score="s", min_player_games=2)
    assert log.filter(min_player_games=1).to_pairs().labels.tolist() == [1, 3, x, y]


@pytest.mark.parametrize("a, b, message", [
    (np.array([-1, 2]), np.array([2**63 + 3, 3], dtype=np.uint64), r"a\[0\] = -1 and b\[0\] = 9223372036854775811"),
    ([-1, 2**63], [1, 2], r"negative integer label -1 \(position 0\) with 9223372036854775808 \(position 1\)"),
    ([2**64, 1], [1, 2], r"a holds the integer label 18446744073709551616 at position 0"),
    ([-(2**63) - 1, 1], [1, 2], r"integer label -9223372036854775809"),
])
def test_integers_without_a_common_integer_type_are_refused(a, b, message):
    with pytest.raises(ValueError, match=message):
        PairwiseData.from_games(a, b, [1.0, 0.0])


def test_ints_with_floats_never_lose_precision():
    # integral floats with ints: integers (ids read as floats because of missing entries)
    data = PairwiseData.from_games(np.array([1, 2]), np.array([2.0, 3.0]), [1.0, 0.0])
    assert data.labels.dtype == np.int64 and data.labels.tolist() == [1, 2, 3]
    # fractional floats with small ints: floats, exact
    data = PairwiseData.from_games([1, 2], [2.5, 3.0], [1.0, 0.0])
    assert data.labels.dtype == np.float64 and data.labels.tolist() == [1.0, 2.0, 2.5, 3.0]
    # fractional floats with an int float64 cannot hold: refused
    with pytest.raises(ValueError, match=r"a\[1\] = 4611686018427387905 is an integer label that float64 cannot "
                                         r"hold exactly, and b\[0\] = 0.5 is not an integer"):
        PairwiseData.from_games([1, 2**62 + 1], [0.5, 3.0], [1.0, 0.0])


@pytest.mark.parametrize("values", [
    np.array([2**63 + 5, 2**63, 2**63 + 5], dtype=np.uint64),  # offsets of a compact range, through the core
    np.array([2**64 - 1, 0, 2**63], dtype=np.uint64),  # a wide range: sorted
    np.array([-5, 2**40, -5]),
])
def test_factorize_integers_is_exact_np_unique(values):
    uniq, code_a, code_b = factorize_pair(values, values[:1])
    ref_uniq, ref_inverse = np.unique(np.concatenate([values, values[:1]]), return_inverse=True)
    assert uniq.tolist() == ref_uniq.tolist()
    np.testing.assert_array_equal(np.concatenate([code_a, code_b]), ref_inverse)


@pytest.mark.parametrize("a, b", [
    (np.array(["b ", "a", "\u65e5\u672c", "a b", "b "]), np.array(["zz", "a", "x" * 30, "\u00e9"])),  # two widths
    (np.array(["10", "9", "10"]), np.array(["9", "100", "9"])),  # strings of digits: sorted as text
    (np.array(["x", "y", "x"])[::2], np.array(["y"])),  # a strided view
])
def test_factorize_fixed_width_strings_is_exact_np_unique(a, b):
    # U arrays are hashed in the core on their code points less numpy's zero padding (of two widths here),
    # then the distinct labels sorted: the labels and codes of np.unique on the two together
    uniq, code_a, code_b = factorize_pair(a, b)
    ref_uniq, ref_inverse = np.unique(np.concatenate([a, b]), return_inverse=True)
    assert uniq.tolist() == ref_uniq.tolist() and all(type(v) is str for v in uniq)
    np.testing.assert_array_equal(np.concatenate([code_a, code_b]), ref_inverse)


# ------------------------------------------------------------------ one dtype per kind
@pytest.mark.parametrize("a, b, dtype, check", [
    (["x", "y"], ["y", "z"], np.dtype(object), lambda v: type(v) is str),
    (np.array(["x", "y"]), np.array(["y", "z"]), np.dtype(object), lambda v: type(v) is str),
    (np.array(["x", "y"], dtype=object), [np.str_("y"), np.str_("z")], np.dtype(object), lambda v: type(v) is str),
    (np.array([1, 2], dtype=np.int32), np.array([2, 3], dtype=np.int32), np.dtype(np.int64), None),
    (np.array([1, 2], dtype=np.uint8), np.array([2, 3], dtype=np.int16), np.dtype(np.int64), None),
    (np.array([1, 2], dtype=np.uint64), [2, 3], np.dtype(np.int64), None),
    (np.array([1.5, 2], dtype=np.float32), [2.0, 3.25], np.dtype(np.float64), None),
])
def test_fitted_models_expose_one_label_dtype_per_kind(a, b, dtype, check):
    data = PairwiseData.from_games(a, b, [1.0, 0.0])
    model = Elo().fit(data)
    for labels in (data.labels, model.labels_):
        assert labels.dtype == dtype
        if check is not None:
            assert all(check(v) for v in labels)


# ------------------------------------------------------------------ counts and n_players
@pytest.mark.parametrize("n_games, message", [
    ([1e308] * 3, r"n_games adds up to inf games \(the largest, n_games\[0\] = 1e\+308\)"),
    ([2.0**53, 2.0**52, 1.0],
     r"n_games adds up to 1.3510798882111488e\+16 games \(the largest, n_games\[0\] = 9007199254740992.0\)"),
    ([1.0, np.inf, 1.0], r"n_games contains inf at position 1"),
    ([1.0, np.nan, 1.0], r"n_games contains nan at position 1"),
    ([1.0, -2.0, 1.0], r"n_games must be positive; got -2.0 at position 1"),
])
def test_game_counts_that_overflow_or_are_not_counts_are_refused(n_games, message):
    with pytest.raises(ValueError, match=message):
        PairwiseData.from_pairs(["a", "b", "c"], ["b", "c", "a"], [0.5, 0.5, 0.5], n_games=n_games)
    with pytest.raises(ValueError, match=message):
        PairwiseData([0, 0, 1], [1, 2, 2], [0.5, 0.5, 0.5], n_games)


def test_large_but_sane_game_counts_are_kept():
    data = PairwiseData.from_pairs(["a", "b", "c"], ["b", "c", "a"], [0.25, 0.5, 0.75], n_games=[1e12, 1e12, 1e12])
    assert np.all(data.n_games == 1e12)
    r = Elo().fit(data).ratings_
    assert np.all(np.isfinite(r)) and np.ptp(r) > 0.1


@pytest.mark.parametrize("n_players, shown", [(2.5, "2.5"), (3.0, "3.0"), ("3", "'3'"), (True, "True"),
                                               (np.float64(3.0), "3.0"), ([3], r"\[3\]")])
def test_n_players_must_be_an_integer(n_players, shown):
    with pytest.raises(ValueError, match=r"n_players must be an integer, got " + shown):
        PairwiseData([0], [1], [1.0], n_players=n_players)


def test_n_players_accepts_numpy_integers():
    assert PairwiseData([0], [1], [1.0], n_players=np.int32(5)).n_players == 5


@pytest.mark.parametrize("kwargs, message", [
    (dict(i=[0], j=[2**31 - 2], p=[1.0]), r"the largest index, 2147483646, makes n_players=2147483647"),
    (dict(i=[0], j=[1], p=[1.0], n_players=10**12), r"n_players=1000000000000: far more than the players"),
])
def test_sparse_indices_are_refused_clearly_without_allocating(kwargs, message):
    def build():
        with pytest.raises(ValueError, match=message + r".*pass them as labels through PairwiseData.from_games"):
            PairwiseData(**kwargs)

    _, peak = _peak(build)
    assert peak < 1e6, peak  # once a MemoryError for a 16 GB (or 8 TB) table of labels
    data = PairwiseData.from_games([0], [2**31 - 2], [1.0])  # the way to give sparse ids
    assert data.n_players == 2 and data.labels.tolist() == [0, 2**31 - 2]


# ------------------------------------------------------------------ prediction lookups
def test_predict_proba_names_the_shape_of_a_2d_argument():
    model = Elo().fit(PairwiseData.from_games(["a", "b"], ["b", "c"], [1.0, 0.0]))
    with pytest.raises(ValueError, match=r"a must be 1-D \(or a single player\), got shape \(1, 1\)"):
        model.predict_proba([["a"]], ["b"])
    with pytest.raises(ValueError, match=r"b must be 1-D \(or a single player\), got shape \(2, 1\)"):
        model.predict_proba(["a", "b"], np.array([["b"], ["c"]]))
    with pytest.raises(ValueError, match=r"unknown player label\(s\): 1"):
        model.predict_proba([1], ["b"])  # an int is never the string "1"
    assert model.predict_proba(np.array(["a"]), np.array(["b"], dtype=object)).shape == (1,)


# ------------------------------------------------------------------ long labels
LONG = "L" * 200_000


def _log_with_a_long_name(n=1000, games=3000, seed=0):
    rng = np.random.default_rng(seed)
    names = [f"p{k}" for k in range(n)]
    names[7] = LONG
    a, b = rng.integers(0, n, games), rng.integers(0, n, games)
    keep = a != b
    return [names[k] for k in a[keep]], [names[k] for k in b[keep]], rng.random(int(keep.sum()))


@pytest.mark.parametrize("build", ["from_games", "online_elo", "game_log", "predict"])
def test_a_200_kb_label_costs_memory_by_its_length_not_times_the_players(build):
    a, b, s = _log_with_a_long_name()
    fns = {
        "from_games": lambda: PairwiseData.from_games(a, b, s),
        "online_elo": lambda: online_elo(a, b, s),
        "game_log": lambda: GameLog.from_arrays(a, b, s).to_pairs(),
    }
    if build == "predict":
        model = Elo().fit(PairwiseData.from_games(a, b, s))
        fns["predict"] = lambda: model.predict_proba(a, b)
    fns[build]()  # warm up (first imports, caches)
    out, peak = _peak(fns[build])
    # fixed-width strings would take 1000 x 200 000 x 4 bytes = 800 MB
    assert peak < 8e6, f"{build}: peak {peak / 1e6:.1f} MB"
    if build != "predict":
        labels = out.labels if hasattr(out, "labels") else out.labels_
        assert labels.dtype == object and LONG in set(labels.tolist())


def test_read_pgn_with_a_200_kb_name_costs_memory_by_its_length(tmp_path):
    games = []
    for k in range(300):
        w, b = (LONG, f"p{k}") if k == 0 else (f"p{k}", f"p{(k + 1) % 300}")
        games.append(f'[Event "x"]\n[White "{w}"]\n[Black "{b}"]\n[Result "1-0"]\n\n1. e4 e5 1-0\n\n')
    path = tmp_path / "long.pgn"
    path.write_text("".join(games))
    read_pgn(path).to_pairs()  # warm up
    log, peak = _peak(lambda: read_pgn(path))
    (data, peak2) = _peak(log.to_pairs)
    assert log.a.dtype == object and log.a[0] == LONG
    assert data.n_players == 301 and LONG in set(data.labels.tolist())
    assert max(peak, peak2) < 8e6, (peak, peak2)  # fixed width: 600 x 200 000 x 4 bytes = 480 MB


def test_messages_cut_long_labels():
    with pytest.raises(ValueError) as info:
        PairwiseData.from_games([LONG], [LONG], [1.0])
    assert len(str(info.value)) < 300 and "(200000 characters)" in str(info.value)
    with pytest.raises(ValueError) as info:
        Elo().fit(PairwiseData.from_games(["x"], ["y"], [1.0])).predict_proba(LONG, "x")
    assert len(str(info.value)) < 300
    assert show("x" * 10**6).endswith("(1000000 characters)")


# ------------------------------------------------------------------ from_matrix
def _consistent_matrix(n, seed=0, dtype=np.float32, missing=0.1):
    rng = np.random.default_rng(seed)
    U = (rng.integers(0, 65, (n, n)) / 64).astype(dtype)  # k / 64: exact, and so is 1 - k / 64
    P = np.triu(U, 1)
    P += np.triu(1 - U, 1).T
    P[rng.random((n, n)) < missing] = np.nan
    np.fill_diagonal(P, 0.5)
    return P


def test_from_matrix_peak_memory_is_at_most_2_5_times_the_input():
    P = _consistent_matrix(2000, missing=0.0)  # every pair observed twice: the largest result
    PairwiseData.from_matrix(P[:50, :50])  # warm up
    data, peak = _peak(lambda: PairwiseData.from_matrix(P))
    assert data.n_pairs == 2000 * 1999 // 2
    # the result alone (int32 i, int32 j, float64 p: 16 bytes per pair) is 2.0 x a float32 input
    assert peak / P.nbytes <= 2.5, peak / P.nbytes


@pytest.mark.parametrize("n", [2, 3, 257, 600])
def test_from_matrix_in_blocks_gives_the_dense_reference(n):
    P = _consistent_matrix(n, seed=n, dtype=np.float64, missing=0.3)
    P[0, 1], P[1, 0] = 0.25, np.nan  # one observed pair at least
    data = PairwiseData.from_matrix(P)
    iu, ju = np.triu_indices(n, 1)
    up, lo = P[iu, ju], P[ju, iu]
    keep = ~np.isnan(up) | ~np.isnan(lo)
    np.testing.assert_array_equal(data.i, iu[keep])
    np.testing.assert_array_equal(data.j, ju[keep])
    np.testing.assert_array_equal(data.p, np.where(~np.isnan(up), up, 1.0 - lo)[keep])
    assert data.n_players == n and data.weights == "uniform" and data.n_games is None


def test_from_matrix_names_the_first_bad_entry_in_row_major_order_across_blocks():
    P = _consistent_matrix(600, missing=0.0)
    P[599, 3] = 1.5  # late row, early column: found in its own row, not before row 400's entry
    P[400, 500] = -0.25
    with pytest.raises(ValueError, match=r"P\[400, 500\] = -0.25 is not a probability in \[0, 1\]"):
        PairwiseData.from_matrix(P)
    P = _consistent_matrix(600, missing=0.0)
    P[590, 20] = np.float32(0.125) if P[20, 590] != 0.875 else np.float32(0.25)
    with pytest.raises(ValueError, match=r"P\[20, 590\] \+ P\[590, 20\] = .* not 1"):
        PairwiseData.from_matrix(P)


def test_label_lookup_is_exact_across_query_types():
    from discrank._util.labels import LabelIndex

    index = LabelIndex(np.array([1, 2**63 + 5], dtype=np.uint64))
    # too big for any integer type, text, a bool and None are never labels; 1.0 is exactly 1
    assert index.lookup([2**70, "x", 1, True, 1.0, np.uint64(2**63 + 5), None]).tolist() == [-1, -1, 0, -1, 0, 1, -1]
    assert index.lookup(np.array([-1, 1], dtype=np.int64)).tolist() == [-1, 0]  # -1 never wraps onto 2^64 - 1
    assert LabelIndex(["a", "b"]).lookup(["b", 1, None, ["x"]]).tolist() == [1, -1, -1, -1]
