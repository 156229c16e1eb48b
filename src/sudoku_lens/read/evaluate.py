"""Measure how well photos are read against their expected grids (`.dat` files beside them, or
a cell-labelled folder's labels: `evaluate_labelled`).

A photo `imageN.jpg` comes with `imageN.dat` (Wicht & Hennebert's format): line 1 the phone,
line 2 the image format, then 9 lines of 9 space-separated digits, 0 for an empty cell, in the
puzzle's upright orientation. The team's validation split is the photos with N % 5 == 0.

The expected kind of each cell (`read.kinds`) comes from `read.dataset.photo_kinds`: with
`givens`, a folder of the same photos' printed-only .dat files, a cell is printed where that file
has a digit and handwritten where only the photo's own .dat has one; without it, every labelled
digit is expected printed (as in a folder of printed-only photos).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from sudoku_lens.errors import SudokuLensError
from sudoku_lens.puzzle.text import cell_name
from sudoku_lens.read.cell_labels import CANDIDATES_LABEL, LabelledPhoto
from sudoku_lens.read.dataset import grid_text, in_split, photo_kinds, photo_number
from sudoku_lens.read.dataset import read_dat as read_dat_grid
from sudoku_lens.read.formats import IMAGE_SUFFIXES
from sudoku_lens.read.kinds import HANDWRITTEN, KIND_CHARS, KIND_NAMES, kinds_text


class EvaluationError(SudokuLensError, ValueError):
    """An evaluation set that cannot be used: no photos, a missing or malformed .dat file."""


@dataclass(frozen=True)
class PhotoResult:
    """How one photo was read."""

    file: str
    expected: str
    """81 characters, row by row, '0' for an empty cell."""
    read: str | None
    """81 characters as read, or None when reading failed."""
    seconds: float
    error: str | None = None
    expected_kinds: str | None = None
    """81 characters of KIND_CHARS ('.' empty, 'p' printed, 'h' handwritten, 'n' notes), or
    None when the photo's printed givens are not known."""
    read_kinds: str | None = None
    """81 characters of KIND_CHARS as read, or None when reading failed."""

    @property
    def wrong_cells(self) -> int:
        """Cells read wrong; all 81 when the photo could not be read."""
        if self.read is None:
            return 81
        return sum(a != b for a, b in zip(self.expected, self.read, strict=True))

    @property
    def wrong_kinds(self) -> int | None:
        """Cells whose kind was read wrong (81 when not read), None when the truth is unknown."""
        if self.expected_kinds is None:
            return None
        if self.read_kinds is None:
            return 81
        return sum(a != b for a, b in zip(self.expected_kinds, self.read_kinds, strict=True))

    def to_json(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "expected": self.expected,
            "read": self.read,
            "wrong_cells": self.wrong_cells,
            "expected_kinds": self.expected_kinds,
            "read_kinds": self.read_kinds,
            "wrong_kinds": self.wrong_kinds,
            "seconds": round(self.seconds, 4),
            "error": self.error,
        }


class _Totals:
    """What every evaluation counts over its photos' results (each with `wrong_cells` and
    `seconds`)."""

    results: list[Any]

    @property
    def photos(self) -> int:
        return len(self.results)

    @property
    def grids_exact(self) -> int:
        """Photos with all 81 cells read right."""
        return sum(r.wrong_cells == 0 for r in self.results)

    @property
    def cells_right(self) -> int:
        return 81 * self.photos - sum(r.wrong_cells for r in self.results)

    @property
    def cell_accuracy(self) -> float:
        """Share of cells read right, counting every cell of an unreadable photo as wrong."""
        return self.cells_right / (81 * self.photos) if self.photos else 0.0

    @property
    def median_seconds(self) -> float:
        return statistics.median(r.seconds for r in self.results) if self.results else 0.0


@dataclass(frozen=True)
class Evaluation(_Totals):
    """Results over a set of photos."""

    results: list[PhotoResult] = field(default_factory=list)

    @property
    def confusion(self) -> np.ndarray:
        """(10, 10) counts of cells by expected class (row) and class read (column), 0 = empty,
        over the photos that could be read."""
        counts = np.zeros((10, 10), np.int64)
        for result in self.results:
            if result.read is not None:
                expected = np.frombuffer(result.expected.encode(), np.uint8) - ord("0")
                read = np.frombuffer(result.read.encode(), np.uint8) - ord("0")
                np.add.at(counts, (expected, read), 1)
        return counts

    @property
    def kind_photos(self) -> int:
        """Photos whose kinds are known (see `PhotoResult.expected_kinds`)."""
        return sum(r.wrong_kinds is not None for r in self.results)

    @property
    def kinds_exact(self) -> int:
        """Photos with the kind of all 81 cells read right."""
        return sum(r.wrong_kinds == 0 for r in self.results)

    @property
    def called_handwritten(self) -> int:
        """Photos without handwriting read with at least one handwritten cell (or not read)."""
        hand = KIND_CHARS[HANDWRITTEN]
        return sum(
            r.expected_kinds is not None
            and hand not in r.expected_kinds
            and (r.read_kinds is None or hand in r.read_kinds)
            for r in self.results
        )

    @property
    def kind_confusion(self) -> np.ndarray:
        """(4, 4) counts of cells by expected kind (row) and kind read (column), in the order of
        KIND_NAMES, over the photos read whose kinds are known."""
        counts = np.zeros((len(KIND_NAMES), len(KIND_NAMES)), np.int64)
        for result in self.results:
            if result.expected_kinds is not None and result.read_kinds is not None:
                expected = [KIND_CHARS.index(c) for c in result.expected_kinds]
                read = [KIND_CHARS.index(c) for c in result.read_kinds]
                np.add.at(counts, (expected, read), 1)
        return counts

    def digits_by_kind(self) -> dict[str, tuple[int, int]]:
        """(cells whose digit was read right, cells) of each expected kind, over the photos
        whose kinds are known (every cell of a photo not read counts as wrong)."""
        tally = {name: [0, 0] for name in KIND_NAMES}
        for result in self.results:
            if result.expected_kinds is None:
                continue
            read = result.read or "-" * 81
            for kind, want, got in zip(result.expected_kinds, result.expected, read, strict=True):
                entry = tally[KIND_NAMES[KIND_CHARS.index(kind)]]
                entry[0] += want == got
                entry[1] += 1
        return {name: (right, total) for name, (right, total) in tally.items() if total}

    def worst(self, count: int = 10) -> list[PhotoResult]:
        """The photos with the most wrong cells (failures first, then wrong kinds), best left
        out."""
        wrong = [r for r in self.results if r.wrong_cells or r.wrong_kinds]
        return sorted(wrong, key=lambda r: (-r.wrong_cells, -(r.wrong_kinds or 0), r.file))[:count]

    def to_json(self) -> dict[str, Any]:
        return {
            "photos": self.photos,
            "grids_exact": self.grids_exact,
            "cell_accuracy": round(self.cell_accuracy, 6),
            "median_seconds": round(self.median_seconds, 4),
            "confusion": self.confusion.tolist(),
            "kind_photos": self.kind_photos,
            "kinds_exact": self.kinds_exact,
            "called_handwritten": self.called_handwritten,
            "kind_confusion": self.kind_confusion.tolist(),
            "digits_by_kind": {k: list(v) for k, v in self.digits_by_kind().items()},
            "per_photo": [r.to_json() for r in self.results],
        }


def read_dat(path: str | Path) -> str:
    """The expected grid of a .dat file as 81 characters ('0' for empty)."""
    return grid_text(read_dat_grid(path))


def list_photos(source: str | Path, split: str = "all", limit: int | None = None) -> list[Path]:
    """Photos to evaluate: every image with a .dat beside it in a folder, or the photos named
    one per line in a text file (relative to the file's folder; blank lines and # comments
    skipped). Sorted by photo number, filtered by `split`, at most `limit` of them.
    """
    in_split("", split)  # an unknown split is refused before any folder is listed
    source = Path(source)
    if source.is_dir():
        photos = [
            p
            for p in source.iterdir()
            if p.suffix.lower() in IMAGE_SUFFIXES and p.with_suffix(".dat").is_file()
        ]
    elif source.is_file():
        photos = []
        try:
            text = source.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            raise EvaluationError(
                f"{source} is neither a folder nor a text list of photos"
            ) from None
        for line in text.splitlines():
            line = line.strip()
            if line and not line.startswith("#"):
                photo = Path(line) if Path(line).is_absolute() else source.parent / line
                if not photo.exists() and is_puzzle_text(line):
                    raise EvaluationError(
                        f"{source} holds puzzles, not photos: eval reads photos with their .dat "
                        "files (a folder of imageN.jpg and imageN.dat, or a text file listing "
                        "the photos); solve and rate take puzzle files"
                    )
                if not photo.with_suffix(".dat").is_file():
                    raise EvaluationError(f"{photo} has no .dat file beside it")
                photos.append(photo)
    else:
        raise EvaluationError(f"no such folder or file: {source}")
    photos = [p for p in photos if in_split(p, split)]
    photos.sort(key=lambda p: (str(p.parent), photo_number(p) or 0, p.name))
    if limit is not None:
        photos = photos[:limit]
    if not photos:
        raise EvaluationError(f"no photos with .dat files in {source} (split {split})")
    return photos


def is_puzzle_text(line: str) -> bool:
    """Whether a line of a list of photos is puzzle text instead (a puzzle, a row of a 9-row
    grid, a bank's line with its id and rating), so that a puzzle file given for a list is
    called one, not taken for 81 missing photos."""
    from sudoku_lens.puzzle.text import PUZZLE_CHARACTERS, read_puzzles

    return set(line) <= PUZZLE_CHARACTERS or any(e.line for e in read_puzzles(line))


def evaluate_photo(
    path: str | Path, name: str | None = None, givens: str | Path | None = None
) -> PhotoResult:
    """Read one photo and compare with its .dat, and its kinds with those `photo_kinds` gives
    (`givens`: the folder of printed-only .dat files, see the module docstring). A photo that
    cannot be read gives a result with its error message (any exception: one bad photo must
    not end an evaluation)."""
    from sudoku_lens.read.reader import read_photo

    path = Path(path)
    expected = read_dat(path.with_suffix(".dat"))
    truth = photo_kinds(path, givens)
    expected_kinds = None if truth is None else kinds_text(truth)
    start = time.perf_counter()
    try:
        reading = read_photo(path)
    except Exception as exc:  # noqa: BLE001 - recorded per photo, see docstring
        message = str(exc) if isinstance(exc, SudokuLensError) else f"{type(exc).__name__}: {exc}"
        seconds = time.perf_counter() - start
        return PhotoResult(str(name or path), expected, None, seconds, message, expected_kinds)
    return PhotoResult(
        str(name or path),
        expected,
        grid_text(reading.grid),
        time.perf_counter() - start,
        expected_kinds=expected_kinds,
        read_kinds=kinds_text(reading.kinds),
    )


def evaluate(
    photos: Sequence[Path],
    *,
    root: Path | None = None,
    givens: str | Path | None = None,
    progress: Callable[[Iterable[Path]], Iterable[Path]] | None = None,
) -> Evaluation:
    """Evaluate photos in order; names are relative to `root` when given; `givens` is the folder
    of printed-only labels (see the module docstring); `progress` wraps the iteration (e.g. a
    tqdm bar)."""
    if givens is not None and not Path(givens).is_dir():
        raise EvaluationError(f"--givens: no such folder: {givens}")
    iterable: Iterable[Path] = progress(photos) if progress else photos
    results = []
    for photo in iterable:
        name = photo.relative_to(root) if root and photo.is_relative_to(root) else photo
        results.append(evaluate_photo(photo, str(name), givens))
    return Evaluation(results)


def format_report(evaluation: Evaluation, worst: int = 10) -> str:
    """A plain-text summary: exact grids, cell accuracy, confusion matrix, the kinds (where
    known: grids with every kind right, digits right per kind, kinds confusion), worst photos."""
    n = evaluation.photos
    exact = evaluation.grids_exact
    lines = [
        f"photos: {n}",
        f"grids read exactly: {exact}/{n} ({100 * exact / n:.1f}%)",
        f"cells right: {evaluation.cells_right}/{81 * n} ({100 * evaluation.cell_accuracy:.2f}%)",
        f"median seconds per photo: {evaluation.median_seconds:.3f}",
        "",
        "confusion (rows: expected, columns: read, . = empty):",
        "       " + "".join(f"{label:>6}" for label in ".123456789"),
    ]
    for label, row in zip(".123456789", evaluation.confusion, strict=True):
        lines.append(f"{label:>7}" + "".join(f"{v:>6}" if v else "     -" for v in row))
    known = evaluation.kind_photos
    if known:
        lines += [
            "",
            f"kinds read exactly: {evaluation.kinds_exact}/{known}"
            + (" (the photos whose kinds are known)" if known < n else ""),
            f"photos without handwriting read with a handwritten cell: "
            f"{evaluation.called_handwritten}",
            "digits right by kind: "
            + ", ".join(
                f"{name} {right}/{total} ({100 * right / total:.2f}%)"
                for name, (right, total) in evaluation.digits_by_kind().items()
            ),
            "kinds confusion (rows: expected, columns: read):",
            "           " + "".join(f"{name:>12}" for name in KIND_NAMES),
        ]
        for name, row in zip(KIND_NAMES, evaluation.kind_confusion, strict=True):
            lines.append(f"{name:>11}" + "".join(f"{v:>12}" if v else f"{'-':>12}" for v in row))
    else:  # only a givens folder without these photos' printed-only .dat files leaves none
        lines += ["", "kinds not measured: the givens folder has no .dat file for these photos"]
    bad = evaluation.worst(worst)
    if bad:
        lines += ["", "worst photos:"]
        for result in bad:
            lines.append(f"  {result.file}: {_describe(result)}")
    return "\n".join(lines)


def _describe(result: PhotoResult) -> str:
    if result.read is None:
        return f"not read ({result.error})"
    wrong = [
        f"{cell_name(i)} {e}->{r}"
        for i, (e, r) in enumerate(zip(result.expected, result.read, strict=True))
        if e != r
    ]
    shown = ", ".join(wrong[:6]) + (", ..." if len(wrong) > 6 else "")
    text = f"{len(wrong)} wrong ({shown})" if wrong else "digits right"
    if result.wrong_kinds:
        kinds = [
            f"{cell_name(i)} {e}->{r}"
            for i, (e, r) in enumerate(
                zip(result.expected_kinds or "", result.read_kinds or "", strict=True)
            )
            if e != r
        ]
        more = ", ..." if len(kinds) > 6 else ""
        text += f", {len(kinds)} kinds wrong ({', '.join(kinds[:6])}{more})"
    return text


CLASS_NAMES = (".", "1", "2", "3", "4", "5", "6", "7", "8", "9", "n")
"""The 11 classes of a cell-labelled folder's cells (`read.cell_labels`), by label: empty, the
nine digits, pencilled candidates."""

CORNERS_FAR = 0.05
"""Distance of a grid corner found from the labelled one, as a share of the grid's side, beyond
which the photo is counted as located far off."""


@dataclass(frozen=True)
class LabelledResult:
    """How one photo of a cell-labelled folder was read."""

    file: str
    expected: tuple[int, ...]
    """81 labels, row by row: 0 empty, 1-9 a digit, 10 candidates."""
    read: tuple[int, ...] | None
    """81 labels as read (10 for a cell read as pencil notes), None when reading failed."""
    seconds: float
    error: str | None = None
    expected_candidates: dict[int, str] | None = None
    """The pencilled digits of each cell labelled candidates (cell index 0-80: "45"), None
    when the folder gives none."""
    read_candidates: tuple[str, ...] | None = None
    """81 strings of the candidates read in each cell ("" where none), None when not read."""
    corner_error: float | None = None
    """The largest distance of a grid corner found from the labelled one, as a share of the
    grid's side; None when not read or the corners are not labelled."""

    @property
    def wrong_cells(self) -> int:
        """Cells whose class (empty, digit, candidates) was read wrong; 81 when not read."""
        if self.read is None:
            return 81
        return sum(a != b for a, b in zip(self.expected, self.read, strict=True))

    def to_json(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "expected": "".join(CLASS_NAMES[v] for v in self.expected),
            "read": None if self.read is None else "".join(CLASS_NAMES[v] for v in self.read),
            "wrong_cells": self.wrong_cells,
            "candidates_wrong": {
                cell_name(cell): {"written": digits, "read": self.read_candidates[cell]}
                for cell, digits in (self.expected_candidates or {}).items()
                if self.read_candidates is not None and self.read_candidates[cell] != digits
            },
            "corner_error": None if self.corner_error is None else round(self.corner_error, 4),
            "seconds": round(self.seconds, 4),
            "error": self.error,
        }


@dataclass(frozen=True)
class LabelledEvaluation(_Totals):
    """Results over the photos of a cell-labelled folder, measured as the set's author does
    (cells right over the 11 classes) and on what matters for pencil candidates."""

    results: list[LabelledResult] = field(default_factory=list)

    @property
    def confusion(self) -> np.ndarray:
        """(11, 11) counts of cells by expected class (row) and class read (column), over the
        photos that could be read."""
        counts = np.zeros((11, 11), np.int64)
        for result in self.results:
            if result.read is not None:
                np.add.at(counts, (list(result.expected), list(result.read)), 1)
        return counts

    def candidates_as_digit(self) -> tuple[int, int]:
        """(candidate cells read as a digit, candidate cells), every cell of a photo not read
        counting as so misread."""
        return self._tally(lambda want: want == CANDIDATES_LABEL, lambda got: 1 <= got <= 9)

    def digits_lost(self) -> tuple[int, int]:
        """(digits read as candidates or empty, digits), a photo not read counting as lost."""
        return self._tally(lambda want: 1 <= want <= 9, lambda got: got in (0, CANDIDATES_LABEL))

    def _tally(self, counted: Callable[[int], bool], bad: Callable[[int], bool]) -> tuple[int, int]:
        """(cells whose label is `counted` and whose class read is `bad`, cells so labelled),
        every cell of a photo not read counting as bad."""
        hits = total = 0
        for result in self.results:
            read = result.read or (-1,) * 81
            for want, got in zip(result.expected, read, strict=True):
                if counted(want):
                    total += 1
                    hits += got == -1 or bad(got)
        return hits, total

    def candidates_exact(self) -> tuple[int, int] | None:
        """(candidate cells whose digits were read exactly, candidate cells whose digits are
        given), None when no photo gives them."""
        right = total = 0
        given = False
        for result in self.results:
            if result.expected_candidates is None:
                continue
            given = True
            for cell, digits in result.expected_candidates.items():
                if digits:
                    total += 1
                    right += (
                        result.read_candidates is not None
                        and result.read_candidates[cell] == digits
                    )
        return (right, total) if given else None

    def corner_errors(self) -> list[float]:
        """Each located photo's largest corner distance (share of the grid's side)."""
        return [r.corner_error for r in self.results if r.corner_error is not None]

    def worst(self, count: int = 10) -> list[LabelledResult]:
        wrong = [r for r in self.results if r.wrong_cells]
        return sorted(wrong, key=lambda r: (-r.wrong_cells, r.file))[:count]

    def to_json(self) -> dict[str, Any]:
        corners = self.corner_errors()
        exact = self.candidates_exact()
        return {
            "photos": self.photos,
            "grids_exact": self.grids_exact,
            "cell_accuracy": round(self.cell_accuracy, 6),
            "candidates_as_digit": list(self.candidates_as_digit()),
            "digits_lost": list(self.digits_lost()),
            "candidates_exact": None if exact is None else list(exact),
            "corners_median": round(statistics.median(corners), 4) if corners else None,
            "corners_max": round(max(corners), 4) if corners else None,
            "corners_far": sum(e > CORNERS_FAR for e in corners),
            "median_seconds": round(self.median_seconds, 4),
            "classes": "".join(CLASS_NAMES),
            "confusion": self.confusion.tolist(),
            "per_photo": [r.to_json() for r in self.results],
        }


def corner_error(found: np.ndarray, labelled: np.ndarray) -> float:
    """The largest distance between matching corners of two (4, 2) quadrilaterals, as a share
    of the labelled one's side (the mean length of its four sides)."""
    labelled = np.asarray(labelled, np.float64).reshape(4, 2)
    side = np.linalg.norm(labelled - np.roll(labelled, -1, axis=0), axis=1).mean()
    distance = np.linalg.norm(np.asarray(found, np.float64).reshape(4, 2) - labelled, axis=1)
    return float(distance.max() / side)


def evaluate_labelled_photo(photo: LabelledPhoto, name: str | None = None) -> LabelledResult:
    """Read one photo of a cell-labelled folder and compare each cell's class with its label,
    its candidates with those given and its grid corners with the labelled ones. A photo that
    cannot be read gives a result with its error message."""
    from sudoku_lens.read.kinds import NOTES, candidates_json
    from sudoku_lens.read.reader import read_photo

    expected = tuple(int(v) for v in photo.labels.ravel())
    given = None
    if photo.candidates is not None:
        given = {r * 9 + c: "".join(map(str, d)) for (r, c), d in photo.candidates.items()}
    start = time.perf_counter()
    try:
        reading = read_photo(photo.path)
    except Exception as exc:  # noqa: BLE001 - recorded per photo, as evaluate_photo does
        message = str(exc) if isinstance(exc, SudokuLensError) else f"{type(exc).__name__}: {exc}"
        seconds = time.perf_counter() - start
        return LabelledResult(str(name or photo.path), expected, None, seconds, message, given)
    seconds = time.perf_counter() - start
    read = np.where(reading.kinds == NOTES, CANDIDATES_LABEL, reading.grid).ravel()
    return LabelledResult(
        str(name or photo.path),
        expected,
        tuple(int(v) for v in read),
        seconds,
        expected_candidates=given,
        read_candidates=tuple(candidates_json(reading.candidates)),
        corner_error=None
        if photo.corners is None
        else corner_error(reading.corners, photo.corners),
    )


def evaluate_labelled(
    photos: Sequence[LabelledPhoto],
    *,
    root: Path | None = None,
    progress: Callable[[Iterable[LabelledPhoto]], Iterable[LabelledPhoto]] | None = None,
) -> LabelledEvaluation:
    """Evaluate the photos of a cell-labelled folder in order (names relative to `root`)."""
    iterable: Iterable[LabelledPhoto] = progress(photos) if progress else photos
    results = []
    for photo in iterable:
        path = photo.path
        name = path.relative_to(root) if root and path.is_relative_to(root) else path
        results.append(evaluate_labelled_photo(photo, str(name)))
    return LabelledEvaluation(results)


def format_labelled_report(evaluation: LabelledEvaluation, worst: int = 10) -> str:
    """A plain-text summary of a cell-labelled folder's evaluation."""
    n, exact = evaluation.photos, evaluation.grids_exact

    def share(pair: tuple[int, int]) -> str:
        hits, total = pair
        return f"{hits}/{total}" + (f" ({100 * hits / total:.2f}%)" if total else "")

    lines = [
        f"photos: {n}",
        f"grids read exactly: {exact}/{n} ({100 * exact / n:.1f}%)",
        f"cells right over the 11 classes (empty, 1-9, candidates): {evaluation.cells_right}/"
        f"{81 * n} ({100 * evaluation.cell_accuracy:.2f}%)",
        f"candidate cells read as a digit: {share(evaluation.candidates_as_digit())}",
        f"digits read as candidates or empty: {share(evaluation.digits_lost())}",
    ]
    candidates = evaluation.candidates_exact()
    if candidates is not None:
        lines.append(f"candidate digits read exactly: {share(candidates)}")
    corners = evaluation.corner_errors()
    if corners:
        far = sum(e > CORNERS_FAR for e in corners)
        lines.append(
            f"grid corners off the labelled ones (share of the grid's side): median "
            f"{100 * statistics.median(corners):.2f}%, max {100 * max(corners):.2f}%, "
            f"{far} photo{'s' if far != 1 else ''} over {100 * CORNERS_FAR:.0f}%"
        )
    lines += [
        f"median seconds per photo: {evaluation.median_seconds:.3f}",
        "",
        "confusion (rows: expected, columns: read, . = empty, n = candidates):",
        "       " + "".join(f"{label:>6}" for label in CLASS_NAMES),
    ]
    for label, row in zip(CLASS_NAMES, evaluation.confusion, strict=True):
        lines.append(f"{label:>7}" + "".join(f"{v:>6}" if v else "     -" for v in row))
    bad = evaluation.worst(worst)
    if bad:
        lines += ["", "worst photos:"]
        for result in bad:
            if result.read is None:
                lines.append(f"  {result.file}: not read ({result.error})")
                continue
            wrong = [
                f"{cell_name(i)} {CLASS_NAMES[e]}->{CLASS_NAMES[r]}"
                for i, (e, r) in enumerate(zip(result.expected, result.read, strict=True))
                if e != r
            ]
            shown = ", ".join(wrong[:6]) + (", ..." if len(wrong) > 6 else "")
            lines.append(f"  {result.file}: {len(wrong)} wrong ({shown})")
    return "\n".join(lines)
