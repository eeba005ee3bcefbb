"""Honest evaluation: train on the past, test on the future, models side by side (:func:`evaluate`).

Every model is fitted (and tuned) on the games before the cut-off and scored on its predictions of the later
games: log loss per game, Brier score, accuracy and a calibration table, with the paired standard error of each
model's difference to a reference model. ``protocol="online"`` predicts each test game from every game before it.
"""

from __future__ import annotations

import numbers
import time as _time
from dataclasses import dataclass, field
from typing import Any, Optional

import numpy as np

from discrank._util.checks import check_one_of, check_positive_int, show, show_time
from discrank.data._coding import code_log
from discrank.evaluation._result import Evaluation
from discrank._util.losses import EPS, game_losses, outcome_losses  # noqa: F401 - EPS: importable from here
from discrank._util.progress import report_stage, speaking, when
from discrank.data._screen import warn_user
from discrank.evaluation._splits import (CALENDAR, check_refit, origins, split_times, validation_like,  # noqa: F401 - CALENDAR: discrank.evaluation._evaluate.CALENDAR
                              validation_online)
from discrank.solvers._tuning import Validation
from discrank.evaluation._walk import OUTCOME_TOL, Games, Tally, Walk, predictions  # noqa: F401 - OUTCOME_TOL: importable from here
from discrank._util.exceptions import OneSidedLogWarning, UnusedColumnWarning
from discrank.data.logs import GameLog
from discrank.evaluation.protocol import ForeignModel, as_rating_model

__all__ = ["evaluate", "Evaluation", "game_losses", "outcome_losses"]

UNSEEN = ("exclude", "prior")
PROTOCOLS = ("frozen", "online")
#: A log is one-sided when a side wins at least ``ONE_SIDED[0]`` of at least ``ONE_SIDED[1]`` decided games:
#: no first-move or home advantage comes near, and a log written winner first is at 100%.
ONE_SIDED = (0.99, 100)


def _named(models: Any) -> dict[str, Any]:
    if isinstance(models, dict):
        named = dict(models)
    else:
        try:
            items = list(models)
        except TypeError:
            items = [models]
        named = {}
        for m in items:
            base = type(m).__name__
            name, k = base, 2
            while name in named:
                name, k = f"{base}_{k}", k + 1
            named[name] = m
    if not named:
        raise ValueError("give at least one model to evaluate")
    for name, m in named.items():
        if not isinstance(name, str):
            raise TypeError(f"model names must be strings, got {name!r}")
        try:
            named[name] = as_rating_model(m)  # the rating-model protocol; another library's object adapted
        except TypeError:
            raise TypeError(f"model {name!r} ({type(m).__name__}) has no fit / predict_proba: a model to evaluate "
                            "follows discrank.evaluation.protocol.RatingModel, or has fit(log) and predict_proba(a, b)") from None
    return named


def _clone(model: Any) -> Any:
    """A fresh copy to fit (the protocol's ``get_params``: an object of another library that cannot be
    copied, one holding a module say, is itself, refitted in place at each origin)."""
    return type(model)(**model.get_params())



def evaluate(
    models: Any,
    log: GameLog,
    *,
    cutoff: Any = None,
    test_fraction: Optional[float] = None,
    train_start: Any = None,
    test_start: Any = None,
    test_end: Any = None,
    rolling: int = 1,
    unseen: str = "exclude",
    reference: Optional[str] = None,
    tune_like_test: bool = True,
    bins: int = 10,
    protocol: str = "frozen",
    refit: Any = None,
    verbose: Any = None,
) -> Evaluation:
    """Fit each model on the past of a game log and score its predictions of the future (docs/evaluation.md).

    Parameters
    ----------
    models : estimator, list of estimators, or dict of name -> estimator
        Models that follow the rating-model protocol (:class:`discrank.evaluation.protocol.RatingModel`: every
        discrank model), asked through it alone: each is cloned (``get_params``), fitted on the training games
        (``fit(train_log, validation=...)``), asked ``predict_games(log)`` and, when it ``predicts_draws``,
        ``predict_outcomes(log)`` (scored by the three-outcome log loss). A model is given the log's advantage,
        context, margin and match format columns only when it ``takes_advantage``, ``takes_context``,
        ``takes_margin`` or ``takes_format`` (margins never in the games it predicts); ``Evaluation.notes`` and one
        :class:`~discrank._util.exceptions.UnusedColumnWarning` name the others. Any other object with
        ``fit(GameLog)`` and ``predict_proba(a, b)`` is adapted by :class:`discrank.evaluation.protocol.ForeignModel`
        (``Evaluation.fitted`` gives it back, fitted).
    log : GameLog
        Games with times.
    cutoff : time, optional
        Train on the games before it, test on the games from it on (from ``test_start`` when given).
    test_fraction : float, optional
        Instead of ``cutoff``: test on the latest share of the games (the cut falls between two times).
    train_start, test_start, test_end : time, optional
        Train only on games from ``train_start``; test on games in ``[test_start, test_end)``. A gap between
        ``cutoff`` and ``test_start`` is left out under the frozen protocol, given to the models (not scored)
        under the online one.
    rolling : int, default 1
        Number of origins: the test period is cut into ``rolling`` consecutive windows of about equal numbers of
        games, each predicted by models trained on every game before it (from ``train_start``); scores pool them.
    unseen : {"exclude", "prior"}
        Test games with a player not seen in training: left out (default), or predicted from the model's prior
        (asked with ``unseen="prior"``, which another object's predictions must take); counted either way
        (``Evaluation.n_unseen``).
    reference : str, optional
        The model the differences are taken to (default: the first).
    tune_like_test : bool, default True
        Models whose ``fit`` takes ``validation=`` tune on a validation window as long as the test period, after
        a gap as long as the test's (``discrank.Validation``); under the online protocol ``online=True`` and no
        gap. False: their default validation.
    bins : int
        Bins of the calibration table (at least 2).
    protocol : {"frozen", "online"}
        ``"frozen"`` (default): every model predicts the whole test period from its fit on the training games.
        ``"online"``: each test game is predicted from every game before it; the model walks through the games
        from the cut-off in groups (one per distinct time with ``sequential_updates``, else one per ``refit``
        period), predicting each group's scored games, then given the group by ``update`` or, without it,
        refitted on every game so far with its tuned hyperparameters frozen. ``fit_seconds`` then includes the
        updates or refits.
    refit : {"day", "week", "month", "year"} or float, optional
        The refit period of the online protocol: calendar bins of datetime times ("week": ISO weeks, Monday to
        Sunday), or the bin width of numeric times. Default: "week" for datetime times, 1 for numeric times.
        Checked, then ignored, under the frozen protocol.
    verbose : bool, int or None, default None
        Progress on stderr (:func:`discrank.progress`): 1 or True, each origin, each model's fit and its seconds,
        and under the online protocol an update or refit every
        :data:`discrank.evaluation._walk.WALK_REPORT_SECONDS`; 2, also every update or refit and each solver
        iteration; 0, none of its own. None: 1 where a person watches (a terminal or a notebook), else 0.

    Returns
    -------
    Evaluation

    Raises
    ------
    ValueError
        Among others: an unknown ``protocol`` or ``refit`` text, a numeric ``refit`` for datetime times or
        a calendar one for numeric times, ``refit`` not positive, or a model's predictions of the wrong
        shape or not finite.
    TypeError
        ``log`` is not a :class:`GameLog`, or a model has no ``fit`` / ``predict_proba``, or ``verbose`` is
        not a bool or an integer (a negative one: ValueError).

    Warns
    -----
    OneSidedLogWarning
        A side of the log wins at least 99% of at least 100 decided games (:data:`ONE_SIDED`): the log is
        written winner first (:meth:`GameLog.shuffle_sides` orients the games at random).
    UnusedColumnWarning
        The log has columns that some models do not take: one warning naming each such model and column.
    Warning
        Under the online protocol, each category that the updates or refits of a model raised, once per
        model, with the number of updates or refits that raised it and the first message.
    """
    listener = speaking(verbose)  # checked first: the message names the value
    named = _named(models)
    if reference is None:
        reference = next(iter(named))
    if reference not in named:
        raise ValueError(f"reference={reference!r} is not among the models {list(named)}")
    check_one_of(unseen, "unseen", UNSEEN)
    check_one_of(protocol, "protocol", PROTOCOLS)
    if not isinstance(log, GameLog):
        raise TypeError(f"log must be a discrank.GameLog, got {type(log).__name__}")
    if log.time is None:
        raise ValueError("evaluate needs a game log with times (time=...): it trains on the past and tests on the future")
    rolling = check_positive_int(rolling, "rolling")
    _warn_one_sided(log)
    if isinstance(bins, bool) or not isinstance(bins, numbers.Integral) or bins < 2:
        raise ValueError(f"bins must be an integer >= 2, got {bins!r}")

    labels, games = _sorted_games(log)
    t = games.t
    refit = check_refit(refit, t)
    cutoff, train_start, test_start, test_end = split_times(t, cutoff, test_fraction, train_start, test_start, test_end)
    cuts = origins(t, train_start, cutoff, test_start, test_end, int(rolling))
    run = _Run(named, games, len(labels), unseen, protocol == "online", tune_like_test, refit, len(cuts))
    with listener:
        for start, end, t0, t1 in cuts:
            run.origin(start, end, t0, t1)
    for name, tally in run.tallies.items():
        tally.emit(name)
    run.fitted = {name: _relabel(model, labels) for name, model in run.fitted.items()}
    return run.result(reference, int(bins), protocol)


def _warn_one_sided(log: GameLog) -> None:
    """A :class:`~discrank._util.exceptions.OneSidedLogWarning` when a side of ``log`` wins nearly every decided
    game (:data:`ONE_SIDED`): the calibration table would measure the order of the columns."""
    score = np.asarray(log.score, dtype=np.float64)
    wins, losses = int(np.sum(score > 0.5)), int(np.sum(score < 0.5))
    decided = wins + losses
    share, least = ONE_SIDED
    if decided < least or max(wins, losses) < share * decided:
        return
    side, count = ("a", wins) if wins >= losses else ("b", losses)
    warn_user(f"side {side!r} wins {count} of the {decided} decided games of this log ({count / decided:.1%}): it is "
              f"written {'winner' if side == 'a' else 'loser'} first, and the calibration table measures the order of "
              "the columns, not the models. Orient the games at random: log.shuffle_sides(seed) (discrank "
              "--shuffle-sides SEED)", OneSidedLogWarning)


def _sorted_games(log: GameLog) -> tuple[np.ndarray, Games]:
    """(the log's labels, its games sorted by time as player codes, with their covariates, contexts, margins
    and match formats)."""
    order = np.argsort(log.time, kind="stable")
    labels, ca, cb = code_log(log)
    adv = None if log.advantage is None else np.asarray(log.advantage, dtype=np.float64)[order]
    ctx, mg, fmt = getattr(log, "context", None), getattr(log, "margin", None), getattr(log, "match_format", None)
    y = np.asarray(log.score, dtype=np.float64)[order]
    return labels, Games(ca[order], cb[order], y, log.time[order], adv, tuple(log.advantage_names),
                         None if ctx is None else np.asarray(ctx)[order],
                         None if mg is None else np.asarray(mg, dtype=np.float64)[order],
                         None if fmt is None else np.asarray(fmt)[order])


@dataclass
class _Run:
    """One evaluation: the models, the sorted games and the settings every origin shares, and what the
    origins add up to (each model's predictions and outcomes per origin, the scored games' scores, the
    origins' records, the fit seconds, each model as last fitted)."""

    named: dict
    games: Games
    n_labels: int
    unseen: str
    online: bool
    tune_like_test: bool
    refit: Any
    n_origins: int = 1
    preds: dict = field(init=False)  # name -> the predictions of each origin
    outs: dict = field(init=False)  # name -> the three outcomes of each origin (None without them)
    seconds: dict = field(init=False)
    plain: dict = field(init=False)  # name -> (given the games without their covariates, contexts, margins, formats)
    sources: dict = field(init=False)  # plain -> the games given
    ys: list = field(default_factory=list)
    origins: list = field(default_factory=list)
    fitted: dict = field(default_factory=dict)
    notes: list = field(default_factory=list)
    tallies: dict = field(init=False)  # name -> the warnings of its updates or refits (online protocol)

    def __post_init__(self) -> None:
        self.plain = {name: (self.games.adv is not None and not model.takes_advantage,
                             self.games.ctx is not None and not model.takes_context,
                             self.games.mg is not None and not model.takes_margin,
                             self.games.fmt is not None and not model.takes_format)
                      for name, model in self.named.items()}
        self.sources = {key: self.games.without(*key) for key in set(self.plain.values())}
        columns = ", ".join(map(repr, self.games.names))
        self.notes += [f"{name!r} takes no advantage covariates: fitted and scored without the column(s) {columns}"
                       for name, p in self.plain.items() if p[0]]
        self.notes += [f"{name!r} takes no contexts: fitted and scored without the log's context column"
                       for name, p in self.plain.items() if p[1]]
        self.notes += [f"{name!r} takes no margins: fitted and scored without the log's margin columns"
                       for name, p in self.plain.items() if p[2]]
        self.notes += [f"{name!r} takes no match formats: fitted and scored without the log's match_format column"
                       for name, p in self.plain.items() if p[3]]
        if self.notes:  # the columns some models do not use: said once, and kept in the notes
            warn_user("evaluate: " + "; ".join(self.notes), UnusedColumnWarning)
        self.preds = {name: [] for name in self.named}
        self.outs = {name: [] for name in self.named}
        self.seconds = {name: 0.0 for name in self.named}
        self.tallies = {name: Tally() for name in self.named}

    def _rows(self, start, end, t0, t1) -> tuple[np.ndarray, np.ndarray, dict]:
        """(training games, scored test games) of one origin as masks of the sorted games, and its record."""
        t, ca, cb = self.games.t, self.games.ca, self.games.cb
        train = (t < end) if start is None else ((t >= start) & (t < end))
        test = (t >= t0) & (t < t1)
        if not train.any():
            raise ValueError(f"no game in the training period before {show_time(end)}")
        if not test.any():
            raise ValueError(f"no game in the test period {show_time(t0)} .. {show_time(t1)}")
        seen = np.zeros(self.n_labels, dtype=bool)
        seen[ca[train]] = True
        seen[cb[train]] = True
        known = seen[ca] & seen[cb]
        n_unseen = int((test & ~known).sum())
        scored = test & known if self.unseen == "exclude" else test
        if not (test & known).any():
            raise ValueError(
                f"no test game between {show_time(t0)} and {show_time(t1)} has both players in the training period: "
                "the models are given no overlapping players"
            )
        origin = {"train_start": start, "train_end": end, "test_start": t0, "test_end": t1,
                  "train_games": int(train.sum()), "test_games": int(test.sum()), "scored_games": int(scored.sum()),
                  "unseen_games": n_unseen}
        return train, scored, origin

    def origin(self, start, end, t0, t1) -> None:
        """Fit every model on the training games ``[start, end)`` and predict the scored test games of
        ``[t0, t1)``: frozen at the fit, or walked through the test period (online protocol)."""
        t = self.games.t
        train, scored, origin = self._rows(start, end, t0, t1)
        # the training games are a run of the sorted games: [first, cut)
        first = 0 if start is None else int(np.searchsorted(t, start, side="left"))
        cut = int(np.searchsorted(t, end, side="left"))
        train_logs = {k: games.log(slice(first, cut)) for k, games in self.sources.items()}
        if self.online:
            validation = validation_online(t[train], t0, t1, t) if self.tune_like_test else Validation(online=True)
            stop = int(np.searchsorted(t, t1, side="left"))
            walks = {k: Walk(games, first, cut, stop, scored, self.refit) for k, games in self.sources.items()}
            origin["walk_games"] = stop - cut
            origin["groups"] = {}
        else:
            validation = validation_like(t[train], t0, t1, end, t) if self.tune_like_test else None
        sc = np.flatnonzero(scored)
        report_stage(f"evaluate: origin {len(self.origins) + 1}/{self.n_origins}: {origin['train_games']:,} training "
                     f"games before {when(end)}, {origin['scored_games']:,} test games scored from {when(t0)} "
                     f"({'online' if self.online else 'frozen'})")
        for name, proto in self.named.items():
            model = _clone(proto)
            report_stage(f"evaluate: fitting {name!r} on {origin['train_games']:,} games")
            clock = _time.perf_counter()
            model.fit(train_logs[self.plain[name]], validation=validation)
            self.seconds[name] += _time.perf_counter() - clock
            report_stage(f"evaluate: {name!r} fitted in {_time.perf_counter() - clock:.1f} s")
            if self.online:
                model, q, o, n_groups, spent = walks[self.plain[name]].run(model, self.unseen, self.tallies[name],
                                                                           name)
                self.seconds[name] += spent
                origin["groups"][name] = n_groups
            else:
                q, o = predictions(model, self.sources[self.plain[name]], sc, self.unseen)
            self.preds[name].append(q)
            self.outs[name].append(o)
            self.fitted[name] = model
        self.ys.append(self.games.y[scored])
        self.origins.append(origin)

    def result(self, reference: str, bins: int, protocol: str) -> Evaluation:
        """The :class:`Evaluation` of the origins run: per-game losses of the pooled predictions, the
        three-outcome loss of the models that give three outcomes, and the notes."""
        scores = np.concatenate(self.ys)
        predictions = {name: np.concatenate(p) for name, p in self.preds.items()}
        for name, q in predictions.items():
            if q.shape != scores.shape or not np.all(np.isfinite(q)):
                raise ValueError(f"model {name!r} returned {q.shape[0]} predictions for {scores.shape[0]} games, "
                                 "or non-finite ones")
        losses = {name: game_losses(q, scores) for name, q in predictions.items()}
        outcomes = {name: np.concatenate(o, axis=0) for name, o in self.outs.items() if all(x is not None for x in o)}
        for name, o in outcomes.items():
            losses[name]["log_loss3"] = outcome_losses(o, scores)
        notes = list(self.notes)
        if outcomes:
            odd = ~((scores == 0.0) | (scores == 0.5) | (scores == 1.0))
            if odd.any():
                k = int(np.flatnonzero(odd)[0])
                notes.append(f"{int(odd.sum())} scored games have a score outside {{0, 0.5, 1}} (the first: "
                             f"{show(scores[k])}), which is no win, draw or loss: the three-outcome log loss (log_loss3) "
                             f"is NaN for {', '.join(repr(n) for n in outcomes)}")
        return Evaluation(list(self.named), reference, predictions, scores, losses, self.origins, self.unseen,
                          self.seconds, self.fitted, bins, protocol, self.refit if self.online else None, outcomes, notes)


def _relabel(model: Any, labels: np.ndarray) -> Any:
    """A model fitted on player codes with the log's labels back (its ``relabel``): the model, or the
    object of another library that :class:`~discrank.evaluation.protocol.ForeignModel` adapted."""
    model.relabel(labels)
    return model.model if isinstance(model, ForeignModel) else model
