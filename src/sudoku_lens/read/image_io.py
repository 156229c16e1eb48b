"""Load a photo safely: from a path, encoded bytes or an array, into a BGR uint8 image.

Untrusted input is checked before OpenCV decodes it: the byte size is bounded and the pixel
dimensions are read from the file header, so a small file that declares a gigantic image (a
decompression bomb) is refused without allocating its pixels. The header readers follow the
decoders: where a size is given twice the larger counts, PNM comments end only at a line break.
One pixel limit holds for every entry point (Python API, command line, web): at most MAX_PIXELS
are decoded, which keeps a whole read under about 1 GB; a JPEG up to four times larger is decoded
at half size by the JPEG library itself. A JPEG can also be decoded reduced by 2, 4 or 8 (the
JPEG library's DCT scaling, a fraction of the time of a whole decode): `load_photo` keeps the
checked bytes of a photo and decodes them at the sizes asked for, which is how the reader reads a
phone photo without decoding every pixel. Decoding applies the EXIF orientation as `cv2.imread`
does. Only regular files are opened, and without blocking: a named pipe is refused, not waited on.
"""

from __future__ import annotations

import os
import stat
import struct
from pathlib import Path

import cv2
import numpy as np

from sudoku_lens.errors import ImageError
from sudoku_lens.read.formats import MAX_BYTES, SUPPORTED, image_format, unsupported_format

MAX_PIXELS = 50_000_000
"""The most pixels an image may decode to (a 48-megapixel phone photo passes): reading one this
large takes about 300 MB on top of the decoded image."""
MAX_JPEG_PIXELS = 4 * MAX_PIXELS
"""A JPEG of up to this many pixels is decoded at half size (to at most MAX_PIXELS) by the JPEG
library, which needs the full size only for a progressive file's coefficients (about 600 MB)."""
JPEG_QUALITY = 90
"""JPEG quality `write_image` encodes at: a drawn digit stays crisp, and the solved picture of a
12-16 megapixel phone photo is 1.4 MB (at most 2.3 MB) instead of a 13 MB PNG (at most 18.6 MB;
the 79 solved photos of the puzzle-book set, benchmarks/phone_photos.py)."""
WRITE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp"})
"""File name endings `write_image` can encode."""
WRITE_ENDINGS = "name it .png, .jpg, .bmp, .tif or .webp"
"""What to do about a picture's name that `write_image` cannot encode."""

REDUCTIONS = (1, 2, 4, 8)
"""The factors by which the JPEG library can shrink a JPEG as it decodes it."""
_REDUCED_FLAGS = {
    1: cv2.IMREAD_COLOR,
    2: cv2.IMREAD_REDUCED_COLOR_2,
    4: cv2.IMREAD_REDUCED_COLOR_4,
    8: cv2.IMREAD_REDUCED_COLOR_8,
}

_JPEG_SOF = {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF}
_AV_LOG_QUIET = -8
"""FFmpeg's log level that prints nothing."""
_PNM_SPACE = b" \t\n\v\f\r"
"""What C's isspace() calls white space: OpenCV's PNM reader skips these between numbers."""


def quiet_opencv() -> None:
    """Silence OpenCV's own log for good, unless OPENCV_LOG_LEVEL chose a level.

    For processes that report every failure themselves (the command line, the web server): OpenCV
    would otherwise print its own warnings and errors about a corrupt file beside the one clear
    line. Called once at start-up: changing the process-wide level around each decode would race
    with decodes on other threads. FFmpeg's messages about a damaged video (`[mjpeg @ 0x...]
    overread 8`) are silenced too, unless OPENCV_FFMPEG_LOGLEVEL chose a level: OpenCV reads
    that variable when it opens its first video, so this must come before.
    """
    if "OPENCV_LOG_LEVEL" not in os.environ:
        cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_SILENT)
    os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", str(_AV_LOG_QUIET))


def load_image(
    source: str | os.PathLike[str] | bytes | bytearray | memoryview | np.ndarray,
    *,
    name: str | None = None,
) -> np.ndarray:
    """Return `source` as a contiguous BGR uint8 image of shape (H, W, 3).

    `source` is a file path, the encoded bytes of an image file, or an image array (grayscale,
    BGR or BGRA, uint8). EXIF orientation is applied like `cv2.imread`. Raises `ImageError` with a
    one-line message for a missing file, a directory or other non-regular file, data that is not a
    supported image, empty or truncated data, and images of more than MAX_PIXELS pixels (a JPEG of
    up to MAX_JPEG_PIXELS is decoded at half size instead). The message about the content names
    it `name` when given (an uploaded file's name, say), else by its path, or "image data" for
    bytes.
    """
    return load_photo(source, name=name).image


def decode_image(data: bytes, *, name: str = "image data", reduction: int = 1) -> np.ndarray:
    """Decode encoded image bytes after checking their size and header; see `load_image`.

    `reduction` (one of REDUCTIONS) shrinks a JPEG by that factor as it is decoded, each side
    rounded up (a JPEG over MAX_PIXELS by at least 2); other formats are decoded whole whatever
    it says."""
    kind, width, height = check_image(data, name=name)
    reduction = _least_reduction(kind, width, height) * reduction if kind == "JPEG" else 1
    if reduction not in _REDUCED_FLAGS:
        raise ValueError(f"a JPEG can be reduced by {REDUCTIONS} as it is decoded, not {reduction}")
    try:
        image = cv2.imdecode(np.frombuffer(data, dtype=np.uint8), _REDUCED_FLAGS[reduction])
    except cv2.error:
        image = None
    if image is None or image.size == 0:
        raise ImageError(f"{name} is a truncated or corrupt {kind} file")
    if image.shape[0] * image.shape[1] > MAX_PIXELS:
        raise ImageError(f"{name} is a corrupt {kind} file (it decodes larger than its header)")
    return image


def check_image(data: bytes, *, name: str = "image data") -> tuple[str, int, int]:
    """(format, width, height) of encoded image `data` once its byte size, header and pixel
    count are checked (MAX_BYTES, `probe_image`, MAX_PIXELS and MAX_JPEG_PIXELS): ImageError
    with a one-line message otherwise."""
    if not data:
        raise ImageError(f"{name} is empty")
    if len(data) > MAX_BYTES:
        raise ImageError(
            f"{name} is {len(data) / 2**20:.0f} MB; files over {_mb(MAX_BYTES)} are refused"
        )
    kind, width, height = probe_image(data, name=name)
    if width * height > MAX_PIXELS and (kind != "JPEG" or width * height > MAX_JPEG_PIXELS):
        limit = MAX_JPEG_PIXELS if kind == "JPEG" else MAX_PIXELS
        raise ImageError(
            f"{name} is {width}x{height} pixels ({width * height / 1e6:.0f} megapixels); "
            f"{kind} images over {limit / 1e6:.0f} megapixels are refused: send a smaller photo"
        )
    return kind, width, height


def _least_reduction(kind: str, width: int, height: int) -> int:
    """The factor a checked image is at least reduced by as it is decoded: 2 for a JPEG over
    MAX_PIXELS (it decodes to at most MAX_PIXELS at half size), else 1."""
    return 2 if kind == "JPEG" and width * height > MAX_PIXELS else 1


class Photo:
    """A checked photo, decoded when asked: whole, or (a JPEG) reduced as it is decoded.

    Made by `load_photo`. The whole image is what `load_image` gives (for a JPEG over
    MAX_PIXELS, the half-size decode); `decoded(reduction)` shrinks it further by 2, 4 or 8 in the
    JPEG library, and keeps each size it decoded, so that nothing is decoded twice.
    """

    def __init__(
        self, image: np.ndarray | None = None, *, data: bytes = b"", name: str = "image data"
    ) -> None:
        """A photo of a decoded `image` (kept, not copied), or of checked encoded `data`."""
        self.name = name
        self._data = data
        self._decoded: dict[int, np.ndarray] = {}
        if image is not None:
            self._decoded[1] = image
            self.kind, self._size = "array", (image.shape[1], image.shape[0])
            self.most_reduction = 1
            return
        self.kind, width, height = check_image(data, name=name)
        least = _least_reduction(self.kind, width, height)
        self._size = (-(-width // least), -(-height // least))
        self.most_reduction = REDUCTIONS[-1] // least if self.kind == "JPEG" else 1

    @property
    def image(self) -> np.ndarray:
        """The whole image, BGR uint8 (decoded on first use)."""
        return self.decoded(1)

    @property
    def longest_side(self) -> int:
        """The whole image's longer side, in pixels, known before decoding."""
        return max(self._size)

    def decoded(self, reduction: int = 1) -> np.ndarray:
        """The image reduced by `reduction` (a power of two up to `most_reduction`) as it is
        decoded, each side rounded up, oriented as the whole image. Raises ImageError for a
        corrupt file."""
        if reduction not in self._decoded:
            if reduction > self.most_reduction:
                raise ValueError(f"{self.name} cannot be decoded reduced by {reduction}")
            self._decoded[reduction] = decode_image(self._data, name=self.name, reduction=reduction)
        return self._decoded[reduction]

    def shape(self) -> tuple[int, int]:
        """(height, width) of the whole image as oriented, from a size it was decoded at."""
        reduction, image = next(iter(self._decoded.items()))
        width, height = self._size
        reduced = (-(-height // reduction), -(-width // reduction))
        return (height, width) if image.shape[:2] == reduced else (width, height)


def load_photo(
    source: str | os.PathLike[str] | bytes | bytearray | memoryview | np.ndarray,
    *,
    name: str | None = None,
) -> Photo:
    """`source` (as `load_image` takes it) checked as `load_image` checks it, as a `Photo` to
    decode at the sizes needed; an array is converted (`load_image`) and kept decoded."""
    if isinstance(source, np.ndarray):
        return Photo(_from_array(source))
    if isinstance(source, bytes | bytearray | memoryview):
        return Photo(data=bytes(source), name=name or "image data")
    if isinstance(source, str | os.PathLike):
        path = Path(source)
        return Photo(data=read_image_file(path), name=name or _shown(path))
    raise ImageError(
        f"cannot load an image from {type(source).__name__}: give a path, encoded bytes or an array"
    )


def probe_image(data: bytes, *, name: str = "image data") -> tuple[str, int, int]:
    """Return (format, width, height) read from the header of encoded image `data`.

    Raises `ImageError` when the data is not one of the supported formats, its header is cut,
    or it gives a size of zero.
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
    if width <= 0 or height <= 0:
        raise ImageError(
            f"{name} is a corrupt {kind} file (its header gives a size of {width}x{height})"
        )
    return kind, width, height


def read_image_file(path: Path) -> bytes:
    """Read a whole image file, refusing missing paths, directories, named pipes, devices and
    oversized files first. Opened without blocking, so a named pipe with no writer is refused
    at once instead of waited on."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except ValueError:
        raise ImageError(f"no such file: {_shown(path)} (the name holds a NUL byte)") from None
    except FileNotFoundError:
        raise ImageError(f"no such file: {_shown(path)}") from None
    except IsADirectoryError:
        raise ImageError(f"{_shown(path)} is a folder, not an image file") from None
    except OSError as exc:
        raise ImageError(f"cannot read {_shown(path)}: {exc.strerror or exc}") from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise ImageError(f"{_shown(path)} is a folder, not an image file")
        if not stat.S_ISREG(info.st_mode):
            raise ImageError(f"{_shown(path)} is not a regular file (a pipe or a device)")
        if info.st_size > MAX_BYTES:
            raise ImageError(
                f"{_shown(path)} is {info.st_size / 2**20:.0f} MB; "
                f"files over {_mb(MAX_BYTES)} are refused"
            )
        with os.fdopen(os.dup(fd), "rb") as handle:
            return handle.read(MAX_BYTES + 1)
    except OSError as exc:
        raise ImageError(f"cannot read {_shown(path)}: {exc.strerror or exc}") from None
    finally:
        os.close(fd)


def write_image(path: str | os.PathLike[str], image: np.ndarray) -> Path:
    """Encode `image` by the ending of `path` (see WRITE_SUFFIXES; a JPEG at JPEG_QUALITY) and
    write it with Python's own file I/O, so any file name the system allows works (OpenCV's
    writer crashes on names that are not UTF-8). Returns the path; ImageError (one line) when
    the ending or the write fails."""
    target = Path(path)
    suffix = target.suffix.lower()
    if suffix not in WRITE_SUFFIXES:
        raise ImageError(f"cannot write {_shown(target)}: {WRITE_ENDINGS}")
    try:
        quality = [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY] if suffix in (".jpg", ".jpeg") else []
        ok, encoded = cv2.imencode(suffix, image, quality)
    except cv2.error:
        ok = False
    if not ok:
        raise ImageError(f"cannot write {_shown(target)}: the image could not be encoded")
    try:
        target.write_bytes(encoded.tobytes())
    except OSError as exc:
        raise ImageError(f"cannot write {_shown(target)}: {exc.strerror or exc}") from None
    return target


def _shown(path: str | os.PathLike[str]) -> str:
    """`path` fit to print in one line: bytes that are not UTF-8 as \\x escapes."""
    text = os.fsdecode(path)
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


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
    if array.shape[0] * array.shape[1] > MAX_PIXELS:
        raise ImageError(
            f"the image array is {array.shape[1]}x{array.shape[0]} pixels; images over "
            f"{MAX_PIXELS / 1e6:.0f} megapixels are refused"
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
    """Width and height from the first image file directory of a TIFF: where a size tag is
    repeated, the largest value counts (libtiff keeps the first, other readers the last)."""
    order = "<" if data[:2] == b"II" else ">"
    (offset,) = struct.unpack(order + "I", data[4:8])
    (count,) = struct.unpack(order + "H", data[offset : offset + 2])
    size: dict[int, int] = {}
    for index in range(count):
        entry = data[offset + 2 + 12 * index : offset + 14 + 12 * index]
        tag, kind = struct.unpack(order + "HH", entry[:4])
        if tag in (256, 257):
            value = entry[8:10] if kind == 3 else entry[8:12]
            number = struct.unpack(order + ("H" if kind == 3 else "I"), value)[0]
            size[tag] = max(size.get(tag, 0), number)
    return size[256], size[257]


def _pnm_size(data: bytes) -> tuple[int, int]:
    """Width and height from a PBM/PGM/PPM (P1-P6) or PAM (P7) header, tokenised as OpenCV
    does: a comment runs from # to the next line break (\\n or \\r), numbers are separated by
    C white space. A PAM header line giving WIDTH or HEIGHT twice counts with its larger value."""
    head = data[:4096]
    if head[1:2] == b"7":
        fields: dict[str, int] = {}
        for line in head.split(b"\n")[1:]:
            words = line.split()
            if words and words[0] == b"ENDHDR":
                break
            if len(words) == 2 and words[0] in (b"WIDTH", b"HEIGHT"):
                key = words[0].decode()
                fields[key] = max(fields.get(key, 0), int(words[1]))
        return fields["WIDTH"], fields["HEIGHT"]
    numbers: list[int] = []
    pos = 2
    while len(numbers) < 2:
        byte = head[pos : pos + 1]
        if byte == b"#":
            while head[pos] not in b"\n\r":
                pos += 1
        elif byte.isdigit():
            start = pos
            while head[pos : pos + 1].isdigit():
                pos += 1
            numbers.append(int(head[start:pos]))
            continue
        elif not byte or byte not in _PNM_SPACE:
            raise ValueError("bad PNM header")
        pos += 1
    return numbers[0], numbers[1]


def _png_size(data: bytes) -> tuple[int, int]:
    """Width and height from the IHDR chunk of a PNG, after checking that no chunk claims more
    bytes than the file holds: OpenCV's reader spends seconds on a chunk length of 4 GB."""
    if data[12:16] != b"IHDR":
        raise ValueError("PNG without IHDR")
    pos = 8
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos : pos + 8])
        if length > len(data) - pos - 12:
            raise ValueError("PNG chunk longer than the file")
        if kind == b"IEND":
            break
        pos += length + 12
    return struct.unpack(">II", data[16:24])


def _bmp_size(data: bytes) -> tuple[int, int]:
    """Width and height from a BMP info header: 16-bit in the 12-byte OS/2 header, else 32-bit
    (the height is negative for top-down bitmaps)."""
    if int.from_bytes(data[14:18], "little") == 12:
        return struct.unpack("<HH", data[18:22])
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
