"""Worker processes on this machine, each holding one unit at a time, replaced when they die.

A worker that dies (a segfault, the out-of-memory killer) takes exactly one unit with it, the one
it held: that unit is retried once on a fresh worker, then recorded as an error. Workers are
started by a fork server (safe with the parent's threads) and ignore Ctrl-C, which the parent
handles by stopping them.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import signal
from collections import deque
from multiprocessing.connection import Connection, wait
from typing import Any

from sudoku_lens.batch.work import Done, Unit, Worker, describe_exit, failed

_STOP_SECONDS = 5.0


def _serve(connection: Connection, worker: Worker, encoding: str | None) -> None:
    """A worker process's loop: receive (index, unit), send back (index, Done), until None."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    while True:
        try:
            task = connection.recv()
        except EOFError:
            return
        if task is None:
            return
        index, unit = task
        connection.send((index, worker(unit, encoding)))


class _Process:
    """One worker process, its end of the pipe, and the task it holds."""

    def __init__(self, context: Any, worker: Worker, encoding: str | None) -> None:
        self.connection, child = context.Pipe()
        self.process = context.Process(
            target=_serve, args=(child, worker, encoding), daemon=True, name="sudoku-lens worker"
        )
        self.process.start()
        child.close()
        self.task: tuple[int, Unit, int] | None = None  # index, unit, attempt


class LocalPool:
    """Run units on `jobs` worker processes; results come back in completion order."""

    def __init__(self, jobs: int, worker: Worker, encoding: str | None) -> None:
        self._context = multiprocessing.get_context("forkserver")
        self._worker, self._encoding = worker, encoding
        self._queue: deque[tuple[int, Unit, int]] = deque()
        self._ready: deque[tuple[int, Done]] = deque()
        self._processes = [self._start() for _ in range(jobs)]

    def _start(self) -> _Process:
        return _Process(self._context, self._worker, self._encoding)

    def submit(self, index: int, unit: Unit) -> None:
        """Queue a unit; it goes to the first idle worker."""
        self._queue.append((index, unit, 0))
        self._dispatch()

    def _dispatch(self) -> None:
        """Hand queued units to idle workers; an idle worker found dead is replaced."""
        for slot, process in enumerate(self._processes):
            while process.task is None and self._queue:
                task = self._queue[0]
                try:
                    process.connection.send(task[:2])
                except OSError:
                    process.process.join(_STOP_SECONDS)
                    process.connection.close()
                    process = self._processes[slot] = self._start()
                    continue
                process.task = self._queue.popleft()

    def next_done(self) -> tuple[int, Done]:
        """Wait for the next finished unit: (its index, its Done)."""
        while not self._ready:
            busy = [process for process in self._processes if process.task is not None]
            handles = [p.connection for p in busy] + [p.process.sentinel for p in busy]
            ready = set(wait(handles))
            for process in busy:
                if process.connection in ready:
                    try:
                        index, done = process.connection.recv()
                    except (EOFError, ConnectionResetError):
                        self._replace(process)
                        continue
                    self._ready.append((index, done))
                    process.task = None
                elif process.process.sentinel in ready:
                    self._replace(process)
            self._dispatch()
        return self._ready.popleft()

    def _replace(self, dead: _Process) -> None:
        """Start a new worker for a dead one; retry its unit once, then record it as failed."""
        dead.process.join(_STOP_SECONDS)
        how = describe_exit(dead.process.exitcode)
        dead.connection.close()
        assert dead.task is not None
        index, unit, attempt = dead.task
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
            process.process.join(_STOP_SECONDS if process.task is None else 0)
            if process.process.is_alive():
                process.process.terminate()
                process.process.join()
            process.connection.close()
