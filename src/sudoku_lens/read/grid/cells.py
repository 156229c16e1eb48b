"""Stage 5: rectify the grid and cut every cell through its own four line crossings."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from sudoku_lens.read.grid.geometry import gray_levels, square_corners, to_level

CELL = 36
"""Side of one cell, line to line, in the rectified grid and in each cell crop."""

MARGIN = 6
"""Pixels of the neighbouring cells kept around each cell crop."""

CROP = CELL + 2 * MARGIN
"""Side of each cell crop: a cell and its margin on both sides."""


@dataclass(frozen=True)
class GridLocation:
    """Where the grid is in an image and its 81 cells, all in the image's own orientation."""

    corners: np.ndarray
    """(4, 2) float32 image pixel coordinates of the grid's outer corners, TL, TR, BR, BL."""
    warped: np.ndarray
    """The grid rectified to a square grayscale image: 9 x 9 cells of about CELL pixels inside a
    band of MARGIN pixels of what surrounds the grid (its corners map to MARGIN and
    MARGIN + 9 * CELL)."""
    cells: list[np.ndarray]
    """81 grayscale CROP x CROP uint8 crops, row-major, each a cell of `warped` cut along its own
    lines with a margin of MARGIN / CELL of its size around it."""
    cell_boxes: np.ndarray
    """(9, 9, 4) int32 x0, y0, x1, y1 of each cell (line to line) in `warped`."""
    homography: np.ndarray
    """3x3 float64 mapping image pixel coordinates to `warped`."""
    lattice: np.ndarray
    """(10, 10, 2) float32 image coordinates where grid line i (row) meets line j (column)."""


def cut_grid(image_bgr: np.ndarray, lattice: np.ndarray) -> GridLocation:
    """Cut the 81 cells of a BGR (or grayscale) image along a known `lattice`: the (10, 10, 2)
    line crossings of a grid found before in the same picture, or in one drawn over it."""
    return cut_cells(gray_levels(image_bgr), np.asarray(lattice, np.float32))


def cut_cells(levels: list[np.ndarray], lattice: np.ndarray) -> GridLocation:
    """Rectify the grid and cut the 81 cells through the lattice of line intersections.

    The rectified image is made from the smallest of `levels` (the photo and its halvings) in
    which a cell is still at least CELL pixels wide, so the warp neither aliases nor wastes time.
    """
    corners = np.array([lattice[0, 0], lattice[0, 9], lattice[9, 9], lattice[9, 0]], np.float32)
    sides = np.linalg.norm(corners - np.roll(corners, 1, axis=0), axis=1)
    level = 0
    while level + 1 < len(levels) and sides.min() * 0.5 ** (level + 1) >= 9 * CELL:
        level += 1
    side = 9 * CELL + 2 * MARGIN
    to_source = cv2.getPerspectiveTransform(
        to_level(corners, level).astype(np.float32), square_corners(9 * CELL, MARGIN)
    )
    warped = cv2.warpPerspective(
        levels[level],
        to_source,
        (side, side),
        flags=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REPLICATE,
    )
    f = 0.5**level
    homography = to_source @ np.array([[f, 0, 0.5 * f - 0.5], [0, f, 0.5 * f - 0.5], [0, 0, 1]])
    grid = cv2.perspectiveTransform(lattice.reshape(-1, 1, 2).astype(np.float64), homography)
    grid = grid.reshape(10, 10, 2)
    x0 = np.minimum(grid[:-1, :-1, 0], grid[1:, :-1, 0])
    x1 = np.maximum(grid[:-1, 1:, 0], grid[1:, 1:, 0])
    y0 = np.minimum(grid[:-1, :-1, 1], grid[:-1, 1:, 1])
    y1 = np.maximum(grid[1:, :-1, 1], grid[1:, 1:, 1])
    boxes = np.stack([x0, y0, x1, y1], axis=2)
    pad = np.stack([x1 - x0, y1 - y0], axis=2) * (MARGIN / CELL)
    outer = np.rint(np.concatenate([boxes[..., :2] - pad, boxes[..., 2:] + pad], axis=2))
    outer = outer.astype(int)
    cells = []
    for r in range(9):
        for c in range(9):
            cells.append(_crop(warped, outer[r, c]))
    return GridLocation(
        corners=corners,
        warped=warped,
        cells=cells,
        cell_boxes=np.rint(boxes).astype(np.int32),
        homography=homography,
        lattice=lattice.astype(np.float32),
    )


def _crop(image: np.ndarray, box: np.ndarray) -> np.ndarray:
    """Cut box x0, y0, x1, y1 (edges repeated where it leaves the image), resized to CROP."""
    x0, y0, x1, y1 = (int(v) for v in box)
    height, width = image.shape
    xa, ya = min(max(x0, 0), width - 1), min(max(y0, 0), height - 1)
    xb, yb = max(min(x1, width), xa + 1), max(min(y1, height), ya + 1)
    patch = image[ya:yb, xa:xb]
    pads = (ya - y0, y1 - yb, xa - x0, x1 - xb)
    if any(p > 0 for p in pads):
        patch = cv2.copyMakeBorder(patch, *(max(p, 0) for p in pads), cv2.BORDER_REPLICATE)
    return cv2.resize(patch, (CROP, CROP), interpolation=cv2.INTER_AREA)
