"""Random Sudoku puzzles with a unique solution, for synthetic photos and tests."""

from __future__ import annotations

import numpy as np


def random_solution(rng: np.random.Generator) -> np.ndarray:
    """A random complete Sudoku grid: a base grid shuffled by validity-preserving symmetries.

    Permutes the digits, the rows within each band, the bands, the columns within each stack and
    the stacks, and transposes with probability one half.
    """
    r = np.arange(9)
    base = (3 * (r[:, None] % 3) + r[:, None] // 3 + r[None, :]) % 9
    digits = rng.permutation(9) + 1
    rows = np.concatenate([3 * b + rng.permutation(3) for b in rng.permutation(3)])
    cols = np.concatenate([3 * s + rng.permutation(3) for s in rng.permutation(3)])
    grid = digits[base][rows][:, cols]
    if rng.random() < 0.5:
        grid = grid.T
    return np.ascontiguousarray(grid, dtype=np.uint8)


def random_puzzle(
    rng: np.random.Generator, clues: int | None = None, *, symmetric: bool = True
) -> tuple[np.ndarray, np.ndarray]:
    """A random puzzle with exactly one solution, and that solution, both (9,9) uint8.

    Clues are removed from a random full grid in random order (in pairs symmetric about the centre,
    as newspapers print them, when `symmetric`) while the puzzle keeps a unique solution, until
    `clues` remain or no further clue can go. `clues` defaults to a random count in 24..34; very
    low targets stop wherever uniqueness blocks further removal.
    """
    from sudoku_lens.solve import count_solutions

    if clues is None:
        clues = int(rng.integers(24, 35))
    if not 17 <= clues <= 81:
        raise ValueError(f"clues must be between 17 and 81, got {clues}")
    solution = random_solution(rng)
    puzzle = solution.copy()
    remaining = 81
    for index in rng.permutation(81):
        r, c = divmod(int(index), 9)
        if puzzle[r, c] == 0:
            continue
        cells = {(r, c), (8 - r, 8 - c)} if symmetric else {(r, c)}
        if remaining - len(cells) < clues:
            continue
        trial = puzzle.copy()
        for rr, cc in cells:
            trial[rr, cc] = 0
        if count_solutions(trial, 2) == 1:
            puzzle = trial
            remaining -= len(cells)
            if remaining <= clues:
                break
    return puzzle, solution
