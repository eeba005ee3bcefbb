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
