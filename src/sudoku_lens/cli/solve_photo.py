"""`sudoku-lens solve PHOTO`: read a photo's Sudoku, solve it from the printed givens, check the
person's handwritten entries, and write the photo with the answer and the wrong entries marked.

Used by `cli/solve.py`, which owns the `solve` parser and hands photos to `run_photo`. Top-level
imports stay light (stdlib only) because every subcommand module is imported at start-up.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import IO, TYPE_CHECKING

from sudoku_lens.errors import SudokuLensError
from sudoku_lens.read.formats import HEAD_BYTES, IMAGE_SUFFIXES, image_format, unsupported_format

if TYPE_CHECKING:
    from sudoku_lens.pipeline import PhotoSolution


DEBUG_POINTER = "--debug DIR shows each reading stage"
"""Where an unsolved photo's message points for a look at each reading stage."""

GIVENS_DOUBTED = (
    "so many disagree with the solution of the givens as read that a given is more likely "
    "misread than they are all wrong; check the givens"
)
"""Why the entries of a photo whose givens are in doubt (`PhotoSolution.givens_doubted`) are
not checked, in `solve` and `hint` alike."""


def looks_like_image(path: str | os.PathLike[str]) -> bool:
    """True when `path` names an image file: by its first bytes, or by its name ending.

    Recognises JPEG, PNG, BMP, GIF, TIFF, WebP, PNM and HEIF/AVIF content (whatever the name), and
    any name ending in an image suffix (so a missing or corrupt photo is reported as an image
    problem, not as bad puzzle text). Puzzle text and text files are never taken for images, and
    only regular files are opened: reading a named pipe or a device could block forever.
    """
    return Path(path).suffix.lower() in IMAGE_SUFFIXES or holds_an_image(path)


def holds_an_image(path: str | os.PathLike[str]) -> bool:
    """True when `path` is a regular file whose first bytes are an image's, whatever its name
    (HEIF/AVIF included, which are refused later with advice)."""
    candidate = Path(path)
    try:
        if not candidate.is_file():
            return False
        with candidate.open("rb") as handle:
            head = handle.read(HEAD_BYTES)
    except (OSError, ValueError):
        return False
    return image_format(head) is not None or unsupported_format(head) is not None


def add_photo_arguments(parser: argparse.ArgumentParser) -> None:
    """The options that only apply to photos, for the `solve` parser (which owns -o and --json)."""
    parser.add_argument(
        "--check",
        action="store_true",
        help="for a photo: check the handwritten entries and pencilled candidates against the "
        "solution and mark the wrong ones in the picture, drawing no answers (to keep solving by "
        "yourself)",
    )
    parser.add_argument(
        "--debug",
        metavar="DIR",
        help="for a photo: write a picture of each reading stage into DIR (created if needed)",
    )


def stdin_bytes() -> IO[bytes]:
    """Standard input as a byte stream; SudokuLensError when it is closed."""
    if sys.stdin is None:
        raise SudokuLensError("standard input is closed: give a photo, a puzzle or a file")
    return sys.stdin.buffer


def run_photo(args: argparse.Namespace, data: bytes | None = None) -> int:
    """Solve the photo `args.puzzle` (or the encoded image `data` read from standard input);
    print the grids, the wrong and unsure entries and the candidates that leave out the answer;
    write the result. Exit 0 only when solved, no handwritten entry is wrong and no cell's
    candidates leave out its answer.

    Uses `args.output`, `args.debug`, `args.json` and `args.check`. The picture is written to
    `args.output` when given; without it, to `<photo>-solved.png` (`<photo>-checked.png` with
    --check) only for a plain run on a photo file (not with --json or --debug, and not for
    standard input), so a script asking for JSON never overwrites a file it did not name. A
    puzzle read that has no solution or several is reported on stderr with the grid still
    printed, exit code 1; so is a wrong entry or a cell of wrong candidates.
    """
    from sudoku_lens.pipeline import default_output_path, solve_photo
    from sudoku_lens.read.image_io import quiet_opencv, write_image

    quiet_opencv()
    output = Path(args.output) if args.output else None
    if output is not None:
        check_writable(output)
    source: Path | bytes = Path(args.puzzle) if data is None else data
    shown = args.puzzle if data is None else "standard input"
    if args.debug is None:
        result = solve_photo(source, check_only=args.check, name=shown)
    else:
        from sudoku_lens.debug import solve_photo_with_pictures

        result = solve_photo_with_pictures(source, args.debug, check_only=args.check, name=shown)
    plain = not args.json and args.debug is None
    if output is None and plain and data is None and result.solved:
        suffix = "checked" if args.check else "solved"
        output = default_output_path(args.puzzle, suffix, result.reading.photo.kind).resolve()
    if output is not None:
        write_image(output, result.image)

    if args.json:
        summary = result.to_json()
        summary["output"] = str(output) if output is not None else None
        print(json.dumps(summary))
    else:
        print(_report(result, output, args.debug))
    if not result.solved:
        print(f"sudoku-lens: {_failure(result, shown, args.debug)}", file=sys.stderr)
        return 1
    mistakes = []
    if result.wrong_entries:
        count = len(result.wrong_entries)
        mistakes.append(f"{count} handwritten entr{'y is' if count == 1 else 'ies are'} wrong")
    if result.wrong_candidates:
        count = len(result.wrong_candidates)
        mistakes.append(
            f"{count} cell{' has' if count == 1 else 's have'} candidates that leave out the answer"
        )
    if result.givens_doubted:
        pointer = "" if args.debug else f" ({DEBUG_POINTER})"
        mistakes.append(f"the givens read are in doubt{pointer}")
    if mistakes:
        print(f"sudoku-lens: {' and '.join(mistakes)} in {shown}", file=sys.stderr)
        return 1
    return 0


def check_writable(output: Path) -> None:
    """Refuse a picture's path that cannot be written before spending time on the photo."""
    from sudoku_lens.outputs import check_output_path
    from sudoku_lens.read.image_io import WRITE_ENDINGS, WRITE_SUFFIXES

    check_output_path(output, example="solved.png", suffixes=WRITE_SUFFIXES, name_it=WRITE_ENDINGS)


def _failure(result: PhotoSolution, photo: str, debug: str | None) -> str:
    """One line saying why the puzzle read from `photo` was not solved (`unsolved_message`),
    pointing to --debug when it was not given."""
    from sudoku_lens.pipeline import unsolved_message

    return unsolved_message(
        result.status,
        result.grid,
        photo,
        result.reading,
        pointer=DEBUG_POINTER if debug is None else f"the stage pictures are in {debug}",
    )


def _side_by_side(left: str, right: str, left_title: str, right_title: str) -> str:
    left_lines, right_lines = left.splitlines(), right.splitlines()
    width = max(len(line) for line in left_lines)
    rows = [f"{left_title:<{width}}    {right_title}"]
    rows += [f"{a:<{width}}    {b}" for a, b in zip(left_lines, right_lines, strict=True)]
    return "\n".join(rows)


def _entry_lines(result: PhotoSolution) -> list[str]:
    """What the check of the handwritten entries found, one line per wrong or unsure entry
    (with `--check`, without the right digit: the person wants to find it)."""
    entries = int(result.reading.entries.astype(bool).sum())
    if not entries:
        return []
    if result.solved and result.givens_doubted:
        count = len(result.unsure_entries)
        lines = [f"{count} of {entries} handwritten entries not checked: {GIVENS_DOUBTED}"]
        return lines + [
            f"  {entry.name}: read as {entry.written}" for entry in result.unsure_entries
        ]
    if not result.solved:
        lines = [f"{entries} handwritten entries not checked: the givens have no single answer"]
    elif result.wrong_entries:
        count = len(result.wrong_entries)
        lines = [f"{count} of {entries} handwritten entries wrong:"]
        lines += [
            f"  {entry.name}: written {entry.written}, "
            + ("wrong" if result.check_only else f"should be {entry.expected}")
            for entry in result.wrong_entries
        ]
    else:
        lines = [f"all {entries} handwritten entries checked are right"]
    if result.unsure_entries:
        count = len(result.unsure_entries)
        lines.append(f"{count} {'entry' if count == 1 else 'entries'} too unclear to check:")
        lines += [
            f"  {entry.name}: read as {entry.written}, not sure" for entry in result.unsure_entries
        ]
    return lines


def _candidate_lines(result: PhotoSolution) -> list[str]:
    """What the check of the pencilled candidates found: one line per cell whose candidates
    leave out the answer (`CheckedCandidates.message`), under a count of the cells checked (those
    of two candidates or more, but for those read too unsure to check)."""
    from sudoku_lens.pipeline import CHECKED_CANDIDATES

    listed = sum(len(cell) >= CHECKED_CANDIDATES for row in result.candidates for cell in row)
    if not listed or not result.solved:
        return []
    unsure = len(result.unsure_candidates)
    checked = listed - unsure
    left = f"; {unsure} read too unsure to check" if unsure else ""
    if not result.wrong_candidates:
        if not checked:
            cells = "cell" if unsure == 1 else "cells"
            return [f"{unsure} {cells} of candidates read too unsure to check"]
        return [f"all {checked} cells of candidates checked hold the answer{left}"]
    count = len(result.wrong_candidates)
    lines = [f"{count} of {checked} cells of candidates leave out the answer{left}:"]
    return lines + [f"  {cell.message}" for cell in result.wrong_candidates]


def correction_text(read: int, given: int, kind_read: int, kind_now: int) -> str:
    """What the repair changed in a cell: the digit `read` there (0 for none) of kind
    `kind_read`, the `given` digit it now holds (0 for none) of kind `kind_now` (kind indices
    of `sudoku_lens.read.kinds`). A digit moved between print and pen keeps its value."""
    from sudoku_lens.read.kinds import HANDWRITTEN

    if read and not given and kind_now == HANDWRITTEN:
        return f"the {read} read as print is a handwritten entry"
    if read and read == given and kind_read == HANDWRITTEN:
        return f"the {read} read as handwriting is printed"
    return f"read {read or 'empty'}, now {given or 'empty'}"


def _report(result: PhotoSolution, output: Path | None, debug: str | None) -> str:
    """Human-readable account of a `PhotoSolution`: grids, corrections, files written."""
    from sudoku_lens.puzzle import format_grid

    turned = f", turned {result.reading.rotation} degrees" if result.reading.rotation else ""
    read_title = f"read{turned}:"
    if result.solution is not None and not result.check_only:
        lines = [
            _side_by_side(
                format_grid(result.reading.grid),
                format_grid(result.solution),
                read_title,
                "solution:",
            )
        ]
    else:
        lines = [read_title, format_grid(result.reading.grid)]
    if result.corrected_cells:
        lines.append(f"corrected {len(result.corrected_cells)} misread cell(s):")
        for r, c in result.corrected_cells:
            change = correction_text(
                int(result.reading.grid[r, c]),
                int(result.grid[r, c]),
                int(result.reading.kinds[r, c]),
                int(result.kinds[r, c]),
            )
            lines.append(f"  r{r + 1}c{c + 1}: {change}")
    lines.extend(_entry_lines(result))
    lines.extend(_candidate_lines(result))
    complete = result.solved and bool(result.reading.grid.all()) and not result.wrong_entries
    if complete:
        lines.append("the grid is already complete, and right: no answer to draw")
    lines.append(f"status: {result.status.value} ({result.seconds:.2f} s)")
    if output is not None:
        if not result.solved:
            what = "the photo with the grid found outlined"
        elif complete:
            what = "the photo, with no answer to draw,"
        elif result.check_only and not result.reading.entries.any():
            what = "the photo, with no handwritten entry to check,"
        elif result.check_only:
            what = "the photo with the wrong entries marked"
        else:
            what = "the solved photo"
        lines.append(f"wrote {what} to {output}")
    elif debug is None:
        lines.append("give -o FILE.png to write the photo with the answer drawn in")
    if debug is not None:
        lines.append(f"wrote the stage pictures to {debug}")
    return "\n".join(lines)
