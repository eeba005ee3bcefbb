"""How :class:`~discrank.DynamicElo` chooses its drift, prior scale and variance scale on the training log
(:class:`DynamicTuning`, a base of the estimator): forecasts of a validation window at its end, scored for
the candidates of a walk on each grid, the walk going on past a grid's edge while each step there raises
the validation log-likelihood by more than :data:`EDGE_NATS` (up to the grid's hard bounds, where a
:class:`~discrank._util.exceptions.TuningWarning` says so)."""

from __future__ import annotations

import math
import time
import warnings
from contextlib import contextmanager
from typing import Any, Callable, Iterator, Optional, Sequence

import numpy as np

from discrank._util.progress import plural, report_stage
from discrank._util.exceptions import TuningWarning
from discrank.models.dynamic._candidates import RACE_Z, REACH, TUNE_TOL, BudgetSpent, Candidates  # noqa: F401

__all__ = ["DynamicTuning", "DRIFT_GRID", "PRIOR_GRID", "VARIANCE_GRID", "DRIFT_BOUNDS", "PRIOR_BOUNDS",
           "VARIANCE_BOUNDS", "EDGE_NATS", "ORIGINS", "ORIGIN_GAMES", "REACH", "TUNE_TOL", "walk_grid"]

#: Drifts (logits per square root of a period) tried when ``drift`` is None, as multiples of a base
#: drift of 0.1 logit per square root of a year (converted to the period).
DRIFT_GRID = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0)
#: Prior scales of a first rating tried when ``prior_scale`` is None.
PRIOR_GRID = (0.5, 1.0, 2.0, 4.0, 8.0)
#: Multipliers of the predictive variance tried when ``variance_scale`` is None (on each candidate's
#: validation forecasts: no fit of its own).
VARIANCE_GRID = (0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0)
#: The hard bounds of each search past its grid's edges (the drift's in the units of ``DRIFT_GRID``). A search
#: whose best value is a grid's edge goes on past it, each step multiplying the value by the grid's ratio at that
#: edge, while each step raises the validation log-likelihood by more than ``EDGE_NATS``; a value chosen at a
#: bound warns. The variance scale's lower bound is next to 0 (forecasts from the ratings alone).
DRIFT_BOUNDS = (1.0 / 64, 256.0)
PRIOR_BOUNDS = (1.0 / 32, 128.0)
VARIANCE_BOUNDS = (2.0 ** -14, 64.0)
#: The evidence each step past a grid's edge must bring: a rise of the validation log-likelihood, summed over
#: the validation games, of more than this many nats (a likelihood ratio above e), so that a small validation
#: window does not leave the grid on noise. A value past the edge is compared at its validation log loss plus
#: ``EDGE_NATS`` over the number of validation games for each step past the edge.
EDGE_NATS = 1.0
#: Periods per year of each calendar period (to convert the drift grid).
_PER_YEAR = {"day": 365.25, "week": 365.25 / 7, "month": 12.0, "year": 1.0}
#: Origins of the tuning's forecasts over the validation window, at least; a log of fewer than
#: ``ORIGIN_GAMES / ORIGINS`` games gets ``ORIGIN_GAMES // n_games`` (up to one per period), unless
#: ``Validation(online=True, origins=...)`` says how many. Each costs a fit per candidate; fewer forecast from
#: further back than a model updated as the games come.
ORIGINS = 8
ORIGIN_GAMES = 500_000



class DynamicTuning:
    """The tuning of :class:`~discrank.DynamicElo`'s drift, prior scale and variance scale (see its ``fit``);
    the estimator's ``_solve`` and ``_walk`` fit and forecast each candidate."""

    def _walk_scale(self) -> float:
        """The drift grid's unit for this period: 0.1 logit per square root of a year."""
        if self.period is None:
            return 0.0
        return 0.1 / math.sqrt(_PER_YEAR[self.period]) if isinstance(self.period, str) else 0.1

    def _tune(self, ca, cb, score, bins, t, x, n_players, validation, w=None, whole=False, rows_of=None,
              ctx=None, margin=None, fmt=None):
        """The drift, prior scale and variance scale that forecast a validation window at the end of the training
        games best, and the record of the search (``tuning_``): the walks of ``fit`` (:meth:`_search`, each past its
        grid's edge by :data:`EDGE_NATS`, a value chosen at a bound warned about), each candidate at its best
        variance scale. A parameter given is its search's only candidate; ``tuning_budget`` stops the walks. The
        features' scales left None then walk in turn (:meth:`discrank.models.dynamic._part.Part.walks`; until then
        each at its grid's middle), and ``model._scales`` is left at the choices. Each candidate and the choice
        are reported (``verbose``)."""
        from discrank.solvers._tuning import Validation, check_validation

        clock = time.perf_counter()
        # Validation(online=False) given: the forecasts of a frozen model, all from the fit before the gap
        frozen = isinstance(validation, Validation) and not validation.online
        validation = Validation() if validation is None else check_validation(validation)
        fit_mask, val_mask = _split(score, t, validation, w, whole)
        drifts, priors, scales = self._grids()
        # every game in one period: a stationary fit (no chain), validated as period=None's is, within the period;
        # the games say nothing of the drift, which only widens the forecasts of later periods
        one = self.period is not None and bins.size > 0 and bins[0] == bins[-1]
        note = self._one_period(t, bins, whole) if one and self.drift is None else ""
        if note:
            drifts = _Axis([drifts.grid[drifts.n // 2]])
        # the games each part stands for
        n_fit, n_val = ((float(np.count_nonzero(m)) if w is None else float(w[m].sum())) for m in (fit_mask, val_mask))
        tuned = [part for part in self._parts if part.to_tune(self)]
        for part in tuned:  # each at its grid's middle until its walk
            self._scales[part.name] = part.middle(self)
        middle = (drifts.grid[drifts.n // 2], priors.grid[priors.n // 2],
                  1.0 if self.variance_scale is None else scales.grid[0], None, None)
        if n_fit < 10 or n_val < 10:
            report_stage(f"tuning DynamicElo: {n_fit:,.0f} games to fit and {n_val:,.0f} to validate, fewer than "
                         "10: the grids' middle values kept")
            if note:  # (the drift's warning says what else the tuning could not do)
                warnings.warn(f"{note}; with {n_fit:,.0f} games to fit and {n_val:,.0f} to validate, fewer than 10, "
                              "the prior and variance scales are kept at their grids' middle values too",
                              TuningWarning, stacklevel=4)
            return middle
        total = len(score) if w is None else float(w.sum())
        n_origins = validation.origins or max(ORIGINS, int(ORIGIN_GAMES // max(total, 1)))
        origins = self._scored_origins(score, bins, t, fit_mask, val_mask, frozen, one, note, n_origins)
        if origins is None:
            return middle
        if note:
            warnings.warn(note, TuningWarning, stacklevel=4)
        report_stage(f"tuning DynamicElo on {n_fit:,.0f} games: a validation window of {n_val:,.0f} games, "
                     f"forecast from {origins.size} origins")
        games = (ca, cb, score, bins, x, w, ctx, margin, fmt)
        cand = Candidates(self, games, n_players, fit_mask, val_mask, origins, scales, rows_of, self.tuning_budget,
                           stationary=one, edge_nats=EDGE_NATS)
        # candidates compared with the cost of their steps past the grids' edges
        cost = lambda c: cand.scores[c] + cand.gain * (drifts.steps(c[0]) + priors.steps(c[1]))  # noqa: E731
        self._walks = {}
        for part in tuned:
            part.before_search(self)
        try:
            self._search(cand, drifts, priors, cost)
            best = min(cand.scores, key=cost)

            def probe(scales: dict) -> Any:  # the first origin's fit at the best drift and prior, at other scales
                kept = dict(self._scales)
                self._scales.update(scales)
                try:
                    return self._solve_built(cand._history(int(origins[0])), *best, None, self.tol, rows_of)
                finally:
                    self._scales = kept

            for part in tuned:
                for name, key, grid, bounds in part.walks(self, probe):
                    if part.resized:  # the candidates' fits start afresh: their parameters are more
                        cand._theta0, cand._kept = None, None
                    self._walks[name] = key
                    self._extra_walk(cand, name, key, _Axis(grid, bounds), best)
        finally:
            for part in tuned:
                part.after_search(self)
        tuning = self._record(cand, frozen, origins, best, (drifts, priors, scales))
        report_stage(f"tuning DynamicElo: chose {self._candidate(*best)}, variance_scale={cand.best_scale[best]:.3g} "
                     f"(validation log loss {cand.scores[best]:.5f}) among {plural(cand.n_scored_candidates, 'candidate')} in "
                     f"{time.perf_counter() - clock:.1f} s")
        return best[0], best[1], cand.best_scale[best], tuning, cand.start(best)

    def _scored_origins(self, score, bins, t, fit_mask, val_mask, frozen, one, note,
                        n_origins: int) -> Optional[np.ndarray]:
        """The forecast origins of the validation window (:func:`_origins`, ``n_origins`` of them at most) less
        those with no game before them (the first game's, or, the history cut at the origin's period, one in the
        first period); None, with a TuningWarning that says so (after ``note``, the one-period warning), where
        none is left."""
        key = bins if self.period is not None and not one else (t if t is not None else np.arange(len(score)))
        origins = _origins(key, fit_mask, val_mask, n_origins, frozen)
        if self.period is None or one:
            origins = origins[origins > 0]
        else:
            origins = origins[(origins >= bins.size) | (bins[np.minimum(origins, bins.size - 1)] > bins[0])]
        if origins.size:
            return origins
        first = f" (its first game at {_show_times(t[val_mask][:1])})" if t is not None else ""
        note = (f"{note}; " if note else "DynamicElo's tuning: ") + (
            f"no game precedes the first {'period' if key is bins else 'time'} of the validation window{first}, "
            "so no forecast can be scored: the grids' middle values are kept (give drift=, prior_scale= and "
            "variance_scale=, or a validation window that starts later: fit(log, validation=discrank.Validation(...)))")
        report_stage(note)
        warnings.warn(note, TuningWarning, stacklevel=5)
        return None

    def _one_period(self, t: Optional[np.ndarray], bins: np.ndarray, whole: bool) -> str:
        """The words of the :class:`~discrank._util.exceptions.TuningWarning` of a log whose games all fall in one
        period (``bins``, times ``t``; ``whole``: games summed by period, whose times are its start): its fit is
        stationary and the drift, not informed, kept at its grid's middle."""
        from discrank._util.calendar import period_start

        start = period_start(bins[:1], self.period, t is not None and t.dtype.kind == "M")
        drift = self._walk_scale() * DRIFT_GRID[len(DRIFT_GRID) // 2]
        span = "" if t is None or whole else f", from {_show_times(t[:1])} to {_show_times(t[-1:])}"
        return (f"DynamicElo's tuning: every game of the log falls in one period (period={self.period!r}, the period "
                f"starting {_show_times(start)}{span}): the fit is one rating per player, and the games say nothing "
                f"of the drift, which only widens the forecasts of later periods; drift={drift:.4g} (its grid's "
                "middle) is kept: give drift= (or period=None)")

    def _search(self, cand: "Candidates", drifts: "_Axis", priors: "_Axis", cost: Callable[[tuple], float]) -> None:
        """The walks of :meth:`_tune`, each candidate scored by ``cand``: the drift at the middle prior, the best
        drift divided and multiplied by sqrt 2, then the prior at the best drift (``cost``: a candidate's score
        with its steps past the grids' edges); a spent budget ends them, reported."""
        mid_prior = priors.grid[(priors.n - 1) // 2]
        start = DRIFT_GRID.index(1.0) if drifts.n > 1 else 0
        try:
            best_drift = _axis_walk(drifts, start, lambda drift: cand.score(drift, mid_prior), cand.gain)
            if drifts.n > 1:
                for drift in (best_drift / math.sqrt(2.0), best_drift * math.sqrt(2.0)):
                    if drifts.bounds[0] <= drift <= drifts.bounds[1]:
                        cand.score(drift, mid_prior)
                best_drift = min(cand.scores, key=cost)[0]
            _axis_walk(priors, priors.grid.index(mid_prior), lambda prior: cand.score(best_drift, prior), cand.gain)
        except BudgetSpent:
            report_stage(f"tuning DynamicElo: the budget of {plural(cand.budget, 'candidate')} is spent: the best "
                         "scored is kept")

    def _scale_at(self, key: Any) -> float:
        """The scale ``key`` of ``_scales``: a name, or a name and an index."""
        return float(self._scales[key]) if isinstance(key, str) else float(self._scales[key[0]][key[1]])

    def _set_scale(self, key: Any, value: float) -> None:
        if isinstance(key, str):
            self._scales[key] = value
        else:
            self._scales[key[0]][key[1]] = value

    def _extra_walk(self, cand: "Candidates", name: str, key: Any, axis: "_Axis", best: tuple) -> None:
        """The walk of the scale ``name`` (the entry ``key`` of ``_scales``, :meth:`_scale_at`) at the best (drift,
        prior) ``best``, from the value the walks ran at (its score, that of ``best``); the candidate ``best`` then
        holds the chosen value's score and variance scale, and ``key`` the chosen value."""
        scores = cand.extra.setdefault(name, (axis, {}))[1]
        scores[self._scale_at(key)] = (cand.scores[best], cand.best_scale[best])

        def loss(value: float) -> float:
            if value not in scores:
                self._set_scale(key, value)
                scores[value] = cand.scored(best[0], best[1], f"{name}={value:.3g}")
            return scores[value][0]

        try:
            chosen = _axis_walk(axis, axis.grid.index(self._scale_at(key)), loss, cand.gain)
        except BudgetSpent:
            chosen = min(scores, key=lambda c: scores[c][0] + cand.gain * axis.steps(c))
        self._set_scale(key, chosen)
        cand.scores[best], cand.best_scale[best] = scores[chosen]

    @contextmanager
    def _fit_report(self, games: Any, drift: float, prior: float) -> Iterator[None]:
        """Report the whole-history fit of ``games`` (:class:`~discrank.models.dynamic._state.Games`) at
        ``(drift, prior)`` to the listener of :func:`discrank._util.progress.staging`, and when it ends its
        seconds and Newton steps."""
        clock = time.perf_counter()
        n = len(games) if games.count is None else float(games.count.sum())
        report_stage(f"DynamicElo: fitting the whole history of {n:,.0f} games at {self._candidate(drift, prior)}")
        yield
        report_stage(f"DynamicElo: fitted in {time.perf_counter() - clock:.1f} s, {plural(self.n_iter_, 'Newton step')}"
                     f"{'' if self.converged_ else ' (not converged)'}")

    def _grids(self) -> tuple["_Axis", "_Axis", "_Axis"]:
        """The searches of the drift, the prior scale and the variance scale: the given value alone, or the
        grid and its bounds."""
        if self.period is None:
            drifts = _Axis([1.0])  # unused: one period
        elif self.drift is not None:
            drifts = _Axis([self.drift])
        else:
            unit = self._walk_scale()
            drifts = _Axis([unit * g for g in DRIFT_GRID], (unit * DRIFT_BOUNDS[0], unit * DRIFT_BOUNDS[1]))
        priors = _Axis([self.prior_scale]) if self.prior_scale is not None else _Axis(PRIOR_GRID, PRIOR_BOUNDS)
        scales = (_Axis([self.variance_scale]) if self.variance_scale is not None
                  else _Axis(VARIANCE_GRID, VARIANCE_BOUNDS))
        return drifts, priors, scales

    def _candidate(self, drift: float, prior: float) -> str:
        """A tuning candidate's name in ``tuning_``."""
        return ("" if self.period is None else f"drift={drift:.4g}, ") + f"prior_scale={prior:.3g}"

    def _record(self, cand: "Candidates", frozen: bool, origins: np.ndarray, best: tuple, axes: tuple) -> dict:
        """``tuning_``: the rule, the origins, each candidate's score and variance scale, the values each
        search scanned (``scanned``) within its ``bounds``, the log loss per validation game that each step
        past a grid's edge had to gain (``edge_gain``, :data:`EDGE_NATS` in all), and the values chosen at a
        bound (``at_bound``), each with a :class:`~discrank._util.exceptions.TuningWarning`."""
        skip = self.period is None  # no drift
        names, axes = ("drift", "prior_scale", "variance_scale")[skip:], axes[skip:]
        chosen = (best[0], best[1], cand.best_scale[best])[skip:]
        scanned = (sorted({d for d, _ in cand.scores}), sorted({p for _, p in cand.scores}),
                   sorted(cand.scanned))[skip:]
        for name, key in getattr(self, "_walks", {}).items():  # the features' walks
            value = self._scale_at(key)
            axis, scores = cand.extra[name]
            names, axes = names + (name,), axes + (axis,)
            chosen, scanned = chosen + (value,), scanned + (sorted(scores),)
        at_bound = {name: value for name, axis, value in zip(names, axes, chosen) if axis.side(value)}
        if at_bound:
            warnings.warn(_bound_message(at_bound, dict(zip(names, axes)), self._parts), TuningWarning, stacklevel=5)
        rule = ("every validation game forecast from the fit of the games before the gap (frozen)" if frozen
                else "every validation game forecast from the latest origin before it")
        return {"rule": rule + ("; a walk on the drift grid, then on the prior grid, each candidate at its best "
                                "variance scale, each search past its grid's edge while a step there gains "
                                f"more than {EDGE_NATS:g} nat; a candidate worse than the best by more than "
                                f"{RACE_Z:g} standard errors on its first origins is raced out"),
                "periods": int(origins.size),
                "scores": {self._candidate(d, p): v for (d, p), v in cand.scores.items()},
                "variance_scales": {self._candidate(d, p): c for (d, p), c in cand.best_scale.items()},
                "scanned": dict(zip(names, scanned)),
                "bounds": {name: axis.bounds for name, axis in zip(names, axes)},
                "edge_gain": cand.gain,
                "at_bound": at_bound,
                **{f"{name}s": {c: v for c, (v, _) in sorted(scores.items())} for name, (_, scores) in
                   cand.extra.items()},
                "budget": cand.budget,
                "budget_reached": cand.reached,
                "raced": dict(cand.raced)}


#: What a value chosen at a search's bound suggests, by parameter and side (the features': their parts').
_ADVICE = {
    ("drift", "upper"): "the ratings move faster than the search allows: give drift=, or a shorter period",
    ("drift", "lower"): "the log shows almost no drift: give drift=, or period=None for one rating per player",
    ("prior_scale", "upper"): "the players differ more than the search allows: give prior_scale=",
    ("prior_scale", "lower"): "the validation window barely tells the players apart: give prior_scale=",
    ("variance_scale", "upper"): ("the forecasts want far more uncertainty than the ratings' variances (a "
                                  "gap in time before the validation window?): give variance_scale="),
    ("variance_scale", "lower"): "the forecasts are best with almost no rating uncertainty: give variance_scale=",
}


def _advice(parts: tuple, name: str, side: str) -> str:
    """What the value of the search ``name`` chosen at its ``side`` bound suggests."""
    for part in parts:
        if name.split("[")[0] == (part.walk_name or part.name):
            return part.advice[side]
    return _ADVICE[name, side]


def _bound_message(at_bound: dict, axes: dict, parts: tuple = ()) -> str:
    """The :class:`~discrank._util.exceptions.TuningWarning` of the values chosen at a bound: each named, with its
    search's bounds and what to do (a feature's advice its part's, ``parts``)."""
    lines = []
    for name, value in at_bound.items():
        axis = axes[name]
        side = axis.side(value)
        lines.append(f"{name}={value:.4g} is the {side} bound of its search ({axis.bounds[0]:.4g} .. "
                     f"{axis.bounds[1]:.4g}) and the validation log-likelihood still rose by more than "
                     f"{EDGE_NATS:g} nat on the last step to it; "
                     f"{_advice(parts, name, side)}")
    return ("DynamicElo's tuning stopped at a bound: " + "; ".join(lines)
            + " (or check the validation window: fit(log, validation=discrank.Validation(...)))")


class _Axis:
    """The values of one search: a grid, and past each edge (where ``bounds`` allow) the edge's value times
    the grid's ratio at that edge once per step. Index ``i`` runs from ``lo`` (0 or below) to ``hi``
    (``n - 1`` or above), ``0 .. n - 1`` the grid itself; ``bounds`` holds the first and last values."""

    def __init__(self, grid: Sequence[float], bounds: tuple = (None, None)) -> None:
        self.grid = [float(g) for g in grid]
        self.n = len(self.grid)
        self.ratio = (1.0, 1.0) if self.n < 2 else (self.grid[0] / self.grid[1], self.grid[-1] / self.grid[-2])
        self.lo = -_steps(self.grid[0], self.ratio[0], bounds[0])
        self.hi = self.n - 1 + _steps(self.grid[-1], self.ratio[1], bounds[1])
        self.bounds = (self.value(self.lo), self.value(self.hi))

    def value(self, i: int) -> float:
        """The value at index ``i``."""
        if i < 0:
            return self.grid[0] * self.ratio[0] ** -i
        if i >= self.n:
            return self.grid[-1] * self.ratio[1] ** (i - self.n + 1)
        return self.grid[i]

    def steps(self, value: float) -> float:
        """The steps of ``value`` past the grid's edges (0 on the grid and between its edges; a fraction of a
        step counts as such)."""
        if value < self.grid[0]:
            return math.log(value / self.grid[0]) / math.log(self.ratio[0])
        if value > self.grid[-1]:
            return math.log(value / self.grid[-1]) / math.log(self.ratio[1])
        return 0.0

    def side(self, value: float) -> Optional[str]:
        """"lower" or "upper" where ``value`` is a bound past the grid's edge, else None."""
        if self.lo < 0 and value == self.bounds[0]:
            return "lower"
        if self.hi > self.n - 1 and value == self.bounds[1]:
            return "upper"
        return None


def _steps(edge: float, ratio: float, bound: Optional[float]) -> int:
    """The steps of ``ratio`` from ``edge`` that stay within ``bound`` (none without one)."""
    if bound is None or ratio == 1.0:
        return 0
    return max(int(math.floor(math.log(bound / edge) / math.log(ratio) + 1e-9)), 0)


def walk_grid(n: int, start: int, loss) -> int:
    """The index of the lowest ``loss(i)`` on a grid of ``n`` values found by a walk from ``start``: up the
    grid while the loss falls; if the first step up does not lower it, down the grid while it falls (the
    validation loss taken as unimodal along the grid, the far ends of which are the slowest fits). The
    walk of :class:`discrank.solvers._tuning.Search` on the grid's indices (:func:`_grid_walk`)."""
    return _grid_walk(n, start, loss)


def _grid_walk(n: int, start: int, loss: Callable[[int], float], extend: tuple = (0, 0)) -> int:
    """:meth:`discrank.solvers._tuning.Search.walk` over the indices ``-extend[0] .. n - 1 + extend[1]`` (a grid of
    ``n`` values and the steps past its edges), each index scored once by ``loss``; ``start + 1`` is scored
    before ``start``, so that the candidates' fits (each warm-started from the one before) are made in the
    order of the walk's comparisons."""
    from discrank.solvers._tuning import Search

    if start + 1 < n + extend[1]:
        loss(start + 1)
    search = Search(lambda i, plan: (loss(int(i)), None), bounds=(-1 - extend[0], n + extend[1]))
    return int(search.walk(start))


def _axis_walk(axis: _Axis, start: int, loss: Callable[[float], float], gain: float) -> float:
    """The value where :func:`_grid_walk` on ``axis`` ends, past the grid's edges (each step there lowering
    ``loss`` by more than ``gain``: each value is compared at its loss plus ``gain`` per step past the edge,
    :meth:`_Axis.steps`) within its bounds; ``loss`` takes the axis's values (each scored once: the caller
    keeps them)."""
    best = _grid_walk(axis.n, start, lambda i: loss(axis.value(i)) + gain * axis.steps(axis.value(i)),
                      (-axis.lo, axis.hi - axis.n + 1))
    return axis.value(best)


def _show_times(t: np.ndarray) -> str:
    """The one time of ``t`` as text (a date as ISO text, a number as it is)."""
    from discrank._util.checks import show

    return str(t[0]) if t.dtype.kind == "M" else show(t[0].item())


def _split(score: np.ndarray, t: Optional[np.ndarray], validation: Any, w: Optional[np.ndarray],
           whole: bool) -> tuple[np.ndarray, np.ndarray]:
    """The games fitted and the validation window: the latest share (or the window) of the games in time
    order (:func:`discrank.solvers._tuning.time_cut`), or the last share of a log without times."""
    from discrank.solvers._tuning import time_cut

    if t is not None:
        return time_cut(t, validation, w, whole)
    cut = int(len(score) * (1 - validation.fraction))
    fit_mask = np.arange(len(score)) < cut
    return fit_mask, ~fit_mask


def _origins(key: np.ndarray, fit_mask: np.ndarray, val_mask: np.ndarray, n_origins: int,
             frozen: bool) -> np.ndarray:
    """The forecasts' origins (indices of the games, in time order, where each fit stops): the window's
    first period and up to ``n_origins - 1`` others spread evenly over its periods, every validation game
    predicted from the latest origin at or before its period (``key``: the games' periods, or their times
    or order for a stationary model); frozen: one origin, the games before the gap."""
    if frozen:
        return np.array([int(np.count_nonzero(fit_mask))])
    val = np.flatnonzero(val_mask)
    units = key[val][np.r_[True, key[val][1:] != key[val][:-1]]]  # the window's periods
    n_origins = min(units.size, n_origins)
    pick = units[np.unique(np.linspace(0, units.size - 1, n_origins).round().astype(int))]
    return np.searchsorted(key, pick, side="left")
