"""bench/bench_arena.py's own pieces, without the peers: the synthetic log, FastChat's board as the bench
writes it, and arena-rank's contextual sandwich formula as the bench reproduces it."""

import sys
from pathlib import Path

import numpy as np
import pytest

import discrank

pytest.importorskip("pandas", reason="bench_arena reads arena frames (pandas)")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
import bench_arena  # noqa: E402


@pytest.fixture(scope="module")
def log():
    return bench_arena.synthetic(n_models=12, n_battles=6000, seed=5)


def test_synthetic_arena_log_has_the_four_winner_values_and_style_pairs(log):
    assert len(log) == 6000 and set(log.winner) == {"model_a", "model_b", "tie", "tie (bothbad)"}
    assert not (log.model_a == log.model_b).any()
    assert all(f"{n}_{s}" in log.columns for n in bench_arena.STYLE for s in "ab")
    share = log.winner.isin(["tie", "tie (bothbad)"]).mean()
    assert abs(share - 0.25) < 0.02  # the tie rate drawn, within 3.5 binomial sd


def test_fastchat_board_as_written_is_arena_board_with_ties_half(log):
    anchor = str(log.model_a.iloc[0])
    fc = bench_arena.FastChat(log, anchor, tol=1e-12)
    ours = discrank.arena_board(log, ties="half", anchor=anchor, anchor_rating=1114.0, ci="none")
    mine = ours.frame.set_index("model").loc[fc.models].rating.to_numpy()
    # decisive battles counted as two wins and ties as one win each is the "half" likelihood doubled;
    # L-BFGS-B stops on the loss's relative change (64 eps), ~1e-3 Elo points from the optimum
    np.testing.assert_allclose(fc.ratings(), mine, rtol=0, atol=5e-3)
    assert fc.ratings()[fc.anchor] == pytest.approx(1114.0, abs=1e-9)


def test_arena_rank_sandwich_formula_without_penalty_is_the_ridge_board(log):
    board = discrank.arena_board(log, style=list(bench_arena.STYLE), ridge=1e-5)
    theirs = bench_arena.their_sandwich(board, reg=0.0)
    mine = bench_arena.board_table(board)
    d_rating, d_bound = bench_arena.max_diffs(mine, theirs)
    assert d_rating < 1e-9 and d_bound < 1e-7  # with reg = 0 the two formulas are one
    # with a penalty the formula's bread lacks reg * votes on the style block: wider rating intervals
    pen = discrank.arena_board(log, style=list(bench_arena.STYLE), ridge=1e-5, style_reg=1.0)
    _, d_pen = bench_arena.max_diffs(bench_arena.board_table(pen), bench_arena.their_sandwich(pen, reg=1.0))
    assert d_pen > 1e-3


def test_max_diffs_refuses_boards_of_different_models():
    with pytest.raises(ValueError, match="different models"):
        bench_arena.max_diffs({"a": (1, 0, 2)}, {"b": (1, 0, 2)})
