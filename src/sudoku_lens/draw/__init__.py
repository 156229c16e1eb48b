"""Draw a solved Sudoku's missing digits, and marks on wrong entries, into the photo."""

from sudoku_lens.draw.overlay import (
    DEFAULT_COLOR,
    DEFAULT_DIGIT_HEIGHT,
    WRONG_COLOR,
    composite,
    digit_sprite,
    draw_solution,
    overlay_size,
    render_overlay,
    wrong_sprite,
)

__all__ = [
    "DEFAULT_COLOR",
    "DEFAULT_DIGIT_HEIGHT",
    "composite",
    "digit_sprite",
    "draw_solution",
    "overlay_size",
    "render_overlay",
    "WRONG_COLOR",
    "wrong_sprite",
]
