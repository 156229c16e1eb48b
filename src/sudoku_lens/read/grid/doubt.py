"""Whether a grid found may be only part of the puzzle: asked when its givens have no answer.

Givens that break the rules or leave no single answer are misread digits, or digits read from
the wrong grid: one 3x3 box of a grid taken for the whole (its own lines and thick border make
it look like one), or a grid beside the puzzle. A grid found is doubted when it covers little of
the photo, or when the lines seen just inside one of its sides run on outside it
(`blocks.continuing_sides`): the border of a whole grid has paper around it.
"""

from __future__ import annotations

import cv2
import numpy as np

from sudoku_lens.read.grid.blocks import continuing_sides
from sudoku_lens.read.grid.candidates import binarize
from sudoku_lens.read.grid.geometry import gray_levels, ink_pyramid, order_corners, to_level

SMALL_IN_PHOTO = 0.05
"""Share of the photo below which a grid found is doubted as small. The whole grids of the
shared sets' 239 labelled photos cover 14% of the photo or more (puzzle-book set: 14.4% to 72%,
median 31%; newspaper set: 32% or more), so one 3x3 box of the smallest covers 1.6%; the
threshold lies between the two on a log scale."""


def part_of_puzzle(image: np.ndarray, corners: np.ndarray) -> list[str]:
    """Why the grid with `corners` (TL, TR, BR, BL in `image`'s pixels) may be only part of the
    puzzle in `image` (BGR or grayscale uint8), each said as a clause ("it covers 3% of the
    photo", "lines run on past its left side"); empty when nothing says so."""
    height, width = image.shape[:2]
    reasons = []
    share = cv2.contourArea(np.asarray(corners, np.float32)) / float(height * width)
    if share < SMALL_IN_PHOTO:
        reasons.append(f"it covers {100 * share:.0f}% of the photo")
    levels = gray_levels(image)
    quad = to_level(np.asarray(corners, np.float32).reshape(4, 2), len(levels) - 1)
    pyramid = ink_pyramid(binarize(levels[-1])[1])
    names = ("top", "right", "bottom", "left")  # the sides of corners ordered as in the image
    ordered = order_corners(quad)
    going_on = [names[side] for side in np.flatnonzero(continuing_sides(pyramid, ordered))]
    if len(going_on) == 4:
        reasons.append("lines run on past all its sides")
    elif going_on:
        *others, last = going_on
        sides = f"{', '.join(others)} and {last} sides" if others else f"{last} side"
        reasons.append(f"lines run on past its {sides}")
    return reasons
