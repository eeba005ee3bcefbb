"""``discrank arena`` (issue 34): the board of an arena file printed and written, equal to arena_board's."""

import re

import numpy as np
import pandas as pd
import pytest

import discrank
from discrank.cli.arena import output_prefix, safe_names
from discrank.cli import main

COLUMNS = ["model", "rating", "lower", "upper", "se", "rank", "rank_lower", "rank_upper", "votes", "preliminary"]


def votes_frame(m=900, n=5, seed=0):
    """``m`` votes among ``n`` models of known strengths, a length effect, ties and both-bad ties, three
    categories (one with a slash), and times that are not in row order."""
    rng = np.random.default_rng(seed)
    names = np.array([f"m{k}" for k in range(n)])
    skill = np.linspace(0.8, -0.8, n)
    a = rng.integers(0, n, m)
    b = (a + rng.integers(1, n, m)) % n
    la, lb = rng.integers(50, 500, m), rng.integers(50, 500, m)
    p = 1 / (1 + np.exp(-(skill[a] - skill[b] + 0.8 * (la - lb) / (la + lb))))
    u = rng.random(m)
    winner = np.where(u < 0.1, "tie", np.where(u < 0.13, "tie (bothbad)",
                                               np.where(rng.random(m) < p, "model_a", "model_b")))
    return pd.DataFrame({"model_a": names[a], "model_b": names[b], "winner": winner, "len_a": la, "len_b": lb,
                         "lang": rng.choice(["en", "zh/tw", "de"], m), "t": rng.permutation(m)})


def files(folder):
    return sorted(p.name for p in folder.iterdir())


def same_frame(written, frame):
    """A written CSV against a board's frame: the same models in order, numbers to 1e-9."""
    assert written["model"].tolist() == frame["model"].tolist()
    for col in frame.columns.drop("model"):
        np.testing.assert_allclose(written[col].to_numpy(float), frame[col].to_numpy(float), rtol=0, atol=1e-9,
                                   err_msg=col)


def test_arena_writes_the_board_style_and_category_files_equal_to_arena_board(tmp_path, capsys):
    df = votes_frame()
    df.to_csv(tmp_path / "votes.csv", index=False)
    out = tmp_path / "out"
    out.mkdir()
    assert main(["arena", str(tmp_path / "votes.csv"), "--style", "len", "--category", "lang", "--out",
                 str(out / "b")]) == 0
    assert files(out) == ["b.csv", "b.png", "b_de.csv", "b_de.png", "b_en.csv", "b_en.png", "b_style.csv",
                          "b_zh_tw.csv", "b_zh_tw.png"]
    board = discrank.arena_board(df, style="len", category="lang")
    written = pd.read_csv(out / "b.csv")
    assert written.columns.tolist() == COLUMNS + ["rating_plain", "rank_plain", "rank_change"]
    same_frame(written, board.frame)
    same_frame(pd.read_csv(out / "b_zh_tw.csv"), board.categories["zh/tw"].frame)
    style = pd.read_csv(out / "b_style.csv")
    assert style["name"].tolist() == ["len"]
    np.testing.assert_allclose(style[["coef", "se", "lower", "upper"]].to_numpy(),
                               board.style[["coef", "se", "lower", "upper"]].to_numpy(), rtol=0, atol=1e-12)
    assert (out / "b.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "wrote " + str(out / "b.csv") in capsys.readouterr().err


@pytest.mark.parametrize("suffix", [".jsonl", ".parquet"])
def test_arena_reads_json_lines_and_parquet_with_renamed_columns_into_the_default_prefix(tmp_path, monkeypatch,
                                                                                          suffix):
    df = votes_frame(seed=1).rename(columns={"model_a": "left", "model_b": "right", "winner": "verdict"})
    df["verdict"] = df["verdict"].replace({"model_a": "left", "model_b": "right"})
    path = tmp_path / f"votes{suffix}"
    df.to_json(path, orient="records", lines=True) if suffix == ".jsonl" else df.to_parquet(path)
    monkeypatch.chdir(tmp_path)
    assert main(["arena", str(path), "--model-a", "left", "--model-b", "right", "--winner", "verdict", "--ci",
                 "bootstrap", "--n-boot", "40", "--seed", "3", "--level", "0.9", "--anchor", "m2",
                 "--anchor-rating", "1500", "--ties", "one-win-each", "--bothbad", "ignore"]) == 0
    assert files(tmp_path) == sorted([path.name, "votes_board.csv", "votes_board.png"])
    board = discrank.arena_board(df, model_a="left", model_b="right", winner="verdict", ci="bootstrap", n_boot=40,
                                 seed=3, level=0.9, anchor="m2", anchor_rating=1500, ties="one-win-each",
                                 bothbad="ignore")
    written = pd.read_csv(tmp_path / "votes_board.csv")
    assert written.columns.tolist() == COLUMNS
    same_frame(written, board.frame)
    assert written.loc[written["model"] == "m2", "rating"].item() == 1500.0


def test_arena_prints_the_top_rows_with_rank_interval_and_rank_change_then_style_then_categories(tmp_path,
                                                                                                 capsys):
    df = votes_frame()
    df.to_csv(tmp_path / "votes.csv", index=False)
    assert main(["arena", str(tmp_path / "votes.csv"), "--style", "len", "--category", "lang", "--top", "3",
                 "--out", str(tmp_path / "b")]) == 0
    out = capsys.readouterr().out.splitlines()
    board = discrank.arena_board(df, style="len", category="lang")
    n_votes = int(board.frame["votes"].sum()) // 2
    assert out[0] == f"the board: 5 models, {n_votes} votes, 95% sandwich intervals; style len; the mean at 1000"
    assert out[1].split() == ["rank", "ranks", "model", "rating", "interval", "votes", "plain", "change"]
    top = board.frame.iloc[0]
    assert top["preliminary"]  # (about 360 votes each, below 500)
    assert out[2].split() == [str(top["rank"]), f"{top['rank_lower']}-{top['rank_upper']}", top["model"],
                              "(preliminary)", f"{top['rating']:.1f}", f"[{top['lower']:.1f},", f"{top['upper']:.1f}]",
                              str(top["votes"]), f"{top['rating_plain']:.1f}", f"{top['rank_change']:+d}"]
    assert out[5] == "" and out[6].startswith("style coefficients")
    assert out[8].split() == ["len", f"{board.style['coef'][0]:.4f}", f"{board.style['se'][0]:.4f}",
                              f"{board.style['lower'][0]:.4f}", f"{board.style['upper'][0]:.4f}"]
    heads = [line for line in out if line.startswith("category ")]
    assert [h.split(":")[0] for h in heads] == ["category 'de'", "category 'en'", "category 'zh/tw'"]
    first = out.index(heads[0])
    assert out[first + 2].split()[2] == board.categories["de"].frame["model"].iloc[0]
    assert out[first + 5] == ""  # a header and --top 3 rows


def test_arena_without_intervals_prints_no_interval_columns(tmp_path, capsys):
    votes_frame().to_csv(tmp_path / "votes.csv", index=False)
    assert main(["arena", str(tmp_path / "votes.csv"), "--ci", "none", "--top", "2", "--out",
                 str(tmp_path / "b")]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].endswith("votes, no intervals; the mean at 1000")
    assert out[1].split() == ["rank", "model", "rating", "votes"] and len(out) == 4


def held_out_numbers(text):
    line = next(line for line in text.splitlines() if line.startswith("held out: "))
    n, skipped = (int(x) for x in re.search(r"\((\d+) votes scored, (\d+) skipped", line).groups())
    values = re.search(r"log loss (\S+), coin (\S+), difference (\S+) \(SE (\S+)\)$", line).groups()
    return line, n, skipped, [float(v) for v in values]


@pytest.mark.parametrize("by_time", [False, True])
def test_arena_holdout_line_equals_log_loss_of_the_board_fitted_on_the_rest(tmp_path, capsys, by_time):
    df = votes_frame(m=1000)
    df.to_csv(tmp_path / "votes.csv", index=False)
    argv = ["arena", str(tmp_path / "votes.csv"), "--style", "len", "--holdout", "0.25", "--out", str(tmp_path / "b")]
    assert main(argv + (["--time", "t"] if by_time else [])) == 0
    line, n, skipped, numbers = held_out_numbers(capsys.readouterr().out)
    ordered = df.sort_values("t", kind="stable") if by_time else df
    train, test = ordered.iloc[:750].sort_index(), ordered.iloc[750:].sort_index()
    assert line.startswith("held out: the last 25% of the votes " + ("by 't' (" if by_time else "by row order ("))
    board = discrank.arena_board(train, style="len")
    held = board.log_loss(test)
    assert (n, skipped) == (held.n, held.skipped) == (250, 0)
    np.testing.assert_allclose(numbers, [held.log_loss, held.coin, held.difference, held.se], rtol=0, atol=5e-7)
    same_frame(pd.read_csv(tmp_path / "b.csv"), board.frame)


def test_arena_flip_prints_the_votes_to_flip_the_top_model(tmp_path, capsys):
    df = votes_frame()
    df.to_csv(tmp_path / "votes.csv", index=False)
    assert main(["arena", str(tmp_path / "votes.csv"), "--flip", "--out", str(tmp_path / "b")]) == 0
    drop = discrank.arena_board(df).votes_to_flip(rank=1)
    assert drop.votes > 0
    assert (f"votes to flip the top model {drop.holder!r}: {drop.votes} (first-order estimate {drop.approximate}); "
            f"then {drop.challenger!r} is on top, {drop.gap:.1f} Elo points behind on all the votes"
            ) in capsys.readouterr().out.splitlines()


@pytest.mark.parametrize("extra, message", [
    (["--winner", "verdict"], "--winner 'verdict': no such column in votes.csv (its columns: ['model_a', "),
    (["--category", "topic"], "--category 'topic': no such column in votes.csv (its columns: ['model_a', "),
    (["--time", "when"], "--time 'when': no such column in votes.csv (its columns: ['model_a', "),
    (["--style", "tokens"], "style 'tokens': no column 'tokens', no columns 'tokens_a' and 'tokens_b'"),
    (["--anchor", "gpt-9"], "--anchor 'gpt-9' is not a model of the board"),
    (["--level", "1.5"], "argument --level: must be a number strictly between 0 and 1, got '1.5'"),
    (["--ci", "bca"], "argument --ci: invalid choice: 'bca'"),
    (["--n-boot", "1"], "argument --n-boot: must be an integer >= 2, got '1'"),
    (["--holdout", "0.0001"], "--holdout 0.0001 of 900 votes leaves no vote held out"),
    (["--out", "nowhere/b"], "--out nowhere/b: no folder 'nowhere' to write the board's files in"),
])
def test_arena_bad_option_exits_2_naming_the_value(tmp_path, monkeypatch, capsys, extra, message):
    votes_frame().to_csv(tmp_path / "votes.csv", index=False)
    monkeypatch.chdir(tmp_path)
    assert main(["arena", "votes.csv", *extra]) == 2
    err = capsys.readouterr().err
    assert err.startswith("discrank: error: ") and message in err and err.count("\n") == 1, err
    assert files(tmp_path) == ["votes.csv"]


def test_arena_bad_file_or_vote_exits_2_naming_it(tmp_path, capsys):
    bad = tmp_path / "votes.csv"
    pd.DataFrame({"model_a": ["x", "y", "x"], "model_b": ["y", "z", "x"], "winner": ["model_a", "model_b", "tie"]}
                 ).to_csv(bad, index=False)
    (tmp_path / "votes.xlsx").write_text("x")
    (tmp_path / "broken.parquet").write_text("not parquet")
    (tmp_path / "broken.jsonl").write_text("not json\n")  # the readers' message, or the command's, names it
    (tmp_path / "other.csv").write_text("model_a,model_b,winner\nx,y,both\nx,z,model_a\n")
    for path, message in [(tmp_path / "missing.csv", f"{tmp_path / 'missing.csv'}: no such file"),
                          (tmp_path / "votes.xlsx", "votes.xlsx': not a file read_arena reads"),
                          (tmp_path / "broken.parquet", str(tmp_path / "broken.parquet")),
                          (tmp_path / "broken.jsonl", str(tmp_path / "broken.jsonl")),
                          (bad, "'x' against themself"),
                          (tmp_path / "other.csv", "'both' is neither player")]:
        assert main(["arena", str(path), "--out", str(tmp_path / "b")]) == 2
        err = capsys.readouterr().err
        assert err.startswith("discrank: error: ") and message in err and err.count("\n") == 1, err
    assert not (tmp_path / "b.csv").exists()


def test_category_file_names_are_made_safe_and_distinct_from_each_other_and_the_style_file():
    assert safe_names(["en", "zh/tw", "zh tw", "ZH_TW", "../..", "coding (hard)", "中文", "Style"],
                      taken=("style",)) == ["en", "zh_tw", "zh_tw-2", "ZH_TW-3", "category", "coding_hard", "中文",
                                            "Style-2"]


def test_default_prefix_is_the_stem_without_format_and_compression_suffixes():
    assert [output_prefix(p) for p in ["data/battles.jsonl.gz", "battles.csv", "a.b.parquet", "v.ndjson"]] == [
        "battles_board", "battles_board", "a.b_board", "v_board"]


def test_arena_bootstrap_replicates_that_do_not_converge_are_a_printed_warning(tmp_path, capsys):
    df = votes_frame(m=300, seed=2)
    rare = pd.DataFrame({"model_a": ["rare"] * 3, "model_b": ["m0", "m1", "m2"], "winner": ["model_a", "model_a",
                                                                                          "model_b"]})
    df = pd.concat([df, rare], ignore_index=True)  # a model of 3 votes: often all won in a replicate
    df.to_csv(tmp_path / "votes.csv", index=False)
    assert main(["arena", str(tmp_path / "votes.csv"), "--ci", "bootstrap", "--n-boot", "50", "--out",
                 str(tmp_path / "b")]) == 0
    with pytest.warns(discrank.exceptions.ConvergenceWarning) as caught:
        board = discrank.arena_board(df, ci="bootstrap", n_boot=50)
    bad = int((board.steps < 0).sum())
    assert 0 < bad < 50 and len(caught) == 1
    assert (f"discrank: warning: the board: {bad} of 50 bootstrap replicates did not converge"
            in capsys.readouterr().err.splitlines()[0])
    same_frame(pd.read_csv(tmp_path / "b.csv"), board.frame)


def test_arena_verbose_reports_the_bootstrap_on_a_pipe_and_quiet_silences_it(tmp_path, capsys):
    votes_frame().to_csv(tmp_path / "votes.csv", index=False)
    args = ["arena", str(tmp_path / "votes.csv"), "--ci", "bootstrap", "--n-boot", "20", "--out", str(tmp_path / "b")]
    assert main(args + ["--verbose"]) == 0
    err = capsys.readouterr().err
    assert "bootstrap of the board: 20 of 20 replicates, " in err
    assert main(args + ["--quiet"]) == 0
    assert "replicates," not in capsys.readouterr().err
