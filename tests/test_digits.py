"""The digit reader: cell preparation, the shipped classifier, and orientation from content."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from sudoku_lens.read.digits import (
    BOX,
    MODEL_PATH,
    ORIENT_CELLS,
    SIZE,
    DigitClassifier,
    find_ink,
    find_inks,
    orient,
    orient_prepared,
    prepare_cell,
    rotate_grid,
)

FONTS = (cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_TRIPLEX)

PUZZLE = "600000090096000006000906000069000960000609000096000690000906000900000960060000009"
"""A grid of nothing but 6s and 9s that is its own half turn: turned upside down, every 6 becomes
a 9 and every 9 a 6 in the mirrored cell, so the upside-down photo shows the same puzzle. In a
font whose 9 is a turned 6 (OpenCV's own), upright and upside down cannot be told apart, and need
not be: either reading is the puzzle."""

SUDOKU = "530070000600195000098000060800060003400803001700020006060000280000419005000080079"


def render_cell(
    digit: int,
    *,
    size: int = 56,
    font: int = cv2.FONT_HERSHEY_SIMPLEX,
    scale: float = 1.1,
    thickness: int = 2,
    offset: tuple[int, int] = (0, 0),
    lines: bool = True,
) -> np.ndarray:
    """A grey paper crop with grid lines near its borders and `digit` (0: none) printed in it."""
    cell = np.full((size, size), 225, np.uint8)
    if lines:
        m = size // 10
        for p in (m, size - 1 - m):
            cv2.line(cell, (p, 0), (p, size - 1), 40, 2)
            cv2.line(cell, (0, p), (size - 1, p), 40, 2)
    if digit:
        (w, h), _ = cv2.getTextSize(str(digit), font, scale, thickness)
        org = ((size - w) // 2 + offset[0], (size + h) // 2 + offset[1])
        cv2.putText(cell, str(digit), org, font, scale, 20, thickness, cv2.LINE_AA)
    return cell


def render_grid(puzzle: str, **kwargs: object) -> np.ndarray:
    """A (9, 9, H, W) stack of upright cell crops for an 81-character puzzle."""
    cells = [render_cell(int(ch), **kwargs) for ch in puzzle]
    return np.stack(cells).reshape(9, 9, *cells[0].shape)


def ink_box(image: np.ndarray) -> tuple[int, int, int, int]:
    ys, xs = np.nonzero(image > 0.2)
    return ys.min(), ys.max() + 1, xs.min(), xs.max() + 1


@pytest.mark.parametrize("offset", [(0, 0), (-7, 5), (6, -6)])
def test_prepare_cell_centres_and_scales_the_digit(offset: tuple[int, int]) -> None:
    prepared = prepare_cell(render_cell(4, offset=offset))
    assert prepared.shape == (SIZE, SIZE) and prepared.dtype == np.float32
    assert prepared.min() >= 0.0 and prepared.max() <= 1.0
    y0, y1, x0, x1 = ink_box(prepared)
    assert abs(max(y1 - y0, x1 - x0) - BOX) <= 1
    assert abs((y0 + y1) / 2 - SIZE / 2) <= 1.5 and abs((x0 + x1) / 2 - SIZE / 2) <= 1.5


def test_prepare_cell_blanks_empty_cells() -> None:
    rng = np.random.default_rng(0)
    empty = [
        np.full((50, 50), 200, np.uint8),
        render_cell(0),
        render_cell(0, size=30),
        np.clip(rng.normal(180, 4, (60, 60)), 0, 255).astype(np.uint8),
        np.tile(np.linspace(120, 230, 64, dtype=np.float32), (64, 1)).astype(np.uint8),
    ]
    speck = render_cell(0)
    cv2.circle(speck, (30, 24), 1, 60, -1)
    empty.append(speck)
    for crop in empty:
        assert not prepare_cell(crop).any()


def faint_cell_beside_lines(digit: int, line_at: int) -> np.ndarray:
    """A faint grey digit in a crop cut a little off: dark grid lines `line_at` pixels in from its
    top and left edges, well inside where a digit is looked for."""
    size = 56
    cell = np.full((size, size), 225, np.uint8)
    for p in (line_at, size - 1 - size // 10):
        cv2.line(cell, (p, 0), (p, size - 1), 30, 3)
        cv2.line(cell, (0, p), (size - 1, p), 30, 3)
    (w, h), _ = cv2.getTextSize(str(digit), cv2.FONT_HERSHEY_SIMPLEX, 1.1, 2)
    origin = ((size - w) // 2 + 3, (size + h) // 2 + 3)
    cv2.putText(cell, str(digit), origin, cv2.FONT_HERSHEY_SIMPLEX, 1.1, 185, 2, cv2.LINE_AA)
    return cell


@pytest.mark.parametrize("line_at", [5, 8, 10])
def test_a_dark_line_in_the_crop_does_not_hide_a_faint_digit(line_at: int) -> None:
    cells = [faint_cell_beside_lines(digit, line_at) for digit in range(1, 10)]
    for cell in cells:
        y0, y1, x0, x1 = ink_box(prepare_cell(cell))
        assert abs(max(y1 - y0, x1 - x0) - BOX) <= 1, "the digit, not a line, fills the box"
    read = DigitClassifier.default().predict(cells).argmax(axis=1)
    np.testing.assert_array_equal(read, np.arange(1, 10))


def fading_seven(stem: int) -> np.ndarray:
    """A pen 7 whose bar is dark and whose stem fades to `stem` (grey level on paper of 225), as
    a ballpoint running dry does: alone, the bar is of a digit's size."""
    cell = render_cell(0)
    cv2.line(cell, (17, 13), (38, 13), 20, 2)
    cv2.line(cell, (38, 14), (25, 43), stem, 2)
    return cell


@pytest.mark.parametrize("stem", [140, 160])
def test_a_pen_stroke_that_fades_along_its_length_is_drawn_whole(stem: int) -> None:
    prepared = prepare_cell(fading_seven(stem))
    y0, y1, x0, x1 = ink_box(prepared)
    assert y1 - y0 >= BOX - 1, "the stem is part of the digit, not the bar alone"
    assert x1 - x0 < y1 - y0, "drawn as a 7, taller than wide"


def test_fainter_ink_reaching_the_border_is_not_taken_into_the_digit() -> None:
    """A faint stroke from a digit to the crop's edge (a pen slip, the edge of a shadow) would
    make the digit touch the border: the digit is drawn as it is without it."""
    alone = prepare_cell(render_cell(4, lines=False))
    cell = render_cell(4, lines=False)
    cv2.line(cell, (30, 30), (55, 30), 150, 2)
    assert ink_box(prepare_cell(cell)) == ink_box(alone)


def test_a_digit_written_against_its_cells_border_is_read() -> None:
    """A digit pushed to the right-hand line of its cell, its middle some 0.3 of the crop off
    the crop's centre, is read (taken for an empty cell before)."""
    cell = render_cell(7, scale=0.7, offset=(19, 0))
    assert prepare_cell(cell).any()
    assert DigitClassifier.default().predict([cell]).argmax() == 7


def tall_one_beside_the_line(x: int) -> np.ndarray:
    """A pen 1, one straight stroke of most of the cell's height, at column `x` of a 56-pixel
    crop whose cell's side lines are at 5 and 50: as long as a grid line's piece is in a crop,
    and as close to the line as a person writes against it."""
    cell = render_cell(0)
    cv2.line(cell, (x, 14), (x + 1, 44), 40, 2)
    return cell


@pytest.mark.parametrize("x", [9, 44])
def test_a_tall_1_beside_its_cells_side_line_is_not_taken_for_the_line(x: int) -> None:
    """The stroke stays inside the cell, while a grid line crosses the crop into the neighbouring
    cells: the 1 is read (it was removed with the lines, and the cell taken for pencil notes)."""
    cell = tall_one_beside_the_line(x)
    prepared = prepare_cell(cell)
    assert prepared.any(), "the stroke is a digit, not a grid line"
    y0, y1, x0, x1 = ink_box(prepared)
    assert y1 - y0 >= BOX - 1 and x1 - x0 < (y1 - y0) / 2, "drawn whole, as a tall 1"
    assert DigitClassifier.default().predict([cell]).argmax() == 1


def pressed_against_the_line(digit: int) -> np.ndarray:
    """A light pen 7 whose bar touches the top line of its cell, or 2 whose foot touches the
    bottom line, blurred as in a photo: the stroke runs along the line, inside the cell."""
    cell = np.full((56, 56), 225, np.uint8)
    for p in (5, 49):
        cell[:, p : p + 2] = 40
        cell[p : p + 2, :] = 40
    if digit == 7:
        cv2.line(cell, (17, 7), (37, 7), 120, 2)
        cv2.line(cell, (37, 7), (25, 44), 120, 2)
    else:
        curve = np.int32([[18, 18], [22, 12], [30, 11], [36, 16], [34, 26], [18, 48]])
        cv2.polylines(cell, [curve], False, 120, 2, cv2.LINE_AA)
        cv2.line(cell, (18, 48), (38, 48), 120, 2)
    return cv2.GaussianBlur(cell, (0, 0), 1.0)


@pytest.mark.parametrize("digit", [7, 2])
def test_a_stroke_pressed_against_its_cells_line_is_kept(digit: int) -> None:
    """The line is removed a pixel wider than found, with its blurred edge: the stroke beside it
    went with it, and the 7 was read as a 1, the 2 as a 7. The stroke ends inside the cell while
    a line's edge runs on to the crop's ends, so it is given back; the same at the side lines."""
    cell = pressed_against_the_line(digit)
    upright = [np.rot90(prepare_cell(np.rot90(cell, k)), -k) for k in range(4)]
    read = DigitClassifier.default().predict_prepared(np.stack(upright)).argmax(axis=1)
    np.testing.assert_array_equal(read, digit)


def test_a_grid_line_remnant_beside_a_digit_is_not_taken_for_it(wicht_data: Path) -> None:
    """In image1020 of the mixed photos a piece of grid line lies as far out as a digit written
    against its cell's border, and is larger than the small 6 in the middle of r9c9: the 6 is
    read, as pieces that far out are looked at only when the middle holds no digit."""
    from sudoku_lens.read.reader import read_photo

    reading = read_photo(wicht_data / "mixed" / "image1020.jpg")
    assert reading.grid[8, 8] == 6


def pen_stroke_with_faint_joins(gap: int) -> np.ndarray:
    """A thin pen 1 whose stroke fades at two joins, as a ballpoint does: three dark pieces, each
    too short to be taken for a digit alone, `gap` pixels apart along a stroke a third as dark."""
    cell = render_cell(0)
    cv2.line(cell, (28, 10), (28, 46), 175, 2)
    for top in (10, 10 + 12 + gap // 2, 10 + 24 + gap):
        cv2.line(cell, (28, top), (28, top + 12 - gap), 40, 2)
    return cell


@pytest.mark.parametrize("gap", [4, 6])
def test_a_pen_stroke_that_fades_at_its_joins_is_one_digit(gap: int) -> None:
    prepared = prepare_cell(pen_stroke_with_faint_joins(gap))
    assert prepared.any(), "the pieces together are a digit"
    y0, y1, _, _ = ink_box(prepared)
    assert y1 - y0 >= BOX - 1, "the whole stroke is the digit, not one piece of it"
    assert (prepared[y0:y1].max(axis=1) > 0.1).all(), "the faint joins are drawn too"


def seven_faint_at_its_joins_beside_a_neighbours_stroke() -> np.ndarray:
    """A thin pen 7 whose stroke fades at its joins: five dark pieces, each too short to be taken
    for a digit alone, along a stroke a third as dark; in the crop's margin, beyond the cell's
    left line, the end of a dark stroke of the neighbouring cell's digit, as a crop cut with a
    margin holds."""
    cell = render_cell(0)
    cv2.line(cell, (16, 12), (38, 12), 160, 2)
    cv2.line(cell, (38, 12), (26, 44), 160, 2)
    pieces = [
        (16, 12, 21, 12),
        (27, 12, 32, 12),
        (37, 16, 35, 22),
        (33, 28, 31, 34),
        (29, 39, 27, 44),
    ]
    for x0, y0, x1, y1 in pieces:
        cv2.line(cell, (x0, y0), (x1, y1), 40, 2)
    cv2.line(cell, (2, 16), (2, 38), 40, 3)
    return cell


@pytest.mark.parametrize("turns", range(4))
def test_a_digit_faint_at_its_joins_is_read_beside_a_neighbours_stroke(turns: int) -> None:
    """The pieces joined through the 7's fainter ink must hold nearly all of the darker ink; the
    neighbour's stroke in the crop's margin held nearly a third of it, and the cell was taken
    for an empty one (as were 8 of the 92 pen entries misread on generated seeds 10001-10040
    and 20001-20080: thin strokes beside a neighbour's digit or the crossings of the lines).
    The cell holds nothing but the 7, which is read."""
    cell = np.rot90(seven_faint_at_its_joins_beside_a_neighbours_stroke(), turns)
    upright = np.rot90(prepare_cell(cell), -turns)
    assert upright.any(), "the 7 is found"
    y0, y1, _, _ = ink_box(upright)
    assert y1 - y0 >= BOX - 1, "drawn whole, not one piece of it"
    assert DigitClassifier.default().predict_prepared(upright[None]).argmax() == 7


@pytest.mark.parametrize("ink", [40, 120])
def test_pencil_notes_are_no_digit(ink: int) -> None:
    """Small candidate digits in the corners and middle of a cell, each far too small to be an
    entry, are not joined into one."""
    cell = render_cell(0)
    places = [(12, 18), (36, 18), (24, 32), (12, 46), (36, 46)]
    for digit, (x, y) in zip("15937", places, strict=True):
        cv2.putText(cell, digit, (x, y), cv2.FONT_HERSHEY_SIMPLEX, 0.3, ink, 1, cv2.LINE_AA)
    assert not prepare_cell(cell).any()


def in_shadow(cell: np.ndarray, light: float, degrees: float, edge: float) -> np.ndarray:
    """`cell` with its lower side in a shadow that leaves `light` of the light: the shadow's edge,
    `edge` pixels wide, runs through the crop's centre at `degrees` from the rows."""
    h, w = cell.shape
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    angle = np.radians(degrees)
    across = (y - h / 2) * np.cos(angle) - (x - w / 2) * np.sin(angle)
    shade = np.clip(0.5 + across / edge, 0.0, 1.0) * (1.0 - light)
    return np.rint(cell * (1.0 - shade)).astype(np.uint8)


@pytest.mark.parametrize("degrees", [-37, 20, 37, 60])
@pytest.mark.parametrize(("light", "edge"), [(0.5, 2.0), (0.3, 8.0)])
def test_a_shadows_edge_across_a_digit_does_not_cut_it(
    light: float, edge: float, degrees: float
) -> None:
    """A shadow's edge across grey print, as on a photo (ink 100 on paper 180): the shadowed
    strokes are as dark beside the paper around them as the lit ones, and the digit is drawn
    whole. Its shadowed part was fainter than the digit's threshold, and the rest alone was read
    as another digit or none (a 6 as a 5, an 8 as a 3, a 9 as a 7 on the validation photos)."""
    lit = [np.interp(render_cell(d), [20, 225], [100, 180]).astype(np.uint8) for d in range(1, 10)]
    shadowed = [in_shadow(cell, light, degrees, edge) for cell in lit]
    for cell, shaded in zip(lit, shadowed, strict=True):
        assert np.abs(prepare_cell(shaded) - prepare_cell(cell)).mean() < 0.1
    read = DigitClassifier.default().predict(shadowed).argmax(axis=1)
    np.testing.assert_array_equal(read, np.arange(1, 10))


def test_find_inks_reads_each_crop_as_it_reads_it_alone() -> None:
    """The crops of a grid are filtered side by side in one image: a crop's dark border beside
    its neighbour's, grain up to its edges, a shadowed crop, a colour one and one of another
    size must each come out as they do alone, in any order."""
    dark_edges = render_cell(0)
    dark_edges[:, :4] = dark_edges[:, -4:] = dark_edges[:4] = dark_edges[-4:] = 0
    lit = np.interp(render_cell(6), [20, 225], [100, 180]).astype(np.uint8)
    crops = [
        render_cell(8, size=48),
        dark_edges,
        render_cell(0, size=48),
        in_shadow(lit, 0.3, 37, 8.0),
        pressed_against_the_line(2),
        cv2.cvtColor(render_cell(3), cv2.COLOR_GRAY2BGR),
        render_cell(1, size=30),
        np.zeros((48, 48), np.uint8),
        np.random.default_rng(0).integers(120, 230, (48, 48)).astype(np.uint8),
    ]
    alone = [find_ink(crop) for crop in crops]
    assert all(alone[i].mask is not None for i in (0, 3, 4, 5, 6))  # the digits
    for order in (range(len(crops)), range(len(crops) - 1, -1, -1)):
        together = find_inks([crops[i] for i in order])
        for i, found in zip(order, together, strict=True):
            np.testing.assert_array_equal(found.ink, alone[i].ink)
            assert found.level == alone[i].level
            if alone[i].mask is None:
                assert found.mask is None
            else:
                np.testing.assert_array_equal(found.mask, alone[i].mask)


def test_crops_labelled_side_by_side_are_numbered_as_alone() -> None:
    """The digit's pieces of a grid's crops are labelled in one image: each crop's components,
    their boxes and areas are those OpenCV finds in it alone, numbered in the same order (the
    largest piece is the first of equals)."""
    from sudoku_lens.read.digits import WORK, _labelled

    rng = np.random.default_rng(2)
    masks = rng.random((6, WORK, WORK)) < rng.uniform(0.2, 0.6, (6, 1, 1))
    count, labels, stats = _labelled(masks, stats=True)
    for i, mask in enumerate(masks):
        alone, alone_labels, alone_stats, _ = cv2.connectedComponentsWithStats(
            mask.view(np.uint8), connectivity=8
        )
        mine = np.flatnonzero(stats[:, 5] == i) + 1
        assert len(mine) == alone - 1
        numbered = np.zeros(count, np.int32)
        numbered[mine] = np.arange(1, alone)
        np.testing.assert_array_equal(numbered[labels[i]], alone_labels)
        np.testing.assert_array_equal(stats[mine - 1, :5], alone_stats[1:])


def test_the_paper_found_side_by_side_is_opencvs_for_each_crop_alone() -> None:
    """The ink (`_ink`: a blur, then a closing with the crop's border replicated, filtered with
    the grid's other crops side by side) is what OpenCV gives each crop alone, up to its edges."""
    from sudoku_lens.read.digits import _BG_KERNEL, _ink

    rng = np.random.default_rng(0)
    crops = np.stack([rng.integers(120, 230, (48, 48)).astype(np.uint8) for _ in range(3)])
    crops[1, :, :5] = 0
    for crop, ink in zip(crops, _ink(crops), strict=True):
        gray = cv2.GaussianBlur(crop, (3, 3), 0.6)
        paper = cv2.morphologyEx(gray, cv2.MORPH_CLOSE, _BG_KERNEL, borderType=cv2.BORDER_REPLICATE)
        np.testing.assert_array_equal(ink, cv2.subtract(paper, gray))


def test_prepare_cell_turns_with_the_crop() -> None:
    crop = render_cell(7, offset=(3, -2))
    for k in range(1, 4):
        turned = prepare_cell(np.rot90(crop, -k))
        assert np.abs(turned - np.rot90(prepare_cell(crop), -k)).mean() < 0.02


def test_prepare_cell_accepts_colour_and_tiny_crops() -> None:
    colour = cv2.cvtColor(render_cell(3), cv2.COLOR_GRAY2BGR)
    assert prepare_cell(colour).any()
    assert prepare_cell(np.zeros((3, 2), np.uint8)).shape == (SIZE, SIZE)


def test_model_ships_small_and_loads_once() -> None:
    assert MODEL_PATH.is_file() and MODEL_PATH.stat().st_size < 2 * 1024 * 1024
    first = DigitClassifier.default()
    assert DigitClassifier.default() is first
    assert DigitClassifier.default().session is first.session


def test_predict_returns_probabilities() -> None:
    probs = DigitClassifier.default().predict([render_cell(d) for d in range(10)])
    assert probs.shape == (10, 10) and probs.dtype == np.float32
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, atol=1e-4)
    assert DigitClassifier.default().predict([]).shape == (0, 10)


def test_classifier_reads_rendered_digits() -> None:
    cells, truth = [], []
    for font in FONTS:
        for size, scale, thickness in ((40, 0.75, 1), (56, 1.1, 2), (72, 1.4, 2), (72, 1.5, 4)):
            for digit in range(10):
                cells.append(
                    render_cell(digit, size=size, font=font, scale=scale, thickness=thickness)
                )
                truth.append(digit)
    read = DigitClassifier.default().predict(cells).argmax(axis=1)
    truth = np.array(truth)
    assert np.mean(read == truth) >= 0.95
    assert np.all(read[truth == 0] == 0)
    assert np.all(read[truth != 0] != 0)


@pytest.mark.parametrize("k", range(4))
def test_orient_finds_the_turn_that_makes_it_upright(k: int) -> None:
    upright = render_grid(SUDOKU)
    seen = rotate_grid(upright, (4 - k) % 4)
    found, probs = orient(list(seen.reshape(81, *seen.shape[2:])))
    assert found == k
    assert probs.shape == (9, 9, 10)
    expected = np.array([int(c) for c in SUDOKU]).reshape(9, 9)
    assert np.mean(probs.argmax(axis=2) == expected) >= 0.97


def test_the_grid_of_6s_and_9s_is_its_own_half_turn() -> None:
    grid = np.array([int(c) for c in PUZZLE]).reshape(9, 9)
    swapped = np.where(grid == 6, 9, np.where(grid == 9, 6, grid))
    np.testing.assert_array_equal(np.rot90(grid, 2), swapped)


@pytest.mark.parametrize("k", range(4))
def test_orient_reads_a_grid_of_6s_and_9s_whichever_way_up(k: int) -> None:
    upright = render_grid(PUZZLE)
    seen = rotate_grid(upright, (4 - k) % 4)
    found, probs = orient(list(seen.reshape(81, *seen.shape[2:])))
    assert found in (k, (k + 2) % 4), "a sideways turn was taken for upright"
    expected = np.array([int(c) for c in PUZZLE]).reshape(9, 9)
    assert np.mean(probs.argmax(axis=2) == expected) >= 0.97


def test_orient_needs_81_cells() -> None:
    with pytest.raises(ValueError, match="81 cells"):
        orient([render_cell(1)] * 80)


def test_orient_of_an_empty_grid_is_upright_and_empty() -> None:
    k, probs = orient([render_cell(0)] * 81)
    assert k == 0 and np.all(probs.argmax(axis=2) == 0)


class HesitantReader:
    """A stand-in digit model that reads every filled cell as a 5, with probability `upright`
    the right way up (told by a mark in the top-left corner of the upright image) and `turned`
    in the other three turns; it counts the images it is given."""

    def __init__(self, upright: float, turned: float) -> None:
        self.upright, self.turned = upright, turned
        self.images = 0

    def predict_with_pen(self, images: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        self.images += len(images)
        five = np.where(images[:, 0, 0] > 0.75, self.upright, self.turned)
        probabilities = np.zeros((len(images), 10), np.float32)
        probabilities[:, 5], probabilities[:, 0] = five, 1 - five
        return probabilities, np.zeros(len(images), np.float32)

    def blank_probabilities(self) -> np.ndarray:
        return np.eye(10, dtype=np.float32)[0]


@pytest.mark.parametrize(
    ("lead", "cells_read_four_ways"), [(0.4, ORIENT_CELLS), (0.2, 2 * ORIENT_CELLS), (0.01, 81)]
)
@pytest.mark.parametrize("k", [1, 2])
def test_orient_reads_more_cells_four_ways_only_while_the_turn_is_in_doubt(
    lead: float, cells_read_four_ways: int, k: int
) -> None:
    """Each cell read the right way up leads the other turns by `lead` (log-confidence): 0.4
    settles the turn on the first cells, 0.2 only on twice as many, 0.01 not before every cell
    has been read four ways; the rest are read once, in the turn found."""
    marked = np.full((9, 9, SIZE, SIZE), 0.5, np.float32)
    marked[:, :, 0, 0] = 1.0
    as_photographed = rotate_grid(marked, 4 - k).reshape(81, SIZE, SIZE)
    reader = HesitantReader(upright=0.5 * np.exp(lead), turned=0.5)
    turns, probabilities, _ = orient_prepared(as_photographed, reader)
    assert turns == k
    assert np.all(probabilities.argmax(axis=2) == 5)
    assert reader.images == 4 * cells_read_four_ways + (81 - cells_read_four_ways)


def test_reads_validation_photos_along_their_training_lattices(wicht_data: Path) -> None:
    from sudoku_lens.train.photos import cut_cells, load_photos

    photos = [p for p in load_photos(wicht_data) if p.validation][:6]
    wrong = 0
    for photo in photos:
        location = cut_cells(photo.read_image(), photo)
        _, probs = orient(location.cells, ink_colour=location.ink_colour)
        wrong += int(np.sum(probs.argmax(axis=2) != photo.labels))
    assert wrong <= 2
