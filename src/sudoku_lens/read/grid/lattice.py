"""Stage 4 of the grid search: trace the 20 grid lines and find their 100 crossings.

In the chosen quadrilateral each line is followed piece by piece (a smooth path through the
strongest ink), so curved paper and unevenly printed grids still give clean cell boundaries; the
crossings, mapped back to the photo, are the lattice, its outer ones the grid's corners. First
the quadrilateral is moved by half a cell where its lines lie more along the ink there.
"""

from __future__ import annotations

import cv2
import numpy as np

from sudoku_lens.read.grid.geometry import Pyramid, rectify

_SLICES = 18  # pieces each line is followed in (two per cell)
_STEP_COST = 0.05  # cost per pixel a line's path moves between neighbouring pieces
_STRAY = 1 / 6
"""Farthest (a share of a cell) a point of a line may lie from where the other lines put it
before it is taken for a digit's stroke the line was drawn onto."""
_CHECKED = 6
"""Least lines, seen along their length and near where the others put them, that a point must be
checked against; with fewer (a grid whose thin rules do not show) the points are kept."""


def fit_lattice(pyramid: Pyramid, quad: np.ndarray) -> np.ndarray:
    """Trace the 20 grid lines near `quad`: their (10, 10, 2) crossings in level-0 pixels. The
    quad is moved by half a cell first where its lines lie more along the ink there
    (`_half_a_cell_off`)."""
    s = m = 24
    h, warped, _ = rectify(pyramid, quad, s, m)
    off = _half_a_cell_off(warped, s, m)
    if off != (0.0, 0.0):
        unit = np.float32([[0, 0], [1, 0], [1, 1], [0, 1]])
        to_quad = cv2.getPerspectiveTransform(unit, np.asarray(quad, np.float32))
        quad = cv2.perspectiveTransform((unit + np.float32(off) / 9)[None], to_quad)[0]
        h, warped, _ = rectify(pyramid, quad, s, m)
    along = m + 9 * s * np.concatenate([[0.0], (np.arange(_SLICES) + 0.5) / _SLICES, [1.0]])
    rows = _trace_lines(warped, s, m)
    cols = _trace_lines(warped.T, s, m)
    points = _intersect(rows, cols, along)
    inverse = np.linalg.inv(h)
    return cv2.perspectiveTransform(points.reshape(-1, 1, 2), inverse).reshape(10, 10, 2)


def _half_a_cell_off(warped: np.ndarray, s: int, m: int) -> tuple[float, float]:
    """How far (in cells, 0 or one half either way, across the columns and across the rows)
    the grid rectified as `warped` (cells of s pixels, a margin of m) is to be moved for its
    lines to lie most along the ink (`_line_support`).

    In a grid written in in every cell whose thin rules a curved page bends and a blur spreads,
    a comb of straight lines over the rows of digits can hold as much ink as one over the
    rules, and the comb search may settle half a cell off, farther than `_trace_lines` looks;
    a rule is ink in every piece along it, a row of digits only where the digits are.
    """
    shifts = (0.0, -0.5, 0.5)
    moves = []
    for image in (warped.T, warped):
        support = [_line_support(image, s, m, int(round(shift * s))) for shift in shifts]
        moves.append(shifts[int(np.argmax(support))])
    return moves[0], moves[1]


def _line_support(warped: np.ndarray, s: int, m: int, shift: int) -> float:
    """How much the 10 horizontal lines of a rectified grid, moved `shift` pixels down, lie along
    ink: in each of _SLICES pieces along a line, the most ink within a third of a cell of it less
    the median there, and a line worth its lower quartile over its pieces; the mean over the
    lines."""
    reach = s // 3
    width = 9 * s // _SLICES
    offsets = np.arange(-reach, reach + 1)
    rows = m + shift + s * np.arange(10)[:, None] + offsets
    band = warped[rows, m : m + width * _SLICES].reshape(10, len(offsets), _SLICES, width)
    sums = band.mean(axis=3)
    contrast = sums.max(axis=1) - np.partition(sums, reach, axis=1)[:, reach]
    return float(np.partition(contrast, _SLICES // 4, axis=1)[:, _SLICES // 4].mean())


def _trace_lines(warped: np.ndarray, s: int, m: int) -> np.ndarray:
    """Follow each of the 10 horizontal lines of a rectified grid along its length.

    Each line is found in _SLICES pieces, within a third of a cell of where the comb put it and
    preferring peaks near that position (a rule printed just above the grid must not pull the
    top line up). A piece's ink at each offset is its lower quartile along the piece: a printed
    line darkens the whole piece, a digit's stroke only part of it, so a faint thin line is
    not traded for the foot of a 2 or the top of a 7 beside it. Pieces where the line is weak
    (broken, hidden, outside the photo) or far from a smooth curve through the others are filled
    from that curve; a line that does not follow its neighbours is replaced by interpolation
    between them. The measured positions are kept otherwise, so a grid bent at one corner
    (curled paper) is cut along its real lines.

    Returns (10, _SLICES + 2) positions across the lines at the grid's start, at the centre of
    each piece, and at the grid's end.
    """
    n = 9 * s
    reach = s // 3
    width = n // _SLICES
    offsets = np.arange(-reach, reach + 1)
    rows = m + s * np.arange(10)[:, None] + offsets
    band = warped[rows, m : m + width * _SLICES].reshape(10, len(offsets), _SLICES, width)
    sums = np.partition(band, width // 4, axis=3)[..., width // 4]
    prior = 1.0 - 0.5 * (offsets / reach) ** 2
    best = _smooth_path(sums * prior[None, :, None], offsets)
    strength = np.take_along_axis(sums, best[:, None, :], axis=1)[:, 0, :]
    near = np.abs(offsets[None, :, None] - offsets[best][:, None, :]) <= 2
    mass = np.where(near, sums, 0.0)
    centre = (mass * offsets[None, :, None]).sum(axis=1) / np.maximum(mass.sum(axis=1), 1e-6)
    ys = m + s * np.arange(10)[:, None] + centre
    weight = np.where(strength > 0.5 * np.median(strength), strength, 0.0)
    u = (np.arange(_SLICES) + 0.5) / _SLICES * 2.0 - 1.0
    coeffs = _fit_quadratics(u, ys, weight)
    for _ in range(2):
        far = np.abs(_evaluate(coeffs, u) - ys) > s / 5
        weight = np.where(far, 0.0, weight)
        coeffs = _fit_quadratics(u, ys, weight)
    ys = np.where(weight > 0, ys, _evaluate(coeffs, u))
    ys = np.concatenate([ys[:, :1], ys, ys[:, -1:]], axis=1)
    ys = 0.25 * ys[:, :-2] + 0.5 * ys[:, 1:-1] + 0.25 * ys[:, 2:]
    ends = [1.5 * ys[:, :1] - 0.5 * ys[:, 1:2], 1.5 * ys[:, -1:] - 0.5 * ys[:, -2:-1]]
    ys = np.concatenate([ends[0], ys, ends[1]], axis=1)
    return _regularise(ys, weight.astype(bool).mean(axis=1), s)


def _smooth_path(gain: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """For each line, the offset index per slice that collects the most `gain` (lines, offsets,
    slices) less _STEP_COST per pixel of change between neighbouring slices (Viterbi): the path
    follows one continuous line and does not jump onto text or a rule beside it for one slice.
    """
    step = _STEP_COST * np.abs(offsets[:, None] - offsets[None, :])
    total = gain[:, :, 0].copy()
    back = np.zeros(gain.shape, np.intp)
    for k in range(1, gain.shape[2]):
        options = total[:, :, None] - step[None, :, :]
        back[:, :, k] = options.argmax(axis=1)
        total = options.max(axis=1) + gain[:, :, k]
    path = np.zeros((gain.shape[0], gain.shape[2]), np.intp)
    path[:, -1] = total.argmax(axis=1)
    for k in range(gain.shape[2] - 1, 0, -1):
        path[:, k - 1] = np.take_along_axis(back[:, :, k], path[:, k : k + 1], axis=1)[:, 0]
    return path


def _fit_quadratics(
    u: np.ndarray, ys: np.ndarray, weight: np.ndarray, curvature: float = 0.5
) -> np.ndarray:
    """Weighted least-squares a + b u + c u^2 for each row of `ys`; ridge terms keep b, c small
    (`curvature` is c's)."""
    design = np.stack([np.ones_like(u), u, u * u], axis=1)
    normal = np.einsum("ks,lk,kt->lst", design, weight, design)
    normal += np.diag([1e-6, 0.05, curvature])
    rhs = np.einsum("ks,lk,lk->ls", design, weight, ys)
    rhs[:, 0] += 1e-6 * ys.mean(axis=1)
    return np.linalg.solve(normal, rhs[:, :, None])[:, :, 0]


def _evaluate(coeffs: np.ndarray, u: np.ndarray) -> np.ndarray:
    return coeffs[:, :1] + coeffs[:, 1:2] * u + coeffs[:, 2:3] * u * u


def _regularise(ys: np.ndarray, support: np.ndarray, s: int) -> np.ndarray:
    """Replace lines that are barely seen or break the even spacing, and the stray points of
    the others, by interpolation.

    `ys` holds each line's positions at common points along it; `support` the share of its
    length where it was seen. At every point the ten positions are fitted as a quadratic of the
    line number (spacing changes smoothly under perspective) over the trusted lines. A point
    of a trusted line far from that fit (`_STRAY`), where enough others are near it, is moved
    onto it: the line was drawn onto the strokes of a bold digit beside a faint rule there,
    while a curl of the paper bends every line near it alike and is kept. Lines replaced beyond
    the outermost trusted ones follow a straight fit instead: a curve carried several lines
    past its data bends far off (a comb placed a little too tall drifts the same each line).
    """
    index = np.arange(10, dtype=np.float64) / 4.5 - 1.0
    trusted = support >= 0.3
    predicted = ys
    for _ in range(2):
        if trusted.sum() < 4:
            return ys
        weight = np.broadcast_to(trusted.astype(np.float64), (ys.shape[1], 10))
        across = _fit_quadratics(index, ys.T, weight)
        predicted = _evaluate(across, index).T
        trusted &= np.abs(ys - predicted).mean(axis=1) < s / 5
    kept = np.broadcast_to(trusted[:, None], ys.shape)
    if trusted.sum() >= _CHECKED:
        for _ in range(2):
            across = _fit_quadratics(index, ys.T, kept.T.astype(np.float64))
            predicted = _evaluate(across, index).T
            near = trusted[:, None] & (np.abs(ys - predicted) <= s * _STRAY)
            kept = np.where(near.sum(axis=0) >= _CHECKED, near, trusted[:, None])
    seen_lines = np.flatnonzero(trusted)
    beyond = np.zeros(10, bool)
    if seen_lines.size >= 2:
        beyond = (np.arange(10) < seen_lines[0]) | (np.arange(10) > seen_lines[-1])
    if beyond.any():
        weight = np.broadcast_to(trusted.astype(np.float64), (ys.shape[1], 10))
        straight = _evaluate(_fit_quadratics(index, ys.T, weight, curvature=1e6), index).T
        predicted = np.where(beyond[:, None], straight, predicted)
    return np.where(kept, ys, predicted)


def _intersect(rows: np.ndarray, cols: np.ndarray, along: np.ndarray) -> np.ndarray:
    """Crossings of row curves y = rows[i](x) and column curves x = cols[j](y), both sampled at
    the positions `along`, found by alternating interpolation."""
    y = np.repeat(rows.mean(axis=1)[:, None], 10, axis=1)
    x = np.repeat(cols.mean(axis=1)[None, :], 10, axis=0)
    for _ in range(4):
        x = np.stack([np.interp(y[:, j], along, cols[j]) for j in range(10)], axis=1)
        y = np.stack([np.interp(x[i], along, rows[i]) for i in range(10)], axis=0)
    return np.stack([x, y], axis=2).astype(np.float32)
