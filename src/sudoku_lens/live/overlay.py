"""What live mode draws on a frame: the cached answer (and the marks on wrong and unsure entries
and on candidates that leave out the answer) warped onto the grid, and a state banner."""

from __future__ import annotations

import cv2
import numpy as np

from sudoku_lens.draw import DEFAULT_DIGIT_HEIGHT, composite, overlay_size, render_overlay

_HEADROOM = 1.25
"""Render the answer this much larger than the grid first looks, so a page brought closer to
the camera still gets sharp digits without a new rendering."""

_BANNER_COLORS: dict[str, tuple[int, int, int]] = {
    "searching": (160, 160, 160),
    "reading": (0, 200, 255),
    "solved": (80, 200, 60),
    "unsolvable": (60, 60, 230),
}


class SolutionOverlay:
    """A puzzle's answer rendered once, upright, and warped onto each frame's grid corners.

    The canvas is sized from the grid's size when the answer was confirmed; it is rendered again
    (rarely) only when the grid grows or shrinks well beyond that size, so a still page never
    pays for rendering and a moving one never flickers between renderings.
    """

    def __init__(
        self,
        givens: np.ndarray,
        solution: np.ndarray,
        corners: np.ndarray,
        *,
        digit_height: float = DEFAULT_DIGIT_HEIGHT,
        wrong: tuple[tuple[int, int, int], ...] = (),
        unsure: tuple[tuple[int, int], ...] = (),
        wrong_candidates: tuple[tuple[int, int], ...] = (),
        unsure_candidates: tuple[tuple[int, int], ...] = (),
    ) -> None:
        self.givens = np.asarray(givens, np.uint8).reshape(9, 9).copy()
        """Nonzero where the cell is written in (print or handwriting): no answer drawn there."""
        self.wrong = wrong
        """(row, col, expected) of the wrong entries, marked as `render_overlay` does."""
        self.unsure = unsure
        """(row, col) of the entries read too unclearly to check, marked likewise."""
        self.wrong_candidates = wrong_candidates
        """(row, col) of the cells whose candidates leave out the answer, framed likewise."""
        self.unsure_candidates = unsure_candidates
        """(row, col) of the cells whose candidates were read too unclearly to check."""
        self.solution = np.asarray(solution, np.uint8).reshape(9, 9).copy()
        self.digit_height = float(digit_height)
        """Height of the drawn digits as a fraction of a cell (that of the printed ones)."""
        self._render(corners)

    def _render(self, corners: np.ndarray) -> None:
        self.size = overlay_size(np.asarray(corners, np.float32) * _HEADROOM)
        self.bgr, self.alpha = render_overlay(
            self.givens,
            self.solution,
            self.size,
            digit_height=self.digit_height,
            wrong=self.wrong,
            unsure=self.unsure,
            wrong_candidates=self.wrong_candidates,
            unsure_candidates=self.unsure_candidates,
        )

    def apply(self, frame: np.ndarray, corners: np.ndarray) -> np.ndarray:
        """A copy of `frame` with the answer drawn into the grid at `corners` (upright order)."""
        quad = np.asarray(corners, np.float32).reshape(4, 2)
        longest = float(np.linalg.norm(quad - np.roll(quad, 1, axis=0), axis=1).max())
        if not 0.5 * self.size < longest < 1.5 * self.size:
            self._render(quad)
        return composite(frame, self.bgr, self.alpha, quad)


def draw_banner(frame: np.ndarray, text: str, state: str) -> None:
    """Write `text` in a small dark band at the frame's top left (in place), with a dot in the
    state's colour, sized to the frame."""
    height, width = frame.shape[:2]
    scale = max(0.4, min(width, height) / 720 * 0.8)
    thickness = max(1, round(scale * 2))
    (text_w, text_h), base = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, thickness)
    pad = round(10 * scale)
    dot = text_h // 2
    x1 = min(width, pad + 2 * dot + pad + text_w + 2 * pad)
    y1 = min(height, pad + text_h + base + 2 * pad)
    band = frame[pad // 2 : y1, pad // 2 : x1]
    band[:] = (band.astype(np.uint16) * 2 // 5).astype(np.uint8)
    centre = (pad + pad + dot, pad + pad + text_h // 2)
    cv2.circle(frame, centre, dot, _BANNER_COLORS.get(state, (255, 255, 255)), -1, cv2.LINE_AA)
    origin = (pad + pad + 2 * dot + pad, pad + pad + text_h)
    cv2.putText(
        frame,
        text,
        origin,
        cv2.FONT_HERSHEY_SIMPLEX,
        scale,
        (255, 255, 255),
        thickness,
        cv2.LINE_AA,
    )
