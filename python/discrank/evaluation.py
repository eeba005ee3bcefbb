"""Honest evaluation: train on the past, test on the future, models side by side.

``evaluate(models, log, cutoff=...)`` fits every model on the games before the cut-off (tuning, if
any, on those games only) and scores its predictions of the later games: log loss per game, Brier
score, accuracy and a calibration table, with the paired standard error of each model's difference to
a reference model (from the per-game loss differences). ``rolling=k`` repeats this at ``k`` origins.
"""

from __future__ import annotations

import copy
import math
import numbers
import time as _time
from dataclasses import dataclass, field
from typing import Any, Optional

import numpy as np

from discrank._checks import check_one_of, check_positive_int, show
from discrank._tuning import Validation, code_log
from discrank.logs import GameLog

__all__ = ["evaluate", "Evaluation", "game_losses"]

#: Predictions are clipped to [EPS, 1 - EPS] in the log loss.
EPS = 1e-15
UNSEEN = ("exclude", "prior")


def game_losses(q: np.ndarray, y: np.ndarray) -> dict[str, np.ndarray]:
    """Per-game losses of predictions ``q`` = P(a beats b) against scores ``y`` of a (1, 0.5, 0).

    ``log_loss``: ``-(y log q + (1 - y) log(1 - q))`` (a draw counts 0.5), ``brier``: ``(q - y)^2``,
    ``correct``: 1 when the favourite won, 0 when it lost, 0.5 for a prediction of exactly 1/2, NaN for
    a draw (accuracy is over decisive games).

    Parameters
    ----------
    q : ndarray of float, shape (n_games,)
        Predicted P(a beats b) of each game; clipped to ``[EPS, 1 - EPS]`` in the log loss.
    y : ndarray of float, shape (n_games,)
        Score of a in each game: 1, 0.5 or 0.

    Returns
    -------
    dict of str -> ndarray, shape (n_games,)
        ``log_loss``, ``brier`` and ``correct`` of each game.
    """
    qc = np.clip(q, EPS, 1.0 - EPS)
    log_loss = -(y * np.log(qc) + (1.0 - y) * np.log1p(-qc))
    correct = np.where(q == 0.5, 0.5, ((q > 0.5) == (y > 0.5)).astype(float))
    correct[y == 0.5] = np.nan
    return {"log_loss": log_loss, "brier": (q - y) ** 2, "correct": correct}


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
        Per-game ``log_loss``, ``brier``, ``correct`` (see :func:`game_losses`).
    origins : list of dict
        Per origin: train and test periods, games in each, test games with an unseen player.
    unseen : str
        "exclude" (games with a player unseen in training are not scored) or "prior".
    fit_seconds : dict of name -> float
        Fit time of each model, summed over the origins.
    fitted : dict of name -> model
        Each model as fitted at the last origin.
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
        loss to the reference (``diff``) and its paired standard error (``se``), ``fit_seconds``."""
        ref = self.losses[self.reference]["log_loss"]
        rows = []
        for name in self.names:
            loss = self.losses[name]
            d = loss["log_loss"] - ref
            n = d.shape[0]
            se = float(np.std(d, ddof=1) / math.sqrt(n)) if n > 1 else math.nan
            correct = loss["correct"]
            decisive = ~np.isnan(correct)
            rows.append({
                "model": name,
                "log_loss": float(np.mean(loss["log_loss"])),
                "brier": float(np.mean(loss["brier"])),
                "accuracy": float(np.mean(correct[decisive])) if decisive.any() else math.nan,
                "diff": float(np.mean(d)),
                "se": se,
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
        width = max(len(n) for n in self.names)
        lines.append(f"{'model':<{width}}  log loss    Brier  accuracy   diff to ref (se)       fit s")
        for r in self.summary():
            lines.append(f"{r['model']:<{width}}  {r['log_loss']:8.4f}  {r['brier']:7.4f}  {r['accuracy']:8.4f}"
                         f"   {r['diff']:+.4f} ({r['se']:.4f})  {r['fit_seconds']:9.2f}")
        return "\n".join(lines)


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
) -> Evaluation:
    """Fit each model on the past of a game log and score its predictions of the future.

    Parameters
    ----------
    models : estimator, list of estimators, or dict of name -> estimator
        discrank models (fitted on the training games, ``model.fit(train_log, validation=...)``, so that
        a prior tuned by default is tuned on the training period only) or any object with
        ``fit(GameLog)`` and ``predict_proba(a, b)`` (such as :class:`discrank.online.OnlineElo`). Each
        is cloned before fitting (``get_params``, or a deep copy where it can be copied).
    log : GameLog
        Games with times.
    cutoff : time, optional
        Train on the games before it, test on the games from it on (from ``test_start`` when given).
    test_fraction : float, optional
        Instead of ``cutoff``: test on the latest share of the games (the cut falls between two times).
    train_start, test_start, test_end : time, optional
        Train only on games from ``train_start``; test on games in ``[test_start, test_end)``. A gap
        between ``cutoff`` and ``test_start`` leaves those games out of both.
    rolling : int, default 1
        Number of origins: the test period is cut into ``rolling`` consecutive windows of about equal
        numbers of games; each window is predicted by models trained on every game before it (from
        ``train_start``). Scores pool the windows.
    unseen : {"exclude", "prior"}
        Test games with a player not seen in training: left out (default), or predicted from the
        model's prior (discrank models: the prior mean; other models: as they predict new players).
        Their number is reported either way (``Evaluation.n_unseen``).
    reference : str, optional
        The model the differences are taken to (default: the first).
    tune_like_test : bool, default True
        Models whose ``fit`` takes ``validation=`` (discrank's models, :class:`~discrank.online.OnlineElo`)
        tune on the training period in the same geometry as the test: the validation window is as long
        as the test period and follows a gap as long as the one between ``cutoff`` and ``test_start``
        (``discrank.Validation``), so that the prior (or step) is chosen for the horizon it is judged
        at. False: their default validation (for the priors, the latest 10% of the games).
    bins : int
        Bins of the calibration table.

    Returns
    -------
    Evaluation
    """
    named = _named(models)
    if reference is None:
        reference = next(iter(named))
    if reference not in named:
        raise ValueError(f"reference={reference!r} is not among the models {list(named)}")
    check_one_of(unseen, "unseen", UNSEEN)
    if not isinstance(log, GameLog):
        raise TypeError(f"log must be a discrank.GameLog, got {type(log).__name__}")
    if log.time is None:
        raise ValueError("evaluate needs a game log with times (time=...): it trains on the past and tests on the future")
    rolling = check_positive_int(rolling, "rolling")
    if isinstance(bins, bool) or not isinstance(bins, numbers.Integral) or bins < 2:
        raise ValueError(f"bins must be an integer >= 2, got {bins!r}")

    order = np.argsort(log.time, kind="stable")
    t = log.time[order]
    labels, ca, cb = code_log(log)
    ca, cb, y = ca[order], cb[order], np.asarray(log.score, dtype=np.float64)[order]
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

    preds: dict[str, list] = {name: [] for name in named}
    ys: list = []
    origins = []
    seconds = {name: 0.0 for name in named}
    fitted: dict[str, Any] = {}
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
        train_log = GameLog(ca[train], cb[train], y[train], t[train])
        validation = _validation_like(t[train], t0, t1, end, t) if tune_like_test else None
        sa, sb = ca[scored], cb[scored]
        for name, proto in named.items():
            model = _clone(proto)
            clock = _time.perf_counter()
            if _takes_validation(model):
                model.fit(train_log, validation=validation)
            else:
                model.fit(train_log)
            seconds[name] += _time.perf_counter() - clock
            q = _predict(model, sa, sb, unseen)
            preds[name].append(np.asarray(q, dtype=np.float64))
            fitted[name] = model
        ys.append(y[scored])
        origins.append({"train_start": start, "train_end": end, "test_start": t0, "test_end": t1,
                        "train_games": int(train.sum()), "test_games": int(test.sum()), "scored_games": int(scored.sum()),
                        "unseen_games": n_unseen})
    for model in fitted.values():
        _relabel(model, labels)
    scores = np.concatenate(ys)
    predictions = {name: np.concatenate(p) for name, p in preds.items()}
    for name, q in predictions.items():
        if q.shape != scores.shape or not np.all(np.isfinite(q)):
            raise ValueError(f"model {name!r} returned {q.shape[0]} predictions for {scores.shape[0]} games, "
                             "or non-finite ones")
    losses = {name: game_losses(q, scores) for name, q in predictions.items()}
    return Evaluation(list(named), reference, predictions, scores, losses, origins, unseen, seconds, fitted, int(bins))


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


def _predict(model: Any, a: np.ndarray, b: np.ndarray, unseen: str) -> np.ndarray:
    if _is_discrank(model) and unseen == "prior":
        return model.predict_proba(a, b, unseen="prior")
    return model.predict_proba(a, b)


def _relabel(model: Any, labels: np.ndarray) -> None:
    """A model fitted on player codes gets the log's labels back (its own ``relabel``)."""
    if hasattr(model, "relabel"):
        model.relabel(labels)

