"""The grid search: pick the candidate that looks most like a Sudoku, trace its lines, cut it.

`locate_grid` runs the stages in order (see the package's docstring) on a grayscale copy halved
until it is at most WORK_SIDE pixels; a `GridSearch` passed to it records what each stage saw,
for `sudoku_lens.debug` to draw, also when no grid is found.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from sudoku_lens.errors import GridNotFoundError
from sudoku_lens.read.grid.blocks import continuing_sides, cut_edge
from sudoku_lens.read.grid.candidates import (
    MIN_AREA,
    MIN_PART,
    binarize,
    distinct_quads,
    find_outlines,
    grouped_quads,
    hull_quads,
    sharp_strength,
)
from sudoku_lens.read.grid.cells import GridLocation, cut_cells, cut_off_error
from sudoku_lens.read.grid.combs import MIN_SCORE, grid_score, refine_quad
from sudoku_lens.read.grid.geometry import (
    WORK_SIDE,
    Pyramid,
    gray_levels,
    ink_pyramid,
    is_convex,
    to_level,
)
from sudoku_lens.read.grid.lattice import fit_lattice
from sudoku_lens.read.grid.restore import (
    STRETCHED,
    contrast_gain,
    shake,
    steadied,
    stretched,
)

_MIN_SIDE = 90  # least side, in searched pixels, of a grid (10 per cell: less is unreadable)
_SMALL_GRID = 0.15  # a best grid smaller than this share of the image calls for box groups


@dataclass(frozen=True)
class Candidate:
    """One quadrilateral the search tried, in the searched image's pixels."""

    outline: np.ndarray
    """(4, 2) float32 corners as fitted to an ink outline (or a group of them)."""
    quad: np.ndarray
    """(4, 2) corners after moving onto the best combs of grid lines."""
    score: float
    """Grid score of `quad`: a grid scores MIN_SCORE or more."""
    passed: bool
    """Whether it counts as a grid: score, size and shape all good enough."""


@dataclass
class GridSearch:
    """What one grid search considered, filled in as `locate_grid` runs.

    Everything but `location` is in the searched image's pixels: the photo scaled by `scale`.
    """

    scale: float = 1.0
    """Searched image size / photo size (a power of one half)."""
    gray: np.ndarray | None = None
    """The grayscale image searched (restored, see `restored`, when only that held the grid)."""
    mask: np.ndarray | None = None
    """Its ink mask: 255 where darker than the surroundings."""
    candidates: list[Candidate] = field(default_factory=list)
    """Every distinct candidate scored, in the order tried (each again for every scoring after
    none passed: on the sharp ink, then on the ink before the last halving, then those of each
    restored image searched)."""
    chosen: np.ndarray | None = None
    """(4, 2) corners of the candidate chosen, or None when none is a grid."""
    location: GridLocation | None = None
    """The grid found, in the photo's pixels, or None."""
    restored: str | None = None
    """How the image searched was restored for a search that found the grid after none was
    found in it as taken (`locate_grid`): "contrast stretched" or "steadied"; None when it was
    searched as taken."""


def check_searchable(image_bgr: np.ndarray) -> None:
    """GridNotFoundError, before any resizing could fail on it, for an image too small or too
    narrow to hold a grid of _MIN_SIDE pixels once halved like `gray_levels` halves it."""
    height, width = image_bgr.shape[:2]
    halvings = 0
    while max(height, width) > WORK_SIDE * 2**halvings:
        halvings += 1
    if min(height, width) < _MIN_SIDE * 2**halvings:
        raise GridNotFoundError(
            f"no Sudoku grid found: the image is {width}x{height} pixels, too small or too "
            "narrow to hold one"
        )


def locate_grid(
    image_bgr: np.ndarray,
    *,
    timings: dict[str, float] | None = None,
    trace: GridSearch | None = None,
    retry: bool = True,
) -> GridLocation:
    """Find the Sudoku grid in a BGR (or grayscale) uint8 image and cut its cells.

    Where no candidate scores as a grid on the ink map, the candidates are scored again on the
    ink of the unblurred image (`sharp_strength`), in which hairline rules keep their darkness,
    and then, in a photo that was halved for the search, on that ink measured before the last
    halving: a one-pixel grey rule halved to half a pixel falls below the ink floor, while its
    ink measured first and then halved keeps half its strength. Where still no grid is found
    (and none was turned down as a block of a grid running off the photo), the search is run
    again on the searched image restored (`_restorations`): the thin rules of a washed-out or
    shaken photo may be too faint for the ink mask. Only that retry costs a photo without a grid
    more; the cells are cut from the image as it is all the same, so that the reader sees them
    as taken (and restores them itself, `reader._read_restored`). `retry=False` leaves the retry
    out, for a video, where a frame without a grid is common and the next sharp frame comes soon.
    Raises GridNotFoundError when the image holds no grid, GridCutOffError (naming the edge)
    when what looked most like one is a block of a grid whose lines run on towards the photo's
    edge (`continuing_sides`). When `timings` is given, the seconds
    spent finding the grid and cutting the cells are stored in it under "grid" and "cells";
    `trace` is filled in with what the search considered.
    """
    start = time.perf_counter()
    check_searchable(image_bgr)
    levels = gray_levels(image_bgr)
    level = len(levels) - 1
    if trace is not None:
        trace.scale = 0.5**level
    found = _search(levels[-1], levels[-2] if level > 0 else None, trace)
    if retry and found.quad is None and found.edge is None:
        found = _retried(levels[-1], trace) or found
    if trace is not None:
        trace.gray, trace.mask, trace.restored = found.gray, found.mask, found.restored
        trace.chosen = found.quad
    if found.quad is None and found.edge is not None:
        raise cut_off_error(found.edge)
    if found.quad is None:
        raise GridNotFoundError("no Sudoku grid found in the image")
    quad = found.quad
    if found.finer:
        quad, level = to_level(quad, -1), level - 1
    lattice = to_level(fit_lattice(found.pyramid, quad), -level)
    located = time.perf_counter()
    location = cut_cells(levels, lattice, image_bgr)
    if timings is not None:
        timings["grid"] = located - start
        timings["cells"] = time.perf_counter() - located
    if trace is not None:
        trace.location = location
    return location


@dataclass(frozen=True)
class _Found:
    """What one search of a grayscale image found."""

    gray: np.ndarray
    """The image searched."""
    mask: np.ndarray
    """Its ink mask."""
    quad: np.ndarray | None
    """(4, 2) corners of the grid found, in `gray`'s pixels, or None."""
    pyramid: Pyramid
    """The ink the grid's lines are traced in: of `gray`, or of the image before its last
    halving when `finer`."""
    finer: bool
    """Whether the grid was found in the ink measured before the last halving."""
    edge: str | None
    """The photo's edge that the best block of a grid running off it runs to, or None."""
    restored: str | None = None
    """How `gray` was restored from the searched image (`_restorations`); None: it is that
    image."""


def _search(
    gray: np.ndarray, before_halving: np.ndarray | None, trace: GridSearch | None
) -> _Found:
    """Search the grayscale image `gray` for a grid: its candidates scored on its ink, then on its
    sharp ink, then (given `before_halving`, the image `gray` was halved from) on the sharp ink
    of that (see `locate_grid`)."""
    mask, strength = binarize(gray)
    pyramid = ink_pyramid(strength)
    candidates = _Candidates(mask)
    blocks: list[_Block] = []
    quad = _best_quad(candidates, pyramid, trace, blocks)
    if quad is None:  # a hairline grid whose thin rules the blurred ink loses: score again
        quad = _best_quad(candidates, ink_pyramid(sharp_strength(gray)), trace, blocks)
    finer = quad is None and before_halving is not None
    if finer:  # rules too thin to outlast the last halving: measure their ink before it
        pyramid = ink_pyramid(sharp_strength(before_halving))
        quad = _best_quad(candidates, pyramid, trace, blocks, finer=True)
    edge = max(blocks, key=lambda block: block.value).edge if blocks else None
    return _Found(gray, mask, quad, pyramid, finer, edge)


def _retried(gray: np.ndarray, trace: GridSearch | None) -> _Found | None:
    """The search of the searched image `gray` restored (`_restorations`), for a photo in which
    no grid was found as it is: the first that finds a whole grid, or None. A block of a grid
    found only in a restored image is not taken for a grid running off the photo."""
    for name, restored in _restorations(gray):
        found = _search(restored, None, trace)
        if found.quad is not None:
            return replace(found, restored=name)
    return None


def _restorations(gray: np.ndarray) -> Iterator[tuple[str, np.ndarray]]:
    """The searched image `gray` restored, each named, in the order tried: first with its
    contrast stretched (`restore.stretched`, only when that stretches it by STRETCHED or more),
    which brings the rules of a washed-out photo, or those a shake smeared thin, back over the
    ink mask's threshold; then steadied along the shake found in the whole image
    (`restore.shake`, `restore.steadied`), which gathers a smeared rule back into a line."""
    if contrast_gain(gray) >= STRETCHED:
        yield "contrast stretched", stretched(gray)
    offset = shake(gray)
    if offset != (0.0, 0.0):
        yield "steadied", steadied(gray, offset)


class _Candidates:
    """The candidate quadrilaterals of an ink mask, distinct, found once however many times
    they are scored: the outlines of at least MIN_AREA of the image, and (only when asked for)
    the groups of smaller outlines."""

    def __init__(self, mask: np.ndarray) -> None:
        self.shape = mask.shape
        self.area = float(mask.shape[0] * mask.shape[1])
        self.min_area = MIN_AREA * self.area
        self.outlines = find_outlines(mask, MIN_PART * self.min_area)
        self._hulls = [
            q for area, hull in self.outlines if area >= self.min_area for q in hull_quads(hull)
        ]
        self.large = self._distinct(self._hulls)
        self._grouped: list[np.ndarray] | None = None
        self._steep: list[np.ndarray] | None = None

    @property
    def grouped(self) -> list[np.ndarray]:
        if self._grouped is None:
            self._grouped = self._distinct(grouped_quads(self.outlines))
        return self._grouped

    @property
    def steep(self) -> list[np.ndarray]:
        """The large outlines too foreshortened for `large`, as a grid seen steeply is."""
        if self._steep is None:
            self._steep = self._distinct(self._hulls, steep=True)
        return self._steep

    def _distinct(self, quads: list[np.ndarray], steep: bool = False) -> list[np.ndarray]:
        gap = 0.01 * np.sqrt(self.shape[0] * self.shape[1])
        return list(distinct_quads(quads, self.min_area, gap, steep=steep))


@dataclass(frozen=True)
class _Block:
    """A candidate that scored as a grid but is a block of a larger one."""

    edge: str | None
    """The photo's edge its lines run on to (`cut_edge`), or None when they stop inside it."""
    value: float
    """Its grid score weighted by how it is framed, as `_pick` weighs candidates."""


def _best_quad(
    candidates: _Candidates,
    pyramid: Pyramid,
    trace: GridSearch | None,
    blocks: list[_Block],
    finer: bool = False,
) -> np.ndarray | None:
    """The candidate quadrilateral that looks most like a Sudoku grid, refined, or None.

    Candidates are the outlines of at least MIN_AREA of the image, then (only if none of those
    is a grid, or the best is small: perhaps a solution grid beside the real one, whose outline
    is lost) groups of smaller outlines, and last (only if still none is a grid) the outlines
    foreshortened as a grid seen steeply is (`distinct_quads` with `steep`), so that a grid seen
    from the front is never weighed against them. Among candidates that pass the score
    threshold, larger ones and those nearer the middle of the photo are preferred (`_framing`):
    a Sudoku photo frames its grid, and neither a small grid of yesterday's solution beside it
    nor a clean grid at the edge of the page must win over a grid whose cells are all written
    in, whose lines stand out less. A candidate whose lines go on past its outline is a block
    of a larger grid (one box, or six columns taken for nine, of a grid running off the photo),
    not a grid: it is added to `blocks` instead. With `finer`, `pyramid` is of the image before
    its last halving: the candidates, found in the mask, are refined and scored there (the quad
    is returned in the mask's pixels all the same).
    """
    shape = candidates.shape
    best, value = _pick(candidates.large, pyramid, shape, trace, blocks, finer)
    if best is None or cv2.contourArea(best) < _SMALL_GRID * candidates.area:
        grouped, grouped_value = _pick(candidates.grouped, pyramid, shape, trace, blocks, finer)
        if grouped_value > value:
            best = grouped
    if best is None:  # a grid seen steeply, its far side foreshortened: looked at last
        best, _ = _pick(candidates.steep, pyramid, shape, trace, blocks, finer)
    return best


def _framing(quad: np.ndarray, shape: tuple[int, ...]) -> float:
    """How well a photo of `shape` (height, width) frames the grid `quad`: the square root of the
    share of the photo it covers, times 1 less its centre's distance from the photo's centre as
    a share of half the photo's diagonal (1 in the middle, near 0 in a corner)."""
    height, width = shape[:2]
    middle = np.array([width / 2.0, height / 2.0])
    off = float(np.linalg.norm(quad.mean(axis=0) - middle) / np.linalg.norm(middle))
    return float(np.sqrt(cv2.contourArea(quad) / (height * width))) * (1.0 - off)


def _pick(
    candidates: list[np.ndarray],
    pyramid: Pyramid,
    shape: tuple[int, ...],
    trace: GridSearch | None,
    blocks: list[_Block],
    finer: bool = False,
) -> tuple[np.ndarray | None, float]:
    """The refined candidate (of distinct `candidates`) with the best grid score weighted by how
    it is framed (`_framing`), and that value (None and 0 when no candidate is a grid); with
    `finer`, each candidate is refined on a `pyramid` of twice the size of `shape` (see
    `_best_quad`). The passing candidates are looked at beyond their outlines, best first,
    until one is a grid (`continuing_sides`): each block of a larger grid before it is added to
    `blocks` (and marked as not passed in `trace`). The one chosen, or a block whose lines stop
    inside the photo, gives way to the grid it is one 3x3 box of, where there is one
    (`_whole_of_box`) whose own lines stop at its sides."""
    passing: list[tuple[float, np.ndarray, np.ndarray, int]] = []
    for candidate in candidates:
        if finer:
            refined, contrast, boxes = refine_quad(pyramid, to_level(candidate, -1))
            quad = to_level(refined, 1)
        else:
            refined, contrast, boxes = refine_quad(pyramid, candidate)
            quad = refined
        score = grid_score(contrast, boxes)
        sides = np.linalg.norm(quad - np.roll(quad, 1, axis=0), axis=1)
        passed = score >= MIN_SCORE and sides.min() >= _MIN_SIDE and is_convex(quad)
        if trace is not None:
            trace.candidates.append(Candidate(candidate, quad, score, bool(passed)))
        if passed:
            index = len(trace.candidates) - 1 if trace is not None else -1
            passing.append((score * _framing(quad, shape), quad, refined, index))
    for value, quad, refined, index in sorted(passing, key=lambda item: -item[0]):
        going_on = continuing_sides(pyramid, refined)
        edge = cut_edge(pyramid, refined, going_on) if going_on.any() else None
        whole = _whole_of_box(pyramid, refined, finer) if edge is None else None
        if whole is not None and not continuing_sides(pyramid, whole[0]).any():
            grid = to_level(whole[0], 1) if finer else whole[0]
            if trace is not None:  # the box gives way to its grid
                trace.candidates[index] = replace(trace.candidates[index], passed=False)
                trace.candidates.append(Candidate(quad, grid, whole[1], True))
            return grid, whole[1] * _framing(grid, shape)
        if not going_on.any():
            return quad, value
        blocks.append(_Block(edge, value))
        if trace is not None:
            trace.candidates[index] = replace(trace.candidates[index], passed=False)
    return None, 0.0


_BOX_FIT = 0.15
"""Farthest (a share of the box's side) a box's corners may lie from those of the same box of
the grid made of it (`_whole_of_box`) for that grid to stand in for it."""


def _whole_of_box(
    pyramid: Pyramid, box: np.ndarray, finer: bool
) -> tuple[np.ndarray, float] | None:
    """The grid, refined, and its score, of which the grid candidate `box` (in `pyramid`'s level-0
    pixels) is one 3x3 box, or None when it is none's.

    A box of a grid whose own outline is lost (a shadow across the page, a grid on a curved
    page) has lines and a thick border of its own, and scores as a grid. Each of the nine grids
    it could be a box of (three times its size, it in one of the nine places) that lies in the
    photo is refined; the best that scores as a grid, passes as one in size and shape, and has
    `box` as the box in that place (its corners within _BOX_FIT of the box's side) is the grid.
    A whole grid is not taken for a box: around it lies paper, so no grid three times its size
    scores as one.
    """
    height, width = pyramid[0][0].shape[:2]
    unit = np.float32([[0, 0], [1, 0], [1, 1], [0, 1]])
    to_box = cv2.getPerspectiveTransform(unit, box.astype(np.float32))
    side = float(np.linalg.norm(box - np.roll(box, 1, axis=0), axis=1).mean())
    least_side = _MIN_SIDE * (2 if finer else 1)
    best: tuple[np.ndarray, float] | None = None
    for row in range(3):
        for column in range(3):
            place = np.float32([column, row])
            grid = cv2.perspectiveTransform((3 * unit - place)[None], to_box)[0]
            if (
                grid.min() < -0.5
                or (grid[:, 0] > width - 0.5).any()
                or (grid[:, 1] > height - 0.5).any()
            ):
                continue
            refined, contrast, boxes = refine_quad(pyramid, grid)
            score = grid_score(contrast, boxes)
            if score < MIN_SCORE or (best is not None and score <= best[1]):
                continue
            sides = np.linalg.norm(refined - np.roll(refined, 1, axis=0), axis=1)
            if sides.min() < least_side or not is_convex(refined):
                continue
            from_grid = cv2.getPerspectiveTransform(unit, refined.astype(np.float32))
            its_box = cv2.perspectiveTransform(((unit + place) / 3)[None], from_grid)[0]
            if np.linalg.norm(its_box - box, axis=1).max() <= _BOX_FIT * side:
                best = refined, score
    return best
