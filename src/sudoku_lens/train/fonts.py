"""Find font files and render the digits 1-9 of each, for synthetic printed-digit training data.

Fonts come from directories given by the user (default: the system's /usr/share/fonts). Fonts that
lack the digits, symbol and dingbat fonts, and fonts whose digits look exactly like another font's
(Noto's many script fonts share one set of Latin digits) are left out, so no shape is over-weighted;
so are italic fonts, as Sudoku givens are printed upright and the orientation finder relies on
the classifier knowing upright digits only. OpenCV's own faces are added as well
(`opencv_digit_glyphs`): they are what the answer is drawn in and what the synthetic photos
print, and reading a solved picture back must work.

Handwriting fonts (those Debian's HANDWRITING_PACKAGES install, in HANDWRITING_FOLDERS) are listed
by `find_handwriting_fonts`, for the generated pen entries the kinds model is trained on.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from sudoku_lens.errors import SudokuLensError
from sudoku_lens.synth.render import HERSHEY_FACES, GlyphFont, glyph

DEFAULT_FONT_DIRS = (Path("/usr/share/fonts"), Path("/usr/local/share/fonts"))
FONT_SUFFIXES = {".ttf", ".otf", ".ttc"}
SKIP_WORDS = ("symbol", "dingbat", "emoji", "math", "music", "braille", "icon", "ornament", "z003")
HANDWRITING_PACKAGES = (
    "fonts-dkg-handwriting",
    "fonts-breip",
    "fonts-bwht",
    "fonts-humor-sans",
    "fonts-comic-neue",
    "fonts-kristi",
    "fonts-klee",
    "fonts-dancingscript",
)
"""Debian packages of handwriting fonts (install what is available) for the pen entries. Not
fonts-femkeklaver: its digits are hollow outlines and its 1 and 2 a few faint traced hairlines,
which no pen entry looks like. (The digit model of the time read 70% of them right; Kristi, a
readable hand it read as badly, stays: the models trained on more of it read 88%.)"""
HANDWRITING_FOLDERS = (
    "fifthhorseman",
    "breip",
    "bwht",
    "humor-sans",
    "comic-neue",
    "kristi",
    "klee",
    "dancingscript",
)
"""The folders (under /usr/share/fonts/*/) those packages put their fonts in."""
GLYPH_PX = 64
"""Font size used to render a glyph; the synthesiser scales it down to the cell."""


def find_fonts(dirs: Iterable[Path] | None = None) -> list[Path]:
    """List the font files under `dirs` (recursively), sorted so that results are reproducible."""
    roots = [Path(d) for d in (dirs or DEFAULT_FONT_DIRS)]
    found = set()
    for root in roots:
        if root.is_file():
            found.add(root)
        elif root.is_dir():
            found.update(p for p in root.rglob("*") if p.suffix.lower() in FONT_SUFFIXES)
    fonts = sorted(p for p in found if not any(w in p.name.lower() for w in SKIP_WORDS))
    if not fonts:
        where = ", ".join(str(r) for r in roots)
        raise SudokuLensError(
            f"no font files (.ttf/.otf/.ttc) found in {where}: install some (e.g. Debian's "
            "fonts-dejavu, fonts-liberation, fonts-noto-core) or pass --fonts DIR"
        )
    return fonts


def find_handwriting_fonts(dirs: Iterable[Path] | None = None) -> list[Path]:
    """Handwriting font files that draw the digits 1-9: every font under `dirs`, or by default
    those in HANDWRITING_FOLDERS under the system's font folders. Sorted; may be empty."""
    if dirs is None:
        roots = [
            folder
            for base in DEFAULT_FONT_DIRS
            if base.is_dir()
            for folder in base.glob("*/*")
            if folder.name in HANDWRITING_FOLDERS
        ]
    else:
        roots = [Path(d) for d in dirs]
    found: set[Path] = set()
    for root in roots:
        if root.is_file():
            found.add(root)
        elif root.is_dir():
            found.update(p for p in root.rglob("*") if p.suffix.lower() in FONT_SUFFIXES)
    usable = []
    for path in sorted(found):
        try:
            font = ImageFont.truetype(str(path), GLYPH_PX)
            glyphs = [_render(font, str(d)) for d in range(1, 10)]
        except (OSError, ValueError):
            continue
        if all(g.size and g.shape[0] >= GLYPH_PX // 4 for g in glyphs):
            usable.append(path)
    return usable


def _render(font: ImageFont.FreeTypeFont, char: str) -> np.ndarray:
    """Render one character as a tight uint8 ink mask (255 = ink); empty if it has no pixels."""
    left, top, right, bottom = font.getbbox(char)
    w, h = max(1, right - left), max(1, bottom - top)
    image = Image.new("L", (w + 4, h + 4), 0)
    ImageDraw.Draw(image).text((2 - left, 2 - top), char, fill=255, font=font)
    ink = np.asarray(image)
    ys, xs = np.nonzero(ink > 40)
    if len(ys) == 0:
        return np.zeros((0, 0), np.uint8)
    return ink[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1].copy()


def _boxed(glyph: np.ndarray) -> bool:
    """Tell a digit drawn inside a frame (keyboard-key fonts) by ink along its whole outline."""
    edges = np.concatenate([glyph[0], glyph[-1], glyph[:, 0], glyph[:, -1]])
    return bool(np.mean(edges > 127) > 0.6)


def _fingerprint(glyphs: list[np.ndarray]) -> str:
    """Hash a coarse picture of the digits, to tell fonts with the same digit shapes apart."""
    h = hashlib.sha1()
    for g in glyphs:
        small = np.asarray(Image.fromarray(g).resize((12, 16), Image.Resampling.BILINEAR))
        h.update((small > 127).tobytes())
        h.update(bytes([min(255, g.shape[1] * 32 // max(1, g.shape[0]))]))
    return h.hexdigest()


def render_digit_glyphs(fonts: Iterable[Path]) -> list[list[np.ndarray]]:
    """Render 1-9 from each usable font: one list of 9 ink masks (digits 1..9) per distinct font."""
    sets: list[list[np.ndarray]] = []
    seen: set[str] = set()
    for path in fonts:
        try:
            font = ImageFont.truetype(str(path), GLYPH_PX)
            missing = _render(font, "\ue000")
            glyphs = [_render(font, str(d)) for d in range(1, 10)]
        except (OSError, ValueError):
            continue
        if any(g.size == 0 or g.shape[0] < GLYPH_PX // 3 for g in glyphs):
            continue
        if any(g.shape == missing.shape and np.array_equal(g, missing) for g in glyphs):
            continue
        style = " ".join(font.getname()).lower()
        if any(w in style for w in ("italic", "oblique", "slanted")):
            continue
        if any(g.shape[1] > 1.6 * g.shape[0] or _boxed(g) for g in glyphs):
            continue
        key = _fingerprint(glyphs)
        if key in seen:
            continue
        seen.add(key)
        sets.append(glyphs)
    if not sets:
        raise SudokuLensError("none of the fonts found has usable digits 1-9: pass --fonts DIR")
    return sets


def opencv_digit_glyphs() -> list[list[np.ndarray]]:
    """Render 1-9 in each of OpenCV's faces, regular and bold, as ink masks like `_render`'s."""
    sets = []
    for face in HERSHEY_FACES:
        for bold in (False, True):
            font = GlyphFont(hershey=face, bold=bold)
            sets.append(
                [np.round(255 * glyph(font, d, GLYPH_PX)).astype(np.uint8) for d in range(1, 10)]
            )
    return sets
