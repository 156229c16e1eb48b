"""`sudoku-lens serve`: the web page and JSON API under uvicorn."""

from __future__ import annotations

import argparse
import socket
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sudoku_lens.errors import SudokuLensError
from sudoku_lens.read.formats import MAX_BYTES

if TYPE_CHECKING:
    from sudoku_lens.web.certificate import Certificate

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
    "cryptography",
    "segno",
    "platformdirs",
)

CERTIFICATE_GUIDE = """\
The phone's browser warns once that the connection is not private: the certificate was made by
this computer for itself, not by an authority the phone knows. To go on:
  Chrome (Android):  Advanced, then "Proceed to {host} (unsafe)"
  Safari (iPhone):   Show Details, then "visit this website", then Visit Website
  Firefox:           Advanced, then Accept the Risk and Continue
The certificate's SHA-256 fingerprint, shown under the browser's certificate details:
  {fingerprint}"""


def add_parser(subparsers: Any) -> None:
    """Register the `serve` subcommand."""
    parser = subparsers.add_parser(
        "serve",
        help="serve the web page and JSON API",
        description=(
            "Serve a web page (upload or snap a photo, fix misread digits, camera mode) and a "
            "JSON API (/api/read, /api/solve, /api/solve-grid, /api/hint, /api/rate, "
            "/api/live-frame; docs at /docs). With --lan, to the phones on this network over "
            "HTTPS, so that their live camera works."
        ),
    )
    parser.add_argument(
        "--host",
        default=None,
        help="address to listen on (default: 127.0.0.1; with --lan every address, 0.0.0.0)",
    )
    parser.add_argument(
        "--lan",
        action="store_true",
        help="serve to the phones on this network: listen on every address, print the address "
        "to open and a QR code of it, and serve HTTPS (the camera needs it) with a certificate "
        "made for this computer and kept in its config folder",
    )
    parser.add_argument(
        "--cert",
        type=Path,
        metavar="PEM",
        help="serve HTTPS with this certificate of your own (PEM, its chain may follow) "
        "instead of the one --lan makes; needs --key",
    )
    parser.add_argument(
        "--key",
        type=Path,
        metavar="PEM",
        help="the private key of --cert (PEM, without a passphrase)",
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
    if (args.cert is None) != (args.key is None):
        given, missing = ("--cert", "--key") if args.key is None else ("--key", "--cert")
        raise SudokuLensError(f"{given} needs {missing}: give the certificate and its key")
    try:
        import uvicorn

        from sudoku_lens.web import certificate as certificates
        from sudoku_lens.web import create_app, lan
        from sudoku_lens.web.protocol import JsonErrorH11Protocol
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.split(".")[0] in _WEB_PACKAGES:
            raise SudokuLensError(
                f"the web server needs {exc.name}: pip install 'sudoku-lens[web]'"
            ) from None
        raise
    host = args.host if args.host is not None else ("0.0.0.0" if args.lan else "127.0.0.1")
    if host not in lan.WILDCARD_HOSTS:
        addresses = [host]
    else:
        addresses = lan.lan_addresses() if args.lan else []
    if args.lan and not addresses:
        raise SudokuLensError(
            "--lan found no network address on this computer: connect it to the home network "
            "(Wi-Fi or cable), or name the address with --host"
        )
    certificate: Certificate | None = None
    if args.cert is not None:
        certificate = certificates.load_own_certificate(args.cert, args.key)
    elif args.lan:
        names = certificates.certificate_names(socket.gethostname(), addresses)
        certificate = certificates.ensure_certificate(certificates.config_folder(), names)
    app = create_app(
        max_upload_mb=args.max_upload_mb,
        pool_size=args.workers_pool,
        self_signed_fingerprint=(
            certificate.fingerprint if certificate and certificate.self_signed else None
        ),
    )
    sock = _listen(host, args.port)
    _return_freed_memory()
    bound, port = sock.getsockname()[:2]
    secure = certificate is not None
    if args.lan:
        print(lan_banner(addresses, port, certificate), flush=True)
    else:
        url = lan.page_url(bound, port, secure=secure)
        print(f"sudoku-lens: serving on {url} (Ctrl+C to stop)", flush=True)
    config = uvicorn.Config(
        app,
        log_level="warning",
        http=JsonErrorH11Protocol,
        ssl_certfile=certificate.certificate_path if certificate else None,
        ssl_keyfile=certificate.key_path if certificate else None,
    )
    server = uvicorn.Server(config)
    server.run(sockets=[sock])
    return 0


def lan_banner(addresses: list[str], port: int, certificate: Certificate | None) -> str:
    """What `serve --lan` prints: the address to open on a phone, the same as a QR code, the
    other addresses of this computer, and what the phone's browser will say about a
    certificate made here."""
    from sudoku_lens.web.lan import page_url, qr_text

    host = _address_for(addresses, certificate)
    url = page_url(host, port)
    lines = [
        f"sudoku-lens: serving to this network on {url} (Ctrl+C to stop)",
        "Open it on a phone on the same Wi-Fi, or scan this code with its camera:",
        qr_text(url).rstrip("\n"),
    ]
    others = [page_url(address, port) for address in addresses if address != host]
    if others:
        lines.append("Also on: " + ", ".join(others))
    lines.append(
        "Anyone on this network can open it while it runs: it has no password, and photos "
        "sent to it are not stored."
    )
    if certificate is not None and certificate.self_signed:
        made = "made now" if certificate.made else "kept"
        lines.append(
            f"HTTPS certificate {made} in {certificate.certificate_path.parent}, valid until "
            f"{certificate.not_after:%Y-%m-%d}."
        )
        lines.append(CERTIFICATE_GUIDE.format(host=host, fingerprint=certificate.fingerprint))
    return "\n".join(lines)


def _address_for(addresses: list[str], certificate: Certificate | None) -> str:
    """The host to put in the address shown: the first of `addresses` the certificate is valid
    for; with a certificate of the user's own that names none of them, its first host name."""
    from sudoku_lens.web.lan import is_address

    if certificate is None or certificate.self_signed:
        return addresses[0]
    named = [address for address in addresses if address in certificate.names]
    hosts = [
        name
        for name in certificate.names
        if name != "localhost" and "*" not in name and not is_address(name)
    ]
    return (named or hosts or addresses)[0]


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
