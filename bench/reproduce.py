"""Reproduce the paper's experiments with discrank; print each table, write the figures.

    python bench/reproduce.py                 # everything (see bench/REPRODUCTION.md for the time)
    python bench/reproduce.py --quick         # small sizes, seconds: the test suite runs this
    python bench/reproduce.py --only table1   # one of: example3 table1 embeddings metagames human

Figures go to bench/figures/ (with --quick, to a temporary folder unless --figures is given). The real
data sets are read from ../shared/data (or $DISCRANK_DATA); the experiments that need them are skipped,
with a message, when the folder is absent.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
import warnings
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from scipy.special import expit  # noqa: E402

import datasets  # noqa: E402
from discrank import (  # noqa: E402
    ConvergenceWarning,
    DiscDecomposition,
    DiscDecompositionCV,
    Elo,
    EloPlusPlus,
    GameLog,
    MElo,
    PairwiseData,
)
from discrank.analysis import disc_verdict, nash_clustering  # noqa: E402
from discrank.exceptions import SeparationWarning  # noqa: E402
from discrank.data.games import example3, sample_games  # noqa: E402
from discrank.models.plot import plot_embedding, plot_payoff  # noqa: E402

HERE = Path(__file__).resolve().parent

#: prior_scale of the paper's own (unregularised) problems
INF = np.inf

#: MSEs are floored here before a ratio is taken (a 3-player game can be predicted exactly).
MSE_FLOOR = 1e-12

#: Games with fewer pairs are shown but left out of the log-average.
MIN_PAIRS_IN_AVERAGE = 10


def largest_piece(train: PairwiseData, test: PairwiseData):
    """Train and test pairs inside the largest connected piece of the training graph.

    Across pieces no model has a defined prediction (Elo centres each piece by convention; a disc
    model's pieces can be moved independently), so comparisons are made where all models are defined.
    """
    _, piece = train.components()
    main = np.argmax(np.bincount(piece))
    keep_train = piece[train.i] == main
    keep_test = (piece[test.i] == main) & (piece[test.j] == main)
    return train.subset(keep_train), test.subset(keep_test)


def display_points(model):
    """The first component as the paper draws it: reparametrised (Prop. 2) when transitive, so that an
    Elo game lies on the line v = 1; as fitted when cyclic."""
    if getattr(model, "consistency_", None) is not None:
        return model.strength_ * model.consistency_, model.consistency_
    return model.u_[:, 0], model.v_[:, 0]


def majority_side(u, v) -> float:
    """Largest share of the points (u_i, v_i) strictly inside one open half-plane through the origin.

    1.0 is Proposition 1's "transitive" (the origin outside the hull); a cyclic verdict caused by a few
    outlying players still scores close to 1, a genuinely cyclic game about 1/2.
    """
    angle = np.sort(np.arctan2(v, u))
    ext = np.concatenate([angle, angle + 2 * np.pi])
    ends = np.searchsorted(ext, ext[: len(angle)] + np.pi - 1e-12, side="left")
    return float(np.max(ends - np.arange(len(angle))) / len(angle))


def quiet_fit(model, data):
    """Fit, counting instead of printing convergence warnings (reported in the tables)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.fit(data)
    # not converged: max_iter reached (ConvergenceWarning), or no finite optimum (SeparationWarning)
    model.warned_ = (any(issubclass(w.category, (ConvergenceWarning, SeparationWarning)) for w in caught)
                     or not np.all(getattr(model, "converged_", True)))
    return model


def _share(x: float) -> str:
    """A component's share, "-" where it is undefined (a component collapsed to 0 explains nothing of 0)."""
    return f"{x:.2f}" if np.isfinite(x) else "-"


def read_first(model, transitive: bool) -> str:
    """The first component's verdict (Proposition 1), or "flat" when the prior collapsed it to u = 0."""
    if not np.any(model.u_[:, 0]):
        return "flat (u = 0)"
    return "transitive" if transitive else "cyclic"


# ---------------------------------------------------------------------------------------------- 1
def exp_example3(cfg):
    """Figures 2 and 4: Example 3 over a grid of (gamma, delta)."""
    grid = np.linspace(0.51, 0.99, cfg.grid)
    rows = []
    for g in grid:
        for d in grid:
            data = PairwiseData.from_matrix(example3(g, d))
            elo = quiet_fit(Elo(prior_scale=INF, tol=1e-9), data)
            disc = quiet_fit(DiscDecomposition(prior_scale=INF, tol=1e-9, random_state=0), data)
            rows.append((g, d, elo.ratings_[0] - elo.ratings_[1], disc.decision_function(0, 1),
                         abs(disc.predict_proba(0, 1) - g)))
    rows = np.array(rows)
    elo_right = np.mean(rows[:, 2] > 0)
    disc_right = np.mean(rows[:, 3] > 0)
    print(f"\n### Figures 2 and 4: Example 3 on a {cfg.grid} x {cfg.grid} grid of gamma, delta in [0.51, 0.99]")
    print("| model | share of the grid where player 1 is ranked / predicted above player 2 | max abs P(1 beats 2) error |")
    print("|---|---|---|")
    print(f"| stationary Elo (sign of s1 - s2) | {100 * elo_right:.1f}% | - |")
    print(f"| disc decomposition k=1 (sign of logit P(1 beats 2)) | {100 * disc_right:.1f}% | {rows[:, 4].max():.1e} |")
    fig, axes = plt.subplots(1, 2, figsize=(10, 4.6))
    for ax, col, title in ((axes[0], 2, "Elo: s1 - s2 (Fig. 2)"), (axes[1], 3, "disc: logit P(1 beats 2) (Fig. 4)")):
        value = rows[:, col]
        ax.scatter(rows[:, 0], rows[:, 1], s=8 + 60 * np.abs(value) / np.abs(value).max(),
                   c=np.where(value > 0, "tab:green", "tab:red"))
        ax.set_xlabel("gamma")
        ax.set_ylabel("delta")
        ax.set_title(title)
    fig.tight_layout()
    fig.savefig(cfg.figures / "example3.png", dpi=90)
    plt.close(fig)
    return {"elo_right": elo_right, "disc_right": disc_right}


# ---------------------------------------------------------------------------------------------- 2
PAPER_TABLE1_TEST = {  # test MSE of Table 1, in the order of GAMES
    "Elo": [1.6e-10, 1.0e-02, 3.6e-02, 6.3e-02, 7.9e-02],
    "Elo++": [2.1e-11, 1.0e-02, 3.6e-02, 6.3e-02, 7.9e-02],
    "disc k=1": [2.2e-10, 9.8e-03, 3.4e-02, 1.2e-02, 2.6e-06],
    "Balduzzi 2019 (2n)": [2.7e-03, 1.0e-02, 3.5e-02, 1.4e-02, 4.6e-03],
    "m-Elo k=1 (3n)": [2.7e-03, 1.0e-02, 3.5e-02, 1.4e-02, 4.6e-03],
    "Balduzzi 2019 (4n)": [1.3e-04, 4.0e-03, 6.0e-03, 4.6e-03, 8.8e-04],
    "disc k=2": [1.7e-10, 6.8e-04, 2.5e-03, 5.6e-04, 4.6e-07],
}
RATIOS = [1.0, 0.75, 0.5, 0.25, 0.0]
GAME_NAMES = ["Elo game", "ratio 0.75", "ratio 0.5", "ratio 0.25", "disc game"]


def table1_models():
    return {
        "Elo": lambda: Elo(prior_scale=INF),
        "Elo++": lambda: EloPlusPlus(prior_scale=INF),
        "disc k=1": lambda: DiscDecomposition(1, prior_scale=INF, random_state=0, max_iter=1000),
        "Balduzzi 2019 (2n)": lambda: DiscDecomposition(1, "probability", prior_scale=INF, random_state=0, max_iter=1000),
        "m-Elo k=1 (3n)": lambda: MElo(1, prior_scale=INF, random_state=0, max_iter=1000),
        "Balduzzi 2019 (4n)": lambda: DiscDecomposition(2, "probability", prior_scale=INF, random_state=0, max_iter=1000),
        "disc k=2": lambda: DiscDecomposition(2, prior_scale=INF, random_state=0, max_iter=1000),
        # discrank's defaults: the prior tuned on a held-out tenth of the training pairs
        "Elo, default prior": lambda: Elo(),
        "disc k=1, default prior": lambda: DiscDecomposition(1, random_state=0, max_iter=1000),
        "disc k=2, default prior": lambda: DiscDecomposition(2, random_state=0, max_iter=1000),
    }


def mixed_logits(n, seed):
    """logit P = ratio (s_i - s_j) + (1 - ratio) (u_i v_j - v_i u_j), the two parts of Table 1's games."""
    rng = np.random.default_rng(seed)
    s = rng.normal(0.0, 1.0, n)
    theta = rng.uniform(0, 2 * np.pi, n)
    radius = np.sqrt(3.0)
    u, v = radius * np.cos(theta), radius * np.sin(theta)
    return s[:, None] - s[None, :], np.outer(u, v) - np.outer(v, u)


def exp_table1(cfg):
    models = table1_models()
    results = {}  # (version, model, game) -> list of (train, test)
    for version in ("noiseless", f"{cfg.games_per_pair} games per pair"):
        for seed in range(cfg.seeds):
            elo_part, disc_part = mixed_logits(cfg.n, seed)
            for g, ratio in enumerate(RATIOS):
                P = expit(ratio * elo_part + (1 - ratio) * disc_part)
                if version == "noiseless":
                    data = PairwiseData.from_matrix(P)
                else:
                    pairs = np.array(np.triu_indices(cfg.n, 1)).T
                    a, b, s = sample_games(P, pairs, cfg.games_per_pair, seed=seed)
                    data = PairwiseData.from_games(a, b, s, weights="uniform")
                train, test = data.split(0.2, seed=seed)
                for name, make in models.items():
                    model = quiet_fit(make(), train)
                    results.setdefault((version, name, g), []).append((model.mse(train), model.mse(test), model.warned_))
    for version in ("noiseless", f"{cfg.games_per_pair} games per pair"):
        print(f"\n### Table 1 ({version}): MSE on train / hidden 20% of pairs, n = {cfg.n}, mean over {cfg.seeds} seeds "
              "(+- std); paper's test MSE in brackets")
        print("| model | " + " | ".join(GAME_NAMES) + " |")
        print("|---|" + "---|" * len(GAME_NAMES))
        for name in models:
            cells = []
            for g in range(len(RATIOS)):
                r = np.array(results[(version, name, g)], dtype=float)
                star = "*" if r[:, 2].any() else ""
                paper = f" [{PAPER_TABLE1_TEST[name][g]:.1e}]" if name in PAPER_TABLE1_TEST else ""
                cells.append(f"{r[:, 0].mean():.1e} / {r[:, 1].mean():.1e} +- {r[:, 1].std():.0e}{star}{paper}")
            print(f"| {name} | " + " | ".join(cells) + " |")
        if any(np.array(r, dtype=float)[:, 2].any() for (v, _, _), r in results.items() if v == version):
            print("(* some fits did not converge: max_iter, or no finite optimum)")
    return results


# ---------------------------------------------------------------------------------------------- 3
def exp_embeddings(cfg):
    """Figures 3 and 7: payoff matrices and embeddings from the Elo game to the disc game."""
    elo_part, disc_part = mixed_logits(cfg.n_embed, 0)
    fig, axes = plt.subplots(3, len(RATIOS), figsize=(3.2 * len(RATIOS), 9.6))
    print(f"\n### Figures 3 and 7: first disc component along the Elo-to-disc path (n = {cfg.n_embed})")
    print("| ratio | probability space | logit space | logit space, default prior | Nash clusters |")
    print("|---|---|---|---|---|")
    for c, ratio in enumerate(RATIOS):
        P = expit(ratio * elo_part + (1 - ratio) * disc_part)
        data = PairwiseData.from_matrix(P)
        prob = quiet_fit(DiscDecomposition(1, "probability", prior_scale=INF, random_state=0), data)
        logit = quiet_fit(DiscDecomposition(1, "bce", prior_scale=INF, random_state=0), data)
        prior = quiet_fit(DiscDecomposition(1, "bce", random_state=0), data)
        order = np.argsort(-(P.mean(axis=1)))
        plot_payoff(P, order=order, ax=axes[0, c], title=f"ratio = {ratio}")
        plot_embedding(*display_points(prob), ax=axes[1, c], title="probability")
        plot_embedding(*display_points(logit), ax=axes[2, c], title="logit")
        verdicts = [disc_verdict(m.u_[:, 0], m.v_[:, 0]) for m in (prob, logit, prior)]
        clusters = len(nash_clustering(P))
        print(f"| {ratio} | " + " | ".join(("transitive" if v.transitive else "cyclic") + f" ({v.case})" for v in verdicts)
              + f" | {clusters} |")
    fig.tight_layout()
    fig.savefig(cfg.figures / "elo_to_disc.png", dpi=70)
    plt.close(fig)


# ---------------------------------------------------------------------------------------------- 4
def exp_metagames(cfg):
    """Figures 5, 6 and 8 on the real empirical games."""
    if not datasets.available():
        print("\n(metagames skipped: ../shared/data is absent)")
        return None
    games = datasets.meta_games()
    if cfg.quick:
        games = {k: games[k] for k in ("RPS", "5,3-Blotto", "soccer (MuJoCo)", "Kuhn-poker")}
    names = ["m-Elo k=1", "m-Elo k=2", "m-Elo k=3", "disc k=1", "disc k=2", "disc k=3"]
    names += [f"{n} prior" for n in names]
    table = {}
    print(f"\n### Figures 5, 6 and 8: MSE(Elo) / MSE(model) on hidden 20% of pairs, geometric mean over {cfg.seeds} splits "
          f"(MSEs floored at {MSE_FLOOR:g})")
    print("| game | players | Nash clusters | main component: logit (share, majority side) | probability (share, "
          "majority side) | logit, default prior (share, majority side) | " + " | ".join(names) + " |")
    print("|---|---|---|---|---|---|" + "---|" * len(names))
    n_games = len(games)
    cols = 4
    fig, axes = plt.subplots(int(np.ceil(n_games / cols)), cols, figsize=(4 * cols, 4 * int(np.ceil(n_games / cols))))
    for g, (game, data) in enumerate(games.items()):
        ratios = {name: [] for name in names}
        for seed in range(cfg.seeds):
            train, test = data.split(0.2, seed=seed)
            elo_mse = max(quiet_fit(Elo(prior_scale=INF), train).mse(test), MSE_FLOOR)
            for k in (1, 2, 3):
                if 2 * k > data.n_players:
                    continue
                for sigma, suffix in ((INF, ""), (None, " prior")):
                    for family, make in (("m-Elo", lambda: MElo(k, prior_scale=sigma, random_state=0, max_iter=cfg.max_iter)),
                                         ("disc", lambda: DiscDecomposition(k, prior_scale=sigma, random_state=0,
                                                                            max_iter=cfg.max_iter))):
                        mse = quiet_fit(make(), train).mse(test)
                        ratios[f"{family} k={k}{suffix}"].append(elo_mse / max(mse, MSE_FLOOR))
        k_full = min(2, data.n_players // 2)
        full = quiet_fit(DiscDecomposition(k_full, prior_scale=INF, random_state=0, max_iter=cfg.max_iter), data)
        prob = quiet_fit(DiscDecomposition(k_full, "probability", prior_scale=INF, random_state=0, max_iter=cfg.max_iter),
                         data)
        tuned = quiet_fit(DiscDecomposition(k_full, random_state=0, max_iter=cfg.max_iter), data)
        tuned_summary = tuned.transitivity()
        summary = full.transitivity()
        prob_summary = prob.transitivity()
        clusters = len(nash_clustering(data.to_matrix()))
        table[game] = {name: float(np.exp(np.mean(np.log(r)))) if r else np.nan for name, r in ratios.items()}
        verdict = "transitive" if summary.main_transitive else "cyclic"
        cells = [f"{table[game][name]:.3g}" if np.isfinite(table[game][name]) else "-" for name in names]
        side = majority_side(full.u_[:, 0], full.v_[:, 0])
        prob_side = majority_side(prob.u_[:, 0], prob.v_[:, 0])
        prob_verdict = "transitive" if prob_summary.main_transitive else "cyclic"
        print(f"| {game} | {data.n_players} | {clusters} | {verdict}{'*' if full.warned_ else ''} "
              f"({summary.share[0]:.2f}, {side:.2f}) | {prob_verdict} ({prob_summary.share[0]:.2f}, {prob_side:.2f}) | "
              f"{read_first(tuned, tuned_summary.main_transitive)}{'*' if tuned.warned_ else ''} "
              f"({_share(tuned_summary.share[0])}, {majority_side(tuned.u_[:, 0], tuned.v_[:, 0]):.2f}) | "
              + " | ".join(cells) + " |")
        plot_embedding(*display_points(prob), ax=axes.flat[g], title=f"{game} (probability space)")
    for ax in axes.flat[n_games:]:
        ax.axis("off")
    fig.tight_layout()
    fig.savefig(cfg.figures / "metagames_embeddings.png", dpi=60)
    plt.close(fig)
    # A game with a handful of pairs (RPS: 3) leaves one hidden pair, predicted exactly or not at all:
    # its ratio (up to 1e12 at the floor) would decide the average alone.
    averaged = [g for g in table if games[g].n_pairs >= MIN_PAIRS_IN_AVERAGE]
    logavg = {name: float(np.exp(np.nanmean([np.log(table[g][name]) for g in averaged]))) for name in names}
    print(f"| **log-average (Fig. 6), games with >= {MIN_PAIRS_IN_AVERAGE} pairs** | | | | | | "
          + " | ".join(f"**{logavg[n]:.3g}**" for n in names) + " |")
    fig, ax = plt.subplots(figsize=(11, 4))
    width = 0.13
    for c, name in enumerate(names[:6]):  # the paper's (unregularised) fits, as its Figure 6
        ax.bar(np.arange(len(averaged)) + c * width, [table[g][name] for g in averaged], width, label=name)
    ax.set_yscale("log")
    ax.axhline(1.0, color="black", lw=0.8)
    ax.set_xticks(np.arange(len(averaged)) + 2.5 * width, averaged, rotation=30, ha="right", fontsize=8)
    ax.set_ylabel("MSE(Elo) / MSE(model)")
    ax.set_title(f"games with >= {MIN_PAIRS_IN_AVERAGE} pairs (higher is better)")
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(cfg.figures / "metagames_ratios.png", dpi=80)
    plt.close(fig)
    print("(* the fit did not converge: without a prior, payoffs of exactly 0 or 1 can have no finite bce optimum "
          "(SeparationWarning), or it hit max_iter; \"prior\": "
          "discrank's default, the prior scale tuned on a held-out tenth of the training pairs)")
    return table, logavg


# ---------------------------------------------------------------------------------------------- 5
#: lambda candidates (the paper's scale: against the loss summed over both orders of every pair)
LAMBDAS = (1.0, 10.0, 100.0, 1e3, 1e4, 1e5, 1e6)

HUMAN = {  # data set: (loader, thresholds of min games per pair)
    "tennis ATP": (datasets.tennis_atp, (3, 5, 8, 12)),
    "Go Tygem 9d": (datasets.go_tygem, (10, 20, 40, 80)),
    "football": (datasets.football, (3, 5, 8, 12)),
}


def exp_human(cfg):
    """Figures 9 and 10 on human data at the paper's scale, and the time-split question."""
    if not datasets.available():
        print("\n(human data skipped: ../shared/data is absent)")
        return None
    sets = {"football": (datasets.football, (5, 12))} if cfg.quick else HUMAN
    print("\n### Figures 9 and 10: first disc component (k = 1, unregularised, as the paper) and prediction on hidden "
          "pairs vs the minimum number of games per pair (weights uniform, as the paper; hidden pairs inside the largest "
          "connected piece of the training pairs)")
    print("| data set | min games | players | pairs | logit space (majority side) | probability space (majority side) "
          "| logit space, default prior (majority side) | MSE Elo | MSE disc (CV lambda) | lambda | MSE Elo, default prior "
          "| MSE disc k=1, default prior |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    width = max(len(th) for _, th in sets.values())
    fig, axes = plt.subplots(len(sets), width, figsize=(4 * width, 4 * len(sets)), squeeze=False)
    logs = {}
    for r, (name, (loader, thresholds)) in enumerate(sets.items()):
        a, b, s, t = loader()
        logs[name] = (a, b, s, t)
        for c, m in enumerate(thresholds):
            data = PairwiseData.from_games(a, b, s, min_games=m, weights="uniform")
            cells = []
            for loss, sigma in (("bce", INF), ("probability", INF), ("bce", None)):
                disc = quiet_fit(DiscDecomposition(1, loss, prior_scale=sigma, random_state=0, max_iter=cfg.max_iter), data)
                verdict = read_first(disc, disc.transitive_)
                cells.append(f"{verdict}{'*' if disc.warned_ else ''} ({majority_side(disc.u_[:, 0], disc.v_[:, 0]):.2f})")
                if loss == "bce" and sigma == INF:
                    plot_embedding(*display_points(disc), ax=axes[r, c], title=f"{name}, >= {m} games")
            train, test = largest_piece(*data.split(0.2, seed=0))
            elo_mse = quiet_fit(Elo(prior_scale=INF), train).mse(test)
            tuned = (quiet_fit(Elo(), train).mse(test), quiet_fit(DiscDecomposition(1, random_state=0, max_iter=cfg.max_iter),
                                                                     train).mse(test))
            try:
                cv = quiet_fit(DiscDecompositionCV(regularizations=LAMBDAS, prior_scale=INF, cv=3, random_state=0,
                                                   max_iter=cfg.max_iter), train)
                disc_cells = f"{cv.mse(test):.4f} | {cv.best_params_['regularization']:g}"
            except ValueError:  # a forest of pairs: no fold keeps a held-out pair connected
                disc_cells = "- | (too sparse for 3-fold CV)"
            print(f"| {name} | {m} | {data.n_players} | {data.n_pairs} | {cells[0]} | {cells[1]} | {cells[2]} | "
                  f"{elo_mse:.4f} | {disc_cells} | {tuned[0]:.4f} | {tuned[1]:.4f} |")
    fig.tight_layout()
    fig.savefig(cfg.figures / "human_embeddings.png", dpi=60)
    plt.close(fig)

    print("\n### Beyond the paper: log loss per game on the most recent 10% of games (train on the past; weights "
          f"games; \"ML\": maximum likelihood, the paper's problem, at most {cfg.max_iter_large} iterations per component; "
          "\"prior\": discrank's defaults, the prior scale tuned on the latest 10% of the training games)")
    print("| data set | train games | test games (players in the largest training piece) | Elo ML | Elo++ ML | m-Elo k=1 ML "
          "| Elo prior | Elo++ prior | m-Elo k=1 prior | disc k=1 prior | disc k=2 prior | all prior fits converged |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name, (a, b, s, t) in logs.items():
        order = np.argsort(t, kind="stable")
        a, b, s, t = a[order], b[order], s[order], t[order]
        cut = int(0.9 * len(a))
        train_log = GameLog(a[:cut], b[:cut], s[:cut], t[:cut])
        train = PairwiseData.from_games(a[:cut], b[:cut], s[:cut])
        known = np.isin(a[cut:], train.labels) & np.isin(b[cut:], train.labels)
        test = PairwiseData.from_games(a[cut:][known], b[cut:][known], s[cut:][known], labels=train.labels)
        train, test = largest_piece(train, test)
        n_test_games = int(test.n_games.sum())
        big = cfg.max_iter_large
        scores = [quiet_fit(model, train).log_loss(test)
                  for model in (Elo(prior_scale=INF), EloPlusPlus(prior_scale=INF), MElo(1, prior_scale=INF, random_state=0,
                                                                                          max_iter=big))]
        tuned = [quiet_fit(model, train_log) for model in (Elo(), EloPlusPlus(), MElo(1, random_state=0),
                                                           DiscDecomposition(1, random_state=0),
                                                           DiscDecomposition(2, random_state=0))]
        scores += [model.log_loss(test) for model in tuned]
        unconverged = [type(m).__name__ + (f"({m.n_components})" if hasattr(m, "n_components") else "")
                       for m in tuned if not np.all(m.converged_)]
        print(f"| {name} | {cut} | {n_test_games} | " + " | ".join(f"{x:.4f}" for x in scores)
              + f" | {'yes' if not unconverged else 'not ' + ', '.join(unconverged)} |")
    return None


EXPERIMENTS = {"example3": exp_example3, "table1": exp_table1, "embeddings": exp_embeddings,
               "metagames": exp_metagames, "human": exp_human}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--only", choices=list(EXPERIMENTS))
    parser.add_argument("--figures", type=Path, default=None)
    cfg = parser.parse_args(argv)
    if cfg.figures is None:
        cfg.figures = Path(tempfile.mkdtemp()) if cfg.quick else HERE / "figures"
    cfg.figures.mkdir(parents=True, exist_ok=True)
    q = cfg.quick
    cfg.grid, cfg.n, cfg.seeds, cfg.games_per_pair = (6, 30, 1, 50) if q else (25, 100, 5, 50)
    cfg.n_embed, cfg.max_iter, cfg.max_iter_large = (20, 200, 100) if q else (40, 1000, 300)
    for name, fn in EXPERIMENTS.items():
        if cfg.only and name != cfg.only:
            continue
        t0 = time.perf_counter()
        fn(cfg)
        print(f"\n({name}: {time.perf_counter() - t0:.0f} s)")
        sys.stdout.flush()
    print(f"\nfigures in {cfg.figures}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
