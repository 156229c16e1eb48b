"""`sudoku-lens hint`, `explain` and `rate`: the right step, the right JSON, the exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sudoku_lens.cli import main
from sudoku_lens.logic import CandidateGrid, technique
from sudoku_lens.logic import rating as logic_rating
from sudoku_lens.logic import solver as logic_solver

EXAMPLE = Path(__file__).parents[1] / "src" / "sudoku_lens" / "examples" / "example.jpg"
EASY = "530070000600195000098000060800060003400803001700020006060000280000419005000080079"
SOLUTION = "534678912672195348198342567859761423426853791713924856961537284287419635345286179"
DIABOLICAL = "095008006030002000480000000073900050000304000060001790000000075000400020900200830"
SEVERAL = "0" * 9 + EASY[9:]
STEP_KEYS = {"technique", "placements", "eliminations", "cells", "explanation"}


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def singles_only(monkeypatch):
    singles = tuple(technique(name) for name in ("full-house", "hidden-single", "naked-single"))
    monkeypatch.setattr(logic_solver, "techniques", lambda: singles)
    monkeypatch.setattr(logic_rating, "rating_techniques", lambda: singles)
    monkeypatch.setattr(logic_rating, "DIRECT_RATINGS", {})


def test_hint_says_the_easiest_step(capsys) -> None:
    code, out, err = run(["hint", EASY], capsys)
    assert code == 0 and err == ""
    assert out == "hidden-single: r1c6 is the only place for an 8 in box 2.\n"


def test_hint_json_is_the_step(capsys) -> None:
    code, out, _ = run(["hint", EASY.replace("0", "."), "--json"], capsys)
    step = json.loads(out)
    assert code == 0 and set(step) >= STEP_KEYS
    assert step["technique"] == "hidden-single"
    assert step["placements"] == ["r1c6=8"] and step["eliminations"] == []
    assert step["cells"] == ["r1c6"] and step["units"] == ["box 2"]
    assert step["explanation"] == "r1c6 is the only place for an 8 in box 2."


def test_hint_all_and_technique(capsys) -> None:
    code, out, _ = run(["hint", EASY, "--all", "--json"], capsys)
    steps = json.loads(out)
    assert code == 0 and len(steps) > 10 and all(set(s) >= STEP_KEYS for s in steps)
    for step in steps:  # every listed placement is right
        for placement in step["placements"]:
            cell, digit = placement.split("=")
            row, col = int(cell[1]) - 1, int(cell[3]) - 1
            assert SOLUTION[row * 9 + col] == digit
    code, out, _ = run(["hint", EASY, "--technique", "naked-single", "--json"], capsys)
    assert code == 0 and json.loads(out)["technique"] == "naked-single"
    code, again, _ = run(["hint", EASY, "--technique", "Naked Single", "--json"], capsys)
    assert code == 0 and again == out  # names as people write them
    code, out, _ = run(["hint", EASY, "--technique", "naked-single", "--all"], capsys)
    assert (
        code == 0
        and out.splitlines()
        and all(line.startswith("naked-single: ") for line in out.splitlines())
    )


def test_nothing_found_is_an_answer(capsys) -> None:
    assert run(["hint", SOLUTION, "--json"], capsys)[:2] == (0, '{"technique": null}\n')
    assert run(["hint", SOLUTION, "--json", "--all"], capsys)[:2] == (0, "[]\n")
    code, out, _ = run(["hint", SOLUTION], capsys)
    assert code == 0 and out.startswith("no step found")


def test_hint_on_pencil_marks_from_a_file_and_stdin(capsys, tmp_path, monkeypatch) -> None:
    grid = CandidateGrid.from_puzzle(EASY)
    grid.eliminate(2, 1)  # r1c3 keeps 2 and 4: a state the digits alone do not give
    path = tmp_path / "state.txt"
    path.write_text("# a state\n" + grid.pencilmarks() + "\n")
    code, out, _ = run(["hint", str(path), "--all", "--json"], capsys)
    assert code == 0
    assert not any("r1c3=1" in s["placements"] for s in json.loads(out))
    import io

    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO((EASY + "\n").encode())))
    assert run(["hint", "-"], capsys)[1].startswith("hidden-single: r1c6")


@pytest.mark.parametrize("command", ["solve", "rate"])
def test_solve_and_rate_refuse_a_pencil_mark_grid_in_one_line(capsys, tmp_path, command) -> None:
    """A pencil-mark grid given to solve or rate is named as one, in one line, pointing to the
    commands that take it (each of its rows was reported as a puzzle of too few cells)."""
    path = tmp_path / "state.txt"
    path.write_text(CandidateGrid.from_puzzle(EASY).pencilmarks() + "\n")
    code, out, err = run([command, str(path)], capsys)
    assert code == 2 and out == ""
    assert err.splitlines() == [
        f"sudoku-lens: error: {path} is a pencil-mark grid: explain (which rates it too) and hint "
        "take one; solve and rate take puzzles of 81 cells"
    ]


@pytest.mark.parametrize("command", ["explain", "rate"])
def test_explain_and_rate_name_a_photo_as_one(capsys, tmp_path, monkeypatch, command) -> None:
    """A photo given to a command that takes puzzle text, whole or cut short, is named as a
    picture, pointing to the commands that read photos (it was 'not a text file of puzzles
    (line 1)')."""
    import io

    photo = tmp_path / "page.jpg"
    photo.write_bytes(EXAMPLE.read_bytes())
    cut = tmp_path / "cut.jpg"
    cut.write_bytes(EXAMPLE.read_bytes()[:2000])
    for source in (photo, cut):
        code, out, err = run([command, str(source)], capsys)
        assert code == 2 and out == ""
        assert err == (
            f"sudoku-lens: error: {source} holds a picture, not puzzle text (solve and hint "
            "read photos)\n"
        )
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(EXAMPLE.read_bytes())))
    assert run([command, "-"], capsys)[2] == (
        "sudoku-lens: error: standard input holds a picture, not puzzle text (solve and hint "
        "read photos)\n"
    )


def test_hint_on_a_photo_from_stdin_and_as_json_writes_no_picture(
    capsys, tmp_path, monkeypatch
) -> None:
    import io

    monkeypatch.chdir(tmp_path)
    code, out, _ = run(["hint", str(EXAMPLE), "--json"], capsys)
    step = json.loads(out)
    assert code == 0 and step["placements"] == ["r2c1=1"]
    assert step["wrong_entries"] == [] and step["unsure_entries"] == []
    stdin = io.TextIOWrapper(io.BytesIO(EXAMPLE.read_bytes()))
    monkeypatch.setattr("sys.stdin", stdin)
    code, out, _ = run(["hint", "-"], capsys)
    assert code == 0 and out == "hidden-single: r2c1 is the only place for a 1 in box 1.\n"
    assert list(tmp_path.iterdir()) == []  # neither wrote a picture: only -o does then


def test_hint_names_a_bad_photo_on_stdin_standard_input(capsys, monkeypatch) -> None:
    """As solve and read do (it was 'image data is a truncated or corrupt JPEG file')."""
    import io

    cut = EXAMPLE.read_bytes()[:40_000]
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(cut)))
    code, out, err = run(["hint", "-"], capsys)
    assert code == 2 and out == ""
    assert err == "sudoku-lens: error: standard input is a truncated or corrupt JPEG file\n"


def test_a_picture_without_a_step_says_why_under_it(capsys, tmp_path, monkeypatch) -> None:
    """The caption of a picture with no step says what the printed line says: the grid is
    complete, or the technique asked for does not apply (it said "No step found." either way)."""
    captions: list[str] = []
    monkeypatch.setattr(
        "sudoku_lens.draw.hint.add_caption", lambda image, text: captions.append(text) or image
    )
    out = str(tmp_path / "hint.png")
    one_left = "0" + SOLUTION[1:]
    assert run(["hint", one_left, "--technique", "x-wing", "-o", out], capsys)[1] == (
        "no step found: no x-wing applies in this state\n"
    )
    assert run(["hint", SOLUTION, "-o", out], capsys)[0] == 0
    assert captions == [
        "No x-wing applies in this state.",
        "No step found: the grid is already complete.",
    ]


def test_a_finished_grid_and_a_file_of_puzzles_are_named_as_such(capsys, tmp_path) -> None:
    assert run(["hint", SOLUTION], capsys)[1] == "no step found: the grid is already complete\n"
    assert run(["explain", SOLUTION], capsys)[1] == (
        "the puzzle is already solved: nothing to explain\n"
    )
    path = tmp_path / "two.txt"
    path.write_text(f"# two puzzles\n{EASY}\n{DIABOLICAL}\n")
    for command in ("hint", "explain"):
        code, _, err = run([command, str(path)], capsys)
        assert code == 2 and err == (
            f"sudoku-lens: error: {path} holds 2 puzzles: give one (rate and solve take a file "
            "of many)\n"
        )


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["hint", EASY, "--technique", "no-such-thing"], "unknown technique 'no-such-thing'"),
        (["hint", "11" + "0" * 79], "1 appears twice in row 1"),
        (["hint", SEVERAL], "several solutions"),
        (["hint", "12 3 4 5 6 7 8 9 1\n" * 8], "pencil-mark"),
        (["explain", SEVERAL], "several solutions"),
        (["rate", "11" + "0" * 79], "twice"),
        (["hint", "no-such-file.txt"], "no such file"),
    ],
)
def test_errors_are_one_line_and_exit_2(capsys, argv: list[str], message: str) -> None:
    code, out, err = run(argv, capsys)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and message in err and err.startswith("sudoku-lens: error:")


def test_pencil_marks_that_lost_the_right_digit_are_refused(capsys, tmp_path) -> None:
    grid = CandidateGrid.from_puzzle(EASY)
    grid.eliminate(2, int(SOLUTION[2]))
    path = tmp_path / "bad.txt"
    path.write_text(grid.pencilmarks())
    code, _, err = run(["hint", str(path)], capsys)
    assert code == 2 and "r1c3" in err and err.count("\n") == 1


def test_hint_draws_the_step_on_the_grid(capsys, tmp_path) -> None:
    out_png = tmp_path / "hint.png"
    code, out, err = run(["hint", EASY, "-o", str(out_png)], capsys)
    assert code == 0 and out.startswith("hidden-single") and str(out_png) in err
    image = cv2.imread(str(out_png))
    assert image is not None and image.shape[0] > image.shape[1]  # the caption is under it
    assert (np.abs(image.astype(int) - [205, 80, 10]).sum(axis=2) < 60).any()  # the blue 8


def test_hint_on_a_photo_draws_into_it(capsys, tmp_path) -> None:
    out_png = tmp_path / "photo-hint.png"
    code, out, _ = run(["hint", str(EXAMPLE), "-o", str(out_png), "--json"], capsys)
    step = json.loads(out)
    assert code == 0 and step["technique"] == "hidden-single"
    assert step["placements"] == ["r2c1=1"]
    drawn, photo = cv2.imread(str(out_png)), cv2.imread(str(EXAMPLE))
    assert drawn.shape[1] == photo.shape[1] and drawn.shape[0] > photo.shape[0]
    assert (drawn[: photo.shape[0]] != photo).any()


def test_hint_on_a_photo_writes_a_picture_in_the_photos_format_by_default(
    capsys, tmp_path, monkeypatch
) -> None:
    monkeypatch.chdir(tmp_path)
    as_png = tmp_path / "page.png"
    cv2.imwrite(str(as_png), cv2.imread(str(EXAMPLE)))
    for photo, picture, head in (
        (EXAMPLE, "example-hint.jpg", b"\xff\xd8\xff"),
        (as_png, "page-hint.png", b"\x89PNG"),
    ):
        code, _, err = run(["hint", str(photo)], capsys)
        assert code == 0 and picture in err
        assert (tmp_path / picture).read_bytes().startswith(head)


def test_hint_on_a_photo_as_json_names_the_digits_it_corrected(capsys, monkeypatch) -> None:
    """As solve --json and /api/hint do ("r3c4" names); hint --json had no corrected_cells,
    only a line on stderr."""
    import dataclasses

    from sudoku_lens.read import reader

    reading = reader.read_photo(EXAMPLE)
    r, c = (int(v) for v in np.argwhere(reading.givens > 0)[0])
    truth = int(reading.grid[r, c])
    wrongly = truth % 9 + 1
    grid, probabilities = reading.grid.copy(), reading.probabilities.copy()
    grid[r, c] = wrongly
    probabilities[r, c] = 0.0
    probabilities[r, c, [wrongly, truth]] = (0.6, 0.4)
    misread = dataclasses.replace(reading, grid=grid, probabilities=probabilities)
    monkeypatch.setattr(reader, "read_photo", lambda source, **_: misread)
    code, out, err = run(["hint", str(EXAMPLE), "--json"], capsys)
    step = json.loads(out)
    assert code == 0 and step["corrected_cells"] == [f"r{r + 1}c{c + 1}"]
    assert step["wrong_entries"] == step["unsure_entries"] == []
    assert err == f"sudoku-lens: corrected misread digits at r{r + 1}c{c + 1}\n"


def test_hint_on_an_image_without_a_grid_exits_2(capsys, tmp_path) -> None:
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((300, 400, 3), 255, np.uint8))
    code, _, err = run(["hint", str(blank)], capsys)
    assert code == 2 and err.count("\n") == 1


def test_explain_walks_to_the_solution(capsys) -> None:
    code, out, _ = run(["explain", EASY], capsys)
    lines = out.splitlines()
    assert code == 0 and len(lines) == EASY.count("0") + 1
    assert lines[0] == " 1. hidden-single: r1c6 is the only place for an 8 in box 2."
    assert lines[-1] == (
        f"solved in {EASY.count('0')} steps; rating 1.2 easy, set by its hardest step, "
        "a hidden-single"
    )
    code, out, _ = run(["explain", EASY, "--json"], capsys)
    record = json.loads(out)
    assert code == 0 and record["solved"] and record["end"] == SOLUTION
    assert len(record["path"]) == record["steps"] == EASY.count("0")
    assert record["rating"] == 1.2 and record["level"] == "easy"


def test_explain_prints_the_steps_its_rating_is_taken_on(capsys) -> None:
    """The rating's hardest step is one of the steps printed, and the step count is rate's:
    explain printed the whole catalog's walkthrough (62 steps, no vwxyz-wing) beside the
    rating of Sudoku Explainer's path (61 steps, a vwxyz-wing)."""
    puzzle = "100004007000008300068030200250307000001000600000105092007050160002400000800700003"
    code, out, _ = run(["explain", puzzle], capsys)
    lines = out.splitlines()
    steps = [line.split(":")[0].split(". ")[1] for line in lines[:-1]]
    assert code == 0 and len(steps) == 61 and "vwxyz-wing" in steps
    assert lines[-1] == (
        "solved in 61 steps; rating 6.4 expert, set by its hardest step, a vwxyz-wing"
    )
    assert run(["rate", puzzle], capsys)[1] == f"{puzzle}  6.4 expert vwxyz-wing (61 steps)\n"
    from sudoku_lens.cli.explain import a_technique

    assert [a_technique(name) for name in ("xy-chain", "als-xz", "unique-rectangle-1")] == [
        "an xy-chain",
        "an als-xz",
        "a unique-rectangle-1",
    ]


def test_explain_says_where_it_is_stuck(capsys, singles_only) -> None:
    code, out, _ = run(["explain", DIABOLICAL], capsys)
    assert code == 1 and "stuck after" in out and "|" in out.splitlines()[-1]
    code, out, _ = run(["explain", DIABOLICAL, "--json"], capsys)
    assert code == 1 and json.loads(out)["solved"] is False


AGREEING = (
    EASY,
    "100920000524010000000000070050008102000000000402700090060000000000030945000071006",
    "043080250600000000000001094900004070000608000010200003820500000000000005034090710",
    DIABOLICAL,
    "804000702010708030050030060100509006060000040200604001020000050006307100000102000",
)
"""Puzzles whose catalog walkthrough and Sudoku Explainer's rating path differ in length:
easy50's lines 6 and 7 (a pointing SE counts at 2.6, an x-wing; 60 and 61 steps against 61 and
64), a diabolical one (65 against 64) and one of the SE-rated bank (68 against 64)."""


def _quiet(argv: list[str]) -> tuple[int, str]:
    """Run the command line, returning its exit code and standard output (a helper rather than
    capsys, which hypothesis's examples cannot share)."""
    import contextlib
    import io

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue()


def _relabelled(puzzle: str, digits: list[int], transpose: bool) -> str:
    """The same puzzle with its digits renamed and, if asked, its rows and columns swapped."""
    cells = (puzzle[(i % 9) * 9 + i // 9] if transpose else puzzle[i] for i in range(81))
    return "".join("0" if c == "0" else str(digits[int(c) - 1]) for c in cells)


@settings(max_examples=8, deadline=None)
@given(st.sampled_from(AGREEING), st.permutations(range(1, 10)), st.booleans())
def test_explain_and_rate_agree_on_the_rating_and_the_steps(
    puzzle: str, digits: list[int], transpose: bool
) -> None:
    """explain --json holds rate --json's fields with the same values (seconds aside), its path
    has as many steps as rate counts, and the rating is the hardest of them; the text lines say
    the same numbers."""
    from sudoku_lens.cli.explain import a_technique

    puzzle = _relabelled(puzzle, digits, transpose)
    code, out = _quiet(["explain", puzzle, "--json"])
    explained = json.loads(out)
    rate_code, out = _quiet(["rate", puzzle, "--json"])
    rated = json.loads(out)
    assert code == rate_code == 0
    assert set(explained) == set(rated) | {"path", "end"}
    assert {k: v for k, v in explained.items() if k in rated and k != "seconds"} == {
        k: v for k, v in rated.items() if k != "seconds"
    }
    ratings = [step["rating"] for step in explained["path"]]
    assert len(ratings) == rated["steps"] and max(ratings) == rated["rating"]
    assert explained["path"][ratings.index(max(ratings))]["technique"] == rated["hardest"]
    said = f"{rated['rating']:.1f} {rated['level']}"
    assert _quiet(["explain", puzzle])[1].splitlines()[-1] == (
        f"solved in {rated['steps']} steps; rating {said}, set by its hardest step, "
        f"{a_technique(rated['hardest'])}"
    )
    assert _quiet(["rate", puzzle])[1] == (
        f"{puzzle}  {said} {rated['hardest']} ({rated['steps']} steps)\n"
    )


def test_explain_and_rate_agree_where_the_techniques_stop(capsys, singles_only) -> None:
    code, out, _ = run(["explain", DIABOLICAL, "--json"], capsys)
    explained = json.loads(out)
    rate_code, out, _ = run(["rate", DIABOLICAL, "--json"], capsys)
    rated = json.loads(out)
    assert code == rate_code == 1 and rated["rating"] is None and rated["steps"] > 0
    assert {k: explained[k] for k in rated if k != "seconds"} == {
        k: v for k, v in rated.items() if k != "seconds"
    }
    assert len(explained["path"]) == rated["steps"]
    code, out, _ = run(["explain", DIABOLICAL], capsys)
    assert code == 1 and f"\nstuck after {rated['steps']} steps: no technique applies" in out


def test_a_solved_grid_has_nothing_to_rate_and_is_not_counted_rated(capsys, tmp_path) -> None:
    """As explain says 'the puzzle is already solved: nothing to explain'; rate counted it as
    '1 rated' and its JSON (and explain's) said 0.0 easy, hardest null."""
    code, out, err = run(["rate", SOLUTION], capsys)
    assert code == 0 and out == f"{SOLUTION}  already solved: no step to rate\n"
    assert err.startswith("1 puzzle: 0 rated, 1 already solved (nothing to rate), 0 not finished")
    nothing = {"rating": None, "level": None, "hardest": None, "steps": 0, "solved": True}
    for command in ("rate", "explain"):
        code, out, _ = run([command, SOLUTION, "--json"], capsys)
        assert code == 0 and nothing.items() <= json.loads(out).items()
    path = tmp_path / "puzzles.txt"
    path.write_text(f"{EASY}\n{SOLUTION}\n")
    code, _, err = run(["rate", str(path)], capsys)
    assert code == 0 and err.startswith("2 puzzles: 1 rated, 1 already solved (nothing to rate)")


def test_rate_a_batch_in_order(capsys, tmp_path, singles_only) -> None:
    path = tmp_path / "puzzles.txt"
    path.write_text("\n".join([EASY, "11" + "0" * 79, DIABOLICAL, SEVERAL, "123"]) + "\n")
    code, out, err = run(["rate", str(path)], capsys)
    rows = out.splitlines()
    assert code == 2 and len(rows) == 5  # illegal and unreadable puzzles, as alone
    assert rows[0] == f"{EASY}  1.2 easy hidden-single ({EASY.count('0')} steps)"
    assert "error:" in rows[1] and "twice" in rows[1]
    assert rows[2].startswith(f"{DIABOLICAL}  unrated: no technique applies after")
    assert "several solutions" in rows[3] and "error:" in rows[4]
    assert err.startswith("5 puzzles: 1 rated, 1 not finished")
    code, out, _ = run(["rate", str(path), "--json"], capsys)
    records = [json.loads(line) for line in out.splitlines()]
    assert records[0]["rating"] == 1.2 and records[0]["level"] == "easy"
    assert {"puzzle", "rating", "level", "hardest", "steps", "seconds"} <= set(records[0])
    assert records[2]["rating"] is None and records[2]["solved"] is False
    assert "error" in records[1] and "error" in records[3]


def test_rate_with_jobs_keeps_the_order_and_writes_a_file(capsys, tmp_path) -> None:
    grid = CandidateGrid.from_puzzle(EASY)
    puzzles = []
    for k in range(40):  # the easy puzzle with its digits relabelled: the same rating each
        perm = "0" + "".join(str((int(d) + k) % 9 + 1) for d in range(9))
        puzzles.append("".join(perm[int(ch)] for ch in EASY))
    path, out_path = tmp_path / "many.txt", tmp_path / "ratings.txt"
    path.write_text("\n".join(puzzles))
    code, out, _ = run(["rate", str(path), "--jobs", "2", "-o", str(out_path)], capsys)
    rows = out_path.read_text().splitlines()
    assert code == 0 and out == "" and len(rows) == 40
    assert [row.split()[0] for row in rows] == puzzles
    assert all(row.endswith("1.2 easy hidden-single (51 steps)") for row in rows)
    assert grid.line() == EASY
