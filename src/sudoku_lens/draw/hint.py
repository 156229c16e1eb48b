"""Draw one logical step into the photo, in perspective: what proves it and what it proves.

The step is drawn upright into a square canvas that stands for the grid, then warped onto the
photo with the grid's corners (`overlay.composite`), like the answer is:

- the units of the pattern lightly tinted, the cells that prove the step highlighted in amber
  (a finned fish's fins in violet);
- with a state given, the candidates left in those cells (but a cell getting its digit) written
  small in grey, each digit in its own ninth of the cell (1 top left, 9 bottom right), as people
  pencil them;
- the pattern's own candidates ringed in green, the chain's links as lines between candidates
  (strong links solid, weak links dashed, arrows along the chain), bowed round what a straight
  line would cross (another ringed candidate, a solved cell's digit, an earlier link);
- each eliminated candidate in red, struck through; each placed digit large, in the answer's blue,
  its cell framed.

`render_grid` draws a state as a clean picture (for a hint on puzzle text) and `add_caption`
writes the step's sentence under a picture.
"""

from __future__ import annotations

import cv2
import numpy as np

from sudoku_lens.draw.overlay import (
    DEFAULT_COLOR,
    DEFAULT_DIGIT_HEIGHT,
    composite_bgra,
    digit_sprite,
    overlay_size,
)
from sudoku_lens.logic.state import CandidateGrid
from sudoku_lens.logic.step import Candidate, Step
from sudoku_lens.logic.units import UNITS

UNIT_TINT = (235, 190, 120)
"""BGR: a pale blue for the pattern's units."""
CELL_TINT = (40, 190, 255)
"""BGR: amber for the cells that prove the step."""
FIN_TINT = (230, 140, 200)
"""BGR: violet for a finned fish's fins, apart from its base cells."""
PENCIL = (90, 90, 90)
"""BGR: the grey of the candidates left in a cell."""
PATTERN = (40, 150, 20)
"""BGR: green rings round the pattern's own candidates and its strong links."""
WEAK_LINK = (20, 120, 230)
"""BGR: orange for weak links."""
STRUCK = (30, 30, 220)
"""BGR: red for eliminated candidates."""

_FACE = cv2.FONT_HERSHEY_SIMPLEX
_MAX_CELL = 96
_CAPTION_ASCII = str.maketrans({"→": "->", "⇒": "=>", "≠": "<>", "–": "-", "—": "-", "’": "'"})


class _Canvas:
    """An upright square BGRA picture of the grid, painted layer over layer, held only for the
    part of the grid a step draws in (`cells`, with a margin for what reaches past them).

    It is held premultiplied (float32: each colour times its alpha, the alpha in 0-255 like the
    colours), so laying a colour over it is one scaling and one addition per pixel, and only
    the box that has been painted is turned into straight colours at the end. Masks and points
    are in the coordinates of the part held (`box`, `point`)."""

    def __init__(self, cell: int, cells: set[int]) -> None:
        self.cell = cell
        self.side = 9 * cell
        rows = [c // 9 for c in cells] or [0]
        cols = [c % 9 for c in cells] or [0]
        margin = cell // 4
        # an even origin: points are rounded half to even, which a shift by an even number
        # leaves as it was, so the part is drawn exactly as the whole grid would be
        self.x0 = max(0, min(cols) * cell - margin) // 2 * 2
        self.y0 = max(0, min(rows) * cell - margin) // 2 * 2
        x1 = min(self.side, (max(cols) + 1) * cell + margin)
        y1 = min(self.side, (max(rows) + 1) * cell + margin)
        self.data = np.zeros((y1 - self.y0, x1 - self.x0, 4), np.float32)
        self.painted: tuple[int, int, int, int] | None = None
        """x0, y0, x1, y1 of the box painted so far (None: nothing yet)."""

    def box(self, cell: int, inset: int = 0) -> tuple[tuple[int, int], tuple[int, int]]:
        """A cell's corners (inset by `inset` pixels) in the part held."""
        (x0, y0), (x1, y1) = _cell_box(cell, self.cell, inset)
        return (x0 - self.x0, y0 - self.y0), (x1 - self.x0, y1 - self.y0)

    def point(self, candidate: Candidate) -> tuple[float, float]:
        """A candidate's centre (`candidate_point`) in the part held."""
        x, y = candidate_point(candidate, self.cell)
        return x - self.x0, y - self.y0

    def paint(self, mask: np.ndarray, color: tuple[int, int, int], opacity: float) -> None:
        """Lay `color` over the canvas where `mask` (uint8, 0-255) is set, `opacity` at full."""
        x, y, w, h = cv2.boundingRect(mask)
        if not w or not h:
            return
        cover = mask[y : y + h, x : x + w].astype(np.float32)
        cover *= np.float32(opacity / 255.0)
        region = self.data[y : y + h, x : x + w]
        region *= (1.0 - cover)[..., None]
        region += cover[..., None] * np.float32((*color, 255.0))
        box = (x, y, x + w, y + h)
        if self.painted is not None:
            box = (*np.minimum(box[:2], self.painted[:2]), *np.maximum(box[2:], self.painted[2:]))
        self.painted = box

    def blank(self) -> np.ndarray:
        return np.zeros(self.data.shape[:2], np.uint8)

    def bgra(self) -> np.ndarray:
        """The whole grid's picture as straight (not premultiplied) BGRA uint8, rounded and
        saturated: transparent outside the box painted."""
        out = np.zeros((self.side, self.side, 4), np.uint8)
        if self.painted is None:
            return out
        x0, y0, x1, y1 = (int(v) for v in self.painted)
        region = self.data[y0:y1, x0:x1]
        alpha = region[..., 3]
        scale = np.divide(255.0, alpha, out=np.zeros_like(alpha), where=alpha > 0)
        straight = region * scale[..., None]
        straight[..., 3] = alpha
        out[self.y0 + y0 : self.y0 + y1, self.x0 + x0 : self.x0 + x1] = cv2.convertScaleAbs(
            straight
        )
        return out


def _cell_box(cell: int, size: int, inset: int = 0) -> tuple[tuple[int, int], tuple[int, int]]:
    row, col = divmod(cell, 9)
    return (col * size + inset, row * size + inset), (
        (col + 1) * size - 1 - inset,
        (row + 1) * size - 1 - inset,
    )


def candidate_point(candidate: Candidate, size: int) -> tuple[float, float]:
    """The centre of a candidate's ninth of its cell, in canvas pixels for cells of `size`."""
    cell, digit = candidate
    row, col = divmod(cell, 9)
    sub_row, sub_col = divmod(digit - 1, 3)
    return (col + (sub_col + 0.5) / 3) * size, (row + (sub_row + 0.5) / 3) * size


def _small_digit(
    mask: np.ndarray, point: tuple[float, float], digit: int, size: int, height: float = 0.24
) -> None:
    """Write `digit` `height` (fraction of a cell of `size`) tall, centred on `point` (a
    candidate's, in its ninth of the cell)."""
    x, y = point
    text = str(digit)
    (_, ref_h), _ = cv2.getTextSize("8", _FACE, 1.0, 1)
    scale = height * size / ref_h
    thickness = max(1, round(size / 40))
    (w, h), _ = cv2.getTextSize(text, _FACE, scale, thickness)
    cv2.putText(
        mask, text, (round(x - w / 2), round(y + h / 2)), _FACE, scale, 255, thickness, cv2.LINE_AA
    )


_BOWS = (0.0, 0.3, -0.3, 0.55, -0.55, 0.8, -0.8)
"""How far a link's middle may stand off the straight line, in cells, tried in this order."""


def _bowed(a: np.ndarray, b: np.ndarray, bow: float, spacing: float) -> np.ndarray:
    """(N, 2) points about `spacing` pixels apart along the quadratic curve from `a` to `b`
    whose middle stands `bow` pixels to the left of the straight line (to the right when
    negative; straight when 0)."""
    d = b - a
    length = max(float(np.hypot(d[0], d[1])), 1e-6)
    control = (a + b) / 2 + np.float32([-d[1], d[0]]) * np.float32(2 * bow / length)
    n = max(2, int(np.ceil((length + 2 * abs(bow)) / spacing)) + 1)
    t = np.linspace(0.0, 1.0, n, dtype=np.float32)[:, None]
    return (1 - t) ** 2 * a + 2 * (1 - t) * t * control + t**2 * b


def _along(path: np.ndarray, spacing: float) -> np.ndarray:
    """Points at most `spacing` pixels apart along a path (its ends included)."""
    steps = np.diff(path, axis=0)
    counts = np.maximum(1, np.ceil(np.hypot(steps[:, 0], steps[:, 1]) / spacing)).astype(int)
    which = np.repeat(np.arange(len(steps)), counts)
    first = np.repeat(np.cumsum(counts) - counts, counts)
    share = (np.arange(len(which)) - first) / np.repeat(counts, counts)
    points = path[which] + steps[which] * share[:, None].astype(np.float32)
    return np.concatenate([points, path[-1:]])


class _Obstacles:
    """What a link should not run over, drawn at a quarter of the canvas's resolution: the
    pattern's ringed and struck candidates, the solved cells' digits and the links drawn so far
    (measuring a path against a map costs a lookup per point, whatever is on it)."""

    SCALE = 4

    def __init__(self, shape: tuple[int, ...], size: int, radius: float) -> None:
        self.size = size
        self.radius = radius
        self.map = np.zeros((shape[0] // self.SCALE + 1, shape[1] // self.SCALE + 1), np.uint8)

    def _points(self, points: np.ndarray) -> np.ndarray:
        return np.round(np.asarray(points, np.float32) / self.SCALE).astype(np.int32)

    def add_candidates(self, points: list[tuple[float, float]]) -> None:
        """Ringed or struck candidates: kept clear by a little more than their ring."""
        keep = max(1, round(1.1 * self.radius / self.SCALE))
        for x, y in self._points(np.reshape(points, (-1, 2))):
            cv2.circle(self.map, (int(x), int(y)), keep, 1, -1)

    def add_digit(self, top: tuple[float, float], bottom: tuple[float, float]) -> None:
        """A solved cell's digit, standing from `top` to `bottom` (the places of its candidates
        2 and 8), half a cell wide."""
        (x0, y0), (x1, y1) = self._points(np.float32([top, bottom]))
        width = max(1, round(self.size / 2 / self.SCALE))
        cv2.line(self.map, (int(x0), int(y0)), (int(x1), int(y1)), 1, width)

    def add_path(self, path: np.ndarray, width: float) -> None:
        """A link drawn: kept clear by `width` pixels on either side."""
        thickness = max(1, round(2 * width / self.SCALE))
        cv2.polylines(self.map, [self._points(path)], False, 1, thickness)

    def cost(self, samples: np.ndarray) -> float:
        """How many of a path's `samples` lie on an obstacle, a point off the canvas counting
        four."""
        at = self._points(samples)
        inside = (
            (at >= 0).all(axis=1) & (at[:, 0] < self.map.shape[1]) & (at[:, 1] < self.map.shape[0])
        )
        on = float(self.map[at[inside, 1], at[inside, 0]].sum())
        return on + 4.0 * float((~inside).sum())


def _link_path(a: np.ndarray, b: np.ndarray, obstacles: _Obstacles) -> np.ndarray:
    """The path of a link from `a` to `b`: straight when nothing lies in its way, else the bow
    (`_BOWS`) that runs over the fewest obstacles (a straight line along a row of candidates
    would hide the digits it crosses and the links it runs along). The rings round its own
    ends are not in its way."""
    size, clear = obstacles.size, 1.2 * obstacles.radius
    best, least = a[None], np.inf
    for bow in _BOWS:
        path = _bowed(a, b, bow * size, size / 12)
        away = (np.linalg.norm(path - a, axis=1) > clear) & (
            np.linalg.norm(path - b, axis=1) > clear
        )
        cost = obstacles.cost(path[away])
        if cost < least:
            best, least = path, cost
        if cost == 0:
            break
    return best


def _trimmed(path: np.ndarray, radius: float) -> np.ndarray | None:
    """The part of `path` outside the rings of radius `radius` round its ends; None when the
    rings cover it all."""
    fine = _along(path, 2.0)
    outside = (np.linalg.norm(fine - path[0], axis=1) > radius) & (
        np.linalg.norm(fine - path[-1], axis=1) > radius
    )
    index = np.flatnonzero(outside)
    if len(index) < 2:
        return None
    return fine[index[0] : index[-1] + 1]


def _draw_link(mask: np.ndarray, path: np.ndarray, width: int, dash: float, tip: float) -> None:
    """Draw a link's path (a fine polyline) with an arrow head `tip` pixels long at its end,
    solid or in dashes `dash` pixels long (0 for solid)."""
    steps = np.linalg.norm(np.diff(path, axis=0), axis=1)
    walked = np.concatenate([[0.0], np.cumsum(steps)])
    length = float(walked[-1])
    tip = min(tip, length / 2)
    head = int(np.searchsorted(walked, length - tip))
    body = path[: head + 1]
    if dash:
        phase = (walked[: head + 1] // dash).astype(int) % 2 == 0
        pieces = np.split(body, np.flatnonzero(np.diff(phase.astype(int))) + 1)
        starts = np.split(phase, np.flatnonzero(np.diff(phase.astype(int))) + 1)
        lines = [
            piece for piece, on in zip(pieces, starts, strict=True) if on[0] and len(piece) > 1
        ]
    else:
        lines = [body]
    for line in lines:
        cv2.polylines(mask, [np.round(line).astype(np.int32)], False, 255, width, cv2.LINE_AA)
    cv2.arrowedLine(mask, _int(path[head]), _int(path[-1]), 255, width, cv2.LINE_AA, tipLength=1.0)


def _int(point: np.ndarray) -> tuple[int, int]:
    return round(float(point[0])), round(float(point[1]))


def render_step(
    step: Step,
    cell: int,
    grid: CandidateGrid | None = None,
    *,
    color: tuple[int, int, int] = DEFAULT_COLOR,
    digit_height: float = DEFAULT_DIGIT_HEIGHT,
) -> np.ndarray:
    """The upright overlay of `step` as BGRA, 9 * `cell` pixels square (see the module's
    docstring for what is drawn); `grid` is the state the step was found in."""
    marked = set(step.candidates) | set(step.eliminations)
    marked |= {end for link in step.links for end in (link.start, link.end)}
    drawn = {member for unit in step.units for member in UNITS[unit]} | set(step.cells)
    drawn |= {member for member, _ in marked} | {member for member, _ in step.placements}
    canvas = _Canvas(cell, drawn)
    size = cell
    line = max(1, round(size / 22))

    mask = canvas.blank()
    for unit in step.units:
        for member in UNITS[unit]:
            cv2.rectangle(mask, *canvas.box(member), 255, -1)
    canvas.paint(mask, UNIT_TINT, 0.28)

    mask, fins = canvas.blank(), canvas.blank()
    for member in step.cells:
        cv2.rectangle(fins if member in step.fins else mask, *canvas.box(member, line), 255, -1)
    canvas.paint(mask, CELL_TINT, 0.45)
    canvas.paint(fins, FIN_TINT, 0.45)

    if grid is not None:
        mask = canvas.blank()
        placed = {member for member, _ in step.placements}
        for member in step.cells:
            if grid.values[member] or member in placed:
                continue
            for d in range(9):
                if grid.cands[member] >> d & 1 and (member, d + 1) not in marked:
                    _small_digit(mask, canvas.point((member, d + 1)), d + 1, size)
        canvas.paint(mask, PENCIL, 1.0)

    # A ring fits its ninth of the cell and leaves its digit clear inside: the ringed and struck
    # digits are drawn smaller than the pencil marks, the ring and the stroke thin.
    radius = max(3, round(size / 6.4))
    thin = max(1, round(size / 45))
    backing = canvas.blank()
    for candidate in marked:
        x, y = canvas.point(candidate)
        cv2.circle(backing, (round(x), round(y)), radius, 255, -1, cv2.LINE_AA)
    canvas.paint(backing, (255, 255, 255), 0.8)

    ring = canvas.blank()
    ringed = set(step.candidates) | {end for link in step.links for end in (link.start, link.end)}
    ringed -= set(step.eliminations)
    digits = canvas.blank()
    for candidate in ringed:
        x, y = canvas.point(candidate)
        cv2.circle(ring, (round(x), round(y)), radius, 255, thin, cv2.LINE_AA)
        _small_digit(digits, (x, y), candidate[1], size, 0.2)
    canvas.paint(ring, PATTERN, 1.0)
    canvas.paint(digits, PATTERN, 1.0)

    strong, weak = canvas.blank(), canvas.blank()
    obstacles = _Obstacles(strong.shape, size, radius)
    obstacles.add_candidates([canvas.point(candidate) for candidate in marked])
    solved = [] if grid is None else [member for member in range(81) if grid.values[member]]
    for member in solved + [member for member, _ in step.placements]:
        obstacles.add_digit(canvas.point((member, 2)), canvas.point((member, 8)))
    for link in step.links:
        a = np.float32(canvas.point(link.start))
        b = np.float32(canvas.point(link.end))
        path = _trimmed(_link_path(a, b, obstacles), radius)
        if path is None:
            continue
        obstacles.add_path(path, 3.0 * line)
        if link.strong:
            _draw_link(strong, path, line, 0.0, size / 4)
        else:
            _draw_link(weak, path, line, size / 6, size / 4)
    canvas.paint(strong, PATTERN, 0.95)
    canvas.paint(weak, WEAK_LINK, 0.95)

    struck = canvas.blank()
    half = round(size / 9)
    for candidate in step.eliminations:
        point = canvas.point(candidate)
        x, y = (round(v) for v in point)
        _small_digit(struck, point, candidate[1], size, 0.2)
        cv2.line(struck, (x - half, y + half), (x + half, y - half), 255, thin, cv2.LINE_AA)
    canvas.paint(struck, STRUCK, 1.0)

    # A placed digit stands alone in its cell: the pencil marks under it are covered.
    covered = canvas.blank()
    for member, _ in step.placements:
        cv2.rectangle(covered, *canvas.box(member, line), 255, -1)
    canvas.paint(covered, (255, 255, 255), 1.0)
    canvas.paint(covered, CELL_TINT, 0.45)

    frame = canvas.blank()
    for member, _ in step.placements:
        cv2.rectangle(frame, *canvas.box(member, line), 255, 2 * line)
    canvas.paint(frame, color, 1.0)
    out = canvas.bgra()
    for member, digit in step.placements:
        sprite, sprite_alpha = digit_sprite(digit, size, float(digit_height), color)
        (x0, y0), _ = _cell_box(member, size)
        region = out[y0 : y0 + size, x0 : x0 + size]
        weight = sprite_alpha.astype(np.float32)[..., None] / 255.0
        region[..., :3] = np.clip(sprite * weight + region[..., :3] * (1 - weight) + 0.5, 0, 255)
        region[..., 3] = np.maximum(region[..., 3], sprite_alpha)
    return out


def draw_step(
    image_bgr: np.ndarray,
    corners: np.ndarray,
    step: Step,
    grid: CandidateGrid | None = None,
    *,
    color: tuple[int, int, int] = DEFAULT_COLOR,
    digit_height: float = DEFAULT_DIGIT_HEIGHT,
) -> np.ndarray:
    """A copy of the photo with `step` drawn into the grid whose upright corners (TL, TR, BR, BL,
    image pixels) are `corners`; `grid`, the state the step was found in, adds the candidates
    left in the step's cells."""
    quad = np.asarray(corners, np.float32)
    if quad.size != 8:
        raise ValueError("corners must be 4 points (x, y)")
    cell = min(overlay_size(quad) // 9, _MAX_CELL)
    bgra = render_step(step, cell, grid, color=color, digit_height=digit_height)
    part, part_quad = _drawn_part(bgra, quad)
    return composite_bgra(image_bgr, part, part_quad)


def _drawn_part(bgra: np.ndarray, quad: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The smallest square of the overlay that holds everything drawn, and its corners in the
    photo: a step usually covers a unit or two, so warping and blending only that part saves
    most of the cost on a large photo."""
    side = bgra.shape[0]
    x, y, w, h = cv2.boundingRect(bgra[..., 3])
    size = max(w, h, 1)
    x0, y0 = min(x, side - size), min(y, side - size)
    e = side - 0.5
    square = np.float32([[-0.5, -0.5], [e, -0.5], [e, e], [-0.5, e]])
    homography = cv2.getPerspectiveTransform(square, quad.reshape(4, 2))
    a, b = x0 - 0.5, y0 - 0.5
    corners = np.float32([[a, b], [a + size, b], [a + size, b + size], [a, b + size]])
    part_quad = cv2.perspectiveTransform(corners.reshape(-1, 1, 2), homography).reshape(4, 2)
    return np.ascontiguousarray(bgra[y0 : y0 + size, x0 : x0 + size]), part_quad


def render_grid(grid: CandidateGrid, cell: int = _MAX_CELL) -> tuple[np.ndarray, np.ndarray]:
    """A clean picture of a state: the placed digits in black, every empty cell's candidates
    small in grey, on white with a margin; and the grid's corners in it (TL, TR, BR, BL)."""
    margin = cell // 3
    side = 9 * cell + 2 * margin
    image = np.full((side, side, 3), 255, np.uint8)
    ink = np.zeros((9 * cell, 9 * cell), np.uint8)
    pencil = np.zeros_like(ink)
    for member, value in enumerate(grid.values):
        if value:
            sprite, alpha = digit_sprite(value, cell, 0.62, (0, 0, 0))
            (x0, y0), _ = _cell_box(member, cell)
            ink[y0 : y0 + cell, x0 : x0 + cell] = np.maximum(
                ink[y0 : y0 + cell, x0 : x0 + cell], alpha
            )
        else:
            for d in range(9):
                if grid.cands[member] >> d & 1:
                    _small_digit(pencil, candidate_point((member, d + 1), cell), d + 1, cell)
    for k in range(10):
        width = 3 if k % 3 == 0 else 1
        at = k * cell - (width // 2 if k < 9 else width)
        at = min(max(at, 0), 9 * cell - width)
        ink[:, at : at + width] = 255
        ink[at : at + width, :] = 255
    inner = image[margin:-margin, margin:-margin]
    for mask, shade in ((pencil, PENCIL), (ink, (0, 0, 0))):
        weight = mask.astype(np.float32)[..., None] / 255.0
        inner[:] = np.clip(np.float32(shade) * weight + inner * (1 - weight) + 0.5, 0, 255)
    end = float(margin + 9 * cell)
    corners = np.float32([[margin, margin], [end, margin], [end, end], [margin, end]])
    return image, corners


def add_caption(image_bgr: np.ndarray, text: str) -> np.ndarray:
    """The picture with `text` written below it in black on white, wrapped to its width."""
    width = image_bgr.shape[1]
    scale = max(0.5, width / 1400)
    thickness = max(1, round(scale * 1.6))
    (_, line_h), base = cv2.getTextSize("Ag", _FACE, scale, thickness)
    pad = round(line_h * 0.8)
    lines: list[str] = []
    for word in text.translate(_CAPTION_ASCII).encode("ascii", "replace").decode().split():
        trial = f"{lines[-1]} {word}" if lines else word
        if lines and cv2.getTextSize(trial, _FACE, scale, thickness)[0][0] <= width - 2 * pad:
            lines[-1] = trial
        else:
            lines.append(word)
    step_h = line_h + base + pad // 2
    band = np.full((pad * 2 + step_h * len(lines), width, 3), 255, np.uint8)
    for k, words in enumerate(lines):
        y = pad + line_h + k * step_h
        cv2.putText(band, words, (pad, y), _FACE, scale, (20, 20, 20), thickness, cv2.LINE_AA)
    return np.vstack([image_bgr, band])
