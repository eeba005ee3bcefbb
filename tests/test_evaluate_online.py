"""discrank.evaluate's online protocol: each test game predicted from every game before it (issue 17).

What the models are given is recorded by fake models and checked game by game against the log: every
game exactly once (fit, then updates), no test game before its prediction, groups that are the calendar
weeks (ISO weeks, found here with Python's ``datetime.isocalendar``). OnlineElo's online predictions are
those of one :func:`discrank.online_elo` run over the whole log; the refit fallback of a discrank model is
the same model with its tuned prior frozen, fitted on the games so far; the three-outcome log loss is
recomputed by hand.
"""

import datetime
import math
import re

import numpy as np
import pytest
from scipy.special import expit

from discrank import Elo, GameLog, NotFittedError, Validation, evaluate
from discrank.evaluation._evaluate import outcome_losses
from discrank.online import STEP_GRID, OnlineElo, online_elo

EXACT = 1e-12
N_PLAYERS, N_GAMES, CUTOFF, N_OLD = 30, 2000, 1500, 26  # players N_OLD.. first play at CUTOFF or later


def simulated(seed=3, n_games=N_GAMES, cutoff=CUTOFF, times=None):
    """Games between players of N(0, 1) ratings, about 10% draws; before ``cutoff`` (a game index) only
    players 0 .. N_OLD - 1 play. Times: the game index (all distinct) unless given."""
    rng = np.random.default_rng(seed)
    skill = rng.normal(0.0, 1.0, N_PLAYERS)
    k = np.arange(n_games)
    early = k < cutoff
    a = np.where(early, rng.integers(0, N_OLD, n_games), rng.integers(0, N_PLAYERS, n_games))
    b = np.where(early, (a + rng.integers(1, N_OLD, n_games)) % N_OLD,
                 (a + rng.integers(1, N_PLAYERS, n_games)) % N_PLAYERS)
    p = expit(skill[a] - skill[b])
    u = rng.random(n_games)
    y = (u < p).astype(float)
    y[np.abs(u - p) < 0.05] = 0.5
    return GameLog.from_arrays(a, b, y, k if times is None else times)


def seen_before(log, start):
    """Games whose two players both play before ``start``: counted from the log."""
    seen = set(np.r_[log.a[log.time < start], log.b[log.time < start]].tolist())
    return np.array([x in seen and z in seen for x, z in zip(log.a.tolist(), log.b.tolist())])


# ------------------------------------------------------------------------ (a) OnlineElo, one run
def test_online_elo_predicts_as_one_sequential_run_over_the_whole_log():
    log = simulated()
    step = 0.07
    ev = evaluate({"online": OnlineElo(step=step)}, log, cutoff=CUTOFF, protocol="online")
    run = online_elo(log.a, log.b, log.score, step=step)
    scored = (log.time >= CUTOFF) & seen_before(log, CUTOFF)
    assert 0 < ev.n_unseen == int((log.time >= CUTOFF).sum() - scored.sum())
    np.testing.assert_array_equal(ev.scores, log.score[scored])
    np.testing.assert_allclose(ev.predictions["online"], run.predictions[scored], rtol=0, atol=EXACT)
    (origin,) = ev.origins
    assert origin["walk_games"] == N_GAMES - CUTOFF and origin["groups"] == {"online": N_GAMES - CUTOFF}
    assert ev.protocol == "online" and ev.refit == 1
    # the fitted model has run over every game, the new players included
    model = ev.fitted["online"]
    final = dict(zip(run.labels.tolist(), run.ratings))
    np.testing.assert_allclose(model.ratings_, [final[x] for x in model.labels_.tolist()], rtol=0, atol=EXACT)


def test_online_elo_update_continues_the_run_with_any_labels():
    log = simulated(seed=4)
    names = np.array([f"p{k:02d}" for k in range(N_PLAYERS)], dtype=object)
    a, b = names[log.a], names[log.b]
    first = OnlineElo(step=0.1).fit(GameLog.from_arrays(a[:CUTOFF], b[:CUTOFF], log.score[:CUTOFF], log.time[:CUTOFF]))
    assert sorted(first.labels_.tolist()) == names[:N_OLD].tolist()
    half = (CUTOFF + N_GAMES) // 2
    first.update(GameLog.from_arrays(a[CUTOFF:half], b[CUTOFF:half], log.score[CUTOFF:half], log.time[CUTOFF:half]))
    first.update(GameLog.from_arrays(a[half:], b[half:], log.score[half:], log.time[half:]))
    run = online_elo(a, b, log.score, step=0.1)
    final = dict(zip(run.labels.tolist(), run.ratings))
    assert sorted(first.labels_.tolist()) == names.tolist()
    np.testing.assert_allclose(first.ratings_, [final[x] for x in first.labels_.tolist()], rtol=0, atol=EXACT)
    x, z = names[[1, 28]], names[[29, 3]]
    np.testing.assert_allclose(first.predict_proba(x, z), expit([final[x[0]] - final[z[0]], final[x[1]] - final[z[1]]]),
                               rtol=0, atol=EXACT)


def test_online_elo_tunes_its_step_on_the_online_forecasts_of_the_validation_window():
    log = simulated(seed=5)
    window = 400
    model = OnlineElo().fit(log, validation=Validation(window=window, online=True))
    val = log.time > log.time[-1] - window
    y = log.score[val]
    for step, score in model.step_scores_.items():
        q = online_elo(log.a, log.b, log.score, step=step).predictions[val]
        assert score == pytest.approx(np.mean(-(y * np.log(q) + (1 - y) * np.log1p(-q))), rel=0, abs=EXACT)
    assert list(model.step_scores_) == list(STEP_GRID)
    assert model.step_ == min(model.step_scores_, key=model.step_scores_.get)
    # online=False keeps the ratings frozen before the window: other scores
    frozen = OnlineElo().fit(log, validation=Validation(window=window))
    assert frozen.step_scores_ != model.step_scores_


# ------------------------------------------------------------------------ (b) what a batch model is given
class Recorder:
    """A batch model that records every log it is given and every prediction it makes."""

    def __init__(self):
        self.events = []  # ("fit" | "update" | "predict", what)
        self.validations = []

    def fit(self, log, *, validation=None):
        self.validations.append(validation)
        self.events.append(("fit", log))
        self.games = len(log)
        return self

    def update(self, log):
        self.events.append(("update", log))
        self.games += len(log)
        return self

    def predict_proba(self, a, b):
        q = expit(0.01 * (np.asarray(a) - np.asarray(b)) + 1e-4 * self.games)
        self.events.append(("predict", (np.asarray(a).copy(), np.asarray(b).copy(), q)))
        return q


class GameRecorder(Recorder):
    """The same, predicting whole games (times and covariates) with ``predict_games``."""

    def predict_games(self, log):
        q = expit(0.01 * (log.a - log.b) + 1e-4 * self.games)
        self.events.append(("predict", log))
        return q


def dated_log(seed=6):
    """Games at random hours over 240 days from 2023-01-01 (a Sunday); a game-id covariate."""
    rng = np.random.default_rng(seed)
    n = 1200
    hours = np.sort(rng.integers(0, 24 * 240, n))
    times = np.datetime64("2023-01-01T00", "h") + hours.astype("timedelta64[h]")
    log = simulated(seed, n_games=n, cutoff=800, times=times)
    return GameLog(log.a, log.b, log.score, log.time, {}, np.arange(n, dtype=float)[:, None], ("id",))


def iso_week(t):
    return datetime.datetime.fromisoformat(str(t.astype("datetime64[s]"))).isocalendar()[:2]


@pytest.mark.parametrize("kind", [Recorder, GameRecorder])
def test_a_batch_model_gets_every_game_once_in_weekly_groups_and_each_test_game_before_it_is_given(kind):
    log = dated_log()
    cutoff, test_start = log.time[800], log.time[900]  # a gap of 100 games: given, not scored
    ev = evaluate({"m": kind()}, log, cutoff=cutoff, test_start=test_start, protocol="online")
    model = ev.fitted["m"]
    ids = [e[1].advantage[:, 0] for e in model.events if e[0] in ("fit", "update")]
    # every game exactly once, in time order, with its covariates
    np.testing.assert_array_equal(np.concatenate(ids), np.arange(len(log)))
    fit, *updates = [e[1] for e in model.events if e[0] in ("fit", "update")]
    assert len(fit) == int((log.time < cutoff).sum())
    assert model.events[0][0] == "fit" and ev.refit == "week" and ev.protocol == "online"
    # the groups are the ISO weeks (Monday to Sunday) of the games after the cut-off
    weeks = [iso_week(t) for t in log.time[log.time >= cutoff]]
    expected = [len(list(g)) for _, g in __import__("itertools").groupby(weeks)]
    assert [len(u) for u in updates] == expected and len(expected) > 10
    assert all(len({iso_week(t) for t in u.time}) == 1 for u in updates)
    assert ev.origins[0]["groups"] == {"m": len(expected)}
    # predictions: each scored game predicted once, from every game before its week and none after
    scored = (log.time >= test_start) & seen_before(log, cutoff)
    given, predicted, q = 0, [], []
    for what, x in model.events:
        if what == "predict":
            if kind is GameRecorder:
                assert np.all(x.score == 0.5)  # a placeholder: the outcome is not given
                rows = x.advantage[:, 0].astype(int)
                np.testing.assert_array_equal(x.time, log.time[rows])
                a, b, qq = x.a, x.b, None
            else:
                a, b, qq = x
                rows = np.flatnonzero(scored)[len(predicted):len(predicted) + len(a)]
            np.testing.assert_array_equal(a, log.a[rows])
            np.testing.assert_array_equal(b, log.b[rows])
            assert rows.min() >= given  # not given yet
            week = iso_week(log.time[rows[0]])
            assert all(iso_week(t) == week for t in log.time[rows])
            assert given == 0 or iso_week(log.time[given - 1]) != week  # every game before its week given
            predicted.extend(rows.tolist())
            q.append(expit(0.01 * (a - b) + 1e-4 * given) if qq is None else qq)
        else:
            given += len(x)
    assert predicted == np.flatnonzero(scored).tolist()
    np.testing.assert_array_equal(ev.predictions["m"], np.concatenate(q))
    np.testing.assert_array_equal(ev.scores, log.score[scored])


class BatchRecorder(Recorder):
    """A batch model whose update(a) then update(b) equals update(a + b)."""

    batch_updates = True


def test_a_batching_model_gets_the_weeks_with_no_scored_game_at_once_before_the_next_scored_week():
    log = dated_log()
    cutoff, test_start = log.time[800], log.time[900]  # the gap's weeks have no scored game
    plain = evaluate({"m": Recorder()}, log, cutoff=cutoff, test_start=test_start, protocol="online")
    ev = evaluate({"m": BatchRecorder()}, log, cutoff=cutoff, test_start=test_start, protocol="online")
    model = ev.fitted["m"]
    ids = [e[1].advantage[:, 0] for e in model.events if e[0] in ("fit", "update")]
    np.testing.assert_array_equal(np.concatenate(ids), np.arange(len(log)))  # every game once, in order
    updates = [e[1] for e in model.events if e[0] == "update"]
    # the updates end where a week with a scored game starts, and at the end of the log
    scored = (log.time >= test_start) & seen_before(log, cutoff)
    after = np.flatnonzero(log.time >= cutoff)
    weeks = [iso_week(t) for t in log.time]
    starts = [int(k) for k in after if weeks[k] != weeks[k - 1] and scored[[j for j in after if weeks[j] == weeks[k]]].any()]
    cuts = sorted({int(after[0])} | set(starts) | {len(log)})
    assert [len(u) for u in updates] == np.diff(cuts).tolist()
    assert len({iso_week(t) for t in updates[0].time}) == 3  # the gap's three weeks in one update
    # the same predictions as one update per week: each from every game before its week
    np.testing.assert_array_equal(ev.predictions["m"], plain.predictions["m"])


def test_the_online_fit_tunes_on_a_validation_window_like_the_test_with_no_gap():
    log = dated_log()
    cutoff, test_start = log.time[800], log.time[900]
    ev = evaluate({"m": Recorder()}, log, cutoff=cutoff, test_start=test_start, protocol="online")
    (validation,) = ev.fitted["m"].validations
    assert validation == Validation(window=log.time[-1] - test_start, online=True)
    short = evaluate({"m": Recorder()}, log, cutoff=log.time[200], protocol="online")  # too short to copy
    assert short.fitted["m"].validations == [Validation(online=True)]
    frozen = evaluate({"m": Recorder()}, log, cutoff=cutoff, test_start=test_start)
    assert frozen.fitted["m"].validations[0] == Validation(window=log.time[-1] - test_start, gap=test_start - cutoff)


def test_numeric_refit_periods_are_bins_of_the_given_width():
    log = simulated(seed=8)
    ev = evaluate({"m": Recorder()}, log, cutoff=CUTOFF, protocol="online", refit=64)
    sizes = [len(x) for what, x in ev.fitted["m"].events if what == "update"]
    bins = log.time[CUTOFF:] // 64  # [64 k, 64 (k + 1))
    assert sizes == [int((bins == k).sum()) for k in np.unique(bins)] and ev.refit == 64


# ------------------------------------------------------------------------ (c) the refit fallback
def test_a_discrank_model_without_update_is_refitted_with_its_tuned_prior_frozen():
    log = simulated(seed=9, n_games=1200, cutoff=900)
    t = log.time // 10  # 10 games per time
    log = GameLog.from_arrays(log.a, log.b, log.score, t)
    cutoff = 90
    ev = evaluate({"elo": Elo()}, log, cutoff=cutoff, protocol="online", refit=5)
    train = log.time < cutoff
    tuned = Elo().fit(GameLog.from_arrays(log.a[train], log.b[train], log.score[train], log.time[train]),
                      validation=Validation(window=log.time[-1] - cutoff, online=True)).prior_scale_
    model = ev.fitted["elo"]
    assert type(model) is Elo and model.prior_scale == tuned and model.prior_tuning_ is None
    scored = (log.time >= cutoff) & seen_before(log, cutoff)
    expected = []
    for start in range(cutoff, int(log.time[-1]) + 1, 5):
        past = log.time < start
        fitted = Elo(prior_scale=tuned).fit(GameLog.from_arrays(log.a[past], log.b[past], log.score[past], log.time[past]))
        rows = scored & (log.time >= start) & (log.time < start + 5)
        expected.append(fitted.predict_proba(log.a[rows], log.b[rows]))
    np.testing.assert_allclose(ev.predictions["elo"], np.concatenate(expected), rtol=0, atol=1e-10)
    everything = Elo(prior_scale=tuned).fit(log)
    np.testing.assert_array_equal(model.labels_, everything.labels_)
    np.testing.assert_allclose(model.ratings_, everything.ratings_, rtol=0, atol=1e-10)
    assert ev.origins[0]["groups"] == {"elo": 6}


# ------------------------------------------------------------------------ (d) the frozen protocol
def test_the_frozen_protocol_is_the_default_and_gives_predict_games_the_test_games():
    log = dated_log()
    cutoff = log.time[800]
    plain = evaluate({"m": Recorder(), "elo": Elo(prior_scale=0.5)}, log, cutoff=cutoff)
    frozen = evaluate({"m": Recorder(), "elo": Elo(prior_scale=0.5)}, log, cutoff=cutoff, protocol="frozen")
    assert plain.protocol == frozen.protocol == "frozen" and plain.refit is None and plain.outcomes == {}
    for name in ("m", "elo"):
        np.testing.assert_array_equal(plain.predictions[name], frozen.predictions[name])
    assert [e[0] for e in frozen.fitted["m"].events] == ["fit", "predict"]
    assert "walk_games" not in frozen.origins[0]
    hooked = evaluate({"m": GameRecorder()}, log, cutoff=cutoff)
    (fit, query) = [e[1] for e in hooked.fitted["m"].events]
    scored = (log.time >= cutoff) & seen_before(log, cutoff)
    np.testing.assert_array_equal(fit.advantage[:, 0], np.arange(800))
    np.testing.assert_array_equal(query.advantage[:, 0], np.flatnonzero(scored))
    np.testing.assert_array_equal(query.time, log.time[scored])
    assert query.advantage_names == ("id",) and np.all(query.score == 0.5)


# ------------------------------------------------------------------------ (e) three outcomes
class Outcomes(Recorder):
    """Known three-outcome predictions: P(draw) = d, the rest split by sigmoid((a - b) / 10)."""

    def __init__(self, d=0.2):
        super().__init__()
        self.d = d

    def get_params(self):
        return {"d": self.d}

    def predict_outcomes(self, log):
        p = expit((log.a - log.b) / 10.0)
        return np.column_stack([(1 - self.d) * p, np.full(len(log), self.d), (1 - self.d) * (1 - p)])


def test_the_three_outcome_log_loss_is_that_of_the_observed_outcome():
    log = simulated(seed=10)
    ev = evaluate({"ref": Outcomes(0.2), "other": Outcomes(0.1), "plain": Recorder()}, log, cutoff=CUTOFF,
                  protocol="online")
    scored = (log.time >= CUTOFF) & seen_before(log, CUTOFF)
    a, b, y = log.a[scored], log.b[scored], log.score[scored]
    assert set(ev.outcomes) == {"ref", "other"}
    rows = {r["model"]: r for r in ev.summary()}
    loss = {}
    for name, d in (("ref", 0.2), ("other", 0.1)):
        p = expit((a - b) / 10.0)
        hand = np.array([-math.log((1 - d) * pk if yk == 1 else d if yk == 0.5 else (1 - d) * (1 - pk))
                         for pk, yk in zip(p, y)])
        np.testing.assert_array_equal(ev.outcomes[name][:, 1], np.full(y.size, d))
        np.testing.assert_allclose(ev.losses[name]["log_loss3"], hand, rtol=1e-14, atol=0)
        assert rows[name]["log_loss3"] == pytest.approx(hand.mean(), rel=0, abs=EXACT)
        loss[name] = hand
    diff = loss["other"] - loss["ref"]
    assert rows["other"]["diff3"] == pytest.approx(diff.mean(), rel=0, abs=EXACT)
    assert rows["other"]["se3"] == pytest.approx(np.std(diff, ddof=1) / math.sqrt(diff.size), rel=1e-12)
    assert rows["ref"]["diff3"] == 0.0
    assert math.isnan(rows["plain"]["log_loss3"]) and math.isnan(rows["plain"]["diff3"])
    text = str(ev)
    assert "log loss3" in text and f"{rows['other']['log_loss3']:8.4f}" in text and "online protocol" in text
    assert "log loss3" not in str(evaluate({"plain": Recorder()}, log, cutoff=CUTOFF))


def test_outcome_losses_by_hand_and_scores_that_are_no_outcome():
    o = np.array([[0.5, 0.3, 0.2], [0.5, 0.3, 0.2], [0.5, 0.3, 0.2], [0.0, 0.0, 1.0], [0.5, 0.3, 0.2]])
    y = np.array([1.0, 0.5, 0.0, 1.0, 0.25])
    out = outcome_losses(o, y)
    np.testing.assert_allclose(out[:4], [-math.log(0.5), -math.log(0.3), -math.log(0.2), -math.log(1e-15)], rtol=1e-15)
    assert math.isnan(out[4])
    log = simulated(seed=11)
    k = np.flatnonzero((log.time >= CUTOFF) & seen_before(log, CUTOFF))[5]  # a scored game
    odd = GameLog.from_arrays(log.a, log.b, np.where(np.arange(N_GAMES) == k, 0.25, log.score), log.time)
    ev = evaluate({"ref": Outcomes(0.2), "plain": Recorder()}, odd, cutoff=CUTOFF)
    rows = {r["model"]: r for r in ev.summary()}
    assert math.isnan(rows["ref"]["log_loss3"]) and math.isfinite(rows["ref"]["log_loss"])
    (note,) = ev.notes
    assert note.startswith("1 scored games have a score outside {0, 0.5, 1} (the first: 0.25)") and "'ref'" in note
    assert "note: 1 scored games" in str(ev)


# ------------------------------------------------------------------------ (f) bad input
@pytest.mark.parametrize("times, kwargs, message", [
    ("numbers", dict(protocol="live"), "protocol must be one of ('frozen', 'online'), got 'live'"),
    ("numbers", dict(protocol="online", refit="fortnight"), "refit='fortnight' is not a refit period"),
    ("numbers", dict(protocol="online", refit="week"),
     "refit='week' is a calendar period, and this log's times are numbers (int64)"),
    ("dates", dict(protocol="online", refit=7), "refit=7 is a number, and this log's times are datetimes (datetime64[h])"),
    ("numbers", dict(protocol="online", refit=0), "refit must be one of ('day', 'week', 'month', 'year') (datetime "
                                                  "times) or a positive number (numeric times), got 0"),
    ("numbers", dict(protocol="online", refit=-2.5), "got -2.5"),
    ("numbers", dict(protocol="online", refit=True), "got True"),
    ("numbers", dict(protocol="online", refit=float("nan")), "got nan"),
])
def test_bad_protocol_and_refit_are_named(times, kwargs, message):
    log = simulated(seed=12) if times == "numbers" else dated_log()
    with pytest.raises(ValueError, match=re.escape(message)):
        evaluate({"elo": Elo(prior_scale=0.5)}, log, cutoff=log.time[1000], **kwargs)


def test_bad_outcomes_updates_and_validation_flags_are_named():
    class Wrong(Outcomes):
        def predict_outcomes(self, log):
            return np.full((len(log), 2), 0.5)

    log = simulated(seed=13)
    with pytest.raises(ValueError, match=re.escape("Wrong.predict_outcomes returned an array of shape")):
        evaluate({"w": Wrong()}, log, cutoff=CUTOFF)
    with pytest.raises(TypeError, match=re.escape("Validation.online must be a bool, got 'yes'")):
        Validation(online="yes")
    assert Validation(online=np.bool_(True)).online is True
    with pytest.raises(NotFittedError, match="not fitted yet"):
        OnlineElo(step=0.1).update(log)
    model = OnlineElo(step=0.1).fit(GameLog(log.a[:CUTOFF], log.b[:CUTOFF], log.score[:CUTOFF], log.time[:CUTOFF]))
    before = model.ratings_
    with pytest.raises(ValueError, match=re.escape("a game at time 10, before the latest time already seen (1499)")):
        model.update(GameLog(log.a[10:20], log.b[10:20], log.score[10:20], log.time[10:20]))
    with pytest.raises(ValueError, match=re.escape("score[0] = 2.0 is not a score in [0, 1]")):  # the log refuses it
        GameLog(log.a[CUTOFF:], log.b[CUTOFF:], np.full(N_GAMES - CUTOFF, 2.0), log.time[CUTOFF:])
    with pytest.raises(ValueError, match=re.escape("score must be finite and in [0, 1]; got 2")):  # so does update
        model.update(GameLog._trusted(log.a[CUTOFF:], log.b[CUTOFF:], np.full(N_GAMES - CUTOFF, 2.0), log.time[CUTOFF:]))
    with pytest.raises(TypeError, match="OnlineElo.update expects a discrank.GameLog, got list"):
        model.update([1, 2])
    assert model.ratings_ is before  # all or nothing


# ------------------------------------------------------------------------ warnings of the walk (issue 33)
class Warner(Recorder):
    """A batch model whose updates warn: a DisconnectedGraphWarning when the group has an even number of
    games, a RuntimeWarning (twice) when it has more than 8."""

    def update(self, log):
        import warnings

        from discrank.exceptions import DisconnectedGraphWarning

        if len(log) % 2 == 0:
            warnings.warn(f"even group of {len(log)}", DisconnectedGraphWarning)
        if len(log) > 8:
            warnings.warn("big group", RuntimeWarning)
            warnings.warn("big group again", RuntimeWarning)
        return super().update(log)


def test_the_updates_warnings_are_summed_up_once_per_model_and_category():
    import warnings

    from discrank.exceptions import DisconnectedGraphWarning

    log = dated_log()
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        ev = evaluate({"m": Warner(), "n": Warner()}, log, cutoff=log.time[800], protocol="online")
    sizes = {name: [len(e[1]) for e in model.events if e[0] == "update"] for name, model in ev.fitted.items()}
    assert sizes["m"] == sizes["n"]
    steps = len(sizes["m"])
    even = [k for k in sizes["m"] if k % 2 == 0]
    big = [k for k in sizes["m"] if k > 8]
    assert 0 < len(even) < steps and 0 < len(big) < steps
    assert [(w.category, str(w.message)) for w in seen] == [
        (DisconnectedGraphWarning, f"model 'm': {len(even)} of its {steps} updates of the online protocol raised "
                                   f"DisconnectedGraphWarning; the first: even group of {even[0]}"),
        (RuntimeWarning, f"model 'm': {len(big)} of its {steps} updates of the online protocol raised RuntimeWarning; "
                         "the first: big group"),
        (DisconnectedGraphWarning, f"model 'n': {len(even)} of its {steps} updates of the online protocol raised "
                                   f"DisconnectedGraphWarning; the first: even group of {even[0]}"),
        (RuntimeWarning, f"model 'n': {len(big)} of its {steps} updates of the online protocol raised RuntimeWarning; "
                         "the first: big group")]
    assert all(w.filename == __file__ for w in seen)  # pointed at the caller's line
    with warnings.catch_warnings(record=True) as seen:  # rolling origins: still one summary per model and category
        warnings.simplefilter("always")
        evaluate({"m": Warner()}, log, cutoff=log.time[800], protocol="online", rolling=3)
    assert [w.category for w in seen] == [DisconnectedGraphWarning, RuntimeWarning]
    counts = [re.match(r"model 'm': (\d+) of its (\d+) updates", str(w.message)).groups() for w in seen]
    assert counts[0][1] == counts[1][1] and int(counts[0][1]) > steps


def test_weekly_refits_of_a_disconnected_log_warn_once_in_the_api_and_the_command_line(tmp_path, capsys):
    import warnings

    from discrank.cli import main
    from discrank.exceptions import DisconnectedGraphWarning

    rng = np.random.default_rng(0)
    n = 1500
    a = rng.integers(0, 5, n)
    b = (a + rng.integers(1, 5, n)) % 5
    other = rng.random(n) < 0.5  # two groups of five players that never meet
    a, b = np.where(other, a + 10, a), np.where(other, b + 10, b)
    days = np.sort(rng.integers(0, 300, n))
    t = np.datetime64("2023-01-02", "D") + days.astype("timedelta64[D]")
    log = GameLog.from_arrays(a, b, (rng.random(n) < 0.5).astype(float), t)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        evaluate({"elo": Elo()}, log, test_fraction=0.5, protocol="online")
    texts = [str(w.message) for w in seen]
    assert [w.category for w in seen] == [DisconnectedGraphWarning] * 2  # the fit, then the refits' summary
    refits = re.fullmatch(r"model 'elo': (\d+) of its (\d+) refits of the online protocol raised "
                          r"DisconnectedGraphWarning; the first: the comparison graph is in 2 pieces .*", texts[1])
    assert refits and refits[1] == refits[2] and int(refits[1]) >= 20  # about 150 days of weekly refits
    path = tmp_path / "g.csv"
    import pandas as pd

    pd.DataFrame({"a": a, "b": b, "s": log.score, "t": t.astype(str)}).to_csv(path, index=False)
    assert main(["evaluate", str(path), "--score", "s", "--time", "t", "--test-fraction", "0.5", "--models", "elo",
                 "--protocol", "online"]) == 0
    err = capsys.readouterr().err
    assert err.count("discrank: warning: ") == 2 and err.count("DisconnectedGraphWarning") == 1
