"""Speed of reading a photo on one core, beside the cost of just decoding the same JPEGs.

For every photo (held in memory as JPEG bytes, so the disk does not count) it times
`read_photo(bytes)` (decode, grid, cells, digits) and `cv2.imdecode` of the same bytes, and
reports the medians and their ratio, the median of each stage, and the wall time of a cold
`sudoku-lens read PHOTO` process (Python start-up and model loading included).

    python benchmarks/read.py --data ../shared/data/wicht-v2-train/printed
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

import cv2
import numpy as np

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATA = REPO.parent / "shared" / "data" / "wicht-v2-train"


def find_photos(data: Path, limit: int | None) -> list[Path]:
    """The JPEG photos under `data` (its folders, or the folder itself), in a stable order."""
    photos = sorted(data.rglob("*.jpg"))
    if not photos:
        sys.exit(f"no .jpg photos under {data}")
    if limit:
        step = max(1, len(photos) // limit)
        photos = photos[::step][:limit]
    return photos


def time_reading(blobs: list[bytes]) -> dict[str, list[float]]:
    """Per photo: wall and CPU seconds of read_photo and of imdecode alone, and each stage's
    wall seconds. CPU time is what the process itself used, so it is not inflated when other
    programs share the machine."""
    from sudoku_lens.errors import SudokuLensError
    from sudoku_lens.read import read_photo

    read_photo(blobs[0])
    times: dict[str, list[float]] = {}
    for blob in blobs:
        buffer = np.frombuffer(blob, np.uint8)
        wall, cpu = time.perf_counter(), time.process_time()
        cv2.imdecode(buffer, cv2.IMREAD_COLOR)
        times.setdefault("decode wall", []).append(time.perf_counter() - wall)
        times.setdefault("decode cpu", []).append(time.process_time() - cpu)
        wall, cpu = time.perf_counter(), time.process_time()
        try:
            reading = read_photo(blob)
        except SudokuLensError:
            reading = None
        times.setdefault("read wall", []).append(time.perf_counter() - wall)
        times.setdefault("read cpu", []).append(time.process_time() - cpu)
        if reading is not None:
            for stage, seconds in reading.timings.items():
                times.setdefault(f"stage {stage}", []).append(seconds)
    return times


def cold_command(photo: Path, runs: int) -> list[float]:
    """Wall seconds of `python -m sudoku_lens read PHOTO` in a fresh process, `runs` times."""
    env = dict(os.environ, PYTHONPATH=str(REPO / "src"))
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "sudoku_lens", "read", str(photo)],
            env=env,
            check=True,
            stdout=subprocess.DEVNULL,
        )
        times.append(time.perf_counter() - start)
    return times


def ms(seconds: float) -> str:
    return f"{1000 * seconds:.1f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="folder of photos")
    parser.add_argument("--limit", type=int, help="use N photos spread over the set")
    parser.add_argument(
        "--cold-runs", type=int, default=3, help="cold command runs (default 3; 0: none)"
    )
    args = parser.parse_args()

    cv2.setNumThreads(1)
    photos = find_photos(args.data, args.limit)
    blobs = [p.read_bytes() for p in photos]
    times = time_reading(blobs)
    median = {key: statistics.median(values) for key, values in times.items()}
    print(f"photos: {len(photos)} (one core: cv2 threads 1, ONNX Runtime intra-op threads 1)")
    for kind in ("wall", "cpu"):
        read, decode = median[f"read {kind}"], median[f"decode {kind}"]
        p90 = float(np.percentile(times[f"read {kind}"], 90))
        print(
            f"{kind:>4}: read_photo median {ms(read)} (p90 {ms(p90)}), JPEG decode only "
            f"{ms(decode)}, ratio {read / decode:.1f}x"
        )
    stages = [key for key in median if key.startswith("stage ")]
    print("stage medians (wall): " + ", ".join(f"{k[6:]} {ms(median[k])}" for k in stages))
    if args.cold_runs > 0:
        cold = cold_command(photos[0], args.cold_runs)
        print(
            f"cold `sudoku-lens read {photos[0].name}`: median {statistics.median(cold):.2f} s "
            f"(runs: {', '.join(f'{t:.2f}' for t in cold)})"
        )


if __name__ == "__main__":
    main()
