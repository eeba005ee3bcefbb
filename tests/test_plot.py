"""Figures render headless and show what their captions claim."""

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib", reason="matplotlib (the 'plot' extra) is not installed")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from scipy.spatial import ConvexHull  # noqa: E402

from discrank.data.games import elo_game  # noqa: E402
from discrank.models.plot import plot_embedding, plot_payoff  # noqa: E402


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def test_embedding_draws_the_hull_and_the_origin_and_says_cyclic(tmp_path):
    theta = 2 * np.pi * np.arange(9) / 9
    u, v = np.cos(theta), np.sin(theta)
    ax = plot_embedding(u, v, labels=list("abcdefghi"), title="disc")
    assert ax.get_title() == "disc: cyclic (interior)"
    hull_line = ax.get_lines()[0]
    assert len(hull_line.get_xdata()) == len(ConvexHull(np.stack([u, v], 1)).vertices) + 1  # closed ring
    origin = [c for c in ax.collections if c.get_label() == "origin"][0]
    np.testing.assert_array_equal(origin.get_offsets(), [[0.0, 0.0]])
    path = tmp_path / "embedding.png"
    ax.figure.savefig(path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 5000


def test_embedding_of_an_elo_game_says_transitive():
    s = np.linspace(-1, 1, 6)
    assert plot_embedding(s, np.ones(6)).get_title() == "transitive (line)"


def test_payoff_heat_map_is_ordered_and_masks_missing_pairs():
    P = elo_game(np.array([0.0, 2.0, 1.0]))
    P[0, 1] = P[1, 0] = np.nan
    ax = plot_payoff(P, order=[1, 2, 0])
    shown = ax.images[0].get_array()
    assert shown.mask[0, 2] and shown.mask[2, 0]  # the missing pair (1, 0) after reordering
    assert shown[0, 1] == pytest.approx(P[1, 2])


def test_payoff_must_be_square():
    with pytest.raises(ValueError, match=r"square matrix, got shape \(2, 3\)"):
        plot_payoff(np.zeros((2, 3)))
