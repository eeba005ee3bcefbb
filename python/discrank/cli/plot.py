"""``discrank plot``: a saved model drawn as an image."""

from __future__ import annotations

import argparse

import numpy as np

from discrank.cli._args import int_at_least, write_file
from discrank.cli._models import history_axes, load_model, match_labels

__all__ = ["add", "run"]


def run(args: argparse.Namespace) -> int:
    """``discrank plot``: a dynamic model's rating histories (``--players``, default its best now), a disc
    model's first component, or a leaderboard."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from discrank.models import plot
    model = load_model(args.model)
    players = None if args.players is None else match_labels(model, np.array(args.players))
    ax = history_axes(model, players, args.top, args.model)
    if ax is None and getattr(model, "u_", None) is not None:  # a disc model: its first component's embedding
        labels = model.labels_ if model.n_players_ <= 40 else None
        ax = plot.plot_embedding(model.u_[:, 0], model.v_[:, 0], labels=labels)
    elif ax is None:
        ax = plot.plot_leaderboard(model.ratings_frame(), top=args.top)
    write_file(args.out, lambda: ax.figure.savefig(args.out, dpi=120, bbox_inches="tight"))
    plt.close(ax.figure)
    print(f"wrote {args.out}")
    return 0


def add(sub) -> None:
    """The ``plot`` command."""
    p = sub.add_parser("plot", help="rating histories, disc embedding or leaderboard of a saved model as an image")
    p.add_argument("model")
    p.add_argument("--out", required=True, help="image file (png, pdf, svg)")
    p.add_argument("--players", nargs="+", metavar="PLAYER",
                   help="a dynamic model: the players whose rating histories to draw (default: the best now)")
    p.add_argument("--top", type=int_at_least(1), default=30,
                   help="players of a leaderboard plot (default 30; a dynamic model draws the histories of at most 8)")
    p.set_defaults(func=run)
