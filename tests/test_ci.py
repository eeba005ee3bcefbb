"""CI runs what a user runs: .ci/run's legs take the README's commands, and its floor leg pins every
package at the lower bound pyproject.toml claims (.ci/floors.txt), so that the claimed floors are tested."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = ROOT / "pyproject.toml"
FLOORS = ROOT / ".ci" / "floors.txt"

pytestmark = pytest.mark.skipif(not (ROOT / ".ci" / "run").exists() or not PYPROJECT.exists(),
                                reason="needs the repository's .ci/run and pyproject.toml (a source checkout)")


def _name(requirement: str) -> str:
    return re.split(r"[\[<>=!~; ]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def _lists(text: str) -> dict[str, list[str]]:
    """The requirement lists of pyproject.toml, by key (``requires``, ``dependencies``, each extra's name)."""
    found = {}
    for key, body in re.findall(r'^([\w-]+)\s*=\s*\[(.*?)\]\s*$', text, flags=re.M | re.S):
        items = re.findall(r'"([^"]+)"', body)
        if items and all(re.match(r"[A-Za-z0-9_.\-\[\]]+\s*[<>=!~]", item) for item in items):
            found[key] = items
    return found


def claimed_floors() -> dict[str, str]:
    """Each package's lower bound (``>=X``) in the build's requirements, the dependencies and the test extra."""
    lists = _lists(PYPROJECT.read_text())
    floors = {}
    for key in ("requires", "dependencies", "test"):
        for requirement in lists[key]:
            match = re.search(r">=\s*([0-9][0-9A-Za-z.]*)", requirement)
            assert match, f"pyproject.toml's {key} entry {requirement!r} claims no lower bound (>=)"
            floors[_name(requirement)] = match.group(1)
    return floors


def pinned() -> dict[str, str]:
    pins = {}
    for line in FLOORS.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, _, version = line.partition("==")
            pins[_name(name)] = version.strip()
    return pins


def _release(version: str) -> tuple:
    parts = [int(p) for p in version.split(".")]
    return tuple(parts + [0] * (3 - len(parts)))


def test_the_floor_leg_pins_every_claimed_lower_bound_at_its_floor():
    claimed, pins = claimed_floors(), pinned()
    assert {"numpy", "scipy", "pandas", "pybind11", "scikit-build-core", "pytest"} <= set(claimed)
    missing = sorted(set(claimed) - set(pins))
    assert not missing, f".ci/floors.txt pins no version of {missing}"
    for name, floor in claimed.items():
        assert _release(pins[name]) == _release(floor), f"{name}: pyproject.toml claims >={floor}, floors.txt pins {pins[name]}"


def test_the_floor_leg_runs_the_oldest_python_that_pyproject_claims():
    text = PYPROJECT.read_text()
    assert re.search(r'^requires-python = ">=(\d+\.\d+)"$', text, flags=re.M), "requires-python is not '>=3.X'"
    run = (ROOT / ".ci" / "run").read_text()
    assert "requires-python" in run and 'leg floors "$floor" "$repo/.ci/floors.txt"' in run


def test_ci_runs_the_readme_commands_in_a_fresh_venv_without_site_packages():
    readme = (ROOT / "README.md").read_text()
    block = re.search(r"^```bash\n(.*?)^```$", readme, flags=re.M | re.S).group(1).splitlines()
    assert block == ["pip install . && discrank demo", "pip install '.[test]' && pytest"]
    run = (ROOT / ".ci" / "run").read_text()
    assert "--system-site-packages" not in run and '-m venv "$work/$name/venv"' in run
    assert 'eval "$command"' in run and "README.md" in run
