"""The package's top-level API: the photo entry points load on first use, not on import."""

from __future__ import annotations

import subprocess
import sys

import pytest

import sudoku_lens


def test_importing_the_package_stays_light() -> None:
    code = "import sys, sudoku_lens.cli; print('numpy' in sys.modules, 'cv2' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_photo_entry_points_are_exported() -> None:
    from sudoku_lens import LiveSolver, PhotoSolution, Reading, read_photo, solve_photo
    from sudoku_lens.live import solver
    from sudoku_lens.pipeline import PhotoSolution as pipeline_photo_solution
    from sudoku_lens.pipeline import solve_photo as pipeline_solve_photo
    from sudoku_lens.read import reader

    assert solve_photo is pipeline_solve_photo and LiveSolver is solver.LiveSolver
    assert PhotoSolution is pipeline_photo_solution
    assert read_photo is reader.read_photo and Reading is reader.Reading


def test_unknown_names_raise_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
        _ = sudoku_lens.nothing_here
