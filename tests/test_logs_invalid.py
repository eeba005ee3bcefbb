"""Dirty game logs (issue 14): invalid rows raise by default, or are dropped and reported with invalid="drop"."""

import re
import warnings

import numpy as np
import pandas as pd
import pytest

import discrank
from discrank import GameLog, InvalidRowsWarning, PairwiseData, read_pgn
from discrank.cli import main
from discrank.data.logs import INVALID_KINDS

from _data import DATA

ATP_FILE = "tennis_atp/atp_matches_singles_all_levels.csv.xz"
ATP = DATA / ATP_FILE
needs_atp = pytest.mark.data(ATP_FILE)


def caught(fn, *args, **kwargs):
    """fn's result and every warning it emitted, as (category, message)."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        out = fn(*args, **kwargs)
    return out, [(w.category, str(w.message)) for w in seen]


def dirty_frame():
    """Rows 0, 4, 8, 9 valid; one invalid row of each kind in between."""
    return pd.DataFrame({
        "a": ["x", "y", None, "z", "x", "", "y", "z", "y", "x"],
        "b": ["y", "y", "x", "x", "z", "x", "z", "y", "x", "z"],
        "s": ["1-0", 1.0, 0.0, "3-0", 0.5, 1.0, np.nan, 1.5, "0-1", 1.0],
        "t": ["2024-01-01", "2024-01-02", "2024-01-03", "2024-01-04", "2024-01-05", "2024-01-06", "2024-01-07",
              "2024-01-08", "2024-01-09", "someday"],
    })


# ------------------------------------------------------------------------------------ raise (the default)
@pytest.mark.parametrize("column, value, message", [
    ("b", "x", "game 1 is player 'x' against themself (row 1)"),
    ("b", None, "column 'b' is missing a player at row 1"),
    ("a", np.nan, "column 'a' is missing a player at row 1"),
    ("a", "  ", "column 'a' is missing a player at row 1 (the name '  ')"),
    ("s", np.nan, "column 's' has no result at row 1 (NaN)"),
    ("s", "", "column 's' has no result at row 1 ('')"),
    ("s", "3-0", "s[1] = '3-0' is not a result at row 1"),
    ("s", 1.5, "s[1] = 1.5 is not a score in [0, 1] at row 1"),
    ("s", -0.5, "s[1] = -0.5 is not a score in [0, 1] at row 1"),
    ("s", "2", "s[1] = '2' is not a score in [0, 1] at row 1"),
    ("t", None, "column 't' has no time at row 1"),
    ("t", "someday", "t[1] = 'someday' is not a time at row 1"),
])
def test_raise_names_the_row_and_the_value(column, value, message):
    df = pd.DataFrame({"a": ["x", "x", "y"], "b": ["y", "z", "z"], "s": [1.0, 0.0, 0.5],
                       "t": ["2024-01-01", "2024-01-02", "2024-01-03"]}, dtype=object)
    df.loc[1, column] = value
    with pytest.raises(ValueError) as info:
        GameLog.from_frame(df, score="s", time="t")
    assert message in str(info.value) and 'invalid="drop"' in str(info.value)
    with pytest.raises(ValueError, match="row 1"):
        PairwiseData.from_frame(df, score="s", time="t")


def test_an_arena_winner_column_names_the_winning_side_and_both_ties_are_draws(tmp_path):
    # Chatbot Arena's files: winner is "model_a", "model_b", "tie" or "tie (bothbad)"
    df = pd.DataFrame({"model_a": ["gpt", "claude", "gpt", "llama", "gpt"],
                       "model_b": ["claude", "llama", "llama", "gpt", "claude"],
                       "winner": ["model_a", "model_b", "tie", "tie (bothbad)", " model_b "]})
    log = GameLog.from_frame(df, a="model_a", b="model_b", winner="winner")
    assert log.score.tolist() == [1.0, 0.0, 0.5, 0.5, 0.0]
    df.to_csv(tmp_path / "battles.csv", index=False)
    again = GameLog.read_csv(tmp_path / "battles.csv", a="model_a", b="model_b", winner="winner")
    assert again.score.tolist() == log.score.tolist()
    pairs = discrank.scan_games(tmp_path / "battles.csv", a="model_a", b="model_b", winner="winner")
    assert pairs.n_games.sum() == 5 and np.isclose((pairs.p * pairs.n_games).sum(), log.to_pairs().p @ log.to_pairs().n_games)
    # a model named "model_b" in the column of a, given as the winner: two readings, refused
    named = pd.DataFrame({"model_a": ["model_b"], "model_b": ["x"], "winner": ["model_b"]})
    with pytest.raises(ValueError, match="reads two ways"):
        GameLog.from_frame(named, a="model_a", b="model_b", winner="winner")
    with pytest.raises(ValueError, match=re.escape("winner[0] = 'model_c' is neither player of that game ('gpt', "
                                                   "'claude'), nor a player's column ('model_a', 'model_b')")):
        GameLog.from_frame(df.assign(winner=["model_c"] * 5), a="model_a", b="model_b", winner="winner")


@pytest.mark.parametrize("winner, message", [
    ("nobody", "winner[1] = 'nobody' is neither player of that game ('x', 'z'), nor a player's column ('a', 'b'), "
               "nor a draw marker"),
    (None, "column 'w' has no result at row 1 (NaN)"),
])
def test_raise_on_a_bad_winner(winner, message):
    df = pd.DataFrame({"a": ["x", "x", "y"], "b": ["y", "z", "z"], "w": ["x", winner, "draw"]})
    with pytest.raises(ValueError) as info:
        GameLog.from_frame(df, winner="w")
    assert message in str(info.value) and "row 1" in str(info.value)


def test_the_first_invalid_row_is_the_one_named():
    with pytest.raises(ValueError, match=r"game 1 is player 'y' against themself \(row 1\)"):
        GameLog.from_frame(dirty_frame(), score="s", time="t")


# ------------------------------------------------------------------------------------ drop and report
def test_drop_counts_each_kind_and_names_the_first_rows():
    log, seen = caught(GameLog.from_frame, dirty_frame(), score="s", time="t", invalid="drop", max_invalid=1)
    assert log.dropped == {"missing player name": 2, "player against themself": 1, "missing result": 1,
                           "unparseable result": 2, "unparseable time": 1}
    assert seen == [(InvalidRowsWarning,
                     "dropped 7 of 10 rows: 2 missing player name (rows 2, 5), 1 player against themself (row 1), "
                     "1 missing result (row 6), 2 unparseable result (rows 3, 7), 1 unparseable time (row 9)")]
    assert log.a.tolist() == ["x", "x", "y"] and log.b.tolist() == ["y", "z", "x"]  # rows 0, 4, 8
    assert log.score.tolist() == [1.0, 0.5, 0.0]
    assert log.time.astype("datetime64[D]").astype(str).tolist() == ["2024-01-01", "2024-01-05", "2024-01-09"]
    assert set(log.dropped) <= set(INVALID_KINDS)
    # without time=, the time column is not read, so row 9 is valid
    log, seen = caught(GameLog.from_frame, dirty_frame(), score="s", invalid="drop", max_invalid=0.6)
    assert "unparseable time" not in log.dropped and len(log) == 4 and len(seen) == 1
    assert seen[0][1].startswith("dropped 6 of 10 rows: ")


def test_the_row_list_is_cut_after_five():
    df = pd.DataFrame({"a": ["x", "y"] * 10, "b": ["x", "z"] * 10, "s": [1.0] * 20})
    log, seen = caught(GameLog.from_frame, df, score="s", invalid="drop")
    assert log.dropped == {"player against themself": 10} and len(log) == 10
    assert seen == [(InvalidRowsWarning,
                     "dropped 10 of 20 rows: 10 player against themself (rows 0, 2, 4, 6, 8, ...)")]


def test_a_winner_column_with_invalid_rows():
    df = pd.DataFrame({"a": ["x", "x", "y", "z", "x"], "b": ["y", "z", "z", "z", "y"],
                       "w": ["x", "nobody", "Draw", "z", None]})
    log, seen = caught(GameLog.from_frame, df, winner="w", invalid="drop", max_invalid=0.6)
    assert log.score.tolist() == [1.0, 0.5]
    assert log.dropped == {"player against themself": 1, "missing result": 1, "unparseable result": 1}
    assert seen == [(InvalidRowsWarning, "dropped 3 of 5 rows: 1 player against themself (row 3), "
                                         "1 missing result (row 4), 1 unparseable result (row 1)")]


def test_nothing_dropped_means_no_warning_and_an_empty_dict():
    df = pd.DataFrame({"a": ["x", "y"], "b": ["y", "z"], "s": [1.0, 0.0]})
    log, seen = caught(GameLog.from_frame, df, score="s", invalid="drop")
    assert seen == [] and log.dropped == {} and len(log) == 2
    assert GameLog.from_frame(df, score="s").dropped == {}
    assert GameLog.from_arrays(["x"], ["y"], [1.0]).dropped == {}


def test_the_counts_follow_sorting_and_filtering():
    log, _ = caught(GameLog.from_frame, dirty_frame(), score="s", time="t", invalid="drop", max_invalid=1)
    assert log.sorted_by_time().dropped == log.dropped
    assert log.filter(start="2024-01-02").dropped == log.dropped


def test_every_row_invalid_is_an_error_that_reports_them():
    df = pd.DataFrame({"a": ["x", "y"], "b": ["x", "y"], "s": [1.0, 0.0]})
    with pytest.raises(ValueError, match=r"no valid game is left: dropped 2 of 2 rows: 2 player against themself"):
        GameLog.from_frame(df, score="s", invalid="drop")


def test_float_ids_with_a_missing_one_are_integers_again():
    df = pd.DataFrame({"a": [1.0, 2.0, np.nan], "b": [2.0, 3.0, 1.0], "s": [1.0, 0.0, 1.0]})
    log, seen = caught(GameLog.from_frame, df, score="s", invalid="drop")
    assert log.a.dtype.kind == "i" and log.a.tolist() == [1, 2] and log.dropped == {"missing player name": 1}


@pytest.mark.parametrize("call", [
    lambda bad: GameLog.from_frame(pd.DataFrame({"a": ["x"], "b": ["y"], "s": [1.0]}), score="s", invalid=bad),
    lambda bad: PairwiseData.from_frame(pd.DataFrame({"a": ["x"], "b": ["y"], "s": [1.0]}), score="s", invalid=bad),
    lambda bad: GameLog.read_csv("/nonexistent/games.csv", score="s", invalid=bad),
    lambda bad: GameLog.read_parquet("/nonexistent/games.parquet", score="s", invalid=bad),
    lambda bad: read_pgn("/nonexistent/games.pgn", invalid=bad),
])
@pytest.mark.parametrize("bad", ["skip", "Drop", None, True])
def test_an_unknown_invalid_is_refused_with_the_choices(call, bad):
    with pytest.raises(ValueError) as info:
        call(bad)
    assert f"invalid={bad!r} is not one of ('raise', 'drop')" in str(info.value)


def test_the_warning_points_at_the_callers_line():
    df = pd.DataFrame({"a": ["x", "y", "y"], "b": ["y", "z", "y"], "s": [1.0, 0.0, 1.0]})
    for call in (GameLog.from_frame, PairwiseData.from_frame):
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            call(df, score="s", invalid="drop")
        assert len(seen) == 1 and seen[0].filename == __file__


def test_the_warning_class_is_exported():
    assert "InvalidRowsWarning" in discrank.__all__ and issubclass(InvalidRowsWarning, UserWarning)
    assert discrank.exceptions.InvalidRowsWarning is InvalidRowsWarning


# ------------------------------------------------------------------------------------ filters come first
def old_and_new():
    """A self-play row in 1950 (row 1), clean games from 2010 on, and a game without a date (row 5)."""
    return pd.DataFrame({
        "a": ["p", "q", "p", "q", "r", "p"],
        "b": ["q", "q", "q", "r", "p", "r"],
        "s": [1.0, 1.0, 0.0, 0.5, 1.0, 0.0],
        "t": ["1950-05-01", "1950-06-01", "2010-01-01", "2011-01-01", "2012-01-01", None],
    })


def test_rows_outside_start_end_are_not_checked():
    df = old_and_new().iloc[:5]
    log, seen = caught(GameLog.from_frame, df, score="s", time="t", start="2010-01-01")
    assert seen == [] and len(log) == 3 and log.dropped == {}
    log = PairwiseData.from_frame(df, score="s", time="t", start="2010-01-01")
    assert log.n_pairs == 3
    with pytest.raises(ValueError, match=r"game 1 is player 'q' against themself \(row 1\)"):
        GameLog.from_frame(df, score="s", time="t")
    with pytest.raises(ValueError, match="row 1"):
        GameLog.from_frame(df, score="s", time="t", end="2010-06-01")


def test_a_row_without_a_time_cannot_be_filtered_and_is_invalid():
    df = old_and_new()
    with pytest.raises(ValueError, match="column 't' has no time at row 5"):
        GameLog.from_frame(df, score="s", time="t", start="2010-01-01")
    log, seen = caught(GameLog.from_frame, df, score="s", time="t", start="2010-01-01", invalid="drop")
    assert len(log) == 3 and log.dropped == {"missing time": 1}
    assert seen == [(InvalidRowsWarning, "dropped 1 of 4 rows in the time window: 1 missing time (row 5)")]


def test_integer_dates_filter_with_numbers_or_text():
    df = old_and_new().iloc[:5].assign(t=[19500501, 19500601, 20100101, 20110101, 20120101])
    for start in (20100101, "20100101"):
        log = GameLog.from_frame(df, score="s", time="t", start=start)
        assert log.time.tolist() == [20100101, 20110101, 20120101]
    with pytest.raises(ValueError, match="start='2010-01-01' is not a number"):
        GameLog.from_frame(df, score="s", time="t", start="2010-01-01")
    with pytest.raises(ValueError, match="no game is left after filtering"):
        GameLog.from_frame(df, score="s", time="t", start=20200101)
    with pytest.raises(ValueError, match="start / end need a time column"):
        GameLog.from_frame(df, score="s", start=20200101)


def league_with_a_visitor():
    """x, y, z play 4 games each; w plays once, against x; then two invalid rows: w against w, and
    x against y without a result."""
    a = ["x", "y", "z", "x", "y", "z", "w", "w", "x"]
    b = ["y", "z", "x", "y", "z", "x", "x", "w", "y"]
    s = [1.0, 0.0, 0.5, 1.0, 0.0, 1.0, 1.0, 1.0, np.nan]
    return pd.DataFrame({"a": a, "b": b, "s": s})


def test_min_player_games_applies_to_valid_rows_before_the_invalid_ones_are_judged():
    df = league_with_a_visitor()
    # w has one valid game: gone with min_player_games=2, and so is w's invalid row 7; row 8 (x, y) stays
    with pytest.raises(ValueError, match=r"column 's' has no result at row 8"):
        GameLog.from_frame(df, score="s", min_player_games=2)
    log, seen = caught(GameLog.from_frame, df, score="s", min_player_games=2, invalid="drop")
    assert len(log) == 6 and "w" not in set(log.a) | set(log.b)
    assert log.dropped == {"missing result": 1}
    assert seen == [(InvalidRowsWarning, "dropped 1 of 9 rows: 1 missing result (row 8)")]
    # without row 8 nothing is left to raise on: w's self-play row is filtered out, not an error
    log, seen = caught(GameLog.from_frame, df.iloc[:8], score="s", min_player_games=2)
    assert seen == [] and len(log) == 6 and log.dropped == {}
    # with the default min_player_games=1 every invalid row counts
    with pytest.raises(ValueError, match=r"game 7 is player 'w' against themself"):
        GameLog.from_frame(df, score="s")
    data = PairwiseData.from_frame(df.iloc[:8], score="s", min_player_games=2)
    assert data.labels.tolist() == ["x", "y", "z"]
    with pytest.raises(ValueError, match="no player has at least min_player_games=9 games"):
        GameLog.from_frame(df, score="s", min_player_games=9)
    with pytest.raises(ValueError, match="min_player_games must be an integer >= 1, got 0"):
        GameLog.from_frame(df, score="s", min_player_games=0)


# ------------------------------------------------------------------------------------ files
def test_read_csv_and_parquet_drop_and_report(tmp_path):
    df = dirty_frame()
    df.to_csv(tmp_path / "g.csv", index=False)
    df.astype({"s": str}).to_parquet(tmp_path / "g.parquet")
    with pytest.raises(ValueError, match=r"game 1 is player 'y' against themself \(row 1\)"):
        GameLog.read_csv(tmp_path / "g.csv", score="s", time="t")
    log, seen = caught(GameLog.read_csv, tmp_path / "g.csv", score="s", time="t", invalid="drop", max_invalid=1)
    assert log.dropped == {"missing player name": 2, "player against themself": 1, "missing result": 1,
                           "unparseable result": 2, "unparseable time": 1}
    assert [c for c, _ in seen] == [InvalidRowsWarning] and len(log) == 3
    log, seen = caught(GameLog.read_parquet, tmp_path / "g.parquet", score="s", invalid="drop", max_invalid=1)
    assert len(log) == 4 and [c for c, _ in seen] == [InvalidRowsWarning]
    assert log.dropped["missing player name"] == 2 and log.dropped["player against themself"] == 1
    with pytest.raises(ValueError, match=r"s\[7\] = '1.5' is not a score in \[0, 1\] at row 7"):
        GameLog.read_csv(tmp_path / "g.csv", score="s", time="t", start="2024-01-08", end="2024-01-09")
    # row 7 alone in the window, with row 9 whose time is not one: both dropped, and no valid game is left
    with pytest.raises(ValueError, match=r"no valid game is left: dropped 2 of 2 rows in the time window: "
                                         r"1 unparseable result \(row 7\), 1 unparseable time \(row 9\)"):
        GameLog.read_csv(tmp_path / "g.csv", score="s", time="t", start="2024-01-08", end="2024-01-09",
                         invalid="drop")


def test_read_csv_does_not_leak_pandas_dtype_warning(tmp_path):
    n = 200_000  # more than one chunk of pandas' low-memory parser, with a string in the last one
    note = np.arange(n).astype(object)
    note[-1] = "forfeit"
    players = np.array(["p0", "p1", "p2", "p3"])
    df = pd.DataFrame({"a": players[np.arange(n) % 4], "b": players[(np.arange(n) + 1) % 4],
                       "s": np.ones(n), "note": note})
    df.to_csv(tmp_path / "big.csv", index=False)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        pd.read_csv(tmp_path / "big.csv")
    assert any(w.category is pd.errors.DtypeWarning for w in seen)  # the warning this test is about
    log, seen = caught(GameLog.read_csv, tmp_path / "big.csv", score="s")
    assert seen == [] and len(log) == n
    log, seen = caught(GameLog.read_csv, tmp_path / "big.csv", score="s", engine="python", nrows=10)
    assert seen == [] and len(log) == 10  # low_memory is not given to a parser that does not take it
    _, seen = caught(GameLog.read_csv, tmp_path / "big.csv", score="s", low_memory=True)
    assert [c for c, _ in seen] == [pd.errors.DtypeWarning]  # the user's own choice is kept


# ------------------------------------------------------------------------------------ PGN
def game(white, black, result, date="2024.03.01"):
    tags = ['[Event "Rated Blitz game"]']
    if white is not None:
        tags.append(f'[White "{white}"]')
    if black is not None:
        tags.append(f'[Black "{black}"]')
    tags += [f'[Result "{result}"]', f'[UTCDate "{date}"]']
    return "\n".join(tags) + f"\n\n1. e4 e5 {result}\n"


def write_pgn(path, games):
    path.write_text("\n".join(game(*g) for g in games))
    return path


PGN_GAMES = [
    ("alice", "bob", "1-0", "2024.03.01"),     # 0
    ("bob", "bob", "1/2-1/2", "2024.03.02"),   # 1 against themself
    ("carol", "alice", "*", "2024.03.03"),     # 2 unfinished
    ("carol", None, "0-1", "2024.03.04"),      # 3 no Black
    ("?", "bob", "1-0", "2024.03.05"),         # 4 unknown White
    ("carol", "bob", "0-1", "2024.03.06"),     # 5
    ("alice", "alice", "1-0", "2024.03.07"),   # 6 against themself
    ("alice", "carol", "1/2-1/2", "2024.03.08"),  # 7
]


def test_pgn_self_play_raises_with_the_game_and_the_player(tmp_path):
    path = write_pgn(tmp_path / "g.pgn", PGN_GAMES)
    with pytest.raises(ValueError) as info:
        read_pgn(path)
    assert "game 1 is player 'bob' against themself" in str(info.value)


def test_pgn_drop_reports_self_play_and_the_skipped_games(tmp_path):
    path = write_pgn(tmp_path / "g.pgn", PGN_GAMES)
    log, seen = caught(read_pgn, path, invalid="drop")
    assert log.a.tolist() == ["alice", "carol", "alice"] and log.b.tolist() == ["bob", "bob", "carol"]
    assert log.score.tolist() == [1.0, 0.0, 0.5]
    assert log.time.astype(str).tolist() == ["2024-03-01", "2024-03-06", "2024-03-08"]
    assert log.dropped == {"missing player name": 2, "player against themself": 2, "unfinished game": 1}
    assert seen == [(InvalidRowsWarning, "dropped 5 of 8 games: 2 missing player name (games 3, 4), "
                                         "2 player against themself (games 1, 6), 1 unfinished game (game 2)")]


def test_pgn_skips_unfinished_and_unnamed_games_silently_by_default(tmp_path):
    clean = [g for k, g in enumerate(PGN_GAMES) if k not in (1, 6)]
    log, seen = caught(read_pgn, write_pgn(tmp_path / "g.pgn", clean))
    assert seen == [] and len(log) == 3 and log.dropped == {}


def test_pgn_filters_come_before_the_checks(tmp_path):
    path = write_pgn(tmp_path / "g.pgn", PGN_GAMES)
    log, seen = caught(read_pgn, path, start="2024-03-08")  # game 7 only: games 1 and 6 are not checked
    assert seen == [] and log.a.tolist() == ["alice"] and log.dropped == {}
    with pytest.raises(ValueError, match="game 6 is player 'alice' against themself"):
        read_pgn(path, start="2024-03-04")
    log, seen = caught(read_pgn, path, start="2024-03-04", invalid="drop")
    assert log.dropped == {"missing player name": 2, "player against themself": 1}
    assert seen[0][1].startswith("dropped 3 of 5 games in the time window: ")
    log, seen = caught(read_pgn, path, max_games=2, invalid="drop")  # games 0 to 5 are read
    assert len(log) == 2
    assert log.dropped == {"missing player name": 2, "player against themself": 1, "unfinished game": 1}
    assert seen[0][1].startswith("dropped 4 of 6 games: ")


# ------------------------------------------------------------------------------------ command line
def dirty_csv(path):
    from test_cli import _games_csv

    _games_csv(path)
    df = pd.read_csv(path)
    df.loc[3, "black"] = df.loc[3, "white"]
    df.loc[10, "result"] = "2-0"
    df.to_csv(path, index=False)
    return len(df), df.loc[3, "white"]


def test_cli_drop_invalid_reports_on_stderr_and_fits(tmp_path, capsys):
    path = tmp_path / "g.csv"
    n, _ = dirty_csv(path)
    argv = ["fit", str(path), "--a", "white", "--b", "black", "--score", "result", "--model", "elo", "--quiet",
            "--out", str(tmp_path / "r.csv")]
    assert main(argv + ["--drop-invalid"]) == 0
    err = capsys.readouterr().err
    assert err == (f"discrank: warning: dropped 2 of {n} rows: 1 player against themself (row 3), "
                   "1 unparseable result (row 10)\n")
    assert pd.read_csv(tmp_path / "r.csv")["games"].sum() == 2 * (n - 2)


def test_cli_without_drop_invalid_names_the_row_and_exits_2(tmp_path, capsys):
    path = tmp_path / "g.csv"
    _, player = dirty_csv(path)
    argv = ["fit", str(path), "--a", "white", "--b", "black", "--score", "result", "--model", "elo", "--quiet"]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"discrank: error: game 3 is player {player!r} against themself (row 3)")
    assert "--drop-invalid" in err and "\n" not in err


def test_cli_filters_before_the_checks(tmp_path, capsys):
    path = tmp_path / "g.csv"
    old_and_new().iloc[:5].to_csv(path, index=False)
    argv = ["fit", str(path), "--score", "s", "--time", "t", "--model", "elo", "--quiet"]
    assert main(argv) == 2
    assert "game 1 is player 'q' against themself (row 1)" in capsys.readouterr().err
    assert main(argv + ["--start", "2010-01-01"]) == 0
    assert "warning" not in capsys.readouterr().err
    assert main(["fit", str(path), "--score", "s", "--start", "2010-01-01"]) == 2
    assert "--start / --end need the time column: --time COL" in capsys.readouterr().err


def test_cli_reads_a_dirty_pgn(tmp_path, capsys):
    path = write_pgn(tmp_path / "g.pgn", PGN_GAMES * 3)
    assert main(["fit", str(path), "--model", "elo", "--quiet"]) == 2
    assert "game 1 is player 'bob' against themself" in capsys.readouterr().err
    assert main(["fit", str(path), "--model", "elo", "--quiet", "--drop-invalid"]) == 0
    err = capsys.readouterr().err
    assert err.startswith("discrank: warning: dropped 15 of 24 games: "
                          "6 missing player name (games 3, 4, 11, 12, 19, ...), 6 player against themself")


# ------------------------------------------------------------------------------------ real data: ATP
ATP_SELF_PLAY = [5363, 5365, 25925, 786206, 867639, 869973, 870347]  # rows where winner_id == loser_id


@needs_atp
def test_atp_drops_exactly_the_self_play_rows_without_a_dtype_warning():
    log, seen = caught(GameLog.read_csv, ATP, a="winner_id", b="loser_id", winner="winner_id",
                       time="tourney_date", invalid="drop")
    assert log.dropped == {"player against themself": len(ATP_SELF_PLAY)}
    assert seen == [(InvalidRowsWarning, "dropped 7 of 941649 rows: 7 player against themself "
                                         "(rows 5363, 5365, 25925, 786206, 867639, ...)")]
    assert len(log) == 941649 - 7 and np.all(log.a != log.b) and np.all(log.score == 1.0)
    assert log.a.dtype.kind == "i" and log.time.dtype.kind == "i"  # ids and YYYYMMDD dates as read
    frame = pd.read_csv(ATP, usecols=["winner_id", "loser_id", "tourney_date"])
    assert np.flatnonzero(frame["winner_id"].to_numpy() == frame["loser_id"].to_numpy()).tolist() == ATP_SELF_PLAY
    with pytest.raises(ValueError, match=r"game 5363 is player 199999 against themself \(row 5363\)"):
        GameLog.from_frame(frame, a="winner_id", b="loser_id", winner="winner_id", time="tourney_date")
    # from 2017 on there is no self-play row: nothing to raise on, nothing dropped
    log, seen = caught(GameLog.from_frame, frame, a="winner_id", b="loser_id", winner="winner_id",
                       time="tourney_date", start=20170101)
    assert seen == [] and log.dropped == {} and log.time.min() >= 20170101


@needs_atp
def test_atp_through_the_command_line(tmp_path, capsys):
    argv = ["fit", str(ATP), "--a", "winner_id", "--b", "loser_id", "--winner", "winner_id", "--time",
            "tourney_date", "--start", "20160101", "--end", "20170101", "--min-player-games", "20", "--model", "elo",
            "--quiet", "--out", str(tmp_path / "r.csv")]
    assert main(argv) == 2  # two self-play rows in 2016 of players with 20 games or more
    assert "game 869973 is player 105026 against themself (row 869973)" in capsys.readouterr().err
    assert main(argv + ["--drop-invalid"]) == 0
    err = capsys.readouterr().err
    assert err == ("discrank: warning: dropped 2 of 32640 rows in the time window: 2 player against themself "
                   "(rows 869973, 870347)\n")  # no pandas DtypeWarning; row 867639's player has < 20 games
    assert pd.read_csv(tmp_path / "r.csv")["games"].min() >= 20


def test_an_object_column_reads_as_numbers_with_pgn_results_and_bools_only_where_asked():
    from discrank._util.labels import object_numbers

    values = np.array(["1-0", " 0.5 ", "", None, float("nan"), True, 2, "x", "1/2-1/2"], dtype=object)
    results, missing = object_numbers(values, {"1-0": 1.0, "1/2-1/2": 0.5})
    np.testing.assert_array_equal(results, [1.0, 0.5, np.nan, np.nan, np.nan, np.nan, 2.0, np.nan, 0.5])
    np.testing.assert_array_equal(missing, [False, False, True, True, True, False, False, False, False])
    covariates, _ = object_numbers(values, bools=True)
    np.testing.assert_array_equal(covariates, [np.nan, 0.5, np.nan, np.nan, np.nan, 1.0, 2.0, np.nan, np.nan])


def test_scan_keeps_the_players_with_enough_games_over_summed_rows_as_the_readers_do_over_games():
    from discrank.data._screen import active_games

    # players 0-1 met 3 times (one summed row), 1-2 once, 2-3 once: with at least 2 games, 3 goes, then 2
    lo, hi, n = np.array([0, 1, 2]), np.array([1, 2, 3]), np.array([3.0, 1.0, 1.0])
    keep, alive = active_games(lo, hi, 4, np.ones(3, dtype=bool), 2, games=n)
    np.testing.assert_array_equal(keep, [True, False, False])
    ca, cb = np.repeat(lo, [3, 1, 1]), np.repeat(hi, [3, 1, 1])
    by_game, _ = active_games(ca, cb, 4, np.ones(5, dtype=bool), 2)
    np.testing.assert_array_equal(by_game, [True, True, True, False, False])
    np.testing.assert_array_equal(alive, [True, True, False, False, True])


def test_an_iso_time_with_a_fraction_of_a_second_is_read():
    """issue 33: "2024-01-01T10:00:00.5" was refused (the dots of PGN dates were replaced everywhere)."""
    log = GameLog.from_arrays(["a", "b"], ["b", "a"], [1.0, 0.0], time=["2024-01-01T10:00:00.5", "2024.01.02"])
    assert log.time.tolist() == [np.datetime64("2024-01-01T10:00:00.500"), np.datetime64("2024-01-02T00:00:00.000")]


# ------------------------------------------------------------------ the plain constructor checks as from_arrays
@pytest.mark.parametrize("kw, message", [
    ({"a": ["x", "y"], "b": ["x", "z"]}, "game 0 is player 'x' against themself"),
    ({"time": ["soon", "later"]}, "time[0] = 'soon' is not a time"),
    ({"score": [2.0, 0.0]}, "score[0] = 2.0 is not a score in [0, 1]"),
    ({"b": ["y"]}, "columns"),
    ({"advantage": np.ones((2, 2)), "advantage_names": ("home",)},
     "advantage has shape (2, 2), and advantage_names names 1 column(s): ['home']"),
])
def test_the_plain_constructor_refuses_what_from_arrays_refuses_naming_the_value(kw, message):
    columns = {"a": ["x", "y"], "b": ["y", "z"], "score": [1.0, 0.0], **kw}
    with pytest.raises(ValueError, match=re.escape(message)):
        GameLog(**columns)


def test_the_plain_constructor_converts_iso_times_and_named_columns_as_from_arrays():
    log = GameLog(["x", "y"], ["y", "z"], ["1-0", 0.5], time=["2020-01-01", "2020-02-01"],
                  advantage=np.array([[1.0], [0.0]]), advantage_names=("home",))
    same = GameLog.from_arrays(["x", "y"], ["y", "z"], ["1-0", 0.5], ["2020-01-01", "2020-02-01"],
                               advantage={"home": [1.0, 0.0]})
    assert log.time.dtype.kind == "M" and np.array_equal(log.time, same.time)
    assert log.score.tolist() == [1.0, 0.5] and log.advantage_names == ("home",)
    assert np.array_equal(log.advantage, same.advantage) and log._checked
    fitted = discrank.DynamicElo(period="month", drift=0.1, prior_scale=1.0, variance_scale=1.0).fit(log)
    assert fitted.converged_ and fitted.history().shape[0] == 4

# ------------------------------------------------------------------------------------ mostly invalid (issue 33)
def goals_frame():
    """Ten games whose score column holds goals (a misread column): six of them above 1, invalid."""
    return pd.DataFrame({"a": list("xyzxyzxyzx"), "b": list("yzxyzxyzxz"), "s": [1, 3, 2, 0, 4, 2, 5, 1, 3, 0],
                         "t": [f"2024-01-{d:02d}" for d in range(1, 11)]})


def test_drop_refuses_a_log_mostly_invalid_naming_the_count_the_share_and_the_kind():
    with pytest.raises(ValueError) as info:
        GameLog.from_frame(goals_frame(), score="s", time="t", invalid="drop")
    text = str(info.value)
    assert text.startswith('invalid="drop" would drop 6 of 10 rows (60%), more than max_invalid=0.5; '
                           "the most common kind is 'unparseable result' (6 rows)")
    assert "--max-invalid 1" in text and "max_invalid=1" in text


def test_max_invalid_drops_a_larger_share_when_asked_and_half_is_dropped_by_default():
    log, seen = caught(GameLog.from_frame, goals_frame(), score="s", invalid="drop", max_invalid=0.6)
    assert len(log) == 4 and log.dropped == {"unparseable result": 6}
    assert [c for c, _ in seen] == [InvalidRowsWarning]
    with pytest.raises(ValueError, match=r"would drop 6 of 10 rows \(60%\), more than max_invalid=0.59"):
        GameLog.from_frame(goals_frame(), score="s", invalid="drop", max_invalid=0.59)
    half = goals_frame().iloc[[0, 1, 2, 3, 4, 7, 8, 9]]  # four of eight invalid: half is dropped by default
    log, seen = caught(GameLog.from_frame, half, score="s", invalid="drop")
    assert len(log) == 4 and log.dropped == {"unparseable result": 4}


def test_a_large_share_dropped_under_the_limit_says_so_and_a_small_one_does_not():
    half = pd.concat([goals_frame().iloc[[0, 1, 2, 3, 4, 7, 8, 9]]] * 20)  # 80 of 160 invalid: the warning says 50%
    _, seen = caught(GameLog.from_frame, half, score="s", invalid="drop")
    assert len(seen) == 1 and "That is 50% of the rows: so large a share usually means a misread column" in seen[0][1]
    few = pd.concat([goals_frame().iloc[[0, 1]]] + [goals_frame().iloc[[3]]] * 98)  # 1 of 100: quiet
    log, seen = caught(GameLog.from_frame, few, score="s", invalid="drop")
    assert len(log) == 99 and len(seen) == 1 and "misread" not in seen[0][1]
    small = goals_frame().iloc[[0, 1, 2, 3, 4, 7, 8, 9]]  # 4 of 8: a share of a handful of rows says little
    _, seen = caught(GameLog.from_frame, small, score="s", invalid="drop")
    assert len(seen) == 1 and "misread" not in seen[0][1]


def test_the_share_of_invalid_rows_counts_the_rows_in_the_time_window_only():
    # the window 2024-01-02 .. 2024-01-06 holds rows 1 to 5, of which 1, 2, 4, 5 are invalid (80%)
    with pytest.raises(ValueError, match=r"would drop 4 of 5 rows \(80%\)"):
        GameLog.from_frame(goals_frame(), score="s", time="t", start="2024-01-02", end="2024-01-07", invalid="drop")


def write_goals(tmp_path, kind):
    df = goals_frame()
    if kind == "parquet":
        df.to_parquet(tmp_path / "g.parquet")
        return tmp_path / "g.parquet"
    df.to_csv(tmp_path / "g.csv", index=False)
    return tmp_path / "g.csv"


@pytest.mark.parametrize("reader", ["from_frame", "read_csv", "read_parquet", "pairs_from_frame", "scan_csv",
                                    "scan_parquet", "dask"])
def test_every_reader_refuses_a_mostly_invalid_log_and_drops_it_with_max_invalid_one(tmp_path, reader):
    def read(**kw):
        if reader == "from_frame":
            return GameLog.from_frame(goals_frame(), score="s", **kw)
        if reader == "pairs_from_frame":
            return PairwiseData.from_frame(goals_frame(), score="s", **kw)
        if reader in ("read_csv", "read_parquet"):
            return getattr(GameLog, reader)(write_goals(tmp_path, reader[5:]), score="s", **kw)
        if reader.startswith("scan"):
            return discrank.scan_games(write_goals(tmp_path, reader[5:]), score="s", **kw)
        dd = pytest.importorskip("dask.dataframe")
        import discrank.dask as ddk
        return ddk.aggregate(dd.from_pandas(goals_frame(), npartitions=1), score="s", **kw)

    with pytest.raises(ValueError, match=r"would drop 6 of 10 rows \(60%\), more than max_invalid=0.5; the most "
                                         r"common kind is 'unparseable result' \(6 rows\)"):
        read(invalid="drop")
    out, _ = caught(read, invalid="drop", max_invalid=1)
    games = len(out) if isinstance(out, GameLog) else float(out.n_games.sum())
    assert games == 4


def test_read_pgn_refuses_mostly_self_play_but_not_mostly_skipped_games(tmp_path):
    selfplay = [("alice", "bob", "1-0"), ("bob", "bob", "0-1"), ("carol", "carol", "1-0"), ("alice", "alice", "1-0")]
    path = write_pgn(tmp_path / "s.pgn", selfplay)
    with pytest.raises(ValueError, match=r"would drop 3 of 4 games \(75%\), more than max_invalid=0.5; the most "
                                         r"common kind is 'player against themself' \(3 games\)"):
        read_pgn(path, invalid="drop")
    with pytest.raises(ValueError, match=r"would drop 3 of 4 rows \(75%\)"):
        discrank.scan_games(path, invalid="drop")
    log, _ = caught(read_pgn, path, invalid="drop", max_invalid=1)
    assert len(log) == 1
    # unfinished games are skipped in both modes: they are not what invalid="drop" is asked to drop
    unfinished = [("alice", "bob", "1-0"), ("bob", "carol", "*"), ("carol", "alice", "*"), ("alice", "carol", "*")]
    log, seen = caught(read_pgn, write_pgn(tmp_path / "u.pgn", unfinished), invalid="drop")
    assert len(log) == 1 and log.dropped == {"unfinished game": 3} and len(seen) == 1


@pytest.mark.parametrize("bad", [-0.1, 1.5, "half", True, float("nan")])
def test_an_unknown_max_invalid_is_refused_with_its_value(bad):
    with pytest.raises(ValueError, match=r"max_invalid=.* is not a number in \[0, 1\]"):
        GameLog.from_frame(goals_frame(), score="s", invalid="drop", max_invalid=bad)


def test_the_raise_hint_says_that_drop_stops_at_half_of_the_rows():
    with pytest.raises(ValueError) as info:
        GameLog.from_frame(goals_frame(), score="s")
    assert str(info.value).endswith('invalid="drop" (discrank fit --drop-invalid) drops and counts such rows, as '
                                    "long as they are at most 0.5 of the rows (max_invalid=, --max-invalid)")


def test_cli_drop_invalid_refuses_a_mostly_invalid_log_unless_max_invalid_allows_it(tmp_path, capsys):
    path = write_goals(tmp_path, "csv")
    argv = ["fit", str(path), "--score", "s", "--model", "elo", "--quiet", "--drop-invalid"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith('discrank: error: invalid="drop" would drop 6 of 10 rows (60%)') and "\n" == err[-1]
    assert main(argv + ["--max-invalid", "1"]) == 0
    assert "dropped 6 of 10 rows" in capsys.readouterr().err
    assert main(argv[:-1] + ["--max-invalid", "1"]) == 2
    assert "--max-invalid 1 is the largest share of rows that --drop-invalid drops: give --drop-invalid too" \
        in capsys.readouterr().err
    assert main(argv + ["--max-invalid", "1.5"]) == 2
    assert "argument --max-invalid: must be a number from 0 to 1, got '1.5'" in capsys.readouterr().err


def test_a_winner_that_is_a_players_name_and_a_keyword_of_another_meaning_is_refused(tmp_path):
    """A player named "model_b" in the column of ``a`` who won, or a player named "tie": the winner reads two
    ways (the player, or the other side / a draw), and the reader refuses it naming the value and row."""
    pd = pytest.importorskip("pandas")
    votes = pd.DataFrame({"model_a": ["x", "model_b", "y"], "model_b": ["y", "x", "x"],
                          "winner": ["model_a", "model_b", "model_b"]})
    with pytest.raises(ValueError, match=r"row 1: the winner 'model_b' is the name of a player .* column 'model_b'"):
        GameLog.from_frame(votes, a="model_a", b="model_b", winner="winner")
    votes.to_csv(tmp_path / "votes.csv", index=False)
    with pytest.raises(ValueError, match=r"row 1: the winner 'model_b' .* reads two ways \(1 such row"):
        GameLog.read_csv(tmp_path / "votes.csv", a="model_a", b="model_b", winner="winner")
    games = pd.DataFrame({"white": ["tie", "x"], "black": ["x", "tie"], "winner": ["x", "tie"]})
    with pytest.raises(ValueError, match=r"row 1: the winner 'tie' .* also means a draw"):
        GameLog.from_frame(games, a="white", b="black", winner="winner")


def test_a_winner_whose_two_readings_agree_is_read_as_the_player():
    pd = pytest.importorskip("pandas")
    votes = pd.DataFrame({"model_a": ["x", "y"], "model_b": ["model_b", "x"], "winner": ["model_b", "tie"]})
    log = GameLog.from_frame(votes, a="model_a", b="model_b", winner="winner")
    assert log.score.tolist() == [0.0, 0.5]
