"""Reaching the page from a phone on the home network: the computer's addresses, the address to
open, and the same as a QR code to show in a terminal.

Plain functions so that `sudoku-lens serve --lan` stays a thin layer, and so that tests can give
made-up addresses instead of the machine's.
"""

from __future__ import annotations

import io
import ipaddress
import socket
from collections.abc import Iterable

ROUTE_PROBE = "198.51.100.1"
"""An address outside this computer (one reserved for documentation, never a real host): a UDP
socket "connected" to it, which sends nothing, is given the source address of the default route,
the one a phone on the same network reaches."""
WILDCARD_HOSTS = frozenset({"0.0.0.0", "::", ""})
"""--host values meaning "every address of this computer"."""


def usable_addresses(candidates: Iterable[str]) -> list[str]:
    """The IPv4 addresses among `candidates` that another device on the network can reach (not
    loopback, link-local, multicast or unspecified), in their first order, each once."""
    usable: list[str] = []
    for text in candidates:
        try:
            address = ipaddress.ip_address(text)
        except ValueError:
            continue
        if (
            address.version != 4
            or address.is_loopback
            or address.is_link_local
            or address.is_multicast
            or address.is_unspecified
        ):
            continue
        if str(address) not in usable:
            usable.append(str(address))
    return usable


def is_address(name: str) -> bool:
    """True when `name` is an IP address rather than a host name."""
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def lan_addresses() -> list[str]:
    """This computer's IPv4 addresses on its networks, the default route's first.

    Asks the operating system only (no packet is sent): the source address of the default route,
    then every address the host name resolves to.
    """
    candidates: list[str] = []
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect((ROUTE_PROBE, 9))
        candidates.append(probe.getsockname()[0])
    except OSError:
        pass  # no route (no network): the host name may still resolve
    finally:
        probe.close()
    try:
        infos = socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)
    except OSError:
        infos = []
    candidates.extend(str(info[4][0]) for info in infos)
    return usable_addresses(candidates)


def page_url(host: str, port: int, *, secure: bool = True) -> str:
    """The address to open for a server on `host`:`port` (IPv6 addresses in brackets)."""
    shown = f"[{host}]" if ":" in host else host
    return f"{'https' if secure else 'http'}://{shown}:{port}/"


def qr_text(text: str) -> str:
    """`text` as a QR code drawn with Unicode half blocks, two rows of modules per line, its
    light modules as blocks: on a terminal's dark background, dark modules on light, with the
    quiet zone around it that scanners need."""
    import segno

    out = io.StringIO()
    segno.make(text, error="m").terminal(out=out, compact=True)
    return out.getvalue()
