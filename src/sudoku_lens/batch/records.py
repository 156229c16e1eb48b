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

CSV_END = "\r\n"
"""CSV rows end as RFC 4180 says; Python's csv module then quotes a field holding either."""

STATUSES = ("solved", "no solution", "several solutions", "error")


def printable(text: str) -> str:
    """`text` with the bytes of a file name that are not UTF-8 (held by Python as lone
    surrogates) written as backslash escapes, `caf\\xe9.jpg`: JSON, CSV and Parquet take
    only real text."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    return text


@dataclass(frozen=True, slots=True, kw_only=True)
class Record:
    """What one photo or one puzzle of a batch gave.

    `source` is the photo's path or the puzzle file's, `line` the puzzle's (first) line in its
    file (None for a photo). `grid` is the 81-character puzzle that was solved ('0' empty; the
    text as written when it could not be read). Photos add, as `solve --json` writes them,
    `read` (every digit read, printed and handwritten), `kinds` (per cell: `.` empty, `p`
    printed, `h` handwritten, `n` pencil notes), `givens` (the digits read where `kinds` is
    print), and the person's entries checked against the solution: `wrong_entries` and
    `unsure_entries`, cell names separated by spaces ("r3c4 r5c1"; empty when there is none),
    `wrong_candidates`, the cells whose pencilled candidates leave out the answer, and
    `unsure_candidates`, those of two or more candidates read too unsure to check, named the
    same way, and `givens_doubted`, true when so many entries disagree with the solution that a
    given is more likely misread (they are then all unsure).
    `rating` and `level` (Sudoku Explainer scale and its word) come from the logical solver when
    the batch is run with rating on (None for a puzzle the techniques cannot finish or a grid
    already full). `status` is solved, no solution, several solutions or
    error, and `error` then says why in one line. Built by keyword; a field an item does not
    have (a puzzle's `read`, a photo's `line`) is None, the default of the optional ones.
    """

    source: str
    line: int | None
    kind: str
    grid: str | None
    read: str | None = None
    kinds: str | None = None
    givens: str | None = None
    solution: str | None = None
    status: str
    wrong_entries: str | None = None
    unsure_entries: str | None = None
    wrong_candidates: str | None = None
    unsure_candidates: str | None = None
    givens_doubted: bool | None = None
    rating: float | None = None
    level: str | None = None
    seconds: float
    error: str | None = None

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
        import numpy as np

        times = np.frombuffer(self.seconds, np.float64).round(7).tolist()
        for i, seconds in enumerate(times):
            yield Record(
                source=self.source,
                line=self.first_line + i,
                kind="puzzle",
                grid=self.puzzles[81 * i : 81 * i + 81].decode("ascii"),
                solution=self.solutions[81 * i : 81 * i + 81].decode("ascii"),
                status="solved",
                seconds=seconds,
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
    if isinstance(block, SolvedPuzzles):
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


def _encode_solved(block: SolvedPuzzles, encoding: str) -> bytes:
    """Rows of a SolvedPuzzles block, written by the C core in one pass (`encode_rows`): the
    constant text of a row around its variable columns (line, puzzle, solution, seconds).
    Seconds are written with 7 decimals, the rounding every record gets."""
    from sudoku_lens.solve import _core

    if encoding == "jsonl":
        parts = (
            '{"source": ' + json.dumps(block.source) + ', "line": ',
            ', "kind": "puzzle", "grid": "',
            '", "read": null, "kinds": null, "givens": null, "solution": "',
            '", "status": "solved", "wrong_entries": null, "unsure_entries": null, '
            '"wrong_candidates": null, "unsure_candidates": null, "givens_doubted": null, '
            '"rating": null, "level": null, "seconds": ',
            ', "error": null}\n',
        )
    else:
        buffer = io.StringIO()
        csv.writer(buffer, lineterminator=CSV_END).writerow([block.source])
        head = buffer.getvalue().removesuffix(CSV_END) + ","
        parts = (head, ",puzzle,", ",,,,", ",solved,,,,,,,,", f",{CSV_END}")
    return _core.encode_rows(
        block.puzzles,
        block.solutions,
        block.seconds,
        block.first_line,
        tuple(part.encode() for part in parts),
    )


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
            ("read", text),
            ("kinds", text),
            ("givens", text),
            ("solution", text),
            ("status", text),
            ("wrong_entries", text),
            ("unsure_entries", text),
            ("wrong_candidates", text),
            ("unsure_candidates", text),
            ("givens_doubted", pa.bool_()),
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
    import numpy as np
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
        "read": pa.nulls(count, text),
        "kinds": pa.nulls(count, text),
        "givens": pa.nulls(count, text),
        "solution": pa.StringArray.from_buffers(count, offsets, pa.py_buffer(block.solutions)),
        "status": pa.repeat(pa.scalar("solved", text), count),
        "wrong_entries": pa.nulls(count, text),
        "unsure_entries": pa.nulls(count, text),
        "wrong_candidates": pa.nulls(count, text),
        "unsure_candidates": pa.nulls(count, text),
        "givens_doubted": pa.nulls(count, pa.bool_()),
        "rating": pa.nulls(count, pa.float64()),
        "level": pa.nulls(count, text),
        "seconds": pa.array(np.frombuffer(block.seconds, np.float64).round(7)),
        "error": pa.nulls(count, text),
    }
    return pa.Table.from_pydict(columns, schema=schema)
