"""Units of work on a Dask distributed cluster: a running scheduler, or a LocalCluster.

Run `dask scheduler` on one machine and `dask worker tcp://HOST:8786` on each worker machine
(with sudoku-lens installed, and the photos and puzzle files at the same paths), then give the
scheduler's address. Dask replaces a worker that dies; a unit whose worker died is retried
once and then recorded as an error. That needs two scheduler settings (`SCHEDULER_SETTINGS`),
made here for a LocalCluster; start your own scheduler with them in the environment:
DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES=1 DASK_DISTRIBUTED__SCHEDULER__WORKER_SATURATION=1.0

"""

from __future__ import annotations

import importlib.util
import itertools
import logging
import os
import uuid
from collections import deque
from typing import Any

from sudoku_lens.batch.work import Done, Unit, Worker, failed
from sudoku_lens.errors import SudokuLensError

_CONNECT_SECONDS = 20

SCHEDULER_SETTINGS = {
    "distributed.scheduler.allowed-failures": 1,
    "distributed.scheduler.worker-saturation": 1.0,
}
"""A task whose worker died is retried once; a worker holds only the task it runs (Dask counts
a death against every task a worker holds, so queued ones would be charged too)."""


LOCAL_CLUSTER_SETTINGS = {
    "distributed.worker.multiprocessing-method": "forkserver",
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "1s",
    "distributed.admin.system-monitor.interval": "5s",
    "distributed.worker.memory.monitor-interval": "500ms",
    "distributed.nanny.pre-spawn-environ": {},
}
"""A LocalCluster's workers are started by a fork server that has imported Dask once, instead
of each spawning a fresh interpreter that imports it again: on 2 cores the spawned start-up
overlapped the first worker's photos and cost the batch about a tenth of its rate. Their
statistical profiler, which samples each worker's stack every 10 ms for a dashboard that a
batch's cluster does not have, is off (some 2.5% of their CPU on photos). The scheduler's, the
nannies' and the workers' periodic checks run less often: the event loop's health tick (every
20 ms by default, for a warning the batch silences), the CPU, network and disk sampling for
dashboards (every 0.5 s) and the memory check (every 0.1 s; a worker over its limit is still
restarted, half a second later at most). On an idle cluster of 2 workers they took 8% of a
core, 1.5% with these settings; the same core runs the photos. The nannies set no variables in
this process's environment to pass on to the workers they start (`MALLOC_TRIM_THRESHOLD_`,
`OMP_NUM_THREADS` and others): the fork server, started before them, never sees them, and in
this process they outlived the batch and slowed every command it started afterwards (a million
puzzles with `--jobs 2`: 73-74% of the solver's rate per core, 80-82% without them)."""


LOCAL_SCHEDULER_HTTP = "127.0.0.1:0"
"""Where a LocalCluster's scheduler serves its HTTP routes (health checks; no dashboard): a free
port of this machine's loopback. Dask's default, port 8787, is taken by any other cluster
running here, and Dask then warns of it on the batch's terminal."""


def check_distributed() -> None:
    """Raise a one-line SudokuLensError saying how to install Dask when it is not installed;
    without importing it (a third of a second, better spent while the fork server starts)."""
    if importlib.util.find_spec("distributed") is None:
        raise SudokuLensError("--cluster needs Dask: pip install 'sudoku-lens[batch]'")


def require_distributed() -> Any:
    """The `distributed` module, or a one-line SudokuLensError saying how to install it."""
    try:
        import distributed
    except ImportError:
        raise SudokuLensError("--cluster needs Dask: pip install 'sudoku-lens[batch]'") from None
    return distributed


UNITS_PER_TASK = 4
"""Units sent as one Dask task: a photo takes some 75 ms, so a task each would spend a good
part of the time on the scheduler's round trips and book-keeping rather than on photos."""


def work_many(worker: Worker, units: list[Unit], encoding: str | None) -> list[Done]:
    """Do `units` one after the other on a Dask worker: one task for several units."""
    return [worker(unit, encoding) for unit in units]


class DaskPool:
    """Run units as Dask tasks of up to `UNITS_PER_TASK` consecutive units; results come back
    in completion order. A task whose worker died twice (Dask's KilledWorker) is split into
    one task per unit, so that the unit to blame gets its own retry before it is recorded as
    an error, and the others are done.
    """

    units_per_task = UNITS_PER_TASK

    def __init__(self, address: str, jobs: int, worker: Worker, encoding: str | None) -> None:
        distributed = require_distributed()
        import dask

        self._worker, self._encoding = worker, encoding
        self._cluster = None
        self._environ = dict(os.environ)
        if address == "local":
            try:
                with dask.config.set({**SCHEDULER_SETTINGS, **LOCAL_CLUSTER_SETTINGS}):
                    self._cluster = distributed.LocalCluster(
                        n_workers=jobs,
                        threads_per_worker=1,
                        processes=True,
                        dashboard_address=None,
                        scheduler_kwargs={"dashboard_address": LOCAL_SCHEDULER_HTTP},
                        silence_logs=logging.ERROR,
                    )
            except Exception as exc:  # Dask's own errors, e.g. "Nanny failed to start."
                _restore_environ(self._environ)
                raise SudokuLensError(f"cannot start a Dask LocalCluster: {exc}") from None
            self._client = distributed.Client(self._cluster)
        else:
            try:
                self._client = distributed.Client(address, timeout=_CONNECT_SECONDS)
            except (OSError, TimeoutError, ValueError) as exc:
                raise SudokuLensError(
                    f"cannot reach the Dask scheduler at {address}: {exc}"
                ) from None
        self._prefix = f"sudoku-lens-{uuid.uuid4().hex[:8]}"
        self._numbers = itertools.count()
        self._pending: list[tuple[int, Unit]] = []
        self._tasks: dict[str, list[tuple[int, Unit]]] = {}
        self._ready: deque[tuple[int, Done]] = deque()
        self._completed = distributed.as_completed()
        self._killed_worker = distributed.KilledWorker

    def submit(self, index: int, unit: Unit) -> None:
        """Queue a unit; it goes to the cluster with the next ones, `UNITS_PER_TASK` a task."""
        self._pending.append((index, unit))
        if len(self._pending) == UNITS_PER_TASK:
            self._send()

    def _send(self, task: list[tuple[int, Unit]] | None = None) -> None:
        """Send the queued units (or `task`) to the cluster as one task."""
        if task is None:
            task, self._pending = self._pending, []
        future = self._client.submit(
            work_many,
            self._worker,
            [unit for _, unit in task],
            self._encoding,
            key=f"{self._prefix}-{next(self._numbers)}",
            pure=False,
        )
        self._tasks[future.key] = task
        self._completed.add(future)

    def next_done(self) -> tuple[int, Done]:
        """Wait for the next finished unit: (its index, its Done)."""
        if self._pending:
            self._send()
        while not self._ready:
            future = next(self._completed)
            task = self._tasks.pop(future.key)
            try:  # waits again when the result was lost with its worker and is done anew
                dones = future.result()
            except Exception as exc:
                self._failed(task, exc)
            else:
                pairs = zip(task, dones, strict=True)
                self._ready.extend((index, done) for (index, _), done in pairs)
            future.release()
        return self._ready.popleft()

    def commit(self, index: int, done: Done) -> Done:
        """`done` as it is: Dask workers send their rows back, none are left to write."""
        return done

    def _failed(self, task: list[tuple[int, Unit]], exc: BaseException) -> None:
        """Split a task of several units that killed its workers; record a lone unit's failure."""
        if isinstance(exc, self._killed_worker) and len(task) > 1:
            for one in task:
                self._send([one])
            return
        if isinstance(exc, self._killed_worker):
            message = "the worker process died on this item twice (Dask: KilledWorker)"
        else:
            message = f"the cluster failed on this item: {type(exc).__name__}: {exc}"
        self._ready.extend((index, failed(unit, message, self._encoding)) for index, unit in task)

    def close(self) -> None:
        """Disconnect; a LocalCluster started here is shut down, and this process's environment
        is as it was before (a nanny still sets `PYTHONHASHSEED` for each worker it starts)."""
        self._client.close()
        if self._cluster is not None:
            self._cluster.close()
            _restore_environ(self._environ)


def _restore_environ(saved: dict[str, str]) -> None:
    """Make `os.environ` what `saved` holds again: variables added are removed, changed ones
    set back."""
    for name in set(os.environ) - set(saved):
        del os.environ[name]
    for name, value in saved.items():
        if os.environ.get(name) != value:
            os.environ[name] = value
