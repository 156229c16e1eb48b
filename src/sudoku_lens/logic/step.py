"""One logical step: what it proves (placements, eliminations), why (the pattern), and how hard."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sudoku_lens.logic.units import unit_name
from sudoku_lens.puzzle.text import cell_name

Candidate = tuple[int, int]
"""A (cell, digit) pair: cell 0-80, digit 1-9."""


def a_digit(digit: int) -> str:
    """ "a 5", "an 8": a digit with its article, for explanations."""
    return f"an {digit}" if digit == 8 else f"a {digit}"


@dataclass(frozen=True)
class Link:
    """A link of a chain between two candidates, for drawing: strong (one of them is true) or
    weak (not both are true)."""

    start: Candidate
    end: Candidate
    strong: bool


@dataclass(frozen=True)
class Step:
    """A deduction a person could make, with the evidence to draw it and a sentence to say it."""

    technique: str
    """The community's name, kebab-case: "hidden-single", "x-wing", "xy-chain", ..."""
    rating: float
    """Difficulty of this step on the Sudoku Explainer scale (chains grow with their length)."""
    explanation: str
    """One plain sentence: what is proved and why."""
    placements: tuple[Candidate, ...] = ()
    eliminations: tuple[Candidate, ...] = ()
    cells: tuple[int, ...] = ()
    """The cells of the pattern that proves the step (highlighted when drawn)."""
    candidates: tuple[Candidate, ...] = ()
    """The pattern's own candidates (drawn marked), e.g. the fish's base candidates."""
    units: tuple[int, ...] = ()
    """The units the pattern lives in (0-8 rows, 9-17 columns, 18-26 boxes)."""
    links: tuple[Link, ...] = ()
    """The chain's links, in order, for chains and loops."""
    fins: tuple[int, ...] = ()
    """A finned or sashimi fish's fins: cells of `cells` outside the cover (drawn apart)."""

    def to_json(self) -> dict[str, Any]:
        """The step as the command line and the web API print it."""
        return {
            "technique": self.technique,
            "rating": self.rating,
            "placements": [f"{cell_name(c)}={d}" for c, d in self.placements],
            "eliminations": [f"{cell_name(c)}<>{d}" for c, d in self.eliminations],
            "cells": [cell_name(c) for c in self.cells],
            "units": [unit_name(u) for u in self.units],
            "links": [
                {
                    "from": f"{cell_name(link.start[0])}={link.start[1]}",
                    "to": f"{cell_name(link.end[0])}={link.end[1]}",
                    "strong": link.strong,
                }
                for link in self.links
            ],
            "explanation": self.explanation,
        } | ({"fins": [cell_name(c) for c in self.fins]} if self.fins else {})

    def contradictions(self, solution: str) -> list[str]:
        """What this step gets wrong against the puzzle's solution (an 81-character line): a
        placement of another digit or an elimination of the right one. Empty for a sound step."""
        wrong = [
            f"{cell_name(c)}={d} but the solution has {solution[c]}"
            for c, d in self.placements
            if int(solution[c]) != d
        ]
        wrong += [
            f"{cell_name(c)}<>{d} removes the solution's digit"
            for c, d in self.eliminations
            if int(solution[c]) == d
        ]
        return wrong
