"""Do two versions of the code read the same photos the same way? For changes that claim to be
faster or tidier without changing what is read.

`dump` reads every photo of the folders given (each `*.jpg`, `*.png` in them) with the code on
PYTHONPATH and writes each reading (digits, kinds, digit and kind probabilities, corners,
rotation and the 81 cell crops) or its error line to one file; `compare` sets two dumps side by
side and lists every photo whose reading differs, with how they differ. It exits 1 when
any photo differs (probabilities and corners by more than 1e-5, or any digit, kind, rotation or
crop pixel), so it can gate a refactor. `compare --digits` sets only what was read side by side
(digits, kinds, rotation, errors; the cells that differ counted), for a change meant to read the
same digits from pixels that differ, such as a photo decoded reduced:

    python benchmarks/same_readings.py dump c.npz ../shared/data/kubiesa-train/images
    python benchmarks/same_readings.py compare --digits a.npz c.npz

    DATA=../shared/data/wicht-v2-train
    PYTHONPATH=/tmp/old/src python benchmarks/same_readings.py dump a.npz $DATA/printed $DATA/mixed
    python benchmarks/same_readings.py dump b.npz $DATA/printed $DATA/mixed
    python benchmarks/same_readings.py compare a.npz b.npz
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from sudoku_lens.errors import SudokuLensError
from sudoku_lens.read.reader import read_photo

EXACT = ("grid", "kinds", "rotation", "cells")
"""Fields that must be equal to the bit."""
CLOSE = ("probabilities", "kind_probabilities", "corners")
"""Fields that may differ by float rounding: at most TOLERANCE."""
TOLERANCE = 1e-5
READ = ("grid", "kinds", "rotation")
"""What `compare --digits` sets side by side: what was read."""


def dump(out: Path, folders: list[Path]) -> None:
    """Read every photo of `folders` and write the readings to `out` (a NumPy .npz)."""
    photos = sorted(
        photo
        for folder in folders
        for photo in folder.iterdir()
        if photo.suffix.lower() in (".jpg", ".jpeg", ".png")
    )
    if not photos:
        sys.exit(f"no .jpg or .png photos in {', '.join(map(str, folders))}")
    fields: dict[str, np.ndarray] = {}
    start = time.perf_counter()
    for number, photo in enumerate(photos, 1):
        key = f"{photo.parent.name}/{photo.name}"
        try:
            reading = read_photo(photo)
        except SudokuLensError as exc:
            fields[f"{key}:error"] = np.array(str(exc))
        else:
            crops = [np.asarray(cell) for cell in reading.location.cells]
            values = {
                "grid": reading.grid,
                "kinds": reading.kinds,
                "probabilities": reading.probabilities,
                "kind_probabilities": reading.kind_probabilities,
                "corners": np.asarray(reading.corners, np.float64),
                "rotation": np.array(reading.rotation),
                "cells": np.stack(crops) if len({c.shape for c in crops}) == 1 else np.array(0),
            }
            fields.update({f"{key}:{name}": value for name, value in values.items()})
        print(f"\r{number}/{len(photos)} photos read", end="", file=sys.stderr, flush=True)
    np.savez_compressed(out, **fields)
    seconds = time.perf_counter() - start
    print(f"\n{len(photos)} photos read in {seconds:.1f} s, written to {out}", file=sys.stderr)


def _photos(fields: np.lib.npyio.NpzFile) -> dict[str, dict[str, np.ndarray]]:
    """A dump's readings by photo: {photo: {field: value}}."""
    readings: dict[str, dict[str, np.ndarray]] = {}
    for name in fields.files:
        photo, field = name.rsplit(":", 1)
        readings.setdefault(photo, {})[field] = fields[name]
    return readings


def differences(
    first: dict[str, np.ndarray], second: dict[str, np.ndarray], digits: bool = False
) -> list[str]:
    """What differs between two readings of one photo, in words (none: the same); with
    `digits`, only in what was read (READ), each field with the number of cells that differ."""
    if "error" in first or "error" in second:
        same = str(first.get("error")) == str(second.get("error"))
        return [] if same else [f"error {first.get('error')!s} / {second.get('error')!s}"]
    if digits:
        return [
            f"{name} ({int((first[name] != second[name]).sum())} cells)"
            for name in READ
            if not np.array_equal(first[name], second[name])
        ]
    found = [
        name
        for name in EXACT
        if first[name].shape != second[name].shape or not np.array_equal(first[name], second[name])
    ]
    for name in CLOSE:
        gap = float(np.abs(first[name].astype(np.float64) - second[name]).max())
        if gap > TOLERANCE:
            found.append(f"{name} by {gap:.2g}")
    return found


def compare(first_path: Path, second_path: Path, digits: bool = False) -> int:
    """Print every photo whose readings differ between two dumps (with `digits`, in what was
    read: see `differences`); 1 if any does, else 0."""
    first, second = (_photos(np.load(path)) for path in (first_path, second_path))
    if first.keys() != second.keys():
        only = sorted(first.keys() ^ second.keys())
        print(f"the dumps hold different photos: {', '.join(only[:5])}")
        return 1
    differing = 0
    for photo in sorted(first):
        found = differences(first[photo], second[photo], digits)
        if found:
            differing += 1
            print(f"{photo}: {', '.join(found)}")
    print(f"{len(first)} photos, {differing} read differently")
    return 1 if differing else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    dumping = commands.add_parser("dump", help="read the photos of FOLDERs and write OUT")
    dumping.add_argument("out", type=Path, help="the dump to write (.npz)")
    dumping.add_argument("folders", type=Path, nargs="+", help="folders of photos")
    comparing = commands.add_parser("compare", help="list the photos read differently")
    comparing.add_argument(
        "--digits", action="store_true", help="compare only the digits, kinds and rotation read"
    )
    comparing.add_argument("first", type=Path)
    comparing.add_argument("second", type=Path)
    args = parser.parse_args()
    if args.command == "dump":
        dump(args.out, args.folders)
    else:
        sys.exit(compare(args.first, args.second, args.digits))


if __name__ == "__main__":
    main()
