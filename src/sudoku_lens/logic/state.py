"""The state a person solves on: placed digits and the candidates left in each empty cell.

`CandidateGrid` is deliberately small and fast: two lists of 81 ints (digits and 9-bit candidate
masks) plus, for each digit, the cell set (81-bit int) of the cells where it is still a candidate,
kept up to date on every placement and elimination so that the techniques never rebuild it.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from sudoku_lens.errors import PuzzleFormatError
from sudoku_lens.logic.units import ALL_DIGITS, BIT_COUNT, PEERS, UNIT_SETS
from sudoku_lens.puzzle.text import cell_name, find_conflict, format_line

if TYPE_CHECKING:
    from sudoku_lens.logic.step import Step

_SEPARATORS = re.compile(r"[|+*\-.:']")


class CandidateGrid:
    """Digits placed so far and the candidates of every empty cell."""

    __slots__ = ("values", "cands", "digit_cells", "givens")

    def __init__(self, values: list[int], cands: list[int], givens: int | None = None) -> None:
        self.values = values
        """81 digits, 0 for an empty cell."""
        self.cands = cands
        """81 candidate masks (bit d-1 for digit d); 0 for a filled cell."""
        self.givens = (
            sum(1 << cell for cell, value in enumerate(values) if value)
            if givens is None
            else givens
        )
        """The cell set of the puzzle's givens, as opposed to digits placed while solving. By
        default every cell filled when the grid is made (the safe choice: the avoidable
        rectangles, which need to know, only reason about digits placed later)."""
        self.digit_cells = [0] * 10
        """For digit d (1-9), the cell set of the empty cells where d is still a candidate."""
        for cell, mask in enumerate(cands):
            for d in range(9):
                if mask >> d & 1:
                    self.digit_cells[d + 1] |= 1 << cell

    @classmethod
    def from_puzzle(cls, puzzle: Any) -> CandidateGrid:
        """The start of solving `puzzle` (anything `format_line` accepts): every candidate that
        no placed digit rules out; its digits are the givens. Raises PuzzleFormatError for
        unreadable or illegal puzzles."""
        line = format_line(puzzle)
        conflict = find_conflict(line)
        if conflict:
            raise PuzzleFormatError(conflict)
        values = [ord(ch) - 48 for ch in line]
        cands = [0 if v else ALL_DIGITS for v in values]
        for cell, value in enumerate(values):
            if value:
                bit = ~(1 << (value - 1))
                for peer in PEERS[cell]:
                    cands[peer] &= bit
        return cls(values, cands)

    @classmethod
    def from_pencilmarks(cls, text: str) -> CandidateGrid:
        """A pencil-mark grid as the classic tools export it: 9 lines of 9 groups of digits
        separated by spaces; box separators `|`, `-`, `+`, `.`, `*`, `:` and `'` are ignored
        (HoDoKu and Sudoku Explainer draw box corners with the last two). A group of
        one digit is a placed digit, counted as a given (the grid cannot say which were placed
        while solving). Raises PuzzleFormatError when the text is not such a grid or
        its placed digits break the rules."""
        groups: list[str] = []
        for raw in text.splitlines():
            words = _SEPARATORS.sub(" ", raw).split()
            if not words:
                continue
            if len(words) != 9:
                raise PuzzleFormatError(
                    f"pencil-mark row {len(groups) // 9 + 1} has {len(words)} groups, not 9"
                )
            groups.extend(words)
        if len(groups) != 81:
            raise PuzzleFormatError(
                f"a pencil-mark grid has 9 rows of 9 groups, not {len(groups)} groups"
            )
        values: list[int] = []
        cands: list[int] = []
        for cell, group in enumerate(groups):
            if not group.isdigit() or "0" in group or len(set(group)) != len(group):
                raise PuzzleFormatError(f"{cell_name(cell)}: {group!r} is not a set of digits 1-9")
            mask = 0
            for ch in group:
                mask |= 1 << (ord(ch) - 49)
            if len(group) == 1:
                values.append(int(group))
                cands.append(0)
            else:
                values.append(0)
                cands.append(mask)
        conflict = find_conflict("".join(map(str, values)))
        if conflict:
            raise PuzzleFormatError(conflict)
        for cell, value in enumerate(values):
            if value:
                bit = ~(1 << (value - 1))
                for peer in PEERS[cell]:
                    cands[peer] &= bit
        return cls(values, cands)

    def copy(self) -> CandidateGrid:
        """An independent copy."""
        other = CandidateGrid.__new__(CandidateGrid)
        other.values = self.values[:]
        other.cands = self.cands[:]
        other.digit_cells = self.digit_cells[:]
        other.givens = self.givens
        return other

    def place(self, cell: int, digit: int) -> None:
        """Put `digit` in `cell` and remove it from the candidates of the cell's peers."""
        bit = 1 << (digit - 1)
        mask = self.cands[cell]
        self.values[cell] = digit
        self.cands[cell] = 0
        cell_bit = 1 << cell
        for d in range(9):
            if mask >> d & 1:
                self.digit_cells[d + 1] &= ~cell_bit
        for peer in PEERS[cell]:
            if self.cands[peer] & bit:
                self.cands[peer] &= ~bit
                self.digit_cells[digit] &= ~(1 << peer)

    def eliminate(self, cell: int, digit: int) -> bool:
        """Remove `digit` from the candidates of `cell`; True when it was there."""
        bit = 1 << (digit - 1)
        if not self.cands[cell] & bit:
            return False
        self.cands[cell] &= ~bit
        self.digit_cells[digit] &= ~(1 << cell)
        return True

    def apply(self, step: Step) -> None:
        """Make the placements and eliminations of a step."""
        for cell, digit in step.eliminations:
            self.eliminate(cell, digit)
        for cell, digit in step.placements:
            if not self.values[cell]:
                self.place(cell, digit)

    def candidate_count(self, cell: int) -> int:
        """How many candidates an empty cell has (0 for a filled one)."""
        return BIT_COUNT[self.cands[cell]]

    def is_solved(self) -> bool:
        """True when every cell holds a digit."""
        return 0 not in self.values

    def is_broken(self) -> bool:
        """True when an empty cell has no candidate or a unit has no place left for a digit it
        still lacks: the state contradicts the rules."""
        for cell in range(81):
            if not self.values[cell] and not self.cands[cell]:
                return True
        for d in range(1, 10):
            placed = 0
            for cell, value in enumerate(self.values):
                if value == d:
                    placed |= 1 << cell
            for unit in UNIT_SETS:
                if not unit & placed and not unit & self.digit_cells[d]:
                    return True
        return False

    def line(self) -> str:
        """The placed digits as an 81-character line, '0' for empty cells."""
        return "".join(map(str, self.values))

    def pencilmarks(self) -> str:
        """The state as a pencil-mark grid (the layout `from_pencilmarks` reads)."""
        groups = [
            str(v) if v else "".join(str(d + 1) for d in range(9) if self.cands[i] >> d & 1)
            for i, v in enumerate(self.values)
        ]
        width = max(len(g) for g in groups)
        rows = []
        for r in range(9):
            if r in (3, 6):
                rows.append("+".join(["-" * (3 * (width + 1) + 1)] * 3))
            cells = [g.ljust(width) for g in groups[r * 9 : r * 9 + 9]]
            rows.append(" | ".join(" ".join(cells[b : b + 3]) for b in (0, 3, 6)))
        return "\n".join(rows)


def is_pencil_mark_grid(text: str) -> bool:
    """Whether `text` (comment lines aside) is 81 candidate groups, some of several digits: a
    pencil-mark grid as the classic tools export it, not puzzle text."""
    rows = [r for r in text.splitlines() if not r.lstrip().startswith("#")]
    groups = [word for row in rows for word in _SEPARATORS.sub(" ", row).split()]
    return len(groups) == 81 and any(len(word) > 1 for word in groups)


def parse_state(text: str) -> CandidateGrid:
    """A puzzle given as puzzle text (an 81-character line or a 9-row grid of digits) or as a
    pencil-mark grid: 81 groups of digits separated by spaces, some holding several digits."""
    rows = [r for r in text.splitlines() if not r.lstrip().startswith("#")]
    groups = [word for row in rows for word in _SEPARATORS.sub(" ", row).split()]
    if is_pencil_mark_grid(text):
        return CandidateGrid.from_pencilmarks("\n".join(rows))
    try:
        return CandidateGrid.from_puzzle(text)
    except PuzzleFormatError:
        if (
            len(rows) > 1  # a line of 81 cells is a puzzle, whatever its dots make of it
            and len(groups) > 9
            and any(len(w) > 1 and w.isdigit() and "0" not in w for w in groups)
        ):
            CandidateGrid.from_pencilmarks("\n".join(rows))  # raises, naming what is wrong
        raise


def as_state(puzzle: Any) -> CandidateGrid:
    """A CandidateGrid from a grid (copied), puzzle text or a pencil-mark grid, or an array or
    list of 81 digits. Raises PuzzleFormatError for anything else."""
    if isinstance(puzzle, CandidateGrid):
        return puzzle.copy()
    if isinstance(puzzle, str):
        return parse_state(puzzle)
    return CandidateGrid.from_puzzle(puzzle)
