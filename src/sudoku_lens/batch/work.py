"""The work a batch worker does: one unit (a photo, or a piece of a puzzle file) into records.

Runs in worker processes, local or on Dask workers: a unit carries paths and puzzle text, never
images, and the digit model is loaded once per process (`DigitClassifier.default()`). Any
failure of one item becomes a record with its `error`; the batch goes on.
"""

from __future__ import annotations

import functools
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sudoku_lens.batch.records import (
    Block,
    Record,
    SolvedPuzzles,
    block_statuses,
    encode,
    printable,
)
from sudoku_lens.errors import SudokuLensError
from sudoku_lens.puzzle.text import MAX_LINE_BYTES, cell_names

ERROR_SAMPLES = 3
"""Errors of a unit kept for the summary (all of them are in the records)."""


@dataclass(frozen=True)
class PhotoUnit:
    """One photo: `source` as recorded, `path` to read (absolute), `drawing` to write (without
    its ending, which the photo's format decides) or None.

    `error` says why the item cannot be a photo at all (a line of a list of paths too long to
    be a path): it is recorded as the item's error and nothing is read."""

    source: str
    path: str
    drawing: str | None = None
    error: str | None = None


@dataclass(frozen=True)
class PuzzleUnit:
    """`lines` whole lines of a puzzle file from line `first_line`, cut where no grid is open:
    `size` bytes from `offset` of the file at `path` (absolute), which the worker reads.

    `skip` marks the lines already recorded (a resumed batch), one bit per line from
    `first_line` (bit i of byte i // 8): their puzzles give no record. A bitmap keeps a unit
    small (a few kB at most), which the local pool relies on.

    `too_long` marks a piece that is one line longer than `MAX_LINE_BYTES`: it is not read
    (it may be gigabytes), and gives an error record.
    """

    source: str
    path: str
    offset: int
    size: int
    first_line: int
    lines: int
    skip: bytes = b""
    too_long: bool = False

    def skips(self, number: int) -> bool:
        """True when line `number` is already recorded."""
        i = number - self.first_line
        return 0 <= i < 8 * len(self.skip) and bool(self.skip[i >> 3] >> (i & 7) & 1)

    @property
    def skipped(self) -> int:
        """How many of the unit's lines are already recorded."""
        return int.from_bytes(self.skip, "little").bit_count()

    def read(self) -> bytes:
        """The unit's lines, each ending in a line break (a file's byte-order mark dropped)."""
        with open(self.path, "rb") as handle:
            handle.seek(self.offset)
            text = handle.read(self.size)
        if self.offset == 0 and text.startswith(b"\xef\xbb\xbf"):
            text = text[3:]
        return text if text.endswith(b"\n") else text + b"\n"


Unit = PhotoUnit | PuzzleUnit


@dataclass(frozen=True)
class Done:
    """What a worker hands back for one unit: its records, or their encoded rows.

    `block` is None when the rows were encoded in the worker: they are in `encoded`, or, with
    a local pool writing a results file (see `batch.local`), `encoded` is None and the rows are
    `held` by the worker until their turn, then `written` into the file by it. `statuses`
    counts the records by status, `wrong` the photos with a wrong entry or wrong candidates,
    and `errors` samples (source, line, error) for the summary.
    """

    block: Block | None
    encoded: bytes | bytearray | None
    statuses: Counter[str]
    errors: list[tuple[str, int | None, str]]
    held: bool = False
    written: bool = False
    wrong: int = 0

    @property
    def count(self) -> int:
        """How many records the unit gave."""
        return sum(self.statuses.values())


Worker = Callable[[Unit, str | None], Done]
"""The signature of a worker function: a unit and the encoding wanted ("jsonl", "csv", None)."""


def work(unit: Unit, encoding: str | None) -> Done:
    """Turn one unit into records; encode them as `encoding` rows when it is given."""
    return _work(unit, encoding, rated=False)


def work_rated(unit: Unit, encoding: str | None) -> Done:
    """`work`, with each solved puzzle rated by the logical solver (`rating`, `level`): about
    10 ms a hard puzzle, so a bank is solved far faster without it."""
    return _work(unit, encoding, rated=True)


def _work(unit: Unit, encoding: str | None, *, rated: bool) -> Done:
    try:
        block: Block = (
            [_photo_record(unit, rated)]
            if isinstance(unit, PhotoUnit)
            else _puzzle_block(unit, rated)
        )
    except Exception as exc:  # a bug must cost this unit only, not the batch
        return failed(unit, f"internal error: {type(exc).__name__}: {exc}", encoding)
    return finish(block, encoding)


def finish(block: Block, encoding: str | None) -> Done:
    """Wrap a block as a `Done`, encoded when asked."""
    errors = (
        []
        if isinstance(block, SolvedPuzzles)
        else [
            (record.source, record.line, record.error or "")
            for record in block
            if record.status == "error"
        ][:ERROR_SAMPLES]
    )
    statuses = block_statuses(block)
    wrong = (
        0
        if isinstance(block, SolvedPuzzles)
        else sum(bool(r.wrong_entries or r.wrong_candidates) for r in block)
    )
    if encoding is None:
        return Done(block, None, statuses, errors, wrong=wrong)
    return Done(None, encode(block, encoding), statuses, errors, wrong=wrong)


def failed(unit: Unit, message: str, encoding: str | None) -> Done:
    """Every item of `unit` recorded as an error with `message` (e.g. its worker died twice)."""
    if isinstance(unit, PhotoUnit):
        return finish([_error_record(unit.source, None, "photo", None, message)], encoding)
    if unit.too_long:
        return finish(_too_long_records(unit, message), encoding)
    from sudoku_lens.puzzle.text import read_puzzles

    entries = read_puzzles(unit.read().decode("utf-8", "replace"), first_line=unit.first_line)
    records = [
        _error_record(unit.source, entry.number, "puzzle", entry.line or entry.text, message)
        for entry in entries
        if not unit.skips(entry.number)
    ]
    return finish(records, encoding)


def _rating(line: str, status: str, rated: bool) -> tuple[float | None, str | None]:
    """Rating and level of a solved puzzle's line when asked for (null for a puzzle the
    techniques cannot finish, and for a grid already full: nothing to rate)."""
    if not rated or status != "solved":
        return None, None
    from sudoku_lens.logic import rate

    verdict = rate(line)
    if verdict.rating is None:
        return None, None
    return float(verdict.rating), str(verdict.level)


def _error_record(
    source: str, line: int | None, kind: str, grid: str | None, message: str, seconds: float = 0.0
) -> Record:
    return Record(
        source=source,
        line=line,
        kind=kind,
        grid=grid,
        status="error",
        seconds=seconds,
        error=printable(message),  # it may quote a file name that is not UTF-8
    )


@functools.cache
def _opencv_on_one_thread() -> None:
    """Run OpenCV on this worker's own thread: a batch has a worker per core, so OpenCV's pool of
    threads only takes CPU from the other workers (160 photos with --jobs 1 on 2 cores: 11.3
    CPU seconds with it, 8.8 without, the same wall time)."""
    import cv2

    cv2.setNumThreads(1)


def _photo_record(unit: PhotoUnit, rated: bool) -> Record:
    """Read, solve and (when asked) draw one photo."""
    from sudoku_lens.pipeline import picture_ending, solve_photo
    from sudoku_lens.puzzle import format_line
    from sudoku_lens.read.kinds import kinds_text

    _opencv_on_one_thread()
    if unit.error is not None:
        return _error_record(unit.source, None, "photo", None, unit.error, 0.0)
    start = time.perf_counter()
    try:
        result = solve_photo(unit.path)
        if result.solved and unit.drawing is not None:
            ending = picture_ending(result.reading.photo.kind)
            _write_picture(unit.drawing + ending, result.image)
    except SudokuLensError as exc:
        seconds = round(time.perf_counter() - start, 4)
        message = str(exc).replace(unit.path, unit.source)  # the photo as the record names it
        return _error_record(unit.source, None, "photo", None, message, seconds)
    grid = format_line(result.grid)
    givens = format_line(result.givens)
    kinds = kinds_text(result.kinds)
    status = result.status.value
    rating_start = time.perf_counter()
    rating, level = _rating(grid, status, rated)
    rating_seconds = time.perf_counter() - rating_start
    return Record(
        source=unit.source,
        line=None,
        kind="photo",
        grid=grid,
        read=format_line(result.reading.grid),
        kinds=kinds,
        givens=givens,
        solution=None if result.solution is None else format_line(result.solution),
        status=status,
        wrong_entries=" ".join(entry.name for entry in result.wrong_entries),
        unsure_entries=" ".join(entry.name for entry in result.unsure_entries),
        wrong_candidates=" ".join(checked.name for checked in result.wrong_candidates),
        unsure_candidates=" ".join(cell_names(result.unsure_candidates)),
        givens_doubted=result.givens_doubted,
        rating=rating,
        level=level,
        seconds=round(result.seconds + rating_seconds, 4),
    )


def _write_picture(path: str, image: Any) -> None:
    """Write `image` encoded by the ending of `path` (`write_image`), folders created."""
    from sudoku_lens.read.image_io import write_image

    try:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise SudokuLensError(f"cannot write {path}: {exc.strerror}") from None
    write_image(path, image)


def _puzzle_block(unit: PuzzleUnit, rated: bool) -> Block:
    """Solve the puzzles of a piece of a puzzle file; packed when all lines are plain puzzles."""
    from sudoku_lens.solve import solve_packed

    if unit.too_long:
        return _too_long_records(unit, f"longer than {MAX_LINE_BYTES:,} bytes: not a puzzle")
    text = unit.read()
    packed = None if unit.skip or rated else _packed_lines(text)
    if packed is not None:
        solutions, counts, _, seconds = solve_packed(packed)
        if counts.count(1) == len(packed) // 81:
            return SolvedPuzzles(unit.source, unit.first_line, packed, solutions, seconds)
    return _puzzle_records(unit, text, rated)


def _packed_lines(text: bytes) -> bytes | None:
    """The puzzles of `text` as 81-byte records back to back when every line is 81 characters
    with no '.' (a whole line of cells, empty ones written '0'); None otherwise. Other
    characters are left to the solver, which counts such a puzzle as unreadable (255), so the
    piece goes the slow way and gets its error records."""
    count = len(text) // 82
    if len(text) != 82 * count or text[81::82] != b"\n" * count:
        return None
    packed = text.replace(b"\n", b"")
    return packed if len(packed) == 81 * count and b"." not in packed else None


def _too_long_records(unit: PuzzleUnit, message: str) -> list[Record]:
    """The error record of a piece that is one over-long line (none when it is recorded)."""
    if unit.skips(unit.first_line):
        return []
    return [_error_record(unit.source, unit.first_line, "puzzle", None, message)]


def _puzzle_records(unit: PuzzleUnit, text: bytes, rated: bool) -> list[Record]:
    """One record per puzzle entry of the unit, through the same parser and verdicts as `solve`."""
    from sudoku_lens.puzzle.text import read_puzzles
    from sudoku_lens.solve import entry_outcomes, solve_lines

    entries = read_puzzles(text.decode("utf-8", "replace"), first_line=unit.first_line)
    if unit.skip:
        entries = [entry for entry in entries if not unit.skips(entry.number)]
    result = solve_lines([entry.line for entry in entries if entry.line is not None])
    records = []
    for entry, outcome in zip(entries, entry_outcomes(entries, result), strict=True):
        grid = entry.line if entry.line is not None else entry.text
        rating_start = time.perf_counter()
        rating, level = _rating(grid, outcome.status, rated)
        seconds = outcome.seconds + time.perf_counter() - rating_start
        records.append(
            Record(
                source=unit.source,
                line=entry.number,
                kind="puzzle",
                grid=grid,
                solution=outcome.solution,
                status=outcome.status,
                rating=rating,
                level=level,
                seconds=round(seconds, 7),
                error=outcome.error,
            )
        )
    return records


def describe_exit(exitcode: int | None) -> str:
    """How a worker process ended, in words: 'killed by SIGKILL' or 'exit code 3'."""
    import signal

    if exitcode is not None and exitcode < 0:
        try:
            return f"killed by {signal.Signals(-exitcode).name}"
        except ValueError:
            return f"killed by signal {-exitcode}"
    return f"exit code {exitcode}"
