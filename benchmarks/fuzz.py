"""Longer fuzz of the reader: mutated image files (tests/fuzz_cases.py) through `read_photo` and
`solve_photo`, each case in a worker process so that a crash is counted, not fatal.

Reports, over `--cases` cases: the outcomes (read, the project's own error), any other exception,
crashes (the worker died), hangs (a case over `--timeout` seconds) and the peak memory of the
worker during each case (its resident high-water mark, reset before every case; the goal is
under 1.5 GB).

    PYTHONPATH=src python benchmarks/fuzz.py --cases 1000 --seed 1
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1] / "tests"


def peak_mb() -> float:
    """This process's resident high-water mark in MB (VmHWM)."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no VmHWM")


def worker(seed: int) -> None:
    """Read case numbers on stdin; run each; write one JSON line per case on stdout."""
    sys.path.insert(0, str(TESTS))
    from fuzz_cases import fuzz_case
    from sudoku_lens.errors import SudokuLensError
    from sudoku_lens.pipeline import solve_photo
    from sudoku_lens.read.image_io import quiet_opencv
    from sudoku_lens.read.reader import read_photo

    quiet_opencv()
    for line in sys.stdin:
        index = int(line)
        label, data = fuzz_case(seed, index)
        with open("/proc/self/clear_refs", "w") as refs:
            refs.write("5")  # reset the high-water mark to the current size
        outcomes = []
        for step in (read_photo, solve_photo):
            try:
                step(data)
                outcomes.append("read")
            except SudokuLensError:
                outcomes.append("own error")
            except Exception as exc:  # noqa: BLE001 - reported, not raised
                outcomes.append(f"{type(exc).__name__}: {str(exc)[:200]}")
        record = {"label": label, "outcomes": outcomes, "peak_mb": peak_mb()}
        print(json.dumps(record), flush=True)


def start(seed: int) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, __file__, "--worker", "--seed", str(seed)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds before a hang")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.seed)
        return

    import selectors

    outcomes: Counter[str] = Counter()
    others: list[str] = []
    crashes: list[int] = []
    hangs: list[int] = []
    peaks: list[tuple[float, str]] = []
    began = time.monotonic()
    process = start(args.seed)
    for index in range(args.cases):
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(f"{index}\n")
        process.stdin.flush()
        selector = selectors.DefaultSelector()
        selector.register(process.stdout, selectors.EVENT_READ)
        ready = selector.select(args.timeout)
        selector.close()
        line = process.stdout.readline() if ready else ""
        if not line:
            if ready:
                crashes.append(index)
            else:
                hangs.append(index)
            process.kill()
            process.wait()
            process = start(args.seed)
            continue
        record = json.loads(line)
        for outcome in record["outcomes"]:
            if outcome in ("read", "own error"):
                outcomes[outcome] += 1
            else:
                others.append(f"{record['label']}: {outcome}")
        peaks.append((record["peak_mb"], record["label"]))
    process.stdin.close()  # type: ignore[union-attr]
    process.wait()

    peaks.sort(reverse=True)
    print(f"{args.cases} cases (seed {args.seed}), {time.monotonic() - began:.0f} s")
    print(f"calls read: {outcomes['read']}, the project's own error: {outcomes['own error']}")
    print(f"other exceptions: {len(others)}")
    for line in others[:20]:
        print(f"  {line}")
    print(f"crashes: {len(crashes)} {crashes[:20]}")
    print(f"hangs (over {args.timeout:.0f} s): {len(hangs)} {hangs[:20]}")
    if peaks:
        print(
            f"peak memory per case: max {peaks[0][0]:.0f} MB ({peaks[0][1]}), "
            f"median {peaks[len(peaks) // 2][0]:.0f} MB (goal: under 1536 MB)"
        )


if __name__ == "__main__":
    main()
