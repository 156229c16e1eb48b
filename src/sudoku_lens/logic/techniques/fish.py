"""Fish: n rows (or columns) whose places for a digit lie in n columns (or rows), plain, finned
and sashimi.

A digit's places are handled as nine 9-bit "line masks" per orientation (for rows, bit c of
row r's mask is column c), so covering lines are bit operations. The fin of a finned fish is
the set of base candidates outside the cover; it must sit in one box, and the cells that lose
the digit are the cover's cells in that box outside the base lines: they see every fin, and
without the fins the fish is plain.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import combinations

from sudoku_lens.logic.catalog import Technique
from sudoku_lens.logic.state import CandidateGrid
from sudoku_lens.logic.step import Step
from sudoku_lens.logic.techniques._common import (
    BOX_SETS,
    COL_SETS,
    ROW_SETS,
    cells_text,
    chain_rating,
    eliminated_text,
    units_text,
)
from sudoku_lens.logic.units import BIT_COUNT, cells_of

_FISH_NAME = {2: "x-wing", 3: "swordfish", 4: "jellyfish"}
_FISH_RATING = {2: 3.2, 3: 3.8, 4: 5.2}
_BITS_OF = tuple(tuple(i for i in range(9) if mask >> i & 1) for mask in range(512))


def _line_masks(digit_cells: int) -> tuple[list[int], list[int]]:
    """A digit's places as nine row masks (bit = column) and nine column masks (bit = row)."""
    rows = [0] * 9
    cols = [0] * 9
    while digit_cells:
        low = digit_cells & -digit_cells
        cell = low.bit_length() - 1
        digit_cells ^= low
        r, c = divmod(cell, 9)
        rows[r] |= 1 << c
        cols[c] |= 1 << r
    return rows, cols


_Layout = tuple[list[int], tuple[int, ...], tuple[int, ...], int, int]


def _orientations(grid: CandidateGrid, digit: int) -> tuple[_Layout, _Layout]:
    """(line masks, base line sets, cover line sets, first unit number of base, of cover), for
    rows as base and then columns as base."""
    rows, cols = _line_masks(grid.digit_cells[digit])
    return ((rows, ROW_SETS, COL_SETS, 0, 9), (cols, COL_SETS, ROW_SETS, 9, 0))


def _basic(grid: CandidateGrid, size: int) -> Iterator[Step]:
    """`size` base lines whose places for a digit lie in `size` cover lines: the cover lines
    have that digit in the base lines only."""
    name = _FISH_NAME[size]
    for digit in range(1, 10):
        digit_cells = grid.digit_cells[digit]
        if not digit_cells:
            continue
        for masks, base_sets, cover_sets, base_unit, cover_unit in _orientations(grid, digit):
            lines = [i for i in range(9) if 2 <= BIT_COUNT[masks[i]] <= size]
            if len(lines) < size:
                continue
            for base in combinations(lines, size):
                cover = 0
                for i in base:
                    cover |= masks[i]
                if BIT_COUNT[cover] != size:
                    continue
                base_set = 0
                for i in base:
                    base_set |= base_sets[i]
                cover_set = 0
                for j in _BITS_OF[cover]:
                    cover_set |= cover_sets[j]
                removed = digit_cells & cover_set & ~base_set
                if not removed:
                    continue
                eliminations = tuple((cell, digit) for cell in cells_of(removed))
                body = tuple(cells_of(digit_cells & base_set))
                base_units = tuple(base_unit + i for i in base)
                cover_units = tuple(cover_unit + j for j in _BITS_OF[cover])
                yield Step(
                    technique=name,
                    rating=_FISH_RATING[size],
                    explanation=f"In {units_text(base_units)} every {digit} lies in "
                    f"{units_text(cover_units)}, so those take their {digit}s in these "
                    f"{'rows' if base_unit == 0 else 'columns'}: "
                    f"{eliminated_text(eliminations)}.",
                    eliminations=eliminations,
                    cells=body,
                    candidates=tuple((cell, digit) for cell in body),
                    units=base_units + cover_units,
                )


def _finned(grid: CandidateGrid, size: int, sashimi: bool) -> Iterator[Step]:
    """A fish of `size` lines but for fins in one box. Sashimi when some base line keeps a
    single candidate outside the fins (the fish without its fins would not be one)."""
    kind = "sashimi" if sashimi else "finned"
    name = f"{kind}-{_FISH_NAME[size]}"
    rating = chain_rating(6.5, 2 * size + 2)
    for digit in range(1, 10):
        digit_cells = grid.digit_cells[digit]
        if not digit_cells:
            continue
        for masks, base_sets, cover_sets, base_unit, cover_unit in _orientations(grid, digit):
            lines = [i for i in range(9) if 1 <= BIT_COUNT[masks[i]] <= size + 2]
            if len(lines) < size:
                continue
            for base in combinations(lines, size):
                union = 0
                for i in base:
                    union |= masks[i]
                if not size < BIT_COUNT[union] <= size + 2:
                    continue
                for band in sorted({i // 3 for i in base}):
                    for stack in range(3):
                        box_cross = 7 << (3 * stack)
                        required = 0
                        inside = 0
                        for i in base:
                            if i // 3 == band:
                                required |= masks[i] & ~box_cross
                                inside |= masks[i] & box_cross
                            else:
                                required |= masks[i]
                        need = size - BIT_COUNT[required]
                        free = inside & ~required
                        if need < 0 or need > BIT_COUNT[free]:
                            continue
                        for extra in combinations(_BITS_OF[free], need):
                            cover = required
                            for j in extra:
                                cover |= 1 << j
                            if not cover & box_cross:
                                continue
                            fins = 0
                            thinnest = 9
                            for i in base:
                                fins |= masks[i] & ~cover
                                thinnest = min(thinnest, BIT_COUNT[masks[i] & cover])
                            if not fins or thinnest == 0 or (thinnest == 1) != sashimi:
                                continue
                            yield from _finned_step(
                                grid,
                                digit,
                                name,
                                rating,
                                masks,
                                base,
                                cover,
                                (base_sets, cover_sets, base_unit, cover_unit),
                                band * 3 + stack if base_unit == 0 else stack * 3 + band,
                            )


def _finned_step(
    grid: CandidateGrid,
    digit: int,
    name: str,
    rating: float,
    masks: list[int],
    base: tuple[int, ...],
    cover: int,
    layout: tuple[tuple[int, ...], tuple[int, ...], int, int],
    box: int,
) -> Iterator[Step]:
    """The step of one finned fish, when it removes anything."""
    base_sets, cover_sets, base_unit, cover_unit = layout
    digit_cells = grid.digit_cells[digit]
    base_set = 0
    for i in base:
        base_set |= base_sets[i]
    cover_set = 0
    for j in _BITS_OF[cover]:
        cover_set |= cover_sets[j]
    removed = digit_cells & cover_set & BOX_SETS[box] & ~base_set
    if not removed:
        return
    eliminations = tuple((cell, digit) for cell in cells_of(removed))
    pattern = tuple(cells_of(digit_cells & base_set))
    fins = tuple(cells_of(digit_cells & base_set & ~cover_set))
    base_units = tuple(base_unit + i for i in base)
    cover_units = tuple(cover_unit + j for j in _BITS_OF[cover])
    fin_word = "fin" if len(fins) == 1 else "fins"
    yield Step(
        technique=name,
        rating=rating,
        explanation=f"In {units_text(base_units)} every {digit} lies in "
        f"{units_text(cover_units)} apart from the {fin_word} {cells_text(fins)}; either a fin "
        f"is {digit} or those {'columns' if base_unit == 0 else 'rows'} take their {digit}s in "
        f"these {'rows' if base_unit == 0 else 'columns'}, and {eliminated_text(eliminations)} "
        f"because {'it sees' if len(eliminations) == 1 else 'they see'} both.",
        eliminations=eliminations,
        cells=pattern,
        candidates=tuple((cell, digit) for cell in pattern),
        units=base_units + cover_units + (18 + box,),
    )


def _technique(size: int, kind: str) -> Technique:
    if kind == "basic":
        return Technique(_FISH_NAME[size], _FISH_RATING[size], lambda g: _basic(g, size))
    sashimi = kind == "sashimi"
    return Technique(
        f"{kind}-{_FISH_NAME[size]}",
        chain_rating(6.5, 2 * size + 2),
        lambda g: _finned(g, size, sashimi),
    )


TECHNIQUES = [
    _technique(size, kind) for kind in ("basic", "finned", "sashimi") for size in (2, 3, 4)
]
