"""The puzzle model: reading every accepted layout, every parse error, printing back."""

from __future__ import annotations

import re

import numpy as np
import pytest

from sudoku_lens.errors import PuzzleFormatError
from sudoku_lens.puzzle import (
    as_grid,
    check_rules,
    find_conflict,
    format_grid,
    format_line,
    parse_line,
    parse_puzzle,
    parse_puzzles,
    read_puzzles,
)

LINE = "530070000600195000098000060800060003400803001700020006060000280000419005000080079"
DOTS = LINE.replace("0", ".")
GRID = """\
5 3 . | . 7 . | . . .
6 . . | 1 9 5 | . . .
. 9 8 | . . . | . 6 .
------+-------+------
8 . . | . 6 . | . . 3
4 . . | 8 . 3 | . . 1
7 . . | . 2 . | . . 6
------+-------+------
. 6 . | . . . | 2 8 .
. . . | 4 1 9 | . . 5
. . . | . 8 . | . 7 9
"""
BOXED = """\
+-------+-------+-------+
| 5 3 . | . 7 . | . . . |
| 6 . . | 1 9 5 | . . . |
| . 9 8 | . . . | . 6 . |
+-------+-------+-------+
| 8 . . | . 6 . | . . 3 |
| 4 . . | 8 . 3 | . . 1 |
| 7 . . | . 2 . | . . 6 |
+-------+-------+-------+
| . 6 . | . . . | 2 8 . |
| . . . | 4 1 9 | . . 5 |
| . . . | . 8 . | . 7 9 |
+-------+-------+-------+"""
EXPECTED = np.array([int(char) for char in LINE], dtype=np.uint8).reshape(9, 9)


@pytest.mark.parametrize("text", [LINE, DOTS, f"  {LINE}\n", GRID, BOXED, GRID.replace(" ", "")])
def test_every_layout_reads_the_same_grid(text: str) -> None:
    grid = parse_puzzle(text)
    assert grid.dtype == np.uint8 and grid.shape == (9, 9)
    np.testing.assert_array_equal(grid, EXPECTED)


def test_comment_lines_are_skipped_in_one_puzzle() -> None:
    np.testing.assert_array_equal(parse_puzzle(f"# from a newspaper\n{GRID}"), EXPECTED)


def test_printing_back() -> None:
    assert format_line(EXPECTED) == LINE
    assert format_grid(EXPECTED) == BOXED
    assert format_grid(LINE) == BOXED
    np.testing.assert_array_equal(parse_puzzle(format_grid(EXPECTED)), EXPECTED)


@pytest.mark.parametrize(
    "puzzle",
    [
        LINE,
        EXPECTED,
        EXPECTED.ravel(),
        EXPECTED.astype(np.int64),
        EXPECTED.tolist(),
        EXPECTED.ravel().tolist(),
        EXPECTED.astype(float),
    ],
    ids=["text", "9x9", "81", "int64", "nested list", "flat list", "float"],
)
def test_as_grid_accepts_text_arrays_and_lists(puzzle: object) -> None:
    grid = as_grid(puzzle)
    assert grid.dtype == np.uint8
    np.testing.assert_array_equal(grid, EXPECTED)
    grid[0, 0] = 9
    assert as_grid(puzzle)[0, 0] == 5  # a new array every time


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (LINE[:80], "a puzzle has 81 cells, this one has 80"),
        (LINE + "1", "a puzzle has 81 cells, this one has 82"),
        ("", "a puzzle has 81 cells, this one has 0"),
        (LINE[:13] + "x" + LINE[14:], "bad character 'x' at r2c5 (character 14)"),
        (LINE + "?", "bad character '?' after the 81st cell (character 82)"),
        ("5 3 * | . 7 .", "bad character '*' at r1c3 (character 5)"),
    ],
)
def test_parse_errors_name_the_problem(text: str, message: str) -> None:
    with pytest.raises(PuzzleFormatError, match="^" + re.escape(message)):
        parse_puzzle(text)


@pytest.mark.parametrize(
    ("cells", "message"),
    [
        ({20: "7", 26: "7"}, "7 appears twice in row 3: r3c3 and r3c9"),
        ({1: "4", 64: "4"}, "4 appears twice in column 2: r1c2 and r8c2"),
        ({60: "3", 80: "3"}, "3 appears twice in box 9: r7c7 and r9c9"),
    ],
)
def test_broken_rules_name_the_unit_and_both_cells(cells: dict[int, str], message: str) -> None:
    chars = ["0"] * 81
    for index, digit in cells.items():
        chars[index] = digit
    line = "".join(chars)
    assert find_conflict(line) == message
    with pytest.raises(PuzzleFormatError, match=f"^{message}$"):
        parse_puzzle(line)
    with pytest.raises(PuzzleFormatError, match=f"^{message}$"):
        check_rules(as_grid(line))


def test_a_legal_puzzle_has_no_conflict() -> None:
    assert find_conflict(LINE) is None
    check_rules(EXPECTED)


@pytest.mark.parametrize(
    ("puzzle", "message"),
    [
        (np.zeros((9, 8)), r"a puzzle array is 9x9 or 81 cells, got shape \(9, 8\)"),
        ([1, 2, 3], "a puzzle list has 81 cells or 9 rows of 9, this one has 3 items"),
        ([[0] * 9] * 8 + [[0] * 8], "a nested puzzle list has 9 rows of 9 cells"),
        ([0] * 80 + [10], r"cell r9c9 holds 10 \(int\): a cell of a list or array is an integer"),
        (["4"] + [0] * 80, r"cell r1c1 holds '4' \(text\): .* \(give text as one string\)"),
        ([0] * 80 + [0.5], "cell r9c9 holds 0.5"),
        ([True] + [0] * 80, "cell r1c1 holds True"),
        (42, "cannot read a puzzle from int"),
    ],
)
def test_bad_arrays_and_lists(puzzle: object, message: str) -> None:
    with pytest.raises(PuzzleFormatError, match=message):
        as_grid(puzzle)


def test_a_file_of_lines_and_grids_keeps_going_past_bad_puzzles() -> None:
    text = "\n".join(
        [
            "# a comment",
            "",
            LINE,
            LINE[:80],
            DOTS,
            "12345",
            LINE[:5] + "#" + LINE[6:],
            GRID,
            "5 3 . | . 7 .",
            "6 . . | 1 9 5",
            "",
            "1" + LINE[1:],
        ]
    )
    entries = read_puzzles(text)
    assert [entry.number for entry in entries] == [3, 4, 5, 6, 7, 8, 20, 23]
    assert [entry.line for entry in entries] == [
        LINE,
        None,
        LINE,
        None,
        None,
        LINE,
        None,
        "1" + LINE[1:],
    ]
    assert [entry.error for entry in entries] == [
        None,
        "a puzzle has 81 cells, this one has 80",
        None,
        "a puzzle has 81 cells, this one has 5",
        "bad character '#' at r1c6 (character 6): a cell is 1-9, or 0 or . when empty",
        None,
        "a grid has 9 rows, this one has 2",
        None,  # the rules are checked when solving, not when reading
    ]
    assert entries[3].text == "12345"


def test_a_file_of_plain_lines_reads_fast_and_still_checks_characters() -> None:
    bad = LINE[:40] + "x" + LINE[41:]
    entries = read_puzzles(f"{LINE}\n\n{DOTS}\r\n{bad}\n")
    assert [entry.number for entry in entries] == [1, 3, 4]
    assert [entry.text for entry in entries] == [LINE, DOTS, bad]
    assert [entry.line for entry in entries] == [LINE, LINE, None]
    assert entries[2].error.startswith("bad character 'x' at r5c5 (character 41)")


def test_a_puzzle_bank_line_with_an_id_and_a_rating_gives_its_puzzle() -> None:
    lines = [
        f"017d664738d8 {LINE}  7.1",
        f"{DOTS} 5.2",
        f"two puzzles {LINE} {LINE}",  # which one? an error, as before
        f"id {LINE[:80]} 5.2",  # no word of 81 cells
    ]
    entries = read_puzzles("\n".join(lines))
    assert [entry.line for entry in entries] == [LINE, LINE, None, None]
    assert entries[0].error is None and entries[2].error.startswith("bad character 't'")


def test_parse_puzzles_reads_all_or_names_the_first_bad_line() -> None:
    grids = parse_puzzles(f"{LINE}\n\n{GRID}\n{DOTS}\n")
    assert len(grids) == 3
    for grid in grids:
        np.testing.assert_array_equal(grid, EXPECTED)
    with pytest.raises(PuzzleFormatError, match="^line 2: a puzzle has 81 cells, this one has 3$"):
        parse_puzzles(f"{LINE}\n123\n")
    with pytest.raises(PuzzleFormatError, match="^line 1: 5 appears twice in row 1"):
        parse_puzzles("55" + LINE[2:])


def test_parse_line_is_the_canonical_text_form() -> None:
    assert parse_line(DOTS) == LINE
    assert parse_line(GRID) == LINE


def test_cells_are_named_as_players_name_them() -> None:
    from sudoku_lens.puzzle.text import cell_name, cell_names

    assert cell_name(0) == "r1c1" and cell_name(80) == "r9c9" and cell_name(12) == "r2c4"
    assert cell_names([(0, 0), (1, 3), (np.int64(8), np.int64(8))]) == ["r1c1", "r2c4", "r9c9"]
    assert cell_names([]) == []
