"""Find the Sudoku grid in a photo and cut its 81 cells along the grid's own lines.

The search runs on a grayscale copy halved until it is at most WORK_SIDE pixels:

1. Ink is how much darker a pixel is than its neighbourhood, so shadows and uneven light drop
   out; a dim photo is brightened first.
2. Every large outline in the ink gives candidate quadrilaterals (not only the largest: a
   neighbouring grid, a text column or the page itself may be larger). Outlines of the long
   lines alone separate a grid from text touching it; groups of same-sized outlines (the 3x3
   boxes) stand in for a grid whose own outline is lost.
3. Each candidate is rectified to a small square, moved onto the best comb of ten evenly spaced
   lines in each direction (then turned by combs over each half), and scored by how clearly
   its weakest lines stand out and how much its box lines outweigh the thin ones. The best
   candidate, larger ones first, wins.
4. In it, each of the 20 lines is followed piece by piece (a smooth path through the strongest
   ink), so curved paper and unevenly printed grids still give clean cell boundaries; the 100
   crossings of the lines, mapped back to the photo, are the lattice, its outer ones the corners.
5. The grid is rectified and every cell cut through its own four crossings with a margin.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from sudoku_lens.errors import GridNotFoundError

WORK_SIDE = 1000
"""Photos with a longer side than this are halved (until it fits) for the grid search."""

CELL = 36
"""Side of one cell, line to line, in the rectified grid and in each cell crop."""

MARGIN = 6
"""Pixels of the neighbouring cells kept around each cell crop."""

CROP = CELL + 2 * MARGIN

_SCORE_CELL = 12  # cell side, in pixels, of the small squares candidates are scored in
_MIN_SCORE = 0.1  # least grid score of a grid (real grids score 0.2 or more on the photos)
_MIN_SIDE = 90  # least side, in searched pixels, of a grid (10 per cell: less is unreadable)
_MIN_AREA = 0.02  # least share of the image a candidate grid covers
_MIN_PART = 0.2  # least size of a box outline, as a share of _MIN_AREA
_SMALL_GRID = 0.15  # a best grid smaller than this share of the image calls for box groups
_MIN_SIDE_RATIO = 0.5  # shortest side of a candidate at least this share of its longest
_SLICES = 18  # pieces each line is followed in (two per cell)
_STEP_COST = 0.05  # cost per pixel a line's path moves between neighbouring pieces
_BOX_WEIGHT = 1.0  # weight of the box lines' extra ink in the grid score
_PAPER = 150  # grey level of the paper a dim photo is brightened to (gain at most 4)
_INK_MASK = 5  # grey levels darker than the neighbourhood that count as ink in the mask
_INK_FLOOR = 2  # ink below this is ignored in the strength map
_INK_FULL = 10  # ink from this up is full strength (255)


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


def locate_grid(image_bgr: np.ndarray, *, timings: dict[str, float] | None = None) -> GridLocation:
    """Find the Sudoku grid in a BGR (or grayscale) uint8 image and cut its cells.

    Raises GridNotFoundError when the image holds no grid. When `timings` is given, the seconds
    spent finding the grid and cutting the cells are stored in it under "grid" and "cells".
    """
    start = time.perf_counter()
    _check_searchable(image_bgr)
    levels = _levels(image_bgr)
    mask, strength = _binarize(levels[-1])
    pyramid = _pyramid(strength)
    quad = _best_quad(mask, pyramid)
    if quad is None:
        raise GridNotFoundError("no Sudoku grid found in the image")
    lattice = _to_level(_fit_lattice(pyramid, quad), -(len(levels) - 1))
    found = time.perf_counter()
    location = _cut(levels, lattice)
    if timings is not None:
        timings["grid"] = found - start
        timings["cells"] = time.perf_counter() - found
    return location


def cut_grid(image_bgr: np.ndarray, lattice: np.ndarray) -> GridLocation:
    """Cut the 81 cells of a BGR (or grayscale) image along a known `lattice`: the (10, 10, 2)
    line crossings of a grid found before in the same picture, or in one drawn over it."""
    return _cut(_levels(image_bgr), np.asarray(lattice, np.float32))


def _check_searchable(image_bgr: np.ndarray) -> None:
    """GridNotFoundError, before any resizing could fail on it, for an image too small or too
    narrow to hold a grid of _MIN_SIDE pixels once halved like `_levels` halves it."""
    height, width = image_bgr.shape[:2]
    halvings = 0
    while max(height, width) > WORK_SIDE * 2**halvings:
        halvings += 1
    if min(height, width) < _MIN_SIDE * 2**halvings:
        raise GridNotFoundError(
            f"no Sudoku grid found: the image is {width}x{height} pixels, too small or too "
            "narrow to hold one"
        )


def _levels(image_bgr: np.ndarray) -> list[np.ndarray]:
    """The grayscale image and its halvings, down to the first no larger than WORK_SIDE."""
    gray = image_bgr if image_bgr.ndim == 2 else cv2.cvtColor(image_bgr, cv2.COLOR_BGR2GRAY)
    levels = [gray]
    while max(levels[-1].shape) > WORK_SIDE:
        levels.append(cv2.resize(levels[-1], None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA))
    return levels


def _to_level(points: np.ndarray, level: int) -> np.ndarray:
    """Map pixel coordinates of the full image to the image halved `level` times (or back)."""
    factor = 0.5**level
    return (points + 0.5) * factor - 0.5


def _binarize(gray: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Ink maps of a grayscale image: (mask, strength), both uint8.

    A pixel's ink is how much darker it is than the mean of its neighbourhood (in grey levels,
    after brightening a dim photo so its mean is _PAPER), so shadows and uneven light drop out.
    The mask (255 where ink > _INK_MASK) outlines shapes; the strength (ink scaled so _INK_FULL
    or more gives 255) keeps faint thin lines and the extra ink of thick box lines, which the
    line measurements need.
    """
    gray = cv2.GaussianBlur(gray, (3, 3), 0)
    block = max(15, (max(gray.shape) // 40) | 1)
    mean = cv2.blur(gray, (block, block))
    gain = float(np.clip(_PAPER / max(cv2.mean(mean)[0], 1.0), 1.0, 4.0))
    darker = cv2.convertScaleAbs(cv2.subtract(mean, gray), alpha=gain)
    mask = cv2.threshold(darker, _INK_MASK, 255, cv2.THRESH_BINARY)[1]
    strength = cv2.convertScaleAbs(cv2.subtract(darker, _INK_FLOOR), alpha=255.0 / _INK_FULL)
    return mask, strength


def _order_corners(points: np.ndarray) -> np.ndarray:
    """Order four points TL, TR, BR, BL as seen in the image."""
    pts = np.asarray(points, np.float32).reshape(4, 2)
    centre = pts.mean(axis=0)
    angles = np.arctan2(pts[:, 1] - centre[1], pts[:, 0] - centre[0])
    pts = pts[np.argsort(angles)]
    start = int(np.argmin(pts.sum(axis=1)))
    return np.roll(pts, -start, axis=0)


def _outlines(mask: np.ndarray, min_area: float) -> list[tuple[float, np.ndarray]]:
    """(area, convex hull) of the outlines of at least `min_area` pixels in the ink mask.

    Outlines come from the mask and from its long lines alone: text or pictures touching a grid
    merge with it into one outline, and keeping only long horizontal and vertical runs of ink
    separates them again.
    """
    run = max(9, max(mask.shape) // 40)
    lines = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((1, run), np.uint8))
    lines |= cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((run, 1), np.uint8))
    lines = cv2.dilate(lines, np.ones((3, 3), np.uint8))
    found = []
    for source in (mask, lines):
        contours, _ = cv2.findContours(source, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
        for contour in contours:
            if len(contour) < 4:
                continue
            _, _, w, h = cv2.boundingRect(contour)
            if w * h < min_area:
                continue
            hull = cv2.convexHull(contour)
            area = cv2.contourArea(hull)
            if area >= min_area:
                found.append((area, hull))
    return found


def _distinct(quads: list[np.ndarray], min_area: float, tolerance: float) -> list[np.ndarray]:
    """The convex quadrilaterals of at least `min_area` that could be a square seen in
    perspective (no side much shorter than another), largest first, without near duplicates."""
    unique: list[np.ndarray] = []
    for quad in sorted(quads, key=cv2.contourArea, reverse=True):
        if cv2.contourArea(quad) < min_area or not _is_convex(quad):
            continue
        sides = np.linalg.norm(quad - np.roll(quad, 1, axis=0), axis=1)
        if sides.min() < _MIN_SIDE_RATIO * sides.max():
            continue
        if all(np.abs(quad - other).max() > tolerance for other in unique):
            unique.append(quad)
    return unique


def _grouped_quads(outlines: list[tuple[float, np.ndarray]]) -> list[np.ndarray]:
    """Hull quadrilaterals of groups of similar-sized outlines lying side by side.

    When a grid's own outline merges with its surroundings, its 3x3 boxes (or its cells) usually
    still show as squarish outlines of one size, each next to another; the joint hull of such a
    chain is the grid. Outlines link when their areas differ by less than 1.5 times and their
    centres lie closer than 1.5 sides of the smaller (a diagonal neighbour), so a grid printed
    further away does not join.
    """
    outlines = [(area, hull) for area, hull in outlines if _squarish(area, hull)]
    if len(outlines) < 3:
        return []
    areas = np.array([area for area, _ in outlines])
    centres = np.array([hull.reshape(-1, 2).mean(axis=0) for _, hull in outlines])
    ratio = areas[:, None] / areas[None, :]
    distance = np.linalg.norm(centres[:, None] - centres[None, :], axis=2)
    linked = (ratio > 1 / 1.5) & (ratio < 1.5)
    linked &= distance < 1.5 * np.sqrt(np.minimum(areas[:, None], areas[None, :]))
    group = np.arange(len(outlines))  # each outline's group: the least index linked to it
    for _ in range(len(outlines)):
        merged = np.where(linked, group[None, :], len(outlines)).min(axis=1)
        merged = np.minimum(group, merged)
        if np.array_equal(merged, group):
            break
        group = merged
    quads = []
    for label in np.unique(group):
        members = np.flatnonzero(group == label)
        if len(members) >= 3:
            points = np.concatenate([outlines[j][1] for j in members])
            quads.extend(_hull_quads(cv2.convexHull(points)))
    return quads


def _squarish(area: float, hull: np.ndarray) -> bool:
    """Whether a convex hull nearly fills its tightest rectangle and that is nearly square."""
    (_, _), (w, h), _ = cv2.minAreaRect(hull)
    return w * h > 0 and area > 0.8 * w * h and 0.6 < w / max(h, 1e-6) < 1.6


def _hull_quads(hull: np.ndarray) -> list[np.ndarray]:
    """Quadrilaterals fitted to a convex hull: its extreme corners, a polygon simplification,
    and the quad on its four longest sides (a grid cut off by the photo's edge, or with a
    corner hidden, still has its four sides)."""
    pts = hull.reshape(-1, 2).astype(np.float32)
    s, d = pts.sum(axis=1), pts[:, 0] - pts[:, 1]
    quads = [np.array([pts[s.argmin()], pts[d.argmax()], pts[s.argmax()], pts[d.argmin()]])]
    perimeter = cv2.arcLength(hull, True)
    for eps in (0.02, 0.05, 0.08):
        approx = cv2.approxPolyDP(hull, eps * perimeter, True)
        if len(approx) == 4:
            quads.append(_order_corners(approx))
            break
    polygon = cv2.approxPolyDP(hull, 0.01 * perimeter, True).reshape(-1, 2).astype(np.float64)
    if len(polygon) > 4:
        ends = np.roll(polygon, -1, axis=0)
        longest = np.sort(np.argsort(-np.linalg.norm(ends - polygon, axis=1))[:4])
        sides = [_cross([*polygon[i], 1.0], [*ends[i], 1.0]) for i in longest]
        corners = [_meet(sides[i - 1], sides[i]) for i in range(4)]
        if all(np.isfinite(corners).ravel()):
            quads.append(_order_corners(np.array(corners, np.float32)))
    return quads


def _is_convex(quad: np.ndarray) -> bool:
    return bool(cv2.isContourConvex(quad.astype(np.float32).reshape(-1, 1, 2)))


def _square(n: float, margin: float) -> np.ndarray:
    return np.array(
        [[margin, margin], [margin + n, margin], [margin + n, margin + n], [margin, margin + n]],
        np.float32,
    )


def _pyramid(ink: np.ndarray, levels: int = 4) -> list[tuple[np.ndarray, np.ndarray]]:
    """The ink strength map and successively halved copies, each with an all-255 image of its size.

    Rectifying from the level where the grid is about as large as the output never aliases thin
    lines away; rectifying the all-255 image tells which output pixels lie outside the photo.
    """
    out = [ink]
    for _ in range(levels - 1):
        if min(out[-1].shape) < 64:
            break
        out.append(cv2.pyrDown(out[-1]))
    return [(level, np.full_like(level, 255)) for level in out]


def _rectify(
    pyramid: list[tuple[np.ndarray, np.ndarray]], quad: np.ndarray, s: int, m: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Warp `quad` to a 9s square with an m-pixel border.

    Returns the homography from level-0 pixels, the ink and the inside-the-photo mask, both
    float32 in 0..1.
    """
    sides = np.linalg.norm(quad - np.roll(quad, 1, axis=0), axis=1)
    level = int(np.clip(np.floor(np.log2(max(sides.min(), 1.0) / (9 * s))), 0, len(pyramid) - 1))
    f = 0.5**level
    to_level = np.diag([f, f, 1.0])
    h = cv2.getPerspectiveTransform((quad * f).astype(np.float32), _square(9 * s, m))
    side = 9 * s + 2 * m
    ink, full = pyramid[level]
    warped = cv2.warpPerspective(ink, h, (side, side), flags=cv2.INTER_LINEAR)
    inside = cv2.warpPerspective(full, h, (side, side), flags=cv2.INTER_LINEAR)
    scale = np.float32(1.0 / 255.0)
    return h @ to_level, warped.astype(np.float32) * scale, inside.astype(np.float32) * scale


def _profile(ink: np.ndarray, inside: np.ndarray, axis: int) -> np.ndarray:
    """Mean ink along `axis` over the pixels inside the photo; NaN where few are inside."""
    seen = inside.sum(axis=axis)
    profile = ink.sum(axis=axis) / np.maximum(seen, 1e-6)
    profile[seen < 0.3 * inside.shape[axis]] = np.nan
    return profile


_BOX_WEIGHTS = np.array([0, -1, -1, 3, -1, -1, 3, -1, -1, 0]) / 6.0
"""Dot with the ink on the 10 lines: mean of the two box lines minus mean of the six thin ones."""


@functools.lru_cache(maxsize=32)
def _comb_layout(length: int, s: int, m: int, narrow: bool) -> tuple[np.ndarray, ...]:
    """Every comb tried by `_comb` on a profile of `length`: pitches, starts, and the indices of
    its lines and of the points a quarter of a cell before and after each line.

    A wide search spans pitches of 0.7-1.3 s anywhere in the profile; a narrow one refines a comb
    already near m, m + s, ..., m + 9s.
    """
    last = length - 1
    if narrow:
        pitch_range, start_range = (
            np.arange(0.9 * s, 1.1 * s, 0.25),
            np.arange(m - s / 2, m + s / 2, 0.5),
        )
    else:
        pitch_range, start_range = np.arange(0.7 * s, 1.3 * s, 0.5), np.arange(0.0, last - 6.3 * s)
    pitches, starts = (a.ravel() for a in np.meshgrid(pitch_range, start_range, indexing="ij"))
    fits = (starts >= 0) & (starts + 9 * pitches <= last)
    pitches, starts = pitches[fits], starts[fits]
    lines = starts[:, None] + pitches[:, None] * np.arange(10)
    side = 0.25 * pitches[:, None]
    index = np.rint(lines).astype(np.intp)
    before = np.clip(np.rint(lines - side).astype(np.intp), 0, last)
    after = np.clip(np.rint(lines + side).astype(np.intp), 0, last)
    moved = (np.abs(starts - m) + np.abs(starts + 9 * pitches - m - 9 * s)) / s
    return pitches, starts, index, before, after, moved


def _comb(
    profile: np.ndarray, s: int, m: int, narrow: bool = False
) -> tuple[float, float, float, float]:
    """Best comb of 10 evenly spaced lines in a line profile: (start, pitch, contrast, boxes).

    Each line's contrast is its peak minus the profile a quarter of a cell to either side (a
    printed line has white paper beside it, a digit stroke has more ink nearby), and a comb is
    worth the mean of its three weakest lines, so a comb that misses a line, sits on the digits
    or has a wrong pitch scores low. `boxes` is how much more ink the 4th and 7th lines (the box
    lines) carry than the thin ones, but no more than their own contrast (so they must be
    lines, not blots of ink): the choice favours it, which tells the grid from the same
    grid shifted by one cell onto a nearby rule, and slightly favours combs near the expected
    lines at m, m + s, ..., m + 9s. Up to two lines may fall outside the photo (NaN in
    `profile`); they count as half as strong as the others.
    """
    pitches, starts, index, before, after, moved = _comb_layout(len(profile), s, m, narrow)
    peak = profile.copy()
    np.fmax(peak[1:], profile[:-1], out=peak[1:])
    np.fmax(peak[:-1], profile[1:], out=peak[:-1])
    a, b = profile[before], profile[after]
    strength = peak[index] - 0.5 * (np.fmax(a, b) + np.fmin(a, b))
    missing = np.isnan(strength)
    lost = missing.sum(axis=1)
    if lost.any():
        seen = ~missing
        guess = 0.5 * np.where(seen, strength, 0).sum(axis=1) / np.maximum(seen.sum(axis=1), 1)
        strength = np.where(missing, guess[:, None], strength)
    contrast = np.partition(strength, 3, axis=1)[:, :3].mean(axis=1)
    band = np.convolve(np.nan_to_num(profile), np.ones(5) / 5, mode="same")
    boxes = np.minimum(band[index] @ _BOX_WEIGHTS, strength[:, [3, 6]].min(axis=1))
    value = contrast + 0.5 * boxes - 0.05 * moved
    value[lost > 2] = -1.0
    k = int(value.argmax())
    return float(starts[k]), float(pitches[k]), float(contrast[k]), float(boxes[k])


def _refine_quad(
    pyramid: list[tuple[np.ndarray, np.ndarray]], quad: np.ndarray
) -> tuple[np.ndarray, float, float]:
    """Move `quad` onto the best 10x10 comb of lines near it.

    Returns the quad, the contrast of its weakest lines and how much more ink its box lines
    carry than the others (both the smaller of the two directions). A first comb over the whole
    rectified candidate fixes its position and size; combs over each half then fix its tilt and
    perspective, which is kept only if a last whole comb scores better for it.
    """
    first, contrast, boxes = _whole_comb(pyramid, quad)
    if _grid_score(contrast, boxes) < 0.5 * _MIN_SCORE:
        return first, contrast, boxes
    tilted = _fix_tilt(pyramid, first)
    if tilted is not None:
        second, contrast2, boxes2 = _whole_comb(pyramid, tilted)
        if _grid_score(contrast2, boxes2) >= _grid_score(contrast, boxes):
            return second, contrast2, boxes2
    return first, contrast, boxes


def _whole_comb(
    pyramid: list[tuple[np.ndarray, np.ndarray]], quad: np.ndarray
) -> tuple[np.ndarray, float, float]:
    """The quad moved onto the best combs of the whole rectified candidate, their contrast and
    box-line ink (the smaller of the two directions)."""
    s, m = _SCORE_CELL, 2 * _SCORE_CELL
    n = 9 * s
    h, warped, inside = _rectify(pyramid, quad, s, m)
    y0, py, vy, by = _comb(_profile(warped[:, m : m + n], inside[:, m : m + n], 1), s, m)
    x0, px, vx, bx = _comb(_profile(warped[m : m + n], inside[m : m + n], 0), s, m)
    x1, y1 = x0 + 9 * px, y0 + 9 * py
    box = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32)
    moved = cv2.perspectiveTransform(box.reshape(-1, 1, 2), np.linalg.inv(h)).reshape(4, 2)
    return moved, min(vx, vy), min(bx, by)


def _fix_tilt(pyramid: list[tuple[np.ndarray, np.ndarray]], quad: np.ndarray) -> np.ndarray | None:
    """The quad whose sides pass through the outer lines found by combs over each half of the
    rectified candidate (so each side may turn), or None if that is not a convex quad."""
    s, m = _SCORE_CELL, 2 * _SCORE_CELL
    half = 9 * s // 2
    h, warped, inside = _rectify(pyramid, quad, s, m)
    edges = []
    for image, seen in ((warped, inside), (warped.T, inside.T)):
        ends = []
        for lo in (m, m + half):
            profile = _profile(image[:, lo : lo + half], seen[:, lo : lo + half], 1)
            start, pitch, _, _ = _comb(profile, s, m, narrow=True)
            ends.append((lo + half / 2, start, start + 9 * pitch))
        (a, first_a, last_a), (b, first_b, last_b) = ends
        edges.append(((a, first_a), (b, first_b)))
        edges.append(((a, last_a), (b, last_b)))
    top, bottom, left, right = (_line_through(*edge) for edge in edges)
    left, right = left[[1, 0, 2]], right[[1, 0, 2]]
    box = np.array(
        [_meet(top, left), _meet(top, right), _meet(bottom, right), _meet(bottom, left)], np.float32
    )
    moved = cv2.perspectiveTransform(box.reshape(-1, 1, 2), np.linalg.inv(h)).reshape(4, 2)
    return moved if _is_convex(moved) else None


def _line_through(p: tuple[float, float], q: tuple[float, float]) -> np.ndarray:
    """Homogeneous line through two points given as (along, across) for a horizontal-ish line."""
    return _cross([p[0], p[1], 1.0], [q[0], q[1], 1.0])


def _cross(a: Sequence[float], b: Sequence[float]) -> np.ndarray:
    """Cross product of two 3-vectors (homogeneous points or lines), without NumPy's overhead."""
    return np.array(
        [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
    )


def _meet(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    """Intersection of two homogeneous lines (infinite for parallel lines)."""
    x, y, w = _cross(a, b)
    if abs(w) < 1e-9:
        return np.inf, np.inf
    return x / w, y / w


def _grid_score(contrast: float, boxes: float) -> float:
    """How much a refined candidate looks like a Sudoku: line contrast plus box-line ink."""
    return contrast + _BOX_WEIGHT * boxes


def _best_quad(mask: np.ndarray, pyramid: list[tuple[np.ndarray, np.ndarray]]) -> np.ndarray | None:
    """The candidate quadrilateral that looks most like a Sudoku grid, refined, or None.

    Candidates are the outlines of at least _MIN_AREA of the image, then (only if none of those
    is a grid, or the best is small: perhaps a solution grid beside the real one, whose outline
    is lost) groups of smaller outlines. Among candidates that pass the score threshold,
    larger ones are preferred: a Sudoku photo frames its grid, and a small grid of yesterday's
    solution beside it must not win.
    """
    area_total = float(mask.shape[0] * mask.shape[1])
    min_area = _MIN_AREA * area_total
    outlines = _outlines(mask, _MIN_PART * min_area)
    large = [quad for area, hull in outlines if area >= min_area for quad in _hull_quads(hull)]
    best, value = _pick(large, pyramid, min_area, area_total)
    if best is None or cv2.contourArea(best) < _SMALL_GRID * area_total:
        grouped, grouped_value = _pick(_grouped_quads(outlines), pyramid, min_area, area_total)
        if grouped_value > value:
            best = grouped
    return best


def _pick(
    candidates: list[np.ndarray],
    pyramid: list[tuple[np.ndarray, np.ndarray]],
    min_area: float,
    area_total: float,
) -> tuple[np.ndarray | None, float]:
    """The refined candidate with the best grid score weighted by its area, and that value
    (None and 0 when no candidate is a grid)."""
    best, best_value = None, 0.0
    for candidate in _distinct(candidates, min_area, 0.01 * np.sqrt(area_total)):
        quad, contrast, boxes = _refine_quad(pyramid, candidate)
        score = _grid_score(contrast, boxes)
        sides = np.linalg.norm(quad - np.roll(quad, 1, axis=0), axis=1)
        if score < _MIN_SCORE or sides.min() < _MIN_SIDE or not _is_convex(quad):
            continue
        value = score * np.sqrt(cv2.contourArea(quad) / area_total)
        if value > best_value:
            best, best_value = quad, value
    return best, best_value


def _fit_lattice(pyramid: list[tuple[np.ndarray, np.ndarray]], quad: np.ndarray) -> np.ndarray:
    """Trace the 20 grid lines near `quad`: their (10, 10, 2) crossings in level-0 pixels."""
    s = m = 24
    h, warped, _ = _rectify(pyramid, quad, s, m)
    along = m + 9 * s * np.concatenate([[0.0], (np.arange(_SLICES) + 0.5) / _SLICES, [1.0]])
    rows = _trace_lines(warped, s, m)
    cols = _trace_lines(warped.T, s, m)
    points = _intersect(rows, cols, along)
    inverse = np.linalg.inv(h)
    return cv2.perspectiveTransform(points.reshape(-1, 1, 2), inverse).reshape(10, 10, 2)


def _trace_lines(warped: np.ndarray, s: int, m: int) -> np.ndarray:
    """Follow each of the 10 horizontal lines of a rectified grid along its length.

    Each line is found in _SLICES pieces, within a third of a cell of where the comb put it and
    preferring peaks near that position (a rule printed just above the grid must not pull the
    top line up). A piece's ink at each offset is its lower quartile along the piece: a printed
    line darkens the whole piece, a digit's stroke only part of it, so a faint thin line is
    not traded for the foot of a 2 or the top of a 7 beside it. Pieces where the line is weak
    (broken, hidden, outside the photo) or far from a smooth curve through the others are filled
    from that curve; a line that does not follow its neighbours is replaced by interpolation
    between them. The measured positions are kept otherwise, so a grid bent at one corner
    (curled paper) is cut along its real lines.

    Returns (10, _SLICES + 2) positions across the lines at the grid's start, at the centre of
    each piece, and at the grid's end.
    """
    n = 9 * s
    reach = s // 3
    width = n // _SLICES
    offsets = np.arange(-reach, reach + 1)
    rows = m + s * np.arange(10)[:, None] + offsets
    band = warped[rows, m : m + width * _SLICES].reshape(10, len(offsets), _SLICES, width)
    sums = np.partition(band, width // 4, axis=3)[..., width // 4]
    prior = 1.0 - 0.5 * (offsets / reach) ** 2
    best = _smooth_path(sums * prior[None, :, None], offsets)
    strength = np.take_along_axis(sums, best[:, None, :], axis=1)[:, 0, :]
    near = np.abs(offsets[None, :, None] - offsets[best][:, None, :]) <= 2
    mass = np.where(near, sums, 0.0)
    centre = (mass * offsets[None, :, None]).sum(axis=1) / np.maximum(mass.sum(axis=1), 1e-6)
    ys = m + s * np.arange(10)[:, None] + centre
    weight = np.where(strength > 0.5 * np.median(strength), strength, 0.0)
    u = (np.arange(_SLICES) + 0.5) / _SLICES * 2.0 - 1.0
    coeffs = _fit_quadratics(u, ys, weight)
    for _ in range(2):
        far = np.abs(_evaluate(coeffs, u) - ys) > s / 5
        weight = np.where(far, 0.0, weight)
        coeffs = _fit_quadratics(u, ys, weight)
    ys = np.where(weight > 0, ys, _evaluate(coeffs, u))
    ys = np.concatenate([ys[:, :1], ys, ys[:, -1:]], axis=1)
    ys = 0.25 * ys[:, :-2] + 0.5 * ys[:, 1:-1] + 0.25 * ys[:, 2:]
    ends = [1.5 * ys[:, :1] - 0.5 * ys[:, 1:2], 1.5 * ys[:, -1:] - 0.5 * ys[:, -2:-1]]
    ys = np.concatenate([ends[0], ys, ends[1]], axis=1)
    return _regularise(ys, weight.astype(bool).mean(axis=1), s)


def _smooth_path(gain: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """For each line, the offset index per slice that collects the most `gain` (lines, offsets,
    slices) less _STEP_COST per pixel of change between neighbouring slices (Viterbi): the path
    follows one continuous line and does not jump onto text or a rule beside it for one slice.
    """
    step = _STEP_COST * np.abs(offsets[:, None] - offsets[None, :])
    total = gain[:, :, 0].copy()
    back = np.zeros(gain.shape, np.intp)
    for k in range(1, gain.shape[2]):
        options = total[:, :, None] - step[None, :, :]
        back[:, :, k] = options.argmax(axis=1)
        total = options.max(axis=1) + gain[:, :, k]
    path = np.zeros((gain.shape[0], gain.shape[2]), np.intp)
    path[:, -1] = total.argmax(axis=1)
    for k in range(gain.shape[2] - 1, 0, -1):
        path[:, k - 1] = np.take_along_axis(back[:, :, k], path[:, k : k + 1], axis=1)[:, 0]
    return path


def _fit_quadratics(u: np.ndarray, ys: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """Weighted least-squares a + b u + c u^2 for each row of `ys`; ridge terms keep b, c small."""
    design = np.stack([np.ones_like(u), u, u * u], axis=1)
    normal = np.einsum("ks,lk,kt->lst", design, weight, design)
    normal += np.diag([1e-6, 0.05, 0.5])
    rhs = np.einsum("ks,lk,lk->ls", design, weight, ys)
    rhs[:, 0] += 1e-6 * ys.mean(axis=1)
    return np.linalg.solve(normal, rhs[:, :, None])[:, :, 0]


def _evaluate(coeffs: np.ndarray, u: np.ndarray) -> np.ndarray:
    return coeffs[:, :1] + coeffs[:, 1:2] * u + coeffs[:, 2:3] * u * u


def _regularise(ys: np.ndarray, support: np.ndarray, s: int) -> np.ndarray:
    """Replace lines that are barely seen, or that break the even spacing, by interpolation.

    `ys` holds each line's positions at common points along it; `support` the share of its
    length where it was seen. At every point the ten positions are fitted as a quadratic of the
    line number (spacing changes smoothly under perspective) over the trusted lines.
    """
    index = np.arange(10, dtype=np.float64) / 4.5 - 1.0
    trusted = support >= 0.3
    predicted = ys
    for _ in range(2):
        if trusted.sum() < 4:
            return ys
        weight = np.broadcast_to(trusted.astype(np.float64), (ys.shape[1], 10))
        across = _fit_quadratics(index, ys.T, weight)
        predicted = _evaluate(across, index).T
        trusted &= np.abs(ys - predicted).mean(axis=1) < s / 5
    return np.where(trusted[:, None], ys, predicted)


def _intersect(rows: np.ndarray, cols: np.ndarray, along: np.ndarray) -> np.ndarray:
    """Crossings of row curves y = rows[i](x) and column curves x = cols[j](y), both sampled at
    the positions `along`, found by alternating interpolation."""
    y = np.repeat(rows.mean(axis=1)[:, None], 10, axis=1)
    x = np.repeat(cols.mean(axis=1)[None, :], 10, axis=0)
    for _ in range(4):
        x = np.stack([np.interp(y[:, j], along, cols[j]) for j in range(10)], axis=1)
        y = np.stack([np.interp(x[i], along, rows[i]) for i in range(10)], axis=0)
    return np.stack([x, y], axis=2).astype(np.float32)


def _cut(levels: list[np.ndarray], lattice: np.ndarray) -> GridLocation:
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
        _to_level(corners, level).astype(np.float32), _square(9 * CELL, MARGIN)
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
