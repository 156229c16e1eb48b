"""Labelled cells cut from the real photos of the Wicht & Hennebert dataset (CC-BY-4.0).

A photo's grid corners come from `outlines.csv` (or, for the hand-filled photos it does not
list, from the reader's grid finder); the grid is warped to a square and split into a
uniform 9x9 with a margin around each cell, much as the runtime cutter does (random offsets stand in
for the ways it differs). Labels come from the photo's .dat, which is upright; the photo's own
rotation is found by the caller (see `sudoku_lens.train.pipeline`).
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from sudoku_lens.errors import GridNotFoundError, SudokuLensError
from sudoku_lens.read.dataset import is_validation, read_dat
from sudoku_lens.read.grid import locate_grid

CORNER_KEYS = ("top_left", "top_right", "bottom_right", "bottom_left")


@dataclass(frozen=True)
class Photo:
    """One printed photo with known grid corners (image order TL, TR, BR, BL) and upright labels."""

    path: Path
    number: int
    corners: np.ndarray
    labels: np.ndarray

    @property
    def validation(self) -> bool:
        """Whether the team's fixed split keeps this photo for validation (`is_validation`)."""
        return is_validation(self.number)


def load_photos(root: Path, kind: str = "printed") -> list[Photo]:
    """Return the labelled photos of `root/kind` (printed or mixed), by number.

    Corners come from `root/outlines.csv` where it lists the photo, otherwise from the reader's
    own grid finder (the hand-filled photos have no outlines); a photo whose grid is not found,
    or that has no .dat, is left out.
    """
    table = root / "outlines.csv"
    if not table.is_file():
        raise SudokuLensError(f"{table} not found: --data must be a wicht-v2-train folder")
    with table.open(newline="") as fh:
        outlines = {
            row["file"]: np.array(
                [[float(row[f"{k}_x"]), float(row[f"{k}_y"])] for k in CORNER_KEYS], np.float32
            )
            for row in csv.DictReader(fh)
        }
    photos = []
    for path in (root / kind).glob("image*.jpg"):
        match = re.fullmatch(r"image(\d+)", path.stem)
        if match is None or not path.with_suffix(".dat").is_file():
            continue
        corners = outlines.get(f"{kind}/{path.name}")
        if corners is None:
            corners = _find_corners(path)
        if corners is not None:
            photos.append(
                Photo(path, int(match.group(1)), corners, read_dat(path.with_suffix(".dat")))
            )
    photos.sort(key=lambda p: p.number)
    return photos


def _find_corners(path: Path) -> np.ndarray | None:
    """The grid corners (image order TL, TR, BR, BL) the reader finds in a photo, or None."""
    image = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if image is None:
        return None
    try:
        return locate_grid(image).corners
    except GridNotFoundError:
        return None


def cut_cells(
    gray: np.ndarray,
    corners: np.ndarray,
    *,
    cell: int = 48,
    margin: float = 0.12,
    rng: np.random.Generator | None = None,
) -> list[np.ndarray]:
    """Warp the grid to a square and cut 81 crops, row-major in image orientation.

    Each crop spans its cell plus `margin` of a cell on every side. With `rng`, the corners, cell
    size, margin and each crop's edges are jittered, so that training sees cuts that are a little
    off, as a real detector's will be.
    """
    corners = np.asarray(corners, np.float32)
    if rng is not None:
        side = float(np.linalg.norm(corners[1] - corners[0]))
        corners = corners + rng.normal(0.0, 0.004 * side, size=(4, 2)).astype(np.float32)
        cell = int(rng.integers(max(20, cell - 16), cell + 17))
        margin = float(rng.uniform(0.03, 0.22))
    pad = int(np.ceil(cell * 0.5))
    size = 9 * cell + 2 * pad
    dst = np.float32(
        [[pad, pad], [pad + 9 * cell, pad], [pad + 9 * cell] * 2, [pad, pad + 9 * cell]]
    )
    warped = cv2.warpPerspective(
        gray,
        cv2.getPerspectiveTransform(corners, dst),
        (size, size),
        flags=cv2.INTER_AREA
        if rng is None
        else int(rng.choice([cv2.INTER_LINEAR, cv2.INTER_AREA])),
        borderMode=cv2.BORDER_REPLICATE,
    )
    xs, ys = _line_positions(warped, cell, pad)
    m = margin * cell
    crops = []
    for r in range(9):
        for c in range(9):
            x0, x1 = xs[r, c] - m, xs[r, c + 1] + m
            y0, y1 = ys[c, r] - m, ys[c, r + 1] + m
            if rng is not None:
                x0, y0, x1, y1 = np.array([x0, y0, x1, y1]) + rng.normal(0.0, 0.04 * cell, 4)
            xa, ya = max(0, round(x0)), max(0, round(y0))
            xb, yb = min(size, round(x1)), min(size, round(y1))
            crops.append(warped[ya:yb, xa:xb])
    return crops


def _line_positions(warped: np.ndarray, cell: int, pad: int) -> tuple[np.ndarray, np.ndarray]:
    """Find the grid lines near their uniform positions, band by band, so curved grids cut well.

    Returns xs (9 row bands x 10 vertical lines) and ys (9 column bands x 10 horizontal lines);
    a line too faint to find keeps its uniform position.
    """
    k = max(3, cell // 4) | 1
    dark = cv2.morphologyEx(warped, cv2.MORPH_BLACKHAT, np.ones((k, k), np.uint8)).astype(
        np.float32
    )
    length = max(3, int(0.7 * cell))
    vert = cv2.morphologyEx(dark, cv2.MORPH_OPEN, np.ones((length, 1), np.uint8))
    horiz = cv2.morphologyEx(dark, cv2.MORPH_OPEN, np.ones((1, length), np.uint8))
    reach = int(0.3 * cell)
    uniform = pad + cell * np.arange(10, dtype=np.float64)
    out = []
    for response in (vert, horiz.T):
        found = np.tile(uniform, (9, 1))
        for band in range(9):
            lo = pad + band * cell
            profile = response[lo : lo + cell].sum(axis=0)
            profile = np.convolve(profile, np.ones(3) / 3.0, mode="same")
            strong = profile.max()
            for j, u in enumerate(uniform):
                a, b = max(0, int(u) - reach), min(len(profile), int(u) + reach + 1)
                i = a + int(np.argmax(profile[a:b]))
                if profile[i] > 0.25 * strong:
                    found[band, j] = i
        out.append(found)
    return out[0], out[1]
