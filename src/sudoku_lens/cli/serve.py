"""`sudoku-lens serve`: the web page and JSON API under uvicorn."""

from __future__ import annotations

import argparse
import socket
from typing import Any

from sudoku_lens.errors import SudokuLensError
from sudoku_lens.read.formats import MAX_BYTES

MAX_UPLOAD_MB = MAX_BYTES / 2**20
"""The largest --max-upload-mb: the image loader refuses larger files (to keep a read's
memory bounded), so a higher upload limit would only let them in to be refused."""

_WEB_PACKAGES = (
    "fastapi",
    "uvicorn",
    "starlette",
    "multipart",
    "python_multipart",
    "anyio",
    "h11",
)


def add_parser(subparsers: Any) -> None:
    """Register the `serve` subcommand."""
    parser = subparsers.add_parser(
        "serve",
        help="serve the web page and JSON API",
        description=(
            "Serve a web page (upload or snap a photo, fix misread digits, camera mode) and a "
            "JSON API (/api/read, /api/solve, /api/solve-grid, /api/hint, /api/rate, "
            "/api/live-frame; docs at /docs)."
        ),
    )
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default: %(default)s)"
    )
    parser.add_argument(
        "--port",
        type=_port,
        default=8000,
        help="port, 0-65535; 0 picks a free one (default: %(default)s)",
    )
    parser.add_argument(
        "--workers-pool",
        type=_positive_int,
        default=None,
        metavar="N",
        help="requests whose image work runs at once; the rest wait their turn "
        "(default: one per core)",
    )
    parser.add_argument(
        "--max-upload-mb",
        type=_upload_mb,
        default=15.0,
        metavar="MB",
        help=f"largest photo accepted, in MB, at most {MAX_UPLOAD_MB:g} (default: %(default)g)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Start uvicorn with the app; returns when the server is stopped."""
    try:
        import uvicorn

        from sudoku_lens.web import create_app
        from sudoku_lens.web.protocol import JsonErrorH11Protocol
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.split(".")[0] in _WEB_PACKAGES:
            raise SudokuLensError(
                f"the web server needs {exc.name}: pip install 'sudoku-lens[web]'"
            ) from None
        raise
    app = create_app(
        max_upload_mb=args.max_upload_mb,
        pool_size=args.workers_pool,
    )
    sock = _listen(args.host, args.port)
    _return_freed_memory()
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    print(f"sudoku-lens: serving on http://{shown}:{port}/ (Ctrl+C to stop)", flush=True)
    config = uvicorn.Config(app, log_level="warning", http=JsonErrorH11Protocol)
    server = uvicorn.Server(config)
    server.run(sockets=[sock])
    return 0


MMAP_THRESHOLD = 1 << 20
"""Allocations of this many bytes or more (decoded photos, their working copies) get pages of
their own from the system, handed back as soon as they are freed."""


def _return_freed_memory() -> None:
    """Keep the server's memory from creeping up under load (glibc only; elsewhere a no-op).

    glibc raises its mmap threshold after each large block is freed, up to 32 MB, so the
    photo-sized buffers of later requests come from per-thread heaps that are rarely returned to
    the system: the resident size climbs with every new peak and stays there. A fixed threshold
    and two arenas keep large buffers out of those heaps.
    """
    import ctypes
    import ctypes.util

    name = ctypes.util.find_library("c")
    if name is None:
        return
    try:
        libc = ctypes.CDLL(name)
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return
    mallopt(-3, MMAP_THRESHOLD)  # M_MMAP_THRESHOLD: fixed, no longer raised dynamically
    mallopt(-8, 2)  # M_ARENA_MAX


def _listen(host: str, port: int) -> socket.socket:
    """Bind the listening socket here, so a busy port is one clear error line, not a log dump."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except (OSError, UnicodeError) as exc:
        sock.close()
        raise SudokuLensError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    sock.listen(2048)  # connections made from now on wait for the server instead of failing
    sock.set_inheritable(True)
    return sock


def _port(text: str) -> int:
    value = _number(text, int)
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"a port is 0-65535, got {value}")
    return value


def _positive_int(text: str) -> int:
    value = _number(text, int)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def _upload_mb(text: str) -> float:
    value = _number(text, float)
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError("must be positive")
    if value > MAX_UPLOAD_MB:
        raise argparse.ArgumentTypeError(
            f"at most {MAX_UPLOAD_MB:g}, got {text}: image files over {MAX_UPLOAD_MB:g} MB are "
            "refused when read, whatever the upload limit"
        )
    return value


def _number(text: str, kind: type[int] | type[float]) -> Any:
    """`text` as an int or a float; a one-line argument error when it is not one."""
    try:
        return kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
