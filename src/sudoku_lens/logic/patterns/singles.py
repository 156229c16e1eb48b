"""Singles: the last empty cell of a unit, the only place for a digit, the only digit left."""

from __future__ import annotations

from collections.abc import Iterator

from sudoku_lens.logic._scan import full_houses, hidden_singles
from sudoku_lens.logic.catalog import Technique
from sudoku_lens.logic.patterns._common import digits_text
from sudoku_lens.logic.state import CandidateGrid
from sudoku_lens.logic.step import Step, a_digit
from sudoku_lens.logic.units import ALL_DIGITS, PEERS, unit_name
from sudoku_lens.puzzle.text import cell_name


def full_house(grid: CandidateGrid) -> Iterator[Step]:
    """A unit with one empty cell left: it takes the unit's missing digit. (Found by
    `_scan.full_houses`, in C, as the hidden singles: every state of a path looks for them.)"""
    for unit, cell, digit in full_houses(grid.values, grid.cands):
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
    for unit, cell, digit in hidden_singles(grid.cands):
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
                explanation=f"{cell_name(cell)} can only be {digit}: "
                + _why_only(grid, cell, mask),
                placements=((cell, digit),),
                cells=(cell,),
            )


def _why_only(grid: CandidateGrid, cell: int, mask: int) -> str:
    """Why a cell's other digits are gone: placed in its row, column or box, or ruled out by
    steps before (pencil marks given, or eliminations) where none of those holds them."""
    seen = 0
    for peer in PEERS[cell]:
        if grid.values[peer]:
            seen |= 1 << (grid.values[peer] - 1)
    seen &= ALL_DIGITS & ~mask
    ruled_out = ALL_DIGITS & ~mask & ~seen
    if not ruled_out:
        return "every other digit is already in its row, column or box."
    if not seen:
        return f"{digits_text(ruled_out)} were all ruled out before."
    was = "was" if ruled_out & (ruled_out - 1) == 0 else "were"
    return (
        f"{digits_text(seen)} are in its row, column or box, "
        f"and {digits_text(ruled_out)} {was} ruled out before."
    )


TECHNIQUES = [
    Technique("full-house", 1.0, full_house),
    Technique("hidden-single", 1.2, hidden_single),
    Technique("naked-single", 2.3, naked_single),
]
