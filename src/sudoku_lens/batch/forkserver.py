"""The fork server that this machine's worker processes are forked from: a LocalCluster's, and
the local pool's where the batch runs other threads and cannot fork them itself (`batch.local`).

This module imports nothing but the standard library, and neither does `sudoku_lens.batch`
until it is used, so the command line starts a LocalCluster's server before its own imports:
the server and the command import at once, on two cores, and the first workers start a tenth of
a second sooner.
"""

from __future__ import annotations

PRELOAD = ["sudoku_lens.batch.work", "sudoku_lens.batch.records", "sudoku_lens.solve"]
"""Modules the fork server imports once (the local pool imports them before it forks), so that
each worker starts with them (the C solver and the batch's own modules, none of which needs
NumPy to solve a puzzle file); the photo reader's (NumPy, OpenCV, ONNX Runtime) are left to the
workers that read photos: NumPy alone took the server a tenth of a second, spent before the
first worker of a puzzle batch could start, and OpenCV's threads in the batch's own process
would keep it from forking its workers."""

LOCAL_CLUSTER_PRELOAD = ["distributed", "sudoku_lens.pipeline"]
"""What the fork server of a LocalCluster's workers imports besides the solver's modules: Dask,
and the photo reader (OpenCV, ONNX Runtime; 0.1 s a worker otherwise). It is started before
this process imports Dask (a third of a second), so both import at once, on two cores. Started
before Dask's nannies, it does not take on the environment they set for the workers they
start: with its MALLOC_TRIM_THRESHOLD_ of 64 kB, each photo's buffers went back to the system
and were faulted in again for the next, which tripled the workers' system time."""


def preload(cluster: str | None, worker_module: str | None = None) -> list[str]:
    """What the fork server imports for a batch on `cluster` (None: the local pool; "local": a
    LocalCluster) whose worker function is in `worker_module` (None: the default worker's, which
    PRELOAD holds)."""
    extra = LOCAL_CLUSTER_PRELOAD if cluster == "local" else []
    return list(dict.fromkeys([*extra, *PRELOAD, *([worker_module] if worker_module else [])]))


def start_fork_server(modules: list[str]) -> None:
    """Start the fork server that worker processes are forked from, importing `modules` once,
    unless one runs already.

    It returns at once: the server imports while this process goes on (its own imports,
    expanding inputs, importing Dask), instead of while the batch waits for its first workers.
    Worker processes block until the imports are done when they are started.
    """
    from multiprocessing import forkserver

    forkserver.set_forkserver_preload(modules)
    forkserver.ensure_running()
