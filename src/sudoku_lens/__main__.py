import sys

from sudoku_lens.cli import main

sys.exit(main())
