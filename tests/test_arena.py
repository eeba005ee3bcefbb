"""Arena logs (issue 34): the winner column of arena files, and the ties policies."""

import numpy as np
import pandas as pd
import pytest

from discrank import Elo, GameLog
from discrank.data.arena import TIES, apply_ties


def battles():
    df = pd.DataFrame({"model_a": ["gpt", "claude", "gpt", "llama", "gpt", "claude"],
                       "model_b": ["claude", "llama", "llama", "gpt", "claude", "gpt"],
                       "winner": ["model_a", "model_b", "tie", "tie (bothbad)", "model_b", "model_a"],
                       "t": [1, 2, 3, 4, 5, 6], "len": [0.5, -1.0, 2.0, 0.0, 1.0, -0.5]})
    return GameLog.from_frame(df, a="model_a", b="model_b", winner="winner", time="t", advantage="len")


def test_half_and_davidson_keep_the_log_and_ignore_drops_the_ties_with_their_columns():
    log = battles()
    assert apply_ties(log) is log and apply_ties(log, "davidson") is log
    decisive = apply_ties(log, "ignore")
    assert decisive.score.tolist() == [1.0, 0.0, 0.0, 1.0]
    assert decisive.time.tolist() == [1, 2, 5, 6] and decisive.advantage[:, 0].tolist() == [0.5, -1.0, 1.0, -0.5]


def test_one_win_each_makes_every_vote_two_games_in_place_as_fastchat_counts_them():
    log = battles()
    out = apply_ties(log, "one-win-each")
    assert out.a.tolist() == ["gpt", "gpt", "claude", "claude", "gpt", "gpt", "llama", "llama", "gpt", "gpt",
                              "claude", "claude"]
    assert out.score.tolist() == [1.0, 1.0, 0.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 1.0]
    assert out.time.tolist() == [1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6] and out.advantage[4:6, 0].tolist() == [2.0, 2.0]
    assert log.score.tolist() == [1.0, 0.0, 0.5, 0.5, 0.0, 1.0]  # the log itself is unchanged


def test_one_win_each_is_half_on_twice_the_games():
    # FastChat's rule: a decisive vote two wins, a tie one win each: the pairs of "half" with every count doubled
    log = GameLog.from_arrays(["x", "x", "y"], ["y", "y", "z"], [1.0, 0.5, 0.5])
    half, each = log.to_pairs(), apply_ties(log, "one-win-each").to_pairs()
    assert half.n_games.tolist() == [2.0, 1.0] and each.n_games.tolist() == [4.0, 2.0]
    assert np.allclose(each.p, half.p)
    mle = {k: Elo(prior_scale=np.inf).fit(d).ratings_ for k, d in (("half", half), ("each", each))}
    np.testing.assert_allclose(mle["each"], mle["half"], atol=1e-9)


@pytest.mark.parametrize("bad, error, message", [
    ("both", ValueError, f"ties='both' is not one of {TIES}"),
    (None, ValueError, "ties=None is not one of"),
])
def test_a_bad_ties_policy_is_named(bad, error, message):
    with pytest.raises(error, match=message.replace("(", r"\(").replace(")", r"\)")):
        apply_ties(battles(), bad)


def test_ignore_on_a_log_of_ties_only_and_a_log_that_is_not_one_are_refused():
    with pytest.raises(ValueError, match="ties='ignore': every one of the 2 votes is a tie"):
        apply_ties(GameLog.from_arrays(["x", "y"], ["y", "z"], [0.5, 0.5]), "ignore")
    with pytest.raises(TypeError, match="apply_ties expects a discrank.GameLog, got DataFrame"):
        apply_ties(pd.DataFrame(), "half")


@pytest.mark.parametrize("name", ["votes.csv", "votes.csv.gz", "votes.parquet", "votes.jsonl", "votes.ndjson.gz"])
def test_read_arena_reads_every_format_with_the_arena_columns_and_the_ties_policy(tmp_path, name):
    from discrank.data.arena import read_arena

    df = pd.DataFrame({"model_a": ["gpt", "claude", "gpt", "llama"], "model_b": ["claude", "llama", "llama", "gpt"],
                       "winner": ["model_a", "tie (bothbad)", "model_b", "tie"], "len": [1.0, -2.0, 0.5, 0.0]})
    path = tmp_path / name
    if ".csv" in name:
        df.to_csv(path, index=False)
    elif name.endswith(".parquet"):
        df.to_parquet(path)
    else:
        df.to_json(path, orient="records", lines=True)
    log = read_arena(path, style="len")
    assert log.a.tolist() == ["gpt", "claude", "gpt", "llama"] and log.score.tolist() == [1.0, 0.5, 0.0, 0.5]
    assert log.advantage_names == ("len",) and log.advantage[:, 0].tolist() == [1.0, -2.0, 0.5, 0.0]
    assert read_arena(path, ties="ignore").score.tolist() == [1.0, 0.0]
    assert read_arena(df, ties="one-win-each").score.tolist() == [1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0]


def test_read_arena_names_a_file_it_does_not_read_and_a_bad_vote(tmp_path):
    from discrank.data.arena import read_arena

    with pytest.raises(ValueError, match=r"votes\.xlsx': not a file read_arena reads"):
        read_arena(tmp_path / "votes.xlsx")
    bad = pd.DataFrame({"model_a": ["gpt", "gpt"], "model_b": ["claude", "gpt"], "winner": ["model_a", "model_b"]})
    with pytest.raises(ValueError, match="game 1 is player 'gpt' against themself|row 1"):
        read_arena(bad)
    with pytest.raises(ValueError, match=r"winner\[0\] = 'both' is neither player"):
        read_arena(bad.iloc[:1].assign(winner=["both"]))


def _metadata(tokens_a, tokens_b, headers_a, headers_b):
    return {"sum_assistant_a_tokens": tokens_a, "sum_assistant_b_tokens": tokens_b,
            "header_count_a": {"h1": headers_a, "h2": 1}, "header_count_b": {"h1": headers_b, "h2": 0},
            "list_count_a": {"ordered": 0, "unordered": 2}, "list_count_b": {"ordered": 1, "unordered": 0},
            "bold_count_a": {"**": 0, "__": 0}, "bold_count_b": {"**": 0, "__": 0}}


def test_style_features_come_from_columns_column_pairs_or_the_conversation_metadata():
    from discrank.data.arena import style_features

    frame = pd.DataFrame({"model_a": ["x", "y"], "model_b": ["y", "x"], "ready": [0.25, -1.0],
                          "len_a": [300, 0], "len_b": [100, 0],
                          "conv_metadata": [_metadata(30, 10, 2, 0), _metadata(5, 15, 0, 0)]})
    z, names = style_features(frame, "ready,len")
    assert names == ("ready", "len")
    np.testing.assert_array_equal(z, [[0.25, 0.5], [-1.0, 0.0]])  # (300-100)/400; 0 where both are 0
    z, names = style_features(frame.drop(columns=["len_a", "len_b"]), ["len", "md"])
    assert names == ("len", "header", "list", "bold")
    np.testing.assert_allclose(z, [[0.5, 1.0, 1 / 3, 0.0], [-0.5, 1.0, 1 / 3, 0.0]])  # headers 3:0, 1:0; lists 2:1
    with pytest.raises(ValueError, match=r"'conv_metadata', row 1: no 'sum_assistant_b_tokens'"):
        bad = frame.drop(columns=["len_a", "len_b"])
        del bad.conv_metadata[1]["sum_assistant_b_tokens"]
        style_features(bad, "len")
    with pytest.raises(ValueError, match=r"style 'len': no column 'len'.*no 'conv_metadata' column"):
        style_features(frame[["model_a", "model_b"]], "len")


def test_read_arena_keeps_both_bad_ties_apart_when_asked():
    from discrank.data.arena import read_arena

    frame = pd.DataFrame({"model_a": ["x", "y", "x", "y"], "model_b": ["y", "x", "y", "x"],
                          "winner": ["model_a", "tie (bothbad)", "tie", "model_b"]})
    assert read_arena(frame).score.tolist() == [1.0, 0.5, 0.5, 0.0]
    assert read_arena(frame, bothbad="ignore").score.tolist() == [1.0, 0.5, 0.0]
    with pytest.raises(ValueError, match=r"bothbad='drop' is not one of \('tie', 'ignore'\)"):
        read_arena(frame, bothbad="drop")


def test_read_arena_names_a_missing_time_column():
    from discrank.data.arena import read_arena

    frame = pd.DataFrame({"model_a": ["x"], "model_b": ["y"], "winner": ["model_a"]})
    with pytest.raises(ValueError, match=r"no column 'day' in the votes \(columns: \['model_a', 'model_b', 'winner'\]\)"):
        read_arena(frame, time="day")


def test_read_arena_numbers_the_files_rows_when_both_bad_votes_are_dropped():
    from discrank.data.arena import read_arena

    frame = pd.DataFrame({"model_a": ["x", "y", "x"], "model_b": ["y", "x", "y"],
                          "winner": ["tie (bothbad)", "model_a", "nobody"]})
    with pytest.raises(ValueError, match=r"winner\[2\] = 'nobody'"):
        read_arena(frame, bothbad="ignore")
    log = read_arena(frame.iloc[:2], bothbad="ignore")
    assert log.a.tolist() == ["y"] and log.score.tolist() == [1.0]
    with pytest.raises(ValueError, match=r"every one of the 1 votes is a tie in which both answers were bad"):
        read_arena(frame.iloc[:1], bothbad="ignore")
