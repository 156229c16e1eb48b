"""`sudoku-lens solve` on puzzle text: output, messages and exit codes."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sudoku_lens.cli import main

INKALA = "800000000003600000070090200050007000000045700000100030001000068008500010090000400"
SOLUTION = "812753649943682175675491283154237896369845721287169534521974368438526917796318452"
EASY = "003020600900305001001806400008102900700000008006708200002609500800203009005010300"
EASY_SOLUTION = "483921657967345821251876493548132976729564138136798245372689514814253769695417382"
SEVERAL = "0" * 9 + INKALA[9:]
NONE = "12345678" + "0" * 17 + "9" + "0" * 55
ILLEGAL = "11" + "0" * 79


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["solve", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_one_puzzle_prints_the_boxed_solution_and_its_line(capsys) -> None:
    code, out, err = run([INKALA], capsys)
    assert code == 0 and err == ""
    rows = out.splitlines()
    assert rows[0] == "+-------+-------+-------+"
    assert rows[1] == "| 8 1 2 | 7 5 3 | 6 4 9 |"
    assert rows[-1] == SOLUTION


def test_one_puzzle_as_json(capsys) -> None:
    code, out, _ = run([INKALA.replace("0", "."), "--json"], capsys)
    record = json.loads(out)
    assert code == 0
    assert set(record) == {"puzzle", "status", "solution", "guesses", "seconds"}
    assert record["puzzle"] == INKALA and record["solution"] == SOLUTION
    assert record["status"] == "solved" and record["guesses"] > 0 and record["seconds"] >= 0


@pytest.mark.parametrize(
    ("puzzle", "verdict", "status"),
    [(SEVERAL, "several solutions", "several solutions"), (NONE, "no solution", "no solution")],
)
def test_unsolvable_and_ambiguous_puzzles_say_so_and_exit_1(
    capsys, puzzle: str, verdict: str, status: str
) -> None:
    code, out, _ = run([puzzle], capsys)
    assert code == 1
    assert out.splitlines()[-1].startswith(verdict + ":")
    code, out, _ = run([puzzle, "--json"], capsys)
    assert code == 1
    assert json.loads(out) | {"guesses": 0, "seconds": 0} == {
        "puzzle": puzzle,
        "status": status,
        "solution": None,
        "guesses": 0,
        "seconds": 0,
    }


@pytest.mark.parametrize(
    ("puzzle", "message"),
    [
        (ILLEGAL, "not a legal puzzle: 1 appears twice in row 1: r1c1 and r1c2"),
        (INKALA[:80], "a puzzle has 81 cells, this one has 80"),
        (INKALA[:40] + "x" + INKALA[41:], "bad character 'x' at r5c5 (character 41)"),
        ("missing.txt", "no such file: missing.txt (and it is not an 81-character puzzle)"),
        ("", "no puzzle given: give an 81-character line, a file, or -"),
    ],
)
def test_bad_input_is_one_error_line_and_exit_2(capsys, puzzle: str, message: str) -> None:
    code, out, err = run([puzzle], capsys)
    assert code == 2 and out == ""
    assert err.startswith(f"sudoku-lens: error: {message}")
    assert len(err.splitlines()) == 1


def test_files_that_hold_no_puzzle_text(capsys, tmp_path: Path) -> None:
    binary = tmp_path / "data.bin"
    binary.write_bytes(b"\x00\x01\x02 not text \x00")
    empty = tmp_path / "empty.txt"
    empty.write_text("# nothing here\n\n")
    for source, message in [
        (binary, "is not a text file of puzzles"),
        (tmp_path, "is a folder, not a file"),
        (empty, "no puzzle found in"),
    ]:
        code, _, err = run([str(source)], capsys)
        assert code == 2 and message in err


def test_a_photo_is_recognised_by_its_content(capsys, tmp_path: Path) -> None:
    photo = tmp_path / "photo.bin"
    photo.write_bytes(b"\xff\xd8\xff\xe0\x00\x10JFIF\x00")
    code, out, err = run([str(photo)], capsys)
    assert code == 2 and out == ""
    assert err == f"sudoku-lens: error: {photo} is a truncated or corrupt JPEG file\n"


def test_a_grid_file_and_stdin(capsys, tmp_path: Path, monkeypatch) -> None:
    grid = "\n".join(" ".join(EASY[9 * r : 9 * r + 9]) for r in range(9)) + "\n"
    path = tmp_path / "grid.txt"
    path.write_text(f"# a newspaper puzzle\n{grid}")
    code, out, _ = run([str(path)], capsys)
    assert code == 0 and out.splitlines()[-1] == EASY_SOLUTION
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(EASY.encode() + b"\n")))
    code, out, _ = run(["-"], capsys)
    assert code == 0 and out.splitlines()[-1] == EASY_SOLUTION


def batch_file(tmp_path: Path) -> Path:
    path = tmp_path / "puzzles.txt"
    path.write_text(f"# a batch\n{INKALA}\n\n{SEVERAL}\n{ILLEGAL}\n12345\n{NONE}\n{EASY}\n")
    return path


def test_a_batch_writes_one_line_per_puzzle_in_order(capsys, tmp_path: Path) -> None:
    out_path = tmp_path / "solutions.txt"
    code, out, err = run([str(batch_file(tmp_path)), "-o", str(out_path)], capsys)
    assert code == 2 and out == ""  # an illegal puzzle among them, as alone
    assert out_path.read_text().splitlines() == [
        SOLUTION,
        "error: several solutions",
        "error: not a legal puzzle: 1 appears twice in row 1: r1c1 and r1c2",
        "error: a puzzle has 81 cells, this one has 5",
        "error: no solution",
        EASY_SOLUTION,
    ]
    assert err.startswith(
        "6 puzzles: 2 solved, 1 no solution, 1 several solutions, 2 unreadable or illegal;"
    )
    assert err.rstrip().endswith("puzzles/s")


def test_a_batch_without_output_prints_and_as_json(capsys, tmp_path: Path) -> None:
    code, out, _ = run([str(batch_file(tmp_path))], capsys)
    assert code == 2 and out.splitlines()[0] == SOLUTION and len(out.splitlines()) == 6
    code, out, _ = run([str(batch_file(tmp_path)), "--json"], capsys)
    records = [json.loads(row) for row in out.splitlines()]
    assert [record["status"] for record in records] == [
        "solved",
        "several solutions",
        "error",
        "error",
        "no solution",
        "solved",
    ]
    assert records[3]["puzzle"] == "12345" and records[3]["solution"] is None
    assert records[3]["error"] == "a puzzle has 81 cells, this one has 5"
    assert records[5]["solution"] == EASY_SOLUTION


def test_a_clean_batch_exits_0_and_jobs_keep_the_order(capsys, tmp_path: Path) -> None:
    path = tmp_path / "many.txt"
    path.write_text("\n".join([INKALA, EASY] * 2500) + "\n")
    outputs = []
    for jobs in ("1", "2"):
        out_path = tmp_path / f"out{jobs}.txt"
        code, _, err = run([str(path), "-o", str(out_path), "--jobs", jobs], capsys)
        assert code == 0 and err.startswith("5000 puzzles: 5000 solved")
        outputs.append(out_path.read_text())
    assert outputs[0] == outputs[1] == "\n".join([SOLUTION, EASY_SOLUTION] * 2500) + "\n"


def test_one_puzzle_with_output_is_a_batch_of_one(capsys, tmp_path: Path) -> None:
    out_path = tmp_path / "one.txt"
    assert run([EASY, "-o", str(out_path)], capsys)[0] == 0
    assert out_path.read_text() == EASY_SOLUTION + "\n"
    code, _, err = run([EASY, "-o", str(tmp_path / "missing" / "x.txt")], capsys)
    assert code == 2 and "cannot write" in err


def test_jobs_must_be_positive(capsys) -> None:
    assert main(["solve", EASY, "--jobs", "0"]) == 2
    assert "expected a number of processes of 1 or more, got 0" in capsys.readouterr().err


def console_script() -> list[str]:
    script = Path(sys.executable).with_name("sudoku-lens")
    return [str(script)] if script.exists() else [sys.executable, "-m", "sudoku_lens"]


@pytest.mark.parametrize(("puzzle", "code"), [(INKALA, 0), (SEVERAL, 1), (ILLEGAL, 2)])
def test_the_console_script_exit_codes(puzzle: str, code: int) -> None:
    done = subprocess.run(
        [*console_script(), "solve", puzzle], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == code
    if code == 2:
        assert done.stderr.startswith("sudoku-lens: error: not a legal puzzle")
        assert "Traceback" not in done.stderr


def test_a_batch_as_json_has_the_same_shape_as_one_puzzle(capsys, tmp_path: Path) -> None:
    out_path = tmp_path / "solutions.jsonl"
    code, _, _ = run([str(batch_file(tmp_path)), "--json", "-o", str(out_path)], capsys)
    records = [json.loads(row) for row in out_path.read_text().splitlines()]
    assert code == 2 and len(records) == 6
    for record in records:
        assert {"puzzle", "status", "solution", "guesses", "seconds"} <= set(record)
    assert records[0] == records[0] | {"puzzle": INKALA, "status": "solved", "solution": SOLUTION}
    assert records[4]["status"] == "no solution" and records[4]["solution"] is None


@pytest.mark.parametrize("terminal", [True, False])
def test_the_progress_bar_shows_on_a_terminal_only(
    capsys, tmp_path: Path, monkeypatch, terminal: bool
) -> None:
    path = tmp_path / "many.txt"
    path.write_text("\n".join([INKALA, EASY] * 3000) + "\n")
    monkeypatch.setattr(sys.stderr, "isatty", lambda: terminal)
    code, _, err = run([str(path), "-o", str(tmp_path / "out.txt")], capsys)
    assert code == 0 and err.rstrip().endswith("puzzles/s")
    assert ("6000/6000" in err) is terminal


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_a_named_pipe_is_refused_without_waiting_on_it(capsys, tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    code, _, err = run([str(fifo)], capsys)
    assert (
        code == 2
        and err == f"sudoku-lens: error: {fifo} is not a regular file (a pipe or a device)\n"
    )


def test_check_applies_to_photos_only(capsys) -> None:
    code, out, err = run([EASY, "--check"], capsys)
    assert code == 2 and out == ""
    assert err.startswith("sudoku-lens: error: --check applies to photos only")


def test_jobs_applies_to_puzzle_files_only(capsys, tmp_path: Path) -> None:
    """It was ignored on a photo, where --check and --debug on puzzle text are refused."""
    from sudoku_lens.synth import EXAMPLE_PATH

    for jobs in ("2", "1"):
        code, out, err = run(
            [str(EXAMPLE_PATH), "--jobs", jobs, "-o", str(tmp_path / "a.png")], capsys
        )
        assert code == 2 and out == "" and not (tmp_path / "a.png").exists()
        assert err == (
            "sudoku-lens: error: --jobs applies to puzzle files only: a photo is read in one "
            "process (sudoku-lens batch reads many photos on every core)\n"
        )
