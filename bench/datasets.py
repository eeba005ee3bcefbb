"""Loaders for the real data sets in ../shared/data (never copied into the repository).

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

DATA = Path(os.environ.get("DISCRANK_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))


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
