"""The logic solver's core: candidate grid, pencil marks, singles, explain."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sudoku_lens.errors import PuzzleFormatError
from sudoku_lens.logic import CandidateGrid, explain, next_step, parse_state
from sudoku_lens.logic.units import PEERS, UNITS
from sudoku_lens.puzzle import format_line
from sudoku_lens.solve import solve

EASY = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"
SOLUTION = "534678912672195348198342567859761423426853791713924856961537284287419635345286179"


def test_geometry() -> None:
    assert len(UNITS) == 27 and all(len(set(u)) == 9 for u in UNITS)
    assert all(len(p) == 20 for p in PEERS)


def test_candidates_of_a_puzzle() -> None:
    grid = CandidateGrid.from_puzzle(EASY)
    assert grid.values[0] == 5 and grid.cands[0] == 0
    assert sorted(d + 1 for d in range(9) if grid.cands[2] >> d & 1) == [1, 2, 4]
    assert all(grid.digit_cells[d] >> 2 & 1 for d in (1, 2, 4))


def test_illegal_puzzle_is_refused() -> None:
    with pytest.raises(PuzzleFormatError):
        CandidateGrid.from_puzzle("55" + "0" * 79)


def test_singles_solve_an_easy_puzzle_soundly() -> None:
    path = explain(CandidateGrid.from_puzzle(EASY))
    assert path.solved and path.end.line() == SOLUTION
    assert all(not step.contradictions(SOLUTION) for step in path.steps)
    assert next_step(CandidateGrid.from_puzzle(EASY)).technique == "hidden-single"


def test_pencilmarks_round_trip_and_nine_row_text() -> None:
    grid = CandidateGrid.from_puzzle(EASY)
    again = parse_state(grid.pencilmarks())
    # A lone candidate reads back as a placed digit, as in the classic tools' exports, and
    # is then removed from its peers; every other cell reads back as it was.
    lone = {c for c in range(81) if grid.candidate_count(c) == 1}
    near_lone = {p for c in lone for p in PEERS[c]}
    for cell in range(81):
        if cell in lone:
            assert again.values[cell] == grid.cands[cell].bit_length()
        elif cell not in near_lone:
            assert (again.values[cell], again.cands[cell]) == (grid.values[cell], grid.cands[cell])
        else:
            assert again.cands[cell] & ~grid.cands[cell] == 0
    rows = "\n".join(EASY[r * 9 : r * 9 + 9] for r in range(9))
    assert parse_state(rows).line() == grid.line()


def test_pencilmarks_with_hodoku_box_corners() -> None:
    """HoDoKu and Sudoku Explainer draw the box lines as .---.---. :---+---: '---'---'."""
    grid = CandidateGrid.from_puzzle(EASY)
    rows = [line for line in grid.pencilmarks().splitlines() if any(c.isdigit() for c in line)]
    rule = "-" * 20
    framed = [f".{rule}.{rule}.{rule}."]
    for r, row in enumerate(rows):
        framed.append(f"| {row} |")
        if r in (2, 5):
            framed.append(f":{rule}+{rule}+{rule}:")
    framed.append(f"'{rule}'{rule}'{rule}'")
    plain = parse_state(grid.pencilmarks())
    again = parse_state("\n".join(framed))
    assert again.line() == plain.line() and again.cands == plain.cands


def test_bad_pencilmarks_say_where() -> None:
    with pytest.raises(PuzzleFormatError, match="row 2"):
        CandidateGrid.from_pencilmarks("12 3 4 5 6 7 8 9 1\n1 2 3\n" * 5)
    # parse_state, which also takes puzzle text, names the pencil marks' fault, not the cells'
    lines = CandidateGrid.from_puzzle(EASY).pencilmarks().splitlines()
    marks = [line for line in lines if any(ch.isdigit() for ch in line)]
    with pytest.raises(PuzzleFormatError, match="9 rows of 9 groups, not 72 groups"):
        parse_state("\n".join(marks[:8]))
    short_row = [" ".join(marks[0].split()[:-1]), *marks[1:]]
    with pytest.raises(PuzzleFormatError, match="row 1 has 8 groups, not 9"):
        parse_state("\n".join(short_row))


@settings(max_examples=30, deadline=None)
@given(st.permutations(list(range(1, 10))), st.integers(0, 80))
def test_place_keeps_digit_cells_in_step(perm: list[int], cell: int) -> None:
    relabelled = format_line([perm[int(ch) - 1] if ch != "0" else 0 for ch in SOLUTION])
    puzzle = relabelled[:cell] + "0" + relabelled[cell + 1 :]
    grid = CandidateGrid.from_puzzle(puzzle)
    digit = int(relabelled[cell])
    assert grid.cands[cell] == 1 << (digit - 1)
    grid.place(cell, digit)
    assert grid.is_solved() and not grid.is_broken()
    assert all(bits == 0 for bits in grid.digit_cells)
    assert solve(puzzle).status.value == "solved"


def test_next_step_and_explain_take_puzzle_text_and_refuse_what_has_no_single_solution() -> None:
    from sudoku_lens.logic import UnsolvablePuzzleError, all_steps

    assert next_step(EASY) == next_step(parse_state(EASY))
    assert explain([int(c) if c != "." else 0 for c in EASY]).end.line() == SOLUTION
    assert next(all_steps(EASY)).technique == next_step(EASY).technique
    for puzzle, reason in (
        ("." * 80 + "1", "several solutions"),
        ("531" + EASY[3:], "no solution"),
    ):
        for call in (next_step, explain, lambda p: next(all_steps(p))):
            with pytest.raises(UnsolvablePuzzleError, match=reason):
                call(puzzle)


def test_a_line_of_81_cells_with_dots_is_read_as_a_puzzle_even_when_illegal() -> None:
    with pytest.raises(PuzzleFormatError, match="5 appears twice in row 1"):
        parse_state("5" + EASY[1:].replace("3", "5", 1))
    with pytest.raises(PuzzleFormatError, match="81 cells"):
        parse_state(EASY[:80])
