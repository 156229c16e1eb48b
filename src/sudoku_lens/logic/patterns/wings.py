"""Wings: short patterns of cells with two or three candidates (XY-Wing, XYZ-Wing, W-Wing) and
remote pairs."""

from __future__ import annotations

from collections.abc import Iterator

from sudoku_lens.logic.catalog import Technique
from sudoku_lens.logic.patterns._common import (
    candidates_of,
    cells_text,
    chain_rating,
    either,
    eliminated_text,
    eliminations_of,
)
from sudoku_lens.logic.patterns.single_digit import strong_links
from sudoku_lens.logic.state import CandidateGrid
from sudoku_lens.logic.step import Link, Step
from sudoku_lens.logic.units import BIT_COUNT, PEER_SETS, cells_of, unit_name
from sudoku_lens.puzzle.text import cell_name

_W_WING_RATING = chain_rating(7.0, 6)
"""A W-Wing is an alternating chain through two bivalue cells and a strong link: Sudoku
Explainer rates chains mixing both kinds of link from 7.0."""


def _bivalue_cells(grid: CandidateGrid) -> int:
    cands = grid.cands
    found = 0
    for cell in range(81):
        if BIT_COUNT[cands[cell]] == 2:
            found |= 1 << cell
    return found


def xy_wing(grid: CandidateGrid) -> Iterator[Step]:
    """A pivot with candidates xy seeing pincers xz and yz: one pincer is z, so a cell seeing
    both pincers cannot be z."""
    cands = grid.cands
    bivalue = _bivalue_cells(grid)
    for pivot in cells_of(bivalue):
        pivot_mask = cands[pivot]
        wings = [
            cell
            for cell in cells_of(bivalue & PEER_SETS[pivot])
            if BIT_COUNT[cands[cell] & pivot_mask] == 1
        ]
        for i, a in enumerate(wings):
            mask_a = cands[a]
            for b in wings[i + 1 :]:
                mask_b = cands[b]
                z = mask_a & mask_b
                if (
                    BIT_COUNT[z] != 1
                    or z & pivot_mask
                    or (mask_a | mask_b) & pivot_mask != (pivot_mask)
                ):
                    continue
                digit = z.bit_length()
                removed = grid.digit_cells[digit] & PEER_SETS[a] & PEER_SETS[b]
                if not removed:
                    continue
                eliminations = tuple((cell, digit) for cell in cells_of(removed))
                x, y = (mask_a & pivot_mask).bit_length(), (mask_b & pivot_mask).bit_length()
                first, second = sorted(((x, a), (y, b)))
                yield Step(
                    technique="xy-wing",
                    rating=4.2,
                    explanation=f"{cell_name(pivot)} is {first[0]} or {second[0]}: if "
                    f"{first[0]}, {cell_name(first[1])} is {digit}; if {second[0]}, "
                    f"{cell_name(second[1])} is {digit}; "
                    f"{_seeing(removed, (first[1], second[1]))}, so "
                    f"{eliminated_text(eliminations)}.",
                    eliminations=eliminations,
                    cells=(pivot, a, b),
                    candidates=candidates_of(grid, (pivot, a, b)),
                    links=(
                        Link((a, digit), (a, x), True),
                        Link((a, x), (pivot, x), False),
                        Link((pivot, x), (pivot, y), True),
                        Link((pivot, y), (b, y), False),
                        Link((b, y), (b, digit), True),
                    ),
                )


def xyz_wing(grid: CandidateGrid) -> Iterator[Step]:
    """A pivot with candidates xyz seeing pincers xz and yz: one of the three is z, so a cell
    seeing all three cannot be z."""
    cands = grid.cands
    bivalue = _bivalue_cells(grid)
    for pivot in range(81):
        pivot_mask = cands[pivot]
        if BIT_COUNT[pivot_mask] != 3:
            continue
        wings = [
            cell for cell in cells_of(bivalue & PEER_SETS[pivot]) if cands[cell] & ~pivot_mask == 0
        ]
        for i, a in enumerate(wings):
            for b in wings[i + 1 :]:
                z = cands[a] & cands[b]
                if BIT_COUNT[z] != 1 or cands[a] | cands[b] != pivot_mask:
                    continue
                digit = z.bit_length()
                removed = grid.digit_cells[digit] & PEER_SETS[pivot] & PEER_SETS[a] & PEER_SETS[b]
                if not removed:
                    continue
                eliminations = tuple((cell, digit) for cell in cells_of(removed))
                yield Step(
                    technique="xyz-wing",
                    rating=4.4,
                    explanation=f"{cell_name(pivot)} is {either_digit(pivot_mask)}, "
                    f"{cell_name(a)} {either_digit(cands[a])} and {cell_name(b)} "
                    f"{either_digit(cands[b])}, so one of the three is {digit}; "
                    f"{_seeing(removed, (pivot, a, b))}, so {eliminated_text(eliminations)}.",
                    eliminations=eliminations,
                    cells=(pivot, a, b),
                    candidates=candidates_of(grid, (pivot, a, b)),
                )


def w_wing(grid: CandidateGrid) -> Iterator[Step]:
    """Two cells with the same candidates xy that do not see each other, joined by a strong
    link on x (each end seeing one of them): one of the two cells is y."""
    cands = grid.cands
    bivalue = list(cells_of(_bivalue_cells(grid)))
    links_of: dict[int, list[tuple[int, int, int]]] = {}
    for i, c1 in enumerate(bivalue):
        mask = cands[c1]
        for c2 in bivalue[i + 1 :]:
            if cands[c2] != mask or PEER_SETS[c1] >> c2 & 1:
                continue
            both = PEER_SETS[c1] & PEER_SETS[c2]
            for x, y in (_pair(mask), _pair(mask)[::-1]):
                removed = grid.digit_cells[y] & both
                if not removed:
                    continue
                if x not in links_of:
                    links_of[x] = strong_links(grid, x)
                for s1, s2, unit in links_of[x]:
                    for e1, e2 in ((s1, s2), (s2, s1)):
                        if e1 in (c1, c2) or e2 in (c1, c2):
                            continue
                        if not (PEER_SETS[c1] >> e1 & 1 and PEER_SETS[c2] >> e2 & 1):
                            continue
                        eliminations = tuple((cell, y) for cell in cells_of(removed))
                        yield Step(
                            technique="w-wing",
                            rating=_W_WING_RATING,
                            explanation=f"{cell_name(c1)} and {cell_name(c2)} are both "
                            f"{x} or {y}, and {unit_name(unit)} has its {x} in "
                            f"{cell_name(e1)} or {cell_name(e2)}: they cannot both be {x}, "
                            f"so one is {y} and {eliminated_text(eliminations)}.",
                            eliminations=eliminations,
                            cells=(c1, e1, e2, c2),
                            candidates=((c1, x), (c1, y), (e1, x), (e2, x), (c2, x), (c2, y)),
                            units=(unit,),
                            links=(
                                Link((c1, y), (c1, x), True),
                                Link((c1, x), (e1, x), False),
                                Link((e1, x), (e2, x), True),
                                Link((e2, x), (c2, x), False),
                                Link((c2, x), (c2, y), True),
                            ),
                        )
                        break
                    else:
                        continue
                    break


def either_digit(mask: int) -> str:
    """The digits of a mask as alternatives: "1, 2 or 3"."""
    return either(str(d + 1) for d in range(9) if mask >> d & 1)


def _pair(mask: int) -> tuple[int, int]:
    low = mask & -mask
    return low.bit_length(), (mask ^ low).bit_length()


def remote_pair(grid: CandidateGrid) -> Iterator[Step]:
    """A chain of four or more cells with the same two candidates, each seeing the next: the
    cells alternate between the two digits, so a cell seeing two cells an odd number of steps
    apart can hold neither."""
    cands = grid.cands
    bivalue = _bivalue_cells(grid)
    done = 0
    found: list[tuple[int, Step]] = []
    for start in cells_of(bivalue):
        if done >> start & 1:
            continue
        mask = cands[start]
        same = 0
        for cell in cells_of(bivalue):
            if cands[cell] == mask:
                same |= 1 << cell
        component = _component(start, same)
        for cell in component:
            done |= 1 << cell
        if len(component) < 4:
            continue
        found.extend(_remote_pair_steps(grid, mask, component, same))
    found.sort(key=lambda item: item[0])
    for _, step in found:
        yield step


def _component(start: int, same: int) -> list[int]:
    """The cells reachable from `start` through cells of `same` that see each other."""
    seen = 1 << start
    order = [start]
    for cell in order:
        fresh = PEER_SETS[cell] & same & ~seen
        seen |= fresh
        order.extend(cells_of(fresh))
    return order


def _remote_pair_steps(
    grid: CandidateGrid, mask: int, component: list[int], same: int
) -> list[tuple[int, Step]]:
    """One step per pair of chain ends an odd number (three or more) of steps apart that
    removes something new, shortest chains first."""
    members = sum(1 << cell for cell in component)
    steps: list[tuple[int, Step]] = []
    removed_so_far: set[tuple[int, int]] = set()
    paths = []
    for start in component:
        parents = {start: start}
        order = [start]
        for cell in order:
            for peer in cells_of(PEER_SETS[cell] & same & members):
                if peer not in parents:
                    parents[peer] = cell
                    order.append(peer)
        for end in order:
            if end <= start:
                continue
            path = [end]
            while path[-1] != start:
                path.append(parents[path[-1]])
            if len(path) >= 4 and len(path) % 2 == 0:
                paths.append(path[::-1])
    paths.sort(key=len)
    for path in paths:
        zone = PEER_SETS[path[0]] & PEER_SETS[path[-1]] & ~members
        eliminations = tuple(
            e for e in eliminations_of(grid, mask, zone) if e not in removed_so_far
        )
        if not eliminations:
            continue
        removed_so_far.update(eliminations)
        x, y = _pair(mask)
        links = []
        digit = x
        for a, b in zip(path, path[1:], strict=False):
            other = y if digit == x else x
            links.append(Link((a, digit), (a, other), True))
            links.append(Link((a, other), (b, other), False))
            digit = other
        links.append(Link((path[-1], digit), (path[-1], y if digit == x else x), True))
        steps.append(
            (
                len(path),
                Step(
                    technique="remote-pair",
                    rating=chain_rating(6.6, 2 * len(path)),
                    explanation=f"{cells_text(path)} each hold {x} or {y} and each sees the next, "
                    f"so they alternate and {cell_name(path[0])} or {cell_name(path[-1])} is {x}, "
                    f"the other {y}: {eliminated_text(eliminations)}.",
                    eliminations=eliminations,
                    cells=tuple(path),
                    candidates=tuple((cell, d) for cell in path for d in (x, y)),
                    links=tuple(links),
                ),
            )
        )
    return steps


TECHNIQUES = [
    Technique("xy-wing", 4.2, xy_wing),
    Technique("xyz-wing", 4.4, xyz_wing),
    Technique("remote-pair", chain_rating(6.6, 8), remote_pair),
    Technique("w-wing", _W_WING_RATING, w_wing),
]


def _seeing(removed: int, cells: tuple[int, ...]) -> str:
    """ "r5c5 sees r5c7 and r6c5", "r1c1 and r1c2 see all three": the targets and what they
    see."""
    targets = list(cells_of(removed))
    verb = "sees" if len(targets) == 1 else "see"
    seen = cells_text(cells) if len(cells) == 2 else "all three"
    return f"{cells_text(targets)} {verb} {seen}"
