"""Pattern techniques benchmark: soundness of every instance and the cost of looking for them.

    python benchmarks/logic_techniques.py [--data ../shared/data/puzzles] [--limit N]
        [--sets top1465.txt se-rated-diabolical-2000.txt] [--no-sweep]

Each puzzle is followed along the path that always takes the easiest step (`next_step`); where
no technique applies (the chains are not among these techniques), the solution's digit goes in
the empty cell with fewest candidates and the path goes on, so that late states are met too.

Soundness sweep: at every state of the path, every instance of every technique (`all_steps`) is
checked against the C solver's solution with `Step.contradictions`; the table gives instances
and unsound ones per technique (unsound must be 0).

Speed (CPU time of this process, one core): per puzzle, the whole `next_step` loop from the
givens to the full grid, median and mean; against it, the same loop with the singles alone, as
the baseline of the same run; and the cost of one `next_step` in a state where no technique
applies, when every technique is tried in vain.
"""

from __future__ import annotations

import argparse
import collections
import statistics
import sys
import time
from pathlib import Path

from sudoku_lens.logic import CandidateGrid, Step, all_steps, next_step
from sudoku_lens.logic.patterns import singles
from sudoku_lens.solve import solve_line

DEFAULT_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "puzzles"
DEFAULT_SETS = ("top1465.txt", "se-rated-diabolical-2000.txt")
SINGLES = {t.name for t in singles.TECHNIQUES}


def load(path: Path) -> list[str]:
    """The 81-digit puzzles of a set (plain lines, or the rated file's `id puzzle rating`)."""
    puzzles = []
    for raw in path.read_text().splitlines():
        words = raw.split()
        if words:
            puzzles.append(next(word for word in words if len(word) == 81))
    return puzzles


def _easiest_single(grid: CandidateGrid) -> Step | None:
    for technique in singles.TECHNIQUES:
        for step in technique.find(grid):
            return step
    return None


def sweep_path(puzzle: str, solution: str, found: collections.Counter, bad: list[str]) -> None:
    """Count every technique's instances at every state of the path; record unsound ones."""
    grid = CandidateGrid.from_puzzle(puzzle)
    while not grid.is_solved():
        for step in all_steps(grid):
            if step.technique in SINGLES:
                continue
            found[step.technique] += 1
            wrong = step.contradictions(solution)
            if wrong:
                bad.append(f"{puzzle} {step.technique}: {'; '.join(wrong)}")
        _advance(grid, next_step(grid), solution)


def timed_path(puzzle: str, solution: str) -> tuple[float, list[CandidateGrid]]:
    """CPU seconds of the `next_step` calls along the path, and the states where nothing
    applied."""
    grid = CandidateGrid.from_puzzle(puzzle)
    stuck: list[CandidateGrid] = []
    seconds = 0.0
    while not grid.is_solved():
        start = time.process_time()
        step = next_step(grid)
        seconds += time.process_time() - start
        if step is None:
            stuck.append(grid.copy())
        _advance(grid, step, solution)
    return seconds, stuck


def _advance(grid: CandidateGrid, step: Step | None, solution: str) -> None:
    """Apply the step or, when there is none, place the solution's digit in the empty cell
    with fewest candidates."""
    if step is not None:
        grid.apply(step)
        return
    empty = [cell for cell in range(81) if not grid.values[cell]]
    cell = min(empty, key=lambda c: grid.cands[c].bit_count())
    grid.place(cell, int(solution[cell]))


def singles_walk(puzzle: str, solution: str) -> float:
    """The same walk with the singles alone: the baseline."""
    grid = CandidateGrid.from_puzzle(puzzle)
    start = time.process_time()
    while not grid.is_solved():
        _advance(grid, _easiest_single(grid), solution)
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--sets", nargs="+", default=list(DEFAULT_SETS))
    parser.add_argument("--limit", type=int, default=0, help="first N puzzles of each set")
    parser.add_argument("--no-sweep", action="store_true", help="speed only")
    args = parser.parse_args()
    if not args.data.is_dir():
        sys.exit(f"puzzle sets not found at {args.data}")
    for name in args.sets:
        puzzles = load(args.data / name)
        if args.limit:
            puzzles = puzzles[: args.limit]
        sweep: collections.Counter[str] | None = None if args.no_sweep else collections.Counter()
        bad: list[str] = []
        times, baseline, stuck_states = [], [], []
        for puzzle in puzzles:
            solution = solve_line(puzzle).solution
            if sweep is not None:
                sweep_path(puzzle, solution, sweep, bad)
            seconds, stuck = timed_path(puzzle, solution)
            times.append(seconds)
            stuck_states.extend(stuck)
            baseline.append(singles_walk(puzzle, solution))
        start = time.process_time()
        for state in stuck_states:
            next_step(state)
        per_stuck = (time.process_time() - start) / max(1, len(stuck_states))
        print(f"{name}: {len(puzzles)} puzzles")
        if sweep is not None:
            total = sum(sweep.values())
            unsound = collections.Counter(line.split()[1].rstrip(":") for line in bad)
            print(f"  soundness: {total} instances, {len(bad)} unsound")
            for technique, count in sorted(sweep.items(), key=lambda item: -item[1]):
                print(f"    {technique:24s} {count:8d}  unsound {unsound[technique]}")
            for line in bad[:10]:
                print(f"  UNSOUND {line}")
        print(
            f"  next_step loop: median {statistics.median(times) * 1000:.1f} ms, mean "
            f"{statistics.mean(times) * 1000:.1f} ms per puzzle (singles alone: median "
            f"{statistics.median(baseline) * 1000:.1f} ms)"
        )
        print(
            f"  {len(stuck_states)} states where no technique applies "
            f"({len(stuck_states) / len(puzzles):.1f} per puzzle): "
            f"{per_stuck * 1000:.2f} ms each to try every technique"
        )


if __name__ == "__main__":
    main()
