"""The draw models of three outcomes: their names and their probabilities.

A game's logit ``d`` (the rating difference, plus ``beta . x``) and the draw parameter ``eta`` give
``[P(a wins), P(draw), P(b wins)]``:

- ``"davidson"``: Davidson (1970), ``P(a wins) : P(draw) : P(b wins) = e^{d/2} : e^eta : e^{-d/2}``;
- ``"rao-kupper"``: Rao and Kupper's (1967) ordered logit with thresholds ``+-eta`` (``eta > 0``),
  ``P(a wins) = sigmoid(d - eta)``, ``P(b wins) = sigmoid(-d - eta)``, the draw the rest.

Their losses, convex in ``(d, eta)``, and their derivatives are written once, in the core
(``cpp/include/discrank/losses.hpp``'s ``draw_block``), for the whole-history solver (:class:`discrank.DynamicElo`,
``Elo(draws=...)``), its local updates (``_core.draw_terms``) and the pair kernel (``DiscDecomposition(draws=...)``).
"""

from __future__ import annotations

from typing import Any, Optional

import math

import numpy as np
from scipy.special import expit

from discrank.core import _core
__all__ = ["DRAWS", "DRAW_IDS", "check_draw_data", "check_draw_model", "draw_start", "outcome_probabilities"]

#: The draw models, by name.
DRAWS = ("davidson", "rao-kupper")
#: The draw models' ids in the compiled core (``_core.PairObjective.evaluate_draws``).
DRAW_IDS = {"davidson": _core.DRAW_DAVIDSON, "rao-kupper": _core.DRAW_RAO_KUPPER}


def draw_start(draws: str, rate: float) -> float:
    """The draw parameter that gives games of logit 0 the draw rate ``rate`` (a fit's start).

    Davidson: ``P(draw) = e^eta / (2 + e^eta)``, so ``eta = log(2 r / (1 - r))``; Rao and Kupper:
    ``P(draw) = 2 sigmoid(kappa) - 1``, so ``kappa = log((1 + r) / (1 - r))``. ``rate`` is clipped to
    ``[1e-6, 1 - 1e-6]``.

    Parameters
    ----------
    draws : {"davidson", "rao-kupper"}
        The draw model.
    rate : float
        The share of draws among the games.

    Returns
    -------
    float
    """
    r = min(max(float(rate), 1e-6), 1.0 - 1e-6)
    if draws == "rao-kupper":
        return math.log((1.0 + r) / (1.0 - r))
    return math.log(2.0 * r / (1.0 - r))


def outcome_probabilities(d: np.ndarray, eta: Optional[float], draws: Optional[str] = None) -> np.ndarray:
    """[P(a wins), P(draw), P(b wins)] of games of logit ``d``.

    Parameters
    ----------
    d : ndarray, shape (n,)
        The logits.
    eta : float or None
        The draw parameter of the model ``draws`` (Davidson's ``log nu``, Rao and Kupper's threshold);
        None: two outcomes, ``[sigmoid(d), 0, 1 - sigmoid(d)]``.
    draws : {"davidson", "rao-kupper"} or None
        The draw model (None with ``eta`` given: Davidson's).

    Returns
    -------
    ndarray, shape (n, 3)
        Rows of non-negative numbers adding up to 1 (to rounding), written without cancellation.
    """
    d = np.asarray(d, dtype=np.float64)
    out = np.zeros((d.size, 3))
    if eta is None:
        out[:, 0] = expit(d)
        out[:, 2] = 1.0 - out[:, 0]
        return out
    if draws == "rao-kupper":
        out[:, 0], out[:, 2] = expit(d - eta), expit(-d - eta)
        ad = np.abs(d)
        out[:, 1] = expit(eta - ad) - expit(-eta - ad)
        return out
    half = 0.5 * d
    m = np.maximum(np.abs(half), eta)
    ea, eb, ed = np.exp(half - m), np.exp(-half - m), np.exp(eta - m)
    z = ea + eb + ed
    out[:, 0], out[:, 1], out[:, 2] = ea / z, ed / z, eb / z
    return out


def check_draw_model(model: Any, why_not: str = "") -> Optional[str]:
    """A model's ``draws`` parameter checked against the draw models its class declares (``draw_models``).

    Parameters
    ----------
    model : object
        An estimator with a ``draws`` parameter and a ``draw_models`` class attribute.
    why_not : str, optional
        For a class that declares none: why it fits no draw model (the refusal says it).

    Returns
    -------
    str or None
        ``model.draws``: None (two outcomes, a draw counting as half a win) or one of ``draw_models``.

    Raises
    ------
    ValueError
        ``draws`` set on a class that fits no draw model (the message names the class and says why), or
        a value that is not one of its draw models.
    """
    draws = model.draws
    name = type(model).__name__
    if draws is None:
        return None
    if not model.draw_models:
        raise ValueError(f"{name} takes no draw model, so draws={draws!r} is refused: {why_not}. The draw models "
                         f"{DRAWS} are fitted by Elo, DiscDecomposition and DynamicElo; with draws=None a draw "
                         "counts as half a win")
    if not isinstance(draws, str) or draws not in model.draw_models:
        raise ValueError(f"draws={draws!r} is not one of {model.draw_models} or None ({name}'s draw models)")
    return draws


def check_draw_data(model: Any, data: Any) -> None:
    """Whether ``data`` lets ``model``'s draw model be fitted: draw counts, with draws and other results.

    Parameters
    ----------
    model : object
        An estimator with a draw model (``model.draws`` set).
    data : PairwiseData
        The pairs of the fit (their covariate rows' draw counts when they have covariates).

    Raises
    ------
    ValueError
        The data has no draw counts, no draw, or only draws (the message names the model and says why).
    """
    name = f"{type(model).__name__}(draws={model.draws!r})"
    draws = data.draws if data.covariates is None else data.covariates.draws
    if draws is None:
        raise ValueError(f"{name} fits wins, draws and losses, and this data has no draw counts (PairwiseData.draws "
                         "is None: pairs from from_pairs or from_matrix, or games with a score other than 1, 0.5 "
                         "or 0); fit a GameLog of results, or use draws=None")
    total, games = float(draws.sum()), float(data.n_games.sum())
    if total == 0.0:
        raise ValueError(f"{name}: the data has no draw, so the draw parameter cannot be fitted; use draws=None")
    if total == games:
        raise ValueError(f"{name}: every game of the data is a draw, so the draw parameter has no finite maximum "
                         "and the results say nothing of the players; use draws=None")
