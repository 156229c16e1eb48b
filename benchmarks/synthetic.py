"""End-to-end accuracy on generated photos: how many are solved right, solved wrong or refused.

For each difficulty, photos made by `sudoku_lens.synth.synth_photo(seed, difficulty)` for seeds
1..N go through `solve_photo`. A photo is *right* when the solution is the generator's, *wrong*
when a solution is given that is not (the case that must stay rare: the user is told something
false), and *refused* when no grid is found or no unique solution is reached (the user is told
so). The seeds of the wrong and refused photos are listed, to look at with `--debug`.

    python benchmarks/synthetic.py --seeds 30
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from sudoku_lens.errors import SudokuLensError
from sudoku_lens.pipeline import solve_photo
from sudoku_lens.synth import synth_photo


def outcome(seed: int, difficulty: str) -> str:
    """'right', 'wrong' or 'refused' for one generated photo."""
    photo = synth_photo(seed, difficulty)
    try:
        result = solve_photo(photo.image)
    except SudokuLensError:
        return "refused"
    if result.solution is None:
        return "refused"
    return "right" if np.array_equal(result.solution, photo.solution) else "wrong"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=30, help="photos per difficulty (default 30)")
    parser.add_argument(
        "--difficulty", nargs="+", default=["easy", "medium", "hard"], help="difficulties to run"
    )
    args = parser.parse_args()
    print(f"{'difficulty':<10} {'right':>6} {'wrong':>6} {'refused':>8}  seconds  wrong / refused")
    for difficulty in args.difficulty:
        start = time.perf_counter()
        seeds: dict[str, list[int]] = {"right": [], "wrong": [], "refused": []}
        for seed in range(1, args.seeds + 1):
            seeds[outcome(seed, difficulty)].append(seed)
        print(
            f"{difficulty:<10} {len(seeds['right']):>6} {len(seeds['wrong']):>6} "
            f"{len(seeds['refused']):>8} {time.perf_counter() - start:8.1f}  "
            f"{seeds['wrong'] or '-'} / {seeds['refused'] or '-'}"
        )


if __name__ == "__main__":
    main()
