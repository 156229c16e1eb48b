"""Train the kinds model: tell empty cells, printed and handwritten digits and pencil notes apart.

The model (`KindNet`, a small MLP exported to ONNX as kinds.onnx) reads the FEATURES numbers
`sudoku_lens.read.kinds.kind_features` measures per cell, with a given digit model's
probabilities among them, so it is trained after (or against) that digit model. Its samples are
the cells of
- the training photos (N % 5 != 0) of printed/ (every digit printed) and mixed/ (printed where
  printed/imageN.dat has a digit, handwritten elsewhere: `read.dataset.kind_labels`), cut by the
  reader's own code along each photo's lattice (`train.photos`), and along jittered lattices;
- generated photos of grids filled in by hand (`synth.handwriting.synth_filled_photo`: several
  pens, handwriting fonts and pen strokes, pencil notes, printed digits in the system's fonts),
  with exact truth, so that pens and pencil notes the photos lack are covered.
A grid whose reading turns the wrong way up is left out (its features would not match its
labels). The report gives kinds on the validation photos (N % 5 == 0), which are never trained on.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path

import numpy as np
import torch
from torch import nn
from tqdm import tqdm

from sudoku_lens.errors import GridNotFoundError, SudokuLensError
from sudoku_lens.read.digits import DigitClassifier
from sudoku_lens.read.grid import GridLocation, locate_grid
from sudoku_lens.read.kinds import (
    FEATURES,
    HANDWRITTEN,
    KIND_NAMES,
    KindClassifier,
    assign_kinds,
    read_cells,
)
from sudoku_lens.synth.handwriting import PENS, synth_filled_photo
from sudoku_lens.train.fonts import find_fonts, find_handwriting_fonts
from sudoku_lens.train.model import export_onnx, one_cycle_adamw
from sudoku_lens.train.photos import cut_cells, load_photos, photo_kinds

Log = Callable[[str], None]

FOLDERS = ("printed", "mixed")
"""The dataset's folders: printed givens only, and puzzles completed by hand."""

VALIDATION_SEED = 900_000
"""First seed of the generated photos the report reads (never trained on; the training's
generated photos use seeds from `seed` up, and benchmarks/handwriting.py from 10001)."""

PRINTED_ONLY_EVERY = 7
"""Every this many generated photos one has no entries. It shares no factor with the number of
pens, so each pen gets its printed-only grids and its filled ones (one in six, as the pens
number six, left the red pen's photos with no entries at all)."""

MIN_AGREEMENT = 0.7
"""Least share of a grid's labelled digits read as labelled for its cells to be used: below,
the reading turned the grid the wrong way up (or the labels do not fit the photo)."""


def _progress(iterable: Iterable, desc: str) -> Iterable:
    return tqdm(iterable, desc=desc, disable=not sys.stderr.isatty(), leave=False)


@dataclass
class KindSet:
    """Cell samples: features (N, FEATURES) float32, kinds (N,) int64, digits (N,) int64 (the
    labelled digit, 0 for none) and the digit model's reading (N,) int64 (faint marks included,
    `CellReading.candidates`), 81 per grid in order."""

    features: np.ndarray
    kinds: np.ndarray
    digits: np.ndarray
    read: np.ndarray

    @staticmethod
    def concat(parts: Sequence[KindSet]) -> KindSet:
        if not parts:
            empty = np.zeros(0, np.int64)
            return KindSet(np.zeros((0, FEATURES), np.float32), empty, empty, empty)
        return KindSet(
            *(np.concatenate([getattr(p, f.name) for p in parts]) for f in fields(KindSet))
        )

    @property
    def grids(self) -> int:
        return len(self.kinds) // 81


def grid_samples(
    location: GridLocation,
    digits: np.ndarray,
    kinds: np.ndarray,
    classifier: DigitClassifier,
) -> KindSet | None:
    """The 81 samples of one located grid with its upright labels (digits and kinds, 9x9), read
    as the reader reads it; None when the reading does not match the labels' way up."""
    cells = read_cells(location, classifier)
    read = cells.candidates.argmax(axis=2)
    labelled = np.asarray(digits) > 0
    if labelled.any() and np.mean(read[labelled] == np.asarray(digits)[labelled]) < MIN_AGREEMENT:
        return None
    return KindSet(
        cells.features.reshape(81, FEATURES),
        np.asarray(kinds, np.int64).ravel(),
        np.asarray(digits, np.int64).ravel(),
        read.astype(np.int64).ravel(),
    )


def photo_kind_sets(
    root: Path,
    classifier: DigitClassifier,
    *,
    variants: int,
    seed: int,
    log: Log,
) -> tuple[KindSet, dict[str, KindSet]]:
    """Samples of the training photos (each cut along its lattice and `variants - 1` jittered
    ones) and, per folder, of the validation photos (along their lattice only)."""
    rng = np.random.default_rng(seed)
    train, val = [], {folder: [] for folder in FOLDERS}
    skipped = 0
    for folder in FOLDERS:
        for photo in _progress(load_photos(root, folder), f"{folder} photos"):
            kinds = photo_kinds(root, photo)
            if kinds is None:
                continue
            image = photo.read_image()
            cuts = 1 if photo.validation else variants
            for cut in range(cuts):
                location = cut_cells(image, photo, rng if cut else None)
                samples = grid_samples(location, photo.labels, kinds, classifier)
                if samples is None:
                    skipped += 1
                    break
                (val[folder] if photo.validation else train).append(samples)
    log(f"photo grids: {len(train)} training cuts, skipped {skipped} read the wrong way up")
    return KindSet.concat(train), {k: KindSet.concat(v) for k, v in val.items()}


def synthetic_kind_set(
    count: int,
    classifier: DigitClassifier,
    *,
    seed: int,
    handwriting_fonts: Sequence[str],
    printed_fonts: Sequence[str],
) -> KindSet:
    """Samples of `count` generated hand-filled photos (seeds seed..seed+count-1): each pen in
    turn, a random share of entries (none on every PRINTED_ONLY_EVERY-th photo: printed-only
    grids) and of pencil notes, printed digits in `printed_fonts` and handwriting partly in
    `handwriting_fonts`."""
    pens = sorted(PENS)
    rng = np.random.default_rng(seed)
    parts = []
    for i in _progress(range(count), "generated photos"):
        made = synth_filled_photo(
            seed + i,
            str(rng.choice(["easy", "medium", "hard"])),
            entries=0.0 if i % PRINTED_ONLY_EVERY == 0 else float(rng.uniform(0.1, 1.0)),
            notes=float(rng.uniform(0.0, 0.4)),
            pen=pens[i % len(pens)],
            font_files=handwriting_fonts,
            printed_fonts=printed_fonts,
        )
        try:
            location = locate_grid(made.photo.image)
        except GridNotFoundError:
            continue
        samples = grid_samples(location, made.filled.digits, made.filled.kinds, classifier)
        if samples is not None:
            parts.append(samples)
    return KindSet.concat(parts)


class KindNet(nn.Module):
    """Standardise the features (with the training set's mean and spread), then an MLP of two
    hidden layers of 128: about 26k weights, well under a millisecond per grid.

    While training, a share `input_dropout` of the features is dropped at random, so that the
    model weighs them all rather than leaning on one: the digit model's own probabilities (its
    pen head's above all) are surer on cells like those it learnt from than on new ones."""

    def __init__(
        self, mean: np.ndarray, std: np.ndarray, hidden: int = 128, input_dropout: float = 0.2
    ) -> None:
        super().__init__()
        self.register_buffer("mean", torch.as_tensor(mean, dtype=torch.float32))
        self.register_buffer(
            "scale", 1.0 / torch.as_tensor(np.maximum(std, 1e-3), dtype=torch.float32)
        )
        self.layers = nn.Sequential(
            nn.Dropout(input_dropout),
            nn.Linear(FEATURES, hidden),
            nn.ReLU(),
            nn.Linear(hidden, hidden),
            nn.ReLU(),
            nn.Linear(hidden, len(KIND_NAMES)),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Map (N, FEATURES) features to (N, 4) kind logits."""
        return self.layers((x - self.mean) * self.scale)


def train_kind_net(
    data: KindSet, *, epochs: int, seed: int, log: Log, batch: int = 1024, lr: float = 3e-3
) -> KindNet:
    """Train a fresh KindNet on `data` (AdamW, one-cycle schedule, every cell weighing the same:
    weighing the rare pencil notes up makes marks in empty cells of real photos notes)."""
    torch.manual_seed(seed)
    net = KindNet(data.features.mean(axis=0), data.features.std(axis=0))
    x = torch.from_numpy(np.ascontiguousarray(data.features, np.float32))
    y = torch.from_numpy(data.kinds)
    loss_fn = nn.CrossEntropyLoss()
    steps = max(1, (len(y) + batch - 1) // batch)
    opt, sched = one_cycle_adamw(net.parameters(), lr, epochs * steps)
    gen = torch.Generator().manual_seed(seed)
    for epoch in range(epochs):
        net.train()
        order = torch.randperm(len(y), generator=gen)
        total = 0.0
        for step in range(steps):
            idx = order[step * batch : (step + 1) * batch]
            loss = loss_fn(net(x[idx]), y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss.detach()) * len(idx)
        if epoch == epochs - 1 or (epoch + 1) % 10 == 0:
            log(f"kinds epoch {epoch + 1}/{epochs}: loss {total / len(y):.4f}")
    return net.eval()


@dataclass
class KindReport:
    """Kinds read on a set of validation grids (their cells as the reader cuts them)."""

    grids: int = 0
    kinds_exact: int = 0
    called_handwritten: int = 0
    """Grids without handwriting in which some cell was called handwritten."""
    confusion: np.ndarray = field(default_factory=lambda: np.zeros((4, 4), np.int64))

    def lines(self) -> list[str]:
        cells = int(self.confusion.sum())
        right = int(np.trace(self.confusion))
        out = [
            f"kinds: {self.kinds_exact}/{self.grids} grids with every kind right, "
            f"{right / max(1, cells):.4%} of cells; grids without handwriting read with a "
            f"handwritten cell: {self.called_handwritten}",
            "kinds confusion (rows: true, columns: read): " + ", ".join(KIND_NAMES),
        ]
        out += ["  " + " ".join(f"{v:6d}" for v in row) for row in self.confusion]
        return out


def evaluate_kinds(data: KindSet, classifier: KindClassifier) -> KindReport:
    """Read the kinds of `data`'s grids with `classifier` and compare with their labels."""
    report = KindReport()
    if not data.grids:
        return report
    probabilities = classifier.predict(data.features).reshape(-1, 9, 9, len(KIND_NAMES))
    for g in range(data.grids):
        cells = slice(81 * g, 81 * g + 81)
        digits = np.zeros((9, 9, 10), np.float32)
        digits.reshape(81, 10)[np.arange(81), data.read[cells]] = 1.0
        _, kinds, _ = assign_kinds(
            probabilities[g], digits, data.features[cells].reshape(9, 9, FEATURES)
        )
        truth = data.kinds[cells].reshape(9, 9)
        np.add.at(report.confusion, (truth.ravel(), kinds.ravel()), 1)
        report.grids += 1
        report.kinds_exact += bool(np.all(kinds == truth))
        report.called_handwritten += bool(
            not np.any(truth == HANDWRITTEN) and np.any(kinds == HANDWRITTEN)
        )
    return report


def run_kinds_training(
    data_dir: Path,
    digits_model: Path,
    out: Path,
    *,
    seed: int = 0,
    synthetic: int = 480,
    held_out: int = 40,
    photo_variants: int = 3,
    epochs: int = 40,
    font_dirs: Sequence[Path] | None = None,
    log: Log = print,
) -> dict[str, KindReport]:
    """Train the kinds model against the digit model at `digits_model` and write it to `out`.

    Samples: the training photos of `data_dir` (printed/ and mixed/, `photo_variants` cuts each)
    and `synthetic` generated hand-filled photos (handwriting fonts found by
    `find_handwriting_fonts`, printed digits in the other fonts of `font_dirs`). Returns the
    report of each folder's validation photos and of `held_out` generated photos not trained
    on."""
    torch.set_num_threads(2)
    digits = DigitClassifier(digits_model)
    handwriting = [str(p) for p in find_handwriting_fonts()]
    try:
        printed = [str(p) for p in find_fonts(font_dirs) if str(p) not in set(handwriting)]
    except SudokuLensError:
        printed = []
    log(f"kinds: {len(handwriting)} handwriting fonts, {len(printed)} printed fonts")
    photos, validation = photo_kind_sets(
        Path(data_dir), digits, variants=photo_variants, seed=seed, log=log
    )
    generated = synthetic_kind_set(
        synthetic, digits, seed=seed, handwriting_fonts=handwriting, printed_fonts=printed
    )
    generated_validation = synthetic_kind_set(
        held_out,
        digits,
        seed=VALIDATION_SEED,
        handwriting_fonts=handwriting,
        printed_fonts=printed,
    )
    log(f"kinds samples: {photos.grids} photo grids, {generated.grids} generated grids")
    net = train_kind_net(KindSet.concat([photos, generated]), epochs=epochs, seed=seed, log=log)
    export_onnx(net, Path(out), example=torch.zeros(2, FEATURES), input_name="features")
    classifier = KindClassifier(out)
    check = generated.features[:512] if generated.grids else photos.features[:512]
    with torch.no_grad():
        expected = torch.softmax(net(torch.from_numpy(check)), dim=1).numpy()
    gap = float(np.abs(classifier.predict(check) - expected).max())
    if gap > 1e-4:
        raise SudokuLensError(f"ONNX export disagrees with PyTorch (max difference {gap:.2e})")
    log(f"wrote {out} ({Path(out).stat().st_size / 1024:.0f} KiB), ONNX matches PyTorch")
    reports = {f"{k} kinds": evaluate_kinds(v, classifier) for k, v in validation.items()}
    reports["generated kinds"] = evaluate_kinds(generated_validation, classifier)
    return reports
