"""Stage 5: rectify the grid and cut every cell through its own four line crossings.

A colour photo is rectified in colour and turned grey by `ink_tone`, which keeps blue ink dark;
how coloured each cell's ink is (`ink_colour`) goes with the cells, so the digit reader can tell
a coloured pen or our own blue answer from the printed digits.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np

from sudoku_lens.errors import GridCutOffError
from sudoku_lens.read.grid.geometry import gray_levels, square_corners, to_level

CELL = 36
"""Side of one cell, line to line, in the rectified grid and in each cell crop."""

MARGIN = 6
"""Pixels of the neighbouring cells kept around each cell crop."""

CROP = CELL + 2 * MARGIN
"""Side of each cell crop: a cell and its margin on both sides."""


CUT_OFF_LIMIT = 0.15
"""Largest share of a cell holding ink that may lie outside the photo. A digit fills the middle
of its cell, so a cell cut by more may hold a digit cut in two, read as another with confidence
(an 8 cut to a 2 gave a wrong answer on printed photos cropped by 5% of the grid); the 320
dataset photos, grids near the border among them, have at most 4% of a cell outside."""

CUT_OFF_BLANK_LIMIT = 0.5
"""Largest share of a cell without ink that may lie outside the photo: beyond it a digit may
be cut away whole."""


def cut_off_share(lattice: np.ndarray, height: int, width: int) -> np.ndarray:
    """(9, 9) share of each cell's area (between its four line crossings in `lattice`, image
    coordinates) that lies outside an image of `height` x `width` pixels, on an 8 x 8 sample."""
    steps = (np.arange(8) + 0.5) / 8
    v, u = np.meshgrid(steps, steps, indexing="ij")
    top_left, top_right = lattice[:-1, :-1], lattice[:-1, 1:]
    bottom_left, bottom_right = lattice[1:, :-1], lattice[1:, 1:]
    u, v = u[None, None, ..., None], v[None, None, ..., None]
    points = (
        top_left[:, :, None, None] * (1 - u) * (1 - v)
        + top_right[:, :, None, None] * u * (1 - v)
        + bottom_left[:, :, None, None] * (1 - u) * v
        + bottom_right[:, :, None, None] * u * v
    )
    x, y = points[..., 0], points[..., 1]
    outside = (x < 0) | (y < 0) | (x > width) | (y > height)
    return outside.mean(axis=(2, 3))


def check_whole(lattice: np.ndarray, height: int, width: int, inked: np.ndarray) -> None:
    """Raise GridCutOffError, naming the photo's edge, when a cell holding ink (`inked`, (9, 9)
    bool as the cells lie in the image) lies outside the photo by more than CUT_OFF_LIMIT of its
    area, or any cell by more than CUT_OFF_BLANK_LIMIT."""
    x, y = lattice[..., 0], lattice[..., 1]
    if x.min() >= 0 and y.min() >= 0 and x.max() <= width and y.max() <= height:
        return  # every line crossing inside: so is every cell (the common case, 10 us)
    share = cut_off_share(lattice, height, width)
    cut = np.where(inked, share > CUT_OFF_LIMIT, share > CUT_OFF_BLANK_LIMIT)
    if not cut.any():
        return
    row, col = np.unravel_index(int(np.argmax(np.where(cut, share, -1.0))), share.shape)
    x, y = lattice[row : row + 2, col : col + 2].reshape(4, 2).mean(axis=0)
    beyond = {"left": -x, "right": x - width, "top": -y, "bottom": y - height}
    raise cut_off_error(max(beyond, key=lambda side: beyond[side]))


def cut_off_error(edge: str) -> GridCutOffError:
    """The error for a grid that runs off the photo's `edge` (top, right, bottom or left)."""
    return GridCutOffError(
        f"the grid runs off the {edge} edge of the photo: take the photo with the whole grid in it"
    )


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
    ink_colour: np.ndarray
    """(81, 3) float32 row-major: the colour of each cell's darkest ink, as the share of the
    paper's light it takes in each of blue, green and red, scaled so the largest is 1: (1, 1, 1)
    for black or grey ink (and for a grayscale image), low in red for blue ink; zeros where
    the cell holds no ink."""


def cut_grid(image_bgr: np.ndarray, lattice: np.ndarray) -> GridLocation:
    """Cut the 81 cells of a BGR (or grayscale) image along a known `lattice`: the (10, 10, 2)
    line crossings of a grid found before in the same picture, or in one drawn over it."""
    return cut_cells(gray_levels(image_bgr), np.asarray(lattice, np.float32), image_bgr)


def ink_tone(image_bgr: np.ndarray) -> np.ndarray:
    """Grey levels of a BGR image in which blue ink is as dark as black ink of its brightness.

    The usual grey weights (mostly green) put a strong blue at mid-grey, no darker than paper in
    shadow; the mean of green and red, where darker, brings it down. Red and black ink, white,
    grey and yellowish paper keep their usual grey.
    """
    gray = cv2.cvtColor(image_bgr, cv2.COLOR_BGR2GRAY)
    return np.minimum(gray, cv2.addWeighted(image_bgr[..., 1], 0.5, image_bgr[..., 2], 0.5, 0))


def cut_cells(
    levels: list[np.ndarray], lattice: np.ndarray, image_bgr: np.ndarray | None = None
) -> GridLocation:
    """Rectify the grid and cut the 81 cells through the lattice of line intersections.

    The rectified image is made from the smallest of `levels` (the photo and its halvings) in
    which a cell is still at least CELL pixels wide, so the warp neither aliases nor wastes time.
    When the colour image `levels` were made from is given, it is rectified at that size
    instead, turned grey by `ink_tone`, and each cell's ink colour measured.
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
    colour = image_bgr is not None and image_bgr.ndim == 3
    source = levels[level]
    if colour and level:
        f = 0.5**level
        source = cv2.resize(image_bgr, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
    elif colour:
        source = image_bgr
    warped = cv2.warpPerspective(
        source,
        to_source,
        (side, side),
        flags=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REPLICATE,
    )
    warped_bgr = warped if colour else None
    if warped_bgr is not None:
        warped = ink_tone(warped_bgr)
    f = 0.5**level
    homography = to_source @ np.array([[f, 0, 0.5 * f - 0.5], [0, f, 0.5 * f - 0.5], [0, 0, 1]])
    cells, boxes = _cell_crops(warped, lattice, homography)
    ink_colour = np.ones((81, 3), np.float32) if warped_bgr is None else _ink_colour(warped_bgr)
    return GridLocation(
        corners=corners,
        warped=warped,
        cells=cells,
        cell_boxes=boxes,
        homography=homography,
        lattice=lattice.astype(np.float32),
        ink_colour=ink_colour,
    )


def _cell_crops(
    warped: np.ndarray, lattice: np.ndarray, homography: np.ndarray
) -> tuple[list[np.ndarray], np.ndarray]:
    """The 81 crops of a rectified grid `warped` (see `GridLocation.cells`), each cut through its
    own four crossings of `lattice` (image coordinates, mapped by `homography`), and the (9, 9, 4)
    boxes of the cells, line to line."""
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
    cells = [_crop(warped, outer[r, c]) for r in range(9) for c in range(9)]
    return cells, np.rint(boxes).astype(np.int32)


def recut(location: GridLocation, warped: np.ndarray) -> GridLocation:
    """`location` with its cells cut again, as `cut_cells` cut them, from `warped`: the same
    rectified grid changed (sharpened) in place; the ink colours are kept."""
    cells, _ = _cell_crops(warped, location.lattice, location.homography)
    return replace(location, warped=warped, cells=cells)


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


_PAPER_KERNEL = cv2.getStructuringElement(cv2.MORPH_RECT, (CELL // 4 + 1, CELL // 4 + 1))
_MIN_INK = 0.1
"""Least share of the paper's brightness a pixel must lose, in some channel, to count as ink."""


def _ink_colour(warped_bgr: np.ndarray) -> np.ndarray:
    """The colour of the darkest ink inside each cell (see `GridLocation.ink_colour`).

    Each channel's ink is the share of the local paper's brightness it loses (a closing wider
    than any stroke is the paper), so the colour of the light and of the paper drop out: black
    ink loses about the same share in every channel, blue ink nearly all of its red and little
    of its blue. A cell's colour is the sum of those shares over its darkest ink well inside the
    lines (the middle two thirds of the cell's place in the rectified grid), divided by the sum
    of the largest share there.
    """
    paper = cv2.morphologyEx(warped_bgr, cv2.MORPH_CLOSE, _PAPER_KERNEL)
    loss = cv2.subtract(paper, warped_bgr)
    cells = _cell_middles(loss).astype(np.float32)
    cells /= np.maximum(_cell_middles(paper), 1).astype(np.float32)
    dark = np.maximum(np.maximum(cells[..., 0], cells[..., 1]), cells[..., 2])
    peak = dark.max(axis=1, keepdims=True)
    darkest = (dark >= 0.6 * peak).astype(np.float32)
    total = np.einsum("np,npc->nc", darkest, cells)
    out = total / np.maximum((darkest * dark).sum(axis=1, keepdims=True), 1e-6)
    out[peak[:, 0] < _MIN_INK] = 0.0
    return out.astype(np.float32)


def _cell_middles(grid_image: np.ndarray) -> np.ndarray:
    """(81, pixels, 3) the middle two thirds of each cell of a rectified grid image, row by row:
    the cells' places well inside the lines."""
    inset = CELL // 6
    cells = grid_image[MARGIN : MARGIN + 9 * CELL, MARGIN : MARGIN + 9 * CELL]
    cells = cells.reshape(9, CELL, 9, CELL, 3)[:, inset:-inset, :, inset:-inset]
    return cells.transpose(0, 2, 1, 3, 4).reshape(81, -1, 3)
