"""The puzzle model: read, check and print Sudoku puzzles as (9, 9) uint8 arrays (0 = empty).

Text-level helpers (canonical 81-character lines, no NumPy) live in `sudoku_lens.puzzle.text`;
this module adds the array forms. NumPy is imported inside the functions that build arrays so
that the command line, which works on text, starts fast.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sudoku_lens.errors import PuzzleFormatError
from sudoku_lens.puzzle.text import (
    PuzzleEntry,
    check_rules,
    find_conflict,
    format_grid,
    format_line,
    parse_line,
    read_puzzles,
)

if TYPE_CHECKING:
    import numpy as np

__all__ = [
    "PuzzleEntry",
    "as_grid",
    "check_rules",
    "find_conflict",
    "format_grid",
    "format_line",
    "grid_from_line",
    "grid_json",
    "parse_line",
    "parse_puzzle",
    "parse_puzzles",
    "read_puzzles",
]


def grid_from_line(line: str) -> np.ndarray:
    """The (9, 9) uint8 array of a canonical 81-character line ('0' = empty)."""
    import numpy as np

    return (np.frombuffer(line.encode("ascii"), dtype=np.uint8) - ord("0")).reshape(9, 9)


def grid_json(grid: np.ndarray | None) -> str | None:
    """A (9, 9) grid's JSON form, its 81-character line ('0' for empty), or None for no grid."""
    return None if grid is None else format_line(grid)


def as_grid(puzzle: Any) -> np.ndarray:
    """A puzzle given as text, a 9x9 or 81 array, or a (nested) list, as a new (9, 9) uint8 array.

    Raises PuzzleFormatError for anything that is not 81 cells of 0-9; the rules are not checked.
    """
    return grid_from_line(format_line(puzzle))


def _without_comments(text: str) -> str:
    return "\n".join(row for row in text.splitlines() if not row.lstrip().startswith("#"))


def parse_puzzle(text: str) -> np.ndarray:
    """Read one puzzle (an 81-character line or a 9-row grid; `#` lines are comments).

    Raises PuzzleFormatError for a bad character, a wrong number of cells, or a digit twice in a
    row, column or box; the message names the character's cell or the unit and both cells.
    """
    line = parse_line(_without_comments(text))
    conflict = find_conflict(line)
    if conflict:
        raise PuzzleFormatError(conflict)
    return grid_from_line(line)


def parse_puzzles(text: str) -> list[np.ndarray]:
    """Read every puzzle of a puzzle file's text (see `read_puzzles` for the layout).

    Raises PuzzleFormatError for the first puzzle that cannot be read or breaks the rules,
    with its line number; use `read_puzzles` to keep going past bad puzzles instead.
    """
    grids = []
    for entry in read_puzzles(text):
        error = entry.error if entry.line is None else find_conflict(entry.line)
        if error:
            raise PuzzleFormatError(f"line {entry.number}: {error}")
        grids.append(grid_from_line(entry.line))
    return grids
