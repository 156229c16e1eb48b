"""Repairing misread grids with the classifier's probabilities (synthetic probability tables)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sudoku_lens.repair import conflict_cells, repair
from sudoku_lens.solve import Status, count_solutions


def as_array(line: str) -> np.ndarray:
    return np.array([int(c) for c in line], dtype=np.uint8).reshape(9, 9)


PUZZLE = as_array(
    "530070000600195000098000060800060003400803001700020006060000280000419005000080079"
)
SOLUTION = as_array(
    "534678912672195348198342567859761423426853791713924856961537284287419635345286179"
)


def confident_table(grid: np.ndarray, p: float = 0.98) -> np.ndarray:
    """Probabilities that read every cell of `grid` with probability `p`, the rest spread evenly."""
    table = np.full((9, 9, 10), (1.0 - p) / 9, dtype=np.float32)
    rows, cols = np.indices((9, 9))
    table[rows, cols, grid] = p
    return table


def misread(
    table: np.ndarray, cell: tuple[int, int], read: int, truth: int, p_read: float, p_truth: float
) -> None:
    """Make `cell` read as `read` with probability `p_read`, its true value `truth` at `p_truth`."""
    rest = (1.0 - p_read - p_truth) / 8
    table[cell] = rest
    table[cell][read] = p_read
    table[cell][truth] = p_truth


def reading(table: np.ndarray) -> np.ndarray:
    return table.argmax(axis=2).astype(np.uint8)


def test_good_grid_is_unchanged() -> None:
    result = repair(confident_table(PUZZLE), PUZZLE)
    assert result.status == Status.SOLVED
    assert result.changed_cells == []
    assert result.log_probability == 0.0
    assert not result.repaired
    np.testing.assert_array_equal(result.grid, PUZZLE)
    np.testing.assert_array_equal(result.solution, SOLUTION)


def test_conflict_from_one_misread_digit_is_repaired() -> None:
    table = confident_table(PUZZLE)
    misread(table, (0, 0), read=3, truth=5, p_read=0.6, p_truth=0.35)
    # A correct but uncertain cell elsewhere must not be the one changed.
    misread(table, (4, 4), read=PUZZLE[4, 4], truth=2, p_read=0.7, p_truth=0.28)
    grid = reading(table)
    assert conflict_cells(grid)[0, 0] and conflict_cells(grid)[0, 1]

    result = repair(table, grid)

    assert result.repaired
    assert result.changed_cells == [(0, 0)]
    np.testing.assert_array_equal(result.grid, PUZZLE)
    np.testing.assert_array_equal(result.solution, SOLUTION)
    assert result.log_probability == pytest.approx(np.log(0.35 / 0.6), abs=1e-5)


def test_blank_read_as_a_digit_is_repaired() -> None:
    # (0, 2) is empty; reading it as 1 breaks no rule but leaves no solution.
    table = confident_table(PUZZLE)
    misread(table, (0, 2), read=1, truth=0, p_read=0.55, p_truth=0.4)
    grid = reading(table)
    assert not conflict_cells(grid).any()
    assert count_solutions(grid, limit=2) == 0

    result = repair(table, grid)

    assert result.changed_cells == [(0, 2)]
    np.testing.assert_array_equal(result.grid, PUZZLE)
    np.testing.assert_array_equal(result.solution, SOLUTION)


def with_digit(grid: np.ndarray, cell: tuple[int, int], digit: int) -> np.ndarray:
    changed = grid.copy()
    changed[cell] = digit
    return changed


def test_a_grid_without_solution_is_mended_past_many_doubtful_blanks() -> None:
    """A stray digit leaves no solution, among blanks the reader half saw digits in: adding a
    digit never mends such a grid, so the digits read are tried even when more than
    `candidates` blanks are cheaper to change."""
    blanks = [(int(r), int(c)) for r, c in zip(*np.nonzero(PUZZLE == 0), strict=True)]
    stray, digit = next(
        (cell, d)
        for cell in blanks
        for d in range(1, 10)
        if d != SOLUTION[cell] and not conflict_cells(with_digit(PUZZLE, cell, d)).any()
    )
    table = confident_table(PUZZLE)
    misread(table, stray, read=digit, truth=0, p_read=0.97, p_truth=0.03)
    for cell in [cell for cell in blanks if cell != stray][:20]:
        misread(table, cell, read=0, truth=int(SOLUTION[cell]), p_read=0.6, p_truth=0.38)
    grid = reading(table)
    assert count_solutions(grid, limit=2) == 0 and not conflict_cells(grid).any()

    result = repair(table, grid, min_probability=0.01)

    assert result.changed_cells == [stray]
    np.testing.assert_array_equal(result.solution, SOLUTION)


def missing_digit_cell() -> tuple[int, int]:
    """A given of PUZZLE whose removal leaves several solutions."""
    for r, c in zip(*np.nonzero(PUZZLE), strict=True):
        trial = PUZZLE.copy()
        trial[r, c] = 0
        if count_solutions(trial, limit=2) > 1:
            return int(r), int(c)
    raise AssertionError("every given of PUZZLE can go without losing uniqueness")


def test_missed_digit_causing_several_solutions_is_repaired() -> None:
    cell = missing_digit_cell()
    table = confident_table(PUZZLE)
    misread(table, cell, read=0, truth=int(PUZZLE[cell]), p_read=0.6, p_truth=0.3)
    grid = reading(table)
    assert count_solutions(grid, limit=2) == 2

    result = repair(table, grid)

    assert result.changed_cells == [cell]
    np.testing.assert_array_equal(result.grid, PUZZLE)
    np.testing.assert_array_equal(result.solution, SOLUTION)


def test_three_misreads_at_once_are_repaired() -> None:
    missed = missing_digit_cell()
    table = confident_table(PUZZLE)
    misread(table, (0, 0), read=3, truth=5, p_read=0.6, p_truth=0.35)
    misread(table, missed, read=0, truth=int(PUZZLE[missed]), p_read=0.5, p_truth=0.45)
    misread(table, (2, 0), read=2, truth=0, p_read=0.5, p_truth=0.45)

    result = repair(table, reading(table))

    assert result.status == Status.SOLVED
    assert result.changed_cells == sorted([(0, 0), missed, (2, 0)])
    np.testing.assert_array_equal(result.grid, PUZZLE)


def test_confident_broken_grid_is_not_repaired() -> None:
    grid = PUZZLE.copy()
    grid[0, 2] = 5  # a second 5 in row 0, read with near certainty
    table = confident_table(grid, p=0.9999)

    result = repair(table, grid)

    assert result.status == Status.NO_SOLUTION
    assert result.solution is None
    assert result.changed_cells == []
    np.testing.assert_array_equal(result.grid, grid)


def test_confident_label_smoothed_reading_is_not_repaired() -> None:
    """A classifier trained with label smoothing is never surer than ~0.95: still no repair."""
    broken = PUZZLE.copy()
    broken[0, 2] = 1  # breaks no rule, but leaves no solution
    result = repair(confident_table(broken, p=0.95), broken)
    assert result.status == Status.NO_SOLUTION
    assert result.changed_cells == []


def test_values_the_classifier_all_but_ruled_out_are_not_tried() -> None:
    table = confident_table(PUZZLE)
    misread(table, (0, 0), read=3, truth=5, p_read=0.99, p_truth=0.005)
    result = repair(table, reading(table))
    assert result.status == Status.NO_SOLUTION
    assert repair(table, reading(table), min_probability=0.001).changed_cells == [(0, 0)]


def test_a_digit_read_surely_is_not_changed_to_one_read_at_a_few_percent() -> None:
    """A reading one in twenty-five as likely as the digit read is not enough to change it."""
    table = confident_table(PUZZLE)
    misread(table, (0, 0), read=3, truth=5, p_read=0.9, p_truth=0.04)
    assert repair(table, reading(table)).status == Status.NO_SOLUTION
    assert repair(table, reading(table), min_probability=0.01).changed_cells == [(0, 0)]


def test_confident_grid_with_several_solutions_is_not_repaired() -> None:
    grid = PUZZLE.copy()
    grid[missing_digit_cell()] = 0
    result = repair(confident_table(grid, p=0.9999), grid)
    assert result.status == Status.SEVERAL
    assert result.solution is None
    assert result.changed_cells == []


def test_search_budget_exhausted_reports_failure() -> None:
    table = confident_table(PUZZLE)
    misread(table, (0, 0), read=3, truth=5, p_read=0.5, p_truth=0.2)
    for cell in [(1, 1), (2, 2), (3, 3), (5, 5), (6, 6)]:
        misread(table, cell, read=int(PUZZLE[cell]), truth=4, p_read=0.6, p_truth=0.39)
    result = repair(table, reading(table), max_nodes=3)
    assert result.status == Status.NO_SOLUTION
    assert result.solution is None
    assert result.nodes == 3


def test_conflict_cells_marks_both_cells_of_each_repeat() -> None:
    grid = PUZZLE.copy()
    grid[4, 4] = 8  # 8 is already at (4, 3) in the same row and at (8, 4) in the column
    mask = conflict_cells(grid)
    assert set(zip(*np.nonzero(mask), strict=True)) == {(4, 4), (4, 3), (8, 4)}
    assert not conflict_cells(PUZZLE).any()


def test_bad_shapes_are_rejected() -> None:
    with pytest.raises(ValueError, match="9, 9, 10"):
        repair(np.zeros((9, 9, 3)), PUZZLE)


@settings(max_examples=40, deadline=None)
@given(
    cell=st.integers(0, 80),
    wrong=st.integers(0, 9),
    p_read=st.floats(0.5, 0.9),
)
def test_any_single_misread_is_repaired(cell: int, wrong: int, p_read: float) -> None:
    """One uncertain misread, all else confident: the result is the printed puzzle, or a reading
    that already had one solution and was left alone."""
    r, c = divmod(cell, 9)
    truth = int(PUZZLE[r, c])
    if wrong == truth:
        wrong = (truth + 1) % 10
    table = confident_table(PUZZLE)
    misread(table, (r, c), read=wrong, truth=truth, p_read=p_read, p_truth=(1 - p_read) * 0.9)
    grid = reading(table)

    result = repair(table, grid)

    assert result.status == Status.SOLVED
    if result.changed_cells:
        assert result.changed_cells == [(r, c)]
        np.testing.assert_array_equal(result.grid, PUZZLE)
    else:
        np.testing.assert_array_equal(result.grid, grid)
        assert count_solutions(grid, limit=2) == 1
