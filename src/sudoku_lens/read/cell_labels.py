"""Photos labelled cell by cell, in the layout of A. Kubiesa's puzzle-book set.

A folder holds `images/NAME.jpg`, `labels/NAME.txt` (9 rows of 9 integers, the puzzle upright:
0 nothing, 1-9 a digit, printed or entered, 10 pencilled candidates), `metadata.csv` (per photo
its puzzle, the phone and the grid's four corners in pixels) and, optionally, `candidates.tsv`
(for each cell labelled 10, which digits are pencilled there: `name`, `cell` as `r9c3`, `digits`
as `23`). The four photos of a puzzle are near copies, so the split for validation is by puzzle
(`is_validation_puzzle`); evaluation and training both read the folder through this module, so
they agree on labels and split.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from sudoku_lens.read.dataset import SPLITS, DatasetError

CANDIDATES_LABEL = 10
"""The label of a cell that holds pencilled candidates rather than a digit."""

CORNER_COLUMNS = ("topleft", "topright", "bottomright", "bottomleft")
"""metadata.csv's corner columns (`x_topleft_absolute`, ...) in the order of `Reading.corners`."""


@dataclass(frozen=True)
class LabelledPhoto:
    """One photo of a cell-labelled folder, with what is known of it."""

    path: Path
    """The photo."""
    puzzle: str
    """The puzzle it shows (`MM_DD`): the photos of one puzzle share their labels."""
    labels: np.ndarray
    """(9, 9) uint8 per upright cell: 0 nothing, 1-9 a digit, CANDIDATES_LABEL candidates."""
    corners: np.ndarray | None
    """(4, 2) float32 grid corners in the photo's pixels, top-left, top-right, bottom-right,
    bottom-left of the upright puzzle; None when metadata.csv does not give them."""
    candidates: dict[tuple[int, int], tuple[int, ...]] | None
    """For each (row, column) labelled CANDIDATES_LABEL, its pencilled digits, sorted; None when
    the folder has no candidates.tsv."""

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def digits(self) -> np.ndarray:
        """(9, 9) uint8 the digits only, 0 for empty and candidate cells."""
        return np.where(self.labels == CANDIDATES_LABEL, 0, self.labels).astype(np.uint8)


def is_labelled_folder(folder: str | Path) -> bool:
    """Whether `folder` is laid out as a cell-labelled set (`images/` and `labels/`)."""
    folder = Path(folder)
    return (folder / "images").is_dir() and (folder / "labels").is_dir()


def is_validation_puzzle(puzzle: str, puzzles: list[str]) -> bool:
    """The project's split of a cell-labelled folder: of its puzzles sorted, every fifth from the
    first (indices 0, 5, 10, ...) is kept for validation, with all its photos."""
    return sorted(set(puzzles)).index(puzzle) % 5 == 0


def read_labels(path: str | Path) -> np.ndarray:
    """The (9, 9) uint8 labels of a labels/NAME.txt file: 9 rows of 9 integers from 0 to 10."""
    path = Path(path)
    try:
        rows = [line.split() for line in path.read_text(encoding="utf-8").splitlines()]
    except (OSError, UnicodeDecodeError) as exc:
        raise DatasetError(f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}") from None
    rows = [row for row in rows if row]
    if len(rows) != 9 or any(len(row) != 9 or not all(v.isdigit() for v in row) for row in rows):
        raise DatasetError(f"{path}: expected 9 rows of 9 integers from 0 to 10")
    labels = np.array(rows, dtype=np.int64)
    if labels.max() > CANDIDATES_LABEL:
        raise DatasetError(f"{path}: expected 9 rows of 9 integers from 0 to 10")
    return labels.astype(np.uint8)


def load_labelled_folder(
    folder: str | Path, split: str = "all", limit: int | None = None
) -> list[LabelledPhoto]:
    """The photos of a cell-labelled folder in `split` (all, val or train: see
    `is_validation_puzzle`), sorted by name, the first `limit` of them when given. Raises
    DatasetError for a folder not so laid out or a label file that cannot be used."""
    if split not in SPLITS:
        raise DatasetError(f"unknown split {split!r}: use one of {', '.join(SPLITS)}")
    folder = Path(folder)
    if not is_labelled_folder(folder):
        raise DatasetError(f"{folder} has no images/ and labels/ folders")
    metadata = _metadata(folder / "metadata.csv")
    candidates = _candidates(folder / "candidates.tsv")
    photos = []
    for label_file in sorted((folder / "labels").glob("*.txt")):
        image = _image_of(folder / "images", label_file.stem)
        if image is None:
            continue
        row = metadata.get(image.name, {})
        labels = read_labels(label_file)
        photos.append(
            LabelledPhoto(
                path=image,
                puzzle=row.get("Puzzle") or image.stem,
                labels=labels,
                corners=_corners(row),
                candidates=None if candidates is None else _cells_of(candidates, image, labels),
            )
        )
    if not photos:
        raise DatasetError(f"{folder}/labels holds no labels of a photo in {folder}/images")
    puzzles = [photo.puzzle for photo in photos]
    if split != "all":
        photos = [
            photo
            for photo in photos
            if is_validation_puzzle(photo.puzzle, puzzles) == (split == "val")
        ]
    return photos[:limit] if limit is not None else photos


def _image_of(images: Path, stem: str) -> Path | None:
    """The photo of `images` named `stem` with any ending, or None."""
    matches = sorted(path for path in images.glob(f"{stem}.*") if path.is_file())
    return matches[0] if matches else None


def _metadata(path: Path) -> dict[str, dict[str, str]]:
    """metadata.csv's rows by photo name (empty when there is no such file)."""
    if not path.is_file():
        return {}
    with path.open(newline="", encoding="utf-8") as file:
        return {row["Name"]: row for row in csv.DictReader(file) if row.get("Name")}


def _corners(row: dict[str, str]) -> np.ndarray | None:
    """The grid corners of a metadata row, in pixels, or None when it has none."""
    try:
        points = [
            [float(row[f"x_{corner}_absolute"]), float(row[f"y_{corner}_absolute"])]
            for corner in CORNER_COLUMNS
        ]
    except (KeyError, TypeError, ValueError):
        return None
    return np.array(points, dtype=np.float32)


def _candidates(path: Path) -> dict[tuple[str, str], tuple[int, ...]] | None:
    """candidates.tsv's digits by (photo name, cell name), or None when there is no such file."""
    if not path.is_file():
        return None
    with path.open(newline="", encoding="utf-8") as file:
        rows = list(csv.DictReader(file, delimiter="\t"))
    table = {}
    for row in rows:
        digits = (row.get("digits") or "").strip()
        if not digits.isdigit() or "0" in digits:
            raise DatasetError(f"{path}: {row.get('cell')} of {row.get('name')}: bad digits")
        table[(row["name"], row["cell"].strip().lower())] = tuple(sorted(map(int, digits)))
    return table


def _cells_of(
    table: dict[tuple[str, str], tuple[int, ...]], image: Path, labels: np.ndarray
) -> dict[tuple[int, int], tuple[int, ...]]:
    """The candidate digits of `image`'s cells labelled CANDIDATES_LABEL, by (row, column);
    a cell the table does not list has ()."""
    cells = {}
    for row, column in zip(*np.nonzero(labels == CANDIDATES_LABEL), strict=True):
        name = f"r{row + 1}c{column + 1}"
        cells[(int(row), int(column))] = table.get((image.name, name), ())
    return cells
