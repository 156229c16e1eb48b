"""Worker processes on this machine, each given up to `DEPTH` units, replaced when they die.

A worker works through its units in the order sent, so the next one is already there when it
finishes one (units are small: paths and places in files). A worker that dies (a segfault, the
out-of-memory killer) dies on the oldest unit it holds: that one is retried once on a fresh
worker, then recorded as an error; the others it held are sent again as they were. Workers
ignore Ctrl-C, which the parent handles by stopping them.

Workers are forked from this process where that is safe (Linux, and this process runs one
thread): they start within a millisecond, with the modules it has imported. Elsewhere, or while
it runs other threads (a progress bar's, a web server's, OpenCV's or ONNX Runtime's pools),
they are started by a fork server that imports `batch.forkserver.PRELOAD` first: a tenth to a
fifth of a second before the first one can start, 4-8% of a million-puzzle batch on two cores.

Encoded rows (hundreds of megabytes for a bank of puzzles) do not go through the parent when
the pool has a spill folder: each worker writes a unit's rows to a file of its own there
(a spill file, named after the unit's index) and sends back only its path, and the writer
copies it into the results in the kernel (`batch.output`). Without one, or when a spill file
cannot be written, the rows come back over the pipe raw, read straight into their buffer, not
pickled.
"""

from __future__ import annotations

import contextlib
import importlib
import multiprocessing
import multiprocessing.util
import os
import signal
import sys
from collections import deque
from dataclasses import replace
from multiprocessing.connection import Connection, wait
from typing import Any

from sudoku_lens.batch.forkserver import preload, start_fork_server
from sudoku_lens.batch.work import Done, Unit, Worker, describe_exit, failed

_STOP_SECONDS = 5.0
DEPTH = 2
"""Units a worker holds at once: the one it works on and the next."""


def _serve(
    connection: Connection, worker: Worker, encoding: str | None, spill_dir: str | None
) -> None:
    """A worker process's loop: receive (index, unit), send back (index, Done, size of its
    rows or None) and then the Done's encoded rows as raw bytes, until None; with `spill_dir`,
    the rows go to a spill file there and the Done names it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    while True:
        try:
            task = connection.recv()
        except EOFError:
            return
        if task is None:
            return
        index, unit = task
        done = worker(unit, encoding)
        if done.encoded is not None and spill_dir is not None:
            done = _spill(done, os.path.join(spill_dir, f"{index}.rows"))
        if done.encoded is None:
            connection.send((index, done, None))
        else:  # the rows as they are, not pickled: megabytes for a piece of a puzzle file
            connection.send((index, replace(done, encoded=None), len(done.encoded)))
            _send_rows(connection, done.encoded)


def _spill(done: Done, path: str) -> Done:
    """`done` with its rows written to the file `path` (replaced if there) instead of held;
    `done` as it is when the file cannot be written (a full disk), so the rows go by pipe."""
    assert done.encoded is not None
    try:
        with open(path, "wb") as handle:
            handle.write(done.encoded)
    except OSError:
        with contextlib.suppress(OSError):
            os.remove(path)
        return done
    return replace(done, encoded=None, spill=path)


def _send_rows(connection: Connection, rows: bytes | bytearray) -> None:
    """Write `rows` raw on the connection (after a message that gives their size)."""
    view = memoryview(rows)
    while view:
        view = view[os.write(connection.fileno(), view) :]


def _receive_rows(connection: Connection, size: int) -> bytearray:
    """Read `size` bytes sent by `_send_rows` straight into their buffer (EOFError if the
    worker died before the end)."""
    rows = bytearray(size)
    view = memoryview(rows)
    while view:
        count = os.readv(connection.fileno(), [view])
        if count == 0:
            raise EOFError
        view = view[count:]
    return rows


def _start_method(worker: Worker) -> Any:
    """The multiprocessing context to start a worker with now: fork where it is safe (see the
    module's notes), else the fork server (started here if it does not run yet)."""
    if _runs_one_thread():
        for module in preload(None, worker.__module__):  # imported once, here, for all
            importlib.import_module(module)
        return multiprocessing.get_context("fork")
    start_fork_server(preload(None, worker.__module__))
    return multiprocessing.get_context("forkserver")


def _runs_one_thread() -> bool:
    """Whether this process runs one thread, counting those of C libraries (OpenCV's and ONNX
    Runtime's pools, OpenBLAS's), which Python's `threading` does not see; Linux only. A child
    forked beside another thread inherits the locks it held: a worker forked from a process
    whose OpenCV pool ran hung in `cv2.setNumThreads`."""
    if sys.platform != "linux":
        return False
    try:
        return len(os.listdir("/proc/self/task")) == 1
    except OSError:
        return False


class _Process:
    """One worker process, its end of the pipe, and the task it holds."""

    def __init__(
        self, context: Any, worker: Worker, encoding: str | None, spill_dir: str | None
    ) -> None:
        self.connection, child = context.Pipe()
        # a worker forked later must not hold this end: it would keep this worker's pipe open
        # after this process has gone, and the worker would wait for work forever
        multiprocessing.util.register_after_fork(self, _Process._close_in_child)
        self.process = context.Process(
            target=_serve,
            args=(child, worker, encoding, spill_dir),
            daemon=True,
            name="sudoku-lens worker",
        )
        self.process.start()
        child.close()
        self.tasks: deque[tuple[int, Unit, int]] = deque()  # index, unit, attempt; oldest first

    def _close_in_child(self) -> None:
        self.connection.close()


class LocalPool:
    """Run units on `jobs` worker processes; results come back in completion order.

    With `spill_dir` (a folder) and an `encoding`, units' rows come back in spill files there,
    which the pool's user removes once it is done with them (see the module's notes)."""

    units_per_task = 1

    def __init__(
        self, jobs: int, worker: Worker, encoding: str | None, spill_dir: str | None = None
    ) -> None:
        self._worker, self._encoding, self._spill_dir = worker, encoding, spill_dir
        self._queue: deque[tuple[int, Unit, int]] = deque()
        self._ready: deque[tuple[int, Done]] = deque()
        self._processes = [self._start() for _ in range(jobs)]

    def _start(self) -> _Process:
        context = _start_method(self._worker)
        return _Process(context, self._worker, self._encoding, self._spill_dir)

    def submit(self, index: int, unit: Unit) -> None:
        """Queue a unit; it goes to the first idle worker."""
        self._queue.append((index, unit, 0))
        self._dispatch()

    def _dispatch(self) -> None:
        """Hand queued units to workers with room; a worker found dead is replaced."""
        for slot in range(len(self._processes)):
            while len(self._processes[slot].tasks) < DEPTH and self._queue:
                process = self._processes[slot]
                try:
                    process.connection.send(self._queue[0][:2])
                except OSError:
                    self._replace(process)
                    continue
                process.tasks.append(self._queue.popleft())

    def next_done(self) -> tuple[int, Done]:
        """Wait for the next finished unit: (its index, its Done)."""
        while not self._ready:
            busy = [process for process in self._processes if process.tasks]
            handles = [p.connection for p in busy] + [p.process.sentinel for p in busy]
            ready = set(wait(handles))
            for process in busy:
                if process.connection in ready:
                    try:
                        index, done, size = process.connection.recv()
                        if size is not None:
                            rows = _receive_rows(process.connection, size)
                            done = replace(done, encoded=rows)
                    except (EOFError, OSError):
                        self._replace(process)
                        continue
                    self._ready.append((index, done))
                    process.tasks.popleft()
                elif process.process.sentinel in ready:
                    self._replace(process)
            self._dispatch()
        return self._ready.popleft()

    def _replace(self, dead: _Process) -> None:
        """Start a new worker for a dead one. Its oldest unit, the one it died on, is retried
        once, then recorded as failed; the units it had not started are queued again."""
        dead.process.join(_STOP_SECONDS)
        how = describe_exit(dead.process.exitcode)
        dead.connection.close()
        if dead.tasks:
            index, unit, attempt = dead.tasks.popleft()
            self._queue.extendleft(reversed(dead.tasks))
            if attempt == 0:
                self._queue.appendleft((index, unit, 1))
            else:
                message = f"the worker process died on this item twice ({how})"
                self._ready.append((index, failed(unit, message, self._encoding)))
        self._processes[self._processes.index(dead)] = self._start()

    def close(self) -> None:
        """Stop the workers: ask politely, then terminate those still running."""
        for process in self._processes:
            with contextlib.suppress(OSError):
                process.connection.send(None)
        for process in self._processes:
            process.process.join(0 if process.tasks else _STOP_SECONDS)
            if process.process.is_alive():
                process.process.terminate()
                process.process.join()
            process.connection.close()
