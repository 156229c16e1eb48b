"""How hard a puzzle is, on the Sudoku Explainer scale, with a word for people.

A puzzle's rating is the hardest step on the path that always takes the easiest step available
with Sudoku Explainer's techniques (`rated_path`): the technique a solver cannot do without. Each
step is rated by its technique (chains by their length too; a pattern that leaves a hidden single
at once by SE's "direct" rating), plus the calibrated adjustment of `RATING_ADJUSTMENTS`, fitted
against Sudoku Explainer's own ratings (see `sudoku_lens.logic.calibration` and
`benchmarks/logic.py`). `rated_explanation` gives the rating with that path, which
`sudoku-lens explain` prints, so its steps are the ones `rate` counts; hints (`next_step`) and
the library's `explain` take the whole catalog instead and may find an easier route.

A puzzle the techniques cannot finish gets no number: `Rating.rating` is None and the text says
where the techniques stopped, rather than a rating that would look real. Nor does a grid already
full, which has no step to rate (`Rating.already_solved`): it is not an easy puzzle of 0.0.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from functools import cache, partial
from typing import Any

from sudoku_lens.logic.catalog import Technique, technique, techniques
from sudoku_lens.logic.progress import checked_solution
from sudoku_lens.logic.solver import Explanation
from sudoku_lens.logic.state import CandidateGrid, as_state
from sudoku_lens.logic.step import Step
from sudoku_lens.logic.units import CELL_UNITS, UNIT_SETS

LEVELS: tuple[tuple[str, float], ...] = (
    ("easy", 2.5),
    ("medium", 4.0),
    ("hard", 6.0),
    ("expert", 7.5),
    ("extreme", math.inf),
)
"""Each level word with the rating it stays below, chosen along the families of techniques on
the Sudoku Explainer scale:

- easy, below 2.5: singles only (full house 1.0, hidden singles 1.2-1.5, naked single 2.3), what
  a newspaper's easy puzzle needs;
- medium, below 4.0: pointing and claiming (2.6-2.8), naked and hidden pairs, naked triples,
  x-wing and swordfish (3.0-3.8): crossing out candidates in one or two units;
- hard, below 6.0: hidden triples, wings, unique rectangles, quads, jellyfish, BUG+1 (4.0-5.9):
  patterns of several cells that must be spotted whole;
- expert, below 7.5: single-digit chains and loops, XY-chains, AIC, ALS (6.0-7.4): following a
  chain of implications;
- extreme, 7.5 and over: Nishio, cell and unit forcing chains, dynamic and nested forcing chains.
"""

DIRECT_RATINGS: dict[str, float] = {
    "pointing": 1.7,
    "claiming": 1.9,
    "hidden-pair": 2.0,
    "hidden-triple": 2.5,
}
"""Sudoku Explainer's "direct" ratings: a pointing, claiming, hidden pair or hidden triple whose
eliminations leave a hidden single at once is how a newspaper's easy puzzle is solved, and SE
rates it as such (Direct Pointing 1.7 ... Direct Hidden Triplet 2.5), well below the same
pattern used only to thin out candidates (2.6-4.0). Which singles count is SE's own rule
(`is_direct`); SE has no direct naked or locked pair."""

NOT_IN_SUDOKU_EXPLAINER: frozenset[str] = frozenset(
    {
        "avoidable-rectangle-1",
        "avoidable-rectangle-2",
        "hidden-rectangle",
        "unique-rectangle-5",
        "unique-rectangle-6",
        "finned-x-wing",
        "finned-swordfish",
        "finned-jellyfish",
        "sashimi-x-wing",
        "sashimi-swordfish",
        "sashimi-jellyfish",
        "simple-colors-trap",
        "simple-colors-wrap",
        "multi-colors-1",
        "multi-colors-2",
        "remote-pair",
        "w-wing",
        "sue-de-coq",
        "als-xz",
        "als-xy-wing",
        "als-xy-chain",
        "death-blossom",
        "grouped-continuous-nice-loop",
        "grouped-discontinuous-nice-loop",
        "grouped-aic",
    }
)
"""Techniques of the catalog that Sudoku Explainer (as Sukaku Explainer, which rated the
calibration bank) does not have: it reaches their eliminations by a longer route, usually a
chain, so the rating path leaves them out (hints and `explain` still use them)."""

STRONG_LINK_RATINGS: dict[int, float] = {2: 4.0, 3: 5.4, 4: 5.8, 5: 6.2, 6: 6.6}
"""Sukaku Explainer's single-digit chains by their number of strong links (skyscraper 4.0, its
"3 strong-linked fishes" 5.4, ... 6 strong links 6.6), plus 0.1 when the links lie in units of
two kinds and 0.2 of three; longer ones are its forcing X-chains (our x-chain rating)."""

EMPTY_RECTANGLE_RATING = 4.3
"""Sukaku Explainer's empty rectangle: two strong links, one of them grouped in a box."""

SINGLE_DIGIT_CHAINS = ("skyscraper", "two-string-kite", "turbot-fish", "x-chain")

RATING_ADJUSTMENTS: dict[str, float] = {
    "aic": 0.3,
    "continuous-nice-loop": -0.2,
    "discontinuous-nice-loop": -0.1,
    "unique-rectangle-4": 0.9,
    "x-chain": -0.2,
}
"""Per-technique corrections added to each step's own rating, fitted on the training half of
the Sudoku Explainer-rated puzzles (`python benchmarks/logic.py --calibrate` prints a new table;
techniques not listed keep their nominal Sudoku Explainer rating)."""


def level_of(rating: float) -> str:
    """The level word of a rating on the Sudoku Explainer scale (see `LEVELS`)."""
    for word, below in LEVELS:
        if rating < below:
            return word
    return LEVELS[-1][0]


def is_direct(grid: CandidateGrid, step: Step) -> bool:
    """True when `step` (a pointing, claiming or hidden set found in `grid`) leaves at once the
    hidden single that makes it "direct" by Sudoku Explainer's own rule (Locking and HiddenSet
    of SE 1.2.1): a pointing, a single of its digit in another box along the line it clears; a
    claiming, a single of its digit in another line of the same kind through the box it clears;
    a hidden set, a single of a digit it removes, in its own unit. The pattern's first unit
    (`step.units[0]`) is the box of a pointing, the line of a claiming, the unit of a hidden
    set. A naked single it leaves does not count, nor a single in any other unit."""
    after = grid.copy()
    after.apply(step)
    first = step.units[0]
    kind = first // 9
    for cell, digit in step.eliminations:
        unit = first if step.technique.startswith("hidden") else CELL_UNITS[cell][kind]
        places = after.digit_cells[digit] & UNIT_SETS[unit]
        if places and not places & (places - 1):
            return True
    return False


def strong_link_rating(step: Step) -> float:
    """A single-digit chain's rating on Sukaku Explainer's scale, from its strong links (see
    `STRONG_LINK_RATINGS`); the step's own rating when it has more strong links than that."""
    kinds = set()
    count = 0
    for link in step.links:
        if link.strong:
            count += 1
            a, b = link.start[0], link.end[0]
            kinds.add("row" if a // 9 == b // 9 else "column" if a % 9 == b % 9 else "box")
    if count not in STRONG_LINK_RATINGS:
        return step.rating
    return round(STRONG_LINK_RATINGS[count] + 0.1 * (len(kinds) - 1), 1)


def _rerated(find: Callable[[CandidateGrid], Iterator[Step]], rating: Callable[[Step], float]):
    def found(grid: CandidateGrid) -> Iterator[Step]:
        for step in find(grid):
            yield replace(step, rating=rating(step))

    return found


@cache
def rating_techniques() -> tuple[Technique, ...]:
    """The techniques the rating path uses, easiest first: Sudoku Explainer's set (the catalog
    without `NOT_IN_SUDOKU_EXPLAINER`, with its WXYZ- and VWXYZ-wings), single-digit chains
    rated by their strong links, empty rectangles as SE rates them, and unique rectangles
    whose corners all keep both digits, the only ones SE looks for."""
    # Imported here: importing the techniques subpackage while `sudoku_lens.logic` is still
    # loading would shadow its `techniques` function with the subpackage.
    from sudoku_lens.logic.patterns.als import vwxyz_wing, wxyz_wing
    from sudoku_lens.logic.patterns.uniqueness import WITH_MISSING_CANDIDATES

    chosen = [t for t in techniques() if t.name not in NOT_IN_SUDOKU_EXPLAINER]
    rerated = []
    for entry in chosen:
        if entry.name in SINGLE_DIGIT_CHAINS:
            lowest = STRONG_LINK_RATINGS[2] if entry.name != "x-chain" else STRONG_LINK_RATINGS[3]
            entry = Technique(entry.name, lowest, _rerated(entry.find, strong_link_rating))
        elif entry.name in WITH_MISSING_CANDIDATES:  # SE's rectangles keep both digits
            entry = Technique(
                entry.name, entry.rating, partial(entry.find, missing_candidates=False)
            )
        elif entry.name == "empty-rectangle":
            entry = Technique(
                entry.name,
                EMPTY_RECTANGLE_RATING,
                _rerated(entry.find, lambda _: EMPTY_RECTANGLE_RATING),
            )
        rerated.append(entry)
    rerated += [Technique("wxyz-wing", 5.5, wxyz_wing), Technique("vwxyz-wing", 6.2, vwxyz_wing)]
    return tuple(sorted(rerated, key=lambda t: t.rating))


def rated_path(grid: CandidateGrid) -> Explanation:
    """The path Sudoku Explainer's rating follows from `grid` (left unchanged): at each state
    the step of lowest rating, where a pointing, claiming or hidden set that leaves a hidden
    single at once (`is_direct`) counts at its direct rating (`DIRECT_RATINGS`), so it comes
    before the naked single that SE would otherwise take. Each step carries the rating it is
    taken at (a direct pattern its direct rating), before the calibrated adjustments; the
    path ends at a full grid or where no technique applies."""
    order = sorted(
        [(t.rating, t, False) for t in rating_techniques()]
        + [(value, technique(name), True) for name, value in DIRECT_RATINGS.items()],
        key=lambda entry: entry[0],
    )
    state = grid.copy()
    path = Explanation(start=grid)
    while not state.is_solved():
        found = _easiest(state, order)
        if found is None:
            break
        step, value = found
        state.apply(step)
        path.steps.append(step if step.rating == value else replace(step, rating=value))
    path.end = state
    return path


def _easiest(
    state: CandidateGrid, order: list[tuple[float, Technique, bool]]
) -> tuple[Step, float] | None:
    for value, candidate, direct in order:
        for step in candidate.find(state):
            if not direct:
                return step, step.rating
            if is_direct(state, step):
                return step, value
    return None


@dataclass(frozen=True)
class Rating:
    """A puzzle's difficulty: the hardest step of the easiest path, and how long the path is."""

    puzzle: str
    """The placed digits rated from, as an 81-character line (0 for empty)."""
    rating: float | None
    """The hardest step's rating on the Sudoku Explainer scale; None when the techniques could
    not finish the puzzle, or it was already solved (no step to rate)."""
    level: str | None
    """easy, medium, hard, expert or extreme (see `LEVELS`); None when there is no rating."""
    hardest: str | None
    """The technique of the hardest step (so far, when not finished); None without steps."""
    steps: int
    """Steps taken (to the end, or until no technique applied)."""
    seconds: float
    """Time spent checking the puzzle and explaining it."""

    @property
    def already_solved(self) -> bool:
        """True when the grid rated was full: there was no step to take, so no rating."""
        return "0" not in self.puzzle

    @property
    def solved(self) -> bool:
        """True when the techniques took the puzzle to its solution (or it was already solved)."""
        return self.rating is not None or self.already_solved

    def to_json(self) -> dict[str, Any]:
        """`{"puzzle", "rating", "level", "hardest", "steps", "seconds", "solved"}`; rating and
        level are null for a puzzle the techniques could not finish (`solved` false) and for a
        grid already solved (`solved` true, `steps` 0)."""
        return {
            "puzzle": self.puzzle,
            "rating": self.rating,
            "level": self.level,
            "hardest": self.hardest,
            "steps": self.steps,
            "seconds": round(self.seconds, 6),
            "solved": self.solved,
        }

    def text(self) -> str:
        """One line for people: `7.1 expert aic (54 steps)`, or why there is no rating."""
        if self.already_solved:
            return "already solved: no step to rate"
        if self.rating is None:
            hardest = f"; hardest so far: {self.hardest}" if self.hardest else ""
            return f"unrated: no technique applies after {self.steps} steps{hardest}"
        return f"{self.rating:.1f} {self.level} {self.hardest} ({self.steps} steps)"


def calibrated(step: Step) -> Step:
    """`step` at its rating plus its technique's calibrated adjustment (`RATING_ADJUSTMENTS`)."""
    value = round(step.rating + RATING_ADJUSTMENTS.get(step.technique, 0.0), 1)
    return step if value == step.rating else replace(step, rating=value)


def rated_explanation(puzzle: Any) -> tuple[Rating, Explanation]:
    """A puzzle's rating and the path it is taken on (`rated_path`), each step at its
    calibrated rating: the rating is the highest of them, `hardest` the technique of the first
    step that has it, `steps` the path's length. `sudoku-lens explain` prints this path and
    `rate` its rating, so the two agree; a grid already solved has no rating (None) and no
    steps. Takes and raises what `rate` does."""
    start = time.perf_counter()
    grid = as_state(puzzle)
    checked_solution(grid)
    path = rated_path(grid)
    path.steps = [calibrated(step) for step in path.steps]
    hardest = max(path.steps, key=lambda step: step.rating, default=None)
    name = hardest.technique if hardest is not None else None
    seconds = time.perf_counter() - start
    if hardest is None or not path.solved:  # no step to rate (already solved), or stuck
        return Rating(grid.line(), None, None, name, len(path.steps), seconds), path
    top = hardest.rating
    return Rating(grid.line(), top, level_of(top), name, len(path.steps), seconds), path


def rate(puzzle: Any) -> Rating:
    """Rate a puzzle (text, pencil-mark grid, array or CandidateGrid) by solving it as a person
    would (`rated_explanation`, without its path). Raises PuzzleFormatError for text that is not
    a puzzle and UnsolvablePuzzleError for a puzzle without exactly one solution (or pencil
    marks that lost a right digit)."""
    return rated_explanation(puzzle)[0]
