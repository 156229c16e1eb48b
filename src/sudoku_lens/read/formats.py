"""Tell image files by their first bytes: the one content check behind every image entry point.

Stdlib only, so that the command line can tell a photo from puzzle text without loading OpenCV.
"""

from __future__ import annotations

SUPPORTED = "JPEG, PNG, BMP, GIF, WebP, TIFF or PNM"
"""The formats the reader decodes, as told to users."""

_BMP_HEADERS = frozenset({12, 16, 40, 52, 56, 64, 108, 124})
"""Sizes of the known BMP info headers: with the zero reserved bytes, this keeps text that
happens to begin with "BM" from passing for a bitmap."""

MAX_BYTES = 50 * 1024 * 1024
"""Encoded image files larger than this are refused before being read."""

HEAD_BYTES = 32
"""How many leading bytes `image_format` and `unsupported_format` need."""

IMAGE_SUFFIXES = frozenset(
    [
        ".jpg",
        ".jpeg",
        ".jpe",
        ".jfif",
        ".png",
        ".bmp",
        ".dib",
        ".gif",
        ".webp",
        ".tif",
        ".tiff",
        ".pbm",
        ".pgm",
        ".ppm",
        ".pnm",
        ".heic",
        ".heif",
        ".avif",
    ]
)
"""File name endings taken as photos even when the content is not recognised, to say why it
cannot be read rather than pass it over or take it for puzzle text."""


def image_format(head: bytes) -> str | None:
    """Name of the decodable image format that `head` (a file's first bytes) begins, or None."""
    if head[:3] == b"\xff\xd8\xff":
        return "JPEG"
    if head[:8] == b"\x89PNG\r\n\x1a\n":
        return "PNG"
    if head[:2] == b"BM" and head[6:10] == bytes(4) and _bmp_header_size(head) in _BMP_HEADERS:
        return "BMP"
    if head[:6] in (b"GIF87a", b"GIF89a"):
        return "GIF"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "WebP"
    if head[:4] in (b"II*\x00", b"MM\x00*"):
        return "TIFF"
    if len(head) > 2 and head[:1] == b"P" and head[1:2] in b"1234567" and head[2:3].isspace():
        return "PNM"
    return None


def _bmp_header_size(head: bytes) -> int:
    return int.from_bytes(head[14:18], "little")


def unsupported_format(head: bytes) -> str | None:
    """Name of a well-known picture format we do not decode (HEIC, AVIF, PDF), or None."""
    if head[4:8] == b"ftyp" and head[8:12] in (b"heic", b"heix", b"mif1", b"msf1"):
        return "HEIC"
    if head[4:8] == b"ftyp" and head[8:12] == b"avif":
        return "AVIF"
    if head[:4] == b"%PDF":
        return "PDF"
    return None
