"""Write batch records to a results file as they come, and read one back to resume.

The format follows the file name: `.jsonl` (JSON Lines), `.csv` (with a header row) or
`.parquet` (pyarrow, row groups of at most `ROW_GROUP` records). JSON Lines and CSV are flushed
after each unit of work, so a crash loses only the items in flight, and they can be resumed: the
items already recorded are read back (a last line cut short by the crash is dropped) and new
records are appended. Local workers append their rows to the file themselves, in turn
(`Done.written`; see `batch.local`), so the file is opened to append: this process's writes go
after theirs. A Parquet file is only readable once closed, so it cannot be resumed: use JSON
Lines or CSV for long batches that may be interrupted.
"""

from __future__ import annotations

import csv
import io
import json
import os
from pathlib import Path
from typing import Any, BinaryIO

from sudoku_lens.batch.inputs import Recorded
from sudoku_lens.batch.records import (
    DICTIONARY_COLUMNS,
    FIELDS,
    Block,
    arrow_schema,
    arrow_table,
    csv_header,
)
from sudoku_lens.batch.work import Done
from sudoku_lens.errors import SudokuLensError

FORMATS = {".jsonl": "jsonl", ".csv": "csv", ".parquet": "parquet"}
ROW_GROUP = 100_000
"""Most records in one Parquet row group (and held in memory before it is written)."""


def output_format(path: str | os.PathLike[str]) -> str:
    """ "jsonl", "csv" or "parquet" from the results file's name; SudokuLensError otherwise."""
    suffix = Path(path).suffix.lower()
    if suffix not in FORMATS:
        raise SudokuLensError(f"cannot tell the format of {path}: name it .jsonl, .csv or .parquet")
    if suffix == ".parquet":
        require_pyarrow()
    return FORMATS[suffix]


def require_pyarrow() -> None:
    """Raise a one-line SudokuLensError when pyarrow is not installed."""
    try:
        import pyarrow.parquet  # noqa: F401
    except ImportError:
        raise SudokuLensError(
            "Parquet output needs pyarrow: pip install 'sudoku-lens[batch]'"
        ) from None


def read_recorded(path: str | os.PathLike[str]) -> Recorded:
    """The items a JSON Lines or CSV results file holds, cutting off a last line left unfinished.

    A missing file holds nothing. Raises SudokuLensError for a Parquet file (not resumable) or a
    file that is not a batch's results.
    """
    recorded = Recorded()
    kind = output_format(path)
    if kind == "parquet":
        raise SudokuLensError(
            f"cannot resume {path}: a Parquet file is only complete when closed; "
            "write .jsonl or .csv to be able to resume"
        )
    if not os.path.exists(path):
        return recorded
    with open(path, "r+b") as handle:
        complete = 0
        rows = _csv_keys(handle, path) if kind == "csv" else _jsonl_keys(handle, path)
        for end, source, line in rows:
            recorded.add(source, line)
            complete = end
        handle.truncate(complete)
    recorded.sort()
    return recorded


def _jsonl_keys(handle: BinaryIO, path: Any) -> Any:
    """(end offset, source, line) of each complete JSON Lines record."""
    offset = 0
    for number, raw in enumerate(handle, 1):
        if not raw.endswith(b"\n"):
            return  # cut short by a crash: dropped, the item runs again
        offset += len(raw)
        try:
            record = json.loads(raw)
            source, line = record["source"], record["line"]
        except (ValueError, KeyError, TypeError):
            raise SudokuLensError(f"{path} line {number} is not a batch record") from None
        yield offset, source, line


def _csv_keys(handle: BinaryIO, path: Any) -> Any:
    """(end offset, source, line) of each complete CSV record, after checking the header."""
    header = handle.readline()
    if not header.endswith(b"\n"):
        return
    if header != csv_header():
        raise SudokuLensError(f"{path} is not a batch's CSV results (its header differs)")
    offset = len(header)
    pending = b""
    for raw in handle:
        if not raw.endswith(b"\n"):
            return
        pending += raw
        try:
            rows = list(csv.reader(io.StringIO(pending.decode())))
        except (csv.Error, UnicodeDecodeError):
            raise SudokuLensError(f"{path} is not a batch's CSV results") from None
        if pending.count(b'"') % 2:  # a quoted field goes on over the line break
            continue
        offset += len(pending)
        pending = b""
        for row in rows:
            if len(row) != len(FIELDS):
                raise SudokuLensError(f"{path} has a row that is not a batch record")
            yield offset, row[0], int(row[1]) if row[1] else None


class ResultsWriter:
    """Append records to a results file, flushing after each unit; use as a context manager."""

    def __init__(self, path: str | os.PathLike[str], *, append: bool = False) -> None:
        self.path = Path(path)
        self.format = output_format(path)
        self.units = 0
        """Units written so far."""
        if self.path.exists() and not append:
            raise SudokuLensError(
                f"{path} exists: add --resume to go on with it, or choose another name"
            )
        try:
            if self.format == "parquet":
                import pyarrow.parquet as pq

                self._parquet = pq.ParquetWriter(
                    str(self.path), arrow_schema(), use_dictionary=DICTIONARY_COLUMNS
                )
                self._tables: list[Any] = []
                self._rows = 0
            else:
                descriptor = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o666)
                self._file = os.fdopen(descriptor, "wb", buffering=0)
                self._start_csv()  # before any worker appends rows
        except OSError as exc:
            raise SudokuLensError(f"cannot write {path}: {exc.strerror or exc}") from None

    @property
    def encoding(self) -> str | None:
        """The row encoding workers should produce ("jsonl", "csv"), None for Parquet."""
        return None if self.format == "parquet" else self.format

    def write(self, done: Done) -> None:
        """Write one unit's records (encoded rows, or a block for Parquet), straight to the file
        (unbuffered: nothing is held back); nothing for rows a worker has `written` there."""
        self.units += 1
        if done.written:
            return
        if self.format == "parquet":
            assert done.block is not None
            self._write_parquet(done.block)
            return
        assert done.encoded is not None
        try:
            self._write_all(done.encoded)
        except OSError as exc:
            raise SudokuLensError(f"cannot write {self.path}: {exc.strerror or exc}") from None

    def _write_all(self, data: bytes | bytearray) -> None:
        view = memoryview(data)
        while view:
            view = view[self._file.write(view) :]

    def _start_csv(self) -> None:
        """Write the CSV header into a file still empty (a new one, or a resumed one that
        `read_recorded` cut back to nothing)."""
        if self.format == "csv" and os.fstat(self._file.fileno()).st_size == 0:
            self._write_all(csv_header())

    def _write_parquet(self, block: Block) -> None:
        table = arrow_table(block)
        self._tables.append(table)
        self._rows += table.num_rows
        if self._rows >= ROW_GROUP:
            self._flush_parquet()

    def _flush_parquet(self) -> None:
        import pyarrow as pa

        if self._rows:
            table = pa.concat_tables(self._tables).combine_chunks()
            self._parquet.write_table(table, row_group_size=ROW_GROUP)
        self._tables, self._rows = [], 0

    def close(self) -> None:
        """Write what is held and close the file."""
        if self.format == "parquet":
            self._flush_parquet()
            self._parquet.close()
        else:
            self._file.close()

    def __enter__(self) -> ResultsWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
