"""Sequential updates: Elo's and the paper's online disc update (Section 4)."""

import math

import numpy as np
import pytest
from scipy.special import expit

from discrank import DiscDecomposition, Elo, PairwiseData
from discrank.data.games import elo_game
from discrank.online import ELO_K32_STEP, online_disc, online_elo

ONLINE_TOL = 0.05  # |time-averaged online rating - stationary rating|, step 0.003, 400 000 games


@pytest.fixture(scope="module")
def stationary_log():
    rng = np.random.default_rng(0)
    n, T = 10, 400_000
    s = rng.normal(size=n)
    a = rng.integers(0, n, T)
    b = (a + rng.integers(1, n, T)) % n
    score = (rng.random(T) < expit(s[a] - s[b])).astype(float)
    return a, b, score


def test_online_elo_with_a_small_step_converges_to_the_stationary_fit(stationary_log):
    a, b, score = stationary_log
    run = online_elo(a, b, score, step=0.003, snapshot_every=1000)
    data = PairwiseData.from_games(a, b, score)
    stationary = Elo().fit(data).ratings_[data.index(run.labels)]
    late = run.snapshots[len(run.snapshots) // 2:].mean(axis=0)  # Polyak average of the second half
    assert np.abs((late - late.mean()) - stationary).max() < ONLINE_TOL


def test_online_elo_is_the_classical_update():
    run = online_elo(["x", "y", "x"], ["y", "z", "z"], [1.0, 0.5, 0.0], step=0.5)
    s = {"x": 0.0, "y": 0.0, "z": 0.0}
    expected_pred = []
    for p, q, score in (("x", "y", 1.0), ("y", "z", 0.5), ("x", "z", 0.0)):
        pred = expit(s[p] - s[q])
        expected_pred.append(pred)
        s[p] += 0.5 * (score - pred)
        s[q] -= 0.5 * (score - pred)
    assert run.labels.tolist() == ["x", "y", "z"]
    np.testing.assert_allclose(run.predictions, expected_pred, rtol=1e-15)
    np.testing.assert_allclose(run.ratings, [s["x"], s["y"], s["z"]], rtol=1e-15)
    assert ELO_K32_STEP == pytest.approx(32 * math.log(10) / 400)


def test_online_disc_is_the_papers_update():
    run = online_disc([0, 1], [1, 2], [1.0, 0.0], step=0.3)
    u, v = np.zeros(3), np.ones(3)
    for a, b, score in ((0, 1, 1.0), (1, 2, 0.0)):
        p = expit(v[a] * v[b] * (u[a] - u[b]))
        r = 0.3 * (score - p)
        du = r * v[a] * v[b]
        dva, dvb = r * v[b] * (u[a] - u[b]), r * v[a] * (u[a] - u[b])
        u[a], u[b], v[a], v[b] = u[a] + du, u[b] - du, v[a] + dva, v[b] + dvb
    np.testing.assert_allclose(run.ratings, u, rtol=1e-15)
    np.testing.assert_allclose(run.consistency, v, rtol=1e-15)


def test_continuing_from_a_fitted_model_starts_from_its_ratings():
    s = np.array([1.0, 0.0, -1.0])
    data = PairwiseData.from_matrix(elo_game(s), labels=["a", "b", "c"])
    elo = Elo(tol=1e-10, prior_scale=np.inf).fit(data)
    run = online_elo(["a", "new"], ["c", "b"], [1.0, 0.0], step=0.1, init=elo)
    assert run.predictions[0] == pytest.approx(expit(2.0), abs=1e-8)
    assert run.new_players.tolist() == ["new"] and run.labels.tolist() == ["a", "b", "c", "new"]
    disc = DiscDecomposition(random_state=0, prior_scale=np.inf).fit(data)
    run = online_disc(["a"], ["c"], [1.0], step=0.1, init=disc)
    assert run.predictions[0] == pytest.approx(expit(2.0), abs=1e-5)


def test_online_disc_refuses_a_cyclic_start():
    theta = 2 * np.pi * np.arange(6) / 6
    from discrank.data.games import disc_game

    cyclic = DiscDecomposition(random_state=0, prior_scale=np.inf).fit(PairwiseData.from_matrix(disc_game(np.cos(theta), np.sin(theta))))
    with pytest.raises(ValueError, match="first component is transitive"):
        online_disc([0], [1], [1.0], init=cyclic)


def test_snapshots_record_every_m_games():
    run = online_elo([0, 1, 0, 2, 1], [1, 2, 2, 0, 0], [1, 1, 0, 1, 0.5], step=0.2, snapshot_every=2)
    assert run.snapshots.shape == (2, 3)
    again = online_elo([0, 1, 0, 2], [1, 2, 2, 0], [1, 1, 0, 1], step=0.2)
    np.testing.assert_array_equal(run.snapshots[1], again.ratings)


@pytest.mark.parametrize(
    "kwargs, exc, message",
    [
        (dict(step=float("nan")), ValueError, "step must be a positive finite number, got nan"),
        (dict(step=-0.1), ValueError, "got -0.1"),
        (dict(times=[3, 1, 2]), ValueError, r"times must be non-decreasing .* times\[1\] = 1 comes before times\[0\] = 3"),
        (dict(times=[0, 1]), ValueError, "inconsistent lengths"),
        (dict(snapshot_every=0), ValueError, "snapshot_every must be None or an integer >= 1, got 0"),
        (dict(score=[1, 2, 0]), ValueError, r"score must be finite and in \[0, 1\]; got 2.0 at game 1"),
        (dict(score=[1, np.nan, 0]), ValueError, "got nan at game 1"),
        (dict(b=["y", "x", "x"]), ValueError, "game 2 is player 'x' against themself"),
    ],
)
@pytest.mark.parametrize("update", [online_elo, online_disc])
def test_bad_input_is_refused(update, kwargs, exc, message):
    args = dict(a=["x", "y", "x"], b=["y", "z", "z"], score=[1, 0, 0.5])
    args.update(kwargs)
    if "b" in kwargs:
        args["a"] = ["x", "y", "x"]
        args["b"] = ["y", "x", "x"]
    a, b, score = args.pop("a"), args.pop("b"), args.pop("score")
    with pytest.raises(exc, match=message):
        update(a, b, score, **args)


def test_core_refuses_out_of_range_indices():
    from discrank.core import _core
    with pytest.raises(ValueError, match=r"player index \(0, 3\) of game 0 is outside \[0, 3\)"):
        _core.online_elo(np.array([0], dtype=np.int32), np.array([3], dtype=np.int32), np.ones(1), 0.1, np.zeros(3))


def _dated_log(days, a, b, score):
    from discrank import GameLog

    return GameLog.from_arrays(a, b, score, np.datetime64("2024-01-01") + np.asarray(days).astype("timedelta64[D]"))


def test_online_elo_ratings_frame_has_elo_games_and_last_seen_and_keeps_the_active_players():
    from discrank.online import OnlineElo

    log = _dated_log([0, 1, 2, 10, 20], ["x", "y", "x", "z", "x"], ["y", "z", "z", "y", "y"], [1, 1, 0.5, 0, 1])
    model = OnlineElo(step=0.5).fit(log)
    frame = model.ratings_frame()
    assert list(frame.columns) == ["player", "rank", "games", "elo", "rating", "last_seen", "provisional"]
    assert frame["rank"].tolist() == [1, 2, 3] and frame.attrs["model"] == "OnlineElo"
    row = frame.set_index("player")
    assert row.loc["x", "games"] == 3 and row.loc["y", "games"] == 4 and row.loc["z", "games"] == 3
    assert row.loc["z", "last_seen"] == np.datetime64("2024-01-11")
    assert row.loc["y", "last_seen"] == np.datetime64("2024-01-21")
    ratings = model.ratings_[model._label_lookup().index(["x", "y", "z"], "player")]
    np.testing.assert_allclose(row.loc[["x", "y", "z"], "rating"], ratings, rtol=0, atol=0)
    np.testing.assert_allclose(row.loc[["x", "y", "z"], "elo"],
                               1500 + 400 / np.log(10) * (ratings - ratings.mean()), rtol=1e-12)
    active = model.ratings_frame(active_since="2024-01-15", anchor="z", anchor_rating=1000.0)
    assert sorted(active["player"]) == ["x", "y"] and active["rank"].tolist() == [1, 2]
    z_rating = ratings[2]
    np.testing.assert_allclose(active.set_index("player").loc[["x", "y"], "elo"],
                               1000 + 400 / np.log(10) * (ratings[:2] - z_rating), rtol=1e-12)


def test_online_elo_update_moves_last_seen_and_counts_the_new_players_games():
    from discrank.online import OnlineElo

    model = OnlineElo(step=0.5).fit(_dated_log([0, 1], ["x", "y"], ["y", "z"], [1, 0]))
    model.update(_dated_log([5, 6], ["x", "w"], ["w", "z"], [1, 0.5]))
    row = model.ratings_frame().set_index("player")
    assert row.loc[["x", "y", "z", "w"], "games"].tolist() == [2, 2, 2, 2]
    assert row.loc["y", "last_seen"] == np.datetime64("2024-01-02")
    assert row.loc["w", "last_seen"] == np.datetime64("2024-01-07")
    assert model.ratings_frame(active_since="2024-01-06")["player"].tolist() != []
    assert sorted(model.ratings_frame(active_since="2024-01-06")["player"]) == ["w", "x", "z"]


@pytest.mark.parametrize("since, message", [
    ("2023-12-01", r"active_since=2023-12-01 is outside the fitted games' time range: the fitted games' times run "
                   r"from 2024-01-01 to 2024-01-21"),
    (5.0, r"active_since"),
])
def test_online_elo_ratings_frame_refuses_an_active_since_outside_the_times(since, message):
    from discrank.online import OnlineElo

    log = _dated_log([0, 1, 20], ["x", "y", "x"], ["y", "z", "z"], [1, 1, 0.5])
    with pytest.raises(ValueError, match=message):
        OnlineElo(step=0.5).fit(log).ratings_frame(active_since=since)


def test_online_elo_without_times_has_nan_last_seen_and_refuses_active_since():
    from discrank import GameLog
    from discrank.online import OnlineElo

    model = OnlineElo(step=0.5).fit(GameLog.from_arrays(["x", "y"], ["y", "z"], [1.0, 0.0]))
    assert model.ratings_frame()["last_seen"].isna().all()
    with pytest.raises(ValueError, match="active_since=3: this OnlineElo was fitted on games without times"):
        model.ratings_frame(active_since=3)


@pytest.mark.parametrize("times", ["dates", "integers", "floats", None])
def test_a_saved_online_elo_predicts_tabulates_and_updates_as_the_original(tmp_path, times):
    import discrank
    from discrank import GameLog
    from discrank.online import OnlineElo

    t = {"dates": np.datetime64("2024-01-01") + np.array([0, 1, 2, 10, 20, 30, 31]).astype("timedelta64[D]"),
         "integers": np.array([0, 1, 2, 10, 20, 30, 31]), "floats": np.array([0.0, 1, 2, 10, 20, 30, 31.5]),
         None: None}[times]
    first = GameLog.from_arrays(["x", "y", "x", "z", "x"], ["y", "z", "z", "y", "y"], [1, 1, 0.5, 0, 1],
                                None if t is None else t[:5])
    later = GameLog.from_arrays(["x", "w"], ["w", "z"], [1, 0.5], None if t is None else t[5:])
    model = OnlineElo().fit(first)
    model.save(tmp_path / "o.npz")
    back = discrank.load(tmp_path / "o.npz")
    assert type(back) is OnlineElo and back.get_params() == model.get_params() and back.step_ == model.step_
    np.testing.assert_array_equal(back.predict_proba(["x", "y"], ["z", "x"]), model.predict_proba(["x", "y"], ["z", "x"]))
    assert back.ratings_frame().equals(model.ratings_frame())
    model.update(later)
    back.update(later)
    np.testing.assert_array_equal(back.ratings_, model.ratings_)
    assert back.ratings_frame().equals(model.ratings_frame())
    if t is not None:  # the file keeps the latest time: update still runs forward only
        with pytest.raises(ValueError, match="before the latest time already seen"):
            discrank.load(tmp_path / "o.npz").update(GameLog.from_arrays(["x"], ["y"], [1.0], t[:1]))


def test_a_tampered_online_elo_file_is_refused_naming_the_field(tmp_path):
    import json

    import discrank
    from discrank.online import OnlineElo

    OnlineElo(step=0.2).fit(_dated_log([0, 1, 2], ["x", "y", "x"], ["y", "z", "z"], [1, 0, 1])).save(tmp_path / "o.npz")
    with np.load(tmp_path / "o.npz") as z:
        files = {k: z[k] for k in z.files}
    cases = [
        (lambda f: f.__setitem__("time_span_int_", f["time_span_int_"][::-1].copy()), r"time_span_ = .* is not the first "
                                                                                       r"and the last time"),
        (lambda f: f.pop("time_span_int_"), r"time_dtype_ = .datetime64\[D\]. needs time_span_int_"),
        (lambda f: f.__setitem__("ratings_", np.array([0.0, np.nan, 1.0])), r"ratings_\[1\] = nan is not finite"),
        (lambda f: f.__setitem__("n_games_", np.array([2, -1, 2])), r"n_games_ holds -1, a negative game count"),
        (lambda f: f.__setitem__("__discrank__", np.array(json.dumps(
            {**json.loads(str(f["__discrank__"])), "scalars": {"step_": -1.0, "time_dtype_": "datetime64[D]"}}))),
         r"scalars\.step_ = -1\.0 is not a positive finite number"),
    ]
    for change, message in cases:
        tampered = dict(files)
        change(tampered)
        np.savez_compressed(tmp_path / "t.npz", **tampered)
        with pytest.raises(ValueError, match=r"t\.npz: " + message):
            discrank.load(tmp_path / "t.npz")
