"""Our own solved pictures read back: does reading the answer picture give the full solution?

For every photo of a folder (`--split val`: photo N with N % 5 == 0) that `solve_photo` solves,
the answer picture (`PhotoSolution.image`: the photo with the blue digits drawn in) is read again
with `read_photo`, as it is ("picture") and as a seeded photo of it ("photo": a mild perspective
and blur, then JPEG at quality 85, as when someone photographs the screen or a print-out). A read
back is *full* when all 81 digits are the solution's. The photos whose read back is not full are
listed with what went wrong (no grid found, or the number of cells read wrong).

    python benchmarks/readback.py ../shared/data/wicht-v2-train/printed --split val
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
import time
import zlib
from pathlib import Path

import cv2
import numpy as np

from sudoku_lens.errors import SudokuLensError
from sudoku_lens.pipeline import solve_photo
from sudoku_lens.read.dataset import SPLITS
from sudoku_lens.read.evaluate import list_photos
from sudoku_lens.read.reader import read_photo

VARIANTS = ("picture", "photo")


def photo_of(picture: np.ndarray, seed: int) -> np.ndarray:
    """A seeded "photo" of a picture: its corners moved by up to 3% of its size, a slight blur,
    and JPEG compression at quality 85."""
    rng = np.random.default_rng(seed)
    height, width = picture.shape[:2]
    source = np.float32([[0, 0], [width, 0], [width, height], [0, height]])
    jitter = rng.uniform(-0.03, 0.03, (4, 2)) * np.float32([width, height])
    target = (source + jitter).astype(np.float32)
    warp = cv2.getPerspectiveTransform(source, target)
    moved = cv2.warpPerspective(
        picture, warp, (width, height), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )
    blurred = cv2.GaussianBlur(moved, (0, 0), rng.uniform(0.5, 1.0))
    ok, encoded = cv2.imencode(".jpg", blurred, [cv2.IMWRITE_JPEG_QUALITY, 85])
    assert ok
    return cv2.imdecode(encoded, cv2.IMREAD_COLOR)


def read_back(image: np.ndarray, solution: np.ndarray) -> str | None:
    """None when `image` reads back to `solution` in full, else what went wrong."""
    try:
        read = read_photo(image).grid
    except SudokuLensError as error:
        return type(error).__name__
    wrong = int((read != solution).sum())
    return None if wrong == 0 else f"{wrong} cells"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("photos", type=Path, help="folder of photos with .dat files")
    parser.add_argument("--split", choices=SPLITS, default="val", help="photos to use")
    args = parser.parse_args()
    start = time.perf_counter()
    solved = 0
    full = dict.fromkeys(VARIANTS, 0)
    failures: dict[str, list[str]] = {variant: [] for variant in VARIANTS}
    photos = list_photos(args.photos, args.split)
    for path in photos:
        try:
            result = solve_photo(path)
        except SudokuLensError:
            continue
        if result.solution is None:
            continue
        solved += 1
        seed = zlib.crc32(path.name.encode())
        pictures = {"picture": result.image, "photo": photo_of(result.image, seed)}
        for variant, image in pictures.items():
            problem = read_back(image, result.solution)
            if problem is None:
                full[variant] += 1
            else:
                failures[variant].append(f"{path.stem} ({problem})")
    print(f"{args.photos} --split {args.split}: {len(photos)} photos, {solved} solved")
    for variant in VARIANTS:
        listed = ", ".join(failures[variant]) or "-"
        count = f"{full[variant]:>3}/{solved}"
        print(f"  {variant:<8} full solution read back {count}  failed: {listed}")
    print(f"  {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
