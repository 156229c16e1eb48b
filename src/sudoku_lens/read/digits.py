"""Classify Sudoku cells (empty or 1-9) with a small CNN run by ONNX Runtime; find which way is up.

A raw cell crop is first reduced by `prepare_cell` to an MNIST-like image: the digit's ink alone,
its bounding box scaled to fit a fixed box and centred, with grid-line remnants, shading and specks
removed; an empty cell becomes a blank image. The normalisation is the same for every quarter turn
of the crop (it scales the larger side of the digit, and treats rows and columns alike), so
`orient` prepares the 81 cells once and rotates the small prepared images instead of the crops.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from sudoku_lens.read.onnx_model import ShippedModel

SIZE = 28
"""Side of a prepared cell image, in pixels."""

BOX = 20
"""Side of the box the digit's bounding box is scaled to fit, inside the prepared image."""

WORK = 48
"""Side a raw crop is resized to before the ink is found."""

MODEL_PATH = Path(__file__).with_name("models") / "digits.onnx"

_BG_KERNEL = cv2.getStructuringElement(cv2.MORPH_RECT, (WORK // 4 + 1, WORK // 4 + 1))
_LINE = WORK // 2 + 1
"""Least length of a grid line in a crop (odd, so the opening is centred and turns with it)."""
_V_LINE = np.ones((_LINE, 1), np.uint8)
_BAND = np.zeros((WORK, WORK), np.uint8)
_BAND[: round(0.22 * WORK)] = _BAND[-round(0.22 * WORK) :] = 1
_CORNERS = (_BAND & _BAND.T).astype(bool)
"""The crop's corners, where its side lines cross its top and bottom ones."""
_END = 2
"""Pixels at each end of a crop, in the neighbouring cells' margins, that a grid line reaches
into and a digit does not (a run at least _LINE long that reaches the last of them fills them)."""
_BESIDE = np.ones((1, 3), np.uint8)
_CROSS = cv2.getStructuringElement(cv2.MORPH_CROSS, (3, 3))
_MIN_CONTRAST = 10.0
_RELATIVE = 0.3
"""Share of the grid's typical stroke darkness below which a mark is taken for a smudge."""
_SAME_INK = 0.35
"""Largest difference of ink colour (see `GridLocation.ink_colour`) within one ink."""
_DARK = 0.45
"""Share of a cell's darkest ink from which a pixel is part of the digit's pieces."""
_LINKED = 0.25
"""Share of a cell's darkest ink from which a fainter pixel touching the digit's pieces joins
them (hysteresis)."""
_LARGEST = 0.85
"""Longest side of a digit, a share of WORK: a longer mark is a grid line or shading."""
_REACH = 0.3
"""Farthest from the crop's centre (a share of WORK) the box centre of a digit's piece lies."""
_FAR_REACH = 0.35
"""The same for a digit written against its cell's border, looked for when none is nearer."""
_JOINED_SHARE = 0.85
"""Least share of a cell's darker ink that pieces joined through fainter ink must hold to be a
digit when none of them alone is of a digit's size (`_joined_share`)."""
_ALONE = 0.95
"""Least share of a cell's fainter ink that pieces joined through it must hold for the cell's
darker ink alone, not its crop's margin too, to be weighed by _JOINED_SHARE (`_joined_share`)."""
_PRESSED_CONTRAST = 2 * _MIN_CONTRAST
"""Least darkness of a cell's darkest ink (`_peaks`) for its digit to be grown through the strokes
beside its lines (`_pressed_digit`): the marks an empty cell's noise and shading leave, most of
them fainter, would grow along a line's blurred edge. Without it 80 cells of the 320 dataset
photos grow, with it 3; of the 3,690 pen entries of generated photos (benchmarks/handwriting.py,
seeds 10001-10040 and 20001-20080) 313 grow without it, 310 with it."""
_NEAR = 2
"""Pixels beyond a digit's box within which the lines' removal must have taken ink as dark as the
digit's fainter ink for `_pressed_digit` to look for strokes given back: a digit away from the
lines, most of them, is left as found at almost no cost (30 of the 1,620 cells of 20 hand-filled
dataset photos are looked at)."""
_PRESSED_GAIN = 7
"""Least pixels a digit must gain through the strokes given back beside its cell's lines to take
them (`_pressed_digit`): a digit that comes near a line gains a few of the line's blurred edge.
With 1 pixel, 19 cells of the 320 dataset photos grow, with 7 three (empty cells' shading, dropped
as too faint; every photo reads the same); of the 3,690 pen entries above, 688 and 310."""


_MIDDLE = slice(WORK // 4, WORK - WORK // 4)
"""The middle of a crop, where a digit's strokes lie: the middle two thirds of the cell."""
_CELL = slice(WORK // 6, WORK - WORK // 6)
"""The cell itself inside a crop: the crop's margin holds its lines and the neighbours' edges."""
_EVEN_LIGHT = 0.75
"""Least ratio of the darkest paper to the brightest in the middle of a crop for its light to be
taken as even; below it a shadow's edge crosses the digit (`_lifted_shadow`). 55 of the 25,920
cells of the 320 dataset photos are below it, on 10 photos (a shadow over part of some grids)."""
_DEEPEST = 0.2
"""Darkest paper, a share of the brightest, that `_lifted_shadow` lifts: darker is the photo's
background beside the grid, whose noise must not be raised into marks."""


def _paper_line(degrees: float) -> np.ndarray:
    """A line kernel across the square of _BG_KERNEL, through its centre at `degrees` (y down)."""
    side = _BG_KERNEL.shape[0]
    centre = (side - 1) / 2.0
    direction = np.array([np.cos(np.radians(degrees)), np.sin(np.radians(degrees))])
    reach = direction * centre / np.abs(direction).max()
    start, end = (tuple(np.rint(centre + sign * reach).astype(int).tolist()) for sign in (-1, 1))
    return cv2.line(np.zeros((side, side), np.uint8), start, end, 1)


_PAPER_LINES = tuple(_paper_line(degrees) for degrees in (22.5, 45, 67.5, 112.5, 135, 157.5))
"""Lines along which a closing finds the paper under a stroke on a slanting shadow's edge
(`_lifted_shadow`); the square's own closing does for an edge along the rows or columns."""


def side_by_side(crops: np.ndarray, pad: int = 0, mode: str = "constant") -> np.ndarray:
    """An (N, S, S) stack of crops laid side by side in one image, each padded by `pad` pixels
    on every side (`np.pad`'s `mode`, zeros by default): (S + 2 pad) x N (S + 2 pad).

    OpenCV filters one wide image many times faster than the same pixels as 81 small crops (its
    cost is mostly per row), and the result is the same pixel for pixel where each crop's padding
    is the border that crop would get alone and reaches as far as the filter: a filter along the
    columns needs none."""
    if pad:
        crops = np.pad(crops, ((0, 0), (pad, pad), (pad, pad)), mode=mode)
    side = crops.shape[1]
    return np.ascontiguousarray(crops.transpose(1, 0, 2)).reshape(side, -1)


def apart(wide: np.ndarray, pad: int = 0) -> np.ndarray:
    """The (N, S, S) stack of crops laid side by side in `wide` (`side_by_side`), their padding
    cut off."""
    side = wide.shape[0]
    crops = wide.reshape(side, -1, side).transpose(1, 0, 2)
    return np.ascontiguousarray(crops[:, pad : side - pad, pad : side - pad])


def _work_gray(crop: np.ndarray) -> np.ndarray:
    """A raw crop's grey levels (uint8) resized to WORK x WORK, as `_ink` measures them."""
    gray = np.asarray(crop)
    if gray.ndim == 3:
        gray = cv2.cvtColor(gray, cv2.COLOR_BGR2GRAY)
    if gray.dtype != np.uint8:
        gray = np.clip(gray, 0, 255).astype(np.uint8)
    h, w = gray.shape
    if (h, w) == (WORK, WORK):
        return gray  # the grid's own crops: cv2.resize to the same size only copies
    interp = cv2.INTER_AREA if min(h, w) > WORK else cv2.INTER_LINEAR
    return cv2.resize(gray, (WORK, WORK), interpolation=interp)


_PAPER_REACH = WORK // 8
"""Pixels _BG_KERNEL reaches on each side of its centre."""


def _ink(gray: np.ndarray) -> np.ndarray:
    """Return how much darker than the local paper each pixel is, for an (N, WORK, WORK) stack
    of crops' grey levels (`_work_gray`): (N, WORK, WORK) uint8.

    The paper is the morphological closing of each crop (a black-hat transform) with a square
    wider than any stroke, its border replicated: it fills the strokes in but follows shading,
    coloured cells, the edge of a shadow and light that varies smoothly across the cell, so all
    of those drop out. Where the paper in the middle of a crop is much darker in part than
    elsewhere, the edge of a shadow crosses the digit, and its ink is measured as if the shadow
    were lifted (`_lifted_shadow`). The crops are filtered side by side (`side_by_side`).
    """
    blurred = cv2.GaussianBlur(side_by_side(gray, 1, "reflect"), (3, 3), 0.6)
    g = apart(blurred, 1)
    reach = _PAPER_REACH
    dilated = apart(cv2.dilate(side_by_side(g, reach, "edge"), _BG_KERNEL), reach)
    paper = apart(cv2.erode(side_by_side(dilated, reach, "edge"), _BG_KERNEL), reach)
    middle = paper[:, _MIDDLE, _MIDDLE]
    darkest, light = middle.min(axis=(1, 2)), middle.max(axis=(1, 2))
    ink = cv2.subtract(paper.reshape(-1, WORK), g.reshape(-1, WORK)).reshape(paper.shape)
    for i in np.flatnonzero(darkest < _EVEN_LIGHT * light):
        ink[i] = _lifted_shadow(g[i], paper[i], float(light[i]))
    return ink


def _lifted_shadow(gray: np.ndarray, paper: np.ndarray, light: float) -> np.ndarray:
    """The ink (uint8) of a crop's grey levels `gray` crossed by a shadow's edge, as if all its
    paper were lit as its brightest in the middle, `light`; `paper` is the square's closing.

    Under a stroke on the edge that closing is the paper on the stroke's shadowed side, and
    the stroke loses as much ink as the light drops across its width: the digit would be cut
    along the edge. A closing along a line that follows the edge finds the paper on both sides
    of the stroke; the largest of the closings along _PAPER_LINES is taken. A shadow takes the
    same share of the light from the ink as from the paper, so each pixel's ink is then scaled
    by how much brighter `light` is than its paper: the digit's shadowed strokes come out as
    dark as its lit ones.
    """
    for line in _PAPER_LINES:
        closed = cv2.morphologyEx(gray, cv2.MORPH_CLOSE, line, borderType=cv2.BORDER_REPLICATE)
        paper = np.maximum(paper, closed)
    scale = light / np.maximum(paper, _DEEPEST * light)
    return np.clip(cv2.subtract(paper, gray) * scale, 0, 255).astype(np.uint8)


def _line_runs(ink: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The grid lines that cross the crops' border bands: the (vertical, horizontal) runs of ink
    of an (N, WORK, WORK) stack of crops' ink.

    A grayscale opening with a long thin kernel keeps the ink of runs at least _LINE long (grid
    lines, even faint or broken ones, at their own darkness) and none of a digit's shorter
    strokes. Of those runs only the ones that reach the crop's ends are lines: a grid line
    crosses the whole crop, into the neighbouring cells' margins, while the long stroke of a 1
    or a 7 written close to the cell's side stays inside the cell. The rows' runs are opened as
    the columns' of the crops turned over their diagonal, so that both openings run along the
    columns of crops laid side by side (`side_by_side`).
    """
    down, across = (
        apart(cv2.morphologyEx(side_by_side(crops), cv2.MORPH_OPEN, _V_LINE))
        for crops in (ink, ink.transpose(0, 2, 1))
    )
    vertical = _reaching_ends(down * _BAND.T, 0)
    horizontal = _reaching_ends(np.ascontiguousarray(across.transpose(0, 2, 1)) * _BAND, 1)
    return vertical, horizontal


def _without_lines(ink: np.ndarray, runs: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """Subtract the grid lines (`runs`, see `_line_runs`) from a stack of crops' ink, a pixel
    wider than found: their blurred edges and the steps of a line a little aslant go with them.
    Removing the lines before the digit's contrast is measured keeps a dark line remnant from
    setting a threshold that a faint digit beside it cannot reach."""
    wide = apart(cv2.dilate(side_by_side(np.maximum(*runs), 1), _CROSS), 1)
    return cv2.subtract(ink.reshape(-1, WORK), wide.reshape(-1, WORK)).reshape(ink.shape)


def _beside_lines(ink: np.ndarray, runs: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """A crop's ink with its grid lines (`runs`) subtracted a pixel wider than found only where
    the ink beside them runs to the crop's ends (`_from_ends`), and fully in its corners.

    A line's blurred edge and the steps of a line a little aslant run along the line to the
    crop's ends, as the line does; a stroke pressed against the line, which the wider removal of
    `_without_lines` takes with it, ends inside the cell and is kept. Where the side lines cross
    the top and bottom ones, each line's edge is the other's ink, and both are removed as wide.
    """
    vertical, horizontal = runs
    wide_v, wide_h = cv2.dilate(vertical, _CROSS), cv2.dilate(horizontal, _CROSS)
    lines = cv2.max(
        cv2.max(vertical, cv2.min(wide_v, _from_ends(ink, 0))),
        cv2.max(horizontal, cv2.min(wide_h, _from_ends(ink, 1))),
    )
    return cv2.subtract(ink, np.where(_CORNERS, cv2.max(wide_v, wide_h), lines))


_WHOLE_ROW = np.ones((1, WORK), np.uint8)
"""A kernel as long as the crop (`_from_ends`)."""


def _from_ends(ink: np.ndarray, axis: int) -> np.ndarray:
    """How dark (uint8) the ink stays all the way from the crop's first or last pixel along
    `axis` (0 down the columns, 1 along the rows) to each pixel, the darker way; a pixel's
    neighbours along the axis bridge a lighter one. (An erosion with a kernel as long as the
    crop, anchored at its far end, is the darkness all the way from the near end.)"""
    line = _WHOLE_ROW if axis == 1 else _WHOLE_ROW.T
    along = cv2.dilate(ink, _BESIDE if axis == 1 else _BESIDE.T)
    far = (WORK - 1, 0) if axis == 1 else (0, WORK - 1)
    ends = [
        cv2.erode(along, line, anchor=anchor, borderType=cv2.BORDER_CONSTANT, borderValue=255)
        for anchor in (far, (0, 0))
    ]
    return cv2.max(*ends)


def _reaching_ends(runs: np.ndarray, axis: int) -> np.ndarray:
    """`runs` (an opening's runs of ink along `axis` of each crop of an (N, WORK, WORK) stack)
    with only the lines kept whose ink, or that of the line beside them (a grid line a little
    aslant is cut into runs on neighbouring lines), reaches the crop's first or last _END pixels
    along `axis` at half its darkness in the middle or more (every run _LINE long crosses the
    middle)."""
    along = runs if axis == 0 else runs.transpose(0, 2, 1)
    near = np.maximum(along[:, _END - 1], along[:, -_END])
    ends = near.copy()  # and the lines beside: a dilation along the line's neighbours
    np.maximum(ends[:, 1:], near[:, :-1], out=ends[:, 1:])
    np.maximum(ends[:, :-1], near[:, 1:], out=ends[:, :-1])
    kept = ends >= along[:, WORK // 2] >> 1
    return runs * (kept[:, None, :] if axis == 0 else kept[:, :, None])


def _digit_masks(ink: np.ndarray, peaks: np.ndarray) -> list[np.ndarray | None]:
    """Select the pixels of the digit near the centre of each crop's ink, for an (N, WORK, WORK)
    stack of crops' ink and their darkest ink (`peaks`, see `_peaks`): a bool mask, or None for a
    crop that holds none.

    The digit's pieces are first found in the ink at least `_DARK` times as dark as the cell's
    darkest (`_central_components`), then grown through the fainter ink, at least `_LINKED` times
    as dark, that touches them (hysteresis thresholding), so that a pen stroke fading along its
    length or at a join is kept whole instead of its darker half alone. A growth that leaves the
    digit larger than a digit can be or touching the crop's border (linked into what is left of
    a grid line, or into shading) is refused. When no piece of the darker ink is of a digit's
    size, the pieces joined through the fainter ink are chosen instead, if they hold nearly all
    of the darker ink (`_JOINED_SHARE`: a faint pen digit broken at its joins does, pencil notes,
    small digits apart, do not), the cell's alone where they are all its ink (`_joined_share`).
    The crops' pieces are labelled side by side (`_labelled`).
    """
    peaks = np.asarray(peaks)
    dark = ink > np.maximum(_DARK * peaks, _FLOOR)[:, None, None]
    faint = ink > _faint(peaks)[:, None, None]
    count, labels, _ = _labelled(faint)
    picked, found = _central_components(dark)
    grown = _linked(labels, count, picked)
    fits = _fits(grown)
    lost = ~found & (peaks >= _MIN_CONTRAST)
    joined, joined_found, share = picked, found, np.zeros(len(ink))
    if lost.any():
        joined, joined_found = _central_components(
            _linked(labels, count, dark & lost[:, None, None])
        )
        share = _joined_share(joined, dark, faint, labels)
    out: list[np.ndarray | None] = []
    for i, peak in enumerate(peaks.tolist()):
        if peak < _MIN_CONTRAST:
            out.append(None)
        elif found[i]:
            out.append(grown[i] if fits[i] else picked[i])
        elif joined_found[i] and share[i] >= _JOINED_SHARE:
            out.append(joined[i])
        else:
            out.append(None)
    return out


_FLOOR = 0.6 * _MIN_CONTRAST
"""Darkness below which no ink is part of a digit, however faint the cell."""


def _held(pieces: np.ndarray, ink: np.ndarray) -> np.ndarray:
    """The share of each of a stack of bool masks of ink (`ink`) that lies in `pieces`."""
    total = np.count_nonzero(ink, axis=(1, 2))
    return np.count_nonzero(pieces & ink, axis=(1, 2)) / np.maximum(total, 1)


def _joined_share(
    joined: np.ndarray, dark: np.ndarray, faint: np.ndarray, labels: np.ndarray
) -> np.ndarray:
    """The share of each crop's darker ink (`dark`) that the pieces `joined` through its fainter
    ink (`faint`, labelled as `labels`) hold, for `_JOINED_SHARE`: of the crop's, or of the
    cell's alone where those pieces are one piece of the fainter ink holding all the cell's
    fainter ink but a few pixels (`_ALONE`). The crop's margin holds the crossings of its lines
    and the strokes of its neighbours' digits, which are no part of a cell holding nothing but
    its digit; a cell's grain or smudges lie outside the pieces, inside the cell, and pencil
    candidates side by side are pieces apart."""
    held = _held(joined, dark)
    inside = np.s_[:, _CELL, _CELL]
    owner = np.zeros(labels.max() + 1, np.intp)  # the crop of each label (numbered through all)
    owner[labels] = np.arange(len(labels))[:, None, None]
    pieces = np.bincount(owner[np.unique(labels[joined])], minlength=len(labels))
    alone = (pieces == 1) & (_held(joined[inside], faint[inside]) >= _ALONE)
    return np.where(alone, np.maximum(held, _held(joined[inside], dark[inside])), held)


def _faint(peak: int | np.ndarray) -> float | np.ndarray:
    """The darkness from which a cell's ink (its darkest `peak`, or an array of them) is a
    digit's fainter ink, which the digit is grown through."""
    return np.maximum(_LINKED * peak, _FLOOR)


def boxes(masks: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The bounding boxes (x, y, width, height: arrays of N) of an (N, H, W) stack of bool masks,
    as `cv2.boundingRect` gives them (0, 0, 0, 0 for an empty mask)."""
    rows, cols = masks.any(axis=2), masks.any(axis=1)
    y, x = rows.argmax(axis=1), cols.argmax(axis=1)
    height = np.where(rows.any(axis=1), rows.shape[1] - rows[:, ::-1].argmax(axis=1) - y, 0)
    width = np.where(cols.any(axis=1), cols.shape[1] - cols[:, ::-1].argmax(axis=1) - x, 0)
    return x, y, width, height


def _fits(masks: np.ndarray) -> np.ndarray:
    """Whether each grown digit (an (N, WORK, WORK) stack of bool masks) is still of a digit's
    size and off the crop's border: a growth linked into a grid line's remnant or into shading
    is not."""
    x, y, w, h = boxes(masks)
    return (
        (np.maximum(w, h) <= _LARGEST * WORK)
        & (np.minimum(x, y) > 0)
        & (np.maximum(x + w, y + h) < WORK)
    )


def _peaks(ink: np.ndarray) -> np.ndarray:
    """The darkness of each crop's darkest ink within its cell, for an (N, WORK, WORK) stack of
    crops' ink: the third darkest pixel, so that a speck or two do not set it."""
    inner = ink[:, _CELL, _CELL].reshape(len(ink), -1)
    third = inner.shape[1] - 3
    return np.partition(inner, third, axis=1)[:, third]


def _pressed_digit(
    raw: np.ndarray,
    ink: np.ndarray,
    mask: np.ndarray,
    runs: tuple[np.ndarray, np.ndarray],
    peak: int,
) -> tuple[np.ndarray, np.ndarray]:
    """The line-free ink and digit (`mask`, from `_digit_masks`; `peak` its darkest ink) of a crop
    whose digit may be
    written against its cell's lines, grown through the strokes beside the lines that their
    removal took along with them.

    `raw` is the crop's ink with its lines, `runs` those lines (`_line_runs`). A stroke given
    back (`_beside_lines`) counts where it is as dark as the digit's fainter ink (`_LINKED` of the
    darkest). The digit is grown through such strokes (hysteresis) when it gains _PRESSED_GAIN
    pixels or more and stays of a digit's size off the crop's border: the back of a 9 against
    the side line closes its loop again, the foot of a 2 along the bottom line is drawn. Only a
    digit reaching the cell's middle, in a cell whose ink is of some contrast
    (_PRESSED_CONTRAST), is grown: a line's remnant or an empty cell's shading taken for a digit
    would grow along the line (without the test of the middle, 9 cells of the 320 dataset photos
    grow; with it, 3).
    """
    if peak < _PRESSED_CONTRAST or not mask[_MIDDLE, _MIDDLE].any():
        return ink, mask
    x, y, w, h = cv2.boundingRect(mask.view(np.uint8))
    around = np.s_[max(y - _NEAR, 0) : y + h + _NEAR, max(x - _NEAR, 0) : x + w + _NEAR]
    if not (cv2.subtract(raw[around], ink[around]) >= _LINKED * peak).any():
        return ink, mask  # the lines' removal took no ink as dark as the digit's near it
    beside = _beside_lines(raw, runs)
    given = cv2.subtract(beside, ink) >= _LINKED * peak
    if not given.any():
        return ink, mask
    beside = np.where(given, beside, ink)
    count, labels = cv2.connectedComponents((beside > _faint(peak)).view(np.uint8))
    grown = _linked(labels, count, mask) | mask
    if np.count_nonzero(grown & ~mask) < _PRESSED_GAIN or not _fits(grown[None])[0]:
        return ink, mask
    near = cv2.dilate(grown.view(np.uint8), _CROSS) > 0
    return np.where(near, beside, ink), grown


def _linked(labels: np.ndarray, count: int, seeds: np.ndarray) -> np.ndarray:
    """The pixels (bool) of the labelled components (`cv2.connectedComponents`: `count` labels,
    0 the background) that hold a pixel of the bool mask `seeds`."""
    hit = np.zeros(count, bool)
    hit[labels[seeds]] = True
    hit[0] = False
    return hit[labels]


_LABEL_GAP = 1
"""Columns of zeros after each crop laid side by side to be labelled (`_labelled`), which keep
neighbouring crops' components apart. No row is added: OpenCV's labelling scans pairs of rows and
numbers the components in the order they are met, so each crop, scanned in the same pairs of
rows as alone, has its components numbered in the same order as alone."""


def _labelled(masks: np.ndarray, stats: bool = False) -> tuple[int, np.ndarray, np.ndarray]:
    """The 8-connected components of an (N, WORK, WORK) stack of bool masks, labelled as OpenCV
    labels each mask alone but numbered through the stack: the number of labels (0 the
    background), the (N, WORK, WORK) labels and, with `stats`, the components' stats (one row
    each from label 1: x within its crop, y, width, height, area and its crop; else none).

    The stats are counted by BBDT, in a third of the time of OpenCV's default algorithm on such
    a wide image; both number the components in the same order (see _LABEL_GAP).
    """
    n, side = len(masks), WORK + _LABEL_GAP
    spaced = np.pad(masks.view(np.uint8), ((0, 0), (0, 0), (0, _LABEL_GAP)))
    wide = np.ascontiguousarray(spaced.transpose(1, 0, 2)).reshape(WORK, n * side)
    if stats:
        count, labels, found, _ = cv2.connectedComponentsWithStatsWithAlgorithm(
            wide, 8, cv2.CV_32S, cv2.CCL_BBDT
        )
        found = np.column_stack([found[1:], found[1:, 0] // side])
        found[:, 0] -= found[:, 5] * side
    else:
        count, labels = cv2.connectedComponents(wide, connectivity=8)
        found = np.zeros((0, 6), np.int32)
    return count, labels.reshape(WORK, n, side).transpose(1, 0, 2)[:, :, :WORK], found


def _central_components(masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The components of each of an (N, WORK, WORK) stack of bool masks that form a digit near
    the centre: the largest one of a digit's size, and those beside it; and whether each mask
    has a component of a digit's size. A digit written against its cell's border is looked for
    (`_FAR_REACH`) only when no piece of a digit's size lies nearer the centre: the remnants of
    a grid line lie that far out too."""
    count, labels, stats = _labelled(masks, stats=True)
    keep = np.zeros(count, bool)
    found = np.zeros(len(masks), bool)
    for reach in (_REACH, _FAR_REACH):
        pieces, more = _digit_pieces(stats, reach, ~found)
        keep[1:] |= pieces
        found |= more
    return keep[labels], found


def _digit_pieces(
    stats: np.ndarray, reach: float, looked: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Which components (`_labelled`'s `stats`) of the crops `looked` at (bool, one per crop)
    form the digit: the largest of a digit's size whose box centre lies within `reach` of the
    crop's centre (a share of WORK; 0.2 for one touching the crop's border), the first labelled
    of those as large, and those beside it; and which crops hold one."""
    x, y, w, h, area, crop = stats.T
    centre = WORK / 2.0
    off = np.maximum(np.abs(x + w / 2.0 - centre), np.abs(y + h / 2.0 - centre))
    touches = (x == 0) | (y == 0) | (x + w == WORK) | (y + h == WORK)
    longest = np.maximum(w, h)
    near = looked[crop] & (off <= np.where(touches, 0.2, reach) * WORK)
    near &= longest <= _LARGEST * WORK
    sized = np.flatnonzero(near & (longest >= 0.2 * WORK) & (area >= 0.006 * WORK * WORK))
    ranked = sized[np.lexsort((sized, -area[sized], crop[sized]))]  # by crop, largest first
    firsts = ranked[np.r_[True, crop[ranked][1:] != crop[ranked][:-1]]] if len(ranked) else ranked
    best = np.full(len(looked), -1)
    best[crop[firsts]] = firsts
    found = best >= 0
    b = best[crop]
    pad = 0.08 * WORK
    beside = (x < x[b] + w[b] + pad) & (x + w > x[b] - pad)
    beside &= (y < y[b] + h[b] + pad) & (y + h > y[b] - pad)
    return near & found[crop] & beside, found


@dataclass(frozen=True)
class CellInk:
    """What a crop holds once the paper and grid lines are gone: its ink and, if any, its digit."""

    ink: np.ndarray
    """WORK x WORK uint8: how much darker than the local paper each pixel is, lines removed."""
    mask: np.ndarray | None
    """WORK x WORK bool: the digit's pixels (the components near the centre), None if none."""
    level: float
    """Stroke darkness of the digit (90th percentile of its ink), 0 without one."""


def find_ink(crop: np.ndarray) -> CellInk:
    """The line-free ink of a raw cell crop and the digit in it (see `CellInk`), with the strokes
    of a digit written against its cell's lines that their removal took (`_pressed_digit`)."""
    return find_inks([crop])[0]


def find_inks(crops: Sequence[np.ndarray]) -> list[CellInk]:
    """`find_ink` of each of `crops`, measured on all of them at once: their filters run on the
    crops side by side (`side_by_side`) and their digits' pieces are labelled together
    (`_labelled`), the same pixels as one by one in less than half the time for a grid's 81
    crops; only the strokes pressed against a cell's lines are looked for crop by crop."""
    if len(crops) == 0:
        return []
    raw = _ink(np.stack([_work_gray(crop) for crop in crops]))
    vertical, horizontal = _line_runs(raw)
    inks = _without_lines(raw, (vertical, horizontal))
    peaks = _peaks(inks)
    out = []
    for i, (peak, mask) in enumerate(zip(peaks.tolist(), _digit_masks(inks, peaks), strict=True)):
        ink = inks[i]
        if mask is None:
            out.append(CellInk(ink, None, 0.0))
            continue
        ink, mask = _pressed_digit(raw[i], ink, mask, (vertical[i], horizontal[i]), peak)
        strokes = ink[mask]
        rank = int(0.9 * (len(strokes) - 1))
        out.append(CellInk(ink, mask, float(np.partition(strokes, rank)[rank])))
    return out


def _draw(ink: np.ndarray, mask: np.ndarray, level: float) -> np.ndarray:
    """Scale and centre the masked ink of a digit into a SIZE x SIZE image in [0, 1].

    The digit's bounding box is mapped onto the centre of the output by one affine transform
    with sub-pixel offsets, so that preparing a turned crop gives the turned image exactly
    (`orient` relies on this).
    """
    x0, y0, width, height = cv2.boundingRect(mask.view(np.uint8))
    x1, y1 = x0 + width, y0 + height
    keep = np.zeros_like(mask, np.uint8)
    keep[y0:y1, x0:x1] = cv2.dilate(mask.view(np.uint8), _CROSS)[y0:y1, x0:x1]
    digit = np.clip(ink * (keep / max(level, 1.0)), 0.0, 1.0).astype(np.float32)
    scale = BOX / max(y1 - y0, x1 - x0)
    if scale < 1:
        digit = cv2.GaussianBlur(digit, (0, 0), 0.5 / scale)
    centre = (SIZE - 1) / 2.0
    move = np.float32(
        [
            [scale, 0.0, centre - scale * (x0 + x1 - 1) / 2.0],
            [0.0, scale, centre - scale * (y0 + y1 - 1) / 2.0],
        ]
    )
    return cv2.warpAffine(digit, move, (SIZE, SIZE), flags=cv2.INTER_LINEAR)


def draw_found(found: CellInk) -> np.ndarray:
    """The prepared SIZE x SIZE image of a crop's digit found by `find_ink`, however faint (blank
    when it holds none): `prepare_found` drops marks much fainter than the grid's digits, which
    the kinds reader still looks at (a light pencil entry beside dark print)."""
    if found.mask is None:
        return np.zeros((SIZE, SIZE), np.float32)
    return _draw(found.ink, found.mask, found.level)


def prepare_cell(crop: np.ndarray, reference: float | None = None) -> np.ndarray:
    """Normalise a raw grayscale cell crop to a SIZE x SIZE float32 image of ink in [0, 1].

    The digit's components near the centre are kept, scaled so that the larger side of their
    bounding box is BOX pixels, and centred; an empty cell (or one holding only grid lines, specks
    or shading) gives an all-zero image. `reference` is the stroke darkness of the grid's digits
    (see `prepare_cells`): marks much fainter than that are taken for smudges and dropped.
    """
    found = find_ink(crop)
    if found.mask is None or (reference is not None and found.level < _RELATIVE * reference):
        return np.zeros((SIZE, SIZE), np.float32)
    return _draw(found.ink, found.mask, found.level)


def prepare_cells(cells: Sequence[np.ndarray], ink_colour: np.ndarray | None = None) -> np.ndarray:
    """Prepare the crops of one grid at once: an (N, SIZE, SIZE) float32 array.

    The cells share a contrast reference, the stroke darkness of the grid's darker digits, so
    that a faint smudge or show-through from the back of the page is told from a printed digit
    even on a photo whose digits are themselves faint. With `ink_colour` (N values, see
    `GridLocation.ink_colour`), the digits of each ink (black print, red print, a blue pen, the
    bold blue of an answer drawn in) have their own reference, so a blue digit much darker than
    the print beside it does not make the print look like a smudge; inks of fewer than three
    marks are measured against all marks.
    """
    return prepare_found(find_inks(cells), ink_colour)


def prepare_found(found: Sequence[CellInk], ink_colour: np.ndarray | None = None) -> np.ndarray:
    """`prepare_cells` on the crops' ink already found by `find_ink`: (N, SIZE, SIZE) float32."""
    marks = [i for i, f in enumerate(found) if f.mask is not None]
    levels = np.array([found[i].level for i in marks])
    references = np.zeros(len(found))
    if len(marks) >= 3:
        references[marks] = _references(levels, ink_colour, marks)
    out = np.zeros((len(found), SIZE, SIZE), np.float32)
    for i, f in enumerate(found):
        if f.mask is not None and f.level >= _RELATIVE * references[i]:
            out[i] = _draw(f.ink, f.mask, f.level)
    return out


def _references(
    levels: np.ndarray, ink_colour: np.ndarray | None, marks: list[int]
) -> np.ndarray | float:
    """The contrast reference of each mark: the 75th percentile of the stroke levels of the
    marks in its ink, or of all marks.

    Black or grey marks, and those too faint to show a colour, are one ink. A coloured ink (not
    within _SAME_INK of black in every channel) of at least three marks is another, whose
    reference is at least _RELATIVE times that of all marks (show-through tinted by the paper
    must still be dropped); marks of rarer inks are measured against all marks.
    """
    overall = float(np.percentile(levels, 75))
    if ink_colour is None:
        return overall
    colours = np.asarray(ink_colour, np.float32).reshape(-1, 3)[marks]
    neutral = (colours.max(axis=1) == 0) | (np.abs(colours - 1.0).max(axis=1) <= _SAME_INK)
    out = np.full(len(levels), overall)
    if neutral.sum() >= 3:
        out[neutral] = np.percentile(levels[neutral], 75)
    left = ~neutral
    while left.any():
        first = colours[int(np.argmax(left))]
        ink = left & (np.abs(colours - first).max(axis=1) <= _SAME_INK)
        if ink.sum() >= 3:
            out[ink] = max(float(np.percentile(levels[ink], 75)), _RELATIVE * overall)
        left &= ~ink
    return out


def rotate_grid(grid: np.ndarray, k: int) -> np.ndarray:
    """Turn a (9, 9, ...) grid k quarter turns clockwise: cell positions, and cell images if any.

    A (9, 9, H, W) stack of cell images turns exactly as the photo would; a (9, 9) or (9, 9, C)
    array of per-cell values only has its positions turned.
    """
    turned = np.rot90(grid, -k, axes=(0, 1))
    if grid.ndim == 4:
        turned = np.rot90(turned, -k, axes=(2, 3))
    return np.ascontiguousarray(turned)


class DigitClassifier(ShippedModel):
    """The shipped ONNX digit model, run on the CPU by ONNX Runtime; class 0 means an empty cell.

    Besides the digit, the model says how likely each digit is to be handwritten rather than
    printed, from its shape (`predict_with_pen`): evidence for the kinds model."""

    def __init__(self, model_path: str | Path = MODEL_PATH, threads: int = 1) -> None:
        super().__init__(model_path, threads)
        self._blank: np.ndarray | None = None

    def blank_probabilities(self) -> np.ndarray:
        """Class probabilities (10,) of an empty prepared cell, computed once."""
        if self._blank is None:
            self._blank = self.predict_prepared(np.zeros((1, SIZE, SIZE), np.float32))[0]
        return self._blank

    def predict_with_pen(self, images: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Class probabilities (N, 10) and the probability (N,) that the digit is handwritten,
        for prepared (N, SIZE, SIZE) images, in one batch."""
        if len(images) == 0:
            return np.zeros((0, 10), np.float32), np.zeros(0, np.float32)
        batch = np.ascontiguousarray(images, np.float32).reshape(-1, 1, SIZE, SIZE)
        probabilities, pen = self.session.run(None, {self._input: batch})
        return probabilities, pen.reshape(-1)

    def predict_prepared(self, images: np.ndarray) -> np.ndarray:
        """Class probabilities (N, 10) for prepared (N, SIZE, SIZE) images, in one batch."""
        return self.predict_with_pen(images)[0]

    def predict(self, cells: Sequence[np.ndarray]) -> np.ndarray:
        """Class probabilities (N, 10) for raw grayscale cell crops of any size."""
        return self.predict_prepared(prepare_cells(cells))


ORIENT_CELLS = 12
"""Filled cells, spread over the grid, first read in all four turns to choose the orientation."""

CLEAR_LEAD = 3.6
"""Lead of the best turn over the next one, in log-confidence summed over the cells read in all
four turns, that settles the orientation (0.3 per cell on the first ORIENT_CELLS); below it
twice as many cells are read in all four turns, until every filled cell has been."""


def _turn_scores(probs: np.ndarray) -> np.ndarray:
    """Mean log-confidence of the best digit per turn, from (4, N, 10) probabilities."""
    return np.log(probs[:, :, 1:].max(axis=2) + 1e-6).mean(axis=1)


def _read_turned(clf: DigitClassifier, images: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(4, N, 10) probabilities and (4, N) pen probabilities of (N, SIZE, SIZE) images turned
    0-3 quarter turns clockwise."""
    turned = np.concatenate([np.rot90(images, -k, axes=(1, 2)) for k in range(4)])
    probabilities, pen = clf.predict_with_pen(turned)
    return probabilities.reshape(4, len(images), 10), pen.reshape(4, len(images))


def orient(
    cells: Sequence[np.ndarray],
    classifier: DigitClassifier | None = None,
    *,
    ink_colour: np.ndarray | None = None,
) -> tuple[int, np.ndarray]:
    """Find how many quarter turns clockwise make the puzzle upright, and read it that way up.

    `cells` are the 81 raw crops, row-major as they lie in the image. A turn is scored by the
    mean log-confidence of the best digit over filled cells: upright digits are read with
    confidence, sideways or upside-down ones are not, and averaging settles digits that look
    alike upside down (6 and 9). ORIENT_CELLS filled cells spread over the grid are read in all
    four turns; when one turn leads by CLEAR_LEAD, only the other filled cells are read, in that
    turn alone, which on a full grid costs a third of reading all of them four times. Otherwise
    twice as many cells are read in every turn, and so on until one turn leads by CLEAR_LEAD or
    every filled cell has been read in every turn: a grid of hesitant handwriting settles on 24
    cells where it would not on 12. Returns (k, probabilities (9, 9, 10) in the upright
    orientation).
    """
    if len(cells) != 81:
        raise ValueError(f"orient needs the 81 cells of a grid, got {len(cells)}")
    turns, probabilities, _ = orient_prepared(prepare_cells(cells, ink_colour), classifier)
    return turns, probabilities


def orient_prepared(
    images: np.ndarray, classifier: DigitClassifier | None = None
) -> tuple[int, np.ndarray, np.ndarray]:
    """`orient` on the grid's 81 prepared images (`prepare_cells`), row-major as they lie; also
    returns the (9, 9) upright probabilities that each cell's digit is handwritten (0 for a
    blank image), read in the same passes."""
    if len(images) != 81:
        raise ValueError(f"orient needs the 81 cells of a grid, got {len(images)}")
    clf = classifier or DigitClassifier.default()
    out = np.tile(clf.blank_probabilities(), (81, 1))
    pen = np.zeros(81, np.float32)
    filled = np.flatnonzero(images.reshape(81, -1).max(axis=1) > 0)
    if len(filled) == 0:
        return 0, out.reshape(9, 9, 10), pen.reshape(9, 9)
    sample = np.zeros(0, np.intp)
    sampled = np.zeros((4, 0, 10), np.float32)
    sampled_pen = np.zeros((4, 0), np.float32)
    count = ORIENT_CELLS
    while len(sample) < len(filled):
        # every (len(filled) / count)-th filled cell: each doubling keeps the cells already read
        picks = np.unique(np.arange(count) * len(filled) // count)
        more = np.setdiff1d(filled[picks], sample)
        probabilities, pen_more = _read_turned(clf, images[more])
        sample = np.concatenate([sample, more])
        sampled = np.concatenate([sampled, probabilities], axis=1)
        sampled_pen = np.concatenate([sampled_pen, pen_more], axis=1)
        scores = _turn_scores(sampled)
        second, best = np.sort(scores)[-2:]
        if (best - second) * len(sample) >= CLEAR_LEAD:
            break
        count *= 2
    k = int(np.argmax(scores))
    out[sample], pen[sample] = sampled[k], sampled_pen[k]
    rest = np.setdiff1d(filled, sample, assume_unique=True)
    if len(rest):
        out[rest], pen[rest] = clf.predict_with_pen(np.rot90(images[rest], -k, axes=(1, 2)))
    return k, rotate_grid(out.reshape(9, 9, 10), k), rotate_grid(pen.reshape(9, 9), k)
