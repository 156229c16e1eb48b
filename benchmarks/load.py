"""Load test of the web API: many clients posting photos to a local server at once.

Starts `sudoku-lens serve` on a free localhost port (or uses `--url`, which must be on this
machine), then runs `--clients` concurrent clients that each post generated photos to
`/api/solve` (or `--endpoint read`) one after another for `--seconds`. Reports requests per
second, latency percentiles and every error; the goal is no error at all, every request answered.

    PYTHONPATH=src python benchmarks/load.py --clients 50 --seconds 30
"""

from __future__ import annotations

import argparse
import asyncio
import ipaddress
import json
import os
import socket
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from urllib.parse import urlparse

import cv2
import httpx
import numpy as np

REQUEST_TIMEOUT = 120.0
"""Seconds one request may take before it counts as an error."""


@dataclass
class Tally:
    """What the clients saw: one latency per answered request, and errors by kind."""

    latencies: list[float] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)
    statuses: Counter[str] = field(default_factory=Counter)


def make_photos(count: int, seed: int) -> list[bytes]:
    """`count` generated phone photos of different puzzles, JPEG-encoded."""
    from sudoku_lens.synth import synth_photo

    photos = []
    for index in range(count):
        photo = synth_photo(seed + index, "easy", rotation=0)
        ok, data = cv2.imencode(".jpg", photo.image, [cv2.IMWRITE_JPEG_QUALITY, 90])
        if not ok:
            raise RuntimeError("JPEG encoding failed")
        photos.append(data.tobytes())
    return photos


def require_local(url: str) -> None:
    """Refuse any target that is not this machine: a load test only ever hits localhost."""
    host = urlparse(url).hostname or ""
    if host == "localhost":
        return
    try:
        if ipaddress.ip_address(host).is_loopback:
            return
    except ValueError:
        pass
    raise SystemExit(f"load.py: error: --url must be on localhost (127.0.0.0/8 or ::1), not {host}")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_server(port: int, pool: int | None) -> subprocess.Popen[bytes]:
    """`sudoku-lens serve` in a child process on `port`, started from this interpreter."""
    command = [sys.executable, "-m", "sudoku_lens", "serve", "--port", str(port)]
    if pool is not None:
        command += ["--workers-pool", str(pool)]
    return subprocess.Popen(command, stdout=subprocess.DEVNULL, env=os.environ.copy())


def wait_until_up(url: str, server: subprocess.Popen[bytes] | None, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server is not None and server.poll() is not None:
            raise SystemExit(f"load.py: error: the server exited with code {server.returncode}")
        try:
            if httpx.get(f"{url}/api/health", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.2)
    raise SystemExit(f"load.py: error: no answer from {url} within {timeout:.0f} s")


async def client(
    http: httpx.AsyncClient,
    endpoint: str,
    photos: list[bytes],
    offset: int,
    deadline: float,
    tally: Tally,
) -> None:
    """Post photos one after another until `deadline`; the request in flight then finishes."""
    index = offset
    while time.monotonic() < deadline:
        photo = photos[index % len(photos)]
        index += 1
        start = time.monotonic()
        try:
            response = await http.post(endpoint, files={"file": ("photo.jpg", photo, "image/jpeg")})
        except httpx.HTTPError as exc:
            tally.errors[type(exc).__name__] += 1
            continue
        elapsed = time.monotonic() - start
        if response.status_code != 200:
            tally.errors[f"HTTP {response.status_code}"] += 1
            continue
        tally.latencies.append(elapsed)
        body = response.json()
        tally.statuses[body.get("status", "read")] += 1


async def run_load(
    url: str, endpoint: str, clients: int, seconds: float, photos: list[bytes]
) -> Tally:
    tally = Tally()
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    timeout = httpx.Timeout(REQUEST_TIMEOUT)
    async with httpx.AsyncClient(base_url=url, limits=limits, timeout=timeout) as http:
        deadline = time.monotonic() + seconds
        await asyncio.gather(
            *(client(http, endpoint, photos, i, deadline, tally) for i in range(clients))
        )
    return tally


def summarise(
    tally: Tally, wall: float, args: argparse.Namespace, photos: int
) -> dict[str, object]:
    latencies = np.array(tally.latencies) if tally.latencies else np.zeros(1)
    answered = len(tally.latencies)
    return {
        "endpoint": args.endpoint,
        "clients": args.clients,
        "seconds": round(wall, 2),
        "photos": photos,
        "requests_ok": answered,
        "requests_per_second": round(answered / wall, 2),
        "latency_p50_s": round(float(np.percentile(latencies, 50)), 3),
        "latency_p99_s": round(float(np.percentile(latencies, 99)), 3),
        "latency_max_s": round(float(latencies.max()), 3),
        "errors": sum(tally.errors.values()),
        "errors_by_kind": dict(tally.errors),
        "statuses": dict(tally.statuses),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=50, help="concurrent clients (default 50)")
    parser.add_argument("--seconds", type=float, default=30, help="how long to send (default 30)")
    parser.add_argument(
        "--url", help="a server already running on localhost, e.g. http://127.0.0.1:8000"
    )
    parser.add_argument("--endpoint", choices=("solve", "read"), default="solve")
    parser.add_argument("--photos", type=int, default=8, help="distinct photos to send (default 8)")
    parser.add_argument("--workers-pool", type=int, help="the started server's --workers-pool")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    args = parser.parse_args(argv)
    if args.clients < 1 or args.seconds <= 0 or args.seconds > 600:
        parser.error("--clients must be at least 1 and --seconds between 0 and 600")

    photos = make_photos(args.photos, args.seed)
    server = None
    if args.url:
        url = args.url.rstrip("/")
        require_local(url)
    else:
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        server = start_server(port, args.workers_pool)
    try:
        wait_until_up(url, server)
        start = time.monotonic()
        tally = asyncio.run(
            run_load(url, f"/api/{args.endpoint}", args.clients, args.seconds, photos)
        )
        wall = time.monotonic() - start
    finally:
        if server is not None:
            server.terminate()
            server.wait(timeout=30)

    summary = summarise(tally, wall, args, len(photos))
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        print(
            f"{summary['clients']} clients, {summary['seconds']} s, "
            f"POST /api/{args.endpoint} with {len(photos)} photos"
        )
        print(f"  requests answered   {summary['requests_ok']}")
        print(f"  requests/second     {summary['requests_per_second']}")
        print(
            f"  latency p50 / p99   {summary['latency_p50_s']} s / {summary['latency_p99_s']} s "
            f"(max {summary['latency_max_s']} s)"
        )
        print(f"  answers by status   {summary['statuses']}")
        print(f"  errors              {summary['errors']} {summary['errors_by_kind'] or ''}")
    return 1 if summary["errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
