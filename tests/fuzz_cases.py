"""Mutated image files for fuzzing the reader: every format OpenCV reads, broken every way.

`fuzz_case(seed, index)` gives one case, the same for the same pair: a base picture (a small
drawn Sudoku, a flat or noisy picture, a tiny one, one of extreme aspect ratio) encoded in a
format (PNG, JPEG baseline and progressive, BMP, TIFF, PBM/PGM/PPM/PAM, WebP, GIF; or a
hand-made TIFF or PNM with its size given twice), then mutated: bit flips, truncation, header
or marker corruption, absurd size fields, a slice duplicated, a range zeroed. Used by
tests/test_fuzz_images.py (a few hundred cases) and benchmarks/fuzz.py (a longer run).
"""

from __future__ import annotations

import random
import struct
from functools import cache

import cv2
import numpy as np

FORMATS = (
    ".png",
    ".jpg",
    ".jpg-progressive",
    ".bmp",
    ".tiff",
    ".pbm",
    ".pgm",
    ".ppm",
    ".pam",
    ".webp",
    ".gif",
    "tiff-twice",
    "pnm-twice",
)
MUTATIONS = (
    "none",
    "flip",
    "flip-header",
    "truncate",
    "size",
    "marker",
    "duplicate",
    "zero",
)
ABSURD = (0, 1, 2, 255, 9999, 20000, 65535, 100_000, 2**31 - 1, 2**32 - 1)


@cache
def drawn_sudoku(width: int, height: int) -> np.ndarray:
    """A white page with a 9x9 grid and a few printed digits, the size of a small photo."""
    image = np.full((height, width, 3), 235, np.uint8)
    side = min(width, height) * 0.8
    x0, y0 = (width - side) / 2, (height - side) / 2
    for k in range(10):
        thick = 3 if k % 3 == 0 else 1
        at = k * side / 9
        cv2.line(image, (round(x0 + at), round(y0)), (round(x0 + at), round(y0 + side)), 0, thick)
        cv2.line(image, (round(x0), round(y0 + at)), (round(x0 + side), round(y0 + at)), 0, thick)
    digits = "537619598686348317266284195879"
    for n, digit in enumerate(digits):
        r, c = (n * 7) % 9, (n * 4) % 9
        org = (round(x0 + (c + 0.25) * side / 9), round(y0 + (r + 0.8) * side / 9))
        cv2.putText(image, digit, org, cv2.FONT_HERSHEY_SIMPLEX, side / 9 / 40, 0, 2)
    return image


def base_picture(rng: random.Random) -> np.ndarray:
    """One of the base pictures: drawn Sudoku, flat, noise, tiny, or extreme aspect ratio."""
    kind = rng.choice(["sudoku", "sudoku", "flat", "noise", "tiny", "narrow", "wide"])
    if kind == "sudoku":
        return drawn_sudoku(rng.choice([160, 320, 400]), rng.choice([160, 240, 300]))
    if kind == "flat":
        return np.full((rng.randint(1, 200), rng.randint(1, 200), 3), rng.randint(0, 255), np.uint8)
    if kind == "noise":
        shape = (rng.randint(8, 120), rng.randint(8, 120), 3)
        return np.random.default_rng(rng.getrandbits(32)).integers(0, 256, shape, np.uint8)
    if kind == "tiny":
        side = rng.choice([1, 2, 3, 8])
        return np.full((side, rng.choice([1, 2, 3, 8]), 3), 128, np.uint8)
    long, short = rng.choice([600, 2000, 5000]), rng.choice([1, 2, 3, 16])
    shape = (long, short, 3) if kind == "narrow" else (short, long, 3)
    return np.full(shape, 200, np.uint8)


def encode(image: np.ndarray, fmt: str, rng: random.Random) -> bytes:
    """`image` encoded as `fmt` (a FORMATS entry)."""
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    if fmt == "tiff-twice":
        return tiff_with_duplicate_size(gray, rng)
    if fmt == "pnm-twice":
        return pnm_with_hidden_size(gray, rng)
    if fmt == ".jpg-progressive":
        ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_PROGRESSIVE, 1])
    elif fmt in (".pbm", ".pgm"):
        picture = gray if fmt == ".pgm" else np.where(gray > 127, 255, 0).astype(np.uint8)
        ok, data = cv2.imencode(fmt, picture)
    else:
        ok, data = cv2.imencode(fmt, image)
    if not ok:
        raise RuntimeError(f"cannot encode {fmt}")
    return data.tobytes()


def tiff_with_duplicate_size(gray: np.ndarray, rng: random.Random) -> bytes:
    """An uncompressed 8-bit grey TIFF whose directory gives width and height twice."""
    height, width = gray.shape
    pixels = gray.tobytes()
    fake_w, fake_h = rng.choice(ABSURD), rng.choice(ABSURD)
    size = [(256, width), (257, height)]
    fake = [(256, fake_w), (257, fake_h)]
    first, second = (fake, size) if rng.random() < 0.5 else (size, fake)
    entries = [
        *first,
        (258, 8),
        (259, 1),
        (262, 1),
        (273, 0),
        (277, 1),
        (278, height),
        (279, len(pixels)),
        *second,
    ]
    directory_at = 8
    data_at = directory_at + 2 + 12 * len(entries) + 4
    packed = b"".join(
        struct.pack("<HHII", tag, 4, 1, data_at if tag == 273 else value) for tag, value in entries
    )
    return b"II*\x00" + struct.pack("<IH", directory_at, len(entries)) + packed + bytes(4) + pixels


def pnm_with_hidden_size(gray: np.ndarray, rng: random.Random) -> bytes:
    """A PGM whose comment holds a size behind a character some readers take for a line break."""
    height, width = gray.shape
    hidden = rng.choice([b"\x0b", b"\x0c", b"\x1c", b"\x1d", b"\x1e", b"\x85", b" "])
    fake = f"{rng.choice(ABSURD)} {rng.choice(ABSURD)}".encode()
    return b"P5\n#" + hidden + fake + b"\n" + f"{width} {height}\n255\n".encode() + gray.tobytes()


def set_size(data: bytearray, fmt: str, width: int, height: int) -> None:
    """Write an absurd `width` x `height` into the format's size fields, where they are."""
    w16, h16 = width & 0xFFFF, height & 0xFFFF
    if fmt == ".png":
        data[16:24] = struct.pack(">II", width & 0xFFFFFFFF, height & 0xFFFFFFFF)
    elif fmt.startswith(".jpg"):
        at = max(data.find(b"\xff\xc0"), data.find(b"\xff\xc2"))
        if at > 0:
            data[at + 5 : at + 9] = struct.pack(">HH", h16, w16)
    elif fmt == ".bmp":
        data[18:26] = struct.pack("<II", width & 0xFFFFFFFF, height & 0xFFFFFFFF)
    elif fmt == ".gif":
        data[6:10] = struct.pack("<HH", w16, h16)
    elif fmt == ".webp":
        data[26:30] = struct.pack("<HH", w16, h16)
    elif fmt in (".pbm", ".pgm", ".ppm", "pnm-twice"):
        lines = bytes(data).split(b"\n")
        index = next((i for i, line in enumerate(lines[1:], 1) if line[:1].isdigit()), 1)
        lines[index] = f"{width} {height}".encode()
        data[:] = b"\n".join(lines)
    elif fmt == ".pam":
        data[:] = bytes(data).replace(b"WIDTH ", f"WIDTH {width}\nWIDTH ".encode(), 1)
    else:  # TIFF: rewrite every width/height entry of the first directory
        order = "<" if data[:2] == b"II" else ">"
        (offset,) = struct.unpack(order + "I", data[4:8])
        if offset + 2 > len(data):
            return
        (count,) = struct.unpack(order + "H", data[offset : offset + 2])
        for index in range(count):
            at = offset + 2 + 12 * index
            if at + 12 > len(data):
                return
            tag, kind = struct.unpack(order + "HH", data[at : at + 4])
            if tag in (256, 257):
                value = width if tag == 256 else height
                if kind == 3:
                    data[at + 8 : at + 10] = struct.pack(order + "H", value & 0xFFFF)
                else:
                    data[at + 8 : at + 12] = struct.pack(order + "I", value & 0xFFFFFFFF)


def mutate(data: bytes, fmt: str, mutation: str, rng: random.Random) -> bytes:
    """`data` broken the way `mutation` (a MUTATIONS entry) says."""
    out = bytearray(data)
    if mutation == "flip":
        for _ in range(rng.randint(1, 40)):
            at = rng.randrange(len(out))
            out[at] ^= 1 << rng.randrange(8)
    elif mutation == "flip-header":
        for _ in range(rng.randint(1, 6)):
            at = rng.randrange(min(64, len(out)))
            out[at] ^= 1 << rng.randrange(8)
    elif mutation == "truncate":
        out = out[: rng.randrange(len(out))]
    elif mutation == "size":
        set_size(out, fmt, rng.choice(ABSURD), rng.choice(ABSURD))
    elif mutation == "marker":
        markers = [i for i in range(len(out) - 1) if out[i] == 0xFF and out[i + 1] not in (0, 0xFF)]
        for at in rng.sample(markers, min(len(markers), 3)) if markers else []:
            out[at + 1] = rng.randrange(256)
        if fmt == ".png" and len(out) > 40:
            at = 8 + rng.choice([0, 25, 33])
            out[at : at + 4] = struct.pack(">I", rng.choice(ABSURD) & 0xFFFFFFFF)
    elif mutation == "duplicate":
        start = rng.randrange(len(out))
        piece = out[start : start + rng.randint(1, 256)]
        at = rng.randrange(len(out))
        out[at:at] = piece
    elif mutation == "zero":
        start = rng.randrange(len(out))
        out[start : start + rng.randint(1, 64)] = bytes(len(out[start : start + 64]))[:64]
    return bytes(out)


def fuzz_case(seed: int, index: int) -> tuple[str, bytes]:
    """(label, file bytes) of case `index` of the run seeded with `seed`."""
    rng = random.Random(seed * 1_000_003 + index)
    fmt = rng.choice(FORMATS)
    mutation = rng.choice(MUTATIONS)
    image = base_picture(rng)
    data = encode(image, fmt, rng)
    label = f"{index}: {fmt} {image.shape[1]}x{image.shape[0]} {mutation}"
    return label, mutate(data, fmt, mutation, rng)
