"""Checking the person's entries on generated photos with planted mistakes.

For each seed a hand-filled photo is generated (`synth_filled_photo`: pen entries, pencil notes,
`--mistakes` planted wrong entries, exact truth), read, and checked by `answer_reading`. Reported:
the share of planted mistakes reported wrong with the right digit expected (target >= 95%), the
share of right entries reported wrong or unsure (target <= 1%), the share of right entries
reported wrong alone, how many photos had their givens solved, and where the mistakes not
reported wrong went (`MISSED`: givens not solved or solved to another answer, the entry unsure,
not taken for an entry, read as the right digit or taken for right), and the cells that hold no
entry (pencil notes, print or an empty cell read as one) reported wrong. A sweep shows the same
two shares and those other cells for other thresholds, `RIGHT_FROM` (an entry whose cell gives
the solution's digit that probability or more is right) against `WRONG_ODDS` (one whose digit
read is less than that many times as likely as the solution's is unsure; `UNSURE_BELOW` as in
use), to retune them when the digit model changes.

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
import sys
import time

import numpy as np

from sudoku_lens.errors import SudokuLensError
from sudoku_lens.pipeline import RIGHT_FROM, UNSURE_BELOW, WRONG_ODDS, Answer, answer_reading
from sudoku_lens.read.kinds import HANDWRITTEN
from sudoku_lens.read.reader import Reading, read_image
from sudoku_lens.solve import Status
from sudoku_lens.synth.handwriting import SyntheticFilledPhoto, synth_filled_photo
from sudoku_lens.train.fonts import HANDWRITING_PACKAGES, find_handwriting_fonts

ODDS_SWEEP = (1.0, 20.0, 33.0, 50.0, 70.0)
RIGHT_SWEEP = (0.05, 0.1, 0.2, 0.3, 0.5)


MISSED = (
    "givens not solved",
    "givens solved to another answer",
    "unsure",
    "not read as an entry",
    "read as the right digit",
    "taken for right",
)
"""Where a planted mistake that is not reported wrong went ("taken for right": read as another
digit, its cell giving the solution's digit `RIGHT_FROM` or more)."""


def _why_missed(
    answer: Answer, cell: tuple[int, int], unsure: set[tuple[int, int]], solution: np.ndarray
) -> str:
    """Which of MISSED explains a planted mistake in `cell` of a solved photo not reported
    wrong."""
    if cell in unsure:
        return "unsure"
    if not answer.entries[cell]:
        return "not read as an entry"
    if answer.entries[cell] == solution[cell]:
        return "read as the right digit"
    return "taken for right"


def add_generated_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of a benchmark on generated hand-filled photos: which seeds, how hard, and
    whose cell kinds."""
    parser.add_argument("--seeds", type=int, default=40, help="photos to generate (default 40)")
    parser.add_argument(
        "--first",
        type=int,
        default=20001,
        help="first seed (default 20001: the kinds model's training photos use seeds 0-479)",
    )
    parser.add_argument("--difficulty", default="medium", choices=("easy", "medium", "hard"))
    parser.add_argument(
        "--kinds",
        choices=("truth", "reader"),
        default="truth",
        help="cell kinds from the generator (default) or from the reader",
    )


def pen_fonts() -> list[str]:
    """The handwriting fonts installed, to draw pen entries with; a warning when there are none
    (the photos are then not those the documented figures were measured on)."""
    fonts = [str(path) for path in find_handwriting_fonts()]
    if not fonts:
        print(
            "warning: no handwriting fonts installed (Debian's "
            + " ".join(HANDWRITING_PACKAGES)
            + "): the pen entries are drawn with strokes alone, so the photos are not those "
            "the figures of docs/accuracy.md were measured on",
            file=sys.stderr,
        )
    return fonts


def read_generated(sample: SyntheticFilledPhoto, kinds: str) -> Reading | None:
    """The reading of a generated photo, its cells' kinds the generator's when `kinds` is
    "truth"; None when its grid is not found."""
    try:
        reading = read_image(sample.photo.image)
    except SudokuLensError:
        return None
    return reading.with_kinds(sample.filled.kinds) if kinds == "truth" else reading


def share(part: int, whole: int) -> str:
    """`part` of `whole` as a percentage with one decimal ("n/a" of nothing)."""
    return f"{100 * part / whole:.1f}%" if whole else "n/a"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_generated_arguments(parser)
    parser.add_argument("--mistakes", type=int, default=3, help="wrong entries per photo")
    args = parser.parse_args()
    fonts = pen_fonts()

    caught = planted = flagged = wrongly = right_entries = solved = lost = others = 0
    missed = dict.fromkeys(MISSED, 0)
    # (right from, wrong odds) -> [mistakes caught, right entries flagged, other cells wrong]
    sweep = {(rf, odds): [0, 0, 0] for rf in RIGHT_SWEEP for odds in ODDS_SWEEP}
    start = time.perf_counter()
    for seed in range(args.first, args.first + args.seeds):
        sample = synth_filled_photo(seed, args.difficulty, mistakes=args.mistakes, font_files=fonts)
        reading = read_generated(sample, args.kinds)
        if reading is None:
            lost += 1
            continue
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
                missed[_why_missed(answer, (int(r), int(c)), unsure, solution)] += 1
            elif entry.expected != int(solution[r, c]):
                missed["givens solved to another answer"] += 1
        for r, c in np.argwhere(right):
            cell = (int(r), int(c))
            flagged += cell in reported or cell in unsure
            wrongly += cell in reported
        others += sum(not hand[cell] for cell in reported)
        written = answer.entries
        probability = np.take_along_axis(reading.probabilities, written[..., None], 2)[..., 0]
        chance = np.take_along_axis(reading.probabilities, solution[..., None], 2)[..., 0]
        for (right_from, odds), counts in sweep.items():
            checked = (written > 0) & (chance < right_from)
            sure = checked & (probability >= UNSURE_BELOW) & (probability >= odds * chance)
            differs = sure & (written != solution)
            counts[0] += int((differs & truth.mistakes).sum())
            counts[1] += int((right & (checked & ~sure | differs)).sum())
            counts[2] += int((differs & ~hand).sum())
    seconds = time.perf_counter() - start

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
    print(f"cells holding no entry (notes, print, empty) reported wrong: {others}")
    print(
        f"threshold sweep (in use: right from {RIGHT_FROM}, wrong odds {WRONG_ODDS:g}, unsure "
        f"below {UNSURE_BELOW}): mistakes caught / right entries flagged / other cells wrong"
    )
    print("  right from  " + "".join(f"{f'wrong odds {odds:g}':>24}" for odds in ODDS_SWEEP))
    for right_from in RIGHT_SWEEP:
        cells = "".join(
            f"{f'{share(hit, planted)} / {share(noise, right_entries)} / {other}':>24}"
            for (rf, _), (hit, noise, other) in sweep.items()
            if rf == right_from
        )
        print(f"  {right_from:<10}  {cells}")


if __name__ == "__main__":
    main()
