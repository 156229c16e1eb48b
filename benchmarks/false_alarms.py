"""No false alarms: on photos of grids filled in by hand whose entries are all right, how many
photos does `solve_photo` report with a wrong entry, or with candidates that leave out the answer?

In the dataset's `mixed/` photos every handwritten entry is the solution's digit, so every
entry reported wrong is a false alarm: a misread that the reader was sure of (probability of
at least `UNSURE_BELOW`, and `WRONG_ODDS` times the solution's digit's or more). Also counted:
the photos whose givens were solved, the entries reported unsure, and the photos on which some
cell's pencilled candidates are reported to leave out the answer. The photos with a false alarm
or no unique solution are listed.

    python benchmarks/false_alarms.py ../shared/data/wicht-v2-train/mixed --split val
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
import time
from pathlib import Path

from sudoku_lens.errors import SudokuLensError
from sudoku_lens.pipeline import RIGHT_FROM, UNSURE_BELOW, WRONG_ODDS, solve_photo
from sudoku_lens.read.dataset import SPLITS
from sudoku_lens.read.evaluate import list_photos
from sudoku_lens.read.kinds import HANDWRITTEN
from sudoku_lens.solve import Status


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("photos", type=Path, help="folder of hand-filled photos with .dat files")
    parser.add_argument("--split", choices=SPLITS, default="val", help="photos to use")
    args = parser.parse_args()
    photos = list_photos(args.photos, args.split)
    if not photos:
        raise SystemExit(f"{args.photos}: no labelled photos in split {args.split!r}")
    clean = solved = unsure = entries = candidate_alarms = 0
    start = time.perf_counter()
    for path in photos:
        try:
            result = solve_photo(path)
        except SudokuLensError as exc:
            print(f"  {path.name}: {exc}")
            continue
        solved += result.status is Status.SOLVED
        clean += not result.wrong_entries
        candidate_alarms += bool(result.wrong_candidates)
        unsure += len(result.unsure_entries)
        entries += int((result.reading.kinds == HANDWRITTEN).sum())
        if result.wrong_entries or result.wrong_candidates or result.status is not Status.SOLVED:
            alarms = "".join(
                f"; r{e.cell[0] + 1}c{e.cell[1] + 1} read as {e.written} "
                f"({result.reading.probabilities[(*e.cell, e.written)]:.2f})"
                for e in result.wrong_entries
            )
            alarms += "".join(f"; {cell.message}" for cell in result.wrong_candidates)
            print(f"  {path.name}: {result.status.value}{alarms}")
    seconds = time.perf_counter() - start
    print(
        f"{len(photos)} photos ({args.split}), {seconds:.1f} s, unsure below {UNSURE_BELOW} "
        f"or at odds under {WRONG_ODDS:g} to the solution's digit (right from {RIGHT_FROM} on "
        "it): "
        f"no entry reported wrong on {clean}, givens solved on {solved}, "
        f"{unsure} of {entries} entries read unsure; candidates reported to leave out the "
        f"answer on {candidate_alarms}"
    )


if __name__ == "__main__":
    main()
