"""The web page and JSON API: upload or snap a photo, fix a misread digit, see the answer.

`create_app()` builds the FastAPI application; `sudoku-lens serve` runs it under uvicorn. Needs the
`web` extra: `pip install 'sudoku-lens[web]'`.
"""

from sudoku_lens.web.app import create_app

__all__ = ["create_app"]
