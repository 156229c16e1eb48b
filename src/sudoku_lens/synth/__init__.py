"""Synthetic phone photos and videos of newspaper Sudokus, with exact ground truth.

Used by the tests, the benchmarks, the training data and the bundled example, so that no
third-party photo goes into the repository.

- `random_puzzle(rng)`: a puzzle with a unique solution, and the solution.
- `render_grid(puzzle, rng, style)`: the puzzle printed as a flat, upright newspaper grid.
- `place_in_scene(grid_image, rng, difficulty, puzzle=..., solution=...)`: a photo of it.
- `synth_photo(seed, difficulty)`: all three from one seed.
- `synth_video(seed, schedule=...)`: frames of moving pages with per-frame truth.
- `make_example(path)`: regenerate the bundled example photo.
"""

from sudoku_lens.synth.example import EXAMPLE_PATH, example_photo, make_example
from sudoku_lens.synth.page import Clutter
from sudoku_lens.synth.puzzles import random_puzzle, random_solution
from sudoku_lens.synth.render import (
    HERSHEY_FACES,
    GlyphFont,
    GridStyle,
    random_font,
    random_style,
    render_grid,
    system_fonts,
)
from sudoku_lens.synth.scene import (
    DIFFICULTIES,
    Difficulty,
    SyntheticPhoto,
    place_in_scene,
    synth_photo,
)
from sudoku_lens.synth.video import DEFAULT_SCHEDULE, FrameTruth, SyntheticVideo, synth_video

__all__ = [
    "DEFAULT_SCHEDULE",
    "DIFFICULTIES",
    "EXAMPLE_PATH",
    "HERSHEY_FACES",
    "Clutter",
    "Difficulty",
    "FrameTruth",
    "GlyphFont",
    "GridStyle",
    "SyntheticPhoto",
    "SyntheticVideo",
    "example_photo",
    "make_example",
    "place_in_scene",
    "random_font",
    "random_puzzle",
    "random_solution",
    "random_style",
    "render_grid",
    "synth_photo",
    "synth_video",
    "system_fonts",
]
