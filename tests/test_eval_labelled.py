"""`eval` of a cell-labelled folder (images/, labels/ with 10 = candidates, metadata.csv)."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from sudoku_lens.cli import main
from sudoku_lens.read import reader
from sudoku_lens.read.cell_labels import CANDIDATES_LABEL, load_labelled_folder
from sudoku_lens.read.evaluate import corner_error, evaluate_labelled, format_labelled_report
from sudoku_lens.read.kinds import EMPTY, NOTES, PRINTED
from sudoku_lens.synth.scene import synth_photo

CORNERS = np.float32([[100, 100], [1000, 100], [1000, 1000], [100, 1000]])
"""The labelled grid corners of the stand-in photos: TL, TR, BR, BL."""


def write_folder(root: Path, photos: dict[str, tuple[np.ndarray, np.ndarray]]) -> Path:
    """A folder in the shared set's layout: per name an image and its (9, 9) labels; the
    candidates of every cell labelled 10 are "45"."""
    (root / "images").mkdir(parents=True)
    (root / "labels").mkdir()
    rows = [
        "Name,Puzzle,x_topleft_absolute,y_topleft_absolute,x_bottomleft_absolute,"
        "y_bottomleft_absolute,x_bottomright_absolute,y_bottomright_absolute,"
        "x_topright_absolute,y_topright_absolute"
    ]
    tsv = ["name\tcell\tdigits\tnote"]
    for name, (image, labels) in photos.items():
        cv2.imwrite(str(root / "images" / f"{name}.jpg"), image)
        np.savetxt(root / "labels" / f"{name}.txt", labels, fmt="%2d")
        (tl, tr, br, bl) = CORNERS if name != "synth" else SYNTH.corners
        rows.append(
            f"{name}.jpg,{name[:5]},{tl[0]},{tl[1]},{bl[0]},{bl[1]},{br[0]},{br[1]},{tr[0]},{tr[1]}"
        )
        for r, c in zip(*np.nonzero(labels == CANDIDATES_LABEL), strict=True):
            tsv.append(f"{name}.jpg\tr{r + 1}c{c + 1}\t45\t")
    (root / "metadata.csv").write_text("\n".join(rows) + "\n")
    (root / "candidates.tsv").write_text("\n".join(tsv) + "\n")
    return root


SYNTH = synth_photo(3, "easy", rotation=0)

LABELS = np.zeros((9, 9), np.uint8)
LABELS[0, :4] = [5, 3, CANDIDATES_LABEL, CANDIDATES_LABEL]
LABELS[8, 8] = CANDIDATES_LABEL


class FakeReading:
    """A reading of LABELS with r1c3 read as notes "45", r1c4 as notes "4", r9c9 as a 7, the 3
    of r1c2 missed, and the corners 9 pixels off (1% of the grid's side) at the top left."""

    def __init__(self) -> None:
        self.grid = np.zeros((9, 9), np.uint8)
        self.grid[0, 0], self.grid[8, 8] = 5, 7
        self.kinds = np.where(self.grid > 0, PRINTED, EMPTY).astype(np.uint8)
        self.kinds[0, 2] = self.kinds[0, 3] = NOTES
        rows = [[() for _ in range(9)] for _ in range(9)]
        rows[0][2], rows[0][3] = (4, 5), (4,)
        self.candidates = tuple(tuple(row) for row in rows)
        self.corners = CORNERS + np.float32([[9, 0], [0, 0], [0, 0], [0, 0]])


@pytest.fixture
def fake_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(reader, "read_photo", lambda path: FakeReading())
    blank = np.full((8, 8, 3), 255, np.uint8)
    return write_folder(tmp_path / "set", {"02_17_a": (blank, LABELS)})


def test_cells_candidates_digits_and_corners_are_counted(fake_folder: Path) -> None:
    evaluation = evaluate_labelled(load_labelled_folder(fake_folder))
    assert evaluation.cells_right == 79 and evaluation.grids_exact == 0
    assert evaluation.candidates_as_digit() == (1, 3)  # r9c9 read as a 7
    assert evaluation.digits_lost() == (1, 2)  # the 3 of r1c2 read as empty
    assert evaluation.candidates_exact() == (1, 3)  # "45" right, "4" and "7" not
    assert evaluation.confusion[CANDIDATES_LABEL, 7] == 1 and evaluation.confusion[3, 0] == 1
    assert evaluation.corner_errors() == pytest.approx([0.01])
    report = format_labelled_report(evaluation)
    assert "cells right over the 11 classes (empty, 1-9, candidates): 79/81 (97.53%)" in report
    assert "candidate cells read as a digit: 1/3 (33.33%)" in report
    assert "digits read as candidates or empty: 1/2 (50.00%)" in report
    assert "candidate digits read exactly: 1/3 (33.33%)" in report
    assert "median 1.00%, max 1.00%, 0 photos over 5%" in report
    assert "02_17_a.jpg: 2 wrong (r1c2 3->., r9c9 n->7)" in report


def test_eval_command_json(fake_folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", str(fake_folder), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["photos"] == 1 and data["cell_accuracy"] == round(79 / 81, 6)
    assert data["candidates_as_digit"] == [1, 3] and data["digits_lost"] == [1, 2]
    assert data["candidates_exact"] == [1, 3] and data["corners_far"] == 0
    (photo,) = data["per_photo"]
    assert photo["read"][:4] == "5.nn" and photo["read"][-1] == "7"
    assert photo["candidates_wrong"] == {
        "r1c4": {"written": "45", "read": "4"},
        "r9c9": {"written": "45", "read": ""},
    }


def test_givens_is_refused_for_a_labelled_folder(
    fake_folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["eval", str(fake_folder), "--givens", str(fake_folder)]) != 0
    assert "--givens is for folders of .dat files" in capsys.readouterr().err


def test_a_generated_photo_is_read_exactly_with_its_corners(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = write_folder(tmp_path / "set", {"synth": (SYNTH.image, SYNTH.puzzle)})
    assert main(["eval", str(folder), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["grids_exact"] == 1 and data["cell_accuracy"] == 1.0
    assert data["corners_max"] < 0.02


def test_corner_error_is_a_share_of_the_side() -> None:
    assert corner_error(CORNERS + 18, CORNERS) == pytest.approx(18 * np.sqrt(2) / 900)
