"""Drawing the answer: only empty cells change, each gets its digit, upright, in perspective."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sudoku_lens.draw import (
    DEFAULT_COLOR,
    DEFAULT_DIGIT_HEIGHT,
    composite,
    digit_sprite,
    draw_solution,
    render_overlay,
)
from sudoku_lens.synth import random_puzzle, synth_photo

SIDE = 360
CELL = SIDE // 9


def grid_coordinates(corners: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Image points -> (column, row) in cell units of the upright grid given by `corners`."""
    square = np.float32([[0, 0], [9, 0], [9, 9], [0, 9]])
    homography = cv2.getPerspectiveTransform(np.float32(corners), square)
    return cv2.perspectiveTransform(
        points.reshape(-1, 1, 2).astype(np.float32), homography
    ).reshape(-1, 2)


def changed_pixels(before: np.ndarray, after: np.ndarray) -> np.ndarray:
    ys, xs = np.nonzero(np.any(before != after, axis=2))
    return np.stack([xs, ys], axis=1)


def assert_only_empty_cells_change(before, after, corners, givens, margin=0.08) -> None:
    points = changed_pixels(before, after)
    assert len(points) > 0
    cols, rows = grid_coordinates(corners, points).T
    assert cols.min() > -margin and rows.min() > -margin
    assert cols.max() < 9 + margin and rows.max() < 9 + margin
    c = np.clip(np.floor(cols).astype(int), 0, 8)
    r = np.clip(np.floor(rows).astype(int), 0, 8)
    assert np.all(givens[r, c] == 0), "a given cell was drawn over"
    inside = (np.abs(cols - np.round(cols)) > margin) & (np.abs(rows - np.round(rows)) > margin)
    assert inside.all(), "drawing touches the grid lines"


def read_drawn_digits(before: np.ndarray, after: np.ndarray, corners: np.ndarray) -> np.ndarray:
    """Which digit the drawing put into each cell (0: none), by matching the drawn ink in the
    rectified upright grid against the digit sprites."""
    ink = np.abs(after.astype(np.int16) - before.astype(np.int16)).sum(axis=2).astype(np.float32)
    square = np.float32([[0, 0], [SIDE, 0], [SIDE, SIDE], [0, SIDE]]) - 0.5
    homography = cv2.getPerspectiveTransform(np.float32(corners), square)
    upright = cv2.warpPerspective(ink, homography, (SIDE, SIDE), flags=cv2.INTER_AREA)
    templates = [
        digit_sprite(d, CELL, DEFAULT_DIGIT_HEIGHT, DEFAULT_COLOR)[1].astype(np.float32)
        for d in range(1, 10)
    ]
    found = np.zeros((9, 9), np.uint8)
    for r in range(9):
        for c in range(9):
            cell = upright[r * CELL : (r + 1) * CELL, c * CELL : (c + 1) * CELL]
            if cell.max() < 40:
                continue
            scores = [cv2.matchTemplate(cell, t, cv2.TM_CCOEFF_NORMED)[0, 0] for t in templates]
            found[r, c] = 1 + int(np.argmax(scores))
    return found


@pytest.mark.parametrize(("seed", "rotation"), [(1, 0), (2, 90), (3, 180), (4, 270)])
def test_draws_the_solution_upright_in_the_empty_cells(seed: int, rotation: int) -> None:
    photo = synth_photo(seed, "medium", rotation=rotation, size=(1024, 768))
    before = photo.image.copy()
    after = draw_solution(photo.image, photo.corners, photo.puzzle, photo.solution)
    assert np.array_equal(photo.image, before), "the input must not change"
    assert after.shape == before.shape and after.dtype == np.uint8
    assert_only_empty_cells_change(before, after, photo.corners, photo.puzzle)
    expected = np.where(photo.puzzle == 0, photo.solution, 0)
    assert np.array_equal(read_drawn_digits(before, after, photo.corners), expected)
    drawn = after[np.any(before != after, axis=2)].astype(int)
    strong = drawn[np.abs(drawn - before[np.any(before != after, axis=2)]).sum(axis=1) > 60]
    assert strong[:, 0].mean() > strong[:, 2].mean() + 40, "digits must be drawn in blue"


@settings(max_examples=30, deadline=None)
@given(
    st.lists(st.floats(-0.25, 0.25), min_size=8, max_size=8),
    st.integers(0, 2**32 - 1),
    st.floats(0.4, 0.75),
)
def test_only_pixels_inside_the_grid_and_empty_cells_change(
    jitter: list[float], seed: int, digit_height: float
) -> None:
    w, h = 320, 240
    base = np.float32([[80, 40], [240, 40], [240, 200], [80, 200]])
    corners = base + np.float32(jitter).reshape(4, 2) * 120
    rng = np.random.default_rng(seed)
    puzzle, solution = random_puzzle(rng, 30)
    image = np.full((h, w, 3), 200, np.uint8)
    after = draw_solution(image, corners, puzzle, solution, digit_height=digit_height)
    if np.any(image != after):
        assert_only_empty_cells_change(image, after, corners, puzzle, margin=0.04)


def test_nothing_is_drawn_where_nothing_is_missing() -> None:
    _, solution = random_puzzle(np.random.default_rng(1))
    image = np.full((200, 200, 3), 180, np.uint8)
    corners = np.float32([[20, 20], [180, 20], [180, 180], [20, 180]])
    assert np.array_equal(draw_solution(image, corners, solution, solution), image)


def test_overlay_has_digits_in_empty_cells_only() -> None:
    puzzle, solution = random_puzzle(np.random.default_rng(2))
    bgr, alpha = render_overlay(puzzle, solution, 9 * 30 + 5)
    assert bgr.shape == (270, 270, 3) and alpha.shape == (270, 270)
    coverage = alpha.reshape(9, 30, 9, 30).max(axis=(1, 3))
    assert np.array_equal(coverage > 128, puzzle == 0)


def test_composite_handles_a_grid_partly_outside_the_frame() -> None:
    puzzle, solution = random_puzzle(np.random.default_rng(3))
    bgr, alpha = render_overlay(puzzle, solution, 270)
    image = np.full((100, 150, 3), 255, np.uint8)
    corners = np.float32([[-60, -40], [120, -30], [130, 140], [-50, 150]])
    out = composite(image, bgr, alpha, corners)
    assert out.shape == image.shape and np.any(out != image)
    far = np.float32([[500, 500], [600, 500], [600, 600], [500, 600]])
    assert np.array_equal(composite(image, bgr, alpha, far), image)


def test_bad_arguments_are_refused() -> None:
    puzzle, solution = random_puzzle(np.random.default_rng(4))
    image = np.zeros((50, 50, 3), np.uint8)
    with pytest.raises(ValueError, match="corners"):
        draw_solution(image, np.zeros((3, 2)), puzzle, solution)
    with pytest.raises(ValueError, match="81"):
        draw_solution(image, np.zeros((4, 2)), puzzle[:8], solution)
    with pytest.raises(ValueError, match="BGR"):
        draw_solution(image[..., 0], np.zeros((4, 2)), puzzle, solution)


@pytest.mark.parametrize("cell", [64, 96])
def test_a_ringed_candidate_keeps_clear_space_between_its_digit_and_its_ring(cell: int) -> None:
    """The ring of a pattern's candidate fits its ninth of the cell and does not touch the
    digit inside it, so the digit stays readable (a ring too tight for its digit drew a disc)."""
    from sudoku_lens.draw.hint import candidate_point, render_step
    from sudoku_lens.logic import Step

    candidate = (40, 5)  # r5c5, the middle ninth
    bgra = render_step(Step("x", 1.0, "x", candidates=(candidate,)), cell).astype(int)
    b, g, r, a = (bgra[..., k] for k in range(4))
    green = (g - np.maximum(b, r) > 40) & (a > 128)
    x, y = candidate_point(candidate, cell)
    ys, xs = np.mgrid[: a.shape[0], : a.shape[1]]
    distance = np.hypot(xs + 0.5 - x, ys + 0.5 - y)
    assert green[(distance > cell / 7.5) & (distance < cell / 5.5)].any()  # the ring
    assert green[distance < cell / 14].any()  # the digit
    assert green[(distance > cell / 9) & (distance < cell / 7.5)].mean() < 0.2  # clear between
    assert not green[distance > cell / 5].any()  # within its ninth


def test_a_placed_digit_covers_the_pencil_marks_of_its_cell() -> None:
    """A hint's placed digit stands alone: the candidates drawn under it are covered."""
    from sudoku_lens.draw.hint import _cell_box, draw_step, render_grid
    from sudoku_lens.logic import next_step, parse_state

    state = parse_state(
        "095008006030002000480000000073900050000304000060001790000000075000400020900200830"
    )
    step = next_step(state)
    ((cell, digit),) = step.placements
    assert state.candidate_count(cell) > 1  # pencil marks to cover
    image, corners = render_grid(state)
    drawn = draw_step(image, corners, step, state)
    size = round((corners[1][0] - corners[0][0]) / 9)
    (x0, y0), (x1, y1) = _cell_box(cell, size)
    margin = round(corners[0][0])
    inside = drawn[margin + y0 + 8 : margin + y1 - 8, margin + x0 + 8 : margin + x1 - 8].astype(int)
    grey = np.abs(inside - 90).max(axis=2) < 25  # the pencil marks' grey
    assert grey.sum() == 0


def test_a_link_bows_round_a_solved_cell_it_would_cross() -> None:
    """A chain's link between two cells with a given between them is drawn round the given's
    digit, not through it (a straight line hid the digit; nothing is drawn over it now)."""
    from sudoku_lens.draw.hint import WEAK_LINK, render_step
    from sudoku_lens.logic import Step, parse_state
    from sudoku_lens.logic.step import Link

    state = parse_state(
        "050642030200050008001000600009070500000804000030205090900030005020000070000408000"
    )
    assert state.values[1] == 5 and not state.values[0] and not state.values[2]
    links = (Link((0, 8), (2, 8), False),)  # r1c1=8 to r1c3=8, across r1c2's 5
    cell = 64
    bgra = render_step(Step("x", 1.0, "x", cells=(0, 2), links=links), cell, state).astype(int)
    b, g, r, a = (bgra[..., k] for k in range(4))
    orange = (np.abs(b - WEAK_LINK[0]) < 40) & (np.abs(r - WEAK_LINK[2]) < 40) & (a > 100)
    assert orange.sum() > cell  # the link is drawn
    given = orange[round(0.1 * cell) : round(0.9 * cell), round(1.25 * cell) : round(1.75 * cell)]
    assert not given.any()


def test_a_finned_fish_names_its_fins_and_draws_them_apart_from_its_base() -> None:
    """The fin the sentence names is the cell drawn in its own colour, not like the base."""
    from sudoku_lens.draw.hint import CELL_TINT, FIN_TINT, render_step
    from sudoku_lens.hints import find_hints
    from sudoku_lens.logic import parse_state

    state = parse_state(
        "095008006030002000480000000073900050000304000060001790000000075000400020900200830"
    )
    (step,) = find_hints(state, technique="finned-x-wing")
    assert step.fins == (73,) and "the fin r9c2" in step.explanation  # r9c2
    assert set(step.fins) < set(step.cells) and step.to_json()["fins"] == ["r9c2"]
    cell = 64
    bgra = render_step(step, cell, state).astype(int)

    def tint(member: int) -> np.ndarray:
        row, col = divmod(member, 9)
        corner = bgra[
            row * cell + 4 : row * cell + 8, col * cell + cell - 8 : col * cell + cell - 4
        ]
        return corner[..., :3].reshape(-1, 3).mean(axis=0)

    base = next(member for member in step.cells if member not in step.fins)

    def nearer_to(member: int) -> tuple[int, int, int]:
        return min((FIN_TINT, CELL_TINT), key=lambda c: float(np.abs(tint(member) - c).sum()))

    assert nearer_to(73) == FIN_TINT and nearer_to(base) == CELL_TINT


def notes_page(cell: int = 60) -> tuple[np.ndarray, np.ndarray]:
    """A grid on paper lit unevenly (lighter to the right), with pencil-grey notes pencilled
    small at the keypad places 1, 3, 5, 7 and 9 of cell r4c5 (their middles 0.22 of the cell
    from its lines, as `synth.handwriting` places notes): the image and its corners."""
    side = 9 * cell
    paper = np.linspace(170, 215, side + 2 * cell, dtype=np.float32)[None, :, None]
    page = np.repeat(np.repeat(paper, side + 2 * cell, axis=0), 3, axis=2)
    for k in range(10):
        line = cell + k * cell
        width = 3 if k % 3 == 0 else 1
        page[cell : cell + side + 1, line : line + width] = 40
        page[line : line + width, cell : cell + side + 1] = 40
    image = np.ascontiguousarray(page.astype(np.uint8))
    top, left = cell + 3 * cell, cell + 4 * cell
    face, scale = cv2.FONT_HERSHEY_SIMPLEX, 0.45
    for digit in (1, 3, 5, 7, 9):
        (w, h), _ = cv2.getTextSize(str(digit), face, scale, 1)
        x = left + round((0.22 + 0.28 * ((digit - 1) % 3)) * cell - w / 2)
        y = top + round((0.22 + 0.28 * ((digit - 1) // 3)) * cell + h / 2)
        cv2.putText(image, str(digit), (x, y), face, scale, (95, 95, 100), 1, cv2.LINE_AA)
    corners = np.float32([[cell, cell], [cell + side, cell], [cell + side, cell + side]])
    corners = np.vstack([corners, [[cell, cell + side]]]).astype(np.float32)
    return image, corners


def test_an_answer_over_pencil_notes_stands_on_paper_and_other_cells_are_drawn_as_before() -> None:
    image, corners = notes_page()
    puzzle, solution = random_puzzle(np.random.default_rng(5), 30)
    givens = puzzle.copy()
    givens[3, 4] = givens[0, 0] = 0  # the notes cell and a plain empty cell get their digit
    before = draw_solution(image, corners, givens, solution)
    after = draw_solution(image, corners, givens, solution, notes=((3, 4),))

    # Only the inside of the notes cell changes, clear of its lines (every other cell, the
    # empty cell without notes too, is drawn bit for bit as before).
    cols, rows = grid_coordinates(corners, changed_pixels(before, after)).T
    assert len(cols) > 0
    assert np.all((np.floor(cols) == 4) & (np.floor(rows) == 3))
    assert np.all((np.abs(cols - np.round(cols)) > 0.05) & (np.abs(rows - np.round(rows)) > 0.05))

    # The notes fade to a trace where the digit does not stand: their ink against the paper
    # lit as it is there, against about 80 grey levels before.
    cell = 60
    y0, x0 = cell + 3 * cell, cell + 4 * cell
    box = (slice(y0 + 8, y0 + cell - 8), slice(x0 + 8, x0 + cell - 8))
    notes = np.any(image[box] < 150, axis=2) & np.all(before[box] == image[box], axis=2)
    paper = np.linspace(170, 215, 11 * cell, dtype=np.float32)[x0 + 8 : x0 + cell - 8]
    paper = np.broadcast_to(paper, notes.shape)
    assert notes.sum() > 40
    was = paper[notes] - image[box][notes].mean(axis=1)
    now = paper[notes] - after[box][notes].mean(axis=1)
    assert was.mean() > 60 and now.max() < 0.15 * was.max() + 3
    # the digit is drawn on top: where it is solid, it is as before
    solid = np.all(np.abs(before[box].astype(int) - DEFAULT_COLOR) <= 2, axis=2)
    assert solid.sum() > 100 and np.array_equal(after[box][solid], before[box][solid])


def test_notes_in_a_cell_that_gets_no_digit_are_left_as_they_are() -> None:
    image, corners = notes_page()
    puzzle, solution = random_puzzle(np.random.default_rng(6), 30)
    givens = puzzle.copy()
    givens[3, 4] = solution[3, 4]  # the notes cell holds a digit: nothing is drawn there
    before = draw_solution(image, corners, givens, solution)
    assert np.array_equal(draw_solution(image, corners, givens, solution, notes=((3, 4),)), before)
