"""Naked and hidden subsets: n cells of a unit holding n digits between them, or n digits of a
unit confined to n cells."""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial

from sudoku_lens.logic._scan import subset_groups
from sudoku_lens.logic.catalog import Technique
from sudoku_lens.logic.patterns._common import (
    candidates_of,
    cells_text,
    digits_text,
    eliminated_text,
    eliminations_of,
    per_state,
)
from sudoku_lens.logic.state import CandidateGrid
from sudoku_lens.logic.step import Step
from sudoku_lens.logic.units import UNIT_SETS, cells_of, unit_name

_SIZE_WORD = {2: "pair", 3: "triple", 4: "quad"}
_NAKED_RATING = {2: 3.0, 3: 3.6, 4: 5.0}
_HIDDEN_RATING = {2: 3.4, 3: 4.0, 4: 5.4}


def _all_subsets(grid: CandidateGrid, size: int) -> dict[str, list[Step]]:
    """Every naked and hidden subset of `size` that removes something, by technique name,
    unit by unit (the search is `_scan.subset_groups`, in C)."""
    found: dict[str, list[Step]] = {}
    for hidden, unit, group, union in subset_groups(grid.cands, size):
        (_hidden if hidden else _naked)(grid, unit, group, union, found)
    return found


def _naked(
    grid: CandidateGrid,
    unit: int,
    group: tuple[int, ...],
    union: int,
    found: dict[str, list[Step]],
) -> None:
    """Cells of a unit whose candidates, taken together, are as many digits as cells: those
    digits go in those cells, so the unit's other cells lose them."""
    pattern = 0
    for cell in group:
        pattern |= 1 << cell
    eliminations = eliminations_of(grid, union, UNIT_SETS[unit] & ~pattern)
    if not eliminations:
        return
    size = len(group)
    name = f"naked-{_SIZE_WORD[size]}"
    found.setdefault(name, []).append(
        Step(
            technique=name,
            rating=_NAKED_RATING[size],
            explanation=f"{cells_text(group)} hold only {digits_text(union)} between them, "
            f"so those digits go in these cells and the rest of {unit_name(unit)} loses "
            f"them: {eliminated_text(eliminations)}.",
            eliminations=eliminations,
            cells=group,
            candidates=candidates_of(grid, group),
            units=(unit,),
        )
    )


def _hidden(
    grid: CandidateGrid,
    unit: int,
    group: tuple[int, ...],
    union: int,
    found: dict[str, list[Step]],
) -> None:
    """Digits of a unit whose places, taken together, are as many cells as digits: those
    cells hold those digits, so they lose every other candidate."""
    cands = grid.cands
    digits = 0
    for digit in group:
        digits |= 1 << (digit - 1)
    cells = tuple(cells_of(union))
    eliminations = tuple(
        (cell, d + 1) for cell in cells for d in range(9) if (cands[cell] & ~digits) >> d & 1
    )
    if not eliminations:
        return
    size = len(group)
    name = f"hidden-{_SIZE_WORD[size]}"
    found.setdefault(name, []).append(
        Step(
            technique=name,
            rating=_HIDDEN_RATING[size],
            explanation=f"In {unit_name(unit)} the digits {digits_text(digits)} fit only in "
            f"{cells_text(cells)}, so those cells hold nothing else: "
            f"{eliminated_text(eliminations)}.",
            eliminations=eliminations,
            cells=cells,
            candidates=candidates_of(grid, cells, digits),
            units=(unit,),
        )
    )


_BY_SIZE = {size: partial(_all_subsets, size=size) for size in (2, 3, 4)}


def _subsets(grid: CandidateGrid, name: str, size: int) -> Iterator[Step]:
    """The naked and hidden subsets of one size are found together, once per state."""
    yield from per_state(grid, f"subsets-{size}", _BY_SIZE[size]).get(name, ())


def naked_pair(grid: CandidateGrid) -> Iterator[Step]:
    """Two cells of a unit with the same two candidates."""
    return _subsets(grid, "naked-pair", 2)


def naked_triple(grid: CandidateGrid) -> Iterator[Step]:
    """Three cells of a unit holding three digits between them."""
    return _subsets(grid, "naked-triple", 3)


def naked_quad(grid: CandidateGrid) -> Iterator[Step]:
    """Four cells of a unit holding four digits between them."""
    return _subsets(grid, "naked-quad", 4)


def hidden_pair(grid: CandidateGrid) -> Iterator[Step]:
    """Two digits of a unit with the same two places."""
    return _subsets(grid, "hidden-pair", 2)


def hidden_triple(grid: CandidateGrid) -> Iterator[Step]:
    """Three digits of a unit with three places between them."""
    return _subsets(grid, "hidden-triple", 3)


def hidden_quad(grid: CandidateGrid) -> Iterator[Step]:
    """Four digits of a unit with four places between them."""
    return _subsets(grid, "hidden-quad", 4)


TECHNIQUES = [
    Technique("naked-pair", 3.0, naked_pair),
    Technique("hidden-pair", 3.4, hidden_pair),
    Technique("naked-triple", 3.6, naked_triple),
    Technique("hidden-triple", 4.0, hidden_triple),
    Technique("naked-quad", 5.0, naked_quad),
    Technique("hidden-quad", 5.4, hidden_quad),
]
