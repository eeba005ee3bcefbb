"""The result of :func:`discrank.evaluate`: per-game losses of each model, their paired differences to a
reference, a calibration table and its plot."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["Evaluation"]


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
