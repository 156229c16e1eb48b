"""sudoku-lens: read a Sudoku from a photo or a camera, solve it, and draw the answer back."""

__version__ = "0.1.0"
