"""The page as a phone sees it from `sudoku-lens serve --lan`: over its HTTPS, in headless Chromium
emulating a phone, the camera a fake one playing generated video. Screenshots go to the system
temp folder (`sudoku-lens-web-lan-*.png`) for a look by eye.

The server is the real command, started as its own process (on 127.0.0.1: no traffic leaves this
computer). The browser trusts the certificate that command made, by its public key
(--ignore-certificate-errors-spki-list), and no other: certificate errors are not ignored.
"""

from __future__ import annotations

import base64
import hashlib
import os
import queue
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from browser_pages import (
    CHROMIUM,
    CHROMIUM_ARGS,
    browser_or_skip,
    camera_video,
    fake_camera_args,
    grid_state,
    opened_page,
    photo_file,
)
from conftest import decode_terminal_qr

sync_api = browser_or_skip()
expect = sync_api.expect
pytest.importorskip("cryptography", reason="serve --lan needs the web extra")

from cryptography import x509  # noqa: E402
from cryptography.hazmat.primitives import serialization  # noqa: E402

from sudoku_lens.puzzle import format_line  # noqa: E402
from sudoku_lens.web.certificate import CERTIFICATE_FILE  # noqa: E402

SHOTS = Path(tempfile.gettempdir())
PHONE = "Pixel 7"
TIMEOUT_MS = 30_000
START_SECONDS = 90


@dataclass(frozen=True)
class LanServer:
    url: str
    printed: str
    certificate: Path
    spki_sha256: str


@pytest.fixture(scope="module")
def lan_server(tmp_path_factory) -> Iterator[LanServer]:
    """`sudoku-lens serve --lan` on 127.0.0.1 and a free port, its certificate made in a folder of
    the test's own: the address served, what it printed, the certificate file, and the base64
    SHA-256 of the certificate's public key."""
    config = tmp_path_factory.mktemp("config")
    env = {**os.environ, "SUDOKU_LENS_CONFIG_DIR": str(config), "PYTHONUNBUFFERED": "1"}
    command = [sys.executable, "-m", "sudoku_lens", "serve", "--lan", "--host", "127.0.0.1"]
    command += ["--port", "0", "--workers-pool", "2"]
    process = subprocess.Popen(
        command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(
        target=lambda: [lines.put(line) for line in process.stdout], daemon=True
    ).start()
    printed: list[str] = []
    deadline = time.monotonic() + START_SECONDS
    while not any(line.startswith("The certificate's SHA-256") for line in printed[:-1]):
        try:
            printed.append(lines.get(timeout=max(0.1, deadline - time.monotonic())))
        except queue.Empty:
            process.kill()
            pytest.fail(f"serve --lan did not start: {''.join(printed)}")
    text = "".join(printed)
    first = printed[0]
    assert first.startswith("sudoku-lens: serving to this network on https://127.0.0.1:"), text
    url = first.split(" on ", 1)[1].split(" ", 1)[0]
    certificate_path = config / CERTIFICATE_FILE
    certificate = x509.load_pem_x509_certificate(certificate_path.read_bytes())
    spki = certificate.public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    spki_sha256 = base64.b64encode(hashlib.sha256(spki).digest()).decode()
    yield LanServer(url, text, certificate_path, spki_sha256)
    process.terminate()
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()


@pytest.fixture(scope="module")
def video(tmp_path_factory):
    """A fake camera: a page with a puzzle moving gently in front of the lens."""
    return camera_video(tmp_path_factory.mktemp("camera"))


@pytest.fixture(scope="module")
def playwright():
    with sync_api.sync_playwright() as instance:
        yield instance


@pytest.fixture(scope="module")
def browser(playwright, lan_server, video):
    """Chromium trusting the certificate serve --lan made (and no other), with a fake camera."""
    _, y4m = video
    args = [
        *CHROMIUM_ARGS,
        f"--ignore-certificate-errors-spki-list={lan_server.spki_sha256}",
        *fake_camera_args(y4m),
    ]
    instance = playwright.chromium.launch(executable_path=str(CHROMIUM), args=args)
    yield instance
    instance.close()


def phone_page(playwright, browser, url: str, init_script: str | None = None):
    """The page on an emulated phone (touch, its screen and user agent): see `opened_page`."""
    device = {k: v for k, v in playwright.devices[PHONE].items() if k != "default_browser_type"}
    return opened_page(browser, url, init_script, timeout_ms=TIMEOUT_MS, **device)


@pytest.fixture(scope="module")
def photo(tmp_path_factory):
    return photo_file(tmp_path_factory.mktemp("photo"))


def test_the_qr_code_printed_decodes_to_the_address_served(lan_server):
    code = "\n".join(
        line for line in lan_server.printed.splitlines() if line and set(line) <= set("█▀▄ ")
    )
    assert decode_terminal_qr(code) == lan_server.url


def test_a_browser_that_does_not_trust_the_certificate_refuses_the_page(playwright, lan_server):
    """The trust is in that one certificate: without its key named, Chromium refuses."""
    instance = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
    try:
        page = instance.new_page()
        with pytest.raises(sync_api.Error, match="ERR_CERT_AUTHORITY_INVALID"):
            page.goto(lan_server.url)
    finally:
        instance.close()


def test_the_page_loads_securely_and_explains_the_certificate_once(playwright, browser, lan_server):
    with phone_page(playwright, browser, lan_server.url) as page:
        assert page.evaluate("location.protocol") == "https:"
        assert page.evaluate("window.isSecureContext") is True
        assert page.evaluate("navigator.maxTouchPoints") > 0
        note = page.locator("#certificate-note")
        expect(note).to_be_visible()
        expect(note).to_contain_text("connection is not private")
        expect(note).to_contain_text("Advanced, then Proceed")
        page.screenshot(path=str(SHOTS / "sudoku-lens-web-lan-certificate.png"))
        page.tap("#certificate-note-close")
        expect(note).to_be_hidden()
        page.reload()
        page.wait_for_function("() => document.getElementById('max-mb').textContent === '15'")
        expect(note).to_be_hidden()


def test_the_manifest_makes_the_page_a_home_screen_app(playwright, browser, lan_server):
    with phone_page(playwright, browser, lan_server.url) as page:
        href = page.get_attribute("link[rel=manifest]", "href")
        fetched = page.evaluate(
            """async (href) => {
                const response = await fetch(href);
                return { type: response.headers.get("content-type"), body: await response.json() };
            }""",
            href,
        )
        assert fetched["type"].startswith("application/manifest+json")
        manifest = fetched["body"]
        assert manifest["name"] == "sudoku-lens"
        assert manifest["short_name"]
        assert manifest["display"] == "standalone"
        assert manifest["start_url"] == "/"
        assert manifest["theme_color"] == page.get_attribute("meta[name=theme-color]", "content")
        shortcut = manifest["shortcuts"][0]
        assert shortcut["url"] == "/#camera"
        sizes = {icon["sizes"] for icon in manifest["icons"] if icon["type"] == "image/png"}
        assert {"192x192", "512x512"} <= sizes
        for icon in manifest["icons"]:
            width, height = page.evaluate(
                """async (src) => {
                    const bitmap = await createImageBitmap(await (await fetch(src)).blob());
                    return [bitmap.width, bitmap.height];
                }""",
                icon["src"],
            )
            assert f"{width}x{height}" == icon["sizes"], icon["src"]


def test_a_photo_chosen_or_taken_on_the_phone_solves_and_hints(
    playwright, browser, lan_server, photo
):
    shot, path = photo
    givens_line = format_line(shot.puzzle)
    solution = format_line(shot.solution)
    with phone_page(playwright, browser, lan_server.url) as page:
        for field in ("#file-choose", "#file-take"):  # the gallery, then the phone's camera app
            page.set_input_files(field, str(path))
            page.wait_for_selector("#result:not([hidden])")
            page.wait_for_selector("#answer-frame[aria-busy=false]")
            expect(page.locator("#message")).to_contain_text("Solved")
            givens, answers = grid_state(page)
            assert givens == givens_line
            assert answers == "".join(
                s if g == "0" else "0" for g, s in zip(givens, solution, strict=True)
            )
        blank = givens_line.index("0")
        page.locator("#grid input").nth(blank).tap()
        page.keyboard.press(str(int(solution[blank]) % 9 + 1))  # a wrong entry of one's own
        page.tap("#check-only")
        expect(page.locator("#answer-caption")).to_contain_text("Checked in")
        expect(page.locator("#message")).to_contain_text("1 of your entries is wrong")
        page.tap("#check-only")
        page.tap("#undo")
        expect(page.locator("#grid input").nth(blank)).to_have_value("")
        page.tap("#hint")
        expect(page.locator("#hint-text")).to_contain_text("only")
        digits, _ = grid_state(page)
        placed = [i for i, (d, g) in enumerate(zip(digits, givens_line, strict=True)) if d != g]
        assert len(placed) == 1 and digits[placed[0]] == solution[placed[0]]


def test_camera_mode_on_the_phone_shows_the_answer(playwright, browser, lan_server, video):
    clip, _ = video
    with phone_page(playwright, browser, lan_server.url) as page:
        page.tap("#tab-camera")
        page.tap("#camera-toggle")
        page.wait_for_selector("#camera-view[data-state=solved]")
        assert "Solved" in page.inner_text("#camera-state")
        assert page.get_attribute("#camera-view", "data-solution") == format_line(clip.solutions[0])


def test_the_home_screen_shortcut_opens_the_live_camera_at_once(
    playwright, browser, lan_server, video
):
    clip, _ = video
    with phone_page(playwright, browser, lan_server.url + "#camera") as page:
        expect(page.locator("#panel-camera")).to_be_visible()
        page.wait_for_selector("#camera-view[data-state=solved]")
        assert page.get_attribute("#camera-view", "data-solution") == format_line(clip.solutions[0])


def camera_failing_with(name: str) -> str:
    """An init script whose camera fails as a browser's does with the DOMException `name`."""
    return (
        "navigator.mediaDevices.getUserMedia = async () => { "
        f"throw new DOMException('the camera failed', '{name}'); }};"
    )


INSECURE_PAGE = """
Object.defineProperty(window, "isSecureContext", { value: false });
Object.defineProperty(navigator, "mediaDevices", { value: undefined });
"""


@pytest.mark.parametrize(
    ("script", "problem", "words"),
    [
        (camera_failing_with("NotAllowedError"), "denied", "set Camera to Allow"),
        (camera_failing_with("NotFoundError"), "missing", "No camera was found"),
        (camera_failing_with("NotReadableError"), "busy", "in use by another app"),
        (INSECURE_PAGE, "insecure", "run sudoku-lens serve --lan"),
    ],
)
def test_a_camera_refused_missing_or_not_allowed_here_says_what_to_do(
    playwright, browser, lan_server, script, problem, words
):
    with phone_page(playwright, browser, lan_server.url, script) as page:
        page.tap("#tab-camera")
        page.tap("#camera-toggle")
        state = page.locator("#camera-state")
        expect(state).to_have_attribute("data-problem", problem)
        expect(state).to_contain_text(words)
        expect(state).to_contain_text("Photo tab")
        assert page.inner_text("#camera-toggle") == "Start camera"
        page.screenshot(path=str(SHOTS / f"sudoku-lens-web-lan-camera-{problem}.png"))


def test_over_https_the_photo_routes_keep_their_upload_limit(lan_server, tmp_path):
    """A client trusting the certificate (it names 127.0.0.1) reaches the API; a photo over the
    limit is refused with the same 413 as without --lan."""
    import json
    import ssl
    import urllib.error
    import urllib.request

    trust = ssl.create_default_context(cafile=str(lan_server.certificate))
    with urllib.request.urlopen(lan_server.url + "api/health", context=trust) as response:
        assert json.load(response)["self_signed_fingerprint"]
    body = b"x" * (16 * 2**20)
    request = urllib.request.Request(
        lan_server.url + "api/solve",
        data=body,
        headers={"Content-Type": "multipart/form-data; boundary=b"},
    )
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, context=trust)
    assert refused.value.code == 413
    assert json.load(refused.value) == {"error": "the upload is too large: the limit is 15 MB"}
