"""Cell kinds: what a cell of a photographed grid holds, besides which digit.

A cell is empty, a printed digit (a given of the puzzle), a handwritten digit (the person's own
entry, in pen or pencil) or pencil notes (small candidate digits, which count as empty for
solving). `Reading.kinds` holds one kind index per cell; `read --json` writes them as 81
characters of KIND_CHARS.
"""

from __future__ import annotations

import numpy as np

KIND_NAMES = ("empty", "printed", "handwritten", "notes")
"""Cell kinds, by index: empty, a printed digit, a handwritten digit, pencil notes."""

KIND_CHARS = ".phn"
"""One character per kind, by index (as in `read --json`'s "kinds")."""

EMPTY, PRINTED, HANDWRITTEN, NOTES = range(4)


def kinds_text(kinds: np.ndarray) -> str:
    """81 characters of KIND_CHARS for a 9x9 array of kind indices."""
    return "".join(KIND_CHARS[int(k)] for k in np.asarray(kinds).ravel())


def parse_kinds(text: str) -> np.ndarray:
    """The (9, 9) uint8 kind indices of 81 characters of KIND_CHARS (inverse of `kinds_text`)."""
    if len(text) != 81 or any(ch not in KIND_CHARS for ch in text):
        raise ValueError(f"kinds must be 81 characters of {KIND_CHARS!r}")
    return np.array([KIND_CHARS.index(ch) for ch in text], np.uint8).reshape(9, 9)
