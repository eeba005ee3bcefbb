"""The context column of a game log (a surface, a time control, a map), what is its own: the constructor
that takes it as its eighth field, and "missing context" among the invalid kinds. What it shares with the
match format (from_arrays and the constructor with their checks, the filters, splits and shuffle_sides that
carry it, to_pairs, the readers with its invalid rows "missing context") is in tests/test_log_labels.py."""

import numpy as np

from _logs import A, B, S, SURFACE
from discrank import GameLog
from discrank.data._screen import BAD_COVARIATE, MISSING_CONTEXT, MISSING_COVARIATE
from discrank.data.logs import INVALID_KINDS


def test_the_constructor_takes_the_context_as_its_eighth_field():
    log = GameLog(np.array(A), np.array(B), np.array(S), None, {}, None, (), ["Clay", "Hard", "Grass", "Clay",
                                                                           "Hard", "Clay"])
    assert log.context.dtype == object and log.context.tolist() == SURFACE


def test_missing_context_is_the_tenth_invalid_kind_and_the_others_keep_their_codes():
    assert INVALID_KINDS[9] == "missing context"  # (the margins' kinds follow it: tests/test_log_margin.py)
    assert INVALID_KINDS[MISSING_CONTEXT - 1] == "missing context"
    assert (MISSING_COVARIATE, BAD_COVARIATE, MISSING_CONTEXT) == (8, 9, 10)
    assert INVALID_KINDS[MISSING_COVARIATE - 1] == "missing covariate"
