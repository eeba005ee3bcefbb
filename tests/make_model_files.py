"""Write the model files of tests/data/model_files: one small fitted model of each kind, saved, with its
predictions beside it (tests/test_model_files.py loads them and checks the predictions bit for bit).

Three versions of the code wrote them, each in its folder: ``784f8e1`` (every model its API has: Elo has no
draw model there), ``9bf26b9`` (the merge before the models moved to one base: Elo's Davidson draws too) and
``6868cbe`` (the last commit before the package moved into subpackages: DynamicElo's disc game and the online
models too). The script uses the public API they share (``fit``, ``update``, ``save``, ``predict_proba``,
``predict_outcomes``); a kind a version lacks is skipped. To write them again, run it with that commit's
``python/`` and today's compiled core (cpp/ has not changed since), with ``-S`` so that an editable install's
import hook does not shadow ``PYTHONPATH`` (the installed packages then come from ``SITE``, the venv's
site-packages)::

    git archive 6868cbe python | tar -x -C /tmp/old && cp $SITE/discrank/core/_core*.so /tmp/old/python/discrank/
    PYTHONPATH=/tmp/old/python:$SITE python -S tests/make_model_files.py tests/data/model_files/6868cbe
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np


def game_log(n_games: int = 60, n_players: int = 6, *, dates: bool = False, advantage: bool = False,
             draws: bool = False, seed: int = 7):
    """A small game log of string players with times (numbers, or dates when ``dates``), and a ``home``
    column and draws when asked."""
    from discrank import GameLog

    rng = np.random.default_rng(seed)
    a = rng.integers(0, n_players, n_games)
    b = (a + rng.integers(1, n_players, n_games)) % n_players
    skill = np.linspace(-1.0, 1.0, n_players)
    p = 1.0 / (1.0 + np.exp(-(skill[a] - skill[b])))
    u = rng.random(n_games)
    score = (u < p).astype(float)
    if draws:
        score[np.abs(u - p) < 0.15] = 0.5
    t = np.sort(rng.integers(0, 40, n_games)).astype(float)
    time = (np.datetime64("2024-01-01") + t.astype("timedelta64[D]") * 7) if dates else t
    names = np.array([f"p{k}" for k in range(n_players)])
    adv = {"home": rng.choice([-1.0, 1.0], n_games)} if advantage else None
    return GameLog.from_arrays(names[a], names[b], score, time, advantage=adv)


def models():
    """(name, make the model, data) of each file: every model, with and without draws, covariates and dates."""
    from discrank import (DiscDecomposition, DiscDecompositionCV, DynamicElo, Elo, EloPlusPlus, GameLog, MElo,
                          PeriodGames, SchurDecomposition)

    plain, home, drawn = game_log(), game_log(advantage=True), game_log(draws=True)
    dated = game_log(dates=True, advantage=True, draws=True)
    untimed = GameLog.from_arrays(plain.a, plain.b, plain.score)
    return [
        ("elo", lambda: Elo(prior_scale=2.0), plain),
        ("elo_home", lambda: Elo(prior_scale=2.0), home),
        ("elo_davidson", lambda: Elo(prior_scale=2.0, draws="davidson"), drawn),
        ("elopp", lambda: EloPlusPlus(prior_scale=2.0), plain),
        ("melo", lambda: MElo(n_components=1, prior_scale=2.0), plain),
        ("disc", lambda: DiscDecomposition(n_components=1, prior_scale=2.0), plain),
        ("disc_cv", lambda: DiscDecompositionCV(regularizations=(0.1, 1.0), n_components=1, cv=2), plain.to_pairs()),
        ("schur", lambda: SchurDecomposition(n_components=1), plain.to_pairs()),
        ("dynamic", lambda: DynamicElo(period=4.0, drift=0.2, prior_scale=1.5), plain),
        ("dynamic_home", lambda: DynamicElo(period=4.0, drift=0.2, prior_scale=1.5), home),
        ("dynamic_davidson", lambda: DynamicElo(period=4.0, drift=0.2, prior_scale=1.5, draws="davidson"), drawn),
        ("dynamic_rk_dates", lambda: DynamicElo(period="month", drift=0.2, prior_scale=1.5, draws="rao-kupper"), dated),
        ("dynamic_stationary", lambda: DynamicElo(period=None, prior_scale=1.5), home),
        ("dynamic_untimed", lambda: DynamicElo(period=None, prior_scale=1.5), untimed),
        ("dynamic_periods", lambda: DynamicElo(period="month", drift=0.2, prior_scale=1.5),
         PeriodGames.from_log(dated, "month")),
        ("dynamic_updated", lambda: DynamicElo(period=4.0, drift=0.2, prior_scale=1.5), home),
        # the kinds 6868cbe added (a version without them skips them)
        ("dynamic_disc", lambda: DynamicElo(period=4.0, drift=0.2, prior_scale=1.5, disc_components=1,
                                            disc_scale=0.5), plain),
        ("online", lambda: _model("OnlineElo", step=0.1), plain),
        ("online_disc", lambda: _model("OnlineDisc", step=0.1), plain),
    ]


def _model(name: str, **params):
    """The model ``name`` of discrank's top level, with ``params``; a TypeError where the version has none."""
    import discrank

    if not hasattr(discrank, name) and name != "OnlineElo":
        raise TypeError(f"no {name} in this version")
    return getattr(discrank, name, None)(**params) if hasattr(discrank, name) else \
        __import__("discrank.online", fromlist=["OnlineElo"]).OnlineElo(**params)


def queries(log):
    """The fixtures each file's predictions are written for: every pair of the log's first players."""
    labels = np.unique(np.concatenate([log.a, log.b]))
    a, b = np.meshgrid(labels, labels)
    keep = a != b
    return a[keep].astype(str), b[keep].astype(str)


def main(folder: str) -> None:
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    from discrank import GameLog

    for name, make, log in models():
        try:
            model = make()
        except TypeError as exc:  # a parameter the API of this version does not have (Elo's draws before 1b77fc9)
            print(f"{name}: skipped ({exc})")
            continue
        if name == "dynamic_updated":  # fitted on the first 40 games, then updated with the rest
            model.fit(_games(log, slice(0, 40))).update(_games(log, slice(40, None)))
        else:
            model.fit(log)
        model.save(out / f"{name}.npz")
        fixture = log if isinstance(log, GameLog) else None
        a, b = queries(_players(log))
        arrays = {"a": a, "b": b, "proba": np.asarray(model.predict_proba(a, b), dtype=np.float64)}
        if fixture is not None and name.startswith(("dynamic", "online")):  # at each game's time, with its covariates
            if getattr(model, "draws", None) is not None:
                arrays["outcomes"] = model.predict_outcomes(fixture)
            else:  # (784f8e1 predicts three outcomes for a draw model only)
                arrays["games"] = model.predict_games(fixture)
        np.savez_compressed(out / f"{name}.expected.npz", **arrays)


def _games(log, rows):
    """The games ``rows`` of ``log``, a GameLog of their own."""
    from discrank import GameLog

    adv = None if log.advantage is None else dict(zip(log.advantage_names, log.advantage[rows].T))
    return GameLog.from_arrays(log.a[rows], log.b[rows], log.score[rows], log.time[rows], advantage=adv)


def _players(data):
    """An object with the columns ``a`` and ``b`` of the players of ``data`` (for :func:`queries`)."""
    if hasattr(data, "i"):  # PairwiseData
        return type("Pairs", (), {"a": data.labels[data.i], "b": data.labels[data.j]})
    if hasattr(data, "bins"):  # PeriodGames
        return type("Periods", (), {"a": data.labels[data.a], "b": data.labels[data.b]})
    return data


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "tests/data/model_files")
