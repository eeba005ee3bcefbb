"""Model files written by an earlier discrank load and predict as they did, bit for bit.

tests/data/model_files holds a small file of every model (with and without draws, advantage covariates,
dates; a DynamicElo fitted on period sums and one updated after its fit) and the predictions the model
made when it was saved (tests/make_model_files.py wrote them; see its docstring).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import discrank
from make_model_files import game_log

FILES = Path(__file__).parent / "data" / "model_files"
NAMES = sorted(p.name[: -len(".npz")] for p in FILES.glob("*.npz") if not p.name.endswith(".expected.npz"))


def test_model_files_cover_every_model_kind():
    assert len(NAMES) == 16
    kinds = {type(discrank.load(FILES / f"{name}.npz")).__name__ for name in NAMES}
    assert kinds == {"Elo", "EloPlusPlus", "MElo", "DiscDecomposition", "SchurDecomposition", "DynamicElo"}


@pytest.mark.parametrize("name", NAMES)
def test_old_model_file_predicts_the_same_bit_for_bit(name):
    model = discrank.load(FILES / f"{name}.npz")
    expected = np.load(FILES / f"{name}.expected.npz", allow_pickle=False)
    got = np.asarray(model.predict_proba(expected["a"], expected["b"]), dtype=np.float64)
    np.testing.assert_array_equal(got, expected["proba"])
    if "outcomes" in expected:
        log = _fixture_log(name)
        np.testing.assert_array_equal(model.predict_outcomes(log), expected["outcomes"])


def _fixture_log(name):
    """The log whose outcomes tests/make_model_files.py predicted for the file ``name``."""
    if name in ("dynamic_home", "dynamic_stationary", "dynamic_updated"):
        return game_log(advantage=True)
    if name == "dynamic_davidson":
        return game_log(draws=True)
    if name == "dynamic_rk_dates":
        return game_log(dates=True, advantage=True, draws=True)
    log = game_log()
    return log if name == "dynamic" else discrank.GameLog.from_arrays(log.a, log.b, log.score)


@pytest.mark.parametrize("name", [n for n in NAMES if n.startswith("dynamic")])
def test_old_dynamic_file_updates_like_the_saved_model(name, tmp_path):
    """A loaded DynamicElo saves to a file that loads to the same predictions, and goes on with update."""
    model = discrank.load(FILES / f"{name}.npz")
    model.save(tmp_path / "again.npz")
    again = discrank.load(tmp_path / "again.npz")
    expected = np.load(FILES / f"{name}.expected.npz", allow_pickle=False)
    np.testing.assert_array_equal(again.predict_proba(expected["a"], expected["b"]), expected["proba"])
    np.testing.assert_array_equal(again.beta_se_, model.beta_se_)
    assert again.draw_eta_se_ == model.draw_eta_se_
