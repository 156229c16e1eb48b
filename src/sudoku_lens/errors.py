"""Exceptions for every failure a user can cause.

Each one carries a message fit to print as a single line; the command line prints it and exits
non-zero, the web API turns it into a 4xx JSON error.
"""


class SudokuLensError(Exception):
    """Base class of every user-facing failure."""


class PuzzleFormatError(SudokuLensError, ValueError):
    """Puzzle text that cannot be read: wrong length, a bad character, a broken rule."""


class ImageError(SudokuLensError, ValueError):
    """A file or buffer that is missing, not an image, corrupt, or too large to decode safely."""


class GridNotFoundError(SudokuLensError):
    """An image in which no Sudoku grid could be found."""


class GridCutOffError(GridNotFoundError):
    """An image whose grid runs off its edge: the cells cut off cannot be read."""
