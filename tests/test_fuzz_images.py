"""A seeded fuzz of the reader: a few hundred mutated image files of every format OpenCV reads,
through `read_photo` and `solve_photo`. Only the project's own errors may come out: no other
exception, no crash, no hang (each case has a time limit). benchmarks/fuzz.py runs longer."""

from __future__ import annotations

import signal
import sys
from pathlib import Path

import pytest

from sudoku_lens.errors import SudokuLensError
from sudoku_lens.pipeline import solve_photo
from sudoku_lens.read.reader import read_photo

sys.path.insert(0, str(Path(__file__).parent))
from fuzz_cases import fuzz_case  # noqa: E402

SEED = 11
CASES = 300
SECONDS_PER_CASE = 30
"""A case still running after this long counts as a hang."""


class Hang(Exception):
    pass


def _alarm(signum: int, frame: object) -> None:
    raise Hang


@pytest.mark.parametrize("block", range(0, CASES, 50))
def test_mutated_images_give_only_the_projects_own_errors(block: int) -> None:
    previous = signal.signal(signal.SIGALRM, _alarm)
    problems = []
    outcomes = {"read": 0, "error": 0}
    try:
        for index in range(block, block + 50):
            label, data = fuzz_case(SEED, index)
            for step in (read_photo, solve_photo):
                signal.alarm(SECONDS_PER_CASE)
                try:
                    step(data)
                    outcomes["read"] += 1
                except SudokuLensError as exc:
                    outcomes["error"] += 1
                    if "\n" in str(exc) or not str(exc):
                        problems.append(f"{label} {step.__name__}: message {str(exc)!r}")
                except Hang:
                    problems.append(f"{label} {step.__name__}: over {SECONDS_PER_CASE} s")
                except Exception as exc:  # noqa: BLE001 - any other exception is the failure
                    problems.append(f"{label} {step.__name__}: {type(exc).__name__}: {exc}")
                finally:
                    signal.alarm(0)
    finally:
        signal.signal(signal.SIGALRM, previous)
    assert not problems, "\n".join(problems)
    assert outcomes["error"] > 0  # the mutations do break files
