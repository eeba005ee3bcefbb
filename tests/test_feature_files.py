"""Model files of DynamicElo with its features (each part's fields, discrank.models.dynamic._part): context effects, margins, the disc
game, draw propensities and match formats saved, loaded, predicted and updated bit for bit as the fitted model;
a file that holds a feature in part, or contradicts its parameters or games, refused by name."""

from __future__ import annotations

import numpy as np
import pytest

from discrank import DynamicElo, GameLog, load
from discrank.cli import main
from test_reliability_files import rewrite

FIXED = {"period": 7.0, "drift": 0.1, "prior_scale": 1.0, "variance_scale": 1.0}
#: No feature: the log's columns left unused.
NONE = {"context_scale": 0, "margin_scale": 0, "format_scales": 0}
#: Each feature's parameters, fixed (no tuning).
FEATURES = {
    "contexts": {"context_scale": 0.3},
    "margins": {"margin_scale": 0.5},
    "disc": {"disc_components": 1, "disc_scale": 0.5},
    "draw propensities": {"draws": "davidson", "draw_propensity_scale": 0.4},
    "formats": {"format_scales": {"bo3": 1.0, "bo5": 1.3}},
}
FEATURES["all"] = {k: v for params in FEATURES.values() for k, v in params.items()}


def league(n=480, start=0.0, seed=0, draws=False):
    """A log of 12 players with every feature's column: surfaces, match formats, margins (games won)."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 12, n)
    b = (a + rng.integers(1, 12, n)) % 12
    u = rng.random(n)
    score = np.where(u < 0.45, 1.0, np.where(u < 0.9, 0.0, 0.5 if draws else 1.0))
    won = rng.integers(0, 2, (n, 2))
    margin = np.where(score[:, None] == 1.0, [2, 0] + won * [0, 1], np.where(score[:, None] == 0.0,
                                                                             [0, 2] + won * [1, 0], [1, 1]))
    return GameLog(a, b, score, time=start + np.sort(rng.uniform(0, 200, n)), context=rng.choice(["clay", "hard"], n),
                   margin=margin.astype(float), match_format=np.where(rng.random(n) < 0.3, "bo5", "bo3"))


def fit(feature, **more):
    params = {**FIXED, **NONE, **FEATURES[feature], **more}
    return DynamicElo(**params).fit(league(draws=params.get("draws") is not None))


@pytest.fixture(scope="module", params=list(FEATURES))
def saved(request, tmp_path_factory):
    """(feature, the fitted model, its file)."""
    model = fit(request.param)
    path = tmp_path_factory.mktemp("files") / "model.npz"
    model.save(path)
    return request.param, model, path


def test_a_loaded_model_with_features_predicts_and_updates_bit_for_bit(saved):
    feature, model, path = saved
    loaded = load(path)
    test = league(60, start=210.0, seed=1, draws=model.draws is not None)
    np.testing.assert_array_equal(loaded.predict_games(test), model.predict_games(test))
    if model.draws is not None:
        np.testing.assert_array_equal(loaded.predict_outcomes(test), model.predict_outcomes(test))
    for attr in ("context_labels_", "context_effects_", "context_sd_", "disc_u_", "disc_v_", "draw_propensity_",
                 "draw_propensity_sd_", "format_labels_", "format_scales_", "pp_rating_"):
        mine, theirs = getattr(model, attr), getattr(loaded, attr)
        assert (mine is None) == (theirs is None), attr
        if mine is not None:
            np.testing.assert_array_equal(theirs, mine)
    for attr in ("context_scale_", "margin_scale_", "disc_scale_", "draw_propensity_scale_"):
        assert getattr(loaded, attr) == getattr(model, attr), attr
    held = {"contexts": "context_scale_", "margins": "margin_scale_", "disc": "disc_scale_",
            "draw propensities": "draw_propensity_scale_", "formats": "format_scales_"}
    for name, attr in held.items():  # each file holds its own features and no other
        assert (getattr(loaded, attr) is not None) == (feature in (name, "all")), attr
    updated = fit(feature)
    updated.update(test)
    loaded.update(test)
    assert loaded.n_iter_ == updated.n_iter_
    np.testing.assert_array_equal(loaded.pp_rating_, updated.pp_rating_)
    np.testing.assert_array_equal(loaded.predict_games(test), updated.predict_games(test))


def test_a_loaded_model_saves_again_to_a_file_that_loads_the_same(saved, tmp_path):
    _, model, path = saved
    load(path).save(tmp_path / "again.npz")
    again = load(tmp_path / "again.npz")
    test = league(60, start=210.0, seed=1, draws=model.draws is not None)
    np.testing.assert_array_equal(again.predict_games(test), model.predict_games(test))


def test_the_cli_predicts_from_a_file_with_every_feature_in_the_given_context_and_format(tmp_path, capsys):
    model = fit("all")
    path = tmp_path / "model.npz"
    model.save(path)
    # a model fitted with contexts and formats needs them (it used to predict a game in no context, at the scale 1)
    assert main(["predict", str(path), "3", "5", "--match-format", "bo5"]) == 2
    assert "DynamicElo was fitted with the contexts ['clay', 'hard']: give the fixture's --context VALUE" in \
        capsys.readouterr().err
    assert main(["predict", str(path), "3", "5", "--context", "clay"]) == 2
    assert "fitted with the match formats ['bo3', 'bo5']: give the fixture's --match-format VALUE" in \
        capsys.readouterr().err
    assert main(["predict", str(path), "3", "5", "--context", "clay", "--match-format", "bo5"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(" = ")[0] for line in lines] == ["P(3 wins)", "P(draw)", "P(5 wins)"]
    got = np.array([float(line.split(" = ")[1]) for line in lines])
    last = model.history()["time"].to_numpy().max()  # the fixture is at the last fitted period
    ref = model.predict_outcomes(GameLog([3], [5], [0.5], time=[last], context=["clay"], match_format=["bo5"]))[0]
    np.testing.assert_allclose(got, ref, rtol=0, atol=5e-5)  # (each printed to 4 decimals)
    assert got[1] > 0.01


def _drop(*keys):
    def change(files):
        for key in keys:
            del files[key]
    return change


def _set(key, value):
    def change(files):
        files[key] = value(files[key]) if callable(value) else value
    return change


def _scalar(key, value=None):
    def change(head):
        if value is None:
            del head["scalars"][key]
        else:
            head["scalars"][key] = value
    return change


def _param(key, value):
    def change(head):
        head["params"][key] = value
    return change


TAMPERED = [
    ("contexts", None, _drop("games_ctx_"), "holds context_labels_ but not games_ctx_"),
    ("contexts", None, _drop("context_sd_"), "holds context_labels_ but not context_sd_"),
    ("contexts", _scalar("context_scale_"), None, "holds context_labels_ but not scalars.context_scale_"),
    ("contexts", _param("context_scale", 0), None, "its parameter context_scale is 0"),
    ("contexts", None, _set("games_ctx_", lambda c: np.where(np.arange(c.size) == 7, 2, c)),
     r"games_ctx_\[7\] = 2 is not a context code \(context labels hold 2\)"),
    ("contexts", None, _set("context_effects_", lambda e: e[:, :1]),
     r"context_effects_ has shape \(12, 1\) and dtype float64, expected shape \(12, 2\)"),
    ("contexts", lambda head: head.pop("label_sets"), _drop("context_labels_"),
     "context_effects_ has one entry per label of context_labels_, which the file does not hold"),
    ("contexts", lambda head: head["label_sets"].update(context_labels_="list"), None,
     r"label_sets.context_labels_ = 'list' is not one of"),
    ("contexts", lambda head: head["label_sets"].update(players_="str"), None,
     r"label_sets.players_ is not a label set a DynamicElo file holds"),
    ("contexts", None, _set("context_labels_", np.array(["clay", "clay"])), "context_labels_ repeats the label 'clay'"),
    ("margins", None, _drop("games_margin_"), "holds scalars.margin_scale_ but not games_margin_"),
    ("margins", None, _set("games_margin_", lambda m: np.where(np.arange(m.size).reshape(m.shape) == 9, -1.0, m)),
     "games_margin_ holds -1.0, a negative margin"),
    ("margins", None, _set("games_margin_", lambda m: np.concatenate([m, m[:, :1]], axis=1)),
     r"games_margin_ has shape \(480, 3\), expected \(480, 2\)"),
    ("disc", None, _drop("disc_v_"), "holds disc_u_ but not disc_v_"),
    ("disc", _param("disc_components", 2), None, r"disc_u_ has shape \(12, 1\), expected \(12, 2\)"),
    ("disc", _param("disc_components", 0), None, "params.disc_components = 0, but the file holds the disc components"),
    ("draw propensities", None, _drop("draw_propensity_sd_"), "holds draw_propensity_ but not draw_propensity_sd_"),
    ("draw propensities", _param("draw_propensity_scale", 0), None,
     "the file holds draw propensities, but its parameters say draws='davidson', draw_propensity_scale=0"),
    ("draw propensities", None, _set("draw_propensity_", lambda d: d[:5]),
     r"draw_propensity_ has shape \(5,\) and dtype float64, expected shape \(12,\)"),
    ("formats", None, _set("format_scales_", np.array([1.0, 0.0])),
     r"format_scales_\[1\] = 0.0 is not a positive scale of a format's logit"),
    ("formats", None, _set("games_fmt_", lambda c: c + 1), r"games_fmt_\[\d+\] = 2 is not a match format code"),
    ("formats", None, _drop("games_fmt_"), "holds format_labels_ but not games_fmt_"),
    ("formats", _param("format_scales", 0), None, "its parameter format_scales is 0"),
    ("formats", _param("format_scales", {"bo3": 1.0}), None,
     r"params.format_scales \{'bo3': 1.0\} gives no scale to the fitted match format\(s\) \['bo5'\]"),
    ("formats", None, _set("format_scales_", np.array([1.0, 1e200])), r"format_scales_\[1\] = 1e\+200 is above"),
    ("formats", lambda head: head["label_sets"].update(format_labels_="str"),
     _set("format_labels_", np.array(["bo3"])), "expected shape \\(1,\\) of floats \\(1 labels in format_labels_\\)"),
    ("formats", None, lambda f: f.update(format_labels_=np.array(["bo3"]), format_scales_=np.array([1.0]),
                                         games_fmt_=np.zeros_like(f["games_fmt_"])),
     r"match format labels hold 1 value\(s\): a model with match formats is fitted on two at least"),
    ("formats", lambda head: head["label_sets"].update(format_labels_="bytes"),
     _set("format_labels_", np.array([b"bo3", b"bo5"])), r"label_sets.format_labels_ = 'bytes' is not one of"),
    ("contexts", None, _set("games_ctx_", lambda c: np.where(np.arange(c.size) == 3, -1, c)),
     "games_ctx_ holds -1, a negative context code"),
    ("contexts", None, _set("games_ctx_", lambda c: np.where(np.arange(c.size) == 3, np.uint64(2 ** 64 - 1),
                                                             c.astype(np.uint64))),
     "games_ctx_ holds 18446744073709551615, beyond the int64 codes a model holds"),
    ("margins", None, _set("games_margin_", lambda m: m[:, ::-1]), "games_margin_: margin looks swapped"),
]


@pytest.mark.parametrize("feature, meta, arrays, message", TAMPERED, ids=[m[:40] for _, _, _, m in TAMPERED])
def test_a_file_with_a_feature_in_part_or_contradicting_itself_is_refused_by_name(tmp_path, feature, meta, arrays,
                                                                                  message):
    path = tmp_path / "model.npz"
    fit(feature).save(path)
    with pytest.raises(ValueError, match=message) as caught:
        load(rewrite(path, meta, arrays))
    assert "tampered.npz" in str(caught.value)


def test_a_file_of_a_model_without_features_holds_none_of_their_arrays(tmp_path):
    path = tmp_path / "model.npz"
    DynamicElo(**FIXED, **NONE).fit(league()).save(path)
    with np.load(path) as z:
        assert sorted(z.files) == ["__discrank__", "games_a_", "games_b_", "games_bin_", "games_score_",
                                   "games_time_", "labels_", "pp_rating_", "pp_sd_", "theta_tail_"]


def test_format_scales_given_by_number_keep_their_keys_through_a_file(tmp_path):
    """A JSON header keys a dict by text: format_scales={3: 1.0, 5: 1.3} comes back keyed by the fitted formats (3
    and 5, not '3' and '5'), so that the loaded model's parameters refit."""
    log = league()
    numbered = GameLog(log.a, log.b, log.score, time=log.time,
                       match_format=np.where(np.asarray(log.match_format) == "bo5", 5, 3))
    model = DynamicElo(**{**FIXED, **NONE, "format_scales": {np.int64(3): 1.0, 5: 1.3}}).fit(numbered)
    model.save(tmp_path / "model.npz")
    loaded = load(tmp_path / "model.npz")
    assert loaded.get_params()["format_scales"] == {3: 1.0, 5: 1.3}
    assert loaded.format_labels_.tolist() == [3, 5]
    refit = DynamicElo(**loaded.get_params()).fit(numbered)
    np.testing.assert_array_equal(refit.pp_rating_, model.pp_rating_)
