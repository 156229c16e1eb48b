"""Batch benchmark: photos on 1 and 2 worker processes and a Dask LocalCluster; a million puzzles.

    python benchmarks/batch.py [--photos ../shared/data/wicht-v2-train/printed] [--count N]
                               [--rounds 4] [--puzzles ../shared/data/puzzles/17-clue.txt]
                               [--lines 1000000]

Photos (the image files of the folder, `--count` of them): an in-process loop of `solve_photo`
(model loaded first; run before and after `--jobs 1` and averaged, as this machine's speed
drifts within minutes) against `sudoku_lens.batch.run` with `--jobs 1`, `--jobs 2` and
`--cluster local` with 2 workers, each batch in a fresh Python process of its own, as each
command runs. For each: wall time from the call (worker start-up included)
and the steady rate from the first record to the last (start-up excluded; on Dask, the first
task's records arrive together and are not counted). Ratios: jobs 2 over
jobs 1 (target 1.8 or more), jobs 1's time per photo over the in-process loop's (overhead
target under 10%), the LocalCluster over jobs 2 (target within 15%). Then `--jobs 2` and the
LocalCluster once more on a longer batch, the photos `--rounds` times over, as batches of
thousands of photos are: the cluster's start-up, fixed, weighs less there.

Puzzles: a temporary file of `--lines` puzzles, the 17-clue set repeated with its digits
relabelled and its lines shuffled each time; the solver's single-process rate on it (packed
chunks, in this process, measured before and after each batch and averaged) against whole
`sudoku-lens batch FILE -o OUT --jobs N` processes, with
the peak resident memory of the whole process tree (the command, the fork server and the workers,
summed: shared pages count more than once, so this is an upper bound) and its CPU time, sampled
every 20 ms. Targets: under 500 MB, and per core at least 80% of the single-process rate. On a
machine shared with other work the wall-clock ratios depend on what else runs; the CPU-second
ratios (puzzles per CPU second of the whole tree against the solver's) do much less.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import psutil

from sudoku_lens.batch import inputs, run
from sudoku_lens.solve import solve_packed

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data"
CHUNK = 12_000


def photo_paths(folder: Path, count: int | None) -> list[str]:
    """The image files of `folder` (by content, as the batch finds them), the first `count`."""
    paths = [unit.path for unit in inputs.expand([folder])]
    return paths[:count] if count else paths


def timed_run(paths: list[str], **options: object) -> tuple[float, float, int, int, float]:
    """(wall seconds, seconds from the first arrival of records to the last, records that came
    after the first arrival, records solved, CPU seconds of this process and its workers).

    An arrival is the records handed on together (within 5 ms): one photo in local mode, a
    task's photos on Dask, so the steady rate counts only the records made after the clock
    started, whatever the number of photos a task holds."""
    monitor = TreeMonitor(os.getpid())
    start = time.perf_counter()
    first = last = start
    solved = later = 0
    for i, record in enumerate(run(paths, **options)):  # type: ignore[arg-type]
        last = time.perf_counter()
        if i == 0:
            first = last
        later += last - first > 0.005
        solved += record.status == "solved"
    return last - start, last - first, later, solved, monitor.stop()


def timed_batch(paths: list[str], **options: object) -> tuple[float, float, int, int, float]:
    """`timed_run` in a fresh Python process, as each `sudoku-lens batch` command runs: what one
    batch leaves in a process (a fork server started with other modules, Dask's settings in its
    environment) would otherwise change the next one's start-up and speed."""
    command = [sys.executable, __file__, "--one-batch", json.dumps(options)]
    child = subprocess.run(command, input=json.dumps(paths), capture_output=True, text=True)
    if child.returncode != 0:
        sys.exit(f"the batch of {options} failed:\n{child.stderr}")
    wall, steady, later, solved, cpu = json.loads(child.stdout.splitlines()[-1])
    return wall, steady, later, solved, cpu


def bench_photos(folder: Path, count: int | None, rounds: int) -> None:
    from sudoku_lens.pipeline import solve_photo

    paths = photo_paths(folder, count)
    n = len(paths)
    print(f"photos: {n} from {folder}")
    solve_photo(paths[0])

    def in_process_loop() -> tuple[float, float]:
        start, cpu_start = time.perf_counter(), time.process_time()
        for path in paths:
            solve_photo(path)
        return time.perf_counter() - start, time.process_time() - cpu_start

    before = in_process_loop()
    results = {}
    for name, options in (
        ("--jobs 1", {"jobs": 1}),
        ("--jobs 2", {"jobs": 2}),
        ("--cluster local (2)", {"jobs": 2, "cluster": "local"}),
    ):
        wall, steady, later, solved, cpu = timed_batch(paths, **options)
        if not later or not steady:  # every result came at once (a few photos): no steady part
            steady, later = wall, n
        results[name] = (n / wall, later / steady, cpu)
        if name == "--jobs 1":
            after = in_process_loop()
            loop, loop_cpu = (before[0] + after[0]) / 2, (before[1] + after[1]) / 2
            print(
                f"  in-process loop      {1000 * loop / n:7.1f} ms/photo  {n / loop:6.2f} "
                f"photos/s  ({1000 * before[0] / n:.1f} before --jobs 1, "
                f"{1000 * after[0] / n:.1f} after; {1000 * loop_cpu / n:.1f} ms CPU/photo)"
            )
        print(
            f"  {name:20} {1000 * steady / later:7.1f} ms/photo  {n / wall:6.2f} photos/s "
            f"wall, {later / steady:6.2f} steady  ({solved} solved, {wall:.1f} s, "
            f"{1000 * cpu / n:.1f} ms CPU/photo)"
        )
    one, two, dask = results["--jobs 1"], results["--jobs 2"], results["--cluster local (2)"]
    print(
        f"  jobs 2 / jobs 1: {two[0] / one[0]:.2f}x wall, {two[1] / one[1]:.2f}x steady "
        "(target >= 1.8x)"
    )
    print(
        f"  jobs 1 overhead per photo over the loop: {100 * (n / one[1] / loop - 1):+.1f}% "
        f"steady, {100 * (n / one[0] / loop - 1):+.1f}% wall, "
        f"{100 * (one[2] / loop_cpu - 1):+.1f}% CPU (target < 10%)"
    )
    print(
        f"  cluster local / jobs 2: {dask[0] / two[0]:.2f} wall, {dask[1] / two[1]:.2f} steady, "
        f"{two[2] / dask[2]:.2f} CPU (target within 15%: >= 0.85)"
    )
    if rounds > 1:
        bench_long_batch(paths * rounds, rounds)


def bench_long_batch(paths: list[str], rounds: int) -> None:
    """--jobs 2 against --cluster local on a longer batch (the photos `rounds` times over), in
    which the cluster's start-up (some 0.4 s more than the local pool's) weighs less."""
    walls = {}
    for name, options in (
        ("--jobs 2", {"jobs": 2}),
        ("--cluster local (2)", {"jobs": 2, "cluster": "local"}),
    ):
        wall, _, _, solved, _ = timed_batch(paths, **options)
        walls[name] = wall
        print(
            f"  {name:20} {len(paths)} photos ({rounds} rounds): {wall:.1f} s, "
            f"{len(paths) / wall:6.2f} photos/s wall ({solved} solved)"
        )
    ratio = walls["--jobs 2"] / walls["--cluster local (2)"]
    print(f"  cluster local / jobs 2 over {len(paths)} photos: {ratio:.2f} wall (target >= 0.85)")


def make_bank(source: Path, lines: int, path: Path) -> None:
    """`lines` puzzles: the set repeated, digits relabelled and lines shuffled each time."""
    puzzles = [row.strip() for row in source.read_text().splitlines() if len(row.strip()) == 81]
    rng = random.Random(12)
    written = 0
    with path.open("w") as handle:
        while written < lines:
            digits = list("123456789")
            rng.shuffle(digits)
            table = str.maketrans("123456789", "".join(digits))
            part = [row.translate(table) for row in puzzles[: lines - written]]
            rng.shuffle(part)
            handle.write("\n".join(part) + "\n")
            written += len(part)


def single_process_rate(bank: Path) -> tuple[float, float]:
    """Puzzles per second and per CPU second of the solver alone in this process, on the bank
    in packed chunks."""
    data = bank.read_bytes().replace(b"\n", b"")
    start, cpu_start = time.perf_counter(), time.process_time()
    for i in range(0, len(data), 81 * CHUNK):
        solve_packed(data[i : i + 81 * CHUNK])
    count = len(data) // 81
    return count / (time.perf_counter() - start), count / (time.process_time() - cpu_start)


class TreeMonitor:
    """Samples a process tree every 20 ms in a thread: peak resident memory (summed over the
    tree) and CPU seconds (the last reading of each process, summed, less the first readings;
    the sampling thread's own CPU left out when it watches its own process).

    The tree's members are listed again every `REFRESH` seconds only: listing them scans every
    process of the machine (1.5 ms), which every 20 ms took 15% of a core from the batch it
    measured. A process found late loses nothing of its CPU (the readings are totals since it
    started), and its memory is small while it starts."""

    REFRESH = 0.2

    def __init__(self, pid: int) -> None:
        self.root = psutil.Process(pid)
        self.peak = 0
        self.cpu: dict[int, float] = {}
        self.members = self._list_members()
        self.base = dict(self._sample_cpu())
        self.running = True
        self.thread = threading.Thread(target=self._watch, daemon=True)
        self.thread.start()

    def _list_members(self) -> list[psutil.Process]:
        with contextlib.suppress(psutil.Error):
            return [self.root, *self.root.children(recursive=True)]
        return []

    def _sample_cpu(self) -> list[tuple[int, float]]:
        readings = []
        for member in self.members:
            with contextlib.suppress(psutil.Error):
                times = member.cpu_times()
                readings.append((member.pid, times.user + times.system))
        return readings

    def _watch(self) -> None:
        start = time.thread_time()
        listed = time.perf_counter()
        while self.running:
            if time.perf_counter() - listed > self.REFRESH:
                self.members, listed = self._list_members(), time.perf_counter()
            rss = 0
            for member in self.members:
                with contextlib.suppress(psutil.Error):
                    rss += member.memory_info().rss
            self.peak = max(self.peak, rss)
            self.cpu.update(self._sample_cpu())
            time.sleep(0.02)
        self.own = time.thread_time() - start

    def stop(self) -> float:
        """Stop sampling; the CPU seconds the tree spent since the monitor started."""
        self.running = False
        self.thread.join()
        self.members = self._list_members() or self.members  # the last ones, once it has ended
        self.cpu.update(self._sample_cpu())
        watching_itself = self.own if self.root.pid == os.getpid() else 0.0
        spent = sum(self.cpu.values()) - sum(self.base.get(pid, 0.0) for pid in self.cpu)
        return spent - watching_itself


def batch_process(bank: Path, output: Path, jobs: int) -> tuple[float, int, float]:
    """(wall seconds, peak tree RSS bytes, tree CPU seconds) of a `sudoku-lens batch` process."""
    command = [sys.executable, "-m", "sudoku_lens", "batch", str(bank), "-o", str(output)]
    start = time.perf_counter()
    child = subprocess.Popen([*command, "--jobs", str(jobs)])
    monitor = TreeMonitor(child.pid)
    child.wait()
    wall = time.perf_counter() - start
    cpu = monitor.stop()
    if child.returncode != 0:
        sys.exit(f"sudoku-lens batch failed with exit code {child.returncode}")
    return wall, monitor.peak, cpu


def bench_puzzles(source: Path, lines: int) -> None:
    """Each batch against the solver alone measured just before and just after it (their mean):
    this machine's speed drifts by a third within minutes, so one measurement at the start
    says little about a batch run a minute later."""
    with tempfile.TemporaryDirectory() as folder:
        bank = Path(folder) / "bank.txt"
        make_bank(source, lines, bank)
        before = single_process_rate(bank)
        print(
            f"puzzles: {lines:,} from {source.name}; solver alone {before[0]:,.0f} puzzles/s, "
            f"{before[1]:,.0f} per CPU second (measured again after each batch)"
        )
        for jobs, suffix in ((1, ".jsonl"), (2, ".jsonl"), (2, ".csv"), (2, ".parquet")):
            output = Path(folder) / f"out-{jobs}{suffix}"
            wall, peak, cpu = batch_process(bank, output, jobs)
            after = single_process_rate(bank)
            single, single_cpu = (before[0] + after[0]) / 2, (before[1] + after[1]) / 2
            rate = lines / wall
            print(
                f"  --jobs {jobs} {suffix:8} {wall:6.2f} s  {rate:9,.0f} puzzles/s  "
                f"{rate / jobs / single:5.0%} of the solver per core (wall), "
                f"{lines / cpu / single_cpu:5.0%} per CPU second  "
                f"peak RSS {peak / 2**20:5.0f} MB  ({output.stat().st_size / 2**20:.0f} MB out; "
                f"solver alone {before[0]:,.0f} before, {after[0]:,.0f} after)"
            )
            output.unlink()
            before = after


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--photos", type=Path, default=SHARED / "wicht-v2-train" / "printed")
    parser.add_argument("--count", type=int, help="photos to take (default: all)")
    parser.add_argument(
        "--rounds",
        type=int,
        default=4,
        help="the longer batch of --jobs 2 against --cluster local: the photos this many times "
        "over (1: none)",
    )
    parser.add_argument("--puzzles", type=Path, default=SHARED / "puzzles" / "17-clue.txt")
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--one-batch", metavar="OPTIONS", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one_batch:  # a child of timed_batch: the paths on stdin, the figures on stdout
        print(json.dumps(timed_run(json.load(sys.stdin), **json.loads(args.one_batch))))
        return
    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the start")
    if args.photos.is_dir():
        bench_photos(args.photos, args.count, args.rounds)
    else:
        print(f"photos: skipped, no folder {args.photos}")
    if args.puzzles.is_file():
        bench_puzzles(args.puzzles, args.lines)
    else:
        print(f"puzzles: skipped, no file {args.puzzles}")


if __name__ == "__main__":
    main()
