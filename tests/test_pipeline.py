"""Solving photos end to end: generated photos, bad input, unsolvable puzzles, real photos."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from sudoku_lens.errors import GridNotFoundError, ImageError
from sudoku_lens.pipeline import PhotoSolution, draw_outline, solve_photo
from sudoku_lens.puzzle import grid_from_line
from sudoku_lens.read.digits import MODEL_PATH, orient
from sudoku_lens.read.grid import cut_grid
from sudoku_lens.read.reader import read_photo
from sudoku_lens.solve import Status
from sudoku_lens.synth import place_in_scene, render_grid, synth_photo

DATA = Path(__file__).parents[1].parent / "shared" / "data" / "wicht-v2-train"

needs_model = pytest.mark.skipif(
    not MODEL_PATH.exists(),
    reason=f"digit model {MODEL_PATH} not found: train it (sudoku-lens train) to run these tests",
)

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
        return read_photo(result.image).givens
    _, probabilities = orient(cut_grid(result.image, result.reading.location.lattice).cells)
    return probabilities.argmax(axis=2)


@needs_model
@pytest.mark.parametrize(
    ("seed", "difficulty"),
    [(1, "easy"), (2, "easy"), (3, "medium"), (4, "medium"), (5, "hard"), (7, "hard")],
)
def test_generated_photo_is_solved_and_the_answer_reads_back(seed: int, difficulty: str) -> None:
    photo = synth_photo(seed, difficulty)

    result = solve_photo(photo.image)

    assert result.status is Status.SOLVED, f"read:\n{result.reading.givens}"
    np.testing.assert_array_equal(result.solution, photo.solution)
    assert result.image.shape == photo.image.shape
    np.testing.assert_array_equal(read_back(result, difficulty), photo.solution)


@needs_model
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


@needs_model
def test_grid_override_is_solved_as_given() -> None:
    photo = synth_photo(12, "easy")
    fixed = photo.puzzle.copy()
    r, c = np.argwhere(fixed == 0)[0]
    fixed[r, c] = photo.solution[r, c]

    result = solve_photo(photo.image, grid=fixed)

    assert result.status is Status.SOLVED
    assert result.corrected_cells == [(int(r), int(c))]
    np.testing.assert_array_equal(result.solution, photo.solution)


@needs_model
@pytest.mark.parametrize(
    ("line", "status"),
    [(NO_SOLUTION, Status.NO_SOLUTION), (SEVERAL_SOLUTIONS, Status.SEVERAL)],
)
def test_unsolvable_puzzle_is_reported_with_the_outline(line: str, status: Status) -> None:
    puzzle = grid_from_line(line)
    image = photo_of(puzzle, seed=3)

    result = solve_photo(image)

    np.testing.assert_array_equal(result.reading.givens, puzzle)
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


def test_photo_without_grid_raises_and_still_writes_debug_pictures(tmp_path: Path) -> None:
    blank = np.full((400, 600, 3), 235, np.uint8)
    cv2.putText(blank, "no sudoku here", (40, 200), cv2.FONT_HERSHEY_SIMPLEX, 1.5, (20, 20, 20), 3)
    with pytest.raises(GridNotFoundError):
        solve_photo(blank, debug_dir=tmp_path / "debug")
    assert sorted(p.name for p in (tmp_path / "debug").iterdir()) == [
        "1-binarised.png",
        "2-outlines.png",
    ]


@needs_model
def test_debug_pictures_cover_every_stage(tmp_path: Path) -> None:
    photo = synth_photo(13, "medium", rotation=90)
    solve_photo(photo.image, debug_dir=tmp_path / "debug")
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


def validation_photos() -> list[Path]:
    """The printed photos of the team's validation split (N % 5 == 0): 30 photos, about 3 s."""
    if not DATA.is_dir():
        pytest.skip(f"{DATA} not found: this test needs ../shared/data/wicht-v2-train")
    photos = [p for p in (DATA / "printed").glob("image*.jpg") if int(p.stem[5:]) % 5 == 0]
    return sorted(photos, key=lambda p: int(p.stem[5:]))


def truth_of(photo: Path) -> np.ndarray:
    rows = photo.with_suffix(".dat").read_text().splitlines()[2:11]
    return np.array([[int(v) for v in row.split()] for row in rows], dtype=np.uint8)


@needs_model
def test_real_photos_read_exactly_are_solved_and_drawn() -> None:
    exact = 0
    photos = validation_photos()
    for path in photos:
        truth = truth_of(path)
        try:
            result: PhotoSolution = solve_photo(path)
        except GridNotFoundError:
            continue
        if not np.array_equal(result.reading.givens, truth):
            continue
        exact += 1
        assert result.status is Status.SOLVED, path.name
        assert result.corrected_cells == [], path.name
        assert_valid_solution(truth, result.solution)
        assert not np.array_equal(result.image, result.reading.image), path.name
    print(f"{exact} of {len(photos)} validation photos read exactly, all of them solved and drawn")
