"""Stage 3 of the grid search: score a candidate quadrilateral and move it onto the grid's lines.

Each candidate is rectified to a small square, moved onto the best comb of ten evenly spaced
lines in each direction (then turned by combs over each half), and scored by how clearly its
weakest lines stand out and how much its box lines outweigh the thin ones.
"""

from __future__ import annotations

import functools

import cv2
import numpy as np

from sudoku_lens.read.grid.geometry import Pyramid, is_convex, line_through, meet, rectify

MIN_SCORE = 0.1  # least grid score of a grid (real grids score 0.2 or more on the photos)
_SCORE_CELL = 12  # cell side, in pixels, of the small squares candidates are scored in
_BOX_WEIGHT = 1.0  # weight of the box lines' extra ink in the grid score
_BOX_WEIGHTS = np.array([0, -1, -1, 3, -1, -1, 3, -1, -1, 0]) / 6.0
"""Dot with the ink on the 10 lines: mean of the two box lines minus mean of the six thin ones."""


def grid_score(contrast: float, boxes: float) -> float:
    """How much a refined candidate looks like a Sudoku: line contrast plus box-line ink."""
    return contrast + _BOX_WEIGHT * boxes


def refine_quad(pyramid: Pyramid, quad: np.ndarray) -> tuple[np.ndarray, float, float]:
    """Move `quad` onto the best 10x10 comb of lines near it.

    Returns the quad, the contrast of its weakest lines and how much more ink its box lines
    carry than the others (both the smaller of the two directions). A first comb over the whole
    rectified candidate fixes its position and size; combs over each half then fix its tilt and
    perspective, which is kept only if a last whole comb scores better for it.
    """
    first, contrast, boxes = _whole_comb(pyramid, quad)
    if grid_score(contrast, boxes) < 0.5 * MIN_SCORE:
        return first, contrast, boxes
    tilted = _fix_tilt(pyramid, first)
    if tilted is not None:
        second, contrast2, boxes2 = _whole_comb(pyramid, tilted)
        if grid_score(contrast2, boxes2) >= grid_score(contrast, boxes):
            return second, contrast2, boxes2
    return first, contrast, boxes


def _whole_comb(pyramid: Pyramid, quad: np.ndarray) -> tuple[np.ndarray, float, float]:
    """The quad moved onto the best combs of the whole rectified candidate, their contrast and
    box-line ink (the smaller of the two directions)."""
    s, m = _SCORE_CELL, 2 * _SCORE_CELL
    n = 9 * s
    h, warped, inside = rectify(pyramid, quad, s, m)
    y0, py, vy, by = _comb(_profile(warped[:, m : m + n], inside[:, m : m + n], 1), s, m)
    x0, px, vx, bx = _comb(_profile(warped[m : m + n], inside[m : m + n], 0), s, m)
    x1, y1 = x0 + 9 * px, y0 + 9 * py
    box = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32)
    moved = cv2.perspectiveTransform(box.reshape(-1, 1, 2), np.linalg.inv(h)).reshape(4, 2)
    return moved, min(vx, vy), min(bx, by)


def _fix_tilt(pyramid: Pyramid, quad: np.ndarray) -> np.ndarray | None:
    """The quad whose sides pass through the outer lines found by combs over each half of the
    rectified candidate (so each side may turn), or None if that is not a convex quad."""
    s, m = _SCORE_CELL, 2 * _SCORE_CELL
    half = 9 * s // 2
    h, warped, inside = rectify(pyramid, quad, s, m)
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
    top, bottom, left, right = (line_through(*edge) for edge in edges)
    left, right = left[[1, 0, 2]], right[[1, 0, 2]]
    box = np.array(
        [meet(top, left), meet(top, right), meet(bottom, right), meet(bottom, left)], np.float32
    )
    moved = cv2.perspectiveTransform(box.reshape(-1, 1, 2), np.linalg.inv(h)).reshape(4, 2)
    return moved if is_convex(moved) else None


def _profile(ink: np.ndarray, inside: np.ndarray, axis: int) -> np.ndarray:
    """Mean ink along `axis` over the pixels inside the photo; NaN where few are inside."""
    seen = inside.sum(axis=axis)
    profile = ink.sum(axis=axis) / np.maximum(seen, 1e-6)
    profile[seen < 0.3 * inside.shape[axis]] = np.nan
    return profile


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
    lost = None
    if np.isnan(profile).any():  # only then can lines be missing: sums over rows of ten are slow
        missing = np.isnan(strength)
        lost = missing.sum(axis=1)
        if lost.any():
            seen = ~missing
            guess = 0.5 * np.where(seen, strength, 0).sum(axis=1) / np.maximum(seen.sum(axis=1), 1)
            strength = np.where(missing, guess[:, None], strength)
    weakest = np.partition(strength, 3, axis=1)
    contrast = (weakest[:, 0] + weakest[:, 1] + weakest[:, 2]) / 3  # their mean, summed in turn
    band = np.convolve(np.nan_to_num(profile), np.ones(5) / 5, mode="same")
    boxes = np.minimum(band[index] @ _BOX_WEIGHTS, np.minimum(strength[:, 3], strength[:, 6]))
    value = contrast + 0.5 * boxes - 0.05 * moved
    if lost is not None:
        value[lost > 2] = -1.0
    k = int(value.argmax())
    return float(starts[k]), float(pitches[k]), float(contrast[k]), float(boxes[k])
