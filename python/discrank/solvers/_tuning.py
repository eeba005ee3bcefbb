"""Choosing the scale of a model's Gaussian prior from the training data alone, by validation on held-out data:

- a :class:`~discrank.GameLog` with times, or the pairs of one (``PairwiseData.games_log``): fitted on the
  games before a cut in time order and scored on the later ones (the last ``fraction`` of the games, or the
  window of :class:`Validation`, optionally after a ``gap``);
- other :class:`~discrank.PairwiseData`: a seeded random tenth of the pairs is held out (the paper's "hidden
  pairs"), which measures unseen pairs of the same period, not later games;
- fewer than 20 pairs: ``FALLBACK_SCALE``.

The score is the log loss per held-out game, for every model. The scale is searched over powers of two by a
walk from ``START``, up while the score improves, else down, each fit warm-started from the closest scale
fitted (:func:`_warm_elo`, :func:`_warm_disc`), and refined by the vertex of the parabola through the best
point and its two neighbours in log2 sigma. The disc family's score can have a second basin at large scales:
when the walk ends below ``PROBE``, that scale is fitted at ``PROBE_TOL`` and, where it scores better, the
walk starts again from there.

For game results the scale chosen is the strongest prior whose validation loss is within one standard error
of the best's (the one-SE rule, Hastie, Tibshirani and Friedman, The Elements of Statistical Learning, 7.10;
the standard error of the held-out pairs' paired differences); when it predicts the held-out games worse than
a coin beyond two standard errors, the fit warns (:class:`~discrank._util.exceptions.CoinWarning`). A payoff
table without counts (:meth:`~discrank.PairwiseData.from_matrix`) takes the lowest score.

:class:`Search` searches over a scoring function ``score(x, plan)``, each fit given its :class:`FitPlan`;
:func:`tune_prior_scale` and :class:`~discrank.DiscDecompositionCV`'s candidates run on it.
"""

from __future__ import annotations

import contextlib
import math
import numbers
import warnings
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Optional

import numpy as np

from discrank.data._coding import code_log, in_time_order, pairs_from_codes
from discrank.data._coding import log_pairs, map_rows  # noqa: F401 - importable from here
from discrank.solvers._fitdata import FitPlan
from discrank._util.params import _is_int, check_prior_scale
from discrank.data.pairs import PairwiseData
from discrank._util.exceptions import (CoinWarning, ConvergenceWarning, DisconnectedGraphWarning, IsolatedPlayerWarning,
                                 SeparationWarning)

__all__ = ["Validation", "check_validation", "PriorTuning", "FitPlan", "Search", "tune_prior_scale", "check_prior_scale",
           "time_cut"]

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
#: Tolerance of the fits made while tuning (their validation scores need ~1e-5): the looser of it and the
#: model's ``tol`` (:class:`~discrank.solvers._fitdata.FitPlan`).
TUNING_TOL = 1e-4
#: Tolerance of the probe's fit (the walk's fits use ``TUNING_TOL``).
PROBE_TOL = 1e-2
#: Held-out share of the pairs when the data has no time order.
PAIR_FRACTION = 0.1
#: The tuned scale's validation loss warns (``CoinWarning``) above a coin's by more than this many standard
#: errors and ``COIN_EXCESS`` nats per game (a difference that matters, not only one that is measured).
COIN_MARGIN = 2.0
COIN_EXCESS = 1e-3
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
        Tune for online prediction of the window, each game predicted from every game before it (as
        ``discrank.evaluate``'s online protocol does, with no gap); a model without an online mode ignores it.
    origins : int, optional
        With ``online=True``, :class:`~discrank.DynamicElo`'s forecast origins over the window (None: its default,
        ``ORIGINS``): more cost a fit each, fewer forecast from further back.
    """

    fraction: float = 0.1
    window: Any = None
    gap: Any = None
    online: bool = False
    origins: Optional[int] = None

    def __post_init__(self) -> None:
        f = self.fraction
        if isinstance(f, bool) or not isinstance(f, numbers.Real) or not 0.0 < float(f) < 1.0:
            raise ValueError(f"Validation.fraction must be in (0, 1), got {f!r}")
        if not isinstance(self.online, (bool, np.bool_)):
            raise TypeError(f"Validation.online must be a bool, got {self.online!r}")
        object.__setattr__(self, "online", bool(self.online))
        if self.origins is not None and not (_is_int(self.origins) and self.origins >= 1 and self.online):
            raise ValueError(f"Validation.origins must be a positive integer with online=True, got {self.origins!r} "
                             f"with online={self.online}")


def check_validation(validation: Any) -> Optional[Validation]:
    """``validation`` when it is None or a :class:`Validation`, else a TypeError naming its type."""
    if validation is not None and not isinstance(validation, Validation):
        raise TypeError(f"validation must be a discrank.Validation, got {type(validation).__name__}")
    return validation


@dataclass
class PriorTuning:
    """What the tuning did: the rule, the scales tried and their validation scores, the best scale and the
    one chosen."""

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
    #: The scale of the lowest validation score (the vertex of the parabola through the best point), from
    #: which the one-SE rule steps down to ``chosen``; NaN for the fallback.
    best: float = math.nan

    def as_dict(self) -> dict:
        return {"rule": self.rule, "metric": self.metric, "scales": list(self.scales), "scores": list(self.scores),
                "chosen": self.chosen, "best": self.best, "n_fit_games": self.n_fit_games,
                "n_validation_games": self.n_validation_games, "probe": self.probe}


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
        if not in_time_order(t):  # a log in time order (the usual case) is cut by views, without copies
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


def _pair_shares(model: Any, val: PairwiseData) -> tuple[np.ndarray, np.ndarray]:
    """Each held-out pair's share of :func:`_score` (its covariate rows summed), and of a coin's (log 2
    per game, log 3 for a draw model's three outcomes): each adds up to the log loss per held-out game,
    and their paired differences give the standard errors of the one-SE rule (:func:`_within_one_se`) and
    of the coin's check (:func:`_warn_if_worse_than_a_coin`)."""
    losses, w, pair = model._log_losses(val)
    coin = math.log(3.0) if getattr(model, "draw_eta_", None) is not None else math.log(2.0)
    total = np.sum(w)
    return (np.bincount(pair, weights=w * losses, minlength=val.n_pairs) / total,
            np.bincount(pair, weights=w * coin, minlength=val.n_pairs) / total)


def _warn_if_worse_than_a_coin(model: Any, shares: dict, coins: np.ndarray, chosen: float, rule: str,
                               stacklevel: int) -> None:
    """A :class:`~discrank._util.exceptions.CoinWarning` when the fit at the scale scored closest to ``chosen``
    predicts the held-out games worse than a coin by more than ``COIN_MARGIN`` standard errors of the
    paired differences and ``COIN_EXCESS`` nats per game (a log of coin flips, predicted at the strongest
    prior, stays within); ``stacklevel`` counted from the caller."""
    x = min(shares, key=lambda y: abs(y - chosen))
    excess, se = _paired(shares[x], coins)
    if excess > max(COIN_MARGIN * se, COIN_EXCESS):
        warnings.warn(
            f"{type(model).__name__}(prior_scale=None): the prior scale chosen, {2.0 ** chosen:.3g} ({rule}), "
            f"predicts its validation games at {float(shares[x].sum()):.4f} nats per game, worse than a coin "
            f"({float(coins.sum()):.4f}) by {excess:.4f} +- {se:.4f}: the ratings carry no signal for the games "
            "that follow. Check the log's time order and which side each score is for; players who change are "
            "better served by DynamicElo", CoinWarning, stacklevel=stacklevel + 1)


def _paired(shares: np.ndarray, reference: np.ndarray) -> tuple[float, float]:
    """(difference, standard error) of one validation loss over another, from the held-out pairs' shares
    of each (:func:`_pair_shares`): the sum of the paired differences ``d`` and ``sqrt(n) std(d)``."""
    d = shares - reference
    return float(d.sum()), (math.sqrt(d.size) * float(np.std(d, ddof=1)) if d.size > 1 else 0.0)


def _within_one_se(search: "Search", shares: dict, best: float) -> float:
    """The one-SE rule on the search's axis: the smallest scale whose validation loss is within one standard
    error of the best's (module docstring), and at most the vertex.

    The search steps down from ``best`` while the loss stays within (fitting the points not scored yet).
    From the vertex (:meth:`Search.vertex`, value :meth:`Search.floor`) the loss grows as ``A t^2`` and its
    standard error as ``B t``; fitted to the first point beyond, at ``T`` from the vertex, with ``excess``
    above the floor and standard error ``se``, they cross at ``t = T se / excess``, kept between that point
    and the last one within. At the search's lower bound: the last point within."""
    vertex, floor = search.vertex(best), search.floor(best)
    inside = best
    while search.lo < inside - search.step:
        below = inside - search.step
        search.value(below)
        diff, se = _paired(shares[below], shares[best])
        if diff > se:
            t = (vertex - below) * se / (search.fits[below][0] - floor)
            return max(min(vertex - t, vertex if inside == best else inside), below)
        inside = below
    return min(inside, vertex)


def _choose(search: "Search", shares: dict, best: float) -> tuple[float, float]:
    """(the vertex of the best point, the scale chosen: the one-SE point, :func:`_within_one_se`). Where
    the one-SE rule's steps down scored a point lower than the walk's best (a score with a second dip below
    it), the walk starts again from there, and the rule with it."""
    while True:
        crossing = _within_one_se(search, shares, best)
        lowest = search.best()
        if not search.fits[lowest][0] < search.fits[best][0]:
            return search.vertex(best), crossing
        best = search.walk(lowest)


class Search:
    """The search over one parameter (module docstring), each point scored once by a fit: the walk, the
    probe of a second basin, the scan of a grid, and the parabola's vertex.

    A point ``x`` lies on the search's axis (log2 of the prior scale for :func:`tune_prior_scale`; an index
    or a logarithm for a grid), at ``x = start + k step``. The fit at ``x`` is given ``plan`` with
    ``scale=to_scale(x)`` and, with ``warm``, the warm start of the probe's fit at ``x`` or of the closest
    point scored.

    Parameters
    ----------
    score : callable
        ``score(x, plan) -> (value, state)``: the validation score of the fit at ``x`` made with ``plan``
        (lower is better), and what fits at nearby points may start from (or anything the caller keeps:
        :attr:`fits` holds it).
    plan : FitPlan
        The plan of every fit of the search, but its ``scale`` and ``warm_start`` (the tolerance of a
        tuning fit, say).
    bounds : (float, float), optional
        The walk stays strictly between them; default unbounded: the walk goes on, past any grid, for as
        long as the score falls.
    step : float, optional
        The walk's step along the axis.
    to_scale : callable, optional
        The plan's ``scale`` at ``x``; default ``x`` itself.
    warm : callable, optional
        ``warm(state, near, x)``: the start of the fit at ``x`` from the state of the closest point scored,
        ``near`` (the first scored among equally close ones). None (default): every fit starts cold.

    Attributes
    ----------
    fits : dict
        ``x -> (value, state)`` of the exact fits, in the order made.
    probes : dict
        ``x -> (value, state)`` of the probes' looser fits.
    """

    def __init__(self, score: Callable[[float, FitPlan], tuple[float, Any]], plan: FitPlan = FitPlan(), *,
                 bounds: tuple = (-math.inf, math.inf), step: float = 1.0,
                 to_scale: Optional[Callable[[float], Any]] = None, warm: Optional[Callable] = None) -> None:
        self.score, self.plan, self.step = score, plan, step
        self.lo, self.hi = bounds
        self.to_scale = (lambda x: x) if to_scale is None else to_scale
        self.warm = warm
        self.fits: dict = {}
        self.probes: dict = {}

    def _score_at(self, x: float, tol: Optional[float]) -> tuple[float, Any]:
        start = None
        if self.warm is not None:
            if x in self.probes:  # the probe's loose fit, the start of its exact one
                start = self.probes[x][1]
            elif self.fits:
                near = min(self.fits, key=lambda y: abs(y - x))
                start = self.warm(self.fits[near][1], near, x)
        changes = {"scale": self.to_scale(x), "warm_start": start}
        if tol is not None:
            changes["tol"] = tol
        value, state = self.score(x, replace(self.plan, **changes))
        return float(value), state

    def value(self, x: float) -> float:
        """The score of the exact fit at ``x``, fitted on first use."""
        if x not in self.fits:
            self.fits[x] = self._score_at(x, None)
        return self.fits[x][0]

    def probe(self, x: float, tol: float) -> float:
        """The score of a fit at ``x`` to the looser ``tol``: enough to tell whether ``x`` lies in a better
        basin. Its state is the start of the exact fit at ``x``, should the search make one."""
        self.probes[x] = self._score_at(x, tol)
        return self.probes[x][0]

    def walk(self, start: float) -> float:
        """The point where a walk from ``start`` ends: up while the score falls, else (when the first step
        up does not lower it) down while it falls, inside the bounds. It ends with the best point's two
        neighbours scored (within the bounds), for :meth:`vertex`; the start is scored first, the start of
        its neighbours' fits."""
        best = start
        here = self.value(best)
        for step in (self.step, -self.step):
            moved = False
            while self.lo < best + step < self.hi and self.value(best + step) < here:
                best += step
                here = self.value(best)
                moved = True
            if moved:
                break
        return best

    def probe_basin(self, best: float, at: float, tol: float) -> float:
        """The best point after a probe of a second basin at ``at``, for a score with two basins that a walk
        ending in the first one never sees: when every point scored lies below ``at``, ``at`` is probed at
        ``tol`` (:meth:`probe`), and where it scores below ``best`` the walk starts again from ``at``."""
        if max(self.fits) >= at:
            return best
        if self.probe(at, tol) < self.fits[best][0]:
            self.walk(at)
        return self.best()

    def scan(self, points: Any) -> Any:
        """Score every point of ``points`` in order; the first with the lowest score."""
        points = list(points)
        return points[int(np.argmin([self.value(x) for x in points]))]

    def best(self) -> float:
        """The point with the lowest score of the exact fits (the first of equal ones)."""
        return min(self.fits, key=lambda y: self.fits[y][0])

    def vertex(self, best: float) -> float:
        """The vertex of the parabola through ``best`` and its two neighbours, within them, where both were
        scored and the parabola is convex; else ``best``."""
        a, b = best - self.step, best + self.step
        if a not in self.fits or b not in self.fits:
            return best
        fa, fb, fm = self.fits[a][0], self.fits[b][0], self.fits[best][0]
        curvature = fa + fb - 2.0 * fm
        if not curvature > 0:
            return best
        return min(max(best + self.step * (0.5 * (fa - fb) / curvature), a), b)

    def floor(self, best: float) -> float:
        """The value of the parabola of :meth:`vertex` at its vertex (``best``'s score where :meth:`vertex`
        is ``best``): the lowest score the search estimates."""
        u = (self.vertex(best) - best) / self.step
        if u == 0.0:
            return self.fits[best][0]
        fa, fb, fm = (self.fits[best + d * self.step][0] for d in (-1.0, 1.0, 0.0))
        return fm + 0.5 * (fb - fa) * u + 0.5 * (fa + fb - 2.0 * fm) * u * u

    def nearest(self, x: float) -> Any:
        """The state of the exact fit closest to ``x`` (the first scored among equally close ones)."""
        return self.fits[min(self.fits, key=lambda y: abs(y - x))][1]


@contextlib.contextmanager
def _quiet():
    """The tuning's fits are only scored: their solver's and graph's warnings are not the user's."""
    with warnings.catch_warnings():
        for category in (ConvergenceWarning, IsolatedPlayerWarning, DisconnectedGraphWarning, SeparationWarning):
            warnings.simplefilter("ignore", category)
        yield


def _warm_disc(state: tuple, near: float, x: float) -> tuple:
    """A disc fit at ``x`` starts from the closest scale's fit, from a smaller one only where its
    components are away from the saddle (:func:`_engaged`)."""
    return _engaged(state) if near < x else state


def _warm_elo(state: Any, near: float, x: float) -> Any:
    """An Elo-family fit at ``x`` starts from the closest scale's fit when that scale is smaller, else cold:
    from a weaker prior's ratings, the capped Newton steps of a tuning fit can stop short of a stronger one's
    optimum."""
    return state if near < x else None


def tune_prior_scale(model: Any, data: PairwiseData, log: Any = None, validation: Optional[Validation] = None,
                     coded: Any = None, fit_data_builder: Optional[Callable] = None,
                     stacklevel: int = 1) -> tuple[FitPlan, PriorTuning]:
    """The prior scale that predicts held-out games best (module docstring), as the plan of the final fit,
    and the record of the search. Each scale is fitted by a clone of ``model`` with ``prior_scale`` set,
    on one :class:`~discrank.solvers._fitdata.FitData` of the held-out split.

    Parameters
    ----------
    model : PairwiseModel
        The model to tune (left as it is).
    data : PairwiseData
        The training pairs.
    log : GameLog, optional
        The training games, whose time order the validation follows.
    validation : Validation, optional
        How the games are cut in time order.
    coded : tuple, optional
        ``code_log(log)``, if already made.
    fit_data_builder : callable, optional
        ``fit_data_builder(model, pairs) -> FitData``; default ``model._build_fit_data``
        (:func:`discrank.dask.fit` gives one whose objective runs on the workers).
    stacklevel : int, optional
        Stack level of the :class:`~discrank._util.exceptions.CoinWarning`, counted from the caller (1: the
        caller itself).

    Warns
    -----
    CoinWarning
        The scale chosen predicts the held-out games worse than a coin (:func:`_warn_if_worse_than_a_coin`).

    Returns
    -------
    plan : FitPlan
        The final fit's: the chosen scale and, for the disc family, the fit of the closest scale to start
        from (Elo's final fit starts cold).
    record : PriorTuning
        What the search did.
    """
    metric = "log_loss"
    split = _holdout(model, data, log, coded, validation)
    if split is None:
        return FitPlan(scale=FALLBACK_SCALE), PriorTuning(
            rule=f"fallback: too little data to hold out ({data.n_pairs} pairs)", metric=metric, chosen=FALLBACK_SCALE)
    inner, val, rule = split
    params = model.get_params()
    disc = getattr(model, "_scale_search", "local") == "probe"  # the disc family (module docstring)
    with _quiet():  # once for every scale: the pieces, tiling and core objective
        fit_data = (type(model)._build_fit_data if fit_data_builder is None else fit_data_builder)(model, inner)

    shares: dict = {}  # each scale's pairs' shares of the validation loss
    coin: dict = {}  # a coin's

    def fit_and_score(x: float, plan: FitPlan) -> tuple[float, Any]:
        clone = type(model)(**{**params, "prior_scale": plan.scale})
        clone._validate_params(inner)
        with _quiet():
            clone._fit_prepared(fit_data, plan)
        shares[x], coin["shares"] = _pair_shares(clone, val)  # an exact fit at x, made after any probe there, replaces it
        return _score(clone, val), clone._warm_state()

    search = Search(fit_and_score, FitPlan(tol=TUNING_TOL), bounds=LOG2_RANGE, to_scale=lambda x: 2.0 ** x,
                    warm=_warm_disc if disc else _warm_elo)
    best = search.walk(math.log2(START))
    if disc:  # the second basin, at large scales, that the walk cannot see from the first
        best = search.probe_basin(best, PROBE, PROBE_TOL)
    if val.n_games is not None:  # game results: the one-SE rule (module docstring)
        vertex, chosen = _choose(search, shares, best)
    else:  # a payoff table's expected payoffs: the lowest score
        vertex = chosen = search.vertex(best)
    _warn_if_worse_than_a_coin(model, {x: shares[x] for x in search.fits}, coin["shares"], chosen, rule, stacklevel + 1)
    sigma = float(2.0 ** chosen)
    record = PriorTuning(rule=rule, metric=metric, scales=[2.0 ** x for x in search.fits],
                         scores=[value for value, _ in search.fits.values()], chosen=sigma,
                         n_fit_games=float(_weights(inner).sum()), n_validation_games=float(_weights(val).sum()),
                         probe=next(((2.0 ** x, value) for x, (value, _) in search.probes.items()), None),
                         best=float(2.0 ** vertex))
    return FitPlan(scale=sigma, warm_start=search.nearest(chosen) if disc else None), record
