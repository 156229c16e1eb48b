"""No false alarm on real pencil: photos whose entries and candidates all agree with the answer.

Reads a folder laid out as kubiesa-train is (`images/`, `labels/` with 10 for a cell of
candidates, `metadata.csv`, optional `candidates.tsv`: the digits pencilled per cell), solves
each photo with `solve_photo` and counts the photos on which a wrong entry or candidates that
leave out the answer are reported: every one is a false alarm, as the set's pencil marks all
agree with its answers. Also reported: the photos solved, the labelled cells of candidates read
as notes, and those whose candidates were read exactly (where `candidates.tsv` gives them).

`--split` follows the project's rule for this set: the 20 puzzle ids sorted, every 5th from the
first is validation (4 puzzles, 16 photos), the rest train.

    python benchmarks/candidate_alarms.py ../shared/data/kubiesa-train --split val
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
import csv
import time
from pathlib import Path

import numpy as np

from sudoku_lens.errors import SudokuLensError
from sudoku_lens.pipeline import solve_photo
from sudoku_lens.read.kinds import NOTES
from sudoku_lens.solve import Status

CANDIDATES_LABEL = 10
"""The label of a cell of candidates in the set's `labels/` files."""


def photos_of(folder: Path, split: str) -> list[str]:
    """The photo names of `split` ("val", "train" or "all"), by the project's puzzle rule."""
    with (folder / "metadata.csv").open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    puzzles = sorted({row["Puzzle"] for row in rows})
    validation = set(puzzles[::5])
    return sorted(
        row["Name"]
        for row in rows
        if split == "all" or (row["Puzzle"] in validation) == (split == "val")
    )


def pencilled(folder: Path) -> dict[tuple[str, int], tuple[int, ...]]:
    """(photo name, cell 0-80) -> the digits pencilled there, from `candidates.tsv`."""
    path = folder / "candidates.tsv"
    if not path.exists():
        return {}
    out = {}
    with path.open(newline="") as fh:
        for row in csv.DictReader(fh, delimiter="\t"):
            name = row["cell"]
            cell = (int(name[1]) - 1) * 9 + int(name[3]) - 1
            out[(row["name"], cell)] = tuple(sorted(int(d) for d in row["digits"]))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path, help="a folder laid out as kubiesa-train")
    parser.add_argument("--split", choices=("val", "train", "all"), default="val")
    args = parser.parse_args()
    names = photos_of(args.folder, args.split)
    truth = pencilled(args.folder)
    solved = refused = wrong_entry_photos = wrong_candidate_photos = 0
    cells = as_notes = exact = with_digits = 0
    alarms: list[str] = []
    start = time.perf_counter()
    for name in names:
        labels = np.loadtxt(args.folder / "labels" / f"{Path(name).stem}.txt", dtype=int)
        try:
            result = solve_photo(args.folder / "images" / name)
        except SudokuLensError:
            refused += 1
            continue
        solved += result.status is Status.SOLVED
        wrong_entry_photos += bool(result.wrong_entries)
        wrong_candidate_photos += bool(result.wrong_candidates)
        if result.wrong_candidates:
            alarms.append(f"{name}: " + ", ".join(c.message for c in result.wrong_candidates))
        for index in np.flatnonzero(labels.ravel() == CANDIDATES_LABEL):
            r, c = divmod(int(index), 9)
            cells += 1
            as_notes += result.reading.kinds[r, c] == NOTES
            if (name, int(index)) in truth:
                with_digits += 1
                exact += result.reading.candidates[r][c] == truth[(name, int(index))]
    seconds = time.perf_counter() - start

    def share(part: int, whole: int) -> str:
        return f"{100 * part / whole:.1f}%" if whole else "n/a"

    print(
        f"{len(names)} photos ({args.split}), {seconds:.1f} s: solved {solved}, refused {refused}"
    )
    print(
        f"photos with candidates reported leaving out the answer: {wrong_candidate_photos} "
        f"(false alarms: the set's candidates all hold the answer); with a wrong entry "
        f"reported: {wrong_entry_photos}"
    )
    print(
        f"cells of candidates read as notes: {as_notes}/{cells} ({share(as_notes, cells)}); "
        f"candidates read exactly: {exact}/{with_digits} ({share(exact, with_digits)})"
    )
    for line in alarms:
        print(f"  {line}")


if __name__ == "__main__":
    main()
