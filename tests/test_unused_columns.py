"""No silent column drop: every reader, model and command given a column it does not use (a context, a match format,
margins, advantage columns) uses it, warns once naming it (``UnusedColumnWarning``), or refuses it.

The library's side: the stationary and online models' predictions, their updates, ``evaluate`` and ``bootstrap``
(the fits' warnings are cells of tests/test_matrix.py). The command line's: ``predict`` reads the fixtures' contexts
and match formats for a model fitted with them, and refuses or names them for a model fitted without;
``fit --min-games`` names the columns its pairs drop.
"""

from __future__ import annotations

import contextlib
import io
import re
import warnings

import numpy as np
import pytest

from discrank import DynamicElo, Elo, EloPlusPlus, GameLog, OnlineDisc, bootstrap, evaluate, load
from discrank.cli import main
from discrank.exceptions import UnusedColumnWarning
from discrank.online import OnlineElo
from test_matrix import FIX_A, FIX_B, LOG, league

pd = pytest.importorskip("pandas")

LAST = float(LOG.time.max())


def fixtures(**columns) -> GameLog:
    """The 90 fixtures of the league at its last time, with ``columns`` (context=, match_format=, advantage=)."""
    return GameLog.from_arrays(FIX_A, FIX_B, np.full(FIX_A.size, 0.5), np.full(FIX_A.size, LAST), **columns)


def messages(caught) -> list:
    return [str(w.message) for w in caught]


# ------------------------------------------------------------------ the library: predictions
@pytest.mark.parametrize("make", [lambda: Elo(prior_scale=1.0), lambda: EloPlusPlus(prior_scale=1.0),
                                  lambda: OnlineElo(step=0.1), lambda: OnlineDisc(step=0.1)],
                         ids=["Elo", "EloPlusPlus", "OnlineElo", "OnlineDisc"])
@pytest.mark.parametrize("method", ["predict_games", "predict_outcomes"])
def test_a_model_without_contexts_or_formats_warns_once_per_column_naming_each_when_it_predicts_games_with_them(
        make, method):
    model = make().fit(LOG)
    name = type(model).__name__
    games = fixtures(context=np.full(FIX_A.size, "clay"), match_format=np.full(FIX_A.size, "bo5"))
    with pytest.warns(UnusedColumnWarning) as caught:
        got = getattr(model, method)(games)
    assert messages(caught) == [
        f"{name}.{method}: {name} takes no contexts and ignores the games' context column (it predicts every context "
        "alike)",
        f"{name}.{method}: {name} takes no match formats and ignores the games' match_format column (it predicts "
        "every format alike)"]
    np.testing.assert_array_equal(got, getattr(model, method)(fixtures()))  # ignored indeed, and said so


def test_the_warning_points_at_the_callers_line():
    model = Elo(prior_scale=1.0).fit(LOG)
    with pytest.warns(UnusedColumnWarning) as caught:
        model.predict_games(fixtures(context=np.full(FIX_A.size, "clay")))
    assert caught[0].filename == __file__


def test_a_model_fitted_without_advantage_columns_names_the_games_columns_it_predicts_as_neutral():
    model = Elo(prior_scale=1.0).fit(LOG)
    with pytest.warns(UnusedColumnWarning) as caught:
        got = model.predict_games(fixtures(advantage={"home": np.ones(FIX_A.size), "rest": np.ones(FIX_A.size)}))
    assert messages(caught) == [
        "Elo.predict_games: this Elo was fitted without advantage columns and ignores the games' columns 'home', "
        "'rest' (it predicts every game as neutral; fit it on a GameLog with them to use them)"]
    np.testing.assert_array_equal(got, model.predict_games(fixtures()))


def test_the_margins_of_games_to_predict_are_their_outcome_and_no_prediction_warns_of_them():
    log = league(margin=True)
    model = Elo(prior_scale=1.0).fit(LOG)
    # (warnings are errors here: none is raised) the margins, like the score, are not read to predict
    np.testing.assert_array_equal(model.predict_games(log), model.predict_games(LOG))


def test_a_model_fitted_with_contexts_predicts_them_without_a_warning():
    model = DynamicElo(period=1.0, drift=0.1, prior_scale=1.0, variance_scale=1.0, context_scale=0.5)
    model.fit(league(context=True))
    clay, hard = (model.predict_games(fixtures(context=np.full(FIX_A.size, c))) for c in ("x", "y"))
    assert np.abs(clay - hard).max() > 0.1


# ------------------------------------------------------------------ the library: updates, evaluate, bootstrap
@pytest.mark.parametrize("make", [lambda: OnlineElo(step=0.1), lambda: OnlineDisc(step=0.1)],
                         ids=["OnlineElo", "OnlineDisc"])
def test_an_online_update_names_the_context_margin_and_format_columns_it_ignores(make):
    model = make().fit(LOG)
    name = type(model).__name__
    later = league(context=True, margin=True, match_format=True)
    later = GameLog.from_arrays(later.a, later.b, later.score, later.time + 20.0, context=later.context,
                                margin=later.margin, match_format=later.match_format)
    with pytest.warns(UnusedColumnWarning) as caught:
        model.update(later)
    assert [m.split(";")[0] for m in messages(caught)] == [
        f"{name}.update: {name} takes no contexts and ignores the log's context column (its ratings hold across "
        "contexts)",
        f"{name}.update: {name} takes no margins and ignores the log's margin columns (it fits the results alone)",
        f"{name}.update: {name} takes no match formats and ignores the log's match_format column (its ratings hold "
        "across formats)"]
    plain = make().fit(LOG).update(GameLog.from_arrays(later.a, later.b, later.score, later.time))
    np.testing.assert_array_equal(model.ratings_frame().to_numpy(), plain.ratings_frame().to_numpy())


def test_evaluate_warns_once_naming_each_model_and_column_it_scores_without():
    log = league(context=True, match_format=True)
    with pytest.warns(UnusedColumnWarning) as caught:
        ev = evaluate({"elo": Elo(prior_scale=1.0), "online": OnlineElo(step=0.1)}, log, cutoff=9.0)
    assert messages(caught) == ["evaluate: " + "; ".join(ev.notes)]
    assert ev.notes == ["'elo' takes no contexts: fitted and scored without the log's context column",
                        "'online' takes no contexts: fitted and scored without the log's context column",
                        "'elo' takes no match formats: fitted and scored without the log's match_format column",
                        "'online' takes no match formats: fitted and scored without the log's match_format column"]


def test_evaluate_of_a_log_whose_columns_every_model_uses_says_nothing():
    log = league(context=True)
    ev = evaluate({"ctx": DynamicElo(period=1.0, drift=0.1, prior_scale=1.0, variance_scale=1.0, context_scale=0.5)},
                  log, cutoff=9.0)
    assert ev.notes == []  # (and no warning: warnings are errors here)


def test_bootstrap_with_weights_names_the_columns_its_pairs_drop():
    log = league(context=True, margin=True)
    with pytest.warns(UnusedColumnWarning) as caught:
        result = bootstrap(Elo(prior_scale=1.0), log, n_boot=2, seed=0, weights="uniform")
    assert [m.split(";")[0] for m in messages(caught)] == [
        "bootstrap(weights='uniform'): Elo takes no contexts and ignores the log's context column (its ratings hold "
        "across contexts)",
        "bootstrap(weights='uniform'): Elo takes no margins and ignores the log's margin columns (it fits the results "
        "alone)"]
    plain = bootstrap(Elo(prior_scale=1.0), GameLog.from_arrays(log.a, log.b, log.score, log.time), n_boot=2, seed=0,
                      weights="uniform")
    np.testing.assert_array_equal(result.frame().to_numpy(), plain.frame().to_numpy())


# ------------------------------------------------------------------ the command line
class Refused(Exception):
    """``discrank`` exited with status 2; the message is its stderr."""


def cli(*argv) -> tuple:
    """(stdout, stderr) of ``discrank argv`` when it exits 0; :class:`Refused` with its stderr when it exits 2."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main([str(a) for a in argv])
    if status == 2:
        raise Refused(err.getvalue().strip())
    assert status == 0, err.getvalue()
    return out.getvalue(), err.getvalue()


DYNAMIC = ("--model", "dynamic", "--period", "1", "--drift", "0.1", "--prior-scale", "1", "--variance-scale", "1")


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """The league with surfaces and formats as CSV, and the models ``discrank fit`` saves of it: DynamicElo with the
    contexts (``surface``), DynamicElo with the formats (``fmt``, each scale tuned), and Elo."""
    folder = tmp_path_factory.mktemp("unused")
    log = league(context=True, match_format=True)
    surface = np.where(log.context == "x", "clay", "hard")
    games = folder / "games.csv"
    pd.DataFrame({"a": log.a, "b": log.b, "score": log.score, "t": log.time, "surface": surface,
                  "fmt": log.match_format}).to_csv(games, index=False)
    paths = {"contexts": folder / "contexts.npz", "formats": folder / "formats.npz", "elo": folder / "elo.npz"}
    cli("fit", games, "--score", "score", "--time", "t", *DYNAMIC, "--context", "surface", "--context-scale", "0.5",
        "--save", paths["contexts"], "--quiet")
    cli("fit", games, "--score", "score", "--time", "t", *DYNAMIC, "--match-format", "fmt", "--save",
        paths["formats"], "--quiet")
    cli("fit", games, "--score", "score", "--time", "t", "--model", "elo", "--prior-scale", "1", "--save",
        paths["elo"], "--quiet")
    return {"dir": folder, "games": games, **paths}


def write_fixtures(path, **columns):
    a, b = np.concatenate([FIX_A, FIX_A]), np.concatenate([FIX_B, FIX_B])
    pd.DataFrame({"a": a, "b": b, **columns}).to_csv(path, index=False)
    return a, b


def test_cli_predict_reads_each_fixtures_context_and_predicts_clay_and_hard_apart_as_the_model_does(files):
    fixtures_csv, out = files["dir"] / "surfaces.csv", files["dir"] / "p.csv"
    surface = np.repeat(["clay", "hard"], FIX_A.size)
    a, b = write_fixtures(fixtures_csv, surface=surface)
    cli("predict", files["contexts"], "--pairs", fixtures_csv, "--context", "surface", "--out", out)
    got = pd.read_csv(out)["p"].to_numpy()
    model = load(files["contexts"])
    ref = model.predict_games(GameLog.from_arrays(a, b, np.full(a.size, 0.5), np.full(a.size, LAST),
                                                  context=surface))
    np.testing.assert_allclose(got, ref, rtol=0, atol=1e-12)
    clay, hard = got[:FIX_A.size], got[FIX_A.size:]
    assert np.abs(clay - hard).max() > 0.1  # (it gave one probability for both)


def test_cli_predict_reads_a_column_named_context_by_default(files):
    fixtures_csv, named, out, out2 = (files["dir"] / f for f in ("default.csv", "named.csv", "p1.csv", "p2.csv"))
    surface = np.repeat(["clay", "hard"], FIX_A.size)
    write_fixtures(fixtures_csv, context=surface)
    write_fixtures(named, surface=surface)
    cli("predict", files["contexts"], "--pairs", fixtures_csv, "--out", out)
    cli("predict", files["contexts"], "--pairs", named, "--context", "surface", "--out", out2)
    np.testing.assert_array_equal(pd.read_csv(out)["p"], pd.read_csv(out2)["p"])


def test_cli_predict_refuses_fixtures_without_the_context_of_a_model_fitted_with_contexts(files):
    fixtures_csv = files["dir"] / "bare.csv"
    write_fixtures(fixtures_csv)
    with pytest.raises(Refused, match=re.escape("DynamicElo was fitted with the contexts ['clay', 'hard']; ") +
                       ".*" + re.escape("has no column 'context': name the fixtures' column, --context COL")):
        cli("predict", files["contexts"], "--pairs", fixtures_csv)
    with pytest.raises(Refused, match=re.escape("its column 'surface' is not in")):
        cli("predict", files["contexts"], "--pairs", fixtures_csv, "--context", "surface")
    with pytest.raises(Refused, match=re.escape("DynamicElo was fitted with the contexts ['clay', 'hard']: give the "
                                                "fixture's --context VALUE")):
        cli("predict", files["contexts"], "p00", "p09")


def test_cli_predict_of_two_players_in_a_context_is_the_models_prediction_in_it(files):
    model = load(files["contexts"])
    for surface in ("clay", "hard"):
        out, _ = cli("predict", files["contexts"], "p00", "p09", "--context", surface)
        ref = model.predict_games(GameLog.from_arrays(["p00"], ["p09"], [0.5], [LAST], context=[surface]))[0]
        assert out == f"P(p00 beats p09) = {ref:.4f}\n"
    clay, hard = (cli("predict", files["contexts"], "p00", "p09", "--context", s)[0] for s in ("clay", "hard"))
    assert clay != hard


def test_cli_predict_refuses_a_context_the_model_has_not_seen_unless_unseen_prior_which_names_it(files):
    with pytest.raises(Refused, match=re.escape("context 'grass': not among the contexts of ") + ".*" +
                       re.escape("['clay', 'hard']; --unseen prior predicts it")):
        cli("predict", files["contexts"], "p00", "p09", "--context", "grass")
    out, err = cli("predict", files["contexts"], "p00", "p09", "--context", "grass", "--unseen", "prior")
    assert ("discrank: warning: context 'grass' not among the model's contexts: predicted with no context effect, at "
            "the prior's variance") in err
    ref = load(files["contexts"]).predict_games(GameLog.from_arrays(["p00"], ["p09"], [0.5], [LAST],
                                                                    context=["grass"]))[0]
    assert out == f"P(p00 beats p09) = {ref:.4f}\n"


def test_cli_predict_reads_each_fixtures_match_format_for_a_model_fitted_with_formats(files):
    fixtures_csv, out = files["dir"] / "formats.csv", files["dir"] / "pf.csv"
    fmt = np.repeat(["bo3", "bo5"], FIX_A.size)
    a, b = write_fixtures(fixtures_csv, fmt=fmt)
    cli("predict", files["formats"], "--pairs", fixtures_csv, "--match-format", "fmt", "--out", out)
    got = pd.read_csv(out)["p"].to_numpy()
    model = load(files["formats"])
    ref = model.predict_games(GameLog.from_arrays(a, b, np.full(a.size, 0.5), np.full(a.size, LAST),
                                                  match_format=fmt))
    np.testing.assert_allclose(got, ref, rtol=0, atol=1e-12)
    assert abs(model.format_scales_[1] - model.format_scales_[0]) > 0.1  # (tuned: 1 and 0.5 here)
    assert np.abs(got[:FIX_A.size] - got[FIX_A.size:]).max() > 0.05
    with pytest.raises(Refused, match=re.escape("fitted with the match formats ['bo3', 'bo5']: give the fixture's "
                                                "--match-format VALUE")):
        cli("predict", files["formats"], "p00", "p09")


def test_cli_predict_refuses_context_and_format_options_for_a_model_fitted_without_them(files):
    fixtures_csv = files["dir"] / "elo_surfaces.csv"
    write_fixtures(fixtures_csv, surface=np.repeat(["clay", "hard"], FIX_A.size))
    with pytest.raises(Refused, match=re.escape("--context does not apply to ") + ".*" +
                       re.escape("elo.npz: its Elo was fitted without contexts (it predicts every context alike)")):
        cli("predict", files["elo"], "--pairs", fixtures_csv, "--context", "surface")
    with pytest.raises(Refused, match=re.escape("--match-format does not apply to ") + ".*" +
                       re.escape("its Elo was fitted without match formats")):
        cli("predict", files["elo"], "p00", "p09", "--match-format", "bo5")
    with pytest.raises(Refused, match=re.escape("--context does not apply to ") + ".*" +
                       re.escape("its DynamicElo was fitted without contexts")):
        cli("predict", files["formats"], "p00", "p09", "--context", "clay", "--match-format", "bo5")


def test_cli_predict_names_a_context_or_format_column_of_the_fixtures_that_the_model_does_not_use(files):
    fixtures_csv, out = files["dir"] / "elo_context.csv", files["dir"] / "pe.csv"
    a, b = write_fixtures(fixtures_csv, context=np.repeat(["clay", "hard"], FIX_A.size),
                          match_format=np.repeat(["bo3", "bo5"], FIX_A.size))
    _, err = cli("predict", files["elo"], "--pairs", fixtures_csv, "--out", out)
    assert err.splitlines() == [
        f"discrank: warning: column 'context' of {fixtures_csv} is not used: {files['elo']}'s Elo was fitted without "
        "contexts (it predicts every context alike)",
        f"discrank: warning: column 'match_format' of {fixtures_csv} is not used: {files['elo']}'s Elo was fitted "
        "without match formats (it predicts every match format alike)"]
    np.testing.assert_allclose(pd.read_csv(out)["p"], load(files["elo"]).predict_proba(a, b), rtol=0, atol=1e-12)


def test_cli_fit_with_min_games_names_the_columns_its_pairs_drop(files):
    out, err = cli("fit", files["games"], "--score", "score", "--time", "t", "--model", "elo", "--prior-scale", "1",
                   "--context", "surface", "--min-games", "2", "--quiet")
    assert err.startswith("discrank: warning: Elo.fit: Elo takes no contexts and ignores the log's context column")


def test_cli_evaluate_says_once_in_its_notes_which_models_it_scores_without_the_context(files):
    out, err = cli("evaluate", files["games"], "--score", "score", "--time", "t", "--context", "surface", "--models",
                   "elo", "--test-fraction", "0.25", "--quiet")
    note = "'elo' takes no contexts: fitted and scored without the log's context column"
    assert out.count(note) == 1 and f"note: {note}" in out
    assert note not in err  # (the warning evaluate raises says the same: not printed twice)


# ------------------------------------------------------------------ the library: GameLog.to_pairs
@pytest.mark.parametrize("columns, named", [(dict(context=np.array(["clay", "hard"])), "context"),
                                            (dict(match_format=np.array(["bo3", "bo5"])), "match_format"),
                                            (dict(margin=np.array([[2.0, 1.0], [0.0, 2.0]])), "margin"),
                                            (dict(context=np.array(["clay", "hard"]),
                                                  margin=np.array([[2.0, 1.0], [0.0, 2.0]])), "context, margin")])
def test_to_pairs_names_the_columns_its_pairs_drop(columns, named):
    log = GameLog.from_arrays(["x", "y"], ["y", "x"], [1.0, 0.0], **columns)
    with pytest.warns(UnusedColumnWarning, match=re.escape(f"the pairs keep no {named} column")):
        pairs = log.to_pairs()
    bare = GameLog.from_arrays(["x", "y"], ["y", "x"], [1.0, 0.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        plain = bare.to_pairs()  # a log without them: no word
    np.testing.assert_array_equal(pairs.p, plain.p)
    np.testing.assert_array_equal(pairs.n_games, plain.n_games)
