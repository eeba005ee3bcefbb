"""The smaller frictions of issue 49, each fixed: the tuning's record saved and loaded, a one-line GameLog repr, an
invalid row named by its file's line or its frame's index label, near-miss names for an unknown player, and the
tuning's report that counts the candidates it printed."""

import json
import re

import numpy as np
import pandas as pd
import pytest

import discrank
from discrank import DynamicElo, Elo, GameLog
from discrank.cli import main
from discrank.exceptions import UnknownPlayerError

NAMES = np.array(["Daniil Medvedev", "Casper Ruud", "Jannik Sinner", "Carlos Alcaraz"])


def _tennis(seed=1, games=600):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 4, games)
    b = (a + rng.integers(1, 4, games)) % 4
    y = (rng.random(games) < 1 / (1 + np.exp(0.4 * (a - b)))).astype(float)
    t = np.datetime64("2023-01-02", "ns") + (np.arange(games) * 12 * 3600 * 10 ** 9).astype("timedelta64[ns]")
    return GameLog.from_arrays(NAMES[a], NAMES[b], y, t, context=np.array(["clay", "hard"])[rng.integers(0, 2, games)])


def _json_record(record):
    """A record as JSON holds it: keys as text, tuples as lists, numpy scalars as Python's."""
    return json.loads(json.dumps(record, default=lambda v: v.item() if hasattr(v, "item") else v.tolist()))


def test_the_tuning_record_is_saved_and_loaded_as_json_holds_it(tmp_path):
    """DynamicElo's tuning_ and Elo's prior_tuning_ come back from a model file (keys as text, tuples as lists),
    not None; a record the class does not hold is refused by name."""
    log = _tennis()
    model = DynamicElo(period="week").fit(log)
    model.save(tmp_path / "d.npz")
    loaded = discrank.load(tmp_path / "d.npz")
    assert loaded.tuning_ == _json_record(model.tuning_)
    assert loaded.tuning_["scanned"]["context_scale"] == pytest.approx(model.tuning_["scanned"]["context_scale"])
    assert loaded.tuning_["bounds"]["drift"] == list(model.tuning_["bounds"]["drift"])
    elo = Elo().fit(GameLog.from_arrays(log.a, log.b, log.score, log.time))
    elo.save(tmp_path / "e.npz")
    assert discrank.load(tmp_path / "e.npz").prior_tuning_ == _json_record(elo.prior_tuning_)
    fixed = DynamicElo(period="week", drift=0.1, prior_scale=1.0, variance_scale=1.0, context_scale=0.3).fit(log)
    fixed.save(tmp_path / "f.npz")
    assert fixed.tuning_ is None and discrank.load(tmp_path / "f.npz").tuning_ is None
    with np.load(tmp_path / "d.npz") as archive:
        arrays = dict(archive)
    meta = json.loads(str(arrays["__discrank__"]))
    meta["records"]["prior_tuning_"] = {}
    arrays["__discrank__"] = np.array(json.dumps(meta))
    np.savez(tmp_path / "bad.npz", **arrays)
    with pytest.raises(ValueError, match=r"records\.prior_tuning_ is not a record a DynamicElo file holds"):
        discrank.load(tmp_path / "bad.npz")


def test_a_game_log_is_one_line():
    log = _tennis()
    assert repr(log) == ("GameLog(600 games of 4 players, times 2023-01-02 .. 2023-10-28, context (2 values))")
    one = GameLog.from_arrays(["x"], ["y"], [0.5], [3.0], advantage={"home": [1.0]})
    assert repr(one) == "GameLog(1 game of 2 players, times 3.0 .. 3.0, 1 draws, advantage ['home'])"
    assert "\n" not in repr(log) and len(repr(log)) < 200


def test_an_invalid_row_is_named_by_its_line_in_a_csv_and_its_index_label_in_a_frame(tmp_path):
    csv = tmp_path / "g.csv"
    csv.write_text("a,b,s\nx,y,1\ny,z,0\nx,x,1\ny,z,0\n")
    with pytest.raises(ValueError, match=r"game 2 is player 'x' against themself \(row 2\) \(line 4 of the file\)"):
        GameLog.read_csv(csv, score="s")
    df = pd.read_csv(csv)
    with pytest.raises(ValueError, match=r"\(row 2\);"):  # a frame numbered 0..n-1: its row is its label
        GameLog.from_frame(df, score="s")
    df.index = ["m1", "m2", "m3", "m4"]
    with pytest.raises(ValueError, match=r"\(row 2\) \(the frame's index label 'm3'\)"):
        GameLog.from_frame(df, score="s")
    assert main(["fit", str(csv), "--score", "s", "--quiet"]) == 2


def test_an_unknown_player_is_named_with_the_names_it_may_mean(tmp_path, capsys):
    log = _tennis()
    elo = Elo().fit(GameLog.from_arrays(log.a, log.b, log.score, log.time))
    for typed, meant in (("Medvedev", "'Daniil Medvedev'"), ("sinner", "'Jannik Sinner'"),
                         ("Caspar Ruud", "'Casper Ruud'")):
        with pytest.raises(UnknownPlayerError, match=re.escape(f"'{typed}' (did you mean {meant}?)")):
            elo.predict_proba(typed, "Casper Ruud")
    with pytest.raises(UnknownPlayerError) as info:
        elo.predict_proba("Nadal", "Casper Ruud")
    assert "did you mean" not in str(info.value)
    elo.save(tmp_path / "e.npz")
    assert main(["predict", str(tmp_path / "e.npz"), "Medvedev", "Casper Ruud"]) == 2
    assert "unknown player 'Medvedev' (did you mean 'Daniil Medvedev'?)" in capsys.readouterr().err


def test_the_tuning_report_counts_every_candidate_it_printed(capsys):
    """With a context walk after the drift and prior ones, 'among N candidates' counts the walk's candidates too."""
    with discrank.progress():
        DynamicElo(period="week").fit(_tennis())
    lines = capsys.readouterr().err.splitlines()
    printed = [line for line in lines if re.match(r"tuning DynamicElo: candidate \d+ ", line)]
    assert any("context_scale=" in line for line in printed)
    chose = [line for line in lines if line.startswith("tuning DynamicElo: chose ")]
    assert len(chose) == 1 and f" among {len(printed)} candidates in " in chose[0]


def test_a_date_written_yyyymmdd_is_that_date_and_other_digits_are_no_date():
    """"20240601" (Sackmann's dates) is 2024-06-01, not the year 20,240,601; "2024" a year; other digits refused."""
    from discrank.data._screen import time_bound

    t = np.array(["2024-01-01"], dtype="datetime64[ns]")
    assert time_bound("20240601", t, "time") == np.datetime64("2024-06-01")
    assert time_bound("2024", t, "time") == np.datetime64("2024")
    for text in ("202406", "99999999", "30000-01-01"):
        with pytest.raises(ValueError, match=re.escape(f"time={text!r} is not a date")):
            time_bound(text, t, "time")
    log = _tennis()
    model = DynamicElo(period="week", drift=0.1, prior_scale=1.0, variance_scale=1.0, context_scale=0.3).fit(log)
    assert model.predict_proba("Casper Ruud", "Jannik Sinner", time="20230601", context="clay") == \
        model.predict_proba("Casper Ruud", "Jannik Sinner", time="2023-06-01", context="clay")
    with pytest.warns(UserWarning, match=r"time='1990-06-01' is before the first fitted game: every rating there is "
                                         r"the prior's"):
        model.predict_proba("Casper Ruud", "Jannik Sinner", time="1990-06-01", context="clay")


def test_a_category_keeps_its_board_without_a_model_that_won_all_its_few_votes():
    """One model that won its 4 votes in a category is left out of that category's board (named in a warning); the
    category's board is built from the others' votes, as the board of those votes alone."""
    rng = np.random.default_rng(5)
    n = 2000
    a, b = rng.integers(0, 5, n), rng.integers(1, 5, n)
    b = (a + b) % 5
    names = np.array([f"m{i}" for i in range(5)])
    votes = pd.DataFrame({"model_a": names[a], "model_b": names[b],
                          "winner": np.where(rng.random(n) < 0.5, "model_a", "model_b"),
                          "lang": np.where(rng.random(n) < 0.5, "en", "ja")})
    extra = pd.DataFrame({"model_a": ["new"] * 4, "model_b": ["m0", "m1", "m2", "m3"], "winner": ["model_a"] * 4,
                          "lang": ["ja"] * 4})
    with pytest.warns(UserWarning) as caught:  # the board's and the category's
        board = discrank.arena_board(pd.concat([votes, extra], ignore_index=True), category="lang")
    texts = [str(w.message) for w in caught]
    assert [t.split(":")[0] for t in texts] == ["the board", "category 'ja'"]
    assert all("left out 1 model(s) that won or lost every one of their votes" in t and "'new' (won 4 of 4)" in t
               for t in texts)
    assert sorted(board.categories) == ["en", "ja"]
    alone = discrank.arena_board(votes[votes.lang == "ja"].drop(columns="lang"))
    pd.testing.assert_frame_equal(board.categories["ja"].frame, alone.frame)
