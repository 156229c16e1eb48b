"""Camera frames for the web page: run one frame through a session's live solver.

The page draws the answer over its own live picture from the corners and digits returned here,
which costs far less than sending annotated frames back; so the solver is told not to write its
banner, and only the JSON summary of each frame goes over the wire.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from sudoku_lens.live import LiveSettings, LiveSolver, LiveState

MESSAGES: dict[str, str] = {
    LiveState.SEARCHING.value: "Point the camera at a Sudoku.",
    LiveState.READING.value: "Grid found: hold still while it is read...",
    LiveState.SOLVED.value: "Solved: the answer is on the picture.",
    LiveState.UNSOLVABLE.value: (
        "This grid has no unique solution as read: use 'Edit this frame' to fix digits."
    ),
}


def new_live_solver() -> LiveSolver:
    """A live solver for one browser camera session (no banner: the page shows the state)."""
    return LiveSolver(LiveSettings(banner=False))


def live_frame_json(
    solver: LiveSolver, frame: np.ndarray, timestamp: float | None = None
) -> dict[str, Any]:
    """Process `frame` (BGR) taken at `timestamp` seconds and return what the page needs to draw."""
    stamp = time.monotonic() if timestamp is None else timestamp
    result = solver.process(frame, stamp)
    payload = result.to_json()
    return {
        "state": payload["state"],
        "message": MESSAGES.get(payload["state"], payload["state"]),
        "corners": payload["corners"],
        "puzzle": payload["puzzle"],
        "solution": payload["solution"],
        "entries": payload["entries"],
        "wrong_entries": payload["wrong_entries"],
        "unsure_entries": payload["unsure_entries"],
        "wrong_candidates": payload["wrong_candidates"],
        "unsure_candidates": payload["unsure_candidates"],
        "width": int(frame.shape[1]),
        "height": int(frame.shape[0]),
        "seconds": payload["seconds"],
    }
