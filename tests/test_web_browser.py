"""The web page in a real browser: Debian's Chromium driven by Playwright against a live server.

Covers uploading or dropping a photo and seeing the answer, fixing a digit and seeing the puzzle
re-solved, the phone-width layout, and camera mode fed a fake camera made of generated video
frames.
Screenshots go to the system temp folder (`sudoku-lens-web-*.png`) for a look by eye.
"""

from __future__ import annotations

import base64
import contextlib
import dataclasses
import re
import socket
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np
import pytest

from browser_pages import (
    CHROMIUM,
    CHROMIUM_ARGS,
    TIMEOUT_MS,
    browser_or_skip,
    camera_video,
    fake_camera_args,
    grid_state,
    opened_page,
    photo_file,
)

sync_api = browser_or_skip()
expect = sync_api.expect
uvicorn = pytest.importorskip("uvicorn", reason="browser tests need the web extra")

from sudoku_lens.puzzle import format_line  # noqa: E402
from sudoku_lens.solve import solve  # noqa: E402
from sudoku_lens.web import create_app  # noqa: E402

SHOTS = Path(tempfile.gettempdir())


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    """The app under uvicorn on a free localhost port, in a background thread."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    instance = uvicorn.Server(uvicorn.Config(create_app(), log_level="warning"))
    thread = threading.Thread(target=instance.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not instance.started:
        if time.monotonic() > deadline or not thread.is_alive():
            pytest.fail("the web server did not start")
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    instance.should_exit = True
    thread.join(timeout=10)
    sock.close()


@pytest.fixture(scope="module")
def video(tmp_path_factory):
    """A fake camera: a page with a puzzle moving gently in front of the lens."""
    return camera_video(tmp_path_factory.mktemp("camera"))


@pytest.fixture(scope="module")
def browser(video):
    _, y4m = video
    args = CHROMIUM_ARGS + fake_camera_args(y4m)
    with sync_api.sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=str(CHROMIUM), args=args)
        yield instance
        instance.close()


@pytest.fixture
def page(browser, server):
    with opened_page(browser, server, viewport={"width": 1280, "height": 900}) as tab:
        yield tab


@pytest.fixture(scope="module")
def photo(tmp_path_factory):
    return photo_file(tmp_path_factory.mktemp("photo"))


def upload(page, path: Path) -> None:
    page.set_input_files("#file-choose", str(path))
    page.wait_for_selector("#result:not([hidden])")
    page.wait_for_selector("#answer-frame[aria-busy=false]")


def upload_read_as(page, sample, reading, tmp_path: Path, monkeypatch) -> None:
    """Upload `sample`'s photo with the server reading it as `reading` (the generator's digits
    and kinds) for solving and for hints, so the test does not depend on the models."""
    import dataclasses

    from sudoku_lens import pipeline
    from sudoku_lens.read import reader
    from sudoku_lens.read.image_io import load_photo

    monkeypatch.setattr(
        pipeline,
        "read_photo",
        lambda source, **_: dataclasses.replace(reading, photo=load_photo(source)),
    )
    monkeypatch.setattr(reader, "read_photo", lambda source, **_: reading)
    path = tmp_path / "filled.jpg"
    cv2.imwrite(str(path), sample.photo.image, [cv2.IMWRITE_JPEG_QUALITY, 90])
    upload(page, path)


def test_upload_shows_the_answer_and_the_grid(page, photo):
    shot, path = photo
    upload(page, path)
    givens, answers = grid_state(page)
    assert givens == format_line(shot.puzzle)
    solution = format_line(shot.solution)
    assert answers == "".join(s if g == "0" else "0" for g, s in zip(givens, solution, strict=True))
    assert page.get_attribute("#answer-image", "src").startswith("data:image/jpeg;base64,")
    assert page.eval_on_selector("#answer-image", "img => img.naturalWidth") == 1024
    assert "Solved" in page.inner_text("#message")
    page.screenshot(path=str(SHOTS / "sudoku-lens-web-photo.png"), full_page=True)


def test_dropping_a_photo_on_the_page_reads_it(page, photo):
    shot, path = photo
    transfer = page.evaluate_handle(
        """(b64) => {
            const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
            const transfer = new DataTransfer();
            transfer.items.add(new File([bytes], "dropped.jpg", { type: "image/jpeg" }));
            return transfer;
        }""",
        base64.b64encode(path.read_bytes()).decode("ascii"),
    )
    page.dispatch_event("#drop", "drop", {"dataTransfer": transfer})
    page.wait_for_selector("#result:not([hidden])")
    expect(page.locator("#message")).to_contain_text("Solved")
    assert grid_state(page)[0] == format_line(shot.puzzle)


def test_fixing_a_digit_re_solves_the_puzzle(page, photo):
    shot, path = photo
    upload(page, path)
    puzzle = format_line(shot.puzzle)
    wrong_at, wrong = misread(puzzle)
    first_image = page.get_attribute("#answer-image", "src")

    cell = page.locator("#grid input").nth(wrong_at)
    cell.click()
    page.keyboard.press(wrong)
    expect(page.locator("#message")).to_contain_text("no solution")
    assert grid_state(page)[1] == "0" * 81  # no answer shown for a grid without one
    assert "edited" in cell.get_attribute("class")  # a misread print is corrected as print
    assert "handwritten" not in cell.get_attribute("class")
    page.screenshot(path=str(SHOTS / "sudoku-lens-web-no-solution.png"), full_page=True)

    cell.click()
    page.keyboard.press(puzzle[wrong_at])
    expect(page.locator("#message")).to_contain_text("Solved")
    givens, answers = grid_state(page)
    assert givens == puzzle
    assert "0" not in "".join(a if a != "0" else g for g, a in zip(givens, answers, strict=True))

    empty_at = puzzle.index("0")
    answer = format_line(shot.solution)[empty_at]
    page.locator("#grid input").nth(empty_at).click()
    page.keyboard.press(answer)
    expect(page.locator("#message")).to_contain_text("your fixes")
    assert grid_state(page)[0][empty_at] == answer
    assert page.get_attribute("#answer-image", "src") != first_image


def sent_form(page, route: str) -> None:
    """Keep the last multipart form the page sends to `route` as `window.sent` (Chromium does
    not hand a multipart body with a file to Playwright)."""
    page.evaluate(
        """(route) => {
            const send = window.fetch;
            window.fetch = (url, options) => {
                if (String(url).endsWith(route) && options.body instanceof FormData) {
                    window.sent = Object.fromEntries(
                        [...options.body.entries()].filter(([k]) => k !== "file"));
                }
                return send(url, options);
            };
        }""",
        route,
    )


def test_a_digit_typed_into_an_empty_cell_is_an_entry_and_g_makes_it_a_given(page, photo):
    """On a photo's grid a typed digit is the person's entry, checked against the answer (a wrong
    one is reported wrong, not a grid without solution); G and the Make given / Make entry
    button turn a cell between given and entry."""
    shot, path = photo
    upload(page, path)
    puzzle, solution = format_line(shot.puzzle), format_line(shot.solution)
    sent_form(page, "/api/solve")
    empty_at = puzzle.index("0")
    row, col = divmod(empty_at, 9)
    seen = {puzzle[k] for k in range(81) if k // 9 == row or k % 9 == col}
    seen |= {puzzle[k] for k in range(81) if (k // 27, k % 9 // 3) == (row // 3, col // 3)}
    typo = next(d for d in "123456789" if d not in seen and d != solution[empty_at])
    cell = page.locator("#grid input").nth(empty_at)
    cell.click()
    page.keyboard.press(typo)
    expect(page.locator("#message")).to_contain_text("1 of your entries is wrong")
    assert {"handwritten", "wrong"} <= set(cell.get_attribute("class").split())
    assert cell.get_attribute("title") == f"should be {solution[empty_at]}"
    sent = page.evaluate("() => window.sent")
    assert sent["grid"] == puzzle and sent["entries"][empty_at] == typo

    page.keyboard.press("g")  # the typed digit becomes a given: the puzzle has no solution now
    expect(page.locator("#message")).to_contain_text("no solution")
    assert "handwritten" not in cell.get_attribute("class")
    assert page.evaluate("() => window.sent")["grid"][empty_at] == typo
    toggle = page.locator("#kind-toggle")
    expect(toggle).to_have_text("Make entry")
    toggle.click()  # and back to the person's entry, the cell still selected
    expect(page.locator("#message")).to_contain_text("1 of your entries is wrong")
    expect(toggle).to_have_text("Make given")
    assert page.evaluate("() => document.activeElement.dataset.index") == str(empty_at)

    given_at = next(i for i, d in enumerate(puzzle) if d != "0")  # print taken for a given
    page.locator("#grid input").nth(given_at).click()
    toggle.click()
    expect(page.locator("#grid input").nth(given_at)).to_have_class(re.compile("handwritten"))
    page.wait_for_function(f"() => window.sent.grid[{given_at}] === '0'")
    assert page.evaluate("() => window.sent")["entries"][given_at] == puzzle[given_at]
    label = page.locator("#grid input").nth(given_at).get_attribute("aria-label")
    assert f"your entry {puzzle[given_at]}" in label


def shown_picture(page) -> np.ndarray:
    """The picture the page shows beside the grid, decoded (BGR)."""
    src = page.get_attribute("#answer-image", "src")
    assert src.startswith("data:image/jpeg;base64,")
    data = np.frombuffer(base64.b64decode(src.split(",", 1)[1]), np.uint8)
    return cv2.imdecode(data, cv2.IMREAD_COLOR)


def test_digits_typed_into_blank_cells_are_drawn_into_the_picture(page, photo):
    """A digit typed where the photo has none is drawn into the picture in pen, in solve and
    check-only modes alike: a wrong one stands inside its red ring (the ring went round blank
    paper), a right one is shown too (the cell stayed blank)."""
    from conftest import pen_digit
    from sudoku_lens.pipeline import answer_reading
    from sudoku_lens.read.reader import read_photo

    shot, path = photo
    upload(page, path)
    puzzle, solution = format_line(shot.puzzle), format_line(shot.solution)
    blank = [i for i, d in enumerate(puzzle) if d == "0"]
    wrong, right = blank[0], blank[-1]
    typed = {wrong: str(int(solution[wrong]) % 9 + 1), right: solution[right]}
    for index, digit in typed.items():
        page.locator("#grid input").nth(index).click()
        page.keyboard.press(digit)
    caption = page.locator("#answer-caption")
    expect(caption).to_contain_text("Solved in")
    expect(page.locator("#message")).to_contain_text("1 of your entries is wrong")
    reading = read_photo(path)  # as the server reads it: where it draws, and how tall
    height = answer_reading(reading).digit_height
    expected = {i: int(d) for i, d in typed.items()}
    for check_only in (False, True):
        if check_only:
            page.check("#check-only")
            expect(caption).to_contain_text("Checked in")
        # The caption and message already hold after the first digit's answer: the picture of
        # the answer for both digits may come a moment later, so it is looked at until it does.
        deadline = time.monotonic() + TIMEOUT_MS / 1000
        while True:
            picture = shown_picture(page)
            shown = {i: pen_digit(picture, reading.corners, i // 9, i % 9, height) for i in typed}
            if shown == expected or time.monotonic() > deadline:
                break
            page.wait_for_timeout(100)
        assert shown == expected, f"check only: {check_only}"
    page.screenshot(path=str(SHOTS / "sudoku-lens-web-typed-entries.png"), full_page=True)


def test_after_an_edit_the_picture_and_caption_follow_the_grid(page, photo):
    shot, path = photo
    upload(page, path)
    expect(page.locator("#answer-caption")).to_contain_text("Solved in")
    puzzle = format_line(shot.puzzle)
    given_at = next(i for i, d in enumerate(puzzle) if d != "0")
    row = puzzle[9 * (given_at // 9) : 9 * (given_at // 9) + 9]
    clash = next(d for d in row if d not in ("0", puzzle[given_at]))  # another given in its row

    cell = page.locator("#grid input").nth(given_at)
    cell.click()
    page.keyboard.press(clash)
    expect(page.locator("#message")).to_contain_text("breaks the rules")
    caption = page.locator("#answer-caption")
    expect(caption).to_have_text("Not solved: the edited grid breaks the rules.")
    assert page.get_attribute("#answer-image", "src").startswith("blob:")  # the photo as sent
    page.screenshot(path=str(SHOTS / "sudoku-lens-web-breaks-the-rules.png"), full_page=True)

    cell.click()
    page.keyboard.press(puzzle[given_at])
    expect(caption).to_contain_text("Solved in")
    assert page.get_attribute("#answer-image", "src").startswith("data:image/jpeg;base64,")


def misread(puzzle: str) -> tuple[int, str]:
    """A given cell and another digit for it that breaks no rule but leaves no solution."""
    for index, digit in enumerate(puzzle):
        if digit == "0":
            continue
        for other in "123456789":
            changed = puzzle[:index] + other + puzzle[index + 1 :]
            if other == digit or not legal(changed):
                continue
            if solve(changed).status.value == "no solution":
                return index, other
    raise AssertionError("no legal misreading found")


def legal(line: str) -> bool:
    grid = np.array([int(c) for c in line]).reshape(9, 9)
    units = [grid[r] for r in range(9)] + [grid[:, c] for c in range(9)]
    units += [grid[r : r + 3, c : c + 3].ravel() for r in (0, 3, 6) for c in (0, 3, 6)]
    return all(len(u[u > 0]) == len(set(u[u > 0])) for u in units)


def test_a_photo_without_a_grid_says_so(page, tmp_path, photo):
    upload(page, photo[1])  # a photo read first: the drop area folds up beside its answer
    blank = np.full((600, 800, 3), 235, np.uint8)
    cv2.putText(blank, "no puzzle here", (80, 300), cv2.FONT_HERSHEY_SIMPLEX, 2, (40, 40, 40), 3)
    path = tmp_path / "blank.jpg"
    cv2.imwrite(str(path), blank)
    page.set_input_files("#file-choose", str(path))
    page.wait_for_selector("#message.error")
    text = page.inner_text("#message")
    assert "No answer for this photo" in text and "grid" in text.lower()
    assert page.is_hidden("#result")
    assert page.is_visible(".drop-title")  # and opens again to say what it takes


def test_the_page_fits_a_phone_screen(browser, server, photo):
    _, path = photo
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(server)
    upload(page, path)
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0
    box = page.locator("#grid").bounding_box()
    assert box["width"] <= 390 and box["width"] >= 300
    page.screenshot(path=str(SHOTS / "sudoku-lens-web-phone.png"), full_page=True)
    context.close()


# Phones as Playwright's device list describes them (viewport in CSS pixels).
IPHONE_13 = {"width": 390, "height": 664}
IPHONE_13_SIDEWAYS = {"width": 750, "height": 342}


def phone(browser, server: str, viewport: dict[str, int]) -> contextlib.AbstractContextManager:
    """A page on a touch screen of the size of `viewport`."""
    return opened_page(browser, server, viewport=viewport, is_mobile=True, has_touch=True)


def test_a_phone_keypad_types_over_a_digit(browser, server, photo):
    """A phone's on-screen keypad sends the digit as text, not as a key press: after a tap on a
    printed digit read wrong, the digit typed replaces it (the tap put the caret beside the old
    digit and the one-character limit dropped the new one, so no misread could be fixed)."""
    shot, path = photo
    puzzle = format_line(shot.puzzle)
    wrong_at, wrong = misread(puzzle)
    with phone(browser, server, IPHONE_13) as tab:
        upload(tab, path)
        cell = tab.locator("#grid input").nth(wrong_at)
        assert cell.get_attribute("inputmode") == "numeric"  # a keypad of digits
        cell.tap()
        tab.keyboard.insert_text(wrong)
        expect(cell).to_have_value(wrong)
        expect(tab.locator("#message")).to_contain_text("no solution")
        assert "edited" in cell.get_attribute("class")
        cell.tap()
        tab.keyboard.insert_text(puzzle[wrong_at])
        expect(cell).to_have_value(puzzle[wrong_at])
        expect(tab.locator("#message")).to_contain_text("Solved")


def test_the_whole_grid_fits_a_phone_held_sideways(browser, server, photo):
    """Held sideways a phone is 342 pixels tall: the grid (432 pixels wide and tall there) had
    its bottom rows out of view while the top ones were read and typed into."""
    with phone(browser, server, IPHONE_13_SIDEWAYS) as tab:
        upload(tab, photo[1])
        tab.locator("#grid").scroll_into_view_if_needed()
        box = tab.locator("#grid").bounding_box()
        assert box["height"] <= IPHONE_13_SIDEWAYS["height"], box
        assert box["width"] >= 0.8 * IPHONE_13_SIDEWAYS["height"], box  # and no smaller
        picture = tab.locator("#answer-image").bounding_box()
        assert picture["height"] <= IPHONE_13_SIDEWAYS["height"], picture
        assert tab.evaluate("document.documentElement.scrollWidth - window.innerWidth") <= 0
        tab.screenshot(path=str(SHOTS / "sudoku-lens-web-phone-sideways.png"))


@pytest.mark.parametrize("viewport", [IPHONE_13, IPHONE_13_SIDEWAYS], ids=["upright", "sideways"])
def test_buttons_tabs_and_the_switch_are_big_enough_to_tap(browser, server, photo, viewport):
    """Every button, tab and switch of the photo mode is at least 44 x 44 pixels on a phone, the
    least a fingertip hits surely (the tabs were 40 tall, and the check-only switch 24 where its
    words fit one line). The grid's cells are left out: nine of 44 do not fit 390 pixels."""
    with phone(browser, server, viewport) as tab:
        upload(tab, photo[1])
        sizes = tab.eval_on_selector_all(
            "button, [role=tab], label.button, label.switch",
            """(elements) => elements
                .map((e) => [e.id || e.textContent.trim(), e.getBoundingClientRect()])
                .filter(([, box]) => box.width && box.height)
                .map(([name, box]) => [name, Math.round(box.width), Math.round(box.height)])""",
        )
        names = {name for name, _, _ in sizes}
        assert {"tab-photo", "tab-camera", "hint", "Choose a photo"} <= names
        assert any("Check my entries only" in name for name in names)
        small = [(name, w, h) for name, w, h in sizes if w < 44 or h < 44]
        assert not small, small


STALLED_DECODING = """() => {
    // The browser's decoding of the photo waits until the test lets it go on.
    const decode = window.createImageBitmap;
    window.createImageBitmap = (...args) =>
        new Promise((resolve, reject) => {
            window.goOn = () => decode(...args).then(resolve, reject);
        });
}"""


def test_reading_a_photo_shows_a_busy_message_at_once(page, photo):
    """From the choice of a photo the page says it is reading it, with a turning ring: a phone
    takes a moment to bring a big photo down and seconds to send it on mobile data, and the page
    showed nothing until the photo was brought down, then a still line of text."""
    shot, path = photo
    page.evaluate(STALLED_DECODING)
    page.set_input_files("#file-choose", str(path))
    message = page.locator("#message")
    expect(message).to_have_text("Reading the photo…")
    expect(message).to_have_class(re.compile(r"\bbusy\b"))
    ring = "() => getComputedStyle(document.querySelector('#message strong'), '::before')"
    assert page.evaluate(f"{ring}.animationName") == "spin"
    page.evaluate("() => window.goOn()")
    expect(message).to_contain_text("Solved")
    expect(message).not_to_have_class(re.compile(r"\bbusy\b"))
    assert page.evaluate(f"{ring}.content") == "none"
    assert grid_state(page)[0] == format_line(shot.puzzle)


def test_camera_mode_draws_the_answer_on_the_live_picture(page, video):
    clip, _ = video
    page.click("#tab-camera")
    page.click("#camera-toggle")
    page.wait_for_selector("#camera-view[data-state=solved]")
    # Frames keep coming once solved: the page has measured a frame rate over several answers.
    page.wait_for_function(
        "() => parseFloat(document.getElementById('camera-fps').dataset.fps || '0') > 0"
    )
    page.wait_for_selector("#camera-view[data-state=solved]")
    assert "Solved" in page.inner_text("#camera-state")
    assert page.get_attribute("#camera-view", "data-solution") == format_line(clip.solutions[0])
    page.screenshot(path=str(SHOTS / "sudoku-lens-web-camera.png"), full_page=True)
    page.click("#camera-toggle")
    assert page.inner_text("#camera-toggle") == "Start camera"
    # the last frame is gone: nothing under the idle text looks live
    assert page.evaluate(
        """() => {
            const view = document.getElementById('camera-view');
            const pixels = view.getContext('2d').getImageData(0, 0, view.width, view.height).data;
            return pixels.every((value) => value === 0);
        }"""
    )


FAKE_CAMERA = """
(() => {
  // A camera whose picture the test sets: a canvas shown as the video stream.
  const canvas = document.createElement("canvas");
  canvas.width = 640;
  canvas.height = 480;
  const ctx = canvas.getContext("2d");
  let picture = null;
  const paint = () => {
    ctx.fillStyle = "#d8d4cc";
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    if (picture) ctx.drawImage(picture, 0, 0, canvas.width, canvas.height);
  };
  setInterval(paint, 40);
  window.fakeCamera = {
    show(url) {
      if (!url) return void (picture = null);
      const image = new Image();
      image.onload = () => (picture = image);
      image.src = url;
    },
  };
  navigator.mediaDevices.getUserMedia = async () => {
    paint();
    return canvas.captureStream(25);
  };
})();
"""


def test_edit_this_frame_waits_for_a_frame_with_a_grid(browser, server, photo):
    shot, path = photo
    with opened_page(browser, server, FAKE_CAMERA, viewport={"width": 1280, "height": 900}) as tab:
        tab.click("#tab-camera")
        snap = tab.locator("#camera-snap")
        expect(snap).to_be_disabled()
        tab.click("#camera-toggle")
        # Frames of bare paper have been read: no grid, so nothing to edit, and the button says so.
        tab.wait_for_selector("#camera-view[data-state=searching]")
        tab.wait_for_function(
            "() => parseFloat(document.getElementById('camera-fps').dataset.fps || '0') > 0"
        )
        expect(snap).to_be_disabled()
        expect(snap).to_have_text("No grid to edit yet")
        tab.screenshot(path=str(SHOTS / "sudoku-lens-web-camera-no-grid.png"), full_page=True)

        picture = base64.b64encode(path.read_bytes()).decode()
        tab.evaluate("url => window.fakeCamera.show(url)", f"data:image/jpeg;base64,{picture}")
        tab.wait_for_selector("#camera-view[data-state=solved]")
        expect(snap).to_be_enabled()
        expect(snap).to_have_text("Edit this frame")

        tab.evaluate("() => window.fakeCamera.show(null)")
        tab.wait_for_selector("#camera-view[data-state=searching]")
        expect(snap).to_be_disabled()

        tab.evaluate("url => window.fakeCamera.show(url)", f"data:image/jpeg;base64,{picture}")
        tab.wait_for_selector("#camera-view[data-state=solved]")
        snap.click()
        # The frame opens in the photo mode, read as the page it shows.
        tab.wait_for_selector("#result:not([hidden])")
        tab.wait_for_selector("#answer-frame[aria-busy=false]")
        assert grid_state(tab)[0] == format_line(shot.puzzle)
        expect(snap).to_be_disabled()


def test_edit_this_frame_opens_the_frame_read_not_the_video_as_it_is_then(browser, server, photo):
    """The button is enabled by the answer for a frame with a grid, which comes a frame or more
    after the picture was taken: the press opens that frame, even when the page has left the
    camera's view since (it opened the video as it was then: bare paper, no grid)."""
    shot, path = photo
    with opened_page(browser, server, FAKE_CAMERA, viewport={"width": 1280, "height": 900}) as tab:
        tab.click("#tab-camera")
        tab.click("#camera-toggle")
        picture = base64.b64encode(path.read_bytes()).decode()
        tab.evaluate("url => window.fakeCamera.show(url)", f"data:image/jpeg;base64,{picture}")
        tab.wait_for_selector("#camera-view[data-state=solved]")
        # The page leaves the view; the frames of bare paper taken since get no answer yet.
        unanswered = []

        def no_answer(route) -> None:
            unanswered.append(route.request.url)
            route.abort()

        tab.route("**/api/live-frame*", no_answer)
        tab.evaluate("() => window.fakeCamera.show(null)")
        while len(unanswered) < 2:
            tab.wait_for_timeout(50)
        snap = tab.locator("#camera-snap")
        expect(snap).to_be_enabled()
        snap.click()
        message = tab.locator("#message")
        expect(message).not_to_have_text(re.compile("Reading the photo"))
        expect(message).not_to_contain_text("No answer")
        tab.wait_for_selector("#result:not([hidden])")
        tab.wait_for_selector("#answer-frame[aria-busy=false]")
        assert grid_state(tab)[0] == format_line(shot.puzzle)


def test_hints_one_step_at_a_time_and_the_rating(page, photo):
    shot, path = photo
    upload(page, path)
    expect(page.locator("#rating")).to_contain_text("Difficulty: Easy")
    solution = format_line(shot.solution)
    givens = format_line(shot.puzzle)
    page.click("#hint")
    expect(page.locator("#hint-text")).to_contain_text("only")
    first = page.get_attribute("#hint-text", "data-technique")
    assert first in ("full-house", "hidden-single", "naked-single")
    digits, answers = grid_state(page)
    placed = [i for i, (d, g) in enumerate(zip(digits, givens, strict=True)) if d != g]
    assert len(placed) == 1 and digits[placed[0]] == solution[placed[0]]
    assert answers == "0" * 81  # the answers stay hidden while hinting
    assert "hint-now" in page.locator("#grid input").nth(placed[0]).get_attribute("class")
    page.screenshot(path=str(SHOTS / "sudoku-lens-web-hint.png"), full_page=True)
    page.click("#hint")
    expect(page.locator("#grid input.hinted")).to_have_count(2)
    digits, _ = grid_state(page)
    assert all(d in ("0", s) for d, s in zip(digits, solution, strict=True))


def test_handwritten_entries_are_shown_and_wrong_ones_marked(page, tmp_path, monkeypatch):
    """Entries are shown in pen style and the wrong ones marked (the server reads this photo
    with the generator's kinds, so the test does not depend on the kinds model)."""

    from conftest import truth_reading
    from sudoku_lens.synth.handwriting import synth_filled_photo

    sample = synth_filled_photo(3, "easy", mistakes=3, pen="ballpoint-blue", rotation=0)
    reading = truth_reading(sample)
    upload_read_as(page, sample, reading, tmp_path, monkeypatch)
    expect(page.locator("#message")).to_contain_text("3 of your entries are wrong")
    hand = [int(i) for i in np.flatnonzero(sample.filled.kinds == 2)]
    wrong = [int(i) for i in np.flatnonzero(sample.filled.mistakes)]
    classes = page.eval_on_selector_all("#grid input", "cells => cells.map(c => c.className)")
    assert [i for i, c in enumerate(classes) if "handwritten" in c] == hand
    assert [i for i, c in enumerate(classes) if "wrong" in c] == wrong
    first = page.locator("#grid input").nth(wrong[0])
    expected = str(sample.photo.solution.ravel()[wrong[0]])
    assert first.get_attribute("title") == f"should be {expected}"
    values, answers = grid_state(page)
    digits = sample.filled.digits.ravel()
    assert all(values[i] == str(digits[i]) for i in hand)
    assert all(answers[i] != "0" for i in np.flatnonzero(sample.filled.kinds % 3 == 0))
    page.screenshot(path=str(SHOTS / "sudoku-lens-web-check.png"), full_page=True)

    page.check("#check-only")
    expect(page.locator("#answer-caption")).to_contain_text("Checked in")
    assert grid_state(page)[1] == "0" * 81  # no answers while checking only
    assert "wrong" in first.get_attribute("class") and not first.get_attribute("title")

    # correcting a wrong entry in the grid checks it again
    first.click()
    page.keyboard.press(expected)
    expect(page.locator("#message")).to_contain_text("2 of your entries are wrong")
    assert "wrong" not in first.get_attribute("class")
    assert "handwritten" in first.get_attribute("class")
    page.screenshot(path=str(SHOTS / "sudoku-lens-web-check-only.png"), full_page=True)


def test_entries_disagreeing_with_a_misread_given_in_numbers_doubt_the_givens(
    page, tmp_path, monkeypatch
):
    """A printed digit misread into another unique puzzle that many right entries disagree
    with: the page calls none of them wrong, outlines them as unsure and asks to check the
    printed digits; once the person corrects that digit, the planted mistakes are wrong."""
    from conftest import given_misread_to_another_answer, truth_reading
    from sudoku_lens.synth.handwriting import synth_filled_photo

    sample = synth_filled_photo(3, "easy", mistakes=3, pen="ballpoint-blue", rotation=0)
    reading = truth_reading(sample)
    misread, other = given_misread_to_another_answer(reading)
    upload_read_as(page, sample, misread, tmp_path, monkeypatch)
    disagree = [int(i) for i in np.flatnonzero((misread.entries > 0) & (misread.entries != other))]
    expect(page.locator("#message")).to_contain_text(
        f"{len(disagree)} of your entries disagree with the answer to the printed digits as read"
    )
    expect(page.locator("#message")).to_contain_text("check the printed digits against the photo")
    classes = page.eval_on_selector_all("#grid input", "cells => cells.map(c => c.className)")
    assert [i for i, c in enumerate(classes) if "unsure" in c.split()] == disagree
    assert not any("wrong" in c.split() for c in classes)
    page.screenshot(path=str(SHOTS / "sudoku-lens-web-givens-doubted.png"), full_page=True)

    cell = int(np.flatnonzero(misread.grid != reading.grid)[0])
    page.locator("#grid input").nth(cell).click()
    page.keyboard.press(str(reading.grid.ravel()[cell]))
    expect(page.locator("#message")).to_contain_text("3 of your entries are wrong")


def test_an_entry_misread_but_checked_right_shows_its_right_digit(page, tmp_path, monkeypatch):
    """A right entry the reader took for another digit (the right one a runner-up, so the check
    calls it right) is shown as the solution's digit, not as an unmarked duplicate of the digit
    read under "your entries are all right"."""

    from conftest import truth_reading
    from sudoku_lens.synth.handwriting import synth_filled_photo

    sample = synth_filled_photo(3, "easy", pen="ballpoint-blue", rotation=0)
    reading = truth_reading(sample)
    index = int(np.flatnonzero(sample.filled.kinds == 2)[0])
    r, c = divmod(index, 9)
    right = int(sample.photo.solution.ravel()[index])
    misread = right % 9 + 1
    grid = reading.grid.copy()
    grid[r, c] = misread
    probabilities = reading.probabilities.copy()
    probabilities[r, c] = 0.0
    probabilities[r, c, misread], probabilities[r, c, right] = 0.7, 0.3
    reading = dataclasses.replace(reading, grid=grid, probabilities=probabilities)
    upload_read_as(page, sample, reading, tmp_path, monkeypatch)
    expect(page.locator("#message")).to_contain_text("Solved.")
    cell = page.locator("#grid input").nth(index)
    assert "wrong" not in cell.get_attribute("class")
    assert cell.input_value() == str(right)
    assert "handwritten" in cell.get_attribute("class")


def test_a_hint_continues_from_the_entries_as_edited_in_the_grid(page, tmp_path, monkeypatch):
    """Hint sends the grid's entries as shown: a corrected entry is used, a cleared one is not,
    and a wrong one is sent but left out by the server."""

    from conftest import truth_reading
    from sudoku_lens.puzzle.text import cell_name
    from sudoku_lens.synth.handwriting import synth_filled_photo

    sample = synth_filled_photo(3, "easy", mistakes=3, pen="ballpoint-blue", rotation=0)
    reading = truth_reading(sample)
    upload_read_as(page, sample, reading, tmp_path, monkeypatch)
    expect(page.locator("#message")).to_contain_text("3 of your entries are wrong")
    solution = format_line(sample.photo.solution)
    wrong = [int(i) for i in np.flatnonzero(sample.filled.mistakes)]
    right = [int(i) for i in np.flatnonzero(sample.filled.kinds == 2) if i not in wrong]
    caption = page.locator("#answer-caption")

    page.locator("#grid input").nth(wrong[0]).click()
    page.keyboard.press(solution[wrong[0]])
    expect(page.locator("#message")).to_contain_text("2 of your entries are wrong")
    page.locator("#grid input").nth(right[0]).click()
    page.keyboard.press("Delete")
    expect(caption).to_contain_text("Solved in")

    # Chromium does not hand a multipart body with a file to Playwright: note the form sent.
    page.evaluate(
        """() => {
            const send = window.fetch;
            window.fetch = (url, options) => {
                if (String(url).endsWith("/api/hint")) {
                    window.hintEntries = options.body.get("entries");
                }
                return send(url, options);
            };
        }"""
    )
    with page.expect_response("**/api/hint") as answer:
        page.click("#hint")
    entries = page.evaluate("() => window.hintEntries")
    assert entries[wrong[0]] == solution[wrong[0]] and entries[right[0]] == "0"
    assert entries[wrong[1]] == str(sample.filled.digits.ravel()[wrong[1]])
    body = answer.value.json()
    assert body["grid"][wrong[0]] == solution[wrong[0]] and body["grid"][right[0]] == "0"
    assert [entry["cell"] for entry in body["wrong_entries"]] == [cell_name(i) for i in wrong[1:]]
    expect(page.locator("#hint-text")).to_be_visible()
    placed = [
        i
        for i, c in enumerate(
            page.eval_on_selector_all("#grid input", "cells => cells.map(c => c.className)")
        )
        if "hint-now" in c
    ]
    assert placed and all(body["grid"][i] == "0" for i in placed)
    values, _ = grid_state(page)
    assert all(values[i] == solution[i] for i in placed)
    assert values[wrong[0]] == solution[wrong[0]]
    page.screenshot(path=str(SHOTS / "sudoku-lens-web-hint-after-edits.png"), full_page=True)


def test_after_a_hint_the_entry_marks_follow_the_hint_answer(page, tmp_path, monkeypatch):
    """The wrong and unsure marks come from the hint's check of the entries sent, not from the
    last solve: here the solve of an edit never answers, and only the hint marks the entry."""
    import dataclasses

    from conftest import truth_reading
    from sudoku_lens.pipeline import RIGHT_FROM, UNSURE_BELOW
    from sudoku_lens.puzzle.text import cell_name
    from sudoku_lens.synth.handwriting import synth_filled_photo

    sample = synth_filled_photo(3, "easy", mistakes=3, pen="ballpoint-blue", rotation=0)
    reading = truth_reading(sample)
    solution = format_line(sample.photo.solution)
    wrong = [int(i) for i in np.flatnonzero(sample.filled.mistakes)]
    right = [int(i) for i in np.flatnonzero(sample.filled.kinds == 2) if i not in wrong]
    unsure_at, edited_at = right[0], right[1]
    confidence = min(RIGHT_FROM, UNSURE_BELOW) / 2  # unsure, though the solution's digit
    probabilities = reading.probabilities.copy()
    probabilities[divmod(unsure_at, 9)] = (1 - confidence) / 9
    probabilities[(*divmod(unsure_at, 9), int(solution[unsure_at]))] = confidence
    reading = dataclasses.replace(reading, probabilities=probabilities)
    upload_read_as(page, sample, reading, tmp_path, monkeypatch)
    expect(page.locator("#message")).to_contain_text("3 of your entries are wrong")
    cells = page.locator("#grid input")
    expect(cells.nth(unsure_at)).to_have_class(re.compile("unsure"))

    page.route("**/api/solve", lambda route: route.abort())
    cells.nth(edited_at).click()
    page.keyboard.press(str(int(solution[edited_at]) % 9 + 1))
    expect(page.locator("#message")).to_contain_text("could not be reached")
    assert "wrong" not in cells.nth(edited_at).get_attribute("class")

    with page.expect_response("**/api/hint") as answer:
        page.click("#hint")
    body = answer.value.json()
    named = [entry["cell"] for entry in body["wrong_entries"]]
    assert named == [cell_name(i) for i in sorted([*wrong, edited_at])]
    assert [entry["cell"] for entry in body["unsure_entries"]] == [cell_name(unsure_at)]
    expect(page.locator("#message")).to_contain_text("4 of your entries are wrong")
    classes = page.eval_on_selector_all("#grid input", "cells => cells.map(c => c.className)")
    assert [i for i, c in enumerate(classes) if "wrong" in c.split()] == sorted([*wrong, edited_at])
    assert [i for i, c in enumerate(classes) if "unsure" in c.split()] == [unsure_at]
    assert not cells.nth(edited_at).get_attribute("title")  # its right digit is not known yet


def test_while_hinting_edits_and_check_only_never_show_the_answer(page, photo):
    """Once a hint is taken the answers stay hidden: typing an entry keeps the hints' digits and
    asks the server for the check alone, and ticking check-only on and off asks nothing."""
    shot, path = photo
    upload(page, path)
    solution = format_line(shot.solution)
    givens = format_line(shot.puzzle)
    page.click("#hint")
    expect(page.locator("#grid input.hinted")).to_have_count(1)
    page.click("#hint")
    expect(page.locator("#grid input.hinted")).to_have_count(2)
    hinted = [
        i
        for i, c in enumerate(
            page.eval_on_selector_all("#grid input", "cs => cs.map(c => c.className)")
        )
        if "hinted" in c.split()
    ]
    step_image = page.get_attribute("#answer-image", "src")

    solves: list[str] = []
    page.on("request", lambda r: solves.append(r.url) if r.url.endswith("/api/solve") else None)
    page.check("#check-only")
    page.uncheck("#check-only")
    page.wait_for_timeout(400)
    assert solves == [] and page.get_attribute("#answer-image", "src") == step_image
    assert grid_state(page)[1] == "0" * 81

    sent_form(page, "/api/solve")
    empty = next(i for i, g in enumerate(givens) if g == "0" and i not in hinted)
    page.locator("#grid input").nth(empty).click()
    page.keyboard.press(solution[empty])
    expect(page.locator("#answer-caption")).to_contain_text("Checked in")
    assert page.evaluate("() => window.sent.check_only") == "true"
    expect(page.locator("#message")).to_contain_text("Your entries are all right")
    digits, answers = grid_state(page)
    assert answers == "0" * 81
    assert all(digits[i] == solution[i] for i in [*hinted, empty])
    assert page.locator("#grid input.hinted").count() == 2

    # the next hint goes on from the hints' digits and the entry
    with page.expect_response("**/api/hint") as answer:
        page.click("#hint")
    body = answer.value.json()
    assert all(body["grid"][i] == solution[i] for i in [*hinted, empty])


def test_undo_takes_the_hints_back(page, photo):
    _, path = photo
    upload(page, path)
    page.click("#hint")
    expect(page.locator("#grid input.hinted")).to_have_count(1)
    page.click("#undo")
    expect(page.locator("#answer-caption")).to_contain_text("Solved in")
    assert page.locator("#grid input.hinted").count() == 0
    assert grid_state(page)[1] != "0" * 81


def test_check_only_without_entries_says_there_is_nothing_to_check(page, photo):
    _, path = photo
    upload(page, path)
    page.check("#check-only")
    expect(page.locator("#message")).to_contain_text("Nothing to check yet")
    assert grid_state(page)[1] == "0" * 81


def test_a_hint_that_fills_the_cell_of_a_wrong_entry_names_the_mistake(page, photo, server):
    _, path = photo
    upload(page, path)
    with page.expect_response("**/api/hint") as answer:
        page.click("#hint")
    target = answer.value.json()["placements"][0]  # e.g. "r2c1=1"
    cell = (int(target[1]) - 1) * 9 + int(target[3]) - 1
    right, wrong = target[-1], str(int(target[-1]) % 9 + 1)

    page.goto(server)
    upload(page, path)
    page.locator("#grid input").nth(cell).click()
    page.keyboard.press(wrong)  # a wrong entry of the person's, left out of the first step
    expect(page.locator("#message")).to_contain_text("1 of your entries is wrong")
    with page.expect_response("**/api/hint") as answer:
        page.click("#hint")
    assert answer.value.json()["placements"] == [target]
    expect(page.locator("#message")).to_contain_text(f"Your {wrong} in {target[:4]} was wrong")
    assert grid_state(page)[0][cell] == right


def test_a_letter_typed_over_a_digit_changes_nothing(page, photo):
    shot, path = photo
    upload(page, path)
    puzzle = format_line(shot.puzzle)
    given_at = puzzle.index(next(d for d in puzzle if d != "0"))
    cell = page.locator("#grid input").nth(given_at)
    for key in ("a", "-", ".", "%"):
        cell.click()
        page.keyboard.press(key)
    cell.fill("x")  # a phone keyboard's input event, without a usable key
    assert grid_state(page)[0] == puzzle
    expect(page.locator("#message")).to_contain_text("Solved")


def test_the_grid_is_one_tab_stop_and_focus_stays_on_hint(page, photo):
    _, path = photo
    upload(page, path)
    page.locator("#grid input").nth(40).click()
    stops = page.eval_on_selector_all("#grid input", "cells => cells.filter(c => c.tabIndex === 0)")
    assert len(stops) == 1
    assert (
        page.eval_on_selector_all("#grid input", "cells => cells.findIndex(c => c.tabIndex === 0)")
        == 40
    )
    page.focus("#hint")
    page.keyboard.press("Enter")
    expect(page.locator("#hint-text")).to_be_visible()
    page.wait_for_selector("#answer-frame[aria-busy=false]")
    expect(page.locator("#hint")).to_be_focused()


def test_a_hint_asked_before_an_edit_is_solved_never_leaves_the_old_answer(page, photo):
    shot, path = photo
    upload(page, path)
    puzzle = format_line(shot.puzzle)
    wrong_at, wrong = misread(puzzle)
    answered = page.get_attribute("#answer-image", "src")
    page.locator("#grid input").nth(wrong_at).click()
    page.keyboard.press(wrong)
    page.click("#hint")  # at once: the solve waiting for the edit is dropped
    expect(page.locator("#message")).to_contain_text("No hint for this grid")
    page.wait_for_selector("#answer-frame[aria-busy=false]")
    expect(page.locator("#answer-caption")).to_have_text("Not solved: no answer for this grid.")
    assert page.get_attribute("#answer-image", "src") != answered
    assert page.get_attribute("#answer-image", "src").startswith("blob:")
    expect(page.locator("#rating")).to_be_hidden()


def paste(page, index: int, text: str) -> None:
    page.locator("#grid input").nth(index).dispatch_event("focus")
    page.evaluate(
        """([index, text]) => {
            const data = new DataTransfer();
            data.setData('text/plain', text);
            const cell = document.querySelectorAll('#grid input')[index];
            cell.dispatchEvent(new ClipboardEvent('paste', {clipboardData: data, bubbles: true}));
        }""",
        [index, text],
    )


def test_a_pasted_puzzle_fills_the_grid_and_a_pasted_digit_one_cell(page, photo):
    shot, path = photo
    upload(page, path)
    puzzle = format_line(shot.puzzle)
    empty_at = puzzle.index("0")
    paste(page, empty_at, format_line(shot.solution)[empty_at])
    expect(page.locator("#message")).to_contain_text("your fixes")
    wrong_at, wrong = misread(puzzle)
    broken = puzzle[:wrong_at] + wrong + puzzle[wrong_at + 1 :]
    rows = "\n".join(broken[r * 9 : r * 9 + 9].replace("0", ".") for r in range(9))
    paste(page, 0, rows)
    expect(page.locator("#message")).to_contain_text("no solution")
    assert grid_state(page)[0][wrong_at] == wrong
    paste(page, 0, "12 34")
    expect(page.locator("#message")).to_contain_text("Nothing pasted")


def test_a_big_photo_is_sent_brought_down_to_2000_pixels(page, photo, tmp_path):
    shot, _ = photo
    big = tmp_path / "big.jpg"
    image = cv2.resize(shot.image, (4000, 3000), interpolation=cv2.INTER_CUBIC)
    cv2.imwrite(str(big), image, [cv2.IMWRITE_JPEG_QUALITY, 97])
    page.evaluate(
        """() => {
            const send = window.fetch;
            window.sentSizes = [];
            window.fetch = (url, options) => {
                if (options && options.body instanceof FormData && options.body.get('file')) {
                    window.sentSizes.push(options.body.get('file').size);
                }
                return send(url, options);
            };
        }"""
    )
    upload(page, big)
    expect(page.locator("#message")).to_contain_text("Solved")
    assert grid_state(page)[0] == format_line(shot.puzzle)
    sizes = page.evaluate("() => window.sentSizes")
    assert sizes and max(sizes) < big.stat().st_size / 3, (sizes, big.stat().st_size)


def test_a_hint_on_a_full_grid_says_it_is_solved(page, photo):
    shot, path = photo
    upload(page, path)
    paste(page, 0, format_line(shot.solution))
    expect(page.locator("#message")).to_contain_text("Solved")
    page.click("#hint")
    expect(page.locator("#hint-text")).to_have_text("No further step: the grid is full.")
    expect(page.locator("#message")).to_contain_text("Solved: every cell is filled.")


def test_a_sideways_photo_is_shown_upright(page, photo, tmp_path):
    shot, _ = photo
    sideways = tmp_path / "sideways.jpg"
    cv2.imwrite(str(sideways), cv2.rotate(shot.image, cv2.ROTATE_90_CLOCKWISE))
    upload(page, sideways)
    expect(page.locator("#message")).to_contain_text("Solved")
    assert grid_state(page)[0] == format_line(shot.puzzle)
    page.wait_for_function(
        "() => document.getElementById('answer-image').naturalWidth === 1024"
    )  # turned back: 1024 wide as the page was shot, not 768
    assert page.eval_on_selector("#answer-image", "img => img.naturalHeight") == 768
    page.click("#hint")
    expect(page.locator("#hint-text")).to_be_visible()
    page.wait_for_function(
        "() => document.getElementById('answer-image').naturalWidth === 1024"
    )  # the hint's picture too


def test_candidates_read_too_unclearly_are_outlined_and_never_called_wrong(
    page, tmp_path, monkeypatch
):
    """Candidates read below CANDIDATES_SURE stay in their cells, outlined in orange and named
    too unclear to check, never framed as wrong; pencilled again by the person, they are
    checked."""
    import dataclasses

    from conftest import truth_reading
    from sudoku_lens import pipeline
    from sudoku_lens.synth.handwriting import synth_filled_photo

    sample = synth_filled_photo(3, "easy", notes=0.5, wrong_notes=2, rotation=0)
    planted = [int(i) for i in np.flatnonzero(sample.filled.wrong_candidates)]
    sureness = np.ones(81, np.float32)
    sureness[planted] = pipeline.CANDIDATES_SURE / 2
    reading = dataclasses.replace(truth_reading(sample), candidate_sureness=sureness.reshape(9, 9))
    upload_read_as(page, sample, reading, tmp_path, monkeypatch)
    expect(page.locator("#message")).to_contain_text(
        "2 cells of your candidates could not be read clearly enough to check"
    )
    cells = page.locator("#grid input")
    classes = page.eval_on_selector_all("#grid input", "cells => cells.map(c => c.className)")
    assert [i for i, c in enumerate(classes) if "unsure-notes" in c.split()] == planted
    assert not any("wrong-notes" in c for c in classes)
    pencilled = "".join(map(str, sample.filled.candidates[planted[0] // 9][planted[0] % 9]))
    first = cells.nth(planted[0])
    assert first.input_value() == pencilled
    assert "too unclear to check" in first.get_attribute("aria-label")
    page.screenshot(path=str(SHOTS / "sudoku-lens-web-unsure-notes.png"), full_page=True)
    # the person pencils one more digit (not the answer) in: the set is theirs, and checked
    first.click()
    page.keyboard.press("n")
    answer = str(sample.photo.solution.ravel()[planted[0]])
    page.keyboard.press(next(d for d in "123456789" if d not in pencilled + answer))
    expect(page.locator("#message")).to_contain_text(
        "1 cell of your candidates leaves out the answer"
    )
    assert "wrong-notes" in first.get_attribute("class")
    assert "unsure-notes" in cells.nth(planted[1]).get_attribute("class")


def test_pencilled_candidates_are_shown_small_edited_and_checked(page, tmp_path, monkeypatch):
    """The candidates read stand small in their cells, those that leave out the answer framed;
    in notes mode (N) a digit typed goes in or out of a cell's candidates, which are sent back
    and checked again."""

    from conftest import truth_reading
    from sudoku_lens.synth.handwriting import synth_filled_photo

    sample = synth_filled_photo(3, "easy", notes=0.5, wrong_notes=2, rotation=0)
    reading = truth_reading(sample)
    upload_read_as(page, sample, reading, tmp_path, monkeypatch)
    expect(page.locator("#message")).to_contain_text(
        "2 cells of your candidates leave out the answer"
    )
    pencilled = ["".join(map(str, cell)) for row in sample.filled.candidates for cell in row]
    planted = [int(i) for i in np.flatnonzero(sample.filled.wrong_candidates)]
    cells = page.locator("#grid input")
    with_notes = [i for i, digits in enumerate(pencilled) if digits]

    def shown() -> tuple[list[int], list[int], list[str]]:
        """The cells showing candidates, those framed as wrong, and every cell's value."""
        classes = page.eval_on_selector_all("#grid input", "cells => cells.map(c => c.className)")
        values = page.eval_on_selector_all("#grid input", "cells => cells.map(c => c.value)")
        notes = [i for i, c in enumerate(classes) if "notes" in c.split()]
        return notes, [i for i, c in enumerate(classes) if "wrong-notes" in c], values

    # with the answers shown, right candidates give way to the answer; wrong ones stay, framed
    notes, framed, values = shown()
    assert notes == framed == planted
    assert all(values[i] == pencilled[i] for i in planted)
    answers = grid_state(page)[1]
    assert all(answers[i] != "0" for i in with_notes if i not in planted)
    font = "c => parseFloat(getComputedStyle(c).fontSize)"
    assert cells.nth(planted[0]).evaluate(font) < 0.7 * cells.nth(0).evaluate(font)
    assert "leave out the answer" in cells.nth(planted[0]).get_attribute("aria-label")
    page.screenshot(path=str(SHOTS / "sudoku-lens-web-notes.png"), full_page=True)

    # the answer pencilled in, in notes mode: that cell is right now
    first = cells.nth(planted[0])
    answer = str(sample.photo.solution.ravel()[planted[0]])
    first.click()
    page.keyboard.press("n")
    expect(page.locator("#notes-mode")).to_have_attribute("aria-pressed", "true")
    notes, framed, values = shown()  # pencilling: every cell's candidates shown
    assert notes == with_notes and framed == planted
    assert all(values[i] == pencilled[i] for i in with_notes)
    page.keyboard.press(answer)
    expect(page.locator("#message")).to_contain_text(
        "1 cell of your candidates leaves out the answer"
    )
    expected = "".join(sorted(pencilled[planted[0]] + answer))
    assert first.input_value() == expected
    assert "wrong-notes" not in first.get_attribute("class")
    assert "wrong-notes" in cells.nth(planted[1]).get_attribute("class")

    # the other wrong set rubbed out: nothing left to report
    second = cells.nth(planted[1])
    second.click()
    page.keyboard.press("Delete")
    expect(page.locator("#message")).to_contain_text("Solved with your fixes")
    assert second.input_value() == "" and "notes" not in second.get_attribute("class").split()
    # notes mode off: a digit typed is an entry again, and takes the candidates' place
    page.click("#notes-mode")
    expect(page.locator("#notes-mode")).to_have_attribute("aria-pressed", "false")
    assert shown()[0] == []  # every set of candidates right: the answers shown instead
    first.click()
    page.keyboard.press(answer)
    expect(first).to_have_class(re.compile(r"\bhandwritten\b"))
    assert first.input_value() == answer
