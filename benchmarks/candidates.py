"""Checking the person's pencilled candidates on generated photos with planted wrong sets.

For each seed a hand-filled photo is generated (`synth_filled_photo`: pen entries, pencil notes
of two to four candidates, in a row at the top of the cell or each at its keypad place,
`--wrong-notes` of the cells of notes planted with candidates that leave out the answer, the
others holding it among theirs, exact truth), read, and
checked by `answer_reading`. Reported: the share of planted wrong candidate sets reported (target
>= 95%), the share of right candidate sets (two digits or more, the answer among them) reported
wrong, the photos with any right set reported, where the planted sets not reported went
(`MISSED`), both figures for other least sureness of the candidates checked than
`pipeline.CANDIDATES_SURE` (`SURE_SWEEP`), and how often the candidates read are the candidates
pencilled.

`--kinds truth` (the default) takes each cell's kind from the generator, as certain, and
everything else from the reader; `--kinds reader` uses the reader's own kinds: the whole thing,
as a user gets it. `--candidates truth` gives the cells of notes the candidates pencilled
instead of those read (the check alone).

    python benchmarks/candidates.py --seeds 40
    python benchmarks/candidates.py --seeds 40 --kinds reader
    python benchmarks/candidates.py --seeds 40 --candidates truth
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
import time

import numpy as np

from check import add_generated_arguments, pen_fonts, read_generated, share
from sudoku_lens.pipeline import (
    CANDIDATES_SURE,
    CHECKED_CANDIDATES,
    answer_reading,
    check_candidates,
)
from sudoku_lens.read.kinds import NOTES
from sudoku_lens.solve import Status
from sudoku_lens.synth.handwriting import synth_filled_photo

MISSED = (
    "givens not solved",
    "not read as notes",
    "no candidates read",
    "one candidate read",
    "read unsure",
    "the answer read among them",
)
"""Where a planted wrong candidate set that is not reported went."""

SURE_SWEEP = (0.5, 0.6, 0.7, 0.8, 0.9, 0.95)
"""Least sureness of candidates read for them to be checked, swept (CANDIDATES_SURE in use)."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_generated_arguments(parser)
    parser.add_argument(
        "--wrong-notes", type=int, default=3, help="cells of wrong candidates per photo"
    )
    parser.add_argument("--notes", type=float, default=0.3, help="share of free cells of notes")
    parser.add_argument(
        "--candidates",
        choices=("truth", "reader"),
        default="reader",
        help="candidates read (default) or pencilled (the generator's)",
    )
    args = parser.parse_args()
    fonts = pen_fonts()

    planted = caught = right_sets = flagged = alarmed = solved = lost = 0
    notes_cells = exact = read_any = 0
    missed = dict.fromkeys(MISSED, 0)
    sweep = {sure: [0, 0] for sure in SURE_SWEEP}  # planted sets caught, right sets flagged
    start = time.perf_counter()
    for seed in range(args.first, args.first + args.seeds):
        sample = synth_filled_photo(
            seed,
            args.difficulty,
            notes=args.notes,
            wrong_notes=args.wrong_notes,
            font_files=fonts,
        )
        truth = sample.filled
        wrong = truth.wrong_candidates
        reading = read_generated(sample, args.kinds)
        if reading is None:
            lost += 1
            continue
        for r, c in np.argwhere(truth.kinds == NOTES):
            notes_cells += 1
            read = reading.candidates[r][c]
            exact += read == truth.candidates[r][c]
            read_any += bool(read)
        given = truth.candidates if args.candidates == "truth" else None
        answer = answer_reading(reading, candidates=given)
        planted += int(wrong.sum())
        right = (
            np.array(
                [[len(cell) >= CHECKED_CANDIDATES for cell in row] for row in truth.candidates]
            )
            & ~wrong
        )
        right_sets += int(right.sum())
        if answer.status is not Status.SOLVED or answer.solution is None:
            missed["givens not solved"] += int(wrong.sum())
            continue
        solved += 1
        reported = {cell.cell for cell in answer.wrong_candidates}
        for r, c in np.argwhere(wrong):
            cell = (int(r), int(c))
            if cell in reported:
                caught += 1
            elif answer.kinds[cell] != NOTES:
                missed["not read as notes"] += 1
            elif not answer.candidates[r][c]:
                missed["no candidates read"] += 1
            elif len(answer.candidates[r][c]) < CHECKED_CANDIDATES:
                missed["one candidate read"] += 1
            elif given is None and reading.candidate_sureness[r, c] < CANDIDATES_SURE:
                missed["read unsure"] += 1
            else:
                missed["the answer read among them"] += 1
        false = sum((int(r), int(c)) in reported for r, c in np.argwhere(right))
        flagged += false
        for sure, counts in sweep.items():
            checked = reading.candidate_sureness >= sure if given is None else None
            at = {
                cell.cell for cell in check_candidates(answer.candidates, answer.solution, checked)
            }
            counts[0] += sum((int(r), int(c)) in at for r, c in np.argwhere(wrong))
            counts[1] += sum((int(r), int(c)) in at for r, c in np.argwhere(right))
        alarmed += bool(reported - {(int(r), int(c)) for r, c in np.argwhere(wrong)})
    seconds = time.perf_counter() - start

    print(
        f"{args.seeds} photos ({args.difficulty}, kinds from the {args.kinds}, candidates from "
        f"the {args.candidates}), "
        f"{seconds:.1f} s: givens solved on {solved}, grid lost on {lost}"
    )
    print(
        f"planted wrong candidate sets reported: {caught}/{planted} "
        f"({share(caught, planted)}; target >= 95%)"
    )
    print(
        f"right candidate sets (2+ digits, the answer among them) reported wrong: "
        f"{flagged}/{right_sets} ({share(flagged, right_sets)}); photos with a cell reported "
        f"that holds no planted wrong set: {alarmed}"
    )
    print("planted sets not reported: " + ", ".join(f"{why} {n}" for why, n in missed.items()))
    print(
        f"sureness sweep (in use: {CANDIDATES_SURE}): planted sets reported / right sets "
        "reported wrong: "
        + ", ".join(
            f"{sure}: {caught_at} / {flagged_at}" for sure, (caught_at, flagged_at) in sweep.items()
        )
    )
    print(
        f"cells of notes whose candidates were read exactly: {exact}/{notes_cells} "
        f"({share(exact, notes_cells)}), any read: {read_any} ({share(read_any, notes_cells)})"
    )


if __name__ == "__main__":
    main()
