"""`sudoku-lens explain PUZZLE`: every step from a puzzle (or pencil-mark grid) to its solution.

The steps are those of the puzzle's rating (`rated_explanation`): the path that always takes the
easiest step with Sudoku Explainer's techniques, each step at the rating it counts for, so the
step count and the rating are the ones `sudoku-lens rate` gives. Exit code 0 when the steps reach
the solution, 1 when the techniques stop before it (the state where they stopped is printed), 2
for input that is not a puzzle with one solution.
"""

from __future__ import annotations

import argparse
import json
from typing import Any


def add_parser(subparsers: Any) -> None:
    """Register `explain` on the top-level parser."""
    parser = subparsers.add_parser(
        "explain",
        help="every logical step from a puzzle to its solution, and its rating",
        description="Solve as a person would, always the easiest step next on the Sudoku "
        "Explainer scale, and print each step with its reason, then the rating: the steps are "
        "those `rate` counts and rates. PUZZLE is an 81-character line, a 9-row grid, a "
        "pencil-mark grid, a file holding one, or - for stdin.",
    )
    parser.add_argument("puzzle", metavar="PUZZLE", help="puzzle, pencil-mark grid, file, or -")
    parser.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object: rate --json's fields (puzzle, rating, level, hardest, "
        "steps, seconds, solved), path (each step as hint --json prints it) and end",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Print the path from `args.puzzle` to the solution, and the rating taken on it."""
    from sudoku_lens.cli.hint import read_state
    from sudoku_lens.logic import rated_explanation

    state = read_state(args.puzzle)
    rating, path = rated_explanation(state)
    assert path.end is not None
    if args.json:
        record = rating.to_json() | {
            "path": [step.to_json() for step in path.steps],
            "end": path.end.line(),
        }
        print(json.dumps(record))
        return 0 if rating.solved else 1
    if state.is_solved():
        print("the puzzle is already solved: nothing to explain")
        return 0
    width = len(str(rating.steps))
    for number, step in enumerate(path.steps, 1):
        print(f"{number:>{width}}. {step.technique}: {step.explanation}")
    if rating.solved:
        assert rating.hardest is not None
        print(
            f"solved in {rating.steps} steps; rating {rating.rating:.1f} {rating.level}, set by "
            f"its hardest step, {a_technique(rating.hardest)}"
        )
        return 0
    print(f"stuck after {rating.steps} steps: no technique applies to this state:")
    print(path.end.pencilmarks())
    return 1


def a_technique(name: str) -> str:
    """ "a pointing", "an x-wing", "an xy-chain", "a unique-rectangle-1": a technique's name
    with its article, as it is read out."""
    return f"an {name}" if name[0] in "aeiox" else f"a {name}"
