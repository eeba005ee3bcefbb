"""Every public function and method of discrank has a numpy-style docstring whose ``Parameters``
section names every parameter of its signature.

The public API: the names in ``__all__`` of the modules below (their public names where a module has no
``__all__``), restricted to objects defined in discrank (``obj.__module__``); for a public class, the
public methods, classmethods and staticmethods defined in its own body or in a discrank class it inherits
from (such as the shared ``get_params`` / ``set_params``), each function once under the first public name
found (``__init__`` excluded: the class docstring documents it).
"""

import importlib
import inspect
import re

import pytest

MODULES = [
    "discrank",
    "discrank.analysis",
    "discrank.evaluation._evaluate",
    "discrank.online",
    "discrank.persist.model_file",
    "discrank.models.plot",
    "discrank.evaluation._bootstrap",
    "discrank.data.games",
    "discrank.data.pairs",
    "discrank.data.logs",
    "discrank.models",
    "discrank.exceptions",
]

_RULE = re.compile(r"^-{3,}$")


def _is_ours(obj):
    return (getattr(obj, "__module__", None) or "").startswith("discrank")


def public_callables():
    """``(qualified name, function)`` for every public function and method, each function once."""
    found, seen = [], set()
    for module_name in MODULES:
        module = importlib.import_module(module_name)
        names = getattr(module, "__all__", None)
        if names is None:
            names = [n for n in dir(module) if not n.startswith("_")]
        for name in names:
            obj = getattr(module, name, None)
            if not _is_ours(obj):
                continue
            if inspect.isfunction(obj):
                items = [(f"{module_name}.{name}", obj)]
            elif inspect.isclass(obj):
                items = []
                members = {}
                for cls in reversed([c for c in obj.__mro__ if _is_ours(c)]):
                    members.update(vars(cls))  # a subclass's own definition wins
                for attr, member in members.items():
                    if attr.startswith("_"):
                        continue
                    if isinstance(member, (classmethod, staticmethod)):
                        member = member.__func__
                    if inspect.isfunction(member):
                        items.append((f"{module_name}.{name}.{attr}", member))
            else:
                continue
            for qualname, func in items:
                key = id(inspect.unwrap(func))
                if key not in seen:
                    seen.add(key)
                    found.append((qualname, func))
    return found


def documented_parameters(doc):
    """The names listed in the ``Parameters`` section of a cleaned docstring; None without one.

    An entry is a line at the section's indentation: ``name : type``, ``a, b : type`` or ``name``
    (``*args`` and ``**kwargs`` with their stars or without). The section ends at the next section
    header (a line followed by a rule of dashes) or at the end of the docstring.
    """
    lines = doc.expandtabs().splitlines()
    start = None
    for k in range(len(lines) - 1):
        if lines[k].strip() == "Parameters" and _RULE.match(lines[k + 1].strip()):
            start = k
            break
    if start is None:
        return None
    indent = len(lines[start]) - len(lines[start].lstrip())
    names = set()
    for k in range(start + 2, len(lines)):
        line = lines[k]
        if not line.strip():
            continue
        if k + 1 < len(lines) and _RULE.match(lines[k + 1].strip()):
            break  # the next section
        if len(line) - len(line.lstrip()) != indent:
            continue  # a description line
        head = line.strip().split(" :", 1)[0].rstrip(":")
        for part in head.split(","):
            part = part.strip().lstrip("*")
            if part:
                names.add(part)
    return names


def undocumented(func):
    """What is wrong with ``func``'s docstring: a list of problems, empty when it is complete."""
    doc = inspect.getdoc(func)
    if not doc or not doc.strip():
        return ["no docstring"]
    params = [p for p in inspect.signature(func).parameters if p not in ("self", "cls")]
    if not params:
        return []
    listed = documented_parameters(doc)
    if listed is None:
        return [f"no 'Parameters\\n----------' section (parameters: {', '.join(params)})"]
    missing = [p for p in params if p not in listed]
    return [f"parameters not documented: {', '.join(missing)}"] if missing else []


CALLABLES = public_callables()


def test_the_walk_finds_the_api():
    names = {q for q, _ in CALLABLES}
    assert len(CALLABLES) > 50
    for expected in ("discrank.PairwiseData.from_matrix", "discrank.online.OnlineElo.update",
                     "discrank.evaluation._bootstrap.BootstrapResult.intervals", "discrank.data.games.sample_games"):
        assert expected in names
    funcs = {id(f) for _, f in CALLABLES}
    from discrank.models._base import Params

    assert id(Params.get_params) in funcs and id(Params.set_params) in funcs  # inherited methods are walked too
    assert not any(q.endswith(".dataclass") for q in names)  # imported, not defined in discrank


@pytest.mark.parametrize("func", [f for _, f in CALLABLES], ids=[q for q, _ in CALLABLES])
def test_public_callable_has_numpy_docstring(func):
    problems = undocumented(func)
    assert not problems, f"{func.__module__}.{func.__qualname__}: {'; '.join(problems)}"


def test_the_checker_catches_an_undocumented_parameter():
    def bad(x, y, *args, z=1, **kwargs):
        """Add things.

        Parameters
        ----------
        x : int
            The first. A line such as ``y : int`` inside a description is not an entry.
            y : int

        Returns
        -------
        int
        """

    def good(x, y, *args, z=1, **kwargs):
        """Add things.

        Parameters
        ----------
        x, y : int
            The terms.
        *args
            More terms.
        z : int, optional
        **kwargs
            Ignored.

        Returns
        -------
        int
        """

    def nothing(x):
        pass

    def no_section(x):
        """Add things."""

    problems = undocumented(bad)
    assert problems and "y" in problems[0] and "z" in problems[0] and "args" in problems[0]
    assert "kwargs" in problems[0] and "x" not in problems[0].split(":")[-1].split(", ")
    assert undocumented(good) == []
    assert undocumented(nothing) == ["no docstring"]
    assert undocumented(no_section) and "Parameters" in undocumented(no_section)[0]
