"""What the browser tests share: Debian's Chromium and the flags it runs headless with here, the
fake camera's video and the photo uploaded, the app's page opened in a browser context of its
own, the editor's grid read back, and the skip of a module where there is no browser."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import cv2
import pytest

from sudoku_lens.synth import SyntheticPhoto, SyntheticVideo, synth_photo, synth_video

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
TIMEOUT_MS = 20_000


def browser_or_skip():
    """Playwright's sync API, skipping the calling test module with a clear message where
    Debian's Chromium or Playwright is missing."""
    if not CHROMIUM.exists():
        pytest.skip(
            "browser tests need Debian's Chromium at /usr/bin/chromium: "
            "apt-get install -y chromium",
            allow_module_level=True,
        )
    return pytest.importorskip("playwright.sync_api", reason="browser tests need playwright")


def fake_camera_args(y4m: Path) -> list[str]:
    """Chromium's flags for a fake camera playing the video `y4m`, allowed without asking."""
    return [
        "--use-fake-device-for-media-stream",
        "--use-fake-ui-for-media-stream",
        f"--use-file-for-fake-video-capture={y4m}",
    ]


def camera_video(folder: Path) -> tuple[SyntheticVideo, Path]:
    """A fake camera's video, written into `folder`: a page with a puzzle moving gently in front
    of the lens."""
    clip = synth_video(5, schedule=((0, 45),), size=(640, 480), fps=15.0)
    return clip, clip.write_y4m(folder / "camera.y4m")


def photo_file(folder: Path) -> tuple[SyntheticPhoto, Path]:
    """A photo of an easy puzzle to upload, written into `folder` as a JPEG."""
    shot = synth_photo(11, "easy", rotation=0, size=(1024, 768))
    path = folder / "sudoku.jpg"
    cv2.imwrite(str(path), shot.image, [cv2.IMWRITE_JPEG_QUALITY, 90])
    return shot, path


@contextlib.contextmanager
def opened_page(
    browser, url: str, init_script: str | None = None, *, timeout_ms: int = TIMEOUT_MS, **options
) -> Iterator:
    """The page at `url` in a browser context of its own (`options`: Playwright's, e.g. the
    viewport or a device's), the camera allowed for its origin and `init_script` run before the
    page's own; any JavaScript error on it fails the test."""
    context = browser.new_context(**options)
    parts = urlsplit(url)
    context.grant_permissions(["camera"], origin=f"{parts.scheme}://{parts.netloc}")
    if init_script is not None:
        context.add_init_script(init_script)
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    tab.set_default_timeout(timeout_ms)
    tab.goto(url)
    yield tab
    context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


def grid_state(page) -> tuple[str, str]:
    """The editor's digits (81 chars, 0 for empty and for a cell of candidates) and the answer
    digits shown in empty cells."""
    return page.eval_on_selector_all(
        "#grid input",
        "cells => [cells.map(c => c.classList.contains('notes') ? '0' : c.value || '0').join(''),"
        " cells.map(c => c.placeholder || '0').join('')]",
    )
