"""Forcing chains, the last resort: assume a candidate, follow the singles it forces, and see.

- contradiction-forcing-chain: assuming a candidate forces singles that break the rules (a cell
  with no candidate left, a unit with no place left for a digit), so the candidate is false.
- cell-forcing-chain: every candidate of one cell forces the same placement or elimination.
- unit-forcing-chain: every place of a digit in one unit forces the same placement or elimination.
- nested-forcing-chain: as the contradiction chain, but the propagation inside the assumption
  also rules out candidates by contradiction chains of its own; this finishes the hardest puzzles.

The propagation is "dynamic" (Sudoku Explainer's word): each forced single changes the grid the
next one is read from. Every assumption of a state is propagated once and the results are shared
by the three plain techniques (a cache keyed by the state), so trying them costs one sweep. Only the
step that is yielded is traced again to name its singles, which keeps the search itself lean.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from sudoku_lens.logic.catalog import Technique
from sudoku_lens.logic.patterns._common import eliminated_text, spell
from sudoku_lens.logic.patterns._kept import kept, state_key
from sudoku_lens.logic.patterns.chains import length_bonus
from sudoku_lens.logic.state import CandidateGrid
from sudoku_lens.logic.step import Candidate, Link, Step, a_digit
from sudoku_lens.logic.units import PEER_SETS, UNIT_SETS, common_units, unit_name
from sudoku_lens.puzzle.text import cell_name

DIGITS_OF: tuple[tuple[int, ...], ...] = tuple(
    tuple(d + 1 for d in range(9) if mask >> d & 1) for mask in range(512)
)
_UNITS_OF_CELL: tuple[tuple[int, ...], ...] = tuple(
    tuple(u for u in range(27) if UNIT_SETS[u] >> cell & 1) for cell in range(81)
)
NISHIO_RATING = 7.5
"""A contradiction reached through one digit only (Sudoku Explainer's Nishio forcing chain)."""
DYNAMIC_RATING = 8.5
"""A contradiction reached through several digits (a dynamic forcing chain)."""
BRANCHES_RATING = 8.0
"""Cell and unit forcing chains (Sudoku Explainer's multiple forcing chains)."""
NESTED_RATING = 9.5
"""A contradiction that needs forcing chains inside the assumption (nested forcing chains)."""
_SHORTLIST = 4
"""Contradictions traced to find the shortest (those reached in fewest placements)."""
_MAX_LISTED = 8
"""Forced singles named in one explanation; longer proofs name the first and last few."""

Lists = tuple[list[int], list[int], list[int]]
"""A propagation state: candidate masks (81), digit cell sets (10), placed cell sets (10)."""


def _start(grid: CandidateGrid) -> Lists:
    placed = [0] * 10
    for cell, value in enumerate(grid.values):
        if value:
            placed[value] |= 1 << cell
    return grid.cands[:], grid.digit_cells[:], placed


def propagate(cands: list[int], dc: list[int], placed: list[int], todo: list[Candidate]) -> int:
    """Place the singles in `todo` and every naked and hidden single they force, in place;
    the number of placements, or -1 - that number when the rules break (the lists are then
    left half done).
    Only the digits whose places changed are searched for hidden singles."""
    count = 0
    while True:
        dirty = 0
        while todo:
            cell, d = todo.pop()
            mask = cands[cell]
            bit = 1 << (d - 1)
            if not mask & bit:
                if placed[d] >> cell & 1:
                    continue
                return -1 - count
            cell_bit = 1 << cell
            cands[cell] = 0
            dirty |= mask
            for e in DIGITS_OF[mask]:
                dc[e] &= ~cell_bit
            placed[d] |= cell_bit
            count += 1
            peers = PEER_SETS[cell] & dc[d]
            if peers:
                dc[d] &= ~peers
                keep = ~bit
                while peers:
                    low = peers & -peers
                    peers ^= low
                    peer = low.bit_length() - 1
                    left = cands[peer] & keep
                    cands[peer] = left
                    if not left & (left - 1):
                        if not left:
                            return -1 - count
                        todo.append((peer, left.bit_length()))
        for d in DIGITS_OF[dirty]:
            cells = dc[d]
            done = placed[d]
            if not cells:
                if done.bit_count() != 9:
                    return -1 - count
                continue
            for unit in UNIT_SETS:
                here = cells & unit
                if not here & (here - 1):
                    if here:
                        todo.append((here.bit_length() - 1, d))
                    elif not done & unit:
                        return -1 - count
        if not todo:
            return count


@dataclass
class _Outcome:
    """What assuming one candidate forces: -1 placements for a contradiction, else the new
    placements and eliminations per digit (cell sets)."""

    count: int
    placed: list[int]
    eliminated: list[int]
    depth: int = 0
    """For a contradiction, the placements made before it showed."""


class _Sweep:
    """Every candidate of a state assumed in turn (computed once per state)."""

    def __init__(self, grid: CandidateGrid) -> None:
        self.start = _start(grid)
        cands0, dc0, placed0 = self.start
        self.outcomes: dict[Candidate, _Outcome] = {}
        for cell in range(81):
            for d in DIGITS_OF[cands0[cell]]:
                cands, dc, placed = cands0[:], dc0[:], placed0[:]
                count = propagate(cands, dc, placed, [(cell, d)])
                if count < 0:
                    self.outcomes[(cell, d)] = _Outcome(-1, [], [], -1 - count)
                else:
                    new = [placed[e] & ~placed0[e] for e in range(10)]
                    gone = [dc0[e] & ~dc[e] & ~placed[e] for e in range(10)]
                    self.outcomes[(cell, d)] = _Outcome(count, new, gone)


def _sweep(grid: CandidateGrid) -> _Sweep:
    store = kept("forcing", state_key(grid))
    if "sweep" not in store:
        store["sweep"] = _Sweep(grid)
    return store["sweep"]  # type: ignore[return-value]


# Tracing: the singles one assumption forces, each with the placements it rests on.


@dataclass
class _Trace:
    """A propagation replayed with reasons, to name and draw the singles of a proof."""

    order: list[Candidate]
    """Placements in the order they were made (the assumption first)."""
    reasons: dict[Candidate, tuple[Candidate, ...]]
    """For each forced placement: the placements that forced it."""
    removed_by: dict[Candidate, Candidate | None]
    """For each removed candidate: the placement that removed it (None: an inner chain)."""
    broken: str = ""
    """The contradiction reached, in words ("" when none)."""
    broken_by: tuple[Candidate | None, ...] = ()
    broken_digit: int = 0
    """The digit the contradiction is about (0 for a cell left without candidates)."""
    found_as: dict[Candidate, str] = field(default_factory=dict)
    """For each forced placement, why it was forced, in words: "the last place for a 9 in row
    2" (a hidden single) or "its only candidate left" (a naked single)."""


_NAKED = "its only candidate left"
"""Why a naked single of a traced assumption was forced (see `_Trace.found_as`)."""


def _trace(grid: CandidateGrid, assumption: Candidate, nested: bool = False) -> _Trace:
    """Replay `assumption` with singles (and, when `nested`, contradiction chains inside it),
    breadth first, keeping why each single was forced."""
    cands, dc, placed = _start(grid)
    trace = _Trace([], {assumption: ()}, {})
    removed_by = trace.removed_by
    todo: list[Candidate] = [assumption]
    while True:
        while todo:
            cell, d = todo.pop(0)
            if placed[d] >> cell & 1:
                continue
            if not cands[cell] >> (d - 1) & 1:
                trace.broken = _clash(cell, d, removed_by.get((cell, d)), trace.found_as)
                trace.broken_by = ((cell, d), removed_by.get((cell, d)))
                trace.broken_digit = d
                return trace
            mask = cands[cell]
            cands[cell] = 0
            for e in DIGITS_OF[mask]:
                dc[e] &= ~(1 << cell)
                if e != d:
                    removed_by[(cell, e)] = (cell, d)
            placed[d] |= 1 << cell
            trace.order.append((cell, d))
            for peer in _cells(PEER_SETS[cell] & dc[d]):
                cands[peer] &= ~(1 << (d - 1))
                dc[d] &= ~(1 << peer)
                removed_by[(peer, d)] = (cell, d)
                left = cands[peer]
                if not left:
                    trace.broken = f"{cell_name(peer)} would have no candidate left"
                    trace.broken_by = _supports(trace, peer, 0)
                    return trace
                single = (peer, left.bit_length())
                if not left & (left - 1) and single not in trace.reasons:
                    trace.reasons[single] = _supports(trace, *single)
                    trace.found_as[single] = _NAKED
                    todo.append(single)
        for d in range(1, 10):
            for unit, unit_cells in enumerate(UNIT_SETS):
                here = dc[d] & unit_cells
                if here & (here - 1):
                    continue
                if here:
                    single = (here.bit_length() - 1, d)
                    if single not in trace.reasons:
                        trace.found_as[single] = (
                            f"the last place for {a_digit(d)} in {unit_name(unit)}"
                        )
                        trace.reasons[single] = tuple(
                            removed_by.get((other, d))
                            for other in _cells(unit_cells & ~here & ~placed[d])
                        )
                        todo.append(single)
                elif not placed[d] & unit_cells:
                    trace.broken = f"{unit_name(unit)} would have no place left for {a_digit(d)}"
                    trace.broken_digit = d
                    trace.broken_by = tuple(
                        removed_by.get((other, d)) for other in _cells(unit_cells)
                    )
                    return trace
        if todo:
            continue
        if not nested or not _nested_round(cands, dc, placed, trace, todo) or trace.broken:
            return trace


def _clash(cell: int, digit: int, by: Candidate | None, found_as: dict[Candidate, str]) -> str:
    """In words, why a single the assumption forces cannot be made: what forced it
    (`found_as`), and that `by` took its digit away (a placement in the cell itself or in a cell
    it sees; None: an inner chain)."""
    name = cell_name(cell)
    why = f" (as {found_as[(cell, digit)]})" if (cell, digit) in found_as else ""
    if by is None:
        return f"{name} would have to be {digit}{why}, which a chain on the way ruled out"
    other, placed = by
    if other == cell:
        return f"{name} would have to be {digit}{why} as well as {placed}"
    unit = unit_name(common_units((cell, other))[0])
    return f"{name} would have to be {digit}{why} too, in {unit} with {cell_name(other)}"


def _nested_round(
    cands: list[int], dc: list[int], placed: list[int], trace: _Trace, todo: list[Candidate]
) -> bool:
    """Inside an assumption: remove every candidate whose own assumption breaks the rules by
    singles, and queue the naked singles this leaves. True when something was removed."""
    removed = False
    for cell in range(81):
        for d in DIGITS_OF[cands[cell]]:
            if propagate(cands[:], dc[:], placed[:], [(cell, d)]) < 0:
                cands[cell] &= ~(1 << (d - 1))
                dc[d] &= ~(1 << cell)
                trace.removed_by[(cell, d)] = None
                removed = True
                left = cands[cell]
                if not left:
                    trace.broken = f"{cell_name(cell)} would have no candidate left"
                    return True
                single = (cell, left.bit_length())
                if not left & (left - 1) and single not in trace.reasons:
                    trace.reasons[single] = ()
                    trace.found_as[single] = _NAKED
                    todo.append(single)
    return removed


def _supports(trace: _Trace, cell: int, digit: int) -> tuple[Candidate | None, ...]:
    """The placements that removed the candidates of `cell` other than `digit` (a naked
    single's reasons; with digit 0, an emptied cell's)."""
    return tuple(
        trace.removed_by[(cell, e)]
        for e in range(1, 10)
        if e != digit and (cell, e) in trace.removed_by
    )


def _cells(bits: int) -> Iterator[int]:
    while bits:
        low = bits & -bits
        yield low.bit_length() - 1
        bits ^= low


def _proof(trace: _Trace, targets: tuple[Candidate, ...]) -> list[Candidate]:
    """The placements `targets` rest on, back to the assumption, in the order they were made."""
    needed: set[Candidate] = set()
    stack = [t for t in targets if t is not None]
    while stack:
        node = stack.pop()
        if node in needed:
            continue
        needed.add(node)
        stack.extend(s for s in trace.reasons.get(node, ()) if s is not None)
    return [node for node in trace.order if node in needed]


def _links(trace: _Trace, proof: list[Candidate]) -> tuple[Link, ...]:
    """One link per implication of the proof: from a placement to a single it forces."""
    chosen = set(proof)
    links = []
    for node in proof:
        for support in trace.reasons.get(node, ()):
            if support in chosen and support != node:
                links.append(Link(support, node, True))
    return tuple(dict.fromkeys(links))


def _singles_phrase(proof: list[Candidate]) -> str:
    """'r3c4 would be 7, r5c5 would be 1' for the forced singles of a proof (the assumption
    itself left out), shortened in the middle when long."""
    names = [f"{cell_name(c)} would be {d}" for c, d in proof[1:]]
    if len(names) > _MAX_LISTED:
        hidden = len(names) - _MAX_LISTED + 2
        names = [*names[:3], f"{hidden} more singles would follow", *names[-3:]]
    return ", ".join(names)


# Contradiction forcing chains.


def _contradiction_step(grid: CandidateGrid, assumption: Candidate, nested: bool) -> Step | None:
    trace = _trace(grid, assumption, nested)
    if not trace.broken:
        return None
    cell, digit = assumption
    proof = _proof(trace, trace.broken_by) if not nested else trace.order
    if assumption not in proof:
        proof = [assumption, *proof]
    singles = _singles_phrase(proof)
    then = f"then {singles} and " if singles else "then "
    if nested:
        name, base = "nested-forcing-chain", NESTED_RATING
        inner = " (some candidates ruled out on the way by forcing chains of their own)"
    else:
        # One digit throughout is Sudoku Explainer's Nishio; other digits make it dynamic.
        one_digit = trace.broken_digit == digit and all(d == digit for _, d in proof)
        name, base = "contradiction-forcing-chain", NISHIO_RATING if one_digit else DYNAMIC_RATING
        inner = ""
    return Step(
        technique=name,
        rating=round(base + length_bonus(len(proof) + 1), 1),
        explanation=f"If {cell_name(cell)} were {digit}, {then}{trace.broken}{inner}, "
        f"so {cell_name(cell)} cannot be {digit}.",
        eliminations=(assumption,),
        cells=tuple(dict.fromkeys(c for c, _ in proof)),
        candidates=tuple(proof),
        links=_links(trace, proof),
    )


def _pending() -> tuple[list[Candidate], list[tuple[int, int]]]:
    """The contradictions found by the last sweep and not yet used, and the (digit, candidate
    mask) of each cell of the state they come from. Removing candidates only adds to what an
    assumption forces, so they still break the rules in the states that follow from that one:
    they are tried there (traced again, which proves them anew) before a new sweep is paid for."""
    store = kept("forcing-pending", None)
    if "pending" not in store:
        store["pending"] = ([], [])
    return store["pending"]  # type: ignore[return-value]


def _follows(grid: CandidateGrid, before: list[tuple[int, int]]) -> bool:
    """True when `grid` follows from the state `before`: it keeps that state's digits and has
    no candidate that state lacked."""
    return len(before) == 81 and all(
        (not old_value or value == old_value) and not mask & ~old_mask
        for value, mask, (old_value, old_mask) in zip(grid.values, grid.cands, before, strict=True)
    )


def contradiction_forcing_chain(grid: CandidateGrid) -> Iterator[Step]:
    """A candidate whose assumption forces singles into a contradiction; shortest first (or,
    right after an earlier contradiction step, one that the same sweep found)."""
    yielded: set[Candidate] = set()
    pending, pending_from = _pending()
    if not _follows(grid, pending_from):
        pending.clear()
    while pending:
        cell, digit = pending.pop(0)
        if grid.cands[cell] >> (digit - 1) & 1:
            step = _contradiction_step(grid, (cell, digit), nested=False)
            if step is not None:
                yielded.add((cell, digit))
                yield step
    sweep = _sweep(grid)
    broken = sorted((o.depth, c) for c, o in sweep.outcomes.items() if o.count < 0)
    shortlist = [c for _, c in broken[:_SHORTLIST]]
    traced = {c: _trace(grid, c) for c in shortlist}
    ranked = sorted(shortlist, key=lambda c: len(_proof(traced[c], traced[c].broken_by)))
    order = [c for c in [*ranked, *(c for _, c in broken[_SHORTLIST:])] if c not in yielded]
    for k, candidate in enumerate(order):
        step = _contradiction_step(grid, candidate, nested=False)
        if step is not None:
            pending[:] = order[k + 1 :]
            pending_from[:] = zip(grid.values, grid.cands, strict=True)
            yield step


# Cell and unit forcing chains.


def _common(outcomes: list[_Outcome]) -> tuple[list[Candidate], list[Candidate]]:
    """The placements and eliminations that every outcome makes."""
    placed = [-1] * 10
    gone = [-1] * 10
    for outcome in outcomes:
        for d in range(1, 10):
            placed[d] &= outcome.placed[d]
            gone[d] &= outcome.eliminated[d]
    placements = [(c, d) for d in range(1, 10) for c in _cells(placed[d])]
    eliminations = [(c, d) for d in range(1, 10) for c in _cells(gone[d])]
    return placements, eliminations


def _branches_step(
    grid: CandidateGrid,
    technique_name: str,
    branches: list[Candidate],
    premise: str,
    result: tuple[list[Candidate], list[Candidate]],
    extra_cells: tuple[int, ...],
    units: tuple[int, ...],
) -> Step:
    """A step proved by following each of `branches` to the same result."""
    placements, eliminations = result
    targets = [*placements, *eliminations]
    cells: list[int] = list(extra_cells)
    proofs = []
    links: list[Link] = []
    for branch in branches:
        trace = _trace(grid, branch)
        supports = tuple(t if t in placements else trace.removed_by.get(t) for t in targets)
        proof = _proof(trace, supports)
        if branch not in proof:
            proof = [branch, *proof]
        proofs.append(proof)
        cells.extend(c for c, _ in proof)
        links.extend(_links(trace, proof))
    nodes = sum(len(p) for p in proofs)
    cases = []
    for branch, proof in zip(branches, proofs, strict=True):
        singles = _singles_phrase([branch, *(node for node in proof if node != branch)])
        cases.append(
            f"if {cell_name(branch[0])} is {branch[1]}, " + (singles or "that alone does it")
        )
    return Step(
        technique=technique_name,
        rating=round(BRANCHES_RATING + length_bonus(nodes + 1), 1),
        explanation=f"{premise}: {'; '.join(cases)}. Every choice leads by singles to the same "
        f"result: {_result_text(placements, eliminations)}.",
        placements=tuple(placements),
        eliminations=tuple(eliminations),
        cells=tuple(dict.fromkeys(cells)),
        candidates=tuple(branches),
        units=units,
        links=tuple(dict.fromkeys(links)),
    )


def _result_text(placements: list[Candidate], eliminations: list[Candidate]) -> str:
    """What every branch proves, in words: the placements, then only the eliminations that do
    not follow from them at once (a placed cell's other digits, the placed digit around it)."""
    placed = dict(placements)
    rest = tuple(
        (cell, digit)
        for cell, digit in eliminations
        if cell not in placed
        and not any(d == digit and PEER_SETS[c] >> cell & 1 for c, d in placed.items())
    )
    said = spell(f"{cell_name(cell)} is {digit}" for cell, digit in placements)
    if rest:
        said += ("; " if said else "") + eliminated_text(rest)
    return said


def _useful(
    grid: CandidateGrid, result: tuple[list[Candidate], list[Candidate]]
) -> tuple[list[Candidate], list[Candidate]]:
    placements, eliminations = result
    return (
        [(c, d) for c, d in placements if not grid.values[c]],
        [(c, d) for c, d in eliminations if grid.cands[c] >> (d - 1) & 1],
    )


def cell_forcing_chain(grid: CandidateGrid) -> Iterator[Step]:
    """Every candidate of one cell forces the same placement or elimination; cells with fewest
    candidates first."""
    sweep = _sweep(grid)
    cells = sorted((grid.candidate_count(c), c) for c in range(81) if grid.candidate_count(c) >= 2)
    for _, cell in cells:
        branches = [(cell, d) for d in DIGITS_OF[grid.cands[cell]]]
        outcomes = [sweep.outcomes[b] for b in branches]
        if any(o.count < 0 for o in outcomes):
            continue
        result = _useful(grid, _common(outcomes))
        if result[0] or result[1]:
            digits = ", ".join(str(d) for _, d in branches[:-1]) + f" or {branches[-1][1]}"
            yield _branches_step(
                grid,
                "cell-forcing-chain",
                branches,
                f"{cell_name(cell)} is {digits}",
                result,
                (cell,),
                (),
            )


def unit_forcing_chain(grid: CandidateGrid) -> Iterator[Step]:
    """Every place of a digit in one unit forces the same placement or elimination; digits with
    fewest places first."""
    sweep = _sweep(grid)
    choices = []
    for unit, unit_cells in enumerate(UNIT_SETS):
        for d in range(1, 10):
            places = grid.digit_cells[d] & unit_cells
            count = places.bit_count()
            if count >= 2:
                choices.append((count, unit, d, places))
    choices.sort(key=lambda choice: choice[:3])
    for _, unit, d, places in choices:
        branches = [(c, d) for c in _cells(places)]
        outcomes = [sweep.outcomes[b] for b in branches]
        if any(o.count < 0 for o in outcomes):
            continue
        result = _useful(grid, _common(outcomes))
        if result[0] or result[1]:
            names = [cell_name(c) for c, _ in branches]
            where = ", ".join(names[:-1]) + f" or {names[-1]}"
            yield _branches_step(
                grid,
                "unit-forcing-chain",
                branches,
                f"{a_digit(d).capitalize()} goes in {unit_name(unit)} at {where}",
                result,
                (),
                (unit,),
            )


def nested_forcing_chain(grid: CandidateGrid) -> Iterator[Step]:
    """A candidate whose assumption leads to a contradiction when the propagation inside it may
    itself use contradiction chains; candidates of cells with fewest candidates first."""
    cands0, dc0, placed0 = _start(grid)
    order = sorted(
        ((grid.candidate_count(c), c, d) for c in range(81) for d in DIGITS_OF[grid.cands[c]]),
    )
    for _, cell, d in order:
        if _nested_breaks(cands0[:], dc0[:], placed0[:], (cell, d)):
            step = _contradiction_step(grid, (cell, d), nested=True)
            if step is not None:
                yield step


def _nested_breaks(
    cands: list[int], dc: list[int], placed: list[int], assumption: Candidate
) -> bool:
    """True when `assumption` breaks the rules by singles plus inner contradiction chains."""
    todo = [assumption]
    while True:
        if propagate(cands, dc, placed, todo) < 0:
            return True
        removed = False
        for cell in range(81):
            for d in DIGITS_OF[cands[cell]]:
                if propagate(cands[:], dc[:], placed[:], [(cell, d)]) < 0:
                    cands[cell] &= ~(1 << (d - 1))
                    dc[d] &= ~(1 << cell)
                    removed = True
                    left = cands[cell]
                    if not left:
                        return True
                    if not left & (left - 1):
                        todo.append((cell, left.bit_length()))
        if not removed:
            return False


TECHNIQUES = [
    Technique("contradiction-forcing-chain", NISHIO_RATING, contradiction_forcing_chain),
    Technique("cell-forcing-chain", BRANCHES_RATING, cell_forcing_chain),
    Technique("unit-forcing-chain", BRANCHES_RATING, unit_forcing_chain),
    Technique("nested-forcing-chain", NESTED_RATING, nested_forcing_chain),
]
