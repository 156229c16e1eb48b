"""The cell-labelled folder layout (images/, labels/, metadata.csv, candidates.tsv)."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from sudoku_lens.read.cell_labels import (
    CANDIDATES_LABEL,
    is_labelled_folder,
    load_labelled_folder,
)
from sudoku_lens.read.dataset import DatasetError

LABELS = np.zeros((9, 9), np.int64)
LABELS[0, :3] = [5, 3, CANDIDATES_LABEL]
LABELS[8, 8] = CANDIDATES_LABEL


def _folder(root: Path, puzzles: list[str], candidates: bool = True) -> Path:
    """A small folder of blank photos laid out as the shared set, one photo per puzzle."""
    (root / "images").mkdir(parents=True)
    (root / "labels").mkdir()
    rows = [
        "Name,Puzzle,x_topleft_absolute,y_topleft_absolute,x_bottomleft_absolute,"
        "y_bottomleft_absolute,x_bottomright_absolute,y_bottomright_absolute,"
        "x_topright_absolute,y_topright_absolute"
    ]
    tsv = ["name\tcell\tdigits\tnote"]
    for puzzle in puzzles:
        name = f"{puzzle}_phone_0.jpg"
        cv2.imwrite(str(root / "images" / name), np.full((20, 20, 3), 255, np.uint8))
        np.savetxt(root / "labels" / f"{puzzle}_phone_0.txt", LABELS, fmt="%2d")
        rows.append(f"{name},{puzzle},1,2,3,4,5,6,7,8")
        tsv += [f"{name}\tr1c3\t45\t", f"{name}\tR9C9\t7\t"]
    (root / "metadata.csv").write_text("\n".join(rows) + "\n")
    if candidates:
        (root / "candidates.tsv").write_text("\n".join(tsv) + "\n")
    return root


def test_a_folder_is_read_with_its_labels_corners_and_candidates(tmp_path: Path) -> None:
    folder = _folder(tmp_path / "set", ["02_17"])
    assert is_labelled_folder(folder) and not is_labelled_folder(tmp_path)
    (photo,) = load_labelled_folder(folder)
    assert photo.puzzle == "02_17" and photo.name == "02_17_phone_0.jpg"
    assert photo.labels[0, 2] == CANDIDATES_LABEL and photo.digits[0].tolist()[:3] == [5, 3, 0]
    # corners in the order of Reading.corners: top-left, top-right, bottom-right, bottom-left
    assert photo.corners.tolist() == [[1, 2], [7, 8], [5, 6], [3, 4]]
    assert photo.candidates == {(0, 2): (4, 5), (8, 8): (7,)}


def test_without_candidates_tsv_the_digits_are_unknown(tmp_path: Path) -> None:
    (photo,) = load_labelled_folder(_folder(tmp_path / "set", ["02_17"], candidates=False))
    assert photo.candidates is None


def test_the_split_keeps_every_fifth_puzzle_whole(tmp_path: Path) -> None:
    puzzles = [f"02_{day:02d}" for day in range(10, 21)]
    folder = _folder(tmp_path / "set", puzzles)
    validation = {photo.puzzle for photo in load_labelled_folder(folder, "val")}
    training = {photo.puzzle for photo in load_labelled_folder(folder, "train")}
    assert validation == {"02_10", "02_15", "02_20"}
    assert training == set(puzzles) - validation


def test_a_bad_label_file_is_named(tmp_path: Path) -> None:
    folder = _folder(tmp_path / "set", ["02_17"])
    (folder / "labels" / "02_17_phone_0.txt").write_text("1 2 3\n")
    with pytest.raises(DatasetError, match="02_17_phone_0.txt: expected 9 rows of 9 integers"):
        load_labelled_folder(folder)


def test_a_folder_of_another_layout_is_refused(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="has no images/ and labels/ folders"):
        load_labelled_folder(tmp_path)


def test_the_shared_puzzle_book_set(kubiesa_data: Path) -> None:
    photos = load_labelled_folder(kubiesa_data)
    assert len(photos) == 80 and sum(len(photo.candidates) for photo in photos) == 376
    validation = load_labelled_folder(kubiesa_data, "val")
    assert len(validation) == 16 and len({photo.puzzle for photo in validation}) == 4
