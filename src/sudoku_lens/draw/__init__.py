"""Draw a solved Sudoku's missing digits, and marks on wrong and unsure entries, into the photo."""

from sudoku_lens.draw.overlay import (
    DEFAULT_COLOR,
    DEFAULT_DIGIT_HEIGHT,
    UNSURE_COLOR,
    WRONG_COLOR,
    composite,
    digit_sprite,
    draw_solution,
    overlay_size,
    render_overlay,
    unsure_sprite,
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
    "UNSURE_COLOR",
    "unsure_sprite",
    "WRONG_COLOR",
    "wrong_sprite",
]
