"""Place a printed grid into a phone-photo scene, with exact ground truth.

The page (grid plus clutter) lies on a plane seen by a pinhole camera: a homography from page to
image, composed with a gentle page bend, gives every output pixel its page point (one `cv2.remap`).
Light, shadows, colour cast, blur, noise and JPEG compression follow in image space. The grid's
corners are mapped through the same geometry, so they are exact.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from sudoku_lens.synth.page import Clutter, Page, compose_page
from sudoku_lens.synth.puzzles import random_puzzle
from sudoku_lens.synth.render import GridStyle, random_style, render_grid

_SIZES = ((640, 480), (800, 600), (1024, 768), (1280, 960), (1600, 1200), (1280, 720))
_EXTENT_LIMIT = (-2.0, 3.0)


@dataclass(frozen=True)
class SyntheticPhoto:
    """A generated photo with its ground truth.

    `corners` (4,2) float32 are the upright puzzle's TL, TR, BR, BL (outer edge of the border) in
    image pixel coordinates; `rotation` is how many degrees clockwise the image must be turned to
    make the puzzle upright (0, 90, 180 or 270).
    """

    image: np.ndarray
    puzzle: np.ndarray
    solution: np.ndarray
    corners: np.ndarray
    rotation: int


@dataclass(frozen=True)
class Difficulty:
    """Ranges the scene's random parameters are drawn from.

    `quarter_turns`: chance the page is sideways or upside down; `tilt`: in-plane tilt (degrees)
    on top of that; `pitch`: out-of-plane tilt (degrees) seen from 1.5-3.5 grid widths away;
    `fill`: the grid's extent over the image's shorter side; `border`: its least distance from
    the image edge (fraction of the shorter side); `bend`: page bend (sag at one grid width
    from the bend's centre, fraction of the grid); `light`: strength of lighting gradients and
    vignetting; `shadow`: chance of a cast shadow; `blur`: Gaussian sigma range in pixels per
    1000 pixels of the shorter side; `motion`: longest motion blur in pixels; `noise`: sensor
    noise sigma range (0..255); `jpeg`: quality range; `flare`: black level range (0..255);
    `lowres`: chance of a low-resolution sensor (downscaled and back); `clutter`: the page
    around the grid.
    """

    quarter_turns: float
    tilt: float
    pitch: float
    fill: tuple[float, float]
    border: float
    bend: float
    light: float
    shadow: float
    blur: tuple[float, float]
    motion: float
    noise: tuple[float, float]
    jpeg: tuple[int, int]
    flare: tuple[float, float]
    lowres: float
    clutter: Clutter


DIFFICULTIES: dict[str, Difficulty] = {
    "easy": Difficulty(
        quarter_turns=0.0,
        tilt=4.0,
        pitch=10.0,
        fill=(0.6, 0.92),
        border=0.04,
        bend=0.0,
        light=0.2,
        shadow=0.1,
        blur=(0.0, 0.7),
        motion=0.0,
        noise=(1.0, 3.0),
        jpeg=(80, 95),
        flare=(5.0, 30.0),
        lowres=0.0,
        clutter=Clutter(neighbour=0.1, gap=(1.0, 2.0), page_edge=0.1),
    ),
    "medium": Difficulty(
        quarter_turns=0.15,
        tilt=10.0,
        pitch=20.0,
        fill=(0.5, 0.95),
        border=0.02,
        bend=0.04,
        light=0.4,
        shadow=0.35,
        blur=(0.3, 1.8),
        motion=3.0,
        noise=(2.0, 5.0),
        jpeg=(60, 92),
        flare=(10.0, 50.0),
        lowres=0.1,
        clutter=Clutter(neighbour=0.3, gap=(0.4, 1.5), page_edge=0.2),
    ),
    "hard": Difficulty(
        quarter_turns=0.3,
        tilt=20.0,
        pitch=30.0,
        fill=(0.4, 0.97),
        border=0.005,
        bend=0.09,
        light=0.65,
        shadow=0.6,
        blur=(0.5, 3.0),
        motion=6.0,
        noise=(3.0, 9.0),
        jpeg=(35, 85),
        flare=(15.0, 75.0),
        lowres=0.3,
        clutter=Clutter(neighbour=0.5, gap=(0.2, 1.0), page_edge=0.3),
    ),
}

BendField = Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]


def difficulty_ranges(difficulty: str | Difficulty) -> Difficulty:
    """The ranges for "easy", "medium" or "hard" (a `Difficulty` given is its own ranges)."""
    if isinstance(difficulty, Difficulty):
        return difficulty
    try:
        return DIFFICULTIES[difficulty]
    except KeyError:
        raise ValueError(
            f"unknown difficulty {difficulty!r}: use one of {', '.join(DIFFICULTIES)}"
        ) from None


def _rotation_3d(pitch: float, yaw: float) -> np.ndarray:
    p, y = np.radians(pitch), np.radians(yaw)
    rx = np.array([[1, 0, 0], [0, np.cos(p), -np.sin(p)], [0, np.sin(p), np.cos(p)]])
    ry = np.array([[np.cos(y), 0, np.sin(y)], [0, 1, 0], [-np.sin(y), 0, np.cos(y)]])
    return rx @ ry


def project_square(pitch: float, yaw: float, distance: float, angle: float) -> np.ndarray:
    """A unit square (TL,TR,BR,BL) seen tilted by `pitch`/`yaw` from `distance` grid widths,
    then turned `angle` degrees clockwise in the image; centred on its centroid, (4,2)."""
    square = np.array([[-0.5, -0.5, 0], [0.5, -0.5, 0], [0.5, 0.5, 0], [-0.5, 0.5, 0]])
    points = square @ _rotation_3d(pitch, yaw).T + [0.0, 0.0, distance]
    xy = points[:, :2] / points[:, 2:3]
    a = np.radians(angle)
    turn = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    xy = xy @ turn.T
    return xy - xy.mean(axis=0)


def _grid_quad(
    rng: np.random.Generator, d: Difficulty, size: tuple[int, int], quarter: int
) -> np.ndarray:
    """Where the camera puts the grid's corners (upright TL,TR,BR,BL) in an image of `size`."""
    w, h = size
    xy = project_square(
        pitch=rng.uniform(-d.pitch, d.pitch),
        yaw=rng.uniform(-d.pitch, d.pitch) * 0.8,
        distance=rng.uniform(1.5, 3.5),
        angle=90.0 * quarter + rng.uniform(-d.tilt, d.tilt),
    )
    span = xy.max(axis=0) - xy.min(axis=0)
    short = min(w, h)
    border = max(2.0, d.border * short)
    scale = rng.uniform(*d.fill) * short / span.max()
    scale = min(scale, (w - 2 * border) / span[0], (h - 2 * border) / span[1])
    xy = xy * scale
    lo = border - xy.min(axis=0)
    hi = np.array([w, h]) - border - xy.max(axis=0)
    return (xy + rng.uniform(lo, hi)).astype(np.float32)


def _bend_field(rng: np.random.Generator, strength: float, g: int) -> BendField | None:
    """A smooth page bend as a displacement from bent page points to flat page points."""
    if strength <= 0:
        return None
    sag = rng.uniform(-strength, strength)
    roll = rng.uniform(-strength, strength) * 0.5
    wave = rng.uniform(0, strength) * 0.05
    centre = rng.uniform(0.2, 0.8, size=2)
    freq, phase = rng.uniform(0.5, 1.5), rng.uniform(0, 2 * np.pi)

    def field(u: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        s = u / g - centre[0]
        t = v / g - centre[1]
        dv = g * (sag * s * s + wave * np.sin(2 * np.pi * freq * s + phase))
        du = g * roll * t * t
        return du.astype(np.float32), dv.astype(np.float32)

    return field


def _bend_forward(field: BendField | None, points: np.ndarray) -> np.ndarray:
    """Bent positions of flat page `points`: solve bent + field(bent) = flat by iteration."""
    if field is None:
        return points
    bent = points.astype(np.float64).copy()
    for _ in range(50):
        du, dv = field(bent[:, 0], bent[:, 1])
        bent = points - np.stack([du, dv], axis=1)
    return bent


def _page_points(
    homography: np.ndarray, field: BendField | None, size: tuple[int, int]
) -> tuple[np.ndarray, np.ndarray]:
    """Flat page coordinates (u, v) seen by every pixel of an image of `size`."""
    w, h = size
    inv = np.linalg.inv(homography).astype(np.float32)
    xs = np.arange(w, dtype=np.float32)[None, :]
    ys = np.arange(h, dtype=np.float32)[:, None]
    den = inv[2, 0] * xs + inv[2, 1] * ys + inv[2, 2]
    u = (inv[0, 0] * xs + inv[0, 1] * ys + inv[0, 2]) / den
    v = (inv[1, 0] * xs + inv[1, 1] * ys + inv[1, 2]) / den
    if field is not None:
        du, dv = field(u, v)
        u, v = u + du, v + dv
    return u, v


def _extent(u: np.ndarray, v: np.ndarray, g: int) -> tuple[int, int, int, int]:
    lo, hi = _EXTENT_LIMIT[0] * g, _EXTENT_LIMIT[1] * g
    u0, u1 = np.clip([u.min() - 2, u.max() + 3], lo, hi)
    v0, v1 = np.clip([v.min() - 2, v.max() + 3], lo, hi)
    return int(np.floor(u0)), int(np.floor(v0)), int(np.ceil(u1)), int(np.ceil(v1))


def _smooth_noise(rng: np.random.Generator, size: tuple[int, int], cells: int) -> np.ndarray:
    """Low-frequency noise in about -1..1 over an image of `size`, `cells` blobs across."""
    w, h = size
    small = rng.normal(0, 1, size=(max(2, cells * h // w), cells)).astype(np.float32)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)


def _table(rng: np.random.Generator, size: tuple[int, int]) -> np.ndarray:
    """A surface under the newspaper: wood, a dark desk or a light table, float32 BGR."""
    w, h = size
    base = np.array(
        [
            [40, 80, 130],
            [60, 100, 150],
            [50, 50, 55],
            [200, 200, 195],
            [110, 130, 140],
        ][int(rng.integers(5))],
        np.float32,
    )
    base = base * rng.uniform(0.8, 1.2, size=3).astype(np.float32)
    shade = 1 + 0.15 * _smooth_noise(rng, size, 6)
    if rng.random() < 0.5:
        angle = rng.uniform(0, np.pi)
        xs, ys = np.meshgrid(np.arange(w, dtype=np.float32), np.arange(h, dtype=np.float32))
        across = xs * np.cos(angle) + ys * np.sin(angle)
        grain = across / rng.uniform(2, 6) + 8 * _smooth_noise(rng, size, 4)
        shade += 0.06 * np.sin(grain)
    return base[None, None, :] * shade[..., None]


def _view(
    page: Page,
    u: np.ndarray,
    v: np.ndarray,
    rng: np.random.Generator,
) -> np.ndarray:
    """The page seen at flat page points (u, v): float32 BGR 0..255, newsprint-tinted, with the
    table showing wherever there is no page."""
    h, w = u.shape
    map_x = u - np.float32(page.origin[0] + 0.5)
    map_y = v - np.float32(page.origin[1] + 0.5)
    seen = cv2.remap(page.canvas, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    image = seen.astype(np.float32)
    image *= paper_tint(rng)
    paper = cv2.remap(page.paper, map_x, map_y, cv2.INTER_LINEAR, borderValue=0.0)
    if paper.min() < 1.0:
        table = _table(rng, (w, h))
        image = table + (image - table) * paper[..., None]
    return image


def _shadow(rng: np.random.Generator, size: tuple[int, int]) -> np.ndarray:
    """A soft cast shadow (multiplicative field, 1 = lit): a straight edge or a blob."""
    w, h = size
    sw, sh = max(8, w // 8), max(8, h // 8)
    depth = np.float32(rng.uniform(0.45, 0.85))
    softness = rng.uniform(0.7, 5.0)
    if rng.random() < 0.6:
        angle = rng.uniform(0, 2 * np.pi)
        xs = np.arange(sw, dtype=np.float32)[None, :] - sw / 2
        ys = np.arange(sh, dtype=np.float32)[:, None] - sh / 2
        across = xs * np.cos(angle) + ys * np.sin(angle)
        cut = rng.uniform(-0.35, 0.35) * min(sw, sh)
        lit = 1.0 / (1.0 + np.exp(np.clip((across - cut) / softness, -30, 30)))
    else:
        blob = np.zeros((sh, sw), np.float32)
        centre = (int(rng.integers(sw)), int(rng.integers(sh)))
        axes = (int(rng.integers(sw // 6, sw // 2)), int(rng.integers(sh // 6, sh // 2)))
        cv2.ellipse(blob, centre, axes, float(rng.uniform(0, 180)), 0, 360, 1.0, -1, cv2.LINE_AA)
        lit = 1.0 - cv2.GaussianBlur(blob, (0, 0), softness + 1.0)
    field = (depth + (1.0 - depth) * lit).astype(np.float32)
    return cv2.resize(field, (w, h), interpolation=cv2.INTER_CUBIC)


def lighting(rng: np.random.Generator, d: Difficulty, size: tuple[int, int]) -> np.ndarray:
    """Exposure times a linear gradient, vignetting and maybe a shadow: (h, w) float32."""
    w, h = size
    xs = np.linspace(-1, 1, w, dtype=np.float32)[None, :]
    ys = np.linspace(-1, 1, h, dtype=np.float32)[:, None]
    gx, gy = rng.uniform(-d.light, d.light, size=2) / 2
    field = 1.0 + gx * xs + gy * ys
    field = field * (1.0 - rng.uniform(0, d.light) * 0.4 * (xs * xs + ys * ys))
    field = field * (1.0 + d.light * 0.1 * _smooth_noise(rng, size, 4))
    if rng.random() < d.shadow:
        field = field * _shadow(rng, size)
    return np.clip(field, 0.05, None) * rng.uniform(0.75, 1.05)


def _motion_kernel(length: float, angle: float) -> np.ndarray:
    n = int(np.ceil(length)) | 1
    kernel = np.zeros((n, n), np.float32)
    c = n // 2
    dx, dy = np.cos(angle) * length / 2, np.sin(angle) * length / 2
    cv2.line(
        kernel, (round(c - dx), round(c - dy)), (round(c + dx), round(c + dy)), 1.0, 1, cv2.LINE_AA
    )
    return kernel / kernel.sum()


def white_balance(rng: np.random.Generator) -> np.ndarray:
    """Per-channel gains (BGR) of a camera's white balance error: warm or cool, a little green."""
    temperature = rng.normal(0.0, 0.06)
    tint = rng.normal(0.01, 0.02)
    gains = np.array([1.0 - temperature, 1.0 + tint, 1.0 + temperature], np.float32)
    return gains / gains.max()


def camera_effects(
    image: np.ndarray, rng: np.random.Generator, d: Difficulty, *, jpeg: bool = True
) -> np.ndarray:
    """Light, colour cast, flare, optics, sensor noise and JPEG on a float32 BGR 0..255 view.

    `image` is modified in place; the result is BGR uint8.
    """
    h, w = image.shape[:2]
    size = (w, h)
    flare = np.float32(rng.uniform(*d.flare))
    light = lighting(rng, d, size) * np.float32(1.0 - flare / 255.0)
    lit = image
    lit *= light[..., None]
    lit *= white_balance(rng)
    lit += flare
    scale = min(w, h) / 1000.0
    sigma = rng.uniform(*d.blur) * scale
    if sigma > 0.3:
        lit = cv2.GaussianBlur(lit, (0, 0), sigma)
    if d.motion > 0 and rng.random() < 0.5:
        length = rng.uniform(1.0, d.motion) * max(scale, 0.6)
        lit = cv2.filter2D(lit, -1, _motion_kernel(length, rng.uniform(0, np.pi)))
    if rng.random() < d.lowres:
        factor = rng.uniform(0.45, 0.75)
        small = cv2.resize(lit, (int(w * factor), int(h * factor)), interpolation=cv2.INTER_AREA)
        lit = cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)
    sigma_n = np.float32(rng.uniform(*d.noise))
    grain = rng.standard_normal((h, w), dtype=np.float32)
    grain *= sigma_n
    lit += grain[..., None]
    chroma = rng.standard_normal((h // 2 + 1, w // 2 + 1, 3), dtype=np.float32)
    chroma *= sigma_n * np.float32(0.4)
    lit += cv2.resize(chroma, (w, h), interpolation=cv2.INTER_LINEAR)
    np.clip(lit, 0, 255, out=lit)
    out = lit.astype(np.uint8)
    if jpeg:
        quality = int(rng.integers(d.jpeg[0], d.jpeg[1] + 1))
        _, data = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, quality])
        out = cv2.imdecode(data, cv2.IMREAD_COLOR)
    return out


def paper_tint(rng: np.random.Generator) -> np.ndarray:
    """Newsprint colour as per-channel factors (BGR): off-white, greyish or yellowed."""
    base = rng.uniform(0.86, 0.98)
    tint = np.array([base * rng.uniform(0.9, 1.0), base * rng.uniform(0.96, 1.0), base], np.float32)
    return tint


def _out_size(rng: np.random.Generator) -> tuple[int, int]:
    w, h = _SIZES[int(rng.integers(len(_SIZES)))]
    return (h, w) if rng.random() < 0.3 else (w, h)


def _check_rotation(rotation: int | None) -> None:
    if rotation is not None and rotation not in (0, 90, 180, 270):
        raise ValueError(f"rotation must be 0, 90, 180 or 270, got {rotation}")


def place_in_scene(
    grid_image: np.ndarray,
    rng: np.random.Generator,
    difficulty: str | Difficulty = "medium",
    *,
    puzzle: np.ndarray,
    solution: np.ndarray,
    style: GridStyle | None = None,
    rotation: int | None = None,
    size: tuple[int, int] | None = None,
) -> SyntheticPhoto:
    """Photograph `grid_image` (an upright square grid, e.g. from `render_grid`) on a newspaper.

    `puzzle`/`solution` are carried into the result as ground truth; `style` is the page's grid
    look for neighbouring puzzles (random otherwise); `rotation` forces the answer's rotation
    (0/90/180/270), else it is drawn from the difficulty; `size` (width, height) forces the
    output size, else one of the usual phone sizes from 640x480 to 1600x1200 is drawn.
    """
    _check_rotation(rotation)
    d = difficulty_ranges(difficulty)
    out_size = size if size is not None else _out_size(rng)
    if rotation is None:
        turned = rng.random() < d.quarter_turns
        quarter = int(rng.integers(1, 4)) if turned else 0
    else:
        quarter = (4 - rotation // 90) % 4
    quad = _grid_quad(rng, d, out_size, quarter)
    edge = float(np.max(np.linalg.norm(quad - np.roll(quad, 1, axis=0), axis=1)))
    g = int(np.clip(round(edge * 1.1), 120, 1800))
    if grid_image.shape[0] != g:
        shrink = grid_image.shape[0] > g
        interp = cv2.INTER_AREA if shrink else cv2.INTER_CUBIC
        grid_image = cv2.resize(grid_image, (g, g), interpolation=interp)
    square = np.float32([[0, 0], [g, 0], [g, g], [0, g]])
    homography = cv2.getPerspectiveTransform(square, quad)
    field = _bend_field(rng, rng.uniform(0, d.bend), g)
    u, v = _page_points(homography, field, out_size)
    page = compose_page(grid_image, rng, _extent(u, v, g), d.clutter, style)
    view = _view(page, u, v, rng)
    image = camera_effects(view, rng, d)
    bent = _bend_forward(field, square.astype(np.float64))
    corners = cv2.perspectiveTransform(bent.reshape(-1, 1, 2), homography).reshape(4, 2)
    return SyntheticPhoto(
        image=image,
        puzzle=np.asarray(puzzle, np.uint8).reshape(9, 9).copy(),
        solution=np.asarray(solution, np.uint8).reshape(9, 9).copy(),
        corners=corners.astype(np.float32),
        rotation=(360 - 90 * quarter) % 360,
    )


def synth_photo(
    seed: int,
    difficulty: str = "medium",
    *,
    rotation: int | None = None,
    size: tuple[int, int] | None = None,
    font_files: tuple[str, ...] = (),
    clues: int | None = None,
) -> SyntheticPhoto:
    """A whole synthetic photo from one seed: puzzle, print style, scene; same seed, same photo.

    `font_files` adds TrueType fonts to the Hershey faces (drawn with Pillow, when installed).
    """
    _check_rotation(rotation)
    difficulty_ranges(difficulty)
    rng = np.random.default_rng(seed)
    puzzle, solution = random_puzzle(rng, clues)
    style = random_style(rng, size=1200, font_files=font_files)
    grid_image = render_grid(puzzle, rng, style)
    return place_in_scene(
        grid_image,
        rng,
        difficulty,
        puzzle=puzzle,
        solution=solution,
        style=style,
        rotation=rotation,
        size=size,
    )
