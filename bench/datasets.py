"""Loaders for the real data sets in $DISCRANK_DATA, else ../shared/data (never copied into the repository).

Each returns a :class:`discrank.PairwiseData` (meta-games) or a game log ``(a, b, score, time)``
(human data). ``DATA`` is the folder; ``available()`` says whether it is there.
"""

from __future__ import annotations

import ast
import csv
import gzip
import lzma
import os
from pathlib import Path

import numpy as np

from discrank import PairwiseData

# $DISCRANK_DATA when set (and not empty), else ../shared/data: the rule of the tests (tests/_data.py)
DATA = Path(os.environ.get("DISCRANK_DATA") or Path(__file__).resolve().parents[2] / "shared" / "data")


def available() -> bool:
    return (DATA / "spinning_tops" / "spinning_top_payoffs_subset.npz").exists()


def meta_games() -> dict[str, PairwiseData]:
    """The complete empirical games: Czarnecki et al.'s subset, RRPS bots, soccer, MegaMiner."""
    games = {}
    with np.load(DATA / "spinning_tops" / "spinning_top_payoffs_subset.npz") as z:
        for name in sorted(z.files):
            P = (z[name].astype(np.float64) + 1.0) / 2.0  # A in [-1, 1] -> P, as QB3/discrating does
            # Kuhn poker is stored in float32: P_ij + P_ji = 1 only to 3e-8, so symmetrise exactly.
            games[name] = PairwiseData.from_matrix(0.5 * (P + 1.0 - P.T))
    rows = [ast.literal_eval(line) for line in (DATA / "openspiel_rrps_bots" / "bot_table_file.txt").read_text().splitlines() if line.strip()]
    bots = sorted({r[0] for r in rows} | {r[1] for r in rows})
    index = {b: k for k, b in enumerate(bots)}
    P = np.full((len(bots), len(bots)), np.nan)
    for row, col, value in rows:
        P[index[row], index[col]] = (value / 1000.0 + 1.0) / 2.0  # (won - lost) throws of 1000 -> score
    P = 0.5 * (P + (1.0 - P.T))  # the table's two orientations differ by sampling noise: average them
    games["RRPS bots"] = PairwiseData.from_matrix(P, labels=bots)
    games["soccer (MuJoCo)"] = PairwiseData.from_matrix(np.loadtxt(DATA / "openspiel_soccer_rgucb" / "soccer.txt"))
    a, b, wins, losses = [], [], [], []
    with open(DATA / "megaminer14_arena" / "pairwise_rate.csv") as fh:
        for r in csv.DictReader(fh):
            if r["team"] < r["opponent"]:  # each pair appears from both sides: keep one
                a.append(r["team"]), b.append(r["opponent"])
                wins.append(float(r["wins"])), losses.append(float(r["losses"]))
    wins, losses = np.array(wins), np.array(losses)
    keep = wins + losses > 0
    games["MegaMiner arena"] = PairwiseData.from_pairs(
        np.array(a)[keep], np.array(b)[keep], (wins / np.maximum(wins + losses, 1))[keep], n_games=(wins + losses)[keep],
        weights="uniform",
    )
    return games


def tennis_atp():
    """ATP singles, all levels: (winner, loser, 1.0, tourney date as YYYYMMDD)."""
    a, b, t = [], [], []
    with lzma.open(DATA / "tennis_atp" / "atp_matches_singles_all_levels.csv.xz", "rt") as fh:
        for r in csv.DictReader(fh):
            if r["winner_id"] == r["loser_id"]:  # a few rows pair the placeholder id 199999 with itself
                continue
            a.append(r["winner_id"]), b.append(r["loser_id"]), t.append(int(r["tourney_date"]))
    return np.array(a), np.array(b), np.ones(len(a)), np.array(t)


def go_tygem():
    """Tygem 9d games: (black, white, 1 if Black won, date as YYYYMMDD)."""
    a, b, s, t = [], [], [], []
    with lzma.open(DATA / "go_tygem" / "tygem_9d_games_2005-2011_2015-2016.tsv.xz", "rt") as fh:
        reader = csv.reader(fh, delimiter="\t")
        header = next(reader)
        col = {name: k for k, name in enumerate(header)}
        for r in reader:
            winner = r[col["result"]][:1]
            if winner not in ("B", "W") or r[col["black_id"]] == r[col["white_id"]]:
                continue
            a.append(r[col["black_id"]]), b.append(r[col["white_id"]])
            s.append(1.0 if winner == "B" else 0.0)
            date = r[col["date_raw"]][1:11]
            t.append(int(date.replace(".", "")))
    return np.array(a), np.array(b), np.array(s), np.array(t)


def football():
    """International football: (home, away, 1 / 0.5 / 0 for the home side, date as YYYYMMDD)."""
    a, b, s, t = [], [], [], []
    with gzip.open(DATA / "football_international" / "results.csv.gz", "rt") as fh:
        for r in csv.DictReader(fh):
            if not r["home_score"] or r["home_score"] == "NA":
                continue
            if r["home_team"] == r["away_team"]:
                continue
            h, w = int(r["home_score"]), int(r["away_score"])
            a.append(r["home_team"]), b.append(r["away_team"])
            s.append(1.0 if h > w else 0.5 if h == w else 0.0)
            t.append(int(r["date"].replace("-", "")))
    return np.array(a), np.array(b), np.array(s), np.array(t)


# ------------------------------------------------------------------------------ prediction splits
def _game_log(a, b, score, time, advantage=None, context=None, margin=None, match_format=None):
    """A :class:`discrank.GameLog` sorted by time (stable), labels as strings, times datetime64[ns];
    ``advantage``: a dict of covariate columns by name (checked by ``GameLog.from_arrays``), or None;
    ``context``: each game's context, or None; ``margin``: the sub-contests won by a and by b, shape (n, 2), or
    None; ``match_format``: each game's format, or None."""
    from discrank import GameLog

    time = np.asarray(time, dtype="datetime64[ns]")
    order = np.argsort(time, kind="stable")
    x = None if advantage is None else {name: np.asarray(col)[order] for name, col in advantage.items()}
    return GameLog.from_arrays(np.asarray(a, dtype=str)[order], np.asarray(b, dtype=str)[order],
                               np.asarray(score, dtype=np.float64)[order], time[order], advantage=x,
                               context=None if context is None else np.asarray(context, dtype=str)[order],
                               **({} if margin is None else {"margin": np.asarray(margin, dtype=np.float64)[order]}),
                               **({} if match_format is None
                                  else {"match_format": np.asarray(match_format, dtype=str)[order]}))


def _split(log, train_start, train_end, test_start, test_end=None):
    """(train, test, info): train = games with train_start <= time <= train_end (dates, inclusive);
    test = games from test_start (to test_end inclusive) whose two players both appear in train."""
    day = np.timedelta64(1, "D")
    t = log.time
    tr = (t >= np.datetime64(train_start)) & (t < np.datetime64(train_end) + day)
    te = t >= np.datetime64(test_start)
    if test_end is not None:
        te &= t < np.datetime64(test_end) + day
    train = log._take(tr)
    seen = np.union1d(train.a, train.b)
    both = np.isin(log.a, seen) & np.isin(log.b, seen)
    test = log._take(te & both)
    info = {"train_games": int(tr.sum()), "test_games": int((te & both).sum()),
            "test_dropped_unseen": int((te & ~both).sum()),
            "train_period": f"{train_start} .. {train_end}",
            "test_period": f"{test_start} .. {test_end or str(t[te].max())[:10]}"}
    return train, test, info


def tennis_atp_log(context=False, margin=False, match_format=False, levels=None, since=None):
    """ATP singles, all levels (or those of ``levels``, the file's ``tourney_level`` codes, from the date ``since``,
    "YYYYMMDD"), as a time-sorted GameLog. The file lists the winner first: each game
    is oriented by a fair coin (numpy Generator, seed 0, one draw per game in file order) for which
    player is ``a``; score 1 if ``a`` won. ``context``: each match's surface as its context (Hard, Clay,
    Grass, Carpet; "Unknown" where the file has none). ``margin``: the games each player won (the sums of the
    ``score`` column's sets, "7-6(5) 6-3" giving 13 to 9; a walkover none). ``match_format``: best of one,
    three or five sets ("bo1", "bo3", "bo5", the file's ``best_of``)."""
    import pandas as pd

    df = pd.read_csv(DATA / "tennis_atp" / "atp_matches_singles_all_levels.csv.xz",
                     usecols=["winner_id", "loser_id", "tourney_date"] + (["surface"] if context else [])
                     + (["score"] if margin else []) + (["best_of"] if match_format else [])
                     + (["tourney_level"] if levels else []),
                     dtype={"winner_id": str, "loser_id": str, "tourney_date": str, "score": str, "tourney_level": str})
    df = df[df["winner_id"] != df["loser_id"]]  # a few rows pair the placeholder id 199999 with itself
    if levels:
        df = df[df["tourney_level"].isin(levels)]
    if since:
        df = df[df["tourney_date"] >= since]
    w, l = df["winner_id"].to_numpy(), df["loser_id"].to_numpy()
    flip = np.random.default_rng(0).random(w.size) < 0.5
    time = pd.to_datetime(df["tourney_date"], format="%Y%m%d").to_numpy()
    surface = df["surface"].fillna("Unknown").to_numpy() if context else None
    games = None
    if margin:
        sets = df["score"].fillna("").str.findall(r"(\d+)-(\d+)")
        won = np.array([[sum(int(x) for x, _ in s), sum(int(y) for _, y in s)] for s in sets], dtype=np.float64)
        games = np.where(flip[:, None], won[:, ::-1], won)
    fmt = ("bo" + df["best_of"].astype(str)).to_numpy() if match_format else None
    return _game_log(np.where(flip, l, w), np.where(flip, w, l), np.where(flip, 0.0, 1.0), time, context=surface,
                     margin=games, match_format=fmt)


def tennis_atp_tour_log():
    """The ATP tour-level matches (Grand Slams, Masters, ATP 250/500 and the Finals: levels G, M, A, F) from
    2017 on, with their surfaces, games won and best-of formats (:func:`tennis_atp_log`)."""
    return tennis_atp_log(context=True, margin=True, match_format=True, levels=("G", "M", "A", "F"), since="20170101")


def go_tygem_log(context=False, margin=False):
    """Tygem 9d games as a time-sorted GameLog: a = Black, b = White, score 1 if Black won (results
    other than B+... / W+... and self-pairings dropped); advantage column "black" = 1 in every game (a
    takes Black: the first move, less the komi). ``context``: the time control's main time as the context
    ("0m": byo-yomi only, "1-5m", "10m+"; the file's ``time_control``, e.g. "30/3 5m"). ``margin``: none (most
    games end by resignation: the file has no margin to read); asking for one is an error."""
    if margin:
        raise ValueError("the Tygem log has no margins (most games end by resignation)")
    import pandas as pd

    df = pd.read_csv(DATA / "go_tygem" / "tygem_9d_games_2005-2011_2015-2016.tsv.xz", sep="\t",
                     usecols=["date_raw", "black_id", "white_id", "result"] + (["time_control"] if context else []),
                     dtype=str, keep_default_na=False)
    winner = df["result"].str[:1]
    df = df[winner.isin(["B", "W"]) & (df["black_id"] != df["white_id"])]
    time = pd.to_datetime(df["date_raw"].str[1:11], format="%Y.%m.%d").to_numpy()
    score = (df["result"].str[:1] == "B").to_numpy(dtype=np.float64)
    ctx = None
    if context:
        main = pd.to_numeric(df["time_control"].str.extract(r"(\d+)m", expand=False), errors="coerce").fillna(0)
        ctx = np.where(main.to_numpy() < 1, "0m", np.where(main.to_numpy() < 10, "1-5m", "10m+"))
    return _game_log(df["black_id"].to_numpy(), df["white_id"].to_numpy(), score, time,
                     {"black": np.ones(score.size)}, ctx)


def football_log(context=False, margin=False):
    """International football results as a time-sorted GameLog: a = home team, b = away team,
    score 1 / 0.5 / 0 for the home side (rows without a score, or a team against itself, dropped);
    advantage column "home" = 1 when the match is played at the home team's venue, 0 at a neutral venue
    (the file's ``neutral`` column). ``context``: "friendly" or "competitive" (the file's ``tournament``).
    ``margin``: the goals of each side."""
    import pandas as pd

    df = pd.read_csv(DATA / "football_international" / "results.csv.gz",
                     usecols=["date", "home_team", "away_team", "home_score", "away_score", "neutral", "tournament"])
    df = df.dropna(subset=["home_score", "away_score"])
    df = df[df["home_team"] != df["away_team"]]
    h, w = df["home_score"].to_numpy(dtype=np.float64), df["away_score"].to_numpy(dtype=np.float64)
    score = np.where(h > w, 1.0, np.where(h == w, 0.5, 0.0))
    time = pd.to_datetime(df["date"], format="%Y-%m-%d").to_numpy()
    neutral = df["neutral"].to_numpy()
    if neutral.dtype != bool:  # pandas reads TRUE / FALSE as bools; anything else is not this file
        raise ValueError(f"football: the neutral column holds {neutral.dtype} values, not TRUE / FALSE")
    ctx = np.where(df["tournament"].to_numpy() == "Friendly", "friendly", "competitive") if context else None
    return _game_log(df["home_team"].to_numpy(), df["away_team"].to_numpy(), score, time,
                     {"home": (~neutral).astype(np.float64)}, ctx, np.stack([h, w], axis=1) if margin else None)


#: The prediction splits: name -> (loader, train start, train end (inclusive), test start, test end (inclusive)).
SPLITS = {
    "tennis ATP": (tennis_atp_log, "1968-01-01", "2019-12-31", "2022-01-01", None),
    "Go Tygem": (go_tygem_log, "2005-01-01", "2015-12-31", "2016-07-01", "2016-12-31"),
    "football": (football_log, "1872-01-01", "2014-12-31", "2019-01-01", None),
}


def prediction_splits():
    """Train on the past, test on the future: name -> (train GameLog, test GameLog, info).

    tennis ATP: train 1968-2019, test 2022 on; Go Tygem: train 2005-2015, test 2016-07-01 .. 2016-12-31;
    football: train 1872-2014, test 2019 on. Only test games whose two players both appear in the
    training log are kept; ``info`` counts train games, test games kept and test games dropped for an
    unseen player. The logs carry their advantage columns (football "home", Go "black")."""
    return {name: _split(load(), start, end, test_start, test_end)
            for name, (load, start, end, test_start, test_end) in SPLITS.items()}


def full_logs(context=False, margin=False, match_format=False):
    """The whole log of each prediction split, for the online protocol: name -> (GameLog, dates).

    ``dates`` is ``dict(cutoff=..., test_start=..., test_end=...)`` as numpy datetime64[ns], the dates of
    :func:`prediction_splits`: train on the games before ``cutoff``, test on those with
    ``test_start <= time < test_end`` (``test_end`` None: to the end of the log). tennis ATP: cutoff
    2020-01-01, test from 2022-01-01; Go Tygem: cutoff 2016-01-01, test 2016-07-01 .. 2017-01-01;
    football: cutoff 2015-01-01, test from 2019-01-01. The logs carry their advantage columns, and with
    ``context`` and ``margin`` their contexts and margins (see each loader; the Go log has no margin), and with
    ``match_format`` the tennis log its formats (the others have none)."""
    day = np.timedelta64(1, "D")
    out = {}
    for name, (load, _, end, test_start, test_end) in SPLITS.items():
        dates = dict(cutoff=np.datetime64(end, "ns") + day, test_start=np.datetime64(test_start, "ns"),
                     test_end=None if test_end is None else np.datetime64(test_end, "ns") + day)
        out[name] = (load_columns(load, context, margin, match_format), dates)
    return out


def load_columns(load, context=False, margin=False, match_format=False):
    """The log of the loader ``load`` with the columns asked that it has: its contexts, its margins (not the Go
    log's: it has none) and its match formats (the tennis log's alone)."""
    asked = {"context": context, "margin": margin and load is not go_tygem_log,
             "match_format": match_format and load is tennis_atp_log}
    return load(**{key: True for key, value in asked.items() if value})
