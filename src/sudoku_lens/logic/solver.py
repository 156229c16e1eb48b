"""Solve as a person would: always the easiest step next, until the grid is full."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from sudoku_lens.logic.catalog import Technique, technique, techniques
from sudoku_lens.logic.progress import checked_solution
from sudoku_lens.logic.state import CandidateGrid, as_state
from sudoku_lens.logic.step import Step


def next_step(puzzle: CandidateGrid | Any, only: str | None = None) -> Step | None:
    """The easiest step in a state (the first instance of the first technique, in rating order
    that finds one), or None when no technique applies. `only` restricts the search to the
    technique of that name.

    `puzzle` is a CandidateGrid, searched as it is (the techniques take its one solution for
    granted: see `checked_solution`), or puzzle text, a pencil-mark grid or 81 digits, which
    are read and checked first: PuzzleFormatError for text that is not a puzzle,
    UnsolvablePuzzleError for one without a single solution."""
    grid = _state(puzzle)
    for candidate in _chosen(only):
        for step in candidate.find(grid):
            return step
    return None


def all_steps(puzzle: CandidateGrid | Any, only: str | None = None) -> Iterator[Step]:
    """Every instance of every technique (or of `only`) in a state (as `next_step` takes it),
    easiest technique first."""
    grid = _state(puzzle)
    for candidate in _chosen(only):
        yield from candidate.find(grid)


def _chosen(only: str | None) -> tuple[Technique, ...]:
    return techniques() if only is None else (technique(only),)


def _state(puzzle: CandidateGrid | Any) -> CandidateGrid:
    """A CandidateGrid as it is, or anything else read into one and checked to have exactly one
    solution that its candidates keep."""
    if isinstance(puzzle, CandidateGrid):
        return puzzle
    grid = as_state(puzzle)
    checked_solution(grid)
    return grid


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


def explain(puzzle: CandidateGrid | Any) -> Explanation:
    """Apply the easiest step again and again, from a state (left unchanged; taken as
    `next_step` takes it), until the grid is full or no technique applies."""
    grid = _state(puzzle)
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
