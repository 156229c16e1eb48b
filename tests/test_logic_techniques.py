"""The pattern techniques: a hand-built case for each, written from the technique's definition,
and soundness against the exact solver over the states met while explaining real puzzles.

Most cases start from an empty grid (every candidate everywhere) and remove candidates until
exactly the pattern is left: then the technique's first step must be that pattern, with the
eliminations the definition gives.
"""

from __future__ import annotations

import collections
import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sudoku_lens.logic import CandidateGrid, Step, all_steps, next_step, parse_state, techniques
from sudoku_lens.logic.units import ALL_DIGITS, UNITS
from sudoku_lens.solve import solve_line

PUZZLES = Path(__file__).parents[1].parent / "shared" / "data" / "puzzles"

BUNDLED = [
    # Hard puzzles of the classic collections (top95 and friends), public and well known.
    "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......",
    "52...6.........7.13...........4..8..6......5...........418.........3..2...87.....",
    "6.....8.3.4.7.................5.4.7.3..2.....1.6.......2.....5.....8.6......1....",
    "48.3............71.2.......7.5....6....2..8.............1.76...3.....4......5....",
    "..............3.85..1.2.......5.7.....4...1...9.......5......73..2.1........4...9",
    "1....7.9..3..2...8..96..5....53..9...1..8...26....4...3......1..4......7..7...3..",
]
"""Puzzles bundled so that the soundness test runs without the shared data."""

SINGLES = {"full-house", "hidden-single", "naked-single"}

SWEPT = [t for t in techniques() if t.name not in SINGLES and t.rating < 7.0]
"""The techniques this file sweeps for soundness (chains, ALS and forcing chains have theirs in
test_logic_chains.py: following every one of them at every state takes minutes)."""


def cell(name: str) -> int:
    """ "r3c4" -> 21."""
    match = re.fullmatch(r"r(\d)c(\d)", name)
    assert match, name
    return (int(match[1]) - 1) * 9 + int(match[2]) - 1


def cells(names: str) -> list[int]:
    return [cell(name) for name in names.split()]


def unit(name: str) -> int:
    """ "row 2" -> 1, "column 3" -> 11, "box 5" -> 22."""
    kind, number = name.split()
    return ("row", "column", "box").index(kind) * 9 + int(number) - 1


def board(
    marks: dict[str, str] | None = None,
    confine: list[tuple[int, str, str]] = (),
    puzzle: str = "0" * 81,
    placed: dict[str, int] | None = None,
) -> CandidateGrid:
    """A state built from definitions: the givens of `puzzle`, digits `placed` while solving
    (not givens), then the candidates of `marks` ({"r1c1": "12"}) set as written and, for each
    (digit, unit, cells) of `confine`, the digit left only in those cells of the unit."""
    grid = CandidateGrid.from_puzzle(puzzle)
    for name, digit in (placed or {}).items():
        grid.place(cell(name), digit)
    cands = grid.cands[:]
    for name, digits in (marks or {}).items():
        cands[cell(name)] = sum(1 << (int(d) - 1) for d in digits)
    for digit, unit_name, keep in confine:
        kept = cells(keep)
        for member in UNITS[unit(unit_name)]:
            if member not in kept:
                cands[member] &= ~(1 << (digit - 1))
    return CandidateGrid(grid.values[:], cands, grid.givens)


def elims(names: str, *digits: int) -> set[tuple[int, int]]:
    """The eliminations of `digits` from the cells named."""
    return {(c, d) for c in cells(names) for d in digits}


def first(grid: CandidateGrid, name: str) -> Step:
    """The technique's first step (the one `next_step` gives when asked for it alone)."""
    step = next_step(grid, only=name)
    assert step is not None, f"{name} found nothing"
    assert step.technique == name
    assert step.explanation.endswith(".") and "\n" not in step.explanation
    assert step.cells and step.candidates  # something to draw
    assert {cell for cell, _ in step.candidates} <= set(step.cells)
    assert json.loads(json.dumps(step.to_json()))["technique"] == name
    return step


def row_cells(row: int, skip: str = "") -> str:
    """Names of the cells of a row (1-9) but the columns in `skip` ("15")."""
    return " ".join(f"r{row}c{c}" for c in range(1, 10) if str(c) not in skip)


def col_cells(col: int, skip: str = "") -> str:
    return " ".join(f"r{r}c{col}" for r in range(1, 10) if str(r) not in skip)


# Singles ------------------------------------------------------------------------------------


def test_a_naked_single_says_which_digits_were_ruled_out_before() -> None:
    """Its reason must be true: digits placed beside it, and those only struck off before."""
    placed = {"r1c2": 1, "r1c3": 2, "r2c1": 3, "r3c1": 4, "r5c1": 5, "r1c9": 6, "r3c3": 7}
    grid = board({"r1c1": "9"}, placed=placed)  # 8 struck off: no 8 beside r1c1
    step = next_step(grid, only="naked-single")
    assert step.placements == ((cell("r1c1"), 9),)
    assert step.explanation == (
        "r1c1 can only be 9: 1, 2, 3, 4, 5, 6 and 7 are in its row, column or box, "
        "and 8 was ruled out before."
    )
    lone = board({"r5c5": "4"})  # nothing placed around it at all
    assert next_step(lone, only="naked-single").explanation == (
        "r5c5 can only be 4: 1, 2, 3, 5, 6, 7, 8 and 9 were all ruled out before."
    )
    full = board(placed={**placed, "r9c1": 8})
    assert next_step(full, only="naked-single").explanation == (
        "r1c1 can only be 9: every other digit is already in its row, column or box."
    )


# Intersections ------------------------------------------------------------------------------


def test_pointing() -> None:
    grid = board(confine=[(5, "box 1", "r1c1 r1c2")])
    step = first(grid, "pointing")
    assert set(step.eliminations) == elims(row_cells(1, "123"), 5)
    assert step.units == (unit("box 1"), unit("row 1"))
    assert "r1c4" in step.explanation


def test_claiming() -> None:
    grid = board(confine=[(5, "row 1", "r1c1 r1c2")])
    step = first(grid, "claiming")
    assert set(step.eliminations) == elims("r2c1 r2c2 r2c3 r3c1 r3c2 r3c3", 5)


def test_locked_pair() -> None:
    grid = board({"r1c1": "12", "r1c2": "12"})
    step = first(grid, "locked-pair")
    assert set(step.eliminations) == elims(
        row_cells(1, "12") + " r2c1 r2c2 r2c3 r3c1 r3c2 r3c3", 1, 2
    )


def test_locked_triple() -> None:
    grid = board({"r1c1": "12", "r1c2": "23", "r1c3": "13"})
    step = first(grid, "locked-triple")
    zone = row_cells(1, "123") + " r2c1 r2c2 r2c3 r3c1 r3c2 r3c3"
    assert set(step.eliminations) == elims(zone, 1, 2, 3)


# Subsets ------------------------------------------------------------------------------------


def test_naked_pair() -> None:
    step = first(board({"r1c1": "12", "r1c5": "12"}), "naked-pair")
    assert set(step.eliminations) == elims(row_cells(1, "15"), 1, 2)
    assert step.cells == (cell("r1c1"), cell("r1c5"))


def test_naked_triple() -> None:
    step = first(board({"r1c1": "12", "r1c5": "23", "r1c9": "13"}), "naked-triple")
    assert set(step.eliminations) == elims(row_cells(1, "159"), 1, 2, 3)


def test_naked_quad() -> None:
    grid = board({"r1c1": "12", "r1c4": "23", "r1c7": "34", "r1c9": "14"})
    step = first(grid, "naked-quad")
    assert set(step.eliminations) == elims(row_cells(1, "1479"), 1, 2, 3, 4)


def test_hidden_pair() -> None:
    grid = board(confine=[(1, "row 1", "r1c1 r1c5"), (2, "row 1", "r1c1 r1c5")])
    step = first(grid, "hidden-pair")
    assert set(step.eliminations) == elims("r1c1 r1c5", *range(3, 10))


def test_hidden_triple() -> None:
    keep = "r1c1 r1c5 r1c9"
    grid = board(confine=[(d, "row 1", keep) for d in (1, 2, 3)])
    step = first(grid, "hidden-triple")
    assert set(step.eliminations) == elims(keep, *range(4, 10))


def test_hidden_quad() -> None:
    keep = "r1c1 r1c3 r1c5 r1c7"
    grid = board(confine=[(d, "row 1", keep) for d in (1, 2, 3, 4)])
    step = first(grid, "hidden-quad")
    assert set(step.eliminations) == elims(keep, *range(5, 10))


# Fish ---------------------------------------------------------------------------------------


def test_x_wing() -> None:
    grid = board(confine=[(5, "row 2", "r2c3 r2c8"), (5, "row 6", "r6c3 r6c8")])
    step = first(grid, "x-wing")
    assert set(step.eliminations) == elims(col_cells(3, "26") + " " + col_cells(8, "26"), 5)
    assert set(step.units) == {unit("row 2"), unit("row 6"), unit("column 3"), unit("column 8")}


def test_x_wing_on_columns() -> None:
    grid = board(confine=[(7, "column 1", "r2c1 r9c1"), (7, "column 5", "r2c5 r9c5")])
    step = first(grid, "x-wing")
    assert set(step.eliminations) == elims(row_cells(2, "15") + " " + row_cells(9, "15"), 7)


def test_swordfish() -> None:
    grid = board(
        confine=[
            (5, "row 2", "r2c1 r2c4"),
            (5, "row 5", "r5c4 r5c7"),
            (5, "row 8", "r8c1 r8c7"),
        ]
    )
    step = first(grid, "swordfish")
    zone = " ".join(col_cells(c, "258") for c in (1, 4, 7))
    assert set(step.eliminations) == elims(zone, 5)


def test_jellyfish() -> None:
    grid = board(
        confine=[
            (5, "row 1", "r1c2 r1c4"),
            (5, "row 3", "r3c4 r3c6"),
            (5, "row 5", "r5c6 r5c8"),
            (5, "row 7", "r7c2 r7c8"),
        ]
    )
    step = first(grid, "jellyfish")
    zone = " ".join(col_cells(c, "1357") for c in (2, 4, 6, 8))
    assert set(step.eliminations) == elims(zone, 5)


def test_finned_x_wing() -> None:
    # Row 6 has its 5 in columns 3 and 8 or in the fin r6c9; r4c8 and r5c8 share box 6 with the
    # fin and column 8 with the fish.
    grid = board(confine=[(5, "row 2", "r2c3 r2c8"), (5, "row 6", "r6c3 r6c8 r6c9")])
    step = first(grid, "finned-x-wing")
    assert set(step.eliminations) == elims("r4c8 r5c8", 5)
    assert "r6c9" in step.explanation
    assert step.explanation.endswith(
        "r4c8 and r5c8 see the fin (box 6) and lie in column 8, so r4c8 and r5c8 cannot be 5 "
        "either way."
    )
    assert next_step(grid, only="sashimi-x-wing") is None


def test_sashimi_x_wing() -> None:
    # As above, but row 6 lacks r6c8: without the fins r6c7 and r6c9 it would not be a fish.
    grid = board(confine=[(5, "row 2", "r2c3 r2c8"), (5, "row 6", "r6c3 r6c7 r6c9")])
    step = first(grid, "sashimi-x-wing")
    assert set(step.eliminations) == elims("r4c8 r5c8", 5)
    assert next_step(grid, only="finned-x-wing") is None


def test_finned_swordfish() -> None:
    grid = board(
        confine=[
            (5, "row 2", "r2c1 r2c4"),
            (5, "row 5", "r5c4 r5c7"),
            (5, "row 8", "r8c1 r8c7 r8c9"),
        ]
    )
    step = first(grid, "finned-swordfish")
    assert set(step.eliminations) == elims("r7c7 r9c7", 5)


def test_sashimi_swordfish() -> None:
    grid = board(
        confine=[
            (5, "row 2", "r2c1 r2c4"),
            (5, "row 5", "r5c4 r5c7"),
            (5, "row 8", "r8c1 r8c8 r8c9"),
        ]
    )
    step = first(grid, "sashimi-swordfish")
    assert set(step.eliminations) == elims("r7c7 r9c7", 5)


def test_finned_jellyfish() -> None:
    grid = board(
        confine=[
            (5, "row 1", "r1c2 r1c4"),
            (5, "row 3", "r3c4 r3c6"),
            (5, "row 5", "r5c6 r5c8"),
            (5, "row 7", "r7c2 r7c8 r7c9"),
        ]
    )
    step = first(grid, "finned-jellyfish")
    assert set(step.eliminations) == elims("r8c8 r9c8", 5)


def test_sashimi_jellyfish() -> None:
    # Columns as base: column 9 keeps only r1c9 besides its fins r8c9 and r9c9 in box 9.
    grid = board(
        confine=[
            (4, "column 1", "r1c1 r3c1"),
            (4, "column 3", "r3c3 r5c3"),
            (4, "column 5", "r5c5 r7c5"),
            (4, "column 9", "r1c9 r8c9 r9c9"),
        ]
    )
    step = first(grid, "sashimi-jellyfish")
    assert set(step.eliminations) == elims("r7c7 r7c8", 4)


# Single-digit patterns ----------------------------------------------------------------------


def test_skyscraper() -> None:
    grid = board(confine=[(5, "row 2", "r2c1 r2c5"), (5, "row 7", "r7c1 r7c6")])
    step = first(grid, "skyscraper")
    assert set(step.eliminations) == elims("r1c6 r3c6 r8c5 r9c5", 5)
    assert [link.strong for link in step.links] == [True, False, True]


def test_two_string_kite() -> None:
    grid = board(confine=[(5, "row 1", "r1c2 r1c7"), (5, "column 3", "r2c3 r8c3")])
    step = first(grid, "two-string-kite")
    assert set(step.eliminations) == elims("r8c7", 5)


def test_turbot_fish() -> None:
    grid = board(confine=[(5, "box 1", "r1c2 r3c1"), (5, "row 7", "r7c1 r7c6")])
    step = first(grid, "turbot-fish")
    assert set(step.eliminations) == elims("r1c6", 5)


def test_empty_rectangle() -> None:
    grid = board(confine=[(5, "box 1", "r1c2 r2c1 r2c2 r2c3 r3c2"), (5, "column 7", "r2c7 r8c7")])
    step = first(grid, "empty-rectangle")
    assert set(step.eliminations) == elims("r8c2", 5)


# Wings --------------------------------------------------------------------------------------


def test_xy_wing() -> None:
    step = first(board({"r5c5": "12", "r5c1": "13", "r2c5": "23"}), "xy-wing")
    assert set(step.eliminations) == elims("r2c1", 3)
    assert set(step.cells) == set(cells("r5c5 r5c1 r2c5"))
    assert step.explanation.endswith("r2c1 sees r5c1 and r2c5, so r2c1 cannot be 3.")


def test_xyz_wing() -> None:
    step = first(board({"r5c5": "123", "r5c1": "13", "r4c6": "23"}), "xyz-wing")
    assert set(step.eliminations) == elims("r5c4 r5c6", 3)
    assert "r5c4 and r5c6 see all three, so" in step.explanation


def test_w_wing() -> None:
    grid = board({"r1c1": "12", "r6c8": "12"}, confine=[(1, "row 3", "r3c2 r3c8")])
    step = first(grid, "w-wing")
    assert set(step.eliminations) == elims("r1c8 r6c1", 2)


def test_remote_pair() -> None:
    grid = board({"r1c1": "12", "r1c5": "12", "r4c5": "12", "r4c8": "12"})
    step = first(grid, "remote-pair")
    assert set(step.eliminations) == elims("r1c8 r4c1", 1, 2)
    assert step.cells == tuple(cells("r1c1 r1c5 r4c5 r4c8"))


# Uniqueness ---------------------------------------------------------------------------------


def test_unique_rectangle_1() -> None:
    step = first(board({"r1c1": "12", "r1c4": "12", "r2c1": "12"}), "unique-rectangle-1")
    assert set(step.eliminations) == elims("r2c4", 1, 2)
    assert "the other three corners hold only 1 and 2, and if r2c4 did too" in step.explanation
    assert step.explanation.endswith("would have two solutions, so r2c4 cannot be 1 or 2.")


def test_unique_rectangle_2() -> None:
    grid = board({"r1c1": "12", "r1c4": "12", "r2c1": "123", "r2c4": "123"})
    step = first(grid, "unique-rectangle-2")
    assert set(step.eliminations) == elims(row_cells(2, "14"), 3)
    assert ", so r2c1 or r2c4 is 3, and r2c" in step.explanation  # a fact: "and" goes on


def test_unique_rectangle_3() -> None:
    marks = {"r1c1": "12", "r1c4": "12", "r2c1": "123", "r2c4": "124", "r2c7": "34"}
    step = first(board(marks), "unique-rectangle-3")
    assert set(step.eliminations) == elims(row_cells(2, "147"), 3, 4)
    assert step.rating == 4.7


def test_unique_rectangle_3_with_four_extra_digits_makes_a_naked_quad() -> None:
    # The roof r2c1, r2c4 holds one of 3, 4, 5, 6; with r2c7, r2c8, r2c9 that is four cells of
    # row 2 for four digits.
    marks = {"r1c1": "12", "r1c4": "12", "r2c1": "1234", "r2c4": "1256"}
    marks |= {"r2c7": "345", "r2c8": "356", "r2c9": "46"}
    step = first(board(marks), "unique-rectangle-3")
    assert set(step.eliminations) == elims("r2c2 r2c3 r2c5 r2c6", 3, 4, 5, 6)
    assert step.rating == 4.9


def test_unique_rectangle_3_with_a_subset_in_the_roofs_line_and_box_is_one_step() -> None:
    """The roof r1c1, r1c2 lies in row 1 and box 1, and so does r1c3, which makes the naked
    pair of 3 and 4 with it: both units lose 3 and 4 in one step, as the solving tools give it."""
    marks = {"r1c1": "123", "r1c2": "124", "r4c1": "12", "r4c2": "12", "r1c3": "34"}
    step = first(board(marks), "unique-rectangle-3")
    box_rest = "r2c1 r2c2 r2c3 r3c1 r3c2 r3c3"
    assert set(step.eliminations) == elims(f"{row_cells(1, '123')} {box_rest}", 3, 4)
    assert "row 1 and of box 1" in step.explanation


def test_unique_rectangle_4() -> None:
    grid = board({"r1c1": "12", "r1c4": "12"}, confine=[(1, "row 2", "r2c1 r2c4")])
    step = first(grid, "unique-rectangle-4")
    assert set(step.eliminations) == elims("r2c1 r2c4", 2)
    assert step.explanation.endswith("with two solutions, so r2c1 and r2c4 cannot be 2.")


def test_unique_rectangle_5() -> None:
    grid = board({"r1c1": "12", "r2c4": "12", "r1c4": "123", "r2c1": "123"})
    step = first(grid, "unique-rectangle-5")
    assert set(step.eliminations) == elims("r1c2 r1c3 r2c5 r2c6", 3)


def test_unique_rectangle_6() -> None:
    grid = board(
        {"r1c1": "12", "r4c2": "12"},
        confine=[(1, "row 1", "r1c1 r1c2"), (1, "row 4", "r4c1 r4c2")],
    )
    step = first(grid, "unique-rectangle-6")
    assert set(step.eliminations) == elims("r1c2 r4c1", 1)


def test_hidden_rectangle() -> None:
    grid = board({"r1c1": "12"}, confine=[(1, "row 2", "r2c1 r2c4"), (1, "column 4", "r1c4 r2c4")])
    step = first(grid, "hidden-rectangle")
    assert set(step.eliminations) == elims("r2c4", 2)
    assert step.explanation.endswith("two solutions, so r2c4 cannot be 2.")


# A corner that lost one of the rectangle's two digits still counts (HoDoKu's "with missing
# candidates"): the solution cannot hold the deadly pattern, whatever the candidates say.


def test_unique_rectangle_1_with_a_corner_that_lost_a_digit() -> None:
    # r2c4 lost its 1: if it were 2, r2c1=1, r1c1=2, r1c4=1 would be the deadly pattern.
    grid = board({"r1c1": "12", "r1c4": "12", "r2c1": "12", "r2c4": "239"})
    step = first(grid, "unique-rectangle-1")
    assert set(step.eliminations) == elims("r2c4", 2)
    assert "r2c4 has lost its 1" in step.explanation
    assert "r2c4 as 2 would force the other corners" in step.explanation
    assert (cell("r2c4"), 1) not in step.candidates


def test_unique_rectangle_4_with_a_roof_cell_that_lost_a_digit() -> None:
    # Row 2 has its 1 only in r2c1 and r2c4; r2c4 lost its 2, so only r2c1 loses the 2.
    grid = board({"r1c1": "12", "r1c4": "12", "r2c4": "137"}, confine=[(1, "row 2", "r2c1 r2c4")])
    step = first(grid, "unique-rectangle-4")
    assert set(step.eliminations) == elims("r2c1", 2)


def test_unique_rectangle_2_with_a_roof_cell_that_lost_a_digit() -> None:
    grid = board({"r1c1": "12", "r1c4": "12", "r2c1": "13", "r2c4": "123"})
    step = first(grid, "unique-rectangle-2")
    assert set(step.eliminations) == elims(row_cells(2, "14"), 3)


def test_hidden_rectangle_with_a_corner_that_lost_a_digit() -> None:
    # r1c4 lost its 2; the far corner r2c4 can still not be 2.
    grid = board(
        {"r1c1": "12", "r1c4": "139"},
        confine=[(1, "row 2", "r2c1 r2c4"), (1, "column 4", "r1c4 r2c4")],
    )
    step = first(grid, "hidden-rectangle")
    assert set(step.eliminations) == elims("r2c4", 2)


def test_a_corner_left_with_one_digit_alone_is_no_rectangle() -> None:
    # r2c4 holds only 2 of the two digits and nothing else: a single, not a corner.
    grid = board({"r1c1": "12", "r1c4": "12", "r2c1": "12", "r2c4": "2"})
    assert next_step(grid, only="unique-rectangle-1") is None


def test_the_rating_path_leaves_out_rectangles_that_lost_a_digit() -> None:
    """Sudoku Explainer looks only for rectangles whose corners all keep both digits, so the
    rating path does too; hints and explanations use both."""
    from sudoku_lens.logic.rating import rating_techniques

    lost = board({"r1c1": "12", "r1c4": "12", "r2c1": "12", "r2c4": "239"})
    kept = board({"r1c1": "12", "r1c4": "12", "r2c1": "12", "r2c4": "129"})
    rated = {entry.name: entry for entry in rating_techniques()}["unique-rectangle-1"]
    assert list(rated.find(lost)) == []
    assert [set(step.eliminations) for step in rated.find(kept)] == [elims("r2c4", 1, 2)]


def test_avoidable_rectangle_1() -> None:
    placed = {"r1c1": 1, "r1c4": 2, "r2c1": 2}
    step = first(board(placed=placed), "avoidable-rectangle-1")
    assert set(step.eliminations) == elims("r2c4", 1)
    assert step.explanation.startswith("r1c1=1, r1c4=2 and r2c1=2 were placed")
    # The same digits as givens prove nothing: the puzzle itself may rely on them.
    givens = "1002" + "0" * 5 + "2" + "0" * 71
    assert next_step(board(puzzle=givens), only="avoidable-rectangle-1") is None


def test_avoidable_rectangle_2() -> None:
    grid = board({"r2c1": "23", "r2c4": "13"}, placed={"r1c1": 1, "r1c4": 2})
    step = first(grid, "avoidable-rectangle-2")
    assert set(step.eliminations) == elims(row_cells(2, "14"), 3)
    givens = "1002" + "0" * 77
    assert (
        next_step(board({"r2c1": "23", "r2c4": "13"}, puzzle=givens), only="avoidable-rectangle-2")
        is None
    )


def test_givens_are_the_puzzle_digits() -> None:
    grid = CandidateGrid.from_puzzle(BUNDLED[0])
    assert grid.givens == sum(1 << i for i, ch in enumerate(BUNDLED[0]) if ch != ".")
    grid.place(next(i for i in range(81) if not grid.values[i]), 9)
    assert grid.copy().givens == grid.givens == CandidateGrid.from_puzzle(BUNDLED[0]).givens


BUG_STATE = """
6   8   2   | 5   9   3   | 4   1   7
579 4   15  | 6   17  8   | 59  3   2
59  17  3   | 4   17  2   | 8   6   59
------------+-------------+----------
2   9   6   | 3   4   17  | 57  8   15
4   17  8   | 2   5   6   | 37  9   13
57  3   15  | 9   8   17  | 6   2   4
------------+-------------+----------
3   6   9   | 7   2   5   | 1   4   8
1   2   7   | 8   6   4   | 39  5   39
8   5   4   | 1   3   9   | 2   7   6
"""
"""Every empty cell bivalue but r2c1 (5, 7 or 9); row 2, column 1 and box 1 each hold three
5s, so without r2c1's 5 every unit would have each candidate twice."""


def test_bug_plus_1() -> None:
    grid = parse_state(BUG_STATE)
    step = first(grid, "bug-plus-1")
    assert step.placements == ((cell("r2c1"), 5),)
    assert not step.contradictions(solve_line(grid.line()).solution)


def test_every_technique_has_a_case_here() -> None:
    names = {t.name for t in techniques()} - SINGLES
    here = Path(__file__).parent
    source = (here / "test_logic_techniques.py").read_text() + (
        here / "test_logic_chains.py"
    ).read_text()
    assert sorted(name for name in names if f'"{name}"' not in source) == []


# Soundness ----------------------------------------------------------------------------------


def _sweep(puzzles: list[str]) -> collections.Counter[str]:
    """Every step of every technique at every state along the path that takes the easiest
    step (and, where no technique applies, the solution's digit in the cell with fewest
    candidates): asserts none contradicts the solution; counts the steps by technique."""
    found: collections.Counter[str] = collections.Counter()
    for puzzle in puzzles:
        solution = solve_line(puzzle.replace(".", "0")).solution
        assert solution is not None
        grid = CandidateGrid.from_puzzle(puzzle)
        while not grid.is_solved():
            for step in (s for t in SWEPT for s in t.find(grid)):
                if step.technique not in SINGLES:
                    assert not step.contradictions(solution), (step, grid.pencilmarks())
                    found[step.technique] += 1
            step = next_step(grid)
            if step is None:
                empty = [c for c in range(81) if not grid.values[c]]
                guess = min(empty, key=lambda c: grid.cands[c].bit_count())
                grid.place(guess, int(solution[guess]))
            else:
                grid.apply(step)
            assert not grid.is_broken()
    return found


def test_sound_on_bundled_puzzles() -> None:
    found = _sweep(BUNDLED)
    assert len(found) >= 20  # most techniques fire somewhere along these paths


def test_sound_on_shared_puzzles() -> None:
    if not PUZZLES.is_dir():
        pytest.skip(f"shared puzzle sets not found at {PUZZLES}")
    # A sample: benchmarks/logic_techniques.py sweeps both files whole (0 unsound steps).
    top = (PUZZLES / "top1465.txt").read_text().split()[::150]
    rated = [line.split()[1] for line in (PUZZLES / "se-rated-diabolical-2000.txt").open()][::200]
    _sweep(top + rated)


@settings(max_examples=8, deadline=None)
@given(
    st.sampled_from(BUNDLED),
    st.permutations(list(range(1, 10))),
    st.booleans(),
    st.integers(0, 60),
)
def test_steps_are_sound_and_leave_the_grid_alone(
    puzzle: str, relabel: list[int], transpose: bool, moves: int
) -> None:
    """On a relabelled (and maybe transposed) puzzle, some way along its path: every step
    removes only candidates that are there, places only candidates, contradicts nothing in the
    solution, and looking for steps changes nothing in the grid."""
    digits = [0 if ch == "." else relabel[int(ch) - 1] for ch in puzzle]
    if transpose:
        digits = [digits[(i % 9) * 9 + i // 9] for i in range(81)]
    line = "".join(map(str, digits))
    solution = solve_line(line).solution
    grid = CandidateGrid.from_puzzle(line)
    for _ in range(moves):
        step = next_step(grid)
        if step is None:
            break
        grid.apply(step)
    before = (grid.values[:], grid.cands[:], grid.digit_cells[:], grid.givens)
    for step in all_steps(grid):
        assert all(grid.cands[c] >> (d - 1) & 1 for c, d in step.eliminations), step
        assert all(grid.cands[c] >> (d - 1) & 1 for c, d in step.placements), step
        assert step.eliminations or step.placements
        assert not step.contradictions(solution), step
    assert (grid.values, grid.cands, grid.digit_cells, grid.givens) == before


def test_all_candidates_of_an_open_grid_stay() -> None:
    """The board helper really starts from every candidate everywhere."""
    assert all(mask == ALL_DIGITS for mask in board().cands)


def test_eliminations_are_said_once_per_cell_and_the_als_xy_wing_argues_each_link() -> None:
    from sudoku_lens.logic import explain

    puzzle = "103007089000009307080000000000003400004005000000600208340000060000090000800700004"
    steps = explain(puzzle).steps
    for step in steps:
        said = re.findall(r"(r\dc\d) cannot be \d", step.explanation)
        assert len(said) == len(set(said)), step.explanation
    # (the path itself now removes those two candidates by grouped chains, one by one)
    grid = CandidateGrid.from_puzzle(puzzle)
    wing = None
    for step in steps:
        wings = all_steps(grid, only="als-xy-wing")
        wing = next((w for w in wings if {c for c, _ in w.eliminations} == {76}), None)
        if wing is not None:
            break
        grid.apply(step)
    assert wing is not None
    assert wing.explanation.startswith("The pivot r1c7 {56} keeps 5 or 6")
    assert wing.explanation.endswith("r9c5 sees every 1 and 2 of both: r9c5 cannot be 1 or 2.")
