"""Batches: many photos and puzzle files, on every core of this machine or on a Dask cluster.

`run(inputs)` yields one `Record` per photo or puzzle; `process(inputs)` yields one `Done` per
unit of work (a photo, or a piece of a puzzle file of about 1 MB), for writers that take whole
units (the `batch` command). Both stream: inputs are expanded lazily (see `batch.inputs`), at most
`window` units are out at once, and nothing is kept once it has been handed on.

Order: records come out in input order (inputs as given; folders and patterns in name order;
puzzle files line by line), in local mode and on Dask alike. Finished units wait in a buffer
of at most `window` units until those before them are done, so one slow photo holds back the
output, never the memory bound.

Results written by the workers: with `results` (a JSON Lines or CSV file) and its `encoding`,
local workers keep each unit's rows and append them to that file themselves, in input order,
when the unit's turn comes (`LocalPool.commit`, see `batch.local`); the `Done` then comes back
`written`, without its rows, and the caller writes only the rows it does get (the error
records of a unit whose worker died twice). The rows never pass through this process. Dask
workers, which may be on other machines, always send their rows back.

Resume: with `resume_from`, items that file already records (photos by source, puzzles by
source and line) are skipped, so appending the new records to it never writes one twice.
"""

from __future__ import annotations

import importlib
import os
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
    results: str | os.PathLike[str] | None = None,
    worker: Worker | None = None,
    window: int | None = None,
) -> Iterator[Done]:
    """One `Done` per unit of work, in input order (see the module's notes).

    `jobs` worker processes (default: all cores; on a LocalCluster, its workers); `cluster` is a
    Dask scheduler's address or "local"; `draw_dir` receives each solved photo with its answer;
    `resume_from` names a results file whose items are skipped (or holds them, as read by
    `batch.output.read_recorded`, which also cuts off a last record left unfinished);
    `encoding` ("jsonl" or "csv") has the workers encode the records as rows instead of
    returning them; `results` is the file, already there, that local workers append those rows
    to (see the module's notes); `worker` replaces the function that does a unit
    (`batch.work.work`; a top-level function, for tests). Raises SudokuLensError for an input
    that names nothing, before any work starts.
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
    if cluster is not None:
        from sudoku_lens.batch.cluster import DaskPool

        pool: DaskPool | LocalPool = DaskPool(cluster, jobs, worker, encoding)
    else:
        from sudoku_lens.batch.local import LocalPool

        appended = None if results is None or encoding is None else os.fspath(results)
        pool = LocalPool(jobs, worker, encoding, appended)
    try:
        yield from _in_order(units, pool, window or WINDOW_PER_JOB * jobs * pool.units_per_task)
    finally:
        pool.close()


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
    """Keep up to `window` units out; hand results on in the order the units came, each one's
    rows written first where a local worker holds them."""
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
            yield pool.commit(handed, waiting.pop(handed))
            handed += 1
