"""The readers of tennis scores and football goals (discrank.data.readers): each rule of the module's docstring on small
frames and files, bad input named by its row and line, the command line's --reader, and the real files of
../shared/data counted against an independent reading (skipped without the data)."""

import re

import numpy as np
import pandas as pd
import pytest

import discrank
from discrank.cli import main
from discrank.exceptions import InvalidRowsWarning
from discrank.data.readers import EARLY, PLAYED, UNREADABLE, WALKOVER, tennis_games

from _data import DATA, missing


@pytest.mark.parametrize("score, won, lost, status", [
    ("6-4 3-6 7-6(5)", 16, 16, PLAYED),
    ("6-4 6-7(3) 6-1 6-2", 24, 14, PLAYED),
    ("7-6 4-6 [10-8]", 12, 12, PLAYED),   # the match tiebreak: one game to its winner
    ("6-3 2-1 RET", 8, 4, EARLY),          # ended early: the games played
    ("6-4 DEF", 6, 4, EARLY),
    ("W/O", 0, 0, WALKOVER),
    ("6-36-3", 0, 0, UNREADABLE),
    ("UNK", 0, 0, UNREADABLE),
    ("RET 6-3", 0, 0, UNREADABLE),         # a mark before the sets is no score
    ("", 0, 0, UNREADABLE),
    (None, 0, 0, UNREADABLE),
    (float("nan"), 0, 0, UNREADABLE),
])
def test_each_score_is_read_by_the_stated_rule(score, won, lost, status):
    got = tennis_games([score, "6-0 6-0"])
    assert [int(v[0]) for v in got] == [won, lost, status]
    assert [int(v[1]) for v in got] == [12, 0, PLAYED]


def _matches(**extra):
    frame = {"tourney_date": [20240101, 20240102, 20240103, 20240104, 20240105, 20240106],
             "winner_name": ["Ann", "Bea", "Cat", "Ann", "Bea", "Cat"],
             "loser_name": ["Bea", "Cat", "Ann", "Cat", "Ann", "Bea"],
             "score": ["6-4 6-4", "6-3 2-1 RET", "W/O", "7-6(5) 4-6 7-5", "6-4 6-7(3) 6-1 6-2", "6-2 6-1"],
             "surface": ["Hard", "Clay", "Hard", "Clay", "Grass", "Grass"], "best_of": [3, 3, 3, 3, 5, 5]}
    frame.update(extra)
    return pd.DataFrame(frame)


def test_a_tennis_log_has_the_winner_first_its_games_surfaces_formats_and_dates():
    log = discrank.read_tennis(_matches())
    assert len(log) == 5 and log.dropped == {"walkover (not played)": 1}
    assert log.a.tolist() == ["Ann", "Bea", "Ann", "Bea", "Cat"] and (log.score == 1.0).all()
    np.testing.assert_array_equal(log.margin, [[12, 8], [8, 4], [18, 17], [24, 14], [12, 3]])
    assert log.context.tolist() == ["Hard", "Clay", "Clay", "Grass", "Grass"]
    assert log.match_format.tolist() == ["bo3", "bo3", "bo3", "bo5", "bo5"]
    assert str(log.time[0])[:10] == "2024-01-01"
    early = discrank.read_tennis(_matches(), ended_early="drop")
    assert len(early) == 4 and early.dropped == {"walkover (not played)": 1, "ended early": 1}
    bare = discrank.read_tennis(_matches(), surface=None, best_of=None, time=None)
    assert bare.context is None and bare.match_format is None and bare.time is None
    model = discrank.DynamicElo(period="day", drift=0.1, prior_scale=1.0, variance_scale=1.0, context_scale=0.2,
                                margin_scale=0.3).fit(log)
    assert model.margin_scale_ == 0.3 and model.context_labels_.tolist() == ["Clay", "Grass", "Hard"]


def test_an_unreadable_score_is_named_by_its_row_and_line_or_dropped(tmp_path):
    bad = _matches(score=["6-4 6-4", "W/O", "6-36-3", "7-6(5) 4-6 7-5", "6-4 6-7(3) 6-1 6-2", "6-2 6-1"])
    path = tmp_path / "m.csv"
    bad.to_csv(path, index=False)
    with pytest.raises(ValueError, match=re.escape("row 2 (line 4 of the file): an unreadable score '6-36-3'")):
        discrank.read_tennis(path)
    with pytest.raises(ValueError, match=re.escape("row 2: an unreadable score '6-36-3'")):
        discrank.read_tennis(bad)
    log = discrank.read_tennis(bad, invalid="drop")
    assert len(log) == 4 and log.dropped == {"walkover (not played)": 1, "an unreadable score": 1}
    with pytest.raises(ValueError, match=r"invalid=\"drop\" would drop 3 of 6 rows \(50%\), more than max_invalid=0.4; "
                                         r"the most common kind is 'an unreadable score' \(3 rows\)"):
        discrank.read_tennis(_matches(score=["x", "y", "z", "6-0", "6-0", "6-0"]), invalid="drop", max_invalid=0.4)
    with pytest.raises(ValueError, match=r"column 'score' is not in the matches"):
        discrank.read_tennis(bad.drop(columns="score"))
    with pytest.raises(ValueError, match=r"ended_early='maybe' is not one of"):
        discrank.read_tennis(bad, ended_early="maybe")
    with pytest.warns(InvalidRowsWarning, match=r"1 missing context \(row 5\)"):  # the file's row, not a position
        discrank.read_tennis(_matches(surface=["Hard", "Clay", "Hard", "Clay", "Grass", None]), invalid="drop")


def _results(**extra):
    frame = {"date": ["2024-03-01", "2024-03-05", "2024-03-09", "2024-03-12"],
             "home_team": ["Spain", "Italy", "Spain", "France"], "away_team": ["Italy", "Spain", "France", "Italy"],
             "home_score": [2, 1, 0, 3], "away_score": [2, 0, 1, 3], "neutral": ["FALSE", "FALSE", "TRUE", "FALSE"]}
    frame.update(extra)
    return pd.DataFrame(frame)


def test_a_football_log_has_the_result_the_goals_and_the_home_column():
    log = discrank.read_football(_results())
    np.testing.assert_array_equal(log.score, [0.5, 1.0, 0.0, 0.5])
    np.testing.assert_array_equal(log.margin, [[2, 2], [1, 0], [0, 1], [3, 3]])
    assert log.advantage_names == ("home",) and log.advantage[:, 0].tolist() == [1.0, 1.0, 0.0, 1.0]
    by = discrank.read_football(_results(tournament=["Friendly"] * 2 + ["Euro"] * 2), context="tournament",
                                neutral=None)
    assert by.context.tolist() == ["Friendly", "Friendly", "Euro", "Euro"] and (by.advantage == 1).all()


@pytest.mark.parametrize("goals, shown", [(-1, "'-1-0'"), (1.5, "'1.5-0'"), ("two", "'two-0'")])
def test_goals_that_are_no_count_are_named(goals, shown, tmp_path):
    bad = _results(home_score=[2, 1, goals, 3], away_score=[2, 0, 0, 3])
    with pytest.raises(ValueError, match=re.escape(f"row 2: goals that are not a count (a whole number >= 0) {shown}")):
        discrank.read_football(bad)
    bad.to_csv(tmp_path / "r.csv", index=False)
    with pytest.raises(ValueError, match=re.escape("row 2 (line 4 of the file): goals")):
        discrank.read_football(tmp_path / "r.csv")
    log = discrank.read_football(bad, invalid="drop")
    assert len(log) == 3 and log.dropped == {"goals that are not a count (a whole number >= 0)": 1}
    with pytest.raises(ValueError, match=r"row 1: neutral = 'sometimes' is neither true nor false"):
        discrank.read_football(_results(neutral=["FALSE", "sometimes", "TRUE", "FALSE"]))


def test_the_command_line_reads_with_a_reader(tmp_path, capsys):
    _matches().to_csv(tmp_path / "m.csv", index=False)
    out = tmp_path / "t.csv"
    assert main(["fit", str(tmp_path / "m.csv"), "--reader", "tennis", "--quiet", "--out", str(out)]) == 0
    table = pd.read_csv(out)
    log = discrank.read_tennis(_matches())
    want = discrank.Elo().fit(discrank.GameLog.from_arrays(log.a, log.b, log.score, log.time).to_pairs()).ratings_frame()
    assert table["player"].tolist() == want["player"].tolist()
    assert main(["fit", str(tmp_path / "m.csv"), "--reader", "tennis", "--score", "s", "--quiet"]) == 2
    assert "--score does not apply with --reader tennis" in capsys.readouterr().err
    _results().to_csv(tmp_path / "r.csv", index=False)
    assert main(["fit", str(tmp_path / "r.csv"), "--reader", "football", "--quiet", "--save",
                 str(tmp_path / "f.npz")]) == 0
    assert discrank.load(tmp_path / "f.npz").advantage_names_ == ("home",)


@pytest.mark.data
@pytest.mark.skipif(missing("tennis_atp/atp_matches_singles_all_levels.csv.xz"),
                    reason="needs ../shared/data/tennis_atp (the data folder: $DISCRANK_DATA, else ../shared/data)")
def test_the_atp_file_reads_by_the_rules():
    """Every walkover, match ended early and unreadable score of the ATP file counted as an independent reading of
    its score column says."""
    path = DATA / "tennis_atp" / "atp_matches_singles_all_levels.csv.xz"
    raw = pd.read_csv(path, usecols=["score"], low_memory=False)["score"]
    text = raw.fillna("").astype(str).str.split().str.join(" ")  # (a score's tokens, whatever the spaces)
    walkover = text.str.contains(r"(?:^|\s)(?:W/O|w/o|W/O\.|Walkover|walkover|WO)(?:\s|$)")
    sets = r"(?:\d+-\d+(?:\(\d+\))?|\[\d+-\d+\])"
    played = text.str.fullmatch(rf"{sets}(?: {sets})*")
    early = text.str.fullmatch(rf"(?:{sets} )*(?:RET|RET\.|Ret\.|Ret|Retired|rtd\.|DEF|Def\.|Def|ABD|ABN|"
                               r"Abandoned|abandoned)")
    with pytest.warns(InvalidRowsWarning):
        log = discrank.read_tennis(path, invalid="drop")
    assert log.dropped["walkover (not played)"] == int(walkover.sum())
    assert log.dropped["an unreadable score"] == int((~walkover & ~played & ~early).sum())
    with pytest.warns(InvalidRowsWarning):
        kept = discrank.read_tennis(path, invalid="drop", ended_early="drop")
    assert kept.dropped["ended early"] == int((early & ~walkover).sum())
    assert len(log) - len(kept) <= int(early.sum())


def test_the_window_comes_before_the_scores_are_read_and_counted():
    """Rows outside [start, end) are never checked nor counted: an unreadable score there is no error, and the
    walkovers counted are the window's."""
    frame = _matches(score=["UNK", "W/O", "6-4 6-4", "W/O", "6-4 6-7(3) 6-1 6-2", "6-2 6-1"])
    log = discrank.read_tennis(frame, start="2024-01-03")
    assert len(log) == 3 and log.dropped == {"walkover (not played)": 1}
    log = discrank.read_tennis(frame, start="20240103", end="20240106")  # YYYYMMDD read as the date
    assert len(log) == 2
    results = _results(home_score=[-1, 1, 0, 3])
    assert len(discrank.read_football(results, start="2024-03-05")) == 3


def test_the_command_line_tables_a_tennis_log_by_surface(tmp_path, capsys):
    """--reader tennis gives its surfaces as the context: --table-context takes them."""
    _matches().to_csv(tmp_path / "m.csv", index=False)
    out = tmp_path / "clay.csv"
    assert main(["fit", str(tmp_path / "m.csv"), "--reader", "tennis", "--model", "dynamic", "--period", "day",
                 "--drift", "0.1", "--prior-scale", "1", "--variance-scale", "1", "--context-scale", "0.2",
                 "--margin-scale", "0.3", "--table-context", "Clay", "--quiet", "--out", str(out)]) == 0
    model = discrank.DynamicElo(period="day", drift=0.1, prior_scale=1.0, variance_scale=1.0, context_scale=0.2,
                                margin_scale=0.3).fit(discrank.read_tennis(_matches()))
    want = model.ratings_frame(context="Clay")
    got = pd.read_csv(out)
    assert got["player"].tolist() == want["player"].tolist()
    np.testing.assert_allclose(got["effect"], want["effect"], rtol=1e-12)
