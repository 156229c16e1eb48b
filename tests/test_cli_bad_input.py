"""Bad input at the command line, run as a user runs it (a real process): one line, exit 2, no
traceback, no crash; and photos from standard input, file names that are not UTF-8."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from sudoku_lens.cli import main

EXAMPLE = Path(__file__).parents[1] / "src" / "sudoku_lens" / "examples" / "example.jpg"
EXAMPLE_GRID = "305000070048900000000032010000690250000251000012087000090360000000008740080000305"


def cli(
    *args: str | bytes,
    cwd: Path,
    stdin: int | bytes | None = None,
    stdout: int | None = subprocess.PIPE,
    limit_bytes: int | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """Run `python -m sudoku_lens ARGS` in `cwd`; `stdin` is bytes to feed, a file descriptor,
    or subprocess.DEVNULL; `limit_bytes` caps the process's address space."""

    def limit() -> None:
        if limit_bytes is not None:
            resource.setrlimit(resource.RLIMIT_AS, (limit_bytes, limit_bytes))

    return subprocess.run(
        [sys.executable, "-m", "sudoku_lens", *args],
        cwd=cwd,
        input=stdin if isinstance(stdin, bytes) else None,
        stdin=None if isinstance(stdin, bytes) else stdin,
        stdout=stdout,
        stderr=subprocess.PIPE,
        timeout=120,
        preexec_fn=limit,
        check=False,
    )


def assert_one_line_error(done: subprocess.CompletedProcess[bytes], code: int = 2) -> str:
    """The single error line of a failed run, after checking there is no traceback."""
    err = done.stderr.decode("utf-8", "replace")
    assert done.returncode == code, err
    assert "Traceback" not in err and "WARN" not in err
    assert len(err.splitlines()) == 1, err
    assert err.startswith("sudoku-lens: error: ")
    return err


@pytest.mark.parametrize("size", [(2, 3000), (1, 19999), (16, 20000), (3, 5000)])
@pytest.mark.parametrize("command", ["solve", "read"])
def test_very_narrow_image_is_no_grid_found(tmp_path: Path, size: tuple[int, int], command) -> None:
    width, height = size
    cv2.imwrite(str(tmp_path / "narrow.png"), np.full((height, width, 3), 200, np.uint8))
    err = assert_one_line_error(cli(command, "narrow.png", cwd=tmp_path))
    assert f"the image is {width}x{height} pixels, too small or too narrow" in err


@pytest.mark.parametrize("command", [["solve", "-"], ["read", "-"]])
def test_closed_stdin(tmp_path: Path, command: list[str]) -> None:
    done = subprocess.run(  # the shell closes descriptor 0 before Python starts
        f"{sys.executable} -m sudoku_lens {' '.join(command)} <&-",
        shell=True,
        cwd=tmp_path,
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert "standard input is closed" in assert_one_line_error(done)


@pytest.mark.parametrize(
    "args",
    [[EXAMPLE_GRID], [str(EXAMPLE), "--json"], ["read", str(EXAMPLE)]],
    ids=["puzzle", "photo", "read"],
)
def test_full_stdout_is_one_line_exit_2(tmp_path: Path, args: list[str]) -> None:
    command = args if args[0] == "read" else ["solve", *args]
    with open("/dev/full", "wb") as full:
        done = cli(*command, cwd=tmp_path, stdout=full.fileno())
    assert "No space left on device" in assert_one_line_error(done)


def test_file_of_a_gigabyte_without_an_image_suffix_is_not_read_whole(tmp_path: Path) -> None:
    big = tmp_path / "capture.bin"
    with big.open("wb") as handle:
        handle.truncate(2**30)
    done = cli("solve", "capture.bin", cwd=tmp_path, limit_bytes=600 * 2**20)
    assert "line 1 is longer than 10,000 bytes" in assert_one_line_error(done)


def test_named_pipes_are_refused_without_blocking(tmp_path: Path) -> None:
    for name in ("pipe", "pipe.jpg"):
        os.mkfifo(tmp_path / name)
    assert "pipe is not a regular file" in assert_one_line_error(cli("read", "pipe", cwd=tmp_path))
    assert "pipe.jpg is not a regular file" in assert_one_line_error(
        cli("solve", "pipe.jpg", cwd=tmp_path)
    )
    assert "pipe is not a regular file (a pipe or a device)" in assert_one_line_error(
        cli("solve", "pipe", cwd=tmp_path)
    )


def test_path_with_a_nul_byte(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["read", "photo\0.jpg"]) == 2
    assert main(["solve", "photo\0.jpg"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2 and all("NUL byte" in line for line in err)


def test_photo_piped_on_stdin_is_solved_and_read(tmp_path: Path) -> None:
    photo = EXAMPLE.read_bytes()
    solved = cli("solve", "-", "--json", cwd=tmp_path, stdin=photo)
    assert solved.returncode == 0, solved.stderr
    summary = json.loads(solved.stdout)
    assert summary["read"] == EXAMPLE_GRID and summary["status"] == "solved"
    assert summary["output"] is None
    read = cli("read", "-", "--json", cwd=tmp_path, stdin=photo)
    assert read.returncode == 0, read.stderr
    assert json.loads(read.stdout)["grid"] == EXAMPLE_GRID
    plain = cli("solve", "-", cwd=tmp_path, stdin=photo)
    assert plain.returncode == 0 and b"give -o FILE.png" in plain.stdout
    assert list(tmp_path.iterdir()) == []


def test_garbage_on_stdin_is_one_line(tmp_path: Path) -> None:
    done = cli("read", "-", cwd=tmp_path, stdin=b"\x89PNG\r\n\x1a\n" + bytes(100))
    assert "standard input is a truncated or corrupt PNG file" in assert_one_line_error(done)


def test_json_and_debug_without_o_write_no_picture(tmp_path: Path) -> None:
    (tmp_path / "photo.jpg").write_bytes(EXAMPLE.read_bytes())
    as_json = cli("solve", "photo.jpg", "--json", cwd=tmp_path)
    assert as_json.returncode == 0, as_json.stderr
    summary = json.loads(as_json.stdout)
    assert summary["output"] is None
    assert 0 < summary["min_confidence"] <= 1 and "confidence" not in summary
    debug = cli("solve", "photo.jpg", "--debug", "stages", cwd=tmp_path)
    assert debug.returncode == 0, debug.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["photo.jpg", "stages"]
    plain = cli("solve", "photo.jpg", cwd=tmp_path)
    assert plain.returncode == 0 and (tmp_path / "photo-solved.jpg").is_file()


def test_read_json_names_its_81_confidences(tmp_path: Path) -> None:
    done = cli("read", str(EXAMPLE), "--json", cwd=tmp_path)
    data = json.loads(done.stdout)
    assert len(data["confidences"]) == 81 and "confidence" not in data


def test_file_names_that_are_not_utf8(tmp_path: Path) -> None:
    photo = os.fsencode(tmp_path) + b"/caf\xe9.jpg"
    Path(os.fsdecode(photo)).write_bytes(EXAMPLE.read_bytes())
    default = cli("solve", photo, cwd=tmp_path)
    assert default.returncode == 0, default.stderr
    assert b"caf\xe9-solved.jpg" in default.stdout
    named = cli("solve", photo, "-o", b"r\xe9sultat.png", "--debug", b"\xe9tapes", cwd=tmp_path)
    assert named.returncode == 0, named.stderr
    written = set(os.listdir(os.fsencode(tmp_path)))
    assert {b"caf\xe9-solved.jpg", b"r\xe9sultat.png", b"\xe9tapes"} <= written
    assert len(os.listdir(os.fsencode(tmp_path) + b"/\xe9tapes")) == 5
    hint = cli("hint", photo, "-o", b"indice-\xe9.png", cwd=tmp_path)
    assert hint.returncode == 0, hint.stderr
    assert b"indice-\xe9.png" in os.listdir(os.fsencode(tmp_path))
    missing = cli("read", b"\xff\xfe.jpg", cwd=tmp_path)
    assert "no such file: \\xff\\xfe.jpg" in assert_one_line_error(missing)


def test_train_help_shows_a_plain_percent_sign(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["train", "--help"])
    out = capsys.readouterr().out
    assert "N % 5 == 0" in " ".join(out.split()) and "%%" not in out


def test_live_with_a_still_image_as_video_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "notimg.png").write_bytes(b"x")
    done = cli("live", "--video", "notimg.png", cwd=tmp_path)
    assert "notimg.png is named as a picture but holds no image" in assert_one_line_error(done)
    (tmp_path / "photo.mp4").write_bytes(EXAMPLE.read_bytes())  # a photo, whatever its name
    done = cli("live", "--video", "photo.mp4", cwd=tmp_path)
    assert "photo.mp4 is a still image, not a video" in assert_one_line_error(done)
