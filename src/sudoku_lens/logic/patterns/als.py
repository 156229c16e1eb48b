"""Almost locked sets (ALS): N cells of one unit holding N + 1 candidates between them.

Take one digit out of an ALS and the rest is locked: its N cells then hold its N other digits.
Two ALS share a restricted common candidate (RCC) x when every x of one sees every x of the other:
at most one of them holds x, so the other is locked.

- als-xz: ALS A and B with an RCC x; any other digit z of both is in A or B, so a cell that sees
  every z of A and of B cannot be z.
- als-xy-wing: A and B each share an RCC with a pivot C (different digits): z of A and B as above
  (A and B may share cells: whichever is locked holds z).
- als-xy-chain: a chain of ALS, each sharing an RCC with the next (consecutive RCCs differ): z of
  the two ends (not the RCC at either end) as above.
- death-blossom: a stem cell whose every candidate d sees all the d of its own ALS (a petal); all
  petals hold z besides their d: whatever the stem holds, one petal is locked and holds z (the
  petals may share cells, for the same reason).
- sue-de-coq: the cells of a box-line intersection with two or more candidates more than cells,
  completed by a set of cells from the rest of the line and one from the rest of the box with
  no digit in common: together they hold each of their digits once, which clears the rest of the
  line and of the box. Sets of up to 2 cells are looked at first, then of up to 3.

Ratings follow the equivalent chains (an ALS node counts like a strong link in Sudoku Explainer's
length bonus); the ALS of a state are gathered once and shared by the techniques. Each technique
looks first among the ALS of up to MAX_CELLS cells, then, when asked for more, among all.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import combinations

from sudoku_lens.logic._scan import als_chains, bivalue_wings
from sudoku_lens.logic.catalog import Technique
from sudoku_lens.logic.patterns._common import (
    cells_text,
    cells_with_digits,
    digits_text,
    eliminated_text,
    spell,
)
from sudoku_lens.logic.patterns._kept import kept, state_key
from sudoku_lens.logic.patterns.chains import SEGMENTS, length_bonus
from sudoku_lens.logic.state import CandidateGrid
from sudoku_lens.logic.step import Step
from sudoku_lens.logic.units import (
    BIT_COUNT,
    PEER_SETS,
    UNIT_SETS,
    UNITS,
    cells_of,
    digits_of,
    unit_name,
)

MAX_CELLS = 4
"""Largest ALS looked at first: the ALS techniques search these, and only when they find nothing
all ALS (up to LARGEST_CELLS), which cost much more to gather and link."""
LARGEST_CELLS = 8
"""Largest ALS there can be: a unit's empty cells hold exactly their own count of digits, so an
ALS leaves at least one of them out."""
MAX_STEM = 4
"""Most candidates of a death blossom's stem cell (one petal each)."""
CHAIN_SETS = 7
"""Most ALS in an ALS-XY-chain (ALS of any size, sets that are not next to each other may share
cells, as in HoDoKu): all 15 of HoDoKu's ALS-XY-chain cases (6 sets find 13), in 0.07 s on the
hardest state of 150 top1465 paths, as 6 sets take, the walk being cut where no end is in
reach."""


@dataclass(frozen=True, eq=False)
class Als:
    """An almost locked set."""

    cells: int
    mask: int
    unit: int
    holders: tuple[int, ...]
    """For each digit (index 0 unused), the ALS cells holding it."""
    seers: tuple[int, ...]
    """For each digit, the cells that see every ALS cell holding it."""
    size: int
    """The number of cells."""

    def name(self) -> str:
        """The set and its candidates, as HoDoKu writes them: "r23c8 {148}"."""
        return cells_with_digits(cells_of(self.cells), self.mask)


def gather(grid: CandidateGrid, max_cells: int = MAX_CELLS) -> list[Als]:
    """Every ALS of up to `max_cells` cells (single bivalue cells included), smallest first."""
    found: dict[int, Als] = {}
    cands = grid.cands
    for unit, unit_cells in enumerate(UNITS):
        for als in _unit_als(unit, tuple(cands[cell] for cell in unit_cells), max_cells):
            if als.cells not in found:
                found[als.cells] = als
    return sorted(found.values(), key=lambda a: (a.size, a.cells))


UNIT_CACHE = 256
"""Units whose ALS are remembered (`_unit_als`): a step changes the candidates of a few units,
so the states along a path share most of theirs."""


@functools.lru_cache(maxsize=UNIT_CACHE)
def _unit_als(unit: int, unit_cands: tuple[int, ...], max_cells: int) -> tuple[Als, ...]:
    """The ALS of up to `max_cells` cells of `unit`, whose cells hold `unit_cands`: they depend
    on those candidates alone (what each ALS digit's cells see too), so they are remembered."""
    limit = max_cells + 1
    places = [0] * 10
    # the subsets of the unit's usable cells, built up one cell at a time; one with more than
    # max_cells cells or max_cells + 1 digits never grows into an ALS, so is dropped
    subsets = [(0, 0, 0)]
    for cell, mask in zip(UNITS[unit], unit_cands, strict=True):
        for d in digits_of(mask):
            places[d] |= 1 << cell
        if mask and BIT_COUNT[mask] <= limit:
            bit = 1 << cell
            subsets += [
                (m | mask, c | bit, n + 1)
                for m, c, n in subsets
                if n < max_cells and BIT_COUNT[m | mask] <= limit
            ]
    return tuple(
        _make(places, unit, cells, mask)
        for mask, cells, size in subsets
        if size and BIT_COUNT[mask] == size + 1
    )


def _make(places: list[int], unit: int, cells: int, mask: int) -> Als:
    """The ALS of `cells` (in `unit`, holding the digits of `mask`), where `places[d]` holds
    at least the cells of the ALS that hold d (a unit's, or the grid's `digit_cells`)."""
    holders = [0] * 10
    seers = [0] * 10
    for d in digits_of(mask):
        holding = cells & places[d]
        seen = -1
        for cell in cells_of(holding):
            seen &= PEER_SETS[cell]
        holders[d] = holding
        seers[d] = seen & ~cells
    return Als(cells, mask, unit, tuple(holders), tuple(seers), cells.bit_count())


@dataclass
class _Index:
    """The ALS of a state and their RCCs (computed once per state)."""

    grid: CandidateGrid
    sets: list[Als]
    links: dict[int, list[tuple[int, int]]]
    """For ALS i, (j, x): ALS j shares the RCC x with it."""


def _index(grid: CandidateGrid, max_cells: int) -> _Index:
    store = kept("als", state_key(grid))
    if max_cells not in store:
        sets = gather(grid, max_cells)
        links: dict[int, list[tuple[int, int]]] = {i: [] for i in range(len(sets))}
        digit_cells = grid.digit_cells
        for x in range(1, 10):
            # The ALS holding x, grouped by their cells holding it; each group is linked once.
            groups: dict[int, list[tuple[int, int]]] = {}
            for i, als in enumerate(sets):
                if als.mask >> (x - 1) & 1:
                    groups.setdefault(als.holders[x], []).append((i, als.cells))
            by_first: dict[int, list[tuple[int, list[tuple[int, int]]]]] = {}
            for holders, members in groups.items():
                by_first.setdefault((holders & -holders).bit_length() - 1, []).append(
                    (holders, members)
                )
            for holders, members in groups.items():
                reach = -1
                for cell in cells_of(holders):
                    reach &= PEER_SETS[cell]
                linked = [
                    others
                    for first in cells_of(reach & digit_cells[x])
                    for other, others in by_first.get(first, ())
                    if not other & ~reach
                ]
                for i, own in members:
                    mine = links[i]
                    for others in linked:
                        mine.extend((j, x) for j, cells in others if not cells & own)
        store[max_cells] = _Index(grid, sets, links)
    return store[max_cells]  # type: ignore[return-value]


Done = set[tuple[tuple[int, int], ...]]
"""The eliminations of the instances a technique has given, so none is given twice."""


def _first_time(eliminations: list[tuple[int, int]], done: Done) -> bool:
    """True when `eliminations` are not empty and were not given before; notes them in `done`."""
    key = tuple(eliminations)
    if not key or key in done:
        return False
    done.add(key)
    return True


Search = Callable[[CandidateGrid, _Index, Done, int], Iterator[Step]]
"""A technique's search over the ALS of an index; it skips the combinations whose ALS all have
at most the given number of cells (searched before) and adds what it gives to `Done`."""


def _small_then_all(search: Search) -> Callable[[CandidateGrid], Iterator[Step]]:
    """A technique that runs `search` on the ALS of up to MAX_CELLS cells, then on the
    combinations that take in a larger one (up to LARGEST_CELLS), never giving the same
    eliminations twice: the first instance costs the small search alone when there is one."""

    def technique(grid: CandidateGrid) -> Iterator[Step]:
        done: Done = set()
        yield from search(grid, _index(grid, MAX_CELLS), done, 0)
        yield from search(grid, _index(grid, LARGEST_CELLS), done, MAX_CELLS)

    technique.__name__ = technique.__qualname__ = search.__name__.lstrip("_")
    technique.__doc__ = search.__doc__
    return technique


def _targets(grid: CandidateGrid, z: int, group: list[Als]) -> int:
    """Cells outside `group` that see every z of every ALS in it and still hold z."""
    seen = grid.digit_cells[z]
    for als in group:
        seen &= als.seers[z]
        seen &= ~als.cells
    return seen


def _eliminations(
    grid: CandidateGrid, ends: list[Als], excluded: set[int]
) -> list[tuple[int, int]]:
    common = ends[0].mask
    for als in ends[1:]:
        common &= als.mask
    found = []
    for z in digits_of(common):
        if z in excluded:
            continue
        found.extend((cell, z) for cell in cells_of(_targets(grid, z, ends)))
    return sorted(found)


def _step(
    technique: str,
    rating: float,
    explanation: str,
    eliminations: list[tuple[int, int]],
    group: list[Als],
    extra_cells: tuple[int, ...] = (),
) -> Step:
    cells = list(extra_cells)
    for als in group:
        cells.extend(cells_of(als.cells))
    return Step(
        technique=technique,
        rating=rating,
        explanation=explanation,
        eliminations=tuple(eliminations),
        cells=tuple(dict.fromkeys(cells)),
        candidates=tuple(
            (cell, d)
            for als in group
            for cell in cells_of(als.cells)
            for d in digits_of(_cell_mask(als, cell))
        ),
        units=tuple(dict.fromkeys(als.unit for als in group)),
    )


def _cell_mask(als: Als, cell: int) -> int:
    """The candidates of an ALS cell (from its holders)."""
    return sum(1 << (d - 1) for d in range(1, 10) if als.holders[d] >> cell & 1)


def _als_xz(grid: CandidateGrid, index: _Index, done: Done, covered: int) -> Iterator[Step]:
    """Two ALS with a restricted common candidate x: a common z is in one of them; smallest
    pairs first. Two ALS with two restricted common candidates (doubly linked) hold one each,
    so both are locked on their other digits as well."""
    sets = index.sets
    shared: dict[tuple[int, int], list[int]] = {}
    for i, links in index.links.items():
        for j, x in links:
            if i < j:
                shared.setdefault((i, j), []).append(x)
    pairs = sorted(
        (sets[i].size + sets[j].size, i, j, tuple(sorted(rccs)))
        for (i, j), rccs in shared.items()
        if (len(rccs) == 2 or BIT_COUNT[sets[i].mask & sets[j].mask] > 1)
        and max(sets[i].size, sets[j].size) > covered
    )
    for total, i, j, rccs in pairs:
        a, b = sets[i], sets[j]
        for eliminations, why in _xz_deductions(grid, a, b, rccs):
            if not _first_time(eliminations, done):
                continue
            yield _step(
                "als-xz",
                round(7.0 + length_bonus(2 * total), 1),
                f"The almost locked sets {a.name()} and {b.name()} {why}: "
                f"{eliminated_text(tuple(eliminations))}.",
                eliminations,
                [a, b],
            )


def _xz_deductions(
    grid: CandidateGrid, a: Als, b: Als, rccs: tuple[int, ...]
) -> Iterator[tuple[list[tuple[int, int]], str]]:
    """(eliminations, why) of two ALS sharing the restricted common candidates `rccs`: one
    doubly linked deduction for two of them, else one per candidate."""
    if len(rccs) == 2:
        x, z = rccs
        yield (
            _doubly_linked(grid, a, b, rccs),
            (
                f"cannot both hold {x}, nor both {z} (every {x} of one sees every {x} of the "
                f"other, and the same for {z}), so each holds one of the two and is locked on the "
                "rest of its digits"
            ),
        )
        return
    for x in rccs:
        eliminations = _eliminations(grid, [a, b], {x})
        zs = sorted({z for _, z in eliminations})
        each = f"{zs[0]} is" if len(zs) == 1 else f"{spell(map(str, zs))} are each"
        yield (
            eliminations,
            (
                f"cannot both hold {x} (every {x} of one sees every {x} of the other), so one of "
                f"them is locked and {each} in one of the two"
            ),
        )


def _doubly_linked(
    grid: CandidateGrid, a: Als, b: Als, rccs: tuple[int, ...]
) -> list[tuple[int, int]]:
    """What two ALS sharing the restricted common candidates `rccs` prove: each of those is in
    one of them (cells seeing all of it in both lose it), and every other digit of each ALS is
    in it (cells seeing all of that digit in the ALS lose it)."""
    digit_cells = grid.digit_cells
    found = set()
    for x in rccs:
        found.update((cell, x) for cell in cells_of(_targets(grid, x, [a, b])))
    for als in (a, b):
        for d in digits_of(als.mask):
            if d not in rccs:
                found.update((cell, d) for cell in cells_of(als.seers[d] & digit_cells[d]))
    return sorted(found)


def _als_xy_wing(grid: CandidateGrid, index: _Index, done: Done, covered: int) -> Iterator[Step]:
    """ALS A and B linked to a pivot ALS C by different RCCs: a z common to A and B is in one;
    smallest wings first."""
    sets = index.sets
    wings = sorted(
        (sets[i].size + sets[j].size + sets[c].size, c, i, x, j, y)
        for c, links in index.links.items()
        for (i, x), (j, y) in combinations(links, 2)
        if x != y
        and i != j
        and (sets[i].mask & sets[j].mask) & ~(1 << (x - 1)) & ~(1 << (y - 1))
        and max(sets[i].size, sets[j].size, sets[c].size) > covered
    )
    for total, c, i, x, j, y in wings:
        pivot, a, b = sets[c], sets[i], sets[j]
        eliminations = _eliminations(grid, [a, b], {x, y})
        if not _first_time(eliminations, done):
            continue
        yield _step(
            "als-xy-wing",
            round(7.2 + length_bonus(2 * total), 1),
            _xy_wing_text(pivot, a, b, x, y, eliminations),
            eliminations,
            [a, b, pivot],
        )


def _xy_wing_text(
    pivot: Als, a: Als, b: Als, x: int, y: int, eliminations: list[tuple[int, int]]
) -> str:
    """An ALS-XY-wing in words, each link of the argument named."""
    z = digits_text(sum(1 << (digit - 1) for _, digit in eliminations))
    targets = sorted({cell for cell, _ in eliminations})
    see = "sees" if len(targets) == 1 else "see"
    return (
        f"The pivot {pivot.name()} keeps {x} or {y} (an almost locked set loses one digit at "
        f"most). If it holds {x}, {a.name()} cannot (its {x}s see the pivot's), so it is locked "
        f"and keeps its {z}; if it holds {y}, {b.name()} keeps its {z} the same way. Either way "
        f"one of the two sets keeps its {z}, and {cells_text(targets)} {see} every {z} of "
        f"both: {eliminated_text(tuple(eliminations))}."
    )


def _als_xy_chain(grid: CandidateGrid, index: _Index, done: Done, covered: int) -> Iterator[Step]:
    """A chain of four to CHAIN_SETS ALS, each sharing an RCC with the next (consecutive RCCs
    differ, no ALS twice, sets that are not next to each other may share cells): a z of both
    ends other than the end RCCs is in one of the ends; shortest and smallest first. (Two ALS
    are an ALS-XZ, three an ALS-XY-wing.) The chains are walked in C (`_scan.als_chains`)."""
    sets = index.sets
    chains = als_chains(
        [(als.cells, als.mask, als.seers) for als in sets],
        [index.links[i] for i in range(len(sets))],
        grid.digit_cells,
        covered,
        CHAIN_SETS,
    )
    found = []
    for path, rccs, eliminations in chains:
        if _first_time(eliminations, done):
            total = sum(sets[n].size for n in path)
            found.append((len(path), total, path, rccs, eliminations))
    found.sort(key=lambda item: item[:2])
    for _, _, path, rccs, eliminations in found:
        yield _chain_step(index, path, rccs, eliminations)


def _chain_step(
    index: _Index,
    path: tuple[int, ...],
    rccs: tuple[int, ...],
    eliminations: list[tuple[int, int]],
) -> Step:
    group = [index.sets[i] for i in path]
    links = "".join(f"{group[k].name()} -{rccs[k]}- " for k in range(len(rccs))) + group[-1].name()
    total = sum(a.size for a in group)
    return _step(
        "als-xy-chain",
        round(7.4 + length_bonus(2 * total), 1),
        f"In the chain of almost locked sets {links} each shares the marked digit with the next, "
        f"so if the first is not locked the last is: one of the ends is locked, and "
        f"{eliminated_text(tuple(eliminations))}.",
        eliminations,
        group,
    )


def _death_blossom(grid: CandidateGrid, index: _Index, done: Done, covered: int) -> Iterator[Step]:
    """A stem cell with an ALS (petal) for each of its candidates d whose every d sees the stem:
    a digit z of every petal is in the petal the stem's digit locks."""
    for stem in range(81):
        mask = grid.cands[stem]
        if not 2 <= BIT_COUNT[mask] <= MAX_STEM:
            continue
        digits = digits_of(mask)
        petals: dict[int, list[Als]] = {}
        for d in digits:
            petals[d] = [
                als
                for als in index.sets
                if als.holders[d]
                and not als.cells >> stem & 1
                and not als.holders[d] & ~PEER_SETS[stem]
            ]
        yield from _blossoms(grid, stem, digits, petals, done, covered)


def _blossoms(
    grid: CandidateGrid,
    stem: int,
    digits: tuple[int, ...],
    petals: dict[int, list[Als]],
    done: Done,
    covered: int,
) -> Iterator[Step]:
    def extend(k: int, chosen: list[Als], common: int) -> Iterator[list[Als]]:
        if k == len(digits):
            yield chosen
            return
        d = digits[k]
        for als in petals[d]:
            left = common & als.mask & ~(1 << (d - 1))
            if left:
                yield from extend(k + 1, [*chosen, als], left)

    for chosen in extend(0, [], 0x1FF):
        if max(als.size for als in chosen) <= covered:
            continue
        common = 0x1FF
        for d, als in zip(digits, chosen, strict=True):
            common &= als.mask & ~(1 << (d - 1))
        eliminations = []
        for z in digits_of(common):
            targets = _targets(grid, z, chosen) & ~(1 << stem)
            if grid.cands[stem] >> (z - 1) & 1:
                targets &= PEER_SETS[stem]
            eliminations.extend((cell, z) for cell in cells_of(targets))
        eliminations.sort()
        if not _first_time(eliminations, done):
            continue
        total = 1 + sum(a.size for a in chosen)
        petals_said = ", ".join(f"{d}: {als.name()}" for d, als in zip(digits, chosen, strict=True))
        yield _step(
            "death-blossom",
            round(7.6 + length_bonus(2 * total), 1),
            f"Whatever the stem {cells_with_digits((stem,), grid.cands[stem])} holds, the petal "
            f"of that digit ({petals_said}) loses it and is locked, so it holds every other digit "
            f"it has, including {spell(str(z) for z in sorted({z for _, z in eliminations}))}: "
            f"{eliminated_text(tuple(eliminations))}.",
            eliminations,
            list(chosen),
            (stem,),
        )


SMALL_HELPERS = 2
"""Cells in the line's and the box's helper sets that a sue de coq is first looked for with."""
LARGEST_HELPERS = 3
"""Cells a helper set may have when none is found with small ones (HoDoKu's cases need 3)."""


def sue_de_coq(grid: CandidateGrid) -> Iterator[Step]:
    """A box-line intersection completed by disjoint digit sets from the rest of its line and
    box: the rest of the line and of the box lose those digits. Helper sets of up to
    SMALL_HELPERS cells are looked at first, then those where one has up to LARGEST_HELPERS."""
    yield from _sue_de_coq(grid, SMALL_HELPERS, 0)
    yield from _sue_de_coq(grid, LARGEST_HELPERS, SMALL_HELPERS)


def _sue_de_coq(grid: CandidateGrid, largest: int, smaller: int) -> Iterator[Step]:
    """Sue de coqs whose helper sets have up to `largest` cells, one of them more than
    `smaller`."""
    cands = grid.cands
    for box, line, segment in SEGMENTS:
        inside = [c for c in cells_of(segment) if cands[c]]
        if len(inside) < 2:
            continue
        line_rest = [c for c in cells_of(UNIT_SETS[line] & ~segment) if cands[c]]
        box_rest = [c for c in cells_of(UNIT_SETS[box] & ~segment) if cands[c]]
        if smaller and max(len(line_rest), len(box_rest)) <= smaller:
            continue
        line_subsets = _subsets(cands, line_rest, largest)
        box_subsets = _subsets(cands, box_rest, largest)
        for size in (2, 3):
            for core in combinations(inside, size):
                core_mask = 0
                for cell in core:
                    core_mask |= cands[cell]
                spare = BIT_COUNT[core_mask] - size
                if spare < 2:
                    continue
                line_sets = _helpers(line_subsets, core_mask)
                if not line_sets:
                    continue
                box_sets = _helpers(box_subsets, core_mask)
                for line_cells, line_mask, line_used in line_sets:
                    for box_cells, box_mask, box_used in box_sets:
                        if line_mask & box_mask or line_used + box_used != spare:
                            continue
                        if max(len(line_cells), len(box_cells)) <= smaller:
                            continue
                        step = _sue_de_coq_step(
                            grid,
                            box,
                            line,
                            core,
                            core_mask,
                            (line_cells, line_mask),
                            (box_cells, box_mask),
                        )
                        if step is not None:
                            yield step


def _subsets(cands: list[int], cells: list[int], largest: int) -> list[tuple[tuple[int, ...], int]]:
    """The sets of 1 to `largest` of `cells` with their digits."""
    found = []
    for size in range(1, largest + 1):
        for chosen in combinations(cells, size):
            mask = 0
            for cell in chosen:
                mask |= cands[cell]
            found.append((chosen, mask))
    return found


def _helpers(
    subsets: list[tuple[tuple[int, ...], int]], core_mask: int
) -> list[tuple[tuple[int, ...], int, int]]:
    """The subsets whose digits overlap the core's: (cells, digits, how many core digits they
    take up), the take-up being their cells minus their digits from outside the core."""
    found = []
    for chosen, mask in subsets:
        shared = mask & core_mask
        if not shared:
            continue
        used = len(chosen) - BIT_COUNT[mask & ~core_mask]
        if used >= 1 and BIT_COUNT[shared] >= used:
            found.append((chosen, mask, used))
    return found


def _sue_de_coq_step(
    grid: CandidateGrid,
    box: int,
    line: int,
    core: tuple[int, ...],
    core_mask: int,
    line_part: tuple[tuple[int, ...], int],
    box_part: tuple[tuple[int, ...], int],
) -> Step | None:
    line_cells, line_mask = line_part
    box_cells, box_mask = box_part
    all_cells = set(core) | set(line_cells) | set(box_cells)
    line_digits = line_mask | (core_mask & ~box_mask)
    box_digits = box_mask | (core_mask & ~line_mask)
    eliminations = []
    for cell in cells_of(UNIT_SETS[line]):
        if cell not in all_cells:
            eliminations.extend((cell, d) for d in digits_of(grid.cands[cell] & line_digits))
    for cell in cells_of(UNIT_SETS[box]):
        if cell not in all_cells:
            eliminations.extend((cell, d) for d in digits_of(grid.cands[cell] & box_digits))
    eliminations = sorted(set(eliminations))
    if not eliminations:
        return None
    count = len(all_cells)
    return Step(
        technique="sue-de-coq",
        rating=round(7.0 + length_bonus(2 * count), 1),
        explanation=f"The {len(core)} cells {cells_with_digits(core, core_mask)} where "
        f"{unit_name(line)} crosses {unit_name(box)}, with "
        f"{cells_with_digits(line_cells, line_mask)} in the line and "
        f"{cells_with_digits(box_cells, box_mask)} in the box, which share no digit, make "
        f"{count} cells for {count} digits, each exactly once: "
        f"{eliminated_text(tuple(eliminations))}.",
        eliminations=tuple(eliminations),
        cells=tuple(sorted(all_cells)),
        candidates=tuple(
            (cell, d) for cell in sorted(all_cells) for d in digits_of(grid.cands[cell])
        ),
        units=(line, box),
    )


def _bivalue_wing(grid: CandidateGrid, wing_cells: int, name: str, base: float) -> Iterator[Step]:
    """ALS-XZ between a bivalue cell and an ALS of `wing_cells` cells: Sudoku Explainer's
    (Sukaku Explainer's) WXYZ-Wing (3 cells) and VWXYZ-Wing (4 cells), rated as it rates them:
    `base` plus 0.1 for each step the largest cell's candidate count is nearer the middle of 2
    and the wing's digit count (the middle size is the hardest to spot). Easiest first, then
    by the ALS's cells, the bivalue cell and x. The search is `_scan.bivalue_wings`, in C: it
    runs on most states of a rating path, and finds nothing on most."""
    cands = grid.cands
    digits = wing_cells + 1
    middle = (digits + 2) // 2
    found = sorted(
        (round(base + (digits - middle - abs(middle - largest)) * 0.1, 1), cells, cell, x, z, t, u)
        for largest, cells, u, cell, x, z, t in bivalue_wings(cands, wing_cells)
    )
    done: Done = set()
    for rating, cells, cell, x, z, targets, unit in found:
        eliminations = [(target, z) for target in cells_of(targets)]
        if not _first_time(eliminations, done):
            continue
        mask = 0
        for member in cells_of(cells):
            mask |= cands[member]
        wing = _make(grid.digit_cells, unit, cells, mask)
        pair = _make(grid.digit_cells, unit, 1 << cell, cands[cell])
        yield _step(
            name,
            rating,
            f"The cell {pair.name()} and the {wing.size} cells {wing.name()} cannot both hold "
            f"{x}, so one of them is locked and {z} is in one of the two: "
            f"{eliminated_text(tuple(eliminations))}.",
            eliminations,
            [wing, pair],
        )


def wxyz_wing(grid: CandidateGrid) -> Iterator[Step]:
    """A bivalue cell and a 3-cell ALS of 4 digits sharing a restricted common digit (5.5-5.6
    in Sukaku Explainer). Not in `TECHNIQUES` (it is an ALS-XZ there); the rating uses it."""
    return _bivalue_wing(grid, 3, "wxyz-wing", 5.5)


def vwxyz_wing(grid: CandidateGrid) -> Iterator[Step]:
    """A bivalue cell and a 4-cell ALS of 5 digits sharing a restricted common digit (6.2-6.4
    in Sukaku Explainer). Not in `TECHNIQUES`; the rating uses it."""
    return _bivalue_wing(grid, 4, "vwxyz-wing", 6.2)


als_xz = _small_then_all(_als_xz)
als_xy_wing = _small_then_all(_als_xy_wing)
als_xy_chain = _small_then_all(_als_xy_chain)
death_blossom = _small_then_all(_death_blossom)

TECHNIQUES = [
    Technique("sue-de-coq", 7.0, sue_de_coq),
    Technique("als-xz", 7.0, als_xz),
    Technique("als-xy-wing", 7.2, als_xy_wing),
    Technique("als-xy-chain", 7.4, als_xy_chain),
    Technique("death-blossom", 7.6, death_blossom),
]
