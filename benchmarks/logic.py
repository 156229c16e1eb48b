"""The logical solver's ratings against Sudoku Explainer's, and its speed, on one core.

- Agreement: Spearman rank correlation between `rate` and Sudoku Explainer (SE) on the held-out
  half of `se-rated-diabolical-2000.txt` (chosen by a hash of each id, `calibration.held_out`)
  and on the whole file, over the puzzles the techniques finish, and again with the unfinished
  ones counted as the hardest (tied); a baseline in the same run: the number of empty cells as
  a rating. Target (issue 10): 0.85 or more on the held-out half.
- easy50: how many puzzles get the level "easy" (the issue's target: all; Sudoku Explainer 1.2.1
  itself rates 43 of the 49 easy), and on how many the rating and the level are SE's own
  (`calibration.SE_EASY50`).
- Speed: `sudoku-lens rate FILE --json` run as one process pinned to one core; the median and
  90th percentile of each puzzle's own seconds, and the wall time per puzzle of the whole
  process (start-up included). Target: median 20 ms or less. A newspaper puzzle (rated under 4):
  the best of 200 in-process `rate` calls (target 2 ms or less).
- Hint on a photo: `hint_photo` against `read_photo` alone on the bundled example (median of 15),
  the overhead being the difference (target: under 20 ms).

    python benchmarks/logic.py                  # everything
    python benchmarks/logic.py --calibrate      # also fit RATING_ADJUSTMENTS on the training half

`--calibrate` explains the training half once, fits per-technique offsets (coordinate ascent on
Spearman, `calibration.fit_adjustments`), prints the table to paste into `logic/rating.py` and the
held-out Spearman the table gives.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PUZZLES = REPO.parent / "shared" / "data" / "puzzles"
EXAMPLE = REPO / "src" / "sudoku_lens" / "examples" / "example.jpg"
NEWSPAPER = "530070000600195000098000060800060003400803001700020006060000280000419005000080079"
TARGET_SPEARMAN = 0.85


def rate_in_one_process(lines: list[str]) -> tuple[list[dict], float]:
    """Rate `lines` with `sudoku-lens rate --json` in one process on one core; the records and
    the process's wall seconds."""
    command = [sys.executable, "-m", "sudoku_lens", "rate", "-", "--json"]
    if hasattr(os, "sched_setaffinity"):
        command = ["taskset", "-c", str(min(os.sched_getaffinity(0))), *command]
    start = time.perf_counter()
    done = subprocess.run(
        command, input="\n".join(lines) + "\n", capture_output=True, text=True, check=False
    )
    wall = time.perf_counter() - start
    if done.returncode not in (0, 1):
        sys.exit(f"sudoku-lens rate failed: {done.stderr.strip()}")
    return [json.loads(row) for row in done.stdout.splitlines()], wall


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def agreement(name: str, pairs: list[tuple[float | None, float, str]]) -> None:
    """Print Spearman for (our rating or None, SE rating, puzzle) triples."""
    from sudoku_lens.logic.calibration import spearman

    finished = [(ours, se) for ours, se, _ in pairs if ours is not None]
    top = max((ours for ours, _ in finished), default=0.0) + 1
    counted = [(top if ours is None else ours, se) for ours, se, _ in pairs]
    blanks = [(float(puzzle.count("0")), se) for _, se, puzzle in pairs]
    print(f"  {name}: {len(pairs)} puzzles, {len(finished)} finished by the techniques")
    if len(finished) >= 2:
        rho = spearman(*zip(*finished, strict=True))
        verdict = "meets" if rho >= TARGET_SPEARMAN else "misses"
        print(f"    Spearman, finished puzzles: {rho:.3f} ({verdict} the {TARGET_SPEARMAN} target)")
    else:
        print("    Spearman, finished puzzles: too few finished to say")
    print(f"    Spearman, unfinished counted hardest: {spearman(*zip(*counted, strict=True)):.3f}")
    print(f"    baseline, empty cells as rating: {spearman(*zip(*blanks, strict=True)):.3f}")


def bench_rated(path: Path) -> None:
    from sudoku_lens.logic.calibration import held_out, read_rated

    rated = read_rated(path)
    records, wall = rate_in_one_process([r.puzzle for r in rated])
    print(f"rated file: {path.name}")
    pairs = [
        (rec.get("rating"), r.se_rating, r.puzzle) for rec, r in zip(records, rated, strict=True)
    ]
    held = [p for p, r in zip(pairs, rated, strict=True) if held_out(r.id)]
    agreement("held-out half", held)
    agreement("whole file", pairs)
    ms = [rec["seconds"] * 1000 for rec in records if "seconds" in rec]
    errors = sum("error" in rec for rec in records)
    print(
        f"  speed, one core: median {statistics.median(ms):.2f} ms, p90 {percentile(ms, 0.9):.2f} "
        f"ms per puzzle (target median <= 20 ms); whole process {wall:.2f} s = "
        f"{wall / len(rated) * 1000:.2f} ms per puzzle; {errors} errors"
    )
    levels: dict[str, int] = {}
    for rec in records:
        levels[rec.get("level") or "unrated"] = levels.get(rec.get("level") or "unrated", 0) + 1
    print(f"  levels: {levels}")


def bench_easy(path: Path) -> None:
    from sudoku_lens.logic import level_of
    from sudoku_lens.logic.calibration import SE_EASY50

    records, _ = rate_in_one_process(path.read_text().split())
    easy = sum(rec.get("level") == "easy" for rec in records)
    unrated = sum(rec.get("rating") is None for rec in records)
    same = sum(rec.get("rating") == se for rec, se in zip(records, SE_EASY50, strict=True))
    level = sum(
        rec.get("level") == level_of(se) for rec, se in zip(records, SE_EASY50, strict=True)
    )
    se_easy = sum(level_of(se) == "easy" for se in SE_EASY50)
    print(
        f"easy50: {easy} of {len(records)} rated easy (Sudoku Explainer 1.2.1: {se_easy}), "
        f"{unrated} not finished; the same rating as SE on {same}, the same level on {level}"
    )


def bench_newspaper() -> None:
    from sudoku_lens.logic import rate

    rating = rate(NEWSPAPER)
    best = min(_timed(lambda: rate(NEWSPAPER)) for _ in range(200))
    print(
        f"newspaper puzzle ({rating.text()}): best of 200 in-process rate() calls "
        f"{best * 1000:.3f} ms (target <= 2 ms)"
    )


def bench_hint_photo(runs: int = 15) -> None:
    from sudoku_lens.hints import hint_photo
    from sudoku_lens.read import read_photo

    data = EXAMPLE.read_bytes()
    hint_photo(data)
    read_ms = statistics.median(_timed(lambda: read_photo(data)) for _ in range(runs)) * 1000
    hint_ms = statistics.median(_timed(lambda: hint_photo(data)) for _ in range(runs)) * 1000
    print(
        f"hint on the example photo: read_photo {read_ms:.1f} ms, hint_photo {hint_ms:.1f} ms, "
        f"overhead {hint_ms - read_ms:.1f} ms (target < 20 ms)"
    )


def calibrate(path: Path) -> None:
    from sudoku_lens.logic.calibration import (
        fit_adjustments,
        held_out,
        profile,
        rating_with,
        read_rated,
        spearman,
    )

    rated = read_rated(path)
    profiles = [(profile(r.puzzle), r) for r in rated]
    train = [(p, r.se_rating) for p, r in profiles if p is not None and not held_out(r.id)]
    test = [(p, r.se_rating) for p, r in profiles if p is not None and held_out(r.id)]
    if len(train) < 10 or len(test) < 2:
        print(f"calibration: only {len(train)} training puzzles finished; nothing to fit")
        return
    adjustments = fit_adjustments([p for p, _ in train], [se for _, se in train])

    def rho(pairs, table):
        return spearman([rating_with(p, table) for p, _ in pairs], [se for _, se in pairs])

    print(f"calibration on {len(train)} finished training puzzles:")
    print(f"  RATING_ADJUSTMENTS = {json.dumps(adjustments, sort_keys=True)}")
    print(f"  training Spearman {rho(train, {}):.3f} -> {rho(train, adjustments):.3f}")
    print(f"  held-out Spearman {rho(test, {}):.3f} -> {rho(test, adjustments):.3f}")


def _timed(func) -> float:
    start = time.perf_counter()
    func()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--puzzles", type=Path, default=PUZZLES, help="the puzzle sets' folder")
    parser.add_argument("--calibrate", action="store_true", help="fit RATING_ADJUSTMENTS too")
    args = parser.parse_args()
    rated = args.puzzles / "se-rated-diabolical-2000.txt"
    if not rated.exists():
        sys.exit(f"{rated} not found: the benchmark needs ../shared/data/puzzles")
    bench_rated(rated)
    bench_easy(args.puzzles / "easy50.txt")
    bench_newspaper()
    bench_hint_photo()
    if args.calibrate:
        calibrate(rated)


if __name__ == "__main__":
    main()
