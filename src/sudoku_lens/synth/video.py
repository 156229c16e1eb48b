"""Synthetic videos for live mode: a newspaper page moving and tilting under a phone camera.

A schedule says what each stretch of frames shows: a puzzle (by index) or no grid at all (the
camera looking at text). Pages are drawn once; each frame is one perspective warp of its page
plus light and sensor noise, made on demand, so a long video costs little memory. Every frame
comes with its ground truth: which puzzle is in view and its corners.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from sudoku_lens.synth.page import Clutter, Page, compose_page, text_page
from sudoku_lens.synth.puzzles import random_puzzle
from sudoku_lens.synth.render import random_style, render_grid
from sudoku_lens.synth.scene import (
    Difficulty,
    difficulty_ranges,
    lighting,
    paper_tint,
    project_square,
    white_balance,
)

DEFAULT_SCHEDULE: tuple[tuple[int | None, int], ...] = ((None, 10), (0, 60), (None, 30), (1, 60))
"""10 frames of text, 60 of puzzle 0, 30 of text, 60 of puzzle 1."""

_VIDEO_CLUTTER = Clutter(neighbour=0.0, gap=(1.0, 1.0), page_edge=0.0, small_puzzles=False)
_NOMINAL_GRID = 600
_EXTENT_LIMIT = (-3.0, 4.0)
_NOISE_PAD = 64


@dataclass(frozen=True)
class FrameTruth:
    """What a frame shows: the index of the puzzle in view (None: no grid) and its corners,
    (4,2) float32 TL, TR, BR, BL of the upright puzzle in frame pixels (None: no grid)."""

    puzzle: int | None
    corners: np.ndarray | None


@dataclass(frozen=True)
class _Look:
    """A video's fixed camera look: light and colour as a gain map, flare, blur and sensor grain
    (a field larger than a frame, cut at a different offset for every frame)."""

    gain: np.ndarray
    flare: float
    blur: float
    grain_up: np.ndarray
    grain_down: np.ndarray


@dataclass(frozen=True)
class _Segment:
    page: Page
    homographies: tuple[np.ndarray, ...]


class SyntheticVideo:
    """Frames made on demand, with per-frame `truth`, the `puzzles` shown and their `solutions`.

    Iterate for the frames (BGR uint8, `size` = (width, height)), or take `frame(i)`; `write`
    saves an MP4. Frames are the same every time for the same seed.
    """

    def __init__(
        self,
        seed: int,
        segments: list[_Segment],
        truth: list[FrameTruth],
        puzzles: list[np.ndarray],
        solutions: list[np.ndarray],
        size: tuple[int, int],
        fps: float,
        look: _Look,
    ) -> None:
        self.seed = seed
        self.truth = truth
        self.puzzles = puzzles
        self.solutions = solutions
        self.size = size
        self.fps = fps
        self._segments = segments
        self._look = look
        self._where = [
            (s, k) for s, seg in enumerate(segments) for k in range(len(seg.homographies))
        ]

    def __len__(self) -> int:
        return len(self.truth)

    def __iter__(self) -> Iterator[np.ndarray]:
        for i in range(len(self)):
            yield self.frame(i)

    def frame(self, index: int) -> np.ndarray:
        """Frame `index` (BGR uint8)."""
        s, k = self._where[index]
        segment = self._segments[s]
        look = self._look
        w, h = self.size
        view = cv2.warpPerspective(
            segment.page.canvas,
            segment.homographies[k],
            self.size,
            flags=cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_CONSTANT,
            borderValue=(90, 110, 130),
        )
        image = cv2.multiply(view, look.gain, scale=1.0 / 255.0)
        image = cv2.add(image, (look.flare,) * 3 + (0,))
        image = cv2.GaussianBlur(image, (0, 0), look.blur)
        dx, dy = np.random.default_rng([self.seed, index]).integers(0, _NOISE_PAD, size=2)
        image = cv2.add(image, look.grain_up[dy : dy + h, dx : dx + w])
        return cv2.subtract(image, look.grain_down[dy : dy + h, dx : dx + w])

    def write(self, path: str | Path, fps: float | None = None) -> Path:
        """Write the video as MP4 (codec mp4v) and return its path."""
        path = Path(path)
        writer = cv2.VideoWriter(
            str(path), cv2.VideoWriter_fourcc(*"mp4v"), float(fps or self.fps), self.size
        )
        if not writer.isOpened():
            raise OSError(f"OpenCV cannot write an MP4 video to {path}")
        try:
            for image in self:
                writer.write(image)
        finally:
            writer.release()
        return path

    def write_y4m(self, path: str | Path) -> Path:
        """Write the video as uncompressed YUV4MPEG2 (4:2:0), the file a browser's fake camera
        plays (Chromium's --use-file-for-fake-video-capture), and return its path."""
        path = Path(path)
        width, height = self.size
        with path.open("wb") as out:
            out.write(
                f"YUV4MPEG2 W{width} H{height} F{round(self.fps)}:1 Ip A1:1 C420jpeg\n".encode()
            )
            for image in self:
                out.write(b"FRAME\n")
                out.write(cv2.cvtColor(image, cv2.COLOR_BGR2YUV_I420).tobytes())
        return path


def _waves(
    rng: np.random.Generator, t: np.ndarray, amplitude: float, fast: float = 0.0
) -> np.ndarray:
    """A smooth random motion: two slow sinusoids plus an optional small hand tremor."""
    out = np.zeros_like(t)
    for _ in range(2):
        freq = rng.uniform(0.08, 0.35)
        out += amplitude / 2 * np.sin(2 * np.pi * freq * t + rng.uniform(0, 2 * np.pi))
    if fast:
        out += fast * np.sin(2 * np.pi * rng.uniform(1.0, 2.0) * t + rng.uniform(0, 2 * np.pi))
    return out


def _path(
    rng: np.random.Generator, n: int, fps: float, size: tuple[int, int], d: Difficulty
) -> list[np.ndarray]:
    """Grid corner quads (TL,TR,BR,BL) of a page moving and tilting smoothly for `n` frames."""
    w, h = size
    t = np.arange(n) / fps
    cx = w / 2 + rng.uniform(-0.1, 0.1) * w + _waves(rng, t, 0.12 * w, 0.002 * w)
    cy = h / 2 + rng.uniform(-0.05, 0.05) * h + _waves(rng, t, 0.08 * h, 0.002 * h)
    fill = rng.uniform(0.6, 0.75) + _waves(rng, t, 0.08)
    roll = rng.uniform(-6, 6) + _waves(rng, t, min(d.tilt, 10.0))
    pitch = _waves(rng, t, d.pitch * 1.2)
    yaw = _waves(rng, t, d.pitch)
    margin = 0.02 * h
    quads = []
    for i in range(n):
        xy = project_square(pitch[i], yaw[i], 2.5, roll[i])
        span = xy.max(axis=0) - xy.min(axis=0)
        scale = min(
            fill[i] * h / span.max(), (w - 2 * margin) / span[0], (h - 2 * margin) / span[1]
        )
        xy = xy * scale + [cx[i], cy[i]]
        low = np.maximum(0, margin - xy.min(axis=0))
        high = np.maximum(0, xy.max(axis=0) - np.array([w, h]) + margin)
        quads.append((xy + low - high).astype(np.float32))
    return quads


def _square(g: int) -> np.ndarray:
    return np.float32([[0, 0], [g, 0], [g, g], [0, g]])


def _extent(
    quads: Sequence[np.ndarray], g: int, size: tuple[int, int]
) -> tuple[int, int, int, int]:
    """Page region (u0, v0, u1, v1) any of the frames sees, with the grid at [0, g]^2."""
    w, h = size
    frame = np.float32([[0, 0], [w, 0], [w, h], [0, h]]).reshape(-1, 1, 2)
    seen = []
    for quad in quads:
        inverse = cv2.getPerspectiveTransform(quad, _square(g))
        seen.append(cv2.perspectiveTransform(frame, inverse).reshape(4, 2))
    points = np.clip(np.concatenate(seen), _EXTENT_LIMIT[0] * g, _EXTENT_LIMIT[1] * g)
    u0, v0 = np.floor(points.min(axis=0)).astype(int) - 2
    u1, v1 = np.ceil(points.max(axis=0)).astype(int) + 2
    return int(u0), int(v0), int(u1), int(v1)


def _homographies(quads: Sequence[np.ndarray], page: Page, g: int) -> tuple[np.ndarray, ...]:
    """Per frame, the homography from page canvas pixels to frame pixels."""
    to_page = np.array(
        [[1, 0, page.origin[0] + 0.5], [0, 1, page.origin[1] + 0.5], [0, 0, 1]], np.float64
    )
    return tuple(cv2.getPerspectiveTransform(_square(g), quad) @ to_page for quad in quads)


def synth_video(
    seed: int,
    *,
    schedule: Sequence[tuple[int | None, int]] = DEFAULT_SCHEDULE,
    size: tuple[int, int] = (1280, 720),
    fps: float = 30.0,
    difficulty: str = "easy",
) -> SyntheticVideo:
    """A video of newspaper pages under a moving camera, following `schedule`.

    `schedule` is a sequence of (puzzle index or None, frame count): a puzzle's stretch shows
    its page moving and tilting smoothly; None shows text with no grid. Indices count from 0;
    the same index shows the same page again. `difficulty` sets tilt, light and noise.
    """
    d = difficulty_ranges(difficulty)
    if not schedule or any(n <= 0 for _, n in schedule):
        raise ValueError("schedule must list (puzzle index or None, frame count > 0) pairs")
    rng = np.random.default_rng(seed)
    count = 1 + max((p for p, _ in schedule if p is not None), default=-1)
    if count and sorted({p for p, _ in schedule if p is not None}) != list(range(count)):
        raise ValueError("schedule's puzzle indices must be 0, 1, ... without gaps")
    made = [random_puzzle(rng) for _ in range(count)]
    puzzles = [p for p, _ in made]
    solutions = [s for _, s in made]
    paths = [_path(rng, n, fps, size, d) for _, n in schedule]

    grid_sizes: dict[int | None, int] = {None: _NOMINAL_GRID}
    for (index, _), quads in zip(schedule, paths, strict=True):
        if index is not None:
            longest = max(
                float(np.linalg.norm(q - np.roll(q, 1, axis=0), axis=1).max()) for q in quads
            )
            grid_sizes[index] = max(grid_sizes.get(index, 0), int(np.ceil(longest * 1.1)))

    pages: dict[int, Page] = {}
    for index in range(count):
        g = grid_sizes[index]
        quads = [
            q for (i, _), path in zip(schedule, paths, strict=True) if i == index for q in path
        ]
        style = random_style(rng, size=g)
        grid = render_grid(puzzles[index], rng, style)
        pages[index] = compose_page(grid, rng, _extent(quads, g, size), _VIDEO_CLUTTER, style)

    segments: list[_Segment] = []
    truth: list[FrameTruth] = []
    for (index, _), quads in zip(schedule, paths, strict=True):
        g = grid_sizes[index]
        page = pages[index] if index is not None else text_page(rng, _extent(quads, g, size), g)
        segments.append(_Segment(page=page, homographies=_homographies(quads, page, g)))
        for quad in quads:
            truth.append(FrameTruth(index, quad.copy() if index is not None else None))

    w, h = size
    flare = float(rng.uniform(*d.flare))
    light = lighting(rng, d, size) * np.float32(1.0 - flare / 255.0)
    gain = light[..., None] * (paper_tint(rng) * white_balance(rng))[None, None, :]
    grain = rng.standard_normal((h + _NOISE_PAD, w + _NOISE_PAD), dtype=np.float32)
    grain = np.repeat(grain[..., None] * np.float32(rng.uniform(*d.noise)), 3, axis=2)
    look = _Look(
        gain=np.clip(gain * 255 + 0.5, 0, 255).astype(np.uint8),
        flare=flare,
        blur=float(rng.uniform(0.5, 0.5 + d.blur[1]) * min(w, h) / 1000),
        grain_up=np.clip(grain + 0.5, 0, 255).astype(np.uint8),
        grain_down=np.clip(-grain + 0.5, 0, 255).astype(np.uint8),
    )
    return SyntheticVideo(seed, segments, truth, puzzles, solutions, size, fps, look)
