"""Tell a grid from a block of a larger grid: do its lines go on beyond its outline?

A Sudoku's outer border ends at its corners: beyond each side lies paper, text or a gap before
a neighbouring grid. A block of a grid whose whole outline is not in the photo (a 3x3 box, or
six columns of it taken for nine) has the grid's lines running on past its sides in the same
places. Each side is looked at in a band of the candidate rectified across it: the lines met
just inside it, and whether the same lines go on just outside it, unbroken.
"""

from __future__ import annotations

import cv2
import numpy as np

from sudoku_lens.read.grid.geometry import Pyramid

_CELL = 16  # pixels per cell of the bands looked at
_NEAR = 0.15  # cells beyond (and within) a side where its own line's ink may still lie
_REACH = 1.0  # cells beyond (and within) a side looked at
_LEAST_LENGTH = 0.4  # least cells of a line's band inside the photo for it to be measured
_LOW_SHARE = 0.1
"""A line's ink in a band is its ink at this share from the bottom along it: a line drawn
through the whole band keeps it, text or a neighbouring grid after a gap does not."""
_BESIDE = 0.4  # cells to either side of a line where the paper beside it is measured
_SEEN = 0.1  # least contrast of a line (ink on the 0-1 scale) to count as seen inside
_KEPT = 0.5  # least share of its contrast inside that a line keeps outside to go on
_GOING_ON = 0.75  # least share of the lines seen inside that go on past a block's side
_LEAST_GOING_ON = 2  # least lines that go on past a block's side
_FAR = 20.0  # most cells past a block's side its lines are followed (a box's: 18 at most)


def continuing_sides(pyramid: Pyramid, quad: np.ndarray) -> np.ndarray:
    """(4,) bool: for each side of `quad` (top, right, bottom, left as its corners run), whether
    the lines seen just inside it go on just outside it, as they do past a block of a grid.

    A side counts when at least _LEAST_GOING_ON lines, and _GOING_ON of those seen inside, keep
    _KEPT of their contrast outside; a side the photo's edge leaves no room beyond counts not.
    """
    return np.array([_lines_going_on(pyramid, quad, side).any() for side in range(4)])


def _lines_going_on(pyramid: Pyramid, quad: np.ndarray, side: int) -> np.ndarray:
    """(10,) bool: the lines across one side of `quad` that go on past it, where enough do for
    a block's side (see `continuing_sides`); all False otherwise."""
    ink, in_photo = _band(pyramid, quad, side)
    split = int(round((_REACH - _NEAR) * _CELL))
    outer = _line_contrast(ink[:split], in_photo[:split])
    inner = _line_contrast(ink[-split:], in_photo[-split:])
    seen = inner >= _SEEN
    kept = seen & (np.nan_to_num(outer, nan=-1.0) >= _KEPT * inner)
    return kept & (kept.sum() >= max(_LEAST_GOING_ON, _GOING_ON * seen.sum()))


def cells_to_edge(pyramid: Pyramid, quad: np.ndarray, side: int) -> int | None:
    """How many cells the lines going on past one side of `quad` (`continuing_sides`) go on
    for, cell after cell, until the photo's edge (within _FAR cells); None when they stop at
    the grid's border inside the photo first. A cell's stretch counts as reached when the lines
    stand out from the paper beside them (by _KEPT of what they do in the first cell) in half
    its rows."""
    lines = _lines_going_on(pyramid, quad, side)
    if not lines.any():
        return None
    ink, in_photo = _band(pyramid, quad, side, outside=_FAR, inside=0.0)
    ink, in_photo = ink[::-1], in_photo[::-1]  # rows from the side outward
    at = np.rint((np.flatnonzero(lines) + 0.5) * _CELL).astype(np.intp)
    beside = int(round(_BESIDE * _CELL))
    peak = np.max([ink[:, at + shift] for shift in range(-2, 3)], axis=0)
    stand_out = (peak - np.fmax(ink[:, at - beside], ink[:, at + beside])).mean(axis=1)
    rows = in_photo[:, at].all(axis=1)
    cells = len(rows) // _CELL
    stand_out = stand_out[: cells * _CELL].reshape(cells, _CELL)
    rows = rows[: cells * _CELL].reshape(cells, _CELL)
    inside_cells = rows.mean(axis=1) >= 0.5
    if inside_cells.all() or not inside_cells[0]:
        return None  # the photo's edge is farther than _FAR cells, or right at the side
    first = np.median(stand_out[0])
    reached = (stand_out >= _KEPT * first).mean(axis=1) >= 0.5
    if first < _SEEN or not reached[inside_cells].all():
        return None
    return int(inside_cells.sum())


def cut_edge(pyramid: Pyramid, quad: np.ndarray, going_on: np.ndarray) -> str | None:
    """The photo's edge (top, right, bottom or left) that cuts off the grid `quad` is a block
    of: the nearest edge that lines going on past a side (`going_on`) reach; None when they all
    stop inside the photo. A side faces the edge its outward direction (from the quad's centre
    through the side's middle) points to most."""
    outward = 0.5 * (quad + np.roll(quad, -1, axis=0)) - quad.mean(axis=0)
    edge, nearest = None, np.inf
    for side in np.flatnonzero(going_on):
        cells = cells_to_edge(pyramid, quad, side)
        if cells is None or cells >= nearest:
            continue
        dx, dy = outward[side]
        if abs(dx) > abs(dy):
            edge = "right" if dx > 0 else "left"
        else:
            edge = "bottom" if dy > 0 else "top"
        nearest = cells
    return edge


def _band(
    pyramid: Pyramid, quad: np.ndarray, side: int, outside: float = _REACH, inside: float = _REACH
) -> tuple[np.ndarray, np.ndarray]:
    """The band across one side of `quad` (0 top, 1 right, 2 bottom, 3 left), rectified with
    that side along the top: rows from `outside` cells outside it to `inside` cells inside,
    columns from half a cell before its first corner to half a cell past its last, _CELL pixels
    a cell. Returns its ink (float32, 0-1, widened by a pixel each way so a line a little off
    its column is still met) and where it lies inside the photo (bool)."""
    turned = np.roll(np.asarray(quad, np.float32), -side, axis=0)
    sides = np.linalg.norm(turned - np.roll(turned, 1, axis=0), axis=1)
    level = np.floor(np.log2(max(sides.min(), 1.0) / (9 * _CELL)))
    level = int(np.clip(level, 0, len(pyramid) - 1))
    square = np.float32([[0.5, 0.0], [9.5, 0.0], [9.5, 9.0], [0.5, 9.0]])
    square[:, 1] += outside
    h = cv2.getPerspectiveTransform((turned * 0.5**level).astype(np.float32), square * _CELL)
    size = (10 * _CELL, int(round((outside + inside) * _CELL)))
    ink, full = pyramid[level]
    warped = cv2.warpPerspective(ink, h, size, flags=cv2.INTER_LINEAR)
    warped = cv2.dilate(warped, np.ones((1, 3), np.uint8))
    in_photo = cv2.warpPerspective(full, h, size, flags=cv2.INTER_NEAREST) > 0
    return warped.astype(np.float32) / 255.0, in_photo


def _line_contrast(ink: np.ndarray, inside: np.ndarray) -> np.ndarray:
    """(10,) how much each of the 10 lines crossing a band (rows along the lines) stands out:
    its ink (_LOW_SHARE along it, over the rows inside the photo; the most within 2 pixels of
    where it should be) less the more inked of the paper _BESIDE a cell to either side. NaN
    where less than _LEAST_LENGTH cells of the band lie inside the photo."""
    counted = inside.sum(axis=0)
    ordered = np.sort(np.where(inside, ink, np.inf), axis=0)
    low = np.take_along_axis(ordered, (counted * _LOW_SHARE).astype(np.intp)[None], axis=0)[0]
    low = np.where(counted >= _LEAST_LENGTH * _CELL, low, np.nan)
    at = np.rint((np.arange(10) + 0.5) * _CELL).astype(np.intp)
    peak = np.max([low[at + shift] for shift in range(-2, 3)], axis=0)
    beside = int(round(_BESIDE * _CELL))
    return peak - np.fmax(low[at - beside], low[at + beside])
