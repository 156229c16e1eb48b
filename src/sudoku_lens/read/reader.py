"""Read the given digits of a Sudoku from a photo: decode, find the grid, classify, turn upright."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

import numpy as np

from sudoku_lens.read.digits import orient
from sudoku_lens.read.grid import GridLocation, locate_grid
from sudoku_lens.read.image_io import load_image


@dataclass(frozen=True)
class Reading:
    """What was read from one photo, with the puzzle turned upright."""

    givens: np.ndarray
    """(9, 9) uint8 digits of the upright puzzle, 0 for an empty cell."""
    probabilities: np.ndarray
    """(9, 9, 10) float32 class probabilities per upright cell (class 0 = empty)."""
    corners: np.ndarray
    """(4, 2) float32 grid corners in the input image's pixels (after EXIF orientation),
    ordered top-left, top-right, bottom-right, bottom-left of the upright puzzle."""
    rotation: int
    """Degrees (0, 90, 180 or 270) the photo must turn clockwise for the puzzle to be upright."""
    timings: dict[str, float]
    """Seconds spent per stage: decode, grid, cells, digits, and their total."""
    image: np.ndarray
    """The decoded BGR image the corners refer to."""
    location: GridLocation | None = None
    """The grid as found in the image (not turned upright): cells, rectified grid, lattice."""

    @property
    def confidence(self) -> np.ndarray:
        """(9, 9) probability of the chosen class of each upright cell."""
        return self.probabilities.max(axis=2)


def read_photo(source: str | os.PathLike[str] | bytes | np.ndarray) -> Reading:
    """Read the Sudoku in a photo given as a path, encoded bytes or a BGR/grayscale array.

    The grid is located and cut into cells along its own lines; the digit classifier reads the
    cells in each of the four orientations and keeps the one it reads most confidently, so
    sideways and upside-down photos (whatever their EXIF tag says) come out upright. Raises
    ImageError for input that is not a usable image and GridNotFoundError when no grid is seen.
    """
    timings: dict[str, float] = {}
    start = time.perf_counter()
    image = load_image(source)
    timings["decode"] = time.perf_counter() - start
    location = locate_grid(image, timings=timings)
    start = time.perf_counter()
    turns, probabilities = orient(location.cells)
    timings["digits"] = time.perf_counter() - start
    timings["total"] = sum(timings.values())
    probabilities = np.ascontiguousarray(probabilities, dtype=np.float32)
    return Reading(
        givens=probabilities.argmax(axis=2).astype(np.uint8),
        probabilities=probabilities,
        corners=upright_corners(location.corners, turns),
        rotation=90 * turns,
        timings=timings,
        image=image,
        location=location,
    )


def upright_corners(corners: np.ndarray, turns: int) -> np.ndarray:
    """Reorder image-frame corners (TL, TR, BR, BL) to the puzzle's own after `turns` quarter
    turns clockwise: turning the photo clockwise brings its bottom-left corner to the top-left.
    """
    return np.ascontiguousarray(np.roll(np.asarray(corners, np.float32), turns % 4, axis=0))
