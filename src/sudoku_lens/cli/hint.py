"""`sudoku-lens hint PHOTO|PUZZLE`: the next logical step, in words, and drawn for a photo.

PUZZLE is puzzle text (an 81-character line, a 9-row grid, a file, or `-` for standard input) or
a pencil-mark grid. A photo is read (see `sudoku_lens.hints.hint_photo`) and written with the
step drawn into it; puzzle text is drawn as a clean grid when -o is given. Finding no step is an
answer, not an error: exit 0 with `{"technique": null}` (or `[]` with --all) in JSON.
Top-level imports stay light: every subcommand module is imported at start-up.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sudoku_lens.cli.jobs import where
from sudoku_lens.cli.solve import read_stdin, read_text, refuse_prose
from sudoku_lens.cli.solve_photo import (
    DEBUG_POINTER,
    GIVENS_DOUBTED,
    check_writable,
    looks_like_image,
)
from sudoku_lens.errors import PuzzleFormatError

if TYPE_CHECKING:
    import numpy as np

    from sudoku_lens.hints import PhotoHint
    from sudoku_lens.logic import CandidateGrid, Step


def add_parser(subparsers: Any) -> None:
    """Register `hint` on the top-level parser."""
    parser = subparsers.add_parser(
        "hint",
        help="the next logical step for a photo, a puzzle or a pencil-mark grid",
        description="Find the easiest next step, as a person would, and say why it holds. "
        "PUZZLE is a photo (the step is drawn into it), an 81-character line, a 9-row grid, a "
        "pencil-mark grid (9 rows of 9 candidate groups), a file holding one, or - for stdin.",
    )
    parser.add_argument("puzzle", metavar="PHOTO|PUZZLE", help="photo, puzzle, file, or -")
    parser.add_argument(
        "-o",
        "--output",
        metavar="OUT.png",
        help="the picture to write (.png, .jpg, ...): the photo with the step drawn in (default "
        "<photo>-hint.jpg for a JPEG photo, else <photo>-hint.png; none with --json or a photo "
        "on stdin, as for solve), or for puzzle "
        "text the grid with the step drawn",
    )
    parser.add_argument("--json", action="store_true", help="print the step as JSON")
    parser.add_argument(
        "--technique", metavar="NAME", help="look only for this technique (e.g. x-wing)"
    )
    parser.add_argument(
        "--all",
        action="store_true",
        dest="every",
        help="list every step found in the state, not just the easiest (with --json: a JSON "
        "list, [] when there is none)",
    )
    parser.set_defaults(run=run)


def read_state(source: str, text: str | None = None) -> CandidateGrid:
    """The state named by `source`: puzzle text or a pencil-mark grid, given inline, as a file,
    or `-` (its `text` when already read); comment lines (#) are skipped. Raises
    PuzzleFormatError, saying so when the text holds several puzzles."""
    from sudoku_lens.logic import parse_state
    from sudoku_lens.puzzle.text import read_puzzles

    text = read_text(source) if text is None else text
    rows = [row for row in text.splitlines() if not row.lstrip().startswith("#")]
    if not any(row.strip() for row in rows):
        raise PuzzleFormatError(f"no puzzle found in {where(source)}")
    try:
        return parse_state("\n".join(rows))
    except PuzzleFormatError:
        count = sum(entry.line is not None for entry in read_puzzles(text))
        if count == 0:
            refuse_prose(text, source)
        if count > 1:
            raise PuzzleFormatError(
                f"{where(source)} holds {count} puzzles: give one (rate and solve take a file of "
                "many)"
            ) from None
        raise


def run(args: argparse.Namespace) -> int:
    """Print (and draw) the next step of the photo or puzzle `args.puzzle`."""
    from sudoku_lens.logic import technique

    if args.technique is not None:
        technique(args.technique)
    output = Path(args.output) if args.output else None
    if output is not None:
        check_writable(output)
    photo: str | bytes | None = None
    found: PhotoHint | None = None
    text = None
    shown = args.puzzle
    if args.puzzle == "-":
        data, text = read_stdin()
        if data is not None:
            photo = data
            shown = "standard input"
    elif looks_like_image(args.puzzle):
        photo = args.puzzle
    if photo is not None:
        from sudoku_lens.hints import hint_photo
        from sudoku_lens.logic.progress import UnsolvablePuzzleError
        from sudoku_lens.puzzle.text import cell_name, cell_names

        try:
            found = hint_photo(photo, technique=args.technique, every=args.every, name=shown)
        except UnsolvablePuzzleError as exc:
            raise UnsolvablePuzzleError(
                f"{exc} (sudoku-lens solve PHOTO {DEBUG_POINTER})"
            ) from None
        steps, image, state = found.steps, found.image, found.state
        if output is None and isinstance(photo, str) and not args.json:
            from sudoku_lens.pipeline import default_output_path

            output = default_output_path(photo, "hint", found.reading.photo.kind).resolve()
        if found.corrected_cells:
            cells = ", ".join(f"r{r + 1}c{c + 1}" for r, c in found.corrected_cells)
            print(f"sudoku-lens: corrected misread digits at {cells}", file=sys.stderr)
        marked = "marked in the picture; " if output is not None else ""
        unsure, why_unsure = (
            ("handwritten entries not checked", f"{marked}{GIVENS_DOUBTED}; ")
            if found.givens_doubted
            else ("handwritten entries too unclear to check", marked)
        )
        notes = (
            (
                found.wrong_entries,
                "wrong handwritten entries",
                f"{marked}the hint continues from the right ones",
            ),
            (
                found.unsure_entries,
                unsure,
                f"{why_unsure}the hint uses them only where they agree with the answer",
            ),
        )
        for entries, what, why in notes:
            if entries:
                cells = ", ".join(cell_name(cell) for cell in entries)
                print(f"sudoku-lens: {what} at {cells}: {why}", file=sys.stderr)
        for wrong in found.wrong_candidates:
            print(f"sudoku-lens: {wrong.message}", file=sys.stderr)
        if found.unsure_candidates:
            cells = ", ".join(cell_names(found.unsure_candidates))
            print(f"sudoku-lens: candidates read too unsure to check at {cells}", file=sys.stderr)
    else:
        from sudoku_lens.hints import find_hints

        state = read_state(args.puzzle, text)
        steps = find_hints(state, technique=args.technique, every=args.every)
        image = _grid_picture(state, steps[0] if steps else None) if output else None
    if output is not None and image is not None:
        _write(output, image, steps, state.is_solved(), found, args.technique)
    _print(steps, args, state.is_solved(), found)
    if output is not None:
        print(f"wrote {output}", file=sys.stderr)
    return 0


def _grid_picture(state: CandidateGrid, step: Step | None) -> np.ndarray:
    """A clean picture of the state with the step drawn in."""
    from sudoku_lens.draw.hint import draw_step, render_grid

    image, corners = render_grid(state)
    return draw_step(image, corners, step, state) if step is not None else image


def _write(
    output: Path,
    image: np.ndarray,
    steps: list[Step],
    complete: bool,
    found: PhotoHint | None,
    technique: str | None,
) -> None:
    """Write the picture with the first step's sentence (or why there is none) under it,
    naming the entries ringed in it, so that the picture says everything on its own."""
    from sudoku_lens.draw.hint import add_caption
    from sudoku_lens.puzzle.text import cell_name
    from sudoku_lens.read.image_io import write_image

    if steps:
        text = steps[0].explanation
    elif complete:
        text = "No step found: the grid is already complete."
    else:
        text = f"No {technique or 'technique'} applies in this state."
    if found is not None:
        covered = {cell for cell, _ in steps[0].placements} if steps else set()
        written = found.entries.reshape(-1)
        for cells, what, under in (
            (found.wrong_entries, "Wrong entries, ringed in red", "is wrong"),
            (
                found.unsure_entries,
                "Entries not checked, ringed in orange (so many disagree with the givens as read "
                "that a given is more likely misread)"
                if found.givens_doubted
                else "Entries too unclear to check, ringed in orange",
                "is not checked" if found.givens_doubted else "is unclear",
            ),
        ):
            ringed = [cell_name(cell) for cell in cells if cell not in covered]
            if ringed:
                text += f" {what}: {', '.join(ringed)}."
            text += "".join(
                f" The {written[cell]} written in {cell_name(cell)} {under}."
                for cell in cells
                if cell in covered
            )
        framed = [cell.name for cell in found.wrong_candidates]
        if framed:
            text += f" Candidates that leave out the answer, framed in purple: {', '.join(framed)}."
    write_image(output, add_caption(image, text))


def _print(
    steps: list[Step], args: argparse.Namespace, complete: bool, found: PhotoHint | None
) -> None:
    """Print the steps; a photo's single step in JSON also names the cells the repair changed
    (`corrected_cells`: "r3c4", as `solve --json` names them) and the entries left out of it
    (`wrong_entries`, `unsure_entries`: `{"cell": "r3c4", "written": 5}` each), as
    `POST /api/hint` does."""
    if args.json:
        if args.every:
            print(json.dumps([step.to_json() for step in steps]))
            return
        record = steps[0].to_json() if steps else {"technique": None}
        if found is not None:
            record |= found.photo_json()
        print(json.dumps(record))
        return
    if complete:
        print("no step found: the grid is already complete")
    elif not steps:
        what = args.technique or "technique"
        print(f"no step found: no {what} applies in this state")
    for step in steps:
        print(f"{step.technique}: {step.explanation}")
