"""Hold the drawn answer steady: a One-Euro filter on the grid's corners, with jump rejection.

Corners measured frame by frame shake by a pixel or so, and a re-detection that corrects the
tracker's drift moves them by a few pixels at once; drawn digits would tremble and jump. The
One-Euro filter (Casiez, Roussel and Vogel, CHI 2012) smooths hard while the page is still and
follows quickly when it moves, so digits neither jitter nor lag. The speed that sets the cutoff
is the smoothed velocity of the fastest corner (signed, so jitter averages out), and all eight
coordinates share one smoothing factor, so the quadrilateral keeps its shape.
A single measurement far from the last one is held back for one frame: a second one that agrees
with it is a real move (the filter restarts there), an isolated one is a glitch and is dropped.
"""

from __future__ import annotations

import math

import numpy as np

from sudoku_lens.live.tracking import quad_area


def _alpha(cutoff: float, dt: float) -> float:
    tau = 1.0 / (2.0 * math.pi * cutoff)
    return 1.0 / (1.0 + tau / dt)


class CornerFilter:
    """One-Euro filter over (4, 2) corners, in pixels and seconds.

    `min_cutoff` (Hz) sets the smoothing at rest, `beta` how fast the cutoff rises with speed
    (pixels per second), `jump` the distance (as a fraction of the grid's side) beyond which a
    measurement is an outlier until confirmed by the next one.
    """

    def __init__(
        self,
        min_cutoff: float = 1.5,
        beta: float = 0.1,
        derivative_cutoff: float = 1.0,
        jump: float = 0.2,
    ) -> None:
        self.min_cutoff = min_cutoff
        self.beta = beta
        self.derivative_cutoff = derivative_cutoff
        self.jump = jump
        self._value: np.ndarray | None = None
        self._velocity = np.zeros((4, 2))
        self._time = 0.0
        self._pending: np.ndarray | None = None

    @property
    def value(self) -> np.ndarray | None:
        """The current smoothed corners, or None before the first measurement."""
        return None if self._value is None else self._value.copy()

    def reset(self, corners: np.ndarray | None = None, time: float = 0.0) -> None:
        """Forget the past; start from `corners` when given."""
        self._value = None if corners is None else np.asarray(corners, np.float64).reshape(4, 2)
        self._velocity = np.zeros((4, 2))
        self._time = time
        self._pending = None

    def __call__(self, corners: np.ndarray, time: float) -> np.ndarray:
        """Filter a new measurement taken at `time` seconds; returns the smoothed corners."""
        measured = np.asarray(corners, dtype=np.float64).reshape(4, 2)
        if self._value is None:
            self.reset(measured, time)
            return measured.astype(np.float32)
        dt = max(time - self._time, 1e-3)
        side = math.sqrt(max(quad_area(self._value), 1.0))
        distance = float(np.linalg.norm(measured - self._value, axis=1).max())
        if distance > self.jump * side:
            pending, self._pending = self._pending, measured
            close = (
                pending is not None
                and float(np.linalg.norm(measured - pending, axis=1).max()) <= self.jump * side
            )
            if close:
                self.reset(measured, time)
                return measured.astype(np.float32)
            self._time = time
            return self._value.astype(np.float32)
        self._pending = None
        a_d = _alpha(self.derivative_cutoff, dt)
        self._velocity = a_d * (measured - self._value) / dt + (1.0 - a_d) * self._velocity
        speed = float(np.linalg.norm(self._velocity, axis=1).max())
        a = _alpha(self.min_cutoff + self.beta * speed, dt)
        self._value = a * measured + (1.0 - a) * self._value
        self._time = time
        return self._value.astype(np.float32)
