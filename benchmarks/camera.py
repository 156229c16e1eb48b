"""Frame rate of the web page's camera mode, in Debian's Chromium with a fake camera.

Starts `sudoku-lens serve` on a free localhost port, writes a generated video of a page moving in
front of the lens as the browser's fake camera, opens the page in headless Chromium (Playwright,
executable /usr/bin/chromium), starts camera mode, and reports the seconds until the answer is
first drawn and the frames per second the page itself counts over `--seconds` once solved.

    python benchmarks/camera.py --seconds 10
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

from load import free_port, start_server, wait_until_up
from sudoku_lens.synth import synth_video

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
    "--use-fake-device-for-media-stream",
    "--use-fake-ui-for-media-stream",
]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="time measured once solved")
    args = parser.parse_args()
    if not CHROMIUM.exists():
        raise SystemExit(f"camera.py: error: {CHROMIUM} not found: apt-get install -y chromium")

    port = free_port()
    url = f"http://127.0.0.1:{port}"
    server = start_server(port, None)
    try:
        wait_until_up(url, server)
        with tempfile.TemporaryDirectory() as folder:
            clip = synth_video(5, schedule=((0, 150),), size=(640, 480), fps=30.0)
            camera = clip.write_y4m(Path(folder) / "camera.y4m")
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(
                    executable_path=str(CHROMIUM),
                    args=[*CHROMIUM_ARGS, f"--use-file-for-fake-video-capture={camera}"],
                )
                page = browser.new_page(viewport={"width": 1280, "height": 900})
                page.set_default_timeout(30_000)
                page.goto(url)
                page.click("#tab-camera")
                start = time.monotonic()
                page.click("#camera-toggle")
                page.wait_for_selector("#camera-view[data-state=solved]")
                first = time.monotonic() - start
                page.wait_for_timeout(args.seconds * 1000)
                fps = float(page.get_attribute("#camera-fps", "data-fps") or 0)
                state = page.get_attribute("#camera-view", "data-state")
                browser.close()
    finally:
        server.terminate()
        server.wait(timeout=10)
    print(f"camera mode, 640x480 fake camera at 30 fps, headless Chromium, {args.seconds:.0f} s")
    print(f"  first answer drawn after {first:.2f} s")
    print(f"  frames per second (the page's own count) {fps:.1f}, state at the end: {state}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
