"""`sudoku-lens rate FILE`: rate puzzles on the Sudoku Explainer scale, one line per puzzle.

A batch like `solve`'s (the same --jobs, progress bar and -o; see `cli/jobs.py`): each row is
the puzzle and its rating (`<81 digits>  7.1 expert aic (54 steps)`), or why it has none, in
input order; `--json` prints one object per puzzle. A grid already solved has nothing to rate:
its row says so (`already solved: no step to rate`; in JSON rating and level null, solved true,
steps 0), as `explain` does, and it is not counted as rated. Exit code 0 only when every puzzle
is rated (or already solved), 1 when one is not (the techniques could not finish it), 2 when one
is illegal or not unique, or the input holds no puzzle.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from sudoku_lens.cli.jobs import (
    check_text_output,
    exit_code,
    jobs_type,
    progress_bar,
    where,
    write_rows,
)
from sudoku_lens.cli.solve import read_text, refuse_unreadable_text
from sudoku_lens.errors import PuzzleFormatError, SudokuLensError

_CHUNK = 32


def add_parser(subparsers: Any) -> None:
    """Register `rate` on the top-level parser."""
    parser = subparsers.add_parser(
        "rate",
        help="rate puzzles on the Sudoku Explainer scale (easy ... extreme)",
        description="Rate each puzzle by the hardest step a person needs, always taking the "
        "easiest step next, on the Sudoku Explainer scale, with a word: easy (below 2.5), "
        "medium (below 4.0), hard (below 6.0), expert (below 7.5), extreme. FILE holds one "
        "puzzle per line or 9-row grids; a single puzzle line or - (stdin) works too.",
    )
    parser.add_argument("file", metavar="FILE", help="puzzle file, a puzzle line, or -")
    parser.add_argument(
        "-o", "--output", metavar="FILE", help="write the rows to FILE instead of standard output"
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help="one JSON object per puzzle: puzzle, rating, level, hardest, steps, seconds, solved "
        "(rating and level null when not finished, or for a grid already solved: solved true, "
        "steps 0; error for a puzzle that cannot be rated)",
    )
    parser.add_argument(
        "--jobs", type=jobs_type, default=1, metavar="N", help="rate in N processes (default 1)"
    )
    parser.set_defaults(run=run)


def rate_records(lines: list[str]) -> list[dict[str, Any]]:
    """Rate puzzle lines; each record is a Rating's JSON or {"puzzle", "error"} (a top-level
    function so that worker processes can run it)."""
    from sudoku_lens.logic import rate

    records = []
    for line in lines:
        try:
            records.append(rate(line).to_json())
        except SudokuLensError as exc:
            records.append({"puzzle": line, "error": str(exc)})
    return records


def run(args: argparse.Namespace) -> int:
    """Rate every puzzle of `args.file`; write the rows; summarise on stderr."""
    from sudoku_lens.puzzle.text import read_puzzles

    check_text_output(args.output, example="ratings.txt")
    start = time.perf_counter()
    text = read_text(args.file)
    entries = read_puzzles(text)
    if not entries:
        raise PuzzleFormatError(f"no puzzle found in {where(args.file)}")
    refuse_unreadable_text(entries, text, args.file)
    lines = [entry.line for entry in entries if entry.line is not None]
    chunks = [lines[i : i + _CHUNK] for i in range(0, len(lines), _CHUNK)]
    with progress_bar(len(lines)) as progress:
        if args.jobs > 1 and len(chunks) > 1:
            from concurrent.futures import ProcessPoolExecutor

            with ProcessPoolExecutor(max_workers=min(args.jobs, len(chunks))) as pool:
                parts = _reported(pool.map(rate_records, chunks), progress)
        else:
            parts = _reported(map(rate_records, chunks), progress)
    records = iter(record for part in parts for record in part)
    rows: list[str] = []
    tally = {"rated": 0, "already solved": 0, "unfinished": 0, "error": 0}
    for entry in entries:
        if entry.line is None:
            record: dict[str, Any] = {"puzzle": entry.text, "error": entry.error}
        else:
            record = next(records)
        if len(entries) == 1 and args.output is None and "error" in record:
            raise SudokuLensError(record["error"])
        tally[_kind(record)] += 1
        rows.append(json.dumps(record) if args.json else _row(record))
    write_rows(rows, args.output)
    seconds = time.perf_counter() - start
    full = tally["already solved"]
    print(
        f"{len(entries)} puzzle{'' if len(entries) == 1 else 's'}: {tally['rated']} rated, "
        + (f"{full} already solved (nothing to rate), " if full else "")
        + f"{tally['unfinished']} not finished by "
        f"the techniques, {tally['error']} unreadable, illegal or not unique; {seconds:.2f} s",
        file=sys.stderr,
    )
    return exit_code(bad_input=tally["error"], unsolved=tally["unfinished"])


def _kind(record: dict[str, Any]) -> str:
    """How a puzzle's record counts in the summary: rated, already solved, unfinished, error."""
    if "error" in record:
        return "error"
    if record["rating"] is not None:
        return "rated"
    return "already solved" if record["solved"] else "unfinished"


def _reported(parts: Any, progress: Any) -> list[list[dict[str, Any]]]:
    """Collect the chunks' records in order, advancing the progress bar after each chunk."""
    done = []
    for part in parts:
        if progress is not None:
            progress(len(part))
        done.append(part)
    return done


def _row(record: dict[str, Any]) -> str:
    """One text row: the puzzle, two spaces, its rating (as the rated puzzle files put it)."""
    if "error" in record:
        return f"{record['puzzle']}  error: {record['error']}"
    from sudoku_lens.logic import Rating

    rating = Rating(**{key: value for key, value in record.items() if key != "solved"})
    return f"{record['puzzle']}  {rating.text()}"
