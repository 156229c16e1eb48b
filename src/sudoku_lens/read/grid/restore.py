"""Shaken and grainy photos: find what spoils the rectified grid, and undo it before reading.

A photo taken while the phone moves is the sharp picture averaged along a short line: each digit
is smeared into a blob whose strokes and holes the digit model can no longer tell apart. The
line (its length and direction, the *shake*) is found from the grid itself by its cepstrum: the
smear multiplies the picture's spectrum by that of a line, whose zeros repeat along the line's
direction every 1/length, and the inverse transform of the log spectrum turns that repetition
into a deep trough at the shake's own offset, where the sharp picture has little. Knowing the
line, a Wiener filter undoes the smear (`steadied`), keeping the noise it would raise in check.

A photo taken in poor light is grainy instead (`grain`): the paper's closing that the ink is
measured against rides on the grain's peaks, and the digits break up into specks. A Gaussian
blur of a pixel or two (`smoothed`) evens the grain out and leaves the strokes.

A washed-out photo spans few grey levels, and its thin rules stand out from the paper by fewer
than the grid search's ink mask asks for: its contrast is stretched over the whole range
(`stretched`), or by a given gain (`deepened`). The grid search searches the whole photo again
stretched, then steadied (the shake found in the whole photo), when it finds no grid in it as
taken; the reader reads a grid whose digits are faint again from the grid stretched.
"""

from __future__ import annotations

import cv2
import numpy as np

SHORTEST = 4.0
"""Shortest shake looked for, in pixels of the rectified grid (a cell is 36): a shorter smear
costs a digit nothing, and the cepstrum near its origin is the sharp picture's own."""

LONGEST = 16.0
"""Longest shake looked for (pixels of the rectified grid): almost half a cell, where the digit
is smeared over its neighbours' margins. 15-pixel shakes at a 1000-pixel side (the `motion-blur
15 px` of benchmarks/conditions.py) come out at 9 to 13 pixels in the grid."""

NOISE_TO_SIGNAL = 0.05
"""Power of the noise against that of the picture that the Wiener filter assumes (`steadied`):
lower sharpens more and raises more of the photo's grain and JPEG blocks into specks. Set on the
30 printed validation photos shaken by 10 and 15 pixels (benchmarks/conditions.py), solved right:
28 and 23 (one wrong) at 0.03, 29 and 23 at 0.05, 29 and 22 (one wrong) at 0.08."""

_HALF = int(np.ceil(LONGEST)) + 1
_Y, _X = np.mgrid[-_HALF : _HALF + 1, -_HALF : _HALF + 1]
_RADIUS = np.hypot(_X, _Y)
_SEARCHED = (_RADIUS >= SHORTEST) & (_RADIUS <= LONGEST) & ((_X > 0) | ((_X == 0) & (_Y > 0)))
"""The offsets searched: a ring between SHORTEST and LONGEST, one half of it (the cepstrum is
symmetric through its origin, and so is a line's smear)."""


GRAINY = 2.0
"""Grain (`grain`, grey levels) from which a grid is smoothed rather than steadied: the shaken
photos of benchmarks/conditions.py have at most 1.4, its grainy ones (sigma 15 and 30) 2.8 to
13.8 (a large photo's grid is rectified from a halving of it, which averages much of the grain
out), the 320 dataset photos at most 3.4 (median 0.5; none of them is restored)."""

SMOOTHING = 1.5
"""Standard deviation (pixels of the rectified grid, a cell is 36) of the Gaussian blur that
`smoothed` applies. Set on the 30 printed validation photos with grain of sigma 15 and 30
(benchmarks/conditions.py), the digit model's errors on all their cells: 128 and 390 unsmoothed,
7 and 189 at 1.25, 6 and 50 at 1.5, 32 and 48 at 2, 193 and 221 at 2.5."""

STRETCH_SHARE = 0.01
"""Share of the pixels that `stretched` turns black, and the same share white: the darkest and
lightest pixels of a photo are specks and glare, not its ink and paper."""

STRETCHED = 1.25
"""Least gain of `stretched` (`contrast_gain`) for which the grid search, finding no grid in a
photo, searches it again with its contrast stretched: a smaller gain lowers the ink mask's
threshold too little to find a grid not found before, and the search of a photo without one
costs a search less. The searched images of the 30 printed validation photos washed out to 0.35
of their contrast (benchmarks/conditions.py) have gains of 3.5 to 9.1, shaken by 15 pixels 1.5
to 3.7; those of the 320 dataset photos 1.1 to 3.5 (the grid is found in all of them as taken);
a busy picture without a grid, 1.2."""

_FLOOR = 1e-3
"""Share of the mean power added to the spectrum before its log is taken (`shake`), so that the
near-zeros of a sharp picture's spectrum do not swamp the cepstrum with their logs."""
_GRAIN_KERNEL = np.array([[1, -2, 1], [-2, 4, -2], [1, -2, 1]], np.float32)


def grain(gray: np.ndarray) -> float:
    """The standard deviation of the noise in a grayscale picture, in grey levels (Immerkaer's
    estimate: the mean response to a kernel that is blind to smooth shading and to straight
    edges)."""
    response = cv2.filter2D(gray.astype(np.float32), -1, _GRAIN_KERNEL)
    return float(np.sqrt(np.pi / 2.0) * np.abs(response[1:-1, 1:-1]).mean() / 6.0)


def smoothed(gray: np.ndarray) -> np.ndarray:
    """The grayscale uint8 picture `gray` with its grain evened out (Gaussian, SMOOTHING)."""
    return cv2.GaussianBlur(gray, (0, 0), SMOOTHING)


def contrast_gain(gray: np.ndarray) -> float:
    """How much `stretched` stretches the grayscale uint8 picture `gray`: 255 over the grey
    levels between its darkest and lightest STRETCH_SHARE of pixels."""
    return _stretch(gray)[1]


def stretched(gray: np.ndarray) -> np.ndarray:
    """The grayscale uint8 picture `gray` with its grey levels stretched linearly so that its
    darkest STRETCH_SHARE of pixels is black and its lightest white."""
    low, gain = _stretch(gray)
    return cv2.convertScaleAbs(gray, alpha=gain, beta=-low * gain)


def deepened(gray: np.ndarray, gain: float) -> np.ndarray:
    """The grayscale uint8 picture `gray` with its grey levels stretched linearly by `gain`, or
    by less where that would take its darkest pixel below black or its lightest above white: its
    ink then stands out from the paper by `gain` times more grey levels, and no stroke's core is
    flattened (a stroke clipped to black is read thicker: an 8 for a 9)."""
    darkest, lightest, _, _ = cv2.minMaxLoc(gray)
    gain = min(gain, 255.0 / max(lightest - darkest, 1.0))
    return cv2.convertScaleAbs(gray, alpha=gain, beta=-darkest * gain)


def _stretch(gray: np.ndarray) -> tuple[int, float]:
    """The grey level below which STRETCH_SHARE of the pixels of `gray` lie, and the gain that
    takes the levels from it to the one above which the same share lie over the whole range."""
    counts = np.cumsum(np.bincount(gray.ravel(), minlength=256))
    low = int(np.searchsorted(counts, STRETCH_SHARE * counts[-1]))
    high = int(np.searchsorted(counts, (1.0 - STRETCH_SHARE) * counts[-1]))
    return low, 255.0 / max(high - low, 1)


def restored(gray: np.ndarray) -> np.ndarray:
    """A rectified grid `gray` smoothed if it is grainy (GRAINY), else steadied along its shake."""
    if grain(gray) >= GRAINY:
        return smoothed(gray)
    return steadied(gray, shake(gray))


def shake(gray: np.ndarray) -> tuple[float, float]:
    """The offset (x, y), in pixels, from one end to the other of the line along which the
    grayscale picture `gray` (a rectified grid) is most likely smeared, to a tenth of a pixel:
    where its cepstrum is lowest within SHORTEST to LONGEST of its origin. (0, 0) for an even
    picture, which shows no shake."""
    height, width = gray.shape
    window = np.outer(np.hanning(height), np.hanning(width)).astype(np.float32)
    picture = (gray.astype(np.float32) - float(gray.mean())) * window
    spectrum = cv2.dft(picture, flags=cv2.DFT_COMPLEX_OUTPUT)
    power = spectrum[..., 0] ** 2 + spectrum[..., 1] ** 2
    if not power.any():
        return 0.0, 0.0
    log_power = np.log(power + _FLOOR * float(power.mean()))
    cepstrum = cv2.dft(log_power, flags=cv2.DFT_COMPLEX_OUTPUT)[..., 0]
    near = np.roll(cepstrum, (_HALF, _HALF), axis=(0, 1))[: 2 * _HALF + 1, : 2 * _HALF + 1]
    y, x = np.unravel_index(int(np.argmin(np.where(_SEARCHED, near, np.inf))), near.shape)
    dx = x - _HALF + _vertex(near[y, x - 1], near[y, x], near[y, x + 1])
    dy = y - _HALF + _vertex(near[y - 1, x], near[y, x], near[y + 1, x])
    return round(float(dx), 1), round(float(dy), 1)


def _vertex(before: float, at: float, after: float) -> float:
    """Where, within half a pixel of the middle one, a parabola through three equally spaced
    values is lowest."""
    bend = before - 2.0 * at + after
    return float(np.clip(0.5 * (before - after) / bend, -0.5, 0.5)) if bend > 0 else 0.0


def line_kernel(offset: tuple[float, float]) -> np.ndarray:
    """The smear along a line from -offset/2 to offset/2 (pixels): a float64 kernel summing to
    1, its centre the middle pixel, drawn with sub-pixel ends."""
    side = 2 * _HALF + 3
    steps = max(2, int(np.ceil(8 * np.hypot(*offset))))
    t = (np.arange(steps) + 0.5) / steps - 0.5
    x, y = side // 2 + t * offset[0], side // 2 + t * offset[1]
    x0, y0 = np.floor(x).astype(int), np.floor(y).astype(int)
    fx, fy = x - x0, y - y0
    kernel = np.zeros((side, side))
    for dx, dy, weight in (
        (0, 0, (1 - fx) * (1 - fy)),
        (1, 0, fx * (1 - fy)),
        (0, 1, (1 - fx) * fy),
        (1, 1, fx * fy),
    ):
        np.add.at(kernel, (y0 + dy, x0 + dx), weight)
    return kernel / kernel.sum()


def steadied(gray: np.ndarray, offset: tuple[float, float]) -> np.ndarray:
    """The grayscale uint8 picture `gray` with a smear along `offset` (see `shake`) taken out by
    a Wiener filter (NOISE_TO_SIGNAL), scaled to leave the picture's brightness as it was. The
    picture is mirrored beyond its edges first, so that the filter's wrap-around does not carry
    one edge into the other."""
    height, width = gray.shape
    pad = _HALF + 8
    rows = cv2.getOptimalDFTSize(height + 2 * pad)
    cols = cv2.getOptimalDFTSize(width + 2 * pad)
    mirrored = cv2.copyMakeBorder(
        gray, pad, rows - height - pad, pad, cols - width - pad, cv2.BORDER_REFLECT_101
    ).astype(np.float32)
    kernel = line_kernel(offset)
    spread = np.zeros((rows, cols), np.float32)
    spread[: kernel.shape[0], : kernel.shape[1]] = kernel
    spread = np.roll(spread, (-(kernel.shape[0] // 2), -(kernel.shape[1] // 2)), axis=(0, 1))
    line = cv2.dft(spread, flags=cv2.DFT_COMPLEX_OUTPUT)
    picture = cv2.dft(mirrored, flags=cv2.DFT_COMPLEX_OUTPUT)
    gain = (1.0 + NOISE_TO_SIGNAL) / (line[..., 0] ** 2 + line[..., 1] ** 2 + NOISE_TO_SIGNAL)
    filtered = cv2.mulSpectrums(picture, line, 0, conjB=True) * gain[..., None]
    sharp = cv2.dft(filtered, flags=cv2.DFT_INVERSE | cv2.DFT_SCALE | cv2.DFT_REAL_OUTPUT)
    return np.clip(np.rint(sharp[pad : pad + height, pad : pad + width]), 0, 255).astype(np.uint8)
