"""Labelled training photos: corners from outlines.csv, or from the grid finder without one."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from sudoku_lens.train.photos import load_photos


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
        assert photo.corners.shape == (4, 2)
        assert np.all(photo.corners >= -0.02 * width)
        assert np.all(photo.corners[:, 0] <= 1.02 * width)
        assert np.all(photo.corners[:, 1] <= 1.02 * height)
        assert photo.labels.shape == (9, 9) and photo.labels.max() <= 9


def test_hand_filled_photos_are_labelled_in_every_cell(wicht_data: Path) -> None:
    photos = load_photos(wicht_data, "mixed")
    assert all((photo.labels > 0).all() for photo in photos)
