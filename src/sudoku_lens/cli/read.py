"""`sudoku-lens read PHOTO`: print the Sudoku read from a photo (boxed grid, or JSON).

Top-level imports stay light: every subcommand module is imported at start-up.
"""

from __future__ import annotations

import argparse
import json
from typing import Any


def add_parser(subparsers: Any) -> None:
    """Register `read` on the top-level parser."""
    parser = subparsers.add_parser(
        "read",
        help="read the Sudoku in a photo and print it",
        description="Find the Sudoku grid in PHOTO, read its given digits, turn it upright and "
        "print it as a boxed grid (. = empty).",
    )
    parser.add_argument(
        "photo", metavar="PHOTO", help="image file (JPEG, PNG, ...), or - for standard input"
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help="print JSON: grid (81 characters: every digit read, 0 = empty or pencil notes), "
        "kinds (81 characters: . empty, p printed, h handwritten, n pencil notes), candidates (81 "
        'strings: the digits pencilled in each cell of notes, "" elsewhere), givens (the '
        "printed digits only), corners (upright TL, TR, BR, BL in image pixels), rotation "
        "(degrees clockwise), confidences (81 values), seconds",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Read the photo and print what was read."""
    from sudoku_lens.cli.solve_photo import stdin_bytes
    from sudoku_lens.puzzle import format_grid
    from sudoku_lens.read.formats import MAX_BYTES
    from sudoku_lens.read.image_io import quiet_opencv
    from sudoku_lens.read.reader import read_photo

    quiet_opencv()
    if args.photo == "-":
        reading = read_photo(stdin_bytes().read(MAX_BYTES + 1), name="standard input")
    else:
        reading = read_photo(args.photo)
    if args.json:
        print(json.dumps(reading.to_json()))
    else:
        print(format_grid(reading.grid))
    return 0
