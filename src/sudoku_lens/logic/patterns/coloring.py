"""Coloring: the conjugate pairs of one digit (its two places in a unit) joined into clusters.

A cluster is colored in two colors, alternating along its pairs: one color holds the digit in all
its cells, the other in none.

- simple-colors-trap: a cell outside the cluster that sees both colors cannot hold the digit.
- simple-colors-wrap: two cells of one color see each other, so that color is false.
- multi-colors-1: a color of one cluster sees a color of another, so at least one of the two other
  colors is true: a cell that sees both of those cannot hold the digit (a "color wing"), even
  one of the two clusters. One step gives what every such bridge between two clusters proves.
- multi-colors-2: a color of one cluster sees both colors of another, so it is false.

Every step is a single-digit chain (an X-chain) in disguise: its rating is the X-cycle base 6.5
plus Sudoku Explainer's length bonus for the equivalent chain. Deductions that an intersection
gives (the two cells of one conjugate pair both seen) are left to the intersection techniques.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from sudoku_lens.logic.catalog import Technique
from sudoku_lens.logic.patterns._common import cells_text, compact_cells
from sudoku_lens.logic.patterns._kept import kept, state_key
from sudoku_lens.logic.patterns.chains import length_bonus
from sudoku_lens.logic.state import CandidateGrid
from sudoku_lens.logic.step import Link, Step, a_digit
from sudoku_lens.logic.units import PEER_SETS, UNIT_SETS, cells_of
from sudoku_lens.puzzle.text import cell_name

BASE = 6.5


@dataclass
class Cluster:
    """The cells of one digit joined by conjugate pairs, split into two colors."""

    digit: int
    colors: tuple[int, int]
    """The cell sets of the two colors."""
    seen: tuple[int, int]
    """For each color, the cells that see at least one of its cells."""
    pairs: list[tuple[int, int]]
    partners: dict[int, list[int]]
    _distances: dict[int, dict[int, int]] = field(default_factory=dict)

    def distance(self, source: int, target: int) -> int:
        """Conjugate pairs on the shortest path between two cells of the cluster."""
        if source not in self._distances:
            dist = {source: 0}
            queue = [source]
            for cell in queue:
                for other in self.partners[cell]:
                    if other not in dist:
                        dist[other] = dist[cell] + 1
                        queue.append(other)
            self._distances[source] = dist
        return self._distances[source][target]

    @property
    def cells(self) -> int:
        return self.colors[0] | self.colors[1]

    def links(self) -> tuple[Link, ...]:
        return tuple(Link((a, self.digit), (b, self.digit), True) for a, b in self.pairs)

    def nearest(self, color: int, cell: int, near: int) -> tuple[int, int]:
        """(distance, cell): the cell of `color` seen by `near` closest to `cell`."""
        return min(
            (self.distance(cell, c), c) for c in cells_of(self.colors[color] & PEER_SETS[near])
        )


def clusters(grid: CandidateGrid, digit: int) -> list[Cluster]:
    """The clusters of `digit` (kept for the last state, as the four coloring techniques are
    tried one after another on it). A lone conjugate pair is a cluster too: the multi-colors
    techniques use it (the two colors of another cluster can both see its ends); the simple
    colors skip it, as what it proves alone is an intersection or a single."""
    store = kept("coloring", state_key(grid))
    if digit not in store:
        store[digit] = _clusters(grid, digit)
    return store[digit]  # type: ignore[return-value]


def _clusters(grid: CandidateGrid, digit: int) -> list[Cluster]:
    places = grid.digit_cells[digit]
    partners: dict[int, list[int]] = {}
    pairs: list[tuple[int, int]] = []
    for unit in UNIT_SETS:
        here = places & unit
        if here.bit_count() == 2:
            a, b = cells_of(here)
            if b not in partners.get(a, []):
                partners.setdefault(a, []).append(b)
                partners.setdefault(b, []).append(a)
                pairs.append((a, b))
    found = []
    done: set[int] = set()
    for root in sorted(partners):
        if root in done:
            continue
        colors = [0, 0]
        order = [root]
        parity = {root: 0}
        for cell in order:
            colors[parity[cell]] |= 1 << cell
            for other in partners[cell]:
                if other not in parity:
                    parity[other] = 1 - parity[cell]
                    order.append(other)
        done.update(order)
        seen = [0, 0]
        for color in (0, 1):
            for cell in cells_of(colors[color]):
                seen[color] |= PEER_SETS[cell]
        members = set(order)
        found.append(
            Cluster(
                digit,
                (colors[0], colors[1]),
                (seen[0], seen[1]),
                [p for p in pairs if p[0] in members],
                partners,
            )
        )
    return found


def _colored(cluster: Cluster) -> str:
    pairs = ", ".join(f"{cell_name(a)}-{cell_name(b)}" for a, b in cluster.pairs)
    return f"Coloring the {cluster.digit}s of the conjugate pairs {pairs} in two colors"


def simple_colors_trap(grid: CandidateGrid) -> Iterator[Step]:
    """Cells outside a cluster that see both of its colors lose the digit; shortest first."""
    steps = []
    for digit in range(1, 10):
        for cluster in clusters(grid, digit):
            if len(cluster.pairs) < 2:
                continue
            targets = grid.digit_cells[digit] & cluster.seen[0] & cluster.seen[1] & ~cluster.cells
            proofs = []
            for target in cells_of(targets):
                best = min(
                    (cluster.distance(x, y), x, y)
                    for x in cells_of(cluster.colors[0] & PEER_SETS[target])
                    for y in cells_of(cluster.colors[1] & PEER_SETS[target])
                )
                if best[0] >= 3:
                    proofs.append((best, target))
            if not proofs:
                continue
            longest = max(best[0] for best, _ in proofs)
            x, y = proofs[0][0][1], proofs[0][0][2]
            eliminated = [t for _, t in proofs]
            steps.append(
                (
                    longest,
                    Step(
                        technique="simple-colors-trap",
                        rating=round(BASE + length_bonus(longest + 1), 1),
                        explanation=f"{_colored(cluster)}, one color holds every "
                        f"{digit}; {cells_text(eliminated)} "
                        f"{'sees' if len(eliminated) == 1 else 'see'} both colors (for "
                        f"{cell_name(eliminated[0])}: {cell_name(x)} and {cell_name(y)}), so "
                        f"{cells_text(eliminated)} cannot be {digit}.",
                        eliminations=tuple((t, digit) for t in eliminated),
                        cells=tuple(cells_of(cluster.cells)),
                        candidates=tuple((c, digit) for c in cells_of(cluster.cells)),
                        links=cluster.links(),
                    ),
                )
            )
    steps.sort(key=lambda item: item[0])
    for _, step in steps:
        yield step


def simple_colors_wrap(grid: CandidateGrid) -> Iterator[Step]:
    """A color with two cells in one unit is false: its cells lose the digit."""
    for digit in range(1, 10):
        for cluster in clusters(grid, digit):
            for color in (0, 1):
                cells = cluster.colors[color]
                clash = next(
                    ((a, b) for a in cells_of(cells) for b in cells_of(cells & PEER_SETS[a])), None
                )
                if clash is None:
                    continue
                a, b = clash
                yield Step(
                    technique="simple-colors-wrap",
                    rating=round(BASE + length_bonus(cluster.distance(a, b) + 1), 1),
                    explanation=f"{_colored(cluster)}, one color holds every {digit}; "
                    f"{cell_name(a)} and {cell_name(b)} share a color and a unit, so that "
                    f"color holds no {digit}: {cells_text(cells_of(cells))} cannot be {digit}.",
                    eliminations=tuple((c, digit) for c in cells_of(cells)),
                    cells=tuple(cells_of(cluster.cells)),
                    candidates=tuple((c, digit) for c in cells_of(cluster.cells)),
                    links=cluster.links(),
                )


def _bridges(grid: CandidateGrid, digit: int) -> Iterator[tuple[Cluster, int, Cluster, int]]:
    """Pairs of clusters of `digit` where color i of the first sees color j of the second."""
    found = clusters(grid, digit)
    for first in found:
        for second in found:
            if first is second:
                continue
            for i in (0, 1):
                for j in (0, 1):
                    if first.seen[i] & second.colors[j]:
                        yield first, i, second, j


def _bridge_cells(first: Cluster, i: int, second: Cluster, j: int) -> tuple[int, int]:
    a = next(c for c in cells_of(first.colors[i]) if PEER_SETS[c] & second.colors[j])
    b = next(c for c in cells_of(second.colors[j]) if PEER_SETS[a] >> c & 1)
    return a, b


def multi_colors_1(grid: CandidateGrid) -> Iterator[Step]:
    """Color i of one cluster sees color j of another: cells that see both other colors lose
    the digit. One step per pair of clusters, with what every such bridge between them
    proves (as HoDoKu gives it)."""
    for digit in range(1, 10):
        done: set[tuple[int, ...]] = set()
        joined: dict[tuple[int, int], list[tuple[Cluster, int, Cluster, int]]] = {}
        found = clusters(grid, digit)
        for first, i, second, j in _bridges(grid, digit):
            key = tuple(sorted((found.index(first), found.index(second))))
            if key[0] == found.index(first):
                joined.setdefault(key, []).append((first, i, second, j))
        for bridges in joined.values():
            first, second = bridges[0][0], bridges[0][2]
            parts, eliminated, nodes, links = [], 0, 0, []
            for _, i, _, j in bridges:
                targets = (
                    grid.digit_cells[digit] & first.seen[1 - i] & second.seen[1 - j] & ~eliminated
                )
                if not targets:
                    continue
                eliminated |= targets
                a, b = _bridge_cells(first, i, second, j)
                target = (targets & -targets).bit_length() - 1
                nodes = max(
                    nodes,
                    first.nearest(1 - i, a, target)[0] + second.nearest(1 - j, b, target)[0] + 2,
                )
                links.append(Link((a, digit), (b, digit), False))
                many = targets.bit_count() > 1
                parts.append(
                    f"{cell_name(a)} and {cell_name(b)} see each other, so their colors are "
                    f"not both true and {_group(first.colors[1 - i])} or "
                    f"{_group(second.colors[1 - j])} holds {a_digit(digit)}: "
                    f"{cells_text(cells_of(targets))} {'see' if many else 'sees'} a cell of each"
                )
            key = tuple(cells_of(eliminated))
            if not eliminated or key in done:
                continue
            done.add(key)
            yield Step(
                technique="multi-colors-1",
                rating=round(BASE + 0.1 + length_bonus(nodes), 1),
                explanation=f"Two clusters of {digit}s joined by conjugate pairs are colored, "
                f"one color true in each: {_colors_text(first)}, and {_colors_text(second)}; "
                + "; ".join(parts)
                + f". So {cells_text(cells_of(eliminated))} cannot be {digit}.",
                eliminations=tuple((t, digit) for t in cells_of(eliminated)),
                cells=tuple(cells_of(first.cells | second.cells)),
                candidates=tuple((c, digit) for c in cells_of(first.cells | second.cells)),
                links=(*first.links(), *second.links(), *links),
            )


def multi_colors_2(grid: CandidateGrid) -> Iterator[Step]:
    """A color of one cluster sees both colors of another: it is false."""
    for digit in range(1, 10):
        found = clusters(grid, digit)
        for first in found:
            for second in found:
                if first is second:
                    continue
                for i in (0, 1):
                    if not (first.seen[i] & second.colors[0] and first.seen[i] & second.colors[1]):
                        continue
                    a0, b0 = _bridge_cells(first, i, second, 0)
                    a1, b1 = _bridge_cells(first, i, second, 1)
                    cells = first.colors[i]
                    nodes = first.distance(a0, a1) + second.distance(b0, b1) + 2
                    yield Step(
                        technique="multi-colors-2",
                        rating=round(BASE + 0.1 + length_bonus(nodes), 1),
                        explanation=f"Two clusters of {digit}s joined by conjugate pairs are "
                        f"colored; one color of the first sees both colors of the second "
                        f"({cell_name(a0)} sees {cell_name(b0)}, {cell_name(a1)} sees "
                        f"{cell_name(b1)}), and one of those holds {a_digit(digit)}, so that "
                        f"color is false: {cells_text(cells_of(cells))} cannot be {digit}.",
                        eliminations=tuple((c, digit) for c in cells_of(cells)),
                        cells=tuple(cells_of(first.cells | second.cells)),
                        candidates=tuple((c, digit) for c in cells_of(first.cells | second.cells)),
                        links=(
                            *first.links(),
                            *second.links(),
                            Link((a0, digit), (b0, digit), False),
                            Link((a1, digit), (b1, digit), False),
                        ),
                    )


TECHNIQUES = [
    Technique("simple-colors-trap", BASE, simple_colors_trap),
    Technique("simple-colors-wrap", BASE, simple_colors_wrap),
    Technique("multi-colors-1", BASE + 0.1, multi_colors_1),
    Technique("multi-colors-2", BASE + 0.1, multi_colors_2),
]


def _colors_text(cluster: Cluster) -> str:
    """A cluster's two colors named: "r3c8,r4c9 against r4c2,r5c8"."""
    return f"{_group(cluster.colors[0])} against {_group(cluster.colors[1])}"


def _group(cells: int) -> str:
    """The cells of a color (a cell set), as one group: "r4c2,r5c8"."""
    return compact_cells(cells_of(cells))
