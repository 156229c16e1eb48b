"""Train the cell-content model: nothing, a digit, or pencilled candidates, and which digits.

The model (`CellNet`, exported to ONNX as cells.onnx, read by `read.content`) learns from each
cell's own ink, cut and scaled as the reader does (`read.content.cell_input`). Its samples are
- the training photos of a cell-labelled folder (`read.cell_labels`, e.g. Alex Kubiesa's
  end-to-end set: printed givens, pencilled entries and small pencilled candidates; which
  candidates from candidates.tsv), cut along the reader's own lattice and along jittered ones;
- the training photos (N % 5 != 0) of the Wicht & Hennebert set's printed/ and mixed/ folders
  (empty cells and digits, printed and handwritten), cut likewise (`train.photos`);
- generated hand-filled photos (`generated_photo_cells`: the generator's pens, entries and
  pencil notes), read by the reader;
- generated cells (`synthetic_cells`): candidates shaped as people pencil them (a pair or a
  triple at the top left, keypad places, a lone digit anywhere, ghosts of rubbed-out ones, pencil
  grey or pen; a lone digit a fifth to a third of the cell tall, pairs and triples up to half),
  full-size entries beside old small marks, printed digits from a third of the cell tall up
  (upright or slanted, sharp or blurred), empty cells with specks and line remnants, and now and
  then a neighbour's stroke poking in across the cell's side.
A grid read the wrong way up (its digits unlike its labels) is left out. The report gives the
model's accuracy on the cells of the folder's validation photos, never trained on.
"""

from __future__ import annotations

import dataclasses
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import torch
from torch import nn
from tqdm import tqdm

from sudoku_lens.errors import SudokuLensError
from sudoku_lens.read.cell_labels import CANDIDATES_LABEL, load_labelled_folder
from sudoku_lens.read.content import (
    CANDIDATES,
    CONTENT_NAMES,
    DIGIT,
    INPUT,
    NOTHING,
    ContentClassifier,
    cell_input,
    ink_level,
    upright_inks,
)
from sudoku_lens.read.digits import WORK, CellInk, find_inks
from sudoku_lens.read.grid import cut_grid
from sudoku_lens.read.grid.cells import CELL, MARGIN
from sudoku_lens.read.image_io import load_image
from sudoku_lens.read.kinds import NOTES
from sudoku_lens.read.reader import read_grid_cells, read_photo_cells
from sudoku_lens.synth.handwriting import PENS, elastic, stroke_digit, synth_filled_photo
from sudoku_lens.synth.render import glyph, random_font
from sudoku_lens.train.fonts import find_fonts, find_handwriting_fonts
from sudoku_lens.train.model import export_onnx, one_cycle_adamw
from sudoku_lens.train.photos import cut_cells, jitter_lattice, load_photos

Log = Callable[[str], None]

MIN_AGREEMENT = 0.7
"""Least share of a grid's labelled digits the digit model reads as labelled for its cells to
be used (below, the grid was read the wrong way up or another grid was taken for it)."""


@dataclass(frozen=True)
class CellSet:
    """Model inputs with what each holds."""

    inputs: np.ndarray
    """(N, INPUT, INPUT) float32 `cell_input`s."""
    content: np.ndarray
    """(N,) int64 index of CONTENT_NAMES."""
    candidates: np.ndarray
    """(N, 9) float32 1 where the digit is pencilled in the cell."""
    known: np.ndarray
    """(N,) bool whether `candidates` is known (a candidates cell whose digits are given)."""

    @staticmethod
    def concat(sets: Iterable[CellSet]) -> CellSet:
        sets = list(sets)
        if not sets:
            return CellSet(
                np.zeros((0, INPUT, INPUT), np.float32),
                np.zeros(0, np.int64),
                np.zeros((0, 9), np.float32),
                np.zeros(0, bool),
            )
        return CellSet(
            *(np.concatenate([getattr(s, f) for s in sets]) for f in CellSet.__annotations__)
        )

    def __len__(self) -> int:
        return len(self.content)


def _progress(iterable: Iterable, desc: str) -> Iterable:
    return tqdm(iterable, desc=desc, file=sys.stderr, disable=not sys.stderr.isatty())


def grid_cells(
    found: list[CellInk],
    turns: int,
    labels: np.ndarray,
    candidates: dict[tuple[int, int], tuple[int, ...]] | None,
) -> CellSet:
    """The 81 samples of one cut grid (`found` as laid in the photo, `turns` to make it upright)
    with its upright (9, 9) labels: 0 nothing, 1-9 a digit, CANDIDATES_LABEL candidates (which
    digits from `candidates` where given)."""
    level = ink_level(found)
    inputs = np.stack([cell_input(ink, level) for ink in upright_inks(found, turns)])
    labels = np.asarray(labels).ravel()
    content = np.where(
        labels == 0, NOTHING, np.where(labels == CANDIDATES_LABEL, CANDIDATES, DIGIT)
    )
    digits = np.zeros((81, 9), np.float32)
    known = np.zeros(81, bool)
    for (r, c), written in (candidates or {}).items():
        if written:
            digits[r * 9 + c, [d - 1 for d in written]] = 1.0
            known[r * 9 + c] = True
    return CellSet(inputs, content.astype(np.int64), digits, known)


def agrees_with_labels(probabilities: np.ndarray, labels: np.ndarray) -> bool:
    """Whether the digit model's reading (9, 9, 10) matches a grid's labelled digits."""
    labels = np.asarray(labels)
    digits = (labels > 0) & (labels < CANDIDATES_LABEL)
    read = np.asarray(probabilities).argmax(axis=2)
    return not digits.any() or float(np.mean(read[digits] == labels[digits])) >= MIN_AGREEMENT


def labelled_cells(folder: Path, split: str, *, jitters: int, seed: int, log: Log) -> CellSet:
    """Samples of a cell-labelled folder's photos of `split`, each cut as the reader cuts it
    (`read_photo_cells`: a JPEG from its reduced decoding) and along `jitters` jittered
    lattices of the whole photo."""
    rng = np.random.default_rng(seed)
    sets, skipped = [], 0
    photos = load_labelled_folder(folder, split)
    for photo in _progress(photos, f"{split} photos"):
        try:
            location, cells = read_photo_cells(photo.path)
        except SudokuLensError:
            skipped += 1
            continue
        if not agrees_with_labels(cells.candidates, photo.labels):
            skipped += 1
            continue
        sets.append(grid_cells(list(cells.found), cells.turns, photo.labels, photo.candidates))
        image = load_image(photo.path) if jitters else None
        for _ in range(jitters):
            cut = cut_grid(image, jitter_lattice(location.lattice, rng))
            found = find_inks(cut.cells)
            sets.append(grid_cells(found, cells.turns, photo.labels, photo.candidates))
    log(f"{folder.name} {split}: {len(photos) - skipped} photos used, {skipped} left out")
    return CellSet.concat(sets)


def wicht_cells(root: Path, *, log: Log) -> CellSet:
    """Samples of the training photos of a wicht-v2-train folder's printed/ and mixed/, each
    cut as the photo's outline gives it."""
    from sudoku_lens.read.kinds import read_cells

    sets, skipped = [], 0
    for folder in ("printed", "mixed"):
        for photo in _progress(load_photos(root, folder), f"{folder} photos"):
            if photo.validation:
                continue
            image = photo.read_image()
            cells = read_cells(cut_cells(image, photo))
            if not agrees_with_labels(cells.candidates, photo.labels):
                skipped += 1
                continue
            sets.append(grid_cells(list(cells.found), cells.turns, photo.labels, None))
    log(f"{root.name}: {len(sets)} grid cuts, {skipped} photos read the wrong way up left out")
    return CellSet.concat(sets)


GENERATED_SEED = 500_000
"""First seed of the generated hand-filled photos trained on (benchmarks/handwriting.py reads
seeds 10001-40000, the kinds training's report 900000 up)."""


def generated_photo_cells(count: int, seed: int, *, handwriting_fonts: Sequence[str]) -> CellSet:
    """Samples of `count` generated hand-filled photos (`synth_filled_photo`, seeds from
    GENERATED_SEED + seed): each pen in turn, entries and the generator's pencil notes (pairs,
    triples and fours, in a row at the top or at their keypad places, with which digits they
    are), read as the reader reads them."""
    pens = sorted(PENS)
    rng = np.random.default_rng(seed)
    sets = []
    for i in _progress(range(count), "generated photos"):
        made = synth_filled_photo(
            GENERATED_SEED + seed + i,
            str(rng.choice(["easy", "medium", "hard"])),
            entries=float(rng.uniform(0.1, 1.0)),
            notes=float(rng.uniform(0.1, 0.4)),
            pen=pens[i % len(pens)],
            font_files=handwriting_fonts,
        )
        try:
            _, cells = read_grid_cells(made.photo.image)
        except SudokuLensError:
            continue
        truth = made.filled
        labels = np.where(truth.kinds == NOTES, CANDIDATES_LABEL, truth.digits)
        pencilled = {
            (int(r), int(c)): truth.candidates[r][c] for r, c in np.argwhere(truth.kinds == NOTES)
        }
        if agrees_with_labels(cells.candidates, labels):
            sets.append(grid_cells(list(cells.found), cells.turns, labels, pencilled))
    return CellSet.concat(sets)


def _stamp(canvas: np.ndarray, glyph: np.ndarray, x: int, y: int, value: float) -> None:
    """Lay a glyph's coverage (0..1) of ink `value` on `canvas` at (x, y), clipped, keeping the
    darker ink where marks overlap."""
    h, w = glyph.shape
    xa, ya = max(x, 0), max(y, 0)
    xb, yb = min(x + w, canvas.shape[1]), min(y + h, canvas.shape[0])
    if xa < xb and ya < yb:
        part = glyph[ya - y : yb - y, xa - x : xb - x] * value
        np.maximum(canvas[ya:yb, xa:xb], part, out=canvas[ya:yb, xa:xb])


def _small_digit(digit: int, height: float, rng: np.random.Generator) -> np.ndarray:
    height = max(5, int(round(height)))
    nib = max(0.9, height * rng.uniform(0.07, 0.16))
    return elastic(stroke_digit(digit, height, nib, rng), rng, rng.uniform(0.0, 0.06))


def _ghosts(canvas: np.ndarray, rng: np.random.Generator, count: int, value: tuple) -> None:
    """Rubbed-out small marks: faint small digits anywhere in the cell."""
    for _ in range(count):
        glyph = _small_digit(int(rng.integers(1, 10)), CELL * rng.uniform(0.18, 0.35), rng)
        x = MARGIN + int(rng.uniform(-0.05, 0.85) * CELL)
        y = MARGIN + int(rng.uniform(-0.05, 0.85) * CELL)
        _stamp(canvas, glyph, x, y, rng.uniform(*value))


def synthetic_candidates(rng: np.random.Generator) -> tuple[np.ndarray, tuple[int, ...]]:
    """(WORK, WORK) float32 ink (1.0 = the grid's stroke darkness) of a cell of pencilled
    candidates, and its digits."""
    canvas = np.zeros((WORK, WORK), np.float32)
    count = int(rng.choice([1, 2, 3, 4], p=[0.25, 0.5, 0.2, 0.05]))
    digits = tuple(sorted(int(d) for d in rng.choice(np.arange(1, 10), count, replace=False)))
    height = CELL * rng.uniform(0.2, 0.36 if count == 1 else 0.5)
    value = rng.uniform(0.2, 0.9) if rng.random() < 0.8 else rng.uniform(0.7, 1.3)
    layout = rng.choice(["row", "keypad", "anywhere"], p=[0.55, 0.3, 0.15])
    glyphs = [_small_digit(d, height * rng.uniform(0.9, 1.1), rng) for d in digits]
    if layout == "row":
        x = MARGIN + int(rng.uniform(-0.04, 0.3) * CELL)
        y = MARGIN + int(rng.uniform(-0.06, 0.25) * CELL)
        if rng.random() < 0.2:  # at the bottom, or down the middle, instead
            y = MARGIN + int(rng.uniform(0.3, 0.7) * CELL)
        for glyph in glyphs:
            _stamp(canvas, glyph, x, y + int(rng.normal(0, 1)), value * rng.uniform(0.85, 1.15))
            x += glyph.shape[1] + int(rng.uniform(0.0, 0.4) * height)
    else:
        for digit, glyph in zip(digits, glyphs, strict=True):
            if layout == "keypad":
                place = np.array([(digit - 1) % 3, (digit - 1) // 3], np.float64)
                centre = WORK / 2 + (place - 1.0) * rng.uniform(0.25, 0.33) * CELL
                centre += rng.normal(0.0, 0.03 * CELL, 2)
            else:
                centre = MARGIN + rng.uniform(0.1, 0.9, 2) * CELL
            x, y = int(centre[0] - glyph.shape[1] / 2), int(centre[1] - glyph.shape[0] / 2)
            _stamp(canvas, glyph, x, y, value * rng.uniform(0.85, 1.15))
    if rng.random() < 0.3:
        _ghosts(canvas, rng, int(rng.integers(1, 3)), (0.04, 0.15))
    return canvas, digits


def synthetic_entry(rng: np.random.Generator) -> np.ndarray:
    """(WORK, WORK) float32 ink of a full-size entry, now and then beside old small marks."""
    canvas = np.zeros((WORK, WORK), np.float32)
    height = CELL * rng.uniform(0.5, 0.85)
    digit = int(rng.integers(1, 10))
    glyph = elastic(
        stroke_digit(digit, int(height), max(1.0, height * rng.uniform(0.05, 0.14)), rng),
        rng,
        rng.uniform(0.0, 0.07),
    )
    x = int(WORK / 2 - glyph.shape[1] / 2 + rng.normal(0, 0.06) * CELL)
    y = int(WORK / 2 - glyph.shape[0] / 2 + rng.normal(0, 0.06) * CELL)
    if rng.random() < 0.35:
        _ghosts(canvas, rng, int(rng.integers(1, 4)), (0.08, 0.45))
    _stamp(canvas, glyph, x, y, rng.uniform(0.5, 1.3))
    return canvas


def _edge_fragment(canvas: np.ndarray, rng: np.random.Generator) -> None:
    """A neighbour's stroke poking in across one side of the cell (a large entry overflowing
    its own cell, or a cut a little off the lattice): part of a full-size digit, mostly outside."""
    height = CELL * rng.uniform(0.5, 0.9)
    mark = stroke_digit(
        int(rng.integers(1, 10)), int(height), max(1.0, height * rng.uniform(0.05, 0.12)), rng
    )
    h, w = mark.shape
    inside = rng.uniform(0.05, 0.3)
    along = MARGIN + int(rng.uniform(-0.2, 0.8) * CELL)
    side = int(rng.integers(4))
    if side == 0:
        x, y = MARGIN - w + int(inside * w), along
    elif side == 1:
        x, y = MARGIN + CELL - int(inside * w), along
    elif side == 2:
        x, y = along, MARGIN - h + int(inside * h)
    else:
        x, y = along, MARGIN + CELL - int(inside * h)
    _stamp(canvas, mark, x, y, rng.uniform(0.3, 1.1))


def synthetic_printed(rng: np.random.Generator, font_files: Sequence[str]) -> np.ndarray:
    """(WORK, WORK) float32 ink of a printed digit near the cell's centre, in a Hershey face or
    one of `font_files`, from small (a third of the cell tall) to large: a small printed given
    is a digit, though no taller than a pair of pencilled candidates."""
    canvas = np.zeros((WORK, WORK), np.float32)
    font = random_font(rng, font_files)
    if rng.random() < 0.3:
        font = dataclasses.replace(font, slant=float(rng.uniform(0.12, 0.3)))
    digit_glyph = glyph(font, int(rng.integers(1, 10)), int(CELL * rng.uniform(0.3, 0.75)))
    x = int(WORK / 2 - digit_glyph.shape[1] / 2 + rng.normal(0, 0.04) * CELL)
    y = int(WORK / 2 - digit_glyph.shape[0] / 2 + rng.normal(0, 0.04) * CELL)
    _stamp(canvas, digit_glyph, x, y, rng.uniform(0.7, 1.3))
    return canvas


def synthetic_empty(rng: np.random.Generator) -> np.ndarray:
    """(WORK, WORK) float32 ink of an empty cell: specks, a rubbed-out mark, a line's remnant."""
    canvas = np.zeros((WORK, WORK), np.float32)
    if rng.random() < 0.5:
        _ghosts(canvas, rng, int(rng.integers(1, 3)), (0.03, 0.1))
    if rng.random() < 0.3:
        along = int(rng.choice([int(rng.integers(2, 8)), int(rng.integers(WORK - 8, WORK - 2))]))
        line = (slice(None), slice(along, along + int(rng.integers(1, 3))))
        if rng.random() < 0.5:
            line = line[::-1]
        canvas[line] = rng.uniform(0.1, 0.5)
    specks = rng.random((WORK, WORK)) < rng.uniform(0.0, 0.01)
    canvas[specks] = np.maximum(canvas[specks], rng.uniform(0.05, 0.3))
    return canvas


SYNTHETIC_SHARES = {"empty": 0.2, "entry": 0.15, "printed": 0.15, "candidates": 0.5}
"""Shares of the generated cells by what they hold."""

_CONTENT_OF = {"empty": NOTHING, "entry": DIGIT, "printed": DIGIT, "candidates": CANDIDATES}
"""The CONTENT_NAMES index each kind of generated cell is labelled with."""

EDGE_FRAGMENTS = 0.25
"""Share of the generated cells with a neighbour's stroke poking in (`_edge_fragment`)."""


def synthetic_cells(count: int, seed: int, printed_fonts: Sequence[str] = ()) -> CellSet:
    """`count` generated cells (SYNTHETIC_SHARES; printed digits in Hershey faces and
    `printed_fonts`), blurred a little and speckled, as inputs."""
    rng = np.random.default_rng(seed)
    level = 100.0
    inputs, content = [], []
    digits = np.zeros((count, 9), np.float32)
    known = np.zeros(count, bool)
    kinds = rng.choice(list(SYNTHETIC_SHARES), count, p=list(SYNTHETIC_SHARES.values()))
    for i, kind in enumerate(kinds):
        if kind == "candidates":
            ink, written = synthetic_candidates(rng)
            digits[i, [d - 1 for d in written]] = 1.0
            known[i] = True
        elif kind == "entry":
            ink = synthetic_entry(rng)
        elif kind == "printed":
            ink = synthetic_printed(rng, printed_fonts)
        else:
            ink = synthetic_empty(rng)
        if rng.random() < EDGE_FRAGMENTS:
            _edge_fragment(ink, rng)
        ink = cv2.GaussianBlur(ink, (0, 0), rng.uniform(0.3, 1.5 if kind == "printed" else 0.9))
        ink = np.clip(ink + rng.normal(0.0, 0.015, ink.shape), 0.0, None)
        inputs.append(cell_input(np.clip(ink * level, 0, 255).astype(np.uint8), level))
        content.append(_CONTENT_OF[kind])
    return CellSet(np.stack(inputs), np.array(content, np.int64), digits, known)


class CellNet(nn.Module):
    """Three convolution blocks (8, 16, 32 channels) and two heads: what the cell holds
    (CONTENT_NAMES) and, for each digit 1-9, whether it is pencilled there; about 40k weights."""

    def __init__(self, dropout: float = 0.2) -> None:
        super().__init__()

        def block(cin: int, cout: int) -> list[nn.Module]:
            return [
                nn.Conv2d(cin, cout, 3, padding=1, bias=False),
                nn.BatchNorm2d(cout),
                nn.ReLU(),
                nn.MaxPool2d(2),
            ]

        self.features = nn.Sequential(*block(1, 8), *block(8, 16), *block(16, 32), nn.Flatten())
        side = INPUT // 8
        self.body = nn.Sequential(nn.Linear(32 * side * side, 64), nn.ReLU(), nn.Dropout(dropout))
        self.content = nn.Linear(64, len(CONTENT_NAMES))
        self.candidates = nn.Linear(64, 9)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(N, 3) content logits and (N, 9) candidate logits of a (N, 1, INPUT, INPUT) batch."""
        body = self.body(self.features(x))
        return self.content(body), self.candidates(body)


class _Probabilities(nn.Module):
    def __init__(self, net: CellNet) -> None:
        super().__init__()
        self.net = net

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        content, candidates = self.net(x)
        return torch.softmax(content, dim=1), torch.sigmoid(candidates)


def augment(batch: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
    """The batch (N, 1, INPUT, INPUT) scaled, turned, shifted, blurred and its contrast varied
    a little, each sample its own way."""
    n = len(batch)

    def uniform(low: float, high: float) -> torch.Tensor:
        return low + (high - low) * torch.rand(n, generator=generator)

    scale, angle = uniform(0.88, 1.12), uniform(-0.07, 0.07)
    shift_x, shift_y = uniform(-0.06, 0.06), uniform(-0.06, 0.06)
    cos, sin = torch.cos(angle) / scale, torch.sin(angle) / scale
    theta = torch.stack(
        [torch.stack([cos, -sin, shift_x], 1), torch.stack([sin, cos, shift_y], 1)], 1
    )
    grid = nn.functional.affine_grid(theta, list(batch.shape), align_corners=False)
    out = nn.functional.grid_sample(batch, grid, align_corners=False, padding_mode="zeros")
    blur = torch.tensor([[1.0, 2.0, 1.0], [2.0, 4.0, 2.0], [1.0, 2.0, 1.0]]) / 16.0
    blurred = nn.functional.conv2d(out, blur.view(1, 1, 3, 3), padding=1)
    chosen = (torch.rand(n, generator=generator) < 0.3).view(n, 1, 1, 1)
    out = torch.where(chosen, blurred, out)
    return (out * uniform(0.7, 1.3).view(n, 1, 1, 1)).clamp(0.0, 1.0)


def train_cell_net(data: CellSet, *, epochs: int, seed: int, log: Log) -> CellNet:
    """Train a CellNet on `data` (content: cross-entropy, classes weighed alike; candidates:
    binary cross-entropy on the cells whose digits are known)."""
    torch.manual_seed(seed)
    generator = torch.Generator().manual_seed(seed)
    net = CellNet()
    inputs = torch.from_numpy(data.inputs).unsqueeze(1)
    content = torch.from_numpy(data.content)
    candidates = torch.from_numpy(data.candidates)
    known = torch.from_numpy(data.known)
    counts = torch.bincount(content, minlength=len(CONTENT_NAMES)).float().clamp(min=1)
    weights = (counts.sum() / counts) / (counts.sum() / counts).mean()
    batch = 128
    steps = epochs * ((len(data) + batch - 1) // batch)
    opt, schedule = one_cycle_adamw(net.parameters(), 3e-3, steps)
    content_loss = nn.CrossEntropyLoss(weight=weights)
    for epoch in range(epochs):
        net.train()
        order = torch.randperm(len(data), generator=generator)
        total = 0.0
        for start in range(0, len(data), batch):
            idx = order[start : start + batch]
            x = augment(inputs[idx], generator)
            content_logits, candidate_logits = net(x)
            loss = content_loss(content_logits, content[idx])
            mask = known[idx]
            if mask.any():
                loss = loss + nn.functional.binary_cross_entropy_with_logits(
                    candidate_logits[mask], candidates[idx][mask]
                )
            opt.zero_grad()
            loss.backward()
            opt.step()
            schedule.step()
            total += loss.item() * len(idx)
        log(f"cells epoch {epoch + 1}/{epochs}: loss {total / len(data):.4f}")
    return net.eval()


@dataclass(frozen=True)
class CellReport:
    """The model's reading of validation cells."""

    cells: int
    right: int
    confusion: np.ndarray
    """(3, 3) cells by content (row) and content read (column)."""
    candidates_exact: tuple[int, int]
    """(candidate cells whose digits were read exactly, candidate cells with known digits)."""

    def lines(self) -> list[str]:
        right, total = self.candidates_exact
        share = 100 * self.right / max(self.cells, 1)
        out = [
            f"cells right: {self.right}/{self.cells} ({share:.2f}%)",
            f"candidate digits exact: {right}/{total}",
            "confusion (rows: expected, columns: read): " + ", ".join(CONTENT_NAMES),
        ]
        out += ["  " + " ".join(f"{v:>6}" for v in row) for row in self.confusion]
        return out


def evaluate_cells(data: CellSet, classifier: ContentClassifier) -> CellReport:
    """How the (exported) model reads `data`."""
    from sudoku_lens.read.content import candidate_digits

    content, candidates = classifier.predict(data.inputs)
    read = content.argmax(axis=1)
    confusion = np.zeros((3, 3), np.int64)
    np.add.at(confusion, (data.content, read), 1)
    exact = [
        candidate_digits(candidates[i]) == tuple(np.flatnonzero(data.candidates[i]) + 1)
        and read[i] == CANDIDATES
        for i in np.flatnonzero(data.known)
    ]
    return CellReport(
        len(data), int((read == data.content).sum()), confusion, (sum(exact), len(exact))
    )


def run_cells_training(
    labelled: Path,
    wicht: Path | None,
    out: Path,
    *,
    epochs: int = 15,
    seed: int = 0,
    synthetic: int = 22_000,
    generated: int = 300,
    font_dirs: Sequence[Path] | None = None,
    log: Log = print,
) -> dict[str, CellReport]:
    """Build the samples, train, export to `out` and report on the validation cells of the
    cell-labelled folder `labelled`; the generated printed digits are drawn in Hershey faces
    and the fonts under `font_dirs` (`find_fonts`; by default the system's)."""
    start = time.perf_counter()
    parts = [
        labelled_cells(labelled, "train", jitters=2, seed=seed, log=log),
        synthetic_cells(synthetic, seed + 2, [str(p) for p in find_fonts(font_dirs)]),
    ]
    if wicht is not None:
        parts.append(wicht_cells(wicht, log=log))
    parts.append(
        generated_photo_cells(
            generated, seed, handwriting_fonts=[str(p) for p in find_handwriting_fonts()]
        )
    )
    data = CellSet.concat(parts)
    log(
        f"cells: {len(data)} samples ({np.bincount(data.content, minlength=3).tolist()} "
        f"empty, digit, candidates) in {time.perf_counter() - start:.0f} s"
    )
    start = time.perf_counter()
    net = train_cell_net(data, epochs=epochs, seed=seed, log=log)
    log(f"cells: trained in {time.perf_counter() - start:.0f} s")
    export_onnx(
        _Probabilities(net).eval(),
        out,
        example=torch.zeros(2, 1, INPUT, INPUT),
        output_names=("content", "candidates"),
    )
    validation = labelled_cells(labelled, "val", jitters=0, seed=seed, log=log)
    return {"cells (validation photos)": evaluate_cells(validation, ContentClassifier(out))}
