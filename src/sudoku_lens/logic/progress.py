"""A solving state as it travels between calls, and its check against the puzzle's solution.

A person's progress is the digits placed so far plus the candidates crossed out. Pencil-mark text
cannot say "one candidate left, not yet placed" (a lone candidate reads back as a placed digit),
so the web page and the API carry a state as its placed digits (an 81-character line) and the
eliminations made since (`"r1c2<>5"`, as steps print them): lossless, and short.

Every technique assumes the puzzle has exactly one solution (the uniqueness techniques depend on
it) and that no right candidate was crossed out; `checked_solution` makes sure of both before a
hint or a rating is given, so a wrong state is refused with a reason instead of answered with
nonsense.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from sudoku_lens.errors import PuzzleFormatError, SudokuLensError
from sudoku_lens.logic.state import CandidateGrid
from sudoku_lens.puzzle.text import cell_name

_ELIMINATION = re.compile(r"^\s*r([1-9])c([1-9])\s*<>\s*([1-9])\s*$")


class UnsolvablePuzzleError(SudokuLensError, ValueError):
    """A puzzle without exactly one solution, or pencil marks that crossed out a right digit."""


def checked_solution(grid: CandidateGrid) -> str:
    """The solution (81-character line) of the digits placed in `grid`, after checking that it is
    the only one and that every empty cell still has its solution digit as a candidate. Raises
    UnsolvablePuzzleError saying what is wrong."""
    from sudoku_lens.solve import Status, solve_line

    result = solve_line(grid.line())
    if result.status is Status.NO_SOLUTION:
        raise UnsolvablePuzzleError("the puzzle has no solution: no grid fits these digits")
    if result.status is Status.SEVERAL:
        raise UnsolvablePuzzleError(
            "the puzzle has several solutions: logic needs a puzzle with exactly one"
        )
    solution = result.solution
    assert solution is not None
    for cell, mask in enumerate(grid.cands):
        if not grid.values[cell] and not mask >> (ord(solution[cell]) - 49) & 1:
            raise UnsolvablePuzzleError(
                f"the pencil marks of {cell_name(cell)} have lost the digit that belongs there"
            )
    return solution


def with_eliminations(grid: CandidateGrid, eliminations: Iterable[str]) -> CandidateGrid:
    """A copy of `grid` with candidates written as `"r1c2<>5"` crossed out. Raises
    PuzzleFormatError for text that is not such a candidate."""
    state = grid.copy()
    for text in eliminations:
        match = _ELIMINATION.match(text)
        if match is None:
            raise PuzzleFormatError(f"{text!r} is not an elimination like 'r1c2<>5'")
        row, col, digit = (int(group) for group in match.groups())
        state.eliminate((row - 1) * 9 + col - 1, digit)
    return state


def eliminations_since_start(grid: CandidateGrid) -> list[str]:
    """The candidates crossed out in `grid` that its placed digits alone do not rule out: with
    `grid.line()`, what `with_eliminations` needs to rebuild the state."""
    start = CandidateGrid.from_puzzle(grid.line())
    crossed = []
    for cell, (before, now) in enumerate(zip(start.cands, grid.cands, strict=True)):
        gone = before & ~now
        crossed += [f"{cell_name(cell)}<>{d + 1}" for d in range(9) if gone >> d & 1]
    return crossed
