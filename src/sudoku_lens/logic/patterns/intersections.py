"""Intersections of a box with a row or column: pointing, claiming, locked pairs and triples."""

from __future__ import annotations

from collections.abc import Iterator

from sudoku_lens.logic._scan import claimings, locked_groups, pointings
from sudoku_lens.logic.catalog import Technique
from sudoku_lens.logic.patterns._common import (
    candidates_of,
    cells_text,
    digits_text,
    eliminated_text,
    eliminations_of,
)
from sudoku_lens.logic.state import CandidateGrid
from sudoku_lens.logic.step import Step
from sudoku_lens.logic.units import UNIT_SETS, cells_of, unit_name


def pointing(grid: CandidateGrid) -> Iterator[Step]:
    """A digit whose places in a box all lie in one row or column: that line's other cells
    cannot hold it. (Found by `_scan.pointings`, in C.)"""
    for box, line, digit in pointings(grid.cands):
        yield _confined(grid, "pointing", 2.6, digit, box, line)


def claiming(grid: CandidateGrid) -> Iterator[Step]:
    """A digit whose places in a row or column all lie in one box: the box's other cells cannot
    hold it. (Found by `_scan.claimings`, in C.)"""
    for line, box, digit in claimings(grid.cands):
        yield _confined(grid, "claiming", 2.8, digit, line, box)


def _confined(
    grid: CandidateGrid, name: str, rating: float, digit: int, unit: int, other: int
) -> Step:
    """The step of a digit whose places in `unit` all lie in `other` (a box and a line, either
    way round): `other`'s cells outside `unit` lose it."""
    places = grid.digit_cells[digit] & UNIT_SETS[unit]
    removed = grid.digit_cells[digit] & UNIT_SETS[other] & ~UNIT_SETS[unit]
    eliminations = tuple((cell, digit) for cell in cells_of(removed))
    return Step(
        technique=name,
        rating=rating,
        explanation=f"In {unit_name(unit)} every {digit} lies in {unit_name(other)}, so "
        f"the {digit} of {unit_name(other)} is in {unit_name(unit)} and "
        f"{eliminated_text(eliminations)}.",
        eliminations=eliminations,
        cells=tuple(cells_of(places)),
        candidates=tuple((cell, digit) for cell in cells_of(places)),
        units=(unit, other),
    )


def _locked(grid: CandidateGrid, size: int, name: str, rating: float) -> Iterator[Step]:
    """`size` cells of one box-line intersection holding exactly `size` digits between them:
    those digits are in these cells, so neither the box nor the line has them elsewhere.
    (Found by `_scan.locked_groups`, in C.)"""
    for box, line, group, union in locked_groups(grid.cands, size):
        pattern = sum(1 << cell for cell in group)
        zone = (UNIT_SETS[box] | UNIT_SETS[line]) & ~pattern
        eliminations = eliminations_of(grid, union, zone)
        yield Step(
            technique=name,
            rating=rating,
            explanation=f"{cells_text(group)} share {unit_name(box)} and {unit_name(line)} "
            f"and hold only {digits_text(union)} between them, so neither unit has those "
            f"digits elsewhere: {eliminated_text(eliminations)}.",
            eliminations=eliminations,
            cells=group,
            candidates=candidates_of(grid, group),
            units=(line, box),
        )


def locked_pair(grid: CandidateGrid) -> Iterator[Step]:
    """Two cells of a box-line intersection with the same two candidates (a naked pair that
    clears both units); rated as Sudoku Explainer rates the naked pair it is."""
    return _locked(grid, 2, "locked-pair", 3.0)


def locked_triple(grid: CandidateGrid) -> Iterator[Step]:
    """The three cells of a box-line intersection holding three digits between them (a naked
    triple that clears both units); rated as a naked triple."""
    return _locked(grid, 3, "locked-triple", 3.6)


TECHNIQUES = [
    Technique("pointing", 2.6, pointing),
    Technique("claiming", 2.8, claiming),
    Technique("locked-pair", 3.0, locked_pair),
    Technique("locked-triple", 3.6, locked_triple),
]
