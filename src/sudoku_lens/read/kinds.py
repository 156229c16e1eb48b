"""Cell kinds: what a cell of a photographed grid holds, besides which digit.

A cell is empty, a printed digit (a given of the puzzle), a handwritten digit (the person's own
entry, in pen or pencil) or pencil notes (small candidate digits, which count as empty for
solving). `Reading.kinds` holds one kind index per cell; `read --json` writes them as 81
characters of KIND_CHARS.

The kind is read by a small model of its own (`KindClassifier`, models/kinds.onnx) from numbers
measured on each cell and against the grid's other digits (`kind_features`): colour, stroke
darkness and width, size and place in the cell, stray small marks, and the digit model's
confidence. `assign_kinds` puts the two models' answers together, weighing the digits read as
print or pen as two groups of the grid (`weigh_print_against_pen`); a cell read as handwriting
that holds small candidates at their keypad places is pencil notes (`keypad_candidates`), and
those digits are the cell's candidates (`Reading.candidates`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import cv2
import numpy as np

from sudoku_lens.errors import PuzzleFormatError
from sudoku_lens.read.digits import (
    SIZE,
    WORK,
    CellInk,
    DigitClassifier,
    boxes,
    draw_found,
    find_inks,
    orient_prepared,
    prepare_found,
    rotate_grid,
    side_by_side,
)
from sudoku_lens.read.grid import GridLocation
from sudoku_lens.read.onnx_model import ShippedModel

KIND_NAMES = ("empty", "printed", "handwritten", "notes")
"""Cell kinds, by index: empty, a printed digit, a handwritten digit, pencil notes."""

KIND_CHARS = ".phn"
"""One character per kind, by index (as in `read --json`'s "kinds")."""

EMPTY, PRINTED, HANDWRITTEN, NOTES = range(4)


def kinds_text(kinds: np.ndarray) -> str:
    """81 characters of KIND_CHARS for a 9x9 array of kind indices."""
    return "".join(KIND_CHARS[int(k)] for k in np.asarray(kinds).ravel())


Candidates = tuple[tuple[tuple[int, ...], ...], ...]
"""9 rows of 9 cells of sorted candidate digits, `()` where a cell holds none."""

NO_CANDIDATES: Candidates = tuple(tuple(() for _ in range(9)) for _ in range(9))
"""A grid without any candidates."""


def candidates_json(candidates: Candidates) -> list[str]:
    """81 strings, row by row: each cell's candidates as digits ("45"), "" where none."""
    return ["".join(map(str, cell)) for row in candidates for cell in row]


def parse_candidates(cells: Sequence[str]) -> Candidates:
    """The candidates of 81 strings of digits 1-9 (as `candidates_json` writes them; a cell's
    digits in any order, repeats counted once). PuzzleFormatError for anything else."""
    if isinstance(cells, str) or len(cells) != 81:
        raise PuzzleFormatError(
            'candidates must be a list of 81 strings of digits 1-9, "" for none'
        )
    out = []
    for index, text in enumerate(cells):
        if not isinstance(text, str) or not set(text) <= set("123456789"):
            raise PuzzleFormatError(
                f"candidates of r{index // 9 + 1}c{index % 9 + 1}: {text!r} is not digits 1-9"
            )
        out.append(tuple(sorted({int(ch) for ch in text})))
    return tuple(tuple(out[r * 9 : r * 9 + 9]) for r in range(9))


def as_candidates(candidates: Candidates | Sequence[str]) -> Candidates:
    """Candidates given as 9 rows of 9 digit tuples or as 81 strings of digits
    (`parse_candidates`), as 9 x 9 sorted tuples. PuzzleFormatError for anything else."""
    if len(candidates) == 81:
        return parse_candidates(candidates)  # type: ignore[arg-type]
    if len(candidates) != 9 or any(len(row) != 9 for row in candidates):
        raise PuzzleFormatError("candidates must be 9 rows of 9 cells, or 81 strings of digits")
    return parse_candidates(["".join(map(str, cell)) for row in candidates for cell in row])


def parse_kinds(text: str) -> np.ndarray:
    """The (9, 9) uint8 kind indices of 81 characters of KIND_CHARS (inverse of `kinds_text`)."""
    if len(text) != 81 or any(ch not in KIND_CHARS for ch in text):
        raise ValueError(f"kinds must be 81 characters of {KIND_CHARS!r}")
    return np.array([KIND_CHARS.index(ch) for ch in text], np.uint8).reshape(9, 9)


KINDS_MODEL_PATH = Path(__file__).with_name("models") / "kinds.onnx"

_INNER = slice(WORK // 6, WORK - WORK // 6)
"""The cell itself inside a crop (the crop's margin holds the neighbours' edges and the lines)."""
_FAINT = 12
"""Ink (grey levels darker than the local paper) that counts as a mark, digit or not."""
_SPECK = 3
"""Least pixels of a mark counted as a component (smaller ones are noise)."""

CELL_FEATURES = (
    "found",
    "kept",
    "darkness",
    "height",
    "width",
    "area",
    "stroke",
    "off_x",
    "off_y",
    "evenness",
    "stray_ink",
    "components",
    "stray_components",
    "spread",
    "marks",
    "stray_darkness",
    "largest_mark",
    "blue",
    "green",
    "red",
    "colourful",
    "p_empty",
    "p_best",
    "p_second",
    "p_pen",
)
"""What `kind_features` measures of each cell on its own (all in the upright puzzle's frame):
whether a digit was found and kept by `prepare_found`, its stroke darkness, height, width, ink
area, stroke width and centre offset (shares of the crop), how even its strokes are; the marks
beside it (pencil notes: several small marks spread over the cell): their ink, number, spread,
darkness and largest size; the ink's colour (`GridLocation.ink_colour`) and how coloured it is;
and the digit model's probability of empty, of its best digit, of the runner-up, and that the
digit's shape is handwriting (`DigitClassifier.predict_with_pen`)."""

CONTEXT_FEATURES = (
    "darkness",
    "height",
    "width",
    "area",
    "stroke",
    "evenness",
    "blue",
    "green",
    "red",
    "colourful",
    "p_best",
    "p_pen",
)
"""Cell features also given against the same measure over the grid's digits."""

CONTEXT_QUANTILES = (15, 50, 85)
"""Percentiles of the grid's digits each context feature is measured against (a cell's value
minus the percentile): print and pen differ, and either may be most of the grid's digits."""

FEATURES = len(CELL_FEATURES) + len(CONTEXT_FEATURES) * len(CONTEXT_QUANTILES) + 1
"""Numbers per cell `kind_features` gives: the cell's own, the cell against the grid, and the
share of the grid's cells holding a digit."""

_CONTEXT_INDEX = [CELL_FEATURES.index(name) for name in CONTEXT_FEATURES]
_SQUARE = np.ones((3, 3), np.uint8)


def _cell_features(
    found: Sequence[CellInk], kept: np.ndarray, colours: np.ndarray, odd_turns: bool
) -> np.ndarray:
    """(N, CELL_FEATURES) float32 of N cells but the digit model's features (left 0), from their
    ink (`find_ink`), whether each one's digit was kept, their ink colours (N, 3) and whether the
    upright frame swaps x and y. Measured on all the cells at once: the same numbers as one by
    one, in half the time for a grid's 81 cells."""
    n = len(found)
    out = np.zeros((n, len(CELL_FEATURES)), np.float32)
    colours = np.asarray(colours, np.float32).reshape(n, 3)
    out[:, 17:20] = colours
    out[:, 20] = colours.max(axis=1) - colours.min(axis=1)
    inks = np.stack([f.ink for f in found])
    ink = inks[:, _INNER, _INNER]
    marks = ink > _FAINT
    count = np.count_nonzero(marks, axis=(1, 2))
    inner = marks[0].size
    stray = marks.copy()
    digits = np.flatnonzero([f.mask is not None for f in found])
    if len(digits):
        masks = np.stack([found[i].mask for i in digits])
        level = np.array([found[i].level for i in digits])
        x, y, width, height = boxes(masks)
        off_x = np.abs(x + (width - 1) / 2.0 - (WORK - 1) / 2.0)
        off_y = np.abs(y + (height - 1) / 2.0 - (WORK - 1) / 2.0)
        if odd_turns:
            height, width, off_x, off_y = width, height, off_y, off_x
        area = np.count_nonzero(masks, axis=(1, 2))
        edge = area - np.count_nonzero(_eroded(masks), axis=(1, 2))
        ink_mean = np.where(masks, inks[digits], 0).sum(axis=(1, 2)) * (1.0 / area)
        out[digits, :10] = np.stack(
            [
                np.ones(len(digits)),
                np.asarray(kept, bool)[digits],
                level / 255.0,
                height / WORK,
                width / WORK,
                area / WORK**2,
                area / np.maximum(edge, 1.0) / 4.0,
                off_x / WORK,
                off_y / WORK,
                ink_mean / np.maximum(level, 1.0),
            ],
            axis=1,
        )
        stray[digits] &= ~_grown(_grown(masks[:, _INNER, _INNER]))
    marks_count, largest = _marks(marks)
    out[:, 11] = np.minimum(marks_count, 10) / 10.0
    out[:, 16] = largest / WORK
    stray_count = np.count_nonzero(stray, axis=(1, 2))
    out[:, 10] = stray_count / inner
    out[:, 12] = np.minimum(_marks(stray)[0], 10) / 10.0
    out[:, 15] = np.where(stray, ink, 0).max(axis=(1, 2)) / 255.0
    out[:, 13] = np.sqrt(np.maximum(_spread(marks), 0.0) / np.maximum(count, 1)) / WORK
    out[:, 14] = count / inner
    return out


def _eroded(masks: np.ndarray) -> np.ndarray:
    """A stack of bool masks eroded by a 3 x 3 cross, what lies beyond each mask's border
    counting as set (as `cv2.erode` takes it)."""
    padded = np.pad(masks, ((0, 0), (1, 1), (1, 1)), constant_values=True)
    return (
        masks
        & padded[:, :-2, 1:-1]
        & padded[:, 2:, 1:-1]
        & padded[:, 1:-1, :-2]
        & padded[:, 1:-1, 2:]
    )


def _grown(masks: np.ndarray) -> np.ndarray:
    """A stack of bool masks dilated by a 3 x 3 cross (as `cv2.dilate`: nothing beyond the
    border)."""
    out = masks.copy()
    out[:, 1:] |= masks[:, :-1]
    out[:, :-1] |= masks[:, 1:]
    out[:, :, 1:] |= masks[:, :, :-1]
    out[:, :, :-1] |= masks[:, :, 1:]
    return out


def _marks(masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Of each of a stack of bool masks, the number of its marks (8-connected components) of at
    least _SPECK pixels and the longest side of their boxes (0 without): the masks' components
    are found side by side in one image (`side_by_side`), a column of zeros between them. Every
    labelling algorithm finds the same components; BBDT's count and boxes take a third of the
    time of OpenCV's default one's on such an image."""
    side = masks.shape[1] + 2
    wide = side_by_side(masks.view(np.uint8), 1)
    _, _, stats, _ = cv2.connectedComponentsWithStatsWithAlgorithm(
        wide, 8, cv2.CV_32S, cv2.CCL_BBDT
    )
    big = stats[1:][stats[1:, 4] >= _SPECK]
    cell = big[:, 0] // side
    largest = np.zeros(len(masks), np.int64)
    np.maximum.at(largest, cell, big[:, 2:4].max(axis=1))
    return np.bincount(cell, minlength=len(masks)), largest


def _spread(masks: np.ndarray) -> np.ndarray:
    """mu20 + mu02 of each of a stack of bool masks: its second central moments, computed as
    `cv2.moments` computes them (0 for an empty mask)."""
    along = np.arange(masks.shape[1], dtype=np.int64)
    columns = masks.sum(axis=1, dtype=np.int64)
    rows = masks.sum(axis=2, dtype=np.int64)
    m00 = columns.sum(axis=1).astype(np.float64)
    m10, m20 = (columns @ along).astype(np.float64), (columns @ along**2).astype(np.float64)
    m01, m02 = (rows @ along).astype(np.float64), (rows @ along**2).astype(np.float64)
    inv = np.divide(1.0, m00, out=np.zeros_like(m00), where=m00 > 0)
    return (m20 - m10 * (m10 * inv)) + (m02 - m01 * (m01 * inv))


def kind_features(
    found: Sequence[CellInk],
    kept: np.ndarray,
    ink_colour: np.ndarray,
    probabilities: np.ndarray,
    pen: np.ndarray,
    turns: int,
) -> np.ndarray:
    """(9, 9, FEATURES) float32 features of each cell of the upright puzzle for the kinds model.

    `found` (`find_ink`), `kept` (whether `prepare_found` kept its digit) and `ink_colour` are
    the 81 cells as they lie in the photo; `probabilities` (9, 9, 10, upright) are the digit
    model's reading of every mark, however faint (`CellReading.candidates`), `pen` (9, 9,
    upright) its probability that each mark is handwritten, and `turns` `orient_prepared`'s.
    Each cell is measured alone (CELL_FEATURES) and against the grid's kept digits
    (CONTEXT_FEATURES minus each of CONTEXT_QUANTILES of the same over those digits): how a
    digit looks beside the others is the evidence for print or pen. Nothing here knows the
    puzzle's rules.
    """
    kept = np.asarray(kept, bool).reshape(81)
    colours = np.asarray(ink_colour, np.float32).reshape(81, 3)
    odd = turns % 2 == 1
    own = _cell_features(found, kept, colours, odd)
    upright = rotate_grid(own.reshape(9, 9, -1), turns).reshape(81, -1)
    probs = np.asarray(probabilities, np.float32).reshape(81, 10)
    ranked = np.sort(probs[:, 1:], axis=1)
    upright[:, 21] = probs[:, 0]
    upright[:, 22] = ranked[:, -1]
    upright[:, 23] = ranked[:, -2]
    upright[:, 24] = np.asarray(pen, np.float32).reshape(81)
    digits = upright[upright[:, 1] > 0][:, _CONTEXT_INDEX]
    values = upright[:, _CONTEXT_INDEX]
    context = np.zeros((81, len(CONTEXT_FEATURES) * len(CONTEXT_QUANTILES)), np.float32)
    if len(digits):
        levels = np.percentile(digits, CONTEXT_QUANTILES, axis=0)
        context = np.concatenate([values - level for level in levels], axis=1)
    filled = np.full((81, 1), len(digits) / 81.0, np.float32)
    out = np.concatenate([upright, context, filled], axis=1).astype(np.float32)
    return out.reshape(9, 9, FEATURES)


@dataclass(frozen=True)
class CellReading:
    """A located grid's cells read by the digit model, with the kinds model's features."""

    turns: int
    """Quarter turns clockwise that make the puzzle upright."""
    probabilities: np.ndarray
    """(9, 9, 10) float32 digit probabilities of the upright cells (class 0 = empty), as
    `orient` reads them."""
    candidates: np.ndarray
    """`probabilities`, but for marks `prepare_found` dropped as too faint beside the grid's
    other digits, the digit model's reading of them drawn anyway (`draw_found`)."""
    features: np.ndarray
    """(9, 9, FEATURES) float32 `kind_features` of the upright cells."""
    found: tuple[CellInk, ...] = ()
    """Each cell's ink (`find_ink`), the 81 as they lie in the photo."""


def read_cells(location: GridLocation, classifier: DigitClassifier | None = None) -> CellReading:
    """Read a located grid's cells: find each one's ink once, prepare and orient them with the
    digit model (`classifier`, the shipped one by default), read the faint marks too, and measure
    the kinds features."""
    clf = classifier or DigitClassifier.default()
    found = find_inks(location.cells)
    images = prepare_found(found, location.ink_colour)
    turns, probabilities, pen = orient_prepared(images, clf)
    probabilities = np.ascontiguousarray(probabilities, dtype=np.float32)
    kept = images.reshape(81, -1).max(axis=1) > 0
    faint = [i for i, f in enumerate(found) if f.mask is not None and not kept[i]]
    candidates = probabilities.copy()
    pen = pen.copy()
    if faint:
        drawn = np.zeros_like(images)
        drawn[faint] = np.stack([draw_found(found[i]) for i in faint])
        where = np.zeros(81, bool)
        where[faint] = True
        upright = rotate_grid(where.reshape(9, 9), turns)
        turned = rotate_grid(drawn.reshape(9, 9, SIZE, SIZE), turns)[upright]
        candidates[upright], pen[upright] = clf.predict_with_pen(turned)
    features = kind_features(found, kept, location.ink_colour, candidates, pen, turns)
    return CellReading(turns, probabilities, candidates, features, tuple(found))


KEYPAD_MARKS = 2
"""Distinct candidates at their own keypad places that make a cell pencil notes.

Players pencil a candidate small at its digit's place of a telephone keypad laid over the cell
(1 top left, 5 in the middle, 9 bottom right). Two or more separate small marks, each read as
the digit of the place where it stands, are notes whatever the kinds model says: on 240
generated hand-filled photos (`benchmarks/handwriting.py`'s four seed sets) that held for 634
of the 1,231 notes cells, 5 of the 17 the kinds model took for an entry, and for none of the
5,936 entries nor the printed digits."""

KEYPAD_NOTES_CHANCE = 0.01
"""Least probability of notes the kinds model gives a cell read as handwriting for its keypad
places to be looked at: 2% of generated entries, and every notes cell the model took for an
entry but one (a photo read from the wrong grid); on the dataset's hand-filled photos no cell
is looked at, where looking at every handwritten cell cost 3 ms a photo."""

_KEYPAD_INK = 0.35
"""Least ink of a candidate mark, as a share of the cell's darkest."""
_KEYPAD_LARGEST = 0.45
"""Largest side of a candidate mark, as a share of the cell (an entry's strokes are larger)."""
_KEYPAD_SURE = 0.5
"""Least probability of the digit read for a candidate mark."""


class KeypadReading(NamedTuple):
    """What `keypad_candidates` read in a cell."""

    digits: tuple[int, ...]
    """The distinct digits read at their own keypad places, sorted."""
    whole: bool
    """Whether they are all of the cell's marks: none left unread (unsure, away from its
    place, too faint beside the darkest to be looked at) and no digit read twice. A reading
    that is not whole may leave out a candidate the person pencilled, and so is no list of
    their candidates."""
    sureness: float = 1.0
    """The least probability the digit model gave any of the digits read."""


def _turned_point(point: np.ndarray, turns: int, side: int) -> tuple[float, float]:
    """(x, y) of a pixel centre of a `side`-pixel square after `turns` quarter turns clockwise."""
    x, y = float(point[0]), float(point[1])
    for _ in range(turns % 4):
        x, y = side - 1 - y, x
    return x, y


def keypad_candidates(
    found: Sequence[CellInk],
    cells: Sequence[int],
    turns: int,
    classifier: DigitClassifier | None = None,
) -> dict[int, KeypadReading]:
    """For each cell of `cells` (indices as they lie in the photo, whose ink `found` holds), the
    distinct digits that stand as separate small marks each at its own keypad place of the
    upright cell (see KEYPAD_MARKS), and whether that is every small mark of the cell; cells
    where none is found are left out. Only cells holding KEYPAD_MARKS small marks or more are
    read, by the digit model, all in one batch."""
    inner = WORK - 2 * (WORK // 6)
    third = inner / 3.0
    images: list[np.ndarray] = []
    places: list[tuple[int, tuple[int, int]]] = []
    counted: dict[int, int] = {}
    for cell in cells:
        laid = np.ascontiguousarray(found[cell].ink[_INNER, _INNER])
        flat = laid.ravel()
        peak = float(np.partition(flat, flat.size - 5)[flat.size - 5])
        if peak < _FAINT:
            continue
        marks = (laid > max(_FAINT, _KEYPAD_INK * peak)).view(np.uint8)
        count, labels, stats, centres = cv2.connectedComponentsWithStats(marks, connectivity=8)
        small = np.flatnonzero(
            (stats[1:, 4] > _SPECK) & (stats[1:, 2:4].max(axis=1) <= _KEYPAD_LARGEST * inner)
        )
        if len(small) < KEYPAD_MARKS:
            continue
        faint = cv2.connectedComponentsWithStats((laid > _FAINT).view(np.uint8), connectivity=8)
        counted[cell] = max(len(small), int(np.count_nonzero(faint[2][1:, 4] > _SPECK)))
        ink = np.ascontiguousarray(np.rot90(found[cell].ink, -turns))
        upright_labels = np.zeros((WORK, WORK), np.int32)
        upright_labels[_INNER, _INNER] = np.rot90(labels, -turns)
        for i in small + 1:
            piece = cv2.dilate((upright_labels == i).view(np.uint8), _SQUARE).view(bool)
            mask = piece & (ink > _FAINT // 2)
            level = float(np.percentile(ink[mask], 90))
            images.append(draw_found(CellInk(ink, mask, level)))
            x, y = _turned_point(centres[i], turns, inner)
            places.append((cell, (min(2, int(y // third)), min(2, int(x // third)))))
    if not images:
        return {}
    probabilities = (classifier or DigitClassifier.default()).predict_prepared(np.stack(images))
    digits: dict[int, list[int]] = {}
    sureness: dict[int, float] = {}
    for (cell, place), p in zip(places, probabilities, strict=True):
        digit = int(p[1:].argmax()) + 1
        if p[digit] >= _KEYPAD_SURE and divmod(digit - 1, 3) == place:
            digits.setdefault(cell, []).append(digit)
            sureness[cell] = min(sureness.get(cell, 1.0), float(p[digit]))
    return {
        cell: KeypadReading(
            tuple(sorted(set(read))),
            len(set(read)) == len(read) == counted[cell],
            sureness[cell],
        )
        for cell, read in digits.items()
    }


def allowed_kind_probabilities(
    kind_probabilities: np.ndarray, digit_probabilities: np.ndarray
) -> np.ndarray:
    """(9, 9, 4) the kinds model's probabilities with the kinds the digit model rules out set to
    0 and the rest scaled to sum to 1: a cell where the digit model (`CellReading.candidates`)
    reads no digit can only be empty or pencil notes."""
    kind_probabilities = np.asarray(kind_probabilities, np.float32).reshape(9, 9, len(KIND_NAMES))
    digit_probabilities = np.asarray(digit_probabilities).reshape(9, 9, 10)
    read = digit_probabilities.argmax(axis=2) > 0
    allowed = np.ones((9, 9, len(KIND_NAMES)), bool)
    allowed[~read] = [True, False, False, True]
    kept = np.where(allowed, kind_probabilities + 1e-9, 0.0).astype(np.float32)
    return kept / kept.sum(axis=2, keepdims=True)


PEN_EVIDENCE = ("blue", "green", "red", "colourful", "darkness")
"""Cell features by which `weigh_print_against_pen` sets a grid's handwriting apart from its
print: within one grid, a pen differs from the print in colour or darkness far more often than
not, and by the same amount on every cell it wrote."""

PEN_EVIDENCE_WEIGHT = 0.3
"""How much the grid's two groups count beside the kinds model's own odds (on generated photos
not trained on, 0.2 to 0.5 gave about the same; 1.0 overrides the model on grids whose pen and
print are alike)."""

PEN_EVIDENCE_SPREAD = 0.05
"""Least spread of a PEN_EVIDENCE feature within a group (the features run 0 to 1): two groups
closer than this are not told apart by it."""

PEN_EVIDENCE_ROUNDS = 3
"""Times the two groups are measured again from the cells' new odds."""

PEN_EVIDENCE_SURENESS = float(np.log(0.9 / 0.1))
"""Log odds of print or pen that the grid's groups may bring a cell to, or its own when surer:
the model already weighs colour and darkness against the grid's other digits
(CONTEXT_FEATURES), so agreeing groups must not count the same evidence twice and make a
misread cell too sure for the repair of the givens to take it off (`pipeline.repair_givens`)."""

_PEN_INDEX = [CELL_FEATURES.index(name) for name in PEN_EVIDENCE]


def weigh_print_against_pen(allowed: np.ndarray, features: np.ndarray) -> np.ndarray:
    """(9, 9, 4) kind probabilities where each digit's print-or-pen odds also weigh how it looks
    beside the grid's other digits as two groups, print and pen.

    `allowed` are `allowed_kind_probabilities`, `features` the cells' `kind_features`. The cells
    read as printed or handwritten are split into the two groups by the kinds model's odds; the
    mean and spread of each group's PEN_EVIDENCE give each cell a log-likelihood ratio of pen
    against print (a Gaussian per feature, one spread shared by both groups), which is added,
    scaled by PEN_EVIDENCE_WEIGHT, to the model's log odds; the groups are measured again from
    the new odds PEN_EVIDENCE_ROUNDS times. A blue pen on black print, or black ink on a red
    print, is then one group however each of its digits is shaped. Each cell's total of print
    and pen is kept, so only the choice between the two moves. A grid with fewer than one
    expected digit in either group is left as it is (nothing to set apart)."""
    out = np.array(allowed, np.float32).reshape(81, len(KIND_NAMES))
    chosen = out.argmax(axis=1)
    digit = (chosen == PRINTED) | (chosen == HANDWRITTEN)
    x = np.asarray(features, np.float64).reshape(81, FEATURES)[digit][:, _PEN_INDEX]
    pen, printed = out[digit, HANDWRITTEN], out[digit, PRINTED]
    prior = np.log((pen + 1e-6) / (printed + 1e-6))
    odds = prior
    for _ in range(PEN_EVIDENCE_ROUNDS):
        weight = 1.0 / (1.0 + np.exp(-odds))
        if weight.sum() < 1.0 or (1.0 - weight).sum() < 1.0:
            return np.asarray(allowed, np.float32).reshape(9, 9, len(KIND_NAMES))
        groups = []
        for w in (weight, 1.0 - weight):
            mean = w @ x / w.sum()
            groups.append((mean, w @ (x - mean) ** 2))
        (pen_mean, pen_square), (print_mean, print_square) = groups
        var = (pen_square + print_square) / len(x) + PEN_EVIDENCE_SPREAD**2
        ratio = (((x - print_mean) ** 2 - (x - pen_mean) ** 2) / (2.0 * var)).sum(axis=1)
        odds = prior + PEN_EVIDENCE_WEIGHT * ratio
    bound = np.maximum(np.abs(prior), PEN_EVIDENCE_SURENESS)
    share = 1.0 / (1.0 + np.exp(-np.clip(odds, -bound, bound)))
    either = pen + printed
    out[digit, HANDWRITTEN] = either * share
    out[digit, PRINTED] = either * (1.0 - share)
    return out.reshape(9, 9, len(KIND_NAMES))


def assign_kinds(
    kind_probabilities: np.ndarray,
    digit_probabilities: np.ndarray,
    features: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(grid, kinds, allowed) of the upright puzzle from the kinds model's (9, 9, 4)
    probabilities and the digit model's (9, 9, 10) (`CellReading.candidates`): a cell where the
    digit model reads no digit is empty or pencil notes; elsewhere the likeliest kind, print
    and pen weighed against the grid's other digits (`weigh_print_against_pen`) when the cells'
    `features` are given. `allowed` are the probabilities the kinds were chosen from. The digit
    is kept for printed and handwritten cells only (pencil notes count as empty)."""
    allowed = allowed_kind_probabilities(kind_probabilities, digit_probabilities)
    if features is not None:
        allowed = weigh_print_against_pen(allowed, features)
    kinds = allowed.argmax(axis=2).astype(np.uint8)
    digit_probabilities = np.asarray(digit_probabilities).reshape(9, 9, 10)
    digit = (digit_probabilities[..., 1:].argmax(axis=2) + 1).astype(np.uint8)
    written = (kinds == PRINTED) | (kinds == HANDWRITTEN)
    return np.where(written, digit, 0).astype(np.uint8), kinds, allowed


class KindClassifier(ShippedModel):
    """The shipped ONNX kinds model (FEATURES numbers per cell in, 4 kind probabilities out), run
    on the CPU by ONNX Runtime."""

    def __init__(self, model_path: str | Path = KINDS_MODEL_PATH) -> None:
        super().__init__(model_path)

    def predict(self, features: np.ndarray) -> np.ndarray:
        """Kind probabilities (..., 4) for features (..., FEATURES), in one batch."""
        features = np.asarray(features, np.float32)
        flat = np.ascontiguousarray(features.reshape(-1, FEATURES))
        out = self.session.run(None, {self._input: flat})[0]
        return out.reshape(*features.shape[:-1], len(KIND_NAMES))
