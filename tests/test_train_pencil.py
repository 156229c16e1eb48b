"""The digit model's real pencil: the entries and candidate marks of a cell-labelled folder."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch", reason="torch is not installed: pip install 'sudoku-lens[train]'")

from sudoku_lens.read.cell_labels import CANDIDATES_LABEL, load_labelled_folder  # noqa: E402
from sudoku_lens.read.content import upright_inks  # noqa: E402
from sudoku_lens.read.digits import SIZE, DigitClassifier  # noqa: E402
from sudoku_lens.read.reader import read_photo_cells  # noqa: E402
from sudoku_lens.train import pencil  # noqa: E402


def test_the_marks_get_the_likeliest_order_of_the_digits_pencilled() -> None:
    probabilities = np.full((3, 10), 0.01)
    probabilities[0, 8], probabilities[1, 2], probabilities[2, 3] = 0.9, 0.5, 0.45
    probabilities[1, 3] = 0.4  # mark 1 looks a little more like 2 than 3, mark 2 like 3
    assert pencil.assign_digits(probabilities, (2, 3, 8)) == (8, 2, 3)
    probabilities[2, 2] = 0.6  # now mark 2 is the likelier 2 of the two
    assert pencil.assign_digits(probabilities, (2, 3, 8)) == (8, 3, 2)


def test_a_grid_gives_its_entries_and_each_split_cells_pencilled_digits(
    kubiesa_data: Path,
) -> None:
    photo = next(p for p in load_labelled_folder(kubiesa_data, "train") if p.candidates)
    location, cells = read_photo_cells(photo.path)
    clf = DigitClassifier.default()
    images, digits, unsplit = pencil._grid_samples(
        list(cells.found), location.ink_colour, cells.turns, photo, clf
    )
    labels = photo.labels.ravel()
    entries = int(np.sum((labels > 0) & (labels < CANDIDATES_LABEL)))
    assert len(images) == len(digits) and images[0].shape == (SIZE, SIZE)
    assert digits[:entries] == [int(v) for v in labels if 0 < v < CANDIDATES_LABEL]
    inks = upright_inks(list(cells.found), cells.turns)
    split = [
        written
        for (r, c), written in photo.candidates.items()
        if len(pencil.mark_images(inks[r * 9 + c])) == len(written)
    ]
    assert split and unsplit == len(photo.candidates) - len(split)
    assert Counter(digits[entries:]) == Counter(d for written in split for d in written)
    read = clf.predict_prepared(np.stack(images[entries:])).argmax(axis=1)
    assert np.mean(read == np.array(digits[entries:])) > 0.9, "the marks are the digits named"
