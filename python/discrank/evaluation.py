"""Honest evaluation: train on the past, test on the future, models side by side.

``evaluate(models, log, cutoff=...)`` fits every model on the games before the cut-off (tuning, if
any, on those games only) and scores its predictions of the later games: log loss per game, Brier
score, accuracy and a calibration table, with the paired standard error of each model's difference to
a reference model (from the per-game loss differences). ``rolling=k`` repeats this at ``k`` origins.

Two protocols: ``protocol="frozen"`` (every model stops at the cut-off) and ``protocol="online"`` (each
test game predicted from every game before it: the models are updated, or refitted, as the test period
goes by). Models with a draw model (``predict_outcomes`` giving draws a probability) are also scored
by the three-outcome log loss.
"""

from __future__ import annotations

import copy
import math
import numbers
import time as _time
from dataclasses import dataclass, field
from typing import Any, Optional

import numpy as np

from discrank._calendar import PERIODS, refit_bins
from discrank._checks import check_one_of, check_positive_int, show
from discrank._coding import code_log
from discrank._losses import EPS, game_losses, outcome_losses  # noqa: F401 - EPS: discrank.evaluation.EPS, as it was
from discrank._tuning import Validation
from discrank.logs import GameLog

__all__ = ["evaluate", "Evaluation", "game_losses", "outcome_losses"]

UNSEEN = ("exclude", "prior")
PROTOCOLS = ("frozen", "online")
#: Calendar refit periods of datetime times (``refit=``).
CALENDAR = PERIODS
#: Rows of three-outcome predictions must sum to 1 within this.
OUTCOME_TOL = 1e-6


@dataclass
class Evaluation:
    """What :func:`evaluate` measured.

    Attributes
    ----------
    names : list of str
        The models, in the order given.
    reference : str
        The model the differences are taken to.
    predictions : dict of name -> ndarray
        P(a beats b) for each scored test game (all origins, in time order).
    scores : ndarray
        The scored test games' scores of a.
    losses : dict of name -> dict of ndarray
        Per-game ``log_loss``, ``brier``, ``correct`` (see :func:`game_losses`), and ``log_loss3`` (see
        :func:`outcome_losses`) for the models in ``outcomes``.
    origins : list of dict
        Per origin: train and test periods, games in each, test games with an unseen player; under the
        online protocol also ``walk_games`` (the games given to the models after the cut-off) and
        ``groups`` (name -> the number of groups each model was updated with).
    unseen : str
        "exclude" (games with a player unseen in training are not scored) or "prior".
    fit_seconds : dict of name -> float
        Fit time of each model, summed over the origins; under the online protocol it includes the
        time of its updates (or refits) over the test period, not that of its predictions.
    fitted : dict of name -> model
        Each model as fitted at the last origin (online protocol: after its last update).
    bins : int
        Bins of the calibration table.
    protocol : str
        "frozen" or "online".
    refit : str, number or None
        The refit period of the online protocol ("day", "week", "month", "year", or a bin width of
        numeric times); None under the frozen protocol.
    outcomes : dict of name -> ndarray, shape (n_games, 3)
        [P(a wins), P(draw), P(b wins)] of each scored game, for the models scored by three outcomes
        (``predict_outcomes``, and not ``predicts_draws = False``).
    notes : list of str
        What the reader should know about the figures (a three-outcome loss left undefined, say).
    """

    names: list
    reference: str
    predictions: dict
    scores: np.ndarray
    losses: dict
    origins: list
    unseen: str
    fit_seconds: dict
    fitted: dict = field(default_factory=dict)
    bins: int = 10
    protocol: str = "frozen"
    refit: Any = None
    outcomes: dict = field(default_factory=dict)
    notes: list = field(default_factory=list)

    @property
    def n_games(self) -> int:
        """Test games scored."""
        return int(self.scores.shape[0])

    @property
    def n_unseen(self) -> int:
        """Test games with a player not seen in training (summed over origins)."""
        return int(sum(o["unseen_games"] for o in self.origins))

    def summary(self) -> list[dict]:
        """One dict per model: ``log_loss``, ``brier``, ``accuracy``, the mean per-game difference of log
        loss to the reference (``diff``) and its paired standard error (``se``), the three-outcome log
        loss (``log_loss3``, NaN for a model without three-outcome predictions) with its paired difference
        to the reference's (``diff3``, ``se3``; NaN unless both have them), ``fit_seconds``."""
        ref = self.losses[self.reference]["log_loss"]
        ref3 = self.losses[self.reference].get("log_loss3")
        rows = []
        for name in self.names:
            loss = self.losses[name]
            diff, se = _paired(loss["log_loss"], ref)
            correct = loss["correct"]
            decisive = ~np.isnan(correct)
            own3 = loss.get("log_loss3")
            diff3, se3 = _paired(own3, ref3) if own3 is not None and ref3 is not None else (math.nan, math.nan)
            rows.append({
                "model": name,
                "log_loss": float(np.mean(loss["log_loss"])),
                "brier": float(np.mean(loss["brier"])),
                "accuracy": float(np.mean(correct[decisive])) if decisive.any() else math.nan,
                "diff": diff,
                "se": se,
                "log_loss3": float(np.mean(own3)) if own3 is not None else math.nan,
                "diff3": diff3,
                "se3": se3,
                "fit_seconds": self.fit_seconds[name],
            })
        return rows

    def frame(self):
        """:meth:`summary` as a pandas DataFrame."""
        import pandas as pd

        return pd.DataFrame(self.summary())

    def calibration(self, name: str) -> dict[str, np.ndarray]:
        """Calibration table of a model: predictions cut into ``bins`` equal-width bins of P(a beats b);
        per bin the games, the mean prediction and the mean observed score of a.

        Parameters
        ----------
        name : str
            One of the models, ``names``.

        Returns
        -------
        dict of str -> ndarray, shape (bins,)
            ``lo`` and ``hi``, the edges of each bin; ``games``, the number of games in it; ``predicted``
            and ``observed``, the mean prediction and the mean score of a there (NaN for an empty bin).

        Raises
        ------
        ValueError
            An unknown model name.
        """
        if name not in self.predictions:
            raise ValueError(f"unknown model {name!r}; the models are {self.names}")
        q = self.predictions[name]
        edges = np.linspace(0.0, 1.0, self.bins + 1)
        which = np.clip(np.digitize(q, edges[1:-1]), 0, self.bins - 1)
        count = np.bincount(which, minlength=self.bins).astype(float)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean_q = np.bincount(which, q, self.bins) / count
            mean_y = np.bincount(which, self.scores, self.bins) / count
        return {"lo": edges[:-1], "hi": edges[1:], "games": count.astype(int), "predicted": mean_q, "observed": mean_y}

    def plot_calibration(self, ax: Any = None):
        """Reliability diagram of every model (needs matplotlib: ``pip install 'discrank[plot]'``).

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Where to draw; default: a new figure.

        Returns
        -------
        matplotlib Axes
            The axes drawn on: the mean observed score against the mean prediction of each non-empty bin
            of :meth:`calibration`, one line per model, with the diagonal.

        Raises
        ------
        ImportError
            matplotlib is not installed.
        """
        try:
            import matplotlib.pyplot as plt
        except ImportError as exc:  # pragma: no cover
            raise ImportError("plot_calibration needs matplotlib: pip install 'discrank[plot]'") from exc
        if ax is None:
            _, ax = plt.subplots(figsize=(5, 5))
        ax.plot([0, 1], [0, 1], color="grey", lw=0.8, ls="--")
        for name in self.names:
            c = self.calibration(name)
            ok = c["games"] > 0
            ax.plot(c["predicted"][ok], c["observed"][ok], marker="o", ms=3, label=name)
        ax.set_xlabel("predicted P(a beats b)")
        ax.set_ylabel("observed score of a")
        ax.set_title(f"calibration, {self.n_games} test games")
        ax.legend(fontsize=7)
        return ax

    def __str__(self) -> str:
        lines = [f"{self.n_games} test games scored ({self.n_unseen} with a player unseen in training: "
                 f"{'excluded' if self.unseen == 'exclude' else 'predicted from the prior'}); "
                 f"differences to {self.reference!r} with their paired standard errors"]
        if self.protocol == "online":
            period = f"periods of {self.refit}" if not isinstance(self.refit, str) else f"each {self.refit}"
            lines.append(f"online protocol: each test game predicted from every game before it (models updated "
                         f"or refitted {period}; sequential models after each time)")
        else:
            lines.append("frozen protocol: every model stops at the cut-off")
        three = bool(self.outcomes)
        width = max(len(n) for n in self.names)
        head = f"{'model':<{width}}  log loss    Brier  accuracy   diff to ref (se)"
        if three:
            head += "   log loss3  diff3 to ref (se)"
        lines.append(head + "       fit s")
        for r in self.summary():
            line = (f"{r['model']:<{width}}  {r['log_loss']:8.4f}  {r['brier']:7.4f}  {r['accuracy']:8.4f}"
                    f"   {r['diff']:+.4f} ({r['se']:.4f})")
            if three:
                has = r["model"] in self.outcomes and self.reference in self.outcomes
                diff3 = f"{r['diff3']:+.4f} ({r['se3']:.4f})" if has else "-"
                loss3 = f"{r['log_loss3']:8.4f}" if r["model"] in self.outcomes else "-"
                line += f"    {loss3:>8}   {diff3:<17}"
            lines.append(line + f"  {r['fit_seconds']:9.2f}")
        lines.extend(f"note: {note}" for note in self.notes)
        return "\n".join(lines)


def _paired(loss: np.ndarray, ref: np.ndarray) -> tuple[float, float]:
    """Mean per-game difference of ``loss`` to ``ref`` and its paired standard error."""
    d = loss - ref
    n = d.shape[0]
    se = float(np.std(d, ddof=1) / math.sqrt(n)) if n > 1 else math.nan
    return float(np.mean(d)), se


def _show_time(value: Any) -> str:
    """A time as the user reads it: ISO text for datetimes, the number otherwise."""
    if isinstance(value, np.datetime64):
        return str(value)
    return show(value)


def _time_value(value: Any, t: np.ndarray, name: str):
    """``value`` in the units of the times ``t`` (datetime64 or numbers); errors name ``name``."""
    if value is None:
        return None
    if t.dtype.kind == "M":
        try:
            out = np.datetime64(value)
        except (ValueError, TypeError):
            raise ValueError(f"{name}={value!r} is not a date or time") from None
        if np.isnat(out):
            raise ValueError(f"{name}={value!r} is not a date or time")
        return out.astype(t.dtype)
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
        raise ValueError(f"{name}={value!r} is not a number, and this log's times are numbers")
    return value


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
        if not (hasattr(m, "fit") and hasattr(m, "predict_proba")):
            raise TypeError(f"model {name!r} ({type(m).__name__}) has no fit / predict_proba")
    return named


def _clone(model: Any) -> Any:
    """A fresh copy to fit: from ``get_params``, else a deep copy, else (an object that cannot be
    copied, one holding a module say) the model itself, refitted in place at each origin."""
    if hasattr(model, "get_params"):
        return type(model)(**model.get_params())
    try:
        return copy.deepcopy(model)
    except (TypeError, copy.Error):
        return model


def _origins(t: np.ndarray, train_start, cutoff, test_start, test_end, rolling: int):
    """The (train start, train end, test start, test end) of each origin."""
    if test_end is None:
        last = t[-1]
        if t.dtype.kind == "M":
            test_end = last + np.timedelta64(1, np.datetime_data(t.dtype)[0])
        else:
            test_end = np.nextafter(last, np.inf) if t.dtype.kind == "f" else last + 1
    if rolling == 1:
        return [(train_start, cutoff, test_start, test_end)]
    inside = t[(t >= test_start) & (t < test_end)]
    if inside.size < rolling:
        raise ValueError(f"rolling={rolling} origins need at least {rolling} test games; the test period has {inside.size}")
    bounds = [inside[int(k * inside.size / rolling)] for k in range(rolling)]
    out = []
    for k in range(rolling):
        start = bounds[k]
        end = bounds[k + 1] if k + 1 < rolling else test_end
        if k > 0 and start == bounds[k - 1]:
            continue
        out.append((train_start, cutoff if k == 0 else start, start, end))
    return out


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
) -> Evaluation:
    """Fit each model on the past of a game log and score its predictions of the future.

    Parameters
    ----------
    models : estimator, list of estimators, or dict of name -> estimator
        discrank models (fitted on the training games, ``model.fit(train_log, validation=...)``, so that
        a prior tuned by default is tuned on the training period only) or any object with
        ``fit(GameLog)`` and ``predict_proba(a, b)`` (such as :class:`discrank.online.OnlineElo`). Each
        is cloned before fitting (``get_params``, or a deep copy where it can be copied). The logs given
        to ``fit`` (and ``update``) hold player codes, the games' times and the log's ``advantage``
        columns (except for a model whose ``takes_advantage`` is False, such as OnlineElo: it is given the
        log without them, and ``Evaluation.notes`` says so). Optional hooks: ``predict_games(log)`` (P(a
        beats b) of each game of a log at its time,
        with its covariates; used instead of ``predict_proba`` when present; the log's ``score`` is a
        placeholder, 0.5), ``predict_outcomes(log)`` ([P(a wins), P(draw), P(b wins)] of each game,
        scored by the three-outcome log loss unless the model's ``predicts_draws`` is False, as for
        discrank's models without a draw model), ``update(log)`` (online protocol) and the class
        attribute ``sequential_updates = True`` (online protocol). Every discrank model predicts through
        ``predict_games`` and ``predict_outcomes``.
    log : GameLog
        Games with times.
    cutoff : time, optional
        Train on the games before it, test on the games from it on (from ``test_start`` when given).
    test_fraction : float, optional
        Instead of ``cutoff``: test on the latest share of the games (the cut falls between two times).
    train_start, test_start, test_end : time, optional
        Train only on games from ``train_start``; test on games in ``[test_start, test_end)``. Under the
        frozen protocol a gap between ``cutoff`` and ``test_start`` leaves those games out of both; under
        the online protocol the models are given the gap's games (not scored) before the test period.
    rolling : int, default 1
        Number of origins: the test period is cut into ``rolling`` consecutive windows of about equal
        numbers of games; each window is predicted by models trained on every game before it (from
        ``train_start``). Scores pool the windows.
    unseen : {"exclude", "prior"}
        Test games with a player not seen in training: left out (default), or predicted from the
        model's prior: the predictions are asked with ``unseen="prior"`` (discrank models: the prior
        mean; another object's ``predict_games``, ``predict_outcomes`` or ``predict_proba`` must take
        that keyword too).
        Their number is reported either way (``Evaluation.n_unseen``). Both protocols score the same
        games: under the online protocol the games of players unseen in training are given to the
        models all the same.
    reference : str, optional
        The model the differences are taken to (default: the first).
    tune_like_test : bool, default True
        Models whose ``fit`` takes ``validation=`` (discrank's models, :class:`~discrank.online.OnlineElo`)
        tune on the training period in the same geometry as the test: the validation window is as long
        as the test period and follows a gap as long as the one between ``cutoff`` and ``test_start``
        (``discrank.Validation``), so that the prior (or step) is chosen for the horizon it is judged
        at; under the online protocol with ``online=True`` and no gap (an online prediction has none).
        False: their default validation (for the priors, the latest 10% of the games; under the online
        protocol ``Validation(online=True)``).
    bins : int
        Bins of the calibration table.
    protocol : {"frozen", "online"}
        ``"frozen"`` (default): every model is fitted on the training games and predicts the whole test
        period from that fit. ``"online"``: each test game is predicted from every game before it. Each
        model is fitted on the training games, then walks through every game from the cut-off to
        ``test_end`` in time order (those of a gap before ``test_start`` and those of players unseen in
        training included; they are given to the model, not scored), cut in groups: for a model with
        ``sequential_updates = True`` one group per distinct time, for the others one group per refit
        period (``refit``). For each group the model predicts the group's scored games from its current
        state, then is given the whole group: ``model.update(group)`` when it has ``update``; otherwise it
        is refitted on every game so far (a discrank model with its tuned hyperparameters frozen: its
        ``prior_scale`` set to the tuned ``prior_scale_``, a cross-validated model as its best estimator,
        and fitted with no tuning; any other object by ``fit(all games so far)``). The refit is exact but
        costs a whole fit per refit period: slow for big logs (a model with ``update`` is the fast path).
        A model with ``batch_updates = True`` (its ``update(a)`` then ``update(b)`` equal ``update(a +
        b)``: DynamicElo) is given the groups with no scored game together, just before the next group it
        predicts. ``fit_seconds`` then includes the updates (or refits).
    refit : {"day", "week", "month", "year"} or float, optional
        The refit period of the online protocol for the models without ``sequential_updates``: calendar
        bins of datetime times ("week": ISO weeks, Monday to Sunday; numpy's ``datetime64[W]`` bins start
        on Thursdays, so they are shifted by three days), or the bin width of numeric times (bins
        ``[k refit, (k + 1) refit)``). Default: "week" for datetime times, 1 for numeric times. Checked,
        then ignored, under the frozen protocol.

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
        ``log`` is not a :class:`GameLog`, or a model has no ``fit`` / ``predict_proba``.
    """
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
    if isinstance(bins, bool) or not isinstance(bins, numbers.Integral) or bins < 2:
        raise ValueError(f"bins must be an integer >= 2, got {bins!r}")

    order = np.argsort(log.time, kind="stable")
    t = log.time[order]
    refit = _check_refit(refit, t)
    labels, ca, cb = code_log(log)
    ca, cb, y = ca[order], cb[order], np.asarray(log.score, dtype=np.float64)[order]
    adv = None if log.advantage is None else np.asarray(log.advantage, dtype=np.float64)[order]
    games = _Games(ca, cb, y, t, adv, tuple(log.advantage_names))
    lo, hi = t[0], t[-1]
    if (cutoff is None) == (test_fraction is None):
        raise ValueError("give exactly one of cutoff= (a time) and test_fraction= (the latest share of the games)")
    if test_fraction is not None:
        if isinstance(test_fraction, bool) or not isinstance(test_fraction, numbers.Real) or not 0.0 < test_fraction < 1.0:
            raise ValueError(f"test_fraction must be in (0, 1), got {test_fraction!r}")
        cut = int(math.floor((1.0 - test_fraction) * len(t)))
        cut = min(max(cut, 1), len(t) - 1)
        cutoff = t[cut]
        if cutoff == t[0]:
            raise ValueError(f"test_fraction={test_fraction}: the log's games all share the earliest time")
    else:
        cutoff = _time_value(cutoff, t, "cutoff")
        if not lo < cutoff <= hi:
            raise ValueError(f"cutoff={_show_time(cutoff)} is outside the log's time range ({_show_time(lo)} .. {_show_time(hi)}): "
                             "no game would be left to train on or to test")
    train_start = _time_value(train_start, t, "train_start")
    test_start = cutoff if test_start is None else _time_value(test_start, t, "test_start")
    test_end = _time_value(test_end, t, "test_end")
    if test_start < cutoff:
        raise ValueError(f"test_start={_show_time(test_start)} precedes the end of the training period (cutoff="
                         f"{_show_time(cutoff)}): the test period must follow the training period")
    if test_end is not None and test_end <= test_start:
        raise ValueError(f"test_end={_show_time(test_end)} is not after test_start={_show_time(test_start)}")
    if train_start is not None and train_start >= cutoff:
        raise ValueError(f"train_start={_show_time(train_start)} is not before the cutoff {_show_time(cutoff)}: no training period")

    online = protocol == "online"
    preds: dict[str, list] = {name: [] for name in named}
    outs: dict[str, list] = {name: [] for name in named}
    ys: list = []
    origins = []
    seconds = {name: 0.0 for name in named}
    fitted: dict[str, Any] = {}
    notes = []
    plain = {name: games.adv is not None and getattr(model, "takes_advantage", True) is False
             for name, model in named.items()}
    if any(plain.values()):
        bare = games.without_covariates()
        columns = ", ".join(map(repr, games.names))
        notes += [f"{name!r} takes no advantage covariates: fitted and scored without the column(s) {columns}"
                  for name, p in plain.items() if p]
    for start, end, t0, t1 in _origins(t, train_start, cutoff, test_start, test_end, int(rolling)):
        train = (t < end) if start is None else ((t >= start) & (t < end))
        test = (t >= t0) & (t < t1)
        if not train.any():
            raise ValueError(f"no game in the training period before {_show_time(end)}")
        if not test.any():
            raise ValueError(f"no game in the test period {_show_time(t0)} .. {_show_time(t1)}")
        seen = np.zeros(len(labels), dtype=bool)
        seen[ca[train]] = True
        seen[cb[train]] = True
        known = seen[ca] & seen[cb]
        n_unseen = int((test & ~known).sum())
        scored = test & known if unseen == "exclude" else test
        if not (test & known).any():
            raise ValueError(
                f"no test game between {_show_time(t0)} and {_show_time(t1)} has both players in the training period: "
                "the models are given no overlapping players"
            )
        # the training games are a run of the sorted games: [first, cut)
        first = 0 if start is None else int(np.searchsorted(t, start, side="left"))
        cut = int(np.searchsorted(t, end, side="left"))
        train_logs = {False: games.log(slice(first, cut))}
        if any(plain.values()):
            train_logs[True] = bare.log(slice(first, cut))
        origin = {"train_start": start, "train_end": end, "test_start": t0, "test_end": t1,
                  "train_games": int(train.sum()), "test_games": int(test.sum()), "scored_games": int(scored.sum()),
                  "unseen_games": n_unseen}
        if online:
            validation = _validation_online(t[train], t0, t1, t) if tune_like_test else Validation(online=True)
            stop = int(np.searchsorted(t, t1, side="left"))
            walks = {False: _Walk(games, first, cut, stop, scored, refit)}
            if any(plain.values()):
                walks[True] = _Walk(bare, first, cut, stop, scored, refit)
            origin["walk_games"] = stop - cut
            origin["groups"] = {}
        else:
            validation = _validation_like(t[train], t0, t1, end, t) if tune_like_test else None
        sc = np.flatnonzero(scored)
        for name, proto in named.items():
            model = _clone(proto)
            clock = _time.perf_counter()
            if _takes_validation(model):
                model.fit(train_logs[plain[name]], validation=validation)
            else:
                model.fit(train_logs[plain[name]])
            seconds[name] += _time.perf_counter() - clock
            if online:
                model, q, o, n_groups, spent = walks[plain[name]].run(model, unseen)
                seconds[name] += spent
                origin["groups"][name] = n_groups
            else:
                q, o = _predictions(model, bare if plain[name] else games, sc, unseen)
            preds[name].append(q)
            outs[name].append(o)
            fitted[name] = model
        ys.append(y[scored])
        origins.append(origin)
    for model in fitted.values():
        _relabel(model, labels)
    scores = np.concatenate(ys)
    predictions = {name: np.concatenate(p) for name, p in preds.items()}
    for name, q in predictions.items():
        if q.shape != scores.shape or not np.all(np.isfinite(q)):
            raise ValueError(f"model {name!r} returned {q.shape[0]} predictions for {scores.shape[0]} games, "
                             "or non-finite ones")
    losses = {name: game_losses(q, scores) for name, q in predictions.items()}
    outcomes = {name: np.concatenate(o, axis=0) for name, o in outs.items() if all(x is not None for x in o)}
    for name, o in outcomes.items():
        losses[name]["log_loss3"] = outcome_losses(o, scores)
    if outcomes:
        odd = ~((scores == 0.0) | (scores == 0.5) | (scores == 1.0))
        if odd.any():
            k = int(np.flatnonzero(odd)[0])
            notes.append(f"{int(odd.sum())} scored games have a score outside {{0, 0.5, 1}} (the first: {show(scores[k])}), "
                         f"which is no win, draw or loss: the three-outcome log loss (log_loss3) is NaN for "
                         f"{', '.join(repr(n) for n in outcomes)}")
    return Evaluation(list(named), reference, predictions, scores, losses, origins, unseen, seconds, fitted, int(bins),
                      protocol, refit if online else None, outcomes, notes)


class _Games:
    """The log's games sorted by time, as player codes, with their covariates."""

    def __init__(self, ca, cb, y, t, adv, names):
        self.ca, self.cb, self.y, self.t, self.adv, self.names = ca, cb, y, t, adv, names

    def log(self, rows: Any) -> GameLog:
        """The games ``rows`` (a slice or indices) as a :class:`GameLog` with their covariates."""
        return GameLog(self.ca[rows], self.cb[rows], self.y[rows], self.t[rows], {},
                       None if self.adv is None else self.adv[rows], self.names)

    def without_covariates(self) -> "_Games":
        """The same games without their advantage columns (for a model that takes none)."""
        return _Games(self.ca, self.cb, self.y, self.t, None, ())

    def query(self, rows: np.ndarray) -> GameLog:
        """The games ``rows`` to predict: their players, times and covariates; the score is a placeholder
        (0.5), so that the outcome cannot reach a predictor."""
        return GameLog(self.ca[rows], self.cb[rows], np.full(rows.shape[0], 0.5), self.t[rows], {},
                       None if self.adv is None else self.adv[rows], self.names)


def _predictions(model: Any, games: _Games, rows: np.ndarray, unseen: str) -> tuple[np.ndarray, Optional[np.ndarray]]:
    """(P(a beats b), [P(a wins), P(draw), P(b wins)] or None) of the games ``rows``, through the prediction
    protocol: the model's ``predict_games`` (else ``predict_proba`` of the players) and, when it scores
    three outcomes (:func:`_scores_outcomes`), ``predict_outcomes``; with ``unseen="prior"`` each is asked
    with ``unseen="prior"`` (under "exclude" every game asked has players of the training period)."""
    kw = {"unseen": "prior"} if unseen == "prior" else {}
    three = _scores_outcomes(model)
    query = games.query(rows) if hasattr(model, "predict_games") or three else None
    if hasattr(model, "predict_games"):
        q = model.predict_games(query, **kw)
    else:
        q = model.predict_proba(games.ca[rows], games.cb[rows], **kw)
    q = np.asarray(q, dtype=np.float64)
    if not three:
        return q, None
    o = np.asarray(model.predict_outcomes(query, **kw), dtype=np.float64)
    name = type(model).__name__
    if o.shape != (rows.shape[0], 3):
        raise ValueError(f"{name}.predict_outcomes returned an array of shape {o.shape} for {rows.shape[0]} games; "
                         f"expected ({rows.shape[0]}, 3): P(a wins), P(draw), P(b wins)")
    if o.size and not (np.all(np.isfinite(o)) and np.all(o >= 0.0) and np.all(np.abs(o.sum(axis=1) - 1.0) <= OUTCOME_TOL)):
        raise ValueError(f"{name}.predict_outcomes returned rows that are not probabilities (non-negative, finite, "
                         f"summing to 1 within {OUTCOME_TOL:g})")
    return q, o


class _Walk:
    """The online protocol over one origin: the games ``[cut, stop)`` (sorted by time) given to each
    model group by group after its fit on ``[first, cut)``; ``scored`` marks the games scored."""

    def __init__(self, games: _Games, first: int, cut: int, stop: int, scored: np.ndarray, refit: Any):
        self.games, self.first, self.cut, self.stop, self.scored, self.refit = games, first, cut, stop, scored, refit
        self._bounds: dict[str, np.ndarray] = {}

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

    def run(self, model: Any, unseen: str):
        """Walk ``model`` through the games: (the model at the end, predictions, outcomes or None, number
        of groups, seconds spent updating or refitting)."""
        sequential = getattr(model, "sequential_updates", False) is True
        bounds = self.cut + self.bounds(sequential)
        has_update = hasattr(model, "update")
        # a model whose update(a) then update(b) is update(a + b) gets the groups with no scored game at once
        batch = has_update and not sequential and getattr(model, "batch_updates", False) is True
        pending = None  # the first game not yet given to a batching model
        # without update: refitted on every game so far; a discrank model as a fresh copy with its tuned
        # hyperparameters frozen, any other object in place
        refitted = None if has_update else (_frozen_refit(model) if _is_discrank(model) else model)
        qs, os_ = [], []
        spent = 0.0
        stale = False  # given games it has not been refitted on yet (a refit is only run when needed)
        for s, e in zip(bounds[:-1].tolist(), bounds[1:].tolist()):
            rows = s + np.flatnonzero(self.scored[s:e])
            if rows.size:
                if pending is not None:
                    spent += self._update(model, pending, s)
                    pending = None
                if stale:
                    spent += self._refit(refitted, s)
                    model, stale = refitted, False
                q, o = _predictions(model, self.games, rows, unseen)
                qs.append(q)
                os_.append(o)
            if batch:
                pending = s if pending is None else pending
            elif has_update:
                spent += self._update(model, s, e)
            else:
                stale = True
        if pending is not None:
            spent += self._update(model, pending, self.stop)
        if stale:  # the last groups: the model ends fitted on every game of the walk
            spent += self._refit(refitted, self.stop)
            model = refitted
        q = np.concatenate(qs) if qs else np.zeros(0)
        o = None
        if _scores_outcomes(model):
            o = np.concatenate(os_, axis=0) if os_ else np.zeros((0, 3))
        return model, q, o, len(bounds) - 1, spent

    def _update(self, model: Any, start: int, end: int) -> float:
        """``model.update`` with the games ``[start, end)``; its seconds."""
        clock = _time.perf_counter()
        model.update(self.games.log(slice(start, end)))
        return _time.perf_counter() - clock

    def _refit(self, model: Any, end: int) -> float:
        """Refit ``model`` on every game before ``end`` (from the training period's start); its seconds."""
        clock = _time.perf_counter()
        model.fit(self.games.log(slice(self.first, end)))
        return _time.perf_counter() - clock


def _frozen_refit(model: Any) -> Any:
    """A fresh copy of a fitted discrank model to refit with no tuning: its hyperparameters as tuned (a
    ``prior_scale`` of None becomes the tuned ``prior_scale_``; a cross-validated model is its best
    estimator, whose parameters hold the chosen regularisation, components and prior)."""
    base = getattr(model, "best_estimator_", None)
    if not _is_discrank(base):
        base = model
    params = base.get_params()
    if "prior_scale" in params and params["prior_scale"] is None and getattr(base, "prior_scale_", None) is not None:
        params["prior_scale"] = float(base.prior_scale_)
    return type(base)(**params)


def _check_refit(refit: Any, t: np.ndarray) -> Any:
    """The refit period for the times ``t``: its default, or ``refit`` checked against their kind."""
    datetimes = t.dtype.kind == "M"
    if refit is None:
        return "week" if datetimes else 1
    if isinstance(refit, str):
        if refit not in CALENDAR:
            raise ValueError(f"refit={refit!r} is not a refit period: give one of {CALENDAR} (datetime times) or a "
                             "positive number (numeric times)")
        if not datetimes:
            raise ValueError(f"refit={refit!r} is a calendar period, and this log's times are numbers ({t.dtype}): "
                             "give a positive number, the width of a refit period in the times' units")
        return refit
    if isinstance(refit, bool) or not isinstance(refit, numbers.Real) or not (math.isfinite(refit) and refit > 0):
        raise ValueError(f"refit must be one of {CALENDAR} (datetime times) or a positive number (numeric times), "
                         f"got {refit!r}")
    if datetimes:
        raise ValueError(f"refit={refit!r} is a number, and this log's times are datetimes ({t.dtype}): give one of "
                         f"{CALENDAR}")
    return refit


def _validation_online(t_train: np.ndarray, t0, t1, t: np.ndarray) -> Validation:
    """The online protocol's :class:`Validation`: the test's window, no gap, ``online=True``, when the
    training period is at least twice the window; else the default fraction, ``online=True``."""
    last = min(t1, t[-1])
    window = last - t0
    span = t_train[-1] - t_train[0]
    if window <= window * 0 or span <= 2 * window:
        return Validation(online=True)
    return Validation(window=window, online=True)


def _validation_like(t_train: np.ndarray, t0, t1, end, t: np.ndarray) -> Optional[Validation]:
    """A :class:`Validation` whose window and gap copy the test's, when the training period is long
    enough (at least twice the window plus the gap); else None (the default)."""
    last = min(t1, t[-1]) if t.dtype.kind == "M" else min(t1, t[-1])
    window = last - t0
    gap = t0 - end
    span = t_train[-1] - t_train[0]
    zero = window * 0
    if window <= zero or span <= 2 * window + gap:
        return None
    return Validation(window=window, gap=gap if gap > zero else None)


def _takes_validation(model: Any) -> bool:
    """Whether ``model.fit`` takes ``validation=`` (discrank's models and OnlineElo do)."""
    import inspect

    try:
        return "validation" in inspect.signature(model.fit).parameters
    except (TypeError, ValueError):
        return False


def _is_discrank(model: Any) -> bool:
    from discrank.models._base import PairwiseModel

    return isinstance(model, PairwiseModel)


def _scores_outcomes(model: Any) -> bool:
    """Whether the model's three outcomes are scored: it has ``predict_outcomes`` and does not say that it
    gives draws no probability (``predicts_draws = False``: a discrank model without a draw model)."""
    return hasattr(model, "predict_outcomes") and getattr(model, "predicts_draws", True) is not False


def _relabel(model: Any, labels: np.ndarray) -> None:
    """A model fitted on player codes gets the log's labels back (its own ``relabel``)."""
    if hasattr(model, "relabel"):
        model.relabel(labels)

