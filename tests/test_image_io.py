"""Loading images safely: every kind of bad input gives one clear ImageError, EXIF is applied."""

from __future__ import annotations

import os
import struct
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sudoku_lens.errors import ImageError
from sudoku_lens.read import image_io
from sudoku_lens.read.image_io import load_image, probe_image


def photo(width: int = 64, height: int = 48) -> np.ndarray:
    """A small BGR test picture whose orientation is visible (distinct corners)."""
    image = np.zeros((height, width, 3), np.uint8)
    image[: height // 2, : width // 2] = (0, 0, 255)
    image[: height // 2, width // 2 :] = (0, 255, 0)
    image[height // 2 :, : width // 2] = (255, 0, 0)
    image[height // 2 :, width // 2 :] = (255, 255, 255)
    return image


def encode(image: np.ndarray, ext: str = ".jpg") -> bytes:
    ok, data = cv2.imencode(ext, image)
    assert ok
    return data.tobytes()


def png_chunk(kind: bytes, payload: bytes) -> bytes:
    crc = zlib.crc32(kind + payload) & 0xFFFFFFFF
    return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", crc)


def png_bomb(width: int, height: int) -> bytes:
    """A tiny PNG whose header declares a huge image (its pixel data is a few zero bytes)."""
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    data = zlib.compress(b"\0" * 1024)
    return (
        b"\x89PNG\r\n\x1a\n"
        + png_chunk(b"IHDR", header)
        + png_chunk(b"IDAT", data)
        + png_chunk(b"IEND", b"")
    )


def jpeg_with_size(width: int, height: int) -> bytes:
    """A real small JPEG whose frame header is rewritten to declare width x height."""
    data = bytearray(encode(photo()))
    pos = 2
    while data[pos + 1] not in (0xC0, 0xC1, 0xC2):
        pos += 2 + struct.unpack(">H", data[pos + 2 : pos + 4])[0]
    data[pos + 5 : pos + 9] = struct.pack(">HH", height, width)
    return bytes(data)


def with_exif_orientation(jpeg: bytes, orientation: int) -> bytes:
    """Insert an APP1 EXIF segment holding only an Orientation tag after the JPEG's SOI."""
    ifd = struct.pack("<H", 1) + struct.pack("<HHIHH", 0x0112, 3, 1, orientation, 0)
    tiff = b"II*\x00" + struct.pack("<I", 8) + ifd + struct.pack("<I", 0)
    payload = b"Exif\x00\x00" + tiff
    segment = b"\xff\xe1" + struct.pack(">H", len(payload) + 2) + payload
    return jpeg[:2] + segment + jpeg[2:]


@pytest.fixture
def no_decoding(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make any call to OpenCV's decoder fail the test: refusals must come before decoding."""

    def refuse(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("the image was decoded")

    monkeypatch.setattr(image_io.cv2, "imdecode", refuse)


def test_path_bytes_and_array_give_the_same_image(tmp_path: Path) -> None:
    data = encode(photo(), ".png")
    path = tmp_path / "picture.png"
    path.write_bytes(data)
    from_path = load_image(path)
    assert from_path.shape == (48, 64, 3) and from_path.dtype == np.uint8
    assert np.array_equal(from_path, load_image(str(path)))
    assert np.array_equal(from_path, load_image(data))
    assert np.array_equal(from_path, load_image(bytearray(data)))
    assert np.array_equal(from_path, photo())


@pytest.mark.parametrize("ext", [".jpg", ".png", ".bmp", ".webp", ".tiff", ".ppm", ".gif"])
def test_supported_formats_decode(ext: str) -> None:
    image = load_image(encode(photo(), ext))
    assert image.shape == (48, 64, 3)
    assert probe_image(encode(photo(), ext))[1:] == (64, 48)


def test_arrays_are_converted_to_bgr() -> None:
    gray = np.full((10, 20), 77, np.uint8)
    assert load_image(gray).shape == (10, 20, 3)
    assert (load_image(gray) == 77).all()
    bgra = np.dstack([photo(), np.full((48, 64), 255, np.uint8)])
    assert np.array_equal(load_image(bgra), photo())
    source = photo()
    copy = load_image(source)
    copy[0, 0] = 1
    assert source[0, 0, 0] == 0, "load_image must not hand back the caller's own array"


@pytest.mark.parametrize(
    ("array", "message"),
    [
        (np.zeros((10, 10), np.float32), "must be uint8"),
        (np.zeros((0, 10, 3), np.uint8), "empty"),
        (np.zeros((10, 10, 2), np.uint8), "HxW, HxWx3 or HxWx4"),
    ],
)
def test_bad_arrays(array: np.ndarray, message: str) -> None:
    with pytest.raises(ImageError, match=message):
        load_image(array)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ImageError, match="no such file: .*nothing.jpg"):
        load_image(tmp_path / "nothing.jpg")


def test_directory(tmp_path: Path) -> None:
    with pytest.raises(ImageError, match="is a folder, not an image file"):
        load_image(tmp_path)


def test_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "empty.jpg"
    path.write_bytes(b"")
    with pytest.raises(ImageError, match="empty.jpg is empty"):
        load_image(path)


def test_text_file(tmp_path: Path) -> None:
    path = tmp_path / "notes.jpg"
    path.write_text("this is not a photo\n")
    with pytest.raises(ImageError, match=r"notes.jpg is not an image \(expected JPEG, PNG"):
        load_image(path)


@pytest.mark.parametrize("keep", [0.3, 0.6, 0.95])
def test_truncated_jpeg(keep: float) -> None:
    data = encode(np.random.default_rng(1).integers(0, 255, (200, 300, 3), np.uint8))
    with pytest.raises(ImageError, match="truncated or corrupt JPEG"):
        load_image(data[: int(len(data) * keep)])


def test_the_photo_readers_name_bytes_as_told() -> None:
    """The web API passes an upload's file name: its errors said 'image data is ...'."""
    from sudoku_lens.hints import hint_photo
    from sudoku_lens.pipeline import solve_photo
    from sudoku_lens.read.reader import read_photo

    cut = encode(photo())[:200]
    for reader in (load_image, read_photo, solve_photo, hint_photo):
        with pytest.raises(ImageError) as error:
            reader(cut, name="scan 7.jpg")
        assert str(error.value) == "scan 7.jpg is a truncated or corrupt JPEG file"
    with pytest.raises(ImageError, match="^image data is a truncated"):
        load_image(cut)


def test_truncated_header() -> None:
    with pytest.raises(ImageError, match="truncated or corrupt PNG"):
        load_image(encode(photo(), ".png")[:12])


@pytest.mark.usefixtures("no_decoding")
def test_png_bomb_is_refused_from_its_header() -> None:
    with pytest.raises(
        ImageError, match="30000x30000 pixels .900 megapixels.; PNG images over 50 megapixels"
    ):
        load_image(png_bomb(30000, 30000))


@pytest.mark.usefixtures("no_decoding")
def test_jpeg_bomb_is_refused_from_its_header() -> None:
    with pytest.raises(ImageError, match="20000x20000 pixels .* JPEG images over 200 megapixels"):
        load_image(jpeg_with_size(20000, 20000))


@pytest.mark.usefixtures("no_decoding")
def test_long_thin_bomb_is_refused() -> None:
    with pytest.raises(ImageError, match="65535x8000 pixels"):
        load_image(png_bomb(65535, 8000))


@pytest.mark.usefixtures("no_decoding")
def test_near_limit_png_that_once_took_3_gb_is_refused() -> None:
    with pytest.raises(ImageError, match="19999x19999 pixels"):
        load_image(png_bomb(19999, 19999))


def test_largest_allowed_header_passes_the_check() -> None:
    assert probe_image(png_bomb(10000, 5000)) == ("PNG", 10000, 5000)
    assert image_io.MAX_PIXELS == 10000 * 5000


def test_large_jpeg_is_decoded_at_half_size() -> None:
    image = np.zeros((2000, 1000, 3), np.uint8)
    image[:1000] = 255
    data = encode(image)
    small = image_io.MAX_PIXELS
    try:
        image_io.MAX_PIXELS = 1000 * 1000
        loaded = load_image(data)
    finally:
        image_io.MAX_PIXELS = small
    assert loaded.shape == (1000, 500, 3)
    assert loaded[:450].min() > 200 and loaded[550:].max() < 50


def tiff_with_sizes(sizes: list[tuple[int, int]]) -> bytes:
    """A little-endian TIFF whose first directory gives each (tag, value) of `sizes` in turn."""
    entries = b"".join(struct.pack("<HHII", tag, 4, 1, value) for tag, value in sizes)
    return b"II*\x00" + struct.pack("<I", 8) + struct.pack("<H", len(sizes)) + entries + bytes(4)


@pytest.mark.usefixtures("no_decoding")
def test_tiff_naming_its_size_twice_is_checked_at_the_larger_size() -> None:
    data = tiff_with_sizes([(256, 20000), (257, 20000), (256, 10), (257, 10)])
    assert probe_image(data) == ("TIFF", 20000, 20000)
    with pytest.raises(ImageError, match="20000x20000 pixels"):
        load_image(data)


@pytest.mark.parametrize("separator", [b"\x0b", b"\x0c", b"\x1c", b"\x1d", b"\x1e"])
@pytest.mark.usefixtures("no_decoding")
def test_pnm_comment_cannot_hide_the_real_size(separator: bytes) -> None:
    data = b"P4\n# a comment" + separator + b"10 10\n11000 11000\n" + bytes(64)
    assert probe_image(data) == ("PNM", 11000, 11000)
    with pytest.raises(ImageError, match="11000x11000 pixels .121 megapixels."):
        load_image(data)


def test_pnm_header_is_read_like_opencv_reads_it() -> None:
    data = b"P5\n#c1\r  7 # c2\n\t5\x0b255\n" + bytes(35)
    assert probe_image(data) == ("PNM", 7, 5)
    assert load_image(data).shape == (5, 7, 3)


def test_os2_bitmap_with_a_12_byte_header_is_read() -> None:
    width, height = 4, 3
    row = bytes([0, 0, 255] * width)  # red, rows padded to 4 bytes (12 already)
    pixels = row * height
    header = b"BM" + struct.pack("<IHHI", 26 + len(pixels), 0, 0, 26)
    info = struct.pack("<IHHHH", 12, width, height, 1, 24)
    data = header + info + pixels
    assert probe_image(data) == ("BMP", 4, 3)
    image = load_image(data)
    assert image.shape == (3, 4, 3) and (image == (0, 0, 255)).all()


def test_named_pipe_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "photo.jpg"
    os.mkfifo(fifo)
    with pytest.raises(ImageError, match="photo.jpg is not a regular file"):
        load_image(fifo)


def test_path_with_a_nul_byte_is_a_clear_error() -> None:
    with pytest.raises(ImageError, match="NUL byte"):
        load_image("photo\0.jpg")


def test_image_written_and_read_under_a_name_that_is_not_utf8(tmp_path: Path) -> None:
    path = Path(os.fsdecode(bytes(tmp_path) + b"/caf\xe9.png"))
    image_io.write_image(path, photo())
    assert np.array_equal(load_image(path), photo())


def test_write_image_refuses_an_unknown_ending(tmp_path: Path) -> None:
    with pytest.raises(ImageError, match=r"name it \.png, \.jpg, \.bmp, \.tif or \.webp"):
        image_io.write_image(tmp_path / "out.txt", photo())


@pytest.mark.usefixtures("no_decoding")
def test_oversized_file_is_refused_before_reading(tmp_path: Path) -> None:
    path = tmp_path / "huge.jpg"
    with path.open("wb") as handle:
        handle.truncate(60 * 1024 * 1024)
    with pytest.raises(ImageError, match="huge.jpg is 60 MB; files over 50 MB are refused"):
        load_image(path)


def test_zero_size_header() -> None:
    with pytest.raises(ImageError, match="corrupt JPEG file .*0x48"):
        load_image(jpeg_with_size(0, 48))


@pytest.mark.parametrize(("orientation", "turns"), [(1, 0), (6, -1), (3, 2), (8, 1)])
def test_exif_orientation_is_applied_like_imread(
    tmp_path: Path, orientation: int, turns: int
) -> None:
    raw = encode(photo(96, 64))
    data = with_exif_orientation(raw, orientation)
    stored = cv2.imdecode(np.frombuffer(raw, np.uint8), cv2.IMREAD_COLOR)
    loaded = load_image(data)
    assert np.array_equal(loaded, np.rot90(stored, turns))
    path = tmp_path / "tagged.jpg"
    path.write_bytes(data)
    assert np.array_equal(load_image(path), cv2.imread(str(path)))


@settings(max_examples=150, deadline=None)
@given(
    prefix=st.sampled_from([b"", b"\xff\xd8\xff", b"\x89PNG\r\n\x1a\n", b"BM", b"GIF89a", b"P6\n"]),
    body=st.binary(max_size=300),
)
def test_garbage_only_ever_raises_image_error(prefix: bytes, body: bytes) -> None:
    try:
        image = load_image(prefix + body)
    except ImageError as exc:
        assert "\n" not in str(exc)
    else:
        assert image.ndim == 3 and image.shape[2] == 3


@pytest.mark.usefixtures("no_decoding")
def test_png_chunk_longer_than_the_file_is_refused_before_decoding() -> None:
    # Found by benchmarks/fuzz.py: OpenCV spent over 10 s on an IDAT chunk claiming 4 GB.
    data = bytearray(encode(photo(16, 600), ".png"))
    data[33:37] = b"\xff\xff\xff\xff"  # the length of the chunk after IHDR
    with pytest.raises(ImageError, match="truncated or corrupt PNG"):
        load_image(bytes(data))
