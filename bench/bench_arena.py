"""discrank's arena board against arena-rank, FastChat's bootstrap board and evalica, in the same run.

    python bench/bench_arena.py                  # everything (about 10 minutes on 2 cores)
    python bench/bench_arena.py --quick          # small sizes (a minute)
    python bench/bench_arena.py --only parity    # one section: parity, fastchat, speed

A peer that is not installed (arena-rank, evalica) is skipped with a line saying so; the real log is
skipped when ../shared/data (or $DISCRANK_DATA) is absent. Sections:

parity    discrank.arena_board against arena-rank 0.1.1 with the same settings, on a synthetic arena
          log (60 models, 200k battles with "tie" and "tie (bothbad)", 4 style features as
          len_a/len_b column pairs) and on the ATP tennis log (winner and loser put on a random side,
          seeded; players with fewer than --tennis-min matches among the kept players dropped until none
          is left, then the largest connected piece). Plain: arena_board(df, ridge=1e-5) against
          BradleyTerry, with its default tolerances and tightened ones (gtol=1e-12, ftol=0). Style:
          arena_board(df, style=..., ridge=1e-5, style_reg=R) against ContextualBradleyTerry(reg=R)
          with reweighted=False and normalize_features=True, R = 0 and 1. Max |difference| of the ratings
          and of the 95% interval bounds, in Elo points; and discrank's ridge=1e-5 against its ridge=0.
fastchat  FastChat's published bootstrap board, written here from its description: each battle twice,
          a decisive battle two wins for its winner, a tie one win for each side; logistic regression
          without intercept on +-ln 10 features (scikit-learn's LogisticRegression when installed, else
          scipy's L-BFGS-B, the solver scikit-learn uses, on the same objective), Elo = 400 coef + 1000,
          the anchor model at 1114; bootstrap by resampling battles with replacement; percentile
          intervals. Against arena_board(df, ties=..., ci="bootstrap", anchor=..., anchor_rating=1114).
speed     Best of --reps, from an in-memory pandas frame to the board (reading the frame, coding the
          models, the style features, the fit, the intervals; with style also the plain board the frame
          shows beside it): 200k battles / 60 models / 4 style features, and 2M / 300 plain. The peers
          in the same run: arena-rank (dataset from the frame + fit + sandwich; its bootstrap timed on a
          few replicates and extrapolated per replicate), evalica's bradley_terry and bootstrap.
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import sys
import time
import warnings
from pathlib import Path

import numpy as np

import discrank

STYLE = ("len", "header", "list", "bold")
ELO = 400.0 / math.log(10.0)
DATA = Path(os.environ.get("DISCRANK_DATA") or Path(__file__).resolve().parents[2] / "shared" / "data")


# --- data ------------------------------------------------------------------------------------------------
def synthetic(n_models: int = 60, n_battles: int = 200_000, seed: int = 0, style: bool = True, tie_rate: float = 0.25):
    """An arena log: skewed pair sampling (Dirichlet popularity), Bradley-Terry outcomes with a style
    effect (the normalised differences of 4 counts, a model's verbosity scaling its counts), a quarter
    of the votes ties (40% of them "tie (bothbad)"); ``{name}_a`` / ``{name}_b`` count columns."""
    import pandas as pd

    rng = np.random.default_rng(seed)
    strength = rng.normal(0.0, 1.0, n_models)
    pop = rng.dirichlet(np.full(n_models, 2.0))
    a = rng.choice(n_models, n_battles, p=pop)
    b = rng.choice(n_models, n_battles, p=pop)
    while (same := a == b).any():
        b[same] = rng.choice(n_models, int(same.sum()), p=pop)
    d = strength[a] - strength[b]
    cols = {}
    if style:
        verb = rng.lognormal(0.0, 0.4, n_models)
        beta = (0.3, 0.05, 0.1, 0.08)
        for name, mu, coef in zip(STYLE, (6.0, 0.5, 1.0, 0.8), beta):
            if name == "len":
                xa = np.rint(np.exp(mu + 0.5 * rng.standard_normal(n_battles)) * verb[a])
                xb = np.rint(np.exp(mu + 0.5 * rng.standard_normal(n_battles)) * verb[b])
            else:
                xa = rng.poisson(np.exp(mu) * verb[a]).astype(float)
                xb = rng.poisson(np.exp(mu) * verb[b]).astype(float)
            cols[f"{name}_a"], cols[f"{name}_b"] = xa, xb
            d = d + coef * normalised_difference(xa, xb)
    win_a = rng.random(n_battles) < 1.0 / (1.0 + np.exp(-d))
    winner = np.where(win_a, "model_a", "model_b").astype(object)
    tie = rng.random(n_battles) < tie_rate
    winner[tie] = np.where(rng.random(int(tie.sum())) < 0.4, "tie (bothbad)", "tie")
    names = np.array([f"model-{i:03d}" for i in range(n_models)])
    return pd.DataFrame({"model_a": names[a], "model_b": names[b], "winner": winner, **cols})


def normalised_difference(xa: np.ndarray, xb: np.ndarray) -> np.ndarray:
    """(a - b) / (a + b), 0 where both are 0: Chatbot Arena's style feature."""
    total = xa + xb
    return np.divide(xa - xb, total, out=np.zeros_like(total), where=total != 0)


def with_features(df, names=STYLE):
    """The frame with one feature column per style name (``f_len``, ...), for arena-rank."""
    out = df.copy()
    for name in names:
        out[f"f_{name}"] = normalised_difference(df[f"{name}_a"].to_numpy(float), df[f"{name}_b"].to_numpy(float))
    return out


def tennis(min_matches: int, seed: int = 0):
    """The ATP log as arena votes (a random side per match, seeded), with ``age_a`` / ``age_b``; players
    with fewer than ``min_matches`` matches among the kept players dropped until none is left, then the
    largest connected piece. None and the reason when the data is absent."""
    import pandas as pd
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    path = DATA / "tennis_atp" / "atp_matches_singles_all_levels.csv.xz"
    if not path.exists():
        return None, f"{path} is absent"
    raw = pd.read_csv(path, usecols=["winner_id", "loser_id", "winner_age", "loser_age"]).dropna()
    raw = raw[raw.winner_id != raw.loser_id]
    w, lo = raw.winner_id.to_numpy(np.int64), raw.loser_id.to_numpy(np.int64)
    keep = np.ones(w.size, dtype=bool)
    while True:
        ids, counts = np.unique(np.r_[w[keep], lo[keep]], return_counts=True)
        few = ids[counts < min_matches]
        drop = keep & (np.isin(w, few) | np.isin(lo, few))
        if not drop.any():
            break
        keep &= ~drop
    ids, code = np.unique(np.r_[w[keep], lo[keep]], return_inverse=True)
    m = int(keep.sum())
    g = coo_matrix((np.ones(m), (code[:m], code[m:])), shape=(ids.size, ids.size))
    _, piece = connected_components(g, directed=False)
    big = np.argmax(np.bincount(piece))
    inside = (piece[code[:m]] == big) & (piece[code[m:]] == big)
    wa, la = raw.winner_age.to_numpy(float)[keep][inside], raw.loser_age.to_numpy(float)[keep][inside]
    wi, li = w[keep][inside].astype(str), lo[keep][inside].astype(str)
    side = np.random.default_rng(seed).random(wi.size) < 0.5  # True: the winner is model_a
    return pd.DataFrame({"model_a": np.where(side, wi, li), "model_b": np.where(side, li, wi),
                         "winner": np.where(side, "model_a", "model_b"),
                         "age_a": np.where(side, wa, la), "age_b": np.where(side, la, wa)}), ""


# --- helpers ---------------------------------------------------------------------------------------------
def peer(name: str):
    """The module, or None and the reason it is skipped."""
    try:
        if name == "arena_rank":
            import arena_rank.models.bradley_terry  # noqa: F401
            import arena_rank.models.contextual_bradley_terry  # noqa: F401
            import arena_rank.utils.data_utils  # noqa: F401
            import arena_rank as mod
        else:
            mod = __import__(name)
        return mod, ""
    except ImportError as err:
        return None, f"{name} is not installed ({err}); pip install '.[bench]'"


def best_of(reps: int, fn):
    """The fastest of ``reps`` calls, in seconds, and the last call's result."""
    best, out = math.inf, None
    for _ in range(reps):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def board_table(board) -> dict:
    """model -> (rating, lower, upper) of a discrank board."""
    f = board.frame
    return {str(m): (r, lo, hi) for m, r, lo, hi in zip(f.model, f.rating, f.lower, f.upper)}


def max_diffs(x: dict, y: dict) -> tuple[float, float]:
    """Max |difference| of the ratings, and of the interval bounds, of two tables over their models."""
    keys = sorted(x)
    if sorted(y) != keys:
        raise ValueError(f"the two boards rate different models ({len(x)} and {len(y)})")
    a, b = np.array([x[k] for k in keys]), np.array([y[k] for k in keys])
    return float(np.max(np.abs(a[:, 0] - b[:, 0]))), float(np.max(np.abs(a[:, 1:] - b[:, 1:])))


def row(label: str, *cells) -> None:
    print(f"| {label} | " + " | ".join(cells) + " |")


# --- arena-rank ------------------------------------------------------------------------------------------
TIGHT = dict(gtol=1e-12, ftol=0.0, max_iter=20_000)


def arena_rank_plain(df, tight: bool = False, ci: str = "sandwich", num_bootstrap: int = 2, n_jobs: int = -1) -> dict:
    """arena-rank's BradleyTerry board (default settings, or ``TIGHT``): model -> (rating, lower, upper)."""
    from arena_rank.models.bradley_terry import BradleyTerry
    from arena_rank.utils.data_utils import PairDataset

    data = PairDataset.from_pandas(df)
    model = BradleyTerry(len(data.competitors), **(TIGHT if tight else {}))
    out = model.compute_ratings_and_cis(data, ci_method=ci, num_bootstrap=num_bootstrap, n_jobs=n_jobs)
    return _peer_table(out)


def arena_rank_style(df, names, reg: float, tight: bool = False, ci: str = "sandwich", num_bootstrap: int = 2,
                     n_jobs: int = -1) -> dict:
    """arena-rank's ContextualBradleyTerry(reg) board, reweighted=False, features normalised."""
    from arena_rank.models.contextual_bradley_terry import ContextualBradleyTerry
    from arena_rank.utils.data_utils import ContextualPairDataset

    data = ContextualPairDataset.from_pandas(with_features(df, names), [f"f_{n}" for n in names], reweighted=False,
                                             normalize_features=True)
    model = ContextualBradleyTerry(len(data.competitors), len(names), reg=reg, **(TIGHT if tight else {}))
    out = model.compute_ratings_and_cis(data, ci_method=ci, num_bootstrap=num_bootstrap, n_jobs=n_jobs)
    return _peer_table(out)


def _peer_table(out: dict) -> dict:
    r, lo, hi = (np.asarray(out[k], dtype=float) for k in ("ratings", "rating_lower", "rating_upper"))
    return {str(m): (r[i], lo[i], hi[i]) for i, m in enumerate(out["competitors"])}


# --- parity ----------------------------------------------------------------------------------------------
def parity(df, label: str, names, regs=(0.0, 1.0)) -> None:
    """The parity rows of one log: plain, then with style for each ``reg``."""
    mod, why = peer("arena_rank")
    mine = board_table(discrank.arena_board(df, ridge=1e-5))
    exact = board_table(discrank.arena_board(df))
    dr, dci = max_diffs(mine, exact)
    row(f"{label}: discrank ridge=1e-5 vs ridge=0, plain", f"{dr:.1e}", f"{dci:.1e}")
    if mod is None:
        print(f"(arena-rank parity skipped: {why})")
    else:
        for tight in (False, True):
            dr, dci = max_diffs(mine, arena_rank_plain(df, tight))
            row(f"{label}: plain, arena-rank {'tightened' if tight else 'default tol'}", f"{dr:.1e}", f"{dci:.1e}")
    if not names:
        return
    for reg in regs:
        mine = board_table(discrank.arena_board(df, style=list(names), ridge=1e-5, style_reg=reg))
        if reg == regs[0]:
            exact = board_table(discrank.arena_board(df, style=list(names), style_reg=reg))
            dr, dci = max_diffs(mine, exact)
            row(f"{label}: discrank ridge=1e-5 vs ridge=0, style reg={reg:g}", f"{dr:.1e}", f"{dci:.1e}")
        if mod is None:
            continue
        for tight in (False, True):
            theirs = arena_rank_style(df, names, reg, tight)
            dr, dci = max_diffs(mine, theirs)
            row(f"{label}: style reg={reg:g}, arena-rank {'tightened' if tight else 'default tol'}",
                f"{dr:.1e}", f"{dci:.1e}")
        if reg > 0:
            board = discrank.arena_board(df, style=list(names), ridge=1e-5, style_reg=reg)
            dr, dci = max_diffs(their_sandwich(board, reg), theirs)
            row(f"{label}: style reg={reg:g}, discrank's fit with arena-rank's sandwich formula, vs arena-rank "
                "tightened", f"{dr:.1e}", f"{dci:.1e}")


def their_sandwich(board, reg: float, hessian_reg: float = 1e-5) -> dict:
    """The intervals of ``board``'s fit by arena-rank's contextual sandwich formula: the bread is the
    likelihood's Hessian plus ``hessian_reg * votes`` on the diagonal, without the penalty's curvature
    ``reg * votes`` on the style block; the meat is the votes' squared scores less ``reg^2 beta beta^T``."""
    from scipy.stats import norm

    fit, n = board.fit, board.labels.size
    bread = fit.hessian()
    bread[np.diag_indices_from(bread)] += hessian_reg * fit.rows.votes
    beta = np.r_[np.zeros(n), fit.x[n:]]
    inv = np.linalg.inv(bread)
    se = ELO * np.sqrt(np.diag(inv @ (fit.meat() - reg ** 2 * np.outer(beta, beta)) @ inv))[:n]
    point = 1000.0 + ELO * (fit.x[:n] - fit.x[:n].mean())
    z = norm.ppf(0.975)
    return {str(m): (point[i], point[i] - z * se[i], point[i] + z * se[i]) for i, m in enumerate(board.labels)}


def section_parity(args) -> None:
    print("\n## Parity with arena-rank (Elo points; 95% intervals; discrank ridge=1e-5 unless said)\n")
    row("log and settings", "max abs diff rating", "max abs diff CI bound")
    print("|---|---|---|")
    parity(synthetic(args.models, args.battles, seed=1), f"synthetic {args.models} models / {args.battles} battles", STYLE)
    df, why = tennis(args.tennis_min)
    if df is None:
        print(f"(ATP tennis skipped: {why})")
        return
    n = len(set(df.model_a) | set(df.model_b))
    parity(df, f"ATP tennis {n} players / {len(df)} matches, style: age", ("age",))
