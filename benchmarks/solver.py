"""Solver benchmark: speed on each puzzle set, the tutorial baseline, and the whole command.

    python benchmarks/solver.py [--data ../shared/data/puzzles] [--baseline-timeout S]

For every set in the data folder: puzzles per second of `sudoku_lens.solve.solve_lines` in this
process (proving uniqueness, best of --repeat runs), median and worst milliseconds per puzzle
(each puzzle's best time over the runs, so that a preempted run does not count), and mean
guesses. Then the classic tutorial backtracking (pure Python, first solution only) on
easy50.txt and how many times faster the solver is; then whole `sudoku-lens solve FILE -o OUT`
processes on 17-clue and forum-hardest-1905 (start-up, reading and writing included), and the
median wall time of a cold `sudoku-lens solve <one puzzle>`.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from backtrack import solve_backtracking
from sudoku_lens.puzzle.text import read_puzzles
from sudoku_lens.solve import Status, solve_lines

SETS = (
    "easy50.txt",
    "top95.txt",
    "top1465.txt",
    "forum-hardest-1106.txt",
    "17-clue.txt",
    "forum-hardest-1905.txt",
)
PROCESS_SETS = ("17-clue.txt", "forum-hardest-1905.txt")
DEFAULT_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "puzzles"


def load(path: Path) -> list[str]:
    """The puzzle lines of a set; every one must be readable."""
    entries = read_puzzles(path.read_text())
    bad = [entry for entry in entries if entry.line is None]
    if bad:
        sys.exit(f"{path}: line {bad[0].number}: {bad[0].error}")
    return [entry.line for entry in entries]


def bench_set(lines: list[str], repeat: int) -> dict[str, float]:
    """Throughput (best run), per-puzzle median and worst (best over runs), mean guesses."""
    best_rate, per_puzzle = 0.0, [float("inf")] * len(lines)
    for _ in range(repeat):
        start = time.perf_counter()
        result = solve_lines(lines)
        best_rate = max(best_rate, len(lines) / (time.perf_counter() - start))
        per_puzzle = [min(a, b) for a, b in zip(per_puzzle, result.seconds, strict=True)]
        unsolved = sum(status is not Status.SOLVED for status in result.statuses)
        if unsolved:
            sys.exit(f"{unsolved} puzzles were not solved uniquely: the solver is broken")
    return {
        "rate": best_rate,
        "median_ms": 1e3 * statistics.median(per_puzzle),
        "worst_ms": 1e3 * max(per_puzzle),
        "guesses": statistics.fmean(result.guesses),
    }


def bench_baseline(lines: list[str], timeout: float) -> tuple[float, int]:
    """Puzzles per second of the tutorial backtracking, and how many ran out of time."""
    solved, timed_out, start = 0, 0, time.perf_counter()
    for line in lines:
        try:
            solved += solve_backtracking(line, deadline=time.perf_counter() + timeout) is not None
        except TimeoutError:
            timed_out += 1
    return solved / (time.perf_counter() - start), timed_out


def command() -> list[str]:
    """How to start `sudoku-lens`: the console script beside this Python, else `-m`."""
    script = Path(sys.executable).with_name("sudoku-lens")
    if script.exists():
        return [str(script)]
    found = shutil.which("sudoku-lens")
    return [found] if found else [sys.executable, "-m", "sudoku_lens"]


def bench_process(path: Path, count: int, repeat: int) -> float:
    """Puzzles per second of a whole `sudoku-lens solve FILE -o OUT` process (best run)."""
    best = float("inf")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "solutions.txt"
        for _ in range(repeat):
            start = time.perf_counter()
            subprocess.run(
                [*command(), "solve", str(path), "-o", str(out)],
                check=True,
                stderr=subprocess.DEVNULL,
            )
            best = min(best, time.perf_counter() - start)
        if sum(1 for row in out.read_text().splitlines() if not row.startswith("error")) != count:
            sys.exit(f"sudoku-lens solve {path} did not solve every puzzle")
    return count / best


def bench_cold(puzzle: str, runs: int) -> float:
    """Median wall seconds of a fresh `sudoku-lens solve PUZZLE` process."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([*command(), "solve", puzzle], check=True, stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="puzzle set folder")
    parser.add_argument(
        "--baseline-timeout",
        type=float,
        default=10.0,
        metavar="S",
        help="seconds the tutorial backtracking may spend on one puzzle (default 10)",
    )
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement (default 3)")
    args = parser.parse_args()
    if not args.data.is_dir():
        print(f"skipped: puzzle folder {args.data} not found (give it with --data)")
        return 0

    sets = {name: load(args.data / name) for name in SETS if (args.data / name).exists()}
    print(f"solver, in process, proving uniqueness (best of {args.repeat} runs)")
    print(
        f"{'set':<24}{'puzzles':>9}{'puzzles/s':>12}{'median ms':>11}{'worst ms':>10}{'guesses':>9}"
    )
    rates = {}
    for name, lines in sets.items():
        row = bench_set(lines, args.repeat)
        rates[name] = row["rate"]
        print(
            f"{name:<24}{len(lines):>9,}{row['rate']:>12,.0f}{row['median_ms']:>11.3f}"
            f"{row['worst_ms']:>10.3f}{row['guesses']:>9.1f}"
        )

    if "easy50.txt" in sets:
        rate, timed_out = bench_baseline(sets["easy50.txt"], args.baseline_timeout)
        note = f", {timed_out} over {args.baseline_timeout:g} s" if timed_out else ""
        print(
            f"\ntutorial backtracking (pure Python, first solution) on easy50.txt: "
            f"{rate:,.1f} puzzles/s{note}"
        )
        print(f"the solver is {rates['easy50.txt'] / rate:,.0f} times faster on easy50.txt")

    print(f"\nwhole process: {' '.join(command())} solve FILE -o OUT (best of {args.repeat})")
    for name in PROCESS_SETS:
        if name in sets:
            rate = bench_process(args.data / name, len(sets[name]), args.repeat)
            print(f"{name:<24}{rate:>12,.0f} puzzles/s")
    puzzle = next(iter(sets.values()))[0]
    cold = bench_cold(puzzle, runs=9)
    print(f"cold single puzzle (median of 9 processes): {cold * 1e3:.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
