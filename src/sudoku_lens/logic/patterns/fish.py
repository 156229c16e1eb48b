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

from sudoku_lens.logic._scan import narrow_groups
from sudoku_lens.logic.catalog import Technique
from sudoku_lens.logic.patterns._common import (
    BOX_SETS,
    COL_SETS,
    ROW_SETS,
    cells_text,
    chain_rating,
    eliminated_text,
    per_state,
    units_text,
)
from sudoku_lens.logic.state import CandidateGrid
from sudoku_lens.logic.step import Step
from sudoku_lens.logic.units import BIT_COUNT, UNIT_SETS, cells_of

_FISH_NAME = {2: "x-wing", 3: "swordfish", 4: "jellyfish"}
_FISH_RATING = {2: 3.2, 3: 3.8, 4: 5.2}
_FINNED_RATING = {size: chain_rating(6.5, 2 * size + 2) for size in (2, 3, 4)}
"""A finned fish is an X-chain with a group of cells (the fins) at one end; rated as Sudoku
Explainer rates such a chain of its length."""
_KINDS = {0: ("rows", "columns"), 9: ("columns", "rows")}
"""The words for base and cover lines, by the unit number of the first base line."""
_BITS_OF = tuple(tuple(i for i in range(9) if mask >> i & 1) for mask in range(512))


def _all_line_masks(grid: CandidateGrid) -> list[tuple[list[int], list[int]]]:
    """For each digit (index 0 unused), its places as nine row masks (bit = column) and nine
    column masks (bit = row)."""
    found: list[tuple[list[int], list[int]]] = [([], [])]
    for digit in range(1, 10):
        digit_cells = grid.digit_cells[digit]
        rows = [digit_cells >> (9 * r) & 0x1FF for r in range(9)]
        cols = [0] * 9
        for r in range(9):
            bit = 1 << r
            for c in _BITS_OF[rows[r]]:
                cols[c] |= bit
        found.append((rows, cols))
    return found


_Layout = tuple[list[int], tuple[int, ...], tuple[int, ...], int, int]


def _orientations(grid: CandidateGrid, digit: int) -> tuple[_Layout, _Layout]:
    """(line masks, base line sets, cover line sets, first unit number of base, of cover), for
    rows as base and then columns as base."""
    rows, cols = per_state(grid, "line-masks", _all_line_masks)[digit]
    return ((rows, ROW_SETS, COL_SETS, 0, 9), (cols, COL_SETS, ROW_SETS, 9, 0))


def _basic(grid: CandidateGrid, size: int) -> Iterator[Step]:
    """`size` base lines whose places for a digit lie in `size` cover lines, which then have
    that digit in the base lines only. Lines with a single place are hidden singles, not fish
    lines."""
    digit_cells = grid.digit_cells
    for digit in range(1, 10):
        if not digit_cells[digit]:
            continue
        for masks, base_sets, cover_sets, base_unit, cover_unit in _orientations(grid, digit):
            lines = [(i, masks[i]) for i in range(9) if 2 <= BIT_COUNT[masks[i]] <= size]
            for base, cover in narrow_groups(lines, size):
                base_set = 0
                for i in base:
                    base_set |= base_sets[i]
                cover_set = 0
                for j in _BITS_OF[cover]:
                    cover_set |= cover_sets[j]
                removed = digit_cells[digit] & cover_set & ~base_set
                if not removed:
                    continue
                eliminations = tuple((cell, digit) for cell in cells_of(removed))
                body = tuple(cells_of(digit_cells[digit] & base_set))
                base_units = tuple(base_unit + i for i in base)
                cover_units = tuple(cover_unit + j for j in _BITS_OF[cover])
                yield Step(
                    technique=_FISH_NAME[size],
                    rating=_FISH_RATING[size],
                    explanation=f"In {units_text(base_units)} every {digit} lies in "
                    f"{units_text(cover_units)}, so those {_KINDS[base_unit][1]} take their "
                    f"{digit}s in these {_KINDS[base_unit][0]}: "
                    f"{eliminated_text(eliminations)}.",
                    eliminations=eliminations,
                    cells=body,
                    candidates=tuple((cell, digit) for cell in body),
                    units=base_units + cover_units,
                )


def _finned(grid: CandidateGrid, name: str) -> Iterator[Step]:
    yield from per_state(grid, "finned-fish", _all_finned).get(name, ())


def _all_finned(grid: CandidateGrid) -> dict[str, list[Step]]:
    """Every finned and sashimi fish of sizes 2 to 4, by technique name.

    For each digit, orientation and fin box: the base lines outside the box's band must lie
    wholly in the cover, those of the band but for their cells in the box (that part of a line
    is its "core"), so sets of lines are grown while their cores fit in four cover lines. The
    box must hold the digit in a base line of its band (the fins: with those lines listed
    first, the first line of a set is one) and in another line of its band (the cells to
    clear). Lines with a single place are hidden singles, not fish lines.
    """
    found: dict[str, list[Step]] = {}
    for digit in range(1, 10):
        digit_cells = grid.digit_cells[digit]
        if not digit_cells:
            continue
        for layout in _orientations(grid, digit):
            masks, base_unit = layout[0], layout[3]
            lines = [i for i in range(9) if BIT_COUNT[masks[i]] >= 2]
            for box in range(9):
                if not digit_cells & BOX_SETS[box]:
                    continue
                band, stack = (box // 3, box % 3) if base_unit == 0 else (box % 3, box // 3)
                box_cross = 7 << (3 * stack)
                holders = 0
                for i in range(band * 3, band * 3 + 3):
                    if masks[i] & box_cross:
                        holders |= 1 << i
                if holders & (holders - 1) == 0:
                    continue
                fin_lines = []
                other_lines = []
                for i in lines:
                    core = masks[i] & ~box_cross if i // 3 == band else masks[i]
                    if BIT_COUNT[core] <= 4:
                        (fin_lines if holders >> i & 1 else other_lines).append((i, core))
                where = (layout, box, band, box_cross)
                for base, core in _small_unions(len(fin_lines), fin_lines + other_lines, holders):
                    _finned_fish(grid, digit, where, base, core, found)
    return found


def _small_unions(
    fin_count: int, cores: list[tuple[int, int]], holders: int
) -> list[tuple[tuple[int, ...], int]]:
    """Sets of two to four lines, the first one of the first `fin_count` (a fin line), not
    all of the box's lines among them, whose cores together span no more cover lines than
    there are lines."""
    found = []
    count = len(cores)
    bit_count = BIT_COUNT
    for a in range(fin_count):
        line_a, core_a = cores[a]
        for b in range(a + 1, count):
            line_b, core_b = cores[b]
            union_b = core_a | core_b
            width = bit_count[union_b]
            if width > 4:
                continue
            if width <= 2 and holders & ~(1 << line_a | 1 << line_b):
                found.append(((line_a, line_b), union_b))
            for c in range(b + 1, count):
                line_c, core_c = cores[c]
                union_c = union_b | core_c
                width = bit_count[union_c]
                if width > 4:
                    continue
                if width <= 3 and holders & ~(1 << line_a | 1 << line_b | 1 << line_c):
                    found.append(((line_a, line_b, line_c), union_c))
                for d in range(c + 1, count):
                    line_d, core_d = cores[d]
                    if bit_count[union_c | core_d] <= 4 and holders & ~(
                        1 << line_a | 1 << line_b | 1 << line_c | 1 << line_d
                    ):
                        found.append(((line_a, line_b, line_c, line_d), union_c | core_d))
    return found


def _finned_fish(
    grid: CandidateGrid,
    digit: int,
    where: tuple[_Layout, int, int, int],
    base: tuple[int, ...],
    required: int,
    found: dict[str, list[Step]],
) -> None:
    """The fish of these base lines with fins in the box, for every way to complete the cover
    with lines through the box."""
    layout, box, band, box_cross = where
    masks = layout[0]
    size = len(base)
    inside = 0
    for i in base:
        if i // 3 == band:
            inside |= masks[i] & box_cross
    free = inside & ~required
    need = size - BIT_COUNT[required]
    if need > BIT_COUNT[free]:
        return
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
        if not fins or thinnest == 0:
            continue
        kind = "sashimi" if thinnest == 1 else "finned"
        name = f"{kind}-{_FISH_NAME[size]}"
        for step in _finned_step(grid, digit, name, masks, base, cover, layout[1:], box):
            found.setdefault(name, []).append(step)


def _finned_step(
    grid: CandidateGrid,
    digit: int,
    name: str,
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
        rating=_FINNED_RATING[len(base)],
        explanation=f"In {units_text(base_units)} every {digit} lies in "
        f"{units_text(cover_units)} apart from the {fin_word} {cells_text(fins)}; either a fin "
        f"is {digit} or those {'columns' if base_unit == 0 else 'rows'} take their {digit}s in "
        f"these {'rows' if base_unit == 0 else 'columns'}; {cells_text(cells_of(removed))} "
        f"{'sees' if len(eliminations) == 1 else 'see'} the {fin_word} (box {box + 1}) and "
        f"{'lies' if len(eliminations) == 1 else 'lie'} in {_cover_of(removed, cover_units)}, "
        f"so {eliminated_text(eliminations)} either way.",
        eliminations=eliminations,
        cells=pattern,
        candidates=tuple((cell, digit) for cell in pattern),
        units=base_units + cover_units + (18 + box,),
        fins=fins,
    )


def _technique(size: int, kind: str) -> Technique:
    if kind == "basic":
        return Technique(_FISH_NAME[size], _FISH_RATING[size], lambda g: _basic(g, size))
    name = f"{kind}-{_FISH_NAME[size]}"
    return Technique(name, _FINNED_RATING[size], lambda g: _finned(g, name))


TECHNIQUES = [
    _technique(size, kind) for kind in ("basic", "finned", "sashimi") for size in (2, 3, 4)
]


def _cover_of(removed: int, cover_units: tuple[int, ...]) -> str:
    """The cover line(s) holding the cells of `removed`, named."""
    return units_text(unit for unit in cover_units if UNIT_SETS[unit] & removed)
