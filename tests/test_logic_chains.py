"""Coloring, chains, ALS and forcing chains: hand-built cases with their exact deductions, and
soundness against the exact solver.

The hand-built states start from "every digit everywhere" and take a digit (or a few cells) down
to the pattern, so that no other strong link exists: the pattern is the only deduction there is.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from itertools import combinations
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sudoku_lens.logic import (
    CandidateGrid,
    Step,
    all_steps,
    explain,
    next_step,
    parse_state,
    technique,
)
from sudoku_lens.logic.patterns.als import gather
from sudoku_lens.logic.patterns.chains import length_bonus
from sudoku_lens.logic.units import PEERS, UNITS
from sudoku_lens.solve import solve_line

SHARED = Path(__file__).parents[1].parent / "shared" / "data" / "puzzles"

MY_TECHNIQUES = (
    "simple-colors-trap",
    "simple-colors-wrap",
    "multi-colors-1",
    "multi-colors-2",
    "x-chain",
    "xy-chain",
    "continuous-nice-loop",
    "discontinuous-nice-loop",
    "aic",
    "grouped-continuous-nice-loop",
    "grouped-discontinuous-nice-loop",
    "grouped-aic",
    "sue-de-coq",
    "als-xz",
    "als-xy-wing",
    "als-xy-chain",
    "death-blossom",
    "contradiction-forcing-chain",
    "cell-forcing-chain",
    "unit-forcing-chain",
    "nested-forcing-chain",
)

BUNDLED = (
    # top1465 (hard: chains, ALS and forcing chains)
    "400030000000600800000000001000050090080000600070200000000102700503000040900000000",
    "708000300000201000500000000040000026300080000000100090090600004000070500000000000",
    # se-rated-diabolical-2000 (Sudoku Explainer 7.1 and 7.2)
    "095008006030002000480000000073900050000304000060001790000000075000400020900200830",
    "000702000001080900080010050500307006000020000070608030809000103340000065010000090",
)
NESTED = "700000400020070080003008009000500300060020090001007006000300900030040060009001005"
"""top1465 #77: singles and every plain forcing chain stall; a nested forcing chain goes on."""


def cell(name: str) -> int:
    """'r3c4' -> 21."""
    return (int(name[1]) - 1) * 9 + int(name[3]) - 1


def state(
    only: dict[int, list[str]] | None = None, cells: dict[str, str] | None = None
) -> CandidateGrid:
    """An empty grid with every candidate, but digit d only in the cells `only[d]` and each cell
    of `cells` holding just the digits given."""
    cands = [0x1FF] * 81
    for digit, names in (only or {}).items():
        keep = {cell(n) for n in names}
        for c in range(81):
            if c not in keep:
                cands[c] &= ~(1 << (digit - 1))
    for name, digits in (cells or {}).items():
        cands[cell(name)] = sum(1 << (int(d) - 1) for d in digits)
    return CandidateGrid([0] * 81, cands)


def eliminated(step: Step | None) -> set[tuple[int, int]]:
    assert step is not None
    return set(step.eliminations)


def union(grid: CandidateGrid, name: str) -> set[tuple[int, int]]:
    return {e for step in all_steps(grid, only=name) for e in step.eliminations}


def digit_elims(digit: int, *names: str) -> set[tuple[int, int]]:
    return {(cell(n), digit) for n in names}


def digit_only(rules: dict[str, list[int]]) -> list[str]:
    """The cells left for a digit when some rows ("r1") or columns ("c4") keep it only in the
    listed columns or rows."""
    cells = []
    for r in range(1, 10):
        for c in range(1, 10):
            if f"r{r}" in rules and c not in rules[f"r{r}"]:
                continue
            if f"c{c}" in rules and r not in rules[f"c{c}"]:
                continue
            cells.append(f"r{r}c{c}")
    return cells


# Coloring.


def test_simple_colors_trap() -> None:
    # 5s: column 1 only r1/r7, row 7 only c1/c4, column 4 only r2/r7: r1c1 and r2c4 have
    # opposite colors, so the cells that see both lose the 5.
    grid = state({5: digit_only({"c1": [1, 7], "r7": [1, 4], "c4": [2, 7]})})
    step = next_step(grid, only="simple-colors-trap")
    assert eliminated(step) == digit_elims(5, "r1c5", "r1c6", "r2c2", "r2c3")
    assert step.technique == "simple-colors-trap" and len(step.links) == 3


def test_simple_colors_wrap() -> None:
    # 5s: row 1 c1/c5, column 5 r1/r6, row 6 c5/c2, column 2 r6/r2: r1c1 and r2c2 share a color
    # and box 1, so that color (r1c1, r6c5, r2c2) is false.
    grid = state({5: digit_only({"r1": [1, 5], "c5": [1, 6], "r6": [5, 2], "c2": [6, 2]})})
    step = next_step(grid, only="simple-colors-wrap")
    assert eliminated(step) == digit_elims(5, "r1c1", "r6c5", "r2c2")


def test_multi_colors() -> None:
    # Cluster A: r1c1 = r1c4 = r6c4; cluster B: r2c2 = r7c2 = r7c5 = r3c5. r1c1 (A) sees r2c2 (B)
    # and r1c4 (A) sees r3c5 (B): each bridge makes one of the two other colors true.
    # One step gives what both bridges prove.
    rules = {"r1": [1, 4], "c4": [1, 6], "c2": [2, 7], "r7": [2, 5], "c5": [7, 3]}
    grid = state({5: digit_only(rules)})
    step = next_step(grid, only="multi-colors-1")
    assert eliminated(step) == digit_elims(5, "r2c6", "r3c6", "r2c1", "r2c3", "r3c1", "r3c3")
    assert union(grid, "multi-colors-1") == eliminated(step)
    assert next_step(grid, only="multi-colors-2") is None
    # each color is named, and each bridge says which two colors it leaves
    assert "r1c1,r6c4 against r1c4" in step.explanation
    assert "r2c2,r7c5 against r3c5,r7c2" in step.explanation
    assert (
        "r1c1 and r2c2 see each other, so their colors are not both true and r1c4 or "
        "r3c5,r7c2 holds a 5" in step.explanation
    )


def test_multi_colors_1_clears_a_cell_of_a_cluster() -> None:
    # Cluster A: r1c5 = r1c1 = r8c1; cluster B: r2c2 = r2c6 = r8c6. r1c1 (A) sees r2c2 (B), so
    # r8c1 or r1c5 (A's other color) or r2c6 (B's) holds the 5. r8c6, itself in B, sees r8c1
    # and r2c6: it loses the 5 like any other cell that sees both.
    grid = state({5: digit_only({"r1": [1, 5], "c1": [1, 8], "r2": [2, 6], "c6": [2, 8]})})
    step = next_step(grid, only="multi-colors-1")
    assert (cell("r8c6"), 5) in eliminated(step)
    assert eliminated(step) == digit_elims(
        5, "r1c5", "r2c2", "r3c2", "r3c3", "r3c4", "r3c5", "r8c1", "r8c6"
    )


def test_multi_colors_2() -> None:
    # Cluster A: r1c1 = r1c4 = r6c4; cluster B: r2c2 = r6c2, r2c2 = r2c8. The color of r1c1 and
    # r6c4 sees r2c2 and r6c2, both colors of B, so it is false.
    rules = {"r1": [1, 4], "c4": [1, 6], "c2": [2, 6], "r2": [2, 8]}
    grid = state({5: digit_only(rules)})
    step = next_step(grid, only="multi-colors-2")
    assert eliminated(step) == digit_elims(5, "r1c1", "r6c4")


def test_multi_colors_2_with_a_lone_conjugate_pair_for_the_other_cluster() -> None:
    # Cluster A: r1c1 = r1c4 = r6c4; cluster B is the lone pair r2c2 = r6c2 of column 2. The
    # color of r1c1 and r6c4 sees r2c2 (box 1) and r6c2 (row 6), both colors of B: it is false.
    grid = state({5: digit_only({"r1": [1, 4], "c4": [1, 6], "c2": [2, 6]})})
    step = next_step(grid, only="multi-colors-2")
    assert eliminated(step) == digit_elims(5, "r1c1", "r6c4")
    assert next_step(grid, only="simple-colors-trap") is None


# Chains.


def test_x_chain() -> None:
    # 5s: column 1 only r1/r7, column 4 only r2/r7 (a skyscraper, the shortest X-chain).
    grid = state({5: digit_only({"c1": [1, 7], "c4": [2, 7]})})
    step = next_step(grid, only="x-chain")
    assert eliminated(step) == digit_elims(5, "r1c5", "r1c6", "r2c2", "r2c3")
    assert step.explanation.startswith("If r")
    assert step.rating == 6.6 and len(step.links) == 3


def test_xy_chain() -> None:
    grid = state(cells={"r1c1": "12", "r1c5": "23", "r5c5": "31"})
    step = next_step(grid, only="xy-chain")
    assert eliminated(step) == {(cell("r5c1"), 1)}
    assert [link.strong for link in step.links] == [True, False, True, False, True]


def test_xy_chain_whose_ends_see_each_other() -> None:
    # r1c1 {1,2} - r1c5 {2,3} - r3c5 {3,4} - r3c2 {4,1}: both ends are 1 and lie in box 1. As a
    # loop it removes more; as the xy-chain it is, the 1 leaves box 1's other cells.
    grid = state(cells={"r1c1": "12", "r1c5": "23", "r3c5": "34", "r3c2": "41"})
    box_rest = ("r1c2", "r1c3", "r2c1", "r2c2", "r2c3", "r3c1", "r3c3")
    steps = [set(step.eliminations) for step in all_steps(grid, only="xy-chain")]
    assert digit_elims(1, *box_rest) in steps
    loop = next_step(grid, only="continuous-nice-loop")
    assert digit_elims(1, *box_rest) < eliminated(loop)


def test_aic() -> None:
    # r1c1 is 1 or 2; the 2s of column 7 are r1c7/r5c7; r5c3 is 2 or 1:
    # r1c1=1 or (r1c1=2 -> r1c7<>2 -> r5c7=2 -> r5c3<>2 -> r5c3=1).
    grid = state({2: digit_only({"c7": [1, 5]})}, {"r1c1": "12", "r5c3": "12"})
    step = next_step(grid, only="aic")
    assert eliminated(step) == digit_elims(1, "r1c3", "r2c3", "r3c3", "r4c1", "r5c1", "r6c1")


def test_continuous_nice_loop() -> None:
    # r1c1 = {1,2}; 2s of column 7: r1c7/r5c7; 1s of row 5: r5c7/r5c1. The loop
    # r1c1=1 = r1c1=2 - r1c7=2 = r5c7=2 - r5c7=1 = r5c1=1 - r1c1=1 makes every weak link exact.
    grid = state({2: digit_only({"c7": [1, 5]}), 1: digit_only({"r5": [7, 1]})}, {"r1c1": "12"})
    step = next_step(grid, only="continuous-nice-loop")
    expected = digit_elims(2, *(f"r1c{c}" for c in (2, 3, 4, 5, 6, 8, 9)))
    expected |= {(cell("r5c7"), d) for d in range(3, 10)}
    expected |= digit_elims(1, *(f"r{r}c1" for r in (2, 3, 4, 6, 7, 8, 9)))
    assert eliminated(step) == expected


def test_discontinuous_nice_loop() -> None:
    # r1c1 = {1,2}; 2s of column 7: r1c7/r5c7; 3s of row 5: r5c7/r5c1. If r1c1 is not 1, then
    # r1c1=2, r1c7<>2, r5c7=2, r5c7<>3, r5c1=3: r5c1 sees the 1 of r1c1 or is 3, never 1.
    # (With r1c1 in the loop's last cell instead, the chain would close into a continuous loop.)
    grid = state({2: digit_only({"c7": [1, 5]}), 3: digit_only({"r5": [7, 1]})}, {"r1c1": "12"})
    step = next_step(grid, only="discontinuous-nice-loop")
    assert eliminated(step) == {(cell("r5c1"), 1)}


def test_grouped_chain_removing_one_candidate_is_a_grouped_discontinuous_nice_loop() -> None:
    # 5s: row 1 only r1c1, r1c2 (a group) and r1c8; column 8 only r1c8/r7c8; box 1 only the
    # group and r3c3: r7c8=5 or (r1c8=5 -> the group has no 5 -> r3c3=5), which removes the 5 of
    # r7c3 alone: HoDoKu's grouped discontinuous nice loop "delete candidate".
    box1 = {"r1c1", "r1c2", "r3c3"}
    cells = [
        n
        for n in digit_only({"r1": [1, 2, 8], "c8": [1, 7]})
        if not (n[1] in "123" and n[3] in "123") or n in box1
    ]
    grid = state({5: cells})
    step = next_step(grid, only="grouped-discontinuous-nice-loop")
    assert eliminated(step) == digit_elims(5, "r7c3")
    assert next_step(grid, only="grouped-aic") is None
    assert next_step(grid, only="aic") is None and next_step(grid, only="x-chain") is None


def test_grouped_discontinuous_nice_loop() -> None:
    # 5s: row 7 only r7c3/r7c8; row 1 only r1c1, r1c2 (a group) and r1c8; column 3 only
    # r3c3/r7c3. If r7c3 is not 5: r7c8=5, r1c8<>5, the group holds the 5, r3c3<>5, r7c3=5.
    grid = state({5: digit_only({"r7": [3, 8], "r1": [1, 2, 8], "c3": [3, 7]})})
    steps = list(all_steps(grid, only="grouped-discontinuous-nice-loop"))
    assert ((cell("r7c3"), 5),) in [step.placements for step in steps]


TYPE_2_AIC = """\
4     6     18    | 59    3     18    | 5     2     7
1237  59    12    | 6     127   1479  | 8     35    3459
237   59    28    | 459   278   4789  | 345   6     1
-------------------+-------------------+-------------------
16    3     4     | 78    5     1678  | 2     9     8
12    8     59    | 49    17    13479 | 6     17    35
16    7     59    | 2     168   13689 | 345   1     3458
-------------------+-------------------+-------------------
8     4     6     | 1     9     2     | 7     35    35
5     1     3     | 78    678   678   | 9     4     2
9     2     7     | 3     4     5     | 1     8     6
"""
"""A state on the path of the third bundled puzzle: if r5c5 is not 1 it is 7, so r4c4 is not 7
and r4c6 is; the ends r5c5=1 and r4c6=7 see each other, so each end's digit leaves the other
end's cell."""


def test_chains_are_named_as_hodoku_names_them() -> None:
    """An open chain that removes one candidate is a discontinuous nice loop, one that removes
    two or more an AIC: also when the two are the other end's digit in each end cell (HoDoKu's
    AIC type 2), which the old naming called a discontinuous nice loop."""
    grid = parse_state(TYPE_2_AIC)
    aics = [set(step.eliminations) for step in all_steps(grid, only="aic")]
    assert {(cell("r5c5"), 7), (cell("r4c6"), 1)} in aics
    loops = list(all_steps(grid, only="discontinuous-nice-loop"))
    assert loops and all(len(s.eliminations) == 1 or s.placements for s in loops)
    for name in ("aic", "grouped-aic"):
        assert all(len(step.eliminations) >= 2 for step in all_steps(grid, only=name))
    # (or a group refuted as empty, which then holds the digit: a placement in all but name)
    assert all(
        len(step.eliminations) == 1 or step.links[0].start == step.links[-1].end
        for step in all_steps(grid, only="grouped-discontinuous-nice-loop")
    )


def test_grouped_continuous_nice_loop() -> None:
    # 5s: column 1 only r1c1, r2c1 (a group) and r7c1; column 5 only r7c5/r3c5; column 2 only
    # r3c2/r2c2. Loop: group = r7c1 - r7c5 = r3c5 - r3c2 = r2c2 - group.
    grid = state({5: digit_only({"c1": [1, 2, 7], "c5": [7, 3], "c2": [3, 2]})})
    step = next_step(grid, only="grouped-continuous-nice-loop")
    expected = digit_elims(5, *(f"r7c{c}" for c in (3, 4, 6, 7, 8, 9)))
    expected |= digit_elims(5, *(f"r3c{c}" for c in (3, 4, 6, 7, 8, 9)))
    expected |= digit_elims(5, "r1c3", "r2c3")
    assert eliminated(step) == expected


def test_grouped_chain_through_an_almost_locked_set() -> None:
    # r1c9 {1,4}, r1c2 {1,5}, r1c3 {1,5,6}, r5c3 {4,6}. If r1c9 is not 4 it is 1, and the
    # three cells of row 1 (1456) are locked on the rest: r1c3 is 6, so r5c3 is 4. Either end
    # is 4: r5c9, which sees both, is not.
    grid = state(cells={"r1c9": "14", "r1c2": "15", "r1c3": "156", "r5c3": "46"})
    steps = list(all_steps(grid, only="grouped-discontinuous-nice-loop"))
    through = [s for s in steps if "almost locked set" in s.explanation]
    assert through and set(through[0].eliminations) == {(cell("r5c9"), 4)}
    assert (
        "the almost locked set r1c239 {1456} loses its 4 and is locked on 1, 5 and 6, so r1c3 is "
        "6" in through[0].explanation
    )
    assert {cell("r1c2"), cell("r1c3"), cell("r1c9")} <= set(through[0].cells)


def test_grouped_chain_through_a_box_held_by_a_row_group_and_a_column_group() -> None:
    # 5s: box 1 only r1c1, r1c2 (a row's group) and r2c3, r3c3 (a column's group), so one of
    # the two groups holds its 5 (no cut of the box into rows or columns makes two parts);
    # column 8 only r1c8/r7c8; row 7 only r7c3/r7c8. If r7c8 is not 5, r1c8 is, the row's
    # group is not, the column's group is, r7c3 is not: r7c8 is 5 after all.
    box1 = {"r1c1", "r1c2", "r2c3", "r3c3"}
    rules = {"c8": [1, 7], "r7": [3, 8]}
    cells = [n for n in digit_only(rules) if not (n[1] in "123" and n[3] in "123") or n in box1]
    grid = state({5: cells})
    steps = list(all_steps(grid, only="grouped-discontinuous-nice-loop"))
    assert ((cell("r7c8"), 5),) in [step.placements for step in steps]
    step = next(s for s in steps if s.placements == ((cell("r7c8"), 5),))
    assert (
        "r1c12 holds no 5, so r23c3 holds the 5" in step.explanation
        or "r23c3 holds no 5, so r1c12 holds the 5" in step.explanation
    )


def test_grouped_chain_leaving_an_almost_locked_set_through_a_cell_it_empties() -> None:
    # The ALS r1289c9 {12345} holds its 3 in r1c9 and r2c9 only. Without its 3
    # it is locked on 1, 2, 4 and 5: r7c7 (126) sees every 1 (r8c9) and 2 (r9c9) of it, so is
    # 6. With r3c8 (36): if r3c8 is not 6 it is 3, r12c9 holds no 3, and r7c7 is 6. Either
    # end is 6: the cells that see both (r123c7, r789c8) are not. No ALS holds r7c7 with the
    # set's 1s and 2s (r7c7, r8c9, r9c9 hold five digits), so no other link reaches its 6.
    cells = {"r1c9": "34", "r2c9": "35", "r8c9": "145", "r9c9": "245", "r7c7": "126"}
    grid = state(cells={**cells, "r3c8": "36"})
    aics = list(all_steps(grid, only="grouped-aic"))
    wanted = digit_elims(6, "r1c7", "r2c7", "r3c7", "r7c8", "r8c8", "r9c8")
    assert wanted in [set(step.eliminations) for step in aics]
    step = next(s for s in aics if set(s.eliminations) == wanted)
    assert (
        "the almost locked set r1289c9 {12345} loses its 3 and is locked on 1, 2, 4 and 5, so "
        "r7c7, which sees every 1 and 2 of it, is 6" in step.explanation
    )


TWO_ALS_LOOP = """\
7      126    8      | 459    4569   4569   | 3      156    125
9      3      4      | 2      56     1      | 67     578    578
5      126    126    | 78     3      78     | 269    4      129
----------------------+----------------------+----------------------
18     4      1579   | 3579   59     3579   | 178    2      6
3      126    1269   | 479    8      2469   | 147    157    157
268    57     2567   | 1      2456   2467   | 478    9      3
----------------------+----------------------+----------------------
12     9      1357   | 6      125    2358   | 127    1378   4
1246   8      1236   | 349    7      2349   | 5      136    129
246    57     13567  | 34589  1249   234589 | 269    13678  1789
"""
"""A state on the path of the second bundled puzzle: a loop through the almost locked sets
r2c57 {567} and r7c157 {1257}."""


def test_a_loop_through_almost_locked_sets_also_clears_their_locked_digits() -> None:
    # r2c5=5 or r2c7=7 in the first ALS, r7c7=7 or r7c5=5 in the second; closed into a loop,
    # each ALS lacks one of its two loop digits, so the second holds its 1 and its 2: the
    # cells of row 7 that see all of its 1s (r7c3, r7c8) or all of its 2s (r7c6) lose them.
    grid = parse_state(TWO_ALS_LOOP)
    loops = [set(s.eliminations) for s in all_steps(grid, only="grouped-continuous-nice-loop")]
    locked = digit_elims(1, "r7c3", "r7c8") | digit_elims(2, "r7c6")
    weak_links = digit_elims(5, "r1c5", "r4c5", "r6c5") | digit_elims(7, "r4c7", "r5c7", "r6c7")
    assert locked | weak_links in loops
    solution = solve_line(BUNDLED[1]).solution
    assert all(int(solution[c]) != d for c, d in locked | weak_links)


def test_searches_kept_per_state_follow_the_state_not_the_object() -> None:
    # The chain search of a state is kept for the techniques tried after one another on it;
    # changing the grid object afterwards must not leak into a search of an equal state.
    box1 = {"r1c1", "r1c2", "r3c3"}
    cells = [
        n
        for n in digit_only({"r1": [1, 2, 8], "c8": [1, 7]})
        if not (n[1] in "123" and n[3] in "123") or n in box1
    ]
    grid = state({5: cells})
    original = grid.copy()
    assert next_step(grid, only="aic") is None
    grid.eliminate(cell("r3c3"), 5)
    grid.eliminate(cell("r1c8"), 5)
    assert eliminated(next_step(original, only="grouped-discontinuous-nice-loop")) == digit_elims(
        5, "r7c3"
    )


def test_finding_steps_leaves_the_grid_alone() -> None:
    grid = CandidateGrid.from_puzzle(BUNDLED[0])
    for step in explain(grid).steps[:40]:
        grid.apply(step)
    before = (grid.values[:], grid.cands[:], grid.digit_cells[:])
    for name in MY_TECHNIQUES[:-1]:
        for _ in all_steps(grid, only=name):
            pass
    assert (grid.values, grid.cands, grid.digit_cells) == before


# Almost locked sets.


def test_als_xz() -> None:
    # A = r1c1 {1,2}; B = r1c7 {2,3} + r5c7 {1,3} in column 7; RCC 2, so the 1 is in A or B.
    grid = state(cells={"r1c1": "12", "r1c7": "23", "r5c7": "13"})
    assert eliminated(next_step(grid, only="als-xz")) == {(cell("r5c1"), 1)}


def test_als_xz_with_an_almost_locked_set_of_five_cells() -> None:
    # A = r1c1 {1,6}; B = r1c7-r5c7, five cells holding 1-6, no fewer of which make an ALS that
    # links to A. B's only 1 (r1c7) sees A's: one of them is locked, so the 6 is in A or in B's
    # only 6, r2c7. Looked for once the sets of up to four cells give nothing.
    column = {"r1c7": "123", "r2c7": "2456", "r3c7": "345", "r4c7": "2345", "r5c7": "2345"}
    grid = state(cells={"r1c1": "16", **column})
    step = next_step(grid, only="als-xz")
    assert eliminated(step) == digit_elims(6, "r1c8", "r1c9", "r2c1", "r2c2", "r2c3")
    assert step.explanation.startswith("The almost locked sets r1c1 {16} and r12345c7 {123456}")


TWO_Z_STATE = """\
4       12569   1256789 | 5789    3       15789   | 259     2567    25679
1237    12359   12579   | 6       12479   14579   | 8       2357    234579
23678   23569   256789  | 45789   24789   45789   | 23459   23567   1
-------------------------+-------------------------+-------------------------
1236    12346   1246    | 3478    5       134678  | 1234    9       23478
123     8       12459   | 3479    1479    13479   | 6       12357   23457
136     7       14569   | 2       14689   134689  | 1345    1358    3458
-------------------------+-------------------------+-------------------------
68      46      468     | 1       4689    2       | 7       3568    35689
5       126     3       | 789     6789    6789    | 129     4       2689
9       1246    124678  | 34578   4678    345678  | 1235    123568  23568
"""
"""A state on the path of the first bundled puzzle with an ALS-XZ that leaves two digits."""


def test_an_als_xz_that_leaves_two_digits_says_both() -> None:
    steps = [s.explanation for s in all_steps(parse_state(TWO_Z_STATE), only="als-xz")]
    assert (
        "The almost locked sets r4567c1 {12368} and r789c2,r7c3 {12468} cannot both hold 8 "
        "(every 8 of one sees every 8 of the other), so one of them is locked and 1 and 2 are "
        "each in one of the two: r4c2 cannot be 1 or 2."
    ) in steps


@pytest.mark.parametrize(
    ("names", "written"),
    [
        ("r1c8", "r1c8"),
        ("r3c8 r2c8", "r23c8"),
        ("r1c7 r1c8 r3c8", "r1c78,r3c8"),
        ("r1c8 r2c8 r2c9 r3c8", "r123c8,r2c9"),
        ("r4c2 r5c1 r5c3 r6c2", "r46c2,r5c13"),
        ("r1c1 r1c2 r2c1 r2c2", "r12c12"),
    ],
)
def test_sets_of_cells_are_written_as_hodoku_writes_them(names: str, written: str) -> None:
    from sudoku_lens.logic.patterns._common import cells_with_digits, compact_cells

    assert compact_cells(cell(name) for name in names.split()) == written
    assert cells_with_digits([cell(name) for name in names.split()], 0b10001001) == (
        f"{written} {{148}}"
    )


def test_doubly_linked_als_xz() -> None:
    # A = r1c1 {1,2}; B = r2c2 {1,3} + r2c3 {2,3} in row 2 (and box 1). Every 1 of A sees every
    # 1 of B, and the same for 2: each holds one of 1 and 2, so B's 3 is in B as well.
    grid = state(cells={"r1c1": "12", "r2c2": "13", "r2c3": "23"})
    box_rest = ("r1c2", "r1c3", "r2c1", "r3c1", "r3c2", "r3c3")
    expected = digit_elims(1, *box_rest) | digit_elims(2, *box_rest)
    expected |= digit_elims(3, *box_rest, *(f"r2c{c}" for c in range(4, 10)))
    steps = list(all_steps(grid, only="als-xz"))
    assert expected in [set(step.eliminations) for step in steps]
    doubly = next(step for step in steps if set(step.eliminations) == expected)
    assert "cannot both hold 1, nor both 2" in doubly.explanation


def test_als_xy_wing() -> None:
    grid = state(cells={"r1c1": "12", "r1c5": "13", "r5c1": "23"})
    assert eliminated(next_step(grid, only="als-xy-wing")) == {(cell("r5c5"), 3)}


def test_als_xy_chain() -> None:
    grid = state(cells={"r1c1": "12", "r1c5": "23", "r5c5": "34", "r5c9": "41"})
    step = next_step(grid, only="als-xy-chain")
    assert eliminated(step) == digit_elims(1, "r1c9", "r5c1")
    assert step.explanation.startswith(
        "In the chain of almost locked sets r1c1 {12} -2- r1c5 {23} -3- r5c5 {34} -4- r5c9 {14} "
    )


def test_death_blossom() -> None:
    # Stem r5c5 {1,2}: petal for 1 is r1c5 {1,3}, petal for 2 is r5c1 {2,3}: both leave a 3.
    grid = state(cells={"r5c5": "12", "r1c5": "13", "r5c1": "23"})
    step = next_step(grid, only="death-blossom")
    assert eliminated(step) == {(cell("r1c1"), 3)}
    # the stem with its candidates, each petal as HoDoKu writes an almost locked set
    assert step.explanation == (
        "Whatever the stem r5c5 {12} holds, the petal of that digit (1: r1c5 {13}, 2: r5c1 {23}) "
        "loses it and is locked, so it holds every other digit it has, including 3: r1c1 cannot "
        "be 3."
    )


def test_death_blossom_with_a_stem_of_four_candidates() -> None:
    # Stem r5c5 {1,2,3,4}; the petals r4c4 {1,9}, r4c6 {2,9}, r6c4 {3,9}, r6c6 {4,9} all see it
    # and all hold 9: box 5's other cells lose the 9.
    cells = {"r5c5": "1234", "r4c4": "19", "r4c6": "29", "r6c4": "39", "r6c6": "49"}
    steps = [set(step.eliminations) for step in all_steps(state(cells=cells), only="death-blossom")]
    assert digit_elims(9, "r4c5", "r5c4", "r5c6", "r6c5") in steps


SHARED_CELL_ALS = """\
4     569   1268  | 5789  3     15789 | 25    2567  5679
1237  359   12    | 6     127   14579 | 8     2357  34579
23678 3569  268   | 45789 278   45789 | 2345  23567 1
-------------------+-------------------+-------------------
1236  346   124   | 378   5     13678 | 23    9     378
123   8     59    | 3479  17    13479 | 6     12357 357
136   7     59    | 2     168   13689 | 345   1358  3458
-------------------+-------------------+-------------------
68    46    468   | 1     9     2     | 7     35    35
5     1     3     | 78    678   678   | 9     4     2
9     2     7     | 35    4     35    | 1     68    68
"""
"""A state on the path of the first bundled puzzle where almost locked sets that share a cell
prove what no disjoint ones do (as HoDoKu's death blossoms and ALS-XY-wings of type 2)."""


def test_death_blossom_and_als_xy_wing_with_almost_locked_sets_that_share_a_cell() -> None:
    # Stem r1c7 {25}: petal of 2 r1237c8 {23567}, of 5 r2c1358 {12357}; both hold r2c8 and
    # 7, and the one the stem's digit locks holds its 7.
    grid = parse_state(SHARED_CELL_ALS)
    solution = solve_line(BUNDLED[0]).solution
    blossoms = {tuple(s.eliminations) for s in all_steps(grid, only="death-blossom")}
    assert ((cell("r2c9"), 7),) in blossoms
    # Pivot r48c4 {378}; wings r14c7 {235} by 3 and the five cells of row 1, r1c24789
    # {256789}, by 8 share r1c7, and both hold 2 and 5.
    wings = {frozenset(s.eliminations) for s in all_steps(grid, only="als-xy-wing")}
    found = {(cell("r1c6"), 5), (cell("r3c7"), 2)}
    assert found in wings
    assert all(int(solution[c]) != d for c, d in found | {(cell("r2c9"), 7)})


def test_sue_de_coq() -> None:
    # r1c1, r1c2 hold 1234; r1c5 {1,2} in the row and r2c1 {3,4} in the box complete them.
    grid = state(cells={"r1c1": "1234", "r1c2": "1234", "r1c5": "12", "r2c1": "34"})
    step = next_step(grid, only="sue-de-coq")
    row = [f"r1c{c}" for c in (3, 4, 6, 7, 8, 9)]
    box = ["r1c3", "r2c2", "r2c3", "r3c1", "r3c2", "r3c3"]
    assert eliminated(step) == (
        digit_elims(1, *row) | digit_elims(2, *row) | digit_elims(3, *box) | digit_elims(4, *box)
    )
    assert step.explanation.startswith(
        "The 2 cells r1c12 {1234} where row 1 crosses box 1, with r1c5 {12} in the line and "
        "r2c1 {34} in the box, which share no digit, make 4 cells for 4 digits, each exactly "
        "once: r1c3 cannot be 1, 2, 3 or 4, "
    )


def test_sue_de_coq_with_three_helper_cells() -> None:
    # r1c1, r1c2 hold 123689; r1c4, r1c5, r1c6 (2389: three cells, four digits) in the row and
    # r2c1 (16) in the box complete them: six cells, six digits. No helper of two cells does.
    grid = state(
        cells={"r1c1": "1236", "r1c2": "1689", "r1c4": "39", "r1c5": "28", "r1c6": "238"}
        | {"r2c1": "16"}
    )
    step = next_step(grid, only="sue-de-coq")
    row = ["r1c3", "r1c7", "r1c8", "r1c9"]
    box = ["r1c3", "r2c2", "r2c3", "r3c1", "r3c2", "r3c3"]
    expected = set().union(*(digit_elims(d, *row) for d in (2, 3, 8, 9)))
    assert eliminated(step) == expected | digit_elims(1, *box) | digit_elims(6, *box)
    assert {cell(n) for n in ("r1c4", "r1c5", "r1c6", "r2c1")} <= set(step.cells)


# Forcing chains.

SOLUTION = "534678912672195348198342567859761423426853791713924856961537284287419635345286179"


def test_contradiction_forcing_chain() -> None:
    # The solution with r1c1 (5), r1c2 (3), r1c3 (4) empty: r1c1 {5,3}, r1c2 {3,4}, r1c3 {4}.
    values = [int(ch) for ch in SOLUTION]
    cands = [0] * 81
    for c, digits in ((0, "53"), (1, "34"), (2, "4")):
        values[c] = 0
        cands[c] = sum(1 << (int(d) - 1) for d in digits)
    grid = CandidateGrid(values, cands)
    first = next_step(grid, only="contradiction-forcing-chain")
    assert first.eliminations == ((1, 4),)
    assert "r1c3 would have no candidate left" in first.explanation
    assert first.rating == 8.5  # several digits: a dynamic forcing chain
    assert union(grid, "contradiction-forcing-chain") == {(1, 4), (0, 3)}


def test_a_contradiction_says_what_clashes() -> None:
    """A single forced where its digit is already gone says why it is forced and why it cannot
    be: the cell would hold two digits, or the same digit as a cell it sees (it said "could not
    be 9 as forced", then left out what forced the 9)."""
    path = explain(
        "400030000000600800000000001000050090080000600070200000000102700503000040900000000"
    )
    steps = [s for s in path.steps if s.technique == "contradiction-forcing-chain"]
    said = " ".join(step.explanation for step in steps)
    assert (
        "r2c2 would be 3 and r2c2 would have to be 9 (as the last place for a 9 in row 2) as well "
        "as 3, so r2c6 cannot be 5"
    ) in said
    assert "as forced" not in said
    path = explain(
        "708000300000201000500000000040000026300080000000100090090600004000070500000000000"
    )
    said = " ".join(step.explanation for step in path.steps)
    assert (
        "r5c6 would be 2 and r8c6 would have to be 2 (as the last place for a 2 in row 8) too, in "
        "column 6 with r5c6"
    ) in said


def test_contradiction_through_one_digit_is_a_nishio() -> None:
    # The 5s of row 1 are r1c4 and r1c6: a 5 anywhere else in box 2 leaves row 1 without one.
    grid = state({5: digit_only({"r1": [4, 6]})})
    first = next_step(grid, only="contradiction-forcing-chain")
    assert first.rating == 7.5 and "row 1 would have no place left for a 5" in first.explanation
    box = [f"r{r}c{c}" for r in (2, 3) for c in (4, 5, 6)]
    assert union(grid, "contradiction-forcing-chain") == digit_elims(5, *box)


def test_cell_forcing_chain() -> None:
    # r1c1 {1,2}: with 1, r1c5 {1,3} is 3; with 2, r5c1 {2,3} is 3; either way r5c5 is not 3.
    grid = state(cells={"r1c1": "12", "r1c5": "13", "r5c1": "23"})
    step = next_step(grid, only="cell-forcing-chain")
    assert eliminated(step) == {(cell("r5c5"), 3)}
    assert step.explanation == (
        "r1c1 is 1 or 2: if r1c1 is 1, r1c5 would be 3; if r1c1 is 2, r5c1 would be 3. Every "
        "choice leads by singles to the same result: r5c5 cannot be 3."
    )


def test_unit_forcing_chain() -> None:
    # The 7s of row 9 are r9c1/r9c9; r1c1 and r1c9 are {3,7}: either way r1c1 and r1c9 take
    # 3 and 7, and columns 1 and 9 get their 7 at the ends.
    grid = state({7: digit_only({"r9": [1, 9]})}, {"r1c1": "37", "r1c9": "37"})
    step = next_step(grid, only="unit-forcing-chain")
    row = [f"r1c{c}" for c in range(2, 9)]
    columns = [f"r{r}c{c}" for r in range(2, 9) for c in (1, 9)]
    assert eliminated(step) == digit_elims(3, *row) | digit_elims(7, *row, *columns)
    assert step.explanation.startswith("A 7 goes in row 9 at r9c1 or r9c9: if r9c1 is 7, ")
    assert step.explanation.count(" cannot be ") <= 3, "each elimination said once"


def test_nested_forcing_chain_goes_on_where_plain_ones_stall() -> None:
    solution = solve_line(NESTED).solution
    grid = CandidateGrid.from_puzzle(NESTED)
    for step in explain(grid).steps:
        if step.technique == "nested-forcing-chain":
            break
        grid.apply(step)
    else:
        pytest.fail("the puzzle no longer needs a nested forcing chain")
    for plain in ("contradiction-forcing-chain", "cell-forcing-chain", "unit-forcing-chain"):
        assert next_step(grid, only=plain) is None
    nested = next_step(grid, only="nested-forcing-chain")
    assert nested is not None and nested.eliminations and not nested.contradictions(solution)


# Ratings, catalog and sentences.


def test_length_bonus_follows_sudoku_explainer() -> None:
    # +0.1 each time the length (nodes - 2) passes 4, 6, 8, 12, 16, ...
    nodes = (4, 6, 7, 8, 9, 10, 11, 14, 15, 18, 19)
    assert [length_bonus(n) for n in nodes] == [0, 0, 0.1, 0.1, 0.2, 0.2, 0.3, 0.3, 0.4, 0.4, 0.5]


def test_every_technique_is_registered() -> None:
    for name in MY_TECHNIQUES:
        assert technique(name).name == name


# Soundness against the exact solver.


def check_explanation(puzzle: str) -> None:
    solution = solve_line(puzzle).solution
    grid = CandidateGrid.from_puzzle(puzzle)
    path = explain(grid)
    assert path.solved, f"{puzzle} not explained to the end"
    state_now = grid.copy()
    for step in path.steps:
        assert not step.contradictions(solution), (step.technique, step.explanation)
        assert step.explanation.endswith(".")
        state_now.apply(step)
    assert state_now.line() == solution


def check_every_instance(puzzle: str, every: int) -> None:
    """Every instance of every technique of this module, on every `every`-th state of the
    puzzle's explanation, against the solution."""
    solution = solve_line(puzzle).solution
    grid = CandidateGrid.from_puzzle(puzzle)
    for number, step in enumerate(explain(grid).steps):
        if number % every == 0 and step.technique not in ("hidden-single", "full-house"):
            for name in MY_TECHNIQUES[:-1]:
                for found in all_steps(grid, only=name):
                    assert not found.contradictions(solution), (name, found.explanation)
        grid.apply(step)


@pytest.mark.parametrize("puzzle", BUNDLED)
def test_bundled_puzzles_explained_soundly(puzzle: str) -> None:
    check_explanation(puzzle)


@pytest.mark.parametrize("puzzle", BUNDLED[2:])
def test_every_instance_sound_on_bundled_puzzles(puzzle: str) -> None:
    check_every_instance(puzzle, every=3)


@settings(max_examples=8, deadline=None)
@given(st.permutations(list(range(1, 10))), st.booleans())
def test_relabelled_and_transposed_puzzles_explained_soundly(perm: list[int], flip: bool) -> None:
    # Relabelling the digits or transposing the grid changes no logic: the chains must stay
    # sound and still finish the puzzle.
    puzzle = BUNDLED[3]
    if flip:
        puzzle = "".join(puzzle[c * 9 + r] for r in range(9) for c in range(9))
    check_explanation("".join("0" if ch == "0" else str(perm[int(ch) - 1]) for ch in puzzle))


def _als_by_definition(grid: CandidateGrid, max_cells: int) -> dict[int, tuple]:
    """Every almost locked set of up to `max_cells` cells, straight from the definition: n cells
    of one unit holding n + 1 digits between them; (mask, holders, seers) by cell set."""
    found: dict[int, tuple] = {}
    for unit in UNITS:
        empty = [c for c in unit if grid.cands[c]]
        for size in range(1, max_cells + 1):
            for chosen in combinations(empty, size):
                mask = 0
                for c in chosen:
                    mask |= grid.cands[c]
                cells = sum(1 << c for c in chosen)
                if bin(mask).count("1") != size + 1 or cells in found:
                    continue
                holders = [0] * 10
                for c in chosen:
                    for d in range(1, 10):
                        if grid.cands[c] >> (d - 1) & 1:
                            holders[d] |= 1 << c
                seers = [0] * 10
                for d in range(1, 10):
                    if holders[d]:
                        seers[d] = sum(
                            1 << o
                            for o in range(81)
                            if not cells >> o & 1
                            and all(o in PEERS[c] for c in chosen if holders[d] >> c & 1)
                        )
                found[cells] = (mask, tuple(holders), tuple(seers))
    return found


_FEW_DIGITS = st.sets(st.integers(1, 9), max_size=4).map(lambda ds: sum(1 << d - 1 for d in ds))


@settings(max_examples=40, deadline=None)
@given(st.lists(_FEW_DIGITS, min_size=81, max_size=81), st.integers(2, 5))
def test_gathered_als_are_those_of_the_definition(cands: list[int], max_cells: int) -> None:
    # Cells of 0 to 4 candidates (none: a filled cell): gather, which builds each unit's subsets
    # one cell at a time, drops those that cannot grow into an ALS and remembers the ALS of a
    # unit by its candidates, finds exactly the ALS the definition gives.
    grid = CandidateGrid([0] * 81, cands)
    expected = _als_by_definition(grid, max_cells)
    found = {als.cells: (als.mask, als.holders, als.seers) for als in gather(grid, max_cells)}
    assert found == expected
    again = {als.cells for als in gather(grid, max_cells)}  # from what was remembered
    assert again == set(expected)


def test_threads_solving_at_once_keep_their_own_searches() -> None:
    # The web app may explain several puzzles at once in threads: what a technique keeps about
    # the last state it saw must not be shared between them.
    with ThreadPoolExecutor(max_workers=4) as pool:
        list(pool.map(check_explanation, BUNDLED * 2))


def shared_sample(name: str, count: int) -> list[str]:
    path = SHARED / name
    if not path.exists():
        pytest.skip(f"shared puzzle data not found at {path}")
    lines = [w for raw in path.read_text().splitlines() for w in raw.split() if len(w) == 81]
    step = max(1, len(lines) // count)
    return lines[::step][:count]


@pytest.mark.parametrize("name", ["top1465.txt", "se-rated-diabolical-2000.txt"])
def test_shared_sample_explained_soundly(name: str) -> None:
    for puzzle in shared_sample(name, 6):
        check_explanation(puzzle)


def test_shared_sample_every_instance_sound() -> None:
    for puzzle in shared_sample("se-rated-diabolical-2000.txt", 2):
        check_every_instance(puzzle, every=4)


def test_a_chain_asked_for_again_in_the_same_state_is_the_same_chain() -> None:
    """The chain search keeps its work for the last state it saw (per thread). A deduction it
    has given must be given again when the same state is asked again (a hint asked twice, a page
    reloaded), and a puzzle explained twice takes the same path (it ran 85 steps, then 86)."""
    puzzle = "48.3............71.2.......7.5....6....2..8.............1.76...3.....4......5...."

    def path() -> list[tuple]:
        steps = explain(CandidateGrid.from_puzzle(puzzle)).steps
        return [(s.technique, s.placements, s.eliminations) for s in steps]

    assert path() == path()
    state = CandidateGrid.from_puzzle(puzzle)
    step = next_step(state)
    while step is not None and step.technique != "xy-chain":
        state.apply(step)
        step = next_step(state)
    assert step is not None
    for _ in range(3):
        again = next_step(state)
        assert again is not None
        assert (again.technique, again.eliminations) == (step.technique, step.eliminations)


def test_a_loop_through_an_almost_locked_set_says_what_the_set_keeps() -> None:
    puzzle = "001300000009060100050001067006050008080907040900080700460500030007040800000008600"
    loop = next(
        step
        for step in explain(puzzle).steps
        if "almost locked set r46c2,r5c13 {12345}" in step.explanation
    )
    assert (
        "loses its 4 and is locked on 2, 3, 5 and 9, so r2c2, which sees every 2 and 3 of it, is 4"
        in loop.explanation
    )
    assert loop.explanation.endswith(
        "r1c7 cannot be 9; the locked set r46c2,r5c13 {12345} keeps its 2, and r6c3 sees every 2 "
        "of it: r6c3 cannot be 2; the locked set r46c2,r5c13 {12345} keeps its 3, and r6c3 sees "
        "every 3 of it: r6c3 cannot be 3."
    )
