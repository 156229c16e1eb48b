"""Telling image files by their first bytes, whatever their name."""

from __future__ import annotations

import string

import cv2
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sudoku_lens.read.formats import image_format, unsupported_format

PUZZLE = "530070000600195000098000060800060003400803001700020006060000280000419005000080079"


@pytest.mark.parametrize(
    ("extension", "name"),
    [
        (".jpg", "JPEG"),
        (".png", "PNG"),
        (".bmp", "BMP"),
        (".webp", "WebP"),
        (".tiff", "TIFF"),
        (".pgm", "PNM"),
    ],
)
def test_images_encoded_by_opencv_are_recognised(extension: str, name: str) -> None:
    ok, data = cv2.imencode(extension, np.full((8, 8), 128, np.uint8))
    assert ok and image_format(data.tobytes()[:32]) == name


def test_well_known_formats_we_do_not_decode_are_named() -> None:
    assert unsupported_format(b"\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic") == "HEIC"
    assert unsupported_format(b"\x00\x00\x00\x1cftypavif\x00\x00\x00\x00") == "AVIF"
    assert unsupported_format(b"%PDF-1.7\n") == "PDF"
    assert image_format(b"%PDF-1.7\n") is None


@given(st.text(alphabet=string.digits + ".|+-# \n", max_size=200))
def test_puzzle_text_is_never_taken_for_an_image(text: str) -> None:
    data = text.encode()
    assert image_format(data) is None and unsupported_format(data) is None


def test_other_text_is_not_an_image() -> None:
    for data in (b"<html>", PUZZLE.encode(), b"", b"P", b"BMW sudoku\n"):
        assert image_format(data) is None
