"""Run a `LiveSolver` over a video file or a camera: read frames, write and show the result, count.

The command line's `live` is a thin layer over `open_capture`, `open_writer` and `run_stream`.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from sudoku_lens.errors import SudokuLensError
from sudoku_lens.live.solver import LiveResult, LiveSolver, LiveState
from sudoku_lens.outputs import check_output_path

WINDOW = "sudoku-lens live"
NO_GUI_MESSAGE = (
    "cannot open a window (this OpenCV build is headless, or there is no display); for a live "
    "view run `sudoku-lens serve` and use the web page's camera mode, or write the annotated "
    "video with --output"
)
VIDEO_SUFFIXES = (".mp4", ".m4v", ".mov")
"""Names the annotated video may have (MPEG-4 in an MP4 or QuickTime container)."""
VIDEO_ENDINGS = "name it .mp4, .m4v or .mov"
"""What to do about an annotated video's name without one of VIDEO_SUFFIXES."""


@dataclass
class LiveStats:
    """Counts over a stream: frames, frames where a grid was followed, frames with the answer
    drawn, the puzzles solved (with the frame each was first drawn on) and the wall time."""

    frames: int = 0
    frames_with_grid: int = 0
    frames_solved: int = 0
    seconds: float = 0.0
    puzzles: list[dict[str, object]] = field(default_factory=list)
    stopped: bool = False
    """True when the person stopped the stream (Ctrl-C, or q / Esc in the window) before it
    ended: fewer frames than a video announces is then no sign of a damaged file."""

    @property
    def fps(self) -> float:
        """Frames processed per second of wall time (reading and writing the video included)."""
        return self.frames / self.seconds if self.seconds > 0 else 0.0

    def add(self, result: LiveResult) -> None:
        """Count one processed frame."""
        self.frames += 1
        if result.state is not LiveState.SEARCHING:
            self.frames_with_grid += 1
        if result.drawn:
            self.frames_solved += 1
            line = _line(result.puzzle)
            if all(p["puzzle"] != line for p in self.puzzles):
                self.puzzles.append(
                    {
                        "puzzle": line,
                        "solution": _line(result.solution),
                        "first_frame": self.frames - 1,
                    }
                )

    def to_json(self) -> dict[str, object]:
        """The counts as a JSON-ready object, with `stopped`: whether the person stopped the
        stream before its end, so that a script can tell a run cut short from a whole one."""
        return {
            "frames": self.frames,
            "frames_with_grid": self.frames_with_grid,
            "frames_solved": self.frames_solved,
            "fps": round(self.fps, 2),
            "seconds": round(self.seconds, 3),
            "puzzles": self.puzzles,
            "stopped": self.stopped,
        }

    def summary(self) -> str:
        """The counts as a few lines of text."""
        return "\n".join(
            [
                f"frames: {self.frames}",
                f"frames with a grid: {self.frames_with_grid}",
                f"frames with the solution drawn: {self.frames_solved}",
                f"puzzles solved: {len(self.puzzles)}",
                f"frames per second: {self.fps:.1f}",
            ]
        )


def _line(grid: np.ndarray | None) -> str | None:
    return None if grid is None else "".join(str(int(v)) for v in np.asarray(grid).ravel())


@contextmanager
def _quiet() -> Iterator[None]:
    """Silence OpenCV's and FFmpeg's own messages (written straight to file descriptor 2) while
    a video or camera is opened: a failure is reported as one clear line instead."""
    from cv2.utils import logging as cv_logging

    level = cv_logging.getLogLevel()
    cv_logging.setLogLevel(cv_logging.LOG_LEVEL_SILENT)
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        cv_logging.setLogLevel(level)


def open_capture(*, video: str | Path | None = None, camera: int | None = None) -> cv2.VideoCapture:
    """Open a video file or a camera by index; SudokuLensError when it cannot be read."""
    if (video is None) == (camera is None):
        raise SudokuLensError("give either a video file or a camera index")
    if video is not None:
        path = Path(video)
        if path.is_dir():
            raise SudokuLensError(f"cannot read {path}: it is a folder, not a video file")
        if not path.is_file():
            raise SudokuLensError(f"video not found: {path}")
        with _quiet():
            capture = cv2.VideoCapture(str(path))
        if not capture.isOpened():
            capture.release()
            raise SudokuLensError(f"cannot read {path}: not a video this OpenCV build can decode")
        return capture
    with _quiet():
        capture = cv2.VideoCapture(int(camera))  # type: ignore[arg-type]
    if not capture.isOpened():
        capture.release()
        raise SudokuLensError(
            f"camera {camera} is not available (no such device, or it is in use); "
            "try another index with --camera, or a file with --video"
        )
    return capture


def check_output(path: str | Path) -> Path:
    """`path` as a Path when an annotated video can be written there; SudokuLensError (one clear
    line, as for every output: `check_output_path`) when it names a folder, has no video suffix,
    or its folder is missing or read-only."""
    return check_output_path(
        path, example="out.mp4", suffixes=VIDEO_SUFFIXES, name_it=VIDEO_ENDINGS
    )


def open_writer(path: str | Path, fps: float, size: tuple[int, int]) -> cv2.VideoWriter:
    """An MP4 (mp4v) writer for frames of `size` (width, height); SudokuLensError if it fails."""
    path = check_output(path)
    with _quiet():
        writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), fps, size)
    if not writer.isOpened():
        raise SudokuLensError(f"cannot write a video to {path}")
    return writer


def open_window() -> bool:
    """Open the preview window; False when OpenCV has no GUI backend (the headless build) or,
    on Linux, there is no display to open it on (some backends abort the process then)."""
    if sys.platform.startswith("linux") and not (
        os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
    ):
        return False
    try:
        cv2.namedWindow(WINDOW, cv2.WINDOW_NORMAL)
    except cv2.error:
        return False
    return True


def capture_fps(capture: cv2.VideoCapture, default: float = 30.0) -> float:
    """The stream's frame rate, or `default` when the container does not say."""
    fps = float(capture.get(cv2.CAP_PROP_FPS) or 0.0)
    return fps if 1.0 <= fps <= 240.0 else default


def run_stream(
    capture: cv2.VideoCapture,
    solver: LiveSolver,
    *,
    output: str | Path | None = None,
    show: bool = False,
    live_clock: bool = False,
    progress: Callable[[int], None] | None = None,
) -> LiveStats:
    """Feed every frame of `capture` to `solver` until the stream ends (or Ctrl-C, or q / Esc
    in the window); write the annotated frames to `output` (MP4) and show them when `show`.

    Frames are time-stamped from the stream's frame rate, or from the wall clock when
    `live_clock` (a camera). `progress` is called with the number of frames just done.
    """
    fps = capture_fps(capture)
    writer: cv2.VideoWriter | None = None
    stats = LiveStats()
    start = time.perf_counter()
    try:
        while True:
            ok, frame = capture.read()
            if not ok or frame is None:
                break
            stamp = time.perf_counter() - start if live_clock else stats.frames / fps
            result = solver.process(frame, stamp)
            stats.add(result)
            if output is not None:
                if writer is None:
                    height, width = result.frame.shape[:2]
                    writer = open_writer(output, fps, (width, height))
                writer.write(result.frame)
            if show:
                cv2.imshow(WINDOW, result.frame)
                if cv2.waitKey(1) & 0xFF in (ord("q"), 27):
                    stats.stopped = True
                    break
            if progress is not None:
                progress(1)
    except KeyboardInterrupt:
        stats.stopped = True
        print("sudoku-lens: stopped", file=sys.stderr)
    finally:
        stats.seconds = time.perf_counter() - start
        if writer is not None:
            writer.release()
        capture.release()
        if show:
            cv2.destroyAllWindows()
    return stats
