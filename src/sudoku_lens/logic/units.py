"""The fixed geometry of a Sudoku: cells, units, peers, as tuples and 81-bit cell sets.

Cells are numbered 0-80 row by row; units 0-8 are the rows, 9-17 the columns, 18-26 the boxes.
A set of cells is often an int with bit `cell` set (a "cell set"): intersections and unions of
cell sets are single integer operations, which keeps the techniques fast in Python (the unit
scans every state runs first are in C, `logic/_scan.c`, on the same geometry).
Digits are 1-9; a cell's candidates are a 9-bit mask with bit `digit - 1` set.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

ALL_DIGITS = 0x1FF
"""The candidate mask of a cell that could still hold any digit."""

ROW = tuple(cell // 9 for cell in range(81))
COL = tuple(cell % 9 for cell in range(81))
BOX = tuple((cell // 27) * 3 + (cell % 9) // 3 for cell in range(81))

UNITS: tuple[tuple[int, ...], ...] = (
    tuple(tuple(r * 9 + c for c in range(9)) for r in range(9))
    + tuple(tuple(r * 9 + c for r in range(9)) for c in range(9))
    + tuple(
        tuple((b // 3 * 3 + i // 3) * 9 + b % 3 * 3 + i % 3 for i in range(9)) for b in range(9)
    )
)
"""The 27 units (rows, columns, boxes), each as its 9 cells in reading order."""

CELL_UNITS: tuple[tuple[int, int, int], ...] = tuple(
    (ROW[cell], 9 + COL[cell], 18 + BOX[cell]) for cell in range(81)
)
"""For each cell, its row, column and box unit numbers."""

PEERS: tuple[tuple[int, ...], ...] = tuple(
    tuple(sorted({p for unit in CELL_UNITS[cell] for p in UNITS[unit]} - {cell}))
    for cell in range(81)
)
"""For each cell, the 20 other cells that share a unit with it."""


def cell_set(cells: Iterable[int]) -> int:
    """The cell set (81-bit int) holding `cells`."""
    bits = 0
    for cell in cells:
        bits |= 1 << cell
    return bits


def cells_of(bits: int) -> Iterator[int]:
    """The cells of a cell set, in increasing order."""
    while bits:
        low = bits & -bits
        yield low.bit_length() - 1
        bits ^= low


_DIGITS: tuple[tuple[int, ...], ...] = tuple(
    tuple(d + 1 for d in range(9) if mask >> d & 1) for mask in range(512)
)


def digits_of(mask: int) -> tuple[int, ...]:
    """The digits of a 9-bit candidate mask, in increasing order (looked up, not computed)."""
    return _DIGITS[mask]


UNIT_SETS: tuple[int, ...] = tuple(cell_set(unit) for unit in UNITS)
"""Each unit as a cell set."""

PEER_SETS: tuple[int, ...] = tuple(cell_set(peers) for peers in PEERS)
"""Each cell's peers as a cell set."""

BIT_COUNT: tuple[int, ...] = tuple(bin(mask).count("1") for mask in range(512))
"""Number of candidates in each 9-bit mask (faster than int.bit_count in tight loops)."""


def unit_name(unit: int) -> str:
    """A unit's name in words: "row 4", "column 7", "box 5"."""
    kind = ("row", "column", "box")[unit // 9]
    return f"{kind} {unit % 9 + 1}"


def common_units(cells: Iterable[int]) -> list[int]:
    """The units that hold every one of `cells` (rows first, then columns, then boxes)."""
    cells = list(cells)
    if not cells:
        return []
    shared = set(CELL_UNITS[cells[0]])
    for cell in cells[1:]:
        shared &= set(CELL_UNITS[cell])
    return sorted(shared)


def sees(a: int, b: int) -> bool:
    """True when two different cells share a unit."""
    return a != b and PEER_SETS[a] >> b & 1 == 1
