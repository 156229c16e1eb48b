"""`sudoku-lens solve PHOTO`: telling photos from puzzle text, output, messages and exit codes."""

from __future__ import annotations

import argparse
import dataclasses
import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from conftest import given_misread_to_another_answer, photo_read_as, truth_reading
from sudoku_lens import pipeline
from sudoku_lens.cli.solve_photo import add_photo_arguments, looks_like_image, run_photo
from sudoku_lens.errors import GridNotFoundError, ImageError, SudokuLensError
from sudoku_lens.puzzle import format_grid, grid_from_line
from sudoku_lens.read.kinds import HANDWRITTEN, PRINTED
from sudoku_lens.solve import count_solutions
from sudoku_lens.synth import place_in_scene, render_grid, synth_photo
from sudoku_lens.synth.handwriting import SyntheticFilledPhoto, synth_filled_photo

MAGIC = {
    "jpeg": b"\xff\xd8\xff\xe0\x00\x10JFIF\x00",
    "png": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
    "bmp": b"BM6\x00\x00\x00\x00\x00\x00\x00\x36\x00\x00\x00\x28\x00\x00\x00",
    "gif": b"GIF89a\x01\x00\x01\x00",
    "tiff-le": b"II*\x00\x08\x00\x00\x00",
    "tiff-be": b"MM\x00*\x00\x00\x00\x08",
    "webp": b"RIFF\x24\x00\x00\x00WEBPVP8 ",
    "heic": b"\x00\x00\x00\x18ftypheic\x00\x00",
    "pgm": b"P5\n4 4\n255\n",
}


@pytest.mark.parametrize("kind", sorted(MAGIC))
def test_image_content_is_recognised_whatever_the_name(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "puzzle.txt"
    path.write_bytes(MAGIC[kind] + bytes(64))
    assert looks_like_image(path)


@pytest.mark.parametrize(
    "text",
    [
        "530070000600195000098000060800060003400803001700020006060000280000419005000080079",
        "5 3 . . 7 . . . .\n6 . . 1 9 5 . . .\n",
        "",
        "P",
        "BMW sudoku\n",
    ],
)
def test_puzzle_text_files_are_not_images(tmp_path: Path, text: str) -> None:
    path = tmp_path / "puzzle"
    path.write_text(text)
    assert not looks_like_image(path)


@pytest.mark.parametrize("suffix", [".png", ".jpg", ".bmp", ".tiff", ".webp"])
def test_real_image_files_without_a_suffix_are_images(tmp_path: Path, suffix: str) -> None:
    ok, data = cv2.imencode(suffix, np.full((8, 8, 3), 128, np.uint8))
    assert ok
    path = tmp_path / "scan"
    path.write_bytes(data.tobytes())
    assert looks_like_image(path)


def test_image_names_count_even_when_missing_or_not_images(tmp_path: Path) -> None:
    assert looks_like_image(tmp_path / "missing.JPG")
    (tmp_path / "broken.png").write_text("not really")
    assert looks_like_image(tmp_path / "broken.png")
    assert not looks_like_image(tmp_path / "missing")
    assert not looks_like_image(
        "530070000600195000098000060800060003400803001700020006060000280000419005000080079"
    )


def parse(argv: list[str]) -> argparse.Namespace:
    """The photo part of the `solve` command line, as `cli/solve.py` wires it."""
    parser = argparse.ArgumentParser(prog="sudoku-lens solve")
    parser.add_argument("puzzle")
    parser.add_argument("-o", "--output")
    parser.add_argument("--json", action="store_true")
    add_photo_arguments(parser)
    return parser.parse_args(argv)


def test_not_an_image_is_an_image_error(tmp_path: Path) -> None:
    path = tmp_path / "photo.jpg"
    path.write_bytes(b"\xff\xd8\xff garbage")
    with pytest.raises(ImageError):
        run_photo(parse([str(path)]))


def test_blank_photo_is_grid_not_found(tmp_path: Path) -> None:
    """The error line says where the stage pictures are, for they show why (it did not)."""
    path = tmp_path / "blank.png"
    cv2.imwrite(str(path), np.full((300, 400, 3), 255, np.uint8))
    with pytest.raises(GridNotFoundError) as error:
        run_photo(parse([str(path), "--debug", str(tmp_path / "debug")]))
    assert str(error.value) == (
        "no Sudoku grid found in the image (the pictures of the stages reached are in "
        f"{tmp_path / 'debug'})"
    )
    assert (tmp_path / "debug" / "1-binarised.png").is_file()
    assert (tmp_path / "debug" / "2-outlines.png").is_file()


PUZZLE = grid_from_line(
    "530070000600195000098000060800060003400803001700020006060000280000419005000080079"
)
SOLUTION = "534678912672195348198342567859761423426853791713924856961537284287419635345286179"


def write_photo(path: Path, puzzle: np.ndarray, seed: int = 5) -> Path:
    """Save an easy synthetic photo of `puzzle`, printed as it is, to `path`."""
    rng = np.random.default_rng(seed)
    photo = place_in_scene(
        render_grid(puzzle, rng), rng, "easy", puzzle=puzzle, solution=puzzle, rotation=0
    )
    cv2.imwrite(str(path), photo.image)
    return path


def test_solved_photo_prints_both_grids_and_writes_the_answer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    photo = write_photo(tmp_path / "paper.jpg", PUZZLE)
    out = tmp_path / "answer.png"

    assert run_photo(parse([str(photo), "-o", str(out)])) == 0

    printed = capsys.readouterr().out
    assert "read:" in printed and "solution:" in printed
    assert f"wrote the solved photo to {out}" in printed
    assert format_grid(PUZZLE).splitlines()[1] in printed
    assert cv2.imread(str(out)).shape == cv2.imread(str(photo)).shape


@pytest.mark.parametrize(
    ("photo_name", "picture_name", "head"),
    [
        ("paper.jpg", "paper-solved.jpg", b"\xff\xd8\xff"),
        ("paper.png", "paper-solved.png", b"\x89PNG"),
        ("paper.bmp", "paper-solved.png", b"\x89PNG"),
    ],
)
def test_default_output_goes_to_the_current_directory_in_the_photos_format(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    photo_name: str,
    picture_name: str,
    head: bytes,
) -> None:
    photo = write_photo(tmp_path / photo_name, PUZZLE)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)

    assert run_photo(parse([str(photo)])) == 0

    assert picture_name in capsys.readouterr().out
    picture = (work / picture_name).read_bytes()
    assert picture.startswith(head)
    drawn = cv2.imdecode(np.frombuffer(picture, np.uint8), cv2.IMREAD_COLOR)
    assert drawn.shape == cv2.imread(str(photo)).shape


def quantization(jpeg: bytes) -> bytes:
    """The first quantization table segment of a JPEG: what its quality setting decides."""
    start = jpeg.index(b"\xff\xdb")
    length = int.from_bytes(jpeg[start + 2 : start + 4], "big")
    return jpeg[start : start + 2 + length]


def test_a_jpeg_picture_is_written_at_quality_90_whatever_its_name_says(tmp_path: Path) -> None:
    photo = write_photo(tmp_path / "paper.jpg", PUZZLE)
    blank = np.zeros((8, 8, 3), np.uint8)
    at_90 = quantization(cv2.imencode(".jpg", blank, [cv2.IMWRITE_JPEG_QUALITY, 90])[1].tobytes())
    for name in ("named.jpg", "named.JPEG"):
        assert run_photo(parse([str(photo), "-o", str(tmp_path / name)])) == 0
        assert quantization((tmp_path / name).read_bytes()) == at_90, name
    assert run_photo(parse([str(photo), "-o", str(tmp_path / "named.png")])) == 0
    assert (tmp_path / "named.png").read_bytes().startswith(b"\x89PNG")


def test_json_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    photo = write_photo(tmp_path / "paper.png", PUZZLE)
    out = tmp_path / "answer.png"

    assert run_photo(parse([str(photo), "--json", "-o", str(out)])) == 0

    summary = json.loads(capsys.readouterr().out)
    assert summary["status"] == "solved"
    assert summary["solution"] == SOLUTION
    assert len(summary["grid"]) == 81
    assert summary["corrected_cells"] == []
    assert len(summary["corners"]) == 4
    assert summary["output"] == str(out)
    assert summary["seconds"] > 0


@pytest.mark.parametrize("kind", ["no solution", "several solutions"])
def test_unsolvable_puzzle_exits_1_with_the_grid_printed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    # Too few givens for a repair of three cells to give one solution.
    if kind == "no solution":
        line = "012340000500000000600000000700000000800000000900000000000000000000000000000000000"
    else:
        line = "123000000000000000000000004000090000000456000000000000500000000000000000000000789"
    puzzle = grid_from_line(line)
    assert count_solutions(puzzle) == (0 if kind == "no solution" else 2)
    photo = write_photo(tmp_path / "paper.png", puzzle)

    assert run_photo(parse([str(photo), "-o", str(tmp_path / "out.png")])) == 1

    captured = capsys.readouterr()
    assert format_grid(puzzle) in captured.out
    assert f"has {kind}" in captured.err
    assert "solution:" not in captured.out
    assert (tmp_path / "out.png").is_file()


def test_unwritable_output_is_refused_before_reading(tmp_path: Path) -> None:
    photo = tmp_path / "never-read.jpg"
    with pytest.raises(SudokuLensError, match="folder .* does not exist"):
        run_photo(parse([str(photo), "-o", str(tmp_path / "nowhere" / "out.png")]))
    with pytest.raises(SudokuLensError, match=r"name it \.png, \.jpg, \.bmp, \.tif or \.webp"):
        run_photo(parse([str(photo), "-o", str(tmp_path / "out.unknown")]))


@pytest.fixture(scope="module")
def filled_sample() -> SyntheticFilledPhoto:
    return synth_filled_photo(3, "easy", mistakes=3, pen="ballpoint-blue", rotation=0)


def read_as_filled(
    monkeypatch: pytest.MonkeyPatch, sample: SyntheticFilledPhoto, tmp_path: Path
) -> Path:
    """Save the sample's photo; make the pipeline read it with the generator's kinds (until the
    reader tells handwriting from print)."""
    return photo_read_as(
        monkeypatch, sample.photo.image, truth_reading(sample), tmp_path / "filled.png"
    )


def wrong_lines(sample: SyntheticFilledPhoto) -> list[str]:
    cells = np.argwhere(sample.filled.mistakes)
    return [
        f"r{r + 1}c{c + 1}: written {sample.filled.digits[r, c]}, "
        f"should be {sample.photo.solution[r, c]}"
        for r, c in cells
    ]


def test_wrong_entries_are_named_and_exit_1(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    filled_sample: SyntheticFilledPhoto,
) -> None:
    photo = read_as_filled(monkeypatch, filled_sample, tmp_path)
    out = tmp_path / "answer.png"

    assert run_photo(parse([str(photo), "-o", str(out)])) == 1

    captured = capsys.readouterr()
    assert "3 of" in captured.out and "entries wrong:" in captured.out
    for line in wrong_lines(filled_sample):
        assert line in captured.out
    assert "3 handwritten entries are wrong" in captured.err
    assert "wrote the solved photo" in captured.out and out.is_file()


def test_check_marks_mistakes_only_and_json_lists_them(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    filled_sample: SyntheticFilledPhoto,
) -> None:
    photo = read_as_filled(monkeypatch, filled_sample, tmp_path)
    solved, checked = tmp_path / "solved.png", tmp_path / "checked.png"
    assert run_photo(parse([str(photo), "-o", str(solved)])) == 1
    capsys.readouterr()

    assert run_photo(parse([str(photo), "--check", "--json", "-o", str(checked)])) == 1

    summary = json.loads(capsys.readouterr().out)
    assert summary["status"] == "solved"
    assert summary["unsure_entries"] == []
    assert [
        f"{e['cell']}: written {e['written']}, should be {e['expected']}"
        for e in summary["wrong_entries"]
    ] == wrong_lines(filled_sample)
    assert set(summary["kinds"]) == set(".phn")
    # The checked picture has the marks but none of the answer's blue digits.
    blue = [
        int((img[..., 0].astype(int) - img[..., 2] > 120).sum())
        for img in (cv2.imread(str(solved)), cv2.imread(str(checked)), filled_sample.photo.image)
    ]
    assert blue[0] > blue[2] + 500 and abs(blue[1] - blue[2]) < 50


def test_check_text_names_the_mistakes_without_giving_the_answer_away(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    filled_sample: SyntheticFilledPhoto,
) -> None:
    photo = read_as_filled(monkeypatch, filled_sample, tmp_path)
    assert run_photo(parse([str(photo), "--check", "-o", str(tmp_path / "checked.png")])) == 1

    printed = capsys.readouterr().out
    expected = [line.split(", should be")[0] + ", wrong" for line in wrong_lines(filled_sample)]
    assert [line.strip() for line in printed.splitlines() if ", wrong" in line] == expected
    assert "should be" not in printed and "solution:" not in printed


def test_right_entries_exit_0_and_check_writes_its_default_picture(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    sample = synth_filled_photo(8, "easy", mistakes=0, rotation=0)
    photo = read_as_filled(monkeypatch, sample, tmp_path)
    monkeypatch.chdir(tmp_path)

    assert run_photo(parse([str(photo), "--check"])) == 0

    printed = capsys.readouterr().out
    assert "handwritten entries checked are right" in printed
    assert "wrote the photo with the wrong entries marked" in printed
    assert (tmp_path / "filled-checked.png").is_file()


def test_a_photo_of_a_completed_grid_says_so_and_draws_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A printed solution, or a grid the person has finished, has no answer to draw in."""
    photo = tmp_path / "complete.png"
    cv2.imwrite(str(photo), synth_photo(5, "easy", clues=81).image)
    out = tmp_path / "complete-solved.png"

    assert run_photo(parse([str(photo), "-o", str(out)])) == 0

    printed = capsys.readouterr().out
    assert "the grid is already complete, and right: no answer to draw" in printed
    assert f"wrote the photo, with no answer to draw, to {out}" in printed
    assert out.is_file()


def test_entries_that_disagree_with_a_misread_given_in_numbers_doubt_the_givens(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    filled_sample: SyntheticFilledPhoto,
) -> None:
    """A given misread into another unique puzzle: `solve` calls none of the many entries that
    disagree wrong, says why, doubts the givens and exits 1; `--json` and `hint` say the same."""
    from sudoku_lens.cli import main
    from sudoku_lens.read import reader

    misread, other = given_misread_to_another_answer(truth_reading(filled_sample))
    photo = photo_read_as(monkeypatch, filled_sample.photo.image, misread, tmp_path / "p.png")
    monkeypatch.setattr(reader, "read_photo", pipeline.read_photo)  # as `hint` reads it
    entries = misread.entries > 0
    disagree = int((entries & (misread.entries != other)).sum())
    why = (
        "so many disagree with the solution of the givens as read that a given is more likely "
        "misread than they are all wrong; check the givens"
    )

    assert run_photo(parse([str(photo), "-o", str(tmp_path / "out.png")])) == 1
    captured = capsys.readouterr()
    assert f"{disagree} of {int(entries.sum())} handwritten entries not checked: {why}" in (
        captured.out
    )
    assert "should be" not in captured.out
    assert captured.err == (
        f"sudoku-lens: the givens read are in doubt (--debug DIR shows each reading stage) "
        f"in {photo}\n"
    )

    assert run_photo(parse([str(photo), "--json"])) == 1
    summary = json.loads(capsys.readouterr().out)
    assert summary["givens_doubted"] is True
    assert summary["wrong_entries"] == [] and len(summary["unsure_entries"]) == disagree

    assert main(["hint", str(photo), "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["givens_doubted"] is True
    assert "handwritten entries not checked at " in captured.err and why in captured.err
    captions: list[str] = []
    monkeypatch.setattr(
        "sudoku_lens.draw.hint.add_caption", lambda image, text: captions.append(text) or image
    )
    assert main(["hint", str(photo), "-o", str(tmp_path / "hint.png")]) == 0
    capsys.readouterr()
    assert (
        "Entries not checked, ringed in orange (so many disagree with the givens as read"
        in (captions[0])
    )


def test_givens_alone_without_one_answer_are_reported(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    filled_sample: SyntheticFilledPhoto,
) -> None:
    reading = truth_reading(filled_sample)
    kinds = reading.kinds.copy()
    kinds[kinds == PRINTED] = HANDWRITTEN  # nothing printed is left: every solution fits
    monkeypatch.setattr(pipeline, "read_photo", lambda source, **_: reading.with_kinds(kinds))
    photo = tmp_path / "filled.png"
    cv2.imwrite(str(photo), filled_sample.photo.image)

    assert run_photo(parse([str(photo), "--json"])) == 1

    captured = capsys.readouterr()
    assert json.loads(captured.out)["status"] == "several solutions"
    assert f"the printed givens read from {photo} have several solutions" in captured.err
    assert "handwritten entries are not givens" in captured.err


def test_a_repair_says_what_it_changed_in_each_cell() -> None:
    from sudoku_lens.cli.solve_photo import correction_text
    from sudoku_lens.read.kinds import EMPTY, HANDWRITTEN, PRINTED

    assert (
        correction_text(9, 0, PRINTED, HANDWRITTEN) == "the 9 read as print is a handwritten entry"
    )
    assert correction_text(5, 5, HANDWRITTEN, PRINTED) == "the 5 read as handwriting is printed"
    assert correction_text(3, 8, PRINTED, PRINTED) == "read 3, now 8"
    assert correction_text(0, 4, EMPTY, PRINTED) == "read empty, now 4"
    assert correction_text(7, 0, PRINTED, EMPTY) == "read 7, now empty"


def test_solve_and_hint_say_an_unsolvable_photo_the_same_way(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The whole grid found, its givens breaking no rule yet without a solution: a digit is
    more likely misread than the grid wrong. `solve` points to --debug only when it was not
    given; `hint`, which has none, says the same and points to `solve --debug`."""
    from sudoku_lens.cli import main

    line = "012340000500000000600000000700000000800000000900000000000000000000000000000000000"
    photo = str(write_photo(tmp_path / "paper.png", grid_from_line(line)))
    said = (
        f"the puzzle read from {photo} has no solution: a digit may be misread; check the grid "
        "read against the photo"
    )

    assert main(["solve", photo, "-o", str(tmp_path / "out.png")]) == 1
    assert capsys.readouterr().err == (
        f"sudoku-lens: {said} (--debug DIR shows each reading stage)\n"
    )
    debug = tmp_path / "stages"
    assert main(["solve", photo, "--debug", str(debug)]) == 1
    assert capsys.readouterr().err == f"sudoku-lens: {said} (the stage pictures are in {debug})\n"
    assert main(["hint", photo]) == 2
    assert capsys.readouterr().err == (
        f"sudoku-lens: error: {said} (sudoku-lens solve PHOTO --debug DIR shows each reading "
        "stage)\n"
    )


def test_a_grid_found_that_is_one_box_of_the_photos_grid_is_blamed_before_the_digits(
    tmp_path: Path,
) -> None:
    """Givens without a solution read from one 3x3 box of the photo's grid: the message says
    the grid found may be only part of the puzzle, and why."""
    from sudoku_lens.pipeline import unsolved_message
    from sudoku_lens.read.reader import read_image
    from sudoku_lens.solve import Status

    photo = cv2.imread(str(write_photo(tmp_path / "paper.png", PUZZLE)))
    reading = read_image(photo)
    lattice = reading.location.lattice
    box = np.array([lattice[3, 3], lattice[3, 6], lattice[6, 6], lattice[6, 3]], np.float32)
    boxed = dataclasses.replace(
        reading, location=dataclasses.replace(reading.location, corners=box)
    )
    message = unsolved_message(Status.NO_SOLUTION, reading.grid, "paper.png", boxed)
    assert message.startswith(
        "the puzzle read from paper.png has no solution: the grid found may be only part of the "
        "puzzle (it covers "
    )
    assert "lines run on past all its sides)" in message
    whole = unsolved_message(Status.SEVERAL, reading.grid, "paper.png", reading)
    assert whole.endswith(
        "several solutions: a digit may be misread; check the grid read against the photo"
    )


def test_givens_without_a_solution_beside_another_grid_as_large_blame_the_grid_found(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two puzzles of one size side by side on a page, both read without a solution: the
    message says the grid found may be the wrong one and on which side the other lies; a grid
    of a third the area beside it is no such doubt (a photo frames its puzzle)."""
    from sudoku_lens.cli import main
    from sudoku_lens.read.reader import read_image

    line = "012340000500000000600000000700000000800000000900000000000000000000000000000000000"
    unsolvable = grid_from_line(line)
    rng = np.random.default_rng(3)
    left, right = render_grid(unsolvable, rng), render_grid(np.roll(unsolvable, 3, axis=1), rng)
    gap = np.full((left.shape[0], 60, 3), 245, np.uint8)

    def page_of(*parts: np.ndarray) -> Path:
        page = cv2.copyMakeBorder(
            np.hstack(parts), 80, 80, 80, 80, cv2.BORDER_CONSTANT, value=(245,) * 3
        )
        cv2.imwrite(str(tmp_path / "page.png"), page)
        return tmp_path / "page.png"

    photo = page_of(left, gap, right)
    image = cv2.imread(str(photo))
    found_right = read_image(image).corners[:, 0].mean() > image.shape[1] / 2
    assert main(["solve", str(photo), "-o", str(tmp_path / "out.png")]) == 1
    assert capsys.readouterr().err == (
        f"sudoku-lens: the puzzle read from {photo} has no solution: the grid found may be the "
        f"wrong one (another grid lies to its {'left' if found_right else 'right'}); crop the "
        "photo to the puzzle, or check the grid read against the photo (--debug DIR shows each "
        "reading stage)\n"
    )

    small = cv2.resize(right, None, fx=0.55, fy=0.55, interpolation=cv2.INTER_AREA)
    small = cv2.copyMakeBorder(
        small, 0, left.shape[0] - small.shape[0], 0, 0, cv2.BORDER_CONSTANT, value=(245,) * 3
    )
    assert main(["solve", str(page_of(left, gap, small)), "-o", str(tmp_path / "out.png")]) == 1
    assert capsys.readouterr().err.endswith(
        "no solution: a digit may be misread; check the grid read against the photo (--debug DIR "
        "shows each reading stage)\n"
    )
