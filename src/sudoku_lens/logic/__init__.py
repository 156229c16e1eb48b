"""Solve as a person would: candidates, techniques that each prove steps, hints and ratings.

>>> from sudoku_lens.logic import CandidateGrid, next_step
>>> grid = CandidateGrid.from_puzzle(
...     "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79")
>>> next_step(grid).explanation
'r1c6 is the only place for an 8 in box 2.'
>>> rate(grid).text()
'1.2 easy hidden-single (51 steps)'
"""

from sudoku_lens.logic.catalog import Technique, UnknownTechniqueError, technique, techniques
from sudoku_lens.logic.progress import UnsolvablePuzzleError, checked_solution
from sudoku_lens.logic.rating import LEVELS, Rating, level_of, rate, rated_explanation
from sudoku_lens.logic.solver import Explanation, all_steps, explain, next_step
from sudoku_lens.logic.state import CandidateGrid, parse_state
from sudoku_lens.logic.step import Link, Step

__all__ = [
    "CandidateGrid",
    "Explanation",
    "LEVELS",
    "Link",
    "Rating",
    "Step",
    "Technique",
    "UnknownTechniqueError",
    "UnsolvablePuzzleError",
    "all_steps",
    "checked_solution",
    "explain",
    "level_of",
    "next_step",
    "parse_state",
    "rate",
    "rated_explanation",
    "technique",
    "techniques",
]
