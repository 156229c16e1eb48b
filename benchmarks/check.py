"""Checking the person's entries on generated photos with planted mistakes.

For each seed a hand-filled photo is generated (`synth_filled_photo`: pen entries, pencil notes,
`--mistakes` planted wrong entries, exact truth), read, and checked by `answer_reading`. Reported:
the share of planted mistakes reported wrong with the right digit expected (target >= 95%), the
share of right entries reported wrong or unsure (target <= 1%), the share of right entries
reported wrong alone, how many photos had their givens solved, and where the mistakes not
reported wrong went (`MISSED`: givens not solved or solved to another answer, the entry unsure,
not taken for an entry, or read as the right digit). A sweep shows the same two
shares for other unsure thresholds (`UNSURE_BELOW`; entries whose cells give the solution's digit
`RIGHT_FROM` or more are right throughout), to retune it when the digit model changes.

`--kinds truth` (the default) takes each cell's kind from the generator, as certain, and
everything else (digits, probabilities) from the reader: the check alone; `--kinds reader` uses
the reader's own kinds and their probabilities: the whole thing, as a user gets it.

    python benchmarks/check.py --seeds 40
    python benchmarks/check.py --seeds 40 --kinds reader
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
import time

import numpy as np

from sudoku_lens.errors import SudokuLensError
from sudoku_lens.pipeline import RIGHT_FROM, UNSURE_BELOW, Answer, answer_reading
from sudoku_lens.read.kinds import HANDWRITTEN
from sudoku_lens.read.reader import read_image
from sudoku_lens.solve import Status
from sudoku_lens.synth.handwriting import synth_filled_photo
from sudoku_lens.train.fonts import find_handwriting_fonts

THRESHOLDS = (0.3, 0.5, 0.6, 0.7, 0.8, 0.9)


MISSED = (
    "givens not solved",
    "givens solved to another answer",
    "unsure",
    "not read as an entry",
    "read as the right digit",
)
"""Where a planted mistake that is not reported wrong went."""


def _why_missed(answer: Answer, cell: tuple[int, int], unsure: set[tuple[int, int]]) -> str:
    """Which of MISSED explains a planted mistake in `cell` of a solved photo not reported
    wrong: an entry neither unsure nor wrong holds the solution's digit."""
    if cell in unsure:
        return "unsure"
    if not answer.entries[cell]:
        return "not read as an entry"
    return "read as the right digit"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=40, help="photos to generate (default 40)")
    parser.add_argument(
        "--first",
        type=int,
        default=20001,
        help="first seed (default 20001: the kinds model's training photos use seeds 0-479)",
    )
    parser.add_argument("--mistakes", type=int, default=3, help="wrong entries per photo")
    parser.add_argument("--difficulty", default="medium", choices=("easy", "medium", "hard"))
    parser.add_argument(
        "--kinds",
        choices=("truth", "reader"),
        default="truth",
        help="cell kinds from the generator (default) or from the reader",
    )
    args = parser.parse_args()
    fonts = [str(path) for path in find_handwriting_fonts()]

    caught = planted = flagged = wrongly = right_entries = solved = lost = 0
    missed = dict.fromkeys(MISSED, 0)
    sweep = {t: [0, 0] for t in THRESHOLDS}  # threshold -> [mistakes caught, right flagged]
    start = time.perf_counter()
    for seed in range(args.first, args.first + args.seeds):
        sample = synth_filled_photo(seed, args.difficulty, mistakes=args.mistakes, font_files=fonts)
        try:
            reading = read_image(sample.photo.image)
        except SudokuLensError:
            lost += 1
            continue
        if args.kinds == "truth":
            reading = reading.with_kinds(sample.filled.kinds)
        answer = answer_reading(reading)
        truth = sample.filled
        hand = truth.kinds == HANDWRITTEN
        planted += int(truth.mistakes.sum())
        right = hand & ~truth.mistakes
        right_entries += int(right.sum())
        if answer.status is not Status.SOLVED or answer.solution is None:
            missed["givens not solved"] += int(truth.mistakes.sum())
            continue
        solved += 1
        solution = sample.photo.solution
        reported = {entry.cell: entry for entry in answer.wrong_entries}
        unsure = {entry.cell for entry in answer.unsure_entries}
        for r, c in np.argwhere(truth.mistakes):
            entry = reported.get((int(r), int(c)))
            caught += entry is not None and entry.expected == int(solution[r, c])
            if entry is None:
                missed[_why_missed(answer, (int(r), int(c)), unsure)] += 1
            elif entry.expected != int(solution[r, c]):
                missed["givens solved to another answer"] += 1
        for r, c in np.argwhere(right):
            cell = (int(r), int(c))
            flagged += cell in reported or cell in unsure
            wrongly += cell in reported
        written = answer.entries
        probability = np.take_along_axis(reading.probabilities, written[..., None], 2)[..., 0]
        chance = np.take_along_axis(reading.probabilities, solution[..., None], 2)[..., 0]
        checked = (written > 0) & (chance < RIGHT_FROM)
        for threshold in THRESHOLDS:
            sure = checked & (probability >= threshold)
            differs = sure & (written != solution)
            sweep[threshold][0] += int((differs & truth.mistakes).sum())
            sweep[threshold][1] += int((right & (checked & ~sure | differs)).sum())
    seconds = time.perf_counter() - start

    def share(part: int, whole: int) -> str:
        return f"{100 * part / whole:.1f}%" if whole else "n/a"

    print(
        f"{args.seeds} photos ({args.difficulty}, kinds from the {args.kinds}), "
        f"{seconds:.1f} s: givens solved on {solved}, grid lost on {lost}"
    )
    print(
        f"mistakes reported wrong with the right digit: {caught}/{planted} "
        f"({share(caught, planted)}; target >= 95%)"
    )
    print(
        f"right entries reported wrong or unsure: {flagged}/{right_entries} "
        f"({share(flagged, right_entries)}; target <= 1%), wrong alone: {wrongly} "
        f"({share(wrongly, right_entries)})"
    )
    print("mistakes not reported wrong: " + ", ".join(f"{why} {n}" for why, n in missed.items()))
    print(f"unsure threshold sweep (in use: {UNSURE_BELOW}):")
    for threshold, (hit, noise) in sweep.items():
        print(
            f"  {threshold:.2f}: mistakes caught {share(hit, planted)}, "
            f"right entries flagged {share(noise, right_entries)}"
        )


if __name__ == "__main__":
    main()
