"""Load a photo safely: from a path, encoded bytes or an array, into a BGR uint8 image.

Untrusted input is checked before OpenCV decodes it: the byte size is bounded and the pixel
dimensions are read from the file header, so a small file that declares a gigantic image (a
decompression bomb) is refused without allocating its pixels. Only formats whose header we can
read are accepted. Decoding applies the EXIF orientation exactly as `cv2.imread` does.
"""

from __future__ import annotations

import os
import struct
from pathlib import Path

import cv2
import numpy as np

from sudoku_lens.errors import ImageError
from sudoku_lens.read.formats import SUPPORTED, image_format, unsupported_format

MAX_SIDE_PIXELS = 20_000
"""Images of MAX_SIDE_PIXELS x MAX_SIDE_PIXELS pixels or more are refused."""
MAX_PIXELS = MAX_SIDE_PIXELS * MAX_SIDE_PIXELS
MAX_BYTES = 50 * 1024 * 1024
"""Encoded files larger than this are refused before being read."""


_JPEG_SOF = {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF}


def load_image(
    source: str | os.PathLike[str] | bytes | bytearray | memoryview | np.ndarray,
) -> np.ndarray:
    """Return `source` as a contiguous BGR uint8 image of shape (H, W, 3).

    `source` is a file path, the encoded bytes of an image file, or an image array (grayscale,
    BGR or BGRA, uint8). EXIF orientation is applied like `cv2.imread`. Raises `ImageError` with a
    one-line message for a missing file, a directory, data that is not a supported image, empty or
    truncated data, and images of 20000x20000 pixels or more.
    """
    if isinstance(source, np.ndarray):
        return _from_array(source)
    if isinstance(source, bytes | bytearray | memoryview):
        return decode_image(bytes(source), name="image data")
    if isinstance(source, str | os.PathLike):
        path = Path(source)
        return decode_image(_read_file(path), name=str(path))
    raise ImageError(f"cannot load an image from a {type(source).__name__}")


def decode_image(data: bytes, *, name: str = "image data") -> np.ndarray:
    """Decode encoded image bytes after checking their size and header; see `load_image`."""
    if not data:
        raise ImageError(f"{name} is empty")
    if len(data) > MAX_BYTES:
        raise ImageError(
            f"{name} is {len(data) / 2**20:.0f} MB; files over {_mb(MAX_BYTES)} are refused"
        )
    kind, width, height = probe_image(data, name=name)
    if width <= 0 or height <= 0:
        raise ImageError(
            f"{name} is a corrupt {kind} file (its header gives a size of {width}x{height})"
        )
    if width * height >= MAX_PIXELS:
        raise ImageError(
            f"{name} is {width}x{height} pixels; images of {MAX_SIDE_PIXELS}x{MAX_SIDE_PIXELS} "
            "pixels or more are refused"
        )
    buffer = np.frombuffer(data, dtype=np.uint8)
    level = cv2.utils.logging.getLogLevel()
    cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_SILENT)
    try:
        image = cv2.imdecode(buffer, cv2.IMREAD_COLOR)
    except cv2.error:
        image = None
    finally:
        cv2.utils.logging.setLogLevel(level)
    if image is None or image.size == 0:
        raise ImageError(f"{name} is a truncated or corrupt {kind} file")
    return image


def probe_image(data: bytes, *, name: str = "image data") -> tuple[str, int, int]:
    """Return (format, width, height) read from the header of encoded image `data`.

    Raises `ImageError` when the data is not one of the supported formats or its header is cut.
    """
    kind = image_format(data)
    if kind is None:
        other = unsupported_format(data)
        if other is not None:
            raise ImageError(f"{name} is a {other} file, which is not supported: export it as JPEG")
        raise ImageError(f"{name} is not an image (expected {SUPPORTED})")
    try:
        width, height = _HEADER_READERS[kind](data)
    except (struct.error, IndexError, KeyError, ValueError):
        raise ImageError(f"{name} is a truncated or corrupt {kind} file") from None
    return kind, width, height


def _read_file(path: Path) -> bytes:
    """Read a whole file, refusing missing paths, directories and oversized files first."""
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        raise ImageError(f"no such file: {path}") from None
    except OSError as exc:
        raise ImageError(f"cannot read {path}: {exc.strerror or exc}") from None
    if path.is_dir():
        raise ImageError(f"{path} is a directory, not an image file")
    if size > MAX_BYTES:
        raise ImageError(
            f"{path} is {size / 2**20:.0f} MB; files over {_mb(MAX_BYTES)} are refused"
        )
    try:
        with path.open("rb") as handle:
            return handle.read(MAX_BYTES + 1)
    except OSError as exc:
        raise ImageError(f"cannot read {path}: {exc.strerror or exc}") from None


def _from_array(array: np.ndarray) -> np.ndarray:
    """Convert a grayscale, BGR or BGRA uint8 array to a contiguous BGR copy."""
    if array.dtype != np.uint8:
        raise ImageError(f"image arrays must be uint8, not {array.dtype}")
    if array.ndim == 3 and array.shape[2] == 1:
        array = array[:, :, 0]
    if array.ndim not in (2, 3) or (array.ndim == 3 and array.shape[2] not in (3, 4)):
        raise ImageError(f"an image array must be HxW, HxWx3 or HxWx4, not {array.shape}")
    if array.shape[0] == 0 or array.shape[1] == 0:
        raise ImageError(f"the image array is empty ({array.shape[1]}x{array.shape[0]} pixels)")
    if array.shape[0] * array.shape[1] >= MAX_PIXELS:
        raise ImageError(
            f"the image array is {array.shape[1]}x{array.shape[0]} pixels; images of "
            f"{MAX_SIDE_PIXELS}x{MAX_SIDE_PIXELS} pixels or more are refused"
        )
    if array.ndim == 2:
        return cv2.cvtColor(array, cv2.COLOR_GRAY2BGR)
    if array.shape[2] == 4:
        return cv2.cvtColor(array, cv2.COLOR_BGRA2BGR)
    return np.ascontiguousarray(array).copy()


def _jpeg_size(data: bytes) -> tuple[int, int]:
    """Width and height from the first SOF segment of a JPEG, walking the marker segments."""
    pos = 2
    while True:
        while data[pos] != 0xFF:
            pos += 1
        while data[pos] == 0xFF:
            pos += 1
        marker = data[pos]
        pos += 1
        if marker in (0x01, 0xD8) or 0xD0 <= marker <= 0xD7:
            continue
        if marker in (0xD9, 0xDA):
            raise ValueError("JPEG without a frame header")
        (length,) = struct.unpack(">H", data[pos : pos + 2])
        if marker in _JPEG_SOF:
            height, width = struct.unpack(">HH", data[pos + 3 : pos + 7])
            return width, height
        pos += length


def _webp_size(data: bytes) -> tuple[int, int]:
    """Width and height from the first chunk of a WebP (lossy VP8, lossless VP8L or VP8X)."""
    chunk = data[12:16]
    if chunk == b"VP8 ":
        width, height = struct.unpack("<HH", data[26:30])
        return width & 0x3FFF, height & 0x3FFF
    if chunk == b"VP8L":
        bits = int.from_bytes(data[21:25], "little")
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if chunk == b"VP8X":
        return int.from_bytes(data[24:27], "little") + 1, int.from_bytes(data[27:30], "little") + 1
    raise ValueError("unknown WebP chunk")


def _tiff_size(data: bytes) -> tuple[int, int]:
    """Width and height from the first image file directory of a TIFF."""
    order = "<" if data[:2] == b"II" else ">"
    (offset,) = struct.unpack(order + "I", data[4:8])
    (count,) = struct.unpack(order + "H", data[offset : offset + 2])
    size: dict[int, int] = {}
    for index in range(count):
        entry = data[offset + 2 + 12 * index : offset + 14 + 12 * index]
        tag, kind = struct.unpack(order + "HH", entry[:4])
        if tag in (256, 257):
            value = entry[8:10] if kind == 3 else entry[8:12]
            size[tag] = struct.unpack(order + ("H" if kind == 3 else "I"), value)[0]
    return size[256], size[257]


def _pnm_size(data: bytes) -> tuple[int, int]:
    """Width and height from a PBM/PGM/PPM (P1-P6) or PAM (P7) header."""
    head = data[:512].decode("ascii", errors="replace")
    if head[1] == "7":
        fields = dict(line.split(None, 1) for line in head.splitlines()[1:] if " " in line)
        return int(fields["WIDTH"]), int(fields["HEIGHT"])
    tokens = [line.split("#", 1)[0] for line in head[2:].splitlines()]
    width, height = " ".join(tokens).split()[:2]
    return int(width), int(height)


def _png_size(data: bytes) -> tuple[int, int]:
    """Width and height from the IHDR chunk of a PNG."""
    if data[12:16] != b"IHDR":
        raise ValueError("PNG without IHDR")
    return struct.unpack(">II", data[16:24])


def _bmp_size(data: bytes) -> tuple[int, int]:
    """Width and height from a BMP info header (height is negative for top-down bitmaps)."""
    width, height = struct.unpack("<ii", data[18:26])
    return abs(width), abs(height)


def _gif_size(data: bytes) -> tuple[int, int]:
    """Width and height of a GIF's logical screen."""
    return struct.unpack("<HH", data[6:10])


_HEADER_READERS = {
    "JPEG": _jpeg_size,
    "PNG": _png_size,
    "BMP": _bmp_size,
    "GIF": _gif_size,
    "WebP": _webp_size,
    "TIFF": _tiff_size,
    "PNM": _pnm_size,
}


def _mb(size: int) -> str:
    return f"{size // 2**20} MB"
