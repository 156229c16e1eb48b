"""Puzzles filled in by hand: pen entries, pencil notes and planted mistakes, with exact truth.

`fill_in` writes into a printed grid (from `render_grid`) as a person would: entries in one pen
(ballpoint blue or black, felt-tip, grey pencil, red), each digit from a handwriting font (when
Pillow and font files are given) or from synthetic pen strokes (jittered skeletons of the ten digit
shapes, drawn with a varying nib), elastically distorted, sometimes cramped small or touching the
cell's border; small pencil candidates in some empty cells (pairs, triples and fours, in a row at
the top of the cell or at their keypad places), the cell's answer among them; and, on request,
entries that differ from the solution and candidate sets that leave the answer out.
`synth_filled_photo` photographs the result as `synth_photo` does. The truth says, per cell, the
digit written, its kind (0 empty, 1 printed, 2 handwritten, 3 pencil notes, as
`sudoku_lens.read.kinds.KIND_NAMES`), the candidates pencilled, and which entries and candidate
sets are mistakes.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np

from sudoku_lens.read.kinds import EMPTY, HANDWRITTEN, NO_CANDIDATES, NOTES, PRINTED, Candidates
from sudoku_lens.synth.puzzles import random_puzzle
from sudoku_lens.synth.render import has_digits, random_style, render_grid
from sudoku_lens.synth.scene import SyntheticPhoto, place_in_scene


@dataclass(frozen=True)
class Pen:
    """A writing tool: ink colour (BGR), stroke width (share of the digit's height), opacity."""

    name: str
    ink: tuple[int, int, int]
    width: tuple[float, float]
    opacity: tuple[float, float]


PENS: dict[str, Pen] = {
    "ballpoint-blue": Pen("ballpoint-blue", (150, 60, 25), (0.04, 0.08), (0.75, 0.95)),
    "ballpoint-black": Pen("ballpoint-black", (45, 40, 40), (0.04, 0.08), (0.75, 0.95)),
    "felt-tip": Pen("felt-tip", (25, 25, 25), (0.09, 0.16), (0.9, 1.0)),
    "felt-tip-blue": Pen("felt-tip-blue", (170, 70, 10), (0.09, 0.15), (0.9, 1.0)),
    "pencil": Pen("pencil", (95, 95, 100), (0.05, 0.09), (0.45, 0.8)),
    "red": Pen("red", (40, 40, 200), (0.05, 0.1), (0.8, 1.0)),
}
"""The pens `fill_in` draws from."""

PENCIL = Pen("pencil-notes", (50, 50, 55), (0.09, 0.14), (0.7, 1.0))
"""The grey pencil of candidate notes."""

NOTE_COUNTS: dict[int, float] = {2: 0.6, 3: 0.3, 4: 0.1}
"""How many candidates a cell of notes holds, and how often: in A. Kubiesa's puzzle-book
photos 280 of 300 sets of two or more are pairs, the rest triples."""

NOTE_HEIGHTS: dict[int | str, tuple[float, float]] = {
    2: (0.3, 0.48),
    3: (0.28, 0.42),
    4: (0.22, 0.3),
    "keypad": (0.22, 0.3),
}
"""Height of pencilled candidates as a share of the cell: a row of 2 or 3 digits, two rows of
4 or more, and the keypad layout. The candidates of real puzzle-book photos are 0.36-0.5 of
the cell tall (10th percentile to median), most of them pairs and triples at the top."""

_SKELETONS: dict[int, tuple[tuple[tuple[float, float], ...], ...]] = {
    1: (((0.25, 0.22), (0.6, 0.0), (0.58, 1.0)),),
    2: (
        (
            (0.12, 0.25),
            (0.35, 0.02),
            (0.7, 0.03),
            (0.85, 0.28),
            (0.6, 0.6),
            (0.1, 1.0),
            (0.92, 0.98),
        ),
    ),
    3: (
        (
            (0.12, 0.12),
            (0.5, 0.0),
            (0.85, 0.15),
            (0.8, 0.38),
            (0.42, 0.5),
            (0.85, 0.62),
            (0.88, 0.88),
            (0.5, 1.0),
            (0.1, 0.88),
        ),
    ),
    4: (((0.65, 0.98), (0.68, 0.0), (0.08, 0.68), (0.95, 0.68)),),
    5: (
        (
            (0.85, 0.02),
            (0.25, 0.0),
            (0.18, 0.45),
            (0.6, 0.38),
            (0.9, 0.62),
            (0.82, 0.92),
            (0.42, 1.0),
            (0.1, 0.88),
        ),
    ),
    6: (
        (
            (0.78, 0.05),
            (0.4, 0.15),
            (0.15, 0.55),
            (0.2, 0.9),
            (0.5, 1.0),
            (0.82, 0.85),
            (0.82, 0.6),
            (0.5, 0.48),
            (0.18, 0.65),
        ),
    ),
    7: (((0.08, 0.03), (0.92, 0.0), (0.45, 1.0)),),
    8: (
        (
            (0.5, 0.48),
            (0.2, 0.28),
            (0.25, 0.05),
            (0.5, 0.0),
            (0.78, 0.06),
            (0.8, 0.28),
            (0.5, 0.48),
            (0.15, 0.72),
            (0.25, 0.96),
            (0.5, 1.0),
            (0.78, 0.96),
            (0.86, 0.72),
            (0.5, 0.48),
        ),
    ),
    9: (
        (
            (0.82, 0.32),
            (0.5, 0.5),
            (0.18, 0.38),
            (0.2, 0.1),
            (0.5, 0.0),
            (0.82, 0.12),
            (0.82, 0.35),
            (0.72, 1.0),
        ),
    ),
}
"""Pen paths of each digit in a unit box (x right, y down), one tuple of points per stroke."""

_EXTRA_STROKES: dict[int, tuple[tuple[float, float], ...]] = {
    1: ((0.3, 1.0), (0.85, 1.0)),
    7: ((0.3, 0.52), (0.8, 0.5)),
}
"""Strokes some people add: a foot under the 1, a bar across the 7."""

Strokes = tuple[tuple[tuple[float, float], ...], ...]
"""A digit's pen paths in a unit box, as in `_SKELETONS`."""


@dataclass(frozen=True)
class HandStyle:
    """A way of writing digits that the default strokes do not cover, for measuring the reader on
    each (`benchmarks/handwriting.py --style`): other pen paths for some digits, strokes always
    added, a lean, a size. Entries written in a style are pen strokes alone (no fonts)."""

    name: str
    shapes: dict[int, tuple[Strokes, ...]] = field(default_factory=dict)
    """Per digit, the pen paths to draw it with (one of them at random) instead of the default."""
    extras: dict[int, float] = field(default_factory=dict)
    """Per digit, the chance of adding its `_EXTRA_STROKES` (the 1's foot, the 7's bar)."""
    slant: float | None = None
    """Lean of every digit (x shift of the top per unit of height; > 0 leans right)."""
    size: tuple[float, float] | None = None
    """Range of the digits' height as a share of the cell, instead of the writer's own."""

    @property
    def digits(self) -> tuple[int, ...]:
        """The digits the style shapes: those it draws otherwise, or all when it leans or sizes
        them all (or is the default strokes)."""
        shaped = tuple(sorted(set(self.shapes) | set(self.extras)))
        return (
            shaped if shaped and self.slant is None and self.size is None else tuple(range(1, 10))
        )


HAND_STYLES: dict[str, HandStyle] = {
    style.name: style
    for style in (
        HandStyle("strokes"),
        HandStyle(
            "continental-1",
            {
                1: (
                    (((0.05, 0.45), (0.62, 0.0), (0.6, 1.0)),),
                    (((0.12, 0.55), (0.6, 0.0), (0.6, 1.0)),),
                )
            },
            {1: 0.5},
        ),
        HandStyle(
            "barred-7",
            {
                7: (
                    (((0.08, 0.03), (0.92, 0.0), (0.45, 1.0)),),
                    (((0.06, 0.2), (0.08, 0.02), (0.92, 0.0), (0.45, 1.0)),),
                )
            },
            {7: 1.0},
        ),
        HandStyle(
            "open-4",
            {4: ((((0.22, 0.0), (0.1, 0.64), (0.95, 0.64)), ((0.7, 0.1), (0.67, 1.0))),)},
        ),
        HandStyle("closed-4", {4: (_SKELETONS[4],)}),
        HandStyle(
            "straight-9",
            {9: ((_SKELETONS[9][0][:-1] + ((0.84, 0.6), (0.83, 1.0)),),)},
        ),
        HandStyle(
            "curled-9",
            {9: ((_SKELETONS[9][0][:-1] + ((0.8, 0.72), (0.58, 1.0), (0.3, 0.9)),),)},
        ),
        HandStyle(
            "looped-2",
            {
                2: (
                    (
                        _SKELETONS[2][0][:5]
                        + ((0.22, 0.9), (0.12, 0.78), (0.26, 0.74), (0.36, 0.95), (0.92, 0.96)),
                    ),
                )
            },
        ),
        HandStyle("plain-2", {2: (_SKELETONS[2],)}),
        HandStyle(
            "open-6",
            {6: ((_SKELETONS[6][0][:-2] + ((0.55, 0.47), (0.34, 0.54)),),)},
        ),
        HandStyle("cramped", size=(0.28, 0.4)),
        HandStyle("lean-left", slant=-0.3),
        HandStyle("lean-right", slant=0.3),
    )
}
"""The handwriting styles measured one by one: "strokes" is the default pen strokes (no fonts),
the others the continental 1 (long up-stroke, with or without a foot) and 7 (barred, with or
without a tick), the 4 open at the top or closed, the 9's tail straight or curled, the 2 with or
without a loop, a 6 that nearly closes, small cramped digits, digits leaning left or right."""

_SUPERSAMPLE = 4


def _spline(points: np.ndarray, per_segment: int = 12) -> np.ndarray:
    """A Catmull-Rom curve through `points` (K, 2), as a dense polyline."""
    if len(points) < 3:
        return points
    padded = np.vstack([points[:1], points, points[-1:]])
    t = np.linspace(0.0, 1.0, per_segment, endpoint=False)[:, None]
    out = []
    for i in range(1, len(padded) - 2):
        p0, p1, p2, p3 = padded[i - 1 : i + 3]
        out.append(
            0.5
            * (
                2 * p1
                + (p2 - p0) * t
                + (2 * p0 - 5 * p1 + 4 * p2 - p3) * t**2
                + (3 * p1 - p0 - 3 * p2 + p3) * t**3
            )
        )
    out.append(points[-1:])
    return np.vstack(out)


def stroke_digit(
    digit: int,
    height: int,
    width: float,
    rng: np.random.Generator,
    style: HandStyle | None = None,
) -> np.ndarray:
    """Coverage (float32 0..1, tight crop) of `digit` drawn with synthetic pen strokes about
    `height` px tall with a nib `width` px wide: every control point jittered, the digit's
    width, slant and stroke pressure varied; shaped and leant as `style` says, if given."""
    big = height * _SUPERSAMPLE
    aspect = rng.uniform(0.45, 0.8)
    slant = rng.normal(0.0, 0.12)
    strokes = list(_SKELETONS[digit])
    extra = 0.4
    if style is not None:
        if style.slant is not None:
            slant = style.slant + 0.3 * slant
        shapes = style.shapes.get(digit)
        if shapes:
            strokes = list(shapes[int(rng.integers(len(shapes)))])
        extra = style.extras.get(digit, extra)
    if digit in _EXTRA_STROKES and rng.random() < extra:
        strokes.append(_EXTRA_STROKES[digit])
    pad = int(big * 0.3 + width * _SUPERSAMPLE)
    canvas = np.zeros((big + 2 * pad, int(big * (aspect + abs(slant))) + 2 * pad), np.float32)
    for stroke in strokes:
        points = np.array(stroke, np.float64) + rng.normal(0.0, 0.035, (len(stroke), 2))
        line = _spline(points)
        xs = (line[:, 0] * aspect + slant * (1.0 - line[:, 1]) + max(0.0, -slant)) * big + pad
        ys = line[:, 1] * big + pad
        nib = max(1, round(width * _SUPERSAMPLE * rng.uniform(0.8, 1.2)))
        pts = np.round(np.stack([xs, ys], axis=1) * 16).astype(np.int32)
        cv2.polylines(canvas, [pts], False, 1.0, nib, cv2.LINE_AA, 4)
    return _tight(
        cv2.resize(
            canvas, None, fx=1 / _SUPERSAMPLE, fy=1 / _SUPERSAMPLE, interpolation=cv2.INTER_AREA
        )
    )


@functools.lru_cache(maxsize=64)
def _font(path: str, size: int):  # noqa: ANN202 - a PIL font, Pillow being optional
    from PIL import ImageFont

    return ImageFont.truetype(path, size)


def font_digit(digit: int, height: int, font_file: str, rng: np.random.Generator) -> np.ndarray:
    """Coverage (float32 0..1, tight crop) of `digit` in a handwriting font, about `height` px
    tall, thickened or thinned a little at random (needs Pillow)."""
    from PIL import Image, ImageDraw

    font = _font(font_file, height * 2)
    x0, y0, x1, y1 = font.getbbox(str(digit))
    image = Image.new("L", (x1 - x0 + 8, y1 - y0 + 8), 0)
    ImageDraw.Draw(image).text((4 - x0, 4 - y0), str(digit), fill=255, font=font)
    big = np.asarray(image, np.float32) / 255.0
    change = int(rng.choice([-1, 0, 0, 1, 2]))
    if change:
        kernel = np.ones((abs(change) * 2 + 1,) * 2, np.uint8)
        big = cv2.dilate(big, kernel) if change > 0 else cv2.erode(big, kernel)
    scale = height / max(1, big.shape[0])
    return _tight(cv2.resize(big, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA))


def _tight(coverage: np.ndarray) -> np.ndarray:
    ys, xs = np.nonzero(coverage > 0.05)
    if len(ys) == 0:
        return np.zeros((1, 1), np.float32)
    return np.ascontiguousarray(coverage[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1])


def elastic(coverage: np.ndarray, rng: np.random.Generator, strength: float = 0.06) -> np.ndarray:
    """Bend a glyph smoothly (a random displacement field of `strength` times its height)."""
    h, w = coverage.shape
    if min(h, w) < 4:
        return coverage
    pad = max(2, h // 6)
    src = cv2.copyMakeBorder(coverage, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=0.0)
    hh, ww = src.shape
    field = rng.normal(0.0, 1.0, (2, 4, 4)).astype(np.float32)
    dx = cv2.resize(field[0], (ww, hh), interpolation=cv2.INTER_CUBIC) * strength * h
    dy = cv2.resize(field[1], (ww, hh), interpolation=cv2.INTER_CUBIC) * strength * h
    gx, gy = np.meshgrid(np.arange(ww, dtype=np.float32), np.arange(hh, dtype=np.float32))
    out = cv2.remap(src, gx + dx, gy + dy, cv2.INTER_LINEAR, borderValue=0.0)
    return _tight(out)


def hand_digit(
    digit: int,
    height: int,
    pen: Pen,
    rng: np.random.Generator,
    font_files: Sequence[str] = (),
    style: HandStyle | None = None,
) -> np.ndarray:
    """A handwritten `digit` about `height` px tall in `pen`: from a font or pen strokes, bent;
    pen strokes in `style` alone when one is given."""
    if style is None and font_files and rng.random() < 0.5:
        glyph = font_digit(digit, height, font_files[int(rng.integers(len(font_files)))], rng)
    else:
        glyph = stroke_digit(digit, height, rng.uniform(*pen.width) * height, rng, style)
    return elastic(glyph, rng, rng.uniform(0.0, 0.07))


def _ink(
    image: np.ndarray,
    coverage: np.ndarray,
    colour: tuple[int, int, int],
    x: int,
    y: int,
    opacity: float,
) -> None:
    """Darken `image` (float32 BGR 0..1, in place) by an ink of `colour` where `coverage` covers,
    its top left at (x, y), clipped at the image's edges."""
    h, w = coverage.shape
    xa, ya, xb, yb = max(x, 0), max(y, 0), min(x + w, image.shape[1]), min(y + h, image.shape[0])
    if xa >= xb or ya >= yb:
        return
    cov = coverage[ya - y : yb - y, xa - x : xb - x, None] * opacity
    absorb = 1.0 - np.asarray(colour, np.float32) / 255.0
    image[ya:yb, xa:xb] *= 1.0 - cov * absorb


OVERHANG = 0.1
"""Most an entry's ink reaches over its cell's border, as a share of the cell: a pen digit may
touch or cross the line, never reach into the middle of the next cell."""


def _fit_to_cell(glyph: np.ndarray, cell: float) -> np.ndarray:
    """A written digit's coverage cut to its ink, and scaled down when it is taller or wider than
    its cell and the overhang on both sides (strokes, their width and the bending can make a
    digit half as tall again as the height asked for)."""
    ys, xs = np.nonzero(glyph > 0.02)
    if ys.size == 0:
        return glyph
    glyph = glyph[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]
    scale = cell * (1.0 + 2 * OVERHANG) / max(glyph.shape)
    return glyph if scale >= 1.0 else _shrunk(glyph, scale)


def _place(cell: float, r: int, c: int, glyph: np.ndarray, offset: np.ndarray) -> tuple[int, int]:
    cx, cy = (c + 0.5 + offset[0]) * cell, (r + 0.5 + offset[1]) * cell
    return int(round(cx - glyph.shape[1] / 2)), int(round(cy - glyph.shape[0] / 2))


@dataclass(frozen=True)
class FilledGrid:
    """A printed grid completed by hand, upright, with the truth of every cell."""

    image: np.ndarray
    """BGR uint8 square grid image (outer border on the image's edges)."""
    digits: np.ndarray
    """(9, 9) uint8 digit written in each cell, printed or by hand; 0 for empty and notes."""
    kinds: np.ndarray
    """(9, 9) uint8 kind of each cell: 0 empty, 1 printed, 2 handwritten, 3 pencil notes."""
    mistakes: np.ndarray
    """(9, 9) bool: handwritten entries that differ from the solution."""
    pen: str
    """Name of the pen the entries were written with (a key of PENS)."""
    candidates: Candidates = NO_CANDIDATES
    """The sorted digits pencilled in each cell of notes, `()` elsewhere."""
    wrong_candidates: np.ndarray = field(default_factory=lambda: np.zeros((9, 9), bool))
    """(9, 9) bool: cells of notes whose candidates leave out the solution's digit."""


def fill_in(
    grid_image: np.ndarray,
    puzzle: np.ndarray,
    solution: np.ndarray,
    rng: np.random.Generator,
    *,
    entries: float = 0.6,
    notes: float = 0.15,
    mistakes: int = 0,
    wrong_notes: int = 0,
    pen: str | None = None,
    font_files: Sequence[str] = (),
    hand_style: str | None = None,
) -> FilledGrid:
    """Write into a printed grid: a share `entries` of its empty cells gets the solution's digit
    by hand (`mistakes` of them a wrong digit instead), a share `notes` of the cells left gets
    2-6 pencilled candidates, the solution's digit among them (`wrong_notes` of those cells
    candidates that leave it out instead). `pen` is a key of PENS (random when None);
    `font_files` are handwriting fonts to draw some digits from (Pillow needed; fonts that draw
    no digits, which would write a box for each, are left out), the rest being pen strokes;
    `hand_style`, a key of HAND_STYLES, writes every entry in pen strokes of that style instead.
    An entry's ink may touch its cell's border and cross it by `OVERHANG` of a cell, no more, so
    an empty cell's middle stays blank.
    """
    font_files = [path for path in font_files if has_digits(path)]
    puzzle = np.asarray(puzzle).reshape(9, 9)
    solution = np.asarray(solution).reshape(9, 9)
    pen_name = pen if pen is not None else list(PENS)[int(rng.integers(len(PENS)))]
    tool = PENS[pen_name]
    hand = HAND_STYLES[hand_style] if hand_style is not None else None
    n = grid_image.shape[0]
    cell = n / 9.0
    image = grid_image.astype(np.float32) / 255.0
    digits = puzzle.astype(np.uint8).copy()
    kinds = np.where(puzzle > 0, PRINTED, EMPTY).astype(np.uint8)
    wrong = np.zeros((9, 9), bool)
    empty = np.flatnonzero(puzzle.ravel() == 0)
    written = rng.permutation(empty)[: int(round(entries * len(empty)))]
    planted = set(written[: min(mistakes, len(written))].tolist())
    size = rng.uniform(0.5, 0.75)
    for index in written:
        r, c = divmod(int(index), 9)
        digit = int(solution[r, c])
        if index in planted:
            digit = int(rng.choice([d for d in range(1, 10) if d != digit]))
            wrong[r, c] = True
        cramped = rng.random() < 0.12
        share = rng.uniform(0.36, 0.45) if cramped else size
        if hand is not None and hand.size is not None:
            share = rng.uniform(*hand.size)
        height = max(6, round(cell * share * rng.uniform(0.88, 1.12)))
        glyph = _fit_to_cell(hand_digit(digit, height, tool, rng, font_files, hand), cell)
        offset = rng.normal(0.0, 0.06, 2)
        if rng.random() < 0.1:
            axis, sign = int(rng.integers(2)), float(rng.choice([-1.0, 1.0]))
            offset[axis] = sign * (0.5 - 0.5 * glyph.shape[1 - axis] / cell)
        reach = 0.5 + OVERHANG - 0.5 * np.array(glyph.shape[::-1]) / cell
        x, y = _place(cell, r, c, glyph, offset.clip(-reach, reach))
        _ink(image, glyph, tool.ink, x, y, rng.uniform(*tool.opacity))
        digits[r, c] = digit
        kinds[r, c] = HANDWRITTEN
    left = np.setdiff1d(empty, written)
    pencilled = [[()] * 9 for _ in range(9)]
    wrong_notes_at = np.zeros((9, 9), bool)
    for k, index in enumerate(rng.permutation(left)[: int(round(notes * len(left)))]):
        r, c = divmod(int(index), 9)
        answer = int(solution[r, c])
        pencilled[r][c] = _pencil_notes(image, cell, r, c, rng, answer, leave_out=k < wrong_notes)
        wrong_notes_at[r, c] = answer not in pencilled[r][c]
        kinds[r, c] = NOTES
    out = np.clip(image * 255.0 + 0.5, 0, 255).astype(np.uint8)
    candidates = tuple(tuple(row) for row in pencilled)
    return FilledGrid(out, digits, kinds, wrong, pen_name, candidates, wrong_notes_at)


def _pencil_notes(
    image: np.ndarray,
    cell: float,
    r: int,
    c: int,
    rng: np.random.Generator,
    answer: int,
    *,
    leave_out: bool,
) -> tuple[int, ...]:
    """Pencil small candidates into cell (r, c) as people pencil them: a pair, a triple or
    four digits (`NOTE_COUNTS`), the cell's `answer` among them, or with `leave_out` never;
    returns them, sorted.

    Most sets are a row at the top of the cell (four digits in two rows), the others keep each
    digit at its place of a 3x3 keypad, as tall as `NOTE_HEIGHTS` says and nearly as dark as
    the grid's print, as in real puzzle-book photos. `rng` draws 2-5 digits and their strokes
    as it did when every one was pencilled, so the rest of the photo (its entries, the scene)
    stays as it was, bit for bit; how many of them are kept and the layout come from a
    generator of the cell's own (`_look_rng`), and an answer not among them from another
    (`_answer_rng`)."""
    drawn = list(rng.choice(np.arange(1, 10), size=int(rng.integers(2, 6)), replace=False))
    if leave_out:
        pool = np.array([d for d in range(1, 10) if d != answer])
        drawn = list(rng.choice(pool, size=len(drawn), replace=False))
    drawn = [int(d) for d in drawn]
    look = _look_rng(r, c, drawn)
    count = int(look.choice(list(NOTE_COUNTS), p=list(NOTE_COUNTS.values())))
    keypad = look.random() < 0.35
    others = [d for d in drawn if d != answer]
    kept = drawn[:count] if leave_out else others[: count - 1] + [answer]
    rows = [sorted(kept)]
    if len(kept) > 3:
        rows = [rows[0][:2], rows[0][2:]]
    low, high = NOTE_HEIGHTS["keypad" if keypad else len(kept)]
    height = max(4, round(cell * rng.uniform(low, high)))
    opacity = rng.uniform(*PENCIL.opacity)
    sources = [(d, rng) for d in drawn]
    if answer in kept and answer not in drawn:
        sources.append((answer, _answer_rng(r, c, drawn)))
    glyphs = {}
    for digit, source in sources:
        width = max(0.8, source.uniform(*PENCIL.width) * height)
        glyph = stroke_digit(digit, height, width, source)
        spread = source.uniform(0.26, 0.3)
        jitter = source.normal(0.0, 0.02, 2)
        glyphs[digit] = (glyph, spread, jitter)
    if keypad:
        for digit in kept:
            glyph, spread, jitter = glyphs[digit]
            place = np.array([(digit - 1) % 3, (digit - 1) // 3], np.float64)
            x, y = _place(cell, r, c, glyph, (place - 1.0) * spread + jitter)
            _ink(image, glyph, PENCIL.ink, x, y, opacity)
        return tuple(sorted(kept))
    top = look.uniform(0.03, 0.14) * cell
    for row in rows:
        room = 0.94 * cell
        gap = look.uniform(0.04, 0.12) * cell
        parts = [glyphs[d][0] for d in row]
        wide = sum(part.shape[1] for part in parts) + gap * (len(parts) - 1)
        if wide > room:
            scale = room / wide
            parts = [_shrunk(part, scale) for part in parts]
            gap *= scale
            wide = room
        x = c * cell + look.uniform(0.03, max(0.031, 0.97 - wide / cell)) * cell
        for digit, part in zip(row, parts, strict=True):
            y = r * cell + top + glyphs[digit][2][1] * cell
            _ink(image, part, PENCIL.ink, int(round(x)), int(round(y)), opacity)
            x += part.shape[1] + gap
        top += max(part.shape[0] for part in parts) + look.uniform(0.02, 0.08) * cell
    return tuple(sorted(kept))


def _shrunk(glyph: np.ndarray, scale: float) -> np.ndarray:
    """A glyph's coverage brought down by `scale` (under 1), at least a pixel each way."""
    size = (max(1, int(glyph.shape[1] * scale)), max(1, int(glyph.shape[0] * scale)))
    return cv2.resize(glyph, size, interpolation=cv2.INTER_AREA)


def _look_rng(r: int, c: int, candidates: Sequence[int]) -> np.random.Generator:
    """A generator for the layout of the candidates of cell (r, c), seeded by the cell and the
    candidates drawn, apart from the photo's own."""
    return np.random.default_rng([r, c, 10, *(int(d) for d in candidates)])


def _answer_rng(r: int, c: int, candidates: Sequence[int]) -> np.random.Generator:
    """A generator for the answer added to the candidates of cell (r, c), seeded by the cell
    and the candidates drawn, apart from the photo's own."""
    return np.random.default_rng([r, c, *(int(d) for d in candidates)])


@dataclass(frozen=True)
class SyntheticFilledPhoto:
    """A photo of a hand-filled grid: the photo and its printed truth, and the hand-filled truth."""

    photo: SyntheticPhoto
    """The photo; its `puzzle` is the printed givens and `solution` the unique solution."""
    filled: FilledGrid
    """What is written in each upright cell (digits, kinds, mistakes) and the grid image."""


def synth_filled_photo(
    seed: int,
    difficulty: str = "medium",
    *,
    entries: float = 0.6,
    notes: float = 0.15,
    mistakes: int = 0,
    wrong_notes: int = 0,
    pen: str | None = None,
    font_files: Sequence[str] = (),
    printed_fonts: Sequence[str] = (),
    rotation: int | None = None,
    hand_style: str | None = None,
) -> SyntheticFilledPhoto:
    """A photo of a puzzle partly filled in by hand, from one seed (same seed, same photo).

    See `fill_in` for `entries`, `notes`, `mistakes`, `wrong_notes`, `pen`, `font_files` and
    `hand_style`; `printed_fonts` are font files for the printed givens (see `synth_photo`).
    """
    rng = np.random.default_rng(seed)
    puzzle, solution = random_puzzle(rng)
    style = random_style(rng, size=1200, font_files=printed_fonts)
    grid = render_grid(puzzle, rng, style)
    filled = fill_in(
        grid,
        puzzle,
        solution,
        rng,
        entries=entries,
        notes=notes,
        mistakes=mistakes,
        wrong_notes=wrong_notes,
        pen=pen,
        font_files=font_files,
        hand_style=hand_style,
    )
    photo = place_in_scene(
        filled.image,
        rng,
        difficulty,
        puzzle=puzzle,
        solution=solution,
        style=style,
        rotation=rotation,
    )
    return SyntheticFilledPhoto(photo, filled)
