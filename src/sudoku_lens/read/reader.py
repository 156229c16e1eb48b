"""Read a Sudoku from a photo: find the grid, read each cell's digit and kind, turn upright.

A grid whose digits are faint is read again with its contrast stretched; one whose digits the
digit model is unsure of is restored (its motion blur or grain taken out, `read.grid.restore`)
and read again. A grid read as a printed solution is passed over for another grid of the photo
that reads as a puzzle (`puzzle_rather_than_solution`).

`read_image` reads a decoded image; `read_photo` decodes a path or bytes first (`load_photo`): a
large JPEG reduced as it is decoded, to the size the grid search works at, and the grid's region
again at a finer size where its cells need more pixels (`read_photo`).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, fields, replace
from typing import Any

import cv2
import numpy as np

from sudoku_lens.errors import GridCutOffError, GridNotFoundError
from sudoku_lens.puzzle import grid_json
from sudoku_lens.read.content import (
    CANDIDATES,
    DIGIT,
    NOTHING,
    candidate_certainty,
    candidate_digits,
    ink_level,
    is_marked,
    pencilled_digits,
    read_contents,
    upright_inks,
)
from sudoku_lens.read.digits import DigitClassifier, rotate_grid
from sudoku_lens.read.grid import CELL, WORK_SIDE, GridLocation, GridSearch, cut_grid, locate_grid
from sudoku_lens.read.grid.cells import check_whole, recut
from sudoku_lens.read.grid.restore import deepened, restored
from sudoku_lens.read.image_io import Photo, load_photo
from sudoku_lens.read.kinds import (
    EMPTY,
    HANDWRITTEN,
    KEYPAD_MARKS,
    KEYPAD_NOTES_CHANCE,
    KIND_NAMES,
    NO_CANDIDATES,
    NOTES,
    PRINTED,
    Candidates,
    CellReading,
    KindClassifier,
    allowed_kind_probabilities,
    assign_kinds,
    candidates_json,
    keypad_candidates,
    kinds_text,
    read_cells,
)
from sudoku_lens.solve import count_solutions

SURELY = np.eye(len(KIND_NAMES), dtype=np.float32)
"""Kind probabilities certain of one kind: row k for kind k (`KIND_NAMES`)."""


@dataclass(frozen=True, eq=False)  # its arrays have no single truth value: compared by identity
class Reading:
    """What was read from one photo, with the puzzle turned upright."""

    grid: np.ndarray
    """(9, 9) uint8 every digit read in the upright puzzle, printed or handwritten; 0 for an
    empty cell and for pencil notes."""
    kinds: np.ndarray
    """(9, 9) uint8 kind of each upright cell: an index of `read.kinds.KIND_NAMES` (empty,
    printed, handwritten, pencil notes)."""
    probabilities: np.ndarray
    """(9, 9, 10) float32 class probabilities per upright cell (class 0 = empty), from the
    digit model; a cell whose mark the kinds model took for no digit (pencil notes, a smudge)
    has those of a blank cell, so the most likely class is always the digit of `grid`."""
    kind_probabilities: np.ndarray
    """(9, 9, 4) float32 probability of each kind per upright cell, from the kinds model (kinds
    the digit model rules out at 0, see `allowed_kind_probabilities`; print and pen weighed as
    two groups of the grid, see `weigh_print_against_pen`): the most likely kind is always that
    of `kinds`. `answer_reading` weighs print against pen with it."""
    corners: np.ndarray
    """(4, 2) float32 grid corners in the whole photo's pixels (after EXIF orientation),
    ordered top-left, top-right, bottom-right, bottom-left of the upright puzzle."""
    rotation: int
    """Degrees (0, 90, 180 or 270) the photo must turn clockwise for the puzzle to be upright."""
    timings: dict[str, float]
    """Seconds spent per stage: grid, cells, digits, kinds (and decode, from `read_photo`), and
    their total."""
    photo: Photo
    """The photo read (the caller's own array for `read_image`), whose whole image `image` is."""
    location: GridLocation | None = None
    """The grid as found in the photo (not turned upright): cells, rectified grid, lattice, in
    the whole photo's pixels."""
    candidates: Candidates = NO_CANDIDATES
    """9 rows of 9 cells of the sorted digits pencilled as candidates in each upright cell, `()`
    where none: only a cell of pencil notes has any (one whose digits could not be read has
    none), and any given for a cell of another kind are dropped, so copies made with other
    kinds (`with_kinds`, `dataclasses.replace`) stay consistent."""
    candidate_sureness: np.ndarray | None = None
    """(9, 9) float32 how sure the reader is of each cell's candidates: the least probability
    the digit model gave the digit read of any of its marks, or the cell-content model's
    certainty of them where it reads the same digits and is surer, or reads them alone (0
    where none were read; see `_read_candidates`). Only
    candidates read at CANDIDATES_SURE or more are checked against the answer
    (`pipeline.answer_reading`). None (a reading made by hand) is taken as certain."""
    entry_sureness: np.ndarray | None = None
    """(9, 9) float32 how sure the cell-content model is that each handwritten entry's cell
    holds a written digit at all: one less its probability of nothing (1 in other cells). A
    rubbed-out entry's ghost, which the digit model may still read, is near 0; an entry under
    `pipeline.ENTRY_SURE` is never called wrong. None (a reading made by hand) is taken as
    certain."""

    def __post_init__(self) -> None:
        notes = np.asarray(self.kinds).reshape(9, 9) == NOTES
        kept = tuple(
            tuple(tuple(cell) if notes[r, c] else () for c, cell in enumerate(row))
            for r, row in enumerate(self.candidates)
        )
        if len(kept) != 9 or any(len(row) != 9 for row in kept):
            raise ValueError("candidates must be 9 rows of 9 cells")
        object.__setattr__(self, "candidates", kept)
        if self.candidate_sureness is None:
            object.__setattr__(self, "candidate_sureness", np.ones((9, 9), np.float32))
        if self.entry_sureness is None:
            object.__setattr__(self, "entry_sureness", np.ones((9, 9), np.float32))

    @property
    def image(self) -> np.ndarray:
        """The whole photo the corners refer to, BGR (a JPEG read reduced is decoded whole on
        first use, to draw on)."""
        return self.photo.image

    @property
    def givens(self) -> np.ndarray:
        """(9, 9) uint8 the printed digits only: the puzzle as published, 0 elsewhere."""
        return np.where(self.kinds == PRINTED, self.grid, 0).astype(np.uint8)

    @property
    def entries(self) -> np.ndarray:
        """(9, 9) uint8 the handwritten digits only: the person's own entries, 0 elsewhere."""
        return np.where(self.kinds == HANDWRITTEN, self.grid, 0).astype(np.uint8)

    @property
    def confidence(self) -> np.ndarray:
        """(9, 9) probability of the chosen class of each upright cell."""
        return self.probabilities.max(axis=2)

    def with_kinds(self, kinds: np.ndarray) -> Reading:
        """A copy whose cell kinds are `kinds` (9 x 9 indices of KIND_NAMES), taken as certain:
        `kind_probabilities` puts all of each cell's weight on its kind. For kinds known from
        elsewhere (a person's corrections, a generator's truth)."""
        kinds = np.asarray(kinds, np.uint8).reshape(9, 9)
        certain = SURELY[kinds]
        return replace(self, kinds=kinds.copy(), kind_probabilities=certain)

    def to_json(self) -> dict[str, Any]:
        """JSON-ready summary, as `sudoku-lens read --json` prints it: `grid` (81 characters,
        every digit read, '0' for empty cells and pencil notes), `kinds` (81 characters of
        `KIND_CHARS`), `candidates` (81 strings, each cell's candidates as digits, "" where
        none: `candidates_json`), `givens` (the printed digits only), `corners` (see
        `corners_json`), `rotation`, `confidences` (81 values, row by row) and `seconds`."""
        return {
            "grid": grid_json(self.grid),
            "kinds": kinds_text(self.kinds),
            "candidates": candidates_json(self.candidates),
            "givens": grid_json(self.givens),
            "corners": corners_json(self.corners),
            "rotation": int(self.rotation),
            "confidences": [round(float(v), 3) for v in self.confidence.ravel()],
            "seconds": round(self.timings["total"], 4),
        }


def read_photo(
    source: str | os.PathLike[str] | bytes | np.ndarray,
    *,
    trace: GridSearch | None = None,
    name: str | None = None,
) -> Reading:
    """Read the Sudoku in a photo given as a path, encoded bytes or a BGR/grayscale array.

    Checks `source` with `load_photo`, then reads it as `read_image` does; the decoding time is
    in the timings under "decode". A JPEG larger than the grid search needs is decoded reduced
    (`search_reduction`), and the grid's region again at a finer size when its cells are too
    small at that one (`_cells_at_resolution`); where no grid is seen in the reduced image, the
    photo is decoded whole and read as it is. Raises ImageError for input that is not a usable
    image (naming it `name` when given: see `load_image`) and GridNotFoundError when no grid is
    seen.
    """
    start = time.perf_counter()
    photo = load_photo(source, name=name)
    timings: dict[str, float] = {}
    location = _locate_photo(photo, start, timings, trace)
    return puzzle_rather_than_solution(_read_cells(photo, location, timings), trace)


def read_photo_cells(
    source: str | os.PathLike[str] | bytes | np.ndarray, *, name: str | None = None
) -> tuple[GridLocation, CellReading]:
    """The grid of a photo (as `read_photo` takes it) and its cells read by the digit model,
    cut as `read_photo` cuts them (from the reduced decoding where it reads one): what the
    training of the models is given, so that they learn the cells the reader sees."""
    start = time.perf_counter()
    photo = load_photo(source, name=name)
    timings: dict[str, float] = {}
    return _cut_and_read(photo, _locate_photo(photo, start, timings, None), timings)


def _locate_photo(
    photo: Photo, start: float, timings: dict[str, float], trace: GridSearch | None
) -> GridLocation:
    """The grid of `photo` in the whole photo's pixels, searched in the reduced decoding
    (`search_reduction`) with the cells cut again finer where needed (`_cells_at_resolution`),
    or in the whole photo where no grid is seen reduced; the decoding's seconds (from `start`)
    and the search's are added to `timings`."""
    reduction = search_reduction(photo)
    image = photo.decoded(reduction)
    timings["decode"] = time.perf_counter() - start
    if reduction == 1:
        return locate_grid(photo.image, timings=timings, trace=trace)
    try:
        location = locate_grid(image, timings=timings, trace=trace, retry=False)
    except GridCutOffError:
        raise
    except GridNotFoundError:  # perhaps rules too fine for the reduced image: look at it whole
        if trace is not None:
            trace.candidates.clear()
        start = time.perf_counter()
        photo.decoded()
        timings["decode"] += time.perf_counter() - start
        return locate_grid(photo.image, timings=timings, trace=trace)
    start = time.perf_counter()
    location = _cells_at_resolution(photo, location, reduction)
    timings["cells"] += time.perf_counter() - start
    if trace is not None:
        trace.scale /= reduction
        trace.location = location
    return location


def search_reduction(photo: Photo) -> int:
    """The largest factor (a power of two) by which `photo` can be reduced as it is decoded and
    still be searched for its grid at the size it would be searched at whole: its longer side
    at least WORK_SIDE (the grid search halves the photo until it is no longer than that); 1 for
    a photo that is not a JPEG."""
    reduction = 1
    while reduction < photo.most_reduction and photo.longest_side >= 2 * reduction * WORK_SIDE:
        reduction *= 2
    return reduction


def _cells_at_resolution(photo: Photo, location: GridLocation, reduction: int) -> GridLocation:
    """`location`, found in `photo` decoded reduced by `reduction`, in the whole photo's pixels:
    its cells cut again from the grid's region decoded at the largest reduction at which the
    grid is 9 * CELL pixels wide (a cell CELL pixels, as `cut_cells` cuts them from the whole
    photo), when it is narrower than that in the reduced image."""
    corners = location.corners
    side = float(np.linalg.norm(corners - np.roll(corners, 1, axis=0), axis=1).min())
    finer = reduction
    while finer > 1 and side * reduction / finer < 9 * CELL:
        finer //= 2
    if finer == reduction:
        return _scaled(location, reduction, (0.0, 0.0))
    image = photo.decoded(finer)
    lattice = (location.lattice + 0.5) * (reduction / finer) - 0.5
    pad = side * reduction / finer / 9
    x0, y0 = (max(0, int(v - pad)) for v in lattice.reshape(-1, 2).min(axis=0))
    x1, y1 = (int(v + pad) + 1 for v in lattice.reshape(-1, 2).max(axis=0))
    region = image[y0:y1, x0:x1]
    cut = cut_grid(region, lattice - np.array([x0, y0], np.float32))
    return _scaled(cut, finer, (x0, y0))


def _scaled(location: GridLocation, reduction: int, offset: tuple[float, float]) -> GridLocation:
    """`location`, found in a region at `offset` (x, y) of a photo decoded reduced by
    `reduction` (pixel i of which covers the whole photo's pixels i * reduction to (i + 1) *
    reduction - 1), in the whole photo's pixels."""
    x0, y0 = offset

    def whole(points: np.ndarray) -> np.ndarray:
        return ((points + np.array([x0, y0], np.float32) + 0.5) * reduction - 0.5).astype(
            np.float32
        )

    f = 1.0 / reduction
    to_region = np.array([[f, 0, 0.5 * f - 0.5 - x0], [0, f, 0.5 * f - 0.5 - y0], [0, 0, 1]])
    return replace(
        location,
        corners=whole(location.corners),
        lattice=whole(location.lattice),
        homography=location.homography @ to_region,
    )


def read_image(
    image_bgr: np.ndarray, *, trace: GridSearch | None = None, retry: bool = True
) -> Reading:
    """Read the Sudoku in a decoded BGR (or grayscale) uint8 image, which is kept, not copied.

    The grid is located and cut into cells along its own lines; the digit classifier reads the
    cells in each of the four orientations and keeps the one it reads most confidently, so
    sideways and upside-down photos (whatever their EXIF tag says) come out upright. The kinds
    model then tells each cell empty, printed, handwritten or pencil notes (`read.kinds`). `trace`
    records what the grid search considered (see `GridSearch`); `retry=False` does not search
    the photo again restored when no grid is found in it (`locate_grid`), as live mode does.
    Raises GridNotFoundError when no grid is seen.
    """
    return puzzle_rather_than_solution(_read(Photo(image_bgr), {}, trace, retry), trace, retry)


def _read(
    photo: Photo,
    timings: dict[str, float],
    trace: GridSearch | None,
    retry: bool = True,
) -> Reading:
    """Read a photo's whole image, adding each stage's seconds and their total to `timings`."""
    location = locate_grid(photo.image, timings=timings, trace=trace, retry=retry)
    return _read_cells(photo, location, timings)


SOLUTION_PRINT = 45
"""Least count of digits read as print for a grid to be taken for a printed solution (the one
printed beside the puzzle, or yesterday's) rather than a puzzle: the photos of the shared sets
read at most 39 printed givens (hand-filled and printed newspaper photos) and 34 (puzzle-book
photos). A solution holds 81 printed digits, but the kinds model takes some of a solution's for
handwriting, cell by cell already (a grid full of digits is unlike the puzzles it learnt from):
60 generated printed solutions alone on a page (`render_grid`, seeds 1-60) read 40 to 81 as
print (median 70), 58 of them 45 or more."""


LEAST_GIVENS = 17
"""Least count of printed digits of a grid read for it to be a puzzle: no Sudoku with fewer
givens has a single answer, and a crossword or a table read as a grid holds few digits."""


def puzzle_rather_than_solution(
    reading: Reading, trace: GridSearch | None = None, retry: bool = True
) -> Reading:
    """`reading`, or, where it is of a printed solution (SOLUTION_PRINT) and the photo holds
    another grid read as a puzzle (LEAST_GIVENS printed digits or more, filled in or not, its
    givens with a single answer), the reading of that grid, found by searching the photo again
    with the grid found painted over in the paper's colour: the search takes the grid that
    fills the photo best, which need not be the puzzle. The other grid's reading keeps the photo
    read (its corners are in its pixels) and adds the second search's seconds to the timings;
    `trace`, when given, is then filled in with that search."""
    if np.count_nonzero(reading.kinds == PRINTED) < SOLUTION_PRINT or reading.location is None:
        return reading
    image = reading.image.copy()
    corners = reading.location.corners
    centre = corners.mean(axis=0)
    sample = image[::8, ::8]
    paper = np.median(sample.reshape(-1, sample.shape[2] if sample.ndim == 3 else 1), axis=0)
    cv2.fillConvexPoly(
        image, np.round(centre + 1.05 * (corners - centre)).astype(np.int32), paper.tolist()
    )
    timings: dict[str, float] = {}
    search = GridSearch()
    try:
        other = _read(Photo(image), timings, search, retry)
    except GridNotFoundError:
        return reading
    printed = np.count_nonzero(other.kinds == PRINTED)
    if not LEAST_GIVENS <= printed < SOLUTION_PRINT or count_solutions(other.givens) != 1:
        return reading
    if trace is not None:
        for part in fields(GridSearch):
            setattr(trace, part.name, getattr(search, part.name))
    spent = {stage: seconds + timings.get(stage, 0.0) for stage, seconds in reading.timings.items()}
    return replace(other, photo=reading.photo, timings=spent)


def read_grid_cells(
    image_bgr: np.ndarray, timings: dict[str, float] | None = None
) -> tuple[GridLocation, CellReading]:
    """The grid of a decoded image and its cells read by the digit model, as `read_image`
    reads them (again with the contrast stretched when faint, or restored when unsure), the
    grid checked whole; the seconds of each stage are added to `timings` when given. Raises
    GridNotFoundError when no grid is seen."""
    timings = {} if timings is None else timings
    photo = Photo(image_bgr)
    return _cut_and_read(photo, locate_grid(photo.image, timings=timings), timings)


def _cut_and_read(
    photo: Photo, location: GridLocation, timings: dict[str, float]
) -> tuple[GridLocation, CellReading]:
    """The grid found in `photo` at `location` and its cells read by the digit model (again
    with the contrast stretched when faint, or restored when unsure), the grid checked whole;
    the seconds taken are added to `timings` under "digits"."""
    start = time.perf_counter()
    location, cells = _read_faint(location, read_cells(location))
    location, cells = _read_restored(location, cells)
    inked = np.array([found.mask is not None for found in cells.found]).reshape(9, 9)
    check_whole(location.lattice, *photo.shape(), inked)
    timings["digits"] = time.perf_counter() - start
    return location, cells


def _read_cells(photo: Photo, location: GridLocation, timings: dict[str, float]) -> Reading:
    """Read the cells of the grid found in `photo` at `location` (in the whole photo's pixels),
    adding each stage's seconds and their total to `timings`."""
    location, cells = _cut_and_read(photo, location, timings)
    start = time.perf_counter()
    predicted = KindClassifier.default().predict(cells.features)
    contents = read_cell_contents(cells, predicted)
    predicted[contents.pencilled] = SURELY[NOTES]
    predicted[contents.written, NOTES] = 0.0
    grid, kinds, kind_probabilities = assign_kinds(predicted, cells.candidates, cells.features)
    keypad, keypad_sureness = keypad_notes(cells, grid, kinds, kind_probabilities)
    emptied = (contents.blank & (kinds == NOTES)) | (contents.ghost & (kinds == HANDWRITTEN))
    grid[emptied] = 0
    kinds[emptied] = EMPTY
    kind_probabilities[emptied] = SURELY[EMPTY]
    candidates, candidate_sureness = _read_candidates(
        cells, contents.chances, kinds, keypad, keypad_sureness
    )
    entry = (kinds == HANDWRITTEN) & contents.shown
    entry_sureness = np.where(entry, 1.0 - contents.content[..., NOTHING], 1.0)
    read_empty = (cells.probabilities.argmax(axis=2) == 0)[..., None]
    probabilities = np.where(
        (grid > 0)[..., None],
        cells.candidates,
        np.where(read_empty, cells.probabilities, _blank_probabilities()),
    ).astype(np.float32)
    timings["kinds"] = time.perf_counter() - start
    timings["total"] = sum(timings.values())
    return Reading(
        grid=grid,
        kinds=kinds,
        probabilities=np.ascontiguousarray(probabilities),
        kind_probabilities=kind_probabilities,
        corners=upright_corners(location.corners, cells.turns),
        rotation=90 * cells.turns,
        timings=timings,
        photo=photo,
        location=location,
        candidates=candidates,
        candidate_sureness=candidate_sureness,
        entry_sureness=entry_sureness.astype(np.float32),
    )


def keypad_notes(
    cells: CellReading, grid: np.ndarray, kinds: np.ndarray, kind_probabilities: np.ndarray
) -> tuple[Candidates, np.ndarray]:
    """The candidates of the upright cells read at their keypad places (`keypad_candidates`),
    and (9, 9) how sure the digit model is of them (`KeypadReading.sureness`, 0 where none),
    all in one batch: of each cell of pencil notes, and of each cell read as handwriting that
    may be notes (KEYPAD_NOTES_CHANCE); one of those holding KEYPAD_MARKS candidates or more
    becomes notes, its digit and kind changed in `grid`, `kinds` and `kind_probabilities` (in
    place). A cell's candidates are kept only where every small mark of it was read, each the
    digit of its place (`KeypadReading.whole`): a partial reading could leave out the answer the
    person pencilled; `()` elsewhere."""
    maybe_notes = (kinds == HANDWRITTEN) & (kind_probabilities[..., NOTES] >= KEYPAD_NOTES_CHANCE)
    looked_at = maybe_notes | (kinds == NOTES)
    as_laid = rotate_grid(np.arange(81).reshape(9, 9), cells.turns)
    upright = {int(as_laid[r, c]): (r, c) for r, c in zip(*np.nonzero(looked_at), strict=True)}
    found = np.full((9, 9), None, object)
    sureness = np.zeros((9, 9), np.float32)
    for cell, read in keypad_candidates(cells.found, list(upright), cells.turns).items():
        r, c = upright[cell]
        if maybe_notes[r, c] and len(read.digits) >= KEYPAD_MARKS:
            grid[r, c], kinds[r, c] = 0, NOTES
            kind_probabilities[r, c] = SURELY[NOTES]
        if read.whole:
            found[r, c], sureness[r, c] = read.digits, read.sureness
    candidates = tuple(
        tuple(found[r, c] if kinds[r, c] == NOTES and found[r, c] else () for c in range(9))
        for r in range(9)
    )
    has = np.array([[bool(cell) for cell in row] for row in candidates])
    return candidates, np.where(has, sureness, 0.0).astype(np.float32)


OVER_DIGIT = 0.9
"""Least probability of candidates the cell-content model gives a cell the digit and kinds
models read as a digit for it to be pencil notes instead. Set on training photos: the 300
candidate cells of kubiesa-train's training split that the digit and kinds models take for a
digit are all at 0.9 or more (the least at 0.93), and 7 of the 10,440 digits of wicht-v2-train's
mixed/ training photos are (16 at 0.5). On 40 generated hand-filled photos not trained on (seeds
600000 up), 7 of 1,203 pen entries are at 0.9 or more, 4 at 0.95; 0.95 would keep 299 of the 300
candidates, and read one more of KUBIESA's training candidates as a digit
(`sudoku-lens eval`)."""

NOTES_POSSIBLE = 1e-6
"""Least probability of pencil notes the kinds model gives a cell read as a digit for the
cell-content model to make it notes (OVER_DIGIT): two models that see a cell differently must
both allow notes. All 300 kubiesa training candidate cells over OVER_DIGIT are at 1e-6 or more
(the least at 1.3e-5); pen entries the kinds model is sure of (0 to 1e-6) are left entries."""


OVER_NOTES = 0.9
"""Least probability of a written digit the cell-content model gives a cell the digit model
reads a digit in for it never to be pencil notes, whatever the kinds model says: a pencil 1
the kinds model takes for a lone candidate is the entry. The 376 candidate cells of
kubiesa-train (training and validation photos) are at 0.08 or less; on 40 generated hand-filled
photos (`benchmarks/check.py`, seeds 20001-20040) the 113 cells of notes in which the digit
model reads a digit are at 0.03 or less."""

OVER_EMPTY = 0.8
"""Least probability of nothing the cell-content model gives a cell read as pencil notes for it
to be empty instead: a speck, a dash, a shadow's edge or the ghost of a rubbed-out digit, which
the kinds model, from its hand-measured features, takes for small notes. On kubiesa-train
(training and validation photos) the 376 candidate cells read as notes are at 0.02 or less, 18
of the 19 empty cells read as notes at 0.8 or more (16 at 0.9; the one under 0.8,
03_05_iphone_14_0 r8c4, holds a light candidate the labels leave out); on generated photos
(`benchmarks/candidates.py`, seeds 20001-20040 and 30001-30040) the 490 notes cells read as
notes are at 0.02 or less."""

GHOST = 0.98
"""Least probability of nothing the cell-content model gives a cell read as a handwritten entry,
whose mark it saw (`content.is_marked`) and which is faint (GHOST_FAINT), for it to be the
ghost of a rubbed-out entry, and so empty. Of the 7,643 digits of kubiesa-train's and
wicht-v2-train's mixed/ training photos that it is shown and saw, none is at 0.25 or more; of
the 8 empty cells of kubiesa-train's training photos the digit and kinds models read as a
digit, 6 are at 0.98 or more (3 at 0.995), and the ghost of its validation photos at 0.999.
Entries of a coloured pen the grey cells hardly show (five red ones on three of the mixed/
photos) are not seen by it at all, and stay the digit read."""

GHOST_FAINT = 0.15
"""Largest stroke darkness of a ghost's mark, as a share of the grid's (`content.ink_level`):
a rubbed-out digit is faint. The model is also all but certain that some small entries written
against the cell's line hold nothing: on generated photos (`benchmarks/handwriting.py --style
cramped`, seeds 10001-10040) 8 entries at 0.98 or more, 4 of them at 0.17 to 0.48 of the grid's
darkness and 4 with no mark found (not read as entries anyway); 4 of the 6 ghosts of
kubiesa-train's training photos at 0.98 or more are at 0.09 to 0.14, the others at 0.22 and
0.24."""

ENTRY_POSSIBLE = 0.01
"""Least probability of handwriting the kinds model gives a cell (the digit model allowing it)
for the cell-content model to be shown it, to say how sure it is that an entry is written there
at all (`Reading.entry_sureness`); cells of clear print are left out, which saves most of the
model's time on a page of givens."""


@dataclass(frozen=True, eq=False)
class CellContents:
    """What the cell-content model (`read.content`) makes of the upright cells it is shown, as
    `read_cell_contents` weighs it against the digit and kinds models."""

    pencilled: np.ndarray
    """(9, 9) bool: cells of pencilled candidates, and so pencil notes, never an entry."""
    written: np.ndarray
    """(9, 9) bool: cells surely holding a written digit, never pencil notes (OVER_NOTES)."""
    content: np.ndarray
    """(9, 9, 3) float32 probabilities of nothing, a digit, candidates (`read_contents`)."""
    chances: np.ndarray
    """(9, 9, 9) float32 probability of each digit 1-9 among a cell's candidates."""
    shown: np.ndarray
    """(9, 9) bool: the cells shown to the model (the others read as nothing)."""
    blank: np.ndarray
    """(9, 9) bool: cells shown to the model that it is sure hold nothing (OVER_EMPTY), and so
    are never pencil notes."""
    ghost: np.ndarray
    """(9, 9) bool: cells whose faint mark the model saw and is all but certain is nothing
    (GHOST, GHOST_FAINT): the ghost of a rubbed-out digit, and so never an entry."""


def read_cell_contents(cells: CellReading, kind_probabilities: np.ndarray) -> CellContents:
    """The cell-content model's reading of the upright cells that may hold pencilled candidates
    or an entry, weighed against the digit model (`cells.candidates`) and the kinds model
    (`kind_probabilities`), before print and pen are weighed as two groups of the grid
    (`assign_kinds`), so that dark notes never count among the grid's print or pen.

    A cell it reads as candidates is pencil notes whatever the other models made of it; where
    those read a digit, only when it is sure of the candidates (OVER_DIGIT) and the kinds
    model's own probability of notes does not rule them out (NOTES_POSSIBLE). A cell where the
    digit model reads a digit and it is sure of a written digit (OVER_NOTES) is never notes,
    whatever the kinds model thinks: a full-size entry beside old small marks, or a small one on
    its own, is the digit read. It is shown the cells that may be notes and those that may be
    handwriting (ENTRY_POSSIBLE). A cell it is sure holds nothing (OVER_EMPTY) is never notes,
    and one whose faint mark it saw and is all but certain is nothing (GHOST) never an entry.
    """
    allowed = allowed_kind_probabilities(kind_probabilities, cells.candidates)
    no_digit = np.isin(allowed.argmax(axis=2), (EMPTY, NOTES))
    possible = no_digit | (np.asarray(kind_probabilities)[..., NOTES] >= NOTES_POSSIBLE)
    shown = possible | (allowed[..., HANDWRITTEN] >= ENTRY_POSSIBLE)
    content, chances = read_contents(cells.found, cells.turns, wanted=shown)
    sure = (content[..., CANDIDATES] >= OVER_DIGIT) & possible
    pencilled = (content.argmax(axis=2) == CANDIDATES) & (no_digit | sure)
    digit_read = np.asarray(cells.candidates).argmax(axis=2) > 0
    written = (content[..., DIGIT] >= OVER_NOTES) & digit_read & ~pencilled
    blank = shown & (content[..., NOTHING] >= OVER_EMPTY)
    seen = np.array([is_marked(ink) for ink in upright_inks(cells.found, cells.turns)])
    darkness = rotate_grid(np.array([f.level for f in cells.found]).reshape(9, 9), cells.turns)
    faint = darkness <= GHOST_FAINT * ink_level(cells.found)
    ghost = shown & seen.reshape(9, 9) & faint & (content[..., NOTHING] >= GHOST)
    return CellContents(pencilled, written, content, chances, shown, blank, ghost)


OUTPUTS_ALONE_SURE = 0.9
"""Least certainty of the cell-content model's candidate outputs (`candidate_certainty`) for
them to be read as the candidates of a cell whose marks the digit model could not read (a mark
it is unsure of). On the generated photos of benchmarks/candidates.py (seeds 20001-20040 and
30001-30040, kinds from the truth, marks and outputs agreeing as sure as the surer), planted
wrong sets reported: with the outputs never read alone 104 and 106 of 120, from 0.9 on 107 and
108, from 0.8 108 and 109; right sets reported wrong 1 of 127 and 1 of 126 throughout. On
kubiesa-train's training photos, candidate cells read exactly 320 of 340 with the outputs never
read alone, 324 from 0.9 on."""


def _read_candidates(
    cells: CellReading,
    chances: np.ndarray,
    kinds: np.ndarray,
    keypad: Candidates,
    keypad_sureness: np.ndarray,
) -> tuple[Candidates, np.ndarray]:
    """The pencilled candidates of each upright cell of pencil notes (`Reading.candidates`) and
    how sure the reading is of them (`Reading.candidate_sureness`): those read whole at their
    keypad places (`keypad`, from `keypad_notes`: each mark the digit of its place, a strong
    check), else its marks read one by one by the digit model (`pencilled_digits`), or the
    cell-content model's candidate outputs (`chances`) where no mark is made out, or where the
    digit model is unsure of a mark and the outputs are sure (OUTPUTS_ALONE_SURE); none
    otherwise. Where the marks and the outputs read the same digits, two readers of the cell
    agree: the reading is as sure as the surer of them."""
    notes_cells = [
        int(i) for i in np.flatnonzero(kinds.ravel() == NOTES) if not keypad[i // 9][i % 9]
    ]
    inks = upright_inks(cells.found, cells.turns)
    read = pencilled_digits([inks[i] for i in notes_cells], DigitClassifier.default())
    rows = [[keypad[r][c] if kinds[r, c] == NOTES else () for c in range(9)] for r in range(9)]
    sureness = keypad_sureness.copy()
    for cell, marks in zip(notes_cells, read, strict=True):
        r, c = divmod(cell, 9)
        if marks.digits is None:
            rows[r][c], sureness[r, c] = (), 0.0
        elif marks.digits:
            rows[r][c], sureness[r, c] = marks.digits, marks.sureness
        else:
            rows[r][c] = candidate_digits(chances[r, c])
            sureness[r, c] = float(chances[r, c][[d - 1 for d in rows[r][c]]].min())
    for r, c in zip(*np.nonzero(kinds == NOTES), strict=True):
        outputs = candidate_digits(chances[r, c])
        certainty = candidate_certainty(chances[r, c])
        if rows[r][c] == outputs:
            sureness[r, c] = max(sureness[r, c], certainty)
        elif not rows[r][c] and certainty >= OUTPUTS_ALONE_SURE:
            rows[r][c], sureness[r, c] = outputs, certainty
    return tuple(tuple(row) for row in rows), sureness


UNSURE = -0.3
"""Sureness of a grid's reading (`sureness`) below which its cells are read again from the grid
restored (`_read_restored`). The 320 dataset photos read at -0.092 or surer, so none is read
again. Of the 30 printed validation photos of benchmarks/conditions.py, the 26 shaken by 15
pixels whose grid is found read at -0.35 to -0.75; shaken by 10 pixels, the three misread at
-0.42 to -0.56 (the others at -0.17 or surer); with grain, 2 at sigma 15 and 17 at sigma 30."""

RESTORED_SURE = -0.5
"""Least sureness of the cells read from the restored grid for them to be kept. The 29 shaken
photos under UNSURE read at -0.37 or surer once steadied, the 19 grainy ones at -0.49 or surer
once smoothed. A grid that is not shaken is steadied along a chance line: before grainy grids
were smoothed instead, 3 of the 30 at sigma 30 came out of it surer than before but misread as
much or more, at -0.71 to -0.87."""


FAINT = 20.0
"""Stroke darkness of a grid's digits (`content.ink_level`, grey levels) below which its cells are
read again from the grid with its contrast stretched (`_read_faint`). The digit finder takes a
mark fainter than 10 grey levels for no digit, so in a photo taken in dim light or washed out
the fainter digits are lost. The 320 dataset photos' digits are 32 or darker (median 75), the 30
printed validation photos' darkened or washed out to 0.35 of their contrast 12 to 54 (median
21); shaken by 15 pixels 21 or darker, with grain of sigma 30, 36."""

FAINT_TARGET = 60.0
"""Stroke darkness that `_read_faint` stretches a faint grid's digits to (near the dataset
photos' median, 75). Set on the 30 printed validation photos darkened and washed out to 0.35 of
their contrast (benchmarks/conditions.py), read exactly: 30 and 29 at 30 and at 40, 30 and 30 at
60 and at 80 (26 and 24 unstretched)."""


def _read_faint(location: GridLocation, cells: CellReading) -> tuple[GridLocation, CellReading]:
    """The grid and its cells read (`cells`, from `location`), or, when its digits are faint
    (FAINT), the grid with its contrast stretched to bring them to FAINT_TARGET (`deepened`: by
    less where that would take the grid's grey levels out of range) and its cells read again."""
    level = ink_level(cells.found)
    if level >= FAINT:
        return location, cells
    warped = deepened(location.warped, FAINT_TARGET / max(level, 1.0))
    if np.array_equal(warped, location.warped):
        return location, cells
    stretched = recut(location, warped)
    return stretched, read_cells(stretched)


def sureness(cells: CellReading) -> float:
    """How sure the digit model is of a grid's reading: the mean, over the cells read as a
    digit, of the log probability of that digit (0 when none is)."""
    probabilities = cells.probabilities.reshape(81, 10)
    digits = probabilities.argmax(axis=1) > 0
    if not digits.any():
        return 0.0
    return float(np.log(probabilities[digits, 1:].max(axis=1)).mean())


def _read_restored(location: GridLocation, cells: CellReading) -> tuple[GridLocation, CellReading]:
    """The grid and its cells read (`cells`, from `location`), or, when the digit model is
    unsure of them (UNSURE), the grid restored (`grid.restore.restored`: smoothed if grainy,
    else its motion blur taken out) and its cells read again, if the model is sure enough of
    those (RESTORED_SURE) and surer than of the first reading (`_surer`). A grid that was not
    shaken comes out of the deblurring filter with its strokes ringing, and is read less surely.
    """
    before = sureness(cells)
    if before >= UNSURE:
        return location, cells
    restored_location = recut(location, restored(location.warped))
    again = read_cells(restored_location)
    if sureness(again) >= RESTORED_SURE and _surer(again, cells):
        return restored_location, again
    return location, cells


def _surer(first: CellReading, second: CellReading) -> bool:
    """Whether the digit model is surer of the reading `first` than of `second` of the same grid:
    of the digits read (`sureness`), and of all 81 cells, the empty ones' blank included, so that
    a reading is not taken for surer for having dropped its doubtful digits (a heavy grain can
    blur a thin print away) or for reading doubtful specks as digits."""

    def all_cells(cells: CellReading) -> float:
        return float(np.log(cells.probabilities.max(axis=2)).mean())

    return sureness(first) > sureness(second) and all_cells(first) > all_cells(second)


def _blank_probabilities() -> np.ndarray:
    """The digit model's probabilities (10,) of a blank cell, for a cell read as holding no
    digit."""
    return DigitClassifier.default().blank_probabilities()


def corners_json(corners: np.ndarray | None) -> list[list[float]] | None:
    """Grid corners as JSON: [x, y] pixel pairs to a tenth of a pixel, or None for no grid."""
    if corners is None:
        return None
    return [[round(float(x), 1), round(float(y), 1)] for x, y in np.asarray(corners).reshape(4, 2)]


def upright_corners(corners: np.ndarray, turns: int) -> np.ndarray:
    """Reorder image-frame corners (TL, TR, BR, BL) to the puzzle's own after `turns` quarter
    turns clockwise: turning the photo clockwise brings its bottom-left corner to the top-left.
    """
    return np.ascontiguousarray(np.roll(np.asarray(corners, np.float32), turns % 4, axis=0))
