"""Labelled cells cut from the real photos of the Wicht & Hennebert dataset (CC-BY-4.0).

Training cells are cut by the reader's own code, so the model learns from cells cut as the ones it
will read: a photo's lattice of grid-line crossings is the one the reader's grid finder traces
(`locate_grid`), unless outlines.csv lists the photo and the finder's corners disagree with it
(it took something else for the grid), in which case the lattice is spread evenly between the
outline's corners.
`cut_cells` cuts along that lattice with `cut_grid`, from the colour photo, which also gives each
cell's ink colour for `prepare_cells`; with a random generator the lattice is jittered first, so
that training also sees cuts that are a little off. Labels come from the photo's .dat, which is
upright; the photo's own rotation is found by the caller (see `sudoku_lens.train.pipeline`).
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from sudoku_lens.errors import GridNotFoundError, SudokuLensError
from sudoku_lens.read.dataset import is_validation, kind_labels, read_dat
from sudoku_lens.read.grid import GridLocation, cut_grid, locate_grid

CORNER_KEYS = ("top_left", "top_right", "bottom_right", "bottom_left")

MAX_CORNER_GAP = 1 / 9
"""Largest distance, as a share of the outline's shortest side (a cell), between a corner the
grid finder traced and the same corner in outlines.csv for the finder's lattice to be used.
Further off, the finder has taken something else for the grid and its cells would not match the
labels; closer, its traced lines are the better cut (the outlines miss by up to half a cell where
a grid runs off the photo or text is printed along its edge)."""

CORNER_JITTER = 0.004
"""Standard deviation of the jitter of each grid corner, as a share of the grid's side."""

CROSSING_JITTER = 0.04
"""Standard deviation of the jitter of each line crossing, as a share of a cell's side."""


@dataclass(frozen=True)
class Photo:
    """One labelled photo: its grid's line crossings (image coordinates) and upright labels."""

    path: Path
    number: int
    lattice: np.ndarray
    """(10, 10, 2) float32 image coordinates where grid line i (row) meets line j (column)."""
    labels: np.ndarray

    @property
    def corners(self) -> np.ndarray:
        """(4, 2) float32 outer corners of the lattice, image order TL, TR, BR, BL."""
        return np.array(
            [self.lattice[0, 0], self.lattice[0, 9], self.lattice[9, 9], self.lattice[9, 0]],
            np.float32,
        )

    @property
    def validation(self) -> bool:
        """Whether the team's fixed split keeps this photo for validation (`is_validation`)."""
        return is_validation(self.number)

    def read_image(self) -> np.ndarray:
        """The photo as OpenCV decodes it by default (BGR, EXIF orientation applied, as the
        outlines' coordinates are)."""
        image = cv2.imread(str(self.path), cv2.IMREAD_COLOR)
        if image is None:
            raise SudokuLensError(f"{self.path}: cannot be read as an image")
        return image


def load_photos(root: Path, kind: str = "printed") -> list[Photo]:
    """Return the labelled photos of `root/kind` (printed or mixed), by number.

    Each photo's lattice is the one the reader's grid finder traces, or the even lattice between
    the corners `root/outlines.csv` gives where the finder fails or disagrees with them (see
    `grid_lattice`); a photo with neither, or without a .dat, is left out.
    """
    table = root / "outlines.csv"
    if not table.is_file():
        raise SudokuLensError(
            f"{table} not found: --data must be a folder of labelled photos (printed/, mixed/, "
            "outlines.csv)"
        )
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
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            continue
        lattice = grid_lattice(image, outlines.get(f"{kind}/{path.name}"))
        if lattice is not None:
            photos.append(
                Photo(path, int(match.group(1)), lattice, read_dat(path.with_suffix(".dat")))
            )
    photos.sort(key=lambda p: p.number)
    return photos


def grid_lattice(image: np.ndarray, outline: np.ndarray | None) -> np.ndarray | None:
    """The (10, 10, 2) lattice to cut a photo's cells along, or None when there is none.

    The reader's own lattice (`locate_grid`) when it finds a grid whose corners are all within
    MAX_CORNER_GAP of the shortest side of `outline` (or when there is no outline); otherwise
    the even lattice between the outline's corners (TL, TR, BR, BL), if given.
    """
    try:
        found = locate_grid(image).lattice
    except GridNotFoundError:
        found = None
    if outline is None:
        return found
    outline = np.asarray(outline, np.float32)
    if found is not None:
        corners = np.array([found[0, 0], found[0, 9], found[9, 9], found[9, 0]], np.float32)
        sides = np.linalg.norm(outline - np.roll(outline, 1, axis=0), axis=1)
        gap = np.linalg.norm(corners - outline, axis=1).max()
        if gap <= MAX_CORNER_GAP * sides.min():
            return found
    return even_lattice(outline)


def even_lattice(corners: np.ndarray) -> np.ndarray:
    """The (10, 10, 2) crossings of ten evenly spaced lines each way between four corners (TL, TR,
    BR, BL), under the perspective the corners imply."""
    unit = np.float32([[0, 0], [9, 0], [9, 9], [0, 9]])
    to_image = cv2.getPerspectiveTransform(unit, np.asarray(corners, np.float32))
    steps = np.arange(10, dtype=np.float32)
    grid = np.stack(np.meshgrid(steps, steps), axis=2).reshape(-1, 1, 2)
    return cv2.perspectiveTransform(grid, to_image).reshape(10, 10, 2).astype(np.float32)


def jitter_lattice(lattice: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A lattice a little off, as a grid finder's may be: the grid's corners moved by
    CORNER_JITTER of its side (the whole lattice following them in perspective), then each
    crossing by CROSSING_JITTER of a cell."""
    lattice = np.asarray(lattice, np.float32)
    corners = np.array([lattice[0, 0], lattice[0, 9], lattice[9, 9], lattice[9, 0]], np.float32)
    side = float(np.linalg.norm(corners - np.roll(corners, 1, axis=0), axis=1).mean())
    moved = corners + rng.normal(0.0, CORNER_JITTER * side, (4, 2)).astype(np.float32)
    warp = cv2.getPerspectiveTransform(corners, moved)
    out = cv2.perspectiveTransform(lattice.reshape(-1, 1, 2), warp).reshape(10, 10, 2)
    out += rng.normal(0.0, CROSSING_JITTER * side / 9, out.shape)
    return out.astype(np.float32)


def cut_cells(
    image: np.ndarray, photo: Photo, rng: np.random.Generator | None = None
) -> GridLocation:
    """The photo's 81 cells as the reader cuts them (`cut_grid` along its lattice), in image
    orientation, with each cell's ink colour; along a jittered lattice when `rng` is given."""
    lattice = photo.lattice if rng is None else jitter_lattice(photo.lattice, rng)
    return cut_grid(image, lattice)


def photo_kinds(root: Path, photo: Photo) -> np.ndarray | None:
    """Kind labels (9x9, see `read.kinds`) of a photo of the dataset at `root`: every digit
    printed in printed/; in mixed/, printed where printed/'s .dat of the same photo has a digit
    and handwritten elsewhere (None where that file is missing)."""
    if photo.path.parent.name == "printed":
        return kind_labels(photo.labels, None)
    givens = Path(root) / "printed" / photo.path.with_suffix(".dat").name
    return kind_labels(photo.labels, read_dat(givens)) if givens.is_file() else None
