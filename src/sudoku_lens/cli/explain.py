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
        # the rating's own path is Sudoku Explainer's (its techniques only), so its length and
        # hardest step may differ from those of the path just printed
        print(
            f"solved in {len(path.steps)} steps; rating {rating.rating:.1f} {rating.level}, "
            f"set by a {rating.hardest} on Sudoku Explainer's path ({rating.steps} steps)"
        )
        return 0
    print(f"stuck after {len(path.steps)} steps: no technique applies to this state:")
    print(path.end.pencilmarks())
    return 1
