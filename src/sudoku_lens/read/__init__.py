"""Reading a Sudoku from a photo: image loading, grid location, digit reading, orientation."""

from sudoku_lens.read.grid import GridLocation, locate_grid
from sudoku_lens.read.image_io import load_image
from sudoku_lens.read.reader import Reading, read_photo

__all__ = ["GridLocation", "Reading", "load_image", "locate_grid", "read_photo"]
