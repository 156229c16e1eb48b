"""Draw a solved Sudoku's missing digits, the person's entries the photo does not show, and marks
on wrong and unsure entries and on candidates that leave out the answer, into the photo (over a
patch of paper where the cell holds pencil notes)."""

from sudoku_lens.draw.overlay import (
    CANDIDATES_COLOR,
    DEFAULT_COLOR,
    DEFAULT_DIGIT_HEIGHT,
    ENTRY_COLOR,
    UNSURE_COLOR,
    WRONG_COLOR,
    candidates_sprite,
    composite,
    digit_sprite,
    draw_solution,
    entry_sprite,
    overlay_size,
    render_overlay,
    unsure_sprite,
    wrong_sprite,
)
from sudoku_lens.draw.paper import cover_cells

__all__ = [
    "CANDIDATES_COLOR",
    "candidates_sprite",
    "DEFAULT_COLOR",
    "DEFAULT_DIGIT_HEIGHT",
    "composite",
    "cover_cells",
    "digit_sprite",
    "draw_solution",
    "ENTRY_COLOR",
    "entry_sprite",
    "overlay_size",
    "render_overlay",
    "UNSURE_COLOR",
    "unsure_sprite",
    "WRONG_COLOR",
    "wrong_sprite",
]
