"""Whether a grid found may be only part of the puzzle, or the wrong grid: asked when its givens
have no answer.

Givens that break the rules or leave no single answer are misread digits, or digits read from
the wrong grid: one 3x3 box of a grid taken for the whole (its own lines and thick border make
it look like one), or a grid beside the puzzle. A grid found is doubted as part of the puzzle
when it covers little of the photo, or when the lines seen just inside one of its sides run on
outside it (`blocks.continuing_sides`): the border of a whole grid has paper around it. It is
doubted as the wrong grid when the photo holds another grid at least OTHER_GRID as large
(`other_grids`): the search took the one that fills the photo best, which need not be the
person's puzzle.
"""

from __future__ import annotations

from contextlib import suppress

import cv2
import numpy as np

from sudoku_lens.errors import SudokuLensError
from sudoku_lens.read.grid.blocks import continuing_sides
from sudoku_lens.read.grid.candidates import binarize
from sudoku_lens.read.grid.geometry import gray_levels, ink_pyramid, order_corners, to_level
from sudoku_lens.read.grid.search import GridSearch, locate_grid

SMALL_IN_PHOTO = 0.05
"""Share of the photo below which a grid found is doubted as small. The whole grids of the
shared sets' 239 labelled photos cover 14% of the photo or more (puzzle-book set: 14.4% to 72%,
median 31%; newspaper set: 32% or more), so one 3x3 box of the smallest covers 1.6%; the
threshold lies between the two on a log scale."""

OTHER_GRID = 0.5
"""Least area, as a share of the grid found's, of another grid in the photo for the grid found
to be doubted as the wrong one: a smaller grid beside it (yesterday's solution, a small puzzle
of the page) is seldom the puzzle photographed, since a photo frames its puzzle."""

_SAME_GRID = 0.1
"""Share of the smaller of two quadrilaterals that they may have in common and still be two
grids rather than one seen twice (the search scores a grid's outline more than once)."""


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


def other_grids(image: np.ndarray, corners: np.ndarray) -> list[str]:
    """Where other grids lie in `image` (BGR or grayscale uint8) beside the grid with `corners`
    (TL, TR, BR, BL in `image`'s pixels), as seen in the image ("to its right", "above it"),
    one entry per side, for each candidate of the grid search (`locate_grid`) that passes as a
    grid, covers at least OTHER_GRID of the grid found's area and lies outside it."""
    trace = GridSearch()
    with suppress(SudokuLensError):  # what was scored before a refusal is in the trace
        locate_grid(image, trace=trace)
    found = np.asarray(corners, np.float32).reshape(4, 2)
    found_area = cv2.contourArea(found)
    sides: list[str] = []
    for candidate in trace.candidates:
        if not candidate.passed:
            continue
        quad = (candidate.quad / trace.scale).astype(np.float32)
        area = cv2.contourArea(quad)
        if area < OTHER_GRID * found_area:
            continue
        common, _ = cv2.intersectConvexConvex(order_corners(found), order_corners(quad))
        if common > _SAME_GRID * min(area, found_area):
            continue
        dx, dy = quad.mean(axis=0) - found.mean(axis=0)
        if abs(dx) >= abs(dy):
            side = "to its right" if dx > 0 else "to its left"
        else:
            side = "below it" if dy > 0 else "above it"
        if side not in sides:
            sides.append(side)
    return sides
