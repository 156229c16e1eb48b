"""Cell kinds: the features, the kinds model on generated hand-filled photos, and its training."""

from __future__ import annotations

import csv
import os
from pathlib import Path

import cv2
import numpy as np
import pytest

from sudoku_lens.cli import main
from sudoku_lens.read.digits import MODEL_PATH
from sudoku_lens.read.grid import locate_grid
from sudoku_lens.read.kinds import (
    CELL_FEATURES,
    EMPTY,
    FEATURES,
    HANDWRITTEN,
    NOTES,
    PEN_EVIDENCE,
    PRINTED,
    allowed_kind_probabilities,
    assign_kinds,
    read_cells,
    weigh_print_against_pen,
)
from sudoku_lens.read.reader import read_photo
from sudoku_lens.synth.handwriting import synth_filled_photo


@pytest.mark.parametrize(("pen", "seed"), [("ballpoint-blue", 2), ("pencil", 2), ("felt-tip", 4)])
def test_kinds_of_a_generated_hand_filled_photo(pen: str, seed: int) -> None:
    """Kinds come out right but for a cell or two (`benchmarks/handwriting.py` measures the rate
    over many photos); whatever the kind read, a digit lands only in the field of its kind."""
    made = synth_filled_photo(seed, "easy", pen=pen, notes=0.3)
    truth = made.filled
    assert (truth.kinds == NOTES).any() and (truth.kinds == HANDWRITTEN).any()
    reading = read_photo(made.photo.image)
    right = reading.kinds == truth.kinds
    assert right.sum() >= 79, f"kinds wrong at {np.argwhere(~right).tolist()}"
    assert not reading.grid[truth.kinds == NOTES].any(), "pencil notes count as empty"
    printed = (truth.kinds == PRINTED) & right
    np.testing.assert_array_equal(reading.givens[printed], made.photo.puzzle[printed])
    assert not reading.givens[reading.kinds != PRINTED].any()
    assert not reading.entries[reading.kinds != HANDWRITTEN].any()
    assert np.array_equal(reading.probabilities.argmax(axis=2), reading.grid)
    assert np.array_equal(reading.kind_probabilities.argmax(axis=2), reading.kinds)
    np.testing.assert_allclose(reading.kind_probabilities.sum(axis=2), 1.0, atol=1e-5)
    certain = reading.with_kinds(truth.kinds)
    assert np.array_equal(certain.kinds, truth.kinds)
    assert np.array_equal(certain.kind_probabilities.max(axis=2), np.ones((9, 9)))


def test_features_are_measured_upright() -> None:
    """The same grid photographed upright and sideways gives the same features per cell."""
    upright = synth_filled_photo(5, "easy", pen="red", notes=0.3, rotation=0)
    turned = synth_filled_photo(5, "easy", pen="red", notes=0.3, rotation=90)
    first = read_cells(locate_grid(upright.photo.image))
    second = read_cells(locate_grid(turned.photo.image))
    assert first.features.shape == (9, 9, FEATURES)
    assert (first.turns, second.turns) == (0, 1)
    filled = upright.filled.kinds != EMPTY
    # same cells, photographed differently: close, not equal
    assert np.median(np.abs(first.features - second.features)[filled]) < 0.02


def test_marks_are_counted_per_cell_when_they_touch_the_neighbours() -> None:
    """The cells' marks are counted together, side by side in one image: a mark against a
    cell's right border and one against the next cell's left border stay two marks, one each,
    and a 2-pixel speck is no mark."""
    from sudoku_lens.read.kinds import _marks

    masks = np.zeros((3, 32, 32), bool)
    masks[0, 10:20, 28:] = True
    masks[1, 12:18, :3] = True
    masks[1, 0, 20:22] = True
    masks[2, 5:8, 5:30] = masks[2, 20, 20:23] = True
    counts, largest = _marks(masks)
    np.testing.assert_array_equal(counts, [1, 1, 2])
    np.testing.assert_array_equal(largest, [10, 6, 25])


def test_the_marks_spread_is_that_of_opencvs_moments() -> None:
    from sudoku_lens.read.kinds import _spread

    rng = np.random.default_rng(1)
    masks = rng.random((20, 32, 32)) < rng.random((20, 1, 1)) * 0.3
    masks[0] = False
    for mask, spread in zip(masks, _spread(masks), strict=True):
        moments = cv2.moments(mask.view(np.uint8), binaryImage=True)
        assert spread == moments["mu20"] + moments["mu02"]


def test_the_digit_model_sees_handwriting_in_the_shape_of_pen_digits() -> None:
    """The digit model's pen head (a kinds feature) rates the handwritten entries of a generated
    photo as handwriting and its printed givens as print, in a pen as black as the print."""
    made = synth_filled_photo(4, "easy", pen="felt-tip", notes=0.0, rotation=0)
    cells = read_cells(locate_grid(made.photo.image))
    pen = cells.features[..., CELL_FEATURES.index("p_pen")]
    kinds = made.filled.kinds
    assert np.median(pen[kinds == HANDWRITTEN]) > 0.8
    assert np.median(pen[kinds == PRINTED]) < 0.2
    assert (pen[kinds == EMPTY] == 0).all()


def test_assign_kinds_keeps_digits_of_print_and_pen_only() -> None:
    digits = np.zeros((9, 9, 10), np.float32)
    digits[..., 0] = 1.0
    digits[0, :4] = 0.0
    digits[0, :4, 7] = 1.0  # a 7 read in r1c1-r1c4
    kinds = np.zeros((9, 9, 4), np.float32)
    kinds[..., EMPTY] = 1.0
    kinds[0, 0], kinds[0, 1], kinds[0, 2], kinds[0, 3] = np.eye(4)[[PRINTED, HANDWRITTEN, NOTES, 0]]
    kinds[1, 0] = np.eye(4)[PRINTED]  # no digit read there: empty or notes only
    kinds[1, 1] = [0.2, 0.5, 0.0, 0.3]
    grid, kind, chosen_from = assign_kinds(kinds, digits)
    assert grid[0, :4].tolist() == [7, 7, 0, 0]
    assert kind[0, :4].tolist() == [PRINTED, HANDWRITTEN, NOTES, EMPTY]
    assert kind[1, :2].tolist() == [EMPTY, NOTES]
    assert not grid[1:].any() and not (kind[2:] != EMPTY).any()
    allowed = allowed_kind_probabilities(kinds, digits)
    np.testing.assert_array_equal(chosen_from, allowed)
    np.testing.assert_allclose(allowed[1, 1], [0.4, 0.0, 0.0, 0.6], atol=1e-6)
    np.testing.assert_allclose(allowed[0, 1], np.eye(4)[HANDWRITTEN], atol=1e-6)
    assert np.array_equal(allowed.argmax(axis=2), kind)


def _two_inks(pen_said_print: int) -> tuple[np.ndarray, np.ndarray]:
    """Kind probabilities and features of a grid with 30 digits in black print (r1-r4) and 24
    in blue pen (r5-r8), r9 empty: the kinds model is unsure (0.7) of every digit and takes the
    first `pen_said_print` pen digits for print."""
    features = np.zeros((9, 9, FEATURES), np.float32)
    probabilities = np.zeros((9, 9, 4), np.float32)
    probabilities[8, :, EMPTY] = 1.0
    rng = np.random.default_rng(0)
    index = [CELL_FEATURES.index(name) for name in PEN_EVIDENCE]
    black, blue = [1.0, 1.0, 1.0, 0.0, 0.8], [1.0, 0.55, 0.35, 0.65, 0.6]
    for n, (r, c) in enumerate(np.ndindex(8, 9)):
        if r == 3 and c >= 3 or r == 7 and c >= 6:
            probabilities[r, c, EMPTY] = 1.0
            continue
        pen = r >= 4
        features[r, c, index] = np.array(blue if pen else black) + rng.normal(0, 0.02, 5)
        said_pen = pen and n - 36 >= pen_said_print
        probabilities[r, c, [PRINTED, HANDWRITTEN]] = [0.3, 0.7] if said_pen else [0.7, 0.3]
    return probabilities, features


def test_print_and_pen_are_weighed_as_two_groups_of_the_grid() -> None:
    """Blue pen digits the kinds model took for print join the other blue digits; the black
    print stays print; every cell keeps its total of print and pen, empty cells are untouched,
    and no cell is made surer than PEN_EVIDENCE_SURENESS allows beyond the model's own odds."""
    probabilities, features = _two_inks(pen_said_print=4)
    weighed = weigh_print_against_pen(probabilities, features)
    kinds = weighed.argmax(axis=2)
    assert (kinds[:4][probabilities[:4, :, PRINTED] > 0] == PRINTED).all()
    assert (kinds[4:8][probabilities[4:8, :, PRINTED] > 0] == HANDWRITTEN).all()
    np.testing.assert_allclose(weighed.sum(axis=2), probabilities.sum(axis=2), atol=1e-6)
    np.testing.assert_array_equal(weighed[8], probabilities[8])
    digits = probabilities[..., PRINTED] > 0
    assert weighed[..., PRINTED][digits].max() <= 0.9 + 1e-6
    assert weighed[..., HANDWRITTEN][digits].max() <= 0.9 + 1e-6


def test_a_grid_of_print_alone_is_left_as_the_model_read_it() -> None:
    """With no digit likelier pen than print there is no second group to set apart, however
    the digits' inks differ."""
    probabilities, features = _two_inks(pen_said_print=0)
    probabilities[..., [PRINTED, HANDWRITTEN]] = np.where(
        probabilities[..., [PRINTED]] > 0, [0.99, 0.01], 0.0
    )
    np.testing.assert_array_equal(weigh_print_against_pen(probabilities, features), probabilities)


def test_blue_print_and_grey_pen_entries_are_two_groups_of_the_photo() -> None:
    """A generated photo (of no benchmark's seeds) printed in blue and filled in with a grey
    pen: the kinds model alone calls 7 of its digits the wrong one of print and pen, weighed
    as two groups of the grid none. (Its small grey 4 at r2c5 is read as a lone pencilled
    candidate, a misreading of the cell's content, not of print and pen.)"""
    made = synth_filled_photo(5055, "medium", mistakes=3)
    reading = read_photo(made.photo.image)
    digits = np.isin(made.filled.kinds, (PRINTED, HANDWRITTEN))
    read_as_digits = np.isin(reading.kinds, (PRINTED, HANDWRITTEN))
    wrong = digits & read_as_digits & (reading.kinds != made.filled.kinds)
    assert not wrong.any(), f"print and pen mixed up at {np.argwhere(wrong).tolist()}"
    assert np.argwhere(digits & ~read_as_digits).tolist() == [[1, 4]]


def test_kinds_training_stage_on_a_tiny_set(wicht_data: Path, tmp_path: Path) -> None:
    """The stage runs end to end on two photos of each folder and two generated ones, writes an
    ONNX model that answers like PyTorch, and reports the validation photos by folder."""
    pytest.importorskip("torch", reason="torch is not installed: pip install 'sudoku-lens[train]'")
    from sudoku_lens.train.kinds import run_kinds_training

    root = tmp_path / "data"
    keep = {"image1", "image10"}
    with (wicht_data / "outlines.csv").open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    for folder in ("printed", "mixed"):
        (root / folder).mkdir(parents=True)
        for name in keep:
            for suffix in (".jpg", ".dat"):
                os.symlink(
                    wicht_data / folder / f"{name}{suffix}", root / folder / f"{name}{suffix}"
                )
    with (root / "outlines.csv").open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(r for r in rows if Path(r["file"]).stem in keep)
    out = tmp_path / "kinds.onnx"
    reports = run_kinds_training(
        root,
        MODEL_PATH,
        out,
        synthetic=2,
        held_out=1,
        photo_variants=1,
        epochs=2,
        log=lambda m: None,
    )
    assert out.is_file() and out.stat().st_size < 1024 * 1024
    assert reports["printed kinds"].grids == 1 and reports["mixed kinds"].grids == 1
    assert reports["generated kinds"].grids <= 1
    assert reports["printed kinds"].confusion.sum() == 81


def test_kinds_only_needs_the_digit_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        [
            "train",
            "--data",
            os.fspath(tmp_path),
            "--out",
            os.fspath(tmp_path / "none.onnx"),
            "--kinds-only",
        ]
    )
    assert code == 2
    assert "--kinds-only trains against the digit model at --out" in capsys.readouterr().err


def pencilled_cell(marks: dict[int, tuple[int, int]], height: float = 0.2) -> np.ndarray:
    """A 72-pixel crop (the cell the middle 48 pixels, as the reader cuts it) holding each digit
    of `marks` small at the keypad place (row, col) given, in grey pencil."""
    import cv2

    crop = np.full((72, 72), 235, np.uint8)
    for digit, (row, col) in marks.items():
        text = str(digit)
        scale = height * 48 / cv2.getTextSize("8", cv2.FONT_HERSHEY_SIMPLEX, 1.0, 1)[0][1]
        (w, h), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, 1)
        x, y = 12 + (col + 0.5) * 16, 12 + (row + 0.5) * 16
        origin = (round(x - w / 2), round(y + h / 2))
        cv2.putText(crop, text, origin, cv2.FONT_HERSHEY_SIMPLEX, scale, 90, 1, cv2.LINE_AA)
    return crop


@pytest.mark.parametrize("turns", [0, 1, 2, 3])
def test_candidates_at_their_keypad_places_are_read_upright(turns: int) -> None:
    from sudoku_lens.read.digits import find_ink
    from sudoku_lens.read.kinds import keypad_candidates

    cells = [
        pencilled_cell({1: (0, 0), 5: (1, 1)}),  # two candidates at their places
        pencilled_cell({2: (0, 1), 5: (1, 1), 8: (2, 1)}),  # a stack: the middle column
        pencilled_cell({5: (0, 0), 1: (1, 1)}),  # small digits, each at another's place
        pencilled_cell({7: (1, 1)}, height=0.6),  # an entry
    ]
    # as the photo lies, turned `turns` quarter turns anticlockwise from upright
    laid = [np.ascontiguousarray(np.rot90(crop, turns)) for crop in cells]
    read = keypad_candidates([find_ink(crop) for crop in laid], range(4), turns)
    assert read[0][:2] == ((1, 5), True) and read[1][:2] == ((2, 5, 8), True)
    assert all(0.5 <= read[cell].sureness <= 1.0 for cell in (0, 1))
    assert 2 not in read and 3 not in read


def test_a_keypad_reading_with_a_mark_left_unread_is_not_whole() -> None:
    """A cell whose marks are not all read at their places (a 3 where the 9 goes) keeps the
    digits read, for telling notes from an entry, but is no whole list of its candidates."""
    from sudoku_lens.read.digits import find_ink
    from sudoku_lens.read.kinds import keypad_candidates

    cell = pencilled_cell({1: (0, 0), 5: (1, 1), 3: (2, 2)})
    read = keypad_candidates([find_ink(cell)], [0], 0)
    assert read[0].digits == (1, 5) and not read[0].whole
