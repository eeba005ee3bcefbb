"""Tables users can act on (issue 49): ratings_frame's min_games, max_sd, active_since and context, its provisional
mark and its note, for every model; the arena board's min_votes and preliminary mark; the command line's options."""

import math

import numpy as np
import pandas as pd
import pytest

from discrank import DynamicElo, Elo, GameLog, arena_board
from discrank.cli import main
from discrank.models._table import PROVISIONAL_GAMES, PROVISIONAL_SD
from discrank.online import OnlineElo

START = np.datetime64("2023-01-02", "ns")


def _league(seed=2, players=12, games=900):
    """Dated games between ``players`` and one more, "rookie", who won their one game against the best player."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, players, games)
    b = (a + rng.integers(1, players, games)) % players
    strength = np.linspace(1.5, -1.5, players)
    y = (rng.random(games) < 1 / (1 + np.exp(strength[b] - strength[a]))).astype(float)
    c = rng.integers(0, 2, games)
    names = np.array([f"p{i:02d}" for i in range(players)] + ["rookie"])
    a, b = np.r_[a, players], np.r_[b, 0]
    t = START + (np.arange(games + 1) * 8 * 3600 * 10 ** 9).astype("timedelta64[ns]")
    return GameLog.from_arrays(names[a], names[b], np.r_[y, 1.0], t, context=np.array(["clay", "hard"])[np.r_[c, 0]])


@pytest.fixture(scope="module")
def dynamic():
    return DynamicElo(drift=0.05, prior_scale=1.5, variance_scale=2.0, context_scale=0.4).fit(_league())


def test_the_provisional_mark_follows_its_rule_and_min_games_and_max_sd_hide_by_name(dynamic):
    """provisional = fewer than 10 games or an sd above 110 Elo points; min_games and max_sd hide exactly the players
    they name, the others ranked 1.. among themselves, and the note counts both."""
    assert PROVISIONAL_GAMES == 10 and PROVISIONAL_SD == pytest.approx(110 * math.log(10) / 400, abs=0)
    full = dynamic.ratings_frame()
    assert full["provisional"].tolist() == ((full["games"] < 10) | (full["sd"] > PROVISIONAL_SD)).tolist()
    rookie = full.set_index("player").loc["rookie"]
    assert rookie["games"] == 1 and rookie["provisional"]
    assert full.attrs["note"] == (f"0 of 13 players hidden; {int(full['provisional'].sum())} of the 13 shown provisional"
                                  f" (fewer than 10 games, or a standard deviation above {PROVISIONAL_SD:.3f} logits)")
    kept = dynamic.ratings_frame(min_games=10)
    assert "rookie" not in set(kept["player"]) and len(kept) == 12 and kept["rank"].tolist() == list(range(1, 13))
    assert kept["player"].tolist() == [p for p in full["player"] if p != "rookie"]
    assert kept.attrs["note"].startswith("1 of 13 players hidden (1 with fewer than 10 games)")
    limit = float(np.median(full["sd"]))
    narrow = dynamic.ratings_frame(max_sd=limit)
    assert set(narrow["player"]) == set(full.loc[full["sd"] <= limit, "player"])
    hidden = int((full["sd"] > limit).sum())
    assert narrow.attrs["note"].startswith(f"{hidden} of 13 players hidden ({hidden} with a standard deviation above "
                                           f"{limit:g})")


def test_the_table_in_a_context_adds_each_players_effect_and_its_variance(dynamic):
    full = dynamic.ratings_frame().set_index("player")
    clay = dynamic.ratings_frame(context="clay")
    k = list(dynamic.context_labels_).index("clay")
    idx = dynamic._label_lookup().lookup(clay["player"].to_numpy())
    np.testing.assert_allclose(clay["effect"], dynamic.context_effects_[idx, k], rtol=0, atol=0)
    np.testing.assert_allclose(clay["rating"], full.loc[clay["player"], "rating"].to_numpy() + clay["effect"],
                               rtol=0, atol=1e-15)
    np.testing.assert_allclose(clay["sd"], np.hypot(full.loc[clay["player"], "sd"].to_numpy(),
                                                    dynamic.context_sd_[idx, k]), rtol=1e-15)
    assert (np.diff(clay["rating"].to_numpy()) <= 0).all() and clay.attrs["context"] == "clay"
    with pytest.raises(ValueError, match=r"context='grass' is not among the fitted contexts \['clay', 'hard'\]"):
        dynamic.ratings_frame(context="grass")


@pytest.mark.parametrize("kw, match", [
    (dict(min_games=-1), r"min_games=-1 is below 0"),
    (dict(min_games=2.5), r"min_games=2.5 is not a whole number of games"),
    (dict(max_sd=0.0), r"max_sd=0.0 is not a positive standard deviation"),
    (dict(max_sd=float("nan")), r"max_sd=nan is not a positive standard deviation"),
    (dict(active_since="2030-01-01"), r"active_since=2030-01-01.* is outside the fitted games' time range"),
])
def test_bad_table_options_are_named(dynamic, kw, match):
    with pytest.raises(ValueError, match=match):
        dynamic.ratings_frame(**kw)


def test_every_model_takes_min_games_and_refuses_what_it_cannot_show():
    """Elo and OnlineElo mark and hide by games; Elo keeps no times, no model but DynamicElo has contexts, and
    neither has a standard deviation: each refusal names the option."""
    log = _league()
    plain = GameLog.from_arrays(log.a, log.b, log.score, log.time)
    elo, online = Elo(prior_scale=1.0).fit(plain), OnlineElo(step=0.1).fit(plain)
    for model in (elo, online):
        frame = model.ratings_frame(min_games=10)
        assert "rookie" not in set(frame["player"]) and len(frame) == 12
        assert model.ratings_frame()["provisional"].tolist() == (model.ratings_frame()["games"] < 10).tolist()
        with pytest.raises(ValueError, match=rf"max_sd=0.5: this {type(model).__name__}'s ratings have no standard"):
            model.ratings_frame(max_sd=0.5)
        with pytest.raises(ValueError, match=rf"context='clay' does not apply to {type(model).__name__}"):
            model.ratings_frame(context="clay")
    with pytest.raises(ValueError, match="active_since='2023-02-01' does not apply to Elo: it keeps no times"):
        elo.ratings_frame(active_since="2023-02-01")
    assert len(online.ratings_frame(active_since=log.time[-1])) == 2  # the last game's two players


def _votes(seed=0):
    """Arena votes between 6 models, one of them ("new") in 40 votes only."""
    rng = np.random.default_rng(seed)
    models = np.array(["m0", "m1", "m2", "m3", "m4", "new"])
    a = rng.integers(0, 5, 3000)
    b = (a + rng.integers(1, 5, 3000)) % 5
    a[:40], b[:40] = 5, rng.integers(0, 5, 40)
    strength = np.array([1.0, 0.5, 0.0, -0.5, -1.0, 2.0])
    win = rng.random(3000) < 1 / (1 + np.exp(strength[b] - strength[a]))
    return pd.DataFrame({"model_a": models[a], "model_b": models[b],
                         "winner": np.where(win, "model_a", "model_b")})


def test_the_arena_board_marks_preliminary_models_and_hides_below_min_votes():
    df = _votes()
    board = arena_board(df)
    frame = board.frame.set_index("model")
    assert frame.loc["new", "votes"] == 40 and frame.loc["new", "preliminary"]
    assert frame["preliminary"].tolist() == (frame["votes"] < 500).tolist()
    assert board.frame.attrs["note"] == "0 of 6 models hidden; 1 of the 6 shown preliminary (fewer than 500 votes)"
    kept = arena_board(df, min_votes=100)
    assert "new" not in set(kept.frame["model"]) and kept.frame["rank"].tolist() == [1, 2, 3, 4, 5]
    assert kept.frame["rating"].tolist() == board.frame.loc[board.frame["model"] != "new", "rating"].tolist()
    assert kept.frame.attrs["note"] == ("1 of 6 models hidden (fewer than 100 votes); 0 of the 5 shown preliminary "
                                        "(fewer than 500 votes)")
    with pytest.raises(ValueError, match=r"min_votes=-1 must be an integer >= 0"):
        arena_board(df, min_votes=-1)


def test_the_command_line_filters_and_writes_the_tables(tmp_path, capsys):
    log = _league()
    csv = tmp_path / "games.csv"
    pd.DataFrame({"a": log.a, "b": log.b, "s": log.score, "t": log.time, "surface": log.context}).to_csv(csv,
                                                                                                     index=False)
    base = ["fit", str(csv), "--score", "s", "--time", "t", "--model", "dynamic", "--period", "day", "--drift",
            "0.05", "--prior-scale", "1.5", "--variance-scale", "2", "--context", "surface", "--context-scale", "0.4"]
    out = tmp_path / "table.csv"
    assert main(base + ["--table-min-games", "10", "--table-context", "clay", "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "table: 1 of 13 players hidden (1 with fewer than 10 games)" in err
    written = pd.read_csv(out)
    model = DynamicElo(period="day", drift=0.05, prior_scale=1.5, variance_scale=2.0, context_scale=0.4).fit(log)
    want = model.ratings_frame(min_games=10, context="clay")
    assert written["player"].tolist() == want["player"].tolist()
    np.testing.assert_allclose(written["rating"], want["rating"], rtol=1e-12)
    assert written["provisional"].tolist() == want["provisional"].tolist()
    assert main(["fit", str(csv), "--score", "s", "--time", "t", "--table-max-sd", "0.3", "--quiet"]) == 2
    assert "--table-max-sd does not apply to --model elo: Elo's ratings have no standard deviation" in \
        capsys.readouterr().err
    assert main(base[:-4] + ["--table-context", "clay", "--quiet"]) == 2
    assert "--table-context does not apply to --model dynamic: DynamicElo is fitted without contexts" in \
        capsys.readouterr().err
    votes = tmp_path / "votes.csv"
    _votes().to_csv(votes, index=False)
    assert main(["arena", str(votes), "--min-votes", "100", "--out", str(tmp_path / "b")]) == 0
    captured = capsys.readouterr()
    assert "table: 1 of 6 models hidden (fewer than 100 votes)" in captured.err
    assert "new" not in captured.out.split()


def test_votes_to_flip_ranks_as_the_table_with_min_votes():
    """With min_votes, the rank of votes_to_flip is the table's: the model at rank 1 is the table's first, never a
    model the table hides."""
    df = _votes()
    board = arena_board(df, min_votes=100)
    drop = board.votes_to_flip(1)
    assert drop.holder == board.frame["model"].iloc[0] != "new"
    with pytest.raises(ValueError, match=r"rank=6 must be an integer in \[1, 5\] \(the table's ranks\)"):
        board.votes_to_flip(6)
