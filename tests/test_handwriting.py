"""Generated hand-filled grids: pen entries, pencil notes, planted mistakes, exact truth."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from sudoku_lens.read.kinds import EMPTY, HANDWRITTEN, NOTES, PRINTED
from sudoku_lens.synth import random_puzzle, render_grid
from sudoku_lens.synth.handwriting import (
    HAND_STYLES,
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


@pytest.mark.parametrize("name", sorted(HAND_STYLES))
def test_every_style_writes_its_digits_at_the_asked_height(name: str) -> None:
    style = HAND_STYLES[name]
    rng = np.random.default_rng(5)
    for digit in style.digits:
        glyph = stroke_digit(digit, 40, 3.0, rng, style)
        assert 30 <= glyph.shape[0] <= 56, f"{name} {digit}: {glyph.shape}"
        assert glyph.max() > 0.9


def _lean(glyph: np.ndarray) -> float:
    """How far right the ink of a glyph's top half lies of its bottom half's, in pixels."""
    ys, xs = np.nonzero(glyph > 0.5)
    top = ys < glyph.shape[0] / 2
    return float(xs[top].mean() - xs[~top].mean())


def _up_stroke(glyph: np.ndarray) -> float:
    """How far down a 1's up-stroke comes, as a share of its height: the lowest ink left of its
    stem, above where a foot would be."""
    ys, xs = np.nonzero(glyph > 0.5)
    height = glyph.shape[0]
    stem = np.median(xs[(ys > 0.6 * height) & (ys < 0.85 * height)])
    left = (xs < stem - 0.15 * height) & (ys < 0.85 * height)
    return float(ys[left].max() / height) if left.any() else 0.0


def test_styles_shape_their_digits_as_named() -> None:
    rng = np.random.default_rng(11)
    lean = {
        name: np.mean([_lean(stroke_digit(1, 40, 3.0, rng, HAND_STYLES[name])) for _ in range(20)])
        for name in ("lean-left", "strokes", "lean-right")
    }
    assert lean["lean-left"] < lean["strokes"] - 4 < lean["lean-right"] - 8
    reach = {
        name: np.mean(
            [_up_stroke(stroke_digit(1, 40, 3.0, rng, HAND_STYLES[name])) for _ in range(20)]
        )
        for name in ("strokes", "continental-1")
    }
    assert reach["continental-1"] > reach["strokes"] + 0.15, "the continental 1's long up-stroke"
    assert HAND_STYLES["barred-7"].digits == (7,) and HAND_STYLES["cramped"].digits == tuple(
        range(1, 10)
    )


def test_a_style_writes_every_entry_in_strokes_and_cramped_ones_small() -> None:
    from sudoku_lens.train.fonts import find_handwriting_fonts

    rng = np.random.default_rng(3)
    puzzle, solution = random_puzzle(rng)
    printed = render_grid(puzzle, rng)[::3, ::3]
    fonts = [str(path) for path in find_handwriting_fonts()]
    if not fonts:
        pytest.skip("no handwriting fonts installed (Debian's fonts-* handwriting packages)")

    def written(**options: object) -> np.ndarray:
        made = fill_in(printed, puzzle, solution, np.random.default_rng(1), entries=1.0, **options)
        return made.image

    np.testing.assert_array_equal(
        written(font_files=fonts, hand_style="strokes"), written(hand_style="strokes")
    )
    assert not np.array_equal(written(font_files=fonts), written())
    grey = printed.astype(np.float32).mean(axis=2)
    step = printed.shape[0] / 9

    def heights(image: np.ndarray) -> list[int]:
        """Height in pixels of the ink written in each open cell."""
        ink = grey - image.astype(np.float32).mean(axis=2) > 40
        out = []
        for r, c in zip(*np.nonzero(puzzle == 0), strict=True):
            rows = ink[int(r * step) : int((r + 1) * step), int(c * step) : int((c + 1) * step)]
            ys = np.nonzero(rows.any(axis=1))[0]
            out.append(int(ys.max() - ys.min() + 1) if len(ys) else 0)
        return out

    cramped = np.median(heights(written(hand_style="cramped")))
    assert cramped < 0.45 * step < np.median(heights(written(hand_style="strokes")))
