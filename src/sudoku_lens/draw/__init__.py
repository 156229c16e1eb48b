"""Draw a solved Sudoku's missing digits into the photo, in perspective."""

from sudoku_lens.draw.overlay import (
    DEFAULT_COLOR,
    DEFAULT_DIGIT_HEIGHT,
    composite,
    digit_sprite,
    draw_solution,
    overlay_size,
    render_overlay,
)

__all__ = [
    "DEFAULT_COLOR",
    "DEFAULT_DIGIT_HEIGHT",
    "composite",
    "digit_sprite",
    "draw_solution",
    "overlay_size",
    "render_overlay",
]
