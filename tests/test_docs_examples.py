"""Every example of the README and of the documentation (docs/*.md) runs as printed.

A page's examples run in document order, in a folder of its own that holds what the pages call
their inputs (`photo.jpg`, the bundled example; `filled.jpg`, the hand-filled practice photo of
docs/checking.md; ...), so that a later example may use what an earlier one wrote:

- ```python blocks run as a script (`python example.py`) and must exit 0;
- ```console blocks: each `$ ...` line runs in bash, with this interpreter's `sudoku-lens` first on
  the PATH, and must exit 0, or 2 where the output shown is an error line, or N where its comment
  says `exit code N`; each line of output shown must appear in what it printed (`...` in a line
  stands for any text, a line of `...` alone for lines left out);
- ```bash blocks run as console lines do.

A block may be marked on the line before it with `<!-- example: KIND -->`: `server` blocks run
against a `sudoku-lens serve` the test starts (`localhost:8000` pointed at it); the kinds of
SKIPPED cannot run here, and each such block is reported as a skip with its reason. The README's
`setup` block (install, then solve the example) is run for its solve command; its
`test-command` block is what runs this suite.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import pytest

ROOT = Path(__file__).parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SKIPPED = {
    "install": "installs the package into a new virtual environment, as the test command does "
    "before this suite runs",
    "test-command": "the README's test command, which runs this suite (.ci/run runs it)",
    "needs-data": "needs the labelled photos of the Wicht/Hennebert set, which are not shipped",
    "camera": "needs a camera and a display",
    "cluster": "needs a Dask scheduler and workers on other machines",
    "serves": "serves until stopped: the page's other examples run against a server the test "
    "starts",
}
RUN = {None, "server", "setup"}
BLOCK = re.compile(
    r"^(?:<!-- (?:example: (?P<kind>[a-z-]+)|(?P<test>test-command)) -->\n)?"
    r"```(?P<language>console|bash|python)\n(?P<body>.*?)^```$",
    re.MULTILINE | re.DOTALL,
)
COMMENT = re.compile(r"\s{2,}# (?P<comment>.*)$")
EXIT_CODE = re.compile(r"exit code (\d+)")
TIMEOUT_S = 300
PUZZLES = """\
# two puzzles and a mistyped one
4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......
52...6.........7.13...........4..8..6......5...........418.........3..2...87.....
110000000000000000000000000000000000000000000000000000000000000000000000000000000
"""
"""puzzles.txt, as docs/solving.md shows it (`cat puzzles.txt` there checks that it is)."""


class Example(NamedTuple):
    """One fenced block of a page: its language, its mark (None when unmarked) and its text."""

    page: Path
    line: int
    language: str
    kind: str | None
    body: str

    @property
    def name(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def examples(page: Path) -> list[Example]:
    """The console, bash and Python blocks of `page`, in order."""
    text = page.read_text()
    return [
        Example(
            page,
            text.count("\n", 0, match.start("language")) + 1,
            match["language"],
            match["kind"] or match["test"],
            match["body"],
        )
        for match in BLOCK.finditer(text)
    ]


ALL = [example for page in PAGES for example in examples(page)]


def test_every_block_is_found_and_every_mark_is_known() -> None:
    """No fenced block of another language hides an example, and no mark is unknown."""
    for page in PAGES:
        fences = re.findall(r"^```(\w*)$", page.read_text(), flags=re.MULTILINE)
        opened = [language for language in fences[::2]]
        assert set(opened) <= {"console", "bash", "python"}, (page, opened)
        assert len(opened) == len(examples(page)), page
    assert {example.kind for example in ALL} <= RUN | set(SKIPPED)
    assert sum(example.kind == "setup" for example in ALL) == 1
    assert sum(example.kind == "test-command" for example in ALL) == 1


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The files the pages call their inputs, made once."""
    import cv2
    import numpy as np

    from sudoku_lens.synth import EXAMPLE_PATH, synth_video
    from sudoku_lens.synth.handwriting import synth_filled_photo

    folder = tmp_path_factory.mktemp("inputs")
    shutil.copy(EXAMPLE_PATH, folder / "photo.jpg")
    (folder / "src/sudoku_lens/examples").mkdir(parents=True)
    shutil.copy(EXAMPLE_PATH, folder / "src/sudoku_lens/examples/example.jpg")
    practice = synth_filled_photo(3, "easy", mistakes=3, pen="ballpoint-blue", rotation=0)
    cv2.imwrite(str(folder / "filled.jpg"), practice.photo.image)
    (folder / "scans").mkdir()
    shutil.copy(EXAMPLE_PATH, folder / "scans/example.jpg")
    shutil.copy(folder / "filled.jpg", folder / "scans/filled.jpg")
    synth_video(5, schedule=((0, 45),), size=(640, 480), fps=15.0).write(folder / "page.mp4")
    (folder / "puzzles.txt").write_text(PUZZLES)
    (folder / "notes.txt").write_text("Remember to buy milk, and to finish the crossword.\n")
    cv2.imwrite(str(folder / "blank.png"), np.full((600, 800, 3), 255, np.uint8))
    return folder


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    """`sudoku-lens serve` on a free port of this machine: its address."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    process = subprocess.Popen(
        [*command_line("sudoku-lens"), "serve", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    address = f"127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                break
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                pytest.fail("the web server did not start")
            time.sleep(0.2)
    yield address
    process.terminate()
    process.wait(timeout=30)


def command_line(program: str) -> list[str]:
    """How to run the installed `program` with this interpreter's environment."""
    return [str(Path(sys.executable).parent / program)]


def environment() -> dict[str, str]:
    """The environment of an example: this interpreter's scripts first on the PATH."""
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    return {**os.environ, "PATH": path, "COLUMNS": "100"}


def expected_code(comment: str | None, shown: list[str]) -> int:
    """The exit code a console line should end with (see the module's docstring)."""
    if comment and (said := EXIT_CODE.search(comment)):
        return int(said[1])
    return 2 if any(line.startswith("sudoku-lens: error:") for line in shown) else 0


def shown_pattern(line: str) -> re.Pattern[str]:
    """A line of output shown, `...` standing for any text."""
    return re.compile(".*".join(re.escape(part) for part in line.strip().split("...")))


def check_output(example: Example, command: str, printed: str, shown: list[str]) -> None:
    """Every line shown (but a line of `...` alone) is a line of what was printed."""
    lines = [line.strip() for line in printed.splitlines()]
    for line in shown:
        if line.strip() in ("", "..."):
            continue
        pattern = shown_pattern(line)
        assert any(pattern.fullmatch(actual) for actual in lines), (
            f"{example.name}: `{command}` did not print {line!r}; it printed:\n{printed}"
        )


def run_console(example: Example, folder: Path, address: str | None) -> None:
    """Run each `$` line of a console (or bash) block, checking its code and output."""
    steps: list[tuple[str, list[str]]] = []
    for line in example.body.splitlines():
        if line.startswith("$ "):
            steps.append((line[2:], []))
        elif example.language == "bash":
            steps.append((line, []))
        else:
            steps[-1][1].append(line)
    for written, shown in steps:
        found = COMMENT.search(written)
        command = written[: found.start()] if found else written
        if address is not None:
            command = command.replace("localhost:8000", address)
        done = subprocess.run(
            ["bash", "-c", command],
            cwd=folder,
            env=environment(),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=TIMEOUT_S,
            check=False,
        )
        code = expected_code(found and found["comment"], shown)
        assert done.returncode == code, (
            f"{example.name}: `{command}` exited {done.returncode}, not {code}:\n{done.stdout}"
        )
        check_output(example, command, done.stdout, shown)


def run_python(example: Example, folder: Path, address: str | None) -> None:
    """Run a Python block as a script in `folder`."""
    code = example.body
    if address is not None:
        code = code.replace("localhost:8000", address)
    script = folder / f"example_{example.line}.py"
    script.write_text(code)
    done = subprocess.run(
        [sys.executable, script.name],
        cwd=folder,
        env=environment(),
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        check=False,
    )
    assert done.returncode == 0, f"{example.name} failed:\n{done.stdout}\n{done.stderr}"


def run_setup(example: Example, folder: Path) -> None:
    """The README's set-up line: a virtual environment, an install, then the solve command,
    which runs here with the package under test."""
    steps = example.body.strip().split(" && ")
    assert steps[:2] == ["python3 -m venv .venv", ".venv/bin/pip install ."], steps
    solve = steps[2].removeprefix(".venv/bin/")
    assert solve == "sudoku-lens solve src/sudoku_lens/examples/example.jpg -o solved.png"
    run_console(example._replace(body=f"$ {solve}\n"), folder, None)
    assert (folder / "solved.png").stat().st_size > 10_000


RUNNABLE = [page for page in PAGES if any(example.kind in RUN for example in examples(page))]


@pytest.mark.parametrize("page", RUNNABLE, ids=[str(page.relative_to(ROOT)) for page in RUNNABLE])
def test_the_examples_of_a_page_run_as_printed(
    page: Path, inputs: Path, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    runnable = [example for example in examples(page) if example.kind in RUN]
    folder = tmp_path / "work"
    shutil.copytree(inputs, folder)
    for example in runnable:
        address = request.getfixturevalue("server") if example.kind == "server" else None
        if example.kind == "setup":
            run_setup(example, folder)
        elif example.language == "python":
            run_python(example, folder, address)
        else:
            run_console(example, folder, address)


SKIPS = [example for example in ALL if example.kind in SKIPPED]


@pytest.mark.parametrize("example", SKIPS, ids=[example.name for example in SKIPS])
def test_an_example_that_cannot_run_here_says_why(example: Example) -> None:
    pytest.skip(f"{example.name}: {SKIPPED[example.kind]}")


def test_the_puzzle_file_the_pages_use_is_the_one_shown() -> None:
    assert PUZZLES.strip() in (ROOT / "docs" / "solving.md").read_text()
