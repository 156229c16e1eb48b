"""Shared geometry of the grid search: the photo's halvings, rectifying a quad, points and lines.

Points are (x, y) pixel coordinates; lines are homogeneous 3-vectors.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

WORK_SIDE = 1000
"""Photos with a longer side than this are halved (until it fits) for the grid search."""

Pyramid = list[tuple[np.ndarray, np.ndarray]]
"""An ink strength map and its halvings, each with an all-255 image of its size."""


def gray_levels(image_bgr: np.ndarray) -> list[np.ndarray]:
    """The grayscale image and its halvings, down to the first no larger than WORK_SIDE."""
    gray = image_bgr if image_bgr.ndim == 2 else cv2.cvtColor(image_bgr, cv2.COLOR_BGR2GRAY)
    levels = [gray]
    while max(levels[-1].shape) > WORK_SIDE:
        levels.append(cv2.resize(levels[-1], None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA))
    return levels


def to_level(points: np.ndarray, level: int) -> np.ndarray:
    """Map pixel coordinates of the full image to the image halved `level` times (or back)."""
    factor = 0.5**level
    return (points + 0.5) * factor - 0.5


def order_corners(points: np.ndarray) -> np.ndarray:
    """Order four points TL, TR, BR, BL as seen in the image."""
    pts = np.asarray(points, np.float32).reshape(4, 2)
    centre = pts.mean(axis=0)
    angles = np.arctan2(pts[:, 1] - centre[1], pts[:, 0] - centre[0])
    pts = pts[np.argsort(angles)]
    start = int(np.argmin(pts.sum(axis=1)))
    return np.roll(pts, -start, axis=0)


def is_convex(quad: np.ndarray) -> bool:
    return bool(cv2.isContourConvex(quad.astype(np.float32).reshape(-1, 1, 2)))


def square_corners(n: float, margin: float) -> np.ndarray:
    return np.array(
        [[margin, margin], [margin + n, margin], [margin + n, margin + n], [margin, margin + n]],
        np.float32,
    )


def cross(a: Sequence[float], b: Sequence[float]) -> np.ndarray:
    """Cross product of two 3-vectors (homogeneous points or lines), without NumPy's overhead."""
    return np.array(
        [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
    )


def meet(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    """Intersection of two homogeneous lines (infinite for parallel lines)."""
    x, y, w = cross(a, b)
    if abs(w) < 1e-9:
        return np.inf, np.inf
    return x / w, y / w


def line_through(p: tuple[float, float], q: tuple[float, float]) -> np.ndarray:
    """Homogeneous line through two points given as (along, across) for a horizontal-ish line."""
    return cross([p[0], p[1], 1.0], [q[0], q[1], 1.0])


def ink_pyramid(ink: np.ndarray, levels: int = 4) -> Pyramid:
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


def rectify(
    pyramid: Pyramid, quad: np.ndarray, s: int, m: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Warp `quad` to a 9s square with an m-pixel border.

    Returns the homography from level-0 pixels, the ink and the inside-the-photo mask, both
    float32 in 0..1.
    """
    sides = np.linalg.norm(quad - np.roll(quad, 1, axis=0), axis=1)
    level = int(np.clip(np.floor(np.log2(max(sides.min(), 1.0) / (9 * s))), 0, len(pyramid) - 1))
    f = 0.5**level
    scale_down = np.diag([f, f, 1.0])
    h = cv2.getPerspectiveTransform((quad * f).astype(np.float32), square_corners(9 * s, m))
    side = 9 * s + 2 * m
    ink, full = pyramid[level]
    warped = cv2.warpPerspective(ink, h, (side, side), flags=cv2.INTER_LINEAR)
    inside = cv2.warpPerspective(full, h, (side, side), flags=cv2.INTER_LINEAR)
    scale = np.float32(1.0 / 255.0)
    return h @ scale_down, warped.astype(np.float32) * scale, inside.astype(np.float32) * scale
