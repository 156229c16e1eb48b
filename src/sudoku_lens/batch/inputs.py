"""Expand batch inputs into a stream of units of work, lazily, in a fixed order.

An input is a photo, a folder (walked recursively in name order; image files recognised by their
content, and files named as images that hold none, which give an error record, as they would
named alone, rather than vanish from the results; other files and hidden ones passed over), a
glob pattern (`scans/**/*.jpg`, matches in name order), a text
file listing paths (one per line, relative to the list's folder; each may be a photo, a folder, a
pattern or a puzzle file), or a puzzle file (one puzzle per line, or 9-row grids). A text file is
a list of paths when its first line that is not blank or a `#` comment is not puzzle text and
names a path that exists or holds a `/`; otherwise it is a puzzle file.

Puzzle files are cut into pieces of about `PIECE_BYTES`, after a line where no grid is open; a
worker reads its piece from the file and parses and solves it: the parent sends the piece's
place in the file, and never parses a puzzle. A line longer than `MAX_LINE_BYTES` (the limit of
`solve`) is never held whole: it becomes a piece of its own that gives an error record. Items
already recorded (`Recorded`, for --resume) are skipped.
"""

from __future__ import annotations

import bisect
import glob
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from sudoku_lens.batch.records import printable
from sudoku_lens.batch.work import PhotoUnit, PuzzleUnit, Unit
from sudoku_lens.errors import SudokuLensError
from sudoku_lens.puzzle.text import MAX_LINE_BYTES, PUZZLE_CHARACTERS, grid_row_cells
from sudoku_lens.read.formats import HEAD_BYTES, IMAGE_SUFFIXES, image_format, unsupported_format
from sudoku_lens.solve._core import count_newlines

MAX_PATH_BYTES = 4096
"""The longest line of a list of paths read as a path (Linux's PATH_MAX)."""
PIECE_BYTES = 1 << 20
"""About how much of a puzzle file goes to a worker at a time (some 12,000 puzzle lines)."""

_SNIFF_LINES = 1000


@dataclass
class Recorded:
    """The items a results file already holds: photos by source, puzzles by source and line."""

    photos: set[str] = field(default_factory=set)
    puzzle_lines: dict[str, list[int]] = field(default_factory=dict)

    def add(self, source: str, line: int | None) -> None:
        """Note one record's item."""
        if line is None:
            self.photos.add(source)
        else:
            self.puzzle_lines.setdefault(source, []).append(line)

    def __len__(self) -> int:
        return len(self.photos) + sum(map(len, self.puzzle_lines.values()))

    def line_mask(self, source: str, first: int, count: int) -> bytes:
        """Recorded puzzle lines of `source` among `count` lines from `first`, one bit per line
        (see `PuzzleUnit.skip`); empty when there are none."""
        lines = self.puzzle_lines.get(source)
        if not lines:
            return b""
        start = bisect.bisect_left(lines, first)
        stop = bisect.bisect_left(lines, first + count)
        if start == stop:
            return b""
        mask = bytearray((count + 7) // 8)
        for line in lines[start:stop]:
            i = line - first
            mask[i >> 3] |= 1 << (i & 7)
        return bytes(mask)

    def sort(self) -> None:
        """Sort the puzzle lines (once, after the last `add`) for `lines_between`."""
        for lines in self.puzzle_lines.values():
            lines.sort()


def expand(
    inputs: Iterable[str | os.PathLike[str]],
    *,
    draw_dir: str | os.PathLike[str] | None = None,
    recorded: Recorded | None = None,
) -> Iterator[Unit]:
    """Check that every input exists (or, as a pattern, matches), then stream their units.

    Raises SudokuLensError for an input that names nothing, or a folder that holds no image,
    before any work starts. Photos that
    go wrong later (unreadable, not an image) become error records, not exceptions.
    """
    names = [os.fspath(name) for name in inputs]
    if not names:
        raise SudokuLensError("no input given: name photos, folders, patterns or puzzle files")
    for name in names:
        if not _exists(name) and not (glob.has_magic(name) and _first_match(name)):
            raise SudokuLensError(f"no such file or folder, and no file matches: {name}")
        if os.path.isdir(name) and next(_walk(name, misnamed=False), None) is None:
            raise SudokuLensError(
                f"no photos in the folder {name} (folders are searched for images only: "
                "name puzzle files themselves)"
            )
    return _units(names, Path(draw_dir) if draw_dir is not None else None, recorded or Recorded())


def estimate_items(
    inputs: Iterable[str | os.PathLike[str]], recorded: Recorded | None = None
) -> int:
    """About how many records `inputs` give: photos, plus non-blank lines of puzzle files (for
    a progress bar's total; it reads everything once more, so run it beside the work)."""
    total = 0
    for unit in expand(inputs, recorded=recorded):
        if isinstance(unit, PhotoUnit):
            total += 1
        else:
            total += unit.lines - unit.skipped
    return total


def _exists(name: str) -> bool:
    try:
        return os.path.exists(name)
    except (OSError, ValueError):
        return False


def _first_match(pattern: str) -> bool:
    return next(glob.iglob(pattern, recursive=True), None) is not None


def _units(names: list[str], draw_dir: Path | None, recorded: Recorded) -> Iterator[Unit]:
    for name in names:
        yield from _expand_one(name, draw_dir, recorded, listed=False)


def _expand_one(
    name: str, draw_dir: Path | None, recorded: Recorded, *, listed: bool
) -> Iterator[Unit]:
    """The units of one input: a folder, a pattern, a photo, a list of paths or a puzzle file."""
    if os.path.isdir(name):
        for path in _walk(name):
            yield from _photo(path, draw_dir, recorded)
        return
    if not _exists(name) and glob.has_magic(name):
        for path in sorted(glob.iglob(name, recursive=True)):
            yield from _expand_one(path, draw_dir, recorded, listed=listed)
        return
    if os.path.isfile(name) and os.path.getsize(name) == 0:
        source = printable(name)
        if source not in recorded.photos:
            yield PhotoUnit(source, os.path.abspath(name), None, f"{source} is empty")
        return
    kind = None if not os.path.isfile(name) or _is_image(name) else _text_kind(name)
    if kind == "puzzles":
        yield from _puzzle_units(name, recorded)
    elif kind is None or listed:  # missing, binary, or a list in a list (no cycles)
        yield from _photo(name, draw_dir, recorded)  # an error record unless an image
    else:
        folder = os.path.dirname(name)
        for number, entry in _listed_paths(name):
            if entry is not None:
                yield from _expand_one(os.path.join(folder, entry), draw_dir, recorded, listed=True)
            elif printable(f"{name}:{number}") not in recorded.photos:
                message = f"line {number} is longer than {MAX_PATH_BYTES:,} bytes: not a path"
                yield PhotoUnit(printable(f"{name}:{number}"), "", None, message)


def _walk(folder: str, *, misnamed: bool = True) -> Iterator[str]:
    """Image files under `folder`, recursively, in name order: by content, and with `misnamed`
    also the files named as images (IMAGE_SUFFIXES) that hold none, an empty `scan.jpg` say,
    so that they give an error record instead of vanishing; not hidden ones (`._scan.jpg`, the
    metadata a Mac leaves beside each file copied)."""
    try:
        entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
    except OSError:
        return
    for entry in entries:
        if entry.is_dir(follow_symlinks=False):
            yield from _walk(entry.path, misnamed=misnamed)
        elif _is_file(entry) and (
            _is_image(entry.path) or (misnamed and _named_as_image(entry.name))
        ):
            yield entry.path


def _named_as_image(name: str) -> bool:
    return not name.startswith(".") and os.path.splitext(name)[1].lower() in IMAGE_SUFFIXES


def _is_file(entry: os.DirEntry[str]) -> bool:
    """Whether a folder's entry is a file, or a link to one (a loop of links is not)."""
    try:
        return entry.is_file()
    except OSError:
        return False


def _head(path: str, size: int) -> bytes:
    try:
        with open(path, "rb") as handle:
            return handle.read(size)
    except OSError:
        return b""


def _is_image(path: str) -> bool:
    head = _head(path, HEAD_BYTES)
    return image_format(head) is not None or unsupported_format(head) is not None


def _text_kind(path: str) -> str | None:
    """The kind of a text file, "puzzles" or "paths"; None for a binary one (then reported as
    a photo that cannot be read). A list of paths: its first line that is not blank or a `#` comment
    is not puzzle text, and names a path that exists or has a folder in it.
    """
    head = _head(path, 1 << 16)
    if b"\0" in head:
        return None
    text = head.decode("utf-8-sig", "replace")
    for row in text.splitlines()[:_SNIFF_LINES]:
        entry = row.strip()
        if entry and not entry.startswith("#"):
            named = os.path.join(os.path.dirname(path), entry)
            if set(entry) <= PUZZLE_CHARACTERS or not (
                _exists(named) or "/" in entry or os.sep in entry
            ):
                return "puzzles"
            return "paths"
    return "puzzles"


def _listed_paths(path: str) -> Iterator[tuple[int, str | None]]:
    """(line number, path) for each path a list file names, one per line (blank lines and #
    comments skipped); the path is None for a line longer than MAX_PATH_BYTES, which is read on
    in bounded pieces and never held whole."""
    with open(path, "rb") as handle:
        number = 0
        while row := handle.readline(MAX_PATH_BYTES + 1):
            number += 1
            if len(row) > MAX_PATH_BYTES and not row.endswith(b"\n"):
                _skip_line(handle)
                yield number, None
                continue
            entry = row.decode("utf-8", "surrogateescape").removeprefix("\ufeff").strip()
            if entry and not entry.startswith("#"):
                yield number, entry


def _photo(path: str, draw_dir: Path | None, recorded: Recorded) -> Iterator[PhotoUnit]:
    source = printable(path)
    if source in recorded.photos:
        return
    yield PhotoUnit(source, os.path.abspath(path), _drawing(draw_dir, path))


def _drawing(draw_dir: Path | None, source: str) -> str | None:
    """Where the solved picture of `source` goes, without its ending (`work` adds the one
    `pipeline.picture_ending` gives the photo's format): its path (below the current folder, or
    from the root) under `draw_dir`, named `<name>-solved`, so that no two photos share one."""
    if draw_dir is None:
        return None
    absolute = Path(os.path.abspath(source))
    try:
        relative = absolute.relative_to(Path.cwd())
    except ValueError:
        relative = absolute.relative_to(absolute.anchor)
    return os.path.abspath(draw_dir / relative.parent / f"{relative.name}-solved")


def _puzzle_units(path: str, recorded: Recorded) -> Iterator[PuzzleUnit]:
    """The puzzle file at `path` in pieces of whole lines, each ending where no grid is open; a
    line longer than MAX_LINE_BYTES is a piece of its own, marked `too_long` and never read
    whole (the worker records it as an error, as `solve` refuses such a file)."""
    first_line, offset = 1, 0
    source, absolute = printable(path), os.path.abspath(path)
    with open(path, "rb") as handle:
        for size, lines, too_long in _pieces(handle):
            skip = recorded.line_mask(source, first_line, lines)
            yield PuzzleUnit(source, absolute, offset, size, first_line, lines, skip, too_long)
            first_line, offset = first_line + lines, offset + size


def _pieces(handle: BinaryIO) -> Iterator[tuple[int, int, bool]]:
    """(bytes, lines, too long) of each piece of a puzzle file, read in blocks of about
    PIECE_BYTES: holding at most one block and one line of MAX_LINE_BYTES at a time."""
    carry = b""
    while block := carry + handle.read(PIECE_BYTES):
        carry = b""
        if not block.endswith(b"\n"):
            block += handle.readline(MAX_LINE_BYTES + 1)  # the rest of the last line, bounded
        if not _has_long_line(block):  # the common case: no list of lines made
            rows = _open_grid_rows_at_end(block)
        else:
            lines = block.split(b"\n")  # the last: what follows the last line break
            first = next(i for i, line in enumerate(lines) if len(line) > MAX_LINE_BYTES)
            if first == 0:
                if len(lines) == 1:
                    yield len(block) + _skip_line(handle), 1, True
                else:
                    yield len(lines[0]) + 1, 1, True
                    carry = block[len(lines[0]) + 1 :]
                continue
            cut = sum(map(len, lines[:first])) + first
            block, carry = block[:cut], block[cut:]
            rows = _open_grid_rows_at_end(block)
        while rows % 9 and not carry:  # go on to the end of an open grid, line by line
            line = handle.readline(MAX_LINE_BYTES + 1)
            if len(line.rstrip(b"\n")) > MAX_LINE_BYTES:
                carry = line
            elif line:
                block += line
                cells = grid_row_cells(line.decode("utf-8", "replace"))
                rows = 0 if cells is None else rows + (cells > 0)
            else:
                break
        yield len(block), _count_lines(block), False


def _skip_line(handle: BinaryIO) -> int:
    """Read on to the end of the current line (its line break included) without keeping it;
    the number of bytes read."""
    skipped = 0
    while chunk := handle.readline(PIECE_BYTES):
        skipped += len(chunk)
        if chunk.endswith(b"\n"):
            break
    return skipped


def _has_long_line(block: bytes) -> bool:
    """Whether a line of `block` is longer than MAX_LINE_BYTES (line breaks left out): each
    step looks for the last line break within MAX_LINE_BYTES + 1 bytes of the start of a line,
    so a megabyte of short lines takes some hundred searches in C, no list or array."""
    start = 0
    while len(block) - start > MAX_LINE_BYTES:
        end = block.rfind(b"\n", start, start + MAX_LINE_BYTES + 1)
        if end < 0:
            return True
        start = end + 1
    return False


def _count_lines(block: bytes) -> int:
    """The lines of `block`, the last counted when it has no line break (counted in C: 80 MB of
    puzzles took `bytes.count` a fifth of the batch process's own CPU time)."""
    return count_newlines(block) + (not block.endswith(b"\n"))


def _open_grid_rows_at_end(block: bytes) -> int:
    """Rows with cells at the end of the lines of `block` since the last row that closes
    every grid (read backwards, line by line, as far as needed)."""
    count = 0
    end = len(block) - 1 if block.endswith(b"\n") else len(block)
    while end >= 0:
        start = block.rfind(b"\n", 0, end) + 1
        cells = grid_row_cells(block[start:end].decode("utf-8", "replace"))
        if cells is None:
            return count
        count += cells > 0
        end = start - 1
    return count
