"""Serving to the phones of the house: `serve --lan`'s addresses, QR code and HTTPS certificate,
and `--cert`/`--key` for a certificate of one's own.

Addresses are made up here: nothing is sent to any network (the browser test over the HTTPS
that --lan serves is in test_web_lan_browser.py, on loopback only).
"""

from __future__ import annotations

import datetime
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import decode_terminal_qr

pytest.importorskip("cryptography", reason="the web extra is needed")
pytest.importorskip("segno", reason="the web extra is needed")

from cryptography import x509  # noqa: E402
from cryptography.hazmat.primitives import hashes, serialization  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import ec  # noqa: E402
from cryptography.x509.oid import NameOID  # noqa: E402

from sudoku_lens.cli import main  # noqa: E402
from sudoku_lens.errors import SudokuLensError  # noqa: E402
from sudoku_lens.web import certificate as certificates  # noqa: E402
from sudoku_lens.web import lan  # noqa: E402

HOME = ("192.168.1.23",)
MOVED = ("192.168.1.57",)
NOW = datetime.datetime(2026, 12, 1, 12, 0, tzinfo=datetime.UTC)


def names_for(addresses: tuple[str, ...]) -> tuple[str, ...]:
    return certificates.certificate_names("kitchen-pc", addresses)


def sans(path: Path) -> set[str]:
    certificate = x509.load_pem_x509_certificate(path.read_bytes())
    value = certificate.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    return {*value.get_values_for_type(x509.DNSName)} | {
        str(address) for address in value.get_values_for_type(x509.IPAddress)
    }


# ---------------------------------------------------------------- the certificate --lan makes


def test_the_certificate_names_the_computer_its_addresses_and_localhost(tmp_path):
    made = certificates.ensure_certificate(tmp_path, names_for(HOME), now=NOW)
    assert made.made and made.self_signed
    assert sans(made.certificate_path) == {
        "kitchen-pc",
        "kitchen-pc.local",
        "localhost",
        "127.0.0.1",
        "::1",
        "192.168.1.23",
    }
    certificate = x509.load_pem_x509_certificate(made.certificate_path.read_bytes())
    assert certificate.not_valid_after_utc - NOW == datetime.timedelta(days=365)
    assert certificate.not_valid_before_utc <= NOW
    assert made.key_path.stat().st_mode & 0o077 == 0, "the private key is the user's alone"
    assert made.fingerprint == certificate.fingerprint(hashes.SHA256()).hex(":").upper()


def test_the_certificate_is_made_once_and_reused(tmp_path):
    first = certificates.ensure_certificate(tmp_path, names_for(HOME), now=NOW)
    data = first.certificate_path.read_bytes()
    later = NOW + datetime.timedelta(days=200)
    again = certificates.ensure_certificate(tmp_path, names_for(HOME), now=later)
    assert not again.made
    assert again.fingerprint == first.fingerprint
    assert again.certificate_path.read_bytes() == data


def test_a_new_address_renews_the_certificate(tmp_path):
    first = certificates.ensure_certificate(tmp_path, names_for(HOME), now=NOW)
    moved = certificates.ensure_certificate(tmp_path, names_for(MOVED), now=NOW)
    assert moved.made
    assert moved.fingerprint != first.fingerprint
    assert "192.168.1.57" in sans(moved.certificate_path)
    assert "192.168.1.23" not in sans(moved.certificate_path)
    back = certificates.ensure_certificate(tmp_path, names_for(MOVED), now=NOW)
    assert not back.made and back.fingerprint == moved.fingerprint


def test_a_new_host_name_renews_the_certificate(tmp_path):
    first = certificates.ensure_certificate(tmp_path, names_for(HOME), now=NOW)
    renamed = certificates.certificate_names("study-pc", HOME)
    again = certificates.ensure_certificate(tmp_path, renamed, now=NOW)
    assert again.made and again.fingerprint != first.fingerprint
    assert "study-pc" in sans(again.certificate_path)


def test_a_certificate_near_its_expiry_is_renewed(tmp_path):
    first = certificates.ensure_certificate(tmp_path, names_for(HOME), now=NOW)
    near_end = first.not_after - datetime.timedelta(days=certificates.RENEW_DAYS - 1)
    renewed = certificates.ensure_certificate(tmp_path, names_for(HOME), now=near_end)
    assert renewed.made
    assert renewed.not_after == near_end + datetime.timedelta(days=365)


@pytest.mark.parametrize("damage", ["garbage certificate", "missing key", "another key"])
def test_a_damaged_or_mismatched_certificate_is_replaced(tmp_path, damage):
    first = certificates.ensure_certificate(tmp_path, names_for(HOME), now=NOW)
    if damage == "garbage certificate":
        first.certificate_path.write_text("not a certificate")
    elif damage == "missing key":
        first.key_path.unlink()
    else:
        other = ec.generate_private_key(ec.SECP256R1())
        first.key_path.write_bytes(
            other.private_bytes(
                serialization.Encoding.PEM,
                serialization.PrivateFormat.PKCS8,
                serialization.NoEncryption(),
            )
        )
    again = certificates.ensure_certificate(tmp_path, names_for(HOME), now=NOW)
    assert again.made
    assert certificates.load_own_certificate(again.certificate_path, again.key_path, now=NOW)


def test_the_config_folder_can_be_named_by_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv(certificates.CONFIG_FOLDER_VARIABLE, str(tmp_path / "here"))
    assert certificates.config_folder() == tmp_path / "here"
    monkeypatch.delenv(certificates.CONFIG_FOLDER_VARIABLE)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert certificates.config_folder() == tmp_path / "xdg" / "sudoku-lens"


def test_a_folder_that_cannot_hold_the_certificate_is_one_clear_error(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    with pytest.raises(SudokuLensError, match=r"cannot keep the HTTPS certificate in .*a-file"):
        certificates.ensure_certificate(blocker / "sub", names_for(HOME), now=NOW)


# ---------------------------------------------------------------- addresses and the QR code


def test_only_addresses_a_phone_can_reach_are_offered():
    candidates = [
        "192.168.1.23",
        "127.0.0.1",
        "169.254.10.2",
        "0.0.0.0",
        "224.0.0.1",
        "fe80::1",
        "2001:db8::5",
        "192.168.1.23",
        "10.0.0.7",
        "not-an-address",
    ]
    assert lan.usable_addresses(candidates) == ["192.168.1.23", "10.0.0.7"]


def test_the_default_routes_address_comes_first_then_the_host_names(monkeypatch):
    """Discovery asks the operating system only: the socket "connected" to find the default
    route is never sent on, and the host name's addresses are made up here."""
    import socket

    class RouteProbe:
        def __init__(self, *_):
            self.connected = None

        def connect(self, address):
            self.connected = address

        def getsockname(self):
            assert self.connected == (lan.ROUTE_PROBE, 9)
            return ("192.168.1.23", 40000)

        def send(self, *_):
            raise AssertionError("nothing is sent")

        def close(self):
            pass

    monkeypatch.setattr(socket, "socket", RouteProbe)
    monkeypatch.setattr(socket, "gethostname", lambda: "kitchen-pc")
    monkeypatch.setattr(
        socket,
        "getaddrinfo",
        lambda host, *_: (
            [
                (socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, 0))
                for address in ("127.0.1.1", "10.0.0.7", "192.168.1.23")
            ]
            if host == "kitchen-pc"
            else []
        ),
    )
    assert lan.lan_addresses() == ["192.168.1.23", "10.0.0.7"]

    def no_route(self, address):
        raise OSError("Network is unreachable")

    monkeypatch.setattr(RouteProbe, "connect", no_route)
    assert lan.lan_addresses() == ["10.0.0.7", "192.168.1.23"]


@settings(deadline=None)
@given(st.ip_addresses(v=4).map(str), st.integers(min_value=1, max_value=65535))
def test_the_qr_code_decodes_to_the_address(address, port):
    url = lan.page_url(address, port)
    assert decode_terminal_qr(lan.qr_text(url)) == url


# ---------------------------------------------------------------- the serve command


@pytest.fixture
def served(monkeypatch, tmp_path):
    """Runs `sudoku-lens serve ARGS` up to the point of serving, with made-up addresses and the
    certificate kept in a temporary folder; returns what uvicorn was to run and what was
    printed."""
    import uvicorn

    monkeypatch.setenv(certificates.CONFIG_FOLDER_VARIABLE, str(tmp_path / "config"))
    monkeypatch.setattr(lan, "lan_addresses", lambda: ["192.168.1.23", "10.0.0.7"])
    monkeypatch.setattr("socket.gethostname", lambda: "kitchen-pc")
    seen = {}

    def run(server, sockets):
        seen["config"] = server.config
        seen["bound"] = sockets[0].getsockname()[:2]
        sockets[0].close()

    monkeypatch.setattr(uvicorn.Server, "run", run)

    def serve(*args: str):
        assert main(["serve", "--port", "0", *args]) == 0
        return seen

    return serve


def test_without_lan_it_serves_plain_http_on_localhost(served, capsys):
    seen = served()
    assert seen["bound"][0] == "127.0.0.1"
    assert seen["config"].ssl_certfile is None
    out = capsys.readouterr().out
    assert out == f"sudoku-lens: serving on http://127.0.0.1:{seen['bound'][1]}/ (Ctrl+C to stop)\n"


def test_lan_serves_https_on_every_address_and_prints_a_qr_code_of_it(served, capsys, tmp_path):
    seen = served("--lan")
    host, port = seen["bound"]
    assert host == "0.0.0.0"
    folder = tmp_path / "config"
    assert Path(seen["config"].ssl_certfile) == folder / certificates.CERTIFICATE_FILE
    assert Path(seen["config"].ssl_keyfile) == folder / certificates.KEY_FILE
    assert {"192.168.1.23", "10.0.0.7", "kitchen-pc"} <= sans(folder / "lan-certificate.pem")
    out = capsys.readouterr().out
    url = f"https://192.168.1.23:{port}/"
    assert out.startswith(f"sudoku-lens: serving to this network on {url}")
    assert f"Also on: https://10.0.0.7:{port}/" in out
    assert decode_terminal_qr(qr_lines(out)) == url
    assert "Anyone on this network can open it" in out
    assert "certificate made now" in out
    assert '"Proceed to 192.168.1.23 (unsafe)"' in out
    served("--lan")
    assert "certificate kept" in capsys.readouterr().out


def qr_lines(out: str) -> str:
    """The block of QR-code lines in what `serve --lan` printed."""
    return "\n".join(line for line in out.splitlines() if line and set(line) <= set("█▀▄ "))


def test_lan_on_a_computer_without_a_network_says_so(served, monkeypatch, capsys):
    monkeypatch.setattr(lan, "lan_addresses", lambda: [])
    assert main(["serve", "--lan"]) == 2
    assert capsys.readouterr().err == (
        "sudoku-lens: error: --lan found no network address on this computer: connect it to the "
        "home network (Wi-Fi or cable), or name the address with --host\n"
    )


def own_certificate(folder: Path, names: list[str], *, days: int = 90) -> tuple[Path, Path]:
    """A certificate and key of the user's own (here signed by itself), for `names`."""
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, names[0])])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=400))
        .not_valid_after(now + datetime.timedelta(days=days))
        .add_extension(
            x509.SubjectAlternativeName([x509.DNSName(name) for name in names]), critical=False
        )
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = folder / "own.crt", folder / "own.key"
    cert_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.TraditionalOpenSSL,
            serialization.NoEncryption(),
        )
    )
    return cert_path, key_path


def test_lan_with_a_certificate_of_ones_own_shows_the_name_it_is_for(served, capsys, tmp_path):
    cert, key = own_certificate(tmp_path, ["sudoku.home.example", "localhost"])
    seen = served("--lan", "--cert", str(cert), "--key", str(key))
    assert seen["config"].ssl_certfile == cert
    assert seen["config"].ssl_keyfile == key
    out = capsys.readouterr().out
    url = f"https://sudoku.home.example:{seen['bound'][1]}/"
    assert out.startswith(f"sudoku-lens: serving to this network on {url}")
    assert decode_terminal_qr(qr_lines(out)) == url
    assert "Proceed to" not in out, "no warning to explain for a certificate of one's own"
    assert not (tmp_path / "config").exists(), "no certificate is made"


def test_a_certificate_of_ones_own_without_lan_serves_https_on_localhost(served, capsys, tmp_path):
    cert, key = own_certificate(tmp_path, ["localhost"])
    seen = served("--cert", str(cert), "--key", str(key))
    assert seen["bound"][0] == "127.0.0.1"
    assert capsys.readouterr().out.startswith("sudoku-lens: serving on https://127.0.0.1:")


def serve_error(args: list[str], capsys) -> str:
    assert main(["serve", "--port", "0", *args]) == 2
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    assert captured.err.count("\n") == 1, captured.err
    return captured.err.removeprefix("sudoku-lens: error: ").rstrip("\n")


def test_cert_without_key_and_key_without_cert_are_refused(tmp_path, capsys):
    cert, key = own_certificate(tmp_path, ["localhost"])
    assert serve_error(["--cert", str(cert)], capsys) == (
        "--cert needs --key: give the certificate and its key"
    )
    assert serve_error(["--lan", "--key", str(key)], capsys) == (
        "--key needs --cert: give the certificate and its key"
    )


def test_a_missing_or_unreadable_certificate_or_key_is_one_clear_line(tmp_path, capsys):
    cert, key = own_certificate(tmp_path, ["localhost"])
    missing = tmp_path / "nowhere.pem"
    assert serve_error(["--cert", str(missing), "--key", str(key)], capsys) == (
        f"--cert {missing}: no such certificate file"
    )
    assert serve_error(["--cert", str(cert), "--key", str(missing)], capsys) == (
        f"--key {missing}: no such key file"
    )
    assert serve_error(["--cert", str(tmp_path), "--key", str(key)], capsys) == (
        f"--cert {tmp_path}: a folder, not a certificate file"
    )
    assert serve_error(["--cert", str(key), "--key", str(key)], capsys) == (
        f"--cert {key}: not a PEM certificate (expected -----BEGIN CERTIFICATE-----)"
    )
    assert serve_error(["--cert", str(cert), "--key", str(cert)], capsys) == (
        f"--key {cert}: not a PEM private key (expected -----BEGIN PRIVATE KEY-----)"
    )


def test_a_key_that_is_not_the_certificates_is_refused(tmp_path, capsys):
    cert, _ = own_certificate(tmp_path, ["localhost"])
    other = tmp_path / "other"
    other.mkdir()
    _, other_key = own_certificate(other, ["localhost"])
    assert serve_error(["--cert", str(cert), "--key", str(other_key)], capsys) == (
        f"--key {other_key} is not the key of the certificate {cert}"
    )


def test_a_key_with_a_passphrase_or_an_expired_certificate_is_refused(tmp_path, capsys):
    cert, key = own_certificate(tmp_path, ["localhost"])
    locked = tmp_path / "locked.key"
    locked.write_bytes(
        serialization.load_pem_private_key(key.read_bytes(), None).private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.BestAvailableEncryption(b"secret"),
        )
    )
    assert serve_error(["--cert", str(cert), "--key", str(locked)], capsys).startswith(
        f"--key {locked}: the key is protected by a passphrase"
    )
    old = tmp_path / "old"
    old.mkdir()
    expired, expired_key = own_certificate(old, ["localhost"], days=-2)
    assert serve_error(["--cert", str(expired), "--key", str(expired_key)], capsys).startswith(
        f"--cert {expired} expired on "
    )


def test_serve_options_for_the_lan_are_parsed():
    from sudoku_lens.cli import build_parser

    args = build_parser().parse_args(["serve", "--lan", "--cert", "c.pem", "--key", "k.pem"])
    assert (args.lan, args.cert, args.key, args.host) == (True, Path("c.pem"), Path("k.pem"), None)
