"""Solve a photo end to end: read the grid, repair misreads, solve, draw the answer in the photo."""

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
from sudoku_lens.read.grid import CELL, CROP, MARGIN, GridSearch
from sudoku_lens.read.image_io import load_image
from sudoku_lens.read.reader import Reading, corners_json, read_image
from sudoku_lens.repair import repair
from sudoku_lens.solve import Status, solve

OUTLINE_COLOR = (0, 0, 255)
"""BGR colour of the grid outline drawn on a photo that could not be solved."""


@dataclass(frozen=True)
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
    image: np.ndarray
    """BGR photo with the solution drawn in, or with the grid outline when not solved."""
    seconds: float
    """Wall time of the whole call, decoding included."""
    timings: dict[str, float] = field(default_factory=dict)
    """Seconds per stage: "decode", the reader's stages, "repair" (or "solve" for a grid given by
    the caller), "draw", and "total" (the same as `seconds`)."""

    @property
    def solved(self) -> bool:
        """True when the puzzle has exactly one solution."""
        return self.status == Status.SOLVED

    def to_json(self) -> dict[str, Any]:
        """JSON-ready summary: `grid` (solved), `read` (as read) and `solution` as 81-character
        lines ('0' for empty), `status`, `corrected_cells` [row, col], `corners` in pixels (TL, TR,
        BR, BL of the upright puzzle), `rotation`, `min_confidence` (of the least sure cell),
        `seconds`.
        """
        return {
            "grid": grid_json(self.grid),
            "read": grid_json(self.reading.grid),
            "solution": grid_json(self.solution),
            "status": str(self.status.value),
            "corrected_cells": [[int(r), int(c)] for r, c in self.corrected_cells],
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


def answer_reading(reading: Reading, *, grid: Any = None) -> Answer:
    """Repair and solve what was read, and measure the printed digits for drawing the answer.

    When the digits read break the rules or do not have exactly one solution, the classifier's
    probabilities are used to find the most probable reading that has one (`repair`). `grid`
    (anything `as_grid` accepts) replaces the reading, e.g. after a user corrected it, and is
    solved as given. Used for photos (`solve_photo`) and for live frames alike.
    """
    if grid is not None:
        puzzle = as_grid(grid)
        outcome = solve(puzzle)
        status, solution = outcome.status, outcome.grid
        corrected = [
            (int(r), int(c)) for r, c in zip(*np.nonzero(puzzle != reading.grid), strict=True)
        ]
    else:
        fixed = repair(reading.probabilities, reading.grid)
        puzzle, status, solution = fixed.grid, fixed.status, fixed.solution
        corrected = fixed.changed_cells
    height = printed_digit_height(reading) if solution is not None else DEFAULT_DIGIT_HEIGHT
    return Answer(puzzle, status, solution, corrected, height)


def solve_photo(
    source: str | os.PathLike[str] | bytes | np.ndarray,
    *,
    grid: Any = None,
    trace: GridSearch | None = None,
) -> PhotoSolution:
    """Read the Sudoku in `source` (path, encoded bytes or BGR array), solve it and draw the answer.

    The reading is repaired and solved by `answer_reading` (`grid` replaces the digits read);
    the cells changed are reported in `corrected_cells`. `trace` records what the grid search
    considered, for `sudoku_lens.debug`. Raises ImageError for input that is not a usable image
    and GridNotFoundError when no grid is found.
    """
    start = time.perf_counter()
    image = load_image(source)
    timings = {"decode": time.perf_counter() - start}
    reading = read_image(image, trace=trace)
    timings.update((k, v) for k, v in reading.timings.items() if k != "total")

    stage = time.perf_counter()
    answer = answer_reading(reading, grid=grid)
    timings["repair" if grid is None else "solve"] = time.perf_counter() - stage

    stage = time.perf_counter()
    if answer.solution is not None:
        annotated = draw_solution(
            reading.image,
            reading.corners,
            answer.grid,
            answer.solution,
            digit_height=answer.digit_height,
        )
    else:
        annotated = draw_outline(reading.image, reading.corners)
    timings["draw"] = time.perf_counter() - stage
    timings["total"] = time.perf_counter() - start

    return PhotoSolution(
        reading=reading,
        grid=np.asarray(answer.grid, dtype=np.uint8).reshape(9, 9),
        status=answer.status,
        solution=answer.solution,
        corrected_cells=answer.corrected_cells,
        image=annotated,
        seconds=timings["total"],
        timings=timings,
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


def default_output_path(photo: str | os.PathLike[str]) -> Path:
    """`<stem>-solved.png` in the current directory for a photo at `photo`."""
    return Path(f"{Path(photo).stem}-solved.png")
