"""Training the digit classifier: reproducible, exports an ONNX model that runs like PyTorch."""

from __future__ import annotations

import os
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
from sudoku_lens.train.fonts import find_fonts, render_digit_glyphs  # noqa: E402
from sudoku_lens.train.model import export_onnx  # noqa: E402
from sudoku_lens.train.photos import load_photos  # noqa: E402
from sudoku_lens.train.pipeline import (  # noqa: E402
    Dataset,
    photo_images,
    synthetic_set,
    train_net,
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


def test_training_is_reproducible(tiny: Dataset) -> None:
    quiet = lambda message: None  # noqa: E731
    _, first = train_net(tiny, epochs=1, seed=7, log=quiet, batch=64)
    _, again = train_net(tiny, epochs=1, seed=7, log=quiet, batch=64)
    _, other = train_net(tiny, epochs=1, seed=8, log=quiet, batch=64)
    assert first == again
    assert first != other


def test_onnx_export_matches_torch(tiny: Dataset, tmp_path: Path) -> None:
    net, _ = train_net(tiny, epochs=1, seed=1, log=lambda m: None, batch=64)
    path = tmp_path / "digits.onnx"
    export_onnx(net, path)
    net.eval()
    with torch.no_grad():
        expected = torch.softmax(net(torch.from_numpy(tiny.images[:40]).unsqueeze(1)), 1).numpy()
    got = DigitClassifier(path).predict_prepared(tiny.images[:40])
    np.testing.assert_allclose(got, expected, atol=1e-5)
    assert path.stat().st_size < 2 * 1024 * 1024


def test_find_fonts_says_what_to_do_when_there_are_none(tmp_path: Path) -> None:
    with pytest.raises(SudokuLensError, match="no font files"):
        find_fonts([tmp_path])


def test_train_command_reports_a_missing_data_folder(tmp_path: Path, capsys) -> None:
    code = main(["train", "--data", os.fspath(tmp_path), "--out", os.fspath(tmp_path / "m.onnx")])
    assert code == 2
    assert "outlines.csv" in capsys.readouterr().err


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
