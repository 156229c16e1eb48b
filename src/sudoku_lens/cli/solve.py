"""`sudoku-lens solve PUZZLE`: solve a photo, or puzzle text given as a line, a file, or `-`.

A photo (recognised by its content, or by an image file name) is read, solved from its printed
givens, its handwritten entries checked, and written with the answer drawn in and the wrong
entries marked (see `cli/solve_photo.py`; exit code 1 when an entry is wrong).

One puzzle prints its solution as a boxed grid and a line; a file of several puzzles (or any
input with `-o`) is a batch with one output line per puzzle, in input order. Exit code 0 only
when every puzzle has exactly one solution, 2 when any is not a puzzle (unreadable or illegal),
else 1, as for a single puzzle.
Top-level imports stay light: every subcommand module is imported at start-up.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sudoku_lens.cli.jobs import (
    check_text_output,
    exit_code,
    jobs_type,
    progress_bar,
    where,
    write_rows,
)
from sudoku_lens.cli.solve_photo import (
    add_photo_arguments,
    holds_an_image,
    looks_like_image,
    run_photo,
    stdin_bytes,
)
from sudoku_lens.errors import PuzzleFormatError, SudokuLensError
from sudoku_lens.read.formats import HEAD_BYTES, MAX_BYTES, image_format, unsupported_format

if TYPE_CHECKING:
    from sudoku_lens.puzzle.text import PuzzleEntry
    from sudoku_lens.solve import BatchResult

PICTURE_NOT_TEXT = "holds a picture, not puzzle text (solve and hint read photos)"
"""What `read_text` says of a photo given where puzzle text is needed (explain, rate)."""
NEITHER = (
    "is neither a photo nor puzzle text (a puzzle is 81 cells, 1-9 and 0 or . for empty, in one "
    "line or 9 rows)"
)
"""What is said of a file or standard input holding text that is no puzzle (prose, a program)."""


def add_parser(subparsers: Any) -> None:
    """Register `solve` on the top-level parser."""
    parser = subparsers.add_parser(
        "solve",
        help="solve a photo, an 81-character puzzle line, a puzzle file, or - for stdin",
        description="Solve Sudoku puzzles and prove each solution unique. PUZZLE is a photo of "
        "a Sudoku (the answer is drawn into it), an 81-character line (0 or . for empty cells), "
        "a file with one puzzle per line or 9-row grids (blank lines and # comments skipped), or "
        "- to read standard input. Exit code 0 only when every puzzle has exactly one solution "
        "(and, for a photo, no handwritten entry is wrong and no cell's pencilled candidates leave "
        "out its answer).",
    )
    parser.add_argument("puzzle", metavar="PUZZLE", help="photo, puzzle line, puzzle file, or -")
    parser.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="for a photo: the picture to write (.png, .jpg, .bmp, .tif or .webp, by its ending; "
        "default <photo>-solved.jpg for a JPEG photo, else <photo>-solved.png, or "
        "<photo>-checked.jpg/.png with --check); "
        "for puzzle text: write one line per puzzle to FILE, in input order: the 81-digit "
        "solution, or 'error: ...' for a puzzle with no solution, several, or unreadable text",
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help="print JSON: one object per puzzle (puzzle, status, solution, guesses, seconds); for "
        "a photo, the reading (read, kinds, candidates, givens), status, solution, wrong_entries, "
        "unsure_entries and wrong_candidates",
    )
    parser.add_argument(
        "--jobs",
        type=jobs_type,
        metavar="N",
        help="solve a file of puzzles in N processes (default 1); not for a photo",
    )
    add_photo_arguments(parser)
    parser.set_defaults(run=run)


def read_text(source: str) -> str:
    """The puzzle text named by `source`: a text file, `-` for standard input, or the puzzle
    itself. Files are read in chunks with a line-length limit (see `read_puzzle_text`)."""
    from sudoku_lens.puzzle.text import read_puzzle_text

    if source == "-":
        image, text = read_stdin()
        if image is not None:
            raise PuzzleFormatError(f"standard input {PICTURE_NOT_TEXT}")
        return text or ""
    if not source.strip():
        raise PuzzleFormatError("no puzzle given: give an 81-character line, a file, or -")
    path = Path(source)
    try:
        is_file, exists = path.is_file(), path.exists()
    except (OSError, ValueError):
        is_file = exists = False
    if is_file:
        if holds_an_image(path):
            raise PuzzleFormatError(f"{source} {PICTURE_NOT_TEXT}")
        try:
            with path.open("rb") as handle:
                return read_puzzle_text(handle, source)
        except OSError as exc:
            raise SudokuLensError(f"cannot read {source}: {exc.strerror}") from None
    if exists:
        what = (
            "a folder, not a file" if path.is_dir() else "not a regular file (a pipe or a device)"
        )
        raise PuzzleFormatError(f"{source} is {what}")
    from sudoku_lens.puzzle.text import PUZZLE_CHARACTERS

    if len(source.strip()) >= 81 or set(source) - {"\r", "\n"} <= PUZZLE_CHARACTERS:
        return source
    raise PuzzleFormatError(f"no such file: {source} (and it is not an 81-character puzzle)")


def refuse_unreadable_text(entries: list[PuzzleEntry], text: str, source: str) -> None:
    """Raise PuzzleFormatError, in one line, when no puzzle of `text` could be read because it
    is a pencil-mark grid, or because the file or standard input `source` holds no puzzle text
    at all (each of its rows would otherwise be reported as a bad puzzle)."""
    from sudoku_lens.logic.state import is_pencil_mark_grid

    if any(entry.line is not None for entry in entries):
        return
    if is_pencil_mark_grid(text):
        raise PuzzleFormatError(
            f"{where(source)} is a pencil-mark grid: explain (which rates it too) and hint take "
            "one; solve and rate take puzzles of 81 cells"
        )
    refuse_prose(text, source)


def refuse_prose(text: str, source: str) -> None:
    """Raise PuzzleFormatError naming the file (or standard input) `source` when its `text` is
    not puzzle text at all; a puzzle given on the command line itself is left to the parser,
    whose message points at the bad character."""
    from sudoku_lens.puzzle.text import looks_like_puzzle_text

    if (source == "-" or Path(source).is_file()) and not looks_like_puzzle_text(text):
        raise PuzzleFormatError(f"{where(source)} {NEITHER}")


def read_stdin() -> tuple[bytes | None, str | None]:
    """Standard input as (image bytes, None) when its content is a picture, else (None, text);
    SudokuLensError when it is closed."""
    from sudoku_lens.puzzle.text import read_puzzle_text

    stream = stdin_bytes()
    head = stream.read(HEAD_BYTES)
    if image_format(head) is not None or unsupported_format(head) is not None:
        return head + stream.read(MAX_BYTES + 1 - len(head)), None
    return None, read_puzzle_text(stream, "standard input", head=head)


def run(args: argparse.Namespace) -> int:
    """Solve the photo or the text puzzle(s) named by `args.puzzle`."""
    from sudoku_lens.puzzle.text import read_puzzles

    if args.puzzle == "-":
        image, text = read_stdin()
        if image is not None:
            return _run_photo(args, image)
    elif looks_like_image(args.puzzle):
        return _run_photo(args)
    else:
        text = read_text(args.puzzle)
    if args.debug is not None:
        raise SudokuLensError("--debug applies to photos only")
    if args.check:
        raise SudokuLensError("--check applies to photos only")
    check_text_output(args.output)

    start = time.perf_counter()
    entries = read_puzzles(text)
    if not entries:
        raise PuzzleFormatError(f"no puzzle found in {where(args.puzzle)}")
    refuse_unreadable_text(entries, text, args.puzzle)
    if len(entries) == 1 and args.output is None:
        return _solve_one(entries[0], as_json=args.json)
    return _solve_batch(entries, args, start)


def _run_photo(args: argparse.Namespace, data: bytes | None = None) -> int:
    """Solve the photo (see `run_photo`), refusing --jobs as puzzle text refuses the options
    for photos: it would be ignored."""
    if args.jobs is not None:
        raise SudokuLensError(
            "--jobs applies to puzzle files only: a photo is read in one process "
            "(sudoku-lens batch reads many photos on every core)"
        )
    return run_photo(args, data)


def _solve_one(entry: PuzzleEntry, *, as_json: bool) -> int:
    """Print one puzzle's solution, or say plainly why there is none."""
    import json

    from sudoku_lens.puzzle.text import find_conflict, format_grid
    from sudoku_lens.solve import Status, solve_line

    if entry.line is None:
        raise PuzzleFormatError(entry.error)
    conflict = find_conflict(entry.line)
    if conflict:
        raise PuzzleFormatError(f"not a legal puzzle: {conflict}")
    result = solve_line(entry.line)
    if as_json:
        record = _record(entry.line, result.status, result.solution, result.guesses, result.seconds)
        print(json.dumps(record))
    elif result.status is Status.SOLVED:
        print(format_grid(result.solution))
        print(result.solution)
    else:
        print(format_grid(entry.line))
        if result.status is Status.NO_SOLUTION:
            print("no solution: no grid fits these givens")
        else:
            print("several solutions: these givens do not fix a single answer")
    return 0 if result.status is Status.SOLVED else 1


def _record(
    puzzle: str, status: str, solution: str | None, guesses: int, seconds: float
) -> dict[str, Any]:
    """The JSON object printed for one puzzle."""
    return {
        "puzzle": puzzle,
        "status": str(status),
        "solution": solution,
        "guesses": guesses,
        "seconds": round(seconds, 7),
    }


def _solve_batch(entries: list[PuzzleEntry], args: argparse.Namespace, start: float) -> int:
    """Solve every entry; write one line (or JSON object) per entry; summarise on stderr."""
    from sudoku_lens.solve import solve_lines

    lines = [entry.line for entry in entries if entry.line is not None]
    with progress_bar(len(lines)) as progress:
        result = solve_lines(lines, jobs=args.jobs or 1, progress=progress)
    rows, tally = _batch_rows(entries, result, as_json=args.json)
    write_rows(rows, args.output)
    seconds = time.perf_counter() - start
    total = len(entries)
    print(
        f"{total} puzzle{'' if total == 1 else 's'}: {tally['solved']} solved, "
        f"{tally['no solution']} no solution, "
        f"{tally['several solutions']} several solutions, {tally['error']} unreadable or "
        f"illegal; {seconds:.2f} s, {total / seconds:,.0f} puzzles/s",
        file=sys.stderr,
    )
    unsolved = tally["no solution"] + tally["several solutions"]
    return exit_code(bad_input=tally["error"], unsolved=unsolved)


def _batch_rows(
    entries: list[PuzzleEntry], result: BatchResult, *, as_json: bool
) -> tuple[list[str], dict[str, int]]:
    """Output rows for a batch in input order, and how many puzzles ended each way."""
    import json

    from sudoku_lens.solve import Status, entry_outcomes

    tally = {"solved": 0, "no solution": 0, "several solutions": 0, "error": 0}
    solved = result.statuses.count(Status.SOLVED)
    if not as_json and solved == len(entries):  # the common case, without a loop in Python
        tally["solved"] = solved
        return list(result.solutions), tally
    rows: list[str] = []
    for entry, outcome in zip(entries, entry_outcomes(entries, result), strict=True):
        tally[outcome.status] += 1
        if as_json:
            record = _record(
                entry.line or entry.text,
                outcome.status,
                outcome.solution,
                outcome.guesses,
                outcome.seconds,
            )
            if outcome.error is not None:
                record["error"] = outcome.error
            rows.append(json.dumps(record))
        elif outcome.solution is not None:
            rows.append(outcome.solution)
        else:
            rows.append(f"error: {outcome.error if outcome.error is not None else outcome.status}")
    return rows, tally
