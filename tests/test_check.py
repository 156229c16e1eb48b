"""Checking a person's handwritten entries: wrong, unsure and right entries, givens only, drawing.

These tests give the readings of generated hand-filled photos the generator's truth
(`truth_reading`), or doubt it on purpose, and check what is done with the kinds.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import given_misread_to_another_answer, pen_digit, truth_reading
from sudoku_lens import pipeline
from sudoku_lens.pipeline import (
    DIGIT_CHANGES,
    DOUBTED_FROM,
    ENTRY_SURE,
    RIGHT_FROM,
    UNSURE_BELOW,
    WRONG_ODDS,
    CheckedEntry,
    answer_reading,
    draw_answer,
    person_entries,
    solve_photo,
)
from sudoku_lens.read.image_io import Photo, load_photo
from sudoku_lens.read.kinds import EMPTY, HANDWRITTEN, NOTES, PRINTED
from sudoku_lens.read.reader import Reading, read_image
from sudoku_lens.repair import repair
from sudoku_lens.solve import Status, count_solutions
from sudoku_lens.synth.handwriting import SyntheticFilledPhoto, synth_filled_photo


@pytest.fixture(scope="module")
def sample() -> SyntheticFilledPhoto:
    """An upright easy photo with entries in blue ballpoint, pencil notes and three mistakes."""
    return synth_filled_photo(3, "easy", mistakes=3, pen="ballpoint-blue", rotation=0)


@pytest.fixture(scope="module")
def reading(sample: SyntheticFilledPhoto) -> Reading:
    found = truth_reading(sample)
    assert np.array_equal(found.givens, sample.photo.puzzle), "the printed digits read exactly"
    return found


def expected_wrong(sample: SyntheticFilledPhoto) -> list[CheckedEntry]:
    solution = sample.photo.solution
    return [
        CheckedEntry((int(r), int(c)), int(sample.filled.digits[r, c]), int(solution[r, c]))
        for r, c in zip(*np.nonzero(sample.filled.mistakes), strict=True)
    ]


def read_unclearly(
    reading: Reading,
    sample: SyntheticFilledPhoto,
    r: int,
    c: int,
    confidence: float | None = None,
    read_as: int | None = None,
    truth_share: float = RIGHT_FROM / 2,
) -> Reading:
    """`reading` with cell (r, c) read unsurely, as a misread comes out: its digit (or `read_as`)
    at `confidence`, by default just below `UNSURE_BELOW`; the solution's digit, where it is
    another, given `truth_share` (by default half of `RIGHT_FROM`); the rest spread evenly over
    the other values."""
    digit = int(reading.grid[r, c]) if read_as is None else read_as
    truth = int(sample.photo.solution[r, c])
    confidence = UNSURE_BELOW - 0.05 if confidence is None else confidence
    grid, probabilities = reading.grid.copy(), reading.probabilities.copy()
    grid[r, c] = digit
    probabilities[r, c] = 0.0
    probabilities[r, c, digit] = confidence
    if truth != digit:
        probabilities[r, c, truth] = truth_share
    rest = [d for d in range(10) if d not in (digit, truth)]
    probabilities[r, c, rest] = (1.0 - probabilities[r, c].sum()) / len(rest)
    return dataclasses.replace(reading, grid=grid, probabilities=probabilities)


def test_planted_mistakes_are_wrong_with_the_right_digit_and_right_entries_pass(
    sample: SyntheticFilledPhoto, reading: Reading
) -> None:
    answer = answer_reading(reading)
    assert answer.status is Status.SOLVED
    np.testing.assert_array_equal(answer.grid, sample.photo.puzzle)
    np.testing.assert_array_equal(answer.solution, sample.photo.solution)
    assert answer.wrong_entries == expected_wrong(sample)
    assert answer.unsure_entries == []
    np.testing.assert_array_equal(answer.entries, reading.entries)


def test_an_entry_read_without_confidence_is_unsure_never_wrong(
    sample: SyntheticFilledPhoto, reading: Reading
) -> None:
    (r, c) = expected_wrong(sample)[0].cell
    answer = answer_reading(read_unclearly(reading, sample, r, c))
    assert answer.unsure_entries == [CheckedEntry((r, c), int(reading.grid[r, c]), None)]
    assert (r, c) not in [entry.cell for entry in answer.wrong_entries]
    assert len(answer.wrong_entries) == len(expected_wrong(sample)) - 1
    assert answer.unsure_entries[0].to_json() == {
        "cell": f"r{r + 1}c{c + 1}",
        "written": int(reading.grid[r, c]),
    }


def test_an_entry_in_a_cell_the_content_model_holds_empty_is_unsure_never_wrong(
    sample: SyntheticFilledPhoto, reading: Reading
) -> None:
    """The ghost of a rubbed-out entry, read surely as a digit, is unsure when the cell-content
    model sees nothing written there; the same digit typed by the person is checked."""
    (r, c) = expected_wrong(sample)[0].cell
    doubt = np.ones((9, 9), np.float32)
    doubt[r, c] = ENTRY_SURE / 2
    ghost = dataclasses.replace(reading, entry_sureness=doubt)
    answer = answer_reading(ghost)
    assert answer.unsure_entries == [CheckedEntry((r, c), int(reading.grid[r, c]), None)]
    assert len(answer.wrong_entries) == len(expected_wrong(sample)) - 1
    doubt[r, c] = ENTRY_SURE
    assert answer_reading(ghost).wrong_entries == expected_wrong(sample)
    doubt[r, c] = ENTRY_SURE / 2
    solution = sample.photo.solution
    typed = reading.entries.copy()
    typed[r, c] = next(d for d in range(1, 10) if d not in (typed[r, c], solution[r, c]))
    mistake = answer_reading(ghost, grid=sample.photo.puzzle, entries=typed)
    assert CheckedEntry((r, c), int(typed[r, c]), int(solution[r, c])) in mistake.wrong_entries


def test_the_reader_holds_the_written_entries_sure_and_other_cells_certain(
    sample: SyntheticFilledPhoto,
) -> None:
    read = read_image(sample.photo.image)
    entries = read.kinds == HANDWRITTEN
    assert entries.sum() > 20
    assert (read.entry_sureness[entries] >= ENTRY_SURE).mean() > 0.97
    assert (read.entry_sureness[~entries] == 1.0).all()


def test_an_entry_read_unsurely_as_the_solutions_digit_is_right(
    sample: SyntheticFilledPhoto, reading: Reading
) -> None:
    """Read below `UNSURE_BELOW` but at `RIGHT_FROM` or more, a right entry is neither wrong nor
    unsure; a mistake read as unsurely is unsure (the solution's digit gets little of the rest)."""
    right = np.argwhere((reading.kinds == HANDWRITTEN) & ~sample.filled.mistakes)
    (r, c), (mr, mc) = right[0], expected_wrong(sample)[0].cell
    confidence = (RIGHT_FROM + UNSURE_BELOW) / 2
    unclear = read_unclearly(reading, sample, r, c, confidence)
    unclear = read_unclearly(unclear, sample, mr, mc, confidence)
    answer = answer_reading(unclear)
    assert answer.unsure_entries == [CheckedEntry((mr, mc), int(reading.grid[mr, mc]), None)]
    assert answer.wrong_entries == expected_wrong(sample)[1:]


@pytest.mark.parametrize("confidence", [0.83, 0.95])
def test_a_sure_misread_that_leaves_the_solutions_digit_a_trace_is_unsure_never_wrong(
    sample: SyntheticFilledPhoto, reading: Reading, confidence: float
) -> None:
    """A right entry read surely as another digit (as a 1 for a 7 at 0.83, or a 7 for a 3 at
    0.95, on the hand-filled validation photos) whose solution's digit keeps more than
    1/`WRONG_ODDS` of the digit read is unsure, not a false alarm; with a tenth of that trace
    left, it is wrong; the planted mistakes stay wrong either way."""
    right = (reading.kinds == HANDWRITTEN) & ~sample.filled.mistakes
    (r, c) = (int(v) for v in np.argwhere(right)[0])
    truth = int(sample.photo.solution[r, c])
    wrongly = truth % 9 + 1
    trace = 1.5 * confidence / WRONG_ODDS
    assert trace < RIGHT_FROM
    doubtful = answer_reading(read_unclearly(reading, sample, r, c, confidence, wrongly, trace))
    assert doubtful.unsure_entries == [CheckedEntry((r, c), wrongly, None)]
    assert doubtful.wrong_entries == expected_wrong(sample)
    sure = answer_reading(read_unclearly(reading, sample, r, c, confidence, wrongly, trace / 10))
    assert sure.unsure_entries == []
    assert sure.wrong_entries == sorted(
        [*expected_wrong(sample), CheckedEntry((r, c), wrongly, truth)], key=lambda e: e.cell
    )


def test_a_misread_entry_is_right_where_its_cell_gives_the_solutions_digit_enough(
    sample: SyntheticFilledPhoto, reading: Reading, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A right entry misread as another digit is still right where the digit model gives the
    solution's digit `RIGHT_FROM` or more (a misread keeps its true digit among the runners-up),
    and a hint continues from the solution's digit there; with less, and `WRONG_ODDS` times
    less than the digit read, it is wrong."""
    from sudoku_lens.hints import hint_photo
    from sudoku_lens.read import reader

    right = (reading.kinds == HANDWRITTEN) & ~sample.filled.mistakes
    (r, c) = (int(v) for v in np.argwhere(right)[0])
    truth = int(sample.photo.solution[r, c])
    wrongly = truth % 9 + 1
    doubtful = read_unclearly(reading, sample, r, c, 0.7, wrongly, truth_share=RIGHT_FROM)
    answer = answer_reading(doubtful)
    assert answer.entries[r, c] == wrongly
    assert answer.wrong_entries == expected_wrong(sample) and answer.unsure_entries == []
    monkeypatch.setattr(reader, "read_photo", lambda source, **_: doubtful)
    found = hint_photo(sample.photo.image)
    assert np.asarray(found.state.values).reshape(9, 9)[r, c] == truth
    assert r * 9 + c not in found.wrong_entries

    clear = read_unclearly(reading, sample, r, c, 0.7, wrongly, truth_share=0.7 / WRONG_ODDS / 2)
    called = answer_reading(clear).wrong_entries
    assert CheckedEntry((r, c), wrongly, truth) in called
    monkeypatch.setattr(reader, "read_photo", lambda source, **_: clear)
    found = hint_photo(sample.photo.image)
    assert r * 9 + c in found.wrong_entries
    assert np.asarray(found.state.values).reshape(9, 9)[r, c] == 0


def test_entries_are_never_givens_so_givens_alone_may_leave_several_solutions(
    sample: SyntheticFilledPhoto, reading: Reading
) -> None:
    """Printed digits taken for handwriting with certainty leave too few givens: the entries
    that would fix the answer are not counted, and no entry is called wrong without a unique
    solution."""
    kinds = reading.kinds.copy()
    printed = np.argwhere(kinds == PRINTED)
    for r, c in printed[: len(printed) // 2]:
        kinds[r, c] = HANDWRITTEN
    fewer = reading.with_kinds(kinds)
    answer = answer_reading(fewer)
    assert answer.status is Status.SEVERAL
    assert answer.solution is None
    assert answer.wrong_entries == []
    np.testing.assert_array_equal(answer.grid, fewer.givens)


def misread_givens(sample: SyntheticFilledPhoto, reading: Reading, count: int) -> Reading:
    """`reading` with its first `count` printed digits read as the next digit up at 0.6, their
    true digit a close second at 0.4."""
    for r, c in np.argwhere(reading.kinds == PRINTED)[:count]:
        wrongly = int(reading.grid[r, c]) % 9 + 1
        reading = read_unclearly(reading, sample, r, c, 0.6, wrongly, truth_share=0.4)
    return reading


def test_misread_givens_are_mended_only_as_far_as_digit_changes(
    sample: SyntheticFilledPhoto, reading: Reading
) -> None:
    """Two misread givens are read as their true digits again; three are left as read, with no
    answer: here the most probable mend of up to three cells is a unique puzzle with another
    answer, as mends of that many digits too often are."""
    mended = answer_reading(misread_givens(sample, reading, DIGIT_CHANGES))
    assert mended.status is Status.SOLVED
    np.testing.assert_array_equal(mended.solution, sample.photo.solution)
    assert len(mended.corrected_cells) == DIGIT_CHANGES

    broken = misread_givens(sample, reading, DIGIT_CHANGES + 1)
    assert count_solutions(broken.givens, limit=2) != 1
    three = repair(broken.probabilities, broken.givens, max_changes=DIGIT_CHANGES + 1)
    assert three.status is Status.SOLVED
    assert not np.array_equal(three.solution, sample.photo.solution)
    answer = answer_reading(broken)
    assert answer.status is not Status.SOLVED
    assert answer.solution is None and answer.corrected_cells == []


def doubted(reading: Reading, cells: list[tuple[int, int]], kind: int, sure: float) -> Reading:
    """`reading` with `cells` read as `kind` with probability `sure`, the rest of each cell's
    weight on the other of print and pen."""
    kinds = reading.kinds.copy()
    probabilities = reading.kind_probabilities.copy()
    other = HANDWRITTEN if kind == PRINTED else PRINTED
    for r, c in cells:
        kinds[r, c] = kind
        probabilities[r, c] = 0.0
        probabilities[r, c, kind], probabilities[r, c, other] = sure, 1.0 - sure
    return dataclasses.replace(reading, kinds=kinds, kind_probabilities=probabilities)


def test_print_taken_for_pen_with_doubt_is_a_given_again_when_the_givens_need_it(
    sample: SyntheticFilledPhoto, reading: Reading
) -> None:
    """Givens the kinds model called handwriting at 70% leave several solutions; the search
    over print and pen takes back enough of them (the rest are right entries), and the check is
    the same as with every kind right."""
    printed = [(int(r), int(c)) for r, c in np.argwhere(reading.kinds == PRINTED)]
    taken: list[tuple[int, int]] = []
    for cell in printed:
        taken.append(cell)
        fewer = doubted(reading, taken, HANDWRITTEN, 0.7)
        if count_solutions(fewer.givens, limit=2) > 1:
            break
    assert count_solutions(fewer.givens, limit=2) > 1
    answer = answer_reading(fewer)
    assert answer.status is Status.SOLVED
    np.testing.assert_array_equal(answer.solution, sample.photo.solution)
    assert answer.corrected_cells and set(answer.corrected_cells) <= set(taken)
    kept = answer.grid > 0
    np.testing.assert_array_equal(answer.grid[kept], sample.photo.puzzle[kept])
    assert answer.wrong_entries == expected_wrong(sample)
    moved = tuple(np.array(answer.corrected_cells).T)
    assert (answer.kinds[moved] == PRINTED).all(), "taken back as print"
    left = [cell for cell in taken if cell not in answer.corrected_cells]
    assert all(answer.kinds[cell] == HANDWRITTEN and answer.entries[cell] for cell in left)


def test_a_pen_mistake_taken_for_print_with_doubt_is_reported_wrong(
    sample: SyntheticFilledPhoto, reading: Reading
) -> None:
    """A wrong entry the kinds model called print at 60% leaves the givens without a solution;
    it is taken off them and reported wrong with the right digit, not repaired away."""
    mistake = expected_wrong(sample)[0]
    misread = doubted(reading, [mistake.cell], PRINTED, 0.6)
    assert count_solutions(misread.givens, limit=2) == 0
    answer = answer_reading(misread)
    assert answer.status is Status.SOLVED
    np.testing.assert_array_equal(answer.grid, sample.photo.puzzle)
    assert answer.corrected_cells == [mistake.cell]
    assert answer.wrong_entries == expected_wrong(sample)
    assert answer.kinds[mistake.cell] == HANDWRITTEN
    np.testing.assert_array_equal(answer.kinds, reading.kinds)


def test_givens_with_several_solutions_are_mended_by_adding_never_by_taking_off(
    sample: SyntheticFilledPhoto, reading: Reading
) -> None:
    """A given taken for pen (surely) leaves several solutions. Taking off a doubtful given
    and adding a doubtful pen mistake would be cheaper and unique too, but wrong: two mistakes
    of the kinds model where one explains the reading, so only givens are added."""
    mistakes = list(map(tuple, np.argwhere(sample.filled.mistakes).tolist()))
    printed = list(map(tuple, np.argwhere(reading.kinds == PRINTED).tolist()))

    def unique(off: list[tuple[int, int]], on: tuple[int, int] | None = None) -> bool:
        givens = reading.givens.copy()
        for cell in off:
            givens[cell] = 0
        if on is not None:
            givens[on] = reading.grid[on]
        return count_solutions(givens, limit=2) == 1

    lost, off, mistake = next(
        (lost, off, mistake)
        for lost in printed
        if not unique([lost])
        for off in printed
        for mistake in mistakes
        if off != lost and unique([lost, off], mistake)
    )
    doubtful = doubted(reading, [lost], HANDWRITTEN, 0.98)
    doubtful = doubted(doubtful, [mistake], HANDWRITTEN, 0.55)
    doubtful = doubted(doubtful, [off], PRINTED, 0.55)
    answer = answer_reading(doubtful)
    assert answer.status is Status.SOLVED
    np.testing.assert_array_equal(answer.solution, sample.photo.solution)
    assert answer.corrected_cells == [lost]
    assert answer.wrong_entries == expected_wrong(sample)


def test_a_doubtful_print_taken_off_the_givens_is_an_entry_only_if_it_looks_written(
    reading: Reading,
) -> None:
    """A digit read as print that the givens leave out counts as the person's entry when
    handwriting explains it better than no digit does (a smudge read as a digit does not)."""
    r, c = (int(v) for v in np.argwhere(reading.kinds == PRINTED)[0])
    puzzle = reading.givens.copy()
    puzzle[r, c] = 0
    pen = doubted(reading, [(r, c)], PRINTED, 0.6)
    assert person_entries(pen, puzzle)[r, c] == reading.grid[r, c]
    smudge = doubted(reading, [(r, c)], PRINTED, 1.0)
    probabilities = smudge.kind_probabilities.copy()
    probabilities[r, c] = [0.4, 0.6, 0.0, 0.0]
    smudge = dataclasses.replace(smudge, kind_probabilities=probabilities)
    assert person_entries(smudge, puzzle)[r, c] == 0
    np.testing.assert_array_equal(
        np.delete(person_entries(pen, puzzle).ravel(), 9 * r + c),
        np.delete(np.where(puzzle == 0, reading.entries, 0).ravel(), 9 * r + c),
    )


def test_repair_never_turns_handwriting_into_givens(
    sample: SyntheticFilledPhoto, reading: Reading
) -> None:
    """A wrong entry breaks the rules with the givens; it is reported, not repaired away."""
    grid_with_entries = np.where(reading.kinds == HANDWRITTEN, reading.grid, reading.givens)
    assert repair(reading.probabilities, grid_with_entries).status is not Status.SOLVED
    answer = answer_reading(reading)
    assert answer.corrected_cells == []
    assert {entry.cell for entry in answer.wrong_entries} == {
        entry.cell for entry in expected_wrong(sample)
    }


def test_a_printed_only_reading_is_answered_as_before(sample: SyntheticFilledPhoto) -> None:
    """With every digit read taken for print (a printed-only photo), the answer is `repair` of
    all the digits read, as before cell kinds were read, and there is nothing to check."""
    read = read_image(sample.photo.image)
    kinds = np.where(read.grid > 0, PRINTED, EMPTY).astype(np.uint8)
    plain = read.with_kinds(kinds)
    answer = answer_reading(plain)
    fixed = repair(plain.probabilities, plain.grid)
    np.testing.assert_array_equal(answer.grid, fixed.grid)
    assert answer.status is fixed.status
    assert answer.corrected_cells == fixed.changed_cells
    assert answer.wrong_entries == answer.unsure_entries == []


def test_entries_that_disagree_with_a_misread_given_in_numbers_are_unsure_never_wrong(
    sample: SyntheticFilledPhoto, reading: Reading
) -> None:
    """A printed digit misread into another unique puzzle makes many right entries disagree
    with its answer: they are unsure, and so are the candidates, and the givens doubted, also
    when the page sends the givens read back; once the person corrects the given, the planted
    mistakes are wrong again."""
    assert not answer_reading(reading).givens_doubted
    misread, other = given_misread_to_another_answer(reading)
    disagree = {
        (int(r), int(c)) for r, c in np.argwhere((reading.entries > 0) & (reading.entries != other))
    }
    assert len(disagree) >= DOUBTED_FROM
    listed = [
        (r, c)
        for r, row in enumerate(reading.candidates)
        for c, cell in enumerate(row)
        if len(cell) > 1
    ]
    assert listed, "the photo has pencilled candidates to doubt too"

    for answer in (answer_reading(misread), answer_reading(misread, grid=misread.givens)):
        np.testing.assert_array_equal(answer.solution, other)
        assert answer.givens_doubted
        assert answer.wrong_entries == []
        assert {entry.cell for entry in answer.unsure_entries} == disagree
        assert all(entry.expected is None for entry in answer.unsure_entries)
        assert answer.wrong_candidates == []
        assert answer.unsure_candidates == listed

    corrected = answer_reading(misread, grid=sample.photo.puzzle)
    assert not corrected.givens_doubted
    assert corrected.wrong_entries == expected_wrong(sample)


def test_entries_given_by_the_caller_are_certain_unless_sent_as_read(
    sample: SyntheticFilledPhoto, reading: Reading
) -> None:
    """An entry the caller sends that is the digit read in its cell keeps the reading's
    probability (sent back as read, it stays unsure); any other entry is taken as certain."""
    # nothing read clearly: every digit of every cell below RIGHT_FROM
    low = dataclasses.replace(
        reading, probabilities=np.full((9, 9, 10), RIGHT_FROM / 2, np.float32)
    )
    as_read = answer_reading(low, grid=sample.photo.puzzle, entries=reading.entries)
    assert as_read.wrong_entries == []
    assert {entry.cell for entry in as_read.unsure_entries} == {
        (int(r), int(c)) for r, c in np.argwhere(reading.entries > 0)
    }
    moved = np.where(reading.kinds == HANDWRITTEN, 0, sample.photo.solution).astype(np.uint8)
    moved[sample.photo.puzzle > 0] = 0
    typed = answer_reading(low, grid=sample.photo.puzzle, entries=moved)
    assert typed.unsure_entries == [] and typed.wrong_entries == []
    assert len(typed.entries.nonzero()[0]) == int((moved > 0).sum()) > 0
    text = "".join(str(d) for d in reading.entries.ravel())
    again = answer_reading(reading, grid=sample.photo.puzzle, entries=text)
    assert again.wrong_entries == expected_wrong(sample)
    assert again.unsure_entries == []


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_every_entry_is_right_wrong_or_unsure_and_unsure_is_never_wrong(
    reading: Reading, data: st.DataObject
) -> None:
    open_cells = [tuple(int(v) for v in cell) for cell in np.argwhere(reading.givens == 0)]
    chosen = data.draw(st.lists(st.sampled_from(open_cells), unique=True, max_size=20))
    grid = reading.givens.copy()
    kinds = np.where(reading.givens > 0, PRINTED, EMPTY).astype(np.uint8)
    probabilities = reading.probabilities.copy()
    for r, c in chosen:
        digit = data.draw(st.integers(1, 9))
        confidence = data.draw(st.floats(0.05, 0.956))
        grid[r, c], kinds[r, c] = digit, HANDWRITTEN
        probabilities[r, c] = (1 - confidence) / 9
        probabilities[r, c, digit] = confidence
    filled = dataclasses.replace(reading, grid=grid, probabilities=probabilities).with_kinds(kinds)
    answer = answer_reading(filled)
    solution = answer.solution
    assert solution is not None
    wrong = {entry.cell: entry for entry in answer.wrong_entries}
    unsure = {entry.cell: entry for entry in answer.unsure_entries}
    assert not wrong.keys() & unsure.keys()
    for r, c in chosen:
        read, chance = probabilities[r, c, grid[r, c]], probabilities[r, c, solution[r, c]]
        sure = read >= UNSURE_BELOW and read >= WRONG_ODDS * chance
        if chance >= RIGHT_FROM:
            assert (r, c) not in wrong and (r, c) not in unsure
        elif not sure:
            assert unsure[(r, c)].expected is None
        elif grid[r, c] != solution[r, c]:
            assert wrong[(r, c)] == CheckedEntry((r, c), int(grid[r, c]), int(solution[r, c]))
        else:
            assert (r, c) not in wrong and (r, c) not in unsure
    assert set(wrong) | set(unsure) <= set(chosen)


def cell_box(reading: Reading, r: int, c: int, half: float) -> tuple[slice, slice]:
    """The pixels of a square around the middle of cell (r, c) of an upright photo, `half` of a
    cell's side each way."""
    square = np.float32([[0, 0], [9, 0], [9, 9], [0, 9]])
    to_photo = cv2.getPerspectiveTransform(square, reading.corners.astype(np.float32))
    middle = np.float32([[[c + 0.5, r + 0.5]]])
    x, y = cv2.perspectiveTransform(middle, to_photo)[0, 0]
    side = float(np.linalg.norm(reading.corners[1] - reading.corners[0])) / 9
    return (
        slice(int(y - half * side), int(y + half * side)),
        slice(int(x - half * side), int(x + half * side)),
    )


def red_pixels(image: np.ndarray) -> int:
    b, g, r = (image[..., k].astype(int) for k in range(3))
    return int(((r - np.maximum(b, g)) > 80).sum())


def orange_pixels(image: np.ndarray) -> int:
    b, g, r = (image[..., k].astype(int) for k in range(3))
    return int(((r > 170) & (b < 90) & (g > 70) & (g < 190)).sum())


@pytest.mark.parametrize("check_only", [False, True])
def test_drawing_marks_wrong_entries_red_and_leaves_right_entries_untouched(
    sample: SyntheticFilledPhoto, reading: Reading, check_only: bool
) -> None:
    answer = answer_reading(reading)
    image = draw_answer(reading, answer, check_only=check_only)
    original = reading.image
    wrong = {entry.cell for entry in answer.wrong_entries}
    assert wrong
    for r, c in np.argwhere(reading.kinds == HANDWRITTEN):
        box = cell_box(reading, r, c, 0.3)
        if (r, c) in wrong:
            assert red_pixels(image[box]) > red_pixels(original[box]) + 50, (r, c)
        else:
            np.testing.assert_array_equal(image[box], original[box], err_msg=str((r, c)))
    for r, c in np.argwhere(reading.kinds == PRINTED):
        box = cell_box(reading, r, c, 0.3)
        np.testing.assert_array_equal(image[box], original[box])
    missing = np.argwhere(np.isin(reading.kinds, (EMPTY, NOTES)))
    drawn = [
        not np.array_equal(image[b], original[b])
        for b in (cell_box(reading, *rc, 0.2) for rc in missing)
    ]
    assert not any(drawn) if check_only else all(drawn)
    if check_only:  # the ring alone: the right digit beside it would give the answer away
        full = draw_answer(reading, answer)
        for r, c in wrong:
            box = cell_box(reading, r, c, 0.5)
            assert red_pixels(image[box]) + 20 < red_pixels(full[box]), (r, c)


def test_check_only_rings_a_wrong_entry_without_giving_the_right_digit_away() -> None:
    from sudoku_lens.draw import wrong_sprite

    cell = 60
    ys, xs = np.mgrid[:cell, :cell] - (cell - 1) / 2
    outside_ring = np.hypot(ys, xs) > 0.45 * cell
    top_right = outside_ring & (ys < 0) & (xs > 0)
    ring_alone = wrong_sprite(0, cell)[1]
    with_digit = wrong_sprite(7, cell)[1]
    assert (ring_alone[~outside_ring] > 128).sum() > (with_digit[~outside_ring] > 128).sum()
    assert not ring_alone[top_right].any() and (with_digit[top_right] > 128).sum() > 10


def test_drawing_rings_an_unsure_entry_in_orange_and_calls_it_nothing_else(
    sample: SyntheticFilledPhoto, reading: Reading
) -> None:
    right = np.argwhere((reading.kinds == HANDWRITTEN) & ~sample.filled.mistakes)
    (r, c), (other_r, other_c) = right[0], right[1]
    wrongly = int(reading.grid[r, c]) % 9 + 1
    unclear = read_unclearly(reading, sample, r, c, read_as=wrongly)
    answer = answer_reading(unclear)
    assert answer.unsure_entries == [CheckedEntry((r, c), wrongly, None)]
    image = draw_answer(unclear, answer)

    box = cell_box(reading, r, c, 0.45)
    assert orange_pixels(image[box]) > orange_pixels(reading.image[box]) + 50
    b, g, red = (image[box][..., k].astype(int) for k in range(3))
    assert not ((red > 120) & (g < 50) & (b < 50)).any(), "no red of a wrong entry's mark"
    beside = cell_box(reading, other_r, other_c, 0.3)
    np.testing.assert_array_equal(image[beside], reading.image[beside])


def test_solve_photo_reports_and_draws_the_check(
    sample: SyntheticFilledPhoto, reading: Reading, monkeypatch: pytest.MonkeyPatch
) -> None:
    def read_with_kinds(source: np.ndarray, **_: Any) -> Reading:
        return dataclasses.replace(reading, photo=load_photo(source))

    monkeypatch.setattr(pipeline, "read_photo", read_with_kinds)
    result = solve_photo(sample.photo.image)
    assert result.solved and not result.correct
    assert result.wrong_entries == expected_wrong(sample)
    summary = result.to_json()
    assert summary["wrong_entries"] == [entry.to_json() for entry in expected_wrong(sample)]
    assert summary["wrong_entries"][0].keys() == {"cell", "written", "expected"}
    assert summary["unsure_entries"] == []
    assert summary["kinds"] == "".join(".phn"[k] for k in sample.filled.kinds.ravel())
    assert summary["givens"] == "".join(str(d) for d in sample.photo.puzzle.ravel())
    checked = solve_photo(sample.photo.image, check_only=True)
    assert checked.check_only and checked.wrong_entries == result.wrong_entries
    assert not np.array_equal(checked.image, result.image)


def test_solve_json_gives_the_kinds_as_solved(
    sample: SyntheticFilledPhoto, reading: Reading, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pen mistake the kinds model took for print, taken off the givens, is an entry in the
    JSON too ("h", not among "givens"), so a client that resends the entries keeps it."""
    mistake = expected_wrong(sample)[0]
    misread = doubted(reading, [mistake.cell], PRINTED, 0.6)
    monkeypatch.setattr(
        pipeline,
        "read_photo",
        lambda source, **_: dataclasses.replace(misread, photo=load_photo(source)),
    )
    summary = solve_photo(sample.photo.image).to_json()
    assert summary["kinds"] == "".join(".phn"[k] for k in sample.filled.kinds.ravel())
    assert summary["givens"] == summary["grid"] == "".join(map(str, sample.photo.puzzle.ravel()))
    assert summary["read"][9 * mistake.cell[0] + mistake.cell[1]] == str(mistake.written)
    assert summary["wrong_entries"][0] == mistake.to_json()


def test_a_photo_hint_continues_from_the_right_entries_and_reports_the_wrong(
    sample: SyntheticFilledPhoto, reading: Reading, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sudoku_lens.hints import hint_photo
    from sudoku_lens.read import reader

    monkeypatch.setattr(reader, "read_photo", lambda source, **_: reading)
    found = hint_photo(sample.photo.image)
    values = np.asarray(found.state.values).reshape(9, 9)
    right = (reading.kinds == HANDWRITTEN) & ~sample.filled.mistakes
    np.testing.assert_array_equal(values[right], sample.photo.solution[right])
    assert not values[sample.filled.mistakes].any()
    assert found.wrong_entries == [int(r * 9 + c) for r, c in np.argwhere(sample.filled.mistakes)]
    assert found.step is not None
    # an entry taken from an earlier hint wins over the wrong one read in its cell
    (r, c) = np.argwhere(sample.filled.mistakes)[0]
    taken = np.zeros((9, 9), np.uint8)
    taken[r, c] = sample.photo.solution[r, c]
    again = hint_photo(sample.photo.image, entries=taken)
    assert int(r * 9 + c) not in again.wrong_entries
    assert np.asarray(again.state.values).reshape(9, 9)[r, c] == sample.photo.solution[r, c]


def test_the_hint_command_names_wrong_and_unsure_entries(
    sample: SyntheticFilledPhoto,
    reading: Reading,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from sudoku_lens.cli import main
    from sudoku_lens.read import reader

    wrong = expected_wrong(sample)
    (r, c) = wrong[0].cell
    unclear = read_unclearly(reading, sample, r, c)
    monkeypatch.setattr(reader, "read_photo", lambda source, **_: unclear)
    photo = tmp_path / "filled.png"
    cv2.imwrite(str(photo), sample.photo.image)
    assert main(["hint", str(photo), "-o", str(tmp_path / "hint.png")]) == 0
    err = capsys.readouterr().err
    named = ", ".join(f"r{rr + 1}c{cc + 1}" for rr, cc in (entry.cell for entry in wrong[1:]))
    assert f"wrong handwritten entries at {named}:" in err
    assert f"too unclear to check at r{r + 1}c{c + 1}:" in err


@pytest.mark.parametrize("check_only", [False, True])
def test_live_mode_marks_wrong_entries_on_the_moving_page(
    sample: SyntheticFilledPhoto,
    reading: Reading,
    monkeypatch: pytest.MonkeyPatch,
    check_only: bool,
) -> None:
    from sudoku_lens.live import LiveSettings, LiveSolver
    from sudoku_lens.live import solver as live_solver

    monkeypatch.setattr(
        live_solver,
        "read_image",
        lambda image, **_: dataclasses.replace(reading, photo=Photo(image)),
    )
    solver = LiveSolver(LiveSettings(banner=False, check_only=check_only))
    frame = sample.photo.image
    results = [solver.process(frame) for _ in range(4)]
    last = results[-1]
    assert last.state.value == "solved" and last.drawn
    assert last.wrong_entries == expected_wrong(sample)
    assert last.to_json()["wrong_entries"] == [e.to_json() for e in expected_wrong(sample)]
    wrong = {entry.cell for entry in last.wrong_entries}
    for r, c in np.argwhere(reading.kinds == HANDWRITTEN):
        box = cell_box(reading, r, c, 0.3)
        if (r, c) in wrong:
            assert red_pixels(last.frame[box]) > red_pixels(frame[box]) + 50
        else:
            assert np.abs(last.frame[box].astype(int) - frame[box]).max() <= 2, (r, c)
    empty = [tuple(rc) for rc in np.argwhere(reading.kinds == EMPTY)]
    changed = [
        not np.array_equal(last.frame[b], frame[b])
        for b in (cell_box(reading, r, c, 0.2) for r, c in empty)
    ]
    assert not any(changed) if check_only else all(changed)


def test_live_mode_rings_an_unsure_entry_in_orange(
    sample: SyntheticFilledPhoto, reading: Reading, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sudoku_lens.live import LiveSettings, LiveSolver
    from sudoku_lens.live import solver as live_solver

    (r, c) = expected_wrong(sample)[0].cell
    unclear = read_unclearly(reading, sample, r, c)
    monkeypatch.setattr(
        live_solver,
        "read_image",
        lambda image, **_: dataclasses.replace(unclear, photo=Photo(image)),
    )
    solver = LiveSolver(LiveSettings(banner=False))
    frame = sample.photo.image
    last = [solver.process(frame) for _ in range(4)][-1]
    assert last.state.value == "solved" and last.drawn
    assert last.unsure_entries == [CheckedEntry((r, c), int(reading.grid[r, c]), None)]
    assert last.to_json()["unsure_entries"] == [
        {"cell": f"r{r + 1}c{c + 1}", "written": int(reading.grid[r, c])}
    ]
    assert (r, c) not in {entry.cell for entry in last.wrong_entries}
    box = cell_box(reading, r, c, 0.45)
    assert orange_pixels(last.frame[box]) > orange_pixels(frame[box]) + 50
    b, g, red = (last.frame[box][..., k].astype(int) for k in range(3))
    assert not ((red > 120) & (g < 50) & (b < 50)).any(), "no red of a wrong entry's mark"


def test_a_photo_hint_draws_the_digits_of_earlier_hints_into_the_photo(
    sample: SyntheticFilledPhoto, reading: Reading, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A digit sent back as an entry where the page shows none (an earlier hint's, or one
    typed in) is drawn into the photo, in pen; it was left out of the picture."""
    from sudoku_lens.hints import hint_photo
    from sudoku_lens.read import reader

    monkeypatch.setattr(reader, "read_photo", lambda source, **_: reading)
    entries = answer_reading(reading).entries.copy()
    (r, c) = (int(v) for v in np.argwhere((reading.grid == 0) & (reading.kinds == EMPTY))[0])
    entries[r, c] = sample.photo.solution[r, c]
    found = hint_photo(sample.photo.image, entries=entries)
    assert found.step is not None and (r * 9 + c, int(entries[r, c])) not in found.step.placements
    square = np.float32([[0, 0], [9, 0], [9, 9], [0, 9]])
    to_photo = cv2.getPerspectiveTransform(square, np.float32(reading.corners))
    centre = cv2.perspectiveTransform(np.float32([[[c + 0.5, r + 0.5]]]), to_photo)[0, 0]
    x, y = (int(v) for v in centre)
    half = int(np.linalg.norm(reading.corners[1] - reading.corners[0]) / 9 / 3)

    def blue_ink(image: np.ndarray) -> int:
        patch = image[y - half : y + half, x - half : x + half].astype(int)
        b, g, red = patch[..., 0], patch[..., 1], patch[..., 2]
        return int(((b - red > 80) & (b - g > 40)).sum())

    assert blue_ink(sample.photo.image) == 0
    assert blue_ink(found.image) > 10


def test_a_photo_hint_rings_the_wrong_entries_without_giving_their_digit_away(
    sample: SyntheticFilledPhoto,
    reading: Reading,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The hint's picture rings each wrong entry in red as `solve --check` does (the right digit
    left out) and leaves the right entries as they are; its caption names the ringed cells."""
    from sudoku_lens.cli import main
    from sudoku_lens.draw.hint import draw_step
    from sudoku_lens.hints import hint_photo
    from sudoku_lens.read import reader

    monkeypatch.setattr(reader, "read_photo", lambda source, **_: reading)
    found = hint_photo(sample.photo.image)
    answer = answer_reading(reading)
    unmarked = draw_step(
        reading.image, reading.corners, found.step, found.state, digit_height=answer.digit_height
    )
    covered = {cell for cell, _ in found.step.placements} | set(found.step.cells)
    wrong = [cell for cell in found.wrong_entries if cell not in covered]
    assert wrong
    with_digit = draw_answer(reading, answer)
    for cell in wrong:
        box = cell_box(reading, cell // 9, cell % 9, 0.5)
        assert red_pixels(found.image[box]) > red_pixels(unmarked[box]) + 50, cell
        assert red_pixels(found.image[box]) + 20 < red_pixels(with_digit[box]), cell
    elsewhere = np.ones((9, 9), bool)
    elsewhere.flat[found.wrong_entries] = False
    for r, c in np.argwhere(elsewhere):
        box = cell_box(reading, r, c, 0.3)
        np.testing.assert_array_equal(found.image[box], unmarked[box], err_msg=str((r, c)))

    captions: list[str] = []
    monkeypatch.setattr(
        "sudoku_lens.draw.hint.add_caption", lambda image, text: captions.append(text) or image
    )
    photo = tmp_path / "filled.png"
    cv2.imwrite(str(photo), sample.photo.image)
    assert main(["hint", str(photo), "-o", str(tmp_path / "hint.png")]) == 0
    named = ", ".join(f"r{cell // 9 + 1}c{cell % 9 + 1}" for cell in found.wrong_entries)
    assert captions == [f"{found.step.explanation} Wrong entries, ringed in red: {named}."]
    assert "marked in the picture" in capsys.readouterr().err


def ink_beside(
    image: np.ndarray, plain: np.ndarray, under: np.ndarray, reading: Reading, r: int, c: int
) -> int:
    """Pixels of dark ink (40 grey levels under the paper or more) in `image` inside cell (r, c),
    clear of its lines, beside the digit drawn there: where `plain`, the picture drawn as if the
    cell held no notes, is still `under`, the picture without that digit."""
    box = cell_box(reading, r, c, 0.36)
    paper = np.median(under[box].astype(int).mean(axis=2))
    beside = np.all(plain[box] == under[box], axis=2)
    return int(((paper - image[box].astype(int).mean(axis=2) > 40) & beside).sum())


def without_notes(reading: Reading) -> Reading:
    """`reading` with its cells of pencil notes read as empty."""
    return dataclasses.replace(
        reading, kinds=np.where(reading.kinds == NOTES, EMPTY, reading.kinds)
    )


@pytest.mark.parametrize("check_only", [False, True])
def test_entries_typed_where_the_photo_has_no_digit_are_drawn_in_pen_and_ringed_when_wrong(
    sample: SyntheticFilledPhoto, reading: Reading, check_only: bool
) -> None:
    """A digit typed into a blank cell is drawn into the picture in pen, so the red ring of a
    wrong one rings a digit, not blank paper; one typed over pencil notes stands on a patch
    of paper; the photo's own handwriting stays as the photo shows it."""
    solution = sample.photo.solution
    blank = [tuple(int(v) for v in rc) for rc in np.argwhere(reading.kinds == EMPTY)]
    notes = [tuple(int(v) for v in rc) for rc in np.argwhere(reading.kinds == NOTES)]
    (wr, wc), (rr, rc), (nr, nc) = blank[0], blank[1], notes[0]
    entries = answer_reading(reading).entries.copy()
    typo = int(solution[wr, wc]) % 9 + 1
    entries[wr, wc], entries[rr, rc] = typo, solution[rr, rc]
    entries[nr, nc] = solution[nr, nc]
    answer = answer_reading(reading, entries=entries)
    assert CheckedEntry((wr, wc), typo, int(solution[wr, wc])) in answer.wrong_entries
    image = draw_answer(reading, answer, check_only=check_only)

    height = answer.digit_height
    assert pen_digit(image, reading.corners, wr, wc, height) == typo
    assert pen_digit(image, reading.corners, rr, rc, height) == solution[rr, rc]
    assert pen_digit(image, reading.corners, nr, nc, height) == solution[nr, nc]
    ring = cell_box(reading, wr, wc, 0.5)
    assert red_pixels(image[ring]) > red_pixels(reading.image[ring]) + 50
    plain = draw_answer(without_notes(reading), answer, check_only=check_only)
    notes_before = ink_beside(reading.image, plain, reading.image, reading, nr, nc)
    assert notes_before > 30
    assert ink_beside(image, plain, reading.image, reading, nr, nc) < 0.1 * notes_before
    for r, c in np.argwhere(reading.kinds == HANDWRITTEN):
        if (int(r), int(c)) not in {entry.cell for entry in answer.wrong_entries}:
            box = cell_box(reading, r, c, 0.3)
            np.testing.assert_array_equal(image[box], reading.image[box], err_msg=str((r, c)))


def test_a_photo_hint_draws_an_earlier_hints_digit_over_pencil_notes_on_paper(
    sample: SyntheticFilledPhoto, reading: Reading, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The digit of an earlier hint in a cell of pencil notes is drawn on a patch of the cell's
    paper, as `solve` draws an answer there: it stood on the notes."""
    from sudoku_lens.draw.hint import draw_step
    from sudoku_lens.hints import hint_photo
    from sudoku_lens.read import reader

    monkeypatch.setattr(reader, "read_photo", lambda source, **_: reading)
    entries = answer_reading(reading).entries.copy()
    (r, c) = (int(v) for v in np.argwhere(reading.kinds == NOTES)[0])
    entries[r, c] = sample.photo.solution[r, c]
    found = hint_photo(sample.photo.image, entries=entries)
    assert found.step is not None
    monkeypatch.setattr(reader, "read_photo", lambda source, **_: without_notes(reading))
    plain = hint_photo(sample.photo.image, entries=entries).image
    height = answer_reading(reading, entries=entries).digit_height
    unmarked = draw_step(
        reading.image, reading.corners, found.step, found.state, digit_height=height
    )
    notes_before = ink_beside(unmarked, plain, unmarked, reading, r, c)
    assert notes_before > 30
    assert ink_beside(found.image, plain, unmarked, reading, r, c) < 0.1 * notes_before
    assert pen_digit(found.image, reading.corners, r, c, height) == entries[r, c]
