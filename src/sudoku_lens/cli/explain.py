"""`sudoku-lens explain PUZZLE`: every step from a puzzle (or pencil-mark grid) to its solution.

Exit code 0 when the steps reach the solution, 1 when the techniques stop before it (the state
where they stopped is printed), 2 for input that is not a puzzle with one solution.
"""

from __future__ import annotations

import argparse
import json
from typing import Any


def add_parser(subparsers: Any) -> None:
    """Register `explain` on the top-level parser."""
    parser = subparsers.add_parser(
        "explain",
        help="every logical step from a puzzle to its solution",
        description="Solve as a person would, always the easiest step next, and print each step "
        "with its reason. PUZZLE is an 81-character line, a 9-row grid, a pencil-mark grid, a "
        "file holding one, or - for stdin.",
    )
    parser.add_argument("puzzle", metavar="PUZZLE", help="puzzle, pencil-mark grid, file, or -")
    parser.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object: puzzle, solved, rating, steps (as hint --json), end",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Print the path from `args.puzzle` to the solution."""
    from sudoku_lens.cli.hint import read_state
    from sudoku_lens.logic import checked_solution, explain
    from sudoku_lens.logic.rating import rate

    state = read_state(args.puzzle)
    checked_solution(state)
    path = explain(state)
    assert path.end is not None
    rating = rate(state) if path.solved else None
    if args.json:
        print(
            json.dumps(
                {
                    "puzzle": state.line(),
                    "solved": path.solved,
                    "rating": rating.to_json() if rating is not None else None,
                    "steps": [step.to_json() for step in path.steps],
                    "end": path.end.line(),
                }
            )
        )
        return 0 if path.solved else 1
    if state.is_solved():
        print("the puzzle is already solved: nothing to explain")
        return 0
    width = len(str(len(path.steps)))
    for number, step in enumerate(path.steps, 1):
        print(f"{number:>{width}}. {step.technique}: {step.explanation}")
    if rating is not None:
        print(f"solved in {len(path.steps)} steps; " + rating_line(rating, path.steps))
        return 0
    print(f"stuck after {len(path.steps)} steps: no technique applies to this state:")
    print(path.end.pencilmarks())
    return 1


def rating_line(rating: Any, steps: list[Any]) -> str:
    """The rating in words beside the steps printed. The rating's own path is Sudoku
    Explainer's, with its techniques only, so its hardest step may be one the printed path
    did without: then the line says so rather than name a step that is not above."""
    shown = max(steps, key=lambda step: step.rating).technique if steps else None
    head = f"rating {rating.rating:.1f} {rating.level}"
    if rating.hardest == shown:
        return f"{head}, set by its hardest step, {a_technique(shown)}"
    return (
        f"{head} on Sudoku Explainer's scale, whose own path (SE's techniques only, "
        f"{rating.steps} steps) needs {a_technique(rating.hardest)}"
    )


def a_technique(name: str) -> str:
    """ "a pointing", "an x-wing", "an xy-chain", "a unique-rectangle-1": a technique's name
    with its article, as it is read out."""
    return f"an {name}" if name[0] in "aeiox" else f"a {name}"
