"""Live mode: solve the Sudoku in a camera's or a video's frames and hold the answer on the page."""

from sudoku_lens.live.solver import BANNERS, LiveResult, LiveSettings, LiveSolver, LiveState
from sudoku_lens.live.stream import LiveStats, open_capture, run_stream

__all__ = [
    "BANNERS",
    "LiveResult",
    "LiveSettings",
    "LiveSolver",
    "LiveState",
    "LiveStats",
    "open_capture",
    "run_stream",
]
