"""The dataset's labels: one .dat reader, one validation split, kinds of hand-filled photos."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sudoku_lens.read.dataset import (
    DatasetError,
    grid_text,
    in_split,
    is_validation,
    kind_labels,
    photo_kinds,
    read_dat,
)
from sudoku_lens.read.kinds import HANDWRITTEN, PRINTED, kinds_text

DATA = Path(__file__).parents[1].parent / "shared" / "data" / "wicht-v2-train"


def write_dat(path: Path, grid: str) -> None:
    rows = [" ".join(grid[9 * r : 9 * r + 9]) for r in range(9)]
    path.write_text("Test phone\n640x480: 24 JPG\n" + "\n".join(rows) + "\n")


@given(st.text(alphabet="0123456789", min_size=81, max_size=81))
def test_read_dat_gives_the_grid_back(tmp_path_factory: pytest.TempPathFactory, grid: str) -> None:
    path = tmp_path_factory.mktemp("dat") / "image1.dat"
    write_dat(path, grid)
    assert grid_text(read_dat(path)) == grid


@pytest.mark.parametrize("text", ["a\nb\n1 2 3\n", "a\nb\n" + "1 2 3 4 5 6 7 8 x\n" * 9])
def test_read_dat_refuses_malformed_files(tmp_path: Path, text: str) -> None:
    path = tmp_path / "image1.dat"
    path.write_text(text)
    with pytest.raises(DatasetError, match="expected 9 rows of 9 digits"):
        read_dat(path)
    with pytest.raises(DatasetError, match="cannot read"):
        read_dat(tmp_path / "missing.dat")


@given(st.integers(0, 10_000))
def test_one_split_rule(number: int) -> None:
    name = f"image{number}.jpg"
    assert is_validation(number) == (number % 5 == 0)
    assert in_split(name, "val") != in_split(name, "train")
    assert in_split(name, "all")


def test_kinds_of_a_hand_filled_photo_come_from_the_printed_givens(tmp_path: Path) -> None:
    full = "123456789" * 9
    printed = "100000009" * 9
    (tmp_path / "mixed").mkdir()
    (tmp_path / "printed").mkdir()
    write_dat(tmp_path / "mixed" / "image5.dat", full)
    write_dat(tmp_path / "printed" / "image5.dat", printed)
    write_dat(tmp_path / "mixed" / "image6.dat", full)
    kinds = photo_kinds(tmp_path / "mixed" / "image5.jpg", tmp_path / "printed")
    assert kinds_text(kinds) == "phhhhhhhp" * 9
    assert photo_kinds(tmp_path / "mixed" / "image6.jpg", tmp_path / "printed") is None
    assert kinds_text(photo_kinds(tmp_path / "mixed" / "image6.jpg", None)) == "p" * 81
    partial = np.array([int(c) for c in "120000000" * 9])
    assert kinds_text(kind_labels(partial, None)) == "pp......." * 9


@pytest.mark.skipif(not DATA.is_dir(), reason=f"{DATA} not found: needs ../shared/data")
def test_every_hand_filled_cell_that_is_not_printed_is_handwritten() -> None:
    for dat in sorted((DATA / "mixed").glob("image*.dat"))[:20]:
        kinds = photo_kinds(dat.with_suffix(".jpg"), DATA / "printed")
        if kinds is None:
            continue
        printed = read_dat(DATA / "printed" / dat.name)
        assert np.all((kinds == PRINTED) == (printed > 0))
        assert np.all((kinds == HANDWRITTEN) == (printed == 0))
