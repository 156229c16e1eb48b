"""Hide pencil notes under a drawn answer: a soft patch of the cell's own paper.

An answer digit drawn straight over a person's small pencilled candidates is hard to read, the
notes showing through and around it. Each such cell is first covered by its paper: the marks'
strokes filled by a closing, then a median over half a cell, which what is left of the notes
does not move, so the patch keeps the cell's shading and light without turning lighter or
darker than the paper around it. It fades
out before the cell's lines, which stay untouched, as does every pixel outside the cells
covered.
"""

from __future__ import annotations

from collections.abc import Iterable

import cv2
import numpy as np

PAPER_OPACITY = 0.9
"""How much of the notes the patch hides at its middle: a trace stays, so the person still sees
that their notes were there."""

_EDGE, _FULL = 0.06, 0.16
"""The patch starts this far inside the cell's lines and is fully opaque from `_FULL` on
(fractions of the cell), so the fade never reaches a line or a neighbouring cell."""

_MEDIAN = 0.5
"""Width of the median that takes what is left of the marks away, as a fraction of the cell:
light and shading change little across it."""

_CLOSE = 0.25
"""Width of the closing that fills the marks' strokes before the median, as a fraction of the
cell: candidates pencilled large and dark, a row of them along the cell's top, can cover half
of the median's window there, and would show through a median alone."""

_SMOOTH = 0.04
"""Blur of the median (sigma, fraction of the cell), taking its blocky steps out."""

_PAPER_PIXELS = 12
"""Cell side in pixels the paper is measured at (larger cells are brought down to it): paper is
smooth at that scale, and a median over half of a big photo's cell would cost milliseconds."""

_FADE_PIXELS = 48
"""Cell side in pixels the fade is worked out at before being brought up to the image: that
spreads it by under a 48th of the cell, well inside the `_EDGE` that keeps it off the lines."""


def cover_cells(
    image: np.ndarray, corners: np.ndarray, cells: Iterable[tuple[int, int]]
) -> np.ndarray:
    """A copy of `image` (BGR) with each (row, col) of `cells` covered by a soft patch of its
    own paper; pixels outside those cells' insides are left bit for bit as they were.

    `corners` (4, 2) are the upright grid's TL, TR, BR, BL in image pixels.
    """
    out = image.copy()
    quad = np.asarray(corners, np.float32).reshape(4, 2)
    square = np.float32([[0, 0], [9, 0], [9, 9], [0, 9]])
    to_image = cv2.getPerspectiveTransform(square, quad)
    to_grid = np.linalg.inv(to_image).astype(np.float32)
    for row, col in cells:
        cell = np.float64([[col, row], [col + 1, row], [col + 1, row + 1], [col, row + 1]])
        points = cv2.perspectiveTransform(cell.reshape(1, 4, 2), to_image).reshape(4, 2)
        side = float(np.sqrt(abs(cv2.contourArea(points.astype(np.float32)))))
        box = _box(points, 0, out.shape)
        x0, y0, x1, y1 = box
        if side < 4 or x1 - x0 < 2 or y1 - y0 < 2:
            continue
        weight = _opacity(box, side, to_grid, row, col)
        inside = weight > 0
        if not inside.any():
            continue
        pixels = out[y0:y1, x0:x1]
        covered = cv2.blendLinear(_paper(out, points, side, box), pixels, weight, 1 - weight)
        np.copyto(pixels, covered, where=inside[..., None])
    return out


def _box(points: np.ndarray, pad: int, shape: tuple[int, ...]) -> tuple[int, int, int, int]:
    """x0, y0, x1, y1: the pixels around `points` (4, 2), `pad` more on each side, clipped to
    an image of `shape`."""
    x0 = max(0, int(np.floor(points[:, 0].min())) - pad)
    y0 = max(0, int(np.floor(points[:, 1].min())) - pad)
    x1 = min(shape[1], int(np.ceil(points[:, 0].max())) + pad + 1)
    y1 = min(shape[0], int(np.ceil(points[:, 1].max())) + pad + 1)
    return x0, y0, x1, y1


def _sampled(box: tuple[int, int, int, int], side: float, pixels: int) -> tuple[int, int]:
    """(width, height) of `box` brought down so that a cell of `side` is `pixels` wide (the box
    as it is when it is that small already)."""
    scale = min(1.0, pixels / side)
    width, height = box[2] - box[0], box[3] - box[1]
    return max(2, round(width * scale)), max(2, round(height * scale))


def _opacity(
    box: tuple[int, int, int, int], side: float, to_grid: np.ndarray, row: int, col: int
) -> np.ndarray:
    """float32 opacity of the patch over cell (row, col) at each pixel of `box`: 0 outside the
    cell and near its lines, rising smoothly to PAPER_OPACITY inside. Worked out on a coarser
    grid (`_FADE_PIXELS`) for large cells and brought up to the image."""
    x0, y0, x1, y1 = box
    width, height = _sampled(box, side, _FADE_PIXELS)
    # Each sample's centre in the image, as cv2.resize lays them.
    xs = (np.arange(width, dtype=np.float32) + 0.5) * ((x1 - x0) / width) - 0.5 + x0
    ys = (np.arange(height, dtype=np.float32) + 0.5) * ((y1 - y0) / height) - 0.5 + y0
    xs, ys = xs[None, :], ys[:, None]
    (a, b, c), (d, e, f), (g, h, i) = to_grid
    depth = g * xs + h * ys + i
    u = (a * xs + b * ys + c) / depth - col
    v = (d * xs + e * ys + f) / depth - row
    inset = np.minimum(np.minimum(u, 1 - u), np.minimum(v, 1 - v))
    t = np.clip((inset - _EDGE) / (_FULL - _EDGE), 0, 1)
    weight = (PAPER_OPACITY * t * t * (3 - 2 * t)).astype(np.float32)
    if weight.shape != (y1 - y0, x1 - x0):
        weight = cv2.resize(weight, (x1 - x0, y1 - y0), interpolation=cv2.INTER_LINEAR)
    return weight


def _paper(
    image: np.ndarray, points: np.ndarray, side: float, box: tuple[int, int, int, int]
) -> np.ndarray:
    """BGR uint8 paper of the cell at `points` over `box`: the cell and half a cell of its
    surroundings brought down to `_PAPER_PIXELS` a cell, its small marks taken out by a median
    half a cell wide, lightly smoothed, and brought back up onto `box`."""
    around = _box(points, int(np.ceil(_MEDIAN * side / 2)), image.shape)
    ax0, ay0, ax1, ay1 = around
    width, height = _sampled(around, side, _PAPER_PIXELS)
    small = image[ay0:ay1, ax0:ax1]
    if (width, height) != (ax1 - ax0, ay1 - ay0):
        small = cv2.resize(small, (width, height), interpolation=cv2.INTER_AREA)
    cell = side * width / (ax1 - ax0)
    closed = cv2.morphologyEx(small, cv2.MORPH_CLOSE, _stroke_kernel(cell))
    median = cv2.medianBlur(closed, max(3, int(round(_MEDIAN * cell)) | 1))
    paper = cv2.GaussianBlur(median, (0, 0), max(0.5, _SMOOTH * cell))
    # From the box's pixels to the small paper's, as cv2.resize would map them.
    sx, sy = (ax1 - ax0) / width, (ay1 - ay0) / height
    x0, y0, x1, y1 = box
    to_small = np.float32(
        [[1 / sx, 0, (x0 - ax0 + 0.5) / sx - 0.5], [0, 1 / sy, (y0 - ay0 + 0.5) / sy - 0.5]]
    )
    return cv2.warpAffine(
        paper,
        to_small,
        (x1 - x0, y1 - y0),
        flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
        borderMode=cv2.BORDER_REPLICATE,
    )


def _stroke_kernel(cell: float) -> np.ndarray:
    """A disc `_CLOSE` of a cell across: closing with it fills the strokes of pencil marks,
    which are narrower, and leaves the paper's light and shading as they are."""
    size = max(3, int(round(_CLOSE * cell)) | 1)
    return cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size))
