"""The cell-content model: nothing, a digit or pencilled candidates, read from a cell's ink."""

from __future__ import annotations

import itertools
import os
from pathlib import Path

import cv2
import numpy as np
import pytest

from sudoku_lens.cli import main
from sudoku_lens.read import reader
from sudoku_lens.read.content import (
    CANDIDATES,
    DIGIT,
    INPUT,
    NOTHING,
    PencilledDigits,
    candidate_certainty,
    candidate_digits,
    cell_input,
    is_marked,
    mark_masks,
    pencilled_digits,
    read_contents,
    upright_inks,
)
from sudoku_lens.read.digits import WORK, CellInk, DigitClassifier
from sudoku_lens.read.kinds import NOTES, candidates_json
from sudoku_lens.read.reader import read_grid_cells, read_photo
from sudoku_lens.synth.handwriting import stroke_digit
from sudoku_lens.synth.scene import synth_photo


def test_input_is_the_cell_scaled_by_the_grids_stroke_darkness() -> None:
    ink = np.zeros((WORK, WORK), np.uint8)
    ink[10:38, 10:38] = 60
    half, full = cell_input(ink, 80.0), cell_input(ink, 40.0)
    assert half.shape == (INPUT, INPUT) and half.max() == pytest.approx(0.5)
    assert full.max() == 1.0, "ink darker than INK_RANGE times the grid's saturates"
    assert half[0, 0] == 0.0


def test_a_cell_without_ink_is_empty_without_the_model() -> None:
    blank = [CellInk(np.zeros((WORK, WORK), np.uint8), None, 0.0)] * 81
    content, chances = read_contents(blank, 0, classifier=None)
    assert (content.argmax(axis=2) == NOTHING).all() and not chances.any()
    speck = np.zeros((WORK, WORK), np.uint8)
    speck[20, 20:22] = 200
    assert not is_marked(speck)


def test_inks_are_turned_upright() -> None:
    inks = []
    for i in range(81):
        ink = np.zeros((WORK, WORK), np.uint8)
        ink[0, 0] = i
        inks.append(CellInk(ink, None, 0.0))
    upright = upright_inks(inks, 1)  # a quarter turn clockwise: the laid bottom-left comes first
    assert upright[0][0, WORK - 1] == 72
    assert upright_inks(inks, 0)[5][0, 0] == 5


def test_candidate_digits_are_those_likely_or_the_likeliest() -> None:
    assert candidate_digits(np.array([0.9, 0, 0, 0.6, 0, 0, 0, 0, 0.1])) == (1, 4)
    assert candidate_digits(np.array([0.1, 0.3, 0, 0, 0, 0, 0, 0, 0])) == (2,)


def test_candidate_certainty_is_the_least_sure_of_the_digits_read_and_left_out() -> None:
    assert candidate_certainty(np.array([0.9, 0, 0, 0.6, 0, 0, 0, 0, 0.1])) == pytest.approx(0.6)
    assert candidate_certainty(np.array([0.95, 0, 0, 0.99, 0, 0, 0, 0, 0.3])) == pytest.approx(0.7)
    assert candidate_certainty(np.array([0.2, 0, 0, 0, 0, 0, 0, 0, 0])) == pytest.approx(0.2)


def outputs_of(digits: tuple[int, ...], sure: float) -> np.ndarray:
    """(9,) candidate outputs that read `digits` at `sure`, the other digits at 1 - `sure`."""
    chances = np.full(9, 1.0 - sure, np.float32)
    chances[[d - 1 for d in digits]] = sure
    return chances


def test_marks_and_candidate_outputs_weighed_together(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the digit model is unsure of a mark, sure outputs are read; where both read the
    same digits, the surer decides how sure; where they differ, the marks are read."""
    _, cells = read_grid_cells(synth_photo(11, "easy", rotation=0, size=(1024, 768)).image)
    marks = {
        (0, 0): PencilledDigits(None, 0.3),
        (0, 1): PencilledDigits((2, 8), 0.6),
        (0, 2): PencilledDigits((1, 7), 0.85),
        (0, 3): PencilledDigits(None, 0.3),
    }
    outputs = {
        (0, 0): ((4, 5), 0.97),
        (0, 1): ((2, 8), 0.95),
        (0, 2): ((1,), 0.99),
        (0, 3): ((3, 6), 0.7),
    }
    monkeypatch.setattr(reader, "pencilled_digits", lambda inks, _: list(marks.values()))
    kinds = np.zeros((9, 9), np.uint8)
    chances = np.zeros((9, 9, 9), np.float32)
    for cell, (digits, sure) in outputs.items():
        kinds[cell], chances[cell] = NOTES, outputs_of(digits, sure)
    no_keypad = tuple(((),) * 9 for _ in range(9))
    candidates, sureness = reader._read_candidates(
        cells, chances, kinds, no_keypad, np.zeros((9, 9), np.float32)
    )
    assert candidates[0][:4] == ((4, 5), (2, 8), (1, 7), ())
    np.testing.assert_allclose(sureness[0, :4], [0.97, 0.95, 0.85, 0.0], atol=1e-6)


def pencil(image: np.ndarray, corners: np.ndarray, cell: tuple[int, int], digits: str) -> None:
    """Pencil `digits` small (a third of the cell tall) side by side at the top left of a cell
    of an upright photo whose grid has `corners`, in pen strokes of grey pencil."""
    rng = np.random.default_rng(sum(map(ord, digits)))
    unit = np.float32([[0, 0], [9, 0], [9, 9], [0, 9]])
    to_image = cv2.getPerspectiveTransform(unit, np.asarray(corners, np.float32))
    side = float(np.linalg.norm(corners[1] - corners[0])) / 9
    r, c = cell
    at = np.float32([[[c + 0.12, r + 0.1]]])
    x, y = (int(v) for v in cv2.perspectiveTransform(at, to_image)[0, 0])
    for digit in digits:
        height = int(0.3 * side)
        glyph = stroke_digit(int(digit), height, max(1.5, 0.1 * height), rng)
        h, w = glyph.shape
        patch = image[y : y + h, x : x + w].astype(np.float32)
        patch *= 1.0 - 0.6 * glyph[..., None]
        image[y : y + h, x : x + w] = patch.astype(np.uint8)
        x += w + int(0.05 * side)


def test_pencilled_candidates_are_notes_with_their_digits_never_an_entry() -> None:
    made = synth_photo(11, "easy", rotation=0, size=(1600, 1200))
    image = made.image.copy()
    empty = [tuple(map(int, rc)) for rc in np.argwhere(made.puzzle == 0)[:3]]
    for cell, digits in zip(empty, ("45", "28", "7"), strict=True):
        pencil(image, made.corners, cell, digits)
    reading = read_photo(image)
    for cell in empty:
        assert reading.grid[cell] == 0 and reading.kinds[cell] == NOTES, cell
    assert [reading.candidates[r][c] for r, c in empty] == [(4, 5), (2, 8), (7,)]
    np.testing.assert_array_equal(reading.grid, made.puzzle)
    strings = candidates_json(reading.candidates)
    assert len(strings) == 81 and strings[empty[0][0] * 9 + empty[0][1]] == "45"
    assert all(s == "" for i, s in enumerate(strings) if divmod(i, 9) not in empty)


def test_content_model_training_exports_a_small_model(tmp_path: Path) -> None:
    """A short run on a two-puzzle labelled folder of generated photos and generated cells
    writes an ONNX model of the right outputs and reports the validation puzzle's cells."""
    pytest.importorskip("torch", reason="torch is not installed: pip install 'sudoku-lens[train]'")
    from sudoku_lens.train.cells import CellSet, run_cells_training, synthetic_cells

    cells = synthetic_cells(30, 0)
    assert isinstance(cells, CellSet) and cells.inputs.shape == (30, INPUT, INPUT)
    assert set(cells.content) <= {NOTHING, DIGIT, CANDIDATES}
    assert (cells.candidates[cells.content == CANDIDATES].sum(axis=1) >= 1).all()
    assert not cells.candidates[cells.content != CANDIDATES].any()

    folder = tmp_path / "set"
    (folder / "images").mkdir(parents=True)
    (folder / "labels").mkdir()
    rows = ["Name,Puzzle"]
    for seed, puzzle in ((3, "01_01"), (4, "01_02")):
        made = synth_photo(seed, "easy", rotation=0)
        cv2.imwrite(str(folder / "images" / f"{puzzle}_a.jpg"), made.image)
        np.savetxt(folder / "labels" / f"{puzzle}_a.txt", made.puzzle, fmt="%d")
        rows.append(f"{puzzle}_a.jpg,{puzzle}")
    (folder / "metadata.csv").write_text("\n".join(rows) + "\n")
    out = tmp_path / "cells.onnx"
    reports = run_cells_training(
        folder, None, out, epochs=1, synthetic=200, generated=2, log=lambda message: None
    )
    assert out.is_file() and out.stat().st_size < 512 * 1024
    (report,) = reports.values()
    assert report.cells == 81 and report.confusion.sum() == 81


def test_generated_printed_digits_stand_in_the_middle_and_neighbours_strokes_at_the_side() -> None:
    """The generated cells the model learns print from: a printed digit near the cell's centre,
    a third of the cell tall or more; a neighbour's stroke pokes in across one side only."""
    pytest.importorskip("torch", reason="torch is not installed: pip install 'sudoku-lens[train]'")
    from sudoku_lens.read.grid.cells import CELL, MARGIN
    from sudoku_lens.train.cells import _edge_fragment, synthetic_printed

    rng = np.random.default_rng(0)
    for _ in range(20):
        ys, xs = np.nonzero(synthetic_printed(rng, ()) > 0.2)
        assert 0.25 * CELL <= ys.max() - ys.min() + 1 <= 0.8 * CELL
        assert abs((xs.min() + xs.max()) / 2 - WORK / 2) < 0.25 * CELL
        assert abs((ys.min() + ys.max()) / 2 - WORK / 2) < 0.25 * CELL
    middle = slice(MARGIN + int(0.35 * CELL), MARGIN + int(0.65 * CELL))
    for _ in range(20):
        canvas = np.zeros((WORK, WORK), np.float32)
        _edge_fragment(canvas, rng)
        assert canvas.any() and not canvas[middle, middle].any()


def test_cells_only_needs_a_labelled_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["train", "--data", os.fspath(tmp_path), "--out", os.fspath(tmp_path / "d.onnx")]
    assert main([*args, "--cells-only"]) == 2
    assert "--cells-only trains on a cell-labelled folder: give --labelled" in (
        capsys.readouterr().err
    )


def test_marks_are_the_separate_digits_ghosts_left_out_joined_ones_cut() -> None:
    ink = np.zeros((WORK, WORK), np.uint8)
    ink[8:18, 8:12] = 90  # a digit
    ink[8:18, 15:19] = 90  # another beside it
    ink[30:38, 30:34] = 30  # a rubbed-out ghost, a third as dark
    assert len(mark_masks(ink)) == 2
    joined = np.zeros((WORK, WORK), np.uint8)
    joined[8:18, 8:24] = 90  # two digits written as one stroke, 1.6 times as wide as tall
    left, right = mark_masks(joined)
    assert left[:, :16].any() and not left[:, 17:].any() and right[:, 17:].any()
    touching = np.zeros((WORK, WORK), np.uint8)
    touching[8:20, 8:20] = 90  # a pair pencilled touching, as wide as tall: two digits
    assert len(mark_masks(touching)) == 2
    narrow = np.zeros((WORK, WORK), np.uint8)
    narrow[8:20, 8:17] = 90  # one digit, three quarters as wide as tall
    assert len(mark_masks(narrow)) == 1
    stacked = np.zeros((WORK, WORK), np.uint8)
    stacked[8:10, 10:16] = 90  # the flag of a 5 above its body
    stacked[11:18, 10:15] = 90
    assert len(mark_masks(stacked)) == 1
    keypad = np.zeros((WORK, WORK), np.uint8)
    keypad[8:15, 10:15] = 90  # a 1 at its keypad place, the 4 a third of a cell below it
    keypad[22:29, 10:15] = 90
    assert len(mark_masks(keypad)) == 2
    assert mark_masks(np.zeros((WORK, WORK), np.uint8)) == []
    speck = np.zeros((WORK, WORK), np.uint8)
    speck[8:20, 10:16] = 90  # a digit
    speck[40:42, 40:42] = 90  # what a grid line's crossing leaves in the corner
    (digit,) = mark_masks(speck)
    assert digit[8:20, 10:16].all() and not digit[40:, 40:].any()


def test_candidates_pencilled_one_above_the_other_touching_are_two_digits() -> None:
    """A pair written in a column (the keypad's 3 and 6, or a four in two rows) that touches
    is one mark; cut in two it reads as its two digits, and a 3 over a 6 is not an 8."""
    classifier = DigitClassifier.default()
    pairs = list(itertools.permutations(range(1, 10), 2))
    inks = []
    for top, bottom in pairs:
        ink = np.zeros((WORK, WORK), np.uint8)
        for digit, baseline in ((top, 17), (bottom, 25)):
            cv2.putText(
                ink, str(digit), (28, baseline), cv2.FONT_HERSHEY_SIMPLEX, 0.38, 200, 1, cv2.LINE_AA
            )
        inks.append(ink)
    assert len(mark_masks(inks[pairs.index((3, 6))])) == 1
    read = pencilled_digits(inks, classifier)
    assert read[pairs.index((3, 6))].digits == (3, 6)
    right = sum(
        marks.digits == tuple(sorted(pair)) for marks, pair in zip(read, pairs, strict=True)
    )
    assert right >= 70, f"{right} of {len(pairs)} stacked pairs read"
