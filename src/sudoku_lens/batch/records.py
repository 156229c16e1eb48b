"""Batch records: one per photo or puzzle, and their JSON Lines, CSV and Arrow forms.

A worker hands back the records of one unit of work (a photo, or a piece of a puzzle file) as a
*block*: a list of `Record`, or `SolvedPuzzles` for the common run of readable puzzles that all
have one solution, kept as packed bytes so that a million of them are written without a Python
loop per puzzle. Both forms encode to rows of the same values (the packed form writes seconds
with 7 decimals where `json` and `csv` may write 2.9e-06).
"""

from __future__ import annotations

import csv
import io
import json
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, fields
from typing import Any

import numpy as np

CSV_END = "\r\n"
"""CSV rows end as RFC 4180 says; Python's csv module then quotes a field holding either."""

STATUSES = ("solved", "no solution", "several solutions", "error")


@dataclass(frozen=True, slots=True)
class Record:
    """What one photo or one puzzle of a batch gave.

    `source` is the photo's path or the puzzle file's, `line` the puzzle's (first) line in its
    file (None for a photo). `grid` is the 81-character puzzle that was solved ('0' empty; the
    text as written when it could not be read); photos add `givens` (digits as read) and
    `kinds` (per cell: `.` empty, `p` printed). `rating` and `level` (Sudoku Explainer scale
    and its word) come from the logical solver when the batch is run with rating on. `status`
    is solved, no solution, several solutions or error,
    and `error` then says why in one line.
    """

    source: str
    line: int | None
    kind: str
    grid: str | None
    kinds: str | None
    givens: str | None
    solution: str | None
    status: str
    rating: float | None
    level: str | None
    seconds: float
    error: str | None

    def to_dict(self) -> dict[str, Any]:
        """The record as a dict in `FIELDS` order."""
        return {name: getattr(self, name) for name in FIELDS}

    @property
    def key(self) -> tuple[str, int | None]:
        """What identifies the item across runs (for --resume): source and line."""
        return self.source, self.line


FIELDS = tuple(field.name for field in fields(Record))
"""Record fields in output order: JSON keys, CSV columns and Parquet columns."""


@dataclass(frozen=True)
class SolvedPuzzles:
    """Consecutive lines of a puzzle file, each a readable puzzle with exactly one solution.

    `puzzles` and `solutions` are 81-byte records back to back; `seconds` float64 per puzzle.
    """

    source: str
    first_line: int
    puzzles: bytes
    solutions: bytes
    seconds: bytes

    def __len__(self) -> int:
        return len(self.puzzles) // 81

    def records(self) -> Iterator[Record]:
        """The block as records (one Python object each: for the API, not for writing)."""
        times = np.frombuffer(self.seconds, np.float64).round(7).tolist()
        for i, seconds in enumerate(times):
            yield Record(
                self.source,
                self.first_line + i,
                "puzzle",
                self.puzzles[81 * i : 81 * i + 81].decode("ascii"),
                None,
                None,
                self.solutions[81 * i : 81 * i + 81].decode("ascii"),
                "solved",
                None,
                None,
                seconds,
                None,
            )


Block = list[Record] | SolvedPuzzles


def block_records(block: Block) -> Iterator[Record]:
    """The records of a block, in order."""
    return block.records() if isinstance(block, SolvedPuzzles) else iter(block)


def block_statuses(block: Block) -> Counter[str]:
    """How many records of the block ended with each status."""
    if isinstance(block, SolvedPuzzles):
        return Counter({"solved": len(block)})
    return Counter(record.status for record in block)


def encode(block: Block, encoding: str) -> bytes | bytearray:
    """The block as rows of a `.jsonl` or `.csv` file (UTF-8, one row per record)."""
    if isinstance(block, SolvedPuzzles) and np.frombuffer(block.seconds, np.float64).max() < 9.5:
        return _encode_solved(block, encoding)
    if encoding == "jsonl":
        rows = (json.dumps(record.to_dict()) + "\n" for record in block_records(block))
        return "".join(rows).encode()
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator=CSV_END)
    writer.writerows(
        ["" if value is None else value for value in record.to_dict().values()]
        for record in block_records(block)
    )
    return buffer.getvalue().encode()


def csv_header() -> bytes:
    """The first row of a `.csv` file of records."""
    return (",".join(FIELDS) + CSV_END).encode()


def _encode_solved(block: SolvedPuzzles, encoding: str) -> bytearray:
    """Rows of a SolvedPuzzles block written with NumPy into one buffer, no loop per puzzle.

    The rows of a run of line numbers with the same count of digits share one layout: a
    template of the constant text, repeated into the buffer (filled once, never zeroed first),
    then the variable columns (line, puzzle, solution, seconds) written over it. Numbers are
    written the way Python writes them for lines; seconds with 7 decimals (the rounding every
    record gets), which needs them under 10.
    """
    count = len(block)
    lines = block.first_line + np.arange(count, dtype=np.int64)
    digits = np.searchsorted(10 ** np.arange(1, 19, dtype=np.int64), lines, side="right") + 1
    puzzles = np.frombuffer(block.puzzles, np.uint8).reshape(count, 81)
    solutions = np.frombuffer(block.solutions, np.uint8).reshape(count, 81)
    tenths = np.rint(np.frombuffer(block.seconds, np.float64) * 1e7).astype(np.uint32)
    if encoding == "jsonl":
        head = '{"source": ' + json.dumps(block.source) + ', "line": '
        constants = [
            head,
            ', "kind": "puzzle", "grid": "',
            '", "kinds": null, "givens": null, "solution": "',
            '", "status": "solved", "rating": null, "level": null, "seconds": ',
            ', "error": null}\n',
        ]
    else:
        buffer = io.StringIO()
        csv.writer(buffer, lineterminator=CSV_END).writerow([block.source])
        head = buffer.getvalue().removesuffix(CSV_END) + ","
        constants = [head, ",puzzle,", ",,,", ",solved,,,", f",{CSV_END}"]
    widths = np.arange(digits[0], digits[-1] + 1)  # line numbers grow: a width is a run
    starts = np.searchsorted(digits, widths).tolist()
    runs = []  # (first row, end row, line width, template, where the variable columns go)
    for start, end, width in zip(starts, [*starts[1:], count], widths.tolist(), strict=True):
        template = bytearray()
        places = []
        fillers = (b"0" * width, b"0" * 81, b"0" * 81, b"0.0000000", b"")
        for constant, filler in zip(constants, fillers, strict=True):
            template += constant.encode()
            places.append(len(template))
            template += filler
        runs.append((start, end, width, template, places))
    parts = [template * (end - start) for start, end, _, template, _ in runs]
    out = parts[0] if len(parts) == 1 else bytearray().join(parts)  # filled, never zeroed
    offset = 0
    for start, end, width, template, places in runs:
        rows = np.frombuffer(out, np.uint8, len(template) * (end - start), offset)
        rows = rows.reshape(end - start, len(template))
        offset += rows.size
        line, puzzle, solution, seconds = places[:4]
        _write_digits(rows, line, width, lines[start:end])
        rows[:, puzzle : puzzle + 81] = puzzles[start:end]
        rows[:, solution : solution + 81] = solutions[start:end]
        _write_digits(rows, seconds + 2, 7, tenths[start:end])
        rows[:, seconds] += (tenths[start:end] // 10_000_000).astype(np.uint8)
    return out


def _write_digits(rows: np.ndarray, place: int, width: int, values: np.ndarray) -> None:
    """Write non-negative integers in `width` ASCII digits (zero-padded on the left) into
    columns `place` to `place + width` of `rows`, whose template holds '0' there."""
    values = values.copy()
    for column in range(place + width - 1, place - 1, -1):
        rows[:, column] += (values % 10).astype(np.uint8)
        values //= 10


def arrow_schema() -> Any:
    """The Arrow schema of a Parquet file of records."""
    import pyarrow as pa

    text = pa.string()
    return pa.schema(
        [
            ("source", text),
            ("line", pa.int64()),
            ("kind", text),
            ("grid", text),
            ("kinds", text),
            ("givens", text),
            ("solution", text),
            ("status", text),
            ("rating", pa.float64()),
            ("level", text),
            ("seconds", pa.float64()),
            ("error", text),
        ]
    )


DICTIONARY_COLUMNS = ["source", "kind", "status", "rating", "level", "error"]
"""The Parquet columns whose values repeat, written with a dictionary; the others (grids,
solutions, line numbers, seconds) hardly ever repeat, and trying one for them costs time for
nothing (a tenth of the writing)."""


def arrow_table(block: Block) -> Any:
    """The block as an Arrow table with `arrow_schema()`."""
    import pyarrow as pa

    schema = arrow_schema()
    if not isinstance(block, SolvedPuzzles):
        return pa.Table.from_pylist([record.to_dict() for record in block], schema=schema)
    count = len(block)
    offsets = pa.py_buffer(np.arange(0, 81 * (count + 1), 81, dtype=np.int32))
    text = pa.string()
    columns = {
        "source": pa.repeat(pa.scalar(block.source, text), count),
        "line": pa.array(block.first_line + np.arange(count, dtype=np.int64)),
        "kind": pa.repeat(pa.scalar("puzzle", text), count),
        "grid": pa.StringArray.from_buffers(count, offsets, pa.py_buffer(block.puzzles)),
        "kinds": pa.nulls(count, text),
        "givens": pa.nulls(count, text),
        "solution": pa.StringArray.from_buffers(count, offsets, pa.py_buffer(block.solutions)),
        "status": pa.repeat(pa.scalar("solved", text), count),
        "rating": pa.nulls(count, pa.float64()),
        "level": pa.nulls(count, text),
        "seconds": pa.array(np.frombuffer(block.seconds, np.float64).round(7)),
        "error": pa.nulls(count, text),
    }
    return pa.Table.from_pydict(columns, schema=schema)
