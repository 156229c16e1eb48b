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
the pool has a results file: a worker keeps a unit's rows and appends them to the file itself
when the pool gives the unit its turn (`commit`: every unit before it is in the file), from a
thread of its own beside the one that works on the next unit, and says when they are written.
So the file grows in input order, one unit at a time, as it would from the parent. A worker
that dies holding rows has that unit run again; one that dies while appending has the file cut
back to where its unit began, and the unit retried once, then recorded as an error. Without a
results file, the rows come back over the pipe raw, read straight into their buffer, not
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
import threading
from collections import deque
from dataclasses import replace
from multiprocessing.connection import Connection, wait
from typing import Any

from sudoku_lens.batch.forkserver import preload, start_fork_server
from sudoku_lens.batch.work import Done, Unit, Worker, describe_exit, failed
from sudoku_lens.errors import SudokuLensError

_STOP_SECONDS = 5.0
DEPTH = 2
"""Units a worker holds at once: the one it works on and the next."""


def _serve(
    connection: Connection,
    turns: Connection,
    worker: Worker,
    encoding: str | None,
    results: str | None,
) -> None:
    """A worker process's loop: receive (index, unit) until None, do it and send back its Done
    (`_send_done`). With `results`, the rows stay here (the Done says `held`) until the unit's
    index comes on `turns`, and a thread appends them to that file (`_append_turns`)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    sending = threading.Lock()
    held: dict[int, bytes | bytearray] = {}
    appender = None
    if results is not None:
        appender = threading.Thread(
            target=_append_turns, args=(turns, connection, sending, held, results), daemon=True
        )
        appender.start()
    while True:
        try:
            task = connection.recv()
        except EOFError:
            return
        if task is None:
            break
        index, unit = task
        done = worker(unit, encoding)
        try:
            _send_done(connection, sending, index, done, held if results is not None else None)
        except OSError:  # the batch has gone (killed outright)
            return
    if appender is not None:
        appender.join(_STOP_SECONDS)


def _send_done(
    connection: Connection,
    sending: threading.Lock,
    index: int,
    done: Done,
    held: dict[int, bytes | bytearray] | None,
) -> None:
    """Send ("done", index, Done, size of its rows or None), then the rows as raw bytes when a
    size is given; with `held`, the rows stay there instead and the Done says so."""
    with sending:
        if done.encoded is None:
            connection.send(("done", index, done, None))
        elif held is not None:
            held[index] = done.encoded  # before the message: its turn may come at once
            connection.send(("done", index, replace(done, encoded=None, held=True), None))
        else:  # the rows as they are, not pickled: megabytes for a piece of a puzzle file
            connection.send(("done", index, replace(done, encoded=None), len(done.encoded)))
            write_rows(connection.fileno(), done.encoded)


def _append_turns(
    turns: Connection,
    connection: Connection,
    sending: threading.Lock,
    held: dict[int, bytes | bytearray],
    results: str,
) -> None:
    """A worker's appending thread: for each index that comes on `turns` (until None), append
    that unit's held rows to the file `results` and send ("appended", index, None), or the
    error's text in place of None when the file cannot be written."""
    descriptor = None
    try:
        while True:
            try:
                index = turns.recv()
            except EOFError:
                return
            if index is None:
                return
            rows = held.pop(index)
            error = None
            try:
                if descriptor is None:
                    descriptor = os.open(results, os.O_WRONLY | os.O_APPEND)
                write_rows(descriptor, rows)
            except OSError as exc:
                error = exc.strerror or str(exc)
            try:
                with sending:
                    connection.send(("appended", index, error))
            except OSError:  # the batch has gone
                return
    finally:
        if descriptor is not None:
            os.close(descriptor)


def write_rows(descriptor: int, rows: bytes | bytearray) -> None:
    """Write all of `rows` to `descriptor` (a pipe, or a file opened to append)."""
    view = memoryview(rows)
    while view:
        view = view[os.write(descriptor, view) :]


def _receive_rows(connection: Connection, size: int) -> bytearray:
    """Read `size` bytes a worker sent raw straight into their buffer (EOFError if the
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
    """One worker process, its ends of the pipes, the tasks it works on and the units whose
    rows it holds."""

    def __init__(
        self, context: Any, worker: Worker, encoding: str | None, results: str | None
    ) -> None:
        self.connection, child = context.Pipe()
        child_turns, self.turns = context.Pipe(duplex=False)
        # a worker forked later must not hold these ends: they would keep this worker's pipes
        # open after this process has gone, and the worker would wait for work forever
        multiprocessing.util.register_after_fork(self, _Process._close_in_child)
        self.process = context.Process(
            target=_serve,
            args=(child, child_turns, worker, encoding, results),
            daemon=True,
            name="sudoku-lens worker",
        )
        self.process.start()
        child.close()
        child_turns.close()
        self.tasks: deque[tuple[int, Unit, int]] = deque()  # index, unit, attempt; oldest first
        self.held: dict[int, tuple[Unit, int]] = {}  # index: unit, attempt
        self.turn: int | None = None
        """The unit whose rows it is appending, if any."""

    def _close_in_child(self) -> None:
        self.connection.close()
        self.turns.close()


class LocalPool:
    """Run units on `jobs` worker processes; results come back in completion order.

    With `results` (a file) and an `encoding`, the workers keep the units' rows and append them
    to that file when `commit` gives each its turn (see the module's notes)."""

    units_per_task = 1

    def __init__(
        self, jobs: int, worker: Worker, encoding: str | None, results: str | None = None
    ) -> None:
        self._worker, self._encoding, self._results = worker, encoding, results
        self._queue: deque[tuple[int, Unit, int]] = deque()
        self._ready: deque[tuple[int, Done]] = deque()
        self._appended: dict[int, tuple[str, str] | None] = {}  # None: written; or why not
        self._lost: dict[int, tuple[Unit, int]] = {}  # held by a worker that died
        self._awaited: dict[int, Done | None] = {}  # units run again for `commit`
        self._processes = [self._start() for _ in range(jobs)]

    def _start(self) -> _Process:
        context = _start_method(self._worker)
        return _Process(context, self._worker, self._encoding, self._results)

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
            self._take_messages()
        return self._ready.popleft()

    def commit(self, index: int, done: Done) -> Done:
        """Have the worker holding the rows of unit `index` append them to the results file now
        (every unit before it must be written) and wait until they are: the unit's Done as
        written, or as run again when its worker died holding them, or the error records of
        a unit whose worker died twice. Raises SudokuLensError when the file cannot be
        written."""
        while done.held:
            holder = next((p for p in self._processes if index in p.held), None)
            if holder is None:
                done = self._run_again(index, *self._lost.pop(index))
                continue
            size = self._results_size()
            try:
                holder.turns.send(index)
            except OSError:
                self._replace(holder)
                continue
            holder.turn = index
            while index not in self._appended:
                self._take_messages()
            outcome = self._appended.pop(index)
            if outcome is None:
                return replace(done, held=False, written=True)
            what, text = outcome
            if what == "error":
                raise SudokuLensError(f"cannot write {self._results}: {text}")
            self._cut_results(size)  # its worker died while appending the rows
            unit, attempt = self._lost.pop(index)
            if attempt == 0:
                done = self._run_again(index, unit, 1)
            else:
                return self._died_twice(unit, text)
        return done

    def _results_size(self) -> int:
        assert self._results is not None
        try:
            return os.stat(self._results).st_size
        except OSError as exc:
            raise SudokuLensError(f"cannot write {self._results}: {exc.strerror}") from None

    def _cut_results(self, size: int) -> None:
        """Cut the results file back to `size` bytes, dropping a unit's rows written in part."""
        assert self._results is not None
        try:
            os.truncate(self._results, size)
        except OSError as exc:
            raise SudokuLensError(f"cannot write {self._results}: {exc.strerror}") from None

    def _run_again(self, index: int, unit: Unit, attempt: int) -> Done:
        """Run unit `index` again, first in the queue, and wait for its Done."""
        self._awaited[index] = None
        self._queue.appendleft((index, unit, attempt))
        self._dispatch()
        while self._awaited[index] is None:
            self._take_messages()
        done = self._awaited.pop(index)
        assert done is not None
        return done

    def _deliver(self, index: int, done: Done) -> None:
        """Hand a finished unit on: to `commit` when it waits for it, else to `next_done`."""
        if index in self._awaited:
            self._awaited[index] = done
        else:
            self._ready.append((index, done))

    def _take_messages(self) -> None:
        """Wait for the busy workers' messages and take them in (finished units, appends); a
        worker that died is replaced."""
        busy = [p for p in self._processes if p.tasks or p.turn is not None]
        handles = [p.connection for p in busy] + [p.process.sentinel for p in busy]
        ready = set(wait(handles))
        for process in busy:
            if process.connection in ready:
                try:
                    message = process.connection.recv()
                    if message[0] == "appended":
                        _, index, error = message
                        process.turn = None
                        del process.held[index]
                        self._appended[index] = None if error is None else ("error", error)
                        continue
                    _, index, done, size = message
                    if size is not None:
                        done = replace(done, encoded=_receive_rows(process.connection, size))
                except (EOFError, OSError):
                    self._replace(process)
                    continue
                _, unit, attempt = process.tasks.popleft()
                if done.held:
                    process.held[index] = (unit, attempt)
                self._deliver(index, done)
            elif process.process.sentinel in ready:
                self._replace(process)
        self._dispatch()

    def _replace(self, dead: _Process) -> None:
        """Start a new worker for a dead one. Its oldest unit, the one it died on, is retried
        once, then recorded as failed; the units it had not started are queued again; the
        rows it held are lost (`commit` runs their units again), and a unit it was appending
        is marked died."""
        dead.process.join(_STOP_SECONDS)
        how = describe_exit(dead.process.exitcode)
        dead.connection.close()
        dead.turns.close()
        if dead.tasks:
            index, unit, attempt = dead.tasks.popleft()
            self._queue.extendleft(reversed(dead.tasks))
            if attempt == 0:
                self._queue.appendleft((index, unit, 1))
            else:
                self._deliver(index, self._died_twice(unit, how))
        self._lost.update(dead.held)
        if dead.turn is not None:
            self._appended[dead.turn] = ("died", how)
        self._processes[self._processes.index(dead)] = self._start()

    def _died_twice(self, unit: Unit, how: str) -> Done:
        """The error records of a unit whose worker died on it twice."""
        return failed(unit, f"the worker process died on this item twice ({how})", self._encoding)

    def close(self) -> None:
        """Stop the workers: ask politely, then terminate those still running."""
        for process in self._processes:
            for end in (process.turns, process.connection):
                with contextlib.suppress(OSError):
                    end.send(None)
        for process in self._processes:
            process.process.join(0 if process.tasks else _STOP_SECONDS)
            if process.process.is_alive():
                process.process.terminate()
                process.process.join()
            process.connection.close()
            process.turns.close()
