"""Uniqueness: patterns that would give the puzzle two solutions (deadly patterns), ruled out
because a proper puzzle has exactly one.

These techniques are sound only for puzzles with exactly one solution; every puzzle the logical
solver is meant for has one. A deadly pattern is a rectangle of four cells in two rows, two
columns and two boxes holding two digits a and b crosswise: swapping a and b leaves every unit
valid, so the solution would not be unique. Unique rectangles reason about empty cells with
candidates a and b; avoidable rectangles about digits placed while solving (not givens, see
`CandidateGrid.givens`), which a swap could exchange just as well.

A corner that has lost one of a and b to an earlier step still counts, as HoDoKu counts it
("with missing candidates"): the argument is about the solution, in which a deadly pattern is
impossible whatever the candidates say, and losing a candidate only rules out more. Such a corner
holds the other of the two and at least one more digit; each technique removes only candidates
that are there. Sudoku Explainer does not look for these rectangles, so its rating path leaves
them out (`missing_candidates=False`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import combinations

from sudoku_lens.logic.catalog import Technique
from sudoku_lens.logic.patterns._common import (
    COL_SETS,
    ROW_SETS,
    candidates_of,
    cells_text,
    digits_text,
    either,
    eliminated_text,
    eliminations_of,
    per_state,
    shared_units,
    spell,
)
from sudoku_lens.logic.state import CandidateGrid
from sudoku_lens.logic.step import Step
from sudoku_lens.logic.units import (
    BIT_COUNT,
    BOX,
    PEER_SETS,
    UNIT_SETS,
    UNITS,
    cells_of,
    unit_name,
)
from sudoku_lens.puzzle.text import cell_name

RECTANGLES: tuple[tuple[int, int, int, int], ...] = tuple(
    (r1 * 9 + c1, r1 * 9 + c2, r2 * 9 + c1, r2 * 9 + c2)
    for r1 in range(9)
    for r2 in range(r1 + 1, 9)
    for c1 in range(9)
    for c2 in range(c1 + 1, 9)
    if len({BOX[r1 * 9 + c1], BOX[r1 * 9 + c2], BOX[r2 * 9 + c1], BOX[r2 * 9 + c2]}) == 2
)
"""Every rectangle of cells (A, B, C, D) = (r1c1, r1c2, r2c1, r2c2) spanning two boxes."""

RECTANGLE_SETS = tuple(sum(1 << cell for cell in rect) for rect in RECTANGLES)

_SIDES = (((0, 1), (2, 3)), ((2, 3), (0, 1)), ((0, 2), (1, 3)), ((1, 3), (0, 2)))
"""(floor, roof) pairs of corner indices on opposite sides of a rectangle."""
_DIAGONALS = (((0, 3), (1, 2)), ((1, 2), (0, 3)))
_OPPOSITE = (3, 2, 1, 0)


Rectangle = tuple[tuple[int, ...], int, int, list[int]]
"""(cells, a, b, each cell's other candidates) of a rectangle of empty cells."""


def _empty_rectangles(grid: CandidateGrid, missing_candidates: bool = False) -> list[Rectangle]:
    """Rectangles of empty cells sharing two candidates a and b, one corner holding only those
    (every uniqueness pattern here has one), then, with `missing_candidates`, those in which a
    corner lost one of the two (see the module's notes). Shared by the techniques through
    `per_state`."""
    complete = per_state(grid, "rectangles", lambda g: _find_rectangles(g, False))
    if not missing_candidates:
        return complete
    return complete + per_state(grid, "rectangles-missing", lambda g: _find_rectangles(g, True))


def _find_rectangles(grid: CandidateGrid, missing: bool) -> list[Rectangle]:
    """The rectangles whose every corner holds a and b (`missing` False), or those with at least
    one corner that holds only one of them and other digits (`missing` True)."""
    cands, digit_cells = grid.cands, grid.digit_cells
    found = []
    seen = set()
    for corner in range(81):
        pair = cands[corner]
        if BIT_COUNT[pair] != 2:
            continue
        low = pair & -pair
        a, b = low.bit_length(), (pair ^ low).bit_length()
        usable = digit_cells[a] | digit_cells[b] if missing else digit_cells[a] & digit_cells[b]
        usable &= ~(1 << corner)
        row, col = corner // 9, corner % 9
        for beside in cells_of(usable & ROW_SETS[row]):
            for below in cells_of(usable & COL_SETS[col]):
                far = below // 9 * 9 + beside % 9
                if not usable >> far & 1 or (BOX[beside] == BOX[corner]) == (
                    BOX[below] == BOX[corner]
                ):
                    continue
                rect = tuple(sorted((corner, beside, below, far)))
                if (rect, pair) in seen:
                    continue
                if missing and not _lost_one(cands, rect, pair):
                    continue
                seen.add((rect, pair))
                found.append((rect, a, b, [cands[cell] & ~pair for cell in rect]))
    found.sort(key=lambda item: (item[0], item[1]))
    return found


def _lost_one(cands: list[int], rect: tuple[int, ...], pair: int) -> bool:
    """True when some corner holds only one digit of `pair`, and every such corner holds other
    digits too: one that lost a digit and has nothing else left is a single, not a corner."""
    lost = False
    for cell in rect:
        held = cands[cell] & pair
        if held != pair:
            if not cands[cell] & ~pair:
                return False
            lost = True
    return lost


def _ur_step(
    name: str,
    rating: float,
    grid: CandidateGrid,
    rect: tuple[int, ...],
    a: int,
    b: int,
    because: str,
    eliminations: tuple[tuple[int, int], ...],
    units: tuple[int, ...] = (),
    then: str = "and",
) -> Step:
    """The step of a rectangle, its sentence saying which corners lost one of a and b. `then`
    joins `because` to the eliminations: "and" after a fact ("so r4c3 or r4c7 is 9"), "so"
    after what would happen ("the puzzle would have two solutions, so r4c7 cannot be 1")."""
    cands = grid.cands
    lost = [(cell, d) for cell in rect for d in (a, b) if not cands[cell] >> (d - 1) & 1]
    holds = f"all hold {a} and {b}"
    if lost:
        gone = ", ".join(f"{cell_name(cell)} has lost its {d}" for cell, d in lost)
        holds = f"all hold {a} or {b} ({gone}, which only rules out more)"
    return Step(
        technique=name,
        rating=rating,
        explanation=(
            f"{cells_text(rect)} {holds}; {because}, {then} {eliminated_text(eliminations)}."
        ),
        eliminations=eliminations,
        cells=rect,
        candidates=candidates_of(grid, rect, 1 << (a - 1) | 1 << (b - 1)),
        units=units,
    )


def either_digit(mask: int) -> str:
    """The digits of a mask as alternatives: "3", "3 or 4"."""
    return either(str(d + 1) for d in range(9) if mask >> d & 1)


_DEADLY = "if they held nothing else the puzzle would have two solutions"
_COMPLETE = "complete a pattern with two solutions"


def unique_rectangle_1(grid: CandidateGrid, missing_candidates: bool = True) -> Iterator[Step]:
    """Three corners hold only a and b: the fourth must not be a or b."""
    for rect, a, b, extras in _empty_rectangles(grid, missing_candidates):
        if extras.count(0) != 3:
            continue
        corner = rect[[i for i in range(4) if extras[i]][0]]
        eliminations = eliminations_of(grid, 1 << (a - 1) | 1 << (b - 1), 1 << corner)
        because = (
            f"the other three corners hold only {a} and {b}, and if {cell_name(corner)} did too "
            "the puzzle would have two solutions"
            if len(eliminations) == 2
            else f"{cell_name(corner)} as {eliminations[0][1]} would force the other corners and "
            f"{_COMPLETE}"
        )
        yield _ur_step(
            "unique-rectangle-1", 4.5, grid, rect, a, b, because, eliminations, then="so"
        )


def unique_rectangle_2(grid: CandidateGrid, missing_candidates: bool = True) -> Iterator[Step]:
    """Two corners on one side hold only a and b, the other two a, b and one more digit c:
    one of those is c, so cells seeing both cannot be c."""
    for rect, a, b, extras in _empty_rectangles(grid, missing_candidates):
        for floor, roof in _SIDES:
            if extras[floor[0]] or extras[floor[1]]:
                continue
            extra = extras[roof[0]]
            if BIT_COUNT[extra] != 1 or extras[roof[1]] != extra:
                continue
            r1, r2 = rect[roof[0]], rect[roof[1]]
            eliminations = eliminations_of(grid, extra, PEER_SETS[r1] & PEER_SETS[r2])
            if eliminations:
                yield _ur_step(
                    "unique-rectangle-2",
                    4.6,
                    grid,
                    rect,
                    a,
                    b,
                    f"{_DEADLY}, so {cell_name(r1)} or {cell_name(r2)} is {digits_text(extra)}",
                    eliminations,
                )


def unique_rectangle_3(grid: CandidateGrid, missing_candidates: bool = True) -> Iterator[Step]:
    """Two corners on one side hold only a and b; the other two have extra digits that, with
    other cells of a unit they share, make a naked subset: the unit's other cells lose it."""
    cands = grid.cands
    for rect, a, b, extras in _empty_rectangles(grid, missing_candidates):
        for floor, roof in _SIDES:
            if extras[floor[0]] or extras[floor[1]] or not extras[roof[0]] or not extras[roof[1]]:
                continue
            extra = extras[roof[0]] | extras[roof[1]]
            if BIT_COUNT[extra] > 4:  # with three more cells, a naked quad at most
                continue
            r1, r2 = rect[roof[0]], rect[roof[1]]
            # a subset whose cells lie in both units the roof shares (its line and its box)
            # holds in both: one step, as the solving tools give it
            subsets: dict[tuple[tuple[int, ...], int], tuple[set[tuple[int, int]], list[int]]] = {}
            for unit in shared_units(r1, r2):
                others = [cell for cell in UNITS[unit] if cands[cell] and cell not in (r1, r2)]
                for size in range(max(1, BIT_COUNT[extra] - 1), 4):
                    for group in combinations(others, size):
                        union = extra
                        for cell in group:
                            union |= cands[cell]
                        if BIT_COUNT[union] != size + 1:
                            continue
                        pattern = 1 << r1 | 1 << r2
                        for cell in group:
                            pattern |= 1 << cell
                        eliminations = eliminations_of(grid, union, UNIT_SETS[unit] & ~pattern)
                        if eliminations:
                            removed, units = subsets.setdefault((group, union), (set(), []))
                            removed.update(eliminations)
                            units.append(unit)
            for (group, union), (removed, units) in subsets.items():
                size = len(group)
                yield _ur_step(
                    "unique-rectangle-3",
                    round(4.6 + 0.1 * size, 1),
                    grid,
                    rect,
                    a,
                    b,
                    f"{_DEADLY}, so {cell_name(r1)} or {cell_name(r2)} holds "
                    f"{either_digit(extra)}: with {cells_text(group)} that makes "
                    f"{size + 1} cells of {' and of '.join(unit_name(u) for u in units)} for the "
                    f"{size + 1} digits {digits_text(union)}",
                    tuple(sorted(removed)),
                    tuple(units),
                )


def unique_rectangle_4(grid: CandidateGrid, missing_candidates: bool = True) -> Iterator[Step]:
    """Two corners on one side hold only a and b, and a unit shared by the other two has no
    other place for a: those two take a and one other digit, so neither is b."""
    digit_cells = grid.digit_cells
    for rect, a, b, extras in _empty_rectangles(grid, missing_candidates):
        for floor, roof in _SIDES:
            if extras[floor[0]] or extras[floor[1]]:
                continue
            r1, r2 = rect[roof[0]], rect[roof[1]]
            pattern = 1 << r1 | 1 << r2
            for kept, lost in ((a, b), (b, a)):
                eliminations = eliminations_of(grid, 1 << (lost - 1), pattern)
                if not eliminations:
                    continue
                for unit in shared_units(r1, r2):
                    if digit_cells[kept] & UNIT_SETS[unit] == pattern:
                        yield _ur_step(
                            "unique-rectangle-4",
                            4.6,
                            grid,
                            rect,
                            a,
                            b,
                            f"{unit_name(unit)} has its {kept} only in {cell_name(r1)} and "
                            f"{cell_name(r2)}, so {lost} in either would {_COMPLETE}",
                            eliminations,
                            (unit,),
                            then="so",
                        )
                        break


def unique_rectangle_5(grid: CandidateGrid, missing_candidates: bool = True) -> Iterator[Step]:
    """One corner, or two diagonal ones, hold only a and b; the others a, b and the same one
    more digit c: one of those is c, so cells seeing all of them cannot be c."""
    for rect, a, b, extras in _empty_rectangles(grid, missing_candidates):
        bivalue = [i for i in range(4) if not extras[i]]
        roof = [i for i in range(4) if extras[i]]
        if len(bivalue) == 2 and bivalue[0] + bivalue[1] != 3:
            continue
        if len(bivalue) not in (1, 2):
            continue
        extra = extras[roof[0]]
        if BIT_COUNT[extra] != 1 or any(extras[i] != extra for i in roof):
            continue
        zone = -1
        for i in roof:
            zone &= PEER_SETS[rect[i]]
        eliminations = eliminations_of(grid, extra, zone)
        if eliminations:
            roof_cells = [rect[i] for i in roof]
            yield _ur_step(
                "unique-rectangle-5",
                4.6,
                grid,
                rect,
                a,
                b,
                f"{_DEADLY}, so one of {cells_text(roof_cells)} is {digits_text(extra)}",
                eliminations,
            )


def unique_rectangle_6(grid: CandidateGrid, missing_candidates: bool = True) -> Iterator[Step]:
    """Two diagonal corners hold only a and b, and both rows (or both columns) have no other
    place for a: a in either other corner would force the deadly pattern."""
    digit_cells = grid.digit_cells
    for rect, a, b, extras in _empty_rectangles(grid, missing_candidates):
        for floor, roof in _DIAGONALS:
            if extras[floor[0]] or extras[floor[1]] or not extras[roof[0]] or not (extras[roof[1]]):
                continue
            r1, r2 = rect[roof[0]], rect[roof[1]]
            for digit in (a, b):
                places = digit_cells[digit]
                rows = (ROW_SETS[rect[0] // 9], ROW_SETS[rect[2] // 9])
                cols = (COL_SETS[rect[0] % 9], COL_SETS[rect[1] % 9])
                rect_set = sum(1 << cell for cell in rect)
                for lines, word in ((rows, "rows"), (cols, "columns")):
                    if all(places & line == rect_set & line for line in lines):
                        first, second = (
                            (rect[0] // 9, rect[2] // 9)
                            if word == "rows"
                            else (rect[0] % 9, rect[1] % 9)
                        )
                        yield _ur_step(
                            "unique-rectangle-6",
                            4.6,
                            grid,
                            rect,
                            a,
                            b,
                            f"{word} {first + 1} and {second + 1} have their {digit}s only "
                            f"in these cells, so {digit} in {cell_name(r1)} or {cell_name(r2)} "
                            f"would make both of them {digit} and {_COMPLETE}",
                            ((r1, digit), (r2, digit)),
                            then="so",
                        )
                        break


def hidden_rectangle(grid: CandidateGrid, missing_candidates: bool = True) -> Iterator[Step]:
    """A corner holds only a and b, and the opposite corner's row and column have no other
    place for a than the rectangle: that corner cannot be b."""
    digit_cells = grid.digit_cells
    for rect, a, b, extras in _empty_rectangles(grid, missing_candidates):
        for corner in range(4):
            if extras[corner]:
                continue
            far = rect[_OPPOSITE[corner]]
            rect_set = sum(1 << cell for cell in rect)
            row, col = ROW_SETS[far // 9], COL_SETS[far % 9]
            for kept, lost in ((a, b), (b, a)):
                if not grid.cands[far] >> (lost - 1) & 1:
                    continue
                if digit_cells[kept] & row == rect_set & row and (
                    digit_cells[kept] & col == rect_set & col
                ):
                    yield _ur_step(
                        "hidden-rectangle",
                        4.6,
                        grid,
                        rect,
                        a,
                        b,
                        f"{cell_name(rect[corner])} holds only {a} and {b}, and row "
                        f"{far // 9 + 1} and column {far % 9 + 1} have their {kept}s only in "
                        f"the rectangle, so {lost} in {cell_name(far)} would force the other "
                        f"corners and {_COMPLETE}",
                        ((far, lost),),
                        then="so",
                    )


def _placed_while_solving(grid: CandidateGrid) -> int:
    """The cell set of the digits placed after the givens."""
    filled = 0
    for cell, value in enumerate(grid.values):
        if value:
            filled |= 1 << cell
    return filled & ~grid.givens


def avoidable_rectangle_1(grid: CandidateGrid) -> Iterator[Step]:
    """Three corners hold digits placed while solving, x opposite the empty corner and y in
    the other two: the empty corner cannot be x."""
    values, cands = grid.values, grid.cands
    solved = _placed_while_solving(grid)
    if solved.bit_count() < 3:
        return
    for rect, rect_set in zip(RECTANGLES, RECTANGLE_SETS, strict=True):
        left = rect_set & ~solved
        if not left or left & (left - 1) or (rect_set & solved).bit_count() != 3:
            continue
        cell = left.bit_length() - 1
        corner = rect.index(cell)
        x = values[rect[_OPPOSITE[corner]]]
        y = values[rect[corner ^ 1]]
        if (
            values[cell]
            or y != values[rect[corner ^ 2]]
            or y == x
            or not cands[cell] >> (x - 1) & 1
        ):
            continue
        yield Step(
            technique="avoidable-rectangle-1",
            rating=4.5,
            explanation=f"{_placed_text(values, (c for c in rect if c != cell))} were placed "
            f"while solving (they are not givens); {x} in {cell_name(cell)} would let {x} and "
            f"{y} swap in the four cells for a second solution, so {cell_name(cell)} cannot be "
            f"{x}.",
            eliminations=((cell, x),),
            cells=rect,
            candidates=((cell, x),),
        )


def avoidable_rectangle_2(grid: CandidateGrid) -> Iterator[Step]:
    """Two corners on one side hold x and y placed while solving; the other two hold y or z
    and x or z (the corner beside x holds y): one of those is z, so cells seeing both cannot
    be z."""
    values, cands = grid.values, grid.cands
    solved = _placed_while_solving(grid)
    if solved.bit_count() < 2:
        return
    bivalue = [cell for cell in range(81) if BIT_COUNT[cands[cell]] == 2]
    for k, r1 in enumerate(bivalue):
        for r2 in bivalue[k + 1 :]:
            extra = cands[r1] & cands[r2]
            if BIT_COUNT[extra] != 1:
                continue
            y = (cands[r1] & ~extra).bit_length()
            x = (cands[r2] & ~extra).bit_length()
            if r1 // 9 == r2 // 9:
                floors = [(row * 9 + r1 % 9, row * 9 + r2 % 9) for row in range(9)]
            elif r1 % 9 == r2 % 9:
                floors = [(r1 // 9 * 9 + col, r2 // 9 * 9 + col) for col in range(9)]
            else:
                continue
            for f1, f2 in floors:
                if values[f1] != x or values[f2] != y or not solved >> f1 & solved >> f2 & 1:
                    continue
                if len({BOX[f1], BOX[f2], BOX[r1], BOX[r2]}) != 2:
                    continue
                eliminations = eliminations_of(grid, extra, PEER_SETS[r1] & PEER_SETS[r2])
                if not eliminations:
                    continue
                z = extra.bit_length()
                yield Step(
                    technique="avoidable-rectangle-2",
                    rating=4.6,
                    explanation=f"{cell_name(f1)}={x} and {cell_name(f2)}={y} were placed while "
                    f"solving; {cell_name(r1)} is {y} or {z} and {cell_name(r2)} {x} or {z}, and "
                    f"without {z} the four cells could swap {x} and {y} for a second solution, "
                    f"so one of them is {z} and {eliminated_text(eliminations)}.",
                    eliminations=eliminations,
                    cells=tuple(sorted((f1, f2, r1, r2))),
                    candidates=((r1, y), (r1, z), (r2, x), (r2, z)),
                )


def bug_plus_1(grid: CandidateGrid) -> Iterator[Step]:
    """Every empty cell holds two candidates but one that holds three, and without one of its
    digits every unit would have each candidate twice (a bivalue universal grave, which has
    no or several solutions): that digit is the cell's."""
    cands = grid.cands
    odd = -1
    for cell in range(81):
        count = BIT_COUNT[cands[cell]]
        if count == 1 or count > 3 or (count == 3 and odd >= 0):
            return
        if count == 3:
            odd = cell
    if odd < 0:
        return
    digit_cells = grid.digit_cells
    row, col, box = UNIT_SETS[odd // 9], UNIT_SETS[9 + odd % 9], UNIT_SETS[18 + BOX[odd]]
    for d in range(9):
        if not cands[odd] >> d & 1:
            continue
        digit = d + 1
        if not all((digit_cells[digit] & unit).bit_count() == 3 for unit in (row, col, box)):
            continue
        if not _grave_without(grid, odd, digit):
            continue
        yield Step(
            technique="bug-plus-1",
            rating=5.6,
            explanation=f"Every empty cell but {cell_name(odd)} holds two candidates; without "
            f"its {digit} every unit would have each candidate exactly twice, a pattern with no "
            f"single solution, so {cell_name(odd)} is {digit}.",
            placements=((odd, digit),),
            cells=(odd,),
            candidates=tuple((odd, e + 1) for e in range(9) if cands[odd] >> e & 1),
        )
        return


def _grave_without(grid: CandidateGrid, cell: int, digit: int) -> bool:
    """True when removing `digit` from `cell` leaves every digit in every unit at zero or two
    places."""
    for d in range(1, 10):
        places = grid.digit_cells[d]
        if d == digit:
            places &= ~(1 << cell)
        for unit in UNIT_SETS:
            if (places & unit).bit_count() not in (0, 2):
                return False
    return True


WITH_MISSING_CANDIDATES = frozenset(
    {
        "unique-rectangle-1",
        "unique-rectangle-2",
        "unique-rectangle-3",
        "unique-rectangle-4",
        "unique-rectangle-5",
        "unique-rectangle-6",
        "hidden-rectangle",
    }
)
"""The techniques that also take rectangles a corner of which lost one of its two digits; their
finders leave those out with `missing_candidates=False`."""

TECHNIQUES = [
    Technique("unique-rectangle-1", 4.5, unique_rectangle_1),
    Technique("avoidable-rectangle-1", 4.5, avoidable_rectangle_1),
    Technique("unique-rectangle-2", 4.6, unique_rectangle_2),
    Technique("unique-rectangle-4", 4.6, unique_rectangle_4),
    Technique("unique-rectangle-5", 4.6, unique_rectangle_5),
    Technique("unique-rectangle-6", 4.6, unique_rectangle_6),
    Technique("hidden-rectangle", 4.6, hidden_rectangle),
    Technique("avoidable-rectangle-2", 4.6, avoidable_rectangle_2),
    Technique("unique-rectangle-3", 4.7, unique_rectangle_3),
    Technique("bug-plus-1", 5.6, bug_plus_1),
]


def _placed_text(values: list[int], cells: Iterable[int]) -> str:
    """Cells with the digits placed in them, as placements are written: "r4c5=8, r6c5=1 and
    r6c7=8"."""
    return spell(f"{cell_name(cell)}={values[cell]}" for cell in cells)
