"""The unit scans in C (`sudoku_lens.logic._scan`) against their definitions, written here in
plain Python over every combination, on generated candidate grids: same patterns, same order
(the order decides which step a person is shown first, and the rating path)."""

from __future__ import annotations

from itertools import combinations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from sudoku_lens.logic._scan import (
    als_chains,
    bivalue_wings,
    claimings,
    empty_rectangles,
    full_houses,
    hidden_singles,
    locked_groups,
    narrow_groups,
    pointings,
    strong_links,
    subset_groups,
    two_link_chains,
)
from sudoku_lens.logic.units import BOX, COL, PEERS, ROW, UNITS

_MASK = st.one_of(
    st.sets(st.integers(1, 9), max_size=4).map(lambda ds: sum(1 << d - 1 for d in ds)),
    st.integers(0, 0x1FF),
)
_GRIDS = st.lists(_MASK, min_size=81, max_size=81)


def _bits(mask: int) -> int:
    return bin(mask).count("1")


def _subsets_by_definition(cands: list[int], size: int) -> list[tuple]:
    found = []
    for unit, cells in enumerate(UNITS):
        empty = [cell for cell in cells if cands[cell]]
        if len(empty) <= max(2, size):
            continue
        small = [cell for cell in cells if 2 <= _bits(cands[cell]) <= size]
        for group in combinations(small, size):
            digits = 0
            for cell in group:
                digits |= cands[cell]
            others = [cell for cell in cells if cell not in group]
            if _bits(digits) == size and any(cands[cell] & digits for cell in others):
                found.append((False, unit, group, digits))
        places = {
            digit: [cell for cell in cells if cands[cell] >> (digit - 1) & 1]
            for digit in range(1, 10)
        }
        few = [digit for digit in range(1, 10) if 2 <= len(places[digit]) <= size]
        for group in combinations(few, size):
            where = sorted({cell for digit in group for cell in places[digit]})
            mask = sum(1 << (digit - 1) for digit in group)
            if len(where) == size and any(cands[cell] & ~mask for cell in where):
                found.append((True, unit, group, sum(1 << cell for cell in where)))
    return found


@settings(max_examples=60, deadline=None)
@given(_GRIDS, st.integers(2, 4))
def test_subsets_are_those_of_the_definition(cands: list[int], size: int) -> None:
    assert subset_groups(cands, size) == _subsets_by_definition(cands, size)


def _places(cands: list[int], unit: int, digit: int) -> list[int]:
    return [cell for cell in UNITS[unit] if cands[cell] >> (digit - 1) & 1]


@settings(max_examples=60, deadline=None)
@given(_GRIDS, st.lists(st.integers(0, 9), min_size=81, max_size=81))
def test_singles_are_those_of_the_definition(cands: list[int], values: list[int]) -> None:
    hidden = [
        (unit, places[0], digit)
        for unit in [*range(18, 27), *range(18)]
        for digit in range(1, 10)
        if len(places := _places(cands, unit, digit)) == 1
    ]
    assert hidden_singles(cands) == hidden
    houses = []
    for unit, cells in enumerate(UNITS):
        empty = [cell for cell in cells if not values[cell]]
        if len(empty) == 1 and _bits(cands[empty[0]]) == 1:
            houses.append((unit, empty[0], cands[empty[0]].bit_length()))
    assert full_houses(values, cands) == houses


@settings(max_examples=60, deadline=None)
@given(_GRIDS)
def test_pointing_and_claiming_are_those_of_the_definition(cands: list[int]) -> None:
    pointing, claiming = [], []
    for box in range(18, 27):
        for digit in range(1, 10):
            places = _places(cands, box, digit)
            lines = {ROW[c] for c in places}, {9 + COL[c] for c in places}
            for line in (ln.pop() for ln in lines if len(ln) == 1 and len(places) >= 2):
                if set(_places(cands, line, digit)) - set(UNITS[box]):
                    pointing.append((box, line, digit))
    for line in range(18):
        for digit in range(1, 10):
            places = _places(cands, line, digit)
            boxes = {18 + BOX[c] for c in places}
            if len(places) >= 2 and len(boxes) == 1:
                box = boxes.pop()
                if set(_places(cands, box, digit)) - set(UNITS[line]):
                    claiming.append((line, box, digit))
    assert pointings(cands) == pointing
    assert claimings(cands) == claiming


@settings(max_examples=60, deadline=None)
@given(_GRIDS, st.integers(2, 3))
@example([0b11] * 3 + [0b111] * 78, 3)  # three cells of two digits between them: no triple
def test_locked_sets_are_those_of_the_definition(cands: list[int], size: int) -> None:
    expected = []
    for box in range(9):
        lines = [box // 3 * 3 + i for i in range(3)] + [9 + box % 3 * 3 + i for i in range(3)]
        for line in lines:
            shared = [cell for cell in UNITS[line] if BOX[cell] == box]
            empty = [cell for cell in shared if _bits(cands[cell]) >= 2]
            for group in combinations(empty, size):
                digits = 0
                for cell in group:
                    digits |= cands[cell]
                zone = (set(UNITS[18 + box]) | set(UNITS[line])) - set(group)
                if _bits(digits) == size and any(cands[cell] & digits for cell in zone):
                    expected.append((18 + box, line, group, digits))
    assert locked_groups(cands, size) == expected


def _wings_by_definition(cands: list[int], size: int) -> list[tuple]:
    found = []
    bivalue = [cell for cell in range(81) if _bits(cands[cell]) == 2]
    for unit, cells in enumerate(UNITS):
        usable = [cell for cell in cells if 1 <= _bits(cands[cell]) <= size + 1]
        for group in combinations(usable, size):
            mask = 0
            for cell in group:
                mask |= cands[cell]
            in_line = len({ROW[c] for c in group}) == 1 or len({COL[c] for c in group}) == 1
            if _bits(mask) != size + 1 or (unit >= 18 and in_line):
                continue

            def seeing(digit: int, group: tuple[int, ...] = group) -> set[int]:
                holders = [c for c in group if cands[c] >> (digit - 1) & 1]
                return {
                    c for c in range(81) if c not in group and all(c in PEERS[h] for h in holders)
                }

            for x in range(1, 10):
                if not mask >> (x - 1) & 1:
                    continue
                for cell in bivalue:
                    pair = cands[cell]
                    if cell not in seeing(x) or not pair >> (x - 1) & 1 or pair & ~mask:
                        continue
                    z = (pair & ~(1 << (x - 1))).bit_length()
                    targets = [c for c in seeing(z) if cands[c] >> (z - 1) & 1 and c in PEERS[cell]]
                    if targets:
                        largest = max(_bits(cands[c]) for c in group)
                        where = sum(1 << c for c in group)
                        found.append(
                            (largest, where, unit, cell, x, z, sum(1 << c for c in targets))
                        )
    return found


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.sets(st.integers(1, 9), max_size=5), min_size=81, max_size=81), st.integers(3, 4)
)
def test_wings_are_those_of_the_definition(digit_sets: list[set[int]], size: int) -> None:
    cands = [sum(1 << d - 1 for d in digits) for digits in digit_sets]
    assert bivalue_wings(cands, size) == _wings_by_definition(cands, size)


def _links_by_definition(cands: list[int], digit: int) -> list[tuple[int, int, int]]:
    links: list[tuple[int, int, int]] = []
    for unit in range(27):
        places = _places(cands, unit, digit)
        if len(places) == 2 and not any(link[:2] == tuple(places) for link in links):
            links.append((places[0], places[1], unit))
    return links


def _shape_by_definition(a1: int, a2: int, u1: int, b1: int, b2: int, u2: int) -> int:
    kinds = (u1 // 9, u2 // 9)
    if kinds == (0, 0) and COL[a2] == COL[b1]:
        return 0 if COL[a1] == COL[b2] else 1  # both ends in line: an x-wing
    if kinds == (1, 1) and ROW[a2] == ROW[b1]:
        return 0 if ROW[a1] == ROW[b2] else 1
    if set(kinds) == {0, 1} and BOX[a2] == BOX[b1] != BOX[a1] and BOX[b2] != BOX[b1]:
        return 2
    return 3


@settings(max_examples=60, deadline=None)
@given(_GRIDS)
def test_strong_links_and_two_link_chains_are_those_of_the_definition(cands: list[int]) -> None:
    links = [[]] + [_links_by_definition(cands, digit) for digit in range(1, 10)]
    assert strong_links(cands) == links
    chains = []
    for digit in range(1, 10):
        ends = sorted({cell for link in links[digit] for cell in link[:2]})
        for k, (x, y, u1) in enumerate(links[digit]):
            for a1, a2 in ((x, y), (y, x)):
                for b1 in ends:
                    if b1 == a1 or b1 not in PEERS[a2]:
                        continue
                    for b_x, b_y, u2 in links[digit][k + 1 :]:
                        b2 = {b_x: b_y, b_y: b_x}.get(b1)
                        if b2 is None or b2 in (a1, a2):
                            continue
                        removed = [
                            c
                            for c in range(81)
                            if cands[c] >> (digit - 1) & 1
                            and c not in (a2, b1)
                            and c in PEERS[a1]
                            and c in PEERS[b2]
                        ]
                        shape = _shape_by_definition(a1, a2, u1, b1, b2, u2)
                        if removed and shape:
                            where = sum(1 << c for c in removed)
                            chains.append((shape, digit, a1, a2, u1, b1, b2, u2, where))
    assert two_link_chains(cands) == chains


@settings(max_examples=60, deadline=None)
@given(_GRIDS)
def test_empty_rectangles_are_those_of_the_definition(cands: list[int]) -> None:
    expected = []
    for digit in range(1, 10):
        links = [link for link in _links_by_definition(cands, digit) if link[2] < 18]
        for box in range(9):
            places = _places(cands, 18 + box, digit)
            for row in range(box // 3 * 3, box // 3 * 3 + 3):
                rest = [c for c in places if ROW[c] != row]
                if len(places) < 2 or not rest:
                    continue
                col = COL[rest[0]]
                if any(COL[c] != col for c in rest) or all(COL[c] == col for c in places):
                    continue
                for x, y, unit in links:
                    for p, q in ((x, y), (y, x)):
                        if box in (BOX[p], BOX[q]):
                            continue
                        if unit >= 9 and ROW[p] == row:
                            target = ROW[q] * 9 + col
                        elif unit < 9 and COL[p] == col:
                            target = row * 9 + COL[q]
                        else:
                            continue
                        if cands[target] >> (digit - 1) & 1 and BOX[target] != box:
                            expected.append((digit, box, row, col, p, q, unit, target))
    assert empty_rectangles(cands) == expected


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.integers(0, 0x1FF).filter(lambda m: 2 <= _bits(m) <= 4), max_size=9),
    st.integers(2, 4),
)
def test_narrow_groups_are_those_of_the_definition(masks: list[int], size: int) -> None:
    items = [(key, mask) for key, mask in enumerate(masks) if _bits(mask) <= size]
    expected = []
    for group in combinations(items, size):
        union = 0
        for _, mask in group:
            union |= mask
        if _bits(union) == size:
            expected.append((tuple(key for key, _ in group), union))
    assert narrow_groups(items, size) == expected


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: subset_groups([0] * 80, 2), "81 numbers"),
        (lambda: subset_groups([0] * 80 + [512], 2), "0-511"),
        (lambda: full_houses([0] * 80 + [10], [0] * 81), "values must lie in 0-9"),
        (lambda: subset_groups([0] * 81, 5), "2, 3 or 4"),
        (lambda: locked_groups([0] * 81, 4), "2 or 3"),
        (lambda: bivalue_wings([0] * 81, 2), "3 or 4"),
        (lambda: narrow_groups([(0, 512)], 2), "0-511"),
        (lambda: pointings([-1] + [0] * 80), "0-511"),
        (lambda: narrow_groups([(0, 3)] * 33, 2), "at most 32"),
        (lambda: als_chains([], [], [0] * 10, 0, 3), "most_sets must lie in 4-16"),
        (lambda: als_chains([(1, 3, (0,) * 10)], [], [0] * 10, 0, 4), "links must match"),
        (lambda: als_chains([(1 << 81, 3, (0,) * 10)], [[]], [0] * 10, 0, 4), "cell sets must lie"),
        (lambda: als_chains([(-1, 3, (0,) * 10)], [[]], [0] * 10, 0, 4), "cell sets must lie"),
        (lambda: als_chains([(1, 3, (0,) * 10)], [[(1, 2)]], [0] * 10, 0, 4), "a link is"),
        (lambda: als_chains([(1, 3, (0,) * 10)], [[(0, 10)]], [0] * 10, 0, 4), "a link is"),
    ],
)
def test_bad_arguments_are_refused(call, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call()


def _chains_by_definition(
    sets: list[tuple[int, int, tuple[int, ...]]],
    links: list[list[tuple[int, int]]],
    digit_cells: list[int],
    covered: int,
    most: int,
) -> list[tuple]:
    """ALS-XY-chains as `_scan.als_chains` documents them, depth first over every path."""
    size = [bin(cells).count("1") for cells, _, _ in sets]
    useful = [
        sum(1 << z - 1 for z in range(1, 10) if mask >> z - 1 & 1 and digit_cells[z] & seers[z])
        for _, mask, seers in sets
    ]
    found: list[tuple] = []
    seen: set[tuple] = set()

    def end(path: list[int], rccs: list[int]) -> None:
        (first, _, first_seers), (last, _, last_seers) = sets[path[0]], sets[path[-1]]
        eliminations = []
        for z in range(1, 10):
            if not (useful[path[0]] & useful[path[-1]]) >> z - 1 & 1 or z in (rccs[0], rccs[-1]):
                continue
            targets = digit_cells[z] & first_seers[z] & last_seers[z] & ~first & ~last
            eliminations += [(cell, z) for cell in range(81) if targets >> cell & 1]
        eliminations.sort()
        if eliminations and tuple(eliminations) not in seen:
            seen.add(tuple(eliminations))
            found.append((tuple(path), tuple(rccs), eliminations))

    def walk(path: list[int], rccs: list[int]) -> None:
        for nxt, x in links[path[-1]]:
            if x == rccs[-1] or nxt in path:
                continue
            chain = [*path, nxt]
            if len(chain) >= 4 and nxt > path[0] and max(size[i] for i in chain) > covered:
                end(chain, [*rccs, x])
            if len(chain) < most:
                walk(chain, [*rccs, x])

    for i, links_of_i in enumerate(links):
        if useful[i]:
            for j, x in links_of_i:
                if j != i:
                    walk([i, j], [x])
    return found


_CELL_SETS = st.integers(0, (1 << 81) - 1)


@st.composite
def _als_tables(draw: st.DrawFn) -> tuple:
    count = draw(st.integers(2, 9))
    sets = [
        (
            draw(
                st.sets(st.integers(0, 80), min_size=1, max_size=5).map(
                    lambda cs: sum(1 << c for c in cs)
                )
            ),
            draw(st.integers(1, 0x1FF)),
            (0, *draw(st.lists(_CELL_SETS, min_size=9, max_size=9))),
        )
        for _ in range(count)
    ]
    links = [
        draw(st.lists(st.tuples(st.integers(0, count - 1), st.integers(1, 9)), max_size=5))
        for _ in range(count)
    ]
    digit_cells = [0, *draw(st.lists(_CELL_SETS, min_size=9, max_size=9))]
    return sets, links, digit_cells


@settings(max_examples=80, deadline=None)
@given(_als_tables(), st.integers(0, 4), st.integers(4, 6))
def test_als_chains_are_those_of_the_definition(tables: tuple, covered: int, most: int) -> None:
    sets, links, digit_cells = tables
    expected = _chains_by_definition(sets, links, digit_cells, covered, most)
    assert als_chains(sets, links, digit_cells, covered, most) == expected


def test_als_chains_on_a_hard_state_are_those_of_the_definition() -> None:
    """The ALS and links of a real state (a hard puzzle after its first steps), where the walk
    meets sets that share cells and doubly linked pairs."""
    from sudoku_lens.logic import CandidateGrid
    from sudoku_lens.logic.patterns.als import _index
    from sudoku_lens.logic.solver import next_step

    grid = CandidateGrid.from_puzzle(
        "800000000003600000070090200050007000000045700000100030001000068008500010090000400"
    )
    walked = 0
    for _ in range(40):
        index = _index(grid, 8)
        sets = [(als.cells, als.mask, als.seers) for als in index.sets]
        links = [index.links[i] for i in range(len(sets))]
        for covered in (0, 4):
            found = als_chains(sets, links, grid.digit_cells, covered, 5)
            assert found == _chains_by_definition(sets, links, grid.digit_cells, covered, 5)
            walked += len(found)
        step = next_step(grid)
        if step is None or grid.is_solved():
            break
        grid.apply(step)
    assert walked > 0
