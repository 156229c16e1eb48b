"""Pictures of every stage of reading a photo, to see why a photo failed.

The grid search records what it considered in a `GridSearch`; this module only draws it and the
reading. `write_debug_pictures` writes, into one directory (`solve_photo_with_pictures` solves a
photo and writes them):

1. `1-binarised.png`: the ink mask the grid is searched in.
2. `2-outlines.png`: every candidate scored (the best with their grid score), the one chosen
   and the grid lines fitted in it.
3. `3-warped.png`: the grid rectified to a square with each cell's boundary.
4. `4-cells.png`: the 81 cells upright, each as cut from the photo and as the classifier sees it,
   with the digit read and its confidence (red when unsure) and any repair.
5. `5-result.png`: the photo with the answer drawn, or with the outline when it was not solved.

Stages that were not reached (no grid found) are left out.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from sudoku_lens.errors import GridNotFoundError, SudokuLensError
from sudoku_lens.pipeline import PhotoSolution, solve_photo
from sudoku_lens.read.digits import SIZE, prepare_cells, rotate_grid
from sudoku_lens.read.grid import CROP, GridLocation, GridSearch
from sudoku_lens.read.image_io import write_image
from sudoku_lens.read.reader import Reading

FONT = cv2.FONT_HERSHEY_SIMPLEX
WHITE = (255, 255, 255)
BLACK = (0, 0, 0)
GREEN = (40, 160, 40)
ORANGE = (0, 140, 255)
RED = (0, 0, 220)
BLUE = (200, 80, 0)
GREY = (150, 150, 150)

SURE = 0.9
"""Confidence at or above which a cell's label is green."""
UNSURE = 0.6
"""Confidence below which a cell's label is red (orange in between)."""
MAX_SIDE = 1400
"""Longest side of a picture of the whole photo."""
LABELLED = 5
"""Candidates whose grid score is written on the outlines picture, best first."""


def solve_photo_with_pictures(
    source: str | os.PathLike[str] | bytes | np.ndarray,
    directory: str | os.PathLike[str],
    *,
    grid: Any = None,
    check_only: bool = False,
    name: str | None = None,
) -> PhotoSolution:
    """`solve_photo` that also writes the stage pictures into `directory`, also when no grid is
    found: then the pictures of the stages reached are written, and the error (of the same
    class) says where they are, for they are what shows why."""
    trace = GridSearch()
    try:
        photo = solve_photo(source, grid=grid, check_only=check_only, trace=trace, name=name)
    except GridNotFoundError as exc:
        if not write_debug_pictures(directory, trace):
            raise
        where = f"{exc} (the pictures of the stages reached are in {os.fspath(directory)})"
        raise type(exc)(where) from exc
    write_debug_pictures(directory, trace, photo=photo)
    return photo


def write_debug_pictures(
    directory: str | os.PathLike[str],
    search: GridSearch,
    *,
    reading: Reading | None = None,
    photo: PhotoSolution | None = None,
) -> list[Path]:
    """Write one picture per stage into `directory` (created if needed).

    `search` is what the grid search recorded (pass a `GridSearch` to `read_photo` or
    `solve_photo`); `reading` adds the cells and their predictions, `photo` the reading, the
    repairs and the result. Returns the paths written.
    """
    out = Path(directory)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise SudokuLensError(f"cannot create the debug directory {out}: {exc.strerror}") from exc

    if photo is not None:
        reading = photo.reading
    pictures = {}
    if search.mask is not None and search.gray is not None:
        pictures["1-binarised.png"] = binarised_picture(search)
        pictures["2-outlines.png"] = outlines_picture(search)
    if reading is not None and reading.location is not None:
        pictures["3-warped.png"] = warped_picture(reading.location, reading.rotation)
        pictures["4-cells.png"] = cells_picture(reading.location, reading, photo)
    if photo is not None:
        pictures["5-result.png"] = result_picture(photo)

    written = []
    for name, picture in pictures.items():
        written.append(write_image(out / name, picture))
    return written


def titled(image: np.ndarray, lines: list[str | tuple[str, tuple[int, int, int]]]) -> np.ndarray:
    """`image` (BGR or gray) under a white band holding `lines` of text (optionally coloured)."""
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    line_height = 30
    texts = [line if isinstance(line, str) else line[0] for line in lines]
    text_width = max(cv2.getTextSize(text, FONT, 0.7, 2)[0][0] for text in texts)
    width = max(image.shape[1], text_width + 20)
    band = np.full((line_height * len(lines) + 12, width, 3), 255, np.uint8)
    for i, line in enumerate(lines):
        text, color = (line, BLACK) if isinstance(line, str) else line
        thickness = 2 if i == 0 else 1
        cv2.putText(
            band, text, (10, 26 + i * line_height), FONT, 0.7, color, thickness, cv2.LINE_AA
        )
    body = np.full((image.shape[0], width, 3), 255, np.uint8)
    body[:, : image.shape[1]] = image
    return np.vstack([band, body])


def _fit(image: np.ndarray, side: int = MAX_SIDE) -> tuple[np.ndarray, float]:
    """`image` reduced so its longest side is at most `side`, and the factor applied."""
    factor = min(1.0, side / max(image.shape[:2]))
    if factor < 1.0:
        image = cv2.resize(image, None, fx=factor, fy=factor, interpolation=cv2.INTER_AREA)
    return image, factor


def _polygon(image: np.ndarray, quad: np.ndarray, color: tuple[int, int, int], width: int) -> None:
    points = np.round(np.asarray(quad, np.float32) * 16).astype(np.int32).reshape(-1, 1, 2)
    cv2.polylines(image, [points], True, color, width, cv2.LINE_AA, shift=4)


def binarised_picture(search: GridSearch) -> np.ndarray:
    """Stage 1: the ink mask, ink in black (of the photo restored, when only that held the
    grid: `GridSearch.restored`)."""
    assert search.mask is not None
    lines: list[str | tuple[str, tuple[int, int, int]]] = [
        "1. Binarised (adaptive threshold)",
        "Black: ink darker than its surroundings.",
        "The grid's lines should be solid and closed all around.",
    ]
    if search.restored is not None:
        lines.append((f"No grid in the photo as taken: shown {search.restored}.", ORANGE))
    return titled(255 - search.mask, lines)


def outlines_picture(search: GridSearch, labelled: int = LABELLED) -> np.ndarray:
    """Stage 2: every candidate scored, the best `labelled` with their grid score, the chosen
    one and the grid lines fitted in it."""
    assert search.gray is not None
    canvas = cv2.cvtColor(search.gray, cv2.COLOR_GRAY2BGR) // 2 + 127
    for candidate in search.candidates:
        _polygon(canvas, candidate.quad, BLUE if candidate.passed else ORANGE, 1)
    best = sorted(search.candidates, key=lambda candidate: -candidate.score)[:labelled]
    for candidate in best:
        x, y = np.asarray(candidate.quad, np.float32).mean(axis=0)
        color = BLUE if candidate.passed else ORANGE
        text = f"{candidate.score:.2f}"
        cv2.putText(canvas, text, (int(x) - 20, int(y)), FONT, 0.6, color, 2, cv2.LINE_AA)
    if search.location is not None:
        lattice = search.location.lattice * search.scale
        for line in [*lattice, *lattice.transpose(1, 0, 2)]:
            points = np.round(line * 16).astype(np.int32).reshape(-1, 1, 2)
            cv2.polylines(canvas, [points], False, GREEN, 1, cv2.LINE_AA, shift=4)
        _polygon(canvas, search.location.corners * search.scale, GREEN, 2)
        verdict = ("Chosen: green outline, with the grid lines fitted inside it.", GREEN)
    else:
        verdict = ("None of them looks like a Sudoku grid: no grid found.", RED)
    passed = sum(candidate.passed for candidate in search.candidates)
    return titled(
        canvas,
        [
            "2. Candidate outlines and the chosen one",
            (f"Orange: {len(search.candidates) - passed} candidate(s) that are no grid.", ORANGE),
            (f"Blue: {passed} that look like a grid (the best with their score).", BLUE),
            verdict,
        ],
    )


def warped_picture(location: GridLocation, rotation: int) -> np.ndarray:
    """Stage 3: the rectified grid with every cell's boundary, as seen in the photo."""
    zoom = 2
    canvas = cv2.cvtColor(location.warped, cv2.COLOR_GRAY2BGR)
    canvas = cv2.resize(canvas, None, fx=zoom, fy=zoom, interpolation=cv2.INTER_LINEAR)
    for x0, y0, x1, y1 in location.cell_boxes.reshape(-1, 4) * zoom:
        cv2.rectangle(canvas, (int(x0) + 2, int(y0) + 2), (int(x1) - 2, int(y1) - 2), GREEN, 1)
    turn = f"turned {rotation} degrees clockwise to be upright" if rotation else "upright"
    return titled(
        canvas,
        [
            "3. Rectified grid with cell boundaries",
            f"In the photo's orientation (the puzzle is {turn}).",
            "Green boxes should follow the grid lines.",
        ],
    )


def _confidence_color(confidence: float) -> tuple[int, int, int]:
    if confidence >= SURE:
        return GREEN
    return ORANGE if confidence >= UNSURE else RED


def cells_picture(
    location: GridLocation, reading: Reading, photo: PhotoSolution | None = None
) -> np.ndarray:
    """Stage 4: the 81 cells upright, raw and prepared, with the digit read and its confidence."""
    turns = (reading.rotation // 90) % 4
    crops = np.stack([cv2.resize(c, (CROP, CROP)) for c in location.cells]).reshape(
        9, 9, CROP, CROP
    )
    crops = rotate_grid(crops, turns)
    prepared = rotate_grid(prepare_cells(location.cells).reshape(9, 9, SIZE, SIZE), turns)
    corrected = set(photo.corrected_cells) if photo is not None else set()
    side, label, gap, box_gap = 72, 22, 4, 10
    tile_w, tile_h = 2 * side + 2, side + label
    sheet_w = 9 * tile_w + 6 * gap + 2 * box_gap
    sheet = np.full((9 * tile_h + 6 * gap + 2 * box_gap, sheet_w, 3), 255, np.uint8)
    for r in range(9):
        for c in range(9):
            raw = cv2.resize(crops[r, c], (side, side), interpolation=cv2.INTER_AREA)
            seen = (255 - 255 * np.clip(prepared[r, c], 0, 1)).astype(np.uint8)
            seen = cv2.resize(seen, (side, side), interpolation=cv2.INTER_NEAREST)
            tile = np.full((tile_h, tile_w, 3), 255, np.uint8)
            tile[:side, :side] = cv2.cvtColor(raw, cv2.COLOR_GRAY2BGR)
            tile[:side, side + 2 :] = cv2.cvtColor(seen, cv2.COLOR_GRAY2BGR)
            cv2.rectangle(tile, (side + 2, 0), (tile_w - 1, side - 1), GREY, 1)
            digit = int(reading.grid[r, c])
            confidence = float(reading.confidence[r, c])
            text = f"{digit if digit else '-'} {confidence:.2f}"
            cv2.putText(
                tile,
                text,
                (3, tile_h - 6),
                FONT,
                0.55,
                _confidence_color(confidence),
                1,
                cv2.LINE_AA,
            )
            if (r, c) in corrected and photo is not None:
                fixed = int(photo.grid[r, c])
                note = f"> {fixed if fixed else '-'}"
                cv2.putText(tile, note, (side + 14, tile_h - 6), FONT, 0.55, BLUE, 2, cv2.LINE_AA)
                cv2.rectangle(tile, (0, 0), (tile_w - 1, tile_h - 1), BLUE, 2)
            y = r * tile_h + (r - r // 3) * gap + (r // 3) * box_gap
            x = c * tile_w + (c - c // 3) * gap + (c // 3) * box_gap
            sheet[y : y + tile_h, x : x + tile_w] = tile
    low = int((reading.confidence < UNSURE).sum())
    lines: list[str | tuple[str, tuple[int, int, int]]] = [
        "4. Cells, upright: as cut from the photo | as the classifier sees it",
        "Label: digit read ('-' = empty) and its confidence:",
        "green sure, orange unsure, red doubtful.",
        (f"{low} cell(s) below {UNSURE:.0%} confidence.", RED if low else GREEN),
    ]
    if corrected:
        lines.append(
            (f"Blue: {len(corrected)} cell(s) changed by the repair ('> new reading').", BLUE)
        )
    return titled(sheet, lines)


def result_picture(photo: PhotoSolution) -> np.ndarray:
    """Stage 5: the annotated photo, with the verdict."""
    image, _ = _fit(photo.image)
    status = str(photo.status.value)
    if photo.solved:
        verdict = (f"Solved in {photo.seconds:.2f} s.", GREEN)
    else:
        verdict = (f"Not solved: {status}. The detected grid outline is drawn in red.", RED)
    lines: list[str | tuple[str, tuple[int, int, int]]] = ["5. Result", verdict]
    if photo.corrected_cells:
        cells = ", ".join(f"r{r + 1}c{c + 1}" for r, c in photo.corrected_cells)
        lines.append((f"Corrected cells: {cells}", BLUE))
    return titled(image, lines)
