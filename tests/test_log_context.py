"""The context column of a game log (a surface, a time control, a map): GameLog.from_arrays and the
constructor, the filters and splits that carry it game by game, shuffle_sides, and the readers
(from_frame, read_csv, read_parquet) with its invalid rows ("missing context")."""

import re
import warnings

import numpy as np
import pandas as pd
import pytest

from discrank import GameLog
from discrank._screen import BAD_COVARIATE, MISSING_CONTEXT, MISSING_COVARIATE
from discrank.exceptions import InvalidRowsWarning
from discrank.logs import INVALID_KINDS

A = ["p", "q", "r", "s", "p", "q"]
B = ["q", "r", "s", "p", "r", "s"]
S = [1.0, 0.0, 0.5, 1.0, 0.0, 1.0]
T = [6, 2, 5, 1, 4, 3]
SURFACE = ["Clay", "Hard", "Grass", "Clay", "Hard", "Clay"]


def log6(**kw):
    return GameLog.from_arrays(A, B, S, T, **kw)


def caught(fn, *args, **kw):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        out = fn(*args, **kw)
    return out, [w for w in seen if issubclass(w.category, InvalidRowsWarning)]


# ------------------------------------------------------------------ from_arrays and the constructor
def test_from_arrays_keeps_text_contexts_as_an_object_array_of_str():
    log = log6(context=SURFACE)
    assert log.context.dtype == object
    assert log.context.tolist() == SURFACE
    assert all(type(c) is str for c in log.context)


def test_from_arrays_keeps_integer_contexts_as_int64():
    log = log6(context=[1, 2, 3, 1, 2, 3])  # say time controls by code
    assert log.context.dtype == np.int64
    assert log.context.tolist() == [1, 2, 3, 1, 2, 3]


def test_a_log_without_context_has_none():
    assert log6().context is None


def test_a_log_with_one_context_value_is_accepted():
    # a week of clay games is a valid update; a fit that needs two contexts refuses it, not the log
    log = log6(context=["Clay"] * 6)
    assert log.context.tolist() == ["Clay"] * 6


def test_the_constructor_converts_and_checks_the_context_as_from_arrays_does():
    log = GameLog(np.array(A), np.array(B), np.array(S), None, {}, None, (), ["Clay", "Hard", "Grass", "Clay",
                                                                           "Hard", "Clay"])
    assert log.context.dtype == object and log.context.tolist() == SURFACE
    with pytest.raises(ValueError, match=re.escape("context has a missing value (None) at game 0")):
        GameLog(np.array(A), np.array(B), np.array(S), context=[None, "Hard", "Grass", "Clay", "Hard", "Clay"])


def test_a_context_of_the_wrong_length_names_both_lengths():
    with pytest.raises(ValueError, match=re.escape("found columns of inconsistent lengths: score has 6, context has 5")):
        log6(context=SURFACE[:5])


def test_a_context_that_is_not_1d_is_refused_with_its_shape():
    with pytest.raises(ValueError, match=re.escape("context must be 1-D (one label per game), got shape (6, 1)")):
        log6(context=np.array(SURFACE)[:, None])


@pytest.mark.parametrize("missing, shown", [(np.nan, "nan"), (None, "None"), ("", "''"), ("  ", "'  '")])
def test_a_missing_context_names_its_game_and_value(missing, shown):
    context = list(SURFACE)
    context[3] = missing
    with pytest.raises(ValueError, match=re.escape(f"context has a missing value ({shown}) at game 3")):
        log6(context=context)


def test_a_nan_in_a_float_context_array_names_its_game():
    with pytest.raises(ValueError, match=re.escape("context has a missing value (nan) at game 4")):
        log6(context=np.array([1.0, 2.0, 3.0, 1.0, np.nan, 2.0]))


def test_contexts_of_mixed_kinds_are_refused_naming_each_kind():
    with pytest.raises(ValueError, match=re.escape("context mixes label types: strings (first 'Clay' at position 0), "
                                                   "numbers (first 2 at position 1)")):
        log6(context=["Clay", 2, "Grass", "Clay", "Hard", "Clay"])


@pytest.mark.parametrize("context, word", [([True, False] * 3, "bools"), ([b"Clay"] * 6, "bytes")])
def test_bool_and_bytes_contexts_are_refused_as_labels_are(context, word):
    with pytest.raises(TypeError, match=f"context holds {word}"):
        log6(context=context)


# ------------------------------------------------------------------ carried game by game
def test_filter_keeps_each_games_context():
    log = log6(context=SURFACE)
    window = log.filter(start=2, end=6)  # times 2, 5, 4, 3: games 1, 2, 4, 5
    assert window.context.tolist() == ["Hard", "Grass", "Hard", "Clay"]
    # players with 2+ games among those four: q (1, 5), r (1, 2, 4), s (2, 5), p (4); p's game 4 goes, then
    # every one left keeps two
    active = window.filter(min_player_games=2)
    assert active.a.tolist() == ["q", "r", "q"] and active.b.tolist() == ["r", "s", "s"]
    assert active.context.tolist() == ["Hard", "Grass", "Clay"]


def test_sorted_by_time_moves_the_context_with_its_game():
    log = log6(context=SURFACE).sorted_by_time()  # times 6 2 5 1 4 3: order 3, 1, 5, 4, 2, 0
    assert log.time.tolist() == [1, 2, 3, 4, 5, 6]
    assert log.context.tolist() == ["Clay", "Hard", "Clay", "Hard", "Grass", "Clay"]


def test_split_time_gives_each_part_its_games_contexts():
    past, future = log6(context=SURFACE).split_time(1 / 3)  # the cut after round(4.0) = 4 games
    assert past.time.tolist() == [1, 2, 3, 4] and future.time.tolist() == [5, 6]
    assert past.context.tolist() == ["Clay", "Hard", "Clay", "Hard"]
    assert future.context.tolist() == ["Grass", "Clay"]


def test_shuffle_sides_keeps_context_i_with_game_i():
    context = [f"map{i}" for i in range(6)]  # a context that names its game
    log = log6(context=context)
    out = log.shuffle_sides(0)
    swapped = np.asarray(out.a) != np.asarray(log.a)
    assert swapped.sum() == 3  # len // 2 of the games have their sides swapped: the check is not vacuous
    assert out.context.tolist() == context  # the game's context, whichever side is a
    np.testing.assert_array_equal(np.where(swapped, out.b, out.a), log.a)
    assert out.context is not log.context  # a copy: the shuffled log does not share the array


def test_a_log_taken_from_a_log_without_context_has_none():
    log = log6()
    assert log.filter(start=2).context is None and log.shuffle_sides(1).context is None
    assert all(part.context is None for part in log.split_time(0.5))


def test_to_pairs_ignores_the_context():
    with_context, without = log6(context=SURFACE).to_pairs(), log6().to_pairs()
    for name in ("i", "j", "p", "n_games"):
        np.testing.assert_array_equal(getattr(with_context, name), getattr(without, name))


# ------------------------------------------------------------------ the readers
def frame():
    return pd.DataFrame({"w": A, "l": B, "s": S, "t": T, "surface": SURFACE, "control": [1, 2, 3, 1, 2, 3]})


def test_from_frame_reads_the_context_column():
    log = GameLog.from_frame(frame(), a="w", b="l", score="s", time="t", context="surface")
    assert log.context.tolist() == SURFACE and log.context.dtype == object
    assert GameLog.from_frame(frame(), a="w", b="l", score="s", context="control").context.tolist() == [1, 2, 3, 1, 2, 3]
    assert GameLog.from_frame(frame(), a="w", b="l", score="s").context is None


def test_a_context_column_not_in_the_frame_is_named():
    with pytest.raises(ValueError, match=re.escape("column 'map' (for context) is not in the frame")):
        GameLog.from_frame(frame(), a="w", b="l", score="s", context="map")


@pytest.mark.parametrize("missing, shown", [(np.nan, "nan"), (None, "None"), ("", "''")])
def test_from_frame_raises_on_a_missing_context_naming_the_row(missing, shown):
    df = frame().astype({"surface": object})
    df.loc[2, "surface"] = missing
    with pytest.raises(ValueError, match=re.escape(f"column 'surface' (the context) has no value at row 2 ({shown}): "
                                                   "drop or fill the row")):
        GameLog.from_frame(df, a="w", b="l", score="s", context="surface")


def test_from_frame_drops_and_counts_missing_contexts():
    df = frame().astype({"surface": object})
    df.loc[1, "surface"] = None
    df.loc[4, "surface"] = ""
    log, seen = caught(GameLog.from_frame, df, a="w", b="l", score="s", time="t", context="surface", invalid="drop")
    assert log.dropped == {"missing context": 2}
    assert len(seen) == 1 and "2 missing context (rows 1, 4)" in str(seen[0].message)
    assert log.context.tolist() == ["Clay", "Grass", "Clay", "Clay"]  # games 0, 2, 3, 5
    assert log.time.tolist() == [6, 5, 1, 3]


def test_a_row_without_a_player_is_counted_as_a_missing_name_not_a_missing_context():
    df = frame().astype({"surface": object, "w": object})
    df.loc[0, ["w", "surface"]] = [None, None]
    log, _ = caught(GameLog.from_frame, df, a="w", b="l", score="s", context="surface", invalid="drop")
    assert log.dropped == {"missing player name": 1}


def test_integer_contexts_read_as_floats_because_of_a_missing_one_are_integers_again():
    df = frame().astype({"control": float})
    df.loc[3, "control"] = np.nan
    log, _ = caught(GameLog.from_frame, df, a="w", b="l", score="s", context="control", invalid="drop")
    assert log.context.dtype == np.int64 and log.context.tolist() == [1, 2, 3, 2, 3]
    assert log.dropped == {"missing context": 1}


def test_read_csv_reads_the_context_and_raises_or_drops_a_missing_one(tmp_path):
    path = tmp_path / "games.csv"
    frame().to_csv(path, index=False)
    assert GameLog.read_csv(path, a="w", b="l", score="s", context="surface").context.tolist() == SURFACE
    df = frame()
    df.loc[5, "surface"] = None  # an empty field in the file
    df.to_csv(path, index=False)
    with pytest.raises(ValueError, match=re.escape("column 'surface' (the context) has no value at row 5 (nan)")):
        GameLog.read_csv(path, a="w", b="l", score="s", context="surface")
    log, seen = caught(GameLog.read_csv, path, a="w", b="l", score="s", context="surface", invalid="drop")
    assert log.dropped == {"missing context": 1} and len(seen) == 1
    assert log.context.tolist() == SURFACE[:5]


def test_read_parquet_reads_the_context_and_raises_or_drops_a_missing_one(tmp_path):
    pytest.importorskip("pyarrow", reason="reading Parquet needs pyarrow")
    path = tmp_path / "games.parquet"
    frame().to_parquet(path)
    assert GameLog.read_parquet(path, a="w", b="l", score="s", context="surface").context.tolist() == SURFACE
    df = frame().astype({"surface": object})
    df.loc[0, "surface"] = None
    df.to_parquet(path)
    with pytest.raises(ValueError, match=re.escape("column 'surface' (the context) has no value at row 0")):
        GameLog.read_parquet(path, a="w", b="l", score="s", context="surface")
    log, _ = caught(GameLog.read_parquet, path, a="w", b="l", score="s", context="surface", invalid="drop")
    assert log.dropped == {"missing context": 1} and log.context.tolist() == SURFACE[1:]


def test_read_parquet_refuses_a_context_column_of_lists_naming_it(tmp_path):
    pytest.importorskip("pyarrow", reason="reading Parquet needs pyarrow")
    path = tmp_path / "games.parquet"
    df = frame()
    df["surface"] = [["Clay"], ["Hard"], ["Grass"], ["Clay"], ["Hard"], ["Clay"]]
    df.to_parquet(path)
    with pytest.raises(ValueError, match=r"column 'surface' \(for context\) has the type list<"):
        GameLog.read_parquet(path, a="w", b="l", score="s", context="surface")


def test_missing_context_is_the_tenth_invalid_kind_and_the_others_keep_their_codes():
    assert INVALID_KINDS[9] == "missing context"  # (the margins' kinds follow it: tests/test_log_margin.py)
    assert INVALID_KINDS[MISSING_CONTEXT - 1] == "missing context"
    assert (MISSING_COVARIATE, BAD_COVARIATE, MISSING_CONTEXT) == (8, 9, 10)
    assert INVALID_KINDS[MISSING_COVARIATE - 1] == "missing covariate"
