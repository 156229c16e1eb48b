"""Compare ratings with Sudoku Explainer's and fit the per-technique adjustments of `rating`.

Sudoku Explainer (SE) rates a puzzle by its hardest step, as `rate` does, so most disagreement
comes from techniques SE lacks or rates differently (finned fish, ALS, empty rectangles, ...).
`fit_adjustments` searches, technique by technique, for the offset added to its steps' ratings
that best orders the training puzzles as SE does (Spearman rank correlation); the path itself is
kept, so fitting needs each puzzle explained once. `held_out` splits a rated file in two halves
by a hash of each puzzle's id, so the held-out half never shapes the fit.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import NamedTuple

from sudoku_lens.logic.rating import rated_path
from sudoku_lens.logic.state import as_state

SE_EASY50: tuple[float, ...] = (
    1.2, 1.2, 2.0, 1.5, 1.2, 2.6, 3.2, 1.2, 2.0, 2.0,
    1.2, 1.2, 1.5, 1.5, 1.5, 1.2, 1.2, 1.2, 1.2, 1.2,
    2.0, 1.5, 1.5, 1.5, 2.0, 1.5, 1.5, 1.5, 1.5, 2.0,
    1.5, 1.5, 1.2, 1.2, 1.2, 1.2, 1.2, 1.2, 1.2, 1.2,
    3.0, 2.3, 2.3, 2.0, 2.0, 2.0, 2.8, 2.8, 3.2,
)  # fmt: skip
"""Sudoku Explainer 1.2.1's own ratings of the 49 puzzles of the puzzle sets' `easy50.txt`, line
by line: its rating loop (`Solver.getDifficulty`), built from SE's public source for the
measurement (benchmarks/measurements-log.md, "Direct patterns by SE's own rule"). SE rates 43 of
them easy and 6 medium: lines 6 (a pointing), 7 and 49 (x-wings), 41 (a naked pair), 47 and 48
(claimings) need a pattern that leaves no hidden single at once."""

Profile = list[tuple[str, float]]
"""The (technique, rating before adjustment) of every step on a puzzle's easiest path."""


class RatedPuzzle(NamedTuple):
    """One line of an SE-rated puzzle file: `<id> <81 digits>  <rating>`."""

    id: str
    puzzle: str
    se_rating: float


def read_rated(path: str | Path) -> list[RatedPuzzle]:
    """The puzzles of a rated file (see the puzzle sets' README), blank lines skipped."""
    rated = []
    for line in Path(path).read_text().splitlines():
        words = line.split()
        if len(words) == 3:
            rated.append(RatedPuzzle(words[0], words[1], float(words[2])))
    return rated


def held_out(puzzle_id: str) -> bool:
    """True for the half of the puzzles kept out of calibration, chosen by a hash of the id so
    the split is the same on every run and machine."""
    return hashlib.sha256(puzzle_id.encode()).digest()[0] % 2 == 1


def average_ranks(values: Sequence[float]) -> list[float]:
    """1-based ranks of `values`, tied values sharing the average of their ranks."""
    order = sorted(range(len(values)), key=values.__getitem__)
    ranks = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return ranks


def spearman(xs: Sequence[float], ys: Sequence[float]) -> float:
    """Spearman's rank correlation: Pearson's correlation of the average ranks (ties handled as
    scipy.stats.spearmanr does). NaN when either side is constant or shorter than 2."""
    if len(xs) != len(ys):
        raise ValueError("spearman needs two sequences of the same length")
    n = len(xs)
    if n < 2:
        return float("nan")
    rx, ry = average_ranks(xs), average_ranks(ys)
    mean = (n + 1) / 2
    sxy = sum((a - mean) * (b - mean) for a, b in zip(rx, ry, strict=True))
    sxx = sum((a - mean) ** 2 for a in rx)
    syy = sum((b - mean) ** 2 for b in ry)
    if sxx == 0 or syy == 0:
        return float("nan")
    return sxy / (sxx * syy) ** 0.5


def profile(puzzle: str) -> Profile | None:
    """The steps of a puzzle's easiest path as (technique, nominal rating); None when the
    techniques do not finish it."""
    path = rated_path(as_state(puzzle))
    return [(step.technique, step.rating) for step in path.steps] if path.solved else None


def rating_with(steps: Profile, adjustments: dict[str, float]) -> float:
    """A puzzle's rating from its path's steps, each moved by its technique's adjustment."""
    return max((r + adjustments.get(t, 0.0) for t, r in steps), default=0.0)


def fit_adjustments(
    profiles: Sequence[Profile],
    targets: Sequence[float],
    *,
    offsets: Iterable[float] = tuple(x / 10 for x in range(-10, 11)),
    rounds: int = 3,
) -> dict[str, float]:
    """Per-technique offsets that make `rating_with` rank the puzzles as `targets` (SE's
    ratings) do, by coordinate ascent on Spearman's correlation: each round tries every offset
    for each technique in turn and keeps the best (ties keep the smaller change). Techniques
    that do not move the correlation are left out of the result."""
    offsets = sorted(set(offsets), key=lambda x: (abs(x), x))
    names = sorted({t for steps in profiles for t, _ in steps})
    adjustments: dict[str, float] = {}

    def score(trial: dict[str, float]) -> float:
        return spearman([rating_with(steps, trial) for steps in profiles], targets)

    best = score(adjustments)
    for _ in range(rounds):
        improved = False
        for name in names:
            for offset in offsets:
                trial = {**adjustments, name: offset}
                value = score(trial)
                if value > best + 1e-9:
                    best, adjustments, improved = value, trial, True
        if not improved:
            break
    return {name: round(x, 2) for name, x in sorted(adjustments.items()) if x}
