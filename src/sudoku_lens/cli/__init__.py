"""The `sudoku-lens` command: a thin skin over the Python API.

Each subcommand lives in its own module with `add_parser(subparsers)` and `run(args) -> int`.
Every user-facing failure is a `SudokuLensError`: it is printed as one line and the exit code is 2.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from sudoku_lens.errors import SudokuLensError

SUBCOMMANDS = ("solve", "read", "hint", "explain", "rate", "eval", "train", "live", "serve")


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
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.run(args) or 0)
    except SudokuLensError as exc:
        print(f"sudoku-lens: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("sudoku-lens: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 1


if __name__ == "__main__":
    sys.exit(main())
