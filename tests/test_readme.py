"""The README's code blocks run, so that they cannot rot.

Python blocks run in order in one namespace (later blocks use earlier ones' names), from the repository
root; a block whose first line is "# needs ../shared/data" is skipped when that folder is absent. The
`discrank` lines of the shell blocks run in a temporary folder on a small generated games.csv.
"""

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parent.parent
TEXT = (ROOT / "README.md").read_text()
PYTHON_BLOCKS = re.findall(r"```python\n(.*?)```", TEXT, re.S)
SHELL_BLOCKS = re.findall(r"```bash\n(.*?)```", TEXT, re.S)
DATA = ROOT.parent / "shared" / "data"


def test_readme_has_the_blocks_this_test_expects():
    assert len(PYTHON_BLOCKS) >= 4 and len(SHELL_BLOCKS) >= 3
    assert SHELL_BLOCKS[0].split("\n")[:2] == ["pip install . && discrank demo", "pip install '.[test]' && pytest"]


def test_python_blocks_run(monkeypatch, capsys):
    import matplotlib

    matplotlib.use("Agg")
    monkeypatch.chdir(ROOT)
    namespace: dict = {}
    ran = 0
    for k, block in enumerate(PYTHON_BLOCKS):
        if block.startswith("# needs ../shared/data") and not DATA.is_dir():
            continue
        try:
            exec(compile(block, f"README.md python block {k}", "exec"), namespace)
        except Exception as exc:  # pragma: no cover - the message says which block
            pytest.fail(f"README python block {k} failed: {type(exc).__name__}: {exc}\n{block}")
        ran += 1
    assert ran >= len(PYTHON_BLOCKS) - 1
    out = capsys.readouterr().out
    assert "(3, 1) True" in out  # the quick start's disc.u_.shape and converged_
    if DATA.is_dir():
        assert "log loss per future game: Elo" in out and "first disc component:" in out


def test_shell_blocks_discrank_lines_run(tmp_path):
    exe = shutil.which("discrank", path=str(Path(sys.executable).parent)) or shutil.which("discrank")
    assert exe is not None
    rng = np.random.default_rng(0)
    names = np.array(["Carlsen", "Nakamura", "Caruana", "Ding", "Firouzja", "Gukesh"])
    skill = np.array([1.0, 0.6, 0.5, 0.3, 0.2, 0.0])
    a, b = np.triu_indices(names.size, 1)
    a, b = np.repeat(a, 20), np.repeat(b, 20)
    win = rng.random(a.size) < 1 / (1 + np.exp(-(skill[a] - skill[b])))
    pd.DataFrame({"white": names[a], "black": names[b], "result": np.where(win, "1-0", "0-1"),
                  "date": pd.date_range("2024-01-01", periods=a.size, freq="D")}).to_csv(tmp_path / "games.csv",
                                                                                        index=False)
    pd.DataFrame({"a": ["Carlsen", "Ding"], "b": ["Ding", "Carlsen"]}).to_csv(tmp_path / "pairs.csv", index=False)
    lines = [line.split("#")[0].strip() for block in SHELL_BLOCKS[1:] for line in block.splitlines()]
    lines = [line for line in lines if line.startswith("discrank ")]
    assert len(lines) >= 5
    for line in lines:
        args = shlex.split(line)[1:]
        proc = subprocess.run([exe, *args], cwd=tmp_path, capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, f"{line}: {proc.stderr}"
    assert (tmp_path / "ratings.csv").exists() and (tmp_path / "embedding.png").exists()
    preds = pd.read_csv(tmp_path / "predictions.csv")
    assert abs(preds["p"].sum() - 1.0) < 1e-12
