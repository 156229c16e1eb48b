"""Synthetic cell crops: a font's digit (or nothing) on paper, as a phone camera would see it.

Each crop imitates what the runtime cutter hands the classifier: a cell plus a little margin, with
grid-line remnants at its borders, the digit somewhat off centre, shaded or coloured paper, uneven
light, blur, noise, JPEG artefacts and low resolution. Digits stay upright (a few degrees of
rotation at most), because `orient` needs a classifier that is unsure of sideways digits.
"""

from __future__ import annotations

import cv2
import numpy as np


def _glyph_alpha(glyph: np.ndarray, height: float, rng: np.random.Generator) -> np.ndarray:
    """Scale a glyph's ink mask to `height` px with random weight, width, slant and rotation."""
    g = glyph.astype(np.float32) / 255.0
    stroke = rng.choice([-1, 0, 0, 0, 1])
    if stroke:
        k = np.ones((3, 3), np.uint8)
        g = cv2.dilate(g, k) if stroke > 0 else cv2.erode(g, k)
    h, w = g.shape
    pad = h // 3
    g = cv2.copyMakeBorder(g, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=0.0)
    cx, cy = g.shape[1] / 2.0, g.shape[0] / 2.0
    angle = np.deg2rad(rng.normal(0.0, 2.5))
    shear = rng.normal(0.0, 0.06)
    sx = rng.uniform(0.85, 1.15)
    rot = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    lin = rot @ np.array([[sx, shear], [0.0, 1.0]])
    scale = height / h
    lin = lin * scale
    out_size = (int(np.ceil(g.shape[1] * scale)) + 2, int(np.ceil(g.shape[0] * scale)) + 2)
    centre_out = np.array(out_size, np.float64) / 2.0
    offset = centre_out - lin @ np.array([cx, cy])
    m = np.hstack([lin, offset[:, None]])
    return cv2.warpAffine(g, m, out_size, flags=cv2.INTER_AREA)


def _paste(canvas: np.ndarray, alpha: np.ndarray, cx: float, cy: float) -> None:
    """Max-blend `alpha` centred at (cx, cy) into `canvas`, in place, clipped at the edges."""
    h, w = alpha.shape
    x0, y0 = int(round(cx - w / 2.0)), int(round(cy - h / 2.0))
    xa, ya = max(0, x0), max(0, y0)
    xb, yb = min(canvas.shape[1], x0 + w), min(canvas.shape[0], y0 + h)
    if xa >= xb or ya >= yb:
        return
    region = canvas[ya:yb, xa:xb]
    np.maximum(region, alpha[ya - y0 : yb - y0, xa - x0 : xb - x0], out=region)


def _grid_lines(canvas: np.ndarray, margin: float, cell: float, rng: np.random.Generator) -> None:
    """Draw the cell's four grid lines (maybe thick, faint, tilted or missing) into `canvas`."""
    n = canvas.shape[0]
    for side in range(4):
        if rng.random() < 0.08:
            continue
        pos = margin + (cell if side >= 2 else 0.0) + rng.normal(0.0, 0.03 * cell)
        width = max(0.6, rng.choice([0.02, 0.04, 0.07, 0.1]) * cell * rng.uniform(0.7, 1.3))
        strength = rng.uniform(0.5, 1.0)
        tilt = rng.normal(0.0, 0.02) * n
        layer = np.zeros_like(canvas)
        p0, p1 = pos - tilt / 2.0, pos + tilt / 2.0
        shift = 4
        pts = np.array([[p0, -5], [p1, n + 5]]) * (1 << shift)
        thick = max(1, int(round(width)))
        a, b = pts.astype(np.int64)
        cv2.line(
            layer, (int(a[0]), int(a[1])), (int(b[0]), int(b[1])), 1.0, thick, cv2.LINE_AA, shift
        )
        if side % 2:
            layer = layer.T
        np.maximum(canvas, layer * strength, out=canvas)


def sheet_style(rng: np.random.Generator) -> dict[str, float]:
    """Draw what one photo shares across its cells: paper, ink darkness, size, blur, noise, JPEG."""
    paper = rng.uniform(120.0, 255.0) if rng.random() < 0.25 else rng.uniform(175.0, 255.0)
    return {
        "cell": rng.uniform(22.0, 80.0),
        "margin": rng.uniform(0.0, 0.25),
        "paper": paper,
        "darkest": rng.uniform(0.0, paper - 35.0),
        "blur": rng.uniform(0.3, 1.6) if rng.random() < 0.7 else 0.0,
        "lowres": rng.uniform(0.35, 0.8) if rng.random() < 0.3 else 1.0,
        "noise": rng.uniform(0.5, 7.0),
        "jpeg": float(rng.integers(25, 95)) if rng.random() < 0.5 else 0.0,
        "height": rng.uniform(0.32, 0.8),
    }


def _smudge(ink: np.ndarray, rng: np.random.Generator) -> None:
    """Add a faint blot or stroke (dirt, a fold, print showing through the page) into `ink`."""
    n = ink.shape[0]
    layer = np.zeros_like(ink)
    centre = (int(rng.uniform(0.2, 0.8) * n * 16), int(rng.uniform(0.2, 0.8) * n * 16))
    axes = (int(rng.uniform(0.03, 0.25) * n * 16), int(rng.uniform(0.02, 0.12) * n * 16))
    cv2.ellipse(layer, centre, axes, rng.uniform(0, 180), 0, 360, 1.0, -1, cv2.LINE_AA, 4)
    layer = cv2.GaussianBlur(layer, (0, 0), rng.uniform(0.5, 0.08 * n + 0.6))
    np.maximum(ink, layer * rng.uniform(0.1, 0.6) / max(float(layer.max()), 1e-3), out=ink)


def synth_cell(
    glyph: np.ndarray | None, rng: np.random.Generator, style: dict[str, float] | None = None
) -> np.ndarray:
    """Render one grayscale uint8 cell crop holding `glyph` (an ink mask), or an empty cell.

    Cells of one `style` (see `sheet_style`) look as if cut from the same photo; each still varies
    a little, and may be shaded.
    """
    style = style or sheet_style(rng)
    cell = style["cell"] * rng.uniform(0.95, 1.05)
    margin = max(0.0, style["margin"] + rng.normal(0.0, 0.02)) * cell
    n = int(round(cell + 2 * margin))
    ink = np.zeros((n, n), np.float32)
    _grid_lines(ink, margin, cell, rng)
    centre = margin + cell / 2.0
    if glyph is not None:
        height = style["height"] * rng.uniform(0.92, 1.08) * cell
        alpha = _glyph_alpha(glyph, height, rng)
        off = rng.normal(0.0, 0.05 * cell, 2).clip(-0.14 * cell, 0.14 * cell)
        _paste(ink, alpha, centre + off[0], centre + off[1])
    else:
        for _ in range(rng.poisson(0.7)):
            r = rng.uniform(0.3, 0.04 * cell + 0.5)
            px, py = rng.uniform(0, n, 2)
            cv2.circle(
                ink,
                (int(px * 16), int(py * 16)),
                int(r * 16),
                rng.uniform(0.3, 1.0),
                -1,
                cv2.LINE_AA,
                4,
            )
        if rng.random() < 0.3:
            _smudge(ink, rng)
    if rng.random() < 0.15:
        neighbour = np.zeros_like(ink)
        bar = max(1, int(rng.uniform(0.05, 0.15) * cell))
        edge = int(rng.integers(0, 4))
        value = rng.uniform(0.3, 1.0) * (rng.random() < 0.5)
        if edge == 0:
            neighbour[:, :bar] = value
        elif edge == 1:
            neighbour[:bar] = value
        elif edge == 2:
            neighbour[:, n - bar :] = value
        else:
            neighbour[n - bar :] = value
        np.maximum(ink, neighbour, out=ink)

    paper = style["paper"]
    if rng.random() < 0.15:
        paper *= rng.uniform(0.6, 0.9)
    darkest = min(style["darkest"] * rng.uniform(0.9, 1.1), paper - 20.0)
    yy, xx = np.mgrid[0:n, 0:n].astype(np.float32) / max(n, 1)
    light = 1.0 + rng.normal(0.0, 0.08) * (xx - 0.5) + rng.normal(0.0, 0.08) * (yy - 0.5)
    if rng.random() < 0.1:
        cut = rng.uniform(0.2, 0.8)
        light = light * np.where(
            (xx if rng.random() < 0.5 else yy) < cut, 1.0, rng.uniform(0.6, 0.9)
        )
    img = (paper - (paper - darkest) * ink) * light
    if style["blur"] > 0:
        img = cv2.GaussianBlur(img, (0, 0), style["blur"] * rng.uniform(0.8, 1.2))
    if style["lowres"] < 1.0:
        small = max(8, int(n * style["lowres"]))
        img = cv2.resize(cv2.resize(img, (small, small), interpolation=cv2.INTER_AREA), (n, n))
    img = img + rng.normal(0.0, style["noise"], img.shape).astype(np.float32)
    out = np.clip(img, 0, 255).astype(np.uint8)
    if style["jpeg"]:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(style["jpeg"])])
        if ok:
            out = cv2.imdecode(buf, cv2.IMREAD_GRAYSCALE)
    return out
