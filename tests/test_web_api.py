"""The web API: every route, every error answer, the size and type guards, and the worker pool."""

from __future__ import annotations

import argparse
import asyncio
import base64
import itertools
import re
import socket
import struct
import sys
import threading
import zlib

import cv2
import httpx
import numpy as np
import pytest

pytest.importorskip("fastapi", reason="the web tests need the web extra: pip install '.[web]'")

from fastapi.testclient import TestClient  # noqa: E402

from sudoku_lens.errors import SudokuLensError  # noqa: E402
from sudoku_lens.puzzle import format_line  # noqa: E402
from sudoku_lens.synth import synth_photo, synth_video  # noqa: E402
from sudoku_lens.web import app as web_app  # noqa: E402
from sudoku_lens.web import create_app  # noqa: E402
from sudoku_lens.web.sessions import SessionCache  # noqa: E402

PUZZLE = "530070000600195000098000060800060003400803001700020006060000280000419005000080079"
SOLUTION = "534678912672195348198342567859761423426853791713924856961537284287419635345286179"
TWO_SOLUTIONS = SOLUTION[:3] + "00" + SOLUTION[5:30] + "00" + SOLUTION[32:]  # a swappable rectangle
NO_SOLUTION = "12345678." + "........9" + "." * 63  # r1c9 needs 9, which column 9 already has
SEED = 11


def jpeg(image: np.ndarray, quality: int = 90) -> bytes:
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    assert ok
    return data.tobytes()


@pytest.fixture(scope="module")
def photo():
    """A generated phone photo of a puzzle, its JPEG bytes and its ground truth."""
    shot = synth_photo(SEED, "easy", rotation=0, size=(1024, 768))
    return shot, jpeg(shot.image)


@pytest.fixture(scope="module")
def client():
    with TestClient(create_app(warm_up=False)) as test_client:
        yield test_client


def post_photo(client: TestClient, route: str, data: bytes, **form: str) -> httpx.Response:
    return client.post(route, files={"file": ("photo.jpg", data, "image/jpeg")}, data=form)


def png_header(width: int, height: int) -> bytes:
    """The signature and header chunk of an RGB PNG of this size, with no pixel data."""
    fields = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    crc = struct.pack(">I", zlib.crc32(b"IHDR" + fields))
    return b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + b"IHDR" + fields + crc


def decode_data_url(url: str) -> np.ndarray:
    prefix = "data:image/jpeg;base64,"
    assert url.startswith(prefix)
    image = cv2.imdecode(np.frombuffer(base64.b64decode(url[len(prefix) :]), np.uint8), 1)
    assert image is not None
    return image


# ---------------------------------------------------------------- service routes


def test_health(client):
    response = client.get("/api/health")
    assert response.status_code == 200
    assert response.json()["status"] == "ok"
    assert response.json()["max_upload_mb"] == 15
    assert response.json()["self_signed_fingerprint"] is None


def test_docs_and_openapi_list_every_route(client):
    docs = client.get("/docs")
    assert docs.status_code == 200
    assert "swagger" in docs.text.lower()
    assert "cdn" not in docs.text.lower()
    script = re.search(r'<script src="([^"]+swagger-ui-bundle\.js)"', docs.text)
    assert script and client.get(script.group(1)).status_code == 200
    paths = client.get("/openapi.json").json()["paths"]
    for route in ("/api/health", "/api/read", "/api/solve", "/api/solve-grid", "/api/live-frame"):
        assert route in paths


def test_page_and_static_files_are_served_with_no_external_resources(client):
    page = client.get("/")
    assert page.status_code == 200
    assert "text/html" in page.headers["content-type"]
    assert "default-src 'self'" in page.headers["content-security-policy"]
    assert 'capture="environment"' in page.text
    for mark in ("your entry", "wrong entry", "entry too unclear to check"):
        assert mark in page.text, f"the grid's legend explains '{mark}'"
    external = re.compile(r"(https?:)?//[a-z0-9.-]+\.[a-z]{2,}", re.IGNORECASE)
    assert not external.search(page.text)
    for asset in ("/static/app.js", "/static/app.css"):
        response = client.get(asset)
        assert response.status_code == 200
        assert not external.search(response.text), asset


def test_the_page_can_be_added_to_a_home_screen(client):
    """The page links a web app manifest whose icons are shipped PNGs of the sizes it says, and
    whose shortcut opens camera mode."""
    page = client.get("/")
    assert '<link rel="manifest" href="/static/manifest.webmanifest">' in page.text
    response = client.get("/static/manifest.webmanifest")
    assert response.headers["content-type"].startswith("application/manifest+json")
    manifest = response.json()
    assert (manifest["display"], manifest["start_url"]) == ("standalone", "/")
    assert f'<meta name="theme-color" content="{manifest["theme_color"]}">' in page.text
    assert [shortcut["url"] for shortcut in manifest["shortcuts"]] == ["/#camera"]
    for icon in manifest["icons"]:
        png = client.get(icon["src"])
        assert png.headers["content-type"] == "image/png"
        picture = cv2.imdecode(np.frombuffer(png.content, np.uint8), cv2.IMREAD_COLOR)
        assert f"{picture.shape[1]}x{picture.shape[0]}" == icon["sizes"]
    assert {icon["sizes"] for icon in manifest["icons"]} == {"192x192", "512x512"}


def test_the_page_names_every_format_the_server_reads(client, photo):
    """The page said 'JPEG, PNG or WebP' while BMP, GIF, TIFF and PNM photos are read too."""
    from sudoku_lens.read.formats import SUPPORTED

    assert f"{SUPPORTED}, up to" in client.get("/").text
    shot, _ = photo
    small = cv2.resize(shot.image, (512, 384), interpolation=cv2.INTER_AREA)
    for ending in (".jpg", ".png", ".bmp", ".gif", ".webp", ".tif", ".ppm"):
        ok, data = cv2.imencode(ending, small)
        assert ok
        response = post_photo(client, "/api/read", data.tobytes())
        assert response.status_code == 200, (ending, response.json())


def test_unknown_route_is_a_json_404(client):
    response = client.get("/api/nothing")
    assert response.status_code == 404
    assert response.json() == {"error": "Not Found"}


# ---------------------------------------------------------------- photos


def test_read_returns_the_givens_corners_and_confidences(client, photo):
    shot, data = photo
    response = post_photo(client, "/api/read", data)
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["grid"] == body["givens"] == format_line(shot.puzzle)
    assert body["kinds"] == "".join("p" if d else "." for d in shot.puzzle.ravel())
    assert body["rotation"] == 0
    assert len(body["confidences"]) == 81
    assert np.allclose(body["corners"], shot.corners, atol=12)
    assert body["seconds"] > 0


def test_solve_returns_the_solution_and_the_drawn_photo(client, photo):
    shot, data = photo
    response = post_photo(client, "/api/solve", data)
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["status"] == "solved"
    assert body["grid"] == format_line(shot.puzzle)
    assert body["solution"] == format_line(shot.solution)
    assert body["corrected_cells"] == []
    assert body["wrong_entries"] == body["unsure_entries"] == [] and not body["check_only"]
    assert body["givens"] == body["grid"]
    drawn = decode_data_url(body["image"])
    assert drawn.shape == shot.image.shape
    assert np.abs(drawn.astype(int) - shot.image.astype(int)).mean() > 0.5  # digits were drawn


def test_solve_with_a_corrected_grid_solves_that_grid_on_the_same_photo(client, photo):
    shot, data = photo
    puzzle = format_line(shot.puzzle)
    empty = puzzle.index("0")
    fixed = puzzle[:empty] + format_line(shot.solution)[empty] + puzzle[empty + 1 :]
    response = post_photo(client, "/api/solve", data, grid=fixed)
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["grid"] == fixed
    assert body["solution"] == format_line(shot.solution)
    assert body["corrected_cells"] == [f"r{empty // 9 + 1}c{empty % 9 + 1}"]


def test_solve_with_a_grid_that_has_several_solutions_is_a_200_without_solution(client, photo):
    _, data = photo
    response = post_photo(client, "/api/solve", data, grid=TWO_SOLUTIONS)
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "several solutions"
    assert body["solution"] is None
    assert body["image"].startswith("data:image/jpeg;base64,")


def test_solve_with_an_illegal_grid_is_a_422_naming_the_cells(client, photo):
    _, data = photo
    illegal = "55" + "0" * 79
    response = post_photo(client, "/api/solve", data, grid=illegal)
    assert response.status_code == 422
    error = response.json()["error"]
    assert "row 1" in error.lower() and "r1c1" in error.lower() and "r1c2" in error.lower()


def test_solve_with_a_grid_of_the_wrong_length_is_a_422(client, photo):
    _, data = photo
    response = post_photo(client, "/api/solve", data, grid="123")
    assert response.status_code == 422
    assert "81" in response.json()["error"]


def test_a_photo_without_a_grid_is_a_422(client):
    rng = np.random.default_rng(0)
    blank = cv2.GaussianBlur(rng.integers(90, 200, (480, 640, 3), dtype=np.uint8), (31, 31), 0)
    for route in ("/api/read", "/api/solve"):
        response = post_photo(client, route, jpeg(blank))
        assert response.status_code == 422
        assert "grid" in response.json()["error"].lower()


def test_a_corrupt_image_is_a_422(client, photo):
    _, data = photo
    for route in ("/api/read", "/api/solve"):
        response = post_photo(client, route, data[: len(data) // 3])
        assert response.status_code == 422
        assert "corrupt" in response.json()["error"].lower()


def test_an_empty_upload_is_a_422(client):
    response = post_photo(client, "/api/read", b"")
    assert response.status_code == 422
    assert "empty" in response.json()["error"]


@pytest.mark.parametrize(
    ("content", "hint"),
    [
        (b"530070000600195000098000060800060003400803001700020006060000280000419005000080079", ""),
        (b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj", "PDF"),
        (b"\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic", "HEIC"),
    ],
)
def test_a_file_that_is_not_an_image_is_a_415_whatever_its_name(client, content, hint):
    response = client.post("/api/solve", files={"file": ("photo.jpg", content, "image/jpeg")})
    assert response.status_code == 415
    error = response.json()["error"]
    assert "not an image" in error and hint in error


def multipart_file(name: str, data: bytes) -> tuple[bytes, dict[str, str]]:
    """A multipart body holding `data` as field `file` with the file name `name` exactly (an
    empty one too, which clients leave out), and its content-type header."""
    head = f'--b\r\nContent-Disposition: form-data; name="file"; filename="{name}"\r\n\r\n'
    body = head.encode() + data + b"\r\n--b--\r\n"
    return body, {"content-type": "multipart/form-data; boundary=b"}


@pytest.mark.parametrize("route", ["/api/read", "/api/solve", "/api/hint"])
def test_an_upload_that_cannot_be_used_is_named_by_its_file_name(client, photo, route):
    """As the command line names the file ('scan 7.jpg is a truncated or corrupt JPEG file');
    the errors said 'image data is ...'. An upload without a name is 'the uploaded file'."""
    _, data = photo
    cases = [
        (data[:2000], "scan 7.jpg is a truncated or corrupt JPEG file"),
        (png_header(12000, 9000), "scan 7.jpg is 12000x9000 pixels (108 megapixels); PNG"),
        (b"", "scan 7.jpg is empty"),
        (b"hello", "scan 7.jpg is not an image: send a JPEG, PNG"),
    ]
    for content, start in cases:
        response = client.post(route, files={"file": ("scan 7.jpg", content, "image/jpeg")})
        assert response.status_code in (415, 422)
        assert response.json()["error"].startswith(start)
    body, headers = multipart_file("", data[:2000])
    response = client.post(route, content=body, headers=headers)
    assert response.json() == {"error": "the uploaded file is a truncated or corrupt JPEG file"}


@pytest.mark.parametrize(("width", "height"), [(30000, 30000), (12000, 9000), (19999, 19999)])
def test_an_image_of_too_many_pixels_is_a_422_before_decoding(client, width, height):
    for route in ("/api/read", "/api/solve"):
        response = post_photo(client, route, png_header(width, height))
        assert response.status_code == 422
        assert f"{width}x{height} pixels" in response.json()["error"]


def test_a_missing_file_field_is_a_422_naming_it(client):
    response = client.post("/api/read", data={"grid": PUZZLE})
    assert response.status_code == 422
    assert "file" in response.json()["error"]


@pytest.mark.parametrize("boundary", ["; boundary=xyz", ""])
def test_a_malformed_multipart_body_is_a_json_400(client, boundary):
    response = client.post(
        "/api/read",
        content=b"not multipart at all",
        headers={"content-type": f"multipart/form-data{boundary}"},
    )
    assert response.status_code == 400
    assert "multipart" in response.json()["error"].lower()


def test_a_file_sent_as_a_text_field_is_a_422_naming_it(client):
    response = client.post("/api/read", data={"file": "photo.jpg"})
    assert response.status_code == 422
    assert response.json()["error"] == (
        "file: send the photo as a file upload (multipart/form-data)"
    )


def test_an_upload_over_the_limit_is_a_413_by_its_content_length():
    small = TestClient(create_app(max_upload_mb=0.1, warm_up=False))
    big = b"\xff\xd8\xff" + bytes(300_000)
    response = small.post("/api/read", files={"file": ("big.jpg", big, "image/jpeg")})
    assert response.status_code == 413
    assert response.json() == {"error": "the upload is too large: the limit is 0.1 MB"}


def test_an_upload_over_the_limit_is_a_413_when_streamed_without_a_length():
    small = TestClient(create_app(max_upload_mb=0.1, warm_up=False))

    def chunks():
        yield b"\xff\xd8\xff"
        for _ in range(40):
            yield bytes(10_000)

    response = small.post(
        "/api/live-frame?session=abcdefgh1234",
        content=chunks(),
        headers={"content-type": "image/jpeg"},
    )
    assert response.status_code == 413
    assert "too large" in response.json()["error"]


def test_a_file_just_over_the_limit_inside_the_multipart_slack_is_still_a_413():
    small = TestClient(create_app(max_upload_mb=0.1, warm_up=False))
    just_over = b"\xff\xd8\xff" + bytes(int(0.1 * 2**20))
    response = small.post("/api/read", files={"file": ("big.jpg", just_over, "image/jpeg")})
    assert response.status_code == 413


# ---------------------------------------------------------------- puzzles as text


def test_solve_grid_solves_with_the_cli_json_shape(client):
    response = client.post("/api/solve-grid", json={"puzzle": PUZZLE})
    assert response.status_code == 200
    body = response.json()
    assert {"puzzle", "status", "solution", "guesses", "seconds"} <= set(body)
    assert body["wrong_entries"] == body["unsure_entries"] == body["wrong_candidates"] == []
    assert body["candidates"] == [""] * 81
    assert body["givens"] == PUZZLE
    assert body["kinds"] == "".join("p" if d != "0" else "." for d in PUZZLE)
    assert body["status"] == "solved"
    assert body["solution"] == SOLUTION
    assert body["puzzle"] == PUZZLE


def test_solve_grid_checks_the_entries_sent(client):
    entries = ["0"] * 81
    empty = [i for i, d in enumerate(PUZZLE) if d == "0"]
    entries[empty[0]] = SOLUTION[empty[0]]
    entries[empty[1]] = str(int(SOLUTION[empty[1]]) % 9 + 1)
    body = client.post(
        "/api/solve-grid", json={"puzzle": PUZZLE, "entries": "".join(entries)}
    ).json()
    r, c = divmod(empty[1], 9)
    assert body["wrong_entries"] == [
        {
            "cell": f"r{r + 1}c{c + 1}",
            "written": int(entries[empty[1]]),
            "expected": int(SOLUTION[empty[1]]),
        }
    ]
    assert body["kinds"][empty[0]] == body["kinds"][empty[1]] == "h"


def test_solve_grid_checks_the_candidates_sent(client):
    empty = [i for i, d in enumerate(PUZZLE) if d == "0"]
    left_out, holding, lone = empty[:3]
    candidates = [""] * 81
    others = [d for d in "123456789" if d != SOLUTION[left_out]]
    candidates[left_out] = others[0] + others[1]
    candidates[holding] = SOLUTION[holding] + next(d for d in "123456789" if d != SOLUTION[holding])
    candidates[lone] = next(d for d in "123456789" if d != SOLUTION[lone])
    candidates[PUZZLE.index("5")] = "12"  # a given's cell holds no candidates
    body = client.post("/api/solve-grid", json={"puzzle": PUZZLE, "candidates": candidates}).json()
    r, c = divmod(left_out, 9)
    assert body["wrong_candidates"] == [
        {
            "cell": f"r{r + 1}c{c + 1}",
            "written": "".join(sorted(candidates[left_out])),
            "expected": int(SOLUTION[left_out]),
        }
    ]
    assert body["candidates"][PUZZLE.index("5")] == ""
    assert body["candidates"][holding] == "".join(sorted(candidates[holding]))


@pytest.mark.parametrize(
    ("candidates", "words"),
    [(["12"] * 80, ["candidates", "81"]), (["x"] + [""] * 80, ["r1c1", "x"])],
)
def test_solve_grid_with_bad_candidates_is_a_422_saying_why(client, candidates, words):
    response = client.post("/api/solve-grid", json={"puzzle": PUZZLE, "candidates": candidates})
    assert response.status_code == 422
    error = response.json()["error"]
    for word in words:
        assert word in error


def test_solve_grid_reports_several_solutions(client):
    body = client.post("/api/solve-grid", json={"puzzle": TWO_SOLUTIONS}).json()
    assert body["status"] == "several solutions"
    assert body["solution"] is None


def test_solve_grid_reports_no_solution(client):
    body = client.post("/api/solve-grid", json={"puzzle": NO_SOLUTION}).json()
    assert body["status"] == "no solution"
    assert body["solution"] is None


@pytest.mark.parametrize(
    ("puzzle", "words"),
    [
        ("12" + "0" * 78, ["81"]),
        ("x" + "0" * 80, ["x"]),
        ("5" + "0" * 8 + "5" + "0" * 71, ["column 1", "r1c1", "r2c1"]),
    ],
)
def test_solve_grid_rejects_illegal_puzzles_with_a_422(client, puzzle, words):
    response = client.post("/api/solve-grid", json={"puzzle": puzzle})
    assert response.status_code == 422
    error = response.json()["error"].lower()
    for word in words:
        assert word in error


@pytest.mark.parametrize(
    ("body", "words"),
    [
        (b"", ["request body", "required"]),
        (b"{", ["not valid json"]),
        (b"null", ["request body"]),
        (b"[]", ["request body"]),
        (b'{"puzzle": 5}', ["puzzle", "string"]),
        (b'{"puzzle": null}', ["puzzle", "string"]),
        (b'{"puzzle": ["1"]}', ["puzzle", "string"]),
    ],
)
def test_solve_grid_with_a_malformed_body_is_a_422_saying_why(client, body, words):
    response = client.post(
        "/api/solve-grid", content=body, headers={"content-type": "application/json"}
    )
    assert response.status_code == 422
    error = response.json()["error"].lower()
    for word in words:
        assert word in error


def test_solve_grid_without_a_puzzle_field_is_a_422(client):
    response = client.post("/api/solve-grid", json={"grid": PUZZLE})
    assert response.status_code == 422
    assert "puzzle" in response.json()["error"]


# ---------------------------------------------------------------- camera frames


def test_live_frames_reach_the_solved_state_for_a_session():
    app = create_app(warm_up=False, live_sessions=2)
    video = synth_video(3, schedule=((0, 30),), size=(640, 480), fps=15.0)
    states = []
    with TestClient(app) as client:
        for index, frame in enumerate(video):
            response = client.post(
                f"/api/live-frame?session=test-session-1&t={index / 15:.3f}",
                content=jpeg(frame, 80),
                headers={"content-type": "image/jpeg"},
            )
            assert response.status_code == 200, response.text
            body = response.json()
            states.append(body["state"])
            if body["state"] == "solved":
                break
    assert states[-1] == "solved", states
    assert body["solution"] == format_line(video.solutions[0])
    assert body["puzzle"] == format_line(video.puzzles[0])
    assert (body["width"], body["height"]) == (640, 480)
    assert body["wrong_entries"] == body["unsure_entries"] == [], "a printed page has no entries"
    assert np.allclose(body["corners"], video.truth[index].corners, atol=8)
    assert "test-session-1" in app.state.live_sessions


def test_live_frame_without_a_grid_is_searching(client):
    frame = np.full((480, 640, 3), 200, np.uint8)
    response = client.post(
        "/api/live-frame?session=test-session-2",
        content=jpeg(frame),
        headers={"content-type": "image/jpeg"},
    )
    assert response.status_code == 200
    body = response.json()
    assert body["state"] == "searching"
    assert body["corners"] is None and body["solution"] is None


@pytest.mark.parametrize(
    ("url", "content", "status"),
    [
        ("/api/live-frame?session=bad", b"\xff\xd8\xff\x00", 422),
        ("/api/live-frame?session=../../etc", b"\xff\xd8\xff\x00", 422),
        ("/api/live-frame", b"\xff\xd8\xff\x00", 422),
        ("/api/live-frame?session=abcdefgh1234", b"hello", 415),
        ("/api/live-frame?session=abcdefgh1234", b"\xff\xd8\xff\xe0\x00\x10JFIF", 422),
    ],
)
def test_live_frame_errors(client, url, content, status):
    response = client.post(url, content=content, headers={"content-type": "image/jpeg"})
    assert response.status_code == status
    assert response.json()["error"]


def test_a_live_session_survives_frames_of_another_size(client):
    """A camera switched mid-session sends frames of a new size: no 500, the session restarts."""
    video = synth_video(3, schedule=((0, 6),), size=(640, 480), fps=15.0)
    for index, frame in enumerate(video):
        if index % 2:
            frame = cv2.resize(frame, (480, 360))
        response = client.post(
            f"/api/live-frame?session=resized-session&t={index / 15:.3f}",
            content=jpeg(frame, 80),
            headers={"content-type": "image/jpeg"},
        )
        assert response.status_code == 200, response.text
        assert response.json()["width"] == frame.shape[1]


def test_session_cache_keeps_the_most_recently_used():
    cache: SessionCache[int] = SessionCache(itertools.count().__next__, capacity=2)
    for name in "abac":
        with cache.use(name):
            pass
    with cache.use("a") as state:
        assert state == 0
    assert "a" in cache and "c" in cache and "b" not in cache
    assert len(cache) == 2


# ---------------------------------------------------------------- robustness


def test_a_bug_is_a_logged_json_500_not_a_traceback(monkeypatch, photo):
    def broken(*args):
        raise RuntimeError("boom")

    monkeypatch.setattr(web_app, "_solve_json", broken)
    app = create_app(warm_up=False)
    with TestClient(app, raise_server_exceptions=False) as client:
        response = post_photo(client, "/api/solve", photo[1])
    assert response.status_code == 500
    assert response.json() == {"error": "internal server error"}


def test_many_clients_at_once_are_all_served_by_a_bounded_pool(monkeypatch):
    """Twelve requests at once with a pool of two: two run at a time, every one is answered.

    Each request waits inside the pool until a second one is running beside it (a barrier of
    two), so the pool must run two at once; the count of those inside shows it never runs three.
    """
    running = 0
    peak = 0
    lock = threading.Lock()
    pair = threading.Barrier(2, timeout=30)

    def paired_grid(puzzle, entries=None, candidates=None):
        nonlocal running, peak
        with lock:
            running += 1
            peak = max(peak, running)
        pair.wait()
        with lock:
            running -= 1
        return {
            "puzzle": format_line(puzzle),
            "status": "solved",
            "solution": SOLUTION,
            "guesses": 0,
            "seconds": 0.0,
            "kinds": "." * 81,
            "givens": format_line(puzzle),
            "wrong_entries": [],
            "unsure_entries": [],
            "candidates": [""] * 81,
            "wrong_candidates": [],
        }

    monkeypatch.setattr(web_app, "_grid_json", paired_grid)
    app = create_app(pool_size=2, warm_up=False)

    async def burst():
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
            return await asyncio.gather(
                *(http.post("/api/solve-grid", json={"puzzle": PUZZLE}) for _ in range(12))
            )

    responses = asyncio.run(burst())
    assert [r.status_code for r in responses] == [200] * 12
    assert peak == 2


def test_many_uploads_at_once_hold_a_bounded_number_of_photos_in_memory(monkeypatch, photo):
    """Ten photos at once with a pool of one: at most UPLOADS_PER_WORKER are read into memory
    at a time (the others wait with their bodies unread), and every one is answered."""
    held = 0
    peak = 0
    lock = threading.Lock()
    check = web_app.check_image_bytes

    def counted_check(data: bytes, name: str) -> bytes:
        nonlocal held, peak
        with lock:
            held += 1
            peak = max(peak, held)
        return check(data, name)

    read = web_app._read_json

    def counted_read(data: bytes, name: str) -> dict:
        nonlocal held
        try:
            return read(data, name)
        finally:
            with lock:
                held -= 1

    monkeypatch.setattr(web_app, "check_image_bytes", counted_check)
    monkeypatch.setattr(web_app, "_read_json", counted_read)
    app = create_app(pool_size=1, warm_up=False)
    files = {"file": ("sudoku.jpg", photo[1], "image/jpeg")}

    async def burst():
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
            return await asyncio.gather(*(http.post("/api/read", files=files) for _ in range(10)))

    responses = asyncio.run(burst())
    assert [r.status_code for r in responses] == [200] * 10
    assert peak == web_app.UPLOADS_PER_WORKER


# ---------------------------------------------------------------- the serve command


def serve_args(**overrides):
    args = {
        "host": "127.0.0.1",
        "port": 0,
        "workers_pool": None,
        "max_upload_mb": 15.0,
        "lan": False,
        "cert": None,
        "key": None,
    }
    args.update(overrides)
    return argparse.Namespace(**args)


def test_serve_without_the_web_extra_says_what_to_install(monkeypatch):
    from sudoku_lens.cli import serve

    monkeypatch.setitem(sys.modules, "uvicorn", None)
    with pytest.raises(SudokuLensError, match=r"pip install 'sudoku-lens\[web\]'"):
        serve.run(serve_args())


def test_serve_on_a_busy_port_is_one_clear_error():
    from sudoku_lens.cli import serve

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        with pytest.raises(SudokuLensError, match=f"cannot listen on 127.0.0.1:{port}"):
            serve.run(serve_args(port=port))


def test_serve_options_are_parsed():
    from sudoku_lens.cli import build_parser

    args = build_parser().parse_args(
        [
            "serve",
            "--host",
            "0.0.0.0",
            "--port",
            "9000",
            "--workers-pool",
            "3",
            "--max-upload-mb",
            "5",
        ]
    )
    assert (args.host, args.port, args.workers_pool, args.max_upload_mb) == (
        "0.0.0.0",
        9000,
        3,
        5.0,
    )


def test_an_upload_limit_over_the_image_loaders_is_refused_at_start(capsys):
    """Files over 50 MB are refused when read whatever the limit: `serve --max-upload-mb
    100000` was accepted and shown on the page, and such uploads then got a 422."""
    from sudoku_lens.cli import UsageError, build_parser, main

    with pytest.raises(UsageError) as error:
        build_parser().parse_args(["serve", "--max-upload-mb", "100000"])
    assert str(error.value) == (
        "argument --max-upload-mb: at most 50, got 100000: image files over 50 MB are refused "
        "when read, whatever the upload limit (see sudoku-lens serve --help)"
    )
    assert main(["serve", "--max-upload-mb", "50.5"]) == 2
    assert capsys.readouterr().err.startswith("sudoku-lens: error: argument --max-upload-mb: at")
    assert build_parser().parse_args(["serve", "--max-upload-mb", "50"]).max_upload_mb == 50
    with pytest.raises(ValueError, match="max_upload_mb must be at most 50"):
        create_app(max_upload_mb=51, warm_up=False)


def test_solve_reports_wrong_entries_and_check_only_draws_no_answers(client, monkeypatch):
    import dataclasses

    from conftest import truth_reading
    from sudoku_lens import pipeline
    from sudoku_lens.read.image_io import load_photo
    from sudoku_lens.synth.handwriting import synth_filled_photo

    sample = synth_filled_photo(3, "easy", mistakes=3, pen="ballpoint-blue", rotation=0)
    reading = truth_reading(sample)
    monkeypatch.setattr(
        pipeline,
        "read_photo",
        lambda source, **_: dataclasses.replace(reading, photo=load_photo(source)),
    )
    data = jpeg(sample.photo.image)
    body = post_photo(client, "/api/solve", data).json()
    mistakes = [(int(r), int(c)) for r, c in np.argwhere(sample.filled.mistakes)]
    assert body["wrong_entries"] == [
        {
            "cell": f"r{r + 1}c{c + 1}",
            "written": int(sample.filled.digits[r, c]),
            "expected": int(sample.photo.solution[r, c]),
        }
        for r, c in mistakes
    ]
    assert body["unsure_entries"] == []
    assert body["kinds"].count("h") == int((sample.filled.kinds == 2).sum())
    assert body["givens"] == format_line(sample.photo.puzzle)

    checked = post_photo(client, "/api/solve", data, check_only="true").json()
    assert checked["check_only"] and checked["wrong_entries"] == body["wrong_entries"]
    drawn, marked = decode_data_url(body["image"]), decode_data_url(checked["image"])
    blue = [int((im[..., 0].astype(int) - im[..., 2] > 120).sum()) for im in (drawn, marked)]
    assert blue[0] > blue[1] + 500

    # entries sent by the page are checked instead of those read, with certainty
    entries = ["0"] * 81
    r, c = mistakes[0]
    entries[r * 9 + c] = str(sample.photo.solution[r, c])
    fixed = post_photo(
        client, "/api/solve", data, grid=body["grid"], entries="".join(entries)
    ).json()
    assert fixed["wrong_entries"] == []
