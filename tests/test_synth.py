"""The synthetic photo generator: deterministic, with ground truth that matches the pixels."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sudoku_lens.solve import count_solutions
from sudoku_lens.synth import (
    EXAMPLE_PATH,
    GridStyle,
    make_example,
    place_in_scene,
    random_puzzle,
    random_style,
    render_grid,
    synth_photo,
    synth_video,
    system_fonts,
)

SIDE = 360
CELL = SIDE // 9


def rectify(image: np.ndarray, corners: np.ndarray, side: int = SIDE) -> np.ndarray:
    """The grid seen through `corners` (upright TL,TR,BR,BL) as an upright grey square."""
    square = np.float32([[0, 0], [side, 0], [side, side], [0, side]]) - 0.5
    homography = cv2.getPerspectiveTransform(np.float32(corners), square)
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    return cv2.warpPerspective(grey, homography, (side, side), flags=cv2.INTER_AREA)


def ink_scores(upright: np.ndarray) -> np.ndarray:
    """Per cell: how much darker than its own paper the cell's centre gets (digit ink)."""
    dark = 255.0 - upright.astype(np.float32)
    scores = np.zeros((9, 9))
    for r in range(9):
        for c in range(9):
            cell = dark[r * CELL : (r + 1) * CELL, c * CELL : (c + 1) * CELL]
            inner = cell[CELL // 6 : -CELL // 6, CELL // 6 : -CELL // 6]
            centre = cell[CELL * 3 // 10 : -CELL * 3 // 10, CELL * 3 // 10 : -CELL * 3 // 10]
            scores[r, c] = np.percentile(centre, 95) - np.median(inner)
    return scores


def line_offsets(upright: np.ndarray) -> list[float]:
    """Pixels from each expected box line (1/3, 2/3) to the darkest column or row near it."""
    dark = 255.0 - upright.astype(np.float32)
    offsets = []
    for profile in (dark.mean(axis=0), dark.mean(axis=1)):
        for k in (3, 6):
            lo, hi = k * CELL - CELL // 2, k * CELL + CELL // 2
            offsets.append(abs(lo + int(np.argmax(profile[lo:hi])) - k * CELL))
    return offsets


def assert_truth_matches(
    image: np.ndarray, corners: np.ndarray, puzzle: np.ndarray, tol: float
) -> None:
    upright = rectify(image, corners)
    assert max(line_offsets(upright)) <= tol * CELL
    scores = ink_scores(upright)
    threshold = (scores[puzzle > 0].min() + scores[puzzle == 0].max()) / 2
    assert scores[puzzle > 0].min() > scores[puzzle == 0].max(), scores.round(0)
    assert threshold > 15


def rotate_clockwise(
    image: np.ndarray, corners: np.ndarray, degrees: int
) -> tuple[np.ndarray, np.ndarray]:
    """Turn an image (and points in it) `degrees` clockwise."""
    points = np.asarray(corners, np.float64).copy()
    for _ in range(degrees // 90):
        h = image.shape[0]
        image = np.rot90(image, k=-1)
        points = np.stack([h - 1 - points[:, 1], points[:, 0]], axis=1)
    return np.ascontiguousarray(image), points


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(17, 40))
def test_random_puzzle_has_one_solution_that_matches(seed: int, clues: int) -> None:
    puzzle, solution = random_puzzle(np.random.default_rng(seed), clues)
    assert count_solutions(puzzle, 2) == 1
    assert np.all((puzzle == 0) | (puzzle == solution))
    assert (puzzle > 0).sum() >= clues
    boxes = solution.reshape(3, 3, 3, 3).transpose(0, 2, 1, 3).reshape(9, 9)
    for unit in (*solution, *solution.T, *boxes):
        assert sorted(unit) == list(range(1, 10))


def test_random_puzzle_is_symmetric_by_default() -> None:
    puzzle, _ = random_puzzle(np.random.default_rng(5))
    assert np.array_equal(puzzle > 0, (puzzle > 0)[::-1, ::-1])


def test_rendered_grid_is_exactly_the_grid() -> None:
    rng = np.random.default_rng(1)
    puzzle, _ = random_puzzle(rng)
    style = GridStyle(size=SIDE)
    image = render_grid(puzzle, rng, style)
    assert image.shape == (SIDE, SIDE, 3) and image.dtype == np.uint8
    corners = np.float32([[0, 0], [SIDE, 0], [SIDE, SIDE], [0, SIDE]]) - 0.5
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    assert grey[0].mean() < 60 and grey[:, -1].mean() < 60
    assert_truth_matches(image, corners, puzzle, tol=0.05)


def test_random_styles_render_every_digit_in_its_cell() -> None:
    rng = np.random.default_rng(2)
    puzzle, _ = random_puzzle(rng, 30)
    for _ in range(6):
        image = render_grid(puzzle, rng, random_style(rng, size=SIDE))
        corners = np.float32([[0, 0], [SIDE, 0], [SIDE, SIDE], [0, SIDE]]) - 0.5
        assert_truth_matches(image, corners, puzzle, tol=0.05)


def test_truetype_fonts_are_used_when_given() -> None:
    pytest.importorskip("PIL")
    fonts = system_fonts()
    if not fonts:
        pytest.skip("no TrueType fonts on this machine")
    rng = np.random.default_rng(3)
    puzzle, _ = random_puzzle(rng)
    styles = [random_style(rng, size=SIDE, font_files=fonts) for _ in range(10)]
    with_file = [s for s in styles if s.font.path]
    assert with_file
    image = render_grid(puzzle, rng, with_file[0])
    corners = np.float32([[0, 0], [SIDE, 0], [SIDE, SIDE], [0, SIDE]]) - 0.5
    assert_truth_matches(image, corners, puzzle, tol=0.05)


def test_same_seed_same_photo() -> None:
    a = synth_photo(11, "hard", size=(640, 480))
    b = synth_photo(11, "hard", size=(640, 480))
    assert np.array_equal(a.image, b.image)
    assert np.array_equal(a.corners, b.corners) and a.rotation == b.rotation
    c = synth_photo(12, "hard", size=(640, 480))
    assert not np.array_equal(a.puzzle, c.puzzle)


@pytest.mark.parametrize(
    ("seed", "difficulty", "tol"),
    [(1, "easy", 0.1), (2, "easy", 0.1), (3, "medium", 0.3), (4, "hard", 0.35)],
)
def test_corners_show_the_puzzle_upright(seed: int, difficulty: str, tol: float) -> None:
    photo = synth_photo(seed, difficulty, size=(800, 600))
    assert photo.image.shape == (600, 800, 3)
    assert photo.corners.shape == (4, 2) and photo.corners.dtype == np.float32
    assert np.all((photo.corners >= 0) & (photo.corners <= [800, 600]))
    assert count_solutions(photo.puzzle, 2) == 1
    assert_truth_matches(photo.image, photo.corners, photo.puzzle, tol)


@pytest.mark.parametrize("rotation", [0, 90, 180, 270])
def test_rotation_turns_the_photo_upright(rotation: int) -> None:
    photo = synth_photo(20 + rotation, "easy", rotation=rotation, size=(640, 480))
    assert photo.rotation == rotation
    assert_truth_matches(photo.image, photo.corners, photo.puzzle, tol=0.1)
    turned, corners = rotate_clockwise(photo.image, photo.corners, rotation)
    tl, tr, br, bl = corners
    assert tl.sum() == min(p.sum() for p in corners)
    assert br.sum() == max(p.sum() for p in corners)
    assert tr[0] > tl[0] and bl[1] > tl[1]
    assert_truth_matches(turned, corners, photo.puzzle, tol=0.1)


def test_place_in_scene_accepts_any_grid_image_and_checks_arguments() -> None:
    rng = np.random.default_rng(7)
    puzzle, solution = random_puzzle(rng)
    grid = render_grid(puzzle, rng, GridStyle(size=500))
    photo = place_in_scene(grid, rng, "easy", puzzle=puzzle, solution=solution, size=(1024, 768))
    assert photo.image.shape == (768, 1024, 3)
    assert np.array_equal(photo.solution, solution)
    assert_truth_matches(photo.image, photo.corners, puzzle, tol=0.1)
    with pytest.raises(ValueError, match="difficulty"):
        place_in_scene(grid, rng, "extreme", puzzle=puzzle, solution=solution)
    with pytest.raises(ValueError, match="rotation"):
        synth_photo(1, rotation=45)


def test_photo_sizes_vary_between_phone_sizes() -> None:
    shapes = {synth_photo(seed, "easy").image.shape[:2] for seed in range(4)}
    assert len(shapes) > 1
    for h, w in shapes:
        assert min(h, w) >= 480 and max(h, w) <= 1600


def test_video_truth_follows_the_schedule(tmp_path: Path) -> None:
    schedule = ((None, 3), (0, 6), (None, 2), (1, 4))
    video = synth_video(5, schedule=schedule, size=(640, 360))
    assert len(video) == 15 and len(video.truth) == 15
    assert [t.puzzle for t in video.truth] == [None] * 3 + [0] * 6 + [None] * 2 + [1] * 4
    assert not np.array_equal(video.puzzles[0], video.puzzles[1])
    frames = list(video)
    assert all(f.shape == (360, 640, 3) and f.dtype == np.uint8 for f in frames)
    assert np.array_equal(frames[4], video.frame(4))
    for index, truth in enumerate(video.truth):
        if truth.puzzle is None:
            assert truth.corners is None
            continue
        assert np.all((truth.corners >= 0) & (truth.corners <= [640, 360]))
        assert_truth_matches(frames[index], truth.corners, video.puzzles[truth.puzzle], tol=0.1)
    steps = [
        np.abs(a.corners - b.corners).max()
        for a, b in zip(video.truth[3:8], video.truth[4:9], strict=True)
    ]
    assert max(steps) < 15, "the page must move smoothly"

    path = video.write(tmp_path / "clip.mp4")
    capture = cv2.VideoCapture(str(path))
    count = 0
    while capture.read()[0]:
        count += 1
    capture.release()
    assert count == len(video)


def test_video_rejects_a_bad_schedule() -> None:
    with pytest.raises(ValueError, match="schedule"):
        synth_video(1, schedule=((1, 5),))
    with pytest.raises(ValueError, match="schedule"):
        synth_video(1, schedule=((0, 0),))


def test_bundled_example_is_small_and_regenerates(tmp_path: Path) -> None:
    assert EXAMPLE_PATH.is_file(), "run sudoku_lens.synth.make_example() to create it"
    assert EXAMPLE_PATH.stat().st_size < 300_000
    bundled = cv2.imread(str(EXAMPLE_PATH))
    photo = make_example(tmp_path / "example.jpg")
    again = cv2.imread(str(tmp_path / "example.jpg"))
    assert again.shape == bundled.shape
    assert np.abs(again.astype(int) - bundled.astype(int)).mean() < 2.0, "regenerate the example"
    assert photo.rotation == 0
    assert_truth_matches(bundled, photo.corners, photo.puzzle, tol=0.3)
