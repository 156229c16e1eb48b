"""`sudoku-lens solve PHOTO`: read a photo's Sudoku, solve it and write the photo with the answer.

Used by `cli/solve.py`, which owns the `solve` parser and hands photos to `run_photo`. Top-level
imports stay light (stdlib only) because every subcommand module is imported at start-up.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from sudoku_lens.errors import SudokuLensError
from sudoku_lens.read.formats import HEAD_BYTES, image_format, unsupported_format

if TYPE_CHECKING:
    from sudoku_lens.pipeline import PhotoSolution

IMAGE_SUFFIXES = frozenset(
    [
        ".jpg",
        ".jpeg",
        ".jpe",
        ".jfif",
        ".png",
        ".bmp",
        ".dib",
        ".gif",
        ".webp",
        ".tif",
        ".tiff",
        ".pbm",
        ".pgm",
        ".ppm",
        ".pnm",
        ".heic",
        ".heif",
        ".avif",
    ]
)
"""File name endings taken as photos even when the content is not recognised (to say why)."""


def looks_like_image(path: str | os.PathLike[str]) -> bool:
    """True when `path` names an image file: by its first bytes, or by its name ending.

    Recognises JPEG, PNG, BMP, GIF, TIFF, WebP, PNM and HEIF/AVIF content (whatever the name), and
    any name ending in an image suffix (so a missing or corrupt photo is reported as an image
    problem, not as bad puzzle text). Puzzle text and text files are never taken for images, and
    only regular files are opened: reading a named pipe or a device could block forever.
    """
    candidate = Path(path)
    if candidate.suffix.lower() in IMAGE_SUFFIXES:
        return True
    try:
        if not candidate.is_file():
            return False
        with candidate.open("rb") as handle:
            head = handle.read(HEAD_BYTES)
    except (OSError, ValueError):
        return False
    return image_format(head) is not None or unsupported_format(head) is not None


def add_photo_arguments(parser: argparse.ArgumentParser) -> None:
    """The option that only applies to photos, for the `solve` parser (which owns -o and --json)."""
    parser.add_argument(
        "--debug",
        metavar="DIR",
        help="for a photo: write a picture of each reading stage into DIR (created if needed)",
    )


def run_photo(args: argparse.Namespace) -> int:
    """Solve the photo `args.puzzle`; print the grids; write the result. Exit 0 only when solved.

    Uses `args.output`, `args.debug` and `args.json`. A puzzle read that has no solution or
    several is reported on stderr with the grid still printed, exit code 1.
    """
    import cv2

    from sudoku_lens.pipeline import default_output_path, solve_photo

    photo_path = Path(args.puzzle)
    output = Path(args.output) if args.output else None
    if output is not None:
        _check_writable(output)
    result = solve_photo(photo_path, debug_dir=args.debug)
    if output is None and result.solved:
        output = default_output_path(photo_path).resolve()
    if output is not None:
        try:
            written = cv2.imwrite(str(output), result.image)
        except cv2.error:
            written = False
        if not written:
            raise SudokuLensError(f"cannot write {output}")

    if args.json:
        summary = result.to_json()
        summary["output"] = str(output) if output is not None else None
        print(json.dumps(summary))
    else:
        print(_report(result, output, args.debug))
    if not result.solved:
        print(f"sudoku-lens: {_failure(result, photo_path)}", file=sys.stderr)
        return 1
    return 0


def _check_writable(output: Path) -> None:
    """Refuse an output path that cannot be written before spending time on the photo."""
    import cv2

    if not output.parent.is_dir():
        raise SudokuLensError(f"cannot write {output}: no directory {output.parent}")
    if not cv2.haveImageWriter(str(output)):
        raise SudokuLensError(f"cannot write {output}: name it .png or .jpg")


def _failure(result: PhotoSolution, photo: Path) -> str:
    """One line saying why the puzzle read from `photo` was not solved."""
    from sudoku_lens.puzzle import format_line
    from sudoku_lens.puzzle.text import find_conflict

    if result.status.value == "several solutions":
        verdict = "has several solutions"
    else:
        conflict = find_conflict(format_line(result.grid))
        verdict = f"has no solution ({conflict})" if conflict else "has no solution"
    return (
        f"the puzzle read from {photo} {verdict}; check the grid read against the photo "
        "(--debug DIR shows each reading stage)"
    )


def _side_by_side(left: str, right: str, left_title: str, right_title: str) -> str:
    left_lines, right_lines = left.splitlines(), right.splitlines()
    width = max(len(line) for line in left_lines)
    rows = [f"{left_title:<{width}}    {right_title}"]
    rows += [f"{a:<{width}}    {b}" for a, b in zip(left_lines, right_lines, strict=True)]
    return "\n".join(rows)


def _report(result: PhotoSolution, output: Path | None, debug: str | None) -> str:
    """Human-readable account of a `PhotoSolution`: grids, corrections, files written."""
    from sudoku_lens.puzzle import format_grid

    turned = f", turned {result.reading.rotation} degrees" if result.reading.rotation else ""
    read_title = f"read{turned}:"
    if result.solution is not None:
        lines = [
            _side_by_side(
                format_grid(result.reading.givens),
                format_grid(result.solution),
                read_title,
                "solution:",
            )
        ]
    else:
        lines = [read_title, format_grid(result.reading.givens)]
    if result.corrected_cells:
        lines.append(f"corrected {len(result.corrected_cells)} misread cell(s):")
        for r, c in result.corrected_cells:
            was, now = int(result.reading.givens[r, c]), int(result.grid[r, c])
            lines.append(
                f"  row {r + 1}, column {c + 1}: read {was or 'empty'}, now {now or 'empty'}"
            )
    lines.append(f"status: {result.status.value} ({result.seconds:.2f} s)")
    if output is not None:
        what = "the solved photo" if result.solved else "the photo with the grid found outlined"
        lines.append(f"wrote {what} to {output}")
    if debug is not None:
        lines.append(f"wrote the stage pictures to {debug}")
    return "\n".join(lines)
