"""What the subcommands over many items (`solve` and `rate` on a puzzle file, `batch`) share: the
--jobs option, a progress bar on a terminal only, writing one row per puzzle to a file or
standard output, and the exit code of the whole run."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from sudoku_lens.errors import SudokuLensError

MAX_JOBS_PER_CORE = 4
"""Most --jobs per core this process may use: the work is all CPU, so more gains nothing, and a
mistyped huge number would fork processes until the machine stalls."""


def jobs_type(value: str) -> int:
    """argparse type of --jobs: a number of processes, 1 to MAX_JOBS_PER_CORE per core."""
    try:
        jobs = int(value)
    except ValueError:
        jobs = 0
    if jobs < 1:
        raise argparse.ArgumentTypeError(
            f"expected a number of processes of 1 or more, got {value}"
        )
    from sudoku_lens.batch import default_jobs

    cores = default_jobs()
    if jobs > MAX_JOBS_PER_CORE * cores:
        raise argparse.ArgumentTypeError(
            f"expected at most {MAX_JOBS_PER_CORE * cores} processes ({MAX_JOBS_PER_CORE} for "
            f"each of the {cores} cores this machine gives us), got {value}"
        )
    return jobs


@contextmanager
def progress_bar(total: int) -> Iterator[Callable[[int], object] | None]:
    """A callback that advances a progress bar by n puzzles, shown on standard error when it is
    a terminal; None (no bar) otherwise, so that logs and pipes stay clean."""
    if not sys.stderr.isatty():
        yield None
        return
    from tqdm import tqdm

    with tqdm(total=total, unit="puzzle", file=sys.stderr) as bar:
        yield bar.update


def check_text_output(output: str | None, example: str = "solutions.txt") -> None:
    """Refuse, before any work, a path the text of a run over puzzles cannot be written to (a
    folder, a missing folder: `check_output_path`, `example` naming a file as it should be) or
    a picture's name."""
    from sudoku_lens.outputs import check_output_path
    from sudoku_lens.read.formats import IMAGE_SUFFIXES

    if output is None:
        return
    check_output_path(output, example=example)
    if Path(output).suffix.lower() in IMAGE_SUFFIXES:
        raise SudokuLensError(
            f"cannot write {output}: puzzles get text, one line each, not a picture: name it .txt"
        )


def where(source: str) -> str:
    """How to name a command's input in a message: a path, or standard input for -."""
    return "standard input" if source == "-" else source


def write_rows(rows: list[str], output: str | None) -> None:
    """Write the rows, one per line, to `output` or to standard output when it is None."""
    text = "\n".join(rows) + "\n"
    if output is None:
        sys.stdout.write(text)
        return
    try:
        Path(output).write_text(text)
    except OSError as exc:
        raise SudokuLensError(f"cannot write {output}: {exc.strerror}") from None


def exit_code(*, bad_input: int, unsolved: int) -> int:
    """A run's exit code from how many of its items were bad input (unreadable, illegal, no
    grid: what alone would be a SudokuLensError) and how many not a success (no unique
    solution, a wrong entry, not finished): the worst item decides."""
    return 2 if bad_input else 1 if unsolved else 0
