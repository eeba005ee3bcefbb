"""Figures of the paper (the payoff matrix, the disc embedding with its convex hull and the origin) and of
leaderboards. Needs matplotlib (``pip install 'discrank[plot]'``).
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from discrank.models.analysis import disc_verdict

__all__ = ["plot_payoff", "plot_embedding", "plot_leaderboard", "plot_model_payoff"]


def _axes(ax: Any):
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:  # pragma: no cover - exercised only without the extra
        raise ImportError("discrank.models.plot needs matplotlib: pip install 'discrank[plot]'") from exc
    if ax is None:
        _, ax = plt.subplots(figsize=(4.5, 4.5))
    return ax


def plot_payoff(P: Any, order: Optional[Any] = None, ax: Any = None, title: Optional[str] = None):
    """Heat map of a payoff matrix ``P[i, j] = P(i beats j)`` (NaN, unobserved, left blank), as the top
    rows of Figures 3 and 7.

    Parameters
    ----------
    P : array_like of float, shape (n, n)
        The payoff matrix, NaN where unobserved.
    order : array_like of int, shape (n,), optional
        A permutation of the players (say, by strength): rows and columns are drawn in this order.
        Default: the order of ``P``.
    ax : matplotlib Axes, optional
        Where to draw; default: a new figure.
    title : str, optional

    Returns
    -------
    matplotlib Axes
        The axes drawn on, with a colour bar of P(row beats column).

    Raises
    ------
    ValueError
        ``P`` is not a square matrix.
    ImportError
        matplotlib is not installed.
    """
    ax = _axes(ax)
    P = np.asarray(P, dtype=np.float64)
    if P.ndim != 2 or P.shape[0] != P.shape[1]:
        raise ValueError(f"P must be a square matrix, got shape {P.shape}")
    if order is not None:
        order = np.asarray(order)
        P = P[np.ix_(order, order)]
    image = ax.imshow(np.ma.masked_invalid(P), cmap="RdBu", vmin=0.0, vmax=1.0, interpolation="nearest")
    ax.figure.colorbar(image, ax=ax, fraction=0.046, pad=0.04, label="P(row beats column)")
    ax.set_xlabel("player")
    ax.set_ylabel("player")
    if title:
        ax.set_title(title)
    return ax


def plot_embedding(u: Any, v: Any, labels: Optional[Any] = None, ax: Any = None, title: Optional[str] = None):
    """The points (u_i, v_i) of one disc component with their convex hull and the origin, as the lower
    rows of Figures 3, 5 and 6; the title says whether the component is transitive (origin outside the
    hull) or cyclic (inside), Proposition 1.

    Parameters
    ----------
    u, v : array_like of float, shape (n_players,)
        The players' points on the component, as in :func:`~discrank.models.analysis.disc_verdict`.
    labels : array_like, shape (n_players,), optional
        Names written next to the points; default: no names.
    ax : matplotlib Axes, optional
        Where to draw; default: a new figure.
    title : str, optional
        Put before the verdict in the title.

    Returns
    -------
    matplotlib Axes
        The axes drawn on.

    Raises
    ------
    ValueError
        Invalid ``u`` and ``v``, as in :func:`~discrank.models.analysis.disc_verdict`.
    ImportError
        matplotlib is not installed.
    """
    ax = _axes(ax)
    u = np.asarray(u, dtype=np.float64)
    v = np.asarray(v, dtype=np.float64)
    verdict = disc_verdict(u, v)
    pts = np.stack([u, v], axis=1)
    if verdict.case in ("interior", "exterior", "border"):
        from scipy.spatial import ConvexHull

        hull = ConvexHull(pts)
        ring = pts[np.append(hull.vertices, hull.vertices[0])]
        ax.fill(ring[:, 0], ring[:, 1], color="tab:blue", alpha=0.12, label="convex hull")
        ax.plot(ring[:, 0], ring[:, 1], color="tab:blue", lw=1)
    ax.scatter(u, v, s=14, color="tab:blue", zorder=3, label="players")
    ax.scatter([0.0], [0.0], marker="x", s=60, color="tab:red", zorder=4, label="origin")
    if labels is not None:
        for x, y, name in zip(u, v, np.asarray(labels)):
            ax.annotate(str(name), (x, y), fontsize=7, xytext=(3, 3), textcoords="offset points")
    ax.axhline(0, color="grey", lw=0.5)
    ax.axvline(0, color="grey", lw=0.5)
    ax.set_xlabel("u")
    ax.set_ylabel("v")
    ax.set_aspect("equal", adjustable="datalim")
    verdict_text = "transitive" if verdict.transitive else "cyclic"
    ax.set_title(f"{title + ': ' if title else ''}{verdict_text} ({verdict.case})")
    ax.legend(loc="best", fontsize=7)
    return ax


def plot_leaderboard(frame: Any, top: int = 30, column: Optional[str] = None, ax: Any = None,
                     title: Optional[str] = None):
    """Horizontal bars of the best ``top`` players, best on top (a bootstrap's ``lo`` - ``hi`` as error bars).

    Parameters
    ----------
    frame : pandas.DataFrame
        ``model.ratings_frame()`` or ``BootstrapResult.frame()``: a ``player`` column and a rating column,
        best first; its first ``top`` rows are drawn.
    top : int, optional
        Number of players drawn; default 30.
    column : str, optional
        The column drawn; default: the first of ``score``, ``elo``, ``rating``, ``strength`` in the frame.
        Error bars are drawn for the column the frame's ``lo`` and ``hi`` bound (``attrs["column"]`` of a
        ``BootstrapResult.frame()``).
    ax : matplotlib Axes, optional
        Where to draw; default: a new figure sized to the number of players.
    title : str, optional
        Title of the axes; default ``"top {n} players"``.

    Returns
    -------
    matplotlib Axes
        The axes drawn on.

    Raises
    ------
    ValueError
        No rating column in the frame (and no ``column``), or a ``column`` that is not in the frame.
    """
    cols = list(frame.columns)
    if column is None:
        column = next((c for c in ("score", "elo", "rating", "strength") if c in cols), None)
        if column is None:
            raise ValueError(f"no rating column in the frame (columns {cols}); pass column=")
    if column not in cols:
        raise ValueError(f"column {column!r} is not in the frame; its columns are {cols}")
    sub = frame.head(top)
    values = sub[column].to_numpy(dtype=float)
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(5.5, 0.22 * len(sub) + 1.2))
    ypos = np.arange(len(sub))[::-1]
    xerr = None
    if "lo" in cols and "hi" in cols and column == frame.attrs.get("column", "score"):
        xerr = np.vstack([values - sub["lo"].to_numpy(float), sub["hi"].to_numpy(float) - values])
    left = values.min() - 0.05 * (np.ptp(values) + 1e-12)
    ax.barh(ypos, values - left, left=left, xerr=xerr, color="tab:blue", alpha=0.8, capsize=2)
    ax.set_yticks(ypos)
    ax.set_yticklabels([str(x) for x in sub["player"].tolist()], fontsize=7)
    ax.set_xlabel(column + (" (bootstrap interval)" if xerr is not None else ""))
    ax.set_title(title or f"top {len(sub)} players")
    return ax


def plot_model_payoff(model: Any, ax: Any = None, title: Optional[str] = None):
    """The model's predicted payoff matrix, players in the model's ranking, best first (without one, a cyclic
    first component: by angle on the first disc component).

    Parameters
    ----------
    model : PairwiseModel
        A fitted model of at most 2000 players.
    ax : matplotlib Axes, optional
        Where to draw; default: a new figure.
    title : str, optional

    Returns
    -------
    matplotlib Axes

    Raises
    ------
    ValueError
        More than 2000 players.
    """
    n = model.n_players_
    if n > 2000:
        raise ValueError(f"a payoff heat map of {n} players is unreadable; subset the players first")
    a, b = np.meshgrid(model.labels_, model.labels_, indexing="ij")
    P = model.predict_proba(a.ravel(), b.ravel()).reshape(n, n)
    np.fill_diagonal(P, 0.5)
    rank = model._sort_key()
    key = -rank if rank is not None else np.arctan2(model.v_[:, 0], model.u_[:, 0])
    order = np.argsort(key, kind="stable")
    ax = plot_payoff(P, order=order, ax=ax, title=title)
    if n <= 30:  # readable: name the players
        names = [str(x) for x in np.asarray(model.labels_)[order]]
        ax.set_xticks(range(n))
        ax.set_xticklabels(names, rotation=90, fontsize=7)
        ax.set_yticks(range(n))
        ax.set_yticklabels(names, fontsize=7)
    return ax


def plot_forest(frame: Any, ax: Any = None, top: Optional[int] = None, title: Optional[str] = None):
    """The forest plot of a leaderboard: each model's rating and interval, best on top.

    The figure grows with the number of models (a sixth of an inch each, the labels' font down to 6 points).

    Parameters
    ----------
    frame : pandas.DataFrame
        :attr:`discrank.ArenaBoard.frame`, or any frame with columns ``model``, ``rating``, ``lower``,
        ``upper``, best first.
    ax : matplotlib Axes, optional
        Where to draw; default: a new figure sized to the models.
    top : int, optional
        Draw only the first ``top`` models; default all.
    title : str, optional

    Returns
    -------
    matplotlib Axes

    Raises
    ------
    ValueError
        A frame without those columns, or without rows.
    """
    missing = [c for c in ("model", "rating", "lower", "upper") if c not in frame.columns]
    if missing:
        raise ValueError(f"plot_forest needs the columns model, rating, lower and upper; missing {missing}")
    if top is not None and (isinstance(top, bool) or not isinstance(top, (int, np.integer)) or top < 1):
        raise ValueError(f"top={top!r} must be a positive integer")
    rows = frame if top is None else frame.iloc[:int(top)]
    if len(rows) == 0:
        raise ValueError("plot_forest: the frame has no rows")
    n = len(rows)
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(7.0, max(2.5, 0.5 + n / 6.0)))
    pos = np.arange(n)[::-1]
    rating = rows["rating"].to_numpy(dtype=float)
    lo, hi = rows["lower"].to_numpy(dtype=float), rows["upper"].to_numpy(dtype=float)
    err = np.vstack([rating - lo, hi - rating])
    ax.errorbar(rating, pos, xerr=np.where(np.isfinite(err), err, 0.0), fmt="o", ms=3, lw=1, capsize=2)
    ax.set_yticks(pos)
    ax.set_yticklabels([str(m) for m in rows["model"]], fontsize=max(6.0, min(10.0, 400.0 / max(n, 1))))
    ax.set_ylim(-1, n)
    ax.grid(axis="x", alpha=0.3)
    level = frame.attrs.get("level")
    ax.set_xlabel("rating" + (f" ({100 * level:g}% interval)" if level else ""))
    ax.set_title(title if title is not None else f"{n} models")
    return ax
