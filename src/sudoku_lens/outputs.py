"""Where a file is to be written, checked before any work: one wording for every command.

Stdlib only, so that the command line can check its outputs without loading OpenCV.
"""

from __future__ import annotations

import os
from collections.abc import Collection
from pathlib import Path

from sudoku_lens.errors import SudokuLensError


def check_output_path(
    path: str | os.PathLike[str],
    *,
    example: str,
    suffixes: Collection[str] = (),
    name_it: str = "",
) -> Path:
    """`path` as a Path when a file can be written there, else SudokuLensError in one line.

    `cannot write X: ` then `it is a folder; give a file name like EXAMPLE`, `NAME_IT` (an
    ending not among `suffixes`, when given: e.g. "name it .mp4, .m4v or .mov"), `folder F does
    not exist` or `permission denied`.
    """
    target = Path(path)
    if target.is_dir():
        raise SudokuLensError(
            f"cannot write {target}: it is a folder; give a file name like {example}"
        )
    if suffixes and target.suffix.lower() not in suffixes:
        raise SudokuLensError(f"cannot write {target}: {name_it}")
    folder = target.parent
    if not folder.is_dir():
        raise SudokuLensError(f"cannot write {target}: folder {folder} does not exist")
    if not os.access(folder, os.W_OK) or (target.exists() and not os.access(target, os.W_OK)):
        raise SudokuLensError(f"cannot write {target}: permission denied")
    return target
