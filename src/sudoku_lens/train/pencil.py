"""Real pencil for the digit model: the entries and the small pencilled candidates of a
cell-labelled folder's training photos (`read.cell_labels`, e.g. Alex Kubiesa's set of
half-solved puzzle-book pages), cut as the reader cuts them.

The digit model reads a cell's entry and, one by one, the marks of its pencilled candidates
(`read.content.pencilled_digits`); the training photos of the digit corpus hold neither pencil
entries of this kind nor candidates. A candidate cell's labels say which digits it holds, not
which mark is which: where the cell splits into as many marks as it holds digits, each mark is
given the digit that the shipped digit model, held to the labelled set, likes best for it (the
likeliest assignment of the set's digits to the marks).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path

import numpy as np

from sudoku_lens.errors import SudokuLensError
from sudoku_lens.read.cell_labels import CANDIDATES_LABEL, LabelledPhoto, load_labelled_folder
from sudoku_lens.read.content import mark_masks, upright_inks
from sudoku_lens.read.digits import (
    SIZE,
    CellInk,
    DigitClassifier,
    draw_found,
    find_inks,
    prepare_found,
    rotate_grid,
)
from sudoku_lens.read.grid import cut_grid
from sudoku_lens.read.image_io import load_image
from sudoku_lens.read.reader import read_photo_cells
from sudoku_lens.train.cells import agrees_with_labels
from sudoku_lens.train.photos import jitter_lattice

Log = Callable[[str], None]


def entry_images(found: list[CellInk], ink_colour: np.ndarray, turns: int) -> np.ndarray:
    """(81, SIZE, SIZE) prepared images of a cut grid's upright cells as the reader feeds them to
    the digit model: `prepare_found`, and marks it drops as faint drawn anyway (`draw_found`),
    as the reader reads them too."""
    images = prepare_found(found, ink_colour)
    for i, cell in enumerate(found):
        if cell.mask is not None and not images[i].any():
            images[i] = draw_found(cell)
    return rotate_grid(images.reshape(9, 9, SIZE, SIZE), turns).reshape(81, SIZE, SIZE)


def mark_images(ink: np.ndarray) -> list[np.ndarray]:
    """The prepared images of the separate marks pencilled in an upright cell's ink, left to
    right, as `pencilled_digits` reads them."""
    images = []
    for mask in mark_masks(ink):
        level = float(np.percentile(ink[mask], 90))
        images.append(draw_found(CellInk(ink, mask, level)))
    return images


def assign_digits(probabilities: np.ndarray, digits: tuple[int, ...]) -> tuple[int, ...]:
    """The order of `digits` (one per mark) that the marks' digit probabilities (K, 10) make
    likeliest."""
    logs = np.log(np.maximum(np.asarray(probabilities, np.float64), 1e-9))
    return max(
        itertools.permutations(digits),
        key=lambda order: sum(logs[i, d] for i, d in enumerate(order)),
    )


def _grid_samples(
    found: list[CellInk],
    ink_colour: np.ndarray,
    turns: int,
    photo: LabelledPhoto,
    classifier: DigitClassifier,
) -> tuple[list[np.ndarray], list[int], int]:
    """The samples of one cut grid: its digits (printed and pencilled), and the marks of the
    candidate cells that split into as many marks as they hold digits; and how many candidate
    cells did not. Its empty cells are left out: the other sets hold plenty, and these, cut along
    jittered lattices beside the book's thick box lines, taught the model that a 1 written
    against a cell's side line is a line's remnant."""
    labels = photo.labels.ravel()
    entries = entry_images(found, ink_colour, turns)
    written = [i for i in range(81) if 0 < labels[i] < CANDIDATES_LABEL]
    images = [entries[i] for i in written]
    digits = [int(labels[i]) for i in written]
    unsplit = 0
    inks = upright_inks(found, turns)
    for (r, c), written in (photo.candidates or {}).items():
        marks = mark_images(inks[r * 9 + c])
        if not written or len(marks) != len(written):
            unsplit += 1
            continue
        order = assign_digits(classifier.predict_prepared(np.stack(marks)), written)
        images += marks
        digits += list(order)
    return images, digits, unsplit


def pencil_set(
    folder: Path,
    *,
    jitters: int,
    seed: int,
    log: Log,
    classifier: DigitClassifier | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Prepared images (N, SIZE, SIZE) and digit labels (N,) of the training photos of
    a cell-labelled folder: each cut as the reader cuts it and along `jitters` jittered
    lattices. Photos whose grid is not found, or read unlike their labels (the wrong grid, the
    wrong way up), are left out."""
    clf = classifier or DigitClassifier.default()
    rng = np.random.default_rng(seed)
    images: list[np.ndarray] = []
    digits: list[int] = []
    used = unsplit = 0
    photos = load_labelled_folder(folder, "train")
    for photo in photos:
        try:
            location, cells = read_photo_cells(photo.path)
        except SudokuLensError:
            continue
        if not agrees_with_labels(cells.candidates, photo.labels):
            continue
        used += 1
        cuts = [(list(cells.found), location.ink_colour)]
        if jitters:
            image = load_image(photo.path)
            for _ in range(jitters):
                cut = cut_grid(image, jitter_lattice(location.lattice, rng))
                cuts.append((find_inks(cut.cells), cut.ink_colour))
        for found, ink_colour in cuts:
            more, labels, missed = _grid_samples(found, ink_colour, cells.turns, photo, clf)
            images += more
            digits += labels
            unsplit += missed
    log(
        f"{folder.name}: {used} of {len(photos)} training photos used; "
        f"{unsplit} candidate cells (over all cuts) not split into one mark per digit"
    )
    if not images:
        return np.zeros((0, SIZE, SIZE), np.float32), np.zeros(0, np.int64)
    return np.stack(images).astype(np.float32), np.array(digits, np.int64)
