"""Photos taken badly: the validation photos degraded as a phone may take them, then solved.

Each photo of a folder (`--split val`: photo N with N % 5 == 0) is changed in software under
each condition below and given to `solve_photo`. A run is *exact* when all 81 digits read are
the truth's, *right* when the answer is the true solution, *wrong* when it is another (the
outcome that must not happen), *several* or *none* when the givens read have several or no
solutions, *refused* when no grid was found (or the grid was refused as cut off). Deterministic:
the noise is seeded.

    python benchmarks/conditions.py ../shared/data/wicht-v2-train/printed --split val
    python benchmarks/conditions.py ../shared/data/wicht-v2-train/printed --only shadow
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

from sudoku_lens.errors import GridNotFoundError
from sudoku_lens.pipeline import solve_photo
from sudoku_lens.read.dataset import SPLITS, read_dat
from sudoku_lens.read.evaluate import list_photos
from sudoku_lens.read.image_io import load_image
from sudoku_lens.solve import Status, solve

Change = Callable[[np.ndarray], np.ndarray]


def _per_1000(image: np.ndarray) -> float:
    """Pixels of this image per pixel of the same photo brought to a 1000-pixel long side."""
    return max(image.shape[:2]) / 1000.0


def shadow(light: float) -> Change:
    """The lower-right half in a shadow that leaves `light` of the light, its edge (2% of the
    photo wide) along the diagonal from the top right to the bottom left, across the grid."""

    def change(image: np.ndarray) -> np.ndarray:
        h, w = image.shape[:2]
        y, x = np.mgrid[0:h, 0:w].astype(np.float32)
        across = (x / w + y / h - 1.0) * max(h, w) / (0.02 * max(h, w))
        shade = 1.0 - np.clip(0.5 + across, 0.0, 1.0) * (1.0 - light)
        return np.clip(image * shade[..., None], 0, 255).astype(np.uint8)

    return change


def motion_blur(length: float) -> Change:
    """A diagonal shake `length` pixels long at a 1000-pixel long side."""

    def change(image: np.ndarray) -> np.ndarray:
        n = max(3, round(length * _per_1000(image)))
        kernel = np.eye(n, dtype=np.float32) / n
        return cv2.filter2D(image, -1, kernel)

    return change


def noise(sigma: float) -> Change:
    """Gaussian sensor noise of `sigma` grey levels (seeded)."""

    def change(image: np.ndarray) -> np.ndarray:
        grain = np.random.default_rng(0).normal(0.0, sigma, image.shape)
        return np.clip(image + grain, 0, 255).astype(np.uint8)

    return change


def dark(factor: float) -> Change:
    """Every pixel times `factor`: a photo taken in dim light."""
    return lambda image: np.clip(image * np.float32(factor), 0, 255).astype(np.uint8)


def low_contrast(factor: float) -> Change:
    """Grey levels pulled towards mid-grey by `factor`: a washed-out photo."""
    return lambda image: np.clip(128 + (image - 128.0) * factor, 0, 255).astype(np.uint8)


def tilted(pull: float) -> Change:
    """The photo's top edge pulled in by `pull` of its width at each end and its height
    squashed to 70%: the page seen from low down."""

    def change(image: np.ndarray) -> np.ndarray:
        h, w = image.shape[:2]
        source = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
        target = np.float32([[pull * w, 0.3 * h], [(1 - pull) * w, 0.3 * h], [w, h], [0, h]])
        warp = cv2.getPerspectiveTransform(source, target)
        fill = tuple(int(v) for v in np.median(image[-1], axis=0))
        return cv2.warpPerspective(image, warp, (w, h), borderValue=fill)

    return change


CONDITIONS: dict[str, dict[str, Change]] = {
    "shadow": {"x0.7": shadow(0.7), "x0.5": shadow(0.5), "x0.3": shadow(0.3)},
    "motion-blur": {"10 px": motion_blur(10), "15 px": motion_blur(15)},
    "noise": {"sigma 15": noise(15), "sigma 30": noise(30)},
    "dark": {"x0.35": dark(0.35)},
    "low-contrast": {"x0.35": low_contrast(0.35)},
    "tilted": {"0.25": tilted(0.25), "0.3": tilted(0.3)},
}
"""Each condition's strengths, mildest first."""

OUTCOMES = ("exact", "right", "wrong", "several", "none", "refused")


def outcome(image: np.ndarray, truth: np.ndarray, solution: np.ndarray) -> tuple[bool, str]:
    """Whether every digit read is the truth's, and how the solve ended (`OUTCOMES[1:]`)."""
    try:
        result = solve_photo(image)
    except GridNotFoundError:
        return False, "refused"
    exact = bool((result.reading.grid == truth).all())
    if result.status is Status.SEVERAL:
        return exact, "several"
    if result.solution is None:
        return exact, "none"
    return exact, "right" if (result.solution == solution).all() else "wrong"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("photos", type=Path, help="folder of photos with .dat files")
    parser.add_argument("--split", choices=SPLITS, default="val", help="photos to use")
    parser.add_argument(
        "--only", nargs="+", choices=sorted(CONDITIONS), help="conditions to run (default: all)"
    )
    args = parser.parse_args()
    start = time.perf_counter()
    photos = list_photos(args.photos, args.split)
    chosen = {name: CONDITIONS[name] for name in args.only or CONDITIONS}
    counts: dict[tuple[str, str], Counter[str]] = {
        (name, strength): Counter() for name, strengths in chosen.items() for strength in strengths
    }
    wrong: dict[tuple[str, str], list[str]] = {key: [] for key in counts}
    for path in photos:
        truth = read_dat(path.with_suffix(".dat"))
        solution = solve(truth).grid
        image = load_image(path)
        for name, strengths in chosen.items():
            for strength, change in strengths.items():
                exact, how = outcome(change(image), truth, solution)
                counts[name, strength][how] += 1
                counts[name, strength]["exact"] += exact
                if how == "wrong":
                    wrong[name, strength].append(path.stem)
    print(f"{args.photos} --split {args.split}: {len(photos)} photos under each condition")
    print(f"  {'condition':<24}" + "".join(f"{o:>9}" for o in OUTCOMES))
    for (name, strength), count in counts.items():
        listed = f"  wrong: {', '.join(wrong[name, strength])}" if wrong[name, strength] else ""
        row = "".join(f"{count[o]:>9}" for o in OUTCOMES)
        print(f"  {name + ' ' + strength:<24}{row}{listed}")
    print(f"  {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
