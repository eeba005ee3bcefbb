"""The rules of docs/ARCHITECTURE.md that a machine can check: its core table lists every header and its
module table every module, every import follows the module table's order (but the breaks it lists), the
import graph of the package has no cycle, the data path runs one way, persistence knows no model by name."""

from __future__ import annotations

import ast
import fnmatch
import importlib
import pathlib
import re

import pytest

PACKAGE = pathlib.Path(importlib.import_module("discrank").__file__).resolve().parent
ROOT = pathlib.Path(__file__).resolve().parent.parent
ARCHITECTURE = (ROOT / "docs" / "ARCHITECTURE.md").read_text()


def _module_name(path: pathlib.Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict[str, set[str]]:
    """module -> the discrank modules it imports (anywhere in the file, function bodies included);
    ``from discrank import X`` counts as importing ``discrank.X`` when X is a module, and importing a
    package's ``__init__`` (``discrank``, ``discrank.models``) is not an edge (every submodule import
    runs it)."""
    files = {(_module_name(f)): f for f in PACKAGE.rglob("*.py")}
    modules = set(files)
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        deps: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")
                    anchor = anchor[: len(anchor) - (node.level - 1)]
                    base = ".".join(anchor + ([base] if base else []))
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
            for t in targets:
                if t in modules and t != name and files[t].name != "__init__.py":
                    deps.add(t)
        graph[name] = deps
    return graph


def _cycle(graph: dict[str, set[str]]):
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(m: str):
        state[m] = 1
        stack.append(m)
        for d in sorted(graph.get(m, ())):
            if state.get(d) == 1:
                return stack[stack.index(d):] + [d]
            if d not in state:
                found = visit(d)
                if found:
                    return found
        stack.pop()
        state[m] = 2
        return None

    for m in sorted(graph):
        if m not in state:
            found = visit(m)
            if found:
                return found
    return None


def test_the_graph_sees_the_known_edges():
    # the checker itself: it finds edges written in each style the package uses
    graph = import_graph()
    assert "discrank.data" in graph["discrank.logs"]  # from discrank.data import ...
    assert "discrank._labels" in graph["discrank.data"]  # from discrank._labels import ...
    assert "discrank.plot" in graph["discrank.cli"]  # from discrank import plot (in a function)
    assert "discrank.models._base" in graph["discrank.models.elo"]
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def test_no_import_cycle_between_modules():
    assert _cycle(import_graph()) is None


@pytest.mark.parametrize("low, high", [
    ("discrank.data", "discrank.logs"),        # the io layer imports data, never the reverse
    ("discrank._rows", "discrank.data"),
    ("discrank._rows", "discrank.logs"),
    ("discrank.data", "discrank.models._base"),
    ("discrank._fitdata", "discrank.models._base"),
    ("discrank._optim", "discrank._newton"),
])
def test_the_data_path_runs_one_way(low, high):
    graph = import_graph()

    def reaches(a, b, seen=()):
        return b in graph.get(a, ()) or any(reaches(d, b, seen + (a,)) for d in graph.get(a, ()) if d not in seen)

    assert not reaches(low, high), f"{low} imports {high} (directly or through another module)"


def test_checks_sit_below_everything():
    assert import_graph()["discrank._checks"] <= {"discrank.exceptions"}


def test_persistence_knows_no_model_by_name():
    graph = import_graph()
    assert not {m for m in graph["discrank.persist"] if m.startswith("discrank.models")}
    source = (PACKAGE / "persist.py").read_text()
    for name in ("DiscDecomposition", "DiscDecompositionCV", "EloPlusPlus", "MElo", "SchurDecomposition"):
        assert name not in source, f"persist.py names {name}"


# ------------------------------------------------------------------ docs/ARCHITECTURE.md against the tree
def _section(title: str) -> str:
    start = ARCHITECTURE.index(title)
    nxt = re.search(r"^#{2,3} ", ARCHITECTURE[start + len(title):], re.M)
    return ARCHITECTURE[start:start + len(title) + (nxt.start() if nxt else len(ARCHITECTURE))]


def core_table() -> list[str]:
    """The file patterns of the core table's first column (``src/bind_*.cpp`` among them)."""
    rows = re.findall(r"^\| (.+?) \| .+ \|$", _section("### The core (cpp/)"), re.M)
    return [name for row in rows for name in re.findall(r"`([^`]+)`", row)]


def module_table() -> list[tuple[str, str]]:
    """(layer, module name) of each row of the module table, in its order."""
    rows = re.findall(r"^\| (\w+) \| `([^`]+\.py)` \|", _section("### The modules (python/discrank)"), re.M)
    return [(layer, _module_name(PACKAGE / path)) for layer, path in rows]


def listed_breaks() -> set[tuple[str, str]]:
    """The imports the module section lists as breaking its rule: ``- `a.py -> b.py```."""
    found = re.findall(r"^- `([\w/]+\.py) -> ([\w/]+\.py)`", _section("### The modules (python/discrank)"), re.M)
    return {(_module_name(PACKAGE / a), _module_name(PACKAGE / b)) for a, b in found}


def test_the_tables_are_read():
    # the parsers themselves: rows of each table are found
    assert "losses.hpp" in core_table() and "src/bind_*.cpp" in core_table()
    assert ("foundations", "discrank.exceptions") in module_table()
    assert ("models", "discrank.models._base") in module_table() and ("surfaces", "discrank") in module_table()


def test_core_table_lists_every_header_and_source():
    cpp = ROOT / "cpp"
    headers = {p.name for p in (cpp / "include" / "discrank").glob("*.hpp")}
    listed = core_table()
    assert headers, "no header found under cpp/include/discrank"
    assert headers == {name for name in listed if name.endswith(".hpp") and "/" not in name}
    sources = sorted(p.relative_to(cpp).as_posix() for p in (cpp / "src").iterdir())
    assert [s for s in sources if not any(fnmatch.fnmatch(s, pattern) for pattern in listed)] == []


def test_module_table_lists_every_module_once():
    modules = [name for _, name in module_table()]
    assert len(modules) == len(set(modules))
    assert set(modules) == set(import_graph())


def test_module_table_layers_are_contiguous_and_ordered():
    layers = [layer for layer, _ in module_table()]
    assert [layer for k, layer in enumerate(layers) if k == 0 or layer != layers[k - 1]] == [
        "foundations", "data", "models", "surfaces"]


def test_every_import_follows_the_module_table():
    order = {name: k for k, (_, name) in enumerate(module_table())}
    graph = import_graph()
    upward = {(m, d) for m, deps in graph.items() for d in deps if order[d] > order[m]}
    assert upward == listed_breaks(), "imports of a module listed below the importer (update the table or the list)"
