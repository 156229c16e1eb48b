"""The classic tutorial backtracking solver in pure Python: the baseline the benchmark beats.

Take the first empty cell, try 1 to 9 in turn, keep a digit its row, column and box do not
already hold, recurse; undo and try the next digit when the recursion fails. It stops at the
first solution (it does not prove uniqueness).
"""

from __future__ import annotations

import time

_CHECK_EVERY = 4096


def solve_backtracking(line: str, *, deadline: float | None = None) -> str | None:
    """The first solution of a canonical 81-character line, or None when there is none.

    Raises TimeoutError once `time.perf_counter()` passes `deadline` (checked every few
    thousand dead ends), since this search can take hours on puzzles built against it.
    """
    grid = [int(char) for char in line]
    dead_ends = 0

    def allowed(index: int, digit: int) -> bool:
        row, col = divmod(index, 9)
        if digit in grid[9 * row : 9 * row + 9]:
            return False
        if any(grid[9 * r + col] == digit for r in range(9)):
            return False
        top, left = 3 * (row // 3), 3 * (col // 3)
        return all(
            grid[9 * r + c] != digit for r in range(top, top + 3) for c in range(left, left + 3)
        )

    def search() -> bool:
        nonlocal dead_ends
        try:
            index = grid.index(0)
        except ValueError:
            return True
        for digit in range(1, 10):
            if allowed(index, digit):
                grid[index] = digit
                if search():
                    return True
        grid[index] = 0
        dead_ends += 1
        if (
            deadline is not None
            and dead_ends % _CHECK_EVERY == 0
            and time.perf_counter() > deadline
        ):
            raise TimeoutError("backtracking search ran past its deadline")
        return False

    return "".join(map(str, grid)) if search() else None
