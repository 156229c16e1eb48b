"""Shared test set-up: the shared data beside the repository, and helpers on its photos.

The photos and puzzle sets are not part of the repository: they sit in `../shared/data` beside
the checkout. Tests that need them take the `wicht_data`, `kubiesa_data` or `puzzles_data`
fixture, which skips with a message naming the missing folder where it is absent.

Under CI (the `CI` environment variable set) Hypothesis draws the same examples on every run, so
that a clean clone's run never turns red on a case no one has seen; elsewhere it draws new ones
each run, to find such cases.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import os
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import cv2
import numpy as np
import pytest
from hypothesis import settings

from sudoku_lens.puzzle import grid_from_line
from sudoku_lens.read.evaluate import read_dat
from sudoku_lens.read.kinds import HANDWRITTEN, NOTES, PRINTED
from sudoku_lens.read.reader import Reading, read_image
from sudoku_lens.solve import Status, solve
from sudoku_lens.synth.handwriting import SyntheticFilledPhoto

settings.register_profile("ci", derandomize=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(__file__).parents[1].parent / "shared" / "data"
WICHT = SHARED_DATA / "wicht-v2-train"
PUZZLES = SHARED_DATA / "puzzles"
KUBIESA = SHARED_DATA / "kubiesa-train"


def _required(folder: Path, marker: str) -> Path:
    if not (folder / marker).exists():
        pytest.skip(f"{folder} not found: this test needs ../shared/data/{folder.name}")
    return folder


@pytest.fixture(scope="session")
def wicht_data() -> Path:
    """The labelled Sudoku photos (printed/, mixed/, outlines.csv); skips where absent."""
    return _required(WICHT, "outlines.csv")


@pytest.fixture(scope="session")
def puzzles_data() -> Path:
    """The puzzle sets (one puzzle per line); skips where absent."""
    return _required(PUZZLES, "top95.txt")


@pytest.fixture(scope="session")
def kubiesa_data() -> Path:
    """The puzzle-book photos labelled per cell (images/, labels/, metadata.csv,
    candidates.tsv); skips where absent."""
    return _required(KUBIESA, "metadata.csv")


def truth_grid(photo: Path) -> np.ndarray:
    """The (9, 9) uint8 grid written in the .dat file beside a dataset photo."""
    return grid_from_line(read_dat(photo.with_suffix(".dat")))


def validation_photos(folder: Path) -> list[Path]:
    """The photos of the validation split (photo N with N % 5 == 0) in `folder`, in order."""
    numbers = {int(p.stem.removeprefix("image")): p for p in folder.glob("image*.jpg")}
    return [numbers[n] for n in sorted(numbers) if n % 5 == 0]


def load_benchmark(name: str) -> ModuleType:
    """A module of `benchmarks/` (scripts, not a package), loaded by file name."""
    spec = importlib.util.spec_from_file_location(name, REPO / "benchmarks" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def backtracking() -> Callable[..., str | None]:
    """The classic tutorial backtracking solver the solver benchmark compares against."""
    return load_benchmark("backtrack").solve_backtracking


def truth_reading(sample: SyntheticFilledPhoto, reading: Reading | None = None) -> Reading:
    """The reading of a generated hand-filled photo with the generator's truth for its person:
    the true kind of every cell, each handwritten digit read as written with probability 0.95
    (the digit model's usual confidence), and the candidates pencilled, as certain. Printed
    and empty cells stay as the reader read them. Stands in for a kinds classifier when testing
    what is done with the kinds."""
    reading = reading if reading is not None else read_image(sample.photo.image)
    filled = sample.filled
    hand = filled.kinds == HANDWRITTEN
    probabilities = reading.probabilities.copy()
    probabilities[hand] = 0.05 / 9
    rows, cols = np.nonzero(hand)
    probabilities[rows, cols, filled.digits[hand]] = 0.95
    grid = np.where(hand, filled.digits, np.where(filled.kinds == NOTES, 0, reading.grid))
    return dataclasses.replace(
        reading,
        grid=grid.astype(np.uint8),
        probabilities=probabilities,
        kinds=filled.kinds.copy(),
        candidates=filled.candidates,
        candidate_sureness=np.ones((9, 9), np.float32),
    ).with_kinds(filled.kinds)


def given_misread_to_another_answer(reading: Reading) -> tuple[Reading, np.ndarray]:
    """`reading` with one printed digit read surely (0.99) as another digit that leaves the
    givens one solution, another than theirs: of all such misreads, the one most of the
    reading's entries disagree with. Returns the misread reading and its givens' solution."""
    best: tuple[int, int, int, int, np.ndarray] | None = None
    for r, c in np.argwhere(reading.kinds == PRINTED):
        for digit in (d for d in range(1, 10) if d != reading.grid[r, c]):
            givens = reading.givens.copy()
            givens[r, c] = digit
            outcome = solve(givens)
            if outcome.status is not Status.SOLVED:
                continue
            assert outcome.grid is not None
            against = int(((reading.entries > 0) & (reading.entries != outcome.grid)).sum())
            if best is None or against > best[0]:
                best = (against, int(r), int(c), digit, outcome.grid)
    assert best is not None, "no printed digit can be misread into another unique puzzle"
    _, r, c, digit, solution = best
    grid, probabilities = reading.grid.copy(), reading.probabilities.copy()
    grid[r, c] = digit
    probabilities[r, c] = 0.01 / 9
    probabilities[r, c, digit] = 0.99
    return dataclasses.replace(reading, grid=grid, probabilities=probabilities), solution


def photo_read_as(
    monkeypatch: pytest.MonkeyPatch, image: np.ndarray, reading: Reading, path: Path
) -> Path:
    """Save `image` to `path` and make the pipeline read any photo as `reading` (on that
    photo): for testing what is done with a reading apart from the reader."""
    from sudoku_lens import pipeline
    from sudoku_lens.read.image_io import load_photo

    monkeypatch.setattr(
        pipeline,
        "read_photo",
        lambda source, **_: dataclasses.replace(reading, photo=load_photo(source)),
    )
    cv2.imwrite(str(path), image)
    return path


def pen_digit(image: np.ndarray, corners: np.ndarray, r: int, c: int, height: float) -> int:
    """The digit drawn in the page's pen blue into cell (r, c) of a picture of the upright grid
    with `corners` (0: none), found by matching the blue ink of the cell, upright, against the
    pen sprites (`entry_sprite`, `height` of a cell tall), each moved up to a tenth of a cell
    each way; the red and orange marks, the print and the grey pencil are no pen blue."""
    cell, slack = 60, 6
    square = np.float32([[0, 0], [9, 0], [9, 9], [0, 9]]) * cell - 0.5 + slack
    to_grid = cv2.getPerspectiveTransform(np.asarray(corners, np.float32), square)
    side = 9 * cell + 2 * slack
    upright = cv2.warpPerspective(image, to_grid, (side, side), flags=cv2.INTER_AREA)
    patch = upright[r * cell : (r + 1) * cell + 2 * slack, c * cell : (c + 1) * cell + 2 * slack]
    b, g, red = (patch[..., k].astype(int) for k in range(3))
    ink = ((b - red > 60) & (b - g > 30)).astype(np.float32)
    if ink.sum() < 20:
        return 0
    from sudoku_lens.draw import entry_sprite

    templates = [entry_sprite(d, cell, height)[1].astype(np.float32) for d in range(1, 10)]
    scores = [cv2.matchTemplate(ink, t, cv2.TM_CCOEFF_NORMED).max() for t in templates]
    return 1 + int(np.argmax(scores))


def decode_terminal_qr(text: str) -> str:
    """What a QR code drawn in a terminal with Unicode half blocks (as `serve --lan` prints it)
    says, read by OpenCV's QR detector: each character is two modules, a block light, a space
    dark, as on a dark terminal. The picture is tried at a few module sizes, as a phone sees the
    code at different distances, by both of OpenCV's detectors: each misses some codes at one
    size or another (the classic one 'https://196.225.2.132:588/' at 4 to 12 pixels a module)."""
    top = {"█": 255, "▀": 255, "▄": 0, " ": 0}
    bottom = {"█": 255, "▀": 0, "▄": 255, " ": 0}
    lines = [line for line in text.splitlines() if line]
    width = max(len(line) for line in lines)
    rows = []
    for line in lines:
        line = line.ljust(width, "█")
        rows.append([top[ch] for ch in line])
        rows.append([bottom[ch] for ch in line])
    modules = np.array(rows, np.uint8)
    detectors = [cv2.QRCodeDetectorAruco(), cv2.QRCodeDetector()]
    for detector in detectors:
        for scale in (4, 6, 8, 5, 7, 3):
            image = cv2.resize(modules, None, fx=scale, fy=scale, interpolation=cv2.INTER_NEAREST)
            decoded, _, _ = detector.detectAndDecode(image)
            if decoded:
                return decoded
    return ""
