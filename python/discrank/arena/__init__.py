"""Leaderboards of pairwise votes between models (arena logs): the Bradley-Terry board with style control,
sandwich or bootstrap intervals, rank intervals and per-category boards."""

from discrank.arena.board import ArenaBoard, HeldOut, VoteDrop, arena_board
from discrank.data.arena import apply_ties, read_arena

__all__ = ["ArenaBoard", "HeldOut", "VoteDrop", "apply_ties", "arena_board", "read_arena"]
