"""The `sudoku-lens` command: a thin skin over the Python API.

Each subcommand lives in its own module with `add_parser(subparsers)` and `run(args) -> int`.
Every user-facing failure is a `SudokuLensError`: it is printed as one line and the exit code is 2.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from sudoku_lens.errors import SudokuLensError

SUBCOMMANDS = (
    "solve",
    "read",
    "hint",
    "explain",
    "rate",
    "batch",
    "eval",
    "train",
    "live",
    "serve",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sudoku-lens",
        description="Read a Sudoku from a photo or a camera, solve it, and draw the answer.",
    )
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in SUBCOMMANDS:
        importlib.import_module(f"sudoku_lens.cli.{name}").add_parser(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line; the exit code. Every failure a user can cause is one line on stderr:
    exit 2 for bad input or output that cannot be written (a full disk), 1 for a reader that
    went away (a closed pipe), 130 for Ctrl+C."""
    for stream in (sys.stdout, sys.stderr):
        if stream is not None and hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="surrogateescape")  # file names that are not UTF-8
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code = int(args.run(args) or 0)
        if sys.stdout is not None:
            sys.stdout.flush()
        return code
    except SudokuLensError as exc:
        print(f"sudoku-lens: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("sudoku-lens: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        _drop_stdout()
        return 1
    except OSError as exc:
        if exc.errno is None:
            raise
        _drop_stdout()
        print(f"sudoku-lens: error: cannot write the output: {exc.strerror}", file=sys.stderr)
        return 2


def _drop_stdout() -> None:
    """Point stdout at /dev/null, so the interpreter's last flush of output that could not be
    written does not print a second error at exit."""
    if sys.stdout is None:
        return
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)
    except (OSError, ValueError):
        pass


if __name__ == "__main__":
    sys.exit(main())
