"""Hand-filled grids: how well the reader tells print, pen and pencil notes apart (generated).

Generated photos: `sudoku_lens.synth.handwriting.synth_filled_photo(seed)` for the seeds given
(default 10001-10040; the kinds training uses seeds 0-479 and 900000-900039 for its report), each
pen in turn, pencil notes in 30% of the empty cells left, handwriting partly from the handwriting
fonts installed (`train.fonts.find_handwriting_fonts`, Pillow needed; pen strokes alone without),
read with `read_photo`. Reported: photos read, grids with every digit and every kind right, the
kinds accuracy and confusion, the pencil-note cells read as a digit (issue 9's target: under 1%),
and the handwritten entries read right (digit and kind), per pen.

`--style NAME` writes every entry in pen strokes of one handwriting style
(`sudoku_lens.synth.handwriting.HAND_STYLES`: the continental 1 and 7, open and closed 4, ...)
and reports the digits that style shapes read right, per pen (target: 99% of pen entries right
per style); `--style all` gives one line per style.

    python benchmarks/handwriting.py --seeds 10001-10040
    python benchmarks/handwriting.py --seeds 10001-10020 --style all
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
import sys

import cv2
import numpy as np

from sudoku_lens.errors import SudokuLensError
from sudoku_lens.read.kinds import HANDWRITTEN, KIND_NAMES, NOTES
from sudoku_lens.read.reader import read_photo
from sudoku_lens.synth.handwriting import HAND_STYLES, PENS, synth_filled_photo


def seed_range(text: str) -> range:
    """Seeds given as FIRST-LAST (inclusive) or a single number."""
    first, _, last = text.partition("-")
    try:
        return range(int(first), int(last or first) + 1)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seeds as FIRST-LAST, got {text!r}") from None


def handwriting_fonts() -> tuple[str, ...]:
    """The installed handwriting fonts, or none where Pillow (the 'train' extra) is missing."""
    try:
        from sudoku_lens.train.fonts import find_handwriting_fonts
    except ModuleNotFoundError:
        return ()
    return tuple(str(p) for p in find_handwriting_fonts())


def measure_styles(seeds: range, difficulty: str, styles: list[str]) -> None:
    """Print, per style, the digits it shapes read right (overall and for the worst pen) and all
    its entries read right, each pen in turn over `seeds`, on the photos whose printed givens
    were read right: a grid found a cell off, or turned wrong, misreads every entry whatever
    the handwriting (those photos are counted apart)."""
    pens = sorted(PENS)
    print(
        f"generated hand-filled photos ({difficulty}, seeds {seeds.start}-{seeds.stop - 1}, "
        "each pen in turn, every entry in pen strokes of one style): "
        "styled digits right (worst pen), all entries right, photos left out (no grid found "
        "or givens misread)"
    )
    for name in styles:
        shaped = HAND_STYLES[name].digits
        per_pen = {pen: [0, 0] for pen in pens}
        right = total = left_out = 0
        for i, seed in enumerate(seeds):
            pen = pens[i % len(pens)]
            made = synth_filled_photo(seed, difficulty, pen=pen, notes=0.3, hand_style=name)
            truth = made.filled.digits
            hand = made.filled.kinds == HANDWRITTEN
            try:
                reading = read_photo(made.photo.image)
            except SudokuLensError:
                left_out += 1
                continue
            if not np.array_equal(reading.givens, made.photo.puzzle):
                left_out += 1
                continue
            digits = reading.grid
            styled = hand & np.isin(truth, shaped)
            per_pen[pen][0] += int(np.sum(digits[styled] == truth[styled]))
            per_pen[pen][1] += int(styled.sum())
            right += int(np.sum(digits[hand] == truth[hand]))
            total += int(hand.sum())
        hits, count = (sum(v[k] for v in per_pen.values()) for k in range(2))
        worst = min(((h / n, pen) for pen, (h, n) in per_pen.items() if n), default=(0.0, "-"))
        print(
            f"  {name:<14} {hits}/{count} ({hits / max(1, count):.2%}; {worst[1]} "
            f"{worst[0]:.2%})  all {right}/{total} ({right / max(1, total):.2%})  {left_out}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--seeds", type=seed_range, default=range(10001, 10041), help="FIRST-LAST (10001-10040)"
    )
    parser.add_argument("--difficulty", default="medium", help="easy, medium or hard")
    parser.add_argument(
        "--style",
        choices=(*HAND_STYLES, "all"),
        help="write every entry in this handwriting style (pen strokes) and measure it",
    )
    args = parser.parse_args()
    cv2.setNumThreads(1)
    if args.style is not None:
        styles = list(HAND_STYLES) if args.style == "all" else [args.style]
        measure_styles(args.seeds, args.difficulty, styles)
        return
    fonts = handwriting_fonts()
    if not fonts:
        print(
            "warning: no handwriting fonts found (they need Pillow, the 'train' extra, and "
            "Debian's packages in sudoku_lens.train.fonts.HANDWRITING_PACKAGES): the pen "
            "entries are drawn with strokes alone, so the photos are not those docs/accuracy.md's "
            "figures were measured on",
            file=sys.stderr,
        )
    pens = sorted(PENS)
    confusion = np.zeros((4, 4), np.int64)
    per_pen = {pen: [0, 0, 0] for pen in pens}
    digits_exact = kinds_exact = notes_cells = notes_as_digit = refused = 0
    for i, seed in enumerate(args.seeds):
        pen = pens[i % len(pens)]
        made = synth_filled_photo(seed, args.difficulty, pen=pen, notes=0.3, font_files=fonts)
        truth_digits, truth_kinds = made.filled.digits, made.filled.kinds
        try:
            reading = read_photo(made.photo.image)
        except SudokuLensError:
            refused += 1
            continue
        digits, kinds = reading.grid, reading.kinds
        np.add.at(confusion, (truth_kinds.ravel(), kinds.ravel()), 1)
        digits_exact += bool(np.all(digits == truth_digits))
        kinds_exact += bool(np.all(kinds == truth_kinds))
        notes = truth_kinds == NOTES
        notes_cells += int(notes.sum())
        notes_as_digit += int(np.sum(digits[notes] > 0))
        hand = truth_kinds == HANDWRITTEN
        per_pen[pen][0] += int(np.sum(digits[hand] == truth_digits[hand]))
        per_pen[pen][1] += int(np.sum(kinds[hand] == HANDWRITTEN))
        per_pen[pen][2] += int(hand.sum())
    photos = len(args.seeds)
    read = photos - refused
    if not read:
        sys.exit("no photo was read")
    print(
        f"generated hand-filled photos ({args.difficulty}, seeds {args.seeds.start}-"
        f"{args.seeds.stop - 1}, {len(fonts)} handwriting fonts): {photos}, "
        f"no grid found: {refused}"
    )
    print(f"  every digit right: {digits_exact}/{read}; every kind right: {kinds_exact}/{read}")
    print(f"  kinds right: {np.trace(confusion) / confusion.sum():.2%} of cells")
    print(
        f"  pencil-note cells read as a digit: {notes_as_digit}/{notes_cells} "
        f"({notes_as_digit / max(1, notes_cells):.2%})"
    )
    right, kind, total = (sum(v[k] for v in per_pen.values()) for k in range(3))
    print(
        f"  handwritten entries: digit right {right}/{total} ({right / max(1, total):.2%}), "
        f"kind right {kind}/{total} ({kind / max(1, total):.2%})"
    )
    print("  per pen (digit right, kind right, entries):")
    for pen, (pen_right, pen_kind, pen_total) in per_pen.items():
        if pen_total:
            print(
                f"    {pen:<16} {pen_right / pen_total:7.2%} {pen_kind / pen_total:7.2%}"
                f"  {pen_total}"
            )
    print("  kinds confusion (rows: true, columns: read): " + ", ".join(KIND_NAMES))
    for name, row in zip(KIND_NAMES, confusion, strict=True):
        print(f"    {name:<12}" + "".join(f"{v:>8}" for v in row))


if __name__ == "__main__":
    main()
