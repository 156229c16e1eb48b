"""Follow a grid's four corners from frame to frame with sparse optical flow.

Reading a grid takes tens of milliseconds; following it takes a few. Good features (grid
crossings, digit corners) inside the grid are tracked from frame to frame with pyramidal
Lucas-Kanade flow, checked forwards and backwards. Each feature remembers where it was on the
key frame (the frame the grid's corners were last measured on), and a RANSAC homography from the
key frame to the current one moves the corners: errors of single features average out instead
of compounding from frame to frame. Everything runs on a downscaled grayscale frame.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

_LK_CRITERIA = (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 20, 0.03)


def quad_area(corners: np.ndarray) -> float:
    """Signed-free area of a quadrilateral given as (4, 2) points in order (shoelace formula)."""
    x, y = corners[:, 0], corners[:, 1]
    return 0.5 * abs(float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))))


def is_plausible_quad(corners: np.ndarray, min_side: float) -> bool:
    """True when the quadrilateral is convex, not self-crossing, and no side is shorter than
    `min_side` pixels: the shape a flat grid seen in perspective can take."""
    edges = np.roll(corners, -1, axis=0) - corners
    if float(np.linalg.norm(edges, axis=1).min()) < min_side:
        return False
    following = np.roll(edges, -1, axis=0)
    cross = edges[:, 0] * following[:, 1] - edges[:, 1] * following[:, 0]
    return bool(np.all(cross > 0) or np.all(cross < 0))


@dataclass
class TrackerSettings:
    """Knobs of `CornerTracker`; the defaults suit 30 fps video of a hand-held page."""

    max_features: int = 100
    """Features seeded inside the grid."""
    min_features: int = 40
    """Re-seed when fewer than this many features survive."""
    min_inliers: int = 14
    """Fewer RANSAC inliers than this means the grid is lost."""
    ransac_threshold: float = 2.0
    """RANSAC reprojection threshold, in downscaled pixels."""
    fb_threshold: float = 1.0
    """Largest forward-backward flow disagreement of a kept feature, in downscaled pixels."""
    win_size: int = 13
    max_level: int = 3
    max_area_change: float = 1.6
    """Largest change of the grid's area from one frame to the next (either way)."""


class CornerTracker:
    """Tracks four corners through a sequence of downscaled grayscale frames.

    `start(gray, corners)` seeds features inside the quadrilateral; `update(gray)` returns the
    corners moved into the new frame, or None when the grid was lost (too few consistent features,
    an implausible homography). Corners are in the downscaled frame's pixels.
    """

    def __init__(self, settings: TrackerSettings | None = None) -> None:
        self.settings = settings or TrackerSettings()
        self._gray: np.ndarray | None = None
        self._points: np.ndarray | None = None
        self._key_points: np.ndarray | None = None
        self._key_corners: np.ndarray | None = None
        self.corners: np.ndarray | None = None

    @property
    def active(self) -> bool:
        """True while a grid is being tracked."""
        return self.corners is not None

    def reset(self) -> None:
        """Forget the grid."""
        self._gray = None
        self._points = None
        self._key_points = None
        self._key_corners = None
        self.corners = None

    def start(self, gray: np.ndarray, corners: np.ndarray) -> bool:
        """Begin tracking `corners` (4, 2) measured in `gray`, which becomes the key frame; False
        when too few features were found there."""
        self.corners = np.asarray(corners, dtype=np.float32).reshape(4, 2).copy()
        self._key_corners = self.corners.copy()
        self._gray = gray
        self._points = self._seed(gray, self.corners)
        if self._points is None or len(self._points) < self.settings.min_inliers:
            self.reset()
            return False
        self._key_points = self._points.copy()
        return True

    def _seed(self, gray: np.ndarray, corners: np.ndarray) -> np.ndarray | None:
        """Good features inside the grid (slightly enlarged to include its outer border)."""
        centre = corners.mean(axis=0)
        grown = centre + (corners - centre) * 1.04
        mask = np.zeros(gray.shape, dtype=np.uint8)
        cv2.fillConvexPoly(mask, np.round(grown).astype(np.int32), 255)
        side = np.sqrt(quad_area(corners))
        min_distance = max(3.0, side / 40.0)
        points = cv2.goodFeaturesToTrack(
            gray,
            maxCorners=self.settings.max_features,
            qualityLevel=0.01,
            minDistance=min_distance,
            mask=mask,
            blockSize=5,
        )
        return None if points is None else points.reshape(-1, 2).astype(np.float32)

    def update(self, gray: np.ndarray) -> np.ndarray | None:
        """Move the corners into `gray`; None (and the tracker reset) when the grid is lost."""
        if (
            self._gray is None
            or self._points is None
            or self._key_points is None
            or self._key_corners is None
            or self.corners is None
        ):
            return None
        s = self.settings
        lk = {
            "winSize": (s.win_size, s.win_size),
            "maxLevel": s.max_level,
            "criteria": _LK_CRITERIA,
        }
        p0 = self._points.reshape(-1, 1, 2)
        p1, status, _ = cv2.calcOpticalFlowPyrLK(self._gray, gray, p0, None, **lk)
        back, status_back, _ = cv2.calcOpticalFlowPyrLK(gray, self._gray, p1, None, **lk)
        fb_error = np.linalg.norm((back - p0).reshape(-1, 2), axis=1)
        good = (status.ravel() == 1) & (status_back.ravel() == 1) & (fb_error < s.fb_threshold)
        if int(good.sum()) < s.min_inliers:
            self.reset()
            return None
        key, new = self._key_points[good], p1.reshape(-1, 2)[good]
        homography, inliers = cv2.findHomography(key, new, cv2.RANSAC, s.ransac_threshold)
        if homography is None or int(inliers.sum()) < s.min_inliers:
            self.reset()
            return None
        corners = cv2.perspectiveTransform(self._key_corners.reshape(1, 4, 2), homography)
        corners = corners.reshape(4, 2)
        ratio = quad_area(corners) / max(quad_area(self.corners), 1e-6)
        limit = s.max_area_change
        if not (1.0 / limit < ratio < limit) or not is_plausible_quad(corners, 8.0):
            self.reset()
            return None
        kept = inliers.ravel().astype(bool)
        points, key_points = new[kept], key[kept]
        if len(points) < s.min_features:
            seeded = self._seed(gray, corners)
            if seeded is not None and len(seeded) > len(points):
                to_key = np.linalg.inv(homography)
                points = seeded
                key_points = cv2.perspectiveTransform(seeded.reshape(1, -1, 2), to_key)[0]
        self._gray = gray
        self._points = points.astype(np.float32)
        self._key_points = key_points.astype(np.float32)
        self.corners = corners.astype(np.float32)
        return self.corners.copy()
