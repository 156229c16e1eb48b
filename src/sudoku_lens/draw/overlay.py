"""Draw the answer into the photo: digits rendered upright, then warped onto the page.

Wrong entries of the person's own get a red ring around their digit, with the right digit small
in the cell's top-right corner; a cell whose pencilled candidates leave out the answer gets a
purple frame along its lines, which leaves the candidates legible; every other cell the person
wrote in is left untouched. Entries
the photo does not show (typed in, or placed by earlier hints) are drawn in the pen style of the
web page's entries, a light italic in its pen blue, apart from the answer's bold upright digits.
A cell of pencil notes that gets a digit is first covered by a patch of its paper (`draw.paper`).

The digits are drawn into a square canvas that stands for the rectified grid (one sprite per
digit, rendered once four times larger and reduced, then cached), and the canvas is warped into
the photo with the homography from the grid's corners and alpha-blended. Only the grid's bounding
box is warped, so a 1280x720 frame costs a few milliseconds, which live mode needs.
"""

from __future__ import annotations

import functools

import cv2
import numpy as np

from sudoku_lens.draw.paper import cover_cells

DEFAULT_COLOR: tuple[int, int, int] = (205, 80, 10)
"""A strong blue (BGR): stands out on grey newsprint and from black or red printed digits."""

DEFAULT_DIGIT_HEIGHT = 0.58
"""Digit height as a fraction of the cell, like typical printed givens."""

WRONG_COLOR: tuple[int, int, int] = (30, 30, 215)
"""Red (BGR) of the marks on wrong entries."""

UNSURE_COLOR: tuple[int, int, int] = (0, 130, 240)
"""Orange (BGR) of the marks on entries read too unclearly to check."""

CANDIDATES_COLOR: tuple[int, int, int] = (170, 30, 160)
"""Purple (BGR) of the frame around candidates that leave out the answer: apart from the red
of wrong entries, the orange of unsure ones and the blue of the answer."""

ENTRY_COLOR: tuple[int, int, int] = (216, 78, 29)
"""The pen blue (BGR) of the web page's entries (#1d4ed8), for the person's own digits."""

_SUPERSAMPLE = 4
_RING_RADIUS, _RING_WIDTH = 0.37, 0.055
"""The ring around a marked entry: radius and stroke width, as fractions of the cell."""
_FRAME_INSET, _FRAME_WIDTH = 0.06, 0.045
"""The frame around wrong candidates: how far inside the cell's lines it stands and its stroke
width, as fractions of the cell (the candidates stand further in)."""
_SMALL_HEIGHT = 0.4
"""Height of the sign beside a marked entry (the right digit, or ?), as a fraction of the cell."""
_FACE = cv2.FONT_HERSHEY_SIMPLEX
_PEN_FACE = cv2.FONT_HERSHEY_SCRIPT_SIMPLEX
"""An italic face: drawn light (thickness 1), it looks written with a pen, as the page's
entries do."""
_MIN_CELL, _MAX_CELL, _CELL_STEP = 12, 160, 4


def _check(givens: np.ndarray, solution: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    g = np.asarray(givens)
    s = np.asarray(solution)
    if g.size != 81 or s.size != 81:
        raise ValueError("givens and solution must each hold 81 cells (9x9)")
    return g.reshape(9, 9), s.reshape(9, 9)


def _edge_color(color: tuple[int, int, int]) -> tuple[int, int, int]:
    blue, green, red = (int(round(c * 0.6)) for c in color)
    return blue, green, red


def digit_sprite(
    digit: int, cell: int, height: float, color: tuple[int, int, int]
) -> tuple[np.ndarray, np.ndarray]:
    """One cell (cell x cell) with `digit` centred: BGR uint8 and alpha uint8, cached.

    The digit is `height` (fraction of the cell) tall, bold, filled with `color` and ringed by a
    slightly darker anti-aliased edge; outside the digit the colour is the edge colour, so
    interpolation while warping never brings in a foreign fringe.
    """
    # OpenCV 5 draws its fonts at a weight set by the thickness: 2 is bold
    return _glyph_sprite(str(digit), cell, height, color, _FACE, 2)


def entry_sprite(
    digit: int, cell: int, height: float, color: tuple[int, int, int] = ENTRY_COLOR
) -> tuple[np.ndarray, np.ndarray]:
    """One cell with the person's own `digit` as a pen writes it: a light italic, `height` tall,
    in the page's pen blue (see `digit_sprite` for the rest), cached."""
    return _glyph_sprite(str(digit), cell, height, color, _PEN_FACE, 1)


@functools.lru_cache(maxsize=512)
def _glyph_sprite(
    text: str, cell: int, height: float, color: tuple[int, int, int], face: int, weight: int
) -> tuple[np.ndarray, np.ndarray]:
    """A cell sprite of `text` in `face` at `weight` (OpenCV's thickness), centred, its "8"
    `height` (fraction of the cell) tall."""
    big = cell * _SUPERSAMPLE
    target = height * big
    (_, ref_h), _ = cv2.getTextSize("8", face, 1.0, 1)
    scale = target / ref_h
    stroke = max(1, round(0.03 * target))
    fill = np.zeros((big, big), np.uint8)
    (w, h), _ = cv2.getTextSize(text, face, scale, weight)
    origin = ((big - w) // 2, (big + h) // 2)
    cv2.putText(fill, text, origin, face, scale, 255, weight, cv2.LINE_AA)
    ys, xs = np.nonzero(fill > 127)
    if len(xs):
        shift_x = big / 2 - (xs.min() + xs.max() + 1) / 2
        shift_y = big / 2 - (ys.min() + ys.max() + 1) / 2
        move = np.float32([[1, 0, shift_x], [0, 1, shift_y]])
        fill = cv2.warpAffine(fill, move, (big, big), flags=cv2.INTER_LINEAR)
    return _sprite(fill, cell, stroke, color)


def wrong_sprite(
    expected: int, cell: int, color: tuple[int, int, int] = WRONG_COLOR
) -> tuple[np.ndarray, np.ndarray]:
    """One cell (cell x cell) marking a wrong entry: a ring around the cell's middle, broken
    where the `expected` digit stands small in the top-right corner, or whole with `expected`
    0 (a check that must not give the answer away). BGR uint8 and alpha uint8, cached; the
    colour outside the marks is their edge colour (see `digit_sprite`)."""
    return _ring_sprite(str(expected) if expected else "", cell, color)


def unsure_sprite(
    cell: int, color: tuple[int, int, int] = UNSURE_COLOR
) -> tuple[np.ndarray, np.ndarray]:
    """One cell (cell x cell) marking an entry read too unclearly to check: the ring of
    `wrong_sprite` with a question mark where the right digit would stand."""
    return _ring_sprite("?", cell, color)


@functools.lru_cache(maxsize=64)
def candidates_sprite(
    cell: int, color: tuple[int, int, int] = CANDIDATES_COLOR
) -> tuple[np.ndarray, np.ndarray]:
    """One cell (cell x cell) marking pencilled candidates that leave out the answer: a frame
    with rounded corners just inside the cell's lines, clear of the candidates and of a digit
    drawn in the middle. BGR uint8 and alpha uint8, cached (see `digit_sprite`)."""
    big = cell * _SUPERSAMPLE
    frame = np.zeros((big, big), np.uint8)
    width = max(1, round(_FRAME_WIDTH * big))
    inset = round(_FRAME_INSET * big) + width // 2
    corner = round(0.12 * big)
    far = big - 1 - inset
    for (x0, y0), (x1, y1) in (
        ((inset + corner, inset), (far - corner, inset)),
        ((inset + corner, far), (far - corner, far)),
        ((inset, inset + corner), (inset, far - corner)),
        ((far, inset + corner), (far, far - corner)),
    ):
        cv2.line(frame, (x0, y0), (x1, y1), 255, width, cv2.LINE_AA)
    for centre, angle in (
        ((inset + corner, inset + corner), 180),
        ((far - corner, inset + corner), 270),
        ((far - corner, far - corner), 0),
        ((inset + corner, far - corner), 90),
    ):
        cv2.ellipse(frame, centre, (corner, corner), angle, 0, 90, 255, width, cv2.LINE_AA)
    return _sprite(frame, cell, max(1, width // 3), color)


@functools.lru_cache(maxsize=64)
def _ring_sprite(
    sign: str, cell: int, color: tuple[int, int, int]
) -> tuple[np.ndarray, np.ndarray]:
    big = cell * _SUPERSAMPLE
    ring = np.zeros((big, big), np.uint8)
    width = max(1, round(_RING_WIDTH * big))
    cv2.circle(ring, (big // 2, big // 2), round(_RING_RADIUS * big), 255, width, cv2.LINE_AA)
    small = np.zeros((big, big), np.uint8)
    if not sign:
        return _sprite(ring, cell, max(1, width // 3), color)
    (_, ref_h), _ = cv2.getTextSize("8", _FACE, 1.0, 1)
    scale = _SMALL_HEIGHT * big / ref_h
    (w, h), _ = cv2.getTextSize(sign, _FACE, scale, 2)
    inset = round(0.05 * big)
    cv2.putText(small, sign, (big - inset - w, inset + h), _FACE, scale, 255, 2, cv2.LINE_AA)
    gap = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (4 * width + 1, 4 * width + 1))
    ring[cv2.dilate(small, gap) > 0] = 0
    return _sprite(np.maximum(ring, small), cell, max(1, width // 3), color)


def _sprite(
    fill: np.ndarray, cell: int, stroke: int, color: tuple[int, int, int]
) -> tuple[np.ndarray, np.ndarray]:
    """A read-only cell sprite (BGR, alpha) from a supersampled mask of its marks: the marks in
    `color`, ringed by an edge `stroke` supersampled pixels wide in a darker shade, and that
    shade outside them (see `digit_sprite`)."""
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * stroke + 1, 2 * stroke + 1))
    edge = cv2.dilate(fill, kernel)
    fill_a = cv2.resize(fill, (cell, cell), interpolation=cv2.INTER_AREA).astype(np.float32) / 255
    edge_a = cv2.resize(edge, (cell, cell), interpolation=cv2.INTER_AREA).astype(np.float32) / 255
    inner = np.divide(fill_a, edge_a, out=np.zeros_like(fill_a), where=edge_a > 0)
    main = np.asarray(color, np.float32)
    dark = np.asarray(_edge_color(color), np.float32)
    sprite = np.clip(dark + (main - dark) * inner[..., None] + 0.5, 0, 255).astype(np.uint8)
    alpha = np.clip(edge_a * 255 + 0.5, 0, 255).astype(np.uint8)
    sprite.setflags(write=False)
    alpha.setflags(write=False)
    return sprite, alpha


def render_overlay(
    givens: np.ndarray,
    solution: np.ndarray,
    size: int,
    *,
    color: tuple[int, int, int] = DEFAULT_COLOR,
    digit_height: float = DEFAULT_DIGIT_HEIGHT,
    wrong: tuple[tuple[int, int, int], ...] = (),
    unsure: tuple[tuple[int, int], ...] = (),
    entries: tuple[tuple[int, int, int], ...] = (),
    wrong_candidates: tuple[tuple[int, int], ...] = (),
    unsure_candidates: tuple[tuple[int, int], ...] = (),
) -> tuple[np.ndarray, np.ndarray]:
    """The upright rectified grid's overlay: (bgr (S,S,3) uint8, alpha (S,S) uint8), S = 9 cells.

    `size` is rounded down to a multiple of 9; each empty cell of `givens` gets the digit of
    `solution`, `digit_height` (fraction of the cell) tall. Each (row, col, digit) of `entries`
    is a person's entry the photo does not show: its cell gets `digit` in pen (`entry_sprite`)
    instead of any answer. Each (row, col, expected) of `wrong` is a wrong entry: its cell gets
    `wrong_sprite`'s marks (over the entry's digit where `entries` draws one), the right digit
    left out where `expected` is 0 (give it a nonzero `givens` cell, as the person's digit is
    there); each (row, col) of `unsure` an entry read too unclearly to check, marked by
    `unsure_sprite`; each (row, col) of `wrong_candidates` a cell whose candidates leave out the
    answer, framed by `candidates_sprite` (over the answer drawn there, if any), and each of
    `unsure_candidates` a cell whose candidates were read too unclearly to check, framed alike
    in the orange of unsure entries.
    """
    g, s = _check(givens, solution)
    cell = max(1, int(size) // 9)
    side = 9 * cell
    blue, green, red = (int(c) for c in color)
    ink = (blue, green, red)
    bgr = np.empty((side, side, 3), np.uint8)
    bgr[:] = _edge_color(ink)
    alpha = np.zeros((side, side), np.uint8)
    sprites = {
        (r, c): digit_sprite(int(s[r, c]), cell, float(digit_height), ink)
        for r, c in zip(*np.nonzero((g == 0) & (s >= 1) & (s <= 9)), strict=True)
    }
    sprites |= {
        (int(r), int(c)): entry_sprite(int(digit), cell, float(digit_height))
        for r, c, digit in entries
    }
    for (r, c), (sprite, sprite_alpha) in sprites.items():
        bgr[r * cell : (r + 1) * cell, c * cell : (c + 1) * cell] = sprite
        alpha[r * cell : (r + 1) * cell, c * cell : (c + 1) * cell] = sprite_alpha
    marks = [(r, c, wrong_sprite(int(expected), cell)) for r, c, expected in wrong]
    marks += [(r, c, unsure_sprite(cell)) for r, c in unsure]
    marks += [(int(r), int(c), candidates_sprite(cell)) for r, c in wrong_candidates]
    marks += [(int(r), int(c), candidates_sprite(cell, UNSURE_COLOR)) for r, c in unsure_candidates]
    for r, c, (sprite, sprite_alpha) in marks:
        rows, cols = slice(r * cell, (r + 1) * cell), slice(c * cell, (c + 1) * cell)
        if (r, c) in sprites:
            _lay_over(bgr[rows, cols], alpha[rows, cols], sprite, sprite_alpha)
        else:
            bgr[rows, cols] = sprite
            alpha[rows, cols] = sprite_alpha
    return bgr, alpha


def _lay_over(
    bgr: np.ndarray, alpha: np.ndarray, sprite: np.ndarray, sprite_alpha: np.ndarray
) -> None:
    """Lay a sprite over a cell of the overlay already drawn (`bgr`, `alpha`, changed in
    place), as one layer of paint over another."""
    top = sprite_alpha.astype(np.float32)[..., None] / 255
    under = alpha.astype(np.float32)[..., None] / 255 * (1 - top)
    total = top + under
    mixed = np.divide(
        sprite * top + bgr * under, total, out=sprite.astype(np.float32), where=total > 0
    )
    bgr[:] = np.clip(mixed + 0.5, 0, 255).astype(np.uint8)
    alpha[:] = np.clip(total[..., 0] * 255 + 0.5, 0, 255).astype(np.uint8)


def composite(
    image: np.ndarray, overlay: np.ndarray, alpha: np.ndarray, corners: np.ndarray
) -> np.ndarray:
    """A copy of `image` with the square `overlay` warped onto the quadrilateral `corners`
    (TL, TR, BR, BL of the upright grid, image pixel coordinates) and alpha-blended.

    Only the corners' bounding box (clipped to the image) is warped and blended.
    """
    return composite_bgra(image, cv2.merge([*cv2.split(overlay), alpha]), corners)


def composite_bgra(image: np.ndarray, bgra: np.ndarray, corners: np.ndarray) -> np.ndarray:
    """`composite` with the overlay and its alpha in one BGRA array (one warp instead of two)."""
    out = image.copy()
    quad = np.asarray(corners, np.float32).reshape(4, 2)
    h, w = image.shape[:2]
    x0 = int(max(0, np.floor(quad[:, 0].min())))
    y0 = int(max(0, np.floor(quad[:, 1].min())))
    x1 = int(min(w, np.ceil(quad[:, 0].max()) + 1))
    y1 = int(min(h, np.ceil(quad[:, 1].max()) + 1))
    if x1 <= x0 or y1 <= y0:
        return out
    e = bgra.shape[0] - 0.5
    square = np.float32([[-0.5, -0.5], [e, -0.5], [e, e], [-0.5, e]])
    homography = cv2.getPerspectiveTransform(square, quad - np.float32([x0, y0]))
    warped = cv2.warpPerspective(
        bgra, homography, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR, borderValue=0
    )
    weight = warped[..., 3].astype(np.float32)
    weight *= np.float32(1.0 / 255.0)
    roi = out[y0:y1, x0:x1]
    out[y0:y1, x0:x1] = cv2.blendLinear(warped[..., :3], roi, weight, 1.0 - weight)
    return out


def overlay_size(corners: np.ndarray) -> int:
    """A canvas side for `corners`: about the grid's longest side, in steps of 9 * 4 pixels so
    a grid moving slightly between frames keeps the same cached sprites."""
    quad = np.asarray(corners, np.float32).reshape(4, 2)
    longest = float(np.max(np.linalg.norm(quad - np.roll(quad, 1, axis=0), axis=1)))
    cell = int(round(longest / 9 / _CELL_STEP)) * _CELL_STEP
    return 9 * int(np.clip(cell, _MIN_CELL, _MAX_CELL))


def draw_solution(
    image_bgr: np.ndarray,
    corners: np.ndarray,
    givens: np.ndarray,
    solution: np.ndarray,
    *,
    color: tuple[int, int, int] = DEFAULT_COLOR,
    digit_height: float = DEFAULT_DIGIT_HEIGHT,
    wrong: tuple[tuple[int, int, int], ...] = (),
    unsure: tuple[tuple[int, int], ...] = (),
    notes: tuple[tuple[int, int], ...] = (),
    entries: tuple[tuple[int, int, int], ...] = (),
    wrong_candidates: tuple[tuple[int, int], ...] = (),
    unsure_candidates: tuple[tuple[int, int], ...] = (),
) -> np.ndarray:
    """A copy of the photo with `solution`'s digits drawn, in perspective, into the cells where
    `givens` is 0, the person's `entries` ((row, col, digit) each) that the photo does not show
    (typed in) drawn in pen (`entry_sprite`), and the marks of the wrong entries `wrong` ((row,
    col, expected) each), of the entries too unclear to check `unsure` ((row, col) each), of
    the cells whose candidates leave out the answer `wrong_candidates` and of those whose
    candidates were read too unclearly to check `unsure_candidates` ((row, col) each).

    The cells of `notes` ((row, col) each: pencil notes) that get a digit, an answer's or an
    entry's, are first covered by a soft patch of their own paper (`cover_cells`), so the digit
    does not stand on the notes; every other cell is drawn as without `notes`.

    `corners` (4,2) are the upright grid's TL, TR, BR, BL in image pixels (as in `Reading`);
    `digit_height` is the digits' height as a fraction of a cell (measure it from the givens to
    match the print). Cells where `givens` is nonzero (the print, the person's entries) are left
    as they are unless marked.
    """
    quad = np.asarray(corners, np.float32)
    if quad.size != 8:
        raise ValueError("corners must be 4 points (x, y)")
    if image_bgr.ndim != 3 or image_bgr.shape[2] != 3:
        raise ValueError("image_bgr must be a BGR image of shape (height, width, 3)")
    g, s = _check(givens, solution)
    key = (g.astype(np.uint8).tobytes(), s.astype(np.uint8).tobytes())
    blue, green, red = (int(c) for c in color)
    marks = tuple((int(r), int(c), int(e)) for r, c, e in wrong)
    unclear = tuple((int(r), int(c)) for r, c in unsure)
    own = tuple((int(r), int(c), int(d)) for r, c, d in entries)
    framed = tuple((int(r), int(c)) for r, c in wrong_candidates)
    unchecked = tuple((int(r), int(c)) for r, c in unsure_candidates)
    drawn = (g == 0) & (s >= 1) & (s <= 9)
    for r, c, _ in own:
        drawn[r, c] = True
    if not drawn.any() and not marks and not unclear and not framed and not unchecked:
        return image_bgr.copy()
    size = overlay_size(quad)
    color = (blue, green, red)
    bgra = _cached_overlay(
        *key, size, color, float(digit_height), marks, unclear, own, framed, unchecked
    )
    covered = [(int(r), int(c)) for r, c in notes if drawn[int(r), int(c)]]
    base = cover_cells(image_bgr, quad, covered) if covered else image_bgr
    return composite_bgra(base, bgra, quad)


@functools.lru_cache(maxsize=8)
def _cached_overlay(
    givens: bytes,
    solution: bytes,
    size: int,
    color: tuple[int, int, int],
    digit_height: float,
    wrong: tuple[tuple[int, int, int], ...],
    unsure: tuple[tuple[int, int], ...],
    entries: tuple[tuple[int, int, int], ...],
    wrong_candidates: tuple[tuple[int, int], ...],
    unsure_candidates: tuple[tuple[int, int], ...],
) -> np.ndarray:
    """The last few overlays as BGRA, so drawing the same answer on every video frame renders
    it once."""
    g = np.frombuffer(givens, np.uint8).reshape(9, 9)
    s = np.frombuffer(solution, np.uint8).reshape(9, 9)
    bgr, alpha = render_overlay(
        g,
        s,
        size,
        color=color,
        digit_height=digit_height,
        wrong=wrong,
        unsure=unsure,
        entries=entries,
        wrong_candidates=wrong_candidates,
        unsure_candidates=unsure_candidates,
    )
    bgra = cv2.merge([*cv2.split(bgr), alpha])
    bgra.setflags(write=False)
    return bgra
