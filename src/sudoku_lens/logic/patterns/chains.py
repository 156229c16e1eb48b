"""Chains and loops of alternating strong and weak links between candidates.

A strong link joins two candidates of which at least one is true (the two candidates of a
bivalue cell, the two places of a digit in a unit); a weak link joins two of which at most one is
true (two digits of one cell, one digit in two cells that share a unit). An alternating inference
chain (AIC) that starts and ends with strong links proves that one of its two ends is true: any
candidate weakly linked to both ends is false. Closed into a loop, every weak link of the loop
becomes strong. Grouped chains also link the cells of one digit in a box-line intersection as one
node ("the 5 of box 1 is in r1c12"; a box whose places are a row's group and a column's makes
a strong link of the two), and pass through almost locked sets (N cells of a unit holding N + 1
digits, up to `ALS_CELLS` cells): an ALS that holds no x is locked on its other digits, so its
cells holding x and its cells holding any other digit z make a strong link. So do its cells
holding x and a candidate w of a cell outside that the locked ALS would leave alone there (a
"forced exit": the cell sees every z and z' of it, and holds w, z and z' only). A loop through
an ALS also removes the ALS's other digits from the cells that see all of that digit's cells in
it, as the ALS keeps them.

The link graph of a state is built once and searched breadth first from every start at once, level
by level, so the shortest chains come first and a search for the first step stops early. Each
technique is a filter over the chains of one graph variant:

- x-chain: one digit, strong links in units;            - xy-chain: strong links in bivalue cells;
- continuous-nice-loop, discontinuous-nice-loop, aic: every candidate and link;
- grouped-continuous-nice-loop, grouped-discontinuous-nice-loop, grouped-aic: with group nodes.

An open chain is named as HoDoKu names it: a discontinuous nice loop when it proves a placement
(its assumption refutes itself) or removes one candidate (the loop through that candidate has
its discontinuity there), an AIC when it removes two or more (both ends' digit from every cell that
sees both ends, or, with different digits at ends that see each other, each end's digit from the
other end's cell): HoDoKu keeps a loop as an AIC when the AIC gives more than one elimination.

Node numbering: candidate (cell, digit) is node `(digit - 1) * 81 + cell`, so the cell set of a
digit shifts straight into a node set; group nodes follow from 729 on.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from sudoku_lens.logic.catalog import Technique
from sudoku_lens.logic.patterns._common import (
    cells_text,
    compact_cells,
    digits_text,
    eliminated_text,
)
from sudoku_lens.logic.patterns._kept import kept, state_key
from sudoku_lens.logic.state import CandidateGrid
from sudoku_lens.logic.step import Candidate, Link, Step
from sudoku_lens.logic.units import BIT_COUNT, PEER_SETS, UNIT_SETS
from sudoku_lens.puzzle.text import cell_name

if TYPE_CHECKING:  # the ALS module imports this one
    from sudoku_lens.logic.patterns.als import Als

SINGLES = (1 << 729) - 1
"""The node set of every (cell, digit) node."""
_EVERY_DIGIT = SINGLES // ((1 << 81) - 1)
"""Times a set of cells (81 bits): those cells' candidates of every digit (729 bits)."""
DIGIT_NODES = tuple(0 if d == 0 else ((1 << 81) - 1) << (d - 1) * 81 for d in range(10))
SEGMENTS: tuple[tuple[int, int, int], ...] = tuple(
    (box, line, UNIT_SETS[box] & UNIT_SETS[line])
    for box in range(18, 27)
    for line in range(18)
    if UNIT_SETS[box] & UNIT_SETS[line]
)
"""The 54 box-line intersections: (box unit, line unit, cell set)."""
MAX_LEVEL = 10
"""Longest chain searched, in strong links (20 nodes): longer ones are left to forcing chains."""

ALS_CELLS = 5
"""Largest almost locked set a grouped chain passes through: 5 cells find three of HoDoKu's
grouped-chain cases that 4 do not; 6 find no more and cost more."""


def length_bonus(nodes: int) -> float:
    """Sudoku Explainer's rating bonus for a chain of `nodes` nodes: +0.1 each time the length
    passes 4, 6, 8, 12, 16, 24, 32, ..."""
    added = 0.0
    ceiling = 4
    length = nodes - 2
    odd = False
    while length > ceiling:
        added += 0.1
        ceiling = ceiling * 3 // 2 if not odd else ceiling * 4 // 3
        odd = not odd
    return round(added, 1)


def _bits(nodes: int) -> Iterator[int]:
    while nodes:
        low = nodes & -nodes
        yield low.bit_length() - 1
        nodes ^= low


@dataclass
class Graph:
    """The strong and weak links of one state, node sets indexed by node."""

    grid: CandidateGrid
    cell_strong: dict[int, int] = field(default_factory=dict)
    """Strong links inside bivalue cells."""
    unit_strong: dict[int, int] = field(default_factory=dict)
    """Strong links between the two places of a digit in a unit."""
    group_strong: dict[int, int] = field(default_factory=dict)
    """Strong links where one side is a group (or both)."""
    weak: dict[int, int] = field(default_factory=dict)
    """Weak links between single candidates."""
    group_weak: dict[int, int] = field(default_factory=dict)
    """Weak links that involve a group."""
    als_strong: dict[int, int] = field(default_factory=dict)
    """Strong links through an almost locked set (see `add_als_links`)."""
    als_of: dict[tuple[int, int], Als] = field(default_factory=dict)
    """The ALS (`patterns.als.Als`) behind each strong link of `als_strong`, both ways."""
    forced_of: dict[tuple[int, int], tuple[Als, int]] = field(default_factory=dict)
    """Strong links of `als_strong` between an ALS's cells holding x and a candidate outside
    it that the ALS, locked without x, leaves alone in its cell (both ways): the ALS and
    that cell."""
    groups: list[tuple[int, int]] = field(default_factory=list)
    """Group node 729 + i is (digit, cell set)."""
    groups_added: bool = False

    @classmethod
    def build(cls, grid: CandidateGrid) -> Graph:
        graph = cls(grid.copy())  # kept: the group nodes are added later, when asked for
        cands, dc = grid.cands, grid.digit_cells
        weak = graph.weak
        for cell in range(81):
            mask = cands[cell]
            if not mask:
                continue
            digits = [d for d in range(1, 10) if mask >> (d - 1) & 1]
            in_cell = 0
            for d in digits:
                in_cell |= 1 << ((d - 1) * 81 + cell)
            for d in digits:
                node = (d - 1) * 81 + cell
                weak[node] = (PEER_SETS[cell] & dc[d]) << (d - 1) * 81 | in_cell & ~(1 << node)
            if len(digits) == 2:
                a, b = ((d - 1) * 81 + cell for d in digits)
                graph.cell_strong[a] = 1 << b
                graph.cell_strong[b] = 1 << a
        for d in range(1, 10):
            shift = (d - 1) * 81
            for unit in UNIT_SETS:
                places = dc[d] & unit
                if places.bit_count() == 2:
                    low = places & -places
                    a = low.bit_length() - 1 + shift
                    b = (places ^ low).bit_length() - 1 + shift
                    graph.unit_strong[a] = graph.unit_strong.get(a, 0) | 1 << b
                    graph.unit_strong[b] = graph.unit_strong.get(b, 0) | 1 << a
        return graph

    def add_groups(self) -> None:
        """Add the group nodes and their links (only the grouped techniques need them)."""
        if self.groups_added:
            return
        self.groups_added = True
        dc = self.grid.digit_cells
        group_of: dict[int, dict[int, int]] = {d: {} for d in range(1, 10)}
        for d in range(1, 10):
            shift = (d - 1) * 81
            mine = []
            for box, line, segment in SEGMENTS:
                cells = dc[d] & segment
                if cells.bit_count() < 2:
                    continue
                node = 729 + len(self.groups)
                self.groups.append((d, cells))
                group_of[d][cells] = node
                mine.append((node, box, line, cells))
                singles = (UNIT_SETS[box] | UNIT_SETS[line]) & dc[d] & ~cells
                self.group_weak[node] = singles << shift
                for single in _bits(singles):
                    key = single + shift
                    self.group_weak[key] = self.group_weak.get(key, 0) | 1 << node
            for node, box, line, cells in mine:
                for other, box2, line2, cells2 in mine:
                    if other == node or cells & cells2 or (box != box2 and line != line2):
                        continue
                    self.group_weak[node] |= 1 << other
                    if line < 9 <= line2 and cells | cells2 == dc[d] & UNIT_SETS[box]:
                        # a row's group and a column's, in one box, that hold all its places
                        self.group_strong[node] = self.group_strong.get(node, 0) | 1 << other
                        self.group_strong[other] = self.group_strong.get(other, 0) | 1 << node
            for unit in range(27):
                places = dc[d] & UNIT_SETS[unit]
                if places.bit_count() < 3:
                    continue
                for parts in _split(unit, places):
                    nodes = [
                        group_of[d][part] if part & (part - 1) else part.bit_length() - 1 + shift
                        for part in parts
                    ]
                    a, b = nodes
                    self.group_strong[a] = self.group_strong.get(a, 0) | 1 << b
                    self.group_strong[b] = self.group_strong.get(b, 0) | 1 << a
        self.add_als_links(group_of)

    def add_als_links(self, group_of: dict[int, dict[int, int]]) -> None:
        """Strong links through the almost locked sets of 2 to ALS_CELLS cells (one cell is a
        bivalue cell, whose link is there already): if an ALS holds no x, its cells are locked
        on its other digits, so each other digit z is in one of its cells holding z. The cells
        of an ALS holding one digit become a group node where they are more than one. Also the
        forced exits (`forced_of`): a candidate outside that an ALS without x leaves alone in
        its cell."""
        from sudoku_lens.logic.patterns.als import gather  # it imports this module

        cands, digit_cells = self.grid.cands, self.grid.digit_cells
        for als in gather(self.grid, ALS_CELLS):
            if als.size < 2:
                continue
            digits = [d for d in range(1, 10) if als.mask >> (d - 1) & 1]
            nodes = [self._holder_node(d, als.holders[d], als.seers[d], group_of) for d in digits]
            for a in nodes:
                for b in nodes:
                    if a != b:
                        self.als_strong[a] = self.als_strong.get(a, 0) | 1 << b
                        self.als_of.setdefault((a, b), als)
            # Forced exits: locked without x, the ALS takes each other digit z from the cells
            # that see all of its z; a cell left with one candidate (it had three or more: a
            # bivalue cell's is an ordinary strong link) is that digit. Only cells that do not
            # see every cell of the ALS: one that does shares a unit with it, and the two make
            # a larger ALS with the same link (gathered too, up to ALS_CELLS cells) or, where
            # the cell is left its x, a locked set.
            everyone = -1
            for d in digits:
                everyone &= als.seers[d]
            seen = {}  # cell -> the ALS's digits it sees all of
            for d in digits:
                for cell in _bits(als.seers[d] & digit_cells[d] & ~everyone):
                    seen[cell] = seen.get(cell, 0) | 1 << (d - 1)
            for cell, taken in seen.items():
                mask = cands[cell]
                if BIT_COUNT[mask] < 3 or BIT_COUNT[mask & ~taken] > 1:
                    continue
                for d, a in zip(digits, nodes, strict=True):
                    left = mask & ~taken | mask & 1 << (d - 1)
                    if BIT_COUNT[left] == 1:
                        b = (left.bit_length() - 1) * 81 + cell
                        self.als_strong[a] = self.als_strong.get(a, 0) | 1 << b
                        self.als_strong[b] = self.als_strong.get(b, 0) | 1 << a
                        self.forced_of.setdefault((a, b), (als, cell))
                        self.forced_of.setdefault((b, a), (als, cell))

    def _holder_node(
        self, digit: int, cells: int, seen: int, group_of: dict[int, dict[int, int]]
    ) -> int:
        """The node of `digit` in `cells` (of one unit, seen all by the cells of `seen`): a
        candidate, a group already there, or a new group weakly linked to every candidate and
        group of the digit that it sees."""
        shift = (digit - 1) * 81
        if not cells & (cells - 1):
            return cells.bit_length() - 1 + shift
        mine = group_of[digit]
        if cells in mine:
            return mine[cells]
        node = 729 + len(self.groups)
        self.groups.append((digit, cells))
        singles = seen & self.grid.digit_cells[digit]
        links = singles << shift
        for single in _bits(singles):
            key = single + shift
            self.group_weak[key] = self.group_weak.get(key, 0) | 1 << node
        for others, other in mine.items():
            if not others & ~seen:
                links |= 1 << other
                self.group_weak[other] = self.group_weak.get(other, 0) | 1 << node
        mine[cells] = node
        self.group_weak[node] = links
        return node

    def als_between(self, off: int, on: int) -> Als | None:
        """The ALS through which `off` false makes `on` true, or None where a plain strong
        link (a cell, a unit or a group's) joins them."""
        plain = (
            self.cell_strong.get(off, 0) | self.unit_strong.get(off, 0)
        ) | self.group_strong.get(off, 0)
        if plain >> on & 1:
            return None
        als = self.als_of.get((off, on))
        if als is None and (off, on) in self.forced_of:
            return self.forced_of[off, on][0]
        return als

    def forced_cell(self, off: int, on: int) -> int | None:
        """The cell outside the ALS of a forced link between `off` and `on` (see `forced_of`),
        else None."""
        if (off, on) in self.als_of or self.als_between(off, on) is None:
            return None
        return self.forced_of[off, on][1]

    def node_cells(self, node: int) -> int:
        """The cell set of a node."""
        return 1 << node % 81 if node < 729 else self.groups[node - 729][1]

    def node_digit(self, node: int) -> int:
        return node // 81 + 1 if node < 729 else self.groups[node - 729][0]

    def weak_of(self, node: int, grouped: bool) -> int:
        """Every node weakly linked to `node`."""
        links = self.weak.get(node, 0)
        return links | self.group_weak.get(node, 0) if grouped else links


_CUTS: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    (tuple(segment for _, line, segment in SEGMENTS if line == unit),)
    if unit < 18
    else (
        tuple(segment for box, line, segment in SEGMENTS if box == unit and line < 9),
        tuple(segment for box, line, segment in SEGMENTS if box == unit and line >= 9),
    )
    for unit in range(27)
)
"""For each unit, the ways it falls into box-line segments: by boxes for a line, by rows and by
columns for a box."""


def _split(unit: int, places: int) -> Iterator[tuple[int, int]]:
    """The ways `places` (a digit's places in a unit, 3 or more) fall into two box-line parts,
    each one cell or a whole segment."""
    for cuts in _CUTS[unit]:
        parts = [places & cut for cut in cuts if places & cut]
        if len(parts) == 2:
            yield parts[0], parts[1]


# Variants of the graph a chain technique searches: which strong and weak links it may use.


def _variant(graph: Graph, kind: str) -> tuple[dict[int, int], dict[int, int]]:
    """The strong links of a variant, and its weak links from every node, kept to the nodes
    that have a strong link (a chain cannot go on from any other)."""
    if kind == "x":
        strong = dict(graph.unit_strong)
    elif kind == "xy":
        strong = dict(graph.cell_strong)
    else:
        strong = {}
        parts = [graph.unit_strong, graph.cell_strong]
        if kind == "grouped":
            graph.add_groups()
            parts += [graph.group_strong, graph.als_strong]
        for part in parts:
            for node, links in part.items():
                strong[node] = strong.get(node, 0) | links
    ends = 0
    for node in strong:
        ends |= 1 << node
    grouped = kind == "grouped"
    weak = {}
    for node in strong:
        links = graph.weak_of(node, grouped) & ends
        if kind in ("x", "xy"):
            links &= DIGIT_NODES[node // 81 + 1]
        weak[node] = links
    return strong, weak


@dataclass
class Chain:
    """A chain found by the search: nodes alternate off/on, starting with `nodes[0]` off."""

    kind: str
    """The technique it is an instance of."""
    nodes: list[int]
    placements: tuple[Candidate, ...]
    eliminations: tuple[Candidate, ...]
    loop: bool


@dataclass
class _Found:
    """A deduction seen by the search before its chain is traced: `a` false makes `b` true."""

    a: int
    b: int
    level: int
    loop: bool
    placements: tuple[Candidate, ...]
    targets: int
    """The eliminated nodes of an open chain (a loop's are known once traced)."""

    @property
    def discontinuous(self) -> bool:
        """True for an open chain named a discontinuous nice loop: its assumption refutes
        itself, or it removes exactly one candidate."""
        return not self.loop and (self.a == self.b or self.targets.bit_count() == 1)


_LOOP_KINDS = ("continuous-nice-loop", "grouped-continuous-nice-loop")
_END_KINDS = ("discontinuous-nice-loop", "grouped-discontinuous-nice-loop")
_AIC_KINDS = ("aic", "grouped-aic")
_OPEN_KINDS = ("x-chain", "xy-chain")


class _Search:
    """Breadth-first search of one graph variant from every start at once, level by level.

    Level k holds, for each start a, the nodes that "a is false" makes true through k strong
    links. Levels are computed when first asked for and kept, so techniques sharing a variant
    share the work; a chain is traced and classified only when a technique wants its kind."""

    def __init__(self, graph: Graph, kind: str) -> None:
        self.graph = graph
        self.kind = kind
        self.grouped = kind == "grouped"
        self.strong, self.weak = _variant(graph, kind)
        strong = self.strong
        # From a true node, a weak link then a strong link: the nodes true two links on.
        self.next_on: dict[int, int] = {}
        for node, links in self.weak.items():
            reach = 0
            while links:
                low = links & -links
                reach |= strong[low.bit_length() - 1]
                links ^= low
            self.next_on[node] = reach
        self.starts = sorted(strong)
        self.on_seen = [0] * len(self.starts)
        self.fronts = [0] * len(self.starts)
        self.on_levels: dict[int, list[int]] = {a: [] for a in self.starts}
        self.found: list[list[_Found]] = []
        self.reach: dict[int, int] = {}

    def level(self, level: int) -> list[_Found] | None:
        """The deductions of chains with `level` strong links, or None past the end."""
        while len(self.found) < level:
            if not self._expand():
                return None
        return self.found[level - 1]

    def _expand(self) -> bool:
        if len(self.found) >= MAX_LEVEL:
            return False
        level = len(self.found) + 1
        found: list[_Found] = []
        grew = False
        next_on, on_seen, fronts = self.next_on, self.on_seen, self.fronts
        for i, a in enumerate(self.starts):
            if level == 1:
                new_on = self.strong[a]
            else:
                front = fronts[i]
                new_on = 0
                while front:
                    low = front & -front
                    new_on |= next_on[low.bit_length() - 1]
                    front ^= low
                new_on &= ~on_seen[i]
            self.on_levels[a].append(new_on)
            fronts[i] = new_on
            if not new_on:
                continue
            grew = True
            on_seen[i] |= new_on
            if level >= 2:
                self._judge(a, new_on, level, found)
        self.found.append(found)
        return grew

    def _judge(self, a: int, ends: int, level: int, found: list[_Found]) -> None:
        """Record what each chain from `a` (false) to one of `ends` (true) proves."""
        graph = self.graph
        grouped = self.grouped
        weak_a = graph.weak_of(a, grouped)
        reach = self.reach.get(a)
        if reach is None:
            # The nodes that share a weakly linked candidate with `a` (weak links are mutual):
            # only a chain ending at one of them (or at `a`, or closing on it) proves anything.
            reach = weak_a | 1 << a
            for target in _bits(weak_a & SINGLES):
                reach |= graph.weak_of(target, grouped)
            self.reach[a] = reach
        ends &= reach
        while ends:
            low = ends & -ends
            ends ^= low
            b = low.bit_length() - 1
            if b == a:
                placements = ((a % 81, a // 81 + 1),) if a < 729 else ()
                targets = 0 if a < 729 else weak_a & SINGLES
                found.append(_Found(a, b, level, False, placements, targets))
            elif weak_a & low:
                found.append(_Found(a, b, level, True, (), 0))
            else:
                targets = weak_a & graph.weak_of(b, grouped) & SINGLES & ~(1 << a) & ~low
                if targets:
                    found.append(_Found(a, b, level, False, (), targets))

    def chain(
        self,
        item: _Found,
        kind: str,
        reported: set[tuple[tuple[Candidate, ...], tuple[Candidate, ...]]],
    ) -> Chain | None:
        """The chain of `item` when it is an instance of `kind` whose deduction is not in
        `reported` (the deductions one search for `kind` has given so far), else None.

        An x-chain or xy-chain whose ends see each other closes into a loop, which removes more
        as a nice loop; as the chain it is, it removes the ends' digit where both ends see it,
        as HoDoKu gives it."""
        open_ends = kind in _OPEN_KINDS
        if item.loop and not open_ends and kind not in _LOOP_KINDS:
            return None
        if not item.loop and kind in _LOOP_KINDS:
            return None
        if (kind in _END_KINDS and not item.discontinuous) or (
            kind in _AIC_KINDS and item.discontinuous
        ):
            return None
        loop = item.loop and not open_ends
        nodes = self._path(item.a, item.b, item.level)
        placements = item.placements
        graph, grouped = self.graph, self.grouped
        if item.loop and open_ends:
            targets = graph.weak_of(item.a, grouped) & graph.weak_of(item.b, grouped) & SINGLES
            eliminations = _candidates(targets & ~(1 << item.a) & ~(1 << item.b))
        elif item.loop:
            targets = 0
            cycle = [*nodes, item.a]
            # a weak link between cells removes nothing from the loop's own cells, as the
            # classic tools' loops do (HoDoKu's): the loop says what its cells hold
            own = 0
            for node in nodes:
                own |= graph.node_cells(node)
            own *= _EVERY_DIGIT
            for i in range(1, len(cycle) - 1, 2):
                both = graph.weak_of(cycle[i], grouped) & graph.weak_of(cycle[i + 1], grouped)
                if cycle[i] >= 729 or cycle[i + 1] >= 729 or cycle[i] % 81 != cycle[i + 1] % 81:
                    both &= ~own
                targets |= both
            for i in range(0, len(nodes) - 1, 2):
                targets |= _locked_in_loop(graph, nodes[i], nodes[i + 1])
            for node in nodes:
                targets &= ~(1 << node)
            eliminations = _candidates(targets & SINGLES)
        else:
            eliminations = _candidates(item.targets)
        if not placements and not eliminations:
            return None
        if self._classify(nodes, item, loop) != kind:
            return None
        if (placements, eliminations) in reported:
            return None
        reported.add((placements, eliminations))
        return Chain(kind, nodes, placements, eliminations, loop)

    def _path(self, a: int, b: int, level: int) -> list[int]:
        """The nodes of a shortest chain from `a` (false) to `b` (true), alternating off, on."""
        strong, weak, next_on = self.strong, self.weak, self.next_on
        on_levels = self.on_levels[a]
        path = [b]
        current = b
        for k in range(level - 1, 0, -1):
            on = next(n for n in _bits(on_levels[k - 1]) if next_on[n] >> current & 1)
            off = next(p for p in _bits(weak[on]) if strong[p] >> current & 1)
            path += [off, on]
            current = on
        path.append(a)
        path.reverse()
        return path

    def _classify(self, nodes: list[int], item: _Found, loop: bool) -> str | None:
        """The technique a traced chain is an instance of: a loop, an x-chain or xy-chain where
        its links allow, else a discontinuous nice loop or an AIC (see the module's notes)."""
        grouped = any(n >= 729 for n in nodes) or any(
            self.graph.als_between(nodes[i], nodes[i + 1]) for i in range(0, len(nodes) - 1, 2)
        )
        if self.grouped and not grouped:
            return None
        prefix = "grouped-" if grouped else ""
        if loop:
            return prefix + "continuous-nice-loop"
        if not grouped and item.a != item.b:
            digits = {self.graph.node_digit(n) for n in nodes}
            if len(digits) == 1:
                return "x-chain"
            same_ends = self.graph.node_digit(nodes[0]) == self.graph.node_digit(nodes[-1])
            in_cells = all(nodes[i] % 81 == nodes[i + 1] % 81 for i in range(0, len(nodes), 2))
            if same_ends and (self.kind == "xy" or in_cells):
                return "xy-chain"
        return prefix + ("discontinuous-nice-loop" if item.discontinuous else "aic")


def _locked_in_loop(graph: Graph, off: int, on: int) -> int:
    """What an ALS link of a closed loop removes: the loop leaves the ALS without one of the
    link's two digits (its N cells hold N of its N + 1 digits), so it holds each other digit,
    which leaves every cell that sees all of that digit's cells in the ALS. A forced exit's
    loop leaves the ALS without x (and the exit cell its one digit w) or without the digit the
    exit cell then holds instead: each digit but x and the exit cell's is held all the same,
    and each of the exit cell's other digits is in the ALS or in that cell."""
    als = graph.als_between(off, on)
    if als is None:
        return 0
    ends = {graph.node_digit(off), graph.node_digit(on)}
    forced = graph.forced_cell(off, on)
    exits, near = 0, -1
    if forced is not None:  # the forced cell's other digits, each of the ALS
        single = on if on % 81 == forced and on < 729 else off
        exits = graph.grid.cands[forced] & ~(1 << (graph.node_digit(single) - 1))
        near = PEER_SETS[forced]
    targets = 0
    for d in range(1, 10):
        if als.mask >> (d - 1) & 1 and d not in ends:
            seers = als.seers[d]
            if exits >> (d - 1) & 1:  # the ALS holds d, or the forced cell does
                seers &= near
            targets |= (seers & graph.grid.digit_cells[d]) << (d - 1) * 81
    return targets


def _candidates(nodes: int) -> tuple[Candidate, ...]:
    return tuple(sorted((n % 81, n // 81 + 1) for n in _bits(nodes)))


def _search(grid: CandidateGrid, kind: str) -> _Search:
    """The search of one variant of the state's graph, shared by the techniques (kept for the
    last state: techniques are tried one after another on the same state)."""
    store = kept("chains", state_key(grid))
    if "graph" not in store:
        store["graph"] = Graph.build(grid)
    if kind not in store:
        store[kind] = _Search(store["graph"], kind)  # type: ignore[arg-type]
    return store[kind]  # type: ignore[return-value]


# Steps: ratings and sentences.

BASE_RATING = {
    "x-chain": 6.6,
    "xy-chain": 6.6,
    "continuous-nice-loop": 7.0,
    "discontinuous-nice-loop": 7.0,
    "aic": 7.0,
    "grouped-continuous-nice-loop": 7.1,
    "grouped-discontinuous-nice-loop": 7.1,
    "grouped-aic": 7.1,
}


def node_name(graph: Graph, node: int) -> str:
    """'r1c2' for a cell, 'r1c23' or 'r12c4' for a group."""
    if node < 729:
        return cell_name(node % 81)
    return compact_cells(_bits(graph.groups[node - 729][1]))


def _says(graph: Graph, node: int, true: bool) -> str:
    digit = graph.node_digit(node)
    name = node_name(graph, node)
    if node < 729:
        return f"{name} is {digit}" if true else f"{name} is not {digit}"
    return f"{name} holds the {digit}" if true else f"{name} holds no {digit}"


Locked = tuple["Als", int, int, int]
"""An ALS a chain passes through: the set, the digit it loses, and for a forced exit (see
`Graph.forced_of`) the cell outside that it leaves one digit and that cell's other digits (else
-1 and 0)."""


def _loop_eliminations(eliminations: tuple[Candidate, ...], locked: list[Locked]) -> str:
    """What a closed loop removes, in words: by its weak links, and (for a loop through almost
    locked sets, each of which keeps its other digits for good) by a set's digits, from cells
    that see every one of them. A set with a forced exit may lack one of the exit cell's other
    digits instead, which that cell then holds: those go from cells that see the cell too."""
    by_set: list[tuple[Locked, int, list[Candidate]]] = []
    rest = []
    for cell, digit in eliminations:
        keeper = next(
            (
                entry
                for entry in locked
                if digit != entry[1]
                and entry[0].mask >> (digit - 1) & 1
                and entry[0].seers[digit] >> cell & 1
            ),
            None,
        )
        if keeper is None:
            rest.append((cell, digit))
            continue
        entry = next((e for e in by_set if e[0] is keeper and e[1] == digit), None)
        if entry is None:
            by_set.append((keeper, digit, [(cell, digit)]))
        else:
            entry[2].append((cell, digit))
    said = []
    if rest:
        said.append(
            "each of its weak links holds exactly one true candidate: "
            + eliminated_text(tuple(rest))
        )
    for (als, _, forced, exits), digit, removed in by_set:
        cells = [cell for cell, _ in removed]
        see = "sees" if len(cells) == 1 else "see"
        if exits >> (digit - 1) & 1:
            said.append(
                f"the locked set {als.name()} keeps its {digit} or {cell_name(forced)} is "
                f"{digit}, and {cells_text(cells)} {see} both: {eliminated_text(tuple(removed))}"
            )
            continue
        said.append(
            f"the locked set {als.name()} keeps its {digit}, and {cells_text(cells)} {see} "
            f"every {digit} of it: {eliminated_text(tuple(removed))}"
        )
    return "; ".join(said)


def _through_als(graph: Graph, off: int, on: int, als: Als) -> tuple[Locked, str]:
    """An ALS link of a chain (`off` false makes `on` true through `als`): the set as
    `Locked`, and the words for the link."""
    forced = graph.forced_cell(off, on)
    if forced is None:
        lost = graph.node_digit(off)
        words = (
            f"the almost locked set {als.name()} loses its {lost} and is locked on "
            f"{digits_text(als.mask & ~(1 << (lost - 1)))}, so " + _says(graph, on, True)
        )
        return (als, lost, -1, 0), words
    single = on if on < 729 and on % 81 == forced else off
    holder = off if single == on else on
    lost = graph.node_digit(holder)
    exits = graph.grid.cands[forced] & ~(1 << (graph.node_digit(single) - 1))
    if single == on:
        words = (
            f"the almost locked set {als.name()} loses its {lost} and is locked on "
            f"{digits_text(als.mask & ~(1 << (lost - 1)))}, so {cell_name(forced)}, which "
            f"sees every {digits_text(exits)} of it, is {graph.node_digit(on)}"
        )
    else:
        words = (
            f"{cell_name(forced)} is one of {digits_text(exits)}, so the almost locked set "
            f"{als.name()}, every {digits_text(exits)} of which it sees, lacks that digit and "
            "is locked on its others, so " + _says(graph, on, True)
        )
    return (als, lost, forced, exits), words


def chain_step(graph: Graph, chain: Chain) -> Step:
    """The step a chain proves, with its sentence and links."""
    nodes = chain.nodes
    implications = []
    locked: list[Locked] = []
    for i, node in enumerate(nodes[1:], start=1):
        als = graph.als_between(nodes[i - 1], node) if i % 2 else None
        if als is None:
            implications.append(_says(graph, node, i % 2 == 1))
            continue
        through, words = _through_als(graph, nodes[i - 1], node, als)
        locked.append(through)
        implications.append(words)
    first, last = nodes[0], nodes[-1]
    reasoning = f"If {_says(graph, first, False)}, then " + ", so ".join(implications)
    if chain.loop:
        conclusion = (
            f"; and {_says(graph, last, True)} means {_says(graph, first, False)}, so the "
            f"loop closes and {_loop_eliminations(chain.eliminations, locked)}."
        )
    elif first == last:
        then = f": {eliminated_text(chain.eliminations)}" if chain.eliminations else ""
        conclusion = f"; the assumption refutes itself, so {_says(graph, first, True)}{then}."
    else:
        conclusion = (
            f"; so {_says(graph, first, True)} or {_says(graph, last, True)}, and "
            f"{eliminated_text(chain.eliminations)}."
        )
    links = []
    for i in range(len(nodes) - 1):
        start, end = nodes[i], nodes[i + 1]
        links.append(Link(_anchor(graph, start), _anchor(graph, end), i % 2 == 0))
    if chain.loop:
        links.append(Link(_anchor(graph, last), _anchor(graph, first), False))
    cells = []
    for node in nodes:
        cells.extend(_bits(graph.node_cells(node)))
    for als, *_ in locked:
        cells.extend(_bits(als.cells))
    return Step(
        technique=chain.kind,
        rating=round(BASE_RATING[chain.kind] + length_bonus(len(nodes)), 1),
        explanation=reasoning + conclusion,
        placements=chain.placements,
        eliminations=chain.eliminations,
        cells=tuple(dict.fromkeys(cells)),
        candidates=tuple(
            (c, graph.node_digit(n)) for n in nodes for c in _bits(graph.node_cells(n))
        ),
        links=tuple(links),
    )


def _anchor(graph: Graph, node: int) -> Candidate:
    """A node as one candidate for drawing (a group by its first cell)."""
    cells = graph.node_cells(node)
    return ((cells & -cells).bit_length() - 1, graph.node_digit(node))


def _finder(kind: str, variant: str) -> Callable[[CandidateGrid], Iterator[Step]]:
    def find(grid: CandidateGrid) -> Iterator[Step]:
        search = _search(grid, variant)
        reported: set[tuple[tuple[Candidate, ...], tuple[Candidate, ...]]] = set()
        level = 2
        while True:
            found = search.level(level)
            if found is None:
                return
            for item in found:
                chain = search.chain(item, kind, reported)
                if chain is not None:
                    yield chain_step(search.graph, chain)
            level += 1

    find.__doc__ = f"Every {kind} of the state, shortest first."
    return find


x_chain = _finder("x-chain", "x")
xy_chain = _finder("xy-chain", "xy")
continuous_nice_loop = _finder("continuous-nice-loop", "full")
discontinuous_nice_loop = _finder("discontinuous-nice-loop", "full")
aic = _finder("aic", "full")
grouped_continuous_nice_loop = _finder("grouped-continuous-nice-loop", "grouped")
grouped_discontinuous_nice_loop = _finder("grouped-discontinuous-nice-loop", "grouped")
grouped_aic = _finder("grouped-aic", "grouped")

TECHNIQUES = [
    Technique("x-chain", BASE_RATING["x-chain"], x_chain),
    Technique("xy-chain", BASE_RATING["xy-chain"], xy_chain),
    Technique("continuous-nice-loop", 7.0, continuous_nice_loop),
    Technique("discontinuous-nice-loop", 7.0, discontinuous_nice_loop),
    Technique("aic", 7.0, aic),
    Technique("grouped-continuous-nice-loop", 7.1, grouped_continuous_nice_loop),
    Technique("grouped-discontinuous-nice-loop", 7.1, grouped_discontinuous_nice_loop),
    Technique("grouped-aic", 7.1, grouped_aic),
]
