"""No false alarm on real pencil: photos whose entries and candidates all agree with the answer.

Reads a folder laid out as kubiesa-train is (`images/`, `labels/` with 10 for a cell of
candidates, `metadata.csv`, optional `candidates.tsv`: the digits pencilled per cell), solves
each photo with `solve_photo` and counts the photos on which a wrong entry or candidates that
leave out the answer are reported: every one is a false alarm, as the set's pencil marks all
agree with its answers. Also reported: the photos solved, the labelled cells of candidates read
as notes, and those whose candidates were read exactly (where `candidates.tsv` gives them);
then each photo with an alarm, and what it says.

`--split` follows the project's rule for this set (`read.cell_labels.is_validation_puzzle`): the
puzzles sorted, every 5th from the first is validation (4 puzzles, 16 photos), the rest train.

    python benchmarks/candidate_alarms.py ../shared/data/kubiesa-train --split val
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
import time
from pathlib import Path

from check import share
from sudoku_lens.errors import SudokuLensError
from sudoku_lens.pipeline import solve_photo
from sudoku_lens.read.cell_labels import CANDIDATES_LABEL, load_labelled_folder
from sudoku_lens.read.dataset import SPLITS
from sudoku_lens.read.kinds import NOTES
from sudoku_lens.solve import Status


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path, help="a folder laid out as kubiesa-train")
    parser.add_argument("--split", choices=SPLITS, default="val")
    args = parser.parse_args()
    photos = load_labelled_folder(args.folder, args.split)
    solved = refused = wrong_entry_photos = wrong_candidate_photos = 0
    cells = as_notes = exact = with_digits = 0
    alarms: list[str] = []
    start = time.perf_counter()
    for photo in photos:
        try:
            result = solve_photo(photo.path)
        except SudokuLensError:
            refused += 1
            continue
        solved += result.status is Status.SOLVED
        wrong_entry_photos += bool(result.wrong_entries)
        wrong_candidate_photos += bool(result.wrong_candidates)
        if result.wrong_candidates or result.wrong_entries:
            messages = [c.message for c in result.wrong_candidates] + [
                f"{e.name}: entry {e.written} read, the answer {e.expected}"
                for e in result.wrong_entries
            ]
            alarms.append(f"{photo.name}: " + ", ".join(messages))
        for r, c in zip(*(photo.labels == CANDIDATES_LABEL).nonzero(), strict=True):
            cells += 1
            as_notes += result.reading.kinds[r, c] == NOTES
            if photo.candidates is not None and (int(r), int(c)) in photo.candidates:
                with_digits += 1
                exact += result.reading.candidates[r][c] == photo.candidates[(int(r), int(c))]
    seconds = time.perf_counter() - start

    print(
        f"{len(photos)} photos ({args.split}), {seconds:.1f} s: solved {solved}, refused {refused}"
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
