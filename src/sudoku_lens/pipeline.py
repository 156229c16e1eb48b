"""Solve a photo end to end: read the grid, repair misreads, solve, check the person's entries,
draw the answer in the photo.

The puzzle is the printed givens (`Reading.givens`); the person's handwritten entries are checked
against the unique solution of the givens: an entry read with confidence that differs is wrong,
one read with low confidence is unsure (never called wrong); a cell's pencilled candidates, two
or more, that leave out its solution digit are wrong too (`check_candidates`). When the givens as
read have no unique solution, the digit model's doubts are weighed (`repair`): a digit may be
read as another, or else a digit the kinds model was unsure of moved between print and pen
(`repair_givens`).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from sudoku_lens.draw import DEFAULT_DIGIT_HEIGHT, draw_solution
from sudoku_lens.puzzle import as_grid, grid_json
from sudoku_lens.puzzle.text import cell_name, cell_names, find_conflict, format_line
from sudoku_lens.read.grid import CELL, CROP, MARGIN, GridSearch
from sudoku_lens.read.kinds import (
    EMPTY,
    HANDWRITTEN,
    NO_CANDIDATES,
    NOTES,
    PRINTED,
    Candidates,
    as_candidates,
    candidates_json,
    kinds_text,
)
from sudoku_lens.read.reader import Reading, corners_json, read_photo
from sudoku_lens.repair import RepairResult, repair
from sudoku_lens.solve import Status, solve

OUTLINE_COLOR = (0, 0, 255)
"""BGR colour of the grid outline drawn on a photo that could not be solved."""

UNSURE_BELOW = 0.5
"""An entry whose digit the classifier gave a lower probability than this is unsure: reported,
never called wrong (unless `RIGHT_FROM` calls it right). Above it, the digit read is more likely
than all the others together. An entry is called wrong only when, besides, its digit is at least
`WRONG_ODDS` times as likely as the solution's."""

WRONG_ODDS = 50.0
"""Least odds of the digit read against the solution's digit for an entry to be called wrong
(with `UNSURE_BELOW` and `RIGHT_FROM`); at lower odds it is unsure. A misread right entry that the
classifier was sure of still gives its true digit a trace above the rest, while a written
mistake gives it next to nothing: the rule asks for no reasonable doubt that the person wrote
another digit, as telling someone a right answer is wrong is the worst thing the check can do.
Chosen on the hand-filled training photos (whose entries are all right) and on generated photos
with planted mistakes (as `benchmarks/check.py --kinds reader` makes them, seeds 5001-5040 and
50001-50040), then measured on the hand-filled validation photos (`benchmarks/false_alarms.py`)
and on the check's own seeds (20001-20080, 30001-30040, 40001-40040). Photos with a right entry
called wrong, and planted mistakes called wrong:

| odds | training photos | generated, chosen on | validation photos | check's seeds |
|---|---|---|---|---|
| none | 3 of 129 | 95.4% | 3 of 31 | 95.4% |
| 20 | 1 of 129 | 94.2% | 3 of 31 | 94.6% |
| 33 | 1 of 129 | 93.3% | 2 of 31 | 92.9% |
| 50 | 1 of 129 | 92.5% | 1 of 31 | 91.5% |
| 70 | 0 of 129 | 89.2% | 1 of 31 | 89.0% |

The odds of the right entries misread surely (training and generated photos: e^4.1 to e^5.8)
overlap those of the planted mistakes whose digit looks like the solution's (a 7 for a 1, a 3
for an 8: a tenth of the mistakes lie under e^4.4), so no odds call every mistake wrong and no
right entry. 50 is the most doubt allowed (round odds) that costs no more than 3 points of the
mistakes caught on the photos chosen on; the mistakes it gives up, those that look most like the
solution's digit, are unsure instead (still ringed, with a question mark). Raising `UNSURE_BELOW`
instead loses more mistakes for the same false alarms saved (0.9: 87.1% caught on the check's
seeds, 1 of 31 validation photos). Retuned with `RIGHT_FROM` when the digit model changes:
`benchmarks/check.py` sweeps the two."""

RIGHT_FROM = 0.1
"""An entry whose cell gives the solution's digit at least this probability is right, however
its reading came out: a misread handwritten digit mostly still gives its true digit a tenth or
more, a written mistake next to nothing. On the generated photos of `benchmarks/check.py` (seeds
40001-40080 and 50001-50080, shipped models) 110 right entries were misread, their true digit
given 0.0-0.4 (median 0.16; 76 of them 0.1 or more), while 99% of the planted mistakes gave the
solution's digit under 0.08: at 0.1, 0.79% of the right entries are flagged (wrong or unsure)
instead of 3.39% at 0.5, and the mistakes caught stay within 0.4 points. On the hand-filled
validation photos a mistake written in any of their handwritten digits' place would be taken for
right 0.75% of the time (0.06% at 0.5). With `WRONG_ODDS` the entries whose cell gives the
solution's digit 0.05-0.1 can no longer be called wrong (their odds are under 20); they stay
unsure rather than right, so a mistake among them is still shown as doubtful."""


@dataclass(frozen=True)
class CheckedEntry:
    """A person's handwritten entry that is wrong or unsure."""

    cell: tuple[int, int]
    """(row, col), 0-based, of the upright puzzle."""
    written: int
    """The digit read in the cell."""
    expected: int | None
    """The solution's digit when the entry is wrong; None when unsure (not checked)."""

    @property
    def name(self) -> str:
        """The cell as r1c1 (top left) to r9c9."""
        return cell_name(self.cell[0] * 9 + self.cell[1])

    def to_json(self) -> dict[str, Any]:
        """`{"cell": "r3c4", "written": 5, "expected": 7}`, `expected` absent when unsure."""
        out: dict[str, Any] = {"cell": self.name, "written": self.written}
        if self.expected is not None:
            out["expected"] = self.expected
        return out


@dataclass(frozen=True)
class CheckedCandidates:
    """A cell's pencilled candidates that leave out the cell's solution digit."""

    cell: tuple[int, int]
    """(row, col), 0-based, of the upright puzzle."""
    written: tuple[int, ...]
    """The candidates pencilled in the cell, sorted."""
    expected: int
    """The solution's digit, which the candidates leave out."""

    @property
    def name(self) -> str:
        """The cell as r1c1 (top left) to r9c9."""
        return cell_name(self.cell[0] * 9 + self.cell[1])

    @property
    def message(self) -> str:
        """`r4c5: your candidates 28 leave out the answer` (the answer itself not given)."""
        digits = "".join(map(str, self.written))
        return f"{self.name}: your candidates {digits} leave out the answer"

    def to_json(self, *, with_answer: bool = True) -> dict[str, Any]:
        """`{"cell": "r4c5", "written": "28", "expected": 4}`, `expected` left out without
        `with_answer` (a check that must not give answers away)."""
        out: dict[str, Any] = {"cell": self.name, "written": "".join(map(str, self.written))}
        if with_answer:
            out["expected"] = self.expected
        return out


ENTRY_SURE = 0.1
"""Least `Reading.entry_sureness` (the cell-content model's probability that the cell holds a
written digit at all) for an entry read there to be called wrong; under it the entry is unsure.
A person rubs a wrong entry out and the ghost left, which the digit model may still read as a
digit, is no entry: of the 4 empty cells of kubiesa-train (train and validation photos) still
read as an entry once the ghosts are emptied (`reader.GHOST`), 2 are under 0.1; of the 8,813
entries of kubiesa-train and wicht-v2-train's hand-filled photos read as entries, 5 are, all
read as their right digit (so not flagged)."""


CHECKED_CANDIDATES = 2
"""Least candidates of a cell for them to be checked. A lone small digit is often no candidate
list but a mark of where that digit may still go in its box (of 19 such cells of
kubiesa-train's photos, 10 are not that digit's cell): it is never called wrong."""


CANDIDATES_SURE = 0.8
"""Least sureness of a cell's candidates as read (`Reading.candidate_sureness`) for them to be
checked: a mark misread, or two marks read as one, can leave the answer out of candidates that
hold it. See docs/accuracy.md for how it was set."""


def check_candidates(
    candidates: Candidates, solution: np.ndarray, checked: np.ndarray | None = None
) -> list[CheckedCandidates]:
    """The cells, row by row, whose CHECKED_CANDIDATES or more candidates (9 x 9 digit tuples)
    leave out the digit of `solution` (9 x 9): candidates that hold it are right, whatever else
    they hold. Only the cells of `checked` ((9, 9) bool, all by default) are looked at."""
    solution = np.asarray(solution).reshape(9, 9)
    checked = np.ones((9, 9), bool) if checked is None else np.asarray(checked, bool)
    return [
        CheckedCandidates((r, c), tuple(cell), int(solution[r, c]))
        for r, row in enumerate(candidates)
        for c, cell in enumerate(row)
        if checked[r, c] and len(cell) >= CHECKED_CANDIDATES and int(solution[r, c]) not in cell
    ]


@dataclass(frozen=True, eq=False)  # its arrays have no single truth value: compared by identity
class PhotoSolution:
    """A photo's puzzle as read, the puzzle solved, the verdict and the annotated photo."""

    reading: Reading
    """What the reader saw: digits, probabilities, corners, rotation, timings, decoded image."""
    grid: np.ndarray
    """(9, 9) uint8 puzzle that was solved: the reading after repair, or the caller's override."""
    status: Status
    solution: np.ndarray | None
    """(9, 9) uint8 solved grid when `status` is solved, else None."""
    corrected_cells: list[tuple[int, int]]
    """(row, col) 0-based cells where `grid` differs from the digits read."""
    kinds: np.ndarray
    """(9, 9) uint8 kind of each cell as solved (see `Answer.kinds`)."""
    image: np.ndarray
    """BGR photo with the solution drawn in and wrong entries marked (only the marks when
    `check_only`), or with the grid outline when not solved."""
    seconds: float
    """Wall time of the whole call, decoding included."""
    timings: dict[str, float] = field(default_factory=dict)
    """Seconds per stage: "decode", the reader's stages, "repair" (or "solve" for a grid given by
    the caller), "draw", and "total" (the same as `seconds`)."""
    wrong_entries: list[CheckedEntry] = field(default_factory=list)
    """Handwritten entries read with confidence that differ from the solution."""
    unsure_entries: list[CheckedEntry] = field(default_factory=list)
    """Handwritten entries read with too little confidence to check (`UNSURE_BELOW`)."""
    check_only: bool = False
    """True when `image` marks the wrong entries only and draws no answers."""
    candidates: Candidates = NO_CANDIDATES
    """The person's pencilled candidates checked, 9 x 9 sorted digit tuples (`()` where none):
    the reading's, or the caller's (see `answer_reading`)."""
    wrong_candidates: list[CheckedCandidates] = field(default_factory=list)
    """Cells whose two or more candidates leave out the solution's digit (`check_candidates`)."""
    unsure_candidates: list[tuple[int, int]] = field(default_factory=list)
    """(row, col) cells of two or more candidates read too unsure to be checked
    (`CANDIDATES_SURE`)."""
    givens_doubted: bool = False
    """True when so many entries disagree with the solution that a given is more likely
    misread than they are all wrong (see `Answer.givens_doubted`)."""

    @property
    def solved(self) -> bool:
        """True when the puzzle has exactly one solution."""
        return self.status == Status.SOLVED

    @property
    def correct(self) -> bool:
        """True when the puzzle has exactly one solution, no entry is wrong, no candidates
        leave out the answer and the givens are not in doubt (exit code 0)."""
        return (
            self.solved
            and not self.wrong_entries
            and not self.wrong_candidates
            and not self.givens_doubted
        )

    @property
    def givens(self) -> np.ndarray:
        """(9, 9) uint8 the digits read in the cells solved as print (`kinds`), 0 elsewhere:
        `grid` before any digit was read as another."""
        return np.where(self.kinds == PRINTED, self.reading.grid, 0).astype(np.uint8)

    def to_json(self) -> dict[str, Any]:
        """JSON-ready summary: `grid` (solved: the printed givens after repair), `read` (every
        digit read, printed and handwritten) and `solution` as 81-character lines ('0' for
        empty), `kinds` as solved (as `read --json` writes them, but for a digit the repair
        moved between print and pen), `candidates` (81 strings of the candidates checked, "" where
        none) and `givens` (the digits read where `kinds` is print), `status`,
        `corrected_cells` (cell names, "r3c4"), `wrong_entries` and `unsure_entries` (see
        `CheckedEntry.to_json`), `givens_doubted` (see `Answer.givens_doubted`),
        `wrong_candidates` (see `CheckedCandidates.to_json`: without the answer when
        `check_only`), `unsure_candidates` (cell names), `corners` in pixels
        (TL, TR, BR, BL of the upright puzzle), `rotation`, `min_confidence` (of the least sure
        cell), `seconds`.
        """
        return {
            "grid": grid_json(self.grid),
            "read": grid_json(self.reading.grid),
            "kinds": kinds_text(self.kinds),
            "candidates": candidates_json(self.candidates),
            "givens": grid_json(self.givens),
            "solution": grid_json(self.solution),
            "status": str(self.status.value),
            "corrected_cells": cell_names(self.corrected_cells),
            "wrong_entries": [entry.to_json() for entry in self.wrong_entries],
            "unsure_entries": [entry.to_json() for entry in self.unsure_entries],
            "givens_doubted": self.givens_doubted,
            "wrong_candidates": [
                cell.to_json(with_answer=not self.check_only) for cell in self.wrong_candidates
            ],
            "unsure_candidates": cell_names(self.unsure_candidates),
            "corners": corners_json(self.reading.corners),
            "rotation": int(self.reading.rotation),
            "min_confidence": round(float(self.reading.confidence.min()), 4),
            "seconds": round(self.seconds, 4),
        }


@dataclass(frozen=True)
class Answer:
    """What a reading comes to: the puzzle solved, the verdict, and how to draw the answer."""

    grid: np.ndarray
    """(9, 9) uint8 puzzle that was solved: the reading after repair, or the caller's override."""
    status: Status
    solution: np.ndarray | None
    """(9, 9) uint8 solved grid when `status` is solved, else None."""
    corrected_cells: list[tuple[int, int]]
    """(row, col) 0-based cells where `grid` differs from the digits read."""
    digit_height: float
    """Height of the digits to draw, as a fraction of a cell: that of the printed givens."""
    kinds: np.ndarray
    """(9, 9) uint8 kind of each cell as solved: printed where `grid` has a given, handwritten
    where an entry was checked, pencil notes where read so, empty elsewhere. It differs from
    the reading's kinds only where the repair moved a digit between print and pen (or took a
    mark for no digit), or where the caller's `grid` and `entries` say otherwise."""
    entries: np.ndarray = field(default_factory=lambda: np.zeros((9, 9), np.uint8))
    """(9, 9) uint8 the person's entries that were checked (0 elsewhere): handwritten digits in
    cells that are not givens of `grid`."""
    wrong_entries: list[CheckedEntry] = field(default_factory=list)
    """Entries read with confidence that differ from `solution`."""
    unsure_entries: list[CheckedEntry] = field(default_factory=list)
    """Entries read with too little confidence to be checked (`UNSURE_BELOW`)."""
    candidates: Candidates = NO_CANDIDATES
    """The person's candidates that were checked: in cells that hold neither a given of `grid`
    nor an entry."""
    wrong_candidates: list[CheckedCandidates] = field(default_factory=list)
    """Cells whose candidates leave out `solution`'s digit (`check_candidates`)."""
    unsure_candidates: list[tuple[int, int]] = field(default_factory=list)
    """(row, col) cells of two or more candidates read too unsure to be checked."""
    givens_doubted: bool = False
    """True when so many entries read surely disagree with `solution` that a misread given
    explains them better than the person's mistakes (`givens_in_doubt`): they are in
    `unsure_entries`, none is called wrong, and the candidates read are unsure too."""

    @property
    def written(self) -> np.ndarray:
        """(9, 9) bool: cells that hold a given or an entry, where no answer is drawn."""
        return (np.asarray(self.grid) > 0) | (self.entries > 0)


def answer_reading(
    reading: Reading, *, grid: Any = None, entries: Any = None, candidates: Any = None
) -> Answer:
    """Repair and solve the printed givens, check the person's entries and candidates, and
    measure the printed digits for drawing the answer.

    The puzzle is the printed digits (`reading.givens`). When they break the rules or do not
    have exactly one solution, the most probable reading that has one is searched for
    (`repair_givens`): a digit read as another, a mark as no digit, or else a digit the kinds
    model was unsure of moved between print and pen. A digit taken off the givens that
    handwriting explains better than nothing does becomes an entry (`person_entries`). `grid`
    (anything `as_grid` accepts) replaces the givens, e.g. after a user corrected them, and is
    solved as given. Each handwritten entry (`person_entries`, or `entries`: 81 digits, 0 where
    none) in a cell that is not a given is checked against the unique solution: one whose cell
    gives the solution's digit a probability of `RIGHT_FROM` or more is right; else one whose
    digit was read with a probability below `UNSURE_BELOW`, or less than `WRONG_ODDS` times the
    solution's digit, or in a cell the cell-content model holds empty (`ENTRY_SURE`: the ghost
    of a rubbed-out entry), is unsure, and one that differs from the solution wrong. An entry of
    `entries` that is the handwritten digit read in its cell keeps the reading's probabilities
    (sending the entries back, as the web page and a loop of hints do, leaves an unsure one
    unsure); any other is taken as certain (typed in or corrected by the person), right exactly
    when it is the solution's digit. A free cell's candidates (`reading.candidates`, or
    `candidates`: anything `as_candidates` takes) are checked likewise (`check_candidates`):
    those read with a sureness below CANDIDATES_SURE are never called wrong, and candidates of
    `candidates` other than those read are taken as the person's own.
    When so many entries are called wrong that a misread given explains them better
    (`givens_in_doubt`), they are unsure instead, and so are the candidates read, and
    `givens_doubted` says so; not when `grid` holds givens the person corrected
    (`corrected_by_person`). Used for photos
    (`solve_photo`), hints and live frames alike.
    """
    if grid is not None:
        puzzle = as_grid(grid)
        outcome = solve(puzzle)
        status, solution = outcome.status, outcome.grid
        corrected = [
            (int(r), int(c)) for r, c in zip(*np.nonzero(puzzle != reading.givens), strict=True)
        ]
    else:
        fixed = repair_givens(reading)
        puzzle, status, solution = fixed.grid, fixed.status, fixed.solution
        corrected = fixed.changed_cells
    if entries is None:
        written = person_entries(reading, puzzle)
        certain = np.zeros((9, 9), bool)
    else:
        written = np.where(puzzle == 0, as_grid(entries), 0).astype(np.uint8)
        certain = written != reading.entries
    read = np.take_along_axis(reading.probabilities, written[..., None], axis=2)[..., 0]
    sure = certain | (read >= UNSURE_BELOW)
    right = np.zeros((9, 9), bool)
    if solution is not None:
        chance = np.take_along_axis(reading.probabilities, solution[..., None], axis=2)[..., 0]
        right = np.where(certain, written == solution, chance >= RIGHT_FROM)
        sure &= certain | (read >= WRONG_ODDS * chance)
    sure &= certain | (reading.entry_sureness >= ENTRY_SURE)
    wrong, unsure = [], []
    for r, c in zip(*np.nonzero((written > 0) & ~right), strict=True):
        cell, digit = (int(r), int(c)), int(written[r, c])
        if not sure[r, c]:
            unsure.append(CheckedEntry(cell, digit, None))
        elif solution is not None and digit != int(solution[r, c]):
            wrong.append(CheckedEntry(cell, digit, int(solution[r, c])))
    doubted = givens_in_doubt(len(wrong), int((written > 0).sum())) and (
        grid is None or not corrected_by_person(reading, puzzle)
    )
    if doubted:
        unsure = [*unsure, *(CheckedEntry(e.cell, e.written, None) for e in wrong)]
        unsure.sort(key=lambda entry: entry.cell)
        wrong = []
    height = printed_digit_height(reading) if solution is not None else DEFAULT_DIGIT_HEIGHT
    free = (puzzle == 0) & (written == 0)
    pencilled = reading.candidates if candidates is None else as_candidates(candidates)
    pencilled = tuple(
        tuple(cell if free[r, c] else () for c, cell in enumerate(row))
        for r, row in enumerate(pencilled)
    )
    has_candidates = np.array([[bool(cell) for cell in row] for row in pencilled])
    kinds = np.select(
        [puzzle > 0, written > 0, (reading.kinds == NOTES) | has_candidates],
        [PRINTED, HANDWRITTEN, NOTES],
        EMPTY,
    ).astype(np.uint8)
    as_read = np.array(
        [
            [cell == reading.candidates[r][c] for c, cell in enumerate(row)]
            for r, row in enumerate(pencilled)
        ]
    )
    checked = ~as_read | ((reading.candidate_sureness >= CANDIDATES_SURE) & (not doubted))
    wrong_candidates = [] if solution is None else check_candidates(pencilled, solution, checked)
    unsure_candidates = [
        (r, c)
        for r, row in enumerate(pencilled)
        for c, cell in enumerate(row)
        if len(cell) >= CHECKED_CANDIDATES and not checked[r, c]
    ]
    return Answer(
        puzzle,
        status,
        solution,
        corrected,
        height,
        kinds,
        written,
        wrong,
        unsure,
        pencilled,
        wrong_candidates,
        unsure_candidates,
        doubted,
    )


DOUBTED_FROM = 6
"""Least number of entries called wrong, and `DOUBTED_SHARE` the least share of the entries, for
the givens as read to be doubted rather than the person (`givens_in_doubt`)."""

DOUBTED_SHARE = 1 / 3
"""See `DOUBTED_FROM` and `givens_in_doubt`: between the share of entries wrong that a person's
many mistakes reach in `benchmarks/check.py --mistakes 8` (about 29%) and that of the misread
givens seen (43% and 44%)."""


def corrected_by_person(reading: Reading, puzzle: np.ndarray) -> bool:
    """Whether a caller's `puzzle` is the person's own correction of the givens: neither the
    givens read nor their repair (`repair_givens`), which a page sends back unchanged."""
    return not (
        np.array_equal(puzzle, reading.givens)
        or np.array_equal(puzzle, repair_givens(reading).grid)
    )


def givens_in_doubt(wrong: int, entries: int) -> bool:
    """Whether `wrong` of a photo's `entries` entries called wrong say more about the givens
    read than about the person.

    A given misread as another digit can leave a puzzle with one solution that is not the
    person's: then many of their right entries disagree with it, each read surely.
    On generated photos with three planted mistakes each (`benchmarks/check.py --kinds reader`,
    seeds 20001-20080, 30001-30040 and 40001-40040) 156 of 160 photos have at most three entries
    called wrong and two have four; the other two have 12 of 28 and 14 of 32, nearly all of
    them right entries under givens misread (and print and pen mixed up). No hand-filled
    photo of the shared set (`mixed`, 160 photos, every entry right) has more than one. A
    person's own run of mistakes that long is shown as doubtful, not wrong: the check can no
    longer tell it from a misread given. With `--mistakes 8` (about 29% of a photo's entries)
    the mistakes caught are those caught without the rule (296 of 320); with `--mistakes 10`
    (35%) 247 of 400, against 365 (a quarter as the share, 98 of 320 at 8).
    """
    return wrong >= DOUBTED_FROM and wrong >= DOUBTED_SHARE * entries


def printed_probabilities(reading: Reading) -> np.ndarray:
    """The reading's (9, 9, 10) probabilities with handwritten cells and pencil notes certain to
    be empty, so that `repair` only reconsiders the digits of the printed and empty cells."""
    probabilities = np.array(reading.probabilities, dtype=np.float32)
    personal = np.isin(reading.kinds, (HANDWRITTEN, NOTES))
    probabilities[personal] = 0.0
    probabilities[personal, 0] = 1.0
    return probabilities


def print_or_pen_probabilities(reading: Reading) -> np.ndarray:
    """(9, 9, 10) probabilities for `repair` that keep every digit as read and doubt only
    whether it is printed: a cell holding a digit d is the given d with the kinds model's
    probability of print, and no given (0) otherwise; a cell without a digit is no given."""
    printed = np.asarray(reading.kind_probabilities, np.float64)[..., PRINTED]
    probabilities = np.zeros((9, 9, 10))
    rows, cols = np.indices((9, 9))
    probabilities[rows, cols, reading.grid] = np.where(reading.grid > 0, printed, 0.0)
    probabilities[..., 0] += np.where(reading.grid > 0, 1.0 - printed, 1.0)
    return probabilities


DIGIT_CHANGES = 2
"""Most digits of the givens `repair_givens` reads as others. Three let almost any broken grid
be mended into some unique puzzle: on generated photos (`benchmarks/synthetic.py --seeds 150`)
the digit repairs of three cells gave a wrong answer 3 times in 4, those of one or two cells
once in 3: a wrong answer is worse than none."""

PRINT_FLOOR = 0.01
"""Least probability of print for which `repair_givens` may take a digit read as handwriting for
a given: lower than `repair`'s floor for digits, as the kinds model is often sure and wrong about
print in black felt-tip."""


def repair_givens(reading: Reading) -> RepairResult:
    """The most probable reading of the printed givens that has exactly one solution.

    Two searches (`repair`): one reconsiders the digits of the printed and empty cells, at most
    DIGIT_CHANGES of them, the kinds taken as read (`printed_probabilities`); the other keeps the
    digits as read and reconsiders only print and pen (`print_or_pen_probabilities`): a printed
    digit taken for handwriting leaves several solutions, a pen entry taken for print none. The
    more probable of the two readings found is kept (the digits' on a tie). The two doubts are
    never combined in one reading: together they make almost any grid unique, and a wrong
    unique answer is worse than none. For the same reason, when the givens as read have several
    solutions, both searches only add givens: a given is missing, and changing or taking off a
    digit read as well would claim two mistakes where one explains what was read (on printed
    photos blurred, darkened or seen through moire, digit changes then gave a wrong answer 5
    times for 1 right one: benchmarks/measurements-log.md, "Repairs when givens are missing").
    """
    missing = solve(reading.givens).status is Status.SEVERAL
    given = reading.givens > 0
    digit_doubts = printed_probabilities(reading)
    if missing:
        digit_doubts[given] = np.eye(10)[reading.givens[given]]
    digits = repair(digit_doubts, reading.givens, max_changes=DIGIT_CHANGES)
    if digits.status is Status.SOLVED and not digits.changed_cells:
        return digits
    doubts = print_or_pen_probabilities(reading)
    if missing:
        doubts[given] = np.eye(10)[reading.givens[given]]
    kinds = repair(
        doubts,
        reading.givens,
        max_changes=6,
        min_probability=PRINT_FLOOR,
    )
    if kinds.status is not Status.SOLVED:
        return digits
    if digits.status is Status.SOLVED and digits.log_probability >= kinds.log_probability:
        return digits
    return kinds


def person_entries(reading: Reading, puzzle: np.ndarray) -> np.ndarray:
    """(9, 9) uint8 the person's entries beside the givens `puzzle` (0 elsewhere): the
    handwritten digits in its empty cells, and the digits read as print that `puzzle` leaves
    out (`repair` took them off) where a handwritten digit is likelier than no digit at all."""
    kinds = np.asarray(reading.kind_probabilities, np.float64)
    blank = np.asarray(reading.probabilities, np.float64)[..., 0]
    handwriting = kinds[..., HANDWRITTEN] * (1.0 - blank)
    nothing = kinds[..., EMPTY] + kinds[..., NOTES] + kinds[..., PRINTED] * blank
    taken_off = (reading.givens > 0) & (handwriting > nothing)
    entries = np.where(taken_off, reading.grid, reading.entries)
    return np.where(np.asarray(puzzle) == 0, entries, 0).astype(np.uint8)


def unsolved_message(
    status: Status,
    grid: np.ndarray,
    photo: str,
    reading: Reading | None,
    pointer: str | None = None,
) -> str:
    """One line saying that the puzzle `grid` read from `photo` (its name, or "the photo") has
    no single answer (`status`), and what is more likely wrong: the grid found, when it may be
    only part of the puzzle (`read.grid.doubt.part_of_puzzle`: small in the photo, or lines
    running on past its sides) or the wrong grid (`read.grid.doubt.other_grids`: another grid
    as large beside it), or else a misread digit. `reading` is None when the grid was
    given by the person rather than read: then the digits are to be corrected. `pointer`, when
    given, is added in brackets (where to see each reading stage). `solve` and `hint` say the
    same failure of a photo with this line."""
    from sudoku_lens.read.grid.doubt import other_grids, part_of_puzzle

    if status is Status.SEVERAL:
        verdict = "several solutions"
    else:
        conflict = find_conflict(format_line(np.asarray(grid, np.uint8).reshape(81)))
        verdict = f"no solution ({conflict})" if conflict else "no solution"
    if reading is None:
        return f"the grid has {verdict}: correct the digits that were misread"
    if reading.entries.any():
        said = (
            f"the printed givens read from {photo} have {verdict} (handwritten entries are not "
            "givens, so they cannot be checked)"
        )
    else:
        said = f"the puzzle read from {photo} has {verdict}"
    corners = reading.location.corners if reading.location is not None else reading.corners
    reasons = part_of_puzzle(reading.image, corners)
    others = [] if reasons else other_grids(reading.image, corners)
    if reasons:
        said += f": the grid found may be only part of the puzzle ({', '.join(reasons)})"
    elif others:
        where = " and ".join(others)
        said += (
            f": the grid found may be the wrong one (another grid lies {where}); "
            "crop the photo to the puzzle, or check the grid read against the photo"
        )
    else:
        said += ": a digit may be misread; check the grid read against the photo"
    return f"{said} ({pointer})" if pointer else said


def solve_photo(
    source: str | os.PathLike[str] | bytes | np.ndarray,
    *,
    grid: Any = None,
    entries: Any = None,
    candidates: Any = None,
    check_only: bool = False,
    trace: GridSearch | None = None,
    name: str | None = None,
) -> PhotoSolution:
    """Read the Sudoku in `source` (path, encoded bytes or BGR array), solve it, check the
    person's entries and candidates and draw the answer.

    The printed givens are repaired and solved and the handwritten entries and pencilled
    candidates checked by `answer_reading` (`grid` replaces the givens read, `entries` the
    entries read, `candidates` the candidates read); the cells changed are reported in
    `corrected_cells`, the wrong and unsure entries in `wrong_entries` and `unsure_entries`, the
    candidates that leave out the answer in `wrong_candidates`. The picture gets the missing
    digits (in empty cells and cells of pencil notes), a red mark on each wrong entry and a
    purple frame around each cell of wrong candidates, or with `check_only` the marks alone, for
    those who want to keep solving; entries of `entries` in cells where the photo shows no digit
    are drawn in, in pen (`draw_answer`). `trace` records what the grid search considered, for
    `sudoku_lens.debug`. Raises ImageError for input that is not a usable image (naming it
    `name` when given, e.g. an uploaded file's name: see `load_image`) and GridNotFoundError when
    no grid is found.
    """
    start = time.perf_counter()
    reading = read_photo(source, trace=trace, name=name)
    timings = {k: v for k, v in reading.timings.items() if k != "total"}

    stage = time.perf_counter()
    answer = answer_reading(reading, grid=grid, entries=entries, candidates=candidates)
    timings["repair" if grid is None else "solve"] = time.perf_counter() - stage

    stage = time.perf_counter()
    annotated = draw_answer(reading, answer, check_only=check_only)
    timings["draw"] = time.perf_counter() - stage
    timings["total"] = time.perf_counter() - start

    return PhotoSolution(
        reading=reading,
        grid=np.asarray(answer.grid, dtype=np.uint8).reshape(9, 9),
        status=answer.status,
        solution=answer.solution,
        corrected_cells=answer.corrected_cells,
        kinds=answer.kinds,
        image=annotated,
        seconds=timings["total"],
        timings=timings,
        wrong_entries=answer.wrong_entries,
        unsure_entries=answer.unsure_entries,
        check_only=check_only,
        candidates=answer.candidates,
        wrong_candidates=answer.wrong_candidates,
        unsure_candidates=answer.unsure_candidates,
        givens_doubted=answer.givens_doubted,
    )


def draw_answer(reading: Reading, answer: Answer, *, check_only: bool = False) -> np.ndarray:
    """The photo with `answer` drawn in: the solution's digits in the cells nobody wrote in
    (none with `check_only`), the person's entries in the cells where the photo shows no digit
    (typed in, or placed by earlier hints: drawn in pen, `entry_sprite`, so that a mark on one
    rings a digit), the marks of the wrong entries (a red ring, the right digit small; the ring
    alone with `check_only`, which must not give answers away), of the unsure ones (an orange
    ring and a question mark), of the candidates that leave out the answer (a purple frame
    along the cell's lines, which leaves the candidates legible) and of those read too unclearly
    to check (the same frame in orange); the grid outlined when there
    is no unique solution. Cells holding print or handwriting are left untouched unless marked;
    pencil notes under a digit drawn are covered by a soft patch of their paper (`cover_cells`),
    and with `check_only` nothing but the frame is drawn over them."""
    if answer.solution is None:
        return draw_outline(reading.image, reading.corners)
    written = answer.written | (reading.kinds == HANDWRITTEN)
    keep = np.ones((9, 9), np.uint8) if check_only else written.astype(np.uint8)
    typed = np.where(reading.grid == 0, answer.entries, 0)
    return draw_solution(
        reading.image,
        reading.corners,
        keep,
        answer.solution,
        digit_height=answer.digit_height,
        wrong=tuple(
            (*entry.cell, 0 if check_only else entry.expected) for entry in answer.wrong_entries
        ),
        unsure=tuple(entry.cell for entry in answer.unsure_entries),
        notes=tuple(zip(*np.nonzero(reading.kinds == NOTES), strict=True)),
        entries=tuple((int(r), int(c), int(typed[r, c])) for r, c in np.argwhere(typed > 0)),
        wrong_candidates=tuple(cell.cell for cell in answer.wrong_candidates),
        unsure_candidates=tuple(answer.unsure_candidates),
    )


def printed_digit_height(reading: Reading) -> float:
    """The printed givens' typical height as a fraction of a cell, so drawn digits match them.

    Measured on the reader's cell crops (turned upright) of the cells read as digits: the
    largest dark component inside each cell that does not touch its edges (grid lines do).
    Falls back to the drawing default when there is too little to measure.
    """
    location = reading.location
    if location is None:
        return DEFAULT_DIGIT_HEIGHT
    turns = (reading.rotation // 90) % 4
    index = np.rot90(np.arange(81).reshape(9, 9), -turns)
    inset = MARGIN + max(2, CELL // 12)
    heights = []
    for r, c in zip(*np.nonzero(reading.givens), strict=True):
        crop = np.rot90(location.cells[int(index[r, c])], -turns)
        inner = np.ascontiguousarray(crop[inset : CROP - inset, inset : CROP - inset])
        if int(inner.max()) - int(inner.min()) < 40:
            continue
        _, ink = cv2.threshold(inner, 0, 255, cv2.THRESH_BINARY_INV | cv2.THRESH_OTSU)
        _, _, stats, _ = cv2.connectedComponentsWithStats(ink)
        x, y, w, h, area = stats[1:].T
        inside = (x > 0) & (y > 0) & (x + w < inner.shape[1]) & (y + h < inner.shape[0])
        if inside.any():
            heights.append(h[inside][area[inside].argmax()] / CELL)
    if len(heights) < 3:
        return DEFAULT_DIGIT_HEIGHT
    return float(np.clip(np.median(heights), 0.35, 0.8))


def draw_outline(
    image_bgr: np.ndarray, corners: np.ndarray, color: tuple[int, int, int] = OUTLINE_COLOR
) -> np.ndarray:
    """A copy of `image_bgr` with the quadrilateral `corners` outlined, scaled to the photo."""
    out = image_bgr.copy()
    width = max(2, round(max(out.shape[:2]) / 300))
    points = np.round(np.asarray(corners, np.float32) * 16).astype(np.int32).reshape(-1, 1, 2)
    cv2.polylines(out, [points], True, color, width, cv2.LINE_AA, shift=4)
    return out


def picture_ending(kind: str) -> str:
    """The file name ending of the picture drawn on a photo of format `kind` (`Photo.kind`):
    .jpg for a JPEG photo, small enough to send (see `image_io.JPEG_QUALITY`: a 12-16
    megapixel phone photo's solved picture is 1.4 MB, a PNG of it 13 MB); .png for any other,
    whose pixels a PNG keeps as they are."""
    return ".jpg" if kind == "JPEG" else ".png"


def default_output_path(
    photo: str | os.PathLike[str], suffix: str = "solved", kind: str = "PNG"
) -> Path:
    """`<stem>-<suffix><ending>` (by default `<stem>-solved.png`) in the current directory for a
    photo at `photo` of format `kind`, ending as `picture_ending` says: `photo-solved.jpg` for
    the JPEG `photo.jpg`."""
    return Path(f"{Path(photo).stem}-{suffix}{picture_ending(kind)}")
