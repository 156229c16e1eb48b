"""The labelled photo dataset (Wicht & Hennebert's format): .dat files, kinds, validation split.

A photo `imageN.jpg` comes with `imageN.dat`: line 1 the phone, line 2 the image format, then 9
lines of 9 space-separated digits, 0 for an empty cell, in the puzzle's upright orientation. In a
folder of puzzles completed by hand (`mixed/`), a cell is printed exactly where the same N's .dat
in the printed-only folder (`printed/`) has a digit, and handwritten elsewhere. Photo N belongs
to the validation split iff N % 5 == 0; training never sees it. Evaluation and training both
read the data through this module, so they agree on labels and split.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from sudoku_lens.errors import SudokuLensError
from sudoku_lens.read.kinds import EMPTY, HANDWRITTEN, PRINTED

SPLITS = ("all", "val", "train")


class DatasetError(SudokuLensError, ValueError):
    """A label file that cannot be used: missing, unreadable or malformed."""


def read_dat(path: str | Path) -> np.ndarray:
    """The 9x9 uint8 digits (0 = empty) of a .dat file: two header lines, then 9 rows of 9."""
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError as exc:
        raise DatasetError(f"cannot read {path}: {exc.strerror or exc}") from None
    rows = [line.split() for line in lines[2:11]]
    if len(rows) != 9 or any(len(row) != 9 or not all(v.isdigit() for v in row) for row in rows):
        raise DatasetError(f"{path}: expected 9 rows of 9 digits on lines 3-11")
    grid = np.array(rows, dtype=np.int64)
    if grid.max() > 9:
        raise DatasetError(f"{path}: expected 9 rows of 9 digits on lines 3-11")
    return grid.astype(np.uint8)


def grid_text(grid: np.ndarray) -> str:
    """A 9x9 grid of digits as 81 characters, row by row, '0' for an empty cell."""
    return "".join(str(int(v)) for v in np.asarray(grid).ravel())


def photo_number(path: str | Path) -> int | None:
    """N of a photo named like imageN.jpg (the last number in its name), or None."""
    numbers = re.findall(r"\d+", Path(path).stem)
    return int(numbers[-1]) if numbers else None


def is_validation(number: int) -> bool:
    """The team's fixed split: photo N is kept for validation iff N % 5 == 0."""
    return number % 5 == 0


def in_split(path: str | Path, split: str) -> bool:
    """Whether a photo belongs to `split`: all, val (validation numbers) or train (the others)."""
    if split not in SPLITS:
        raise DatasetError(f"unknown split {split!r}: use one of {', '.join(SPLITS)}")
    if split == "all":
        return True
    number = photo_number(path)
    if number is None:
        return False
    return is_validation(number) == (split == "val")


def kind_labels(digits: np.ndarray, printed: np.ndarray | None) -> np.ndarray:
    """Kinds (9x9 int64, see `read.kinds`) of a photo's cells from its digits and printed givens.

    `printed` is the printed-only grid of the same puzzle (None: every digit is printed). A cell
    with a printed given is printed; any other digit is handwritten; the rest is empty.
    """
    digits = np.asarray(digits).reshape(9, 9)
    kinds = np.where(digits > 0, HANDWRITTEN if printed is not None else PRINTED, EMPTY)
    if printed is not None:
        kinds[np.asarray(printed).reshape(9, 9) > 0] = PRINTED
    return kinds.astype(np.int64)


def givens_path(photo: str | Path, givens_dir: str | Path) -> Path:
    """The printed-only .dat of `photo` in `givens_dir` (same file name, .dat suffix)."""
    return Path(givens_dir) / Path(photo).with_suffix(".dat").name


def photo_kinds(photo: str | Path, givens_dir: str | Path | None) -> np.ndarray | None:
    """Kinds of a labelled photo's cells: from its own .dat and, with `givens_dir`, the printed
    givens there. None when `givens_dir` is given but holds no .dat for this photo."""
    digits = read_dat(Path(photo).with_suffix(".dat"))
    if givens_dir is None:
        return kind_labels(digits, None)
    printed = givens_path(photo, givens_dir)
    if not printed.is_file():
        return None
    return kind_labels(digits, read_dat(printed))
