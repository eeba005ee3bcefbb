"""The prediction protocol and the online walk of :func:`discrank.evaluate`: the sorted games as player
codes, the predictions asked of a model (two or three outcomes), and the walk of the online protocol
through the test period, group by group, with updates or frozen refits, whose warnings are summed up
once per model (:class:`Tally`), and whose updates or refits are reported to the listener of
:func:`discrank._util.progress.staging`."""

from __future__ import annotations

import time as _time
import warnings
from typing import Any, Optional

import numpy as np

from discrank._util.calendar import refit_bins
from discrank._util.progress import plural, report_stage, stage_level, when
from discrank.data._screen import warn_user
from discrank.data.logs import GameLog
from discrank.evaluation.protocol import ForeignModel

__all__ = ["OUTCOME_TOL", "WALK_REPORT_SECONDS", "Games", "predictions", "Tally", "Walk"]

#: Rows of three-outcome predictions must sum to 1 within this.
OUTCOME_TOL = 1e-6
#: An online walk's updates or refits are reported at level 2 (each one), and at level 1 (the stages)
#: at most once per this many seconds.
WALK_REPORT_SECONDS = 5.0


class Games:
    """The log's games sorted by time, as player codes, with their covariates, contexts, margins and match
    formats."""

    def __init__(self, ca, cb, y, t, adv, names, ctx=None, mg=None, fmt=None):
        self.ca, self.cb, self.y, self.t, self.adv, self.names, self.ctx = ca, cb, y, t, adv, names, ctx
        self.mg, self.fmt = mg, fmt

    def log(self, rows: Any) -> GameLog:
        """The games ``rows`` (a slice or indices) as a :class:`GameLog` with their covariates, contexts,
        margins and match formats."""
        return GameLog._trusted(self.ca[rows], self.cb[rows], self.y[rows], self.t[rows], {},
                                None if self.adv is None else self.adv[rows], self.names,
                                context=None if self.ctx is None else self.ctx[rows],
                                margin=None if self.mg is None else self.mg[rows],
                                match_format=None if self.fmt is None else self.fmt[rows])

    def without(self, covariates: bool, contexts: bool, margins: bool, formats: bool = False) -> "Games":
        """The same games without their advantage columns, their contexts, their margins and / or their match
        formats (for a model that takes none)."""
        return Games(self.ca, self.cb, self.y, self.t, None if covariates else self.adv,
                     () if covariates else self.names, None if contexts else self.ctx, None if margins else self.mg,
                     None if formats else self.fmt)

    def query(self, rows: np.ndarray) -> GameLog:
        """The games ``rows`` to predict: their players, times, covariates, contexts and match formats; the
        score is a placeholder (0.5) and the margins are left out, so that the outcome cannot reach a
        predictor."""
        return GameLog._trusted(self.ca[rows], self.cb[rows], np.full(rows.shape[0], 0.5), self.t[rows], {},
                                None if self.adv is None else self.adv[rows], self.names,
                                context=None if self.ctx is None else self.ctx[rows],
                                match_format=None if self.fmt is None else self.fmt[rows])


def predictions(model: Any, games: Games, rows: np.ndarray, unseen: str) -> tuple[np.ndarray, Optional[np.ndarray]]:
    """(P(a beats b), [P(a wins), P(draw), P(b wins)] or None) of the games ``rows``, through the
    rating-model protocol (:class:`discrank.evaluation.protocol.RatingModel`): ``predict_games`` and, when the model
    predicts draws, ``predict_outcomes``; with ``unseen="prior"`` each is asked with ``unseen="prior"``
    (under "exclude" every game asked has players of the training period)."""
    unseen = "prior" if unseen == "prior" else "raise"
    query = games.query(rows)
    q = np.asarray(model.predict_games(query, unseen=unseen), dtype=np.float64)
    if not model.predicts_draws:
        return q, None
    o = np.asarray(model.predict_outcomes(query, unseen=unseen), dtype=np.float64)
    name = type(model.model if isinstance(model, ForeignModel) else model).__name__
    if o.shape != (rows.shape[0], 3):
        raise ValueError(f"{name}.predict_outcomes returned an array of shape {o.shape} for {rows.shape[0]} games; "
                         f"expected ({rows.shape[0]}, 3): P(a wins), P(draw), P(b wins)")
    if o.size and not (np.all(np.isfinite(o)) and np.all(o >= 0.0) and np.all(np.abs(o.sum(axis=1) - 1.0) <= OUTCOME_TOL)):
        raise ValueError(f"{name}.predict_outcomes returned rows that are not probabilities (non-negative, finite, "
                         f"summing to 1 within {OUTCOME_TOL:g})")
    return q, o


class Tally:
    """The warnings of one model's updates or refits along the online walks: each category counted once per
    update or refit that raised it, with its first message, and warned about once (:meth:`emit`)."""

    def __init__(self) -> None:
        self.steps = 0
        self.counts: dict[type, int] = {}
        self.first: dict[type, str] = {}
        self.kinds: set[str] = set()

    def run(self, call: Any, kind: str) -> float:
        """Run ``call()`` (an update or a refit: ``kind``), its warnings recorded; its seconds."""
        clock = _time.perf_counter()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            call()
        spent = _time.perf_counter() - clock
        self.steps += 1
        self.kinds.add(kind)
        for category in dict.fromkeys(w.category for w in caught):
            self.counts[category] = self.counts.get(category, 0) + 1
            self.first.setdefault(category, str(next(w.message for w in caught if w.category is category)))
        return spent

    def emit(self, name: str) -> None:
        """One warning per category recorded, of that category: ``model {name!r}: k of its n refits raised
        Category; the first: message``."""
        kind = " or ".join(sorted(self.kinds))
        for category, count in self.counts.items():
            warn_user(f"model {name!r}: {count} of its {self.steps} {kind}s of the online protocol raised "
                      f"{category.__name__}; the first: {self.first[category]}", category)


class Walk:
    """The online protocol over one origin: the games ``[cut, stop)`` (sorted by time) given to each
    model group by group after its fit on ``[first, cut)``; ``scored`` marks the games scored."""

    def __init__(self, games: Games, first: int, cut: int, stop: int, scored: np.ndarray, refit: Any):
        self.games, self.first, self.cut, self.stop, self.scored, self.refit = games, first, cut, stop, scored, refit
        self._bounds: dict[str, np.ndarray] = {}
        # the walk being run: the model's name, the groups' bounds, the time of the last level-1 report and
        # the updates or refits made before it
        self._said: tuple = ("model", np.zeros(1, dtype=np.int64), 0.0, 0)

    def bounds(self, sequential: bool) -> np.ndarray:
        """Offsets (into ``[cut, stop)``) of the groups' starts, then ``stop - cut``; computed once per
        kind: one group per distinct time, or per refit period."""
        kind = "time" if sequential else "refit"
        if kind not in self._bounds:
            t = self.games.t[self.cut:self.stop]
            key = t if sequential else refit_bins(t, self.refit)
            change = np.flatnonzero(key[1:] != key[:-1]) + 1
            self._bounds[kind] = np.concatenate(([0], change, [t.shape[0]])).astype(np.int64)
        return self._bounds[kind]

    def run(self, model: Any, unseen: str, tally: Tally, name: str = "model"):
        """Walk ``model`` through the games: (the model at the end, predictions, outcomes or None, number
        of groups, seconds spent updating or refitting); the warnings of its updates or refits go to
        ``tally``, and each is reported (:meth:`_report`) with the model's ``name``."""
        sequential = model.sequential_updates
        bounds = self.cut + self.bounds(sequential)
        self._said = (name, bounds, _time.perf_counter(), tally.steps)
        has_update = model.updates
        # a model whose update(a) then update(b) is update(a + b) gets the groups with no scored game at once
        batch = has_update and not sequential and model.batch_updates
        pending = None  # the first game not yet given to a batching model
        # without update: refitted on every game so far, as a fresh copy with its tuned hyperparameters
        # frozen (an object of another library: in place)
        refitted = None if has_update else model.refit_copy()
        qs, os_ = [], []
        spent = 0.0
        stale = False  # given games it has not been refitted on yet (a refit is only run when needed)
        for s, e in zip(bounds[:-1].tolist(), bounds[1:].tolist()):
            rows = s + np.flatnonzero(self.scored[s:e])
            if rows.size:
                if pending is not None:
                    spent += self._update(model, pending, s, tally)
                    pending = None
                if stale:
                    spent += self._refit(refitted, s, tally)
                    model, stale = refitted, False
                q, o = predictions(model, self.games, rows, unseen)
                qs.append(q)
                os_.append(o)
            if batch:
                pending = s if pending is None else pending
            elif has_update:
                spent += self._update(model, s, e, tally)
            else:
                stale = True
        if pending is not None:
            spent += self._update(model, pending, self.stop, tally)
        if stale:  # the last groups: the model ends fitted on every game of the walk
            spent += self._refit(refitted, self.stop, tally)
            model = refitted
        report_stage(f"evaluate: {name!r} walked {plural(len(bounds) - 1, 'group')} of games online: "
                     f"{plural(tally.steps - self._said[3], 'update' if has_update else 'refit')} in {spent:.1f} s")
        q = np.concatenate(qs) if qs else np.zeros(0)
        o = None
        if model.predicts_draws:
            o = np.concatenate(os_, axis=0) if os_ else np.zeros((0, 3))
        return model, q, o, len(bounds) - 1, spent

    def _update(self, model: Any, start: int, end: int, tally: Tally) -> float:
        """``model.update`` with the games ``[start, end)``; its seconds."""
        self._report("update", end)
        return tally.run(lambda: model.update(self.games.log(slice(start, end))), "update")

    def _refit(self, model: Any, end: int, tally: Tally) -> float:
        """Refit ``model`` on every game before ``end`` (from the training period's start); its seconds."""
        self._report("refit", end)
        return tally.run(lambda: model.fit(self.games.log(slice(self.first, end))), "refit")

    def _report(self, kind: str, end: int) -> None:
        """Report an update or refit given the games before ``end`` (the end of a group): at level 2, and
        at level 1 when :data:`WALK_REPORT_SECONDS` have passed since the last report (or the walk's
        start): ``evaluate: 'name' update 37/156 (games to 2022-06-06)``, the groups given and the last game's
        time."""
        level = stage_level()
        if not level:
            return
        name, bounds, last, steps = self._said
        now = _time.perf_counter()
        paced = now - last >= WALK_REPORT_SECONDS
        if paced:
            self._said = (name, bounds, now, steps)
        if paced or level >= 2:
            k = int(np.searchsorted(bounds, end))
            report_stage(f"evaluate: {name!r} {kind} {k}/{len(bounds) - 1} (games to {when(self.games.t[end - 1])})",
                         1 if paced else 2)
