"""Repair a misread puzzle with the digit classifier's probabilities.

A photo read with one digit wrong, a blank taken for a digit or a faint digit taken for a blank
usually gives a grid that breaks the rules, has no solution or has several. The classifier says how
sure it was of every cell, so the most probable *other* readings can be tried in order until one has
exactly one solution. The search is best-first over sets of changed cells, ordered by how much less
probable the changed reading is than the one read (the sum of each change's negative log-probability
ratio). It only touches the least certain cells and the cells in a rule conflict, only reads a cell
as a value the classifier found at least somewhat likely, changes at most a few cells, and gives
up below a probability floor or after a node budget: a confident reading of a genuinely broken
puzzle must not be "repaired" into some other puzzle.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass, field

import numpy as np

from sudoku_lens.solve import Status, count_solutions, solve

_FLAT = np.arange(81).reshape(9, 9)
UNITS: np.ndarray = np.concatenate(
    [
        _FLAT,
        _FLAT.T,
        _FLAT.reshape(3, 3, 3, 3).transpose(0, 2, 1, 3).reshape(9, 9),
    ]
)
"""(27, 9) flat cell indices of the 9 rows, 9 columns and 9 boxes."""

_DIGITS = np.arange(1, 10, dtype=np.uint8)
_EPS = 1e-9


@dataclass(frozen=True)
class RepairResult:
    """The outcome of `repair`.

    `grid` is the reading that was solved (the one read when nothing was changed or nothing was
    found), `status` the solver's verdict on it, `solution` the solved grid when `status` is
    solved, `changed_cells` the (row, col) cells that differ from the reading, and
    `log_probability` the natural log of how much less probable `grid` is than the reading
    (0.0 when unchanged). `nodes` counts the candidate readings that were checked.
    """

    grid: np.ndarray
    status: Status
    solution: np.ndarray | None
    changed_cells: list[tuple[int, int]] = field(default_factory=list)
    log_probability: float = 0.0
    nodes: int = 0

    @property
    def repaired(self) -> bool:
        """True when a changed reading was found that has exactly one solution."""
        return self.status is Status.SOLVED and bool(self.changed_cells)


def conflict_cells(grid: np.ndarray) -> np.ndarray:
    """Return a (9, 9) bool mask of the cells whose digit repeats in one of their units."""
    values = np.asarray(grid, dtype=np.uint8).reshape(81)[UNITS]
    onehot = values[:, :, None] == _DIGITS
    repeated = onehot.sum(axis=1) > 1
    in_conflict = (onehot & repeated[:, None, :]).any(axis=2)
    mask = np.zeros(81, dtype=bool)
    mask[UNITS[in_conflict]] = True
    return mask.reshape(9, 9)


def _verdict(flat: np.ndarray) -> Status:
    """Solver status of a flat (81,) uint8 grid; one that breaks the rules has no solution (the
    solver sees that as it places the givens)."""
    count = count_solutions(flat, limit=2)
    if count == 1:
        return Status.SOLVED
    return Status.NO_SOLUTION if count == 0 else Status.SEVERAL


def _moves(
    log_p: np.ndarray, flat: np.ndarray, cells: np.ndarray, min_log_p: float, max_cost: float
) -> list[tuple[float, int, int]]:
    """Other readings (cost, cell, value) of `cells`: each at least exp(`min_log_p`) probable and
    costing at most `max_cost`, cheapest first."""
    moves = []
    for cell in cells:
        current = log_p[cell, flat[cell]]
        for value in range(10):
            if value == flat[cell] or log_p[cell, value] < min_log_p:
                continue
            cost = max(0.0, float(current - log_p[cell, value]))
            if cost <= max_cost:
                moves.append((cost, int(cell), value))
    moves.sort()
    return moves


def repair(
    probabilities: np.ndarray,
    givens: np.ndarray,
    *,
    candidates: int = 12,
    max_changes: int = 3,
    min_probability: float = 0.05,
    max_cost: float = math.log(1e4),
    max_nodes: int = 10000,
) -> RepairResult:
    """Find the most probable reading of a photo's grid that has exactly one solution.

    `probabilities` is the classifier's (9, 9, 10) output (class 0 = empty), `givens` the (9, 9)
    reading (normally its argmax). If `givens` already has one solution it is returned
    unchanged. Otherwise alternative readings of the `candidates` least certain cells, plus
    every cell in a rule conflict (and, when `givens` has no solution, which no added digit
    mends, the `candidates` least certain cells holding a digit), are tried best-first, changing
    at most `max_changes` cells, until one has exactly one solution. A cell is only read as a
    value the classifier gave at least `min_probability`, so digits it is sure of (and cells it
    saw no ink in) stay as read: on generated photos (`benchmarks/synthetic.py --seeds 150`) a
    floor of 0.01 let puzzles whose givens were lost to pencil notes be "repaired" into wrong
    answers, e.g. by reading a digit read at 0.73 as one read at 0.01 (the figures are in
    benchmarks/measurements-log.md).
    Readings more than `max_cost` nats less probable than `givens` (default: 10 000 times less
    probable) are not tried, nor more than `max_nodes` of them; when none qualifies the result
    keeps `givens` and the solver's verdict on it, with `solution` None.
    """
    probs = np.asarray(probabilities, dtype=np.float64)
    flat = np.asarray(givens).astype(np.uint8).reshape(-1)
    if probs.shape != (9, 9, 10) or flat.shape != (81,) or flat.max() > 9:
        raise ValueError("repair needs (9, 9, 10) probabilities and a (9, 9) grid of digits 0-9")
    probs = probs.reshape(81, 10)
    status = _verdict(flat)
    if status is Status.SOLVED:
        return _result(flat, status, [], 0.0, 1)

    log_p = np.log(np.clip(probs, _EPS, 1.0))
    current = log_p[np.arange(81), flat]
    others = log_p.copy()
    others[np.arange(81), flat] = -np.inf
    cheapest_change = current - others.max(axis=1)
    order = np.argsort(cheapest_change, kind="stable")
    conflicts = np.flatnonzero(conflict_cells(flat.reshape(9, 9)))
    cells = order[:candidates]
    if status is Status.NO_SOLUTION:  # adding a digit never mends it: a digit read must change
        cells = np.concatenate([cells, order[flat[order] > 0][:candidates]])
    cells = np.unique(np.concatenate([cells, conflicts]))
    moves = _moves(log_p, flat, cells, math.log(max(min_probability, _EPS)), max_cost)
    if not moves:
        return _result(flat, status, [], 0.0, 1)

    def next_move(used: frozenset[int], after: int) -> int | None:
        """Index of the cheapest move after `after` on a cell not in `used`."""
        for index in range(after + 1, len(moves)):
            if moves[index][1] not in used:
                return index
        return None

    # Each heap entry is a set of moves with increasing indices into the sorted `moves`; expanding
    # (..., i) into (..., i, next) and (..., next) visits every such set once, in cost order.
    heap: list[tuple[float, tuple[int, ...]]] = [(moves[0][0], (0,))]
    nodes = 0
    while heap and nodes < max_nodes:
        cost, chosen = heapq.heappop(heap)
        if cost > max_cost:
            break
        nodes += 1
        candidate = flat.copy()
        for index in chosen:
            candidate[moves[index][1]] = moves[index][2]
        if _verdict(candidate) is Status.SOLVED:
            changed = sorted(divmod(moves[index][1], 9) for index in chosen)
            return _result(candidate, Status.SOLVED, changed, -cost, nodes)
        used = frozenset(moves[index][1] for index in chosen)
        if len(chosen) < max_changes:
            following = next_move(used, chosen[-1])
            if following is not None:
                heapq.heappush(heap, (cost + moves[following][0], (*chosen, following)))
        sibling = next_move(used - {moves[chosen[-1]][1]}, chosen[-1])
        if sibling is not None:
            step = moves[sibling][0] - moves[chosen[-1]][0]
            heapq.heappush(heap, (cost + step, (*chosen[:-1], sibling)))
    return _result(flat, status, [], 0.0, nodes)


def _result(
    flat: np.ndarray,
    status: Status,
    changed: list[tuple[int, int]],
    log_probability: float,
    nodes: int,
) -> RepairResult:
    grid = flat.reshape(9, 9).copy()
    solution = solve(grid).grid if status is Status.SOLVED else None
    return RepairResult(grid, status, solution, changed, log_probability, nodes)
