"""sudoku-lens: read a Sudoku from a photo or a camera, solve it, and draw the answer back.

The photo entry points are importable from here; they load on first use, so that importing the
package (as the command line does) stays cheap. The solver is `sudoku_lens.solve.solve` (the
package `sudoku_lens.solve` holds it):

    >>> from sudoku_lens.solve import solve
    >>> solve("." * 80 + "1").status
    <Status.SEVERAL: 'several solutions'>
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

_EXPORTS = {
    "read_photo": "sudoku_lens.read",
    "Reading": "sudoku_lens.read",
    "solve_photo": "sudoku_lens.pipeline",
    "PhotoSolution": "sudoku_lens.pipeline",
    "LiveSolver": "sudoku_lens.live",
    "SudokuLensError": "sudoku_lens.errors",
}

__all__ = [*_EXPORTS, "__version__"]


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'sudoku_lens' has no attribute {name!r}")
