"""The solver: property tests on generated grids, known hard puzzles, the API's inputs."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from sudoku_lens.errors import PuzzleFormatError
from sudoku_lens.solve import Status, _core, count_solutions, solve, solve_line, solve_lines

BASE = [[(3 * (r % 3) + r // 3 + c) % 9 + 1 for c in range(9)] for r in range(9)]

# Arto Inkala's "world's hardest sudoku" and its published solution.
INKALA = "800000000003600000070090200050007000000045700000100030001000068008500010090000400"
INKALA_SOLUTION = (
    "812753649943682175675491283154237896369845721287169534521974368438526917796318452"
)
# A few of Peter Norvig's top95 hard puzzles.
TOP95 = [
    "400000805030000000000700000020000060000080400000010000000603070500200000104000000",
    "520006000000000701300000000000400800600000050000000000041800000000030020008700000",
    "600000803040700000000000000000504070300200000106000000020000050000080600000010000",
    "480300000000000071020000000705000060000200800000000000001076000300000400000050000",
    "000000520080400000030009000501000600200700000000300000600010000000000704000000030",
    "100007090030020008009600500005300900010080002600004000300000010040000007007000300",
]


def is_valid_solution(solution: str, puzzle: str) -> bool:
    """Every row, column and box holds 1-9 once, and every given is kept."""
    digits = set("123456789")
    rows = [solution[9 * r : 9 * r + 9] for r in range(9)]
    columns = ["".join(row[c] for row in rows) for c in range(9)]
    boxes = [
        "".join(rows[3 * (b // 3) + r][3 * (b % 3) + c] for r in range(3) for c in range(3))
        for b in range(9)
    ]
    units_ok = all(set(unit) == digits for unit in rows + columns + boxes)
    return units_ok and all(p == "0" or p == s for p, s in zip(puzzle, solution, strict=True))


@st.composite
def solved_grids(draw: st.DrawFn) -> str:
    """A valid full grid: a base grid with its digits, rows in bands, bands, columns in stacks
    and stacks permuted, maybe transposed."""
    digits = draw(st.permutations(range(1, 10)))
    rows = [
        3 * band + r
        for band in draw(st.permutations(range(3)))
        for r in draw(st.permutations(range(3)))
    ]
    cols = [
        3 * stack + c
        for stack in draw(st.permutations(range(3)))
        for c in draw(st.permutations(range(3)))
    ]
    grid = [[digits[BASE[r][c] - 1] for c in cols] for r in rows]
    if draw(st.booleans()):
        grid = [list(column) for column in zip(*grid, strict=True)]
    return "".join(str(value) for row in grid for value in row)


def blank(grid: str, cells: set[int] | list[int]) -> str:
    chars = list(grid)
    for index in cells:
        chars[index] = "0"
    return "".join(chars)


@settings(max_examples=300, deadline=None)
@given(solved_grids(), st.lists(st.booleans(), min_size=81, max_size=81))
def test_blanked_grids_solve_to_valid_grids_keeping_every_clue(grid: str, keep: list[bool]) -> None:
    assert is_valid_solution(grid, grid)
    puzzle = blank(grid, [i for i in range(81) if not keep[i]])
    result = solve(puzzle)
    assert result.status is not Status.NO_SOLUTION
    count, first, _ = _core.solve(puzzle, 1)
    assert count == 1 and is_valid_solution(first.decode(), puzzle)
    if result.status is Status.SOLVED:
        assert is_valid_solution(format_line_of(result.grid), puzzle)
        assert count_solutions(puzzle) == 1
    else:
        assert result.grid is None
        assert count_solutions(puzzle) == 2


def format_line_of(grid: np.ndarray) -> str:
    return "".join(str(value) for value in grid.ravel())


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(solved_grids(), st.permutations(range(81)), st.data())
def test_removing_clues_until_two_solutions_is_detected_and_a_wrong_clue_breaks_it(
    grid: str, order: list[int], data: st.DataObject
) -> None:
    removed: list[int] = []
    unique = grid
    for index in order:
        puzzle = blank(grid, [*removed, index])
        if count_solutions(puzzle) == 2:
            break
        removed.append(index)
        unique = puzzle
    assert count_solutions(puzzle, limit=2) == 2
    assert solve(puzzle).status is Status.SEVERAL
    assert count_solutions(puzzle, limit=5) >= 2
    result = solve(unique)
    assert result.status is Status.SOLVED
    assert format_line_of(result.grid) == grid

    # A clue that contradicts the unique solution, yet breaks no rule outright: no solution.
    candidates = []
    for index in removed:
        r, c = divmod(index, 9)
        peers = {9 * r + k for k in range(9)} | {9 * k + c for k in range(9)}
        peers |= {9 * (3 * (r // 3) + i) + 3 * (c // 3) + j for i in range(3) for j in range(3)}
        used = {unique[p] for p in peers}
        candidates += [(index, d) for d in "123456789" if d != grid[index] and d not in used]
    assume(candidates)
    index, digit = data.draw(st.sampled_from(candidates))
    wrong = unique[:index] + digit + unique[index + 1 :]
    assert solve(wrong).status is Status.NO_SOLUTION
    assert count_solutions(wrong) == 0


@pytest.mark.parametrize(
    "puzzle",
    [
        "11" + "0" * 79,  # a digit twice in a row
        "1" + "0" * 8 + "1" + "0" * 71,  # twice in a column (r1c1, r2c1)
        "1" + "0" * 9 + "1" + "0" * 70,  # twice in a box (r1c1, r2c2)
        "12345678" + "0" * 17 + "9" + "0" * 55,  # r1c9 needs a 9, and its box has one
        "123456780" + "0" * 71 + "9",  # r1c9 needs a 9, and its column has one
    ],
)
def test_contradictory_puzzles_have_no_solution(puzzle: str) -> None:
    result = solve(puzzle)
    assert result.status is Status.NO_SOLUTION and result.grid is None
    assert count_solutions(puzzle, limit=10) == 0


def test_inkala_has_its_published_solution() -> None:
    result = solve(INKALA)
    assert result.status is Status.SOLVED
    assert format_line_of(result.grid) == INKALA_SOLUTION
    assert result.guesses > 0 and result.seconds > 0


@pytest.mark.parametrize("puzzle", TOP95)
def test_hard_puzzles_solve_uniquely(puzzle: str) -> None:
    result = solve_line(puzzle)
    assert result.status is Status.SOLVED
    assert is_valid_solution(result.solution, puzzle)


def test_the_search_is_deterministic() -> None:
    first = [solve_line(puzzle)[:3] for puzzle in TOP95]
    assert first == [solve_line(puzzle)[:3] for puzzle in TOP95]


def test_the_empty_grid_has_many_solutions() -> None:
    assert solve("0" * 81).status is Status.SEVERAL
    assert count_solutions("0" * 81, limit=1000) == 1000


def test_solve_accepts_text_arrays_and_lists() -> None:
    grid = np.array([int(char) for char in INKALA], dtype=np.uint8).reshape(9, 9)
    expected = np.array([int(char) for char in INKALA_SOLUTION], dtype=np.uint8).reshape(9, 9)
    for puzzle in (INKALA, INKALA.replace("0", "."), grid, grid.ravel(), grid.tolist()):
        result = solve(puzzle)
        assert result.grid.dtype == np.uint8
        np.testing.assert_array_equal(result.grid, expected)
        assert count_solutions(puzzle) == 1


@settings(max_examples=200, deadline=None)
@given(
    solved_grids(),
    st.lists(st.booleans(), min_size=81, max_size=81),
    st.sampled_from(["uint8", "int8", "int32", "int64", "uint16"]),
    st.booleans(),
    st.integers(0, 80),
)
def test_integer_arrays_count_like_their_text(
    grid: str, keep: list[bool], dtype: str, flat: bool, clash: int
) -> None:
    """Arrays go to the solver without text formatting: every integer type and both shapes give
    the text's verdict, also for a grid that breaks the rules."""
    puzzle = blank(grid, [i for i in range(81) if not keep[i]])
    if clash % 3 == 0:  # a digit twice in a row, sometimes
        row = 9 * (clash // 9)
        puzzle = puzzle[:row] + grid[row + 1] + grid[row + 1 :]
    array = np.array([int(char) for char in puzzle], dtype=dtype)
    array = array if flat else array.reshape(9, 9)
    assert count_solutions(array) == count_solutions(puzzle)
    assert solve(array).status is solve(puzzle).status


@pytest.mark.parametrize("value", [-1, 10, 255])
def test_arrays_with_a_value_outside_0_to_9_are_refused(value: int) -> None:
    grid = np.zeros(81, np.int64)
    grid[40] = value
    with pytest.raises(PuzzleFormatError):
        count_solutions(grid)
    with pytest.raises(PuzzleFormatError):
        solve(grid.astype(np.int16).reshape(9, 9))


def test_bad_input_raises() -> None:
    with pytest.raises(PuzzleFormatError, match="81 cells"):
        solve("123")
    with pytest.raises(ValueError, match="limit must be at least 1"):
        count_solutions(INKALA, limit=0)
    with pytest.raises(ValueError, match="81 characters"):
        _core.solve("x" * 81)


def test_batches_keep_order_in_one_or_several_processes() -> None:
    lines = (TOP95 + [INKALA, "0" * 81, "11" + "0" * 79]) * 500
    seen: list[int] = []
    serial = solve_lines(lines, progress=seen.append)
    assert sum(seen) == len(lines) and len(seen) > 1
    parallel = solve_lines(lines, jobs=2)
    assert serial.statuses == parallel.statuses
    assert serial.solutions == parallel.solutions
    assert serial.guesses == parallel.guesses
    assert serial.statuses[:9] == [Status.SOLVED] * 7 + [Status.SEVERAL, Status.NO_SOLUTION]
    assert serial.solutions[6] == INKALA_SOLUTION and serial.solutions[7] is None
    assert all(seconds >= 0 for seconds in serial.seconds)


def test_tutorial_backtracking_baseline(backtracking: Callable[..., str | None]) -> None:
    easy = "003020600900305001001806400008102900700000008006708200002609500800203009005010300"
    assert backtracking(easy) == solve_line(easy).solution
    stuck = INKALA_SOLUTION[:79] + "20"  # r9c9 needs a 5, and column 9 has one
    assert backtracking(stuck) is None
    with pytest.raises(TimeoutError):
        backtracking(INKALA, deadline=time.perf_counter())


@pytest.mark.parametrize(
    ("name", "count"),
    [
        ("top95.txt", None),
        ("top1465.txt", None),
        ("forum-hardest-1106.txt", None),
        ("17-clue.txt", 3000),
        ("forum-hardest-1905.txt", 3000),
    ],
)
def test_benchmark_sets_solve_uniquely(puzzles_data: Path, name: str, count: int | None) -> None:
    lines = (puzzles_data / name).read_text().split()[:count]
    result = solve_lines(lines)
    assert all(status is Status.SOLVED for status in result.statuses)
    assert all(map(is_valid_solution, result.solutions, lines))


def test_count_solutions_takes_any_integer_limit() -> None:
    assert (
        count_solutions(INKALA, limit=2**64) == 1
    )  # beyond the core's 64 bits: capped, not wrapped
    assert count_solutions(INKALA, limit=2**64 + 1) == 1
    assert count_solutions("0" * 81, limit=np.int64(3)) == 3
    with pytest.raises(TypeError):
        count_solutions(INKALA, limit=1.5)


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        ([INKALA[:80], INKALA + "0"], "puzzle 1 is not an 81-character line"),
        ([INKALA, "x" * 81], "puzzle 2 is not an 81-character line"),
        ([INKALA, INKALA[:40] + "é" + INKALA[41:]], "puzzle 2 is not an 81-character line"),
    ],
)
def test_batches_reject_lines_that_would_shift_or_break_the_rest(
    lines: list[str], message: str
) -> None:
    with pytest.raises(PuzzleFormatError, match=message):
        solve_lines(lines)
    assert solve_lines([INKALA.replace("0", ".")]).solutions == [INKALA_SOLUTION]
    assert solve_lines([]).statuses == []


@given(
    st.binary(max_size=3000)
    | st.lists(
        st.sampled_from([b"\n", b"\n" * 9, b"\x0a\x8a", b"\xff", b"x" * 81]), max_size=900
    ).map(b"".join)
)
@example(b"\n" * (8 * 255 * 3 + 5))
def test_count_newlines_is_bytes_count(data: bytes) -> None:
    """The batch's line counter (eight bytes at a time, 255 words to a round) counts what
    bytes.count does, runs of line breaks long enough to fill every counter included."""
    assert _core.count_newlines(data) == data.count(b"\n")
    assert _core.count_newlines(bytearray(data)) == data.count(b"\n")
