"""Singles: the last empty cell of a unit, the only place for a digit, the only digit left."""

from __future__ import annotations

from collections.abc import Iterator

from sudoku_lens.logic.catalog import Technique
from sudoku_lens.logic.state import CandidateGrid
from sudoku_lens.logic.step import Step, a_digit
from sudoku_lens.logic.units import UNIT_SETS, cell_name, unit_name


def full_house(grid: CandidateGrid) -> Iterator[Step]:
    """A unit with one empty cell left: it takes the unit's missing digit."""
    empty = 0
    for cell, value in enumerate(grid.values):
        if not value:
            empty |= 1 << cell
    for unit, unit_set in enumerate(UNIT_SETS):
        last = empty & unit_set
        if last and last & (last - 1) == 0 and grid.cands[last.bit_length() - 1]:
            cell = last.bit_length() - 1
            digit = grid.cands[cell].bit_length()
            if grid.cands[cell] != 1 << (digit - 1):
                continue
            yield Step(
                technique="full-house",
                rating=1.0,
                explanation=f"{cell_name(cell)} is the last empty cell of {unit_name(unit)}, "
                f"so it takes the missing {digit}.",
                placements=((cell, digit),),
                cells=(cell,),
                units=(unit,),
            )


def hidden_single(grid: CandidateGrid) -> Iterator[Step]:
    """A digit with one place left in a unit; boxes first, as people look there first."""
    for unit in (*range(18, 27), *range(18)):
        for digit in range(1, 10):
            places = grid.digit_cells[digit] & UNIT_SETS[unit]
            if places and places & (places - 1) == 0:
                cell = places.bit_length() - 1
                yield Step(
                    technique="hidden-single",
                    rating=1.2 if unit >= 18 else 1.5,
                    explanation=f"{cell_name(cell)} is the only place for {a_digit(digit)} "
                    f"in {unit_name(unit)}.",
                    placements=((cell, digit),),
                    cells=(cell,),
                    units=(unit,),
                )


def naked_single(grid: CandidateGrid) -> Iterator[Step]:
    """A cell with one candidate left."""
    for cell, mask in enumerate(grid.cands):
        if mask and mask & (mask - 1) == 0:
            digit = mask.bit_length()
            yield Step(
                technique="naked-single",
                rating=2.3,
                explanation=f"{cell_name(cell)} can only be {digit}: every other digit is "
                "already in its row, column or box.",
                placements=((cell, digit),),
                cells=(cell,),
            )


TECHNIQUES = [
    Technique("full-house", 1.0, full_house),
    Technique("hidden-single", 1.2, hidden_single),
    Technique("naked-single", 2.3, naked_single),
]
