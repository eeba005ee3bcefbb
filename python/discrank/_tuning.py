"""Choosing the scale of a model's Gaussian prior from the training data alone.

The rule is validation on held-out data, in the way the model will be used:

- a :class:`~discrank.GameLog` with times: the training games are cut in time order. The model is fitted
  on the games before the cut and scored on the later ones (the last ``fraction`` of the games, or the
  window given by :class:`Validation`, optionally after a ``gap``), so that the prior is the one that
  predicts *later* games best. This is what a user of ratings asks of them;
- a :class:`~discrank.PairwiseData` (no time order): a seeded random tenth of the observed pairs is
  held out, the paper's "hidden pairs" protocol;
- too little data to hold anything out (fewer than 20 pairs): ``FALLBACK_SCALE``.

Why not the Laplace-approximated marginal likelihood: it chooses the prior that explains the *past*
games best. On the ATP tennis log (train 1968-2019, test 2022-2024) it picks sigma = 1.5 to 2 logits
and the stationary Elo fit then predicts the test years at 0.75-0.77 nats per game, worse than a coin
(0.693); validation in time order with the test's gap picks sigma = 0.2 and predicts at 0.685
(bench/PREDICTION.md). Ratings drift, and only a rule that looks at later games sees it.

The validation score is the log loss per game, for every model: the probability-space models (m-Elo,
``loss="probability"``) too, whose clipped linear link can predict 0 or 1. Their own loss, the Brier
score, barely penalises such predictions, and on international football it picks a prior under which
m-Elo predicts the test years at 0.654 nats per game instead of 0.607 (bench/PREDICTION.md's split).

The scale is searched over powers of two by a walk from 0.5, upwards while the validation score
improves, else downwards while it improves, each fit warm-started from the closest scale fitted (so a
few solver steps), and refined by the vertex of a parabola through the best point and its two
neighbours in log2 sigma. The disc family's score can have a second basin at large scales (an Elo-like
fit at small scales, the cyclic structure of a disc game at large ones), which a walk that stops at the
first one never sees: when the walk ends below ``PROBE``, that scale is fitted too, at the looser
``PROBE_TOL`` (its score need only say whether it is a better basin), and where it scores better the walk
starts again from there. A disc fit is warm-started from a smaller scale only where its components are
away from u = 0 (a saddle of the joint objective, where the prior holds a weak cycle; such a component
starts afresh).
"""

from __future__ import annotations

import math
import numbers
import warnings
from dataclasses import dataclass, field
from typing import Any, Optional

import numpy as np

from discrank._coding import code_log, pairs_from_codes
from discrank._coding import log_pairs, map_rows  # noqa: F401 - importable from here, as they were
from discrank._params import check_prior_scale
from discrank.data import PairwiseData
from discrank.exceptions import ConvergenceWarning, DisconnectedGraphWarning, IsolatedPlayerWarning, SeparationWarning

__all__ = ["Validation", "PriorTuning", "tune_prior_scale", "check_prior_scale", "time_cut"]

#: Search range of the prior scale (in the model's units: logits, or probability for the
#: probability-space models), as powers of two.
LOG2_RANGE = (-7.0, 6.0)
#: First scale tried by the walk.
START = 0.5
#: log2 of the scale probed after the disc family's walk when it ended below it: 4, where a disc game's
#: cyclic basin lies (the best point's neighbours then reach 2 and 8).
PROBE = 2.0
#: A component of a disc fit whose scores' scale ``|u| |v| / n`` is below this is no warm start for a
#: larger scale (:func:`_engaged`).
ENGAGED = 1e-3
#: Tolerance of the probe's fit (the disc models' tuning fits use ``TUNING_TOL``, 1e-4).
PROBE_TOL = 1e-2
#: Held-out share of the pairs when the data has no time order.
PAIR_FRACTION = 0.1
#: The scale used when nothing can be held out (fewer than 20 pairs, or fewer than 2 held-out pairs
#: inside a piece): a weakly informative N(0, 1) (174 Elo points), which keeps every fit finite.
FALLBACK_SCALE = 1.0


@dataclass(frozen=True)
class Validation:
    """How the training games are cut to tune a prior in time order.

    Parameters
    ----------
    fraction : float, default 0.1
        Share of the training games, the latest ones, used for validation (when ``window`` is None).
    window : numpy.timedelta64 or number, optional
        Validate on the games in the last ``window`` of time of the training log instead (a number for
        numeric times).
    gap : numpy.timedelta64 or number, optional
        Leave this much time between the games fitted and the validation window, as there is between
        the training log and the games to predict (``discrank.evaluate`` sets it from its split).
    online : bool, default False
        Tune for online prediction of the validation window: each validation game predicted from every
        game before it, the model updated as it goes (``discrank.evaluate`` passes ``online=True``, with
        no gap, under its online protocol). A model without an online mode tunes as with False.
    """

    fraction: float = 0.1
    window: Any = None
    gap: Any = None
    online: bool = False

    def __post_init__(self) -> None:
        f = self.fraction
        if isinstance(f, bool) or not isinstance(f, numbers.Real) or not 0.0 < float(f) < 1.0:
            raise ValueError(f"Validation.fraction must be in (0, 1), got {f!r}")
        if not isinstance(self.online, (bool, np.bool_)):
            raise TypeError(f"Validation.online must be a bool, got {self.online!r}")
        object.__setattr__(self, "online", bool(self.online))


@dataclass
class PriorTuning:
    """What the tuning did: the rule, the scales tried and their validation scores."""

    rule: str
    metric: str
    scales: list = field(default_factory=list)
    scores: list = field(default_factory=list)
    chosen: float = math.nan
    n_fit_games: float = 0.0
    n_validation_games: float = 0.0
    #: The disc family's probe of a second basin (module docstring): its scale and score at ``PROBE_TOL``,
    #: or None when the walk reached ``PROBE`` itself (or for the Elo family).
    probe: Optional[tuple] = None

    def as_dict(self) -> dict:
        return {"rule": self.rule, "metric": self.metric, "scales": list(self.scales), "scores": list(self.scores),
                "chosen": self.chosen, "n_fit_games": self.n_fit_games, "n_validation_games": self.n_validation_games,
                "probe": self.probe}


def _weights(data: PairwiseData) -> np.ndarray:
    return data.n_games if data.n_games is not None else np.ones(data.n_pairs)


def _time_bounds(t: np.ndarray, validation: Validation, weights: Optional[np.ndarray] = None) -> tuple[int, int]:
    """``(n_fit, val_start)`` of sorted times ``t``: the games to fit are ``t[:n_fit]``, those to validate
    on ``t[val_start:]``. The validation games are the latest ``fraction`` of the games, or those after
    ``t[-1] - window``; the games fitted end ``gap`` before the first of them (no game of the validation's
    first time is fitted). ``weights``: the games each entry stands for (the fraction is of their sum)."""
    n = len(t)
    if validation.window is None:
        if weights is None:
            cut = int(math.floor((1.0 - validation.fraction) * n))
        else:
            total = np.cumsum(weights)
            cut = int(np.searchsorted(total, math.floor((1.0 - validation.fraction) * total[-1]), side="right"))
        cut = min(max(cut, 1), n - 1)
        end = t[cut] if validation.gap is None else t[cut] - validation.gap
        return int(np.searchsorted(t, end, side="left")), cut
    start = t[-1] - validation.window
    bound = start if validation.gap is None else start - validation.gap
    return int(np.searchsorted(t, bound, side="right")), int(np.searchsorted(t, start, side="right"))


def time_cut(t: np.ndarray, validation: Validation, weights: Optional[np.ndarray] = None, whole: bool = False):
    """(games to fit, games to validate on) of sorted times ``t``, as masks (:func:`_time_bounds`).
    ``whole``: the validation starts at the first game of its first time (games with no order within a
    time, :class:`discrank.PeriodGames`)."""
    n_fit, val_start = _time_bounds(t, validation, weights)
    if whole:
        val_start = int(np.searchsorted(t, t[val_start], side="left"))
    index = np.arange(len(t))
    return index < n_fit, index >= val_start


def _in_order(t: np.ndarray) -> bool:
    """Whether the times ``t`` are sorted (a log in time order needs no permutation)."""
    return bool(np.all(t[1:] >= t[:-1]))


def _show_span(span: Any) -> str:
    if isinstance(span, np.timedelta64):
        return f"{span / np.timedelta64(1, 'D'):.0f} days"
    return str(span)


def _holdout(model: Any, data: PairwiseData, log: Any, coded: Any, validation: Optional[Validation]):
    """(data to fit, validation pairs, rule) or None when nothing can be held out."""
    if log is not None and getattr(log, "time", None) is not None and len(log) >= 20:
        labels, ca, cb = coded if coded is not None else code_log(log)
        t = np.asarray(log.time)
        score = np.asarray(log.score, dtype=np.float64)
        x = None if data.covariates is None else np.asarray(log.advantage, dtype=np.float64)
        if not _in_order(t):  # a log in time order (the usual case) is cut by views, without copies
            order = np.argsort(t, kind="stable")
            t, ca, cb, score = t[order], ca[order], cb[order], score[order]
            x = None if x is None else x[order]
        names = () if x is None else data.covariates.names
        n_fit, val_start = _time_bounds(t, validation or Validation())
        if n_fit >= 10 and len(t) - val_start >= 10:
            fit, val = slice(0, n_fit), slice(val_start, len(t))
            inner = pairs_from_codes(labels, ca[fit], cb[fit], score[fit], data.weights,
                                     **({} if x is None else {"x": x[fit], "names": names}))
            seen = np.zeros(len(labels), dtype=bool)
            seen[ca[fit]] = True
            seen[cb[fit]] = True
            va, vb = ca[val], cb[val]
            known = seen[va] & seen[vb]
            if known.sum() >= 10:
                players = np.flatnonzero(seen)
                vd = pairs_from_codes(labels, va[known], vb[known], score[val][known], data.weights, players=players,
                                      **({} if x is None else {"x": x[val][known], "names": names}))
                rule = "time order" + ("" if validation is None or validation.gap is None else f", gap {_show_span(validation.gap)}")
                return inner, vd, rule
    # no time order: a random tenth of the pairs
    if data.n_pairs < 20:
        return None
    seed = getattr(model, "random_state", None)
    seed = seed if isinstance(seed, (numbers.Integral, np.random.Generator)) else 0
    rng = np.random.default_rng(seed)
    out = np.zeros(data.n_pairs, dtype=bool)
    out[rng.choice(data.n_pairs, size=max(1, int(round(PAIR_FRACTION * data.n_pairs))), replace=False)] = True

    def part(mask):  # the pairs stay distinct and sorted: no checks to repeat
        rows = np.flatnonzero(mask)
        out = PairwiseData._trusted(data.i.take(rows), data.j.take(rows), data.p.take(rows),
                                    None if data.n_games is None else data.n_games.take(rows), data.labels,
                                    data.weights)
        out.draws = None if data.draws is None else data.draws.take(rows)
        if data.covariates is not None:
            out.covariates = data.covariates.take(mask, np.cumsum(mask) - 1)
        return out

    inner, held = part(~out), part(out)
    _, piece = inner.components()
    size = np.bincount(piece)
    ok = (piece[held.i] == piece[held.j]) & (size[piece[held.i]] > 1)
    if ok.sum() < 2:
        return None
    return inner, held if ok.all() else held.subset(ok), "held-out pairs"


def _engaged(state: tuple) -> tuple:
    """A disc model's warm state ``(labels, U, V)`` with the components the prior held next to the saddle
    u = 0 (their scores' scale ``|u| |v| / n`` below ``ENGAGED``) set to 0, so that the fit at a larger
    scale starts them afresh: from next to the saddle the joint solver stays there, where a fresh start
    finds the cyclic structure that the weaker prior lets in."""
    labels, U, V = state
    n = max(U.shape[0], 1)
    keep = np.linalg.norm(U, axis=0) * np.linalg.norm(V, axis=0) / n >= ENGAGED
    return labels, U * keep, V * keep


def _score(model: Any, val: PairwiseData) -> float:
    """Log loss per held-out game (module docstring): the model's own ``log_loss`` (by covariate row where
    the model fitted covariates)."""
    return model.log_loss(val)


def tune_prior_scale(model: Any, data: PairwiseData, log: Any = None, validation: Optional[Validation] = None,
                     coded: Any = None) -> tuple[float, PriorTuning]:
    """The prior scale that predicts held-out games best (module docstring), and the record of the search.

    ``model`` is cloned for each fit (``type(model)(**params)`` with ``prior_scale`` set); each fit is
    warm-started from the closest scale fitted before. ``coded``: ``code_log(log)`` if already made.
    """
    metric = "log_loss"
    split = _holdout(model, data, log, coded, validation)
    if split is None:
        return FALLBACK_SCALE, PriorTuning(rule=f"fallback: too little data to hold out ({data.n_pairs} pairs)",
                                           metric=metric, chosen=FALLBACK_SCALE)
    inner, val, rule = split
    record = PriorTuning(rule=rule, metric=metric, n_fit_games=float(_weights(inner).sum()),
                         n_validation_games=float(_weights(val).sum()))
    params = model.get_params()
    fits: dict[float, Any] = {}
    disc = getattr(model, "_scale_search", "local") == "probe"  # the disc family (module docstring)
    quiet = (ConvergenceWarning, IsolatedPlayerWarning, DisconnectedGraphWarning, SeparationWarning)
    with warnings.catch_warnings():
        for category in quiet:
            warnings.simplefilter("ignore", category)
        fit_data = model._build_fit_data(inner)  # once for every scale: the pieces, tiling and core objective

    def score_at(x: float, tol: Optional[float] = None) -> float:
        if x in fits and tol is None:
            return fits[x][0]
        sigma = 2.0 ** x
        clone = type(model)(**{**params, "prior_scale": sigma})
        clone._tuning_fit = True
        if tol is not None:
            clone._tuning_tol = tol
        clone._validate_params(inner)
        clone._resolve_prior(inner, None, None, None)
        if x in probe:  # the probe's loose fit, the start of its exact one
            clone._warm_start = probe[x][1]
        elif fits:  # the closest scale's fit
            near = min(fits, key=lambda y: abs(y - x))
            clone._warm_start = _engaged(fits[near][1]) if disc and near < x else fits[near][1]
        with warnings.catch_warnings():
            for category in quiet:
                warnings.simplefilter("ignore", category)
            clone._fit_prepared(fit_data)
        value = _score(clone, val)
        if tol is None:
            fits[x] = (value, clone._warm_state())
            record.scales.append(sigma)
            record.scores.append(value)
        else:
            probe[x] = (value, clone._warm_state())
            record.probe = (sigma, value)
        return value

    def walk(best: float) -> float:
        # up while the score improves, else down while it improves (the validation score of a log-concave
        # model with a Gaussian prior is smooth and, in practice, has one basin); it ends with the best
        # point's two neighbours fitted, for the parabola below
        here = score_at(best)  # (fitted first: the start of its neighbours)
        for step in (1.0, -1.0):
            moved = False
            while lo < best + step < hi and score_at(best + step) < here:
                best += step
                here = score_at(best)
                moved = True
            if moved:
                break
        return best

    lo, hi = LOG2_RANGE
    probe: dict[float, Any] = {}
    best = walk(math.log2(START))
    if disc and max(fits) < PROBE:
        # the disc family: the second basin, at large scales, that the walk cannot see from the first
        if score_at(PROBE, PROBE_TOL) < fits[best][0]:
            best = walk(PROBE)  # (the probe's loose fit as the start of its exact one)
        best = min(fits, key=lambda y: fits[y][0])
    a, b = best - 1.0, best + 1.0
    chosen = best
    if a in fits and b in fits:
        fa, fb, fm = fits[a][0], fits[b][0], fits[best][0]
        curvature = fa + fb - 2.0 * fm
        if curvature > 0:
            chosen = best + 0.5 * (fa - fb) / curvature  # vertex of the parabola, within [a, b]
            chosen = min(max(chosen, a), b)
    sigma = float(2.0 ** chosen)
    record.chosen = sigma
    # The disc family's final fit starts from the closest scale's fit; Elo's starts cold: Newton from 0
    # takes 4 steps on the 40k / 4.7M bench, from a 2-step tuning fit on 90% of the pairs 5.
    model._warm_start = fits[min(fits, key=lambda y: abs(y - chosen))][1] if disc else None
    return sigma, record
