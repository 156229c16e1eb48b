"""Full-size phone photos: a JPEG is decoded reduced to the size the reader needs, its grid's
region again finer where the cells need it, and the reading is in the whole photo's pixels."""

from __future__ import annotations

import struct

import cv2
import numpy as np
import pytest

from sudoku_lens.errors import GridNotFoundError
from sudoku_lens.pipeline import solve_photo
from sudoku_lens.read import image_io
from sudoku_lens.read.image_io import MAX_PIXELS, Photo, load_image, load_photo
from sudoku_lens.read.reader import read_image, read_photo, read_photo_cells, search_reduction
from sudoku_lens.synth.example import EXAMPLE_PATH


def jpeg(image: np.ndarray, orientation: int = 1) -> bytes:
    """`image` as a JPEG (quality 90), with an EXIF Orientation tag unless it is 1."""
    data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 90])[1].tobytes()
    if orientation == 1:
        return data
    ifd = struct.pack("<H", 1) + struct.pack("<HHIHH", 0x0112, 3, 1, orientation, 0)
    payload = b"Exif\x00\x00" + b"II*\x00" + struct.pack("<I", 8) + ifd + struct.pack("<I", 0)
    return data[:2] + b"\xff\xe1" + struct.pack(">H", len(payload) + 2) + payload + data[2:]


def header_only(kind: str, width: int, height: int) -> bytes:
    """A small image whose header declares width x height (nothing is decoded from it)."""
    data = bytearray(cv2.imencode(f".{kind}", np.zeros((8, 8, 3), np.uint8))[1].tobytes())
    if kind == "png":
        data[16:24] = struct.pack(">II", width, height)
        return bytes(data)
    pos = 2
    while data[pos + 1] not in (0xC0, 0xC1, 0xC2):
        pos += 2 + struct.unpack(">H", data[pos + 2 : pos + 4])[0]
    data[pos + 5 : pos + 9] = struct.pack(">HH", height, width)
    return bytes(data)


@pytest.fixture(scope="module")
def example() -> np.ndarray:
    return cv2.imread(str(EXAMPLE_PATH))


@pytest.fixture
def decodes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The reductions of every decode of encoded bytes, in order."""
    seen: list[int] = []
    decode = image_io.decode_image

    def counted(data: bytes, *, name: str = "image data", reduction: int = 1) -> np.ndarray:
        seen.append(reduction)
        return decode(data, name=name, reduction=reduction)

    monkeypatch.setattr(image_io, "decode_image", counted)
    return seen


@pytest.mark.parametrize(
    ("kind", "size", "reduction"),
    [
        ("jpg", (4000, 3000), 4),  # searched at 1000 px, as it would be whole
        ("jpg", (4032, 3024), 4),  # searched at 504 px, whole or at 1008
        ("jpg", (3024, 4032), 4),
        ("jpg", (3264, 2448), 2),
        ("jpg", (2000, 1500), 2),
        ("jpg", (1999, 1500), 1),
        ("jpg", (640, 480), 1),
        ("jpg", (10000, 8000), 4),  # over MAX_PIXELS: whole is half size, then 4 more
        ("png", (4000, 3000), 1),  # only a JPEG is reduced as it is decoded
    ],
)
def test_a_jpeg_is_reduced_as_far_as_the_grid_search_allows(
    kind: str, size: tuple[int, int], reduction: int
) -> None:
    photo = load_photo(header_only(kind, *size))
    assert search_reduction(photo) == reduction


def test_the_exif_orientation_is_applied_at_every_reduction(example: np.ndarray) -> None:
    data = jpeg(example, orientation=6)  # stored landscape, shown turned a quarter clockwise
    photo = load_photo(data)
    whole = cv2.rotate(cv2.imdecode(np.frombuffer(jpeg(example), np.uint8), 1), 0)
    assert photo.image.shape == whole.shape == (1280, 960, 3)
    for reduction, flag in ((2, cv2.IMREAD_REDUCED_COLOR_2), (8, cv2.IMREAD_REDUCED_COLOR_8)):
        plain = cv2.imdecode(np.frombuffer(jpeg(example), np.uint8), flag)
        assert np.array_equal(photo.decoded(reduction), cv2.rotate(plain, 0))
    assert photo.shape() == (1280, 960)


def test_pixel_limits_hold_for_a_photo_as_for_an_image() -> None:
    with pytest.raises(image_io.ImageError, match="PNG images over 50 megapixels are refused"):
        load_photo(header_only("png", 10000, 6000))
    photo = load_photo(header_only("jpg", 10000, 8000))
    assert photo.longest_side == 5000 and photo.most_reduction == 4
    assert MAX_PIXELS < 10000 * 8000


def test_a_phone_photo_is_read_reduced_in_its_own_pixels(
    example: np.ndarray, decodes: list[int]
) -> None:
    large = cv2.resize(example, (4000, 3000), interpolation=cv2.INTER_CUBIC)
    data = jpeg(large, orientation=6)
    reading = read_photo(data)
    assert decodes == [4], "read at a quarter of the size, nothing decoded whole"
    whole = read_image(load_image(data))
    assert np.array_equal(reading.grid, whole.grid) and reading.rotation == whole.rotation
    assert np.abs(reading.corners - whole.corners).max() < 4.0  # of a grid 2100 pixels wide
    assert np.abs(reading.location.lattice - whole.location.lattice).max() < 4.0
    assert reading.image.shape == (4000, 3000, 3)
    assert decodes == [4, 1, 1], "the whole photo decoded once, only when drawn on"


def test_the_cells_given_to_training_are_those_the_reader_reads(
    example: np.ndarray, decodes: list[int]
) -> None:
    large = cv2.resize(example, (4000, 3000), interpolation=cv2.INTER_CUBIC)
    data = jpeg(large, orientation=6)
    location, cells = read_photo_cells(data)
    assert decodes == [4], "cut from the reduced decoding, as read_photo cuts them"
    reading = read_photo(data)
    assert np.array_equal(location.lattice, reading.location.lattice)
    assert cells.turns * 90 == reading.rotation
    read = np.where(reading.grid > 0, reading.grid, 0)
    assert np.array_equal(np.where(read > 0, cells.probabilities.argmax(axis=2), 0), read)


def test_a_small_grid_in_a_large_photo_has_its_region_read_finer(
    example: np.ndarray, decodes: list[int]
) -> None:
    canvas = np.full((3600, 4800, 3), 235, np.uint8)
    grid = cv2.resize(example, (1920, 1440), interpolation=cv2.INTER_CUBIC)
    canvas[1000:2440, 1500:3420] = grid
    data = jpeg(canvas)
    reading = read_photo(data)
    assert decodes == [4, 2], "the grid's cells, 27 pixels at a quarter, read at half size"
    whole = read_image(load_image(data))
    assert np.array_equal(reading.grid, whole.grid)
    assert np.abs(reading.corners - whole.corners).max() < 4.0
    expected = example_corners(1.5) + np.array([1500, 1000])
    assert np.abs(reading.corners - expected).max() < 10.0  # 1% of the grid's side


def example_corners(scale: float) -> np.ndarray:
    """The bundled example's grid corners, in its own pixels scaled by `scale`."""
    from sudoku_lens.synth.example import example_photo

    corners = np.asarray(example_photo().corners, np.float64)
    return (corners + 0.5) * scale - 0.5


def test_a_photo_without_a_grid_seen_reduced_is_read_whole(decodes: list[int]) -> None:
    blank = np.random.default_rng(3).integers(200, 256, (3000, 4000, 3), dtype=np.uint8)
    with pytest.raises(GridNotFoundError):
        read_photo(jpeg(blank))
    assert decodes == [4, 1]


def test_the_answer_is_drawn_on_the_whole_photo(example: np.ndarray) -> None:
    large = cv2.resize(example, (4000, 3000), interpolation=cv2.INTER_CUBIC)
    result = solve_photo(jpeg(large))
    assert result.solved and result.image.shape == (3000, 4000, 3)
    assert np.abs(result.image.astype(int) - load_image(jpeg(large)).astype(int)).mean() > 0.2


def test_an_array_is_read_as_it_is() -> None:
    image = cv2.imread(str(EXAMPLE_PATH))
    photo = Photo(image)
    assert photo.image is image and search_reduction(photo) == 1
