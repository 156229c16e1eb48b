"""Naked and hidden subsets: n cells of a unit holding n digits between them, or n digits of a
unit confined to n cells."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import combinations

from sudoku_lens.logic.catalog import Technique
from sudoku_lens.logic.state import CandidateGrid
from sudoku_lens.logic.step import Step
from sudoku_lens.logic.techniques._common import (
    cells_text,
    digits_text,
    eliminated_text,
    eliminations_of,
    per_state,
)
from sudoku_lens.logic.units import BIT_COUNT, UNIT_SETS, UNITS, cells_of, unit_name

_SIZE_WORD = {2: "pair", 3: "triple", 4: "quad"}
_NAKED_RATING = {2: 3.0, 3: 3.6, 4: 5.0}
_HIDDEN_RATING = {2: 3.4, 3: 4.0, 4: 5.4}


def _units(grid: CandidateGrid) -> list[tuple[int, list[int], list[tuple[int, int]]]]:
    """For each unit: its number of empty cells, its cells with two to four candidates, and
    its digits with two to four places (with those places as a cell set)."""
    cands, digit_cells = grid.cands, grid.digit_cells
    found = []
    for unit, cells in enumerate(UNITS):
        unit_set = UNIT_SETS[unit]
        empty = 0
        small = []
        for cell in cells:
            count = BIT_COUNT[cands[cell]]
            if count:
                empty += 1
                if 2 <= count <= 4:
                    small.append(cell)
        places_of = []
        for digit in range(1, 10):
            places = digit_cells[digit] & unit_set
            if places & (places - 1) and places.bit_count() <= 4:
                places_of.append((digit, places))
        found.append((empty, small, places_of))
    return found


def _naked(grid: CandidateGrid, size: int) -> Iterator[Step]:
    """`size` cells of a unit whose candidates, taken together, are `size` digits: those digits
    go in those cells, so the unit's other cells lose them."""
    cands = grid.cands
    name = f"naked-{_SIZE_WORD[size]}"
    for unit, (empty, cells, _) in enumerate(per_state(grid, "unit-subsets", _units)):
        if empty <= size:
            continue
        small = [cell for cell in cells if BIT_COUNT[cands[cell]] <= size]
        for group in combinations(small, size):
            union = 0
            for cell in group:
                union |= cands[cell]
            if BIT_COUNT[union] != size:
                continue
            pattern = sum(1 << cell for cell in group)
            eliminations = eliminations_of(grid, union, UNIT_SETS[unit] & ~pattern)
            if not eliminations:
                continue
            yield Step(
                technique=name,
                rating=_NAKED_RATING[size],
                explanation=f"{cells_text(group)} hold only {digits_text(union)} between them, "
                f"so those digits go in these cells and the rest of {unit_name(unit)} loses "
                f"them: {eliminated_text(eliminations)}.",
                eliminations=eliminations,
                cells=group,
                candidates=tuple(
                    (cell, d + 1) for cell in group for d in range(9) if cands[cell] >> d & 1
                ),
                units=(unit,),
            )


def _hidden(grid: CandidateGrid, size: int) -> Iterator[Step]:
    """`size` digits of a unit whose places, taken together, are `size` cells: those cells hold
    those digits, so they lose every other candidate."""
    cands = grid.cands
    name = f"hidden-{_SIZE_WORD[size]}"
    for unit, (empty, _, digits_places) in enumerate(per_state(grid, "unit-subsets", _units)):
        if empty <= size:
            continue
        few = [(digit, places) for digit, places in digits_places if places.bit_count() <= size]
        for group in combinations(few, size):
            union = 0
            digits = 0
            for digit, places in group:
                union |= places
                digits |= 1 << (digit - 1)
            if union.bit_count() != size:
                continue
            cells = tuple(cells_of(union))
            eliminations = tuple(
                (cell, d + 1)
                for cell in cells
                for d in range(9)
                if cands[cell] >> d & 1 and not digits >> d & 1
            )
            if not eliminations:
                continue
            yield Step(
                technique=name,
                rating=_HIDDEN_RATING[size],
                explanation=f"In {unit_name(unit)} the digits {digits_text(digits)} fit only in "
                f"{cells_text(cells)}, so those cells hold nothing else: "
                f"{eliminated_text(eliminations)}.",
                eliminations=eliminations,
                cells=cells,
                candidates=tuple(
                    (cell, d + 1)
                    for cell in cells
                    for d in range(9)
                    if (digits & cands[cell]) >> d & 1
                ),
                units=(unit,),
            )


def naked_pair(grid: CandidateGrid) -> Iterator[Step]:
    """Two cells of a unit with the same two candidates."""
    return _naked(grid, 2)


def naked_triple(grid: CandidateGrid) -> Iterator[Step]:
    """Three cells of a unit holding three digits between them."""
    return _naked(grid, 3)


def naked_quad(grid: CandidateGrid) -> Iterator[Step]:
    """Four cells of a unit holding four digits between them."""
    return _naked(grid, 4)


def hidden_pair(grid: CandidateGrid) -> Iterator[Step]:
    """Two digits of a unit with the same two places."""
    return _hidden(grid, 2)


def hidden_triple(grid: CandidateGrid) -> Iterator[Step]:
    """Three digits of a unit with three places between them."""
    return _hidden(grid, 3)


def hidden_quad(grid: CandidateGrid) -> Iterator[Step]:
    """Four digits of a unit with four places between them."""
    return _hidden(grid, 4)


TECHNIQUES = [
    Technique("naked-pair", 3.0, naked_pair),
    Technique("hidden-pair", 3.4, hidden_pair),
    Technique("naked-triple", 3.6, naked_triple),
    Technique("hidden-triple", 4.0, hidden_triple),
    Technique("naked-quad", 5.0, naked_quad),
    Technique("hidden-quad", 5.4, hidden_quad),
]
