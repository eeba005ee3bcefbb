"""Hostile input on the arena surfaces (arena_board, read_arena, scan_games, ``discrank arena``): winner values
that read two ways, options that would pass unused, boards of ties only, tied top models, and files that are
truncated, empty or JSON arrays. Each test names the behaviour it pins."""

import gzip
import math
import re

import numpy as np
import pandas as pd
import pytest

import discrank
from discrank.data.arena import read_arena
from discrank.cli import main
from discrank.arena.board import ELO, arena_board


def arena(n=300, seed=0):
    """Votes among alpha, beta, gamma: alpha the strongest, ties at rate 0.2."""
    rng = np.random.default_rng(seed)
    models = np.array(["alpha", "beta", "gamma"])
    a = rng.integers(0, 3, n)
    b = (a + rng.integers(1, 3, n)) % 3
    p = 1 / (1 + np.exp(-(np.array([0.6, 0.0, -0.3])[a] - np.array([0.6, 0.0, -0.3])[b])))
    u = rng.random(n)
    winner = np.where(u < 0.2, "tie", np.where(rng.random(n) < p, "model_a", "model_b"))
    return pd.DataFrame({"model_a": models[a], "model_b": models[b], "winner": winner,
                         "lang": rng.choice(["en", "de"], n), "s": rng.normal(size=n)})


def renamed(df, old, new):
    return df.assign(model_a=df.model_a.replace(old, new), model_b=df.model_b.replace(old, new))


def votes(pairs):
    """A frame of ``(a, b, wins of a, wins of b, ties)`` per pair."""
    rows = []
    for a, b, wa, wb, t in pairs:
        rows += [(a, b, "model_a")] * wa + [(a, b, "model_b")] * wb + [(a, b, "tie")] * t
    return pd.DataFrame(rows, columns=["model_a", "model_b", "winner"])


# --- 1. a model named like a winner value ---------------------------------------------------------------
def test_a_model_named_model_b_makes_the_winner_column_ambiguous(tmp_path):
    df = renamed(arena(), "alpha", "model_b")
    first = int(np.flatnonzero((df.model_a == "model_b") & (df.winner == "model_b"))[0])
    count = int(((df.model_a == "model_b") & (df.winner == "model_b")).sum())
    message = (rf"winner column 'winner' is ambiguous: the model 'model_b' is named like a winner value; row "
               rf"{first} \('model_b' against '\w+', winner 'model_b'\) reads as a win of the model named 'model_b' "
               rf"\(in column 'model_a'\), or as a win of the model in column 'model_b' \({count} such votes\)")
    with pytest.raises(ValueError, match=message):
        arena_board(df)
    with pytest.raises(ValueError, match=message):
        read_arena(df)
    df.to_csv(tmp_path / "v.csv", index=False)
    with pytest.raises(ValueError, match=message):
        arena_board(tmp_path / "v.csv")
    with pytest.raises(ValueError, match=re.escape(str(tmp_path / "v.csv")) + ": " + message):
        discrank.scan_games(tmp_path / "v.csv", a="model_a", b="model_b", winner="winner")


def test_a_model_named_tie_that_wins_by_name_makes_the_winner_column_ambiguous():
    df = pd.DataFrame({"model_a": ["x", "tie", "x", "y"], "model_b": ["y", "x", "tie", "tie"],
                       "winner": ["model_a", "model_b", "tie", "model_a"]})
    with pytest.raises(ValueError, match=r"the model 'tie' is named like a winner value; row 2 \('x' against 'tie', "
                                         r"winner 'tie'\) reads as a win of the model named 'tie' \(in column "
                                         r"'model_b'\), or as a tie \(1 such vote\)"):
        read_arena(df)


def test_a_model_named_like_its_own_column_that_wins_from_it_reads_one_way():
    """Where the two readings agree (the model named "model_b" sits in column model_b), the votes are read:
    the board is the board of the same votes under another name, to 1e-9 Elo."""
    df = arena()
    df = df[df.model_a != "alpha"].reset_index(drop=True)  # alpha only ever in column model_b
    board = arena_board(renamed(df, "alpha", "model_b")).frame.set_index("model").rating
    same = arena_board(df).frame.set_index("model").rating.rename({"alpha": "model_b"})
    np.testing.assert_allclose(board.sort_index(), same.sort_index(), rtol=0, atol=1e-9)


# --- 2. bothbad checked by every entry point ------------------------------------------------------------
def test_arena_board_refuses_a_bothbad_other_than_tie_or_ignore(tmp_path):
    df = arena()
    df.to_csv(tmp_path / "v.csv", index=False)
    message = r"bothbad='drop' is not one of \('tie', 'ignore'\)"
    for source in (df, tmp_path / "v.csv", str(tmp_path / "v.csv"), read_arena(df)):
        with pytest.raises(ValueError, match=message):
            arena_board(source, bothbad="drop")
    with pytest.raises(ValueError, match=message):
        read_arena(df, bothbad="drop")
    with pytest.raises(ValueError, match=message):
        arena_board(df).log_loss(df, bothbad="drop")


def test_bothbad_ignore_on_a_game_log_is_refused_as_it_has_no_winner_values():
    with pytest.raises(ValueError, match=r"bothbad='ignore' drops the votes whose winner is one of .* but a GameLog "
                                         r"has scores"):
        arena_board(read_arena(arena()), bothbad="ignore")


# --- 3. a board of ties only ----------------------------------------------------------------------------
@pytest.mark.parametrize("ci", ["sandwich", "bootstrap"])
def test_a_board_of_ties_only_warns_that_its_zero_width_intervals_are_no_certainty(ci):
    ties = pd.DataFrame({"model_a": ["a", "b"] * 150, "model_b": ["b", "a"] * 150, "winner": ["tie"] * 300})
    with pytest.warns(UserWarning, match=r"the board: every one of its 300 votes is a tie: the board says the models "
                                         r"are equal, nothing about their order; its standard errors of 0"):
        board = arena_board(ties, ci=ci, n_boot=20)
    np.testing.assert_allclose(board.frame.rating, [1000.0, 1000.0], rtol=0, atol=1e-9)


def test_a_category_of_ties_only_is_named_in_the_warning():
    df = arena()
    df.loc[df.lang == "de", "winner"] = "tie"
    with pytest.warns(UserWarning, match=r"category 'de': every one of its \d+ votes is a tie"):
        arena_board(df, category="lang")


def test_one_decisive_vote_among_ties_gives_the_sandwich_standard_error_and_no_warning():
    """The zero width of an all-tie board is the sandwich's limit, not a bug: with one win among 299 ties the
    se is the closed form M / A^2 for the gap (halved for a rating held at mean 0), M the votes' squared
    scores and A their information, to 1e-9 relative."""
    df = pd.DataFrame({"model_a": ["a"] * 300, "model_b": ["b"] * 300, "winner": ["model_a"] + ["tie"] * 299})
    frame = arena_board(df).frame.set_index("model")
    p = (1 + 0.5 * 299) / 300
    meat = (p - 1) ** 2 + 299 * (p - 0.5) ** 2
    info = 300 * p * (1 - p)
    assert frame.se["a"] == pytest.approx(ELO * math.sqrt(meat) / info / 2, rel=1e-9)
    assert frame.rating["a"] - frame.rating["b"] == pytest.approx(ELO * math.log(p / (1 - p)), rel=1e-9)


# --- 4. tied top models ---------------------------------------------------------------------------------
def test_votes_to_flip_of_two_tied_top_models_is_zero_votes_for_the_tied_challenger():
    df = votes([("A", "B", 5, 5, 0), ("A", "C", 8, 2, 0), ("B", "C", 8, 2, 0), ("C", "D", 6, 4, 0)])
    board = arena_board(df)
    x = board.fit.x
    assert x[0] == x[1]  # A and B: the same votes, the same rating, exactly
    drop = board.votes_to_flip(rank=1)
    assert (drop.holder, drop.challenger, drop.approximate, drop.votes, drop.gap) == ("A", "B", 0, 0, 0.0)
    assert drop.removed.size == 0


def test_the_cli_says_the_top_rank_is_shared_when_two_models_are_tied(tmp_path, capsys):
    df = votes([("A", "B", 5, 5, 0), ("A", "C", 8, 2, 0), ("B", "C", 8, 2, 0), ("C", "D", 6, 4, 0)])
    df.to_csv(tmp_path / "v.csv", index=False)
    assert main(["arena", str(tmp_path / "v.csv"), "--flip", "--out", str(tmp_path / "b")]) == 0
    assert ("votes to flip the top model 'A': 0; it is tied with 'B' on all the votes (a gap of 0.0 Elo points): "
            "the top rank is shared") in capsys.readouterr().out.splitlines()


def test_votes_to_flip_names_the_model_that_takes_the_rank_on_the_refit():
    """The challenger is the model at the rank once the votes are removed (checked by refitting), not the
    neighbour whose gap the first-order search closed; the gap is the holder's over it. Here removing one vote
    puts m2 on top, where the search aimed at m7."""
    rng = np.random.default_rng(53)
    n, m = int(rng.integers(3, 10)), int(rng.integers(60, 400))
    theta = rng.normal(0, 0.1, n)
    a = rng.integers(0, n, m)
    b = (a + rng.integers(1, n, m)) % n
    winner = np.where(rng.random(m) < 1 / (1 + np.exp(-(theta[a] - theta[b]))), "model_a", "model_b")
    names = np.array([f"m{i}" for i in range(n)])
    df = pd.DataFrame({"model_a": names[a], "model_b": names[b], "winner": winner})
    board = arena_board(df, ci="none")
    drop = board.votes_to_flip(rank=1)
    kept = np.ones(len(df), dtype=bool)
    kept[drop.removed] = False
    assert (drop.holder, drop.challenger, drop.votes) == ("m4", "m2", 1)
    assert arena_board(df[kept], ci="none").frame.model.iloc[0] == drop.challenger
    ratings = board.frame.set_index("model").rating
    assert drop.gap == pytest.approx(ratings[drop.holder] - ratings[drop.challenger], abs=1e-9)


# --- 5, 6. every vote dropped ---------------------------------------------------------------------------
def test_ties_ignore_on_votes_that_are_all_ties_says_every_vote_was_a_tie():
    df = pd.DataFrame({"model_a": list("abcdef") * 50, "model_b": list("bcdefa") * 50, "winner": ["tie"] * 300})
    with pytest.raises(ValueError, match=r"the board: every one of the 300 votes is a tie, and ties='ignore' dropped "
                                         r"them all: no vote is left to rate"):
        arena_board(df, ties="ignore")


def test_ties_ignore_that_drops_every_vote_of_a_model_names_the_model():
    df = arena()
    df.loc[(df.model_a == "gamma") | (df.model_b == "gamma"), "winner"] = "tie"
    n = int(((df.model_a == "gamma") | (df.model_b == "gamma")).sum())
    with pytest.raises(ValueError, match=rf"every one of the {n} votes of model 'gamma' is a tie, and ties='ignore' "
                                         r"dropped them all: the model has no vote left to rate"):
        arena_board(df, ties="ignore")


def test_bothbad_ignore_on_votes_that_are_all_both_bad_says_what_dropped_them(tmp_path):
    df = arena().assign(winner="tie (bothbad)")
    df.to_csv(tmp_path / "v.csv", index=False)
    message = (r"bothbad='ignore': every one of the 300 votes is a tie in which both answers were bad \('winner' one "
               r"of \('tie \(bothbad\)', 'both_bad', 'bothbad'\)\), so no vote is left")
    for source in (df, tmp_path / "v.csv"):
        with pytest.raises(ValueError, match=message):
            arena_board(source, bothbad="ignore")
    with pytest.raises(ValueError, match=r"bothbad='ignore': every one of the 300 votes is a tie in which both"):
        read_arena(df, bothbad="ignore")


# --- 7. a style column constant within a category -------------------------------------------------------
def test_a_style_column_constant_in_one_category_skips_that_board_naming_the_category_and_why():
    """That category's board cannot be fitted: it is skipped with a warning that names it and why (issue 49), and
    the other categories' boards are built, each equal to the board of its votes alone."""
    df = arena()
    df.loc[df.lang == "de", "s"] = 1.0
    n = int((df.lang == "de").sum())
    with pytest.warns(UserWarning, match=rf"category 'de': style column 's' is constant \(1.0\) over all {n} of its "
                                         "votes: its coefficient is not identified: that category's board is skipped"):
        board = arena_board(df, style="s", category="lang")
    others = sorted(set(df.lang) - {"de"})
    assert sorted(board.categories) == others and others
    for lang in others:
        alone = arena_board(df[df.lang == lang], style="s")
        pd.testing.assert_frame_equal(board.categories[lang].frame, alone.frame)


# --- 8, 9. files: truncated, empty, JSON arrays ---------------------------------------------------------
@pytest.mark.parametrize("name", ["v.csv.gz", "v.jsonl.gz"])
def test_a_truncated_compressed_file_is_named_as_truncated(tmp_path, name):
    df = arena()
    path = tmp_path / name
    with gzip.open(path, "wt") as fh:
        fh.write(df.to_csv(index=False) if ".csv" in name else df.to_json(orient="records", lines=True))
    raw = path.read_bytes()
    path.write_bytes(raw[: len(raw) // 2])
    for reader in (arena_board, read_arena):
        with pytest.raises(ValueError, match=re.escape(name) + r"'?: the compressed file is truncated"):
            reader(path)


@pytest.mark.parametrize("name, text, message", [
    ("v.csv", "", "v.csv: the file is empty"),
    ("v.csv", "model_a,model_b,winner\n", r"v.csv': no votes: the file has the columns \['model_a', 'model_b', "
                                          r"'winner'\] but no row"),
    ("v.jsonl", "", "v.jsonl': no votes: the file is empty"),
    ("v.json", "\n  \n", "v.json': no votes: the file is empty"),
    ("v.json", "[]", r"v.json': no votes: the file holds an empty JSON array"),
    ("v.jsonl", '[{"model_a": "x", "model_b": "y", "winner": "tie"}]',
     r"v.jsonl': a JSON array, not JSON lines \(one vote, an object, per line\)"),
    ("v.json", '[{"model_a": "x", "model_b": "y", "winner": "tie"}, 3]',
     r"v.json': element 1 of the JSON array is a JSON int, not a vote \(an object\): 3"),
    ("v.json", '[{"model_a": "x", "model_b": "y", "winner": "tie"},',
     r"v.json': not a JSON array of votes \(Expecting value"),
])
def test_an_empty_or_malformed_votes_file_is_named(tmp_path, name, text, message):
    (tmp_path / name).write_text(text)
    for reader in (arena_board, read_arena):
        with pytest.raises(ValueError, match=message):
            reader(tmp_path / name)


@pytest.mark.parametrize("indent", [None, 2])
def test_a_json_array_of_votes_is_read_as_the_votes(tmp_path, indent):
    df = arena()[["model_a", "model_b", "winner"]]
    df.to_json(tmp_path / "v.json", orient="records", indent=indent)
    df.to_json(tmp_path / "v.jsonl", orient="records", lines=True)
    log, ref = read_arena(tmp_path / "v.json"), read_arena(tmp_path / "v.jsonl")
    assert log.a.tolist() == ref.a.tolist() and log.b.tolist() == ref.b.tolist()
    assert log.score.tolist() == ref.score.tolist() and len(log) == 300
    np.testing.assert_allclose(arena_board(tmp_path / "v.json").frame.rating,
                               arena_board(df).frame.rating, rtol=0, atol=1e-9)


# --- no option passes unused ----------------------------------------------------------------------------
@pytest.mark.parametrize("option", ["weights", "score", "colour"])
def test_an_option_the_votes_readers_do_not_take_is_refused_by_name(option):
    df = arena()
    for reader in (arena_board, read_arena):
        with pytest.raises(TypeError, match=rf"the votes' reader takes no option '{option}'"):
            reader(df, **{option: "s"})


def test_column_options_with_a_game_log_are_refused_by_name():
    log = read_arena(arena())
    with pytest.raises(ValueError, match=r"model_a='left': the votes are a GameLog, read already; the options "
                                         r"\['model_a'\] name columns of a frame or file"):
        arena_board(log, model_a="left")
    with pytest.raises(ValueError, match=r"time='t': the votes are a GameLog"):
        arena_board(log, time="t")


def test_a_style_that_is_not_the_game_logs_advantage_columns_is_refused_by_name():
    df = arena()
    log = read_arena(df, style="s")
    with pytest.raises(ValueError, match=r"style='other' does not match the GameLog's advantage columns \['s'\]"):
        arena_board(log, style="other")
    np.testing.assert_allclose(arena_board(log, style="s").frame.rating, arena_board(df, style="s").frame.rating,
                               rtol=0, atol=1e-9)
    board = arena_board(df, style="s")
    with pytest.raises(ValueError, match=r"does not match the GameLog's advantage columns \['t'\]"):
        board.log_loss(read_arena(df.rename(columns={"s": "t"}), style="t"))


# --- the command line ------------------------------------------------------------------------------------
def test_the_cli_exits_2_naming_an_ambiguous_winner_a_truncated_file_and_an_empty_one(tmp_path, capsys):
    renamed(arena(), "alpha", "model_b").to_csv(tmp_path / "named.csv", index=False)
    with gzip.open(tmp_path / "cut.csv.gz", "wt") as fh:
        fh.write(arena().to_csv(index=False))
    raw = (tmp_path / "cut.csv.gz").read_bytes()
    (tmp_path / "cut.csv.gz").write_bytes(raw[: len(raw) // 2])
    (tmp_path / "empty.jsonl").write_text("")
    for name, message in (("named.csv", "winner column 'winner' is ambiguous: the model 'model_b' is named like a "
                                        "winner value; row "),
                          ("cut.csv.gz", "cut.csv.gz: the compressed file is truncated"),
                          ("empty.jsonl", "empty.jsonl': no votes: the file is empty")):
        assert main(["arena", str(tmp_path / name), "--out", str(tmp_path / "b")]) == 2
        err = capsys.readouterr().err
        assert err.startswith("discrank: error: ") and message in err, err
