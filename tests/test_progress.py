"""Progress reports (issue 35): DynamicElo(verbose=), evaluate(verbose=), discrank.progress and the command
line print the stages of a tuning, a fit and an evaluation on stderr, and the whole-history Newton method
reports each step; a verbose of a wrong type is refused naming the value."""

import re
import time

import numpy as np
import pandas as pd
import pytest

import discrank
from discrank import DynamicElo, Elo, GameLog
from discrank._util.checks import show
from discrank.cli._args import FitProgress
from discrank._util.progress import plural, report_stage, report_step, reporting, when
from discrank.cli import main
from discrank.online import OnlineElo

CANDIDATE = re.compile(r"^tuning DynamicElo: candidate (\d+) \((.*)\): validation log loss (\d\.\d{5}) at "
                       r"variance_scale=(\S+), \d+\.\d s$")
FIXED = {"drift": 0.1, "prior_scale": 1.0, "variance_scale": 1.0}


def dated_log(n=400, players=20, days=200, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, players, n)
    b = (a + rng.integers(1, players, n)) % players
    skill = rng.normal(0.0, 1.0, players)
    score = (rng.random(n) < 1.0 / (1.0 + np.exp(-(skill[a] - skill[b])))).astype(float)
    t = np.datetime64("2024-01-01") + np.sort(rng.integers(0, days, n)).astype("timedelta64[D]")
    return GameLog.from_arrays(np.char.add("p", a.astype(str)), np.char.add("p", b.astype(str)), score, t)


def err_lines(capsys):
    captured = capsys.readouterr()
    assert captured.out == ""
    return captured.err.splitlines()


def test_verbose_1_prints_each_tuning_candidate_of_tuning_scores_the_choice_and_the_fit(capsys):
    log = dated_log()
    model = DynamicElo(verbose=1).fit(log)
    lines = err_lines(capsys)
    scores = model.tuning_["scores"]
    candidates = [CANDIDATE.match(line) for line in lines if line.startswith("tuning DynamicElo: candidate")]
    assert all(candidates) and len(candidates) == len(scores) >= 3
    assert [int(m[1]) for m in candidates] == list(range(1, len(scores) + 1))
    for m in candidates:  # each line names a candidate of tuning_ with its score and variance scale
        assert float(m[3]) == pytest.approx(scores[m[2]], abs=5e-6)
        assert float(m[4]) == pytest.approx(model.tuning_["variance_scales"][m[2]], rel=1e-3)
    assert lines[0] == (f"tuning DynamicElo on 360 games: a validation window of 40 "
                        f"games, forecast from {model.tuning_['periods']} origins")
    chosen = f"drift={model.drift_:.4g}, prior_scale={model.prior_scale_:.3g}"
    assert lines[-3].startswith(f"tuning DynamicElo: chose {chosen}, variance_scale={model.variance_scale_:.3g} "
                                f"(validation log loss {scores[chosen]:.5f}) among {len(scores)} candidates in ")
    assert lines[-2] == f"DynamicElo: fitting the whole history of 400 games at {chosen}"
    assert re.fullmatch(rf"DynamicElo: fitted in \d+\.\d s, {model.n_iter_} Newton steps", lines[-1])
    assert len(lines) == len(scores) + 4  # no solver iteration at level 1


def test_verbose_2_adds_every_newton_step_and_true_is_1(capsys):
    log = dated_log()
    model = DynamicElo(verbose=2, **FIXED).fit(log)  # nothing tuned: the fit alone
    lines = err_lines(capsys)
    steps = [line for line in lines if line.startswith("  iteration ")]
    assert len(steps) == model.n_iter_ >= 2 and len(lines) == model.n_iter_ + 2
    assert steps[0].startswith("  iteration 1: objective ")
    assert steps[-1].endswith(f"gradient measure {model.gradient_:.3g}")
    DynamicElo(verbose=True, **FIXED).fit(log)
    assert len(err_lines(capsys)) == 2  # the fit's two stage lines


@pytest.mark.parametrize("verbose", [0, False, np.int64(0)])
def test_verbose_0_prints_nothing(capsys, verbose):
    DynamicElo(verbose=verbose).fit(dated_log())
    assert capsys.readouterr() == ("", "")
    discrank.evaluate(DynamicElo(**FIXED), dated_log(), test_fraction=0.2, protocol="online", verbose=verbose)
    assert capsys.readouterr() == ("", "")


@pytest.mark.parametrize("value, error", [("yes", TypeError), (1.0, TypeError), (0.5, TypeError),
                                          (-1, ValueError), (np.float64(2.0), TypeError)])
def test_a_bad_verbose_is_refused_naming_the_value(value, error):
    log = dated_log(n=100)
    calls = [lambda: DynamicElo(verbose=value, **FIXED).fit(log),
             lambda: discrank.evaluate(Elo(), log, test_fraction=0.2, verbose=value),
             lambda: discrank.progress(value).__enter__()]
    for call in calls:
        with pytest.raises(error) as info:
            call()
        assert str(info.value) == ("verbose must be True, False or an integer >= 0 (0: silent, 1: the stages, 2: "
                                   f"also each iteration), got {show(value)}")


def test_a_model_file_keeps_verbose_and_a_loaded_model_refits_with_it(tmp_path, capsys):
    model = DynamicElo(verbose=2, **FIXED).fit(dated_log())
    model.save(tmp_path / "m.npz")
    capsys.readouterr()
    back = discrank.load(tmp_path / "m.npz")
    assert back.get_params() == model.get_params() and back.verbose == 2
    assert np.array_equal(back.pp_rating_, model.pp_rating_)


def test_solve_history_reports_each_newton_step_to_the_iteration_hook():
    log = dated_log()
    calls = []
    with reporting(lambda it, f, measure: calls.append((it, f, measure))):
        model = DynamicElo(**FIXED).fit(log)
    assert [it for it, _, _ in calls] == list(range(1, model.n_iter_ + 1))
    assert calls[-1][1] == pytest.approx(model.objective_, rel=1e-12)
    assert calls[-1][2] == pytest.approx(model.gradient_, rel=1e-12)
    assert all(later[1] <= earlier[1] + 1e-9 for earlier, later in zip(calls, calls[1:]))  # Armijo: no rise


def test_progress_turns_the_reports_on_inside_the_block_only_and_0_silences_it(capsys):
    log = dated_log()
    with discrank.progress():
        model = DynamicElo().fit(log)  # verbose=0: the enclosing block still prints
    lines = err_lines(capsys)
    assert sum(line.startswith("tuning DynamicElo: candidate") for line in lines) == len(model.tuning_["scores"])
    DynamicElo().fit(log)
    assert capsys.readouterr() == ("", "")
    with discrank.progress(2), discrank.progress(0):
        DynamicElo(**FIXED).fit(log)
    assert capsys.readouterr() == ("", "")
    with pytest.raises(KeyError), discrank.progress():
        raise KeyError("stop")
    DynamicElo(**FIXED).fit(log)  # the listener is gone after an exception too
    assert capsys.readouterr() == ("", "")


def test_evaluate_reports_each_origin_and_each_models_fit(capsys):
    log = dated_log(n=600)
    ev = discrank.evaluate({"elo": Elo(), "dynamic": DynamicElo(**FIXED)}, log, test_fraction=0.3, rolling=2,
                           verbose=1)
    lines = err_lines(capsys)
    origins = [line for line in lines if line.startswith("evaluate: origin ")]
    assert len(origins) == len(ev.origins) == 2
    for k, (line, origin) in enumerate(zip(origins, ev.origins)):
        assert line.startswith(f"evaluate: origin {k + 1}/2: {origin['train_games']} training games before "
                               f"{str(origin['train_end'])[:10]}, {origin['scored_games']} test games scored from ")
        assert line.endswith(" (frozen)")
    for name in ("elo", "dynamic"):
        fits = [line for line in lines if line.startswith(f"evaluate: fitting {name!r} on ")]
        done = [line for line in lines if re.fullmatch(rf"evaluate: {name!r} fitted in \d+\.\d s", line)]
        assert len(fits) == len(done) == 2
    assert sum(line.startswith("DynamicElo: fitting the whole history") for line in lines) == 2


def test_evaluate_online_reports_every_update_at_level_2_and_the_walks_total(capsys):
    log = dated_log(n=600)
    models = {"dynamic": DynamicElo(**FIXED), "online": OnlineElo()}
    ev = discrank.evaluate(models, log, test_fraction=0.3, protocol="online", verbose=2)
    lines = err_lines(capsys)
    groups = ev.origins[0]["groups"]
    for name in models:
        updates = [line for line in lines if re.fullmatch(rf"evaluate: {name!r} update \d+/{groups[name]} "
                                                          r"\(games to 2024-\d\d-\d\d\)", line)]
        total = [line for line in lines if line.startswith(f"evaluate: {name!r} walked {groups[name]} groups of "
                                                           f"games online: {len(updates)} updates in ")]
        assert updates and len(total) == 1
        assert updates[-1].startswith(f"evaluate: {name!r} update {groups[name]}/{groups[name]} ")
    # OnlineElo updates after each group; DynamicElo batches the groups without a scored game
    assert sum(f"{'online'!r} update" in line for line in lines) == groups["online"]


def test_at_level_1_the_walk_reports_an_update_once_per_walk_report_seconds(capsys, monkeypatch):
    log = dated_log(n=600)
    monkeypatch.setattr("discrank.evaluation._walk.WALK_REPORT_SECONDS", 1e9)
    ev = discrank.evaluate({"online": OnlineElo()}, log, test_fraction=0.3, protocol="online", verbose=1)
    lines = err_lines(capsys)
    assert not any(" update " in line for line in lines)
    assert lines[-1].startswith(f"evaluate: 'online' walked {ev.origins[0]['groups']['online']} groups")
    monkeypatch.setattr("discrank.evaluation._walk.WALK_REPORT_SECONDS", 0.0)
    discrank.evaluate({"online": OnlineElo()}, log, test_fraction=0.3, protocol="online", verbose=1)
    assert sum(" update " in line for line in err_lines(capsys)) == ev.origins[0]["groups"]["online"]


def _league(path, n=600, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 6, n)
    b = (a + rng.integers(1, 6, n)) % 6
    score = (rng.random(n) < 1 / (1 + np.exp(-(a - b) / 2))).astype(float)
    date = pd.Timestamp("2024-01-01") + pd.to_timedelta(np.sort(rng.integers(0, 120, n)), unit="D")
    pd.DataFrame({"a": np.char.add("p", a.astype(str)), "b": np.char.add("p", b.astype(str)), "s": score,
                  "t": date}).to_csv(path, index=False)
    return str(path)


def test_cli_fit_dynamic_prints_the_tuning_candidates_on_stderr_unless_quiet(tmp_path, capsys):
    league = _league(tmp_path / "league.csv")
    assert main(["fit", league, "--score", "s", "--time", "t", "--model", "dynamic", "--top", "3"]) == 0
    out, err = capsys.readouterr()
    lines = err.splitlines()
    candidates = [line for line in lines if CANDIDATE.match(line)]
    assert len(candidates) >= 3 and "candidate" not in out
    assert any(line.startswith("tuning DynamicElo: chose ") and f" among {len(candidates)} candidates in " in line
               for line in lines)
    assert any(line.startswith("DynamicElo: fitting the whole history of 600 games at ") for line in lines)
    assert main(["fit", league, "--score", "s", "--time", "t", "--model", "dynamic", "--quiet"]) == 0
    assert capsys.readouterr().err == ""


def test_cli_evaluate_prints_origins_fits_and_walks_on_stderr_unless_quiet(tmp_path, capsys):
    league = _league(tmp_path / "league.csv")
    args = ["evaluate", league, "--score", "s", "--time", "t", "--models", "elo,dynamic", "--test-fraction", "0.2",
            "--protocol", "online"]
    assert main(args) == 0
    out, err = capsys.readouterr()
    lines = err.splitlines()
    assert lines[0].startswith("evaluate: origin 1/1: ") and lines[0].endswith(" (online)")
    for name in ("elo", "dynamic"):
        assert f"evaluate: fitting {name!r} on " in err and f"evaluate: {name!r} walked " in err
    assert any(CANDIDATE.match(line) for line in lines) and "evaluate:" not in out
    assert main(args + ["--quiet"]) == 0
    assert capsys.readouterr().err == ""


def test_fit_progress_ends_the_terminals_iteration_line_before_a_stage(capsys):
    progress = FitProgress(quiet=False)
    progress.tty, progress.t0 = True, time.perf_counter() - 10.0  # past the first second
    with progress.listening():
        report_step(3, 1.5, 2e-3)
        report_stage("tuning DynamicElo: candidate 1")
        progress.last -= 1.0  # the next iteration is due
        report_step(4, 1.25, 1e-3)
    err = capsys.readouterr().err
    assert err.startswith("\r  the fit in progress: iteration     3, loss 1.5000000000, gradient measure 2.00e-03, ")
    assert "s\ntuning DynamicElo: candidate 1\n\r  the fit in progress: iteration     4, " in err and err.endswith(" s\n")
    quiet = FitProgress(quiet=True)
    with quiet.listening():
        report_stage("tuning DynamicElo: candidate 1")
        report_step(1, 1.0, 1.0)
    assert capsys.readouterr() == ("", "")


def test_a_report_writes_a_date_its_time_of_day_when_not_midnight_a_number_and_a_plural():
    assert when(np.datetime64("2022-06-06T00:00:00.000000000")) == "2022-06-06"
    assert when(np.datetime64("2022-06-06T13:05:09.5")) == "2022-06-06T13:05:09"
    assert when(np.float64(12.5)) == "12.5" and when(7) == "7"
    assert (plural(1, "candidate"), plural(0, "update"), plural(12345, "game")) == ("1 candidate", "0 updates",
                                                                                  "12,345 games")


class _Terminal:
    """A stderr that says it is a terminal, and keeps what is written."""

    def __init__(self):
        self.text = []

    def isatty(self):
        return True

    def write(self, text):
        self.text.append(text)
        return len(text)

    def flush(self):
        pass


def test_progress_is_shown_by_default_where_a_person_watches_and_not_in_scripts_and_pipes(monkeypatch, capsys):
    """verbose=None (the default): DynamicElo's tuning and a bootstrap print their stages on a terminal or in a
    notebook (ipykernel loaded), and nothing on a pipe (pytest's capture); verbose=0 silences a terminal."""
    import sys

    from discrank._util.progress import interactive

    log = dated_log()
    DynamicElo().fit(log)
    assert capsys.readouterr().err == "" and not interactive()
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert interactive()
    DynamicElo().fit(log)
    lines = "".join(terminal.text).splitlines()
    assert any(line.startswith("tuning DynamicElo: chose ") for line in lines)
    terminal.text.clear()
    DynamicElo(verbose=0).fit(log)
    discrank.bootstrap(Elo(prior_scale=1.0), log, n_boot=5, verbose=0)
    assert terminal.text == []
    discrank.bootstrap(Elo(prior_scale=1.0), log, n_boot=5)
    assert "".join(terminal.text).splitlines()[-1].startswith("bootstrap of Elo: 5 of 5 replicates, ")
    monkeypatch.setattr(sys, "stderr", sys.__stderr__ if not sys.__stderr__.isatty() else _Pipe())
    monkeypatch.setitem(sys.modules, "ipykernel", object())
    assert interactive()


class _Pipe(_Terminal):
    def isatty(self):
        return False


def test_the_arena_bootstrap_reports_its_replicates_and_gives_the_same_board(capsys):
    """The board's bootstrap in twenty runs when someone listens: the same replicates (each seeded by its number),
    and a line per run on stderr."""
    rng = np.random.default_rng(0)
    a = rng.integers(0, 4, 800)
    b = (a + rng.integers(1, 4, 800)) % 4
    names = np.array(["m0", "m1", "m2", "m3"])
    votes = pd.DataFrame({"model_a": names[a], "model_b": names[b],
                          "winner": np.where(rng.random(800) < 0.5 + 0.1 * (b - a), "model_a", "model_b")})
    quiet = discrank.arena_board(votes, ci="bootstrap", n_boot=40, verbose=0)
    import discrank._util.progress as progress_module

    old, progress_module.TICK_SECONDS = progress_module.TICK_SECONDS, 0.0
    try:
        loud = discrank.arena_board(votes, ci="bootstrap", n_boot=40, verbose=1)
    finally:
        progress_module.TICK_SECONDS = old
    np.testing.assert_array_equal(loud.replicates, quiet.replicates)
    pd.testing.assert_frame_equal(loud.frame, quiet.frame)
    lines = err_lines(capsys)
    assert [line.split(",")[0] for line in lines] == [f"bootstrap of the board: {k} of 40 replicates"
                                                      for k in range(2, 41, 2)]
