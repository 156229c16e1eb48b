"""Bad input against a real `sudoku-lens serve` process on loopback: always a JSON 4xx, never a
500, a plain-text answer or a reset connection."""

from __future__ import annotations

import json
import re
import socket
import struct
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator

import cv2
import numpy as np
import pytest

pytest.importorskip("uvicorn", reason="the web tests need the web extra: pip install '.[web]'")

UPLOAD_MB = 1


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    """The base URL of `sudoku-lens serve --port 0 --max-upload-mb 1`, stopped afterwards."""
    process = subprocess.Popen(
        [sys.executable, "-m", "sudoku_lens", "serve", "--port", "0", "--max-upload-mb", "1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        match = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        assert match, line
        yield f"http://127.0.0.1:{match.group(1)}"
    finally:
        process.terminate()
        process.wait(timeout=30)


def post(url: str, body: bytes, content_type: str) -> tuple[int, dict[str, object]]:
    """POST with urllib (which sends the whole body before reading): (status, JSON body)."""
    request = urllib.request.Request(url, data=body, headers={"Content-Type": content_type})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def multipart(data: bytes, name: str = "photo.png") -> tuple[bytes, str]:
    boundary = "sudoku-lens-test-boundary"
    body = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{name}"\r\n'
            "Content-Type: application/octet-stream\r\n\r\n"
        ).encode()
        + data
        + f"\r\n--{boundary}--\r\n".encode()
    )
    return body, f"multipart/form-data; boundary={boundary}"


def png(width: int, height: int) -> bytes:
    ok, data = cv2.imencode(".png", np.full((height, width, 3), 200, np.uint8))
    assert ok
    return data.tobytes()


def test_upload_over_the_limit_is_a_413_that_urllib_receives(server: str) -> None:
    body, kind = multipart(bytes(5 * 2**20))
    status, answer = post(f"{server}/api/read", body, kind)
    assert status == 413
    assert answer == {"error": f"the upload is too large: the limit is {UPLOAD_MB} MB"}


def test_malformed_http_is_a_json_400(server: str) -> None:
    port = int(server.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=30) as connection:
        connection.sendall(b"GARBAGE / NOT-HTTP\r\n\x00\x01\r\n\r\n")
        answer = b""
        while chunk := connection.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400")
    assert b"content-type: application/json" in head.lower()
    assert json.loads(body) == {"error": "the request is not valid HTTP/1.1"}


@pytest.mark.parametrize(
    "size", [(2, 3000), (3000, 2), (1, 19999), (16, 20000), (3, 5000), (1, 1), (60, 40)]
)
def test_very_narrow_or_tiny_images_are_a_422_also_as_camera_frames(
    server: str, size: tuple[int, int]
) -> None:
    data = png(*size)
    shown = f"the image is {size[0]}x{size[1]} pixels, too small or too narrow"
    for route in ("/api/read", "/api/solve"):
        status, answer = post(f"{server}{route}", *multipart(data))
        assert status == 422 and shown in str(answer["error"])
    status, answer = post(f"{server}/api/live-frame?session=narrow-frame", data, "image/png")
    assert status == 422 and shown in str(answer["error"])


@pytest.mark.parametrize("ending", [".png", ".jpg"])
def test_corrupt_images_are_a_422_also_as_camera_frames(server: str, ending: str) -> None:
    photo = np.random.default_rng(1).integers(0, 255, (480, 640, 3), dtype=np.uint8)
    data = cv2.imencode(ending, photo)[1].tobytes()[:300]
    kind = "PNG" if ending == ".png" else "JPEG"
    for route in ("/api/read", "/api/solve"):
        status, answer = post(f"{server}{route}", *multipart(data, f"photo{ending}"))
        assert status == 422 and f"truncated or corrupt {kind} file" in str(answer["error"])
    status, answer = post(f"{server}/api/live-frame?session=cut-frame", data, "image/png")
    assert status == 422
    assert answer == {"error": f"the camera frame is a truncated or corrupt {kind} file"}


def tiff_declaring_twice() -> bytes:
    sizes = [(256, 20000), (257, 20000), (256, 10), (257, 10)]
    entries = b"".join(struct.pack("<HHII", tag, 4, 1, value) for tag, value in sizes)
    return b"II*\x00" + struct.pack("<IH", 8, len(sizes)) + entries + bytes(4)


@pytest.mark.parametrize(
    ("data", "shown"),
    [
        (tiff_declaring_twice(), "20000x20000 pixels"),
        (b"P4\n#\x0b10 10\n11000 11000\n" + bytes(64), "11000x11000 pixels"),
        (b"P4\n11000 11000\n" + bytes(64), "11000x11000 pixels"),
    ],
    ids=["tiff-size-twice", "pnm-comment", "pbm-121-mp"],
)
def test_images_over_the_pixel_limit_are_a_422(server: str, data: bytes, shown: str) -> None:
    for route in ("/api/read", "/api/solve"):
        status, answer = post(f"{server}{route}", *multipart(data))
        assert status == 422 and shown in str(answer["error"])
    status, answer = post(f"{server}/api/live-frame?session=large-frame", data, "image/png")
    assert status == 422 and shown in str(answer["error"])


def test_a_long_puzzle_is_refused_unparsed(server: str) -> None:
    body = json.dumps({"puzzle": "1" * 900_000}).encode()
    status, answer = post(f"{server}/api/solve-grid", body, "application/json")
    assert status == 422 and "at most 2000 characters" in str(answer["error"])


def test_a_long_corrected_grid_is_refused(server: str) -> None:
    ok, photo = cv2.imencode(".jpg", np.full((200, 200, 3), 255, np.uint8))
    body, kind = multipart(photo.tobytes())
    boundary = kind.split("=", 1)[1]
    field = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="grid"\r\n\r\n{"1" * 5000}\r\n'
    ).encode()
    status, answer = post(f"{server}/api/solve", field + body, kind)
    assert status == 422 and "at most 2000 characters" in str(answer["error"])


def test_a_body_that_stops_coming_in_is_a_408() -> None:
    """A client that sends its headers and part of a body, then nothing, is answered 408 and
    let go after the stall timeout, rather than holding its connection for ever."""
    import anyio

    from sudoku_lens.web.limits import BodySizeLimit

    reached: list[str] = []

    async def app(scope, receive, send) -> None:
        await receive()  # the first piece of the body
        reached.append("first piece")
        await receive()  # the rest never comes

    async def receive():
        if not reached:
            return {"type": "http.request", "body": b"x" * 100, "more_body": True}
        await anyio.sleep_forever()

    sent: list[dict] = []

    async def send(message) -> None:
        sent.append(message)

    scope = {"type": "http", "headers": [(b"content-length", b"1000")]}
    guard = BodySizeLimit(app, upload_limit=10_000, stall_seconds=0.2)

    async def served() -> None:
        with anyio.fail_after(5):
            await guard(scope, receive, send)

    anyio.run(served)
    assert reached == ["first piece"]
    assert sent[0]["status"] == 408
    assert b"stopped coming in for 0.2 s" in sent[1]["body"]
