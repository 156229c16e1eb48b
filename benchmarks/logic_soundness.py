"""Logic solver soundness and reach: explain hard puzzles to the end, checking every step.

    python benchmarks/logic_soundness.py [DATA] [--files top1465.txt ...] [--limit N]

For each puzzle file (default: top1465.txt and se-rated-diabolical-2000.txt in DATA, which
defaults to ../shared/data/puzzles beside the repository), every puzzle is explained from its
givens with `sudoku_lens.logic.explain` (all registered techniques, easiest step first), and every
step is checked with `Step.contradictions` against the exact solver's solution. Prints the
unsound steps (each named; there must be none), the unfinished puzzles (there must be none), the
steps per technique, and milliseconds per puzzle (median, p90, max) beside the exact solver's
time for the same puzzles as the baseline. Exits 1 when a step is unsound or a puzzle unfinished.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

from sudoku_lens.logic import CandidateGrid, explain
from sudoku_lens.solve import solve_line

DEFAULT_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "puzzles"
FILES = ("top1465.txt", "se-rated-diabolical-2000.txt")


def read_lines(path: Path) -> list[str]:
    """The 81-digit puzzles of a file: one per line, alone or after an id (the rated file)."""
    puzzles = []
    for raw in path.read_text().splitlines():
        words = raw.split()
        if not words:
            continue
        puzzles.append(next(w for w in words if len(w) == 81))
    return puzzles


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def check_file(path: Path, limit: int | None) -> bool:
    """Explain every puzzle of `path`; print the figures; True when all is sound and done."""
    puzzles = read_lines(path)[:limit]
    unsound: list[str] = []
    unfinished: list[str] = []
    per_technique: Counter[str] = Counter()
    milliseconds: list[float] = []
    exact_ms: list[float] = []
    for puzzle in puzzles:
        start = time.perf_counter()
        solution = solve_line(puzzle).solution
        exact_ms.append(1000 * (time.perf_counter() - start))
        assert solution is not None, f"{puzzle} has no unique solution"
        start = time.perf_counter()
        path_taken = explain(CandidateGrid.from_puzzle(puzzle))
        milliseconds.append(1000 * (time.perf_counter() - start))
        for number, step in enumerate(path_taken.steps, start=1):
            per_technique[step.technique] += 1
            for wrong in step.contradictions(solution):
                unsound.append(f"{puzzle} step {number} {step.technique}: {wrong}")
        if not path_taken.solved:
            unfinished.append(puzzle)
    print(f"\n{path.name}: {len(puzzles)} puzzles, {sum(per_technique.values())} steps")
    print(f"  unsound steps: {len(unsound)}")
    for line in unsound[:20]:
        print(f"    {line}")
    print(f"  unfinished puzzles: {len(unfinished)}")
    for line in unfinished[:20]:
        print(f"    {line}")
    print(
        f"  ms per puzzle: median {statistics.median(milliseconds):.1f}, "
        f"p90 {percentile(milliseconds, 0.9):.1f}, max {max(milliseconds):.1f} "
        f"(exact solver, the baseline: median {statistics.median(exact_ms):.3f})"
    )
    print("  steps per technique:")
    for name, count in per_technique.most_common():
        print(f"    {name:34} {count:7}")
    return not unsound and not unfinished


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", nargs="?", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--files", nargs="+", default=list(FILES))
    parser.add_argument("--limit", type=int, default=None, help="first N puzzles of each file")
    args = parser.parse_args()
    if not args.data.is_dir():
        print(f"no puzzle folder at {args.data}", file=sys.stderr)
        return 2
    good = True
    for name in args.files:
        good &= check_file(args.data / name, args.limit)
    return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main())
