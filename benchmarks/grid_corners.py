"""Whether the grid found is the whole grid: corners read against a labelled set's own corners.

For every photo of a cell-labelled folder (A. Kubiesa's puzzle-book layout: images/, labels/,
metadata.csv with the grid's corners; see `sudoku_lens.read.cell_labels`) it reads the photo and
measures how far each corner read lies from the set author's, as a share of the grid's side (the
mean of its four sides). A photo whose farthest corner is more than 5% off is not the whole grid
(one box of it, a neighbouring grid, the solution beside it); a refused photo counts as off. It
prints, per split (the project's split by puzzle: `is_validation_puzzle`), the median and the
largest error, how many photos are over 5%, how many were refused, the share of cells read as
labelled, and the median seconds a photo.

    python benchmarks/grid_corners.py ../shared/data/kubiesa-train
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
import statistics
import time
from pathlib import Path

import cv2
import numpy as np

from sudoku_lens.read.evaluate import CORNERS_FAR as OFF
from sudoku_lens.read.evaluate import corner_error


def measure(photo) -> tuple[float, float | None, float, str]:
    """(corner error, share of cells read as labelled, seconds, the error's text or '') of one
    labelled photo; a refused photo has an infinite error and no share."""
    from sudoku_lens.errors import SudokuLensError
    from sudoku_lens.read import read_photo
    from sudoku_lens.read.cell_labels import CANDIDATES_LABEL

    start = time.perf_counter()
    try:
        reading = read_photo(photo.path)
    except SudokuLensError as exc:
        return float("inf"), None, time.perf_counter() - start, str(exc)
    seconds = time.perf_counter() - start
    labels = np.where(photo.labels == CANDIDATES_LABEL, 0, photo.labels)
    right = float((reading.grid == labels).mean())
    return corner_error(reading.corners, photo.corners), right, seconds, ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path, help="a cell-labelled folder with metadata.csv")
    parser.add_argument("--verbose", action="store_true", help="a line for every photo")
    args = parser.parse_args()

    from sudoku_lens.read.cell_labels import load_labelled_folder

    cv2.setNumThreads(1)
    for split in ("val", "train"):
        photos = [p for p in load_labelled_folder(args.folder, split) if p.corners is not None]
        errors, rights, seconds = [], [], []
        for photo in photos:
            error, right, took, message = measure(photo)
            errors.append(error)
            seconds.append(took)
            if right is not None:
                rights.append(right)
            if args.verbose or error > OFF:
                shown = message or (f"{right:.3f} of cells as labelled" if right else "")
                print(f"  {split} {photo.name}: corners {100 * error:.1f}% off  {shown}")
        refused = sum(1 for e in errors if e == float("inf"))
        median, largest = 100 * statistics.median(errors), 100 * max(errors)
        print(
            f"{split}: {len(photos)} photos; corner error median {median:.2f}%, max "
            f"{largest:.2f}%; over {100 * OFF:.0f}%: {sum(e > OFF for e in errors)}; "
            f"refused: {refused}; cells as labelled {100 * statistics.mean(rights or [0]):.2f}%; "
            f"median {statistics.median(seconds):.2f} s a photo"
        )


if __name__ == "__main__":
    main()
