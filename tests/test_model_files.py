"""Model files written by earlier versions of discrank load and predict as they did, to 1e-12 relative.

tests/data/model_files holds, for three versions (784f8e1; 9bf26b9, the merge before the models moved
to one base and DynamicElo's file fields were declared; 6868cbe, the last before the package moved into
subpackages, with the disc game of DynamicElo and the online models), a small file of every model that version has
(with and without draws, advantage covariates, dates; a DynamicElo fitted on period sums and one updated
after its fit) and the predictions the model made when it was saved (tests/make_model_files.py wrote
them; see its docstring). The files' parameters load bit for bit; the predictions are compared to 1e-12
relative, not bitwise, since the numpy and scipy a user's pip resolves today (and so the last bits of exp,
log1p and the draw models' sums) need not be those of the machine that wrote the expectations.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import discrank
from make_model_files import game_log

FILES = Path(__file__).parent / "data" / "model_files"
VERSIONS = ("784f8e1", "9bf26b9", "6868cbe")
CASES = [(version, p.name[: -len(".npz")]) for version in VERSIONS for p in sorted((FILES / version).glob("*.npz"))
         if not p.name.endswith(".expected.npz")]


def test_model_files_cover_every_model_kind_of_each_version():
    names = {version: {name for v, name in CASES if v == version} for version in VERSIONS}
    assert len(names["9bf26b9"]) == 16 and names["784f8e1"] == names["9bf26b9"] - {"elo_davidson"}
    assert names["6868cbe"] == names["9bf26b9"] | {"dynamic_disc", "online", "online_disc"}
    kinds = {type(discrank.load(FILES / version / f"{name}.npz")).__name__ for version, name in CASES}
    assert kinds == {"Elo", "EloPlusPlus", "MElo", "DiscDecomposition", "SchurDecomposition", "DynamicElo", "OnlineElo",
                     "OnlineDisc"}


@pytest.mark.parametrize("version, name", CASES, ids=[f"{v}-{n}" for v, n in CASES])
def test_old_model_file_predicts_the_same_to_1e_12(version, name):
    model = discrank.load(FILES / version / f"{name}.npz")
    expected = np.load(FILES / version / f"{name}.expected.npz", allow_pickle=False)
    got = np.asarray(model.predict_proba(expected["a"], expected["b"]), dtype=np.float64)
    np.testing.assert_allclose(got, expected["proba"], rtol=1e-12, atol=0)
    if "outcomes" in expected:
        np.testing.assert_allclose(model.predict_outcomes(_fixture_log(name)), expected["outcomes"], rtol=1e-12, atol=0)
    if "games" in expected:
        np.testing.assert_allclose(model.predict_games(_fixture_log(name)), expected["games"], rtol=1e-12, atol=0)


def _fixture_log(name):
    """The log whose games tests/make_model_files.py predicted for the file ``name``."""
    if name in ("dynamic_home", "dynamic_stationary", "dynamic_updated"):
        return game_log(advantage=True)
    if name == "dynamic_davidson":
        return game_log(draws=True)
    if name == "dynamic_rk_dates":
        return game_log(dates=True, advantage=True, draws=True)
    log = game_log()
    timed = name in ("dynamic", "dynamic_disc", "online", "online_disc")
    return log if timed else discrank.GameLog.from_arrays(log.a, log.b, log.score)


@pytest.mark.parametrize("version, name", [c for c in CASES if c[1].startswith("dynamic")],
                         ids=[f"{v}-{n}" for v, n in CASES if n.startswith("dynamic")])
def test_old_dynamic_file_saves_again_and_updates_like_a_fresh_fit(version, name, tmp_path):
    """A loaded DynamicElo saves, with the fields declared today, to a file that loads to the same
    predictions and standard errors, its games whole."""
    model = discrank.load(FILES / version / f"{name}.npz")
    model.save(tmp_path / "again.npz")
    again = discrank.load(tmp_path / "again.npz")
    expected = np.load(FILES / version / f"{name}.expected.npz", allow_pickle=False)
    np.testing.assert_array_equal(again.predict_proba(expected["a"], expected["b"]), expected["proba"])
    np.testing.assert_array_equal(again.beta_se_, model.beta_se_)
    assert again.draw_eta_se_ == model.draw_eta_se_
    assert again.games_.n_games == model.games_.n_games > 0
