"""Live mode on generated videos: the right answer on the grid, nothing where there is no grid,
a new puzzle replacing the old one, steady corners, and the `live` command."""

from __future__ import annotations

import itertools
import json
import re
import subprocess
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sudoku_lens.cli import main
from sudoku_lens.draw import DEFAULT_DIGIT_HEIGHT, draw_solution
from sudoku_lens.errors import ImageError
from sudoku_lens.live import LiveResult, LiveSettings, LiveSolver, LiveState
from sudoku_lens.live.check import GivensCheck, cell_ink, missed_digits, visible_cells
from sudoku_lens.live.smoothing import CornerFilter
from sudoku_lens.live.tracking import CornerTracker
from sudoku_lens.pipeline import printed_digit_height
from sudoku_lens.read.reader import read_image
from sudoku_lens.synth import SyntheticVideo, place_in_scene, render_grid, synth_video

HAS_GUI = re.search(r"GUI:\s+NONE", cv2.getBuildInformation()) is None

BROKEN = "531070000600195000098000060800060003400803001700020006060000280000419005000080079"
"""A legal-looking puzzle with no solution (a 1 in the third cell leaves none)."""

SCHEDULE = ((None, 4), (0, 24), (None, 6), (1, 24))
"""Text, puzzle 0, text, puzzle 1: 58 frames of 1280x720."""


@dataclass
class Run:
    """A synthetic video and what the live solver made of each frame."""

    video: SyntheticVideo
    results: list[LiveResult]
    agreement: dict[int, tuple[float, float]]
    """Frame index -> (precision, recall) of the drawn pixels against `draw_solution` at the
    true corners, for every frame with the answer drawn."""
    untouched: dict[int, bool]
    """Frame index -> output equals input, for every frame without a grid."""


def drawn_mask(before: np.ndarray, after: np.ndarray) -> np.ndarray:
    """Pixels an overlay changed clearly."""
    diff = cv2.absdiff(before, after).max(axis=2)
    return diff > 60


def agreement(
    frame: np.ndarray, out: np.ndarray, video: SyntheticVideo, index: int
) -> tuple[float, float]:
    """How well the drawn digits match the true answer drawn at the true corners, as tall as a
    photo of the same frame would have it drawn (the printed digits' height)."""
    truth = video.truth[index]
    assert truth.puzzle is not None
    expected = draw_solution(
        frame,
        truth.corners,
        video.puzzles[truth.puzzle],
        video.solutions[truth.puzzle],
        digit_height=printed_digit_height(read_image(frame)),
    )
    want, got = drawn_mask(frame, expected), drawn_mask(frame, out)
    kernel = np.ones((9, 9), np.uint8)
    near_want = cv2.dilate(want.astype(np.uint8), kernel).astype(bool)
    near_got = cv2.dilate(got.astype(np.uint8), kernel).astype(bool)
    precision = (got & near_want).sum() / max(got.sum(), 1)
    recall = (want & near_got).sum() / max(want.sum(), 1)
    return float(precision), float(recall)


def run_video(video: SyntheticVideo) -> Run:
    solver = LiveSolver(LiveSettings(banner=False))
    results, checks, untouched = [], {}, {}
    for index, frame in enumerate(video):
        result = solver.process(frame)
        if result.drawn:
            checks[index] = agreement(frame, result.frame, video, index)
        if video.truth[index].puzzle is None:
            untouched[index] = bool(np.array_equal(frame, result.frame))
        results.append(replace(result, frame=np.empty(0)))
    return Run(video, results, checks, untouched)


@pytest.fixture(scope="module")
def run() -> Run:
    return run_video(synth_video(11, schedule=SCHEDULE))


def segments(video: SyntheticVideo) -> list[tuple[int | None, range]]:
    """(puzzle or None, frame indices) of each stretch of the video."""
    out: list[tuple[int | None, range]] = []
    start = 0
    for index in range(1, len(video) + 1):
        if index == len(video) or video.truth[index].puzzle != video.truth[start].puzzle:
            out.append((video.truth[start].puzzle, range(start, index)))
            start = index
    return out


def test_the_right_answer_is_drawn_on_the_frames_that_show_the_grid(run: Run) -> None:
    video = run.video
    for puzzle, frames in segments(video):
        if puzzle is None:
            continue
        drawn = [i for i in frames if run.results[i].drawn]
        first = drawn[0]
        assert first - frames.start <= 3, "the answer must appear within a few frames"
        assert drawn == list(range(first, frames.stop)), "once drawn, the answer must stay"
        for i in drawn:
            result = run.results[i]
            np.testing.assert_array_equal(result.puzzle, video.puzzles[puzzle])
            np.testing.assert_array_equal(result.solution, video.solutions[puzzle])
            precision, recall = run.agreement[i]
            assert precision > 0.9 and recall > 0.9, (i, precision, recall)
            side = np.linalg.norm(video.truth[i].corners[1] - video.truth[i].corners[0])
            error = np.abs(result.corners - video.truth[i].corners).max()
            assert error < 0.03 * side, (i, error)


def test_the_drawn_answer_moves_as_smoothly_as_the_page(run: Run) -> None:
    video = run.video
    for puzzle, frames in segments(video):
        drawn = [i for i in frames if run.results[i].drawn]
        if puzzle is None or len(drawn) < 3:
            continue
        ours = np.array([run.results[i].corners for i in drawn])
        page = np.array([video.truth[i].corners for i in drawn])
        jolt = np.abs(np.diff(ours, 2, axis=0)).max()
        assert jolt <= np.abs(np.diff(page, 2, axis=0)).max() + 2.0, "the digits must not jump"


def test_nothing_is_drawn_where_there_is_no_grid(run: Run) -> None:
    assert run.untouched and all(run.untouched.values())
    for index in run.untouched:
        result = run.results[index]
        assert not result.drawn
        assert result.state is LiveState.SEARCHING
        assert result.corners is None and result.solution is None


def test_states_progress_from_searching_to_reading_to_solved(run: Run) -> None:
    states = [r.state for r in run.results]
    order = [s for i, s in enumerate(states) if i == 0 or s != states[i - 1]]
    assert order[:3] == [LiveState.SEARCHING, LiveState.READING, LiveState.SOLVED]
    assert order.count(LiveState.SOLVED) == 2
    assert LiveState.UNSOLVABLE not in order


def test_the_second_puzzle_replaces_the_first_on_a_cut() -> None:
    video = synth_video(12, schedule=((0, 12), (1, 14)))
    solver = LiveSolver()
    puzzles = []
    for frame in video:
        result = solver.process(frame)
        puzzles.append(None if not result.drawn else result.puzzle)
    assert any(p is not None and (p == video.puzzles[0]).all() for p in puzzles[:12])
    later = puzzles[12:]
    assert not any(p is not None and (p == video.puzzles[0]).all() for p in later)
    assert all(p is not None and (p == video.puzzles[1]).all() for p in later[3:])


def test_the_drawn_answer_reads_back_as_the_solution(run: Run) -> None:
    """A frame of live mode's output, read as a photo, gives the full solution."""
    video = run.video
    solver = LiveSolver(LiveSettings(banner=False))
    for i in range(21):
        result = solver.process(video.frame(i))
    assert result.drawn
    np.testing.assert_array_equal(read_image(result.frame).grid, video.solutions[0])


def test_the_answer_is_drawn_at_the_printed_digits_height(
    short_video: SyntheticVideo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Live mode sizes its digits like a photo's answer: from the printed givens."""
    import sudoku_lens.live.solver as live_solver

    heights = []
    real_overlay = live_solver.SolutionOverlay

    def recorded(*args: Any, **kwargs: Any) -> Any:
        heights.append(kwargs["digit_height"])
        return real_overlay(*args, **kwargs)

    monkeypatch.setattr(live_solver, "SolutionOverlay", recorded)
    solver = LiveSolver(LiveSettings(banner=False))
    for i in range(6):
        result = solver.process(short_video.frame(i))
    assert result.drawn and len(heights) == 1
    measured = printed_digit_height(read_image(short_video.frame(0)))
    assert measured != DEFAULT_DIGIT_HEIGHT
    assert heights[0] == pytest.approx(measured, abs=0.05)


def test_a_puzzle_without_a_unique_answer_is_reported_not_drawn(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import sudoku_lens.live.solver as live_solver
    import sudoku_lens.read.reader as reader

    broken = np.array([int(c) for c in BROKEN], np.uint8).reshape(9, 9)
    real_read = live_solver.read_image

    def read_exactly(frame: np.ndarray, **_: Any) -> reader.Reading:
        """The real reading (grid, corners), with the digits read without error: this test is
        about what live mode does with a puzzle that has no answer, not about reading it."""
        reading = real_read(frame)
        sure = np.eye(10, dtype=np.float32)[broken]
        return replace(reading, grid=broken.copy(), probabilities=sure)

    monkeypatch.setattr(live_solver, "read_image", read_exactly)
    rng = np.random.default_rng(21)
    scene = place_in_scene(
        render_grid(broken, rng), rng, "easy", puzzle=broken, solution=broken, rotation=0
    )
    height, width = scene.image.shape[:2]
    solver = LiveSolver()
    states = []
    for shift in range(5):
        move = np.float32([[1, 0, shift], [0, 1, shift / 2]])
        frame = cv2.warpAffine(scene.image, move, (width, height), borderMode=cv2.BORDER_REPLICATE)
        result = solver.process(frame)
        states.append(result.state)
        assert not result.drawn
    assert states == [LiveState.READING] * 2 + [LiveState.UNSOLVABLE] * 3
    np.testing.assert_array_equal(result.puzzle, broken)
    assert result.solution is None and result.to_json()["solution"] is None


def test_corner_filter_holds_still_corners_steady() -> None:
    rng = np.random.default_rng(0)
    corners = np.float32([[100, 100], [500, 110], [510, 500], [90, 490]])
    smooth = CornerFilter()
    measured = [corners + rng.normal(0, 1.0, (4, 2)) for _ in range(90)]
    out = [smooth(m, t / 30) for t, m in enumerate(measured)]
    jitter_in = np.std(np.diff(np.array(measured[30:]), axis=0))
    jitter_out = np.std(np.diff(np.array(out[30:]), axis=0))
    assert jitter_out < 0.3 * jitter_in


def test_corner_filter_follows_a_move_and_drops_a_glitch() -> None:
    corners = np.float32([[100, 100], [500, 100], [500, 500], [100, 500]])
    smooth = CornerFilter()
    for t in range(10):
        smooth(corners, t / 30)
    glitch = smooth(corners + 150, 10 / 30)
    np.testing.assert_allclose(glitch, corners)
    back = smooth(corners + 1, 11 / 30)
    assert np.abs(back - corners).max() <= 1
    moved = corners + np.float32([200, 0])
    smooth(moved, 12 / 30)
    np.testing.assert_allclose(smooth(moved, 13 / 30), moved)
    for t in range(14, 30):
        glide = corners + np.float32([200 + 5 * (t - 13), 0])
        out = smooth(glide, t / 30)
    assert np.abs(out - glide).max() < 5


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.floats(-40, 40), st.floats(-40, 40)), min_size=1, max_size=30))
def test_corner_filter_never_leaves_the_range_of_its_inputs(
    shifts: list[tuple[float, float]],
) -> None:
    base = np.float32([[100, 100], [400, 100], [400, 400], [100, 400]])
    smooth = CornerFilter()
    seen = []
    for t, shift in enumerate(shifts):
        measured = base + np.float32(shift)
        seen.append(measured)
        out = smooth(measured, t / 30)
        low, high = np.min(seen, axis=0), np.max(seen, axis=0)
        assert np.all(out >= low - 1e-3) and np.all(out <= high + 1e-3)


def small_gray(frame: np.ndarray) -> np.ndarray:
    gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    return cv2.resize(gray, (640, 360), interpolation=cv2.INTER_AREA)


@pytest.fixture(scope="module")
def short_video() -> SyntheticVideo:
    return synth_video(5, schedule=((0, 16), (None, 2), (1, 2)))


def test_tracker_follows_the_grid_and_lets_go_on_a_cut(short_video: SyntheticVideo) -> None:
    video = short_video
    tracker = CornerTracker()
    assert tracker.start(small_gray(video.frame(0)), video.truth[0].corners / 2)
    for i in range(1, 16):
        corners = tracker.update(small_gray(video.frame(i)))
        assert corners is not None
        assert np.abs(corners * 2 - video.truth[i].corners).max() < 3.0
    assert tracker.update(small_gray(video.frame(16))) is None
    assert not tracker.active


def test_the_ink_check_tells_the_puzzle_from_another(short_video: SyntheticVideo) -> None:
    video = short_video
    first = small_gray(video.frame(0))
    check = GivensCheck(video.puzzles[0], cell_ink(first, video.truth[0].corners / 2))
    later = small_gray(video.frame(15))
    visible = visible_cells(video.truth[15].corners / 2, 640, 360)
    same, compared = check.mismatches(cell_ink(later, video.truth[15].corners / 2), visible)
    assert compared > 60 and same <= 2
    other = small_gray(video.frame(18))
    differ, _ = check.mismatches(cell_ink(other, video.truth[18].corners / 2), visible)
    assert differ >= 15


def test_the_ink_check_spots_a_printed_digit_read_as_empty(short_video: SyntheticVideo) -> None:
    video = short_video
    corners = video.truth[0].corners / 2
    ink = cell_ink(small_gray(video.frame(0)), corners)
    visible = visible_cells(corners, 640, 360)
    puzzle = video.puzzles[0].copy()
    assert missed_digits(puzzle, ink, visible) == 0
    dropped = tuple(np.argwhere(puzzle > 0)[0])
    puzzle[dropped] = 0
    assert missed_digits(puzzle, ink, visible) == 1


def test_the_ink_checks_leave_out_cells_of_pencilled_candidates(
    short_video: SyntheticVideo,
) -> None:
    """A cell read as pencilled candidates holds ink without a digit: dark notes there are
    neither a printed digit the read missed nor a sign that the page changed."""
    video = short_video
    corners = video.truth[0].corners / 2
    ink = cell_ink(small_gray(video.frame(0)), corners)
    visible = visible_cells(corners, 640, 360)
    puzzle = video.puzzles[0].copy()
    given = tuple(np.argwhere(puzzle > 0)[0])
    puzzle[given] = 0
    marked = np.zeros((9, 9), bool)
    marked[given] = True
    assert missed_digits(puzzle, ink, visible) == 1
    assert missed_digits(puzzle, ink, visible, marked) == 0
    plain = GivensCheck(puzzle, ink)
    assert plain.mismatches(ink, visible)[0] >= 1
    check = GivensCheck(puzzle, ink, marked)
    differ, compared = check.mismatches(ink, visible)
    assert differ == 0 and compared == int(visible.sum()) - int(visible[given])


def test_a_read_that_misses_a_printed_digit_is_not_drawn(
    short_video: SyntheticVideo, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sudoku_lens.live.solver as live_solver
    import sudoku_lens.read.reader as reader

    video = short_video
    real_read = live_solver.read_image
    calls = []

    def read_missing_one(frame: np.ndarray, **_: Any) -> reader.Reading:
        """The real grid and corners with the true givens, but one printed digit read as an
        empty cell on the first four reads (the puzzle still has a unique solution)."""
        reading = real_read(frame)
        givens = video.puzzles[0].copy()
        if len(calls) < 4:
            givens[tuple(np.argwhere(givens > 0)[0])] = 0
        calls.append(1)
        return replace(reading, grid=givens, probabilities=np.eye(10, dtype=np.float32)[givens])

    monkeypatch.setattr(live_solver, "read_image", read_missing_one)
    solver = LiveSolver(LiveSettings(banner=False))
    results = [solver.process(video.frame(i)) for i in range(8)]
    assert [r.state for r in results[:5]] == [LiveState.READING] * 5
    assert not any(r.drawn for r in results[:5])
    assert results[-1].drawn
    np.testing.assert_array_equal(results[-1].puzzle, video.puzzles[0])


def test_a_change_of_frame_size_starts_following_afresh(short_video: SyntheticVideo) -> None:
    solver = LiveSolver()
    for i in range(4):
        solver.process(short_video.frame(i))
    turned = np.ascontiguousarray(cv2.rotate(short_video.frame(4), cv2.ROTATE_90_CLOCKWISE))
    result = solver.process(turned)
    assert result.frame.shape == turned.shape
    assert result.corners is not None, "the grid is found again in the turned frame"
    assert result.corners[:, 0].max() <= turned.shape[1]


def test_frames_without_a_grid_get_the_searching_banner_only() -> None:
    frame = np.full((360, 640, 3), 200, np.uint8)
    solver = LiveSolver()
    result = solver.process(frame)
    assert result.state is LiveState.SEARCHING and not result.drawn
    changed = np.nonzero(cv2.absdiff(frame, result.frame).max(axis=2))
    assert changed[0].max() < 80 and changed[1].max() < 400, "only the banner, top left"
    assert result.to_json()["state"] == "searching"


def test_a_frame_that_is_not_a_bgr_image_is_refused() -> None:
    with pytest.raises(ImageError, match="BGR image"):
        LiveSolver().process(np.zeros((10, 10), np.uint8))


@pytest.fixture(scope="module")
def tiny_video(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, SyntheticVideo]:
    video = synth_video(7, schedule=((None, 3), (0, 12)), size=(960, 540))
    path = tmp_path_factory.mktemp("live") / "in.mp4"
    return video.write(path), video


def frame_count(path: Path) -> int:
    capture = cv2.VideoCapture(str(path))
    count = 0
    while capture.read()[0]:
        count += 1
    capture.release()
    return count


def test_cli_writes_the_annotated_video_and_prints_json(
    tiny_video: tuple[Path, SyntheticVideo], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, video = tiny_video
    out = tmp_path / "out.mp4"
    assert main(["live", "--video", str(path), "--output", str(out), "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["frames"] == len(video) == frame_count(out) and stats["stopped"] is False
    assert stats["frames_with_grid"] >= 10
    assert 8 <= stats["frames_solved"] <= 12
    assert stats["fps"] > 0
    solution = "".join(str(v) for v in video.solutions[0].ravel())
    assert [p["solution"] for p in stats["puzzles"]] == [solution]


def test_cli_prints_the_counts(
    tiny_video: tuple[Path, SyntheticVideo], capsys: pytest.CaptureFixture[str]
) -> None:
    path, video = tiny_video
    assert main(["live", "--video", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"frames: {len(video)}" in out
    for label in ("frames with a grid:", "frames with the solution drawn:", "frames per second:"):
        assert label in out


def test_cli_says_when_a_video_is_cut_short(
    tiny_video: tuple[Path, SyntheticVideo], tmp_path: Path
) -> None:
    """The frames before the cut are processed; one warning line says why the count is short,
    without FFmpeg's own messages (a fresh process: OpenCV sets FFmpeg's log level once)."""
    _, video = tiny_video
    whole = tmp_path / "whole.avi"
    writer = cv2.VideoWriter(str(whole), cv2.VideoWriter_fourcc(*"MJPG"), 30.0, video.size)
    for image in video:
        writer.write(image)
    writer.release()
    data = whole.read_bytes()
    cut = tmp_path / "cut.avi"
    cut.write_bytes(data[: len(data) // 2])
    run = subprocess.run(
        [sys.executable, "-m", "sudoku_lens", "live", "--video", str(cut), "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0
    frames = json.loads(run.stdout)["frames"]
    assert 0 < frames < len(video)
    assert run.stderr.splitlines() == [
        f"sudoku-lens: warning: {cut} ended after {frames} of the {len(video)} frames it "
        "announces: the file is cut short or damaged (the frames before were processed)"
    ]


def test_cli_stopped_with_ctrl_c_does_not_call_the_video_damaged(
    tiny_video: tuple[Path, SyntheticVideo],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Ctrl-C ends the run with the frames so far counted and written; the video is whole, so
    the warning for a file cut short is not given."""
    path, video = tiny_video
    process = LiveSolver.process
    stop_at = 5
    calls = itertools.count()

    def interrupted(self: LiveSolver, frame: np.ndarray, *args: Any, **kwargs: Any) -> LiveResult:
        if next(calls) == stop_at:
            raise KeyboardInterrupt
        return process(self, frame, *args, **kwargs)

    monkeypatch.setattr(LiveSolver, "process", interrupted)
    out = tmp_path / "out.mp4"
    assert main(["live", "--video", str(path), "--output", str(out), "--json"]) == 0
    captured = capsys.readouterr()
    assert captured.err == "sudoku-lens: stopped\n"
    stats = json.loads(captured.out)  # a script can tell it from a whole run: it had no flag
    assert stats["frames"] == stop_at < len(video) and stats["stopped"] is True
    assert frame_count(out) == stop_at


def test_cli_refuses_to_write_the_annotated_video_over_the_one_it_reads(
    tiny_video: tuple[Path, SyntheticVideo], tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """The output would be written while the video is still read: the input is lost and what
    is read is the half-written output. The command refuses, also through a link to the file."""
    path, _ = tiny_video
    video = tmp_path / "page.mp4"
    video.write_bytes(path.read_bytes())
    (tmp_path / "link.mp4").symlink_to(video)
    for output in (video, tmp_path / "link.mp4"):
        assert main(["live", "--video", str(video), "--output", str(output)]) == 2
        err = capfd.readouterr().err
        assert err == (
            f"sudoku-lens: error: cannot write {output}: it is the video being read; give the "
            "annotated video another name\n"
        )
        assert video.read_bytes() == path.read_bytes()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--video", "{tmp}/missing.mp4"], "video not found"),
        (["--video", "{tmp}/junk.mp4"], "cannot read"),
        (["--video", "{tmp}/junk.txt"], "cannot read"),
        (["--video", "{tmp}"], "it is a folder"),
        (["--video", "{tmp}/junk.mp4", "--output", "{tmp}/no/such/out.mp4"], "does not exist"),
        (["--video", "{tmp}/junk.mp4", "--output", "{tmp}/out.txt"], "name it .mp4, .m4v or .mov"),
        (["--video", "{tmp}/junk.mp4", "--output", "{tmp}"], "it is a folder"),
        (["--camera", "97", "--output", "{tmp}/cam.mp4"], "camera 97 is not available"),
        (["--camera", "0"], "nothing to do"),
        pytest.param(
            ["--camera", "0", "--show"],
            "sudoku-lens serve",
            marks=pytest.mark.skipif(HAS_GUI, reason="this OpenCV build can open windows"),
        ),
    ],
)
def test_cli_bad_input_gets_one_clear_line(
    args: list[str], message: str, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "junk.mp4").write_bytes(b"this is not a video" * 100)
    (tmp_path / "junk.txt").write_text("this is not a video either\n")
    argv = ["live", *(a.format(tmp=tmp_path) for a in args)]
    assert main(argv) == 2
    captured = capfd.readouterr()
    err = captured.err.strip().splitlines()
    assert len(err) == 1, "nothing but the error line, not even FFmpeg's or OpenCV's"
    assert err[0].startswith("sudoku-lens: error: ") and message in err[0]
    assert captured.out == ""


def test_settings_that_cannot_work_and_empty_frames_are_refused_clearly() -> None:
    from sudoku_lens.errors import ImageError
    from sudoku_lens.live import LiveSettings, LiveSolver

    for bad in ({"fps": 0}, {"track_width": 0}, {"confirm_reads": 0}, {"changed_cells": 0}):
        with pytest.raises(ValueError, match="LiveSettings"):
            LiveSettings(**bad)
    with pytest.raises(ImageError, match="is empty"):
        LiveSolver().process(np.zeros((0, 0, 3), np.uint8))


def test_a_frame_without_a_grid_is_not_searched_again_restored(monkeypatch) -> None:
    """Live mode leaves out the grid search's retry on a restored copy (a photo's last resort):
    frames without a grid are common in a video and the next sharp one comes soon."""
    from sudoku_lens.read.grid import search

    def refuse(gray: np.ndarray) -> None:
        raise AssertionError("a video frame was searched again restored")

    monkeypatch.setattr(search, "_restorations", refuse)
    blank = np.full((480, 640, 3), 200, np.uint8)
    cv2.putText(blank, "no grid here", (60, 240), cv2.FONT_HERSHEY_SIMPLEX, 2, (40, 40, 40), 3)
    solver = LiveSolver()
    for _ in range(3):
        assert solver.process(blank).state == "searching"
