"""Render a puzzle as the printed grid of a newspaper, upright and flat.

The grid is drawn as ink on white: every layer multiplies the paper by its ink colour where it
covers, the way printing subtracts light. Lines get exact anti-aliased coverage, digits are drawn
four times larger and reduced, so edges are smooth at any size. The returned image is exactly the
grid: its outer border's outer edge lies on the image's edges, so the grid's corners are the
image's corners.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

HERSHEY_FACES: tuple[int, ...] = (
    cv2.FONT_HERSHEY_SIMPLEX,
    cv2.FONT_HERSHEY_DUPLEX,
    cv2.FONT_HERSHEY_COMPLEX,
    cv2.FONT_HERSHEY_TRIPLEX,
)
_SUPERSAMPLE = 4
_FONT_DIRS = ("/usr/share/fonts", "/usr/local/share/fonts", "/Library/Fonts", "C:/Windows/Fonts")


@dataclass(frozen=True)
class GlyphFont:
    """A digit font: an OpenCV Hershey face or a TrueType/OpenType file, plus adjustments.

    `bold` picks the heavier Hershey rendering (ignored for font files, whose weight is their
    own); `stroke` thickens (>0) or thins (<0) every stroke by that fraction of the digit height;
    `slant` shears the glyph to the right (0.2 is a typical italic).
    """

    hershey: int = cv2.FONT_HERSHEY_SIMPLEX
    bold: bool = False
    stroke: float = 0.0
    slant: float = 0.0
    path: str | None = None


@dataclass(frozen=True)
class GridStyle:
    """How a grid is printed. Lengths are fractions of a cell's side; colours are BGR 0..255."""

    size: int = 900
    font: GlyphFont = GlyphFont()
    digit_height: float = 0.6
    digit_offset: tuple[float, float] = (0.0, 0.0)
    digit_ink: tuple[int, int, int] = (25, 25, 25)
    line_ink: tuple[int, int, int] = (25, 25, 25)
    thin_ink: tuple[int, int, int] = (25, 25, 25)
    outer_width: float = 0.07
    box_width: float = 0.06
    thin_width: float = 0.02
    shade_ink: tuple[int, int, int] = (215, 215, 215)
    shaded: tuple[tuple[int, int], ...] = ()


def system_fonts() -> list[str]:
    """TrueType/OpenType files found in the usual system font folders, sorted (may be empty)."""
    found: list[str] = []
    for folder in _FONT_DIRS:
        if os.path.isdir(folder):
            for path in Path(folder).rglob("*"):
                if path.suffix.lower() in (".ttf", ".otf"):
                    found.append(str(path))
    return sorted(found)


def _pillow_available() -> bool:
    try:
        import PIL.ImageFont  # noqa: F401
    except ImportError:
        return False
    return True


@functools.cache
def has_digits(path: str) -> bool:
    """Whether the font file draws ten distinct digits (many system fonts cover other scripts)."""
    if not _pillow_available():
        return False
    from PIL import Image, ImageDraw, ImageFont

    try:
        face = ImageFont.truetype(path, size=32)
    except OSError:
        return False
    shapes = set()
    for text in "0123456789\U0010ffff":
        image = Image.new("L", (64, 64), 0)
        ImageDraw.Draw(image).text((8, 8), text, fill=255, font=face)
        shapes.add(image.tobytes())
    return len(shapes) == 11


def random_font(rng: np.random.Generator, font_files: Sequence[str] = ()) -> GlyphFont:
    """A random digit font: a Hershey face, or one of `font_files` when Pillow can draw them.

    Files that cannot draw the digits are skipped.
    """
    usable = [f for f in font_files if has_digits(str(f))] if font_files else []
    path = str(usable[int(rng.integers(len(usable)))]) if usable and rng.random() < 0.6 else None
    return GlyphFont(
        hershey=HERSHEY_FACES[int(rng.integers(len(HERSHEY_FACES)))],
        bold=bool(rng.random() < 0.4),
        stroke=float(rng.uniform(-0.02, 0.025)),
        slant=float(rng.uniform(0.12, 0.25)) if rng.random() < 0.12 else 0.0,
        path=path,
    )


def _shade_pattern(rng: np.random.Generator) -> tuple[tuple[int, int], ...]:
    kind = rng.choice(["boxes", "cells", "band"], p=[0.5, 0.3, 0.2])
    if kind == "boxes":
        parity = int(rng.integers(2))
        boxes = [(b, s) for b in range(3) for s in range(3) if (b + s) % 2 == parity]
        return tuple((3 * b + i, 3 * s + j) for b, s in boxes for i in range(3) for j in range(3))
    if kind == "band":
        r0 = int(rng.integers(9))
        c0 = int(rng.integers(7))
        if rng.random() < 0.5:
            return tuple((r0, c) for c in range(c0, c0 + 3))
        return tuple((r, r0) for r in range(c0, c0 + 3))
    count = int(rng.integers(3, 12))
    cells = rng.choice(81, size=count, replace=False)
    return tuple(divmod(int(i), 9) for i in cells)


def random_style(
    rng: np.random.Generator, size: int = 900, font_files: Sequence[str] = ()
) -> GridStyle:
    """A random newspaper look: font, digit size 45-75% of a cell, line weights, shading, inks."""
    dark = int(rng.integers(0, 60))
    ink = (dark, dark, dark)
    digit_ink = ink
    roll = rng.random()
    if roll < 0.12:
        digit_ink = (
            int(rng.integers(20, 80)),
            int(rng.integers(20, 70)),
            int(rng.integers(170, 235)),
        )
    elif roll < 0.17:
        digit_ink = (
            int(rng.integers(120, 200)),
            int(rng.integers(40, 100)),
            int(rng.integers(0, 50)),
        )
    thin = ink if rng.random() < 0.6 else tuple([int(rng.integers(60, 150))] * 3)
    box = float(rng.uniform(0.035, 0.09))
    shaded: tuple[tuple[int, int], ...] = ()
    shade_ink = (215, 215, 215)
    if rng.random() < 0.3:
        shaded = _shade_pattern(rng)
        if rng.random() < 0.5:
            grey = int(rng.integers(185, 235))
            shade_ink = (grey, grey, grey)
        else:
            tint = rng.uniform(0.7, 0.95, size=3)
            tint[int(rng.integers(3))] = 1.0
            shade_ink = tuple(int(255 * t) for t in tint)
    return GridStyle(
        size=size,
        font=random_font(rng, font_files),
        digit_height=float(rng.uniform(0.45, 0.75)),
        digit_offset=(float(rng.normal(0, 0.03)), float(rng.normal(0, 0.03))),
        digit_ink=digit_ink,
        line_ink=ink,
        thin_ink=thin,
        outer_width=max(box, float(rng.uniform(0.03, 0.12))),
        box_width=box,
        thin_width=float(rng.uniform(0.008, min(0.035, box * 0.8))),
        shade_ink=shade_ink,
        shaded=shaded,
    )


def _hershey_alpha(font: GlyphFont, digit: int, height: int) -> np.ndarray:
    big = height * _SUPERSAMPLE
    (_, ref_h), _ = cv2.getTextSize("8", font.hershey, 1.0, 1)
    scale = big / ref_h
    thickness = 2 if font.bold else 1  # OpenCV 5 draws its fonts at a weight set by this
    (w, h), base = cv2.getTextSize(str(digit), font.hershey, scale, thickness)
    pad = thickness + big // 4
    canvas = np.zeros((h + base + 2 * pad, w + 2 * pad), np.uint8)
    cv2.putText(
        canvas, str(digit), (pad, pad + h), font.hershey, scale, 255, thickness, cv2.LINE_AA
    )
    return canvas


def _truetype_alpha(font: GlyphFont, digit: int, height: int) -> np.ndarray:
    from PIL import Image, ImageDraw, ImageFont

    big = height * _SUPERSAMPLE
    probe = ImageFont.truetype(font.path, size=big)
    x0, y0, x1, y1 = probe.getbbox("8")
    face = ImageFont.truetype(font.path, size=max(4, round(big * big / max(1, y1 - y0))))
    x0, y0, x1, y1 = face.getbbox(str(digit))
    pad = big // 4
    image = Image.new("L", (x1 - x0 + 2 * pad, y1 - y0 + 2 * pad), 0)
    ImageDraw.Draw(image).text((pad - x0, pad - y0), str(digit), fill=255, font=face)
    return np.asarray(image)


def _adjust(big: np.ndarray, font: GlyphFont, height: int) -> np.ndarray:
    """Apply the font's stroke adjustment and slant to a supersampled glyph."""
    radius = round(abs(font.stroke) * height * _SUPERSAMPLE)
    if radius:
        kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * radius + 1, 2 * radius + 1))
        op = cv2.dilate if font.stroke > 0 else cv2.erode
        big = op(np.pad(big, radius), kernel)
    if font.slant:
        h, w = big.shape
        extra = int(np.ceil(font.slant * h))
        shear = np.float32([[1, -font.slant, font.slant * h], [0, 1, 0]])
        big = cv2.warpAffine(big, shear, (w + extra, h), flags=cv2.INTER_LINEAR)
    return big


@functools.lru_cache(maxsize=512)
def glyph(font: GlyphFont, digit: int, height: int) -> np.ndarray:
    """Coverage (float32 0..1, tight crop) of `digit` in `font`, an '8' being `height` px tall."""
    big = _truetype_alpha(font, digit, height) if font.path else _hershey_alpha(font, digit, height)
    big = _adjust(big, font, height)
    ys, xs = np.nonzero(big)
    if len(xs) == 0:
        return np.zeros((1, 1), np.float32)
    big = big[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]
    h = max(1, round(big.shape[0] / _SUPERSAMPLE))
    w = max(1, round(big.shape[1] / _SUPERSAMPLE))
    small = cv2.resize(big, (w, h), interpolation=cv2.INTER_AREA)
    small = small.astype(np.float32) / 255.0
    small.setflags(write=False)
    return small


def _band_coverage(n: int, bands: Sequence[tuple[float, float]]) -> np.ndarray:
    """Per-pixel coverage (0..1) of 1-D pixels [i, i+1) by the union of intervals `bands`."""
    edges = np.arange(n + 1, dtype=np.float64)
    cov = np.zeros(n, np.float64)
    for lo, hi in bands:
        overlap = np.clip(np.minimum(edges[1:], hi) - np.maximum(edges[:-1], lo), 0.0, 1.0)
        cov = np.maximum(cov, overlap)
    return cov.astype(np.float32)


def _apply_ink(
    planes: np.ndarray, coverage: np.ndarray, ink: tuple[int, int, int], x0: int = 0, y0: int = 0
) -> None:
    """Multiply the planar canvas (3, H, W floats 0..1) by an ink colour where `coverage` covers,
    `coverage` being placed with its top left at (x0, y0)."""
    h, w = coverage.shape
    for channel, value in enumerate(ink):
        absorb = np.float32(1.0 - value / 255.0)
        if absorb > 0:
            planes[channel, y0 : y0 + h, x0 : x0 + w] *= 1.0 - coverage * absorb


def render_grid(
    puzzle: np.ndarray, rng: np.random.Generator, style: GridStyle | None = None
) -> np.ndarray:
    """The puzzle printed as a newspaper grid, upright, BGR uint8, square, white paper.

    The image is exactly the grid (outer border edges on the image edges). `style` defaults to
    `random_style(rng)`; `rng` also jitters each digit's position by a hair, as printing does.
    """
    grid = np.asarray(puzzle).reshape(9, 9)
    if style is None:
        style = random_style(rng)
    n = style.size
    cell = n / 9.0
    planes = np.ones((3, n, n), np.float32)

    if style.shaded:
        mask = np.zeros((9, 9), np.float32)
        for r, c in style.shaded:
            mask[r, c] = 1.0
        index = np.minimum((np.arange(n) / cell).astype(int), 8)
        _apply_ink(planes, mask[index][:, index], style.shade_ink)

    half_thin = style.thin_width * cell / 2
    thin = [(k * cell - half_thin, k * cell + half_thin) for k in range(1, 9) if k % 3]
    thin_cov = _band_coverage(n, thin)
    _apply_ink(planes, np.maximum(thin_cov[None, :], thin_cov[:, None]), style.thin_ink)

    half_box = style.box_width * cell / 2
    outer = style.outer_width * cell
    thick = [(0.0, outer), (n - outer, float(n))]
    thick += [(k * cell - half_box, k * cell + half_box) for k in (3, 6)]
    thick_cov = _band_coverage(n, thick)
    _apply_ink(planes, np.maximum(thick_cov[None, :], thick_cov[:, None]), style.line_ink)

    height = max(4, round(style.digit_height * cell))
    for r in range(9):
        for c in range(9):
            d = int(grid[r, c])
            if d == 0:
                continue
            g = glyph(style.font, d, height)
            jx, jy = rng.normal(0.0, 0.01, size=2)
            cx = (c + 0.5 + style.digit_offset[0] + jx) * cell
            cy = (r + 0.5 + style.digit_offset[1] + jy) * cell
            x0 = int(round(cx - g.shape[1] / 2))
            y0 = int(round(cy - g.shape[0] / 2))
            xa, ya = max(x0, 0), max(y0, 0)
            xb, yb = min(x0 + g.shape[1], n), min(y0 + g.shape[0], n)
            patch = g[ya - y0 : yb - y0, xa - x0 : xb - x0]
            _apply_ink(planes, patch, style.digit_ink, xa, ya)
    planes *= 255.0
    planes += 0.5
    return cv2.merge([p.astype(np.uint8) for p in planes])
