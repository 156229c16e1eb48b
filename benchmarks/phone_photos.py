"""Full-size phone photos: reading speed with the JPEG decoded reduced, the digits it reads
against decoding every pixel, and the size of the solved picture written by default.

For every photo (held in memory as JPEG bytes, so the disk does not count) it times, in turn,
on one core: `read_photo(bytes)` (the JPEG decoded reduced to the size the reader needs),
`read_image(load_image(bytes))` (every pixel decoded, then read) and `read_photo` of the same
photo brought down to a longer side of 1000 pixels beforehand (a JPEG at quality 95). It reports
the medians and the ratios to the 1000-pixel read, the photos whose digits differ between the
reduced and the whole decoding, and the size of the default solved picture (`solve PHOTO`:
a JPEG at quality 90 for a JPEG photo) beside that of a PNG of it.

    python benchmarks/phone_photos.py --data ../shared/data/kubiesa-train/images
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np

from sudoku_lens.errors import SudokuLensError
from sudoku_lens.pipeline import default_output_path, solve_photo
from sudoku_lens.read.image_io import load_image, probe_image, write_image
from sudoku_lens.read.reader import read_image, read_photo

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATA = REPO.parent / "shared" / "data" / "kubiesa-train" / "images"
BROUGHT_DOWN = 1000
"""Longer side, in pixels, of the photo brought down beforehand that the reads are set against."""


def brought_down(data: bytes) -> bytes:
    """The JPEG `data` with its longer side brought down to BROUGHT_DOWN pixels (quality 95)."""
    image = load_image(data)
    scale = BROUGHT_DOWN / max(image.shape[:2])
    small = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    return cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, 95])[1].tobytes()


def timed(read: object, data: bytes) -> tuple[float, float, np.ndarray | None]:
    """Wall and CPU seconds of `read(data)` and the digits it read (None when it found no grid).
    CPU time is what this process used, so it is not inflated when other programs share the
    machine."""
    wall, cpu = time.perf_counter(), time.process_time()
    try:
        grid = read(data).grid  # type: ignore[operator]
    except SudokuLensError:
        grid = None
    return time.perf_counter() - wall, time.process_time() - cpu, grid


def whole(data: bytes) -> object:
    """Read a photo as the reader did before reducing JPEGs: every pixel decoded first."""
    return read_image(load_image(data))


def ms(seconds: float) -> str:
    return f"{1000 * seconds:.0f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="folder of JPEG photos")
    parser.add_argument("--limit", type=int, help="use N photos spread over the set")
    parser.add_argument("--repeats", type=int, default=3, help="timed reads of each (default 3)")
    args = parser.parse_args()

    cv2.setNumThreads(1)
    photos = sorted(args.data.glob("*.jpg"))
    if not photos:
        sys.exit(f"no .jpg photos in {args.data}")
    if args.limit:
        photos = photos[:: max(1, len(photos) // args.limit)][: args.limit]
    read_photo(photos[0].read_bytes())  # models loaded before timing
    reads = {"reduced": read_photo, "whole": whole, "small": read_photo}
    medians: dict[str, list[float]] = {f"{key} {c}": [] for key in reads for c in ("wall", "cpu")}
    differing, sizes = [], []
    for photo in photos:
        data = photo.read_bytes()
        sources = {"reduced": data, "whole": data, "small": brought_down(data)}
        times: dict[str, list[float]] = {key: [] for key in medians}
        grids = {}
        for _ in range(args.repeats):
            for key, read in reads.items():
                wall, cpu, grids[key] = timed(read, sources[key])
                times[f"{key} wall"].append(wall)
                times[f"{key} cpu"].append(cpu)
        reduced_grid, whole_grid = grids["reduced"], grids["whole"]
        for key, values in times.items():
            medians[key].append(statistics.median(values))
        same = (reduced_grid is None) == (whole_grid is None)
        if not same or (reduced_grid is not None and not np.array_equal(reduced_grid, whole_grid)):
            cells = "no grid" if not same else int((reduced_grid != whole_grid).sum())
            differing.append(f"{photo.name} ({cells} cells)")
        sizes.append(picture_sizes(photo, data))
    print(f"photos: {len(photos)} from {args.data}, one core (cv2 threads 1, OMP_NUM_THREADS=1)")
    groups: dict[str, list[int]] = {}
    for index, photo in enumerate(photos):
        _, width, height = probe_image(photo.read_bytes())
        size = f"{max(width, height)}x{min(width, height)} ({width * height / 1e6:.0f} MP)"
        groups.setdefault(size, []).append(index)
    for size, members in sorted(groups.items()):
        print(f"{size}, {len(members)} photos (medians of each photo's median):")
        for clock in ("wall", "cpu"):
            group = {key: [values[i] for i in members] for key, values in medians.items()}
            small = group[f"small {clock}"]
            line = f"  {clock:>4}: {BROUGHT_DOWN} px beforehand {ms(statistics.median(small))}"
            for key in ("reduced", "whole"):
                read = group[f"{key} {clock}"]
                ratios = [a / b for a, b in zip(read, small, strict=True)]
                line += (
                    f"; decoded {key} {ms(statistics.median(read))}, "
                    f"{statistics.median(ratios):.2f}x ({min(ratios):.2f}-{max(ratios):.2f})"
                )
            print(line)
    print(
        f"digits that differ between reduced and whole decoding: {len(differing)} photos"
        + (f": {', '.join(differing)}" if differing else "")
    )
    solved = [size for size in sizes if size is not None]
    if solved:
        jpeg, png, pixels = (np.array(column) for column in zip(*solved, strict=True))
        print(
            f"default solved picture of {len(solved)} photos ({pixels.min():.0f}-"
            f"{pixels.max():.0f} MP): median {np.median(jpeg):.2f} MB, largest {jpeg.max():.2f} MB"
            f" (as PNG: median {np.median(png):.1f} MB, largest {png.max():.1f} MB)"
        )


def picture_sizes(photo: Path, data: bytes) -> tuple[float, float, float] | None:
    """MB of the default solved picture of `photo` and of a PNG of it, and its megapixels; None
    when it is not solved."""
    try:
        result = solve_photo(data)
    except SudokuLensError:
        return None
    if not result.solved:
        return None
    with tempfile.TemporaryDirectory() as folder:
        default = Path(folder) / default_output_path(photo, kind=result.reading.photo.kind)
        jpeg = write_image(default, result.image).stat().st_size
        png = write_image(Path(folder) / "solved.png", result.image).stat().st_size
    height, width = result.image.shape[:2]
    return jpeg / 2**20, png / 2**20, width * height / 1e6


if __name__ == "__main__":
    main()
