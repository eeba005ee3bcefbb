"""The layout of the package: each shared helper lives in the module named for it, and no module reaches
into another module's private names except those of the shared private modules."""

from __future__ import annotations

import ast
import importlib
import pathlib

import pytest

PACKAGE = pathlib.Path(importlib.import_module("discrank").__file__).resolve().parent

#: The private modules meant to be shared: any module of the package may import their private names.
SHARED = frozenset({
    "discrank.core._core",
    "discrank._util.checks",
    "discrank._util.labels",
    "discrank._util.threads",
    "discrank._util.calendar",
    "discrank.data._coding",
    "discrank._util.losses",
    "discrank._util.params",
})


def _module_name(path: pathlib.Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def private_imports(source: str, name: str, is_package: bool, modules: set[str]) -> list[str]:
    """``"module: what (line n)"`` for each private name of another discrank module that ``source`` (the
    module ``name``) imports, or reads as an attribute of a discrank module it imported, unless that
    module is one of :data:`SHARED`. A private submodule imported by name (``from discrank import _x``)
    counts as a private name of ``discrank._x``'s package unless ``discrank._x`` is shared."""
    package = name if is_package else name.rpartition(".")[0]
    found = []
    aliases: dict[str, str] = {}  # local name -> the discrank module it is bound to
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name in modules:
                    aliases[a.asname or a.name] = a.name
                    parts = a.name.split(".")
                    if any(_private(p) for p in parts) and a.name not in SHARED:
                        found.append(f"{name}: import {a.name} (line {node.lineno})")
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            if not (base == "discrank" or base.startswith("discrank.")):
                continue
            for a in node.names:
                target = f"{base}.{a.name}"
                if target in modules:  # a submodule
                    aliases[a.asname or a.name] = target
                    if _private(a.name) and target not in SHARED:
                        found.append(f"{name}: from {base} import {a.name} (line {node.lineno})")
                elif _private(a.name) and base != name and base not in SHARED:
                    found.append(f"{name}: from {base} import {a.name} (line {node.lineno})")
    for node in ast.walk(ast.parse(source)):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases
                and _private(node.attr)):
            owner = aliases[node.value.id]
            if owner != name and owner not in SHARED and f"{owner}.{node.attr}" not in modules:
                found.append(f"{name}: {node.value.id}.{node.attr} (line {node.lineno})")
    return found


def _scan() -> list[str]:
    files = {_module_name(f): f for f in PACKAGE.rglob("*.py")}
    modules = set(files) | {_module_name(f) for f in PACKAGE.rglob("*.pyi")}  # the compiled core, by its stub
    found = []
    for name, path in sorted(files.items()):
        found += private_imports(path.read_text(), name, path.name == "__init__.py", modules)
    return found


def test_the_scan_finds_each_way_of_reaching_a_private_name():
    modules = {"discrank", "discrank.data.logs", "discrank.solvers._history", "discrank.core._core", "discrank.models",
               "discrank.solvers", "discrank.core",
               "discrank.models._base", "discrank.models.elo"}
    source = "\n".join([
        "from discrank.data.logs import _pgn_rows",           # a private function of a public module
        "from discrank.solvers._history import _Problem",        # a private name of a private, unshared module
        "from discrank.solvers import _history",         # an unshared private module, by name
        "import discrank.data.logs as L",
        "L._helper()",                                   # a private attribute of an imported module
        "from ._base import _private_thing",             # relative, from inside discrank.models
    ])
    found = private_imports(source, "discrank.models.elo", False, modules)
    assert [f.split(" (line")[0] for f in found] == [
        "discrank.models.elo: from discrank.data.logs import _pgn_rows",
        "discrank.models.elo: from discrank.solvers._history import _Problem",
        "discrank.models.elo: from discrank.solvers import _history",
        "discrank.models.elo: from discrank.models._base import _private_thing",
        "discrank.models.elo: L._helper",
    ]
    allowed = "\n".join([
        "from discrank.core import _core",               # a shared private module
        "from discrank._util.checks import _private_check",   # a private name of a shared module
        "from discrank.solvers._history import History",         # a public name of a private module
        "from discrank.core._core import __version__",        # a dunder is no private name
        "import numpy as np\nnp._NoValue",                 # not discrank
    ])
    assert private_imports(allowed, "discrank.models.elo", False, modules) == []


def test_no_module_imports_a_private_name_of_an_unshared_module():
    found = _scan()
    assert not found, "private names reached across modules:\n" + "\n".join(found)


def test_every_shared_private_module_exists():
    names = {_module_name(f) for f in [*PACKAGE.rglob("*.py"), *PACKAGE.rglob("*.pyi")]}
    assert SHARED <= names, sorted(SHARED - names)


@pytest.mark.parametrize("module, names", [
    ("discrank._util.threads", ["resolve_n_jobs", "thread_limit", "one_blas_thread"]),
    ("discrank._util.calendar", ["period_index", "period_start", "check_span", "refit_bins"]),
    ("discrank.data._coding", ["code_log", "log_pairs", "pairs_from_codes", "map_rows"]),
    ("discrank._util.losses", ["binary_log_loss", "game_losses", "outcome_losses"]),
    ("discrank.data.pgn", ["pgn_headers", "pgn_game", "pgn_columns", "pgn_rows", "iter_pgn", "check_truncated"]),
    ("discrank.data.formats", ["open_text", "decompression_errors", "format_of", "strip_compression"]),
])
def test_each_helper_lives_in_the_module_named_for_it(module, names):
    mod = importlib.import_module(module)
    for name in names:
        assert getattr(mod, name).__module__ == module, f"{name} is defined in {getattr(mod, name).__module__}"


@pytest.mark.parametrize("module, name, home", [
    ("discrank.evaluation._evaluate", "game_losses", "discrank._util.losses"),
    ("discrank.evaluation._evaluate", "outcome_losses", "discrank._util.losses"),
    ("discrank.data.logs", "read_pgn", "discrank.data.logs"),
    ("discrank.data.logs", "iter_pgn", "discrank.data.pgn"),
    ("discrank", "read_pgn", "discrank.data.logs"),
    # the modules split by step (issue 32): each name where it was, defined in its new home
    ("discrank", "Evaluation", "discrank.evaluation._result"),
    ("discrank.evaluation._evaluate", "Evaluation", "discrank.evaluation._result"),
    ("discrank.data.pairs", "CovariateRows", "discrank.data._covariate_rows"),
    ("discrank.data._rows", "time_bound", "discrank.data._screen"),
    ("discrank.data._rows", "screen_rows", "discrank.data._screen"),
    ("discrank.data._rows", "active_games", "discrank.data._screen"),
    ("discrank.data._rows", "check_invalid", "discrank.data._screen"),
    ("discrank.data._rows", "warn_user", "discrank.data._screen"),
    ("discrank.data._rows", "advantage_columns", "discrank.data._advantage"),
    ("discrank.data._rows", "as_advantage", "discrank.data._advantage"),
    ("discrank.solvers._history", "History", "discrank.solvers._history_build"),
    ("discrank.solvers._history", "build_history", "discrank.solvers._history_build"),
    ("discrank.solvers._history", "chains", "discrank.solvers._history_build"),
    ("discrank.solvers._history", "carry", "discrank.solvers._history_build"),
])
def test_the_public_names_stay_importable_where_they_were(module, name, home):
    assert getattr(importlib.import_module(module), name).__module__ == home


@pytest.mark.parametrize("module, name, home", [
    ("discrank.evaluation._evaluate", "CALENDAR", "discrank._util.calendar.PERIODS"),
    ("discrank.evaluation._evaluate", "OUTCOME_TOL", "discrank.evaluation._walk.OUTCOME_TOL"),
    ("discrank.evaluation._evaluate", "EPS", "discrank._util.losses.EPS"),
    ("discrank.data.pairs", "CONSISTENCY_TOL", "discrank.data._pair_constructors.CONSISTENCY_TOL"),
    ("discrank.scan", "FORMATS", "discrank.data._scan_files.FORMATS"),
    ("discrank.scan", "MAX_COVARIATE_ROWS", "discrank.data._scan_tables.MAX_COVARIATE_ROWS"),
    ("discrank.data._rows", "INVALID_KINDS", "discrank.data._screen.INVALID_KINDS"),
    ("discrank.data.logs", "INVALID_KINDS", "discrank.data._screen.INVALID_KINDS"),
    ("discrank.data.logs", "PGN_RESULTS", "discrank.data._rows.PGN_RESULTS"),
])
def test_the_constants_stay_importable_where_they_were(module, name, home):
    owner, _, attr = home.rpartition(".")
    assert getattr(importlib.import_module(module), name) is getattr(importlib.import_module(owner), attr)


def test_the_calendar_is_one_definition():
    # the solver module holds no calendar, and evaluate's refit periods are the calendar's periods
    import discrank._util.calendar as calendar
    import discrank.solvers._history as history
    import discrank.evaluation._evaluate as evaluation

    assert not hasattr(history, "period_index") and not hasattr(history, "PERIODS")
    assert evaluation.CALENDAR is calendar.PERIODS
