"""Solve as a person would: always the easiest step next, until the grid is full."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from sudoku_lens.logic.catalog import Technique, technique, techniques
from sudoku_lens.logic.state import CandidateGrid
from sudoku_lens.logic.step import Step


def next_step(grid: CandidateGrid, only: str | None = None) -> Step | None:
    """The easiest step in `grid` (the first instance of the first technique, in rating order
    that finds one), or None when no technique applies. `only` restricts the search to the
    technique of that name."""
    for candidate in _chosen(only):
        for step in candidate.find(grid):
            return step
    return None


def all_steps(grid: CandidateGrid, only: str | None = None) -> Iterator[Step]:
    """Every instance of every technique (or of `only`) in `grid`, easiest technique first."""
    for candidate in _chosen(only):
        yield from candidate.find(grid)


def _chosen(only: str | None) -> tuple[Technique, ...]:
    return techniques() if only is None else (technique(only),)


@dataclass
class Explanation:
    """The path a person would take from a state to the solution."""

    start: CandidateGrid
    steps: list[Step] = field(default_factory=list)
    end: CandidateGrid | None = None
    """The state after the last step."""

    @property
    def solved(self) -> bool:
        """True when the steps reach a full grid."""
        return self.end is not None and self.end.is_solved()


def explain(grid: CandidateGrid) -> Explanation:
    """Apply the easiest step again and again, from `grid` (left unchanged), until the grid is
    full or no technique applies."""
    state = grid.copy()
    explanation = Explanation(start=grid)
    while not state.is_solved():
        step = next_step(state)
        if step is None:
            break
        state.apply(step)
        explanation.steps.append(step)
    explanation.end = state
    return explanation
