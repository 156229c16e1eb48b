"""Short single-digit chains: two strong links joined by a weak one (skyscraper, two-string
kite, turbot fish) and the empty rectangle.

A strong link (conjugate pair) is a unit with exactly two places for a digit: one of them holds
it. Two strong links a1=a2 and b1=b2 whose inner ends a2, b1 see each other make a1 or b2 true,
so a cell seeing both outer ends cannot hold the digit. The names tell the shape apart:
skyscraper (two parallel rows or columns joined along a column or row), two-string kite (a row
and a column joined in a box), turbot fish (every other shape). Sudoku Explainer rates these
as X-chains of four candidates.
"""

from __future__ import annotations

from collections.abc import Iterator

from sudoku_lens.logic import _scan
from sudoku_lens.logic.catalog import Technique
from sudoku_lens.logic.patterns._common import (
    BOX_SETS,
    chain_rating,
    eliminated_text,
    per_state,
)
from sudoku_lens.logic.state import CandidateGrid
from sudoku_lens.logic.step import Link, Step
from sudoku_lens.logic.units import (
    cells_of,
    unit_name,
)
from sudoku_lens.puzzle.text import cell_name

_CHAIN_RATING = chain_rating(6.5, 4)
_EMPTY_RECTANGLE_RATING = chain_rating(6.5, 5)


def strong_links(grid: CandidateGrid, digit: int) -> list[tuple[int, int, int]]:
    """The digit's conjugate pairs as (cell, cell, unit), each pair once, named by its row or
    column when it is one there (rows, then columns, then boxes)."""
    return per_state(grid, "strong-links", _all_strong_links)[digit]


def _all_strong_links(grid: CandidateGrid) -> list[list[tuple[int, int, int]]]:
    return _scan.strong_links(grid.cands)


def _two_link_chains(grid: CandidateGrid, name: str) -> Iterator[Step]:
    yield from per_state(grid, "two-link-chains", _all_two_link_chains).get(name, ())


_SHAPES = ("", "skyscraper", "two-string-kite", "turbot-fish")
"""The names of `_scan.two_link_chains`'s shapes, by number."""


def _all_two_link_chains(grid: CandidateGrid) -> dict[str, list[Step]]:
    """Every chain of two strong links joined by a weak one, by the name of its shape (found by
    `_scan.two_link_chains`, in C: the rating path asks on most states of a hard puzzle)."""
    found: dict[str, list[Step]] = {}
    for shape, digit, a1, a2, u1, b1, b2, u2, removed in _scan.two_link_chains(grid.cands):
        name = _SHAPES[shape]
        found.setdefault(name, []).append(
            _chain_step(name, digit, (a1, a2, u1), (b1, b2, u2), removed)
        )
    return found


def _chain_step(
    name: str, digit: int, first: tuple[int, int, int], second: tuple[int, int, int], removed: int
) -> Step:
    a1, a2, u1 = first
    b1, b2, u2 = second
    eliminations = tuple((cell, digit) for cell in cells_of(removed))
    return Step(
        technique=name,
        rating=_CHAIN_RATING,
        explanation=f"{unit_name(u1).capitalize()} has its {digit} in "
        f"{cell_name(a1)} or {cell_name(a2)} and {unit_name(u2)} in "
        f"{cell_name(b1)} or {cell_name(b2)}; {cell_name(a2)} and "
        f"{cell_name(b1)} see each other, so {cell_name(a1)} or "
        f"{cell_name(b2)} is {digit} and {eliminated_text(eliminations)}.",
        eliminations=eliminations,
        cells=(a1, a2, b1, b2),
        candidates=((a1, digit), (a2, digit), (b1, digit), (b2, digit)),
        units=(u1, u2),
        links=(
            Link((a1, digit), (a2, digit), True),
            Link((a2, digit), (b1, digit), False),
            Link((b1, digit), (b2, digit), True),
        ),
    )


def skyscraper(grid: CandidateGrid) -> Iterator[Step]:
    """Two rows (or columns) with two places each for a digit, one end of each in the same
    column (row)."""
    return _two_link_chains(grid, "skyscraper")


def two_string_kite(grid: CandidateGrid) -> Iterator[Step]:
    """A row and a column with two places each for a digit, one end of each in the same box."""
    return _two_link_chains(grid, "two-string-kite")


def turbot_fish(grid: CandidateGrid) -> Iterator[Step]:
    """Two strong links joined by a weak one, in any other shape (a box link among them)."""
    return _two_link_chains(grid, "turbot-fish")


def empty_rectangle(grid: CandidateGrid) -> Iterator[Step]:
    """A box whose places for a digit all lie in one row and one column of it, and a strong
    link with one end in that row (or column): the cell where the link's other end meets the
    box's column (row) cannot hold the digit. (Found by `_scan.empty_rectangles`, in C.)"""
    for digit, box, row, col, p, q, unit, target in _scan.empty_rectangles(grid.cands):
        pattern = tuple(cells_of(grid.digit_cells[digit] & BOX_SETS[box]))
        by_column = unit >= 9  # a column's link: p in the box's row, the target in its column
        line_word = f"row {row + 1}" if by_column else f"column {col + 1}"
        yield Step(
            technique="empty-rectangle",
            rating=_EMPTY_RECTANGLE_RATING,
            explanation=f"In {unit_name(18 + box)} every {digit} lies in row {row + 1} or "
            f"column {col + 1}, and {unit_name(unit)} has its {digit} in {cell_name(p)} or "
            f"{cell_name(q)}: if {cell_name(target)} were {digit}, {unit_name(18 + box)} "
            f"would take its {digit} in {line_word}, ruling out {cell_name(p)} and leaving "
            f"{cell_name(q)}, which sees {cell_name(target)}; so "
            f"{cell_name(target)} cannot be {digit}.",
            eliminations=((target, digit),),
            cells=(*pattern, p, q),
            candidates=tuple((cell, digit) for cell in (*pattern, p, q)),
            units=(18 + box, unit, 9 + col if by_column else row),
            links=(
                Link((p, digit), (q, digit), True),
                Link((q, digit), (target, digit), False),
            ),
        )


TECHNIQUES = [
    Technique("skyscraper", _CHAIN_RATING, skyscraper),
    Technique("two-string-kite", _CHAIN_RATING, two_string_kite),
    Technique("turbot-fish", _CHAIN_RATING, turbot_fish),
    Technique("empty-rectangle", _EMPTY_RECTANGLE_RATING, empty_rectangle),
]
