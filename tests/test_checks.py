"""The shared argument checks (discrank._util.checks) and the layering of the data path."""

import ast
import os

import numpy as np
import pytest

from discrank._util import checks as _checks
from discrank._util.checks import (as_float_vector, check_choice, check_counts, check_n_components,
                              check_no_self_play, check_one_of, check_player_indices, check_positive_float,
                              check_positive_int, check_probabilities, check_random_state, check_same_length, show)

PACKAGE = os.path.join(os.path.dirname(__file__), os.pardir, "python", "discrank")


@pytest.mark.parametrize("value", [0, -1, 2.5, True, "3", None, np.float64(2.0)])
def test_positive_int_refuses_and_names_the_value(value):
    with pytest.raises(ValueError, match=rf"k must be an integer >= 1, got {re_escape(repr(value))}"):
        check_positive_int(value, "k")


def re_escape(text):
    import re

    return re.escape(text)


def test_positive_int_accepts_numpy_integers_and_none_when_allowed():
    assert check_positive_int(np.int32(3), "k") == 3 and type(check_positive_int(np.int64(3), "k")) is int
    assert check_positive_int(None, "k", allow_none=True) is None
    with pytest.raises(ValueError, match=r"k must be None or an integer >= 1, got 0"):
        check_positive_int(0, "k", allow_none=True)


@pytest.mark.parametrize("value", [0, -1.0, np.inf, np.nan, True, "1"])
def test_positive_float_refuses(value):
    with pytest.raises(ValueError, match="step must be a positive finite number"):
        check_positive_float(value, "step")


def test_random_state():
    assert check_random_state(3) == 3 and check_random_state(None) is None
    with pytest.raises(ValueError, match="negative"):
        check_random_state(-1)
    with pytest.raises(TypeError, match="seed must be"):
        check_random_state(True, "seed")


def test_check_data_takes_pairwise_data_only():
    from discrank import PairwiseData
    from discrank.data.pairs import check_data

    check_data(PairwiseData.from_games([0, 1], [1, 2], [1.0, 0.0]))
    with pytest.raises(TypeError, match="fit expects a discrank.PairwiseData, GameLog or PeriodGames, got list"):
        check_data([1, 2])


def test_n_components_theorem_2():
    assert check_n_components(2, 4) == 2
    with pytest.raises(ValueError, match=r"n_components=3 needs at least 6 players"):
        check_n_components(3, 5)


def test_same_length_names_two_inputs_or_lists_more():
    assert check_same_length({"a": 2, "b": 2}) == 2 and check_same_length({}) == 0
    with pytest.raises(ValueError, match="found inputs of inconsistent lengths: a has 2, b has 1"):
        check_same_length({"a": 2, "b": 1})
    with pytest.raises(ValueError, match=r"found columns of inconsistent lengths: \{'a': 3, 'b': 2, 'score': 2\}"):
        check_same_length({"a": 3, "b": 2, "score": 2}, "columns")


def test_self_play_names_the_entry_and_the_player():
    check_no_self_play(np.array([0, 1]), np.array([1, 0]))
    with pytest.raises(ValueError, match="pair 1 is player 'bob' against themself"):
        check_no_self_play(np.array([0, 2]), np.array([1, 2]), np.array(["al", "bob"], dtype=object), "pair")


def test_player_indices_and_vectors():
    check_player_indices(np.array([0, 2]), "i", 3)
    with pytest.raises(ValueError, match=r"j\[1\] = 3 is not a player index in \[0, 3\)"):
        check_player_indices(np.array([0, 3]), "j", 3)
    with pytest.raises(ValueError, match=r"i\[0\] = -1 is not a player index in \[0, 2\^31 - 1\)"):
        check_player_indices(np.array([-1]), "i", 2**31 - 1, bound="2^31 - 1")
    assert as_float_vector([1, 0], "p").dtype == np.float64
    with pytest.raises(TypeError, match="p must be numeric"):
        as_float_vector(["x"], "p")
    with pytest.raises(ValueError, match="p contains nan at position 1"):
        as_float_vector([0.5, np.nan], "p")
    with pytest.raises(ValueError, match=r"p must lie in \[0, 1\]; got 1.5 at position 0"):
        check_probabilities(np.array([1.5]), "p")
    with pytest.raises(ValueError, match="n_games must be positive; got 0.0 at position 1"):
        check_counts(np.array([1.0, 0.0]), "n_games")


def test_choices():
    assert check_one_of("games", "weights", ("uniform", "games")) == "games"
    with pytest.raises(ValueError, match=r"weights must be one of \('uniform', 'games'\), got \['games'\]"):
        check_one_of(["games"], "weights", ("uniform", "games"))
    with pytest.raises(ValueError, match=r"invalid=None is not one of \('raise', 'drop'\): what"):
        check_choice(None, "invalid", ("raise", "drop"), "what")


def test_show_cuts_long_values():
    assert show(np.int64(3)) == "3"
    assert show("x" * 1000).endswith("(1000 characters)") and len(show("x" * 1000)) < 100


def _imports(module: str) -> set:
    """The discrank submodules a module of the package imports (``from discrank import X`` resolved to
    ``discrank.X`` when that is a module), at any depth of its code."""
    path = os.path.join(PACKAGE, *module.split(".")[1:]) + ".py"
    out = set()
    with open(path, encoding="utf-8") as fh:
        tree = ast.parse(fh.read())
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("discrank"):
            for alias in node.names:
                sub = f"{node.module}.{alias.name}"
                base = os.path.join(PACKAGE, *(node.module.split(".")[1:] + [alias.name]))
                is_module = alias.name == "_core" or os.path.exists(base + ".py") or os.path.isdir(base)
                out.add(sub if is_module else node.module)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.startswith("discrank"))
    return out


def test_the_data_path_is_a_straight_line():
    """read (logs, _rows) -> GameLog -> PairwiseData: data.py imports neither logs.py nor anything that
    imports data.py (its constructors and covariate rows sit below it); _checks imports nothing of discrank
    but its exceptions."""
    assert _imports("discrank._util.checks") <= {"discrank._util.exceptions"}
    for low in ("discrank._util.labels", "discrank.data._rows", "discrank.data._screen", "discrank.data._advantage",
                "discrank.data._pair_constructors", "discrank.data._covariate_rows"):
        assert not _imports(low) & {"discrank.data.pairs", "discrank.data.logs"}, low
    assert "discrank.data.logs" not in _imports("discrank.data.pairs")
    assert _imports("discrank.data.pairs") <= {"discrank.core._core", "discrank._util.checks", "discrank._util.labels", "discrank.data._rows",
                                         "discrank.data._pair_constructors", "discrank.data._covariate_rows",
                                         "discrank._util.exceptions"}
    assert _imports("discrank.data._pair_constructors") <= {"discrank.core._core", "discrank._util.checks", "discrank._util.labels",
                                                       "discrank.data._rows", "discrank.data._screen"}


def test_checks_module_lists_its_functions():
    for name in _checks.__all__:
        assert hasattr(_checks, name), name
