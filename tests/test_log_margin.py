"""The margin columns of a game log (the points, games or goals won by each side): GameLog.from_arrays and
the constructor with their checks (the swapped columns among them), the filters, splits and shuffle_sides
that carry them game by game, the readers (from_frame, read_csv, read_parquet) with their invalid rows
("missing margin", "unparseable margin"), and the surfaces: evaluate, bootstrap, the models that ignore
them, the command line's --margin."""

import re

import numpy as np
import pandas as pd
import pytest

from _logs import A, B, S, T, caught, log6, recording_elo
from discrank import Elo, GameLog, evaluate
from discrank.data._screen import BAD_MARGIN, MISSING_CONTEXT, MISSING_MARGIN
from discrank.evaluation._bootstrap import _log_sampler
from discrank.cli import main
from discrank.evaluation._evaluate import _sorted_games
from discrank.exceptions import UnusedColumnWarning
from discrank.data.logs import INVALID_KINDS
from discrank.online import OnlineElo

# the games won by a and by b: game 3's winner won fewer games (12 to 13: 6-4 0-6 6-3 and the like), game 5 is
# a walkover (0, 0); every row differs, so that a row names its game
MA = [6, 3, 5, 12, 2, 0]
MB = [4, 6, 5, 13, 6, 0]
M = np.array([MA, MB], dtype=float).T
WINNER_FEWER = ("winner won fewer sub-contests than the loser")


# ------------------------------------------------------------------ from_arrays and the constructor
def test_from_arrays_keeps_an_n_by_2_margin_as_float64():
    log = log6(margin=np.array([MA, MB]).T)  # integers
    assert log.margin.dtype == np.float64 and log.margin.shape == (6, 2)
    np.testing.assert_array_equal(log.margin, M)


def test_from_arrays_reads_a_pair_of_columns_as_won_by_a_and_won_by_b():
    np.testing.assert_array_equal(log6(margin=(MA, MB)).margin, M)
    np.testing.assert_array_equal(log6(margin=[np.array(MA), np.array(MB, dtype=float)]).margin, M)
    np.testing.assert_array_equal(log6(margin=[list(r) for r in M]).margin, M)  # a list of six rows
    np.testing.assert_array_equal(log6(margin=(pd.Series(MA), pd.Series(MB))).margin, M)


def test_a_log_without_margin_has_none():
    assert log6().margin is None


def test_the_constructor_converts_and_checks_the_margin_as_from_arrays_does():
    log = GameLog(np.array(A), np.array(B), np.array(S), None, {}, None, (), None, (MA, MB))
    np.testing.assert_array_equal(log.margin, M)
    with pytest.raises(ValueError, match=re.escape("margin has a missing value (None) at game 0 (won by a)")):
        GameLog(np.array(A), np.array(B), np.array(S), margin=([None, 3, 5, 12, 2, 0], MB))


@pytest.mark.parametrize("value, shown", [(np.nan, "nan"), (None, "None")])
def test_a_missing_margin_names_its_game_and_value(value, shown):
    ma = list(MA)
    ma[3] = value
    with pytest.raises(ValueError, match=re.escape(f"margin has a missing value ({shown}) at game 3 (won by a): every "
                                                   "game needs its margin")):
        log6(margin=(ma, MB))


def test_a_nan_in_an_n_by_2_array_names_its_game_and_side():
    m = M.copy()
    m[4, 1] = np.nan
    with pytest.raises(ValueError, match=re.escape("margin has a missing value (nan) at game 4 (won by b)")):
        log6(margin=m)


@pytest.mark.parametrize("value, shown", [(-1, "-1"), (np.inf, "inf"), (-np.inf, "-inf")])
def test_a_negative_or_infinite_margin_names_its_game_and_value(value, shown):
    mb = list(MB)
    mb[2] = value
    with pytest.raises(ValueError, match=re.escape(f"margin has a negative or infinite value ({shown}) at game 2 "
                                                   "(won by b): a margin is a finite number from 0 to 1e+09")):
        log6(margin=(MA, mb))


@pytest.mark.parametrize("value, shown", [(1e299, "1e+299"), (1e10, "10000000000.0")])
def test_a_margin_beyond_a_billion_sub_contests_is_refused_naming_its_game_side_and_value(value, shown):
    # (a fit on such margins failed with "non-finite ratings", naming no margin)
    ma = list(MA)
    ma[3] = value
    with pytest.raises(ValueError, match=re.escape(f"margin has the value {shown} at game 3 (won by a), more than "
                                                   "1e+09 sub-contests")):
        log6(margin=(ma, MB))


def test_a_margin_of_a_billion_and_half_points_are_accepted():
    ma = [6, 3, 5, 1e9, 2, 0]
    assert log6(margin=(ma, MB)).margin[3, 0] == 1e9
    assert log6(margin=([2.5, 3, 5, 12, 2, 0], [1.5, 6, 5, 13, 6, 0])).margin[0].tolist() == [2.5, 1.5]


@pytest.mark.parametrize("value, shown", [("6", "'6'"), (True, "True"), ([6], "[6]")])
def test_a_margin_that_is_not_a_number_names_its_game_and_value(value, shown):
    ma = list(MA)
    ma[1] = value
    with pytest.raises(TypeError, match=re.escape(f"margin holds {shown} at game 1 (won by a), which is not a number")):
        log6(margin=(ma, MB))


def test_a_margin_of_the_wrong_shape_is_refused_with_its_shape():
    with pytest.raises(ValueError, match=re.escape("margin must have shape (n_games, 2), the sub-contests won by a "
                                                   "and by b in each game (or be a pair of columns), got shape (6, 3)")):
        log6(margin=np.zeros((6, 3)))
    with pytest.raises(ValueError, match=re.escape("got shape (6,)")):
        log6(margin=np.zeros(6))


def test_a_margin_of_the_wrong_length_names_both_lengths():
    with pytest.raises(ValueError, match=re.escape("found columns of inconsistent lengths: score has 6, margin has 5")):
        log6(margin=M[:5])
    with pytest.raises(ValueError, match=re.escape("found columns of inconsistent lengths: score has 6, margin_b has 5")):
        log6(margin=(MA, MB[:5]))


def test_swapped_margin_columns_are_refused_with_the_count_the_share_and_the_first_game():
    # read as (won by b, won by a), three of the four decided games with a margin have the winner behind
    # (games 0, 1 and 4; game 3 is then 13 to 12; the draw, game 2, and the walkover, game 5, do not count)
    with pytest.raises(ValueError, match=re.escape(
            "margin looks swapped: in 3 of the 4 decided games with a margin (75%) the winner won fewer sub-contests "
            "than the loser, the first at game 0 (score 1.0, margin (4.0, 6.0)); margin is (won by a, won by b): "
            "swap its two columns")):
        log6(margin=(MB, MA))


def test_a_winner_with_fewer_sub_contests_in_a_minority_of_games_is_accepted():
    log = log6(margin=(MA, MB))  # game 3: the winner won 12 games to 13, one game of the four counted
    assert log.margin[3].tolist() == [12.0, 13.0] and log.score[3] == 1.0


def test_exactly_half_of_the_decided_games_with_the_winner_behind_is_accepted():
    # games 0 and 3 have the winner behind, games 1 and 4 not: 2 of 4 is not more than half
    log = log6(margin=([4, 3, 5, 12, 2, 0], [6, 6, 5, 13, 6, 0]))
    assert log.margin[0].tolist() == [4.0, 6.0]
    with pytest.raises(ValueError, match=re.escape("in 3 of the 4 decided games with a margin (75%)")):
        log6(margin=([4, 3, 5, 12, 7, 0], [6, 6, 5, 13, 6, 0]))  # game 4 too


def test_draws_and_walkovers_do_not_count_toward_the_swapped_columns():
    # the only decided game with a margin other than (0, 0) has its winner ahead; the draw's margin is any
    log = GameLog.from_arrays(["p", "q", "r"], ["q", "r", "p"], [1.0, 0.5, 0.0], margin=[[0, 0], [2, 9], [1, 3]])
    assert log.margin.tolist() == [[0.0, 0.0], [2.0, 9.0], [1.0, 3.0]]


# ------------------------------------------------------------------ carried game by game
def test_filter_keeps_each_games_margin():
    log = log6(margin=M)
    window = log.filter(start=2, end=6)  # times 2, 5, 4, 3: games 1, 2, 4, 5
    assert window.margin.tolist() == [[3, 6], [5, 5], [2, 6], [0, 0]]
    active = window.filter(min_player_games=2)  # games 1, 2, 5 (as in tests/test_log_labels.py)
    assert active.a.tolist() == ["q", "r", "q"] and active.margin.tolist() == [[3, 6], [5, 5], [0, 0]]


def test_sorted_by_time_moves_the_margin_with_its_game():
    log = log6(margin=M).sorted_by_time()  # times 6 2 5 1 4 3: order 3, 1, 5, 4, 2, 0
    assert log.margin.tolist() == [[12, 13], [3, 6], [0, 0], [2, 6], [5, 5], [6, 4]]


def test_split_time_gives_each_part_its_games_margins():
    past, future = log6(margin=M).split_time(1 / 3)  # the cut after 4 games in time order
    assert past.margin.tolist() == [[12, 13], [3, 6], [0, 0], [2, 6]]
    assert future.margin.tolist() == [[5, 5], [6, 4]]


def test_shuffle_sides_swaps_the_margin_columns_of_the_swapped_games():
    log = log6(margin=M)
    out = log.shuffle_sides(0)
    swapped = np.asarray(out.a) != np.asarray(log.a)
    assert swapped.sum() == 3  # len // 2 of the games: the check is not vacuous
    for k in range(6):  # by hand: a swapped game has b's margin first, its score flipped
        if swapped[k]:
            assert out.a[k] == B[k] and out.score[k] == 1.0 - S[k] and out.margin[k].tolist() == [MB[k], MA[k]]
        else:
            assert out.a[k] == A[k] and out.score[k] == S[k] and out.margin[k].tolist() == [MA[k], MB[k]]
    GameLog.from_arrays(out.a, out.b, out.score, margin=out.margin)  # the winners are still ahead: not swapped
    assert not np.shares_memory(out.margin, log.margin)


def test_a_log_taken_from_a_log_without_margin_has_none():
    log = log6()
    assert log.filter(start=2).margin is None and log.shuffle_sides(1).margin is None
    assert all(part.margin is None for part in log.split_time(0.5))


def test_to_pairs_ignores_the_margin_and_names_it():
    with pytest.warns(UnusedColumnWarning, match="the pairs keep no margin column"):
        with_margin = log6(margin=M).to_pairs()
    without = log6().to_pairs()
    for name in ("i", "j", "p", "n_games"):
        np.testing.assert_array_equal(getattr(with_margin, name), getattr(without, name))


# ------------------------------------------------------------------ the readers
def frame():
    return pd.DataFrame({"w": A, "l": B, "s": S, "t": T, "ga": MA, "gb": MB})


def test_from_frame_reads_the_margin_columns():
    log = GameLog.from_frame(frame(), a="w", b="l", score="s", time="t", margin=("ga", "gb"))
    np.testing.assert_array_equal(log.margin, M)
    assert log.margin.dtype == np.float64
    assert GameLog.from_frame(frame(), a="w", b="l", score="s").margin is None


@pytest.mark.parametrize("margin", ["ga", ("ga",), ("ga", "gb", "gc"), ("ga", 3), {"ga": "gb"}])
def test_a_margin_argument_that_is_not_a_pair_of_names_is_named(margin):
    with pytest.raises(ValueError, match=re.escape(f"margin={margin!r}: give the pair of column names (won by a, won "
                                                   "by b)")):
        GameLog.from_frame(frame(), a="w", b="l", score="s", margin=margin)


def test_a_margin_naming_one_column_twice_is_refused():
    with pytest.raises(ValueError, match=re.escape("margin=('ga', 'ga') names the column 'ga' twice")):
        GameLog.from_frame(frame(), a="w", b="l", score="s", margin=("ga", "ga"))


def test_a_margin_column_not_in_the_frame_is_named():
    with pytest.raises(ValueError, match=re.escape("column 'gx' (for margin) is not in the frame")):
        GameLog.from_frame(frame(), a="w", b="l", score="s", margin=("ga", "gx"))


def test_from_frame_refuses_swapped_margin_columns():
    with pytest.raises(ValueError, match=re.escape("margin looks swapped: in 3 of the 4 decided games")):
        GameLog.from_frame(frame(), a="w", b="l", score="s", margin=("gb", "ga"))


@pytest.mark.parametrize("value, shown", [(np.nan, "nan"), (None, "None"), ("", "''")])
def test_from_frame_raises_on_a_missing_margin_naming_the_row(value, shown):
    df = frame().astype({"gb": object})
    df.loc[2, "gb"] = value
    with pytest.raises(ValueError, match=re.escape(f"column 'gb' (the margin of b) has no value at row 2 ({shown}): "
                                                   "drop or fill the row")):
        GameLog.from_frame(df, a="w", b="l", score="s", margin=("ga", "gb"))


@pytest.mark.parametrize("value, shown", [(-2, "-2"), ("six", "'six'"), (np.inf, "inf"), (True, "True")])
def test_from_frame_raises_on_an_unparseable_margin_naming_the_row(value, shown):
    df = frame().astype({"ga": object})
    df.loc[4, "ga"] = value
    with pytest.raises(ValueError, match=re.escape(f"column 'ga' (the margin of a): ga[4] = {shown} is not a finite "
                                                   "number >= 0 at row 4")):
        GameLog.from_frame(df, a="w", b="l", score="s", margin=("ga", "gb"))


@pytest.mark.parametrize("value, shown", [(1e299, "1e+299"), ("2e10", "'2e10'")])
def test_from_frame_raises_on_a_margin_beyond_a_billion_naming_the_column_row_and_value(value, shown):
    df = frame().astype({"ga": object})
    df.loc[4, "ga"] = value
    with pytest.raises(ValueError, match=re.escape(f"column 'ga' (the margin of a): ga[4] = {shown} is more than "
                                                   "1e+09 sub-contests at row 4")):
        GameLog.from_frame(df, a="w", b="l", score="s", margin=("ga", "gb"))
    log, _ = caught(GameLog.from_frame, df, a="w", b="l", score="s", margin=("ga", "gb"), invalid="drop",
                    max_invalid=1.0)
    assert log.dropped == {"unparseable margin": 1} and len(log) == 5


def test_from_frame_drops_and_counts_missing_and_unparseable_margins():
    df = frame().astype({"ga": object, "gb": object})
    df.loc[1, "gb"] = None
    df.loc[3, "ga"] = "x"
    df.loc[4, ["ga", "gb"]] = [None, "y"]  # missing comes first: a row counts once
    log, seen = caught(GameLog.from_frame, df, a="w", b="l", score="s", time="t", margin=("ga", "gb"),
                       invalid="drop", max_invalid=1.0)
    assert log.dropped == {"missing margin": 2, "unparseable margin": 1}
    assert len(seen) == 1 and "2 missing margin (rows 1, 4)" in str(seen[0].message)
    assert log.margin.tolist() == [[6, 4], [5, 5], [0, 0]]  # games 0, 2, 5
    assert log.time.tolist() == [6, 5, 3]


def test_margins_read_as_floats_because_of_a_missing_one_are_numbers():
    df = frame().astype({"ga": float})
    df.loc[2, "ga"] = np.nan
    log, _ = caught(GameLog.from_frame, df, a="w", b="l", score="s", margin=("ga", "gb"), invalid="drop")
    assert log.margin.dtype == np.float64 and log.margin.tolist() == [[6, 4], [3, 6], [12, 13], [2, 6], [0, 0]]


def test_text_that_reads_as_a_number_is_a_margin():
    df = frame().astype({"ga": str})
    np.testing.assert_array_equal(GameLog.from_frame(df, a="w", b="l", score="s", margin=("ga", "gb")).margin, M)


def test_read_csv_reads_the_margin_and_raises_or_drops_a_missing_one(tmp_path):
    path = tmp_path / "games.csv"
    frame().to_csv(path, index=False)
    np.testing.assert_array_equal(GameLog.read_csv(path, a="w", b="l", score="s", margin=["ga", "gb"]).margin, M)
    df = frame().astype({"gb": object})
    df.loc[5, "gb"] = None  # an empty field in the file
    df.to_csv(path, index=False)
    with pytest.raises(ValueError, match=re.escape("column 'gb' (the margin of b) has no value at row 5 (nan)")):
        GameLog.read_csv(path, a="w", b="l", score="s", margin=("ga", "gb"))
    log, seen = caught(GameLog.read_csv, path, a="w", b="l", score="s", margin=("ga", "gb"), invalid="drop")
    assert log.dropped == {"missing margin": 1} and len(seen) == 1
    np.testing.assert_array_equal(log.margin, M[:5])


def test_read_parquet_reads_the_margin_and_raises_or_drops_an_unparseable_one(tmp_path):
    pytest.importorskip("pyarrow", reason="reading Parquet needs pyarrow")
    path = tmp_path / "games.parquet"
    frame().to_parquet(path)
    np.testing.assert_array_equal(GameLog.read_parquet(path, a="w", b="l", score="s", margin=("ga", "gb")).margin, M)
    df = frame().astype({"ga": float})
    df.loc[0, "ga"] = -1.0
    df.to_parquet(path)
    with pytest.raises(ValueError, match=re.escape("column 'ga' (the margin of a): ga[0] = -1.0 is not a finite")):
        GameLog.read_parquet(path, a="w", b="l", score="s", margin=("ga", "gb"))
    log, _ = caught(GameLog.read_parquet, path, a="w", b="l", score="s", margin=("ga", "gb"), invalid="drop")
    assert log.dropped == {"unparseable margin": 1}
    np.testing.assert_array_equal(log.margin, M[1:])


def test_read_parquet_refuses_a_margin_column_of_lists_naming_it(tmp_path):
    pytest.importorskip("pyarrow", reason="reading Parquet needs pyarrow")
    path = tmp_path / "games.parquet"
    df = frame()
    df["gb"] = [[v] for v in MB]
    df.to_parquet(path)
    with pytest.raises(ValueError, match=r"column 'gb' \(for margin\) has the type list<"):
        GameLog.read_parquet(path, a="w", b="l", score="s", margin=("ga", "gb"))


def test_the_margins_kinds_follow_the_others_which_keep_their_codes():
    # (the match format's kind follows them: tests/test_log_format.py)
    assert INVALID_KINDS[10:12] == ("missing margin", "unparseable margin") and len(INVALID_KINDS) == 13
    assert (MISSING_CONTEXT, MISSING_MARGIN, BAD_MARGIN) == (10, 11, 12)
    assert INVALID_KINDS[MISSING_MARGIN - 1] == "missing margin" and INVALID_KINDS[BAD_MARGIN - 1] == "unparseable margin"


# ------------------------------------------------------------------ the surfaces
def league(games=400, seed=0):
    """8 players of strengths -1 .. 1 logits, ``games`` games at times 0 .. 9, 10 points each, those of a
    Binomial(10, sigmoid(d / 2)) for the game's logit d; the game goes to the side with more points (a draw
    at 5 all)."""
    rng = np.random.default_rng(seed)
    strength = np.linspace(-1.0, 1.0, 8)
    a = rng.integers(0, 8, games)
    b = (a + rng.integers(1, 8, games)) % 8
    d = strength[a] - strength[b]
    points = rng.binomial(10, 1.0 / (1.0 + np.exp(-0.5 * d)))
    y = np.sign(points - 5) / 2.0 + 0.5
    t = np.sort(rng.integers(0, 10, games)).astype(float)
    labels = np.array([f"p{k}" for k in range(8)], dtype=object)
    return GameLog.from_arrays(labels[a], labels[b], y, t, margin=(points, 10 - points))


MarginElo = recording_elo("margin", "takes_margin")


def test_evaluate_fits_a_model_that_takes_margins_on_them_and_predicts_without_them():
    log = league()
    MarginElo.seen.clear()
    with pytest.warns(UnusedColumnWarning, match=re.escape(
            "evaluate: 'elo' takes no margins: fitted and scored without the log's margin columns")):
        result = evaluate({"margins": MarginElo(), "elo": Elo(prior_scale=1.0)}, log, cutoff=8.0)
    fits = [m for what, m in MarginElo.seen if what == "fit"]
    predicted = [m for what, m in MarginElo.seen if what == "predict"]
    assert len(fits) == 1 and len(predicted) == 1
    train = log.time < 8.0  # the log is in time order: the training games are its first ones
    np.testing.assert_array_equal(fits[0], log.margin[train])
    assert predicted[0] is None  # the outcome's margin never reaches a predictor
    # Elo warns when it is given margins (warnings are errors here): it was given the games without them
    assert result.notes == ["'elo' takes no margins: fitted and scored without the log's margin columns"]


def test_the_sorted_games_give_the_margins_to_a_log_and_not_to_a_query():
    log = league(games=50).shuffle_sides(3)
    _, games = _sorted_games(log)
    order = np.argsort(log.time, kind="stable")
    rows = np.arange(10, 30)
    np.testing.assert_array_equal(games.log(rows).margin, log.margin[order][rows])
    assert games.query(rows).margin is None
    assert games.without(False, False, True).log(rows).margin is None
    np.testing.assert_array_equal(games.without(True, True, False).log(rows).margin, log.margin[order][rows])


def test_bootstrap_resamples_each_games_margin_with_it():
    log = league(games=60)
    log = GameLog.from_arrays(log.a, log.b, log.score, np.arange(60.0), margin=log.margin)  # a time names a game
    _, draw = _log_sampler(log, None)
    sample = draw(np.random.default_rng(5))
    games = sample.time.astype(int)
    assert np.unique(games).size < 60  # drawn with replacement: the check is not a copy of the log
    np.testing.assert_array_equal(sample.margin, log.margin[games])
    assert np.array_equal(sample.score, log.score[games])


@pytest.mark.parametrize("model, where", [(Elo(prior_scale=1.0), "Elo.fit"), (OnlineElo(step=0.1), "OnlineElo.fit")])
def test_a_model_that_takes_no_margins_warns_that_it_fits_the_results_alone(model, where):
    log = league(games=120)
    name = where.split(".")[0]
    with pytest.warns(UserWarning, match=re.escape(
            f"{where}: {name} takes no margins and ignores the log's margin columns (it fits the results alone); "
            "DynamicElo fits a margin likelihood (margin_scale)")):
        model.fit(log)
    plain = type(model)(**model.get_params()).fit(GameLog.from_arrays(log.a, log.b, log.score, log.time))
    np.testing.assert_array_equal(model.predict_games(log), plain.predict_games(log))


def test_the_cli_reads_the_margin_columns(tmp_path, capsys):
    log = league(games=120)
    csv, out, plain = tmp_path / "games.csv", tmp_path / "ratings.csv", tmp_path / "plain.csv"
    pd.DataFrame({"a": log.a, "b": log.b, "s": log.score, "t": log.time, "ga": log.margin[:, 0],
                  "gb": log.margin[:, 1]}).to_csv(csv, index=False)
    args = ["fit", str(csv), "--score", "s", "--time", "t", "--model", "elo", "--prior-scale", "1"]
    assert main(args + ["--margin", "ga", "gb", "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "8 players, margins" in err
    assert "Elo.fit: Elo takes no margins and ignores the log's margin columns" in err  # so it read them
    assert main(args + ["--out", str(plain), "--quiet"]) == 0
    pd.testing.assert_frame_equal(pd.read_csv(out), pd.read_csv(plain))
    assert main(args + ["--margin", "gb", "ga", "--quiet"]) == 2  # swapped: refused
    assert "margin looks swapped" in capsys.readouterr().err


def test_the_cli_refuses_margin_columns_for_a_pgn_file(tmp_path, capsys):
    pgn = tmp_path / "games.pgn"
    pgn.write_text('[White "p"]\n[Black "q"]\n[Result "1-0"]\n\n1. e4 1-0\n')
    assert main(["fit", str(pgn), "--margin", "ga", "gb"]) == 2
    assert "--margin ga gb: a PGN file has no margin columns" in capsys.readouterr().err


def test_the_cli_evaluate_reads_the_margin_columns_and_notes_the_models_that_take_none(tmp_path, capsys):
    log = league()
    csv = tmp_path / "games.csv"
    pd.DataFrame({"a": log.a, "b": log.b, "s": log.score, "t": log.time, "ga": log.margin[:, 0],
                  "gb": log.margin[:, 1]}).to_csv(csv, index=False)
    assert main(["evaluate", str(csv), "--score", "s", "--time", "t", "--margin", "ga", "gb", "--models", "elo",
                 "--test-fraction", "0.2"]) == 0
    assert "note: 'elo' takes no margins: fitted and scored without the log's margin columns" in capsys.readouterr().out
