"""Memory soak of the web server: mixed good and bad requests on loopback for N minutes.

Starts `sudoku-lens serve` on a free localhost port and runs `--clients` threads that each send,
in turn: photos to /api/solve and /api/read (phone-sized and 12-megapixel), camera frames to
/api/live-frame under ever new session ids, puzzles to /api/solve-grid, and bad input (a narrow
image, a truncated JPEG, a bomb header, an upload over the size limit, a long puzzle, malformed
HTTP). Prints the server's resident memory (RSS) after the first minute and at the end, with
their ratio (the goal: at most 1.5), and counts answers by status (the goal: no 500, no reset).

    PYTHONPATH=src python benchmarks/memory_soak.py --minutes 10 --clients 4
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import socket
import struct
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections import Counter

import cv2
import numpy as np

BOUNDARY = "soak-boundary"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def rss_mb(pid: int) -> float:
    """Resident memory of process `pid` in MB, from /proc."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def multipart(data: bytes, extra: dict[str, str] | None = None) -> tuple[bytes, str]:
    parts = [
        f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode()
        for name, value in (extra or {}).items()
    ]
    parts.append(
        f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="p.jpg"\r\n'
        "Content-Type: application/octet-stream\r\n\r\n".encode()
        + data
        + b"\r\n"
    )
    body = b"".join(parts) + f"--{BOUNDARY}--\r\n".encode()
    return body, f"multipart/form-data; boundary={BOUNDARY}"


def make_requests() -> list[tuple[str, str, bytes, str]]:
    """(label, path, body, content type) of every kind of request the clients send."""
    from sudoku_lens.synth import synth_photo

    def jpeg(image: np.ndarray) -> bytes:
        return cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 90])[1].tobytes()

    photo = synth_photo(7, "easy", rotation=0).image
    large = jpeg(cv2.resize(photo, (4000, 3000)))
    small = jpeg(photo)
    frame = jpeg(cv2.resize(photo, (640, 480)))
    narrow = cv2.imencode(".png", np.full((5000, 3, 3), 200, np.uint8))[1].tobytes()
    bomb = b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + b"IHDR" + struct.pack(">II", 19999, 19999)
    bomb += b"\x08\x02\x00\x00\x00" + bytes(4)
    grid = "530070000600195000098000060800060003400803001700020006060000280000419005000080079"
    return [
        ("solve", "/api/solve", *multipart(small)),
        ("solve large", "/api/solve", *multipart(large)),
        ("read", "/api/read", *multipart(small)),
        ("solve corrected", "/api/solve", *multipart(small, {"grid": grid})),
        ("live", "/api/live-frame?session={session}", frame, "image/jpeg"),
        ("grid", "/api/solve-grid", json.dumps({"puzzle": grid}).encode(), "application/json"),
        ("narrow", "/api/read", *multipart(narrow)),
        ("truncated", "/api/solve", *multipart(small[: len(small) // 2])),
        ("bomb", "/api/read", *multipart(bomb)),
        ("too large", "/api/read", *multipart(bytes(16 * 2**20))),
        (
            "long puzzle",
            "/api/solve-grid",
            json.dumps({"puzzle": "1" * 10**6}).encode(),
            "application/json",
        ),
        ("malformed", "", b"", ""),
    ]


def send(port: int, path: str, body: bytes, kind: str) -> str:
    """One request; the answer's status, or the name of the transport error."""
    if not path:
        with socket.create_connection(("127.0.0.1", port), timeout=60) as connection:
            connection.sendall(b"NOT HTTP AT ALL\r\n\x00\r\n\r\n")
            answer = connection.recv(100)
        return answer.split(b" ", 2)[1].decode() if answer.startswith(b"HTTP/") else "no answer"
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}", data=body, headers={"Content-Type": kind}
    )
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            response.read()
            return str(response.status)
    except urllib.error.HTTPError as error:
        json.loads(error.read())
        return str(error.code)
    except OSError as error:
        return type(error).__name__


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--clients", type=int, default=4)
    args = parser.parse_args()

    requests = make_requests()
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "sudoku_lens", "serve", "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=os.environ.copy(),
    )
    assert server.stdout is not None
    server.stdout.readline()
    while send(port, "/api/health", b"", "") == "URLError":
        time.sleep(0.2)
    sessions = itertools.count()
    counts: Counter[str] = Counter()
    lock = threading.Lock()
    deadline = time.monotonic() + 60 * args.minutes

    def client(offset: int) -> None:
        for index in itertools.count(offset):
            if time.monotonic() > deadline:
                return
            label, path, body, kind = requests[index % len(requests)]
            status = send(port, path.format(session=f"soak-{next(sessions):08d}"), body, kind)
            with lock:
                counts[f"{label}: {status}"] += 1

    threads = [threading.Thread(target=client, args=(i * 5,)) for i in range(args.clients)]
    start = time.monotonic()
    print(f"server RSS at start: {rss_mb(server.pid):.0f} MB", flush=True)
    for thread in threads:
        thread.start()
    first = None
    while any(thread.is_alive() for thread in threads):
        time.sleep(5)
        elapsed = time.monotonic() - start
        if first is None and elapsed >= 60:
            first = rss_mb(server.pid)
            print(f"server RSS after the first minute: {first:.0f} MB", flush=True)
    last = rss_mb(server.pid)
    server.terminate()
    server.wait(timeout=30)
    minutes = (time.monotonic() - start) / 60
    print(f"server RSS after {minutes:.1f} minutes: {last:.0f} MB")
    if first is not None:
        print(f"ratio end / first minute: {last / first:.2f} (goal: at most 1.5)")
    print(f"{sum(counts.values())} requests:")
    for key, count in sorted(counts.items()):
        print(f"  {key}: {count}")
    bad = [key for key in counts if key.endswith(": 500") or not key.rsplit(": ", 1)[1].isdigit()]
    print("no 500 and no reset" if not bad else f"PROBLEMS: {bad}")


if __name__ == "__main__":
    main()
