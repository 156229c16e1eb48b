"""`sudoku-lens live`: solve the Sudoku a camera or a video shows, the answer drawn on frames."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

SHORT_VIDEO = 0.9
"""A video whose frames decode to fewer than this share of the count its header announces is
said to be cut short (a container without a frame count gives an estimate, hence the margin)."""


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register the `live` subcommand."""
    parser = subparsers.add_parser(
        "live",
        help="solve a Sudoku seen by a camera or in a video, answer drawn on every frame",
        description=(
            "Find the Sudoku in each frame, read and solve it once, then follow the page and draw "
            "the answer on it. Headless by default: --output writes the annotated video, --show "
            "opens a window where OpenCV has a GUI. At the end, prints frames, frames with a "
            "grid, frames with the solution drawn, puzzles solved, and frames per second."
        ),
    )
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--camera", type=int, metavar="N", help="camera index (0 = default)")
    source.add_argument("--video", metavar="IN.mp4", help="video file to process")
    parser.add_argument("--output", "-o", metavar="OUT.mp4", help="write the annotated video")
    parser.add_argument("--show", action="store_true", help="show the annotated frames in a window")
    parser.add_argument(
        "--json",
        action="store_true",
        help="print the counts as a JSON object: frames, frames_with_grid, frames_solved, fps, "
        "seconds, puzzles (puzzle, solution, first_frame), stopped (true when stopped with "
        "Ctrl+C or q / Esc before the end)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Process the stream and print the counts; 0 on success, a warning where the video ends
    early."""
    import cv2
    from tqdm import tqdm

    from sudoku_lens.cli.solve_photo import holds_an_image
    from sudoku_lens.errors import SudokuLensError
    from sudoku_lens.live import LiveSolver
    from sudoku_lens.live.stream import (
        NO_GUI_MESSAGE,
        check_output,
        open_capture,
        open_window,
        run_stream,
    )
    from sudoku_lens.read.formats import IMAGE_SUFFIXES
    from sudoku_lens.read.image_io import quiet_opencv

    show = bool(args.show)
    if show and not open_window():
        if args.output is None:
            raise SudokuLensError(NO_GUI_MESSAGE)
        print(f"sudoku-lens: {NO_GUI_MESSAGE}", file=sys.stderr)
        show = False
    if args.camera is not None and not show and args.output is None:
        raise SudokuLensError("nothing to do: give --output OUT.mp4 and/or --show for a camera")

    if args.output is not None:
        check_output(args.output)
        if args.video is not None and _same_file(args.video, args.output):
            raise SudokuLensError(
                f"cannot write {args.output}: it is the video being read; give the annotated "
                "video another name"
            )
    if args.video is not None and holds_an_image(args.video):
        raise SudokuLensError(
            f"{args.video} is a still image, not a video: solve a photo with "
            f"'sudoku-lens solve {args.video}'"
        )
    named_as_picture = args.video is not None and Path(args.video).suffix.lower() in IMAGE_SUFFIXES
    if named_as_picture and Path(args.video).is_file():  # a missing one: the video reader says
        raise SudokuLensError(f"{args.video} is named as a picture but holds no image")
    quiet_opencv()

    capture = open_capture(video=args.video, camera=args.camera)
    total = int(capture.get(cv2.CAP_PROP_FRAME_COUNT) or 0) if args.video else 0
    with tqdm(
        total=total or None,
        unit="frame",
        file=sys.stderr,
        disable=not sys.stderr.isatty(),
        desc="live",
    ) as bar:
        stats = run_stream(
            capture,
            LiveSolver(),
            output=args.output,
            show=show,
            live_clock=args.camera is not None,
            progress=bar.update,
        )
    if stats.frames == 0:
        where = args.video if args.video else f"camera {args.camera}"
        raise SudokuLensError(f"cannot read {where}: no frame could be decoded")
    if total and stats.frames < SHORT_VIDEO * total and not stats.stopped:
        print(
            f"sudoku-lens: warning: {args.video} ended after {stats.frames} of the {total} frames "
            "it announces: the file is cut short or damaged (the frames before were processed)",
            file=sys.stderr,
        )
    if args.json:
        print(json.dumps(stats.to_json()))
    else:
        print(stats.summary())
        if args.output:
            print(f"annotated video written to {args.output}")
    return 0


def _same_file(video: str, output: str) -> bool:
    """Whether writing `output` would overwrite `video` while it is read (a link to it too)."""
    try:
        return os.path.samefile(video, output)
    except OSError:  # either is missing: nothing to overwrite, or the reader says what is wrong
        return False
