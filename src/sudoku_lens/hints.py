"""Hints: the next logical step in a puzzle, for text or drawn into a photo.

`find_hints` works on a state (puzzle text, pencil marks, or a grid), `hint_photo` on a photo:
it reads the printed digits, repairs misreads as `solve_photo` does, continues from the person's
own entries that are right (handwritten digits, or hints already taken) and from the candidates
already crossed out, finds the easiest step and draws it into the photo.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from sudoku_lens.logic.progress import checked_solution, with_eliminations
from sudoku_lens.logic.solver import all_steps, next_step
from sudoku_lens.logic.state import CandidateGrid
from sudoku_lens.logic.step import Step
from sudoku_lens.puzzle.text import cell_name, cell_names
from sudoku_lens.read.reader import Reading

if TYPE_CHECKING:
    from sudoku_lens.pipeline import CheckedCandidates


def find_hints(
    grid: CandidateGrid, *, technique: str | None = None, every: bool = False
) -> list[Step]:
    """The easiest step in `grid` (a list of one, or empty when no technique applies), or with
    `every` all the steps found, easiest technique first; `technique` looks for that one only.
    The state is checked first (see `checked_solution`): a puzzle without exactly one solution
    raises UnsolvablePuzzleError, an unknown technique UnknownTechniqueError."""
    if technique is not None:
        from sudoku_lens.logic.catalog import technique as known

        known(technique)
    checked_solution(grid)
    if every:
        return list(all_steps(grid, technique))
    step = next_step(grid, technique)
    return [] if step is None else [step]


@dataclass(frozen=True)
class PhotoHint:
    """A photo's next step: what was read, the state searched, the steps and the drawing."""

    reading: Reading
    state: CandidateGrid
    """The state the steps were found in: the givens, the right entries, the eliminations."""
    steps: list[Step]
    """The easiest step (or every step, when asked for), empty when no technique applies."""
    image: np.ndarray
    """A copy of the photo with the first step drawn into the grid, the wrong entries ringed in
    red and the unsure ones in orange (the right digit not shown), the cells whose candidates
    leave out the answer framed in purple, and the digits of earlier
    hints or typed in drawn in pen where the page has none (over a patch of paper where it holds
    pencil notes), as `draw_answer` draws them."""
    corrected_cells: list[tuple[int, int]] = field(default_factory=list)
    """(row, col) 0-based: printed digits the reading repaired, as `solve_photo` reports them."""
    wrong_entries: list[int] = field(default_factory=list)
    """Cells (0-80) whose entry is not the solution's digit: left out of the state."""
    unsure_entries: list[int] = field(default_factory=list)
    """Cells (0-80) whose entry was read too unclearly to check: never called wrong, placed in
    the state where right and left out where not."""
    entries: np.ndarray = field(default_factory=lambda: np.zeros((9, 9), np.uint8))
    """(9, 9) uint8 the person's entries checked (right, wrong and unsure), 0 elsewhere."""
    wrong_candidates: list[CheckedCandidates] = field(default_factory=list)
    """Cells whose pencilled candidates leave out the answer, as `solve_photo` finds them."""
    unsure_candidates: list[tuple[int, int]] = field(default_factory=list)
    """(row, col) cells of two or more candidates read too unsure to be checked."""
    givens_doubted: bool = False
    """True when so many entries disagree with the solution that a given is more likely
    misread than they are all wrong; they are then unsure (see `Answer.givens_doubted`)."""
    timings: dict[str, float] = field(default_factory=dict)
    """Seconds: "read", "repair", "hint", "draw", "total"."""

    @property
    def step(self) -> Step | None:
        """The first step found, or None."""
        return self.steps[0] if self.steps else None

    def entries_after(self) -> str:
        """81 digits to send back as `entries` for the next hint: the digits the first step
        places and the person's entries elsewhere (the wrong and unsure ones kept, so the next
        hint reports them again, unless the step placed a digit in their cell), 0 elsewhere."""
        after = self.state.copy()
        if self.step is not None:
            after.apply(self.step)
        placed = np.array(after.values, np.uint8).reshape(9, 9)
        placed[np.array(self.state.values).reshape(9, 9) > 0] = 0
        return "".join(map(str, np.where(placed > 0, placed, self.entries).ravel()))

    def checked_json(self) -> dict[str, list[dict[str, Any]]]:
        """`wrong_entries` and `unsure_entries` as `solve --json` gives them, `{"cell": "r3c4",
        "written": 5}` each, `wrong_candidates` (`{"cell": "r4c5", "written": "28"}` each),
        without the right digit: a hint does not give it away, and `unsure_candidates` (cell
        names)."""
        written = self.entries.reshape(-1)
        checked: dict[str, list[dict[str, Any]]] = {
            key: [{"cell": cell_name(c), "written": int(written[c])} for c in cells]
            for key, cells in (
                ("wrong_entries", self.wrong_entries),
                ("unsure_entries", self.unsure_entries),
            )
        }
        checked["wrong_candidates"] = [
            cell.to_json(with_answer=False) for cell in self.wrong_candidates
        ]
        checked["unsure_candidates"] = cell_names(self.unsure_candidates)
        return checked

    def photo_json(self) -> dict[str, Any]:
        """What a photo's hint adds to its step's JSON, in `hint PHOTO --json` and `POST
        /api/hint` alike: `corrected_cells` (the cells the repair changed, named "r3c4" as
        `solve --json` names them), `checked_json`'s entries and `givens_doubted`."""
        return {
            "corrected_cells": cell_names(self.corrected_cells),
            **self.checked_json(),
            "givens_doubted": self.givens_doubted,
        }

    def to_json(self) -> dict[str, Any]:
        """The reading's grid and corners, the state, the wrong entries and the steps."""
        return {
            "grid": self.state.line(),
            "corners": [[round(float(x), 1), round(float(y), 1)] for x, y in self.reading.corners],
            "rotation": int(self.reading.rotation),
            **self.photo_json(),
            "steps": [step.to_json() for step in self.steps],
            "seconds": round(self.timings.get("total", 0.0), 4),
        }


def hint_photo(
    source: str | os.PathLike[str] | bytes | np.ndarray,
    *,
    grid: Any = None,
    entries: Any = None,
    candidates: Any = None,
    eliminations: Iterable[str] = (),
    technique: str | None = None,
    every: bool = False,
    name: str | None = None,
) -> PhotoHint:
    """Read the photo `source` (path, encoded bytes or BGR array), find the next step and draw it.

    The printed digits are the givens (repaired when they break the rules or leave several
    solutions); `grid` (anything `as_grid` accepts) replaces them, e.g. after the user corrected
    the reading. The person's handwritten entries read from the photo are checked as
    `answer_reading` does; `entries` (81 digits, 0 where none: the digits the person placed as
    shown to them, typed in, corrected or taken from earlier hints) replace those read, so a 0
    clears an entry read in its cell. The right ones are placed (the solution's digit, also where
    a misread one is taken for right), the wrong ones left out and reported in `wrong_entries`.
    Entries read too unclearly to check (an entry sent that is the digit read keeps the
    reading's probability) are reported in `unsure_entries` and never called wrong: placed where
    they are right, left out where not. The person's pencilled candidates (`candidates`, as
    `answer_reading` takes them, replace those read) that leave out the answer are reported in
    `wrong_candidates`.
    `eliminations` are candidates already crossed out (`"r1c2<>5"`). Raises ImageError (naming
    the photo `name` when given: see `load_image`), GridNotFoundError, UnsolvablePuzzleError,
    UnknownTechniqueError or PuzzleFormatError.
    """
    from sudoku_lens.draw.hint import draw_step
    from sudoku_lens.logic.progress import UnsolvablePuzzleError
    from sudoku_lens.pipeline import answer_reading, draw_answer, unsolved_message
    from sudoku_lens.puzzle import format_line
    from sudoku_lens.read.reader import read_photo
    from sudoku_lens.solve import Status

    start = time.perf_counter()
    reading = read_photo(source, name=name)
    timings = {"read": time.perf_counter() - start}

    stage = time.perf_counter()
    answer = answer_reading(reading, grid=grid, entries=entries, candidates=candidates)
    if answer.status is not Status.SOLVED or answer.solution is None:
        read = reading if grid is None else None
        raise UnsolvablePuzzleError(
            unsolved_message(answer.status, answer.grid, name or "the photo", read)
        )
    state = CandidateGrid.from_puzzle(answer.grid)
    solution = format_line(answer.solution)
    unsure = {r * 9 + c for (r, c) in (entry.cell for entry in answer.unsure_entries)}
    wrong = sorted(r * 9 + c for (r, c) in (entry.cell for entry in answer.wrong_entries))
    own = answer.entries.reshape(-1).tolist()
    for cell, digit in enumerate(own):
        right = ord(solution[cell]) - 48
        if not digit or cell in wrong or state.values[cell] or (cell in unsure and digit != right):
            continue
        # a right entry, read as the solution's digit or misread as another that gives the
        # solution's `RIGHT_FROM` or more: the person wrote the solution's digit
        state.place(cell, right)
    state = with_eliminations(state, eliminations)
    timings["repair"] = time.perf_counter() - stage

    stage = time.perf_counter()
    steps = find_hints(state, technique=technique, every=every)
    timings["hint"] = time.perf_counter() - stage

    stage = time.perf_counter()
    # The person's entries marked as `solve PHOTO --check` marks them, without the right digit (a
    # hint does not give it away), and those the photo does not show drawn in.
    image = draw_answer(reading, answer, check_only=True)
    if steps:
        image = draw_step(
            image,
            reading.corners,
            steps[0],
            state,
            digit_height=answer.digit_height,
        )
    timings["draw"] = time.perf_counter() - stage
    timings["total"] = time.perf_counter() - start
    return PhotoHint(
        reading,
        state,
        steps,
        image,
        corrected_cells=answer.corrected_cells,
        wrong_entries=wrong,
        unsure_entries=sorted(unsure),
        entries=answer.entries,
        wrong_candidates=answer.wrong_candidates,
        unsure_candidates=answer.unsure_candidates,
        givens_doubted=answer.givens_doubted,
        timings=timings,
    )
