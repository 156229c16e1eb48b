"""Shaken, grainy, washed-out and dark photos: the shake found and taken out, the grain measured,
the grid read again only when the digit model is unsure of it or its digits are faint, the photo
searched again restored only when no grid is found in it (`read.grid.restore`, `read.reader`,
`read.grid.search`)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from sudoku_lens.read import read_photo
from sudoku_lens.read import reader as reader_module
from sudoku_lens.read.content import ink_level
from sudoku_lens.read.grid import GridSearch, locate_grid
from sudoku_lens.read.grid import search as search_module
from sudoku_lens.read.grid.cells import recut
from sudoku_lens.read.grid.restore import (
    GRAINY,
    contrast_gain,
    deepened,
    grain,
    line_kernel,
    restored,
    shake,
    smoothed,
    steadied,
    stretched,
)
from sudoku_lens.read.image_io import load_image
from sudoku_lens.read.kinds import read_cells
from sudoku_lens.read.reader import FAINT, UNSURE, sureness
from sudoku_lens.synth import EXAMPLE_PATH, example_photo


def phone_sized_example() -> np.ndarray:
    """The bundled example halved to 640 x 480, the size of most of the dataset's phone photos:
    a shake of a few pixels then smears its digits as much as a long one does the full size."""
    image = load_image(EXAMPLE_PATH)
    return cv2.resize(image, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)


def test_shaken_photo_is_read_right() -> None:
    # An 8-pixel diagonal shake: before the grid was steadied, 13 of its cells were misread.
    shaken = cv2.filter2D(phone_sized_example(), -1, np.eye(8, dtype=np.float32) / 8)
    reading = read_photo(shaken)
    assert np.array_equal(reading.grid, example_photo().puzzle)


@pytest.mark.parametrize("offset", [(7.0, -4.0), (0.0, 9.0), (10.0, 0.0), (5.5, 5.5)])
def test_shake_is_found_and_taken_out(offset: tuple[float, float]) -> None:
    sharp = locate_grid(phone_sized_example()).warped
    smeared = cv2.filter2D(sharp, -1, line_kernel(offset), borderType=cv2.BORDER_REFLECT_101)
    found = np.array(shake(smeared))
    # A line smears the same whichever end it starts from.
    assert min(np.abs(found - offset).max(), np.abs(found + offset).max()) <= 0.5
    inside = slice(20, -20)
    after = np.abs(steadied(smeared, tuple(found)).astype(float) - sharp)[inside, inside].mean()
    before = np.abs(smeared.astype(float) - sharp)[inside, inside].mean()
    assert after < 0.85 * before


def test_line_kernel_is_a_centred_line_of_unit_weight() -> None:
    kernel = line_kernel((6.0, 0.0))
    middle = kernel.shape[0] // 2
    assert kernel.sum() == pytest.approx(1.0)
    assert np.array_equal(kernel, kernel[::-1, ::-1])  # through the centre, both ways alike
    assert np.count_nonzero(kernel.sum(axis=1)) == 1 and kernel[middle].max() > 0


def test_steadied_keeps_an_even_picture_as_it_is() -> None:
    even = np.full((120, 100), 180, np.uint8)
    assert np.array_equal(steadied(even, (6.0, 3.0)), even)


def test_grain_measures_noise_not_shading() -> None:
    rng = np.random.default_rng(0)
    noisy = np.clip(128 + rng.normal(0.0, 10.0, (200, 200)), 0, 255).astype(np.uint8)
    assert grain(noisy) == pytest.approx(10.0, abs=1.0)
    ramp = np.tile(np.linspace(50, 200, 200), (200, 1)).astype(np.uint8)
    assert grain(ramp) < 0.5


def test_a_grainy_grid_is_smoothed_and_a_clean_one_steadied() -> None:
    sharp = locate_grid(phone_sized_example()).warped
    rng = np.random.default_rng(1)
    grainy = np.clip(sharp + rng.normal(0.0, 3 * GRAINY, sharp.shape), 0, 255).astype(np.uint8)
    assert grain(grainy) >= GRAINY > grain(sharp)
    assert np.array_equal(restored(grainy), smoothed(grainy))
    assert np.array_equal(restored(sharp), steadied(sharp, shake(sharp)))


def test_recut_from_the_same_picture_gives_the_same_cells() -> None:
    location = locate_grid(phone_sized_example())
    again = recut(location, location.warped.copy())
    assert all(np.array_equal(a, b) for a, b in zip(again.cells, location.cells, strict=True))
    assert np.array_equal(again.ink_colour, location.ink_colour)


def test_a_sure_reading_is_not_restored(monkeypatch: pytest.MonkeyPatch) -> None:
    location = locate_grid(load_image(EXAMPLE_PATH))
    assert sureness(read_cells(location)) >= UNSURE

    def refuse(gray: np.ndarray) -> np.ndarray:
        raise AssertionError("a grid read surely was restored")

    monkeypatch.setattr(reader_module, "restored", refuse)
    reading = read_photo(EXAMPLE_PATH)
    assert np.array_equal(reading.grid, example_photo().puzzle)


def scaled_contrast(image: np.ndarray, factor: float, middle: float) -> np.ndarray:
    """`image` with its grey levels' distance from `middle` times `factor`: washed out towards
    mid-grey (middle 128), or darkened as in dim light (middle 0)."""
    return np.clip(middle + (image - middle) * factor, 0, 255).astype(np.uint8)


def shaken_down(image: np.ndarray) -> np.ndarray:
    """`image` shaken 10 pixels down: its grid's rows' thin rules smeared below the ink mask's
    threshold."""
    return cv2.filter2D(image, -1, np.ones((10, 1), np.float32) / 10)


def washed_out(image: np.ndarray) -> np.ndarray:
    """`image` at a tenth of its contrast."""
    return scaled_contrast(image, 0.1, 128.0)


@pytest.mark.parametrize(
    ("spoil", "restoration"),
    [(shaken_down, "steadied"), (washed_out, "contrast stretched")],
    ids=["shaken along the rows' rules", "washed out"],
)
def test_a_photo_whose_grid_is_lost_is_searched_again_restored(spoil, restoration) -> None:
    # No grid was found in either before the photo was searched again restored.
    trace = GridSearch()
    reading = read_photo(spoil(phone_sized_example()), trace=trace)
    assert trace.restored == restoration
    assert np.array_equal(reading.grid, example_photo().puzzle)


def test_the_faint_digits_of_a_dark_photo_are_read_from_the_grid_stretched() -> None:
    # At a tenth of its light, 18 of the 25 digits were lost before: too faint for the finder.
    dark = scaled_contrast(phone_sized_example(), 0.1, 0.0)
    location = locate_grid(dark)
    assert ink_level(read_cells(location).found) < FAINT
    assert np.array_equal(read_photo(dark).grid, example_photo().puzzle)


def test_a_photo_whose_grid_is_found_as_taken_is_not_searched_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def refuse(gray: np.ndarray) -> None:
        raise AssertionError("a photo whose grid was found was searched again")

    monkeypatch.setattr(search_module, "_restorations", refuse)
    trace = GridSearch()
    reading = read_photo(phone_sized_example(), trace=trace)
    assert trace.restored is None
    assert np.array_equal(reading.grid, example_photo().puzzle)


def test_stretched_spans_the_grey_levels_and_deepened_clips_nothing() -> None:
    ramp = np.tile(np.linspace(100, 140, 256), (64, 1)).astype(np.uint8)
    assert contrast_gain(ramp) == pytest.approx(255 / 40, rel=0.05)
    spread = stretched(ramp)
    assert spread.min() == 0 and spread.max() == 255
    deep = deepened(ramp, 3.0)
    assert deep.min() == 0 and deep.max() == 120  # 40 grey levels, three times as many
    steep = deepened(ramp, 100.0)  # no more than the range allows: nothing is clipped
    assert steep.max() == 255 and np.count_nonzero(steep == 255) < 2 * ramp.shape[0]


def test_an_even_picture_is_refused_without_a_numpy_warning() -> None:
    """A blank photo has no shake to find: its retried search ends in "no grid" with no warning
    of a log of zero, which the command line would print above its one-line error."""
    import warnings

    from sudoku_lens.errors import GridNotFoundError

    blank = np.full((600, 800, 3), 255, np.uint8)
    assert shake(blank[..., 0]) == (0.0, 0.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(GridNotFoundError):
            read_photo(blank)
