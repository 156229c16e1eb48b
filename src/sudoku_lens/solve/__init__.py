"""Exact Sudoku solving: a bitboard search in C (`_core.c`) behind a small Python API.

`solve` proves uniqueness by searching for a second solution. A puzzle that already breaks the
rules (a digit twice in a unit) has no solution: `solve` reports it as such rather than raising;
`sudoku_lens.puzzle.check_rules` names the conflict. Text that is not a puzzle at all (a bad
character, a wrong length) raises PuzzleFormatError.

`solve_line` and `solve_lines` work on 81-character lines and never import NumPy, for the
command line; `solve` and `count_solutions` accept text, a 9x9 or 81 array, or a list.
"""

from __future__ import annotations

import operator
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any, NamedTuple

from sudoku_lens.errors import PuzzleFormatError
from sudoku_lens.puzzle.text import find_conflict, format_line
from sudoku_lens.solve import _core

if TYPE_CHECKING:
    import numpy as np

    from sudoku_lens.puzzle.text import PuzzleEntry

__all__ = [
    "BatchResult",
    "EntryOutcome",
    "LineSolution",
    "Solution",
    "Status",
    "count_solutions",
    "entry_outcomes",
    "solve",
    "solve_line",
    "solve_lines",
    "solve_packed",
]

_CHUNK = 4096
_MAX_LIMIT = 2**64 - 1  # the C core counts in 64 bits
_LINE_CHARACTERS = frozenset("0123456789.")


class Status(StrEnum):
    """How a search ended."""

    SOLVED = "solved"
    NO_SOLUTION = "no solution"
    SEVERAL = "several solutions"


_STATUS_OF_COUNT = {0: Status.NO_SOLUTION, 1: Status.SOLVED, 2: Status.SEVERAL}


@dataclass(frozen=True, eq=False)  # its arrays have no single truth value: compared by identity
class Solution:
    """The outcome of `solve`: `grid` is the (9, 9) uint8 solution when it is unique, else None."""

    status: Status
    grid: np.ndarray | None
    guesses: int
    seconds: float


class LineSolution(NamedTuple):
    """The outcome of `solve_line`: `solution` is the unique solution's line, else None."""

    status: Status
    solution: str | None
    guesses: int
    seconds: float


def solve_line(line: str) -> LineSolution:
    """Solve a canonical 81-character line (see `sudoku_lens.puzzle.text.parse_line`)."""
    return _solve_text(line)


def _solve_text(line: str | bytes) -> LineSolution:
    """Solve 81 characters (str or ASCII bytes) in the C core, proving the solution unique."""
    start = time.perf_counter()
    count, solution, guesses = _core.solve(line, 2)
    seconds = time.perf_counter() - start
    status = _STATUS_OF_COUNT[count]
    text = solution.decode("ascii") if status is Status.SOLVED else None
    return LineSolution(status, text, guesses, seconds)


def solve(puzzle: Any) -> Solution:
    """Solve a puzzle given as text, a 9x9 or 81 array, or a (nested) list of 0-9 (0 = empty).

    The search stops at the second solution: status SEVERAL then, with no grid.
    """
    result = _solve_text(_puzzle_text(puzzle))
    grid = None
    if result.solution is not None:
        from sudoku_lens.puzzle import grid_from_line

        grid = grid_from_line(result.solution)
    return Solution(result.status, grid, result.guesses, result.seconds)


def count_solutions(puzzle: Any, limit: int = 2) -> int:
    """The number of solutions of a puzzle, counting no further than `limit` (at least 1)."""
    limit = operator.index(limit)
    if limit < 1:
        raise ValueError(f"limit must be at least 1, got {limit}")
    return _core.solve(_puzzle_text(puzzle), min(limit, _MAX_LIMIT))[0]


def _puzzle_text(puzzle: Any) -> str | bytes:
    """The puzzle as the C core reads it: 81 ASCII digits. An integer array of 81 cells 0-9 is
    converted directly (a cell at a time through `format_line` takes ten times the search of
    an easy grid, which `repair` runs thousands of times); anything else goes through
    `format_line`, which also says what is wrong with a bad puzzle."""
    dtype = getattr(puzzle, "dtype", None)
    if (
        dtype is not None
        and dtype.kind in "iu"
        and tuple(puzzle.shape) in ((9, 9), (81,))
        and puzzle.min() >= 0
        and puzzle.max() <= 9
    ):
        return (puzzle.astype("u1").reshape(81) + ord("0")).tobytes()
    return format_line(puzzle)


@dataclass(frozen=True)
class BatchResult:
    """The outcome of `solve_lines`, one item per puzzle in input order.

    `solutions[i]` is the unique solution's line or None; `seconds[i]` is the search time.
    """

    statuses: list[Status]
    solutions: list[str | None]
    guesses: list[int]
    seconds: list[float]


def solve_packed(packed: bytes) -> tuple[bytes, bytes, bytes, bytes]:
    """Solve checked lines packed as 81-byte records (a top-level function, so it pickles).

    Returns the solutions packed the same way (meaningful where the count is 1), the counts of
    solutions (0, 1 or 2, one byte each), the guesses (uint32) and the seconds (float64).
    """
    return _core.solve_many(packed, 2)


def solve_lines(
    lines: Sequence[str],
    *,
    jobs: int = 1,
    progress: Callable[[int], object] | None = None,
) -> BatchResult:
    """Solve many canonical lines, proving each solution unique, in chunks.

    `jobs` > 1 spreads the chunks over that many processes (results stay in input order).
    `progress`, if given, is called with the number of puzzles each finished chunk held.
    Raises PuzzleFormatError naming the first item that is not an 81-character line.
    """
    packed = _pack(lines)
    size = 81 * _CHUNK
    chunks = [packed[i : i + size] for i in range(0, len(packed), size)]
    if jobs > 1 and len(chunks) > 1:
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(max_workers=min(jobs, len(chunks))) as pool:
            parts = list(_report(pool.map(solve_packed, chunks), progress))
    else:
        parts = list(_report(map(solve_packed, chunks), progress))
    statuses: list[Status] = []
    solutions: list[str | None] = []
    guesses: list[int] = []
    seconds: list[float] = []
    for chunk_solutions, counts, chunk_guesses, chunk_seconds in parts:
        statuses.extend(map(_STATUS_OF_COUNT.__getitem__, counts))
        text = chunk_solutions.decode("ascii")
        chunk = [text[i : i + 81] for i in range(0, len(text), 81)]
        if counts.count(1) != len(counts):
            chunk = [
                line if count == 1 else None for line, count in zip(chunk, counts, strict=True)
            ]
        solutions.extend(chunk)
        guesses.extend(memoryview(chunk_guesses).cast("I").tolist())
        seconds.extend(memoryview(chunk_seconds).cast("d").tolist())
    return BatchResult(statuses, solutions, guesses, seconds)


class EntryOutcome(NamedTuple):
    """How one entry of a puzzle file ended: `status` is a Status value or "error"."""

    status: str
    solution: str | None
    guesses: int
    seconds: float
    error: str | None


def entry_outcomes(entries: Sequence[PuzzleEntry], result: BatchResult) -> Iterator[EntryOutcome]:
    """The outcome of each entry, in order, from `result` (the solved lines of the readable ones).

    An entry that could not be read, or whose givens break the rules, is an "error" naming why.
    """
    solved = iter(range(len(result.statuses)))
    for entry in entries:
        if entry.line is None:
            yield EntryOutcome("error", None, 0, 0.0, entry.error)
            continue
        i = next(solved)
        status = result.statuses[i]
        conflict = find_conflict(entry.line) if status is Status.NO_SOLUTION else None
        yield EntryOutcome(
            "error" if conflict else status.value,
            result.solutions[i],
            result.guesses[i],
            result.seconds[i],
            f"not a legal puzzle: {conflict}" if conflict else None,
        )


def _pack(lines: Sequence[str]) -> bytes:
    """The lines as one run of 81-byte records, checked so that no puzzle can shift the rest."""
    joined = "".join(lines)
    if set(map(len, lines)) <= {81} and joined.isascii():
        packed = joined.encode("ascii")
        if not packed.translate(None, b"0123456789."):
            return packed
    number, line = next(
        (number, line)
        for number, line in enumerate(lines, 1)
        if len(line) != 81 or not set(line) <= _LINE_CHARACTERS
    )
    raise PuzzleFormatError(
        f"puzzle {number} is not an 81-character line of 0-9 or '.': {line[:90]!r}"
    )


def _report(
    parts: Iterable[tuple[bytes, bytes, bytes, bytes]], progress: Callable[[int], object] | None
) -> Iterator[tuple[bytes, bytes, bytes, bytes]]:
    """Pass chunk results through, telling `progress` how many puzzles each held."""
    for part in parts:
        if progress is not None:
            progress(len(part[1]))
        yield part
