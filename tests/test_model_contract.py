"""The estimator contract every model keeps: scikit-learn's conventions (NotFittedError, score, get_params /
set_params / clone), the fitted state each class declares (persist, ratings_frame, bootstrap and plot ask
the model), the fit data built once per fit, and NumericalError."""

import ast
import inspect
import warnings
from pathlib import Path

import numpy as np
import pytest

import discrank
from discrank import (DiscDecomposition, DiscDecompositionCV, Elo, EloPlusPlus, MElo, PairwiseData, SchurDecomposition,
                      load)
from discrank.persist import model_file as persist
from discrank.exceptions import NotFittedError, NumericalError
from discrank.data.games import disc_game, elo_game

MODELS = [
    lambda: Elo(prior_scale=1.0),
    lambda: EloPlusPlus(prior_scale=1.0),
    lambda: DiscDecomposition(1, prior_scale=2.0, random_state=0),
    lambda: MElo(1, prior_scale=2.0, random_state=0),
    lambda: SchurDecomposition(1),
    lambda: DiscDecompositionCV(regularizations=(0.0, 1.0), cv=2, prior_scale=2.0, random_state=0),
]
IDS = ["Elo", "EloPlusPlus", "DiscDecomposition", "MElo", "SchurDecomposition", "DiscDecompositionCV"]


def complete_data():
    rng = np.random.default_rng(0)
    P = 0.5 * elo_game(rng.normal(size=8)) + 0.5 * disc_game(rng.normal(size=8), rng.normal(size=8))
    return PairwiseData.from_matrix(P)


def fit_quietly(model, data):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return model.fit(data)


# ------------------------------------------------------------------ scikit-learn conventions
@pytest.mark.parametrize("make", MODELS, ids=IDS)
def test_every_unfitted_access_raises_not_fitted_error(make, tmp_path):
    model = make()
    data = complete_data()
    calls = [lambda: model.predict_proba(0, 1), lambda: model.decision_function(0, 1), lambda: model.score(data),
             lambda: model.log_loss(data), lambda: model.mse(data), lambda: model.ratings_frame(),
             lambda: model.save(tmp_path / "m.npz"), lambda: model.relabel(np.arange(8))]
    if hasattr(model, "transitivity"):
        calls.append(model.transitivity)
    for call in calls:
        with pytest.raises(NotFittedError, match="not fitted yet") as info:
            call()
        assert isinstance(info.value, ValueError) and isinstance(info.value, AttributeError)


@pytest.mark.parametrize("make", MODELS, ids=IDS)
def test_sklearn_check_is_fitted_clone_and_params(make):
    sklearn_base = pytest.importorskip("sklearn.base", reason="scikit-learn is not installed")
    from sklearn.exceptions import NotFittedError as SklearnNotFitted
    from sklearn.utils.validation import check_is_fitted

    model = make()
    with pytest.raises(SklearnNotFitted):
        check_is_fitted(model)
    twin = sklearn_base.clone(model)
    assert type(twin) is type(model) and twin is not model
    assert twin.get_params() == model.get_params()
    fit_quietly(model, complete_data())
    check_is_fitted(model)
    fresh = sklearn_base.clone(model)  # a clone is unfitted, with the same parameters
    assert not hasattr(fresh, "labels_") and fresh.get_params() == model.get_params()
    name = next(iter(model.get_params()))
    assert fresh.set_params(**{name: model.get_params()[name]}) is fresh
    with pytest.raises(ValueError, match="invalid parameter 'nope'"):
        fresh.set_params(nope=1)


@pytest.mark.parametrize("make", MODELS, ids=IDS)
def test_score_is_the_mean_log_likelihood_minus_the_log_loss(make):
    data = complete_data()
    model = fit_quietly(make(), data)
    assert model.score(data) == -model.log_loss(data)
    assert model.score(data) <= 0.0
    q = np.clip(model.predict_proba(data), 1e-15, 1 - 1e-15)
    w = data.pair_weights()
    assert model.score(data) == pytest.approx(np.sum(w * (data.p * np.log(q) + (1 - data.p) * np.log1p(-q))) / w.sum())


def test_numerical_error_is_an_arithmetic_and_a_value_error_and_guards_the_fitted_arrays():
    assert issubclass(NumericalError, ArithmeticError) and issubclass(NumericalError, ValueError)
    model = fit_quietly(Elo(prior_scale=1.0), complete_data())
    model._check_finite_state()  # a fitted model is finite
    model.ratings_ = model.ratings_.copy()
    model.ratings_[3] = np.nan
    with pytest.raises(NumericalError, match=r"non-finite ratings_\[3\] = nan"):
        model._check_finite_state()


def test_a_fit_that_ends_on_nan_raises_numerical_error_and_keeps_the_previous_fit(monkeypatch):
    import discrank.models.elo as E

    model = fit_quietly(Elo(prior_scale=1.0), complete_data())
    before = model.ratings_.copy()
    real = E.newton_elo

    def poisoned(*args, **kwargs):
        res = real(*args, **kwargs)
        res.x[:] = np.nan
        return res

    monkeypatch.setattr(E, "newton_elo", poisoned)
    with pytest.raises(NumericalError, match="Elo.fit ended on a non-finite ratings_"):
        model.fit(complete_data())
    assert np.array_equal(model.ratings_, before)


# ------------------------------------------------------------------ fitted state declared by the class
def test_persist_knows_no_model_class_and_imports_no_model_module():
    source = Path(persist.__file__).read_text()
    tree = ast.parse(source)
    imported = [node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)]
    imported += [alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names]
    assert not any(name and name.startswith("discrank.models") for name in imported), imported
    for name in IDS:
        assert f'"{name}"' not in source and f"'{name}'" not in source
    # the registry is filled by the classes themselves, public classes that declare fitted arrays
    library = sorted(n for n, c in persist._MODELS.items() if c.__module__.startswith("discrank."))  # tests define others
    assert library == ["DiscDecomposition", "DynamicElo", "Elo", "EloPlusPlus", "MElo", "OnlineDisc", "OnlineElo",
                       "SchurDecomposition"]


@pytest.mark.parametrize("make", MODELS, ids=IDS)
def test_save_and_load_keep_predictions_and_the_declared_state(make, tmp_path):
    data = complete_data()
    model = fit_quietly(make(), data)
    model.save(tmp_path / "m.npz")
    back = load(tmp_path / "m.npz")
    saved = model._saved_model()
    assert type(back) is type(saved)
    np.testing.assert_array_equal(back.predict_proba(data), model.predict_proba(data))
    for spec in type(back)._fitted_arrays:
        if getattr(saved, spec.name, None) is not None:
            np.testing.assert_array_equal(getattr(back, spec.name), getattr(saved, spec.name))
    key, back_key = saved._sort_key(), back._sort_key()
    assert (key is None) == (back_key is None)
    if key is not None:
        np.testing.assert_array_equal(back_key, key)


@pytest.mark.parametrize("make", MODELS, ids=IDS)
def test_ratings_frame_bootstrap_and_plot_rank_by_the_models_sort_key(make):
    data = complete_data()
    model = fit_quietly(make(), data)
    key = model._sort_key()
    frame = model.ratings_frame()
    if key is None:
        assert frame["rank"].isna().all()
    else:
        assert frame["player"].tolist() == model.labels_[np.argsort(-key, kind="stable")].tolist()
        assert frame["rank"].tolist() == list(range(1, model.n_players_ + 1))
    from discrank.evaluation._bootstrap import _scores

    scores = _scores(model)
    assert np.isnan(scores).all() if key is None else np.array_equal(scores, key)


def test_m_elo_is_ranked_by_its_mean_score():
    data = complete_data()
    model = fit_quietly(MElo(1, prior_scale=2.0, random_state=0), data)
    frame = model.ratings_frame()
    assert frame["rating"].is_monotonic_decreasing
    assert frame["rank"].tolist() == list(range(1, data.n_players + 1))
    assert "elo" not in frame.columns  # a mean score is no logit


def test_relabel_gives_a_model_fitted_on_codes_its_labels():
    data = complete_data()
    names = np.array([f"p{k}" for k in range(data.n_players)], dtype=object)
    for make in (lambda: Elo(prior_scale=1.0), lambda: DiscDecomposition(1, prior_scale=2.0, random_state=0),
                 MODELS[-1]):
        model = fit_quietly(make(), data)
        p = model.predict_proba(2, 5)
        model.relabel(names)
        assert model.labels_.tolist() == names.tolist()
        assert model.predict_proba("p2", "p5") == p
        if getattr(model, "ranking_", None) is not None:
            assert set(model.ranking_.tolist()) == set(names.tolist())
        inner = getattr(model, "best_estimator_", None)
        if inner is not None:
            assert inner.labels_.tolist() == names.tolist()


# ------------------------------------------------------------------ the fit data
def test_the_fit_data_leaves_the_pairs_sorted_and_is_built_once(monkeypatch):
    from discrank.solvers import _fitdata
    from discrank.models import _pairwise

    rng = np.random.default_rng(1)
    n = 3000
    i = rng.integers(0, n, 20_000)
    j = rng.integers(0, n, 20_000)
    keep = i != j
    data = PairwiseData.from_pairs(i[keep], j[keep], rng.uniform(0.1, 0.9, keep.sum()), np.ones(keep.sum()),
                                   labels=np.arange(n))
    key = data.i.astype(np.int64) * n + data.j
    assert np.all(key[1:] > key[:-1])
    calls = []
    real = _fitdata.build_fit_data

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(_pairwise, "build_fit_data", counted)
    fit_quietly(DiscDecomposition(1, prior_scale=1.0, random_state=0, max_iter=3), data)
    assert len(calls) == 1
    # the data the user gave keeps its invariant (sorted by (i, j)); the fit's tile order is its own
    key = data.i.astype(np.int64) * n + data.j
    assert np.all(key[1:] > key[:-1])
    fd = real(data, 1, tile=True)
    assert isinstance(fd.i, np.ndarray) and not isinstance(fd, PairwiseData)
    assert fd.pairs is data and fd.n_pairs == data.n_pairs and fd.total_weight == data.pair_weights().sum()
    assert np.array_equal(np.sort(fd.i.astype(np.int64) * n + fd.j), key)
    assert fd.w.sum() == pytest.approx(1.0)


@pytest.mark.parametrize("quiet", [["--quiet"], []])
def test_the_cli_leaves_no_progress_hook_behind(tmp_path, quiet, capsys):
    from discrank._util import progress as _progress
    from discrank.cli import main

    import pandas as pd

    pd.DataFrame({"a": ["x", "y", "z", "x"], "b": ["y", "z", "x", "z"], "s": [1.0, 0.0, 0.5, 1.0]}).to_csv(
        tmp_path / "g.csv", index=False)
    assert main(["fit", str(tmp_path / "g.csv"), "--score", "s", "--model", "elo", *quiet]) == 0
    assert _progress._STEPS.get() is None and _progress._STAGES.get() is None


def test_the_fit_pipeline_is_the_base_class_fit():
    # every model fitted on the objective runs PairwiseModel.fit: validate -> plan -> fit data -> _fit -> store,
    # the plan (prior scale, a tuning fit's tolerance, warm start) an argument of _fit
    from discrank.models._pairwise import PairwiseModel

    for cls in (Elo, EloPlusPlus, DiscDecomposition, MElo):
        assert cls.fit is PairwiseModel.fit
        assert list(inspect.signature(cls._fit).parameters) == ["self", "data", "plan"]
    assert discrank.models.disc.__all__ == ["DiscDecomposition", "MElo"]


# ------------------------------------------------------------------ one base for every estimator
def _estimators():
    from discrank.online import OnlineElo

    return [Elo, EloPlusPlus, DiscDecomposition, MElo, SchurDecomposition, DiscDecompositionCV, discrank.DynamicElo,
            OnlineElo, discrank.OnlineDisc]


def test_every_estimator_derives_from_the_one_model_base_and_lives_under_models():
    from discrank.models._base import Model

    for cls in _estimators():
        assert issubclass(cls, Model), cls.__name__
        assert cls.__module__.startswith("discrank.models."), (cls.__name__, cls.__module__)


@pytest.mark.parametrize("name", ["_check_fitted", "__sklearn_is_fitted__", "relabel", "save", "_load_state",
                                  "__init_subclass__", "_player_codes", "_label_lookup", "ratings_frame"])
def test_the_time_aware_models_inherit_the_bases_copy_of_each_shared_method(name):
    from discrank.online import OnlineElo

    shared = {"ratings_frame"}  # (OnlineDisc's table reads a disc component, as the disc models' do)
    for cls in (discrank.DynamicElo, OnlineElo) + (() if name in shared else (discrank.OnlineDisc,)):
        assert name not in cls.__dict__, f"{cls.__name__} writes its own {name}"
    # one ratings_frame for both time-aware models
    assert discrank.DynamicElo.ratings_frame is OnlineElo.ratings_frame


def test_unfitted_time_aware_models_raise_not_fitted_error(tmp_path):
    from discrank.online import OnlineElo

    for model in (discrank.DynamicElo(), OnlineElo(), discrank.OnlineDisc()):
        for call in (lambda: model.predict_proba("x", "y"), lambda: model.ratings_frame(),
                     lambda: model.save(tmp_path / "m.npz"), lambda: model.relabel(np.arange(3))):
            with pytest.raises(NotFittedError, match=f"this {type(model).__name__} is not fitted yet"):
                call()
        assert not model.__sklearn_is_fitted__()


def test_persistence_has_no_hand_written_state_of_any_model():
    source = (Path(persist.__file__)).read_text()
    for hook in ("_state_to_save", "_load_advantage", "DynamicElo"):
        assert hook not in source, hook
    for cls in _estimators():
        assert "_state_to_save" not in cls.__dict__ and "_load_advantage" not in cls.__dict__, cls.__name__


def test_the_old_module_paths_keep_their_public_names():
    import discrank.dynamic
    import discrank.models.dynamic._model
    import discrank.models.online._elo
    import discrank.online

    for name in ("DynamicElo", "DRIFT_GRID", "PRIOR_GRID", "VARIANCE_GRID"):
        assert name in discrank.dynamic.__all__
        assert getattr(discrank.dynamic, name) is getattr(discrank.models.dynamic._model, name), name
    for name in ("OnlineElo", "STEP_GRID"):
        assert name in discrank.online.__all__
        assert getattr(discrank.online, name) is getattr(discrank.models.online._elo, name), name
    for name in ("OnlineRatings", "online_elo", "online_disc", "ELO_K32_STEP"):
        assert callable(getattr(discrank.online, name)) or name == "ELO_K32_STEP"
    assert discrank.DynamicElo is discrank.models.DynamicElo and discrank.models.OnlineElo is discrank.online.OnlineElo
