"""The rules of docs/ARCHITECTURE.md that a machine can check: its folder table lists every folder of the
package in layer order, every import runs to the importer's own folder or to one above it, the import graph
has no cycle, the data path runs one way, persistence knows no model by name, and its core table lists every
C++ header and source."""

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
    assert "discrank.data.pairs" in graph["discrank.data.logs"]  # from discrank.data.pairs import ...
    assert "discrank.models.plot" in graph["discrank.cli.plot"]  # from discrank.models import plot (in a function)
    assert "discrank.models._base" in graph["discrank.models.elo"]
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def test_no_import_cycle_between_modules():
    assert _cycle(import_graph()) is None


@pytest.mark.parametrize("low, high", [
    ("discrank.data.pairs", "discrank.data.logs"),        # a log aggregates to pairs, never the reverse
    ("discrank.data._rows", "discrank.data.pairs"),
    ("discrank.data._rows", "discrank.data.logs"),
    ("discrank.solvers._optim", "discrank.solvers._newton"),
])
def test_the_data_path_runs_one_way(low, high):
    graph = import_graph()

    def reaches(a, b, seen=()):
        return b in graph.get(a, ()) or any(reaches(d, b, seen + (a,)) for d in graph.get(a, ()) if d not in seen)

    assert not reaches(low, high), f"{low} imports {high} (directly or through another module)"


def test_checks_sit_below_everything():
    assert import_graph()["discrank._util.checks"] <= {"discrank._util.exceptions"}


def test_persistence_knows_no_model_by_name():
    graph = import_graph()
    assert not {m for d in ("discrank.persist", "discrank.persist.model_file") for m in graph[d]
                if m.startswith("discrank.models")}
    source = (PACKAGE / "persist" / "model_file.py").read_text()
    for name in ("DiscDecomposition", "DiscDecompositionCV", "EloPlusPlus", "MElo", "SchurDecomposition"):
        assert name not in source, f"persist/model_file.py names {name}"


# ------------------------------------------------------------------ docs/ARCHITECTURE.md against the tree
def _section(title: str) -> str:
    start = ARCHITECTURE.index(title)
    nxt = re.search(r"^#{2,3} ", ARCHITECTURE[start + len(title):], re.M)
    return ARCHITECTURE[start:start + len(title) + (nxt.start() if nxt else len(ARCHITECTURE))]


def core_table() -> list[str]:
    """The file patterns of the core table's first column (``src/bind_*.cpp`` among them)."""
    rows = re.findall(r"^\| (.+?) \| .+ \|$", _section("## The core (cpp/)"), re.M)
    return [name for row in rows for name in re.findall(r"`([^`]+)`", row)]


def folder_table() -> list[str]:
    """The first column of the folder table, in its order: ``core/`` ... ``cli/``, then ``__init__.py``."""
    return re.findall(r"^\| `([\w_]+/|__init__\.py)` \|", _section("## The folders (python/discrank), bottom to top"), re.M)


def folder_of(module: str) -> str:
    """The folder row a module belongs to: ``discrank.data._rows`` -> ``data/``; ``discrank`` -> ``__init__.py``."""
    parts = module.split(".")
    return f"{parts[1]}/" if len(parts) > 1 else "__init__.py"


def test_the_tables_are_read():
    # the parsers themselves: rows of each table are found
    assert "losses.hpp" in core_table() and "src/bind_*.cpp" in core_table()
    assert folder_table()[0] == "core/" and folder_table()[-1] == "__init__.py"
    assert folder_of("discrank.models.dynamic._part") == "models/" and folder_of("discrank") == "__init__.py"


def test_core_table_lists_every_header_and_source():
    cpp = ROOT / "cpp"
    headers = {p.name for p in (cpp / "include" / "discrank").glob("*.hpp")}
    listed = core_table()
    assert headers, "no header found under cpp/include/discrank"
    assert headers == {name for name in listed if name.endswith(".hpp") and "/" not in name}
    sources = sorted(p.relative_to(cpp).as_posix() for p in (cpp / "src").iterdir())
    assert [s for s in sources if not any(fnmatch.fnmatch(s, pattern) for pattern in listed)] == []


def test_the_folder_table_lists_every_folder_once():
    folders = folder_table()
    assert len(folders) == len(set(folders))
    on_disk = {f"{p.name}/" for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert set(folders) == on_disk | {"__init__.py"}
    assert {folder_of(m) for m in import_graph()} == set(folders)


def test_the_package_top_level_holds_at_most_twelve_entries():
    entries = sorted(p.name for p in PACKAGE.iterdir() if p.name != "__pycache__" and not p.name.endswith(".so"))
    assert len(entries) <= 12, entries


def test_every_import_runs_to_its_own_folder_or_one_above():
    order = {folder: k for k, folder in enumerate(folder_table())}
    graph = import_graph()
    upward = sorted(f"{m} -> {d}" for m, deps in graph.items() for d in deps
                    if order[folder_of(d)] > order[folder_of(m)])
    assert upward == [], "imports of a module in a folder below the importer's table row"


def test_each_command_is_a_module_of_cli_in_one_pattern():
    import discrank.cli as cli

    public = sorted(p.stem for p in (PACKAGE / "cli").glob("*.py") if not p.stem.startswith("_"))
    assert sorted(m.__name__.rpartition(".")[2] for m in cli.COMMANDS) == public
    for module in cli.COMMANDS:
        assert callable(module.add) and callable(module.run), module.__name__
        assert {"add", "run"} <= set(module.__all__), module.__name__
