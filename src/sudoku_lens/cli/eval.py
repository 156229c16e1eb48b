"""`sudoku-lens eval PATH`: read photos with known grids and report how many were read right.

PATH is a folder of imageN.jpg + imageN.dat files, a text file listing photos (each with its
.dat beside it), or a cell-labelled folder (images/, labels/, metadata.csv: `read.cell_labels`).
Top-level imports stay light: every subcommand module is imported at start-up.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any


def _count(value: str) -> int:
    try:
        count = int(value)
    except ValueError:
        count = 0
    if count < 1:
        raise argparse.ArgumentTypeError(f"expected a number of photos of 1 or more, got {value}")
    return count


def add_parser(subparsers: Any) -> None:
    """Register `eval` on the top-level parser."""
    parser = subparsers.add_parser(
        "eval",
        help="measure reading accuracy on photos with known grids",
        description="Read every photo of PATH and compare with its .dat file (lines 3-11: the "
        "expected 9x9 digits, 0 = empty). Reports grids read exactly, cell accuracy, a confusion "
        "matrix, the kind of each cell (empty, printed, handwritten, pencil notes: grids with "
        "every kind right, digits right per kind, a kinds confusion matrix), the worst photos "
        "and the median seconds per photo. PATH is a folder of imageN.jpg + imageN.dat, or a "
        "text file listing photo paths. A folder laid out as images/, labels/ (9 rows of 9 "
        "labels: 0 empty, 1-9 a digit, 10 pencilled candidates), metadata.csv (grid corners) "
        "and optionally candidates.tsv (which digits) is measured cell by cell over those 11 "
        "classes instead: candidate cells read as a digit, digits read as candidates or "
        "empty, candidate digits read exactly and how far the grid corners found are from "
        "the labelled ones.",
    )
    parser.add_argument("path", metavar="PATH", help="folder of photos + .dat files, or a list")
    parser.add_argument(
        "--split",
        choices=("all", "val", "train"),
        default="all",
        help="val: photos numbered N with N %% 5 == 0 (the validation split); train: the others "
        "(in a cell-labelled folder: the photos of every fifth puzzle, sorted, from the first)",
    )
    parser.add_argument(
        "--givens",
        metavar="DIR",
        help="folder of the same photos' printed-only .dat files (e.g. printed/ beside mixed/): "
        "a cell is expected printed where that file has a digit, handwritten where only the "
        "photo's own .dat has one; without it every labelled digit is expected printed",
    )
    parser.add_argument("--limit", type=_count, metavar="N", help="evaluate the first N photos")
    parser.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object (photos, grids_exact, cell_accuracy, median_seconds, "
        "confusion, kinds_exact, called_handwritten, kind_confusion, digits_by_kind, per_photo; "
        "for a cell-labelled folder: photos, grids_exact, cell_accuracy, candidates_as_digit, "
        "digits_lost, candidates_exact, corners_median, corners_max, corners_far, "
        "median_seconds, classes, confusion, per_photo) instead of the report",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Evaluate and print the report; exit code 0 (the numbers are the result)."""
    from sudoku_lens.read.cell_labels import is_labelled_folder

    if is_labelled_folder(args.path):
        return _run_labelled(args)
    from sudoku_lens.read.evaluate import evaluate, format_report, list_photos

    photos = list_photos(args.path, split=args.split, limit=args.limit)
    root = Path(args.path) if Path(args.path).is_dir() else Path(args.path).parent
    evaluation = evaluate(photos, root=root, givens=args.givens, progress=_progress)
    if args.json:
        print(json.dumps(evaluation.to_json()))
    else:
        print(format_report(evaluation))
    return 0


def _run_labelled(args: argparse.Namespace) -> int:
    """Evaluate a cell-labelled folder (see `read.cell_labels`) and print its report."""
    from sudoku_lens.read.cell_labels import load_labelled_folder
    from sudoku_lens.read.evaluate import (
        EvaluationError,
        evaluate_labelled,
        format_labelled_report,
    )

    if args.givens is not None:
        raise EvaluationError(
            f"--givens is for folders of .dat files; {args.path} labels its cells itself"
        )
    photos = load_labelled_folder(args.path, split=args.split, limit=args.limit)
    evaluation = evaluate_labelled(photos, root=Path(args.path), progress=_progress)
    if args.json:
        print(json.dumps(evaluation.to_json()))
    else:
        print(format_labelled_report(evaluation))
    return 0


def _progress(items: list[Any]) -> Any:
    """A progress bar over the photos on a terminal's stderr (none when it is not one)."""
    from tqdm import tqdm

    return tqdm(
        items, desc="reading", unit="photo", file=sys.stderr, disable=not sys.stderr.isatty()
    )
