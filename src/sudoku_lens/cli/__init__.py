"""The `sudoku-lens` command: a thin skin over the Python API.

Each subcommand lives in its own module with `add_parser(subparsers)` and `run(args) -> int`.
Every user-facing failure is a `SudokuLensError` (a bad argument too: see `CommandLine.error`): it
is printed as one line on stderr and the exit code is 2; with `--json` the same message is also
printed on stdout as `{"error": "..."}`, so a script reading JSON gets JSON. Exit code 1 is for an
answer that is not a success (no unique solution, a wrong entry, a puzzle the techniques cannot
finish); a run over many puzzles or photos exits with its worst item's code: 2 when one is bad
input, else 1 when one is not a success, else 0.
"""

from __future__ import annotations

import argparse
import difflib
import importlib
import json
import os
import sys
from typing import Any, NoReturn

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


class UsageError(SudokuLensError):
    """Arguments the command line cannot use: a missing or unknown argument, a bad value."""


class CommandLine(argparse.ArgumentParser):
    """argparse with its errors raised as UsageError, so that they are reported as every other
    failure (one line, exit 2, JSON with --json) rather than by argparse's usage and exit."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see {self.prog} --help)")

    def parse_args(self, args: Any = None, namespace: Any = None) -> argparse.Namespace:
        """argparse's, but an unknown argument points at the subcommand's help, not the
        top-level one (argparse finds it only once the subcommand has parsed its own)."""
        words = sys.argv[1:] if args is None else list(args)
        if self.prog == "sudoku-lens":
            check_command(words)
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            command = getattr(parsed, "command", None)
            where = f"{self.prog} {command}" if command else self.prog
            raise UsageError(f"unrecognized arguments: {' '.join(extras)} (see {where} --help)")
        return parsed


def check_command(words: list[str]) -> None:
    """Raise UsageError naming the nearest subcommand when the command word of `words` is none
    (`slove` -> `did you mean solve?`), rather than argparse's list of every choice. The
    top-level options (-h, --version) take no value, so the first word without a leading dash
    is the command."""
    command = next((word for word in words if not word.startswith("-")), None)
    if command is None or command in SUBCOMMANDS:
        return
    nearest = difflib.get_close_matches(command, SUBCOMMANDS, n=1, cutoff=0.6)
    hint = f"did you mean {nearest[0]}?" if nearest else f"choose from {', '.join(SUBCOMMANDS)}"
    raise UsageError(f"unknown command {command!r}: {hint} (see sudoku-lens --help)")


def build_parser() -> argparse.ArgumentParser:
    parser = CommandLine(
        prog="sudoku-lens",
        description="Read a Sudoku from a photo or a camera, solve it, and draw the answer.",
    )
    from sudoku_lens import __version__

    parser.add_argument("--version", action="version", version=f"sudoku-lens {__version__}")
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
    words = sys.argv[1:] if argv is None else argv
    as_json = "--json" in words[: words.index("--")] if "--" in words else "--json" in words
    try:
        args = build_parser().parse_args(argv)
        code = int(args.run(args) or 0)
        if sys.stdout is not None:
            sys.stdout.flush()
        return code
    except SudokuLensError as exc:
        return _fail(f"error: {exc}", str(exc), 2, as_json)
    except KeyboardInterrupt:
        return _fail("interrupted", "interrupted", 130, as_json)
    except BrokenPipeError:
        _drop_stdout()
        return 1
    except OSError as exc:
        if exc.errno is None:
            raise
        _drop_stdout()
        print(f"sudoku-lens: error: cannot write the output: {exc.strerror}", file=sys.stderr)
        return 2


def _fail(line: str, message: str, code: int, as_json: bool) -> int:
    """Report a failure: `sudoku-lens: LINE` on stderr and, with --json, `{"error": MESSAGE}` on
    stdout; return the exit code."""
    if as_json and sys.stdout is not None:
        try:
            print(json.dumps({"error": message}), flush=True)
        except OSError:
            _drop_stdout()
    print(f"sudoku-lens: {line}", file=sys.stderr)
    return code


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
