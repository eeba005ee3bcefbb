"""The votes of an arena board: read from a GameLog, a frame or a file, their models coded, their ties
weighted by the policy, their style features checked and standardised, and their comparison graph
checked (:func:`discrank.arena.board.arena_board`'s input)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Optional

import numpy as np

from discrank.arena._fit import BTRows, rows_of
from discrank._util.checks import show
from discrank.data._votes import BOTH_BAD, PAIR_TIES

__all__ = ["BOARD_TIES", "CI_METHODS", "MAX_BOOT", "Coded", "Votes", "check_board_args", "check_graph", "check_ties",
           "rateable", "read_board_votes", "votes_of"]

#: The ties policies a board takes: those of games summed to pairs (Davidson's needs a draw model,
#: ``Elo(draws="davidson")``).
BOARD_TIES = PAIR_TIES
#: The boards' interval methods.
CI_METHODS = ("sandwich", "bootstrap", "none")
#: The most bootstrap replicates a board draws (each holds a copy of the parameters).
MAX_BOOT = 1_000_000


@dataclass
class Votes:
    """The board's votes: model codes, outcome (1, 0, 1/2), the ties policy's weight, style features."""

    labels: np.ndarray
    a: np.ndarray
    b: np.ndarray
    y: np.ndarray
    mult: np.ndarray
    z: np.ndarray
    style_names: tuple
    center: np.ndarray
    scale: np.ndarray

    def rows(self, style: bool = True) -> BTRows:
        return rows_of(self.labels.size, self.a, self.b, self.y, self.mult, self.z if style else None)


def check_ties(ties: Any) -> None:
    if not isinstance(ties, str) or ties not in BOARD_TIES:
        hint = (" (Davidson's ties need a draw model: bootstrap(Elo(draws='davidson'), log))"
                if ties == "davidson" else "")
        raise ValueError(f"ties={show(ties)} is not one of {BOARD_TIES}{hint}")


@dataclass
class Coded:
    """Votes with their models coded: the sorted labels, the codes of a and b, a's score, the style
    features and their names."""

    labels: np.ndarray
    ca: np.ndarray
    cb: np.ndarray
    score: np.ndarray
    advantage: Optional[np.ndarray]
    advantage_names: tuple

    @classmethod
    def of_log(cls, log: Any) -> "Coded":
        from discrank.data._coding import code_log

        labels, ca, cb = code_log(log)
        return cls(labels, ca, cb, np.asarray(log.score, dtype=np.float64), log.advantage,
                   tuple(log.advantage_names) if log.advantage is not None else ())

    def take(self, rows: np.ndarray) -> "Coded":
        """The votes ``rows``, their models coded again among those they hold."""
        ca, cb = self.ca[rows], self.cb[rows]
        used, inverse = np.unique(np.concatenate([ca, cb]), return_inverse=True)
        adv = None if self.advantage is None else self.advantage[rows]
        return Coded(self.labels[used], inverse[:ca.size], inverse[ca.size:], self.score[rows], adv,
                      self.advantage_names)

    @property
    def a(self) -> np.ndarray:
        return self.labels[self.ca]

    @property
    def b(self) -> np.ndarray:
        return self.labels[self.cb]


def votes_of(log: Coded, ties: str, normalize: bool, where: str = "the board",
             min_pair_count: Optional[int] = None) -> Votes:
    """The board's votes of ``log``, ties counted by ``ties``, style features checked (standardised with
    ``normalize``); ``where`` begins each message. With ``min_pair_count``, each vote weighs
    ``1 / max(its pair's votes, min_pair_count)``, scaled to a mean of 1 (``reweighted=True``).

    Raises
    ------
    ValueError
        ``ties="ignore"`` dropping every vote, or every vote of a model (naming it); a style column constant
        over the votes, or a linear combination of the others (naming it).
    """
    labels, ca, cb = log.labels, log.ca, log.cb
    y = np.asarray(log.score, dtype=np.float64)
    tie = y == 0.5
    keep = ~tie if ties == "ignore" else slice(None)  # (a slice: no copy of the columns)
    if ties == "ignore" and tie.any():
        _check_ties_left(labels, ca, cb, tie, where)
    mult = np.full(y.size, 2.0) if ties == "one-win-each" else np.ones(y.size)  # each vote two games
    z = np.zeros((y.size, 0)) if log.advantage is None else np.asarray(log.advantage, dtype=np.float64)
    names = log.advantage_names if log.advantage is not None else ()
    z = z[keep]
    center, scale = np.zeros(z.shape[1]), np.ones(z.shape[1])
    if z.shape[1]:
        size = np.maximum(np.abs(z).max(axis=0), np.finfo(float).tiny)
        std = (z / size).std(axis=0) * size  # no overflow of the squares for columns near 1e300
        flat = np.flatnonzero(std == 0)
        if flat.size:
            raise ValueError(f"{where}: style column {names[flat[0]]!r} is constant ({show(z[0, flat[0]])}) over all "
                             f"{z.shape[0]} of its votes: its coefficient is not identified")
        if normalize:
            center, scale = (z / size).mean(axis=0) * size, std
            z = (z / size - center / size) / (scale / size)
        _check_collinear(z, names, where)
    ca, cb = ca[keep].astype(np.int32, copy=False), cb[keep].astype(np.int32, copy=False)
    mult = mult[keep]
    if min_pair_count is not None and ca.size:  # each unordered pair's votes
        pair = np.minimum(ca, cb).astype(np.int64) * labels.size + np.maximum(ca, cb)
        _, inverse, counts = np.unique(pair, return_inverse=True, return_counts=True)
        weight = 1.0 / np.maximum(counts[inverse], min_pair_count)
        mult = mult * (weight / weight.mean())
    return Votes(labels, ca, cb, y[keep], mult,
                  np.ascontiguousarray(z), names, center, scale)


def _check_ties_left(labels: np.ndarray, ca: np.ndarray, cb: np.ndarray, tie: np.ndarray, where: str) -> None:
    """Refuse ``ties="ignore"`` when it drops every vote, or every vote of a model, naming that."""
    if tie.all():
        raise ValueError(f"{where}: every one of the {tie.size} votes is a tie, and ties='ignore' dropped them all: "
                         "no vote is left to rate (ties='half' counts a tie as half a win for each side)")
    n = labels.size
    played = np.bincount(ca, minlength=n) + np.bincount(cb, minlength=n)
    decisive = np.bincount(ca[~tie], minlength=n) + np.bincount(cb[~tie], minlength=n)
    lost = np.flatnonzero((played > 0) & (decisive == 0))
    if lost.size:
        i = lost[0]
        others = f" ({lost.size} such models: {show(list(labels[lost][:5]))})" if lost.size > 1 else ""
        raise ValueError(f"{where}: every one of the {played[i]} votes of model {show(labels[i])} is a tie, and "
                         f"ties='ignore' dropped them all: the model has no vote left to rate{others}")


def _check_collinear(z: np.ndarray, names: tuple, where: str = "the board") -> None:
    """Refuse a style column that is a linear combination of the columns before it over the votes (its
    residual, from the Gram matrix of the centred columns, below 1e-6 of its norm), naming it."""
    zc = z - z.mean(axis=0)
    gram = zc.T @ zc
    for j in range(1, z.shape[1]):
        g, prev = gram[:j, j], gram[:j, :j]
        try:
            explained = float(g @ np.linalg.solve(prev, g))
        except np.linalg.LinAlgError:
            continue  # the columns before it are collinear themselves: named at their own turn
        if gram[j, j] - explained <= 1e-12 * gram[j, j]:
            raise ValueError(f"{where}: style column {names[j]!r} is a linear combination of {list(names[:j])} over "
                             "its votes: its coefficient is not identified; leave it out")


def check_graph(votes: Votes, where: str) -> None:
    """Refuse votes a board cannot rate, naming the models: fewer than two, or a comparison graph in pieces."""
    from discrank.core import _core
    n = votes.labels.size
    if n < 2:
        raise ValueError(f"{where}: {n} model{'s' if n != 1 else ''} ({show(list(votes.labels))}); a board "
                         "needs at least two")
    count, piece = _core.connected_pieces(n, votes.a, votes.b)
    if count > 1:
        sizes = np.bincount(piece)
        small = np.argsort(sizes)[0]
        raise ValueError(f"{where}: the comparison graph is in {count} pieces (the smallest: "
                         f"{show(list(votes.labels[piece == small][:5]))}); ratings across pieces are not "
                         "comparable")


def rateable(log: Coded, ties: str, where: str) -> Coded:
    """``log`` less the votes of the models that won or lost every one of their (counted) votes, left out in turn
    until none is left, with a UserWarning naming them; a ValueError where fewer than two models are left."""
    n = log.labels.size
    keep, out = np.ones(n, dtype=bool), []
    counted = log.score != 0.5 if ties == "ignore" else np.ones(log.score.size, dtype=bool)
    while True:
        rows = keep[log.ca] & keep[log.cb] & counted
        a, b, y = log.ca[rows], log.cb[rows], log.score[rows]
        wins = np.bincount(a, weights=y, minlength=n) + np.bincount(b, weights=1 - y, minlength=n)
        played = np.bincount(a, minlength=n) + np.bincount(b, minlength=n)
        extreme = np.flatnonzero(keep & (played > 0) & ((wins == 0) | (wins == played)))
        if not extreme.size:
            break
        out += [(show(log.labels[i].item() if hasattr(log.labels[i], "item") else log.labels[i]),
                 "lost" if wins[i] == 0 else "won", int(played[i])) for i in extreme]
        keep[extreme] = False
    if not out:
        return log
    if keep.sum() < 2:
        name, how, count = out[0]
        raise ValueError(f"{where}: model {name} {how} every one of its {count} votes: its Bradley-Terry rating is "
                         "infinite, and fewer than two models are left to rate")
    import warnings

    shown = ", ".join(f"{name} ({how} {count} of {count})" for name, how, count in out[:5])
    shown += f", ... ({len(out)} in all)" if len(out) > 5 else ""
    warnings.warn(f"{where}: left out {len(out)} model(s) that won or lost every one of their votes (a Bradley-Terry "
                  f"rating would be infinite), with their votes: {shown}; the others are rated", UserWarning,
                  stacklevel=5)
    return log.take(np.flatnonzero(keep[log.ca] & keep[log.cb]))


def read_board_votes(source: Any, *, style: Any = None, category: Any = None, **read: Any) -> tuple[Coded, Optional[np.ndarray]]:
    """The votes coded, and each vote's category, from a GameLog (``category``: the values) or a frame or a
    file (``category``: a column). A well-formed arena frame is coded directly
    (:func:`discrank.data.arena.fast_votes`), anything else goes through the readers. Every option is used or
    refused."""
    import os

    import pandas as pd

    from discrank.data._votes import check_bothbad
    from discrank.data.arena import both_bad, check_read_options, fast_votes, frame_of, read_votes, style_features
    from discrank.data.logs import GameLog

    if not isinstance(source, (GameLog, pd.DataFrame, str, os.PathLike)):
        raise TypeError(f"arena_board takes votes (a GameLog, a pandas DataFrame or a file), not a "
                        f"{type(source).__name__}" + (": a PairwiseData has summed the votes, and the intervals "
                                                      "need each vote's outcome" if type(source).__name__ ==
                                                      "PairwiseData" else ""))
    bothbad = check_bothbad(read.get("bothbad", "tie"), read.get("winner", "winner"))
    if isinstance(source, GameLog):
        _check_log_options(source, style, bothbad, read)
        if category is None:
            return Coded.of_log(source), None
        cat = np.asarray(category)
        if cat.shape != (len(source),):
            raise ValueError(f"category must hold one value per vote ({len(source)}), got shape {cat.shape}")
        return Coded.of_log(source), _check_categories(cat, "category")
    check_read_options({k: v for k, v in read.items()
                        if k not in ("model_a", "model_b", "winner", "time", "bothbad", "invalid")})
    frame = frame_of(source)
    cols = {k: read.get(k, k) for k in ("model_a", "model_b", "winner")}
    simple = set(read) <= {"model_a", "model_b", "winner", "bothbad"} and all(c in frame.columns for c in cols.values()) \
        and (category is None or category in frame.columns)
    if simple:
        if bothbad == "ignore":
            kept = ~both_bad(frame, cols["winner"])
            if len(frame) and not kept.any():
                raise ValueError(f"bothbad='ignore': every one of the {len(frame)} votes is a tie in which both "
                                 f"answers were bad ({cols['winner']!r} one of {BOTH_BAD}), so no vote is left")
            frame = frame.loc[kept]
        fast = fast_votes(frame, cols["model_a"], cols["model_b"], cols["winner"])
        if fast is not None:
            z, names = style_features(frame, style) if style is not None else (None, ())
            coded = Coded(*fast, z if names else None, names)
            cat = None if category is None else _check_categories(frame[category].to_numpy(), f"category column {category!r}")
            return coded, cat
    log, cat = read_votes(frame, style=style, extra=category, **read)
    return Coded.of_log(log), None if cat is None else _check_categories(cat, f"category column {category!r}")


def _check_log_options(log: Any, style: Any, bothbad: str, read: dict) -> None:
    """Refuse the options a GameLog of votes cannot use, naming them: column options, ``bothbad="ignore"``
    and a ``style`` other than the log's advantage columns."""
    cols = sorted(k for k in read if k != "bothbad")
    if cols:
        raise ValueError(f"{cols[0]}={show(read[cols[0]])}: the votes are a GameLog, read already; the options "
                         f"{cols} name columns of a frame or file (read_arena reads them into a log)")
    if bothbad == "ignore":
        raise ValueError(f"bothbad='ignore' drops the votes whose winner is one of {BOTH_BAD}, but a GameLog has "
                         "scores, its both-bad ties scored 1/2 with the other ties: read the votes with "
                         "read_arena(..., bothbad='ignore'), or pass the frame or file")
    if style is None:
        return
    from discrank.data.arena import MARKDOWN

    have = tuple(log.advantage_names) if log.advantage is not None else ()
    names = [n.strip() for n in style.split(",") if n.strip()] if isinstance(style, str) else list(style)
    wanted = tuple(x for n in names for x in (MARKDOWN if n == "md" and "md" not in have else (n,)))
    if not have:
        raise ValueError("style= names columns of a file or frame; a GameLog's style covariates are its "
                         "advantage columns, and this log has none")
    if wanted != have:
        raise ValueError(f"style={show(style)} does not match the GameLog's advantage columns {list(have)}: a "
                         "GameLog's style features are its advantage columns (style= may name them, or be left out)")


def _check_categories(cat: np.ndarray, what: str) -> np.ndarray:
    """The categories as strings; a missing one (None, NaN, empty) is a ValueError naming its vote."""
    import pandas as pd

    missing = np.flatnonzero(pd.isna(cat) | (pd.Series(cat).astype(str).str.strip() == "").to_numpy())
    if missing.size:
        raise ValueError(f"{what}: vote {missing[0]} has no category ({show(cat[missing[0]])}; {missing.size} such "
                         "votes)")
    return cat.astype(str)


def check_board_args(level: Any, ci: str, n_boot: Any, seed: Any, style_reg: Any, ridge: Any, anchor_rating: Any,
                     ties: str, min_votes: Any, min_pair_count: Any = 1) -> float:
    """:func:`discrank.arena_board`'s arguments checked (a ValueError names the value); the level as a float."""
    if isinstance(level, bool) or not isinstance(level, (int, float, np.floating)) or not 0.0 < float(level) < 1.0:
        raise ValueError(f"level={show(level)} must be a confidence level in (0, 1)")
    if ci not in CI_METHODS:
        raise ValueError(f"ci={show(ci)} is not one of {CI_METHODS}")
    if isinstance(n_boot, bool) or not isinstance(n_boot, (int, np.integer)) or not 2 <= n_boot <= MAX_BOOT:
        raise ValueError(f"n_boot={show(n_boot)} must be an integer in [2, {MAX_BOOT}]")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2 ** 64:
        raise ValueError(f"seed={show(seed)} must be an integer in [0, 2^64) (replicate t draws from the "
                         "generator seeded by (seed, t))")
    for name, val in (("style_reg", style_reg), ("ridge", ridge)):
        if isinstance(val, bool) or not isinstance(val, (int, float, np.floating)) or not 0.0 <= float(val) < math.inf:
            raise ValueError(f"{name}={show(val)} must be a finite number >= 0")
    if not isinstance(anchor_rating, (int, float, np.floating)) or not math.isfinite(anchor_rating):
        raise ValueError(f"anchor_rating={show(anchor_rating)} must be a finite number")
    check_ties(ties)
    if isinstance(min_votes, bool) or not isinstance(min_votes, (int, np.integer)) or min_votes < 0:
        raise ValueError(f"min_votes={show(min_votes)} must be an integer >= 0")
    if isinstance(min_pair_count, bool) or not isinstance(min_pair_count, (int, np.integer)) or min_pair_count < 1:
        raise ValueError(f"min_pair_count={show(min_pair_count)} must be an integer >= 1")
    return float(level)
