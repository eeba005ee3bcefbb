"""The match format column of a game log (a match's format: "bo3", "bo5" in tennis), what is its own: a
second label of the game beside its context (the two columns independent, carried and dropped together),
"missing match format" among the invalid kinds, and the surfaces: evaluate (takes_format), the models that
ignore it, bootstrap, the command line's --match-format, DynamicElo's games record. What it shares with the
context (from_arrays and the constructor with their checks, the filters, splits and shuffle_sides that carry
it, to_pairs that drops it, the readers with its invalid rows "missing match format") is in
tests/test_log_labels.py."""

import re

import numpy as np
import pandas as pd
import pytest

from _logs import A, B, S, SURFACE, T, caught, log6, recording_elo
from discrank import DynamicElo, Elo, GameLog, evaluate
from discrank.data._screen import MISSING_CONTEXT, MISSING_FORMAT, MISSING_MARGIN
from discrank.evaluation._bootstrap import _log_sampler
from discrank.cli import main
from discrank.evaluation._evaluate import _sorted_games
from discrank.exceptions import UnusedColumnWarning
from discrank.data.logs import INVALID_KINDS
from discrank.models.dynamic._state import Games as DynamicGames
from discrank.online import OnlineElo
from discrank.evaluation.protocol import ForeignModel, RatingModel

FORMAT = ["bo3", "bo5", "bo3", "bo3", "bo5", "bo5"]


# ------------------------------------------------------------------ beside the context
def test_the_format_and_the_context_are_two_independent_columns():
    log = log6(context=SURFACE, match_format=FORMAT)
    assert log.context.tolist() == SURFACE and log.match_format.tolist() == FORMAT
    assert log6(match_format=FORMAT).context is None
    assert log6(context=SURFACE).match_format is None  # independent of the context


def test_sorted_by_time_and_split_time_move_the_format_and_the_context_together():
    log = log6(match_format=FORMAT, context=SURFACE).sorted_by_time()  # order 3, 1, 5, 4, 2, 0
    assert log.match_format.tolist() == ["bo3", "bo5", "bo5", "bo5", "bo3", "bo3"]
    assert log.context.tolist() == ["Clay", "Hard", "Clay", "Hard", "Grass", "Clay"]
    past, future = log.split_time(1 / 3)
    assert past.match_format.tolist() == ["bo3", "bo5", "bo5", "bo5"] and future.match_format.tolist() == ["bo3", "bo3"]


def frame():
    return pd.DataFrame({"w": A, "l": B, "s": S, "t": T, "fmt": FORMAT, "surface": SURFACE})


def test_from_frame_reads_the_format_and_the_context_apart():
    log = GameLog.from_frame(frame(), a="w", b="l", score="s", time="t", match_format="fmt")
    assert log.match_format.tolist() == FORMAT and log.context is None
    both = GameLog.from_frame(frame(), a="w", b="l", score="s", context="surface", match_format="fmt")
    assert both.context.tolist() == SURFACE and both.match_format.tolist() == FORMAT


def test_a_game_dropped_for_a_missing_format_takes_its_context_with_it():
    df = frame().astype({"fmt": object})
    df.loc[1, "fmt"] = None
    df.loc[4, "fmt"] = ""
    log, _ = caught(GameLog.from_frame, df, a="w", b="l", score="s", time="t", match_format="fmt",
                    context="surface", invalid="drop")
    assert log.dropped == {"missing match format": 2}
    assert log.match_format.tolist() == ["bo3", "bo3", "bo3", "bo5"]  # games 0, 2, 3, 5
    assert log.context.tolist() == ["Clay", "Grass", "Clay", "Clay"] and log.time.tolist() == [6, 5, 1, 3]


def test_a_row_without_a_context_and_a_format_is_counted_as_a_missing_context():
    df = frame().astype({"surface": object, "fmt": object})
    df.loc[0, ["surface", "fmt"]] = [None, None]
    df.loc[3, "fmt"] = None
    log, _ = caught(GameLog.from_frame, df, a="w", b="l", score="s", context="surface", match_format="fmt",
                    invalid="drop")
    assert log.dropped == {"missing context": 1, "missing match format": 1}


def test_missing_match_format_is_the_last_invalid_kind_and_the_others_keep_their_codes():
    assert INVALID_KINDS[-1] == "missing match format" and len(INVALID_KINDS) == 13
    assert INVALID_KINDS[MISSING_FORMAT - 1] == "missing match format"
    assert (MISSING_CONTEXT, MISSING_MARGIN, MISSING_FORMAT) == (10, 11, 13)


# ------------------------------------------------------------------ the surfaces
def league(games=400, seed=0):
    """8 players of strengths -1 .. 1 logits, ``games`` games at times 0 .. 9, each a best of 3 or of 5."""
    rng = np.random.default_rng(seed)
    strength = np.linspace(-1.0, 1.0, 8)
    a = rng.integers(0, 8, games)
    b = (a + rng.integers(1, 8, games)) % 8
    y = (rng.random(games) < 1.0 / (1.0 + np.exp(strength[b] - strength[a]))).astype(float)
    t = np.sort(rng.integers(0, 10, games)).astype(float)
    labels = np.array([f"p{k}" for k in range(8)], dtype=object)
    fmt = np.array(["bo3", "bo5"], dtype=object)[rng.integers(0, 2, games)]
    return GameLog.from_arrays(labels[a], labels[b], y, t, match_format=fmt)


def plain(log):
    return GameLog.from_arrays(log.a, log.b, log.score, log.time)


FormatElo = recording_elo("match_format", "takes_format")


def test_the_protocol_reads_takes_format_as_true_only_when_it_is_true():
    assert ForeignModel(FormatElo()).takes_format is True
    odd = FormatElo()
    odd.takes_format = 1  # not True: not taken
    assert ForeignModel(odd).takes_format is False
    assert isinstance(Elo(), RatingModel) and Elo().takes_format is False
    assert OnlineElo().takes_format is False and DynamicElo().takes_format is True


def test_evaluate_notes_and_warns_once_of_a_model_that_takes_no_formats_and_scores_it_without_them():
    log = league()
    with pytest.warns(UnusedColumnWarning) as caught:
        result = evaluate({"elo": Elo(prior_scale=1.0)}, log, cutoff=8.0)
    assert [str(w.message) for w in caught] == [
        "evaluate: 'elo' takes no match formats: fitted and scored without the log's match_format column"]
    # Elo warns when it is given formats (any other warning is an error here): it was given the games without them
    assert result.notes == ["'elo' takes no match formats: fitted and scored without the log's match_format column"]
    bare = evaluate({"elo": Elo(prior_scale=1.0)}, plain(log), cutoff=8.0)
    assert bare.notes == []
    np.testing.assert_array_equal(result.predictions["elo"], bare.predictions["elo"])


def test_evaluate_gives_the_formats_to_a_model_that_takes_them_to_fit_and_to_predict():
    log = league()
    FormatElo.seen.clear()
    result = evaluate({"formats": FormatElo()}, log, cutoff=8.0)
    assert result.notes == []
    fits = [f for what, f in FormatElo.seen if what == "fit"]
    predicted = [f for what, f in FormatElo.seen if what == "predict"]
    train = log.time < 8.0  # the log is in time order
    assert len(fits) == 1 and len(predicted) == 1
    assert fits[0].tolist() == log.match_format[train].tolist()
    assert predicted[0].tolist() == log.match_format[~train].tolist()  # a format is known before the game


def test_the_sorted_games_give_the_formats_to_a_log_and_a_query_unless_left_out():
    log = league(games=50).shuffle_sides(3)
    log = GameLog.from_arrays(log.a, log.b, log.score, log.time[::-1].copy(), match_format=log.match_format)
    _, games = _sorted_games(log)
    want = log.match_format[np.argsort(log.time, kind="stable")]
    rows = np.arange(10, 30)
    assert games.fmt.tolist() == want.tolist()
    assert games.log(rows).match_format.tolist() == want[rows].tolist()
    assert games.query(rows).match_format.tolist() == want[rows].tolist()
    assert games.without(True, True, True).log(rows).match_format.tolist() == want[rows].tolist()  # default kept
    assert games.without(False, False, False, True).log(rows).match_format is None
    assert games.without(False, False, False, formats=True).query(rows).match_format is None


@pytest.mark.parametrize("model, where", [(Elo(prior_scale=1.0), "Elo.fit"), (OnlineElo(step=0.1), "OnlineElo.fit")])
def test_a_model_that_takes_no_formats_warns_that_it_ignores_them(model, where):
    log = league(games=120)
    name = where.split(".")[0]
    with pytest.warns(UnusedColumnWarning, match=re.escape(
            f"{where}: {name} takes no match formats and ignores the log's match_format column (its ratings hold "
            "across formats); DynamicElo fits each format's scale of the logit")):
        model.fit(log)
    bare = type(model)(**model.get_params()).fit(plain(log))
    with pytest.warns(UnusedColumnWarning, match=re.escape(
            f"{name}.predict_games: {name} takes no match formats and ignores the games' match_format column (it "
            "predicts every format alike)")):
        got = model.predict_games(log)
    np.testing.assert_array_equal(got, bare.predict_games(plain(log)))


def test_bootstrap_resamples_each_games_format_with_it():
    log = league(games=60)
    # a time names a game
    log = GameLog.from_arrays(log.a, log.b, log.score, np.arange(60.0), match_format=log.match_format)
    _, draw = _log_sampler(log, None)
    sample = draw(np.random.default_rng(5))
    games = sample.time.astype(int)
    assert np.unique(games).size < 60  # drawn with replacement: the check is not a copy of the log
    assert sample.match_format.tolist() == log.match_format[games].tolist()
    assert np.array_equal(sample.score, log.score[games])


def test_the_cli_reads_the_format_column(tmp_path, capsys):
    log = league(games=120)
    csv, out, bare = tmp_path / "games.csv", tmp_path / "ratings.csv", tmp_path / "plain.csv"
    pd.DataFrame({"a": log.a, "b": log.b, "s": log.score, "t": log.time, "fmt": log.match_format}).to_csv(csv,
                                                                                                          index=False)
    args = ["fit", str(csv), "--score", "s", "--time", "t", "--model", "elo", "--prior-scale", "1"]
    assert main(args + ["--match-format", "fmt", "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "8 players, 2 match formats" in err
    assert "Elo.fit: Elo takes no match formats and ignores the log's match_format column" in err  # so it read them
    assert main(args + ["--out", str(bare), "--quiet"]) == 0
    pd.testing.assert_frame_equal(pd.read_csv(out), pd.read_csv(bare))
    assert main(args + ["--match-format", "best_of", "--quiet"]) == 2
    assert "column 'best_of' (for match_format) is not in the frame" in capsys.readouterr().err


def test_the_cli_refuses_a_format_column_for_a_pgn_file(tmp_path, capsys):
    pgn = tmp_path / "games.pgn"
    pgn.write_text('[White "p"]\n[Black "q"]\n[Result "1-0"]\n\n1. e4 1-0\n')
    assert main(["fit", str(pgn), "--match-format", "fmt"]) == 2
    assert ("--match-format fmt: a PGN file has no match format column (--match-format names a column of a CSV or "
            "Parquet file)") in capsys.readouterr().err


def test_the_cli_evaluate_reads_the_format_column_and_notes_the_models_that_take_none(tmp_path, capsys):
    log = league()
    csv = tmp_path / "games.csv"
    pd.DataFrame({"a": log.a, "b": log.b, "s": log.score, "t": log.time, "fmt": log.match_format}).to_csv(csv,
                                                                                                          index=False)
    assert main(["evaluate", str(csv), "--score", "s", "--time", "t", "--match-format", "fmt", "--models", "elo",
                 "--test-fraction", "0.2"]) == 0
    assert ("note: 'elo' takes no match formats: fitted and scored without the log's match_format column"
            in capsys.readouterr().out)


# ------------------------------------------------------------------ DynamicElo's games record
def test_dynamic_elos_games_carry_the_formats_in_time_order():
    log = league(games=40)
    log = GameLog.from_arrays(log.a, log.b, log.score, log.time[::-1].copy(), match_format=log.match_format)
    order = np.argsort(log.time, kind="stable")
    _, games = DynamicElo(period=None)._games(log)
    assert games.fmt.tolist() == log.match_format[order].tolist()
    _, bare = DynamicElo(period=None)._games(plain(log))
    assert bare.fmt is None


def test_then_keeps_the_formats_of_both_sorted_by_time_and_none_when_one_has_none():
    def games(t, fmt):
        n = len(t)
        return DynamicGames(np.zeros(n, dtype=np.int64), np.ones(n, dtype=np.int64), np.ones(n),
                            np.zeros(n, dtype=np.int64), np.array(t, dtype=float),
                            fmt=None if fmt is None else np.array(fmt, dtype=object))

    old, new = games([1, 3, 5], ["bo3", "bo5", "bo3"]), games([2, 6], ["x2", "x6"])
    whole = old.then(new)
    assert whole.time.tolist() == [1, 2, 3, 5, 6] and whole.fmt.tolist() == ["bo3", "x2", "bo5", "bo3", "x6"]
    assert old.then(games([2, 6], None)).fmt is None and games([1], None).then(new).fmt is None


def test_dynamic_elo_codes_the_formats_of_its_games_or_leaves_them_with_format_scales_0():
    log = league(games=200)
    fixed = dict(period=2.0, drift=0.05, prior_scale=1.0, variance_scale=1.0)
    model = DynamicElo(**fixed, format_scales={v: 1.0 for v in np.unique(log.match_format)}).fit(log)
    labels = model.format_labels_
    assert labels[model.games_.fmt].tolist() == log.match_format.tolist()  # the log is in time order
    unused = DynamicElo(**fixed, format_scales=0).fit(log)
    bare = DynamicElo(**fixed).fit(plain(log))
    assert unused.games_.fmt is None and bare.games_.fmt is None and unused.format_labels_ is None
    # format_scales=0 leaves the formats out of its forecasts as of its fit; a model fitted without refuses them
    np.testing.assert_array_equal(unused.predict_games(log), bare.predict_games(plain(log)))
    with pytest.raises(ValueError, match="the games to predict have a match_format column; this DynamicElo was fitted "
                                         "without match formats"):
        bare.predict_games(log)
    # every scale 1: the fit without formats (the scaled rows run in numpy, the others in the core)
    np.testing.assert_allclose(model.predict_games(log), bare.predict_games(plain(log)), rtol=0, atol=1e-9)
    more = league(games=20, seed=1)
    more = GameLog.from_arrays(more.a, more.b, more.score, more.time + 10.0, match_format=more.match_format)
    known = np.isin(more.match_format, labels)
    more = GameLog.from_arrays(more.a[known], more.b[known], more.score[known], more.time[known],
                               match_format=more.match_format[known])
    model.update(more)
    assert labels[model.games_.fmt].tolist() == log.match_format.tolist() + more.match_format.tolist()
    unused.update(more)  # formats unused: the new games' formats are not kept
    assert unused.games_.fmt is None
