"""The techniques a person looks for, in the order of their Sudoku Explainer rating.

Each module of `sudoku_lens.logic.patterns` listed in `_MODULES` exports `TECHNIQUES`, a list of
`Technique`; the catalog gathers them and sorts them by rating (stable, so a module's own order
breaks ties). A technique's `find` yields every instance it sees in a state, the most natural one
first (for chains: the shortest).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache

from sudoku_lens.errors import SudokuLensError
from sudoku_lens.logic.state import CandidateGrid
from sudoku_lens.logic.step import Step

_MODULES = (
    "singles",
    "intersections",
    "subsets",
    "single_digit",
    "fish",
    "wings",
    "uniqueness",
    "coloring",
    "chains",
    "als",
    "forcing",
)
"""Technique modules; among techniques of equal rating, an earlier module's are tried first
(a locked pair before a naked pair, a skyscraper before a finned X-Wing)."""


@dataclass(frozen=True)
class Technique:
    """A named way of finding steps."""

    name: str
    """Kebab-case name, as the solving community calls it."""
    rating: float
    """The lowest rating a step of this technique has (Sudoku Explainer scale); it sets the
    order in which techniques are tried."""
    find: Callable[[CandidateGrid], Iterator[Step]]


class UnknownTechniqueError(SudokuLensError, ValueError):
    """A technique name that the catalog does not know."""


@cache
def techniques() -> tuple[Technique, ...]:
    """Every technique, easiest first."""
    found: list[Technique] = []
    for module in _MODULES:
        found.extend(importlib.import_module(f"sudoku_lens.logic.patterns.{module}").TECHNIQUES)
    return tuple(sorted(found, key=lambda t: t.rating))


def technique(name: str) -> Technique:
    """The technique called `name` (any case, spaces or hyphens: "X-Wing", "x wing"); raises
    UnknownTechniqueError suggesting the nearest names, or naming the known ones."""
    import difflib

    wanted = "-".join(name.lower().replace("_", " ").replace("-", " ").split())
    names = [t.name for t in techniques()]
    for candidate in techniques():
        if candidate.name == wanted:
            return candidate
    near = difflib.get_close_matches(wanted, names, n=3, cutoff=0.6)
    if near:
        raise UnknownTechniqueError(
            f"unknown technique {name!r}; did you mean {' or '.join(near)}?"
        )
    raise UnknownTechniqueError(f"unknown technique {name!r}; known: {', '.join(names)}")
