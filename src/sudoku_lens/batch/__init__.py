"""Batches: many photos and puzzle files, on every core of this machine or on a Dask cluster.

`run(inputs)` yields one `Record` per photo or puzzle; `process(inputs)` yields one `Done` per
unit of work (a photo, or a piece of a puzzle file of about 1 MB), for writers that take whole
units (the `batch` command). Both stream: inputs are expanded lazily (see `batch.inputs`), at most
`window` units are out at once, and nothing is kept once it has been handed on.

Order: records come out in input order (inputs as given; folders and patterns in name order;
puzzle files line by line), in local mode and on Dask alike. Finished units wait in a buffer
of at most `window` units until those before them are done, so one slow photo holds back the
output, never the memory bound.

Spill files: with `spill_dir` and an `encoding`, local workers write each unit's rows to a file
in a temporary folder made in `spill_dir` and the `Done` names it (`Done.spill`) instead of
holding them: a writer copies that file into its results (see `batch.output`) in the kernel,
never reading the rows. Each file is removed when the next `Done` is asked for, and the folder
when the batch ends or is stopped. A batch killed outright (SIGKILL, a power cut) cannot clean
up: the folder's name records its owner (a tag of the host, the process id and the process's
start time), and the next batch with a `spill_dir` there removes the folders whose owner is gone
(`remove_stale_spill_folders`), never one of a live batch. Dask workers, which may be on other
machines, always send their rows back.

Resume: with `resume_from`, items that file already records (photos by source, puzzles by
source and line) are skipped, so appending the new records to it never writes one twice.
"""

from __future__ import annotations

import importlib
import os
import shutil
import socket
import tempfile
import zlib
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sudoku_lens.batch.cluster import DaskPool
    from sudoku_lens.batch.inputs import Recorded
    from sudoku_lens.batch.local import LocalPool
    from sudoku_lens.batch.records import Record
    from sudoku_lens.batch.work import Done, Unit, Worker

_EXPORTS = {
    "FIELDS": "sudoku_lens.batch.records",
    "Record": "sudoku_lens.batch.records",
    "SolvedPuzzles": "sudoku_lens.batch.records",
    "Recorded": "sudoku_lens.batch.inputs",
    "Done": "sudoku_lens.batch.work",
    "PhotoUnit": "sudoku_lens.batch.work",
    "PuzzleUnit": "sudoku_lens.batch.work",
    "Unit": "sudoku_lens.batch.work",
}
"""Names importable from here that load their module on first use: importing this
package stays cheap, so the command line can start a LocalCluster's fork server first
(`batch.forkserver`)."""

__all__ = [
    "FIELDS",
    "Done",
    "Recorded",
    "PhotoUnit",
    "PuzzleUnit",
    "Record",
    "SolvedPuzzles",
    "Unit",
    "default_jobs",
    "process",
    "remove_stale_spill_folders",
    "run",
]


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'sudoku_lens.batch' has no attribute {name!r}")


WINDOW_PER_JOB = 4
"""Units (or Dask tasks of several units) out at once per worker by default: enough to keep
every worker busy."""


def default_jobs() -> int:
    """The number of cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def process(
    inputs: Iterable[str | os.PathLike[str]],
    *,
    jobs: int | None = None,
    cluster: str | None = None,
    draw_dir: str | os.PathLike[str] | None = None,
    resume_from: str | os.PathLike[str] | Recorded | None = None,
    encoding: str | None = None,
    spill_dir: str | os.PathLike[str] | None = None,
    worker: Worker | None = None,
    window: int | None = None,
) -> Iterator[Done]:
    """One `Done` per unit of work, in input order (see the module's notes).

    `jobs` worker processes (default: all cores; on a LocalCluster, its workers); `cluster` is a
    Dask scheduler's address or "local"; `draw_dir` receives each solved photo with its answer;
    `resume_from` names a results file whose items are skipped (or holds them, as read by
    `batch.output.read_recorded`, which also cuts off a last record left unfinished);
    `encoding` ("jsonl" or "csv") has the workers encode the records as rows instead of
    returning them; `spill_dir` is where local workers leave those rows in files (see the
    module's notes: a folder on the results' file system); `worker` replaces the function
    that does a unit (`batch.work.work`; a top-level function, for tests). Raises
    SudokuLensError for an input that names nothing, before any work starts.
    """
    from sudoku_lens.batch.forkserver import preload, start_fork_server

    if cluster == "local":  # the fork server imports while we go on
        start_fork_server(preload(cluster, worker and worker.__module__))
    from sudoku_lens.batch.inputs import Recorded, expand
    from sudoku_lens.batch.output import read_recorded
    from sudoku_lens.batch.work import work

    if cluster == "local":
        from sudoku_lens.batch.cluster import check_distributed

        check_distributed()
    jobs = jobs or default_jobs()
    worker = worker or work
    if resume_from is None or isinstance(resume_from, Recorded):
        recorded = resume_from or Recorded()
    else:
        recorded = read_recorded(resume_from)
    units = expand(inputs, draw_dir=draw_dir, recorded=recorded)
    if spill_dir is not None:
        remove_stale_spill_folders(spill_dir)
    spills = None
    if cluster is not None:
        from sudoku_lens.batch.cluster import DaskPool

        pool: DaskPool | LocalPool = DaskPool(cluster, jobs, worker, encoding)
    else:
        from sudoku_lens.batch.local import LocalPool

        if spill_dir is not None and encoding is not None:
            spills = _spill_folder(spill_dir)
        pool = LocalPool(jobs, worker, encoding, spills)
    try:
        window = window or WINDOW_PER_JOB * jobs * pool.units_per_task
        for done in _in_order(units, pool, window):
            yield done
            if done.spill is not None:
                os.remove(done.spill)
    finally:
        pool.close()
        if spills is not None:
            shutil.rmtree(spills, ignore_errors=True)


SPILL_PREFIX = ".sudoku-lens-spill-"
"""Spill folders are named `<SPILL_PREFIX><host tag>-<pid>-<start time>-<random>`."""


def _spill_folder(parent: str | os.PathLike[str]) -> str | None:
    """A new temporary folder in `parent` for spill files, named after this process (see
    `remove_stale_spill_folders`); None when it cannot be made (the rows then come back by
    pipe)."""
    pid = os.getpid()
    owner = f"{_host_tag()}-{pid}-{_start_time(pid) or 0}-"
    try:
        return tempfile.mkdtemp(prefix=SPILL_PREFIX + owner, dir=parent)
    except OSError:
        return None


def remove_stale_spill_folders(parent: str | os.PathLike[str]) -> list[str]:
    """Remove the spill folders in `parent` left by batches that were killed, and return them.

    A folder is stale when its name says it was made on this host by a process that is gone:
    no process has its id, or the one that has it started at another time (the id was reused).
    Folders of a live batch, of another host (a shared file system) or named otherwise are
    left alone, as is everything when `parent` cannot be listed."""
    removed = []
    try:
        names = [entry.name for entry in os.scandir(parent) if entry.name.startswith(SPILL_PREFIX)]
    except OSError:
        return removed
    for name in names:
        parts = name[len(SPILL_PREFIX) :].split("-")
        if len(parts) != 4 or parts[0] != _host_tag() or not parts[1].isdigit():
            continue
        if not parts[2].isdigit() or _running(int(parts[1]), int(parts[2])):
            continue
        path = os.path.join(parent, name)
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
    return removed


def _host_tag() -> str:
    """Eight hex digits naming this host (its name may hold any character)."""
    return f"{zlib.crc32(socket.gethostname().encode()):08x}"


def _start_time(pid: int) -> int | None:
    """When process `pid` started, in clock ticks after boot (Linux); None when unknown."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            fields = handle.read().rsplit(b")", 1)[1].split()
        return int(fields[19])
    except (OSError, IndexError, ValueError):
        return None


def _running(pid: int, started: int) -> bool:
    """Whether process `pid`, started at `started` (0: unknown), is still running; a process
    that may be it counts as running."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # it exists but belongs to another user
    now = _start_time(pid)
    return now is None or started == 0 or now == started


def run(
    inputs: Iterable[str | os.PathLike[str]],
    *,
    jobs: int | None = None,
    cluster: str | None = None,
    draw_dir: str | os.PathLike[str] | None = None,
    resume_from: str | os.PathLike[str] | Recorded | None = None,
    worker: Worker | None = None,
    window: int | None = None,
) -> Iterator[Record]:
    """One `Record` per photo and per puzzle of `inputs`, in input order; see `process`."""
    from sudoku_lens.batch.records import block_records

    for done in process(
        inputs,
        jobs=jobs,
        cluster=cluster,
        draw_dir=draw_dir,
        resume_from=resume_from,
        worker=worker,
        window=window,
    ):
        if done.block is not None:
            yield from block_records(done.block)


def _in_order(units: Iterator[Unit], pool: LocalPool | DaskPool, window: int) -> Iterator[Done]:
    """Keep up to `window` units out; hand results on in the order the units came."""
    waiting: dict[int, Done] = {}
    submitted = handed = 0
    exhausted = False
    while True:
        while not exhausted and submitted - handed < window:
            unit = next(units, None)
            if unit is None:
                exhausted = True
            else:
                pool.submit(submitted, unit)
                submitted += 1
        if handed == submitted:
            return
        while handed not in waiting:
            index, done = pool.next_done()
            waiting[index] = done
        while handed in waiting:
            yield waiting.pop(handed)
            handed += 1
