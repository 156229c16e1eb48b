"""What a cell holds, read from its own pixels: nothing, a digit, or pencilled candidates.

A small network (`ContentClassifier`, models/cells.onnx, trained by `train.cells`) looks at each
cell's line-free ink (`CellInk.ink`) turned upright and scaled by the grid's own stroke
darkness (`ink_level`), so that a faint small mark is faint beside the grid's other digits. It
gives the probability of each of CONTENT_NAMES and, for every digit 1-9, that it is pencilled
small in the cell. The reader (`read.reader`) takes a cell it calls candidates for pencil notes,
never an entry; the digits pencilled there are read at their keypad places where that reading
is whole, else its separate marks each read by the digit model (`pencilled_digits`), else the
candidate outputs where no mark is made out.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

import cv2
import numpy as np

from sudoku_lens.read.digits import WORK, CellInk, DigitClassifier, draw_found, rotate_grid
from sudoku_lens.read.onnx_model import ShippedModel

CONTENT_MODEL_PATH = Path(__file__).with_name("models") / "cells.onnx"

CONTENT_NAMES = ("empty", "digit", "candidates")
"""What the model tells a cell holds, by index."""

NOTHING, DIGIT, CANDIDATES = range(3)

INPUT = 32
"""Side of the model's input: a cell and a little of its margin (VIEW), scaled down."""

VIEW = slice(4, WORK - 4)
"""The part of a WORK-pixel crop the model sees: the cell (the middle 36 pixels) and 2 pixels of
its neighbours on each side, so that a candidate touching the cell's line is seen whole."""

INK_RANGE = 1.5
"""Ink as a share of the grid's stroke darkness at which the input saturates (1.0)."""

LEAST_LEVEL = 20.0
"""Least stroke darkness a grid's ink is scaled by (a grid of faint marks only)."""

MARKED = 12
"""Ink (grey levels darker than the paper) that counts as a mark; a cell with fewer than
MARKED_PIXELS such pixels holds nothing and is not shown to the model."""

MARKED_PIXELS = 4

CANDIDATE_CHANCE = 0.5
"""Least probability of a digit's candidate output for it to be read as pencilled."""


def ink_level(found: Sequence[CellInk]) -> float:
    """The stroke darkness of a grid's digits, in grey levels: the 75th percentile of that of
    its marks (`CellInk.level`); 0 for a grid without marks."""
    levels = [cell.level for cell in found if cell.mask is not None]
    return float(np.percentile(levels, 75)) if levels else 0.0


def cell_input(ink: np.ndarray, level: float) -> np.ndarray:
    """(INPUT, INPUT) float32 model input of one upright cell's ink (WORK x WORK uint8) in a
    grid of stroke darkness `level` (`ink_level`)."""
    scale = 1.0 / (INK_RANGE * max(level, LEAST_LEVEL))
    view = np.ascontiguousarray(ink[VIEW, VIEW], np.float32)
    small = cv2.resize(view, (INPUT, INPUT), interpolation=cv2.INTER_AREA)
    return np.minimum(small * scale, 1.0)


def upright_inks(found: Sequence[CellInk], turns: int) -> list[np.ndarray]:
    """The 81 cells' ink (as they lie in the photo in `found`) turned upright, row by row of
    the upright puzzle (`turns` quarter turns clockwise make it upright)."""
    laid = rotate_grid(np.arange(81).reshape(9, 9), turns).ravel()
    return [np.rot90(found[int(i)].ink, -turns) for i in laid]


def is_marked(ink: np.ndarray) -> bool:
    """Whether a cell's ink holds a mark at all (MARKED_PIXELS pixels of MARKED ink in VIEW)."""
    return int(np.count_nonzero(ink[VIEW, VIEW] > MARKED)) >= MARKED_PIXELS


class ContentClassifier(ShippedModel):
    """The shipped ONNX cell-content model ((N, 1, INPUT, INPUT) inputs in; (N, 3) content
    probabilities and (N, 9) candidate probabilities out), run by ONNX Runtime on one core."""

    def __init__(self, model_path: str | Path = CONTENT_MODEL_PATH) -> None:
        super().__init__(model_path)

    def predict(self, inputs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(N, 3) content and (N, 9) candidate probabilities of (N, INPUT, INPUT) inputs."""
        batch = np.ascontiguousarray(np.asarray(inputs, np.float32).reshape(-1, 1, INPUT, INPUT))
        if len(batch) == 0:
            return np.zeros((0, len(CONTENT_NAMES)), np.float32), np.zeros((0, 9), np.float32)
        content, candidates = self.session.run(None, {self._input: batch})
        return content, candidates


def read_contents(
    found: Sequence[CellInk],
    turns: int,
    classifier: ContentClassifier | None = None,
    wanted: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """(9, 9, 3) content and (9, 9, 9) candidate probabilities of the upright puzzle's cells
    from their ink (`found`, as laid in the photo). A cell without a mark (`is_marked`), or
    left out of `wanted` ((9, 9) bool, upright: all cells by default), is empty without being
    shown to the model."""
    inks = upright_inks(found, turns)
    level = ink_level(found)
    wanted = np.ones(81, bool) if wanted is None else np.asarray(wanted, bool).ravel()
    marked = [i for i, ink in enumerate(inks) if wanted[i] and is_marked(ink)]
    content = np.zeros((81, len(CONTENT_NAMES)), np.float32)
    content[:, NOTHING] = 1.0
    candidates = np.zeros((81, 9), np.float32)
    if marked:
        inputs = np.stack([cell_input(inks[i], level) for i in marked])
        content[marked], candidates[marked] = (classifier or ContentClassifier.default()).predict(
            inputs
        )
    return content.reshape(9, 9, -1), candidates.reshape(9, 9, 9)


def candidate_digits(probabilities: np.ndarray) -> tuple[int, ...]:
    """The digits pencilled in a cell read as candidates, from its (9,) candidate
    probabilities: those at CANDIDATE_CHANCE or more, or the likeliest one when none is."""
    chosen = np.flatnonzero(np.asarray(probabilities) >= CANDIDATE_CHANCE)
    if len(chosen) == 0:
        chosen = [int(np.argmax(probabilities))]
    return tuple(int(i) + 1 for i in chosen)


def candidate_certainty(probabilities: np.ndarray) -> float:
    """How sure the candidate outputs (9,) are of the digits `candidate_digits` reads from
    them: the least of the chosen digits' probabilities and of the others' complements."""
    probabilities = np.asarray(probabilities, np.float64)
    chosen = np.zeros(9, bool)
    chosen[[d - 1 for d in candidate_digits(probabilities)]] = True
    return float(min(probabilities[chosen].min(), 1.0 - probabilities[~chosen].max(initial=0.0)))


CELL_SPAN = slice(5, WORK - 5)
"""The cell itself in a WORK-pixel crop, and a pixel of its lines (candidates touch them)."""

MARK_SHARE = 0.35
"""Ink, as a share of the cell's darkest, that counts as part of a pencilled mark."""

GHOST_SHARE = 0.5
"""Least darkness of a mark, as a share of the cell's darkest, for it to be read: fainter ones
are the ghosts of rubbed-out candidates."""

STACKED = 0.5
"""Share of the narrower of two marks' widths that they must overlap by, side to side, to be
pieces of one digit (the flag of a 5, a 4 written in two strokes)."""

STACKED_GAP = 0.3
"""Largest gap between two marks, top to bottom, as a share of the taller one's height, for
them to be pieces of one digit: candidates pencilled one above the other (the 1 and the 4 of
a keypad layout) stand apart. On kubiesa-train's training photos (340 candidate cells) the
reader reads 273 exactly with it, 270 without (merging any two marks that overlap side to
side)."""

JOINED = 0.9
"""Width, as a share of its height, beyond which a mark is digits written joined (a "45", cut
into two or more). A digit alone is narrower; pencilled pairs are often written touching. On
kubiesa-train's training photos (340 candidate cells, the digit model not trained on their
marks), exact / holding a digit not pencilled: 273 / 2 at 1.1, 304 / 4 at 0.95, 309 / 6 at 0.9,
308 / 6 at 0.85; the photos with candidates reported to leave out the answer stay 1 of 64."""

DIGIT_ASPECT = 0.65
"""Width of one joined digit, as a share of the mark's height, by which a joined mark is cut."""

SPECK = 0.4
"""Least height of a mark, as a share of the tallest mark of its cell, for it to be read: lower
ones are specks (a grid line's crossing, a dot of the page), not digits. Candidate cells read
exactly by their marks (`pencilled_digits`) without it / with it: kubiesa-train's training
photos 313 / 320 of 340; generated photos (`benchmarks/candidates.py`'s, seeds 20001-20040 and
30001-30040) 187 / 198 of 247 and 169 / 191 of 246; those read with a digit not pencilled the
same but 1."""


def mark_masks(ink: np.ndarray) -> list[np.ndarray]:
    """The masks (WORK x WORK bool) of the separate small digits pencilled in an upright cell's
    ink, left to right: its marks (8-connected ink of MARK_SHARE of the darkest), ghosts left
    out (GHOST_SHARE), the pieces of one digit put together (STACKED, STACKED_GAP) and digits
    written joined cut apart (JOINED), specks left out (SPECK)."""
    cell = np.zeros_like(ink)
    cell[CELL_SPAN, CELL_SPAN] = ink[CELL_SPAN, CELL_SPAN]
    flat = cell.ravel()
    peak = float(np.partition(flat, flat.size - 5)[flat.size - 5])
    if peak < MARKED:
        return []
    marks = (cell > max(MARKED, MARK_SHARE * peak)).view(np.uint8)
    count, labels, stats, _ = cv2.connectedComponentsWithStats(marks, connectivity=8)
    darkest = np.zeros(count, cell.dtype)
    np.maximum.at(darkest, labels.ravel(), cell.ravel())
    boxes = []
    for i in range(1, count):
        x, y, w, h, area = (int(v) for v in stats[i])
        if area >= MARKED_PIXELS and darkest[i] >= GHOST_SHARE * peak:
            boxes.append([x, y, x + w, y + h, [i]])
    boxes.sort(key=lambda box: box[0])
    groups: list[list] = []
    for box in boxes:
        for group in groups:
            overlap = min(box[2], group[2]) - max(box[0], group[0])
            gap = max(box[1], group[1]) - min(box[3], group[3])
            if overlap > STACKED * min(
                box[2] - box[0], group[2] - group[0]
            ) and gap <= STACKED_GAP * max(box[3] - box[1], group[3] - group[1]):
                group[:4] = [
                    min(box[0], group[0]),
                    min(box[1], group[1]),
                    max(box[2], group[2]),
                    max(box[3], group[3]),
                ]
                group[4] += box[4]
                break
        else:
            groups.append(box)
    out = []
    for x0, y0, x1, y1, members in groups:
        mask = np.isin(labels, members)
        width, height = x1 - x0, y1 - y0
        pieces = max(2, round(width / (DIGIT_ASPECT * height))) if width > JOINED * height else 1
        edges = np.linspace(x0, x1, pieces + 1).round().astype(int)
        for a, b in zip(edges[:-1], edges[1:], strict=True):
            piece = np.zeros_like(mask)
            piece[:, a:b] = mask[:, a:b]
            if np.count_nonzero(piece) >= MARKED_PIXELS:
                out.append(piece)
    if not out:
        return out
    heights = [cv2.boundingRect(mask.view(np.uint8))[3] for mask in out]
    least = SPECK * max(heights)
    return [mask for mask, height in zip(out, heights, strict=True) if height >= least]


PENCIL_SURE = 0.5
"""Least probability the digit model must give each mark of a cell for the cell's pencilled
digits to be read (`pencilled_digits`); a cell with a doubtful mark has none read (None), so
that a misread mark does not make a wrong list of candidates. Set on kubiesa-train's training
photos (340 candidate cells, keypad readings first), exact / holding a digit not pencilled /
none read (marks cut as JOINED was 1.1): at 0 (every mark taken) 271 / 23 / 5; at 0.5,
270 / 3 / 43; at 0.8, 247 / 2 / 86. A digit not pencilled can make a right list look wrong, so
0.5 keeps nearly every exact reading and drops most of those."""


TALL = 2.2
"""Height of a mark, as a share of its width, from which it is also read cut in two, top and
bottom (`_cuts`), and taken for two digits where the digit model reads two different ones,
surer of both than of the whole: two candidates pencilled one above the other, touching, that
`mark_masks` took for one (a 3 over a 6 reads as an 8). A digit alone is seldom so tall but a
1 (or a stroke left of a line), which cut in two reads as 1 and 1 or not surely at all. With
SPECK, candidate cells read exactly by their marks without it / with it: kubiesa-train's
training photos 320 / 320; generated (seeds 20001-20040, 30001-30040) 198 / 220 of 247 and
191 / 206 of 246; those read at `pipeline.CANDIDATES_SURE` or more with a digit not pencilled
the same."""

CUTS = (0.4, 0.5, 0.6)
"""Where a mark is cut (`_cuts`), as shares of its box's height from the top."""


class PencilledDigits(NamedTuple):
    """The digits read in a cell's separate marks (`pencilled_digits`)."""

    digits: tuple[int, ...] | None
    """The distinct digits read, sorted; () where no mark is made out, None where a mark was
    read below the least sureness asked for."""
    sureness: float
    """The least probability the digit model gave any mark's digit (1.0 without marks)."""


def _mark_image(ink: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The digit model's prepared image of one mark of a cell's ink."""
    return draw_found(CellInk(ink, mask, float(np.percentile(ink[mask], 90))))


def _cuts(mask: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """A mark cut in two, top and bottom, at CUTS of its box's height, the cuts leaving a piece
    too small to read left out. Only across: digits pencilled side by side are cut apart by
    `mark_masks` (JOINED), and cut down its length a tall mark makes two strokes the digit
    model reads as digits more often than it finds two digits."""
    _, top, _, height = cv2.boundingRect(mask.view(np.uint8))
    pairs = []
    for at in sorted({top + round(share * height) for share in CUTS}):
        upper, lower = np.zeros_like(mask), np.zeros_like(mask)
        upper[:at], lower[at:] = mask[:at], mask[at:]
        if min(np.count_nonzero(upper), np.count_nonzero(lower)) >= MARKED_PIXELS:
            pairs.append((upper, lower))
    return pairs


def _read_marks(inks: Sequence[np.ndarray], classifier: DigitClassifier) -> list[list[np.ndarray]]:
    """The digit model's (10,) probabilities of each digit pencilled in each cell's ink: its
    marks (`mark_masks`), a tall one read as two digits where a cut of it reads surer (TALL),
    all in two batches."""
    marks = [(owner, mask) for owner, ink in enumerate(inks) for mask in mark_masks(ink)]
    read: list[list[np.ndarray]] = [[] for _ in inks]
    if not marks:
        return read
    whole = classifier.predict_prepared(np.stack([_mark_image(inks[o], m) for o, m in marks]))
    chosen = [[p] for p in whole]
    best = [float(p[1:].max()) for p in whole]
    tries = []
    for index, (_, mask) in enumerate(marks):
        _, _, width, height = cv2.boundingRect(mask.view(np.uint8))
        if height >= TALL * width:
            tries += [(index, pair) for pair in _cuts(mask)]
    if tries:
        pieces = classifier.predict_prepared(
            np.stack([_mark_image(inks[marks[i][0]], piece) for i, pair in tries for piece in pair])
        )
        for k, (index, _) in enumerate(tries):
            pair = pieces[2 * k : 2 * k + 2]
            upper, lower = pair[:, 1:].argmax(axis=1)
            score = float(pair[:, 1:].max(axis=1).min())
            if upper != lower and score > best[index]:
                best[index], chosen[index] = score, list(pair)
    for (owner, _), probabilities in zip(marks, chosen, strict=True):
        read[owner] += probabilities
    return read


def pencilled_digits(
    inks: Sequence[np.ndarray], classifier: DigitClassifier, sure: float = PENCIL_SURE
) -> list[PencilledDigits]:
    """The digits pencilled in each of upright cells' inks, each mark read by the digit model
    (`classifier`; `_read_marks`); digits () for a cell where none is made out, None for one
    with a mark read below `sure`. On kubiesa-train's validation photos the reader reads the
    digits of 36 of the 36 candidate cells exactly this way, the content model's own candidate
    outputs 13."""
    out = []
    for probabilities in _read_marks(inks, classifier):
        digits = [int(p[1:].argmax()) + 1 for p in probabilities]
        least = min((float(p[d]) for p, d in zip(probabilities, digits, strict=True)), default=1.0)
        out.append(PencilledDigits(None if least < sure else tuple(sorted(set(digits))), least))
    return out
