"""Reading a Sudoku from a photo: image loading, grid location, digit reading, orientation.

The names below load on first use, so that `sudoku_lens.read.formats` (stdlib only) can be
imported by the command line without loading OpenCV.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "GridLocation": "sudoku_lens.read.grid",
    "locate_grid": "sudoku_lens.read.grid",
    "load_image": "sudoku_lens.read.image_io",
    "load_photo": "sudoku_lens.read.image_io",
    "Photo": "sudoku_lens.read.image_io",
    "Reading": "sudoku_lens.read.reader",
    "read_image": "sudoku_lens.read.reader",
    "read_photo": "sudoku_lens.read.reader",
}

__all__ = list(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'sudoku_lens.read' has no attribute {name!r}")
