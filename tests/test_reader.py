"""read_photo: digits, orientation, corners in the upright puzzle's order, sources and errors."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from conftest import truth_grid
from sudoku_lens.errors import GridNotFoundError, ImageError
from sudoku_lens.read import Reading, read_image, read_photo
from sudoku_lens.read.image_io import load_photo
from sudoku_lens.read.reader import search_reduction, upright_corners
from test_grid import PUZZLE, VIEWS, photograph


def test_upright_corners_follow_the_turns() -> None:
    corners = np.array([[0, 0], [10, 0], [10, 10], [0, 10]], np.float32)
    assert upright_corners(corners, 0).tolist() == corners.tolist()
    # A quarter turn clockwise brings the image's bottom-left corner to the top-left.
    assert upright_corners(corners, 1).tolist() == [[0, 10], [0, 0], [10, 0], [10, 10]]
    assert upright_corners(corners, 2).tolist() == [[10, 10], [0, 10], [0, 0], [10, 0]]


@pytest.mark.parametrize("turns", [0, 1, 2, 3])
def test_synthetic_grid_in_every_orientation(turns: int) -> None:
    corners = np.array(VIEWS["perspective"], np.float32)
    image = photograph(corners)
    image = np.ascontiguousarray(np.rot90(image, -turns))
    height, width = photograph(corners).shape[:2]
    turned = corners.copy()
    for _ in range(turns):
        # Where a point lands when the image turns a quarter clockwise.
        turned = np.stack([height - 1 - turned[:, 1], turned[:, 0]], axis=1)
        height, width = width, height
    reading = read_photo(image)
    assert isinstance(reading, Reading)
    assert reading.rotation == (360 - 90 * turns) % 360
    read = "".join(str(v) for v in reading.grid.ravel())
    assert sum(a != b for a, b in zip(read, PUZZLE, strict=True)) <= 3
    assert np.linalg.norm(reading.corners - turned, axis=1).max() < 3.0


@pytest.mark.parametrize(
    ("name", "rotation"),
    [
        ("printed/image10.jpg", 0),
        ("printed/image1045.jpg", 0),
        ("printed/image1040.jpg", 270),
        ("printed/image1083.jpg", 180),
    ],
)
def test_real_photos_are_read_exactly(wicht_data: Path, name: str, rotation: int) -> None:
    photo = wicht_data / name
    reading = read_photo(photo)
    assert reading.rotation == rotation
    assert np.array_equal(reading.grid, truth_grid(photo))
    assert reading.grid.dtype == np.uint8 and reading.grid.shape == (9, 9)
    assert reading.probabilities.shape == (9, 9, 10)
    assert np.allclose(reading.probabilities.sum(axis=2), 1.0, atol=1e-3)
    assert reading.confidence.shape == (9, 9)
    assert reading.image.shape == cv2.imread(str(photo)).shape


def test_turned_photo_reads_the_same_with_matching_corners(wicht_data: Path) -> None:
    photo = wicht_data / "printed/image10.jpg"
    image = cv2.imread(str(photo))
    upright = read_photo(image)
    turned_image = np.ascontiguousarray(np.rot90(image, 1))
    turned = read_photo(turned_image)
    assert np.array_equal(turned.grid, upright.grid)
    assert turned.rotation == 90
    height = image.shape[0]
    width = image.shape[1]
    # np.rot90(image, 1) turns counter-clockwise: (x, y) goes to (y, width - 1 - x).
    moved = np.stack([upright.corners[:, 1], width - 1 - upright.corners[:, 0]], axis=1)
    assert np.linalg.norm(turned.corners - moved, axis=1).max() < 3.0
    assert turned.image.shape == (width, height, 3)


def test_path_bytes_and_array_sources_agree(wicht_data: Path) -> None:
    photo = wicht_data / "printed/image40.jpg"
    from_path = read_photo(photo)
    from_bytes = read_photo(photo.read_bytes())
    from_array = read_photo(cv2.imread(str(photo)))
    assert np.array_equal(from_path.grid, from_bytes.grid)
    assert np.array_equal(from_path.grid, from_array.grid)
    assert np.allclose(from_path.corners, from_array.corners)


def test_timings_per_stage() -> None:
    reading = read_photo(photograph(np.array(VIEWS["frontal"], np.float32)))
    assert set(reading.timings) == {"decode", "grid", "cells", "digits", "kinds", "total"}
    assert all(v >= 0 for v in reading.timings.values())
    stages = sum(v for k, v in reading.timings.items() if k != "total")
    assert reading.timings["total"] == pytest.approx(stages)


def test_a_decoded_image_is_read_as_it_is() -> None:
    image = photograph(np.array(VIEWS["frontal"], np.float32))
    reading = read_image(image)
    assert reading.image is image, "read_image keeps the caller's array: no second decode"
    assert set(reading.timings) == {"grid", "cells", "digits", "kinds", "total"}
    np.testing.assert_array_equal(reading.grid, read_photo(image).grid)


def test_reading_json_has_lines_rounded_corners_and_81_confidences() -> None:
    reading = read_photo(photograph(np.array(VIEWS["frontal"], np.float32)))
    summary = reading.to_json()
    assert set(summary) == {
        "grid",
        "kinds",
        "candidates",
        "givens",
        "corners",
        "rotation",
        "confidences",
        "seconds",
    }
    assert summary["candidates"] == [""] * 81, "a printed puzzle: no pencil candidates"
    assert summary["grid"] == "".join(str(v) for v in reading.grid.ravel())
    assert summary["kinds"] == "".join(".p"[int(v > 0)] for v in reading.grid.ravel())
    assert summary["givens"] == summary["grid"], "a printed puzzle: every digit is a given"
    assert summary["candidates"] == [""] * 81, "no pencil notes"
    assert summary["corners"] == [[round(float(v), 1) for v in p] for p in reading.corners]
    assert len(summary["confidences"]) == 81 and min(summary["confidences"]) > 0.5
    assert summary["rotation"] == 0


def test_no_grid_and_not_an_image() -> None:
    with pytest.raises(GridNotFoundError, match="no Sudoku grid found"):
        read_photo(np.full((480, 640, 3), 210, np.uint8))
    with pytest.raises(ImageError, match="not an image"):
        read_photo(b"plain text, not a picture")


def test_readings_compare_and_hash_by_identity() -> None:
    from sudoku_lens.pipeline import solve_photo
    from sudoku_lens.solve import solve
    from sudoku_lens.synth import EXAMPLE_PATH

    for first, second in (
        (read_photo(EXAMPLE_PATH), read_photo(EXAMPLE_PATH)),
        (solve_photo(EXAMPLE_PATH), solve_photo(EXAMPLE_PATH)),
        (solve("." * 80 + "1"), solve("." * 80 + "1")),
    ):
        assert first == first and first != second  # no "truth value of an array" error
        assert len({first, second}) == 2


def test_a_printed_solution_beside_the_puzzle_is_passed_over_for_the_puzzle() -> None:
    """The search takes the grid that fills the page best, here the larger printed solution;
    the reader reads the puzzle beside it instead, its corners in the page's pixels. A printed
    solution alone, or beside a grid too bare to be a puzzle, is read as it is."""
    from sudoku_lens.synth import render_grid
    from sudoku_lens.synth.puzzles import random_puzzle

    rng = np.random.default_rng(7)
    puzzle, solution = random_puzzle(rng, None)
    big = render_grid(solution, rng)
    small = cv2.resize(render_grid(puzzle, rng), None, fx=0.7, fy=0.7)

    def page_of(beside: np.ndarray) -> np.ndarray:
        column = np.full((big.shape[0], beside.shape[1], 3), 245, np.uint8)
        column[: beside.shape[0]] = beside
        gap = np.full((big.shape[0], 60, 3), 245, np.uint8)
        parts = np.hstack([big, gap, column])
        return cv2.copyMakeBorder(parts, 80, 80, 80, 80, cv2.BORDER_CONSTANT, value=(245,) * 3)

    page = page_of(small)
    reading = read_image(page)
    np.testing.assert_array_equal(reading.givens, puzzle)
    assert reading.corners[:, 0].min() > 80 + big.shape[1]
    assert reading.image is page
    twice = cv2.resize(page, None, fx=2, fy=2, interpolation=cv2.INTER_CUBIC)
    encoded = cv2.imencode(".jpg", twice, [cv2.IMWRITE_JPEG_QUALITY, 95])[1].tobytes()
    assert search_reduction(load_photo(encoded)) > 1
    decoded = read_photo(encoded)  # decoded reduced, its corners in the whole photo's pixels
    np.testing.assert_array_equal(decoded.givens, puzzle)
    np.testing.assert_allclose(decoded.corners, 2 * reading.corners, atol=0.02 * small.shape[1])

    alone = read_image(
        cv2.copyMakeBorder(big, 80, 80, 80, 80, cv2.BORDER_CONSTANT, value=(245,) * 3)
    )
    np.testing.assert_array_equal(alone.grid, solution)
    bare = np.where(np.arange(81).reshape(9, 9) < 10, solution, 0).astype(np.uint8)
    beside_bare = read_image(page_of(cv2.resize(render_grid(bare, rng), None, fx=0.7, fy=0.7)))
    np.testing.assert_array_equal(beside_bare.grid, solution)
