"""Solving photos end to end: generated photos, bad input, unsolvable puzzles, real photos."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from conftest import truth_grid, validation_photos
from sudoku_lens.debug import solve_photo_with_pictures
from sudoku_lens.errors import GridNotFoundError, ImageError
from sudoku_lens.pipeline import (
    PhotoSolution,
    answer_reading,
    draw_answer,
    draw_outline,
    solve_photo,
)
from sudoku_lens.puzzle import grid_from_line
from sudoku_lens.read import reader
from sudoku_lens.read.digits import orient
from sudoku_lens.read.grid import GridSearch, cut_grid
from sudoku_lens.read.image_io import Photo
from sudoku_lens.read.kinds import EMPTY, NOTES
from sudoku_lens.read.reader import read_photo
from sudoku_lens.solve import Status
from sudoku_lens.synth import place_in_scene, render_grid, synth_photo
from sudoku_lens.synth.handwriting import synth_filled_photo

NO_SOLUTION = "012340000500000000600000000700000000800000000900000000000000000000000000000000000"
"""No rule broken, but the top-left cell has no digit left; too few givens to repair."""
SEVERAL_SOLUTIONS = (
    "123000000000000000000000004000090000000456000000000000500000000000000000000000789"
)
"""Too few givens for one solution, or for a repair of three cells to give one."""


def photo_of(puzzle: np.ndarray, seed: int) -> np.ndarray:
    """An easy synthetic photo of `puzzle` printed as it is (legal or not)."""
    rng = np.random.default_rng(seed)
    grid_image = render_grid(puzzle, rng)
    return place_in_scene(grid_image, rng, "easy", puzzle=puzzle, solution=puzzle, rotation=0).image


def assert_valid_solution(puzzle: np.ndarray, solution: np.ndarray) -> None:
    keep = puzzle > 0
    np.testing.assert_array_equal(solution[keep], puzzle[keep])
    boxes = solution.reshape(3, 3, 3, 3).transpose(0, 2, 1, 3).reshape(9, 9)
    for unit in [*solution, *solution.T, *boxes]:
        assert sorted(unit.tolist()) == list(range(1, 10))


def read_back(result: PhotoSolution, difficulty: str) -> np.ndarray:
    """The digits read from the answer picture: all 81 once the answer is drawn in.

    Easy and medium pictures go through the whole reader again. A hard picture may print its
    thin lines as faint hairlines, which the grid finder tells from the digits beside them by
    the paper between; once all 81 cells hold bold digits there is none left, so its drawn
    digits are read in the cells cut along the grid's lines as found in the original photo: the
    check is that they are legible and in the right cells, not where the grid is.
    """
    if difficulty != "hard":
        return read_photo(result.image).grid
    _, probabilities = orient(cut_grid(result.image, result.reading.location.lattice).cells)
    return probabilities.argmax(axis=2)


@pytest.mark.parametrize(
    ("seed", "difficulty"),
    [(1, "easy"), (2, "easy"), (3, "medium"), (4, "medium"), (5, "hard"), (7, "hard")],
)
def test_generated_photo_is_solved_and_the_answer_reads_back(seed: int, difficulty: str) -> None:
    photo = synth_photo(seed, difficulty)

    result = solve_photo(photo.image)

    assert result.status is Status.SOLVED, f"read:\n{result.reading.grid}"
    np.testing.assert_array_equal(result.solution, photo.solution)
    assert result.image.shape == photo.image.shape
    np.testing.assert_array_equal(read_back(result, difficulty), photo.solution)


def test_solved_picture_of_the_bundled_example_reads_back_to_the_full_solution() -> None:
    """Every cell holds ink once the answer is drawn: the bold blue answer digits must neither
    lose the grid nor make the faint print beside them look like smudges."""
    example = Path(__file__).parents[1] / "src" / "sudoku_lens" / "examples" / "example.jpg"
    result = solve_photo(example)

    assert result.solution is not None
    np.testing.assert_array_equal(read_photo(result.image).grid, result.solution)


def test_json_summary_follows_the_contract() -> None:
    photo = synth_photo(11, "easy")
    summary = solve_photo(photo.image).to_json()
    assert summary["status"] == "solved"
    assert summary["grid"] == "".join(map(str, photo.puzzle.reshape(-1)))
    assert summary["solution"] == "".join(map(str, photo.solution.reshape(-1)))
    assert summary["corrected_cells"] == []
    corners = np.array(summary["corners"])
    assert corners.shape == (4, 2)
    assert np.abs(corners - photo.corners).max() < 0.03 * np.ptp(photo.corners[:, 0])
    assert summary["seconds"] > 0
    assert 0.5 < summary["min_confidence"] <= 1.0


def test_grid_override_is_solved_as_given() -> None:
    photo = synth_photo(12, "easy")
    fixed = photo.puzzle.copy()
    r, c = np.argwhere(fixed == 0)[0]
    fixed[r, c] = photo.solution[r, c]

    result = solve_photo(photo.image, grid=fixed)

    assert result.status is Status.SOLVED
    assert result.corrected_cells == [(int(r), int(c))]
    np.testing.assert_array_equal(result.solution, photo.solution)


def test_corrected_cells_are_named_in_json_as_the_entries_are() -> None:
    """`corrected_cells` names its cells "r3c4", as `wrong_entries` and every step do, not as
    0-based [row, col] pairs."""
    photo = synth_photo(12, "easy")
    fixed = photo.puzzle.copy()
    r, c = np.argwhere(fixed == 0)[0]
    fixed[r, c] = photo.solution[r, c]

    summary = solve_photo(photo.image, grid=fixed).to_json()

    assert summary["corrected_cells"] == [f"r{r + 1}c{c + 1}"]


@pytest.mark.parametrize(
    ("line", "status"),
    [(NO_SOLUTION, Status.NO_SOLUTION), (SEVERAL_SOLUTIONS, Status.SEVERAL)],
)
def test_unsolvable_puzzle_is_reported_with_the_outline(line: str, status: Status) -> None:
    puzzle = grid_from_line(line)
    image = photo_of(puzzle, seed=3)

    result = solve_photo(image)

    np.testing.assert_array_equal(result.reading.grid, puzzle)
    assert result.status is status
    assert result.solution is None
    assert result.corrected_cells == []
    assert not np.array_equal(result.image, image)
    summary = result.to_json()
    assert summary["solution"] is None
    assert summary["status"] == status.value


def test_bad_input_raises_image_error(tmp_path: Path) -> None:
    with pytest.raises(ImageError):
        solve_photo(b"definitely not an image")
    with pytest.raises(ImageError):
        solve_photo(tmp_path / "missing.jpg")


def test_photo_without_grid_raises_and_still_writes_debug_pictures(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blank = np.full((400, 600, 3), 235, np.uint8)
    cv2.putText(blank, "no sudoku here", (40, 200), cv2.FONT_HERSHEY_SIMPLEX, 1.5, (20, 20, 20), 3)
    searches = []
    real_locate_grid = reader.locate_grid

    def counted(*args: Any, **kwargs: Any) -> Any:
        searches.append(1)
        return real_locate_grid(*args, **kwargs)

    monkeypatch.setattr(reader, "locate_grid", counted)
    with pytest.raises(GridNotFoundError):
        solve_photo_with_pictures(blank, tmp_path / "debug")
    assert len(searches) == 1, "the pictures are drawn from the one search, not a second"
    assert sorted(p.name for p in (tmp_path / "debug").iterdir()) == [
        "1-binarised.png",
        "2-outlines.png",
    ]


def test_the_search_records_what_it_considered() -> None:
    photo = synth_photo(14, "easy")
    trace = GridSearch()
    result = solve_photo(photo.image, trace=trace)
    assert trace.gray is not None and trace.mask is not None
    assert trace.mask.shape == trace.gray.shape
    assert trace.location is result.reading.location and trace.chosen is not None
    assert any(candidate.passed for candidate in trace.candidates)
    best = max(trace.candidates, key=lambda candidate: candidate.score)
    assert best.passed and best.score >= 0.1
    expected = result.reading.location.corners * trace.scale
    assert np.abs(trace.chosen - expected).max() < 0.05 * np.ptp(expected[:, 0])

    nothing = GridSearch()
    with pytest.raises(GridNotFoundError):
        read_photo(np.full((300, 400, 3), 235, np.uint8), trace=nothing)
    assert nothing.chosen is None and nothing.location is None and nothing.mask is not None
    assert not any(candidate.passed for candidate in nothing.candidates)


def test_debug_pictures_cover_every_stage(tmp_path: Path) -> None:
    photo = synth_photo(13, "medium", rotation=90)
    solve_photo_with_pictures(photo.image, tmp_path / "debug")
    names = sorted(p.name for p in (tmp_path / "debug").iterdir())
    assert names == [
        "1-binarised.png",
        "2-outlines.png",
        "3-warped.png",
        "4-cells.png",
        "5-result.png",
    ]
    for name in names:
        picture = cv2.imread(str(tmp_path / "debug" / name))
        assert picture is not None and min(picture.shape[:2]) > 100


def test_draw_outline_marks_the_quadrilateral_only() -> None:
    image = np.full((200, 300, 3), 255, np.uint8)
    corners = np.array([[50, 40], [250, 40], [250, 160], [50, 160]], np.float32)
    out = draw_outline(image, corners)
    assert out[40, 150].tolist() != [255, 255, 255]
    assert out[100, 150].tolist() == [255, 255, 255]
    assert image[40, 150].tolist() == [255, 255, 255]


def test_real_photos_are_read_exactly_solved_and_drawn(wicht_data: Path) -> None:
    """Every printed validation photo (N % 5 == 0, 30 photos, about 3 s) is read exactly,
    solved without repair and drawn."""
    photos = validation_photos(wicht_data / "printed")
    assert len(photos) == 30
    for path in photos:
        truth = truth_grid(path)
        result = solve_photo(path)
        np.testing.assert_array_equal(result.reading.grid, truth, err_msg=path.name)
        assert result.status is Status.SOLVED, path.name
        assert result.corrected_cells == [], path.name
        assert_valid_solution(truth, result.solution)
        assert not np.array_equal(result.image, result.reading.image), path.name


def test_givens_with_several_solutions_are_mended_by_adding_never_by_changing_a_digit() -> None:
    """A given is missing (read as notes, say): reading another given as its runner-up digit
    would make this grid unique, but with the wrong answer; the repair adds givens only, and
    here none qualifies, so the verdict is several solutions."""
    from sudoku_lens.pipeline import repair_givens
    from sudoku_lens.read.kinds import EMPTY, PRINTED
    from sudoku_lens.read.reader import Reading

    puzzle = grid_from_line(
        "800002134050034000300000090030000967000000000481000020060000003000450010543600009"
    )
    read = puzzle.copy()
    read[0, 0] = 0  # the 8 lost
    probabilities = np.eye(10, dtype=np.float32)[read] * 0.9 + 0.01
    probabilities[6, 1] = 0.01
    probabilities[6, 1, 6], probabilities[6, 1, 7] = 0.6, 0.32  # r7c2: 6, else 7
    kinds = np.where(read > 0, PRINTED, EMPTY).astype(np.uint8)
    reading = Reading(
        grid=read,
        kinds=kinds,
        probabilities=probabilities,
        kind_probabilities=np.eye(4, dtype=np.float32)[kinds],
        corners=np.zeros((4, 2), np.float32),
        rotation=0,
        timings={},
        photo=Photo(np.zeros((10, 10, 3), np.uint8)),
    )
    result = repair_givens(reading)
    assert result.status is Status.SEVERAL and not result.changed_cells


def test_pencil_notes_under_an_answer_are_covered_and_every_other_cell_drawn_as_before() -> None:
    made = synth_filled_photo(10002, "easy", entries=0.3, notes=0.5)
    result = solve_photo(made.photo.image)
    reading = result.reading
    covered = (result.kinds == NOTES) & (made.filled.kinds == NOTES)
    assert result.status is Status.SOLVED and covered.sum() >= 8
    # The same answer drawn as if no cell held notes: every cell but those of notes is the same.
    answer = answer_reading(reading)
    no_notes = np.where(reading.kinds == NOTES, EMPTY, reading.kinds)
    plain = draw_answer(dataclasses.replace(reading, kinds=no_notes), answer)
    side = 9 * 60
    square = np.float32([[0, 0], [side, 0], [side, side], [0, side]])
    homography = cv2.getPerspectiveTransform(reading.corners.astype(np.float32), square)

    def cells(image: np.ndarray) -> np.ndarray:
        """The photo's cells, upright, 60 x 60 pixels each, grey: (9, 9, 60, 60)."""
        flat = cv2.warpPerspective(image, homography, (side, side), flags=cv2.INTER_AREA)
        gray = cv2.cvtColor(flat, cv2.COLOR_BGR2GRAY).astype(np.int16)
        return gray.reshape(9, 60, 9, 60).transpose(0, 2, 1, 3)

    photo, before, after = cells(reading.image), cells(plain), cells(result.image)
    changed = np.any(before != after, axis=(2, 3))
    assert np.array_equal(changed, result.kinds == NOTES)
    # In the cells of notes, the notes' ink beside the digit drawn is mostly gone.
    inner = (slice(None), slice(9, 51), slice(9, 51))
    paper = np.median(photo[covered][inner], axis=(1, 2))[:, None, None]
    beside = (before[covered] == photo[covered])[inner]
    ink_before = ((paper - before[covered][inner] > 40) & beside).sum()
    ink_after = ((paper - after[covered][inner] > 40) & beside).sum()
    assert ink_before > 200 and ink_after < 0.1 * ink_before
