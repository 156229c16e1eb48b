"""A cheap look at which cells of a tracked grid hold ink, to notice that the page has changed.

Reading a grid costs tens of milliseconds, so a followed grid is not re-read every frame. Instead
the grid is rectified to a small square from the downscaled frame (a fraction of a millisecond)
and each cell's centre is tested for ink. While the same puzzle is in view the filled cells are
its givens; another puzzle, or no puzzle at all, fills a very different set of cells.
"""

from __future__ import annotations

import cv2
import numpy as np

CELL = 16
"""Side of a cell in the rectified square, in pixels."""

_SIDE = 9 * CELL
_INNER = slice(CELL // 4, CELL - CELL // 4)
_PAPER_KERNEL = cv2.getStructuringElement(cv2.MORPH_RECT, (5, 5))
_MIN_CONTRAST = 0.12
"""Least darkening, as a fraction of the paper's brightness, that counts as ink."""
_MISSED_FLOOR = 0.08
"""Least ink fraction of a cell read as empty that can count as a missed digit."""
_TARGET = np.array([[0, 0], [_SIDE, 0], [_SIDE, _SIDE], [0, _SIDE]], np.float32)


def cell_ink(gray: np.ndarray, corners: np.ndarray) -> np.ndarray:
    """Fraction of ink pixels in the centre of each cell: (9, 9) float32 in [0, 1].

    `corners` (4, 2) are the grid's TL, TR, BR, BL in `gray`'s pixels, in the puzzle's upright
    order, so cell (r, c) of the result is cell (r, c) of the puzzle. Ink is what is clearly darker
    than the local paper (a max filter wider than a stroke), relative to the paper's brightness,
    which ignores shading, shadows and uneven light; "clearly" is judged from the darkest ink in
    the cell centres, away from the grid lines.
    """
    homography = cv2.getPerspectiveTransform(np.asarray(corners, np.float32), _TARGET)
    warped = cv2.warpPerspective(
        gray, homography, (_SIDE, _SIDE), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )
    paper = cv2.dilate(warped, _PAPER_KERNEL).astype(np.float32)
    ink = (paper - warped) / np.maximum(paper, 1.0)
    centres = ink.reshape(9, CELL, 9, CELL)[:, _INNER, :, _INNER]
    level = max(_MIN_CONTRAST, 0.4 * float(np.percentile(centres, 99)))
    return (centres > level).mean(axis=(1, 3)).astype(np.float32)


def visible_cells(corners: np.ndarray, width: int, height: int) -> np.ndarray:
    """(9, 9) bool: cells whose centre lies inside a `width` x `height` frame (with a margin)."""
    homography = cv2.getPerspectiveTransform(_TARGET, np.asarray(corners, np.float32))
    centres = (np.arange(9, dtype=np.float32) + 0.5) * CELL
    grid = np.stack(np.meshgrid(centres, centres), axis=-1).reshape(1, -1, 2)
    points = cv2.perspectiveTransform(grid, homography).reshape(9, 9, 2)
    margin = 0.02 * min(width, height)
    inside_x = (points[..., 0] > margin) & (points[..., 0] < width - margin)
    inside_y = (points[..., 1] > margin) & (points[..., 1] < height - margin)
    return inside_x & inside_y


class GivensCheck:
    """Compares the ink pattern of a tracked grid with the givens of the puzzle read there.

    Built from the frame the puzzle was confirmed on, which calibrates the ink fraction that
    separates a printed digit from an empty cell under this page's print, light and focus.
    Cells of pencilled candidates (`marked`) hold ink without a digit: they are neither, and are
    left out of the calibration and of every comparison.
    """

    def __init__(
        self, givens: np.ndarray, reference_ink: np.ndarray, marked: np.ndarray | None = None
    ) -> None:
        self.filled = np.asarray(givens) > 0
        self.compared = np.ones((9, 9), bool) if marked is None else ~np.asarray(marked, bool)
        ink = np.asarray(reference_ink, np.float32)
        digits, empty = ink[self.filled & self.compared], ink[~self.filled & self.compared]
        if digits.size and empty.size:
            low, high = float(np.percentile(digits, 20)), float(np.percentile(empty, 90))
            self.threshold = 0.5 * (low + high) if low > high else 0.5 * low
        else:
            self.threshold = 0.05
        self.threshold = max(self.threshold, 0.02)

    def mismatches(self, ink: np.ndarray, visible: np.ndarray) -> tuple[int, int]:
        """(cells whose ink disagrees with the givens, cells compared), over the visible cells
        that are not marked."""
        shown = visible & self.compared
        differ = ((ink > self.threshold) != self.filled) & shown
        return int(differ.sum()), int(shown.sum())


def missed_digits(
    puzzle: np.ndarray, ink: np.ndarray, visible: np.ndarray, marked: np.ndarray | None = None
) -> int:
    """Visible cells the puzzle leaves empty that hold as much ink as its givens typically do:
    printed digits the read missed, on which the answer would be drawn over the print. Cells of
    pencilled candidates (`marked`) are not counted: their ink was read, as candidates."""
    filled = np.asarray(puzzle).reshape(9, 9) > 0
    if not filled.any():
        return 0
    strong = max(_MISSED_FLOOR, 0.5 * float(np.median(ink[filled])))
    unread = ~filled & visible
    if marked is not None:
        unread &= ~np.asarray(marked, bool)
    return int(((ink > strong) & unread).sum())
