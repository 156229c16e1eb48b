"""Stage 1 and 2 of the grid search: the ink maps of a photo and the candidate quadrilaterals.

Ink is how much darker a pixel is than its neighbourhood, so shadows and uneven light drop out;
a dim photo is brightened first. Every large outline in the ink gives candidate quadrilaterals
(not only the largest: a neighbouring grid, a text column or the page itself may be larger).
Outlines of the long lines alone separate a grid from text touching it; groups of same-sized
outlines (the 3x3 boxes) stand in for a grid whose own outline is lost.
"""

from __future__ import annotations

import cv2
import numpy as np

from sudoku_lens.read.grid.geometry import cross, is_convex, meet, order_corners

MIN_AREA = 0.02  # least share of the image a candidate grid covers
MIN_PART = 0.2  # least size of a box outline, as a share of MIN_AREA
_MIN_SIDE_RATIO = 0.5  # shortest side of a candidate at least this share of its longest
_MIN_STEEP_SIDE_RATIO = 0.25  # the same for a grid seen steeply (its far side foreshortened)
_MIN_STEEP_ASPECT = 0.5  # its shorter pair of opposite sides, on average, at least this share
# of the longer pair (a text column or a strip of the page is longer than it is wide)
_PAPER = 150  # grey level of the paper a dim photo is brightened to (gain at most 4)
_INK_MASK = 5  # grey levels darker than the neighbourhood that count as ink in the mask
_INK_FLOOR = 2  # ink below this is ignored in the strength map
_INK_FULL = 10  # ink from this up is full strength (255)


def binarize(gray: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Ink maps of a grayscale image: (mask, strength), both uint8.

    A pixel's ink is how much darker it is than the mean of its neighbourhood (in grey levels,
    after brightening a dim photo so its mean is _PAPER), so shadows and uneven light drop out.
    The mask (255 where ink > _INK_MASK) outlines shapes; the strength (ink scaled so _INK_FULL
    or more gives 255) keeps faint thin lines and the extra ink of thick box lines, which the
    line measurements need.
    """
    blurred = cv2.GaussianBlur(gray, (3, 3), 0)
    mean, gain = _surroundings(blurred)
    darker = cv2.convertScaleAbs(cv2.subtract(mean, blurred), alpha=gain)
    mask = cv2.threshold(darker, _INK_MASK, 255, cv2.THRESH_BINARY)[1]
    return mask, _strength(darker)


def sharp_strength(gray: np.ndarray) -> np.ndarray:
    """The ink strength map of `binarize` without its blur of the pixels themselves: a hairline
    rule one pixel wide keeps its full darkness (the blur halves it, and in a small photo that
    can leave the thin rules no stronger than the paper's grain)."""
    mean, gain = _surroundings(cv2.GaussianBlur(gray, (3, 3), 0))
    return _strength(cv2.convertScaleAbs(cv2.subtract(mean, gray), alpha=gain))


def _surroundings(blurred: np.ndarray) -> tuple[np.ndarray, float]:
    """The mean grey level around each pixel, and the gain that brightens a dim photo's paper
    to _PAPER (at most 4)."""
    block = max(15, (max(blurred.shape) // 40) | 1)
    mean = cv2.blur(blurred, (block, block))
    return mean, float(np.clip(_PAPER / max(cv2.mean(mean)[0], 1.0), 1.0, 4.0))


def _strength(darker: np.ndarray) -> np.ndarray:
    """Ink strength: grey levels darker than the surroundings, from _INK_FLOOR (0) to _INK_FULL
    (255)."""
    return cv2.convertScaleAbs(cv2.subtract(darker, _INK_FLOOR), alpha=255.0 / _INK_FULL)


def find_outlines(mask: np.ndarray, min_area: float) -> list[tuple[float, np.ndarray]]:
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


def distinct_quads(
    quads: list[np.ndarray], min_area: float, tolerance: float, *, steep: bool = False
) -> list[np.ndarray]:
    """The convex quadrilaterals of at least `min_area` that could be a square seen in
    perspective (no side much shorter than another), largest first, without near duplicates.

    With `steep`, instead those only a steep view explains: a side shorter than
    _MIN_SIDE_RATIO of the longest, as the far side of a grid on a phone tilted 30 degrees or
    more is, but not shorter than _MIN_STEEP_SIDE_RATIO, and the two pairs of opposite sides
    within 2:1 of each other on average."""
    unique: list[np.ndarray] = []
    for quad in sorted(quads, key=cv2.contourArea, reverse=True):
        if cv2.contourArea(quad) < min_area or not is_convex(quad):
            continue
        sides = np.linalg.norm(quad - np.roll(quad, 1, axis=0), axis=1)
        foreshortened = sides.min() < _MIN_SIDE_RATIO * sides.max()
        if foreshortened != steep:
            continue
        pairs = (sides[0] + sides[2], sides[1] + sides[3])
        if steep and (
            sides.min() < _MIN_STEEP_SIDE_RATIO * sides.max()
            or min(pairs) < _MIN_STEEP_ASPECT * max(pairs)
        ):
            continue
        if all(np.abs(quad - other).max() > tolerance for other in unique):
            unique.append(quad)
    return unique


def grouped_quads(outlines: list[tuple[float, np.ndarray]]) -> list[np.ndarray]:
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
            quads.extend(hull_quads(cv2.convexHull(points)))
    return quads


def _squarish(area: float, hull: np.ndarray) -> bool:
    """Whether a convex hull nearly fills its tightest rectangle and that is nearly square."""
    (_, _), (w, h), _ = cv2.minAreaRect(hull)
    return w * h > 0 and area > 0.8 * w * h and 0.6 < w / max(h, 1e-6) < 1.6


def hull_quads(hull: np.ndarray) -> list[np.ndarray]:
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
            quads.append(order_corners(approx))
            break
    polygon = cv2.approxPolyDP(hull, 0.01 * perimeter, True).reshape(-1, 2).astype(np.float64)
    if len(polygon) > 4:
        ends = np.roll(polygon, -1, axis=0)
        longest = np.sort(np.argsort(-np.linalg.norm(ends - polygon, axis=1))[:4])
        sides = [cross([*polygon[i], 1.0], [*ends[i], 1.0]) for i in longest]
        corners = [meet(sides[i - 1], sides[i]) for i in range(4)]
        if all(np.isfinite(corners).ravel()):
            quads.append(order_corners(np.array(corners, np.float32)))
    return quads
