"""`POST /api/hint` and `POST /api/rate`: the right step, the picture, the next state, 4xx JSON."""

from __future__ import annotations

import base64
from pathlib import Path

import cv2
import numpy as np
import pytest

pytest.importorskip("fastapi", reason="the web tests need the web extra: pip install '.[web]'")

from fastapi.testclient import TestClient  # noqa: E402

from sudoku_lens.web import create_app  # noqa: E402

EXAMPLE = Path(__file__).parents[1] / "src" / "sudoku_lens" / "examples" / "example.jpg"
EASY = "530070000600195000098000060800060003400803001700020006060000280000419005000080079"
SOLUTION = "534678912672195348198342567859761423426853791713924856961537284287419635345286179"


@pytest.fixture(scope="module")
def client():
    with TestClient(create_app(warm_up=False)) as test_client:
        yield test_client


def picture(data_url: str) -> np.ndarray:
    head, _, payload = data_url.partition(",")
    assert head in ("data:image/png;base64", "data:image/jpeg;base64")
    image = cv2.imdecode(np.frombuffer(base64.b64decode(payload), np.uint8), cv2.IMREAD_COLOR)
    assert image is not None
    return image


def test_hint_for_a_puzzle(client) -> None:
    response = client.post("/api/hint", json={"puzzle": EASY})
    body = response.json()
    assert response.status_code == 200
    assert body["technique"] == "hidden-single" and body["placements"] == ["r1c6=8"]
    assert body["explanation"] == "r1c6 is the only place for an 8 in box 2."
    assert body["grid"] == EASY
    assert body["after"]["puzzle"] == EASY[:5] + "8" + EASY[6:]
    assert picture(body["image"]).shape[0] > 300


def test_following_hints_reaches_the_solution(client) -> None:
    state = {"puzzle": EASY, "eliminations": []}
    for _ in range(EASY.count("0")):
        body = client.post("/api/hint", json=state).json()
        assert body["technique"] is not None
        state = body["after"]
    assert state["puzzle"] == SOLUTION
    assert client.post("/api/hint", json=state).json()["technique"] is None


def test_eliminations_and_technique_are_honoured(client) -> None:
    body = client.post(
        "/api/hint", json={"puzzle": EASY, "technique": "naked-single", "eliminations": []}
    ).json()
    assert body["technique"] == "naked-single"
    cell = body["placements"][0].split("=")[0]
    digit = body["placements"][0].split("=")[1]
    others = [d for d in "123456789" if d != digit]
    # with a right candidate crossed out the state is refused, with a wrong one it is used
    wrong = client.post("/api/hint", json={"puzzle": EASY, "eliminations": [f"{cell}<>{digit}"]})
    assert wrong.status_code == 422 and cell in wrong.json()["error"]
    fine = client.post("/api/hint", json={"puzzle": EASY, "eliminations": [f"r1c3<>{others[0]}"]})
    assert fine.status_code == 200


def test_hint_for_a_photo_draws_into_it(client) -> None:
    with EXAMPLE.open("rb") as handle:
        response = client.post("/api/hint", files={"file": ("example.jpg", handle, "image/jpeg")})
    body = response.json()
    assert response.status_code == 200
    assert body["technique"] == "hidden-single" and body["placements"] == ["r2c1=1"]
    assert len(body["corners"]) == 4 and body["wrong_entries"] == []
    photo = cv2.imread(str(EXAMPLE))
    drawn = picture(body["image"])
    assert drawn.shape == photo.shape
    # the next hint continues from the first one, and a wrong entry is reported, not used
    entries = list(body["after"]["puzzle"])
    empty = next(i for i, d in enumerate(entries) if d == "0")
    entries[empty] = "9" if body["grid"][empty] != "9" else "8"
    with EXAMPLE.open("rb") as handle:
        again = client.post(
            "/api/hint",
            files={"file": ("example.jpg", handle, "image/jpeg")},
            data={"entries": "".join(entries)},
        ).json()
    assert again["grid"][9] == "1" and again["placements"] != ["r2c1=1"]
    assert len(again["wrong_entries"]) <= 1


@pytest.fixture(scope="module")
def filled():
    """A generated hand-filled photo (three wrong entries) and its reading with the generator's
    kinds, as a kinds classifier would read it."""
    from conftest import truth_reading
    from sudoku_lens.synth.handwriting import synth_filled_photo

    sample = synth_filled_photo(3, "easy", mistakes=3, pen="ballpoint-blue", rotation=0)
    return sample, truth_reading(sample)


def test_a_photo_hint_continues_from_the_entries_sent_not_those_read(
    client, filled, monkeypatch
) -> None:
    """`entries` replace the entries read: a cleared entry is no fact any more, a corrected or
    added right one is, and a wrong one sent is reported and left out."""
    from sudoku_lens.puzzle.text import cell_name
    from sudoku_lens.read import reader

    sample, reading = filled
    monkeypatch.setattr(reader, "read_photo", lambda source, **_: reading)
    photo = cv2.imencode(".png", sample.photo.image)[1].tobytes()
    solution = sample.photo.solution.ravel()
    givens = sample.photo.puzzle.ravel()
    read = np.where(sample.filled.kinds == 2, sample.filled.digits, 0).ravel()
    mistakes = [int(i) for i in np.flatnonzero(sample.filled.mistakes)]
    right = [int(i) for i in np.flatnonzero(read) if int(i) not in mistakes]
    empty = [int(i) for i in np.flatnonzero((givens == 0) & (read == 0))]

    def hint(entries: np.ndarray | None) -> dict:
        data = {} if entries is None else {"entries": "".join(str(d) for d in entries)}
        files = {"file": ("filled.png", photo, "image/png")}
        response = client.post("/api/hint", files=files, data=data)
        assert response.status_code == 200, response.text
        return response.json()

    as_read = hint(None)
    assert as_read["wrong_entries"] == [
        {"cell": cell_name(i), "written": int(read[i])} for i in mistakes
    ]  # as /api/solve names them, but without the right digit: a hint does not give it away
    assert all(as_read["grid"][i] == str(solution[i]) for i in right)

    cleared, corrected, added, wrongly_added = right[0], mistakes[0], empty[0], empty[1]
    entries = read.copy()
    entries[cleared] = 0
    entries[corrected] = solution[corrected]
    entries[added] = solution[added]
    entries[wrongly_added] = solution[wrongly_added] % 9 + 1
    body = hint(entries)
    placed = [i for i in np.flatnonzero(entries) if i not in (wrongly_added, *mistakes[1:])]
    expected = np.where(givens > 0, givens, 0)
    expected[placed] = solution[placed]
    assert body["grid"] == "".join(str(d) for d in expected)
    assert [entry["cell"] for entry in body["wrong_entries"]] == sorted(
        (cell_name(i) for i in (*mistakes[1:], wrongly_added)),
        key=lambda name: (name[1], name[3]),
    )
    assert body["technique"] is not None
    for placement in body["placements"]:
        cell, digit = placement.split("=")
        index = (int(cell[1]) - 1) * 9 + int(cell[3]) - 1
        assert body["grid"][index] == "0" and int(digit) == solution[index]


def unsure_reading(reading, cell: int):
    """`reading` with the entry in `cell` read below `RIGHT_FROM` (and so below `UNSURE_BELOW`):
    too unclear to check, even where it is the solution's digit."""
    import dataclasses

    from sudoku_lens.pipeline import RIGHT_FROM, UNSURE_BELOW

    confidence = min(RIGHT_FROM, UNSURE_BELOW) / 2
    probabilities = reading.probabilities.copy()
    row, col = divmod(cell, 9)
    probabilities[row, col] = (1 - confidence) / 9
    probabilities[row, col, int(reading.grid[row, col])] = confidence
    return dataclasses.replace(reading, probabilities=probabilities)


def test_entries_sent_as_read_keep_their_uncertainty(client, filled, monkeypatch) -> None:
    """An entry sent back as it was read stays unsure, in a solve and in a hint (which names
    it in `unsure_entries`); one the person typed differently is taken as certain."""
    from sudoku_lens import pipeline
    from sudoku_lens.puzzle.text import cell_name
    from sudoku_lens.read import reader

    sample, reading = filled
    mistakes = [int(i) for i in np.flatnonzero(sample.filled.mistakes)]
    read = np.where(sample.filled.kinds == 2, sample.filled.digits, 0).ravel()
    right = [int(i) for i in np.flatnonzero(read) if int(i) not in mistakes]
    reading = unsure_reading(reading, right[0])
    monkeypatch.setattr(reader, "read_photo", lambda source, **_: reading)
    monkeypatch.setattr(pipeline, "read_photo", lambda source, **_: reading)
    files = {"file": ("filled.png", cv2.imencode(".png", sample.photo.image)[1].tobytes())}
    as_read = "".join(map(str, read))
    solved = client.post("/api/solve", files=files, data={"entries": as_read}).json()
    assert [e["cell"] for e in solved["unsure_entries"]] == [cell_name(right[0])]
    assert [e["cell"] for e in solved["wrong_entries"]] == [cell_name(i) for i in mistakes]
    hint = client.post("/api/hint", files=files, data={"entries": as_read}).json()
    assert [entry["cell"] for entry in hint["unsure_entries"]] == [cell_name(right[0])]
    assert hint["grid"][right[0]] == str(read[right[0]])  # right, so the hint goes on from it
    typed = read.copy()
    typed[right[0]] = typed[right[0]] % 9 + 1
    solved = client.post(
        "/api/solve", files=files, data={"entries": "".join(map(str, typed))}
    ).json()
    assert solved["unsure_entries"] == []
    assert cell_name(right[0]) in [e["cell"] for e in solved["wrong_entries"]]


WEB_PAGE = Path(__file__).parents[1] / "docs" / "web.md"


def documented_hint_loop() -> str:
    """The documentation's Python example of a loop of hints on a photo (docs/web.md)."""
    blocks = WEB_PAGE.read_text().split("```python\n")[1:]
    return next(block.split("```")[0] for block in blocks if '["after"]["entries"]' in block)


def test_the_documented_loop_of_hints_keeps_naming_the_wrong_entries(
    client, filled, monkeypatch, tmp_path, capsys
) -> None:
    """Each hint of the documented loop sends back `after.entries`: every answer names the same
    wrong (and unsure) entries, and the hints go on from the last one."""
    import httpx

    from sudoku_lens.puzzle.text import cell_name
    from sudoku_lens.read import reader

    sample, reading = filled
    mistakes = [int(i) for i in np.flatnonzero(sample.filled.mistakes)]
    read = np.where(sample.filled.kinds == 2, sample.filled.digits, 0).ravel()
    unsure = next(int(i) for i in np.flatnonzero(read) if int(i) not in mistakes)
    reading = unsure_reading(reading, unsure)
    monkeypatch.setattr(reader, "read_photo", lambda source, **_: reading)
    answers = []

    def post(url: str, **kwargs):
        answer = client.post(url, **kwargs)
        answers.append(answer.json())
        return answer

    monkeypatch.setattr(httpx, "post", post)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "filled.jpg").write_bytes(cv2.imencode(".jpg", sample.photo.image)[1].tobytes())
    exec(documented_hint_loop(), {})
    names = [cell_name(i) for i in mistakes]
    assert len(answers) == 3
    placed: set[str] = set()  # a hint may place the right digit over a wrong entry
    for answer in answers:
        wrong = [entry["cell"] for entry in answer["wrong_entries"]]
        assert wrong == [name for name in names if name not in placed]
        assert [entry["cell"] for entry in answer["unsure_entries"]] == [cell_name(unsure)]
        assert answer["grid"][unsure] == str(read[unsure])  # right, so the hints use it
        cells = {placement.split("=")[0] for placement in answer["placements"]}
        assert not cells & placed  # each hint goes on from the ones before
        placed |= cells
        entries = answer["after"]["entries"]
        assert all(entries[i] == str(read[i]) for i in np.flatnonzero(read) if i not in cells)
    for first, second in zip(answers, answers[1:], strict=False):
        assert second["grid"] == first["after"]["puzzle"]
    printed = capsys.readouterr().out.splitlines()
    assert printed == [f"{a['placements']} wrong: {a['wrong_entries']}" for a in answers]
    assert any(answer["wrong_entries"] for answer in answers[1:])


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"puzzle": "11" + "0" * 79}, "twice"),
        ({"puzzle": "0" * 81}, "several solutions"),
        ({"puzzle": EASY, "technique": "no-such-thing"}, "unknown technique"),
        ({"puzzle": EASY, "eliminations": ["r0c1<>5"]}, "not an elimination"),
        ({"puzzle": EASY, "eliminations": "r1c1<>5"}, "eliminations"),
        ({"puzzle": 5}, "puzzle"),
        ([1, 2], "puzzle"),
    ],
)
def test_hint_errors_are_4xx_json(client, body, message: str) -> None:
    response = client.post("/api/hint", json=body)
    assert response.status_code == 422 and message in response.json()["error"]


def test_hint_refuses_what_is_not_a_photo_or_json(client) -> None:
    response = client.post("/api/hint", content=b"hello", headers={"content-type": "text/plain"})
    assert response.status_code == 422 and "error" in response.json()
    response = client.post("/api/hint", files={"file": ("a.txt", b"not an image", "text/plain")})
    assert response.status_code == 415
    response = client.post("/api/hint", data={"grid": EASY}, files={"other": ("x", b"x")})
    assert response.status_code == 422 and "file" in response.json()["error"]
    blank = cv2.imencode(".png", np.full((200, 300, 3), 255, np.uint8))[1].tobytes()
    response = client.post("/api/hint", files={"file": ("blank.png", blank, "image/png")})
    assert response.status_code == 422 and "grid" in response.json()["error"]


def test_a_photo_hint_on_a_grid_without_one_answer_says_so_in_web_words(client) -> None:
    with EXAMPLE.open("rb") as handle:
        read = client.post("/api/solve", files={"file": ("example.jpg", handle, "image/jpeg")})
    grid = list(read.json()["grid"])
    for cell in [i for i, d in enumerate(grid) if d != "0"][:6]:
        grid[cell] = "0"
    with EXAMPLE.open("rb") as handle:
        response = client.post(
            "/api/hint",
            files={"file": ("example.jpg", handle, "image/jpeg")},
            data={"grid": "".join(grid)},
        )
    assert response.status_code == 422
    assert response.json()["error"] == (
        "the grid has several solutions: correct the digits that were misread"
    )


def test_an_error_quoting_a_huge_request_is_short(client) -> None:
    from sudoku_lens.web.app import MAX_ERROR_CHARACTERS

    response = client.post("/api/hint", json={"puzzle": EASY, "eliminations": ["r1c3<>4" * 9000]})
    error = response.json()["error"]
    assert response.status_code == 422 and "not an elimination" in error
    assert len(error) == MAX_ERROR_CHARACTERS and "\u2026" in error
    with EXAMPLE.open("rb") as handle:
        response = client.post(
            "/api/hint",
            files={"file": ("example.jpg", handle, "image/jpeg")},
            data={"eliminations": " ".join(["r1c3<>4"] * 730)},
        )
    assert response.status_code == 422
    assert response.json()["error"] == "eliminations: at most 729 candidates"


def test_bad_json_is_named_as_such(client) -> None:
    for route in ("/api/hint", "/api/rate"):
        response = client.post(
            route, content=b'{"puzzle": "5300', headers={"content-type": "application/json"}
        )
        error = response.json()["error"]
        assert response.status_code == 422 and "not valid JSON" in error, error
        assert " at at " not in error


def test_a_body_not_sent_as_json_is_told_how_to_send_it(client) -> None:
    body = f'{{"puzzle": "{EASY}"}}'.encode()
    for route in ("/api/rate", "/api/solve-grid"):
        for headers in ({"content-type": "text/plain"}, {}):
            response = client.post(route, content=body, headers=headers)
            error = response.json()["error"]
            assert response.status_code == 422, error
            assert error == (
                'request body: send a JSON object such as {"puzzle": "..."}'
                " with content-type application/json"
            )
    response = client.post("/api/rate", json=["not", "an", "object"])
    assert response.status_code == 422 and "send a JSON object" in response.json()["error"]


def test_rate(client) -> None:
    response = client.post("/api/rate", json={"puzzle": EASY})
    body = response.json()
    assert response.status_code == 200
    assert body["rating"] == 1.2 and body["level"] == "easy" and body["solved"] is True
    assert body["hardest"] == "hidden-single" and body["steps"] == EASY.count("0")
    for bad in ({"puzzle": "11" + "0" * 79}, {"puzzle": "0" * 81}, {"nothing": 1}):
        response = client.post("/api/rate", json=bad)
        assert response.status_code == 422 and response.json()["error"]
    full = client.post("/api/rate", json={"puzzle": SOLUTION}).json()  # was 0.0, easy
    assert (full["rating"], full["level"], full["solved"], full["steps"]) == (None, None, True, 0)


def test_a_misread_given_many_entries_disagree_with_doubts_the_givens(
    client, filled, monkeypatch
) -> None:
    """A printed digit misread into another unique puzzle: the solve and the hint call none of
    the entries that disagree wrong and say the givens are in doubt, also when the page sends
    the givens read back; with the given corrected, the planted mistakes are wrong again."""
    from conftest import given_misread_to_another_answer
    from sudoku_lens import pipeline
    from sudoku_lens.puzzle import format_line
    from sudoku_lens.puzzle.text import cell_name
    from sudoku_lens.read import reader

    sample, reading = filled
    misread, other = given_misread_to_another_answer(reading)
    monkeypatch.setattr(reader, "read_photo", lambda source, **_: misread)
    monkeypatch.setattr(pipeline, "read_photo", lambda source, **_: misread)
    files = {"file": ("filled.png", cv2.imencode(".png", sample.photo.image)[1].tobytes())}
    disagree = sorted(
        cell_name(int(i))
        for i in np.flatnonzero((misread.entries > 0) & (misread.entries != other))
    )
    for data in ({}, {"grid": format_line(misread.givens)}):
        solved = client.post("/api/solve", files=files, data=data).json()
        assert solved["givens_doubted"] is True and solved["wrong_entries"] == []
        assert sorted(e["cell"] for e in solved["unsure_entries"]) == disagree
        hint = client.post("/api/hint", files=files, data=data).json()
        assert hint["givens_doubted"] is True and hint["wrong_entries"] == []
    corrected = {"grid": format_line(sample.photo.puzzle)}
    solved = client.post("/api/solve", files=files, data=corrected).json()
    assert solved["givens_doubted"] is False
    assert [e["cell"] for e in solved["wrong_entries"]] == [
        cell_name(int(i)) for i in np.flatnonzero(sample.filled.mistakes)
    ]
