"""Almost locked sets (ALS): N cells of one unit holding N + 1 candidates between them.

Take one digit out of an ALS and the rest is locked: its N cells then hold its N other digits.
Two ALS share a restricted common candidate (RCC) x when every x of one sees every x of the other:
at most one of them holds x, so the other is locked.

- als-xz: ALS A and B with an RCC x; any other digit z of both is in A or B, so a cell that sees
  every z of A and of B cannot be z.
- als-xy-wing: A and B each share an RCC with a pivot C (different digits): z of A and B as above.
- als-xy-chain: a chain of ALS, each sharing an RCC with the next (consecutive RCCs differ): z of
  the two ends (not the RCC at either end) as above.
- death-blossom: a stem cell whose every candidate d sees all the d of its own ALS (a petal); all
  petals hold z besides their d: whatever the stem holds, one petal is locked and holds z.
- sue-de-coq: the cells of a box-line intersection with two or more candidates more than cells,
  completed by a set of cells from the rest of the line and one from the rest of the box with
  no digit in common: together they hold each of their digits once, which clears the rest of the
  line and of the box.

Ratings follow the equivalent chains (an ALS node counts like a strong link in Sudoku Explainer's
length bonus); the ALS of a state are gathered once and shared by the techniques.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from itertools import combinations

from sudoku_lens.logic.catalog import Technique
from sudoku_lens.logic.patterns._kept import kept, state_key
from sudoku_lens.logic.patterns.chains import SEGMENTS, length_bonus
from sudoku_lens.logic.state import CandidateGrid
from sudoku_lens.logic.step import Step
from sudoku_lens.logic.units import BIT_COUNT, PEER_SETS, UNIT_SETS, UNITS, cell_name, digits_of

MAX_CELLS = 4
"""Largest ALS gathered: bigger ones rarely matter before forcing chains, and cost much."""
MAX_STEM = 4
"""Most candidates of a death blossom's stem cell (one petal each, of up to MAX_CELLS cells)."""
MIDDLE_CELLS = 2
"""Largest ALS in the middle of an ALS-XY-chain (the ends may be as large as any), which keeps
its search in bounds."""


def _cells(bits: int) -> Iterator[int]:
    while bits:
        low = bits & -bits
        yield low.bit_length() - 1
        bits ^= low


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

    @property
    def size(self) -> int:
        return self.cells.bit_count()

    def name(self) -> str:
        cells = ", ".join(cell_name(c) for c in _cells(self.cells))
        digits = "".join(str(d) for d in digits_of(self.mask))
        return f"{{{cells}}} ({digits})"


def gather(grid: CandidateGrid) -> list[Als]:
    """Every ALS of up to MAX_CELLS cells (single bivalue cells included), smallest first."""
    found: dict[int, Als] = {}
    cands = grid.cands
    limit = MAX_CELLS + 1

    def grow(unit: int, empty: list[int], start: int, cells: int, mask: int, size: int) -> None:
        if size and BIT_COUNT[mask] == size + 1 and cells not in found:
            found[cells] = _make(cands, unit, cells, mask)
        if size == MAX_CELLS:
            return
        for k in range(start, len(empty)):
            cell = empty[k]
            more = mask | cands[cell]
            if BIT_COUNT[more] <= limit:
                grow(unit, empty, k + 1, cells | 1 << cell, more, size + 1)

    for unit, unit_cells in enumerate(UNITS):
        empty = [c for c in unit_cells if cands[c] and BIT_COUNT[cands[c]] <= limit]
        grow(unit, empty, 0, 0, 0, 0)
    return sorted(found.values(), key=lambda a: (a.size, a.cells))


def _make(cands: list[int], unit: int, cells: int, mask: int) -> Als:
    holders = [0] * 10
    seers = [0] * 10
    for d in digits_of(mask):
        bit = 1 << (d - 1)
        holding = 0
        seen = -1
        for cell in _cells(cells):
            if cands[cell] & bit:
                holding |= 1 << cell
                seen &= PEER_SETS[cell]
        holders[d] = holding
        seers[d] = seen & ~cells
    return Als(cells, mask, unit, tuple(holders), tuple(seers))


@dataclass
class _Index:
    """The ALS of a state and their RCCs (computed once per state)."""

    grid: CandidateGrid
    sets: list[Als]
    links: dict[int, list[tuple[int, int]]]
    """For ALS i, (j, x): ALS j shares the RCC x with it."""


def _index(grid: CandidateGrid) -> _Index:
    store = kept("als", state_key(grid))
    if "index" not in store:
        sets = gather(grid)
        # For each digit and cell: the ALS whose first cell holding the digit is that cell,
        # grouped by all their cells holding it.
        by_first: list[dict[int, dict[int, list[tuple[int, int]]]]] = [{} for _ in range(10)]
        for i, als in enumerate(sets):
            for d in digits_of(als.mask):
                holders = als.holders[d]
                first = (holders & -holders).bit_length() - 1
                groups = by_first[d].setdefault(first, {})
                groups.setdefault(holders, []).append((i, als.cells))
        links: dict[int, list[tuple[int, int]]] = {i: [] for i in range(len(sets))}
        digit_cells = grid.digit_cells
        for i, a in enumerate(sets):
            mine = links[i]
            own = a.cells
            for x in digits_of(a.mask):
                reach = a.seers[x]
                starts = by_first[x]
                for first in _cells(reach & digit_cells[x]):
                    for holders, members in starts.get(first, {}).items():
                        if not holders & ~reach:
                            mine.extend((j, x) for j, cells in members if not cells & own)
        store["index"] = _Index(grid, sets, links)
    return store["index"]  # type: ignore[return-value]


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
        found.extend((cell, z) for cell in _cells(_targets(grid, z, ends)))
    return sorted(found)


def _said(eliminations: list[tuple[int, int]]) -> str:
    parts: dict[int, list[str]] = {}
    for cell, digit in eliminations:
        parts.setdefault(digit, []).append(cell_name(cell))
    return "; ".join(
        f"{' and '.join(names) if len(names) < 3 else ', '.join(names)} cannot be {digit}"
        for digit, names in parts.items()
    )


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
        cells.extend(_cells(als.cells))
    return Step(
        technique=technique,
        rating=rating,
        explanation=explanation,
        eliminations=tuple(eliminations),
        cells=tuple(dict.fromkeys(cells)),
        candidates=tuple(
            (cell, d)
            for als in group
            for cell in _cells(als.cells)
            for d in digits_of(_cell_mask(als, cell))
        ),
        units=tuple(dict.fromkeys(als.unit for als in group)),
    )


def _cell_mask(als: Als, cell: int) -> int:
    """The candidates of an ALS cell (from its holders)."""
    return sum(1 << (d - 1) for d in range(1, 10) if als.holders[d] >> cell & 1)


def als_xz(grid: CandidateGrid) -> Iterator[Step]:
    """Two ALS with a restricted common candidate x: a common z is in one of them; smallest
    pairs first. Two ALS with two restricted common candidates (doubly linked) hold one each,
    so both are locked on their other digits as well."""
    index = _index(grid)
    sets = index.sets
    shared: dict[tuple[int, int], list[int]] = {}
    for i, links in index.links.items():
        for j, x in links:
            if i < j:
                shared.setdefault((i, j), []).append(x)
    pairs = sorted(
        (sets[i].size + sets[j].size, i, j, tuple(sorted(rccs)))
        for (i, j), rccs in shared.items()
        if len(rccs) == 2 or BIT_COUNT[sets[i].mask & sets[j].mask] > 1
    )
    done: set[tuple[tuple[int, int], ...]] = set()
    for total, i, j, rccs in pairs:
        a, b = sets[i], sets[j]
        for eliminations, why in _xz_deductions(grid, a, b, rccs):
            key = tuple(eliminations)
            if not eliminations or key in done:
                continue
            done.add(key)
            yield _step(
                "als-xz",
                round(7.0 + length_bonus(2 * total), 1),
                f"The almost locked sets {a.name()} and {b.name()} {why}: {_said(eliminations)}.",
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
        yield (
            eliminations,
            (
                f"cannot both hold {x} (every {x} of one sees every {x} of the other), so one of "
                f"them is locked and {'/'.join(map(str, zs))} is in one of the two"
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
        found.update((cell, x) for cell in _cells(_targets(grid, x, [a, b])))
    for als in (a, b):
        for d in digits_of(als.mask):
            if d not in rccs:
                found.update((cell, d) for cell in _cells(als.seers[d] & digit_cells[d]))
    return sorted(found)


def als_xy_wing(grid: CandidateGrid) -> Iterator[Step]:
    """ALS A and B linked to a pivot ALS C by different RCCs: a z common to A and B is in one;
    smallest wings first."""
    index = _index(grid)
    sets = index.sets
    wings = sorted(
        (sets[i].size + sets[j].size + sets[c].size, c, i, x, j, y)
        for c, links in index.links.items()
        for (i, x), (j, y) in combinations(links, 2)
        if x != y
        and i != j
        and not sets[i].cells & sets[j].cells
        and (sets[i].mask & sets[j].mask) & ~(1 << (x - 1)) & ~(1 << (y - 1))
    )
    done: set[tuple[tuple[int, int], ...]] = set()
    for total, c, i, x, j, y in wings:
        pivot, a, b = sets[c], sets[i], sets[j]
        eliminations = _eliminations(grid, [a, b], {x, y})
        key = tuple(eliminations)
        if not eliminations or key in done:
            continue
        done.add(key)
        yield _step(
            "als-xy-wing",
            round(7.2 + length_bonus(2 * total), 1),
            f"The pivot {pivot.name()} holds at most one of {x} and {y}; {a.name()} shares {x} "
            f"with it and {b.name()} shares {y}, so one of those two is locked and holds every "
            f"digit it has but one: {_said(eliminations)}.",
            eliminations,
            [a, b, pivot],
        )


def als_xy_chain(grid: CandidateGrid) -> Iterator[Step]:
    """A chain of four ALS, each sharing an RCC with the next (consecutive RCCs differ): a z of
    both ends other than the end RCCs is in one of the ends. (Two ALS are an ALS-XZ, three an
    ALS-XY-wing; longer chains are left to forcing chains, as their search costs much.)"""
    index = _index(grid)
    sets = index.sets
    links = index.links
    useful = []
    for als in sets:
        mask = 0
        for z in digits_of(als.mask):
            if grid.digit_cells[z] & als.seers[z]:
                mask |= 1 << (z - 1)
        useful.append(mask)
    done: set[tuple[tuple[int, int], ...]] = set()
    found = []
    for i, first in enumerate(sets):
        if not useful[i]:
            continue
        for j, x1 in links[i]:
            if sets[j].size > MIDDLE_CELLS:
                continue
            used_j = first.cells | sets[j].cells
            for k, x2 in links[j]:
                if x2 == x1 or sets[k].size > MIDDLE_CELLS or sets[k].cells & used_j:
                    continue
                used_k = used_j | sets[k].cells
                for last, x3 in links[k]:
                    if last <= i or x3 == x2 or sets[last].cells & used_k:
                        continue
                    zs = useful[i] & useful[last] & ~(1 << (x1 - 1)) & ~(1 << (x3 - 1))
                    if not zs:
                        continue
                    eliminations = _eliminations(grid, [first, sets[last]], {x1, x3})
                    key = tuple(eliminations)
                    if eliminations and key not in done:
                        done.add(key)
                        path = [i, j, k, last]
                        total = sum(sets[n].size for n in path)
                        found.append((total, path, [x1, x2, x3], eliminations))
    found.sort(key=lambda item: item[0])
    for _, path, rccs, eliminations in found:
        yield _chain_step(index, path, rccs, eliminations)


def _chain_step(
    index: _Index,
    path: list[int],
    rccs: list[int],
    eliminations: list[tuple[int, int]],
) -> Step:
    group = [index.sets[i] for i in path]
    links = (
        ", ".join(f"{group[k].name()} -{rccs[k]}- " for k in range(len(rccs))) + group[-1].name()
    )
    total = sum(a.size for a in group)
    return _step(
        "als-xy-chain",
        round(7.4 + length_bonus(2 * total), 1),
        f"In the chain of almost locked sets {links} each shares the marked digit with the next, "
        f"so if the first is not locked the last is: one of the ends is locked, and "
        f"{_said(eliminations)}.",
        eliminations,
        group,
    )


def death_blossom(grid: CandidateGrid) -> Iterator[Step]:
    """A stem cell with an ALS (petal) for each of its candidates d whose every d sees the stem:
    a digit z of every petal is in the petal the stem's digit locks."""
    index = _index(grid)
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
        yield from _blossoms(grid, stem, digits, petals)


def _blossoms(
    grid: CandidateGrid, stem: int, digits: list[int], petals: dict[int, list[Als]]
) -> Iterator[Step]:
    def extend(k: int, chosen: list[Als], common: int, used: int) -> Iterator[list[Als]]:
        if k == len(digits):
            yield chosen
            return
        d = digits[k]
        for als in petals[d]:
            left = common & als.mask & ~(1 << (d - 1))
            if left and not als.cells & used:
                yield from extend(k + 1, [*chosen, als], left, used | als.cells)

    done: set[tuple[tuple[int, int], ...]] = set()
    for chosen in extend(0, [], 0x1FF, 1 << stem):
        common = 0x1FF
        for d, als in zip(digits, chosen, strict=True):
            common &= als.mask & ~(1 << (d - 1))
        eliminations = []
        for z in digits_of(common):
            targets = _targets(grid, z, chosen) & ~(1 << stem)
            if grid.cands[stem] >> (z - 1) & 1:
                targets &= PEER_SETS[stem]
            eliminations.extend((cell, z) for cell in _cells(targets))
        key = tuple(sorted(eliminations))
        if not eliminations or key in done:
            continue
        done.add(key)
        total = 1 + sum(a.size for a in chosen)
        petals_said = ", ".join(f"{d}: {als.name()}" for d, als in zip(digits, chosen, strict=True))
        yield _step(
            "death-blossom",
            round(7.6 + length_bonus(2 * total), 1),
            f"Whatever the stem {cell_name(stem)} holds, the petal of that digit ({petals_said}) "
            f"loses it and is locked, so it holds every other digit it has, including "
            f"{'/'.join(str(z) for z in sorted({z for _, z in eliminations}))}: "
            f"{_said(sorted(eliminations))}.",
            sorted(eliminations),
            list(chosen),
            (stem,),
        )


def sue_de_coq(grid: CandidateGrid) -> Iterator[Step]:
    """A box-line intersection completed by disjoint digit sets from the rest of its line and
    box: the rest of the line and of the box lose those digits."""
    cands = grid.cands
    for box, line, segment in SEGMENTS:
        inside = [c for c in _cells(segment) if cands[c]]
        if len(inside) < 2:
            continue
        line_subsets = _subsets(cands, [c for c in _cells(UNIT_SETS[line] & ~segment) if cands[c]])
        box_subsets = _subsets(cands, [c for c in _cells(UNIT_SETS[box] & ~segment) if cands[c]])
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


def _subsets(cands: list[int], cells: list[int]) -> list[tuple[tuple[int, ...], int]]:
    """The sets of one or two of `cells` with their digits (larger helpers are rare and make
    the search much slower)."""
    found = []
    for size in (1, 2):
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
    for cell in _cells(UNIT_SETS[line]):
        if cell not in all_cells:
            eliminations.extend((cell, d) for d in digits_of(grid.cands[cell] & line_digits))
    for cell in _cells(UNIT_SETS[box]):
        if cell not in all_cells:
            eliminations.extend((cell, d) for d in digits_of(grid.cands[cell] & box_digits))
    eliminations = sorted(set(eliminations))
    if not eliminations:
        return None
    names = lambda cells: ", ".join(cell_name(c) for c in cells)  # noqa: E731
    digits = lambda mask: "".join(map(str, digits_of(mask)))  # noqa: E731
    count = len(all_cells)
    return Step(
        technique="sue-de-coq",
        rating=round(7.0 + length_bonus(2 * count), 1),
        explanation=f"The {len(core)} cells {names(core)} hold {digits(core_mask)}; with "
        f"{names(line_cells)} ({digits(line_mask)}) in the line and {names(box_cells)} "
        f"({digits(box_mask)}) in the box, which share no digit, these {count} cells hold "
        f"{count} digits, each exactly once: {_said(eliminations)}.",
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
    and the wing's digit count (the middle size is the hardest to spot). Easiest first. Only
    the ALS are gathered (cached per state), not their links, which keeps it lean."""
    store = kept("als-wings", state_key(grid))
    if "sets" not in store:
        store["sets"] = gather(grid)
    cands = grid.cands
    digit_cells = grid.digit_cells
    digits = wing_cells + 1
    middle = (digits + 2) // 2
    found = []
    for wing in store["sets"]:  # type: ignore[attr-defined]
        if wing.size != wing_cells:
            continue
        largest = max(BIT_COUNT[cands[c]] for c in _cells(wing.cells))
        rating = round(base + (digits - middle - abs(middle - largest)) * 0.1, 1)
        for x in digits_of(wing.mask):
            for cell in _cells(wing.seers[x] & digit_cells[x]):
                pair = cands[cell]
                if BIT_COUNT[pair] != 2 or pair & ~wing.mask:
                    continue
                z = digits_of(pair & ~(1 << (x - 1)))[0]
                targets = digit_cells[z] & wing.seers[z] & PEER_SETS[cell]
                if targets:
                    found.append((rating, wing.cells, cell, x, z, targets, wing))
    found.sort(key=lambda item: item[:3])
    done: set[tuple[tuple[int, int], ...]] = set()
    for rating, _, cell, x, z, targets, wing in found:
        eliminations = [(target, z) for target in _cells(targets)]
        key = tuple(eliminations)
        if key in done:
            continue
        done.add(key)
        pair = _make(cands, wing.unit, 1 << cell, cands[cell])
        yield _step(
            name,
            rating,
            f"The cell {pair.name()} and the {wing.size} cells {wing.name()} cannot both hold "
            f"{x}, so one of them is locked and {z} is in one of the two: "
            f"{_said(eliminations)}.",
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


TECHNIQUES = [
    Technique("sue-de-coq", 7.0, sue_de_coq),
    Technique("als-xz", 7.0, als_xz),
    Technique("als-xy-wing", 7.2, als_xy_wing),
    Technique("als-xy-chain", 7.4, als_xy_chain),
    Technique("death-blossom", 7.6, death_blossom),
]
