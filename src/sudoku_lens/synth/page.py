"""The flat newspaper page around a grid: text columns, headlines, pictures, other puzzles.

A page is drawn in "page coordinates", the grid occupying [0, G] x [0, G], on a canvas that covers
only the part of the page a camera will see. Everything is dark ink on white; paper tint, light
and the camera are applied later, in image space.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np

from sudoku_lens.synth.puzzles import random_solution
from sudoku_lens.synth.render import GridStyle, random_style, render_grid

_TEXT_FACES = (cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_COMPLEX, cv2.FONT_HERSHEY_DUPLEX)
_TITLES = ("SUDOKU", "Sudoku", "SUDOKU", "Zahlenraetsel", "Su Doku", "SUDOKU No. 2456", "Denksport")
_WORD_LENGTHS = np.array([1, 2, 3, 4, 5, 6, 7, 8, 9, 11])
_WORD_WEIGHTS = np.array([3, 8, 12, 14, 14, 13, 12, 10, 8, 6]) / 100
_BLOCKS = ("text", "head", "picture", "rule", "puzzle")
_BLOCK_WEIGHTS = (0.6, 0.13, 0.12, 0.1, 0.05)
_NO_PUZZLE_WEIGHTS = (0.65, 0.13, 0.12, 0.1, 0.0)
_LEVELS = ("LEICHT", "MITTEL", "SCHWER", "Facile", "Difficile", "easy", "medium", "hard", "**")


@dataclass(frozen=True)
class Page:
    """A rendered page region: `canvas` BGR uint8 whose pixel (0, 0) is page point `origin`,
    `paper` a float mask (1 = newspaper, 0 = the table under it), `grid_size` G in pixels."""

    canvas: np.ndarray
    paper: np.ndarray
    origin: tuple[int, int]
    grid_size: int


@dataclass(frozen=True)
class Clutter:
    """How busy the page around the grid is."""

    neighbour: float
    gap: tuple[float, float]
    page_edge: float
    small_puzzles: bool = True


def _word(rng: np.random.Generator) -> str:
    n = int(rng.choice(_WORD_LENGTHS, p=_WORD_WEIGHTS))
    word = rng.integers(97, 123, size=n, dtype=np.uint8).tobytes().decode("ascii")
    return word.capitalize() if rng.random() < 0.15 else word


def _line(rng: np.random.Generator, width: int, face: int, scale: float, thick: int) -> str:
    words: list[str] = []
    while True:
        word = _word(rng)
        if cv2.getTextSize(" ".join([*words, word]), face, scale, thick)[0][0] > width:
            return " ".join(words) if words else word[:3]
        words.append(word)


def _text_block(
    canvas: np.ndarray, rng: np.random.Generator, box: tuple[int, int, int, int], line_h: float
) -> None:
    """Justified-looking paragraph lines of random words filling `box` (x0, y0, x1, y1)."""
    x0, y0, x1, y1 = box
    face = _TEXT_FACES[int(rng.integers(len(_TEXT_FACES)))]
    scale = cv2.getFontScaleFromHeight(face, max(3, round(line_h * 0.62)), 1)
    ink = int(rng.integers(10, 70))
    y = y0 + line_h
    while y <= y1:
        indent = int(line_h * 1.2) if rng.random() < 0.08 else 0
        text = _line(rng, x1 - x0 - indent, face, scale, 1)
        if rng.random() < 0.06:
            text = text[: max(3, len(text) // 2)]
        cv2.putText(canvas, text, (x0 + indent, int(y)), face, scale, (ink,) * 3, 1, cv2.LINE_AA)
        y += line_h


def _picture(canvas: np.ndarray, rng: np.random.Generator, box: tuple[int, int, int, int]) -> None:
    """A smooth random colour 'photo' with a few shapes, as printed in a newspaper."""
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    if w < 4 or h < 4:
        return
    grey = rng.uniform(60, 200, size=(3, 4, 1))
    small = (grey + rng.uniform(-40, 40, size=(3, 4, 3))).clip(0, 255).astype(np.uint8)
    image = cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)
    for _ in range(int(rng.integers(1, 5))):
        centre = (int(rng.integers(w)), int(rng.integers(h)))
        axes = (
            int(rng.integers(w // 10 + 1, w // 3 + 2)),
            int(rng.integers(h // 10 + 1, h // 3 + 2)),
        )
        colour = tuple(
            int(v) for v in np.clip(rng.uniform(20, 220) + rng.uniform(-50, 50, 3), 0, 255)
        )
        cv2.ellipse(
            image, centre, axes, float(rng.uniform(0, 180)), 0, 360, colour, -1, cv2.LINE_AA
        )
    canvas[y0:y1, x0:x1] = cv2.GaussianBlur(image, (0, 0), max(1.0, w / 150))


def _small_grid(
    canvas: np.ndarray, rng: np.random.Generator, box: tuple[int, int, int, int], cell: float
) -> None:
    """A small crossword, or a filled Sudoku (yesterday's solution), in the top left of `box`."""
    x0, y0, x1, y1 = box
    side = int(min(x1 - x0, y1 - y0))
    if side < 40:
        return
    if rng.random() < 0.5:
        style = random_style(rng, size=side)
        canvas[y0 : y0 + side, x0 : x0 + side] = render_grid(random_solution(rng), rng, style)
        return
    n = int(rng.integers(9, 16))
    step = side / n
    ink = (int(rng.integers(0, 50)),) * 3
    for r in range(n):
        for c in range(n):
            if rng.random() < 0.18:
                p0 = (x0 + round(c * step), y0 + round(r * step))
                p1 = (x0 + round((c + 1) * step), y0 + round((r + 1) * step))
                cv2.rectangle(canvas, p0, p1, ink, -1)
    for k in range(n + 1):
        cv2.line(canvas, (x0, y0 + round(k * step)), (x0 + side, y0 + round(k * step)), ink, 1)
        cv2.line(canvas, (x0 + round(k * step), y0), (x0 + round(k * step), y0 + side), ink, 1)


def _fill_columns(
    canvas: np.ndarray,
    rng: np.random.Generator,
    origin: tuple[int, int],
    grid_size: int,
    small_puzzles: bool,
) -> None:
    """Newspaper columns of paragraphs, headlines, pictures, rules and (maybe) small puzzles."""
    h, w = canvas.shape[:2]
    cell = grid_size / 9
    column = rng.uniform(3.0, 5.0) * cell
    gutter = rng.uniform(0.25, 0.5) * cell
    line_h = rng.uniform(0.24, 0.4) * cell
    x = (-origin[0] + rng.uniform(-0.5, 0.5) * column) % column - column
    while x < w:
        cx0, cx1 = int(x + gutter / 2), int(x + column - gutter / 2)
        y = -rng.uniform(0, 6) * cell
        while y < h:
            kind = rng.choice(_BLOCKS, p=_BLOCK_WEIGHTS if small_puzzles else _NO_PUZZLE_WEIGHTS)
            if kind == "text":
                bh = rng.uniform(2, 9) * cell
                _text_block(canvas, rng, (cx0, int(y), cx1, int(y + bh)), line_h)
            elif kind == "head":
                bh = rng.uniform(0.6, 1.1) * cell
                face = _TEXT_FACES[int(rng.integers(len(_TEXT_FACES)))]
                scale = cv2.getFontScaleFromHeight(face, max(4, round(bh * 0.55)), 2)
                text = _line(rng, cx1 - cx0, face, scale, 2)
                cv2.putText(
                    canvas, text, (cx0, int(y + bh * 0.75)), face, scale, (20,) * 3, 2, cv2.LINE_AA
                )
            elif kind == "picture":
                bh = rng.uniform(1.5, 4.5) * cell
                _picture(canvas, rng, _clip((cx0, int(y), cx1, int(y + bh)), w, h))
            elif kind == "rule":
                bh = 0.4 * cell
                thick = max(1, round(cell * rng.uniform(0.02, 0.06)))
                cv2.line(canvas, (cx0, int(y + bh / 2)), (cx1, int(y + bh / 2)), (30,) * 3, thick)
            else:
                bh = (cx1 - cx0) * rng.uniform(0.6, 1.0) + 0.3 * cell
                _small_grid(canvas, rng, _clip((cx0, int(y), cx1, int(y + bh)), w, h), cell)
            y += bh + rng.uniform(0.2, 0.6) * cell
        if rng.random() < 0.3:
            gx = int(x + column)
            cv2.line(canvas, (gx, 0), (gx, h), (60,) * 3, max(1, round(cell * 0.02)))
        x += column


def _clip(box: tuple[int, int, int, int], w: int, h: int) -> tuple[int, int, int, int]:
    x0, y0, x1, y1 = box
    return max(0, x0), max(0, y0), max(0, min(w, x1)), max(0, min(h, y1))


def _paste(canvas: np.ndarray, image: np.ndarray, x0: int, y0: int) -> None:
    """Copy `image` onto `canvas` at (x0, y0), cropping whatever falls outside."""
    h, w = canvas.shape[:2]
    xa, ya = max(x0, 0), max(y0, 0)
    xb, yb = min(x0 + image.shape[1], w), min(y0 + image.shape[0], h)
    if xa < xb and ya < yb:
        canvas[ya:yb, xa:xb] = image[ya - y0 : yb - y0, xa - x0 : xb - x0]


def _clear(canvas: np.ndarray, box: tuple[float, float, float, float]) -> None:
    """Blank (paper white) the part of `box` (x0, y0, x1, y1) inside the canvas."""
    h, w = canvas.shape[:2]
    left, top, right, bottom = (int(round(v)) for v in box)
    x0, y0, x1, y1 = _clip((left, top, right, bottom), w, h)
    canvas[y0:y1, x0:x1] = 255


def compose_page(
    grid_image: np.ndarray,
    rng: np.random.Generator,
    extent: tuple[int, int, int, int],
    clutter: Clutter,
    style: GridStyle | None = None,
) -> Page:
    """The page around `grid_image` (placed at [0, G]^2), drawn over `extent` (u0, v0, u1, v1).

    Neighbouring Sudoku grids use `style` (the page's own look) resized, or a random style.
    """
    g = grid_image.shape[0]
    cell = g / 9
    u0, v0, u1, v1 = extent
    canvas = np.full((v1 - v0, u1 - u0, 3), 255, np.uint8)
    origin = (u0, v0)
    _fill_columns(canvas, rng, origin, g, clutter.small_puzzles)

    def local(box: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
        return box[0] - u0, box[1] - v0, box[2] - u0, box[3] - v0

    margin = rng.uniform(0.25, 1.0) * cell
    top = margin + (rng.uniform(0.6, 1.3) * cell if rng.random() < 0.6 else 0.0)
    bottom = margin + (rng.uniform(0.4, 0.8) * cell if rng.random() < 0.4 else 0.0)
    _clear(canvas, local((-margin, -top, g + margin, g + bottom)))
    if top > margin + 0.3 * cell:
        text = _TITLES[int(rng.integers(len(_TITLES)))]
        face = _TEXT_FACES[int(rng.integers(len(_TEXT_FACES)))]
        scale = cv2.getFontScaleFromHeight(face, max(4, round((top - margin) * 0.5)), 2)
        size = cv2.getTextSize(text, face, scale, 2)[0]
        x = -u0 + (0 if rng.random() < 0.6 else (g - size[0]) // 2)
        cv2.putText(
            canvas, text, (int(x), int(-v0 - margin * 0.6)), face, scale, (20,) * 3, 2, cv2.LINE_AA
        )
    if bottom > margin + 0.3 * cell:
        text = _LEVELS[int(rng.integers(len(_LEVELS)))]
        scale = cv2.getFontScaleFromHeight(
            cv2.FONT_HERSHEY_SIMPLEX, max(4, round((bottom - margin) * 0.5)), 1
        )
        y = int(-v0 + g + (bottom - margin) * 0.7 + margin * 0.4)
        cv2.putText(
            canvas, text, (int(-u0), y), cv2.FONT_HERSHEY_SIMPLEX, scale, (30,) * 3, 1, cv2.LINE_AA
        )

    if rng.random() < clutter.neighbour:
        ratio = rng.uniform(0.7, 1.0)
        side = int(round(g * ratio))
        gap = rng.uniform(*clutter.gap) * cell
        where = rng.choice(["right", "left", "below", "above"])
        offset = rng.uniform(-0.1, 0.1) * g
        x, y = {
            "right": (g + gap, offset),
            "left": (-gap - side, offset),
            "below": (offset, g + gap),
            "above": (offset, -gap - side),
        }[where]
        neighbour_style = style if style is not None else random_style(rng)
        neighbour_style = replace(neighbour_style, size=side, shaded=())
        puzzle = random_solution(rng) * (rng.random((9, 9)) < rng.uniform(0.25, 0.4))
        pad = 0.3 * cell
        _clear(canvas, local((x - pad, y - pad, x + side + pad, y + side + pad)))
        _paste(
            canvas,
            render_grid(puzzle, rng, neighbour_style),
            int(round(x - u0)),
            int(round(y - v0)),
        )

    _paste(canvas, grid_image, -u0, -v0)

    paper = np.ones(canvas.shape[:2], np.float32)
    if rng.random() < clutter.page_edge:
        side_name = rng.choice(["left", "right", "top", "bottom"])
        dist = rng.uniform(0.3, 1.5) * cell + margin
        edge = {
            "left": -dist - u0,
            "right": g + dist - u0,
            "top": -dist - v0,
            "bottom": g + dist - v0,
        }[side_name]
        e = int(round(edge))
        if side_name == "left":
            paper[:, : max(0, e)] = 0
        elif side_name == "right":
            paper[:, max(0, e) :] = 0
        elif side_name == "top":
            paper[: max(0, e)] = 0
        else:
            paper[max(0, e) :] = 0
    return Page(canvas=canvas, paper=paper, origin=origin, grid_size=g)


def text_page(rng: np.random.Generator, extent: tuple[int, int, int, int], grid_size: int) -> Page:
    """A stretch of newspaper with text and pictures but no puzzle, drawn over `extent`."""
    u0, v0, u1, v1 = extent
    canvas = np.full((v1 - v0, u1 - u0, 3), 255, np.uint8)
    _fill_columns(canvas, rng, (u0, v0), grid_size, small_puzzles=False)
    paper = np.ones(canvas.shape[:2], np.float32)
    return Page(canvas=canvas, paper=paper, origin=(u0, v0), grid_size=grid_size)
