"""Find the Sudoku grid in a photo and cut its 81 cells along the grid's own lines.

The search runs on a grayscale copy halved until it is at most WORK_SIDE pixels, in stages:

1. `candidates`: ink maps (how much darker a pixel is than its neighbourhood) and the candidate
   quadrilaterals of every large outline in the ink, of its long lines alone, and of groups of
   same-sized outlines (the 3x3 boxes of a grid whose own outline is lost).
2. `combs`: each candidate rectified, moved onto the best combs of ten evenly spaced lines and
   scored by how clearly its weakest lines and its box lines stand out.
3. `search`: the best candidate wins, its score weighed by how the photo frames it (larger and
   nearer the middle first) (`locate_grid`, which runs every stage and can record what it
   considered in a `GridSearch`); a candidate that is one 3x3 box of a grid (its outline lost
   in a shadow) gives way to that grid; `blocks` turns down a candidate whose lines run on past
   its outline: a block of a grid cut off by the photo's edge, refused naming that edge.
4. `lattice`: the grid moved by half a cell where its lines lie more along the ink there (the
   rows of digits of a completed grid on a curved page can hold a straight comb as well as its
   rules), then each of the 20 lines followed piece by piece through the strongest ink; their
   100 crossings, mapped back to the photo, are the lattice, its outer ones the corners.
5. `cells`: the grid rectified and every cell cut through its own four crossings with a margin.

When no grid is found, the search runs again on the photo restored: its contrast stretched, then
its shake taken out (a washed-out or shaken photo's thin rules are too faint for the ink mask).
`restore` does that, and takes a shake's motion blur or a grain out of the rectified grid, or
stretches its contrast, for the reader to read its cells again when it is unsure of them or
they are faint. `doubt` says why a grid found may be only part of the puzzle, for the message
about givens read without a single answer. `geometry` holds what the stages share: the photo's
halvings, rectifying a quad, points and lines.
"""

from sudoku_lens.read.grid.cells import CELL, CROP, MARGIN, GridLocation, cut_grid
from sudoku_lens.read.grid.geometry import WORK_SIDE
from sudoku_lens.read.grid.search import Candidate, GridSearch, locate_grid

__all__ = [
    "CELL",
    "CROP",
    "MARGIN",
    "WORK_SIDE",
    "Candidate",
    "GridLocation",
    "GridSearch",
    "cut_grid",
    "locate_grid",
]
