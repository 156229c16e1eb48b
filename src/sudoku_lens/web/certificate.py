"""The HTTPS certificate `sudoku-lens serve --lan` serves with: made for itself, or the user's own.

Phone browsers allow the camera only on a secure page (HTTPS, or localhost), so serving to a
phone on the home network needs a certificate. `ensure_certificate` makes a self-signed one on
first use, named for the computer's network addresses and host name, keeps it (with its key) in a
folder of the user's, and reuses it until those names change or it is about to expire, when it
makes a new one. `load_own_certificate` checks a certificate and key the user brings instead, so
that a wrong file is one clear line, not a TLS error.
"""

from __future__ import annotations

import datetime
import ipaddress
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from sudoku_lens.errors import SudokuLensError
from sudoku_lens.web.lan import is_address

CERTIFICATE_FILE = "lan-certificate.pem"
KEY_FILE = "lan-key.pem"
VALID_DAYS = 365
RENEW_DAYS = 30
"""A certificate kept is made anew this many days before it expires, so that a phone is never
shown an expired one."""
CONFIG_FOLDER_VARIABLE = "SUDOKU_LENS_CONFIG_DIR"
"""Environment variable naming the folder the certificate is kept in, instead of the user's
config folder."""


@dataclass(frozen=True)
class Certificate:
    """A certificate and key on disk, ready for the server.

    `names` are the host names and addresses it is valid for; `fingerprint` is its SHA-256 as
    browsers show it (colon-separated hex); `made` is True when it was made by this call rather
    than reused; `self_signed` is False for the user's own.
    """

    certificate_path: Path
    key_path: Path
    names: tuple[str, ...]
    not_after: datetime.datetime
    fingerprint: str
    made: bool
    self_signed: bool


def config_folder() -> Path:
    """Where sudoku-lens keeps its certificate: $SUDOKU_LENS_CONFIG_DIR, else the user's config
    folder (e.g. ~/.config/sudoku-lens on Linux, following XDG_CONFIG_HOME)."""
    named = os.environ.get(CONFIG_FOLDER_VARIABLE)
    if named:
        return Path(named)
    from platformdirs import user_config_path

    return user_config_path("sudoku-lens", appauthor=False)


def certificate_names(host_name: str, addresses: Iterable[str]) -> tuple[str, ...]:
    """The names a certificate for this computer covers: its host name (and `NAME.local`, the
    name phones find it by on most home networks), localhost, its addresses and the loopback
    ones; sorted, each once."""
    names = {"localhost", "127.0.0.1", "::1"}
    if host_name:
        names.add(host_name)
        if "." not in host_name:
            names.add(f"{host_name}.local")
    names.update(str(ipaddress.ip_address(address)) for address in addresses)
    return tuple(sorted(names))


def ensure_certificate(
    folder: Path,
    names: Iterable[str],
    *,
    now: datetime.datetime | None = None,
) -> Certificate:
    """The certificate kept in `folder` when it covers exactly `names` and is not about to
    expire; otherwise a new self-signed one (valid VALID_DAYS days), written there first.

    A kept file that is unreadable, damaged, or whose key does not match, is replaced too.
    """
    wanted = tuple(sorted(set(names)))
    now = now or datetime.datetime.now(datetime.UTC)
    certificate_path = folder / CERTIFICATE_FILE
    key_path = folder / KEY_FILE
    kept = _kept_certificate(certificate_path, key_path)
    if kept is not None:
        certificate = kept
        renew_after = certificate.not_valid_after_utc - datetime.timedelta(days=RENEW_DAYS)
        if _names_of(certificate) == wanted and now < renew_after:
            return _described(certificate, key_path, certificate_path, made=False)
    certificate, key = _self_signed(wanted, now)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        _write_private(
            key_path,
            key.private_bytes(
                serialization.Encoding.PEM,
                serialization.PrivateFormat.PKCS8,
                serialization.NoEncryption(),
            ),
        )
        _write_private(certificate_path, certificate.public_bytes(serialization.Encoding.PEM))
    except OSError as exc:
        raise SudokuLensError(
            f"cannot keep the HTTPS certificate in {folder}: {exc.strerror or exc}"
        ) from None
    return _described(certificate, key_path, certificate_path, made=True)


def load_own_certificate(
    certificate_path: Path, key_path: Path, *, now: datetime.datetime | None = None
) -> Certificate:
    """The user's own certificate (PEM, optionally followed by its chain) and private key (PEM,
    not protected by a passphrase), checked: readable, a certificate and a key, the key the
    certificate's, not expired. Each failure is one SudokuLensError line."""
    certificate_data = _read(certificate_path, "certificate")
    key_data = _read(key_path, "key")
    try:
        certificate = x509.load_pem_x509_certificates(certificate_data)[0]
    except ValueError:
        raise SudokuLensError(
            f"--cert {certificate_path}: not a PEM certificate "
            "(expected -----BEGIN CERTIFICATE-----)"
        ) from None
    try:
        key = serialization.load_pem_private_key(key_data, password=None)
    except TypeError:
        raise SudokuLensError(
            f"--key {key_path}: the key is protected by a passphrase; give one without "
            "(openssl pkey -in KEY -out PLAIN-KEY)"
        ) from None
    except (ValueError, UnsupportedAlgorithm):
        raise SudokuLensError(
            f"--key {key_path}: not a PEM private key (expected -----BEGIN PRIVATE KEY-----)"
        ) from None
    if not _belongs(key, certificate):
        raise SudokuLensError(
            f"--key {key_path} is not the key of the certificate {certificate_path}"
        )
    now = now or datetime.datetime.now(datetime.UTC)
    expiry = certificate.not_valid_after_utc
    if expiry <= now:
        raise SudokuLensError(
            f"--cert {certificate_path} expired on {expiry:%Y-%m-%d}: browsers refuse it"
        )
    return _described(certificate, key_path, certificate_path, made=False, self_signed=False)


def _read(path: Path, what: str) -> bytes:
    option = "--cert" if what == "certificate" else "--key"
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise SudokuLensError(f"{option} {path}: no such {what} file") from None
    except IsADirectoryError:
        raise SudokuLensError(f"{option} {path}: a folder, not a {what} file") from None
    except OSError as exc:
        raise SudokuLensError(f"{option} {path}: cannot read it: {exc.strerror or exc}") from None


def _kept_certificate(certificate_path: Path, key_path: Path) -> x509.Certificate | None:
    """The certificate kept, or None when it or its key is missing, unreadable, damaged, or
    they do not belong together."""
    try:
        certificate = x509.load_pem_x509_certificate(certificate_path.read_bytes())
        key = serialization.load_pem_private_key(key_path.read_bytes(), password=None)
    except (OSError, ValueError, TypeError, UnsupportedAlgorithm):
        return None
    return certificate if _belongs(key, certificate) else None


def _self_signed(
    names: tuple[str, ...], now: datetime.datetime
) -> tuple[x509.Certificate, ec.EllipticCurvePrivateKey]:
    """A new P-256 key and a certificate for `names`, signed by itself, valid from an hour ago
    (a phone's clock a little behind still accepts it) for VALID_DAYS days."""
    key = ec.generate_private_key(ec.SECP256R1())
    host = next((name for name in names if not is_address(name) and name != "localhost"), None)
    subject = x509.Name(
        [x509.NameAttribute(NameOID.COMMON_NAME, f"sudoku-lens on {host or 'this computer'}")]
    )
    alternative_names: list[x509.GeneralName] = [
        x509.IPAddress(ipaddress.ip_address(name)) if is_address(name) else x509.DNSName(name)
        for name in names
    ]
    certificate = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(days=VALID_DAYS))
        .add_extension(x509.SubjectAlternativeName(alternative_names), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=False,
                crl_sign=False,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .sign(key, hashes.SHA256())
    )
    return certificate, key


def _names_of(certificate: x509.Certificate) -> tuple[str, ...]:
    """The host names and addresses a certificate names (its subject alternative names)."""
    try:
        extension = certificate.extensions.get_extension_for_class(x509.SubjectAlternativeName)
    except x509.ExtensionNotFound:
        return ()
    names = extension.value.get_values_for_type(x509.DNSName)
    addresses = extension.value.get_values_for_type(x509.IPAddress)
    return tuple(sorted({*names, *(str(address) for address in addresses)}))


def _described(
    certificate: x509.Certificate,
    key_path: Path,
    certificate_path: Path,
    *,
    made: bool,
    self_signed: bool = True,
) -> Certificate:
    return Certificate(
        certificate_path=certificate_path,
        key_path=key_path,
        names=_names_of(certificate),
        not_after=certificate.not_valid_after_utc,
        fingerprint=_fingerprint(certificate),
        made=made,
        self_signed=self_signed,
    )


def _fingerprint(certificate: x509.Certificate) -> str:
    return certificate.fingerprint(hashes.SHA256()).hex(":").upper()


def _belongs(key: object, certificate: x509.Certificate) -> bool:
    """Whether the private `key` is that of `certificate`'s public key."""
    public = key.public_key()  # type: ignore[attr-defined]
    return _public_der(public) == _public_der(certificate.public_key())


def _public_der(public_key: object) -> bytes:
    return public_key.public_bytes(  # type: ignore[attr-defined]
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )


def _write_private(path: Path, data: bytes) -> None:
    """Write `data` to `path` readable by its owner only, replacing it in one step so that a
    server starting at the same moment never reads half a file."""
    partial = path.with_name(f".{path.name}.{os.getpid()}")
    descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "wb") as file:
        file.write(data)
    os.replace(partial, path)
