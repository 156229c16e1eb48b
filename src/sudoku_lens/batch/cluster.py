"""Units of work on a Dask distributed cluster: a running scheduler, or a LocalCluster.

Run `dask scheduler` on one machine and `dask worker tcp://HOST:8786` on each worker machine
(with sudoku-lens installed, and the photos and puzzle files at the same paths), then give the
scheduler's address. Dask replaces a worker that dies; a unit whose worker died is retried
once and then recorded as an error. That needs two scheduler settings (`SCHEDULER_SETTINGS`),
made here for a LocalCluster; start your own scheduler with them in the environment:
DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES=1 DASK_DISTRIBUTED__SCHEDULER__WORKER_SATURATION=1.0

"""

from __future__ import annotations

import itertools
import logging
import uuid
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


def require_distributed() -> Any:
    """The `distributed` module, or a one-line SudokuLensError saying how to install it."""
    try:
        import distributed
    except ImportError:
        raise SudokuLensError("--cluster needs Dask: pip install 'sudoku-lens[batch]'") from None
    return distributed


class DaskPool:
    """Run units as Dask tasks; results come back in completion order."""

    def __init__(self, address: str, jobs: int, worker: Worker, encoding: str | None) -> None:
        distributed = require_distributed()
        import dask

        self._worker, self._encoding = worker, encoding
        self._cluster = None
        if address == "local":
            with dask.config.set(SCHEDULER_SETTINGS):
                self._cluster = distributed.LocalCluster(
                    n_workers=jobs,
                    threads_per_worker=1,
                    processes=True,
                    dashboard_address=None,
                    silence_logs=logging.ERROR,
                )
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
        self._units: dict[str, tuple[int, Unit]] = {}
        self._completed = distributed.as_completed()
        self._killed_worker = distributed.KilledWorker

    def submit(self, index: int, unit: Unit) -> None:
        """Send a unit to the cluster."""
        future = self._client.submit(
            self._worker,
            unit,
            self._encoding,
            key=f"{self._prefix}-{next(self._numbers)}",
            pure=False,
        )
        self._units[future.key] = (index, unit)
        self._completed.add(future)

    def next_done(self) -> tuple[int, Done]:
        """Wait for the next finished unit: (its index, its Done)."""
        future = next(self._completed)
        index, unit = self._units.pop(future.key)
        if future.status == "finished":
            done = future.result()
        else:
            exc = future.exception()
            if isinstance(exc, self._killed_worker):
                message = "the worker process died on this item twice (Dask: KilledWorker)"
            else:
                message = f"the cluster failed on this item: {type(exc).__name__}: {exc}"
            done = failed(unit, message, self._encoding)
        future.release()
        return index, done

    def close(self) -> None:
        """Disconnect; a LocalCluster started here is shut down."""
        self._client.close()
        if self._cluster is not None:
            self._cluster.close()
