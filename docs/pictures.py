"""Make the documentation's pictures with the program itself: `python docs/pictures.py`.

Writes into docs/images/: the bundled example solved, a hand-filled practice photo checked (its
wrong entries ringed), the example's first hint, and the web page on a phone (headless Chromium
at /usr/bin/chromium with a phone's screen, through Playwright: `pip install -e '.[dev]'`).
Each picture is brought down to at most 900 pixels across, so that each stays well under 300 KB.
"""

from __future__ import annotations

import argparse
import socket
import threading
import time
from pathlib import Path

import cv2
import numpy as np

IMAGES = Path(__file__).resolve().parent / "images"
MAX_WIDTH = 900
JPEG_QUALITY = 85
PHONE = {"width": 390, "height": 844}
"""The phone's screen in CSS pixels, as a common phone's; drawn at twice that (device scale 2)."""


def practice_photo() -> np.ndarray:
    """The hand-filled practice photo of docs/checking.md: three of its pen entries are wrong."""
    from sudoku_lens.synth.handwriting import synth_filled_photo

    return synth_filled_photo(3, "easy", mistakes=3, pen="ballpoint-blue", rotation=0).photo.image


def write_jpeg(name: str, image: np.ndarray) -> Path:
    """Write `image` as docs/images/NAME, at most MAX_WIDTH pixels across."""
    height, width = image.shape[:2]
    if width > MAX_WIDTH:
        size = (MAX_WIDTH, round(height * MAX_WIDTH / width))
        image = cv2.resize(image, size, interpolation=cv2.INTER_AREA)
    path = IMAGES / name
    cv2.imwrite(str(path), image, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
    return path


def photo_pictures() -> list[Path]:
    """The solved example, the checked practice photo and the example's hint."""
    from sudoku_lens import solve_photo
    from sudoku_lens.hints import hint_photo
    from sudoku_lens.synth import EXAMPLE_PATH

    return [
        write_jpeg("example-solved.jpg", solve_photo(EXAMPLE_PATH).image),
        write_jpeg("checked.jpg", solve_photo(practice_photo(), check_only=True).image),
        write_jpeg("hint.jpg", hint_photo(EXAMPLE_PATH).image),
    ]


def phone_picture(chromium: str) -> Path:
    """The web page on a phone's screen, the example photo solved: docs/images/phone.png."""
    import uvicorn
    from playwright.sync_api import sync_playwright

    from sudoku_lens.synth import EXAMPLE_PATH
    from sudoku_lens.web import create_app

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(create_app(), log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    path = IMAGES / "phone.png"
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=chromium, args=["--headless", "--no-sandbox", "--disable-gpu"]
            )
            context = browser.new_context(
                viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True
            )
            page = context.new_page()
            page.goto(f"http://127.0.0.1:{sock.getsockname()[1]}")
            page.set_input_files("#file-choose", str(EXAMPLE_PATH))
            page.wait_for_selector("#result:not([hidden])", timeout=30_000)
            page.wait_for_timeout(500)
            shot = page.screenshot(full_page=False)
            browser.close()
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()
    image = cv2.imdecode(np.frombuffer(shot, np.uint8), cv2.IMREAD_COLOR)
    image = cv2.resize(image, (PHONE["width"], PHONE["height"]), interpolation=cv2.INTER_AREA)
    cv2.imwrite(str(path), image, [cv2.IMWRITE_PNG_COMPRESSION, 9])
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chromium", default="/usr/bin/chromium", help="the browser to drive")
    parser.add_argument("--no-phone", action="store_true", help="leave the phone picture as it is")
    args = parser.parse_args()
    paths = photo_pictures()
    if not args.no_phone:
        paths.append(phone_picture(args.chromium))
    for path in paths:
        print(f"wrote {path} ({path.stat().st_size / 1000:.0f} KB)")


if __name__ == "__main__":
    main()
