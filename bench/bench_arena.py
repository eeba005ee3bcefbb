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
          and of the 95% interval bounds, in Elo points; and discrank's ridge=1e-5 against its ridge=0. Reweighted:
          arena_board(df, style=..., reweighted=True, min_pair_count=100) against reweighted=True there.
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
import multiprocessing
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

import discrank

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_peers import best_of  # noqa: E402 - the timing of every bench of the peers

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
    if not keep.any():
        return None, f"no player keeps {min_matches} matches among the kept players (--tennis-min)"
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
            import arena_rank as mod
        else:
            mod = __import__(name)
        return mod, ""
    except ImportError as err:
        return None, f"{name} is not installed ({err}); pip install '.[bench]'"


def board_table(board) -> "Table":
    """model -> (rating, lower, upper) of a discrank board, and its style coefficients."""
    f = board.frame
    table = Table({str(m): (r, lo, hi) for m, r, lo, hi in zip(f.model, f.rating, f.lower, f.upper)})
    table.coeffs = board.fit.x[board.labels.size:]
    return table


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
                     n_jobs: int = -1, min_pair_count: int | None = None) -> dict:
    """arena-rank's ContextualBradleyTerry(reg) board, features normalised; reweighted with ``min_pair_count``."""
    from arena_rank.models.contextual_bradley_terry import ContextualBradleyTerry
    from arena_rank.utils.data_utils import ContextualPairDataset

    data = ContextualPairDataset.from_pandas(with_features(df, names), [f"f_{n}" for n in names],
                                             reweighted=min_pair_count is not None,
                                             min_pair_count=min_pair_count or 50, normalize_features=True)
    model = ContextualBradleyTerry(len(data.competitors), len(names), reg=reg, **(TIGHT if tight else {}))
    out = model.compute_ratings_and_cis(data, ci_method=ci, num_bootstrap=num_bootstrap, n_jobs=n_jobs)
    table = _peer_table(out)
    table.coeffs = np.asarray(out["coeffs"], dtype=float)
    return table


class Table(dict):
    """model -> (rating, lower, upper); ``coeffs``: the style coefficients, when the board has them."""

    coeffs = np.zeros(0)


def _peer_table(out: dict) -> Table:
    r, lo, hi = (np.asarray(out[k], dtype=float) for k in ("ratings", "rating_lower", "rating_upper"))
    return Table({str(m): (r[i], lo[i], hi[i]) for i, m in enumerate(out["competitors"])})


def max_gradient(board, table: Table) -> float:
    """The largest |gradient| of the summed, unpenalised log loss of ``board``'s votes at the ratings and
    style coefficients of ``table`` (Elo points, as a board shows them)."""
    rows, labels = board.fit.rows, board.labels
    theta = np.array([table[str(m)][0] for m in labels]) / ELO
    d = theta[rows.a] - theta[rows.b] + (rows.z @ table.coeffs if rows.k else 0.0)
    r = rows.count * rows.mult * (1.0 / (1.0 + np.exp(-d)) - rows.y)
    g = np.bincount(rows.a, r, minlength=labels.size) - np.bincount(rows.b, r, minlength=labels.size)
    return float(max(np.abs(g).max(), np.abs(rows.z.T @ r).max() if rows.k else 0.0))


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
        board = discrank.arena_board(df, style=list(names), ridge=1e-5, style_reg=reg)
        mine = board_table(board)
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
        if reg == 0:
            row(f"{label}: style reg=0, largest gradient of the summed log loss: discrank, arena-rank tightened",
                f"{max_gradient(board, mine):.1e}", f"{max_gradient(board, theirs):.1e}")
        else:
            dr, dci = max_diffs(their_sandwich(board, reg), theirs)
            row(f"{label}: style reg={reg:g}, discrank's fit with arena-rank's sandwich formula, vs arena-rank "
                "tightened", f"{dr:.1e}", f"{dci:.1e}")
    if mod is not None:  # arena-rank's inverse-propensity reweighting (its style example's min_pair_count=100)
        board = discrank.arena_board(df, style=list(names), ridge=1e-5, reweighted=True, min_pair_count=100)
        dr, dci = max_diffs(board_table(board), arena_rank_style(df, names, 0.0, True, min_pair_count=100))
        row(f"{label}: style reg=0, reweighted, min_pair_count=100, arena-rank tightened", f"{dr:.1e}", f"{dci:.1e}")


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
    parity(synthetic(args.models, args.battles, seed=1), f"synthetic {args.models} models / {args.battles} battles",
           STYLE)
    df, why = tennis(args.tennis_min)
    if df is None:
        print(f"(ATP tennis skipped: {why})")
        return
    n = len(set(df.model_a) | set(df.model_b))
    parity(df, f"ATP tennis {n} players / {len(df)} matches, style: age", ("age",))


# --- FastChat's bootstrap board ----------------------------------------------------------------------------
class FastChat:
    """FastChat's MLE board, from its description: each battle counted twice, a decisive one as two wins
    for its winner and a tie as one win for each side; a logistic regression without intercept on the
    features +ln 10 (model_a) and -ln 10 (model_b), no penalty (``C``: an L2 penalty as scikit-learn's),
    stopping at ``tol`` (FastChat's 1e-6); Elo = 400 coef + 1000, shifted so that ``anchor`` is at 1114.
    The battles are held as counts per (model_a, model_b, result) cell, which leaves the regression as it
    is; the bootstrap redraws the battles with replacement and refits."""

    def __init__(self, df, anchor: str, tol: float = 1e-6, C: float | None = None) -> None:
        import pandas as pd

        self.models = np.array(sorted(set(df.model_a) | set(df.model_b)))
        self.n = self.models.size
        a = pd.Categorical(df.model_a, categories=self.models).codes.astype(np.int64)
        b = pd.Categorical(df.model_b, categories=self.models).codes.astype(np.int64)
        result = df.winner.map({"model_a": 0, "model_b": 1, "tie": 2, "tie (bothbad)": 2}).to_numpy()
        self.key = (a * self.n + b) * 3 + result
        self.anchor, self.tol, self.C = int(np.flatnonzero(self.models == anchor)[0]), tol, C
        self.solver = "scipy L-BFGS-B"
        try:
            import sklearn.linear_model  # noqa: F401
            self.solver = "scikit-learn LogisticRegression"
        except ImportError:
            pass

    def ratings(self, idx: np.ndarray | None = None) -> np.ndarray:
        """The board's Elo ratings on the battles ``idx`` (default all)."""
        cnt = np.bincount(self.key if idx is None else self.key[idx], minlength=self.n * self.n * 3).reshape(-1, 3)
        pair = np.flatnonzero(cnt.sum(axis=1))
        win = 2 * cnt[pair, 0] + cnt[pair, 2]  # y = 1 rows: model_a won
        loss = 2 * cnt[pair, 1] + cnt[pair, 2]  # y = 0 rows
        a, b = pair // self.n, pair % self.n
        coef = self._logistic(a, b, win.astype(float), loss.astype(float))
        elo = 400.0 * coef + 1000.0
        return elo + 1114.0 - elo[self.anchor]

    def _logistic(self, a, b, win, loss) -> np.ndarray:
        n, ln10 = self.n, math.log(10.0)
        if self.solver.startswith("scikit"):
            from sklearn.linear_model import LogisticRegression

            m = a.size
            x = np.zeros((2 * m, n))
            x[np.arange(2 * m), np.r_[a, a]] = ln10
            x[np.arange(2 * m), np.r_[b, b]] = -ln10
            y = np.r_[np.ones(m), np.zeros(m)]
            lr = LogisticRegression(fit_intercept=False, penalty=None if self.C is None else "l2",
                                    C=1.0 if self.C is None else self.C, tol=self.tol, max_iter=10_000)
            return lr.fit(x, y, sample_weight=np.r_[win, loss]).coef_[0]
        from scipy.optimize import minimize

        total = win.sum() + loss.sum()
        prec = 0.0 if self.C is None else 1.0 / (self.C * total)

        def f(coef):  # the mean weighted log loss (scikit-learn's scaling) and its gradient
            d = ln10 * (coef[a] - coef[b])
            lp, lq = -np.logaddexp(0.0, -d), -np.logaddexp(0.0, d)  # log p, log (1 - p)
            p = np.exp(lp)
            r = ln10 * ((p - 1.0) * win + p * loss) / total
            g = np.bincount(a, r, minlength=n) - np.bincount(b, r, minlength=n) + prec * coef
            return -(win @ lp + loss @ lq) / total + 0.5 * prec * coef @ coef, g

        out = minimize(f, np.zeros(n), jac=True, method="L-BFGS-B",
                       options=dict(gtol=self.tol, ftol=64 * np.finfo(float).eps, maxiter=10_000, maxls=50))
        return out.x

    def bootstrap(self, rounds: int, seed: int) -> np.ndarray:
        rng = np.random.default_rng(seed)
        m = self.key.size
        return np.array([self.ratings(rng.integers(0, m, m)) for _ in range(rounds)])


def section_fastchat(args) -> None:
    from scipy.stats import norm

    df = synthetic(args.models, args.battles, seed=2)
    anchor = str(df.model_a.value_counts().index[0])  # the most voted model, as FastChat anchors a mainstay
    fc = FastChat(df, anchor)
    print(f"\n## FastChat's bootstrap board ({fc.solver}, tol {fc.tol:g}; {args.models} models / {args.battles} "
          f"battles, anchor {anchor} = 1114; {args.rounds} rounds; Elo points)\n")
    point = fc.ratings()
    tight = FastChat(df, anchor, tol=1e-12).ratings()
    t = time.perf_counter()
    reps = fc.bootstrap(args.rounds, seed=0)
    t_fc = time.perf_counter() - t
    lo, hi = np.percentile(reps, [2.5, 97.5], axis=0)
    row("discrank board", "max abs diff rating (FastChat tol 1e-6)", "(FastChat tol 1e-12)",
        "max abs diff CI bound", "max of abs diff / se")
    print("|---|---|---|---|---|")
    for ties in ("half", "one-win-each"):
        boards = []
        for seed in (0, 1):
            t = time.perf_counter()
            boards.append(discrank.arena_board(df, ties=ties, anchor=anchor, anchor_rating=1114.0, ci="bootstrap",
                                               n_boot=args.rounds, seed=seed).frame.set_index("model").loc[fc.models])
            t_mine = time.perf_counter() - t
        f, g = boards
        se = np.where(f.index == anchor, np.nan, f.se.to_numpy())  # the anchor's bounds are 1114 exactly
        bounds = np.abs(np.r_[f.lower - lo, f.upper - hi])
        row(f'ties="{ties}", seed 0, vs FastChat', f"{np.max(np.abs(f.rating - point)):.1e}",
            f"{np.max(np.abs(f.rating - tight)):.1e}", f"{bounds.max():.2f}",
            f"{np.nanmax(bounds / np.r_[se, se]):.3f}")
        mc = np.abs(np.r_[f.lower - g.lower, f.upper - g.upper])
        row(f'ties="{ties}", seed 0 vs seed 1 (Monte-Carlo error)', "0", "", f"{mc.max():.2f}",
            f"{np.nanmax(mc / np.r_[se, se]):.3f}")
    # the standard deviation of a 2.5% percentile of B normal draws, in units of their sd, and of a
    # difference of two independent such estimates
    sd = math.sqrt(0.025 * 0.975 / args.rounds) / norm.pdf(norm.ppf(0.975))
    print(f"\nPredicted Monte-Carlo sd of a bound: {sd:.3f} se; of the difference of two runs' bounds: "
          f"{math.sqrt(2) * sd:.3f} se (its max over {2 * fc.n} bounds is typically 3 times that). "
          f"Times: FastChat's {args.rounds} rounds {t_fc:.1f} s, discrank's (ties=\"one-win-each\") {t_mine:.2f} s.")


# --- speed -----------------------------------------------------------------------------------------------
def evalica_board(df, boot: int = 0):
    """evalica's bradley_terry from the frame (winners mapped to its enum), or its bootstrap."""
    import evalica

    code = {"model_a": evalica.Winner.X, "model_b": evalica.Winner.Y, "tie": evalica.Winner.Draw,
            "tie (bothbad)": evalica.Winner.Draw}
    xs, ys, ws = df.model_a.tolist(), df.model_b.tolist(), df.winner.map(code).tolist()
    if boot:
        return evalica.bootstrap(evalica.bradley_terry, xs, ys, ws, n_resamples=boot,
                                 bootstrap_method="percentile", random_state=0)
    return evalica.bradley_terry(xs, ys, ws)


def per_replicate(fn, k: int) -> tuple[float, float]:
    """A peer bootstrap's seconds per replicate: (time of ``k`` replicates - time of 2) / (k - 2), which
    leaves out its fixed costs (the point fit, starting the workers, compiling); and the time of ``k``."""
    t2, _ = best_of(lambda: fn(2), 1)
    tk, _ = best_of(lambda: fn(k), 1)
    return max(tk - t2, 0.0) / (k - 2), tk


def speed(df, label: str, style, args) -> None:
    """The speed rows of one workload: discrank's sandwich and bootstrap boards, then the peers'."""
    reps, k = args.reps, args.peer_boot
    kw = dict(style=list(style)) if style else {}
    t_sw, _ = best_of(lambda: discrank.arena_board(df, **kw), reps)
    t_bs, _ = best_of(lambda: discrank.arena_board(df, ci="bootstrap", n_boot=args.boot, **kw), reps)
    t_read, log = best_of(lambda: discrank.read_arena(df, **kw), reps)
    t_log, _ = best_of(lambda: discrank.arena_board(log), reps)
    t_plain, _ = best_of(lambda: discrank.arena_board(df), reps) if style else (t_sw, None)
    row(f"{label}: discrank fit + sandwich", f"{t_sw:.3f} s", "", "")
    row(f"{label}: discrank.read_arena of the frame (a GameLog; not the board's path, which codes the frame "
        "itself)", f"{t_read:.3f} s", "", "")
    row(f"{label}: discrank fit + sandwich from that GameLog", f"{t_log:.3f} s", "", "")
    if style:
        row(f"{label}: discrank's plain board (no style), fit + sandwich", f"{t_plain:.3f} s", "", "")
    row(f"{label}: discrank, {args.boot} bootstrap replicates", f"{t_bs:.2f} s", "", "")
    mod, why = peer("arena_rank")
    if mod is None:
        print(f"(arena-rank skipped: {why})")
    else:
        if style:
            fit = lambda **o: arena_rank_style(df, style, 0.0, **o)  # noqa: E731
        else:
            fit = lambda **o: arena_rank_plain(df, **o)  # noqa: E731
        t_ar, _ = best_of(fit, reps)
        row(f"{label}: arena-rank fit + sandwich", f"{t_sw:.3f} s", f"{t_ar:.2f} s", f"{t_ar / t_sw:.1f}x")
        per, t_arb = per_replicate(lambda j: fit(ci="bootstrap", num_bootstrap=j, n_jobs=os.cpu_count()), k)
        row(f"{label}: arena-rank bootstrap, ({t_arb:.1f} s for {k} - that for 2) / {k - 2} x {args.boot}",
            f"{t_bs:.2f} s", f"{per * args.boot:.0f} s", f"{per * args.boot / t_bs:.0f}x")
    mod, why = peer("evalica")
    if mod is None:
        print(f"(evalica skipped: {why})")
        return
    note = " (plain: it takes no style covariates)" if style else ""
    t_ev, _ = best_of(lambda: evalica_board(df), reps)
    row(f"{label}: evalica bradley_terry, no CI{note}; against discrank's plain board", f"{t_plain:.3f} s",
        f"{t_ev:.2f} s", f"{t_ev / t_plain:.1f}x")
    per, t_evb = per_replicate(lambda j: evalica_board(df, boot=j), k)
    row(f"{label}: evalica bootstrap, ({t_evb:.1f} s for {k} - that for 2) / {k - 2} x {args.boot}{note}",
        f"{t_bs:.2f} s", f"{per * args.boot:.0f} s", f"{per * args.boot / t_bs:.0f}x")


def section_speed(args) -> None:
    load = "{:.1f}, {:.1f}, {:.1f}".format(*os.getloadavg())
    print(f"\n## Speed, best of {args.reps} (from an in-memory pandas frame to the board; {os.cpu_count()} cores; "
          f"load average before: {load})\n")
    row("workload", "discrank", "peer", "peer / discrank")
    print("|---|---|---|---|")
    speed(synthetic(args.models, args.battles, seed=3), f"{args.battles} battles, {args.models} models, 4 style",
          STYLE, args)
    speed(synthetic(args.big_models, args.big_battles, seed=4, style=False),
          f"{args.big_battles} battles, {args.big_models} models, plain", (), args)
    print("\nLoad average after: {:.1f}, {:.1f}, {:.1f}".format(*os.getloadavg()))


def version(dist: str) -> str:
    from importlib.metadata import PackageNotFoundError, version as of

    try:
        return of(dist)
    except PackageNotFoundError:
        return "installed"


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="small sizes, few replicates, 1 repetition")
    p.add_argument("--only", choices=("parity", "fastchat", "speed"), help="one section")
    p.add_argument("--models", type=int, default=60)
    p.add_argument("--battles", type=int, default=200_000)
    p.add_argument("--big-models", type=int, default=300)
    p.add_argument("--big-battles", type=int, default=2_000_000)
    p.add_argument("--boot", type=int, default=1000, help="discrank's bootstrap replicates")
    p.add_argument("--rounds", type=int, default=1000, help="FastChat's bootstrap rounds (and discrank's there)")
    p.add_argument("--peer-boot", type=int, default=8, help="the peers' bootstrap replicates (> 2), extrapolated")
    p.add_argument("--reps", type=int, default=3, help="repetitions of each timing (the best is shown)")
    p.add_argument("--tennis-min", type=int, default=200, help="matches a tennis player keeps")
    args = p.parse_args(argv)
    # arena-rank's bootstrap uses multiprocessing.Pool: forked workers of a process that has run JAX
    # hang (JAX is multithreaded), so the workers are spawned (their start is in the peer's time)
    multiprocessing.set_start_method("spawn", force=True)
    if args.quick:
        args.models, args.battles, args.big_models, args.big_battles = 20, 20_000, 40, 100_000
        args.boot, args.rounds, args.peer_boot, args.reps = 100, 100, 4, 1
    print(f"# bench_arena ({platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python "
          f"{platform.python_version()}, numpy {np.__version__}, discrank {discrank.__version__}; "
          f"{time.strftime('%Y-%m-%d', time.gmtime())})")
    for mod in ("arena_rank", "evalica"):
        m, why = peer(mod)
        print(f"# {mod}: {version(mod.replace('_', '-')) if m else why}")
    sections = {"parity": section_parity, "fastchat": section_fastchat, "speed": section_speed}
    for name, fn in sections.items():
        if args.only in (None, name):
            fn(args)


if __name__ == "__main__":
    sys.exit(main())
