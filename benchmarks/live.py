"""Live-mode benchmark: frames per second once a puzzle is solved, and time to the first answer.

    PYTHONPATH=src python benchmarks/live.py [--seeds 3] [--frames 150] [--size 1280x720]

For each seed a synthetic video (`sudoku_lens.synth.synth_video`: a page moving and tilting
under the camera, a few frames of text first, then the puzzle) is written to a temporary MP4.
Everything runs on one core (OpenCV with one thread, ONNX Runtime with one intra-op thread).

- decode: frames per second of just decoding the MP4 with OpenCV;
- live: decoding plus `LiveSolver.process` on each frame, and `process` alone, counted over the
  frames where the answer is drawn (the steady state the 30 fps target is about), with the
  ratio of live to decode-only time per frame;
- first answer: from the first frame that shows the grid to the first frame with the answer
  drawn, in frames, in seconds of video, and in seconds of processing (the latency a camera
  user would see when every frame is processed).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import cv2

from sudoku_lens.live import LiveSolver
from sudoku_lens.read.digits import MODEL_PATH
from sudoku_lens.synth import synth_video

LEAD_IN = 15
"""Frames of text before the grid comes into view."""


def decode_seconds(path: Path) -> tuple[int, float]:
    """(frames, seconds) to decode the whole video; best of two passes."""
    best = float("inf")
    frames = 0
    for _ in range(2):
        capture = cv2.VideoCapture(str(path))
        start = time.perf_counter()
        frames = 0
        while capture.read()[0]:
            frames += 1
        best = min(best, time.perf_counter() - start)
        capture.release()
    return frames, best


def run_seed(seed: int, frames: int, size: tuple[int, int], folder: Path) -> dict[str, float]:
    """Benchmark one synthetic video; a dict of figures."""
    video = synth_video(seed, schedule=((None, LEAD_IN), (0, frames)), size=size)
    path = video.write(folder / f"live-{seed}.mp4")
    count, decode = decode_seconds(path)

    solver = LiveSolver()
    capture = cv2.VideoCapture(str(path))
    per_frame: list[tuple[float, float, bool, bool]] = []
    index = 0
    while True:
        start = time.perf_counter()
        ok, frame = capture.read()
        if not ok:
            break
        decoded = time.perf_counter()
        result = solver.process(frame, index / video.fps)
        done = time.perf_counter()
        expected = video.truth[index].puzzle
        right = result.puzzle is not None and (result.puzzle == video.puzzles[0]).all()
        per_frame.append((done - start, done - decoded, result.drawn, result.drawn and right))
        if result.drawn and expected is None:
            raise SystemExit(f"seed {seed}: answer drawn on frame {index}, which shows no grid")
        index += 1
    capture.release()

    solved = [p for p in per_frame if p[2]]
    if not solved:
        raise SystemExit(f"seed {seed}: the puzzle was never solved")
    first = next(i for i, p in enumerate(per_frame) if p[2])
    return {
        "seed": seed,
        "frames": count,
        "decode_fps": count / decode,
        "solved_frames": len(solved),
        "right_frames": sum(p[3] for p in solved),
        "live_fps": len(solved) / sum(p[0] for p in solved),
        "process_fps": len(solved) / sum(p[1] for p in solved),
        "process_ms_p95": 1000 * sorted(p[1] for p in solved)[int(0.95 * (len(solved) - 1))],
        "ratio": (sum(p[0] for p in solved) / len(solved)) / (decode / count),
        "first_frames": first - LEAD_IN + 1,
        "first_video_s": (first - LEAD_IN + 1) / video.fps,
        "first_process_s": sum(p[0] for p in per_frame[LEAD_IN : first + 1]),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3, help="videos to average over")
    parser.add_argument("--frames", type=int, default=150, help="frames showing the puzzle")
    parser.add_argument("--size", default="1280x720", help="frame size WIDTHxHEIGHT")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    if not MODEL_PATH.exists():
        sys.exit(f"the digit model {MODEL_PATH} is missing: train it first")
    width, height = (int(v) for v in args.size.lower().split("x"))
    cv2.setNumThreads(1)

    with tempfile.TemporaryDirectory() as tmp:
        rows = [
            run_seed(seed, args.frames, (width, height), Path(tmp)) for seed in range(args.seeds)
        ]
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    print(f"live mode, {width}x{height}, one core, {args.frames} frames of puzzle per video")
    header = (
        f"{'seed':>4} {'decode fps':>10} {'live fps':>9} {'process fps':>11} {'p95 ms':>7} "
        f"{'x decode':>8} {'drawn':>7} {'right':>6} {'first: frames':>13} {'video s':>8} "
        f"{'process s':>9}"
    )
    print(header)
    for r in rows:
        print(
            f"{r['seed']:>4} {r['decode_fps']:>10.0f} {r['live_fps']:>9.1f} "
            f"{r['process_fps']:>11.1f} {r['process_ms_p95']:>7.1f} {r['ratio']:>8.2f} "
            f"{r['solved_frames']:>7} {r['right_frames']:>6} {r['first_frames']:>13} "
            f"{r['first_video_s']:>8.2f} {r['first_process_s']:>9.2f}"
        )
    median = statistics.median
    print(
        f"median: live {median(r['live_fps'] for r in rows):.1f} fps "
        f"(process alone {median(r['process_fps'] for r in rows):.1f} fps, "
        f"{median(r['ratio'] for r in rows):.2f}x the cost of decoding); first answer after "
        f"{median(r['first_process_s'] for r in rows):.2f} s of processing, "
        f"{median(r['first_video_s'] for r in rows):.2f} s of video"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
