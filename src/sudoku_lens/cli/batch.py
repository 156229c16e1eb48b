"""`sudoku-lens batch INPUT... -o RESULTS`: photos and puzzle files on every core or a Dask cluster.

A thin layer over `sudoku_lens.batch.process`: records are written as each unit of work is done
(JSON Lines, CSV or Parquet by RESULTS' name), with a progress bar and a summary on a terminal.
Exit code 0 when every item was solved, 2 when any gave an error record (bad input), else 1.
Top-level imports stay light: every subcommand module is imported at start-up.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from collections import Counter
from typing import Any

from sudoku_lens.cli.jobs import exit_code, jobs_type
from sudoku_lens.errors import SudokuLensError

_SHOWN_ERRORS = 5


def add_parser(subparsers: Any) -> None:
    """Register `batch` on the top-level parser."""
    parser = subparsers.add_parser(
        "batch",
        help="read and solve many photos and puzzle files, on every core or a Dask cluster",
        description="Solve every photo and puzzle in INPUT... and write one record per item "
        "to RESULTS, in input order: source, line, kind, grid, read, kinds, givens, solution, "
        "status, wrong_entries, unsure_entries, wrong_candidates, unsure_candidates, "
        "givens_doubted, rating, level, seconds, error. "
        "An INPUT is a "
        "photo, a folder (searched recursively for image files), a glob pattern (quote it), a "
        "text file listing paths, or a puzzle file (one puzzle per line, or 9-row grids). A bad "
        "item gives a record with its error and the batch goes on. Exit code 0 only when every "
        "item was solved and no photo holds a wrong entry or candidates that leave out the "
        "answer, 2 when an item gave an error record, "
        "else 1.",
    )
    parser.add_argument(
        "inputs", nargs="+", metavar="INPUT", help="photo, folder, pattern, list or puzzle file"
    )
    parser.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="RESULTS",
        help="results file: .jsonl (JSON Lines), .csv or .parquet (needs pyarrow); "
        "it must not exist unless --resume is given",
    )
    parser.add_argument(
        "--jobs",
        type=jobs_type,
        metavar="N",
        help="worker processes on this machine, or workers of --cluster local "
        "(default: every core)",
    )
    parser.add_argument(
        "--cluster",
        metavar="ADDRESS",
        help="run on a Dask cluster: a scheduler's address (tcp://HOST:8786), or 'local' "
        "for a LocalCluster on this machine (needs sudoku-lens[batch])",
    )
    parser.add_argument(
        "--draw",
        metavar="DIR",
        help="also write each solved photo into DIR, as <photo>-solved.jpg for a JPEG photo, "
        "else <photo>-solved.png",
    )
    parser.add_argument(
        "--rate",
        action="store_true",
        help="also rate each solved puzzle (rating, level) with the logical solver: about 10 ms "
        "a hard puzzle, so off by default",
    )
    parser.add_argument(
        "--resume",
        action="store_true",
        help="go on with RESULTS (.jsonl or .csv): skip the items it holds, append the rest",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Run the batch, write the records, report progress and a summary on a terminal."""
    # One thread per process, set before NumPy is imported by any process of the batch: the
    # batch does no linear algebra, and OpenBLAS's idle threads spin for a tenth of a second
    # of CPU after each import, taken from the workers on a busy machine (Dask does the same).
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    if args.cluster == "local":  # before our own imports: both import at once
        from sudoku_lens.batch.forkserver import preload, start_fork_server

        start_fork_server(preload(args.cluster))
    from sudoku_lens.batch.inputs import expand
    from sudoku_lens.batch.output import output_format, read_recorded
    from sudoku_lens.outputs import check_output_path

    check_output_path(args.output, example="results.jsonl")
    output_format(args.output)
    expand(args.inputs)  # every input names something: checked before RESULTS is created
    if args.cluster is not None:
        from sudoku_lens.batch.cluster import check_distributed

        check_distributed()
    recorded = read_recorded(args.output) if args.resume else None
    on_terminal = sys.stderr.isatty()
    start = time.perf_counter()
    try:
        tally, errors = _write_records(args, recorded, on_terminal)
    except KeyboardInterrupt:
        if output_format(args.output) == "parquet":
            how = " (a Parquet file cannot be resumed)"
        elif args.resume:
            how = ": run the same command again to go on"
        else:
            how = ": add --resume to the command to go on"
        print(
            f"sudoku-lens: interrupted; the records so far are in {args.output}{how}",
            file=sys.stderr,
        )
        return 130
    if on_terminal:
        print(_summary(tally, errors, time.perf_counter() - start, args.output), file=sys.stderr)
    unsolved = tally["no solution"] + tally["several solutions"] + tally[WRONG]
    return exit_code(bad_input=tally["error"], unsolved=unsolved)


WRONG = "with a mistake marked"
"""The tally's count of photos with a wrong handwritten entry or pencilled candidates that
leave out the answer (solved, but exit code 1, as `solve` gives them), beside its counts by
status."""


def _write_records(
    args: argparse.Namespace, recorded: Any, on_terminal: bool
) -> tuple[Counter[str], list[tuple[str, int | None, str]]]:
    """Run the batch into RESULTS; the counts by status and the first errors."""
    from sudoku_lens.batch.output import ResultsWriter

    tally: Counter[str] = Counter()
    errors: list[tuple[str, int | None, str]] = []
    created = not os.path.exists(args.output)
    writer = ResultsWriter(args.output, append=args.resume)
    try:
        _write_units(args, recorded, on_terminal, writer, tally, errors)
    except SudokuLensError:  # e.g. no Dask scheduler there: leave no empty RESULTS behind
        if created and writer.units == 0:
            os.remove(args.output)
        raise
    return tally, errors


def _write_units(
    args: argparse.Namespace,
    recorded: Any,
    on_terminal: bool,
    writer: Any,
    tally: Counter[str],
    errors: list[tuple[str, int | None, str]],
) -> None:
    """Write each unit's records as it comes, counting them, with a bar on a terminal."""
    from sudoku_lens.batch import process
    from sudoku_lens.batch.work import work, work_rated

    with writer:
        done_units = process(
            args.inputs,
            jobs=args.jobs,
            cluster=args.cluster,
            draw_dir=args.draw,
            resume_from=recorded,
            encoding=writer.encoding,
            results=writer.path,
            worker=work_rated if args.rate else work,
        )
        # the bar and its threads come with the first unit, once the workers have started:
        # a process running one thread forks them at once (see batch.local)
        bar = None
        try:
            for done in done_units:
                writer.write(done)
                tally.update(done.statuses)
                tally[WRONG] += done.wrong
                errors.extend(done.errors[: _SHOWN_ERRORS - len(errors)])
                if on_terminal:
                    bar = bar or _ProgressBar(args.inputs, recorded)
                    bar.advance(done.count, tally["error"])
        finally:
            done_units.close()
            if bar is not None:
                bar.close()


class _ProgressBar:
    """tqdm on stderr: items, rate, errors so far, and an ETA once the inputs are counted (in a
    thread beside the work, since that reads them once more)."""

    def __init__(self, inputs: list[str], recorded: Any) -> None:
        from tqdm import tqdm

        self._bar = tqdm(unit="item", file=sys.stderr, dynamic_ncols=True)
        self._total: int | None = None
        self._errors = 0
        threading.Thread(target=self._count, args=(inputs, recorded), daemon=True).start()

    def _count(self, inputs: list[str], recorded: Any) -> None:
        from sudoku_lens.batch.inputs import estimate_items

        self._total = estimate_items(inputs, recorded)

    def advance(self, count: int, errors: int) -> None:
        """Count `count` more items; show the errors so far when they changed."""
        if self._total is not None and self._bar.total is None:
            self._bar.total = max(self._total, self._bar.n + count)
        if errors != self._errors:
            self._errors = errors
            self._bar.set_postfix(errors=errors, refresh=False)
        self._bar.update(count)

    def close(self) -> None:
        self._bar.close()


def _summary(
    tally: Counter[str], errors: list[tuple[str, int | None, str]], seconds: float, output: str
) -> str:
    """Counts by status, the first errors, and the rate, for the end of a batch."""
    from sudoku_lens.batch.records import STATUSES

    total = sum(tally[status] for status in STATUSES)
    wrong = f" ({tally[WRONG]:,} {WRONG})" if tally[WRONG] else ""
    errors_word = "error" if tally["error"] == 1 else "errors"
    lines = [
        f"{total:,} {'item' if total == 1 else 'items'}: {tally['solved']:,} solved{wrong}, "
        f"{tally['no solution']:,} no solution, "
        f"{tally['several solutions']:,} several solutions, {tally['error']:,} {errors_word}; "
        f"{seconds:.1f} s, {total / max(seconds, 1e-9):,.1f} items/s; records in {output}"
    ]
    for source, line, message in errors:
        if line is None and source in message:  # a photo's error names it: "x.jpg is empty"
            lines.append(f"  error: {message}")
        else:
            where = source if line is None else f"{source}:{line}"
            lines.append(f"  error: {where}: {message}")
    if tally["error"] > len(errors):
        lines.append(f"  ... and {tally['error'] - len(errors):,} more errors (see {output})")
    return "\n".join(lines)
