"""The evaluation library and the `eval` / `read` commands."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from sudoku_lens.cli import main
from sudoku_lens.errors import GridNotFoundError
from sudoku_lens.read import reader
from sudoku_lens.read.dataset import DatasetError
from sudoku_lens.read.evaluate import (
    Evaluation,
    EvaluationError,
    PhotoResult,
    evaluate,
    format_report,
    in_split,
    list_photos,
    read_dat,
)
from sudoku_lens.read.kinds import parse_kinds

GRID = "530070000600195000098000060800060003400803001700020006060000280000419005000080079"


def write_dat(path: Path, grid: str = GRID) -> None:
    rows = [" ".join(grid[9 * r : 9 * r + 9]) for r in range(9)]
    path.write_text("Test phone\n640x480: 24 JPG\n" + "\n".join(rows) + "\n")


def photo_set(folder: Path, numbers: list[int]) -> list[Path]:
    """Tiny stand-in photos (the reader is faked) with .dat files beside them."""
    photos = []
    for n in numbers:
        photo = folder / f"image{n}.jpg"
        cv2.imwrite(str(photo), np.full((8, 8, 3), n, np.uint8))
        write_dat(photo.with_suffix(".dat"))
        photos.append(photo)
    return photos


class FakeReading:
    def __init__(self, grid: str, kinds: str | None = None) -> None:
        self.grid = np.array([int(c) for c in grid], np.uint8).reshape(9, 9)
        if kinds is None:
            kinds = "".join("p" if c != "0" else "." for c in grid)
        self.kinds = parse_kinds(kinds)


@pytest.fixture
def fake_reader(monkeypatch: pytest.MonkeyPatch) -> None:
    """image5 is read right, image6 has two cells wrong, image7 has no grid, others right."""

    def read_photo(path: Path) -> FakeReading:
        name = Path(path).stem
        if name == "image6":
            return FakeReading("0" + GRID[1:-1] + "1")
        if name == "image7":
            raise GridNotFoundError("no Sudoku grid found in the image")
        return FakeReading(GRID)

    monkeypatch.setattr(reader, "read_photo", read_photo)


def test_read_dat(tmp_path: Path) -> None:
    path = tmp_path / "image1.dat"
    write_dat(path)
    assert read_dat(path) == GRID
    path.write_text("phone\nformat\n1 2 3\n")
    with pytest.raises(DatasetError, match="expected 9 rows of 9 digits on lines 3-11"):
        read_dat(path)


def test_splits() -> None:
    assert in_split("a/image1000.jpg", "val") and not in_split("a/image1000.jpg", "train")
    assert in_split("image13.jpg", "train") and not in_split("image13.jpg", "val")
    assert in_split("anything.jpg", "all")


def test_list_photos_from_folder_and_list(tmp_path: Path) -> None:
    photos = photo_set(tmp_path, [10, 5, 6, 11])
    (tmp_path / "image99.jpg").write_bytes(b"no .dat beside me")
    assert [p.name for p in list_photos(tmp_path)] == [
        "image5.jpg",
        "image6.jpg",
        "image10.jpg",
        "image11.jpg",
    ]
    assert [p.name for p in list_photos(tmp_path, split="val")] == ["image5.jpg", "image10.jpg"]
    assert [p.name for p in list_photos(tmp_path, split="train", limit=1)] == ["image6.jpg"]
    listing = tmp_path / "photos.txt"
    listing.write_text("# chosen photos\nimage11.jpg\n\n" + str(photos[1]) + "\n")
    assert [p.name for p in list_photos(listing)] == ["image5.jpg", "image11.jpg"]
    listing.write_text("image99.jpg\n")
    with pytest.raises(EvaluationError, match="image99.jpg has no .dat file beside it"):
        list_photos(listing)
    with pytest.raises(EvaluationError, match="no such folder or file"):
        list_photos(tmp_path / "missing")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(EvaluationError, match="no photos with .dat files in .*empty"):
        list_photos(empty)


def test_a_folder_lists_photos_in_every_format_the_reader_reads(tmp_path: Path) -> None:
    """eval finds the photos a command reads (GIF, PNM, JPEG's other endings), not a shorter
    list of its own."""
    for number, suffix in enumerate((".gif", ".pnm", ".jfif", ".PNG"), 1):
        (tmp_path / f"image{number}{suffix}").write_bytes(b"a photo")
        (tmp_path / f"image{number}.dat").write_text("")
    (tmp_path / "notes.txt").write_text("not a photo")
    (tmp_path / "notes.dat").write_text("")
    names = [p.name for p in list_photos(tmp_path)]
    assert names == ["image1.gif", "image2.pnm", "image3.jfif", "image4.PNG"]


@pytest.mark.usefixtures("fake_reader")
def test_evaluation_counts(tmp_path: Path) -> None:
    photos = photo_set(tmp_path, [5, 6, 7, 8])
    result = evaluate(photos, root=tmp_path)
    assert result.photos == 4
    assert result.grids_exact == 2
    assert [r.wrong_cells for r in result.results] == [0, 2, 81, 0]
    assert result.cell_accuracy == pytest.approx((4 * 81 - 83) / (4 * 81))
    assert result.results[2].error == "no Sudoku grid found in the image"
    assert result.results[2].read is None
    confusion = result.confusion
    assert confusion.sum() == 3 * 81
    assert confusion[5, 0] == 1 and confusion[9, 1] == 1
    assert confusion.trace() == 3 * 81 - 2
    assert [r.file for r in result.worst()] == ["image7.jpg", "image6.jpg"]
    report = format_report(result)
    assert "grids read exactly: 2/4 (50.0%)" in report
    assert "image7.jpg: not read (no Sudoku grid found in the image)" in report
    assert "image6.jpg: 2 wrong (r1c1 5->0, r9c9 9->1)" in report


def test_unexpected_failures_are_recorded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(path: Path) -> FakeReading:
        raise ValueError("cannot reshape")

    monkeypatch.setattr(reader, "read_photo", broken)
    result = evaluate(photo_set(tmp_path, [1]))
    assert result.results[0].error == "ValueError: cannot reshape"
    assert result.grids_exact == 0


def test_json_fields() -> None:
    evaluation = Evaluation(
        [PhotoResult("a.jpg", GRID, GRID, 0.25), PhotoResult("b.jpg", GRID, None, 0.5, "bad")]
    )
    data = evaluation.to_json()
    assert {"photos", "grids_exact", "cell_accuracy", "median_seconds", "per_photo"} <= set(data)
    assert data["median_seconds"] == pytest.approx(0.375)
    assert data["per_photo"][1] == {
        "file": "b.jpg",
        "expected": GRID,
        "read": None,
        "wrong_cells": 81,
        "expected_kinds": None,
        "read_kinds": None,
        "wrong_kinds": None,
        "seconds": 0.5,
        "error": "bad",
    }


@pytest.mark.usefixtures("fake_reader")
def test_eval_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    photo_set(tmp_path, [5, 6, 7, 8, 10])
    assert main(["eval", str(tmp_path), "--json", "--split", "val"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["photos"] == 2 and data["grids_exact"] == 2
    assert [p["file"] for p in data["per_photo"]] == ["image5.jpg", "image10.jpg"]
    assert main(["eval", str(tmp_path), "--limit", "3"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("photos: 3\ngrids read exactly: 1/3")


PRINTED_ONLY = "530070000600100000098000060800060003400803001700020006060000280000400005000080079"
"""GRID's printed givens: the digits of its row 2 and row 8 after the first are handwritten."""
FILLED = "534678912672195348198342567859761423426853791713924856961537284287419635345286179"
"""A completed grid whose printed cells are those of PRINTED_ONLY."""


def expected_kinds(grid: str, printed: str) -> str:
    return "".join(
        "p" if p != "0" else "h" if g != "0" else "." for g, p in zip(grid, printed, strict=True)
    )


def test_eval_givens_reports_kinds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """mixed/ holds hand-filled grids, printed/ their printed-only labels. image5 is read right;
    image6's digits are right but one entry is read as print and one note found in an empty
    cell; image7 reads a digit wrong, its kinds right; image8 has no printed-only labels."""
    mixed, printed = tmp_path / "mixed", tmp_path / "printed"
    mixed.mkdir()
    printed.mkdir()
    photos = photo_set(mixed, [5, 6, 7, 8])
    for photo in photos[:3]:
        write_dat(photo.with_suffix(".dat"), FILLED if photo.stem == "image7" else GRID)
        write_dat(printed / photo.with_suffix(".dat").name, PRINTED_ONLY)
    right = expected_kinds(GRID, PRINTED_ONLY)
    six = list(right)
    six[13], six[2] = "p", "n"  # r2c5 is handwritten, r1c3 empty

    def read_photo(path: Path) -> FakeReading:
        name = Path(path).stem
        if name == "image6":
            return FakeReading(GRID, "".join(six))
        if name == "image7":
            return FakeReading("1" + FILLED[1:], expected_kinds(FILLED, PRINTED_ONLY))
        return FakeReading(GRID, right)

    monkeypatch.setattr(reader, "read_photo", read_photo)
    result = evaluate(photos, root=mixed, givens=printed)
    assert [r.wrong_kinds for r in result.results] == [0, 2, 0, None]
    assert result.kind_photos == 3 and result.kinds_exact == 2
    assert result.grids_exact == 3  # image8 is judged on digits alone, and read right
    confusion = result.kind_confusion
    assert confusion.sum() == 3 * 81
    assert confusion[2, 1] == 1 and confusion[0, 3] == 1  # handwritten->printed, empty->notes
    assert confusion.trace() == 3 * 81 - 2
    by_kind = result.digits_by_kind()
    hand_cells = right.count("h") * 2 + expected_kinds(FILLED, PRINTED_ONLY).count("h")
    assert by_kind["handwritten"] == (hand_cells, hand_cells)
    printed_cells = 3 * (81 - PRINTED_ONLY.count("0"))
    assert by_kind["printed"] == (printed_cells - 1, printed_cells)  # image7's r1c1 5->1
    assert result.called_handwritten == 0
    report = format_report(result)
    assert "kinds read exactly: 2/3" in report
    assert "image6.jpg: digits right, 2 kinds wrong (r1c3 .->n, r2c5 h->p)" in report
    rows = report.split("kinds confusion (rows: expected, columns: read):\n")[1].splitlines()
    assert [row.split()[0] for row in rows[:5]] == [
        "empty",
        "empty",
        "printed",
        "handwritten",
        "notes",
    ]
    assert main(["eval", str(mixed), "--givens", str(printed), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["kinds_exact"] == 2 and data["kind_photos"] == 3
    assert data["per_photo"][1]["read_kinds"] == "".join(six)
    assert main(["eval", str(mixed), "--givens", str(tmp_path / "nowhere")]) == 2
    assert "--givens: no such folder" in capsys.readouterr().err


@pytest.mark.usefixtures("fake_reader")
def test_a_givens_folder_without_these_photos_says_the_kinds_are_not_measured(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The report's kinds part vanished without a word (e.g. --givens naming the wrong
    folder); it now says why."""
    photo_set(tmp_path, [5, 6])
    other = tmp_path / "other"
    other.mkdir()
    assert main(["eval", str(tmp_path), "--givens", str(other)]) == 0
    out = capsys.readouterr().out
    assert "kinds read exactly" not in out
    assert "\nkinds not measured: the givens folder has no .dat file for these photos\n" in out


@pytest.mark.usefixtures("fake_reader")
def test_without_givens_every_digit_is_expected_printed(tmp_path: Path) -> None:
    photos = photo_set(tmp_path, [5, 6])
    result = evaluate(photos)
    assert result.kind_photos == 2
    assert result.results[0].expected_kinds == "".join("p" if c != "0" else "." for c in GRID)
    assert result.kinds_exact == 1  # image6 reads r1c1 empty and r9c9 a printed 1
    assert result.called_handwritten == 0
    assert result.digits_by_kind()["printed"][1] == 2 * (81 - GRID.count("0"))


def test_eval_command_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", str(tmp_path / "nowhere")]) == 2
    assert "sudoku-lens: error: no such folder or file" in capsys.readouterr().err
    assert main(["eval", str(tmp_path), "--limit", "0"]) == 2
    assert "argument --limit" in capsys.readouterr().err


@pytest.mark.parametrize(
    "text",
    [
        "400000805030000000000700000020000060000080400000010000000603070500200000104000000\n",
        "# a bank\n017d664738d8 095008006030002000480000000073900050000304000060001790000000075"
        "000400020900200830  7.1\n",
        "5 3 . | . 7 . | . . .\n6 . . | 1 9 5 | . . .\n",
    ],
)
def test_eval_of_a_puzzle_file_says_eval_takes_photos(
    text: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """It said '400000805... has no .dat file beside it', taking the puzzle for a photo's name."""
    bank = tmp_path / "bank.txt"
    bank.write_text(text)
    assert main(["eval", str(bank)]) == 2
    assert capsys.readouterr().err == (
        f"sudoku-lens: error: {bank} holds puzzles, not photos: eval reads photos with their "
        ".dat files (a folder of imageN.jpg and imageN.dat, or a text file listing the photos); "
        "solve and rate take puzzle files\n"
    )
    listing = tmp_path / "list.txt"  # a list of photos still names the photo without its .dat
    listing.write_text("image7.jpg\n")
    assert main(["eval", str(listing)]) == 2
    assert f"{tmp_path / 'image7.jpg'} has no .dat file beside it" in capsys.readouterr().err


def test_read_command(wicht_data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    photo = wicht_data / "printed" / "image1083.jpg"
    assert main(["read", str(photo), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["grid"] == read_dat(photo.with_suffix(".dat"))
    assert data["rotation"] == 180
    assert len(data["corners"]) == 4 and len(data["confidences"]) == 81
    assert data["corners"][0][1] > data["corners"][2][1], "upright top-left is the image's bottom"
    assert data["seconds"] > 0
    assert main(["read", str(photo)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "+-------+-------+-------+" and len(lines) == 13


def test_read_command_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "empty.jpg"
    path.write_bytes(b"")
    assert main(["read", str(path)]) == 2
    assert capsys.readouterr().err.strip() == f"sudoku-lens: error: {path} is empty"
