"""Generated hand-filled grids: pen entries, pencil notes, planted mistakes, exact truth."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from sudoku_lens.read.kinds import EMPTY, HANDWRITTEN, NOTES, PRINTED
from sudoku_lens.synth import random_puzzle, render_grid
from sudoku_lens.synth.handwriting import (
    PENS,
    elastic,
    fill_in,
    stroke_digit,
    synth_filled_photo,
)

SIDE = 450


def cell_ink(before: np.ndarray, after: np.ndarray, margin: float = 0.15) -> np.ndarray:
    """Per cell of an upright grid image: most that writing darkened a pixel of the cell, left
    out a `margin` (share of the cell) along its sides."""
    grey = before.astype(np.float32).mean(axis=2) - after.astype(np.float32).mean(axis=2)
    step = after.shape[0] / 9
    out = np.zeros((9, 9))
    for r in range(9):
        for c in range(9):
            y0, x0 = int((r + margin) * step), int((c + margin) * step)
            y1, x1 = int((r + 1 - margin) * step), int((c + 1 - margin) * step)
            out[r, c] = grey[y0:y1, x0:x1].max()
    return out


@settings(max_examples=15, deadline=None)
@example(seed=4832, entries=1.0, notes=0.0, mistakes=4, pen="ballpoint-black")  # a 1 at the edge
@example(seed=461, entries=0.5, notes=0.0, mistakes=1, pen="felt-tip")  # a 7 taller than its cell
@given(
    seed=st.integers(0, 10_000),
    entries=st.floats(0.0, 1.0),
    notes=st.floats(0.0, 1.0),
    mistakes=st.integers(0, 5),
    pen=st.sampled_from(sorted(PENS)),
)
def test_truth_matches_what_is_written(
    seed: int, entries: float, notes: float, mistakes: int, pen: str
) -> None:
    rng = np.random.default_rng(seed)
    puzzle, solution = random_puzzle(rng)
    printed = render_grid(puzzle, rng)[:: 1200 // SIDE or 1, :: 1200 // SIDE or 1]
    filled = fill_in(
        printed, puzzle, solution, rng, entries=entries, notes=notes, mistakes=mistakes, pen=pen
    )
    kinds = filled.kinds
    assert filled.pen == pen
    assert np.all((kinds == PRINTED) == (puzzle > 0))
    assert np.all(filled.digits[kinds == PRINTED] == puzzle[kinds == PRINTED])
    assert np.all(filled.digits[(kinds == EMPTY) | (kinds == NOTES)] == 0)
    hand = kinds == HANDWRITTEN
    assert hand.sum() == round(entries * (puzzle == 0).sum())
    assert filled.mistakes.sum() == min(mistakes, hand.sum())
    assert not filled.mistakes[~hand].any()
    right = hand & ~filled.mistakes
    assert np.all(filled.digits[right] == solution[right])
    assert np.all(filled.digits[filled.mistakes] != solution[filled.mistakes])
    assert np.all(filled.digits[hand] > 0)
    ink = cell_ink(printed, filled.image, margin=0.0)  # digits may touch the cell's border
    assert np.all(ink[hand | (kinds == NOTES)] > 20), "every entry and note leaves ink"
    centre = cell_ink(printed, filled.image)  # a neighbour's digit may reach over the border
    assert np.all(centre[kinds == EMPTY] < 1), "empty cells stay blank"


def test_same_seed_same_photo_and_the_pen_colour_shows() -> None:
    first = synth_filled_photo(4, "easy", pen="ballpoint-blue", mistakes=2, rotation=0)
    again = synth_filled_photo(4, "easy", pen="ballpoint-blue", mistakes=2, rotation=0)
    np.testing.assert_array_equal(first.photo.image, again.photo.image)
    np.testing.assert_array_equal(first.filled.kinds, again.filled.kinds)
    assert first.filled.mistakes.sum() == 2
    image = first.filled.image.astype(np.float32)
    blue = image[..., 0] - image[..., 2]
    step = image.shape[0] / 9
    for r, c in zip(*np.nonzero(first.filled.kinds == HANDWRITTEN), strict=True):
        cell = blue[int(r * step) : int((r + 1) * step), int(c * step) : int((c + 1) * step)]
        assert cell.max() > 40, f"r{r + 1}c{c + 1}: a blue pen entry is blue"


def test_fonts_that_draw_no_digits_are_never_written_with(tmp_path) -> None:
    """A font without digits would write a box (its missing-glyph sign) for every entry, which
    no reader could take for the digit the truth says; such fonts are left to pen strokes."""
    not_a_font = tmp_path / "symbols.ttf"
    not_a_font.write_bytes(b"no digits here")
    rng = np.random.default_rng(7)
    puzzle, solution = random_puzzle(rng)
    printed = render_grid(puzzle, rng)[::3, ::3]
    strokes = fill_in(printed, puzzle, solution, np.random.default_rng(1), entries=1.0)
    boxes = fill_in(
        printed,
        puzzle,
        solution,
        np.random.default_rng(1),
        entries=1.0,
        font_files=[str(not_a_font)],
    )
    np.testing.assert_array_equal(boxes.image, strokes.image)


@pytest.mark.parametrize("digit", range(1, 10))
def test_pen_strokes_make_a_digit_of_the_asked_height(digit: int) -> None:
    rng = np.random.default_rng(digit)
    glyph = stroke_digit(digit, 40, 3.0, rng)
    assert 34 <= glyph.shape[0] <= 50
    assert glyph.max() > 0.9
    bent = elastic(glyph, rng, 0.05)
    assert bent.max() > 0.5 and abs(bent.shape[0] - glyph.shape[0]) < 12
