"""The sizes of the package: no module over 600 lines and no function over 80 lines, its docstring aside, with
no exception; no module docstring over 25 lines, and none that quotes a benchmark figure (those are in
bench/ and docs/, where they are rerun)."""

from __future__ import annotations

import ast
import importlib
import pathlib
import re

PACKAGE = pathlib.Path(importlib.import_module("discrank").__file__).resolve().parent

MAX_MODULE_LINES = 600
MAX_FUNCTION_LINES = 80

MAX_MODULE_DOCSTRING_LINES = 25
#: What a benchmark figure looks like in prose: a bench script or page named, a time, a speed-up.
FIGURE = re.compile(r"bench/|bench_\w+\.py|\b\d+(\.\d+)?\s?(s|ms|seconds|minutes)\b|\b\d+(\.\d+)?x (faster|slower)|"
                    r"speed-?up")


def function_lines(source: str) -> list[tuple[str, int, int]]:
    """``(qualified name, first line, length)`` of every function and method in ``source``, the length
    counted from the ``def`` line (decorators aside) to the last line of the body, less the lines of the
    docstring."""
    found = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                n = child.end_lineno - child.lineno + 1
                first = child.body[0]
                if (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
                        and isinstance(first.value.value, str)):
                    n -= first.end_lineno - first.lineno + 1
                found.append((prefix + child.name, child.lineno, n))
                visit(child, f"{prefix}{child.name}.")
            elif isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.")
            else:
                visit(child, prefix)

    visit(ast.parse(source), "")
    return found


def _modules() -> dict[str, str]:
    return {f.relative_to(PACKAGE).as_posix(): f.read_text() for f in sorted(PACKAGE.rglob("*.py"))}


def test_the_function_measure_leaves_out_the_docstring_and_sees_methods_and_inner_functions():
    source = "\n".join([
        "def f(x):",            # 1
        '    """Two',
        '    lines."""',
        "    y = x",
        "    return y",         # f: 5 lines less 2 of docstring = 3
        "class C:",
        "    @property",
        "    def g(self):",     # 8
        "        def h():",     # 9
        "            return 1",  # h: 2 lines
        "        return h()",   # g: 4 lines
    ])
    assert function_lines(source) == [("f", 1, 3), ("C.g", 8, 4), ("C.g.h", 9, 2)]


def test_the_figure_pattern_sees_figures_and_not_units():
    for figure in ("bench/PREDICTION.md", "bench_tuning.py measured it", "in 2.5 s", "3x faster", "a speed-up of 4"):
        assert FIGURE.search(figure), figure
    for prose in ("Eq. (4) of the paper", "1e-9 times the start's", "4 per processor", "2 ulp", "the 10% latest games"):
        assert not FIGURE.search(prose), prose


def test_module_docstrings_fit_on_a_screen_and_quote_no_figure():
    found = []
    for path, source in _modules().items():
        doc = ast.get_docstring(ast.parse(source), clean=False) or ""
        if doc.count("\n") + 1 > MAX_MODULE_DOCSTRING_LINES:
            found.append(f"{path}: {doc.count(chr(10)) + 1} lines")
        if FIGURE.search(doc):
            found.append(f"{path}: quotes {FIGURE.search(doc).group(0)!r}")
    assert not found, "module docstrings:\n" + "\n".join(found)


def test_no_module_is_over_600_lines():
    long = [f"{path}: {source.count(chr(10))} lines" for path, source in _modules().items()
            if source.count("\n") > MAX_MODULE_LINES]
    assert not long, f"modules over {MAX_MODULE_LINES} lines:\n" + "\n".join(long)


def test_no_function_is_over_80_lines_docstring_aside():
    long = [f"{path}:{line} {name}: {n} lines" for path, source in _modules().items()
            for name, line, n in function_lines(source) if n > MAX_FUNCTION_LINES]
    assert not long, f"functions over {MAX_FUNCTION_LINES} lines (docstring aside):\n" + "\n".join(long)
