"""Solve the Sudoku in a camera's or a video's frames, one at a time, and hold the answer on it.

A grid is read (found, its digits classified, the puzzle solved with repair) only until the same
puzzle has been read on `confirm_reads` frames in a row; from then on it is followed:

- the corners are tracked with optical flow on a downscaled gray frame (`CornerTracker`), and
  smoothed with a One-Euro filter (`CornerFilter`) so that the drawn digits do not shake;
- every `redetect_every` frames the grid is found again in a window around it, which corrects
  the tracker's slow drift;
- every `check_every` frames the ink in each cell is compared with the puzzle's givens
  (`GivensCheck`), and only when they disagree is the frame read again: the same puzzle goes on,
  another one replaces it, no grid means the page is gone;
- the answer is rendered once per puzzle and only warped onto each frame (`SolutionOverlay`).

The puzzle is the printed givens; the person's handwritten entries are checked as
`answer_reading` does: no answer is drawn over them, the wrong ones get a red ring with the
right digit beside it and those read too unclearly to check an orange ring with a question mark
(with `LiveSettings.check_only`, the rings alone); a cell whose pencilled candidates leave out
the answer gets a purple frame. The ink check counts
the entries as filled cells, so writing one more digit does not look like another page; it is
checked once the page is read again. Cells of pencilled candidates hold ink but no digit: the
ink check and `missed_digits` leave them out.

A read that leaves empty a cell holding as much ink as a printed digit (`missed_digits`) is not
confirmed: its answer would be drawn over the print. Such a read breaks the run of agreeing
reads, and the grid stays in the reading state until a read without that flaw comes.

Frames are searched as they come: one without a grid is not searched again restored, as a photo
is (`read_image(retry=False)`), since the next sharp frame comes soon.

When the grid is lost the solver starts looking again; a puzzle confirmed before is recognised
on the first frame it is read again.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

import cv2
import numpy as np

from sudoku_lens.errors import GridNotFoundError, ImageError
from sudoku_lens.live.check import GivensCheck, cell_ink, missed_digits, visible_cells
from sudoku_lens.live.overlay import SolutionOverlay, draw_banner
from sudoku_lens.live.smoothing import CornerFilter
from sudoku_lens.live.tracking import CornerTracker, quad_area
from sudoku_lens.pipeline import CheckedCandidates, CheckedEntry, answer_reading
from sudoku_lens.puzzle import grid_json
from sudoku_lens.puzzle.text import cell_names
from sudoku_lens.read.grid.search import check_searchable
from sudoku_lens.read.kinds import NOTES
from sudoku_lens.read.reader import corners_json, read_image
from sudoku_lens.solve import Status

_KNOWN = 8
"""Confirmed puzzles remembered, so a page seen again is recognised on its first read."""

_MIN_GIVENS = 17
"""No Sudoku with fewer givens has a unique solution: such a read is not a puzzle."""


class LiveState(StrEnum):
    """What the live view shows on a frame."""

    SEARCHING = "searching"
    """No grid in view."""
    READING = "reading"
    """A grid is in view but its puzzle is not yet read with confidence."""
    SOLVED = "solved"
    """The answer is drawn on the grid."""
    UNSOLVABLE = "unsolvable"
    """The puzzle was read with confidence but has no solution or several."""


BANNERS: dict[LiveState, str] = {
    LiveState.SEARCHING: "Looking for a Sudoku...",
    LiveState.READING: "Reading...",
    LiveState.SOLVED: "Solved",
    LiveState.UNSOLVABLE: "No unique solution",
}


@dataclass(frozen=True)
class LiveResult:
    """One processed frame.

    `corners` (4, 2) float32 are the smoothed grid corners in frame pixels, TL, TR, BR, BL of the
    upright puzzle (None when no grid is followed); `puzzle` the (9, 9) grid solved (after repair)
    and `solution` its solution, once confirmed; `entries` the person's handwritten entries
    checked, `wrong_entries` the wrong ones and `unsure_entries` those read too unclearly to
    check, `wrong_candidates` the cells whose candidates leave out the answer and
    `unsure_candidates` ((row, col) each) those read too unclearly to check; `drawn` whether
    the answer is on `frame`.
    """

    frame: np.ndarray
    state: LiveState
    corners: np.ndarray | None
    puzzle: np.ndarray | None
    solution: np.ndarray | None
    drawn: bool
    seconds: float
    entries: np.ndarray | None = None
    wrong_entries: list[CheckedEntry] = field(default_factory=list)
    unsure_entries: list[CheckedEntry] = field(default_factory=list)
    wrong_candidates: list[CheckedCandidates] = field(default_factory=list)
    unsure_candidates: list[tuple[int, int]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """The result without the image, as JSON-ready values (grids as 81-character strings,
        wrong and unsure entries as `CheckedEntry.to_json`, wrong candidates as
        `CheckedCandidates.to_json`, unsure ones as cell names)."""
        return {
            "state": self.state.value,
            "corners": corners_json(self.corners),
            "puzzle": grid_json(self.puzzle),
            "solution": grid_json(self.solution),
            "entries": grid_json(self.entries),
            "wrong_entries": [entry.to_json() for entry in self.wrong_entries],
            "unsure_entries": [entry.to_json() for entry in self.unsure_entries],
            "wrong_candidates": [cell.to_json() for cell in self.wrong_candidates],
            "unsure_candidates": cell_names(self.unsure_candidates),
            "drawn": self.drawn,
            "seconds": round(self.seconds, 4),
        }


@dataclass
class LiveSettings:
    """Knobs of `LiveSolver`; the defaults suit 30 fps video from a hand-held camera."""

    track_width: int = 640
    """Width of the gray frame the corners are tracked and checked on (wider frames are reduced)."""
    confirm_reads: int = 2
    """Consecutive identical reads needed before an answer is drawn (one more for no answer)."""
    redetect_every: int = 15
    """Frames between re-detections of a followed grid, which correct the tracker's drift."""
    check_every: int = 1
    """Frames between checks that the followed grid still shows the same givens."""
    changed_cells: int = 12
    """Cells whose ink (or read givens) must disagree with the puzzle's givens before the page is
    taken to show another puzzle."""
    fps: float = 30.0
    """Frame rate assumed for smoothing when `process` is given no timestamps."""
    banner: bool = True
    """Whether to write the state on the frame."""
    check_only: bool = False
    """Mark the person's wrong entries only and draw no answers."""

    def __post_init__(self) -> None:
        counts = ("confirm_reads", "redetect_every", "check_every")
        for name in counts:
            if getattr(self, name) < 1:
                raise ValueError(f"LiveSettings.{name} must be at least 1")
        if self.track_width < 64:
            raise ValueError("LiveSettings.track_width must be at least 64 pixels")
        if self.changed_cells < 1 or self.changed_cells > 81:
            raise ValueError("LiveSettings.changed_cells must be between 1 and 81")
        if not self.fps > 0:
            raise ValueError("LiveSettings.fps must be more than 0")


@dataclass(frozen=True)
class _Read:
    """A grid read on one frame: corners in frame pixels (upright order), the repaired puzzle,
    and the printed digits' height (a fraction of a cell) to draw the answer at."""

    corners: np.ndarray
    puzzle: np.ndarray
    status: Status
    solution: np.ndarray | None
    digit_height: float
    entries: np.ndarray
    wrong_entries: list[CheckedEntry]
    unsure_entries: list[CheckedEntry]
    wrong_candidates: list[CheckedCandidates]
    unsure_candidates: list[tuple[int, int]]
    notes: np.ndarray
    """(9, 9) bool: cells read as pencilled candidates."""

    @property
    def key(self) -> bytes:
        return self.puzzle.tobytes() + self.entries.tobytes()

    @property
    def written(self) -> np.ndarray:
        """(9, 9) uint8: 1 where a given or an entry is written (no answer drawn), else 0."""
        return ((self.puzzle > 0) | (self.entries > 0)).astype(np.uint8)


@dataclass
class _Answer:
    """A confirmed puzzle: its read, the cached drawing of its answer and its givens check."""

    read: _Read
    overlay: SolutionOverlay | None
    check: GivensCheck


class LiveSolver:
    """Takes video frames one at a time and returns each annotated with the Sudoku's answer.

    `process(frame)` works on any frame size and needs no GUI; a web page's camera mode or the
    command line's video loop feed it frames in order. Not thread-safe: one solver per stream.
    """

    def __init__(self, settings: LiveSettings | None = None) -> None:
        self.settings = settings or LiveSettings()
        self._tracker = CornerTracker()
        self._filter = CornerFilter()
        self._index = 0
        self._since_detect = 0
        self._misses = 0
        self._candidate: _Read | None = None
        self._votes = 0
        self._answer: _Answer | None = None
        self._known: OrderedDict[bytes, _Answer] = OrderedDict()
        self._shape: tuple[int, int] | None = None

    def reset(self) -> None:
        """Forget everything: the next frame is treated as the first of a new stream."""
        self._tracker.reset()
        self._filter.reset()
        self._index = 0
        self._since_detect = 0
        self._misses = 0
        self._candidate, self._votes = None, 0
        self._answer = None
        self._known.clear()
        self._shape = None

    def process(self, frame: np.ndarray, timestamp: float | None = None) -> LiveResult:
        """Process the next frame (BGR uint8) taken at `timestamp` seconds; returns its result.

        The input is not modified. Without timestamps frames are taken `1 / settings.fps` apart.
        Raises ImageError for a frame that is not a BGR image, and GridNotFoundError, as a photo
        gets it, for one too small or too narrow to hold a grid (`check_searchable`).
        """
        start = time.perf_counter()
        if frame is None or frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype != np.uint8:
            raise ImageError("a live frame must be a BGR image (height x width x 3, uint8)")
        if min(frame.shape[:2]) < 1:
            raise ImageError(f"a live frame of {frame.shape[1]}x{frame.shape[0]} pixels is empty")
        check_searchable(frame)
        stamp = self._index / self.settings.fps if timestamp is None else float(timestamp)
        self._index += 1
        if frame.shape[:2] != self._shape:
            # Another frame size (a camera switched or rotated): the followed grid is gone.
            self._shape = (frame.shape[0], frame.shape[1])
            self._tracker.reset()
            self._filter.reset()
        scale = min(1.0, self.settings.track_width / frame.shape[1])
        gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        if scale < 1.0:
            size = (round(frame.shape[1] * scale), round(frame.shape[0] * scale))
            gray = cv2.resize(gray, size, interpolation=cv2.INTER_AREA)

        corners, hidden = self._locate(frame, gray, scale)
        if corners is None:
            self._filter.reset()
            state = LiveState.SEARCHING
        elif self._answer is None or hidden:
            state = LiveState.READING
        elif self._answer.read.status is Status.SOLVED:
            state = LiveState.SOLVED
        else:
            state = LiveState.UNSOLVABLE

        smoothed = None if corners is None else self._filter(corners, stamp)
        answer = self._answer
        overlay = answer.overlay if answer is not None and state is LiveState.SOLVED else None
        drawn = overlay is not None and smoothed is not None
        out = overlay.apply(frame, smoothed) if overlay and smoothed is not None else frame.copy()
        if self.settings.banner:
            draw_banner(out, BANNERS[state], state.value)
        shown = answer if state in (LiveState.SOLVED, LiveState.UNSOLVABLE) else None
        return LiveResult(
            frame=out,
            state=state,
            corners=smoothed,
            puzzle=None if shown is None else shown.read.puzzle.copy(),
            solution=None
            if shown is None or shown.read.solution is None
            else shown.read.solution.copy(),
            drawn=drawn,
            seconds=time.perf_counter() - start,
            entries=None if shown is None else shown.read.entries.copy(),
            wrong_entries=[] if shown is None else list(shown.read.wrong_entries),
            unsure_entries=[] if shown is None else list(shown.read.unsure_entries),
            wrong_candidates=[] if shown is None else list(shown.read.wrong_candidates),
            unsure_candidates=[] if shown is None else list(shown.read.unsure_candidates),
        )

    def _locate(
        self, frame: np.ndarray, gray: np.ndarray, scale: float
    ) -> tuple[np.ndarray | None, bool]:
        """Find or follow the grid; returns its corners in frame pixels (None when there is no
        grid) and whether the answer must be hidden on this frame (the page may have changed)."""
        tracked = self._tracker.update(gray) if self._tracker.active else None
        if tracked is not None:
            tracked = tracked / scale
            if not self._in_frame(tracked, frame.shape):
                self._tracker.reset()
                tracked = None
        if tracked is None:
            self._answer = None
            read = self._read(frame)
            if read is None:
                return None, False
            self._follow(gray, scale, read.corners, restart_filter=True)
            self._take(read, frame, gray, scale)
            return read.corners, False

        if self._answer is None:
            read = self._read(frame)
            if read is None:
                return tracked, False
            self._follow(gray, scale, read.corners, restart_filter=False)
            self._take(read, frame, gray, scale)
            return read.corners, False

        if self._index % self.settings.check_every == 0 and self._changed(gray, tracked, scale):
            read = self._read(frame)
            if read is None:
                self._misses += 1
                if self._misses >= 2:
                    self._tracker.reset()
                    self._answer = None
                    return None, False
                return tracked, True
            self._misses = 0
            self._follow(gray, scale, read.corners, restart_filter=False)
            if self._other_page(read, self._answer.read):
                self._answer = None
                self._take(read, frame, gray, scale)
            return read.corners, self._answer is None
        self._misses = 0

        self._since_detect += 1
        if self._since_detect >= self.settings.redetect_every:
            detected = self._redetect(frame, tracked)
            if detected is not None:
                self._follow(gray, scale, detected, restart_filter=False)
                return detected, False
        return tracked, False

    def _follow(
        self, gray: np.ndarray, scale: float, corners: np.ndarray, *, restart_filter: bool
    ) -> None:
        """(Re)start tracking at `corners` measured on this frame; restart the smoothing when the
        grid jumped or its corner order changed (a new orientation)."""
        self._since_detect = 0
        self._tracker.start(gray, corners * scale)
        previous = self._filter.value
        if previous is not None and not restart_filter:
            restart_filter = _best_roll(corners, previous) != 0
        if restart_filter:
            self._filter.reset()

    def _read(self, frame: np.ndarray) -> _Read | None:
        """Read and solve the grid in the frame, or None when there is none or it is no puzzle."""
        try:
            reading = read_image(frame, retry=False)
        except GridNotFoundError:
            return None
        if int(np.count_nonzero(reading.grid)) < _MIN_GIVENS:
            return None
        answer = answer_reading(reading)
        corners = np.asarray(reading.corners, np.float32).reshape(4, 2)
        return _Read(
            corners,
            answer.grid,
            answer.status,
            answer.solution,
            answer.digit_height,
            answer.entries,
            answer.wrong_entries,
            answer.unsure_entries,
            answer.wrong_candidates,
            answer.unsure_candidates,
            answer.kinds == NOTES,
        )

    def _take(self, read: _Read, frame: np.ndarray, gray: np.ndarray, scale: float) -> None:
        """Count a read towards confirming its puzzle; confirm it when enough reads agree and
        none of its empty cells shows a printed digit."""
        known = self._known.get(read.key)
        if known is not None:
            self._known.move_to_end(read.key)
            self._answer = known
            self._candidate, self._votes = None, 0
            return
        ink = cell_ink(gray, read.corners * scale)
        visible = visible_cells(read.corners * scale, gray.shape[1], gray.shape[0])
        if missed_digits(read.written, ink, visible, read.notes):
            self._candidate, self._votes = None, 0
            return
        if self._candidate is not None and read.key == self._candidate.key:
            self._votes += 1
        else:
            self._candidate, self._votes = read, 1
        needed = self.settings.confirm_reads + (0 if read.status is Status.SOLVED else 1)
        if self._votes < needed:
            return
        overlay = None
        if read.status is Status.SOLVED and read.solution is not None:
            keep = np.ones((9, 9), np.uint8) if self.settings.check_only else read.written
            overlay = SolutionOverlay(
                keep,
                read.solution,
                read.corners,
                digit_height=read.digit_height,
                wrong=tuple(
                    (*entry.cell, 0 if self.settings.check_only else int(entry.expected or 0))
                    for entry in read.wrong_entries
                ),
                unsure=tuple(entry.cell for entry in read.unsure_entries),
                wrong_candidates=tuple(cell.cell for cell in read.wrong_candidates),
                unsure_candidates=tuple(read.unsure_candidates),
            )
        check = GivensCheck(read.written, ink, read.notes)
        self._answer = self._known[read.key] = _Answer(read, overlay, check)
        while len(self._known) > _KNOWN:
            self._known.popitem(last=False)
        self._candidate, self._votes = None, 0

    def _other_page(self, read: _Read, shown: _Read) -> bool:
        """True when `read` is another puzzle than `shown`: its givens fill other cells. A read
        of the same page that differs only in a digit or two (a misread) is not."""
        moved = np.count_nonzero(read.written != shown.written)
        return read.key != shown.key and moved >= self.settings.changed_cells

    def _changed(self, gray: np.ndarray, corners: np.ndarray, scale: float) -> bool:
        """True when the followed grid's inked cells no longer match the puzzle's givens."""
        assert self._answer is not None
        small = corners * scale
        visible = visible_cells(small, gray.shape[1], gray.shape[0])
        differ, compared = self._answer.check.mismatches(cell_ink(gray, small), visible)
        return compared >= 27 and differ >= self.settings.changed_cells

    def _redetect(self, frame: np.ndarray, corners: np.ndarray) -> np.ndarray | None:
        """Find the grid again in a window around `corners`; its corners in the same order, or
        None when it is not found there or is not the grid being followed."""
        from sudoku_lens.read.grid import locate_grid

        height, width = frame.shape[:2]
        side = np.sqrt(quad_area(corners))
        x0, y0 = np.floor(corners.min(axis=0) - 0.15 * side).astype(int)
        x1, y1 = np.ceil(corners.max(axis=0) + 0.15 * side).astype(int)
        x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, width), min(y1, height)
        if x1 - x0 < 0.5 * side or y1 - y0 < 0.5 * side:
            return None
        try:
            found = locate_grid(frame[y0:y1, x0:x1], retry=False).corners + np.float32([x0, y0])
        except GridNotFoundError:
            return None
        found = np.roll(found, _best_roll(found, corners), axis=0)
        if float(np.linalg.norm(found - corners, axis=1).max()) > 0.08 * side:
            return None
        return found.astype(np.float32)

    @staticmethod
    def _in_frame(corners: np.ndarray, shape: tuple[int, ...]) -> bool:
        """True when at least a quarter of the grid's area lies inside the frame."""
        height, width = shape[:2]
        area = quad_area(corners)
        clipped = cv2.intersectConvexConvex(
            corners.astype(np.float32),
            np.float32([[0, 0], [width, 0], [width, height], [0, height]]),
        )[0]
        return area > 0 and clipped >= 0.25 * area


def _best_roll(corners: np.ndarray, reference: np.ndarray) -> int:
    """The cyclic shift of `corners` that lies closest to `reference` (both (4, 2))."""
    errors = [float(np.linalg.norm(np.roll(corners, k, axis=0) - reference)) for k in range(4)]
    return int(np.argmin(errors))
