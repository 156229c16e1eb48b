"""Labelled training photos, cut by the reader's own code along the finder's lattice or the
outline's."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sudoku_lens.read.digits import prepare_cells
from sudoku_lens.read.grid import locate_grid
from sudoku_lens.synth.example import example_photo
from sudoku_lens.train.photos import (
    cut_cells,
    even_lattice,
    grid_lattice,
    jitter_lattice,
    load_photos,
)


@pytest.fixture(scope="module")
def example() -> tuple[np.ndarray, np.ndarray]:
    """The bundled example photo (upright) and its grid corners TL, TR, BR, BL."""
    photo = example_photo()
    return photo.image, photo.corners


def corners_of(lattice: np.ndarray) -> np.ndarray:
    return np.array([lattice[0, 0], lattice[0, 9], lattice[9, 9], lattice[9, 0]])


@pytest.mark.parametrize("kind", ["printed", "mixed"])
def test_every_labelled_photo_loads_with_its_grid_corners(wicht_data: Path, kind: str) -> None:
    photos = load_photos(wicht_data, kind)
    labelled = [
        p for p in (wicht_data / kind).glob("image*.jpg") if p.with_suffix(".dat").is_file()
    ]
    assert len(photos) == len(labelled)
    assert [p.number for p in photos] == sorted(p.number for p in photos)
    for photo in photos[::20]:
        height, width = cv2.imread(str(photo.path), cv2.IMREAD_GRAYSCALE).shape
        assert photo.lattice.shape == (10, 10, 2) and photo.corners.shape == (4, 2)
        assert np.all(photo.corners >= -0.02 * width)
        assert np.all(photo.corners[:, 0] <= 1.02 * width)
        assert np.all(photo.corners[:, 1] <= 1.02 * height)
        assert photo.labels.shape == (9, 9) and photo.labels.max() <= 9


def test_hand_filled_photos_are_labelled_in_every_cell(wicht_data: Path) -> None:
    photos = load_photos(wicht_data, "mixed")
    assert all((photo.labels > 0).all() for photo in photos)


def test_training_cells_are_the_cells_the_reader_cuts(wicht_data: Path) -> None:
    for photo in load_photos(wicht_data, "mixed")[:40:8]:
        image = photo.read_image()
        read = locate_grid(image)
        train = cut_cells(image, photo)
        np.testing.assert_array_equal(np.stack(train.cells), np.stack(read.cells))
        np.testing.assert_array_equal(train.ink_colour, read.ink_colour)
        np.testing.assert_array_equal(
            prepare_cells(train.cells, train.ink_colour), prepare_cells(read.cells, read.ink_colour)
        )


def test_grid_lattice_is_the_finders_where_it_agrees_with_the_outline(
    example: tuple[np.ndarray, np.ndarray],
) -> None:
    image, corners = example
    found = locate_grid(image).lattice
    np.testing.assert_array_equal(grid_lattice(image, corners), found)
    np.testing.assert_array_equal(grid_lattice(image, None), found)


def test_grid_lattice_follows_the_outline_where_the_finder_is_off_or_fails(
    example: tuple[np.ndarray, np.ndarray],
) -> None:
    image, corners = example
    side = float(np.linalg.norm(corners[1] - corners[0]))
    elsewhere = corners + np.float32([0.2 * side, 0.1 * side])
    np.testing.assert_allclose(grid_lattice(image, elsewhere), even_lattice(elsewhere))
    blank = np.full_like(image, 200)
    np.testing.assert_allclose(grid_lattice(blank, corners), even_lattice(corners))
    assert grid_lattice(blank, None) is None


quads = st.lists(st.tuples(st.floats(-40, 40), st.floats(-40, 40)), min_size=4, max_size=4).map(
    lambda moves: np.float32([[100, 100], [500, 120], [520, 480], [90, 500]]) + moves
)


@settings(max_examples=50, deadline=None)
@given(quads)
def test_even_lattice_runs_evenly_between_the_corners(corners: np.ndarray) -> None:
    lattice = even_lattice(corners)
    np.testing.assert_allclose(corners_of(lattice), corners, atol=1e-3)
    for line in (*lattice, *lattice.transpose(1, 0, 2)):
        step = np.diff(line, axis=0)
        cross = step[:-1, 0] * step[1:, 1] - step[:-1, 1] * step[1:, 0]
        assert np.all(np.abs(cross) < 1e-2 * np.linalg.norm(step, axis=1).max() ** 2)
    square = np.float32([[0, 0], [9, 0], [9, 9], [0, 9]])
    flat = cv2.perspectiveTransform(
        lattice.reshape(-1, 1, 2), cv2.getPerspectiveTransform(np.float32(corners), square)
    )
    steps = np.arange(10, dtype=np.float32)
    np.testing.assert_allclose(
        flat.reshape(10, 10, 2), np.stack(np.meshgrid(steps, steps), axis=2), atol=1e-3
    )


def test_jittered_lattices_are_a_little_off_and_reproducible() -> None:
    lattice = even_lattice(np.float32([[100, 100], [550, 100], [550, 550], [100, 550]]))
    cell = 50.0
    first = jitter_lattice(lattice, np.random.default_rng(4))
    again = jitter_lattice(lattice, np.random.default_rng(4))
    np.testing.assert_array_equal(first, again)
    moves = [
        np.linalg.norm(jitter_lattice(lattice, np.random.default_rng(seed)) - lattice, axis=2)
        for seed in range(20)
    ]
    assert 0.02 * cell < np.mean(moves) < 0.2 * cell
    assert np.max(moves) < 0.6 * cell
