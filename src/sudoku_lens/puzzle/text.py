"""Puzzle text without NumPy: parse, check the rules, and print puzzles as 81-character lines.

The canonical form of a puzzle here is its *line*: 81 ASCII characters, row by row, `1`-`9` for
a given and `0` for an empty cell. The command line works on lines only, so that a cold
`sudoku-lens solve` does not pay for importing NumPy.
"""

from __future__ import annotations

import codecs
import operator
from collections.abc import Iterable
from itertools import repeat
from typing import IO, Any, NamedTuple

from sudoku_lens.errors import PuzzleFormatError

DIGITS = "123456789"
_EMPTY = "0."
_DECORATION = frozenset(" \t\r\n|+-")
PUZZLE_CHARACTERS = frozenset("0123456789.|+- \t")
"""What a line of puzzle text (a puzzle, or a row of a 9-row grid) may be made of: a line of
these alone is puzzle text, not a path or a photo's name."""
_ROWS = [[9 * r + c for c in range(9)] for r in range(9)]
_COLUMNS = [[9 * r + c for r in range(9)] for c in range(9)]
_BOXES = [
    [9 * (3 * (b // 3) + r) + 3 * (b % 3) + c for r in range(3) for c in range(3)] for b in range(9)
]
_UNITS = (("row", _ROWS), ("column", _COLUMNS), ("box", _BOXES))
_GRID_ROW_MAX_CELLS = 12
MAX_LINE_BYTES = 10_000
"""The longest line a puzzle file may hold: a line or a grid row is far shorter, so a longer
one means the file is not puzzle text (a video, a database) and reading stops there."""
_CHUNK_BYTES = 1 << 20


def cell_name(index: int) -> str:
    """Name cell `index` (0-80, row-major) the way players do: `r3c7`, 1-based."""
    return f"r{index // 9 + 1}c{index % 9 + 1}"


def cell_names(cells: Iterable[tuple[int, int]]) -> list[str]:
    """The names (`cell_name`) of (row, col) cells, 0-based, in their order."""
    return [cell_name(9 * row + col) for row, col in cells]


def parse_line(text: str) -> str:
    """Read one puzzle, as an 81-character line or a grid of 9 rows, into its canonical line.

    `0` or `.` marks an empty cell; spaces, line breaks, `|`, `-` and `+` are layout and are
    skipped. Raises PuzzleFormatError naming a bad character and its cell, or the wrong count
    of cells. The Sudoku rules are not checked here: see `find_conflict`.
    """
    if len(text) == 81 and text.isascii() and text.isdigit():
        return text
    cells: list[str] = []
    for position, char in enumerate(text, 1):
        if char in DIGITS:
            cells.append(char)
        elif char in _EMPTY:
            cells.append("0")
        elif char not in _DECORATION:
            where = f"at {cell_name(len(cells))}" if len(cells) < 81 else "after the 81st cell"
            raise PuzzleFormatError(
                f"bad character {char!r} {where} (character {position}): "
                "a cell is 1-9, or 0 or . when empty"
            )
    if len(cells) != 81:
        raise PuzzleFormatError(f"a puzzle has 81 cells, this one has {len(cells)}")
    return "".join(cells)


def _cell_value(value: Any, index: int) -> int:
    """One cell of an array or list puzzle as an int 0-9 (0 = empty)."""
    if isinstance(value, bool):
        number = -1
    elif isinstance(value, float):
        number = int(value) if value.is_integer() else -1
    else:
        try:
            number = operator.index(value)
        except TypeError:
            number = -1
    if not 0 <= number <= 9:
        kind = "text" if isinstance(value, str) else type(value).__name__
        raise PuzzleFormatError(
            f"cell {cell_name(index)} holds {value!r} ({kind}): a cell of a list or array is "
            "an integer 1-9, or 0 when empty (give text as one string)"
        )
    return number


def format_line(puzzle: Any) -> str:
    """The 81-character line of a puzzle given as text, a 9x9 or 81 array, or a (nested) list.

    Text goes through `parse_line`; arrays and lists must hold 81 integers 0-9, 0 for empty.
    Raises PuzzleFormatError otherwise.
    """
    if isinstance(puzzle, str):
        return parse_line(puzzle)
    shape = getattr(puzzle, "shape", None)
    if shape is not None:
        if tuple(shape) not in ((9, 9), (81,)):
            raise PuzzleFormatError(f"a puzzle array is 9x9 or 81 cells, got shape {shape}")
        values = puzzle.reshape(-1).tolist()
    elif isinstance(puzzle, list | tuple):
        if len(puzzle) == 9 and all(isinstance(row, list | tuple) for row in puzzle):
            if any(len(row) != 9 for row in puzzle):
                raise PuzzleFormatError("a nested puzzle list has 9 rows of 9 cells")
            values = [value for row in puzzle for value in row]
        elif len(puzzle) == 81:
            values = list(puzzle)
        else:
            raise PuzzleFormatError(
                f"a puzzle list has 81 cells or 9 rows of 9, this one has {len(puzzle)} items"
            )
    else:
        raise PuzzleFormatError(
            f"cannot read a puzzle from {type(puzzle).__name__}: "
            "give text, a 9x9 or 81 array, or a list"
        )
    return "".join("0123456789"[_cell_value(value, index)] for index, value in enumerate(values))


def find_conflict(line: str) -> str | None:
    """Describe the first digit that appears twice in a row, column or box, or None.

    For example `5 appears twice in row 3: r3c1 and r3c7`.
    """
    for kind, units in _UNITS:
        for number, cells in enumerate(units, 1):
            seen: dict[str, int] = {}
            for index in cells:
                digit = line[index]
                if digit == "0":
                    continue
                if digit in seen:
                    return (
                        f"{digit} appears twice in {kind} {number}: "
                        f"{cell_name(seen[digit])} and {cell_name(index)}"
                    )
                seen[digit] = index
    return None


def check_rules(puzzle: Any) -> None:
    """Raise PuzzleFormatError if a digit appears twice in a row, column or box.

    The message names the unit and both cells. Accepts what `format_line` accepts.
    """
    conflict = find_conflict(format_line(puzzle))
    if conflict:
        raise PuzzleFormatError(conflict)


def format_grid(puzzle: Any) -> str:
    """The puzzle as a boxed 9x9 grid of text (13 lines, `.` for empty cells)."""
    line = format_line(puzzle)
    rule = "+-------+-------+-------+"
    rows = [rule]
    for r in range(9):
        cells = [line[9 * r + c] if line[9 * r + c] != "0" else "." for c in range(9)]
        rows.append("| " + " | ".join(" ".join(cells[3 * s : 3 * s + 3]) for s in range(3)) + " |")
        if r % 3 == 2:
            rows.append(rule)
    return "\n".join(rows)


def grid_row_cells(row: str) -> int | None:
    """How many cells `row` adds to a 9-row grid, or None when no grid can be open after it.

    None for a blank line, a `#` comment or a line with more cells than a grid row (a whole
    puzzle): `read_puzzles` closes any grid there, so a file can be cut after such a row.
    """
    stripped = row.strip()
    if not stripped or stripped[0] == "#":
        return None
    cells = sum(1 for char in stripped if char not in _DECORATION)
    return cells if cells <= _GRID_ROW_MAX_CELLS else None


def looks_like_puzzle_text(text: str) -> bool:
    """Whether at least half the characters of `text` (blank lines, `#` comments and white space
    left out) are those puzzle text is made of: a file of mistyped puzzles is, prose is not."""
    rows = (row for row in text.splitlines() if not row.lstrip().startswith("#"))
    characters = "".join("".join(row.split()) for row in rows)
    inside = sum(char in PUZZLE_CHARACTERS for char in characters)
    return 2 * inside >= len(characters)


class PuzzleEntry(NamedTuple):
    """One puzzle of a puzzle file: its text, and its line or why it could not be read."""

    number: int  # 1-based line of the file where the puzzle starts
    text: str  # the puzzle as written in the file
    line: str | None  # canonical 81-character line, None when the text is not a puzzle
    error: str | None  # one-line reason when `line` is None


def _grid_entry(rows: list[tuple[int, str]]) -> PuzzleEntry:
    """Turn the collected rows of a grid into one entry."""
    number, text = rows[0][0], "\n".join(row for _, row in rows)
    try:
        line = parse_line(text)
    except PuzzleFormatError as exc:
        cell_rows = sum(1 for _, row in rows if any(char not in _DECORATION for char in row))
        if 1 < cell_rows != 9:
            return PuzzleEntry(number, text, None, f"a grid has 9 rows, this one has {cell_rows}")
        return PuzzleEntry(number, text, None, str(exc))
    return PuzzleEntry(number, text, line, None)


def read_puzzles(text: str, *, first_line: int = 1) -> list[PuzzleEntry]:
    """Split puzzle-file text into entries, keeping going past puzzles that cannot be read.

    A file holds one puzzle per line (81 characters, or one word of 81 among others, as puzzle
    banks write an id and a rating beside it), or grids of 9 short rows (with optional `|`,
    `-`, `+` and spaces; a blank line ends a grid), or a mix. Blank lines and lines starting
    with `#` are skipped. A bad puzzle becomes an entry with its error; the Sudoku rules are not
    checked here (solving reports a puzzle that breaks them). `first_line` numbers the entries
    of a piece of a longer file, cut where no grid is open (see `sudoku_lens.batch`).
    """
    rows = [row.strip() for row in text.splitlines()]
    if "#" in text or not set(map(len, rows)) <= {0, 81}:
        return _validate_fast_lines(_read_mixed(rows, first_line))
    numbers = [number for number, row in enumerate(rows, first_line) if row]
    texts = [row for row in rows if row]
    lines = [row.replace(".", "0") for row in texts] if "." in text else texts
    return _validate_fast_lines(
        list(map(PuzzleEntry._make, zip(numbers, texts, lines, repeat(None))))
    )


def _read_mixed(rows: list[str], first_line: int) -> list[PuzzleEntry]:
    """Entries of stripped rows that hold comments, grids or lines of other lengths."""
    entries: list[PuzzleEntry] = []
    grid: list[tuple[int, str]] = []
    grid_rows = 0
    for number, stripped in enumerate(rows, first_line):
        if len(stripped) == 81 and not grid and stripped[0] != "#":
            entries.append(PuzzleEntry(number, stripped, stripped.replace(".", "0"), None))
            continue
        blank = not stripped or stripped[0] == "#"
        cells = 0 if blank else sum(1 for char in stripped if char not in _DECORATION)
        if not blank and cells <= _GRID_ROW_MAX_CELLS:
            if cells or grid:
                grid.append((number, stripped))
                grid_rows += cells > 0
            if grid_rows < 9:
                continue
        if grid:
            entries.append(_grid_entry(grid))
            grid, grid_rows = [], 0
        if blank or cells <= _GRID_ROW_MAX_CELLS:
            continue
        try:
            entries.append(PuzzleEntry(number, stripped, parse_line(stripped), None))
        except PuzzleFormatError as exc:
            banked = _banked(stripped)
            entries.append(PuzzleEntry(number, stripped, banked, None if banked else str(exc)))
    if grid:
        entries.append(_grid_entry(grid))
    return entries


def _banked(line: str) -> str | None:
    """The puzzle of a puzzle bank's line, which holds other words around it (an id, a rating:
    `0001ab 0050...  5.2`): its one word that is an 81-character puzzle, or None."""
    puzzles = []
    for word in line.split():
        if len(word) == 81:
            try:
                puzzles.append(parse_line(word))
            except PuzzleFormatError:
                continue
    return puzzles[0] if len(puzzles) == 1 else None


def _validate_fast_lines(entries: list[PuzzleEntry]) -> list[PuzzleEntry]:
    """Check the characters of the 81-character lines taken unparsed, all at once if possible."""
    joined = "".join(entry.line for entry in entries if entry.line is not None)
    if joined.isascii() and not joined.encode("ascii").translate(None, b"0123456789"):
        return entries
    return [_reparse(entry) for entry in entries]


def _reparse(entry: PuzzleEntry) -> PuzzleEntry:
    """Parse an entry's line properly, turning a bad character into the entry's error."""
    if entry.line is None:
        return entry
    try:
        return entry._replace(line=parse_line(entry.text))
    except PuzzleFormatError as exc:
        return entry._replace(line=None, error=str(exc))


def read_puzzle_text(stream: IO[bytes], name: str, *, head: bytes = b"") -> str:
    """The UTF-8 text of a puzzle file read in chunks from `stream` (after `head`, bytes of it
    already read), so that a large file that is not puzzle text is refused after its first
    megabyte rather than read whole. Raises PuzzleFormatError for a line longer than
    MAX_LINE_BYTES, a NUL byte or text that is not UTF-8, naming `name` and the line."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    parts: list[str] = []
    carry = head
    lines = 0
    while True:
        chunk = stream.read(_CHUNK_BYTES)
        block = carry + chunk
        cut = len(block) if not chunk else block.rfind(b"\n") + 1
        whole = block[:cut]
        longest = max(map(len, block.split(b"\n")))
        if longest > MAX_LINE_BYTES:
            where = lines + _line_of_long(block)
            raise PuzzleFormatError(
                f"{name} is not a file of puzzles: line {where} is longer than "
                f"{MAX_LINE_BYTES:,} bytes"
            )
        if b"\0" in whole:
            where = lines + whole.count(b"\n", 0, whole.index(b"\0")) + 1
            raise PuzzleFormatError(f"{name} is not a text file of puzzles (line {where})")
        try:
            parts.append(decoder.decode(whole, final=not chunk))
        except UnicodeDecodeError as exc:
            where = lines + whole.count(b"\n", 0, exc.start) + 1
            raise PuzzleFormatError(
                f"{name} is not a text file of puzzles (line {where} is not UTF-8)"
            ) from None
        lines += whole.count(b"\n")
        carry = block[cut:]
        if not chunk:
            return "".join(parts).removeprefix("\ufeff")


def _line_of_long(block: bytes) -> int:
    """1-based number, within `block`, of its first line longer than MAX_LINE_BYTES."""
    for number, line in enumerate(block.split(b"\n"), 1):
        if len(line) > MAX_LINE_BYTES:
            return number
    return 0
