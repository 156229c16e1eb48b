"""One rule for failures across the subcommands: one line on stderr, exit 2 for bad input (a bad
argument too), never a traceback; with --json also `{"error": "..."}` on stdout, the same
message; a run over many items exits with its worst item's code (2 bad input, 1 no unique
solution, 0 all solved), as the same items alone would."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from sudoku_lens.cli import main

EXAMPLE = Path(__file__).parents[1] / "src" / "sudoku_lens" / "examples" / "example.jpg"
EASY = "530070000600195000098000060800060003400803001700020006060000280000419005000080079"
SEVERAL = "0" * 9 + EASY[9:]
ILLEGAL = "11" + "0" * 79
SHORT = "123"

# Each subcommand's failures, with --json where the subcommand has it: (argv, part of the line).
FAILURES = [
    (["solve", SHORT, "--json"], "81 cells"),
    (["solve", "missing.jpg", "--json"], "no such file"),
    (["solve", ILLEGAL, "--json"], "not a legal puzzle"),
    (["solve", EASY, "--jobs", "0", "--json"], "argument --jobs"),
    (["rate", EASY, "--jobs", "1000000", "--json"], "expected at most"),
    (["solve", EASY, "-o", "one.png"], "not a picture: name it .txt"),
    (["rate", EASY, "-o", "ratings.jpg", "--json"], "not a picture: name it .txt"),
    (["batch", EASY, "-o", "out.jsonl", "--jobs", "1000000"], "expected at most"),
    (["read", "not-an-image.jpg", "--json"], "not an image"),
    (["read", "--json"], "the following arguments are required: PHOTO"),
    (["hint", SHORT, "--json"], "81 cells"),
    (["hint", EASY, "--technique", "no-such", "--json"], "unknown technique"),
    (["explain", SEVERAL, "--json"], "several solutions"),
    (["explain", EASY, "--json", "--bogus"], "--bogus (see sudoku-lens explain --help)"),
    (["hint", EASY, "--technique", "swordfsh"], "did you mean swordfish or"),
    (["rate", SHORT, "--json"], "81 cells"),
    (["rate", "missing.txt", "--json"], "no such file"),
    (["eval", "nowhere", "--json"], "no such folder or file"),
    (["eval", ".", "--limit", "0", "--json"], "argument --limit"),
    (["live", "--video", "missing.mp4", "--json"], "video not found"),
    (["live", "--json"], "one of the arguments --camera --video is required"),
    (["batch", "nothing-here", "-o", "results.jsonl"], "no such file or folder"),
    (["batch", EASY, "-o", "results.txt"], "cannot tell the format"),
    (["serve", "--port", "99999"], "a port is 0-65535"),
    (["serve", "--port", "eighty"], "expected a number"),
    (["serve", "--cert", "own.pem"], "--cert needs --key"),
    (["serve", "--cert", "missing.pem", "--key", "missing.key"], "no such certificate file"),
    (["train", "--data", "nowhere", "--out", "m.onnx"], "no such folder"),
    (["train", "--data", ".", "--out", "m.onnx", "--seed", "-1"], "--seed"),
    (["train", "--data", "."], "the following arguments are required: --out"),
    (["no-such-command"], "unknown command 'no-such-command': choose from solve, read, hint,"),
    (["slove", "x", "--json"], "unknown command 'slove': did you mean solve?"),
]


OUTPUTS = [
    (["solve", str(EXAMPLE)], "solved.png"),
    (["hint", str(EXAMPLE)], "solved.png"),
    (["hint", EASY], "solved.png"),
    (["live", "--video", "page.mp4"], "out.mp4"),
    (["solve", EASY], "solutions.txt"),
    (["rate", EASY], "ratings.txt"),
    (["batch", "bank.txt"], "results.jsonl"),
]


@pytest.mark.parametrize(
    ("argv", "example"),
    OUTPUTS,
    ids=["solve photo", "hint photo", "hint puzzle", "live", "solve text", "rate", "batch"],
)
def test_an_output_in_a_missing_folder_or_on_a_folder_is_said_alike_by_every_command(
    argv: list[str], example: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """solve said 'no directory /nonexist' where live said 'folder ... does not exist', and
    'name it .png ...' for a folder where live said 'it is a folder'; text outputs and batch
    results gave the system's 'No such file or directory' and 'Is a directory'."""
    (tmp_path / "page.mp4").write_bytes(b"not read: the output is checked first")
    (tmp_path / "bank.txt").write_text(f"{EASY}\n")
    suffix = Path(example).suffix
    for output, why in (
        (tmp_path / "missing" / f"out{suffix}", f"folder {tmp_path / 'missing'} does not exist"),
        (tmp_path, f"it is a folder; give a file name like {example}"),
    ):
        words = [str(tmp_path / w) if w in ("page.mp4", "bank.txt") else w for w in argv]
        assert main([*words, "-o", str(output)]) == 2
        assert capsys.readouterr().err == f"sudoku-lens: error: cannot write {output}: {why}\n"


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "not-an-image.jpg").write_bytes(b"not a picture")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize(
    ("argv", "part"), FAILURES, ids=[" ".join(argv)[:40] for argv, _ in FAILURES]
)
def test_a_failure_is_one_line_exit_2_and_json_with_json(
    argv: list[str], part: str, folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 2, err
    assert err.startswith("sudoku-lens: error: ") and err.count("\n") == 1, err
    assert part in err
    message = err.removeprefix("sudoku-lens: error: ").rstrip("\n")
    if "--json" in argv:
        assert json.loads(out) == {"error": message}
    else:
        assert out == ""
    without = [word for word in argv if word != "--json"]
    if without != argv and "--json" not in " ".join(without):
        code = main(without)
        out, err = capsys.readouterr()
        assert code == 2 and out == "" and err.count("\n") == 1


@pytest.mark.parametrize(
    ("argv", "part"),
    [(["serve", "--port", "99999"], "a port is 0-65535"), (["solve"], "PUZZLE")],
)
def test_a_real_process_prints_no_traceback(argv: list[str], part: str, tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "sudoku_lens", *argv],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2
    assert "Traceback" not in done.stderr and "usage:" not in done.stderr
    assert done.stderr.count("\n") == 1 and part in done.stderr


@pytest.mark.parametrize(
    ("lines", "code"),
    [
        ([EASY], 0),
        ([SEVERAL], 1),
        ([ILLEGAL], 2),
        ([EASY, EASY], 0),
        ([EASY, SEVERAL], 1),
        ([EASY, SEVERAL, ILLEGAL], 2),
        ([EASY, "not a puzzle"], 2),
    ],
)
@pytest.mark.parametrize("command", ["solve", "rate", "batch"])
def test_many_puzzles_exit_with_the_worst_code_one_alone_would(
    command: str, lines: list[str], code: int, folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if command == "rate" and code == 1:
        code = 2  # rate refuses a puzzle without a unique solution as bad input, alone too
    bank = folder / "bank.txt"
    bank.write_text("\n".join(lines) + "\n")
    if command == "batch":
        argv = ["batch", str(bank), "-o", str(folder / "results.jsonl"), "--jobs", "1"]
    else:
        argv = [command, str(bank)]
    assert main(argv) == code
    if len(lines) == 1 and command != "batch":
        assert main([command, lines[0]]) == code  # the puzzle alone, not as a file
    capsys.readouterr()


def test_with_json_a_puzzle_without_a_unique_solution_is_an_answer_not_an_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["solve", SEVERAL, "--json"]) == 1
    out, err = capsys.readouterr()
    assert json.loads(out)["status"] == "several solutions" and "error" not in json.loads(out)
    assert main(["solve", str(EXAMPLE), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["status"] == "solved"


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    from sudoku_lens import __version__

    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0 and capsys.readouterr().out == f"sudoku-lens {__version__}\n"


@pytest.mark.parametrize("command", ["solve", "rate", "hint", "explain"])
def test_empty_standard_input_is_named_the_same_by_every_command(
    command: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import io

    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"# nothing\n\n")))
    assert main([command, "-"]) == 2
    assert capsys.readouterr().err == "sudoku-lens: error: no puzzle found in standard input\n"


@pytest.mark.parametrize(
    ("word", "nearest"),
    [("slove", "solve"), ("raed", "read"), ("hnit", "hint"), ("serv", "serve"), ("rates", "rate")],
)
def test_a_misspelt_command_is_answered_with_the_nearest_one(
    word: str, nearest: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([word, "x"]) == 2
    assert capsys.readouterr().err == (
        f"sudoku-lens: error: unknown command {word!r}: did you mean {nearest}? "
        "(see sudoku-lens --help)\n"
    )


PROSE = "Dear diary,\nToday I went shopping and bought 3 apples and 12 eggs.\n"


@pytest.mark.parametrize("command", ["solve", "rate", "hint", "explain"])
def test_a_text_file_that_is_no_puzzle_is_named_as_neither(
    command: str, folder: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Prose is said to be neither a photo nor puzzle text, naming the file (or standard
    input), in one line, rather than one bad-character error per line of it."""
    import io

    (folder / "notes.txt").write_text(PROSE)
    assert main([command, "notes.txt"]) == 2
    assert capsys.readouterr().err == (
        "sudoku-lens: error: notes.txt is neither a photo nor puzzle text (a puzzle is 81 "
        "cells, 1-9 and 0 or . for empty, in one line or 9 rows)\n"
    )
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(PROSE.encode())))
    assert main([command, "-"]) == 2
    assert "error: standard input is neither a photo nor puzzle text" in capsys.readouterr().err


def test_a_file_of_mistyped_puzzles_still_names_each_bad_character(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (folder / "typo.txt").write_text(EASY[:80] + "x\n" + EASY[:40] + "y" + EASY[41:] + "\n")
    assert main(["solve", "typo.txt"]) == 2
    out = capsys.readouterr().out
    assert "bad character 'x' at r9c9" in out and "bad character 'y' at r5c5" in out
