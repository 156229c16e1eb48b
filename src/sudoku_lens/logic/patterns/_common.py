"""Small helpers shared by the pattern techniques: cell-set tables, wording, chain ratings."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TypeVar

from sudoku_lens.logic.patterns._kept import kept
from sudoku_lens.logic.state import CandidateGrid
from sudoku_lens.logic.step import Candidate
from sudoku_lens.logic.units import (
    BOX,
    COL,
    ROW,
    UNIT_SETS,
    cells_of,
    digits_of,
    unit_name,
)
from sudoku_lens.puzzle.text import cell_name

T = TypeVar("T")

ROW_SETS = UNIT_SETS[0:9]
COL_SETS = UNIT_SETS[9:18]
BOX_SETS = UNIT_SETS[18:27]


def shared_units(a: int, b: int) -> tuple[int, ...]:
    """The units that hold both of two different cells (rows, then columns, then boxes)."""
    found = ()
    if ROW[a] == ROW[b]:
        found += (ROW[a],)
    if COL[a] == COL[b]:
        found += (9 + COL[a],)
    if BOX[a] == BOX[b]:
        found += (18 + BOX[a],)
    return found


def chain_rating(base: float, nodes: int) -> float:
    """Sudoku Explainer's rating of a chain of `nodes` candidates: the base of its kind plus a
    tenth each time the length passes a threshold growing by 3/2 and 4/3 in turn."""
    added = 0.0
    ceiling = 4
    length = nodes - 2
    odd = False
    while length > ceiling:
        added += 0.1
        ceiling = ceiling * 4 // 3 if odd else ceiling * 3 // 2
        odd = not odd
    return round(base + added, 1)


def spell(words: Iterable[str]) -> str:
    """ "a", "a and b", "a, b and c"."""
    items = list(words)
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def cells_text(cells: Iterable[int]) -> str:
    """Cells named and joined: "r1c2, r1c5 and r3c4"."""
    return spell(cell_name(cell) for cell in cells)


def compact_cells(cells: Iterable[int]) -> str:
    """Cells taken together (a group, an almost locked set, a color), as HoDoKu and the
    solving forums write them: "r1c8", "r23c8" (r2c8 and r3c8), "r123c8,r2c9". Cells are merged
    along rows, or along columns when that takes fewer parts (or as few, the largest larger);
    the parts are joined by commas without a space, so that a set reads as one word."""
    cells = sorted(set(cells))
    if not cells:
        return ""
    along_rows = _merged(cells, ROW, COL)
    along_cols = [(rows, cols) for cols, rows in _merged(cells, COL, ROW)]

    def cost(parts: list[tuple[tuple[int, ...], tuple[int, ...]]]) -> tuple[int, int]:
        return len(parts), -max(len(rows) * len(cols) for rows, cols in parts)

    parts = along_rows if cost(along_rows) <= cost(along_cols) else along_cols
    parts.sort(key=lambda part: (part[0][0], part[1][0]))
    return ",".join(
        f"r{''.join(str(r + 1) for r in rows)}c{''.join(str(c + 1) for c in cols)}"
        for rows, cols in parts
    )


def _merged(
    cells: list[int], line: tuple[int, ...], across: tuple[int, ...]
) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """(lines, crossings) parts of `cells`: grouped by `line` (ROW or COL, the crossing lines
    `across`), lines that hold the same crossings merged."""
    per_line: dict[int, list[int]] = {}
    for cell in cells:
        per_line.setdefault(line[cell], []).append(across[cell])
    merged: dict[tuple[int, ...], list[int]] = {}
    for number, crossings in per_line.items():
        merged.setdefault(tuple(crossings), []).append(number)
    return [(tuple(lines), crossings) for crossings, lines in merged.items()]


def cells_with_digits(cells: Iterable[int], mask: int) -> str:
    """A set of cells and the candidates it holds, as HoDoKu writes an almost locked set:
    "r23c8 {148}"."""
    return f"{compact_cells(cells)} {{{''.join(map(str, digits_of(mask)))}}}"


def units_text(units: Iterable[int]) -> str:
    """Units of one kind named together: "rows 2 and 6", "column 4", "box 5"."""
    units = sorted(units)
    if len(units) == 1:
        return unit_name(units[0])
    kind = ("rows", "columns", "boxes")[units[0] // 9]
    return f"{kind} {spell(str(u % 9 + 1) for u in units)}"


def digits_text(mask: int) -> str:
    """The digits of a candidate mask: "3", "3 and 7", "1, 4 and 9"."""
    return spell(str(d + 1) for d in range(9) if mask >> d & 1)


def eliminations_of(grid: CandidateGrid, digits: int, zone: int) -> tuple[Candidate, ...]:
    """Every candidate of the digits in mask `digits` in the cells of cell set `zone`, cell by
    cell."""
    found: list[Candidate] = []
    for d in range(9):
        if digits >> d & 1:
            found.extend((cell, d + 1) for cell in cells_of(grid.digit_cells[d + 1] & zone))
    found.sort()
    return tuple(found)


def eliminated_text(eliminations: tuple[Candidate, ...]) -> str:
    """What a step removes, in words, cells that lose the same digits together: "r1c2 cannot
    be 5", "r1c2 and r4c4 cannot be 3 or 7", "r1c2 cannot be 3 and r5c5 cannot be 7"."""
    lost: dict[int, list[int]] = {}
    for cell, digit in eliminations:
        lost.setdefault(cell, []).append(digit)
    groups: dict[tuple[int, ...], list[int]] = {}
    for cell in sorted(lost):
        groups.setdefault(tuple(sorted(lost[cell])), []).append(cell)
    return spell(
        f"{cells_text(group)} cannot be {either(map(str, digits))}"
        for digits, group in groups.items()
    )


def either(words: Iterable[str]) -> str:
    """ "a", "a or b", "a, b or c"."""
    items = list(words)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " or " + items[-1]


def per_state(grid: CandidateGrid, name: str, compute: Callable[[CandidateGrid], T]) -> T:
    """`compute(grid)`, remembered for the last candidate state seen under `name`.

    Several techniques share one analysis of a state (a digit's strong links, the rectangles,
    every finned fish of every size), and `next_step` asks them one after the other about the
    same state: the analysis runs once. The key is the per-digit candidate cell sets, which
    determine every candidate; `compute` must depend on nothing else. Kept per thread, in the
    stores the chain techniques use (`_kept.kept`).
    """
    store = kept(name, tuple(grid.digit_cells))
    if "value" not in store:
        store["value"] = compute(grid)
    return store["value"]  # type: ignore[return-value]


def candidates_of(
    grid: CandidateGrid, cells: Iterable[int], digits: int = 0x1FF
) -> tuple[Candidate, ...]:
    """(cell, digit) for every candidate of `cells` among `digits` (a 9-bit mask, default all):
    what a step highlights in the cells that prove it."""
    return tuple((cell, d) for cell in cells for d in digits_of(grid.cands[cell] & digits))
