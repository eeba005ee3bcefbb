"""The two label columns of a game log, the context (a surface, a time control, a map) and the match format
("bo3", "bo5" in tennis), checked, carried and read alike: each test runs once for each column (LABELS).
GameLog.from_arrays and the constructor with their checks, the filters, splits and shuffle_sides that carry
the labels game by game, to_pairs that drops them, and the readers (from_frame, read_csv, read_parquet) with
their invalid rows ("missing context", "missing match format"). What is one column's own stays in
tests/test_log_context.py and tests/test_log_format.py."""

import re
from typing import NamedTuple

import numpy as np
import pandas as pd
import pytest

from _logs import A, B, S, SURFACE, T, caught, log6
from discrank import GameLog
from discrank.exceptions import UnusedColumnWarning

FORMAT = ["bo3", "bo5", "bo3", "bo3", "bo5", "bo5"]


class Label(NamedTuple):
    """A label column: its keyword (the attribute of the log too), its invalid kind, its name in the readers'
    messages, text labels and integer labels of the six games, and the frame's columns that hold them."""

    kw: str
    kind: str
    name: str
    text: list
    text_col: str
    ints: list
    int_col: str

    def of(self, log):
        return getattr(log, self.kw)


LABELS = [
    pytest.param(Label("context", "missing context", "the context", SURFACE, "surface", [1, 2, 3, 1, 2, 3],
                       "control"), id="context"),  # say time controls by code
    pytest.param(Label("match_format", "missing match format", "the match format", FORMAT, "fmt", [3, 5, 3, 3, 5, 5],
                       "best_of"), id="match_format"),  # best of 3, best of 5
]

each_label = pytest.mark.parametrize("label", LABELS)


# ------------------------------------------------------------------ from_arrays and the constructor
@each_label
def test_from_arrays_keeps_text_labels_as_an_object_array_of_str(label):
    values = label.of(log6(**{label.kw: label.text}))
    assert values.dtype == object
    assert values.tolist() == label.text
    assert all(type(v) is str for v in values)


@each_label
def test_from_arrays_keeps_integer_labels_as_int64_and_float_ones_as_float64(label):
    values = label.of(log6(**{label.kw: label.ints}))
    assert values.dtype == np.int64 and values.tolist() == label.ints
    floats = [float(v) for v in label.ints]
    values = label.of(log6(**{label.kw: np.array(floats)}))
    assert values.dtype == np.float64 and values.tolist() == floats


@each_label
def test_a_log_without_the_label_has_none(label):
    assert label.of(log6()) is None


@each_label
def test_a_log_with_one_label_value_is_accepted(label):
    # a week of clay games is a valid update; a fit that needs two contexts refuses it, not the log
    assert label.of(log6(**{label.kw: [label.text[0]] * 6})).tolist() == [label.text[0]] * 6


@each_label
def test_the_constructor_converts_and_checks_the_label_as_from_arrays_does(label):
    log = GameLog(np.array(A), np.array(B), np.array(S), **{label.kw: list(label.text)})
    assert label.of(log).dtype == object and label.of(log).tolist() == label.text
    with pytest.raises(ValueError, match=re.escape(f"{label.kw} has a missing value (None) at game 0")):
        GameLog(np.array(A), np.array(B), np.array(S), **{label.kw: [None] + label.text[1:]})


@each_label
def test_a_label_of_the_wrong_length_names_both_lengths(label):
    with pytest.raises(ValueError, match=re.escape(f"found columns of inconsistent lengths: score has 6, "
                                                   f"{label.kw} has 5")):
        log6(**{label.kw: label.text[:5]})


@each_label
def test_a_label_that_is_not_1d_is_refused_with_its_shape(label):
    with pytest.raises(ValueError, match=re.escape(f"{label.kw} must be 1-D (one label per game), got shape (6, 1)")):
        log6(**{label.kw: np.array(label.text)[:, None]})


@each_label
@pytest.mark.parametrize("missing, shown", [(np.nan, "nan"), (None, "None"), ("", "''"), ("  ", "'  '")])
def test_a_missing_label_names_its_game_and_value(label, missing, shown):
    values = list(label.text)
    values[3] = missing
    with pytest.raises(ValueError, match=re.escape(
            f"{label.kw} has a missing value ({shown}) at game 3: every game needs its {label.kw} (drop the "
            f"game, or give it a {label.kw} of its own such as 'unknown')")):
        log6(**{label.kw: values})


@each_label
def test_a_nan_in_a_float_label_array_names_its_game(label):
    values = np.array(label.ints, dtype=float)
    values[4] = np.nan
    with pytest.raises(ValueError, match=re.escape(f"{label.kw} has a missing value (nan) at game 4")):
        log6(**{label.kw: values})


@each_label
def test_labels_of_mixed_kinds_are_refused_naming_each_kind(label):
    values = [label.text[0], label.ints[1]] + label.text[2:]
    with pytest.raises(ValueError, match=re.escape(
            f"{label.kw} mixes label types: strings (first {label.text[0]!r} at position 0), "
            f"numbers (first {label.ints[1]} at position 1)")):
        log6(**{label.kw: values})


@each_label
@pytest.mark.parametrize("kind, word", [("bool", "bools"), ("bytes", "bytes")])
def test_bool_and_bytes_labels_are_refused_as_labels_are(label, kind, word):
    values = [True, False] * 3 if kind == "bool" else [label.text[0].encode()] * 6
    with pytest.raises(TypeError, match=f"{label.kw} holds {word}"):
        log6(**{label.kw: values})


# ------------------------------------------------------------------ carried game by game
@each_label
def test_filter_keeps_each_games_label(label):
    log = log6(**{label.kw: label.text})
    window = log.filter(start=2, end=6)  # times 2, 5, 4, 3: games 1, 2, 4, 5
    assert label.of(window).tolist() == [label.text[k] for k in (1, 2, 4, 5)]
    # players with 2+ games among those four: q (1, 5), r (1, 2, 4), s (2, 5), p (4); p's game 4 goes, then
    # every one left keeps two
    active = window.filter(min_player_games=2)
    assert active.a.tolist() == ["q", "r", "q"] and active.b.tolist() == ["r", "s", "s"]
    assert label.of(active).tolist() == [label.text[k] for k in (1, 2, 5)]


@each_label
def test_sorted_by_time_moves_the_label_with_its_game(label):
    log = log6(**{label.kw: label.text}).sorted_by_time()  # times 6 2 5 1 4 3: order 3, 1, 5, 4, 2, 0
    assert log.time.tolist() == [1, 2, 3, 4, 5, 6]
    assert label.of(log).tolist() == [label.text[k] for k in (3, 1, 5, 4, 2, 0)]


@each_label
def test_split_time_gives_each_part_its_games_labels(label):
    past, future = log6(**{label.kw: label.text}).split_time(1 / 3)  # the cut after round(4.0) = 4 games
    assert past.time.tolist() == [1, 2, 3, 4] and future.time.tolist() == [5, 6]
    assert label.of(past).tolist() == [label.text[k] for k in (3, 1, 5, 4)]
    assert label.of(future).tolist() == [label.text[k] for k in (2, 0)]


@each_label
def test_shuffle_sides_keeps_label_i_with_game_i(label):
    values = [f"game{i}" for i in range(6)]  # a label that names its game
    log = log6(**{label.kw: values})
    out = log.shuffle_sides(0)
    swapped = np.asarray(out.a) != np.asarray(log.a)
    assert swapped.sum() == 3  # len // 2 of the games have their sides swapped: the check is not vacuous
    assert label.of(out).tolist() == values  # the game's label, whichever side is a
    np.testing.assert_array_equal(np.where(swapped, out.b, out.a), log.a)
    assert label.of(out) is not label.of(log)  # a copy: the shuffled log does not share the array


@each_label
def test_a_log_taken_from_a_log_without_the_label_has_none(label):
    log = log6()
    assert label.of(log.filter(start=2)) is None and label.of(log.shuffle_sides(1)) is None
    assert all(label.of(part) is None for part in log.split_time(0.5))


@each_label
def test_to_pairs_drops_the_label_and_names_it(label):
    with pytest.warns(UnusedColumnWarning, match=f"the pairs keep no {label.kw} column"):
        with_label = log6(**{label.kw: label.text}).to_pairs()
    without = log6().to_pairs()
    for name in ("i", "j", "p", "n_games"):
        np.testing.assert_array_equal(getattr(with_label, name), getattr(without, name))
    assert not hasattr(with_label, label.kw)


# ------------------------------------------------------------------ the readers
def frame():
    return pd.DataFrame({"w": A, "l": B, "s": S, "t": T, "surface": SURFACE, "control": [1, 2, 3, 1, 2, 3],
                         "fmt": FORMAT, "best_of": [3, 5, 3, 3, 5, 5]})


@each_label
def test_from_frame_reads_the_label_column(label):
    log = GameLog.from_frame(frame(), a="w", b="l", score="s", time="t", **{label.kw: label.text_col})
    assert label.of(log).tolist() == label.text and label.of(log).dtype == object
    log = GameLog.from_frame(frame(), a="w", b="l", score="s", **{label.kw: label.int_col})
    assert label.of(log).tolist() == label.ints
    assert label.of(GameLog.from_frame(frame(), a="w", b="l", score="s")) is None


@each_label
def test_a_label_column_not_in_the_frame_is_named(label):
    with pytest.raises(ValueError, match=re.escape(f"column 'absent' (for {label.kw}) is not in the frame")):
        GameLog.from_frame(frame(), a="w", b="l", score="s", **{label.kw: "absent"})


@each_label
@pytest.mark.parametrize("missing, shown", [(np.nan, "nan"), (None, "None"), ("", "''")])
def test_from_frame_raises_on_a_missing_label_naming_the_row(label, missing, shown):
    df = frame().astype({label.text_col: object})
    df.loc[2, label.text_col] = missing
    with pytest.raises(ValueError, match=re.escape(f"column '{label.text_col}' ({label.name}) has no value at row 2 "
                                                   f"({shown}): drop or fill the row")):
        GameLog.from_frame(df, a="w", b="l", score="s", **{label.kw: label.text_col})


@each_label
def test_from_frame_drops_and_counts_missing_labels(label):
    df = frame().astype({label.text_col: object})
    df.loc[1, label.text_col] = None
    df.loc[4, label.text_col] = ""
    log, seen = caught(GameLog.from_frame, df, a="w", b="l", score="s", time="t", invalid="drop",
                       **{label.kw: label.text_col})
    assert log.dropped == {label.kind: 2}
    assert len(seen) == 1 and f"2 {label.kind} (rows 1, 4)" in str(seen[0].message)
    assert label.of(log).tolist() == [label.text[k] for k in (0, 2, 3, 5)]
    assert log.time.tolist() == [6, 5, 1, 3]


@each_label
def test_a_row_without_a_player_is_counted_as_a_missing_name_not_a_missing_label(label):
    df = frame().astype({label.text_col: object, "w": object})
    df.loc[0, ["w", label.text_col]] = [None, None]
    log, _ = caught(GameLog.from_frame, df, a="w", b="l", score="s", invalid="drop", **{label.kw: label.text_col})
    assert log.dropped == {"missing player name": 1}


@each_label
def test_integer_labels_read_as_floats_because_of_a_missing_one_are_integers_again(label):
    df = frame().astype({label.int_col: float})
    df.loc[3, label.int_col] = np.nan
    log, _ = caught(GameLog.from_frame, df, a="w", b="l", score="s", invalid="drop", **{label.kw: label.int_col})
    assert label.of(log).dtype == np.int64 and label.of(log).tolist() == label.ints[:3] + label.ints[4:]
    assert log.dropped == {label.kind: 1}


@each_label
def test_read_csv_reads_the_label_and_raises_or_drops_a_missing_one(label, tmp_path):
    path, col = tmp_path / "games.csv", {label.kw: label.text_col}
    frame().to_csv(path, index=False)
    assert label.of(GameLog.read_csv(path, a="w", b="l", score="s", **col)).tolist() == label.text
    df = frame()
    df.loc[5, label.text_col] = None  # an empty field in the file
    df.to_csv(path, index=False)
    with pytest.raises(ValueError, match=re.escape(f"column '{label.text_col}' ({label.name}) has no value at row 5 "
                                                   "(nan)")):
        GameLog.read_csv(path, a="w", b="l", score="s", **col)
    log, seen = caught(GameLog.read_csv, path, a="w", b="l", score="s", invalid="drop", **col)
    assert log.dropped == {label.kind: 1} and len(seen) == 1
    assert label.of(log).tolist() == label.text[:5]


@each_label
def test_read_parquet_reads_the_label_and_raises_or_drops_a_missing_one(label, tmp_path):
    pytest.importorskip("pyarrow", reason="reading Parquet needs pyarrow")
    path, col = tmp_path / "games.parquet", {label.kw: label.text_col}
    frame().to_parquet(path)
    assert label.of(GameLog.read_parquet(path, a="w", b="l", score="s", **col)).tolist() == label.text
    df = frame().astype({label.text_col: object})
    df.loc[0, label.text_col] = None
    df.to_parquet(path)
    with pytest.raises(ValueError, match=re.escape(f"column '{label.text_col}' ({label.name}) has no value at row 0")):
        GameLog.read_parquet(path, a="w", b="l", score="s", **col)
    log, _ = caught(GameLog.read_parquet, path, a="w", b="l", score="s", invalid="drop", **col)
    assert log.dropped == {label.kind: 1} and label.of(log).tolist() == label.text[1:]


@each_label
def test_read_parquet_refuses_a_label_column_of_lists_naming_it(label, tmp_path):
    pytest.importorskip("pyarrow", reason="reading Parquet needs pyarrow")
    path = tmp_path / "games.parquet"
    df = frame()
    df[label.text_col] = [[v] for v in label.text]
    df.to_parquet(path)
    with pytest.raises(ValueError, match=re.escape(f"column '{label.text_col}' (for {label.kw}) has the type list<")):
        GameLog.read_parquet(path, a="w", b="l", score="s", **{label.kw: label.text_col})
