"""The person's pencilled candidates: read, carried in JSON, checked against the answer, marked.

A cell whose two or more candidates leave out its solution digit is a mistake; candidates that
hold the answer, and a lone small digit, never are.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
from pathlib import Path

import cv2
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import photo_read_as, truth_reading
from sudoku_lens import pipeline
from sudoku_lens.cli import build_parser
from sudoku_lens.cli.solve_photo import run_photo
from sudoku_lens.draw import CANDIDATES_COLOR, WRONG_COLOR, render_overlay
from sudoku_lens.errors import PuzzleFormatError
from sudoku_lens.pipeline import CheckedCandidates, answer_reading, check_candidates
from sudoku_lens.read.content import DIGIT, read_contents
from sudoku_lens.read.image_io import Photo, load_photo
from sudoku_lens.read.kinds import (
    EMPTY,
    HANDWRITTEN,
    NO_CANDIDATES,
    NOTES,
    candidates_json,
    parse_candidates,
)
from sudoku_lens.synth.handwriting import NOTE_COUNTS, SyntheticFilledPhoto, synth_filled_photo

SOLUTION = np.array(
    [
        [int(ch) for ch in row]
        for row in (
            "534678912",
            "672195348",
            "198342567",
            "859761423",
            "426853791",
            "713924856",
            "961537284",
            "287419635",
            "345286179",
        )
    ],
    np.uint8,
)

digit_sets = st.sets(st.integers(1, 9), max_size=9).map(lambda s: tuple(sorted(s)))


def grid_with(cell: tuple[int, int], digits: tuple[int, ...]):
    """Candidates with `digits` in `cell` alone."""
    rows = [list(row) for row in NO_CANDIDATES]
    rows[cell[0]][cell[1]] = digits
    return tuple(tuple(row) for row in rows)


@given(st.integers(0, 8), st.integers(0, 8), digit_sets)
def test_candidates_holding_the_answer_are_never_flagged(r: int, c: int, others) -> None:
    digits = tuple(sorted({*others, int(SOLUTION[r, c])}))
    assert check_candidates(grid_with((r, c), digits), SOLUTION) == []


@given(st.integers(0, 8), st.integers(0, 8), st.integers(1, 9))
def test_a_lone_small_digit_is_never_flagged(r: int, c: int, digit: int) -> None:
    assert check_candidates(grid_with((r, c), (digit,)), SOLUTION) == []


@given(st.integers(0, 8), st.integers(0, 8), digit_sets)
def test_two_or_more_candidates_without_the_answer_are_flagged(r: int, c: int, digits) -> None:
    answer = int(SOLUTION[r, c])
    digits = tuple(d for d in digits if d != answer)
    found = check_candidates(grid_with((r, c), digits), SOLUTION)
    assert found == ([CheckedCandidates((r, c), digits, answer)] if len(digits) >= 2 else [])


def test_wrong_candidates_json_and_message() -> None:
    wrong = CheckedCandidates((3, 4), (2, 8), 4)
    assert wrong.to_json() == {"cell": "r4c5", "written": "28", "expected": 4}
    assert wrong.to_json(with_answer=False) == {"cell": "r4c5", "written": "28"}
    assert wrong.message == "r4c5: your candidates 28 leave out the answer"


def test_candidates_text_round_trips_and_bad_text_is_named() -> None:
    cells = [""] * 81
    cells[3], cells[80] = "54", "9"
    parsed = parse_candidates(cells)
    assert parsed[0][3] == (4, 5) and parsed[8][8] == (9,)
    assert candidates_json(parsed)[3] == "45"
    with pytest.raises(PuzzleFormatError, match="r1c2: 'x4' is not digits 1-9"):
        parse_candidates(["", "x4"] + [""] * 79)
    with pytest.raises(PuzzleFormatError, match="81 strings"):
        parse_candidates(["12"] * 80)


@pytest.fixture(scope="module")
def sample() -> SyntheticFilledPhoto:
    """A generated hand-filled photo with pencil notes, two of them planted wrong."""
    return synth_filled_photo(3, "easy", notes=0.5, wrong_notes=2, rotation=0)


@pytest.fixture(scope="module")
def reading(sample: SyntheticFilledPhoto):
    return truth_reading(sample)


def planted(sample: SyntheticFilledPhoto) -> list[tuple[int, int]]:
    return [(int(r), int(c)) for r, c in np.argwhere(sample.filled.wrong_candidates)]


def test_the_generator_plants_wrong_sets_and_keeps_the_answer_in_the_others(sample) -> None:
    filled, solution = sample.filled, sample.photo.solution
    assert len(planted(sample)) == 2
    for r in range(9):
        for c in range(9):
            digits = filled.candidates[r][c]
            assert bool(digits) == (filled.kinds[r, c] == NOTES)
            if digits:
                assert (int(solution[r, c]) not in digits) == filled.wrong_candidates[r, c]
                assert 2 <= len(digits) <= max(NOTE_COUNTS)


def test_a_reading_keeps_candidates_only_in_cells_of_notes(reading) -> None:
    notes = reading.kinds == NOTES
    assert all(bool(reading.candidates[r][c]) == notes[r, c] for r in range(9) for c in range(9))
    plain = reading.with_kinds(np.where(notes, EMPTY, reading.kinds))
    assert plain.candidates == NO_CANDIDATES
    moved = dataclasses.replace(reading, kinds=np.where(notes, HANDWRITTEN, reading.kinds))
    assert moved.candidates == NO_CANDIDATES


def test_the_reader_reads_the_pencilled_candidates_of_notes(sample) -> None:
    """The digits pencilled in the cells of notes (pairs and triples, in a row at the top or at
    their keypad places): the pairs and nearly all the others read exactly, a cell with a mark
    the digit model is unsure of left without digits, never a digit not pencilled there, never
    candidates in a cell of another kind."""
    from sudoku_lens.read.reader import read_image

    read = read_image(sample.photo.image)
    truth = sample.filled
    notes = [(r, c) for r, c in np.argwhere(truth.kinds == NOTES)]
    exact = sum(read.candidates[r][c] == truth.candidates[r][c] for r, c in notes)
    assert len(notes) >= 8 and exact >= len(notes) - 2
    assert all(
        read.candidates[r][c] == truth.candidates[r][c]
        for r, c in notes
        if len(truth.candidates[r][c]) == 2
    )
    misread = [
        (r, c) for r, c in notes if not set(read.candidates[r][c]) <= set(truth.candidates[r][c])
    ]
    assert misread == []
    assert all(
        not read.candidates[r][c] or read.kinds[r, c] == NOTES for r in range(9) for c in range(9)
    )
    assert read.to_json()["candidates"] == candidates_json(read.candidates)


def test_solve_json_lists_the_wrong_candidates(sample, reading) -> None:
    answer = answer_reading(reading)
    solution = sample.photo.solution
    expected = [
        {
            "cell": f"r{r + 1}c{c + 1}",
            "written": "".join(map(str, sample.filled.candidates[r][c])),
            "expected": int(solution[r, c]),
        }
        for r, c in planted(sample)
    ]
    assert [cell.to_json() for cell in answer.wrong_candidates] == expected


def test_candidates_sent_replace_those_read_and_make_the_cell_notes(reading, sample) -> None:
    cells = candidates_json(reading.candidates)
    empty = next(
        (r, c)
        for r in range(9)
        for c in range(9)
        if reading.kinds[r, c] == EMPTY and sample.photo.puzzle[r, c] == 0
    )
    answer = int(sample.photo.solution[empty])
    cells[empty[0] * 9 + empty[1]] = "".join(str(d) for d in range(1, 10) if d != answer)[:3]
    for r, c in planted(sample):
        cells[r * 9 + c] = ""  # the person rubbed the wrong ones out
    checked = answer_reading(reading, candidates=cells)
    assert [cell.cell for cell in checked.wrong_candidates] == [empty]
    assert checked.kinds[empty] == NOTES


def test_candidates_read_unsure_are_never_called_wrong(reading, sample) -> None:
    """Candidates read below CANDIDATES_SURE are listed unsure, not wrong, also when sent back
    as read; candidates the person sends in their place are checked."""
    doubtful = planted(sample)[0]
    sureness = np.ones((9, 9), np.float32)
    sureness[doubtful] = pipeline.CANDIDATES_SURE - 0.01
    unsure = dataclasses.replace(reading, candidate_sureness=sureness)
    for answer in (
        answer_reading(unsure),
        answer_reading(unsure, candidates=candidates_json(reading.candidates)),
    ):
        assert [cell.cell for cell in answer.wrong_candidates] == planted(sample)[1:]
        assert answer.unsure_candidates == [doubtful]
    typed = candidates_json(reading.candidates)
    answer = int(sample.photo.solution[doubtful])
    typed[doubtful[0] * 9 + doubtful[1]] = "".join(str(d) for d in range(1, 10) if d != answer)
    checked = answer_reading(unsure, candidates=typed)
    assert [cell.cell for cell in checked.wrong_candidates] == planted(sample)
    assert checked.unsure_candidates == []


def test_pencilled_digits_are_as_sure_as_their_least_sure_mark() -> None:
    from sudoku_lens.read.content import pencilled_digits
    from sudoku_lens.read.digits import WORK

    ink = np.zeros((WORK, WORK), np.uint8)
    for x in (12, 26):
        cv2.putText(ink, "0", (x, 24), cv2.FONT_HERSHEY_SIMPLEX, 0.4, 200, 1)

    class Fixed:
        """A digit model that reads the marks of a cell as 4 (at 0.9), then 7 (at 0.6)."""

        def predict_prepared(self, images: np.ndarray) -> np.ndarray:
            assert len(images) == 2
            read = np.zeros((2, 10), np.float32)
            read[0, 4], read[0, 5], read[1, 7], read[1, 1] = 0.9, 0.1, 0.6, 0.4
            return read

    (marks,) = pencilled_digits([ink], Fixed(), sure=0.5)
    assert marks.digits == (4, 7) and marks.sureness == pytest.approx(0.6)
    (doubtful,) = pencilled_digits([ink], Fixed(), sure=0.7)
    assert doubtful.digits is None and doubtful.sureness == pytest.approx(0.6)
    (blank,) = pencilled_digits([np.zeros_like(ink)], Fixed())
    assert blank.digits == () and blank.sureness == 1.0


def parse(argv: list[str]) -> argparse.Namespace:
    """The `solve` command line, as the program parses it."""
    return build_parser().parse_args(["solve", *argv])


def test_cli_names_the_wrong_candidates_and_exits_1(
    monkeypatch, capsys, tmp_path: Path, sample, reading
) -> None:
    photo = photo_read_as(monkeypatch, sample.photo.image, reading, tmp_path / "notes.png")
    assert run_photo(parse([str(photo), "--check", "-o", str(tmp_path / "out.png")])) == 1
    captured = capsys.readouterr()
    lines = [
        f"  r{r + 1}c{c + 1}: your candidates "
        f"{''.join(map(str, sample.filled.candidates[r][c]))} leave out the answer"
        for r, c in planted(sample)
    ]
    assert "2 of " in captured.out and "cells of candidates leave out the answer:" in captured.out
    for line in lines:
        assert line in captured.out.splitlines()
    assert captured.err.strip() == (
        f"sudoku-lens: 2 cells have candidates that leave out the answer in {photo}"
    )

    assert run_photo(parse([str(photo), "--json", "--check"])) == 1
    printed = json.loads(capsys.readouterr().out)
    assert [cell["cell"] for cell in printed["wrong_candidates"]] == [
        f"r{r + 1}c{c + 1}" for r, c in planted(sample)
    ]
    assert all("expected" not in cell for cell in printed["wrong_candidates"])
    assert len(printed["candidates"]) == 81
    assert printed["candidates"] == candidates_json(reading.candidates)


def test_cli_counts_the_candidates_read_too_unsure_to_check(
    monkeypatch, capsys, tmp_path: Path, sample, reading
) -> None:
    doubtful = planted(sample)[0]
    sureness = np.ones((9, 9), np.float32)
    sureness[doubtful] = 0.0
    unsure = dataclasses.replace(reading, candidate_sureness=sureness)
    photo = photo_read_as(monkeypatch, sample.photo.image, unsure, tmp_path / "notes.png")
    listed = sum(len(cell) >= 2 for row in reading.candidates for cell in row)
    assert run_photo(parse([str(photo), "--check", "-o", str(tmp_path / "out.png")])) == 1
    out = capsys.readouterr().out
    assert (
        f"1 of {listed - 1} cells of candidates leave out the answer; 1 read too unsure to check:"
        in out
    )
    assert run_photo(parse([str(photo), "--json", "--check"])) == 1
    printed = json.loads(capsys.readouterr().out)
    assert printed["unsure_candidates"] == [f"r{doubtful[0] + 1}c{doubtful[1] + 1}"]


def test_right_candidates_exit_0(monkeypatch, capsys, tmp_path: Path) -> None:
    sample = synth_filled_photo(3, "easy", notes=0.5, rotation=0)
    photo = photo_read_as(
        monkeypatch, sample.photo.image, truth_reading(sample), tmp_path / "notes.png"
    )
    assert run_photo(parse([str(photo), "--json"])) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["wrong_candidates"] == [] and any(printed["candidates"])


def cells_of(image: np.ndarray, corners: np.ndarray) -> np.ndarray:
    """The picture's upright cells, 60 x 60 BGR pixels each: (9, 9, 60, 60, 3)."""
    side = 9 * 60
    square = np.float32([[0, 0], [side, 0], [side, side], [0, side]])
    homography = cv2.getPerspectiveTransform(np.asarray(corners, np.float32), square)
    flat = cv2.warpPerspective(image, homography, (side, side), flags=cv2.INTER_AREA)
    return flat.reshape(9, 60, 9, 60, 3).transpose(0, 2, 1, 3, 4).astype(np.int16)


def purple(cells: np.ndarray) -> np.ndarray:
    """(9, 9) pixels of each cell near the frame's purple."""
    distance = np.abs(cells - np.array(CANDIDATES_COLOR, np.int16)).sum(axis=-1)
    return (distance < 90).sum(axis=(2, 3))


def test_the_wrong_candidates_are_framed_in_their_own_cells(sample, reading) -> None:
    answer = answer_reading(reading)
    for check_only in (False, True):
        image = pipeline.draw_answer(reading, answer, check_only=check_only)
        shown = purple(cells_of(image, reading.corners))
        framed = shown > 60
        expected = np.zeros((9, 9), bool)
        for cell in planted(sample):
            expected[cell] = True
        assert np.array_equal(framed, expected), np.argwhere(framed).tolist()
        if check_only:
            # the candidates stay as pencilled: the cell's middle is untouched
            before = cells_of(reading.image, reading.corners)
            after = cells_of(image, reading.corners)
            for r, c in planted(sample):
                inner = (r, c, slice(12, 48), slice(12, 48))
                assert np.abs(after[inner] - before[inner]).max() <= 2


def test_candidates_read_unsure_are_framed_in_orange_not_purple(
    monkeypatch, sample, reading
) -> None:
    """In the solved picture and on a live frame, a set read too unclearly to check gets the
    frame in the orange of unsure entries, never the purple of a wrong one."""
    from sudoku_lens.draw import UNSURE_COLOR
    from sudoku_lens.live import solver as live

    (r, c), *others = planted(sample)
    sureness = np.ones((9, 9), np.float32)
    sureness[r, c] = pipeline.CANDIDATES_SURE / 2
    unsure = dataclasses.replace(reading, candidate_sureness=sureness)
    answer = answer_reading(unsure)
    assert answer.unsure_candidates == [(r, c)]

    def orange(image: np.ndarray) -> np.ndarray:
        cells = cells_of(image, reading.corners)
        distance = np.abs(cells - np.array(UNSURE_COLOR, np.int16)).sum(axis=-1)
        return (distance < 90).sum(axis=(2, 3))

    for check_only in (False, True):
        image = pipeline.draw_answer(unsure, answer, check_only=check_only)
        framed = orange(image) > 60
        assert np.argwhere(framed).tolist() == [[r, c]]
        assert purple(cells_of(image, reading.corners))[r, c] <= 60
    monkeypatch.setattr(
        live, "read_image", lambda image, **_: dataclasses.replace(unsure, photo=Photo(image))
    )
    player = live.LiveSolver(live.LiveSettings(banner=False))
    for _ in range(4):
        result = player.process(sample.photo.image)
    assert result.to_json()["unsure_candidates"] == [f"r{r + 1}c{c + 1}"]
    assert orange(result.frame)[r, c] > 60


def test_the_frame_is_not_the_wrong_entry_ring() -> None:
    givens = np.zeros((9, 9), np.uint8)
    givens[0, 0] = givens[0, 1] = 1
    bgr, alpha = render_overlay(
        givens, SOLUTION, 9 * 40, wrong=((0, 0, 5),), wrong_candidates=((0, 1),)
    )
    ring, frame = (bgr[:40, 40 * k : 40 * (k + 1)] for k in (0, 1))
    ring_alpha, frame_alpha = alpha[:40, :40], alpha[:40, 40:80]
    assert np.abs(ring[ring_alpha > 200] - np.array(WRONG_COLOR)).sum(axis=-1).mean() < 60
    assert np.abs(frame[frame_alpha > 200] - np.array(CANDIDATES_COLOR)).sum(axis=-1).mean() < 60
    # the frame keeps to the cell's edge: its middle is clear for the candidates
    assert frame_alpha[8:32, 8:32].max() == 0 and frame_alpha[:, :6].max() > 200


def test_hint_json_names_the_wrong_candidates_without_the_answer(
    monkeypatch, sample, reading
) -> None:
    from sudoku_lens.hints import hint_photo
    from sudoku_lens.read import reader

    monkeypatch.setattr(reader, "read_photo", lambda source, **_: reading)
    found = hint_photo(sample.photo.image)
    names = [f"r{r + 1}c{c + 1}" for r, c in planted(sample)]
    assert [cell["cell"] for cell in found.photo_json()["wrong_candidates"]] == names
    assert all(set(cell) == {"cell", "written"} for cell in found.photo_json()["wrong_candidates"])
    shown = purple(cells_of(found.image, reading.corners)) > 60
    assert sorted(map(tuple, np.argwhere(shown).tolist())) == planted(sample)
    # candidates sent replace those read: with the wrong ones rubbed out, none is named
    cells = candidates_json(reading.candidates)
    for r, c in planted(sample):
        cells[r * 9 + c] = ""
    assert hint_photo(sample.photo.image, candidates=cells).wrong_candidates == []


@pytest.fixture(scope="module")
def client():
    pytest.importorskip("fastapi", reason="the web API needs the web extra")
    from fastapi.testclient import TestClient

    from sudoku_lens.web import create_app

    with TestClient(create_app(warm_up=False)) as test_client:
        yield test_client


def post_photo(client, route: str, data: bytes, **form: str):
    return client.post(route, files={"file": ("photo.jpg", data, "image/jpeg")}, data=form)


def test_the_api_carries_the_candidates_both_ways(client, monkeypatch, sample, reading) -> None:
    from sudoku_lens.read import reader

    monkeypatch.setattr(
        pipeline,
        "read_photo",
        lambda source, **_: dataclasses.replace(reading, photo=load_photo(source)),
    )
    monkeypatch.setattr(reader, "read_photo", lambda source, **_: reading)
    monkeypatch.setattr("sudoku_lens.web.app.read_photo", lambda source, **_: reading, raising=True)
    data = cv2.imencode(".jpg", sample.photo.image)[1].tobytes()
    read = post_photo(client, "/api/read", data).json()
    assert read["candidates"] == candidates_json(reading.candidates)
    body = post_photo(client, "/api/solve", data).json()
    assert body["candidates"] == read["candidates"]
    names = [f"r{r + 1}c{c + 1}" for r, c in planted(sample)]
    assert [cell["cell"] for cell in body["wrong_candidates"]] == names
    assert all("expected" in cell for cell in body["wrong_candidates"])
    checked = post_photo(client, "/api/solve", data, check_only="true").json()
    assert [set(cell) for cell in checked["wrong_candidates"]] == [{"cell", "written"}] * 2

    # the page sends the candidates as edited: the wrong ones rubbed out, one set added
    cells = list(body["candidates"])
    for r, c in planted(sample):
        cells[r * 9 + c] = ""
    free = next(i for i in range(81) if body["kinds"][i] == "." and body["grid"][i] == "0")
    answer = int(body["solution"][free])
    cells[free] = "".join(str(d) for d in range(1, 10) if d != answer)[:2]
    form = {"grid": body["grid"], "candidates": json.dumps(cells)}
    edited = post_photo(client, "/api/solve", data, **form).json()
    assert [cell["cell"] for cell in edited["wrong_candidates"]] == [
        f"r{free // 9 + 1}c{free % 9 + 1}"
    ]
    assert edited["candidates"][free] == cells[free] and edited["kinds"][free] == "n"
    hint = post_photo(client, "/api/hint", data, **form).json()
    assert hint["wrong_candidates"] == [
        {"cell": f"r{free // 9 + 1}c{free % 9 + 1}", "written": cells[free]}
    ]

    bad = post_photo(client, "/api/solve", data, candidates='["12", "x"]')
    assert bad.status_code == 422 and "81 strings" in bad.json()["error"]
    bad = post_photo(client, "/api/solve", data, candidates="not json")
    assert bad.status_code == 422 and bad.json()["error"].startswith("candidates: send a JSON list")


def test_live_results_carry_the_wrong_candidates(sample, reading, monkeypatch) -> None:
    from sudoku_lens.live import solver as live

    monkeypatch.setattr(
        live, "read_image", lambda image, **_: dataclasses.replace(reading, photo=Photo(image))
    )
    player = live.LiveSolver(live.LiveSettings(banner=False))
    for _ in range(4):
        result = player.process(sample.photo.image)
    assert result.state is live.LiveState.SOLVED
    names = [f"r{r + 1}c{c + 1}" for r, c in planted(sample)]
    assert [cell["cell"] for cell in result.to_json()["wrong_candidates"]] == names
    assert purple(cells_of(result.frame, result.corners)).max() > 60


def test_the_hint_command_names_the_wrong_candidates(
    monkeypatch, capsys, tmp_path: Path, sample, reading
) -> None:
    from sudoku_lens.cli import main
    from sudoku_lens.read import reader

    monkeypatch.setattr(reader, "read_photo", lambda source, **_: reading)
    photo = tmp_path / "notes.png"
    cv2.imwrite(str(photo), sample.photo.image)
    assert main(["hint", str(photo), "-o", str(tmp_path / "hint.png")]) == 0
    err = capsys.readouterr().err.splitlines()
    for r, c in planted(sample):
        digits = "".join(map(str, sample.filled.candidates[r][c]))
        line = f"sudoku-lens: r{r + 1}c{c + 1}: your candidates {digits} leave out the answer"
        assert line in err
    assert main(["hint", str(photo), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert [cell["cell"] for cell in printed["wrong_candidates"]] == [
        f"r{r + 1}c{c + 1}" for r, c in planted(sample)
    ]
    assert printed["unsure_candidates"] == []


def test_hints_name_the_candidates_read_too_unsure_to_check(
    monkeypatch, capsys, tmp_path: Path, sample, reading
) -> None:
    """A planted set read unsure is not called wrong by a hint either: `hint` names it apart,
    in its text and JSON alike."""
    from sudoku_lens.cli import main
    from sudoku_lens.hints import hint_photo
    from sudoku_lens.read import reader

    (r, c), *others = planted(sample)
    sureness = np.ones((9, 9), np.float32)
    sureness[r, c] = pipeline.CANDIDATES_SURE / 2
    unsure = dataclasses.replace(reading, candidate_sureness=sureness)
    monkeypatch.setattr(reader, "read_photo", lambda source, **_: unsure)
    found = hint_photo(sample.photo.image)
    assert found.photo_json()["unsure_candidates"] == [f"r{r + 1}c{c + 1}"]
    assert [cell.cell for cell in found.wrong_candidates] == others
    photo = tmp_path / "notes.png"
    cv2.imwrite(str(photo), sample.photo.image)
    assert main(["hint", str(photo), "-o", str(tmp_path / "hint.png")]) == 0
    err = capsys.readouterr().err.splitlines()
    assert f"sudoku-lens: candidates read too unsure to check at r{r + 1}c{c + 1}" in err


def kinds_model_says(monkeypatch, cells: list[tuple[int, int]], probabilities: list[float]) -> None:
    """Make the kinds model give `cells` (upright) the kind `probabilities` (empty, printed,
    handwritten, notes), its own reading elsewhere."""
    from sudoku_lens.read.kinds import KindClassifier

    predict = KindClassifier.predict

    def said(self, features):
        kinds = predict(self, features).copy()
        for r, c in cells:
            kinds[r, c] = probabilities
        return kinds

    monkeypatch.setattr(KindClassifier, "predict", said)


def test_a_digit_the_cell_model_is_sure_of_is_never_notes(monkeypatch, sample) -> None:
    """Where the kinds model takes a written digit for pencil notes but the cell-content model
    is sure of a digit (OVER_NOTES), the digit read stands; trusting the kinds model alone, the
    cell would be notes."""
    from sudoku_lens.read import reader

    truth = sample.filled
    entries = np.argwhere(truth.kinds == HANDWRITTEN)
    plain = reader.read_image(sample.photo.image)
    sure = [(int(r), int(c)) for r, c in entries if plain.kinds[r, c] == HANDWRITTEN]
    assert len(sure) >= 5
    kinds_model_says(monkeypatch, sure, [0.0, 0.0, 0.1, 0.9])
    _, cells = reader.read_photo_cells(sample.photo.image)
    content, _ = read_contents(cells.found, cells.turns)
    written = [cell for cell in sure if content[cell][DIGIT] >= reader.OVER_NOTES]
    assert len(written) >= 20
    read = reader.read_image(sample.photo.image)
    assert all(read.kinds[cell] == HANDWRITTEN for cell in written)
    assert all(read.grid[cell] == truth.digits[cell] for cell in written)
    monkeypatch.setattr(reader, "OVER_NOTES", 1.01)
    assert all(reader.read_image(sample.photo.image).kinds[cell] == NOTES for cell in sure)


def test_a_cell_the_cell_model_is_sure_holds_nothing_is_never_notes(monkeypatch, sample) -> None:
    """Where the kinds model takes an empty cell (a speck, a rubbed-out ghost, the paper) for
    pencil notes but the cell-content model is sure it holds nothing (OVER_EMPTY), the cell is
    empty, with no candidates; trusting the kinds model alone, it would be notes."""
    from sudoku_lens.read import reader
    from sudoku_lens.read.kinds import EMPTY

    empty = [(int(r), int(c)) for r, c in np.argwhere(sample.filled.kinds == EMPTY)]
    assert len(empty) >= 5
    kinds_model_says(monkeypatch, empty, [0.1, 0.0, 0.0, 0.9])
    read = reader.read_image(sample.photo.image)
    assert all(read.kinds[cell] == EMPTY and read.grid[cell] == 0 for cell in empty)
    assert all(read.candidates[r][c] == () for r, c in empty)
    monkeypatch.setattr(reader, "OVER_EMPTY", 1.01)
    assert all(reader.read_image(sample.photo.image).kinds[cell] == NOTES for cell in empty)


def test_a_faint_entry_the_cell_model_saw_and_is_all_but_certain_is_nothing_is_empty(
    monkeypatch, sample
) -> None:
    """Handwritten entries whose marks are faint (GHOST_FAINT) and which the cell-content model
    saw and is all but certain are nothing (GHOST: the ghost of a rubbed-out digit that the
    digit model still reads) are empty. Each condition alone leaves the digit read: the
    sample's dark pen entries, an entry the model was not shown a mark of (a coloured pen the
    grey cells hardly show), whatever its default of nothing says, and the rule set off."""
    from sudoku_lens.read import reader
    from sudoku_lens.read.content import NOTHING
    from sudoku_lens.read.kinds import EMPTY

    entries = sample.filled.kinds == HANDWRITTEN
    assert entries.sum() >= 5
    read_contents = reader.read_contents

    def nothing_in_entries(*args, **kwargs):
        content, chances = read_contents(*args, **kwargs)
        content[entries] = 0.0
        content[entries, NOTHING] = 0.999
        return content, chances

    monkeypatch.setattr(reader, "read_contents", nothing_in_entries)
    others = reader.read_image(sample.photo.image).kinds[~entries]
    for left_out in ("nothing", "is_marked", "GHOST"):
        with monkeypatch.context() as patched:
            if left_out != "nothing":
                patched.setattr(reader, "GHOST_FAINT", 10.0)
            if left_out == "is_marked":
                patched.setattr(reader, "is_marked", lambda ink: False)
            if left_out == "GHOST":
                patched.setattr(reader, "GHOST", 1.01)
            kept = reader.read_image(sample.photo.image)
        assert (kept.kinds[entries] == HANDWRITTEN).all()
        assert (kept.grid[entries] == sample.filled.digits[entries]).all()
    monkeypatch.setattr(reader, "GHOST_FAINT", 10.0)  # every mark as faint as a ghost
    read = reader.read_image(sample.photo.image)
    assert (read.kinds[entries] == EMPTY).all() and (read.grid[entries] == 0).all()
    assert (read.kinds[~entries] == others).all()
