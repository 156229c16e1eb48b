"""The FastAPI application: one page, a JSON API, and camera frames for live mode.

Every route that touches pixels or the solver hands its work to a bounded pool of worker threads
(OpenCV and ONNX Runtime release the GIL), so the event loop only moves bytes: many clients at once
are queued and served in turn, none is dropped. Bad input never surfaces as a 500: a
`SudokuLensError` is a 422 naming the problem, uploads over the size limit a 413, and content
that is not an image a 415; only genuine bugs reach the logged catch-all.
"""

from __future__ import annotations

import base64
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from functools import partial
from pathlib import Path
from typing import Annotated, Any, TypeVar

import anyio
import anyio.to_thread
import cv2
import numpy as np
from fastapi import FastAPI, File, Form, Query, Request, UploadFile
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from fastapi_offline import FastAPIOffline
from pydantic import BaseModel, Field
from starlette.datastructures import UploadFile as StarletteUpload
from starlette.exceptions import HTTPException

from sudoku_lens import __version__
from sudoku_lens.errors import ImageError, PuzzleFormatError, SudokuLensError
from sudoku_lens.live import LiveSolver
from sudoku_lens.pipeline import solve_photo
from sudoku_lens.puzzle import grid_json, parse_puzzle
from sudoku_lens.read.formats import MAX_BYTES, SUPPORTED, image_format, unsupported_format
from sudoku_lens.read.image_io import load_image, quiet_opencv
from sudoku_lens.read.reader import corners_json, read_photo
from sudoku_lens.solve import solve
from sudoku_lens.web.limits import (
    BodySizeLimit,
    too_large_message,
)
from sudoku_lens.web.live import live_frame_json, new_live_solver
from sudoku_lens.web.sessions import SessionCache

log = logging.getLogger("sudoku_lens.web")

STATIC_DIR = Path(__file__).with_name("static")
MAX_IMAGE_SIDE = 1600
"""The annotated photo sent back is scaled down to this many pixels on its long side."""
JPEG_QUALITY = 85
MAX_PUZZLE_CHARACTERS = 2000
"""Puzzle text longer than this is refused unread: a boxed 9-line grid takes about 250."""
SESSION_PATTERN = r"^[A-Za-z0-9_-]{8,64}$"
UNNAMED_UPLOAD = "the uploaded file"
"""How error messages call an upload that came without a file name."""
CAMERA_FRAME = "the camera frame"
"""How error messages call a frame sent to /api/live-frame."""

_PAGE_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; img-src 'self' data: blob:; media-src 'self' blob: mediastream:; "
        "connect-src 'self'; style-src 'self'; script-src 'self'; object-src 'none'; "
        "base-uri 'none'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}

T = TypeVar("T")

PhotoFile = Annotated[UploadFile, File(description="a photo of a Sudoku")]
GridOverride = Annotated[
    str | None,
    Form(
        description="81 characters to solve instead of the printed givens read (a corrected "
        "grid); the answer is still drawn onto this photo"
    ),
]
EntriesOverride = Annotated[
    str | None,
    Form(
        description="81 characters: the person's own entries (0 elsewhere) to check instead of "
        "the handwritten digits read; an entry that is the digit read in its cell keeps the "
        "reading's certainty (it may be unsure), any other is taken as certain"
    ),
]
CandidatesOverride = Annotated[
    str | None,
    Form(
        description="a JSON list of 81 strings, row by row: the person's pencilled candidates "
        '("45"; "" where none) to check instead of those read, as `candidates` is answered'
    ),
]
CheckOnly = Annotated[
    bool,
    Form(description="mark the wrong entries only and draw no answers into the photo"),
]


class ErrorBody(BaseModel):
    """Every error answer: one line that says what went wrong."""

    error: str = Field(examples=["no Sudoku grid found in the image"])


class Health(BaseModel):
    status: str = Field(examples=["ok"])
    version: str
    max_upload_mb: float = Field(description="the largest upload accepted, in MB")
    self_signed_fingerprint: str | None = Field(
        None,
        description="the SHA-256 fingerprint of the certificate `serve --lan` made for itself "
        "when the page is served with it (browsers warn about it once), else null",
    )


class ReadResult(BaseModel):
    """The digits read from a photo, as `sudoku-lens read --json` prints them."""

    grid: str = Field(
        description="81 characters, row by row: every digit read, printed or handwritten, 0 for "
        "an empty cell and for pencil notes"
    )
    kinds: str = Field(
        description="81 characters, one per cell: '.' empty, 'p' printed, 'h' handwritten, "
        "'n' pencil notes"
    )
    candidates: list[str] = Field(
        description="81 strings, row by row: the candidates pencilled in each cell of notes "
        '("45"), "" elsewhere'
    )
    givens: str = Field(description="the printed digits only, 0 elsewhere")
    corners: list[list[float]] = Field(
        description="grid corners in image pixels, TL, TR, BR, BL of the upright puzzle"
    )
    rotation: int = Field(description="degrees turned clockwise to make the puzzle upright")
    confidences: list[float] = Field(description="81 per-cell confidences, row by row")
    seconds: float


class UnsureEntry(BaseModel):
    """A handwritten entry read too unclearly to be checked."""

    cell: str = Field(examples=["r3c4"])
    written: int = Field(description="the digit read (or sent) in the cell")


class WrongEntry(UnsureEntry):
    """A handwritten entry that differs from the solution."""

    expected: int = Field(description="the solution's digit")


class CheckedCandidates(BaseModel):
    """A cell whose two or more pencilled candidates leave out its answer."""

    cell: str = Field(examples=["r4c5"])
    written: str = Field(description="the candidates pencilled, sorted", examples=["28"])


class WrongCandidates(CheckedCandidates):
    """`CheckedCandidates` with the answer they leave out."""

    expected: int = Field(description="the solution's digit")


class SolveResult(BaseModel):
    """A photo solved, as `sudoku-lens solve PHOTO --json` prints it, plus the drawn picture."""

    grid: str = Field(
        description="the 81-character puzzle that was solved: the printed givens after any repair"
    )
    read: str = Field(
        description="every digit read from the photo (printed and handwritten), before any repair"
    )
    kinds: str = Field(
        description="81 characters, one per cell: '.' empty, 'p' printed, 'h' handwritten, "
        "'n' pencil notes"
    )
    candidates: list[str] = Field(
        description='81 strings: the candidates checked in each cell ("45"), "" where none'
    )
    givens: str = Field(description="the printed digits read, 0 elsewhere")
    solution: str | None = Field(description="81 characters, or null without a unique solution")
    status: str = Field(examples=["solved", "no solution", "several solutions"])
    corrected_cells: list[str] = Field(
        description='cells whose digit the repair changed, named like "r3c4"', examples=[["r3c4"]]
    )
    wrong_entries: list[WrongEntry] = Field(
        description="handwritten entries read with confidence that differ from the solution"
    )
    unsure_entries: list[UnsureEntry] = Field(
        description="handwritten entries read too unclearly to check (never called wrong)"
    )
    givens_doubted: bool = Field(
        description="true when so many entries disagree with the solution that a given is more "
        "likely misread than they are all wrong: they are then in unsure_entries"
    )
    wrong_candidates: list[WrongCandidates | CheckedCandidates] = Field(
        description="cells whose two or more candidates leave out the answer (`expected` absent "
        "when check_only)"
    )
    unsure_candidates: list[str] = Field(
        description="cells of two or more candidates read too unclearly to check (never called "
        'wrong), named like "r3c4"'
    )
    corners: list[list[float]]
    rotation: int = Field(description="degrees turned clockwise to make the puzzle upright")
    min_confidence: float = Field(description="the lowest per-cell confidence of the reading")
    seconds: float
    image: str = Field(
        description="the photo with the answer drawn in and the wrong entries marked (the marks "
        "only when check_only), as a JPEG data URL"
    )
    check_only: bool


class GridRequest(BaseModel):
    puzzle: str = Field(
        description="81 characters, 0 or . for an empty cell (or a 9-line grid)",
        max_length=MAX_PUZZLE_CHARACTERS,
        examples=[
            "530070000600195000098000060800060003400803001700020006060000280000419005000080079"
        ],
    )
    entries: str | None = Field(
        None,
        description="81 characters: the person's own entries (0 elsewhere), checked against the "
        "solution",
        max_length=MAX_PUZZLE_CHARACTERS,
    )
    candidates: list[str] | None = Field(
        None,
        description='81 strings, row by row: the candidates the person pencilled ("45", "" where '
        "none), checked against the solution: two or more that leave out the answer are named in "
        "wrong_candidates",
        max_length=81,
    )


class GridResult(BaseModel):
    """A puzzle solved, as `sudoku-lens solve PUZZLE --json` prints it, with the entries sent
    checked."""

    puzzle: str
    status: str
    solution: str | None
    guesses: int
    seconds: float
    kinds: str = Field(description="'p' for a given, 'h' for an entry checked, '.' elsewhere")
    givens: str = Field(description="the puzzle's givens (the same as `puzzle`)")
    wrong_entries: list[WrongEntry] = Field(description="entries that differ from the solution")
    unsure_entries: list[UnsureEntry] = Field(description="always empty: typed entries are sure")
    candidates: list[str] = Field(
        description='81 strings: the candidates checked in each cell ("45"), "" where none'
    )
    wrong_candidates: list[WrongCandidates] = Field(
        description="cells whose two or more candidates leave out the answer"
    )


class RateRequest(BaseModel):
    puzzle: str = Field(
        max_length=MAX_PUZZLE_CHARACTERS,
        description="81 characters, 0 or . for an empty cell, a 9-line grid, or pencil marks",
        examples=[
            "530070000600195000098000060800060003400803001700020006060000280000419005000080079"
        ],
    )


class RateResult(BaseModel):
    """A puzzle's difficulty, as `sudoku-lens rate --json` prints it."""

    puzzle: str
    rating: float | None = Field(
        description="Sudoku Explainer scale; null when the techniques cannot finish the puzzle, "
        "or for a grid already solved (solved true, steps 0: nothing to rate)"
    )
    level: str | None = Field(examples=["easy", "medium", "hard", "expert", "extreme"])
    hardest: str | None = Field(description="the technique of the hardest step")
    steps: int
    seconds: float
    solved: bool = Field(
        description="false when the techniques stopped before the solution; true for a grid "
        "already solved"
    )


HINT_BODY = {
    "requestBody": {
        "required": True,
        "content": {
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "required": ["file"],
                    "properties": {
                        "file": {"type": "string", "format": "binary"},
                        "grid": {
                            "type": "string",
                            "description": "81 characters replacing "
                            "the digits read (a corrected reading)",
                        },
                        "entries": {
                            "type": "string",
                            "description": "81 characters: the digits "
                            "the person placed (0 elsewhere), replacing the entries read; "
                            "wrong ones are left out",
                        },
                        "candidates": {
                            "type": "string",
                            "description": "a JSON list of 81 strings: the person's pencilled "
                            "candidates, replacing those read; those that leave out the answer "
                            "are named in wrong_candidates",
                        },
                        "eliminations": {
                            "type": "string",
                            "description": "candidates crossed out, e.g. 'r1c2<>5 r4c4<>7'",
                        },
                        "technique": {"type": "string", "description": "look only for this"},
                    },
                }
            },
            "application/json": {
                "schema": {
                    "type": "object",
                    "required": ["puzzle"],
                    "properties": {
                        "puzzle": {"type": "string", "description": "puzzle text or pencil marks"},
                        "eliminations": {"type": "array", "items": {"type": "string"}},
                        "technique": {"type": "string"},
                    },
                },
                "example": {
                    "puzzle": "530070000600195000098000060800060003400803001700020006060000280"
                    "000419005000080079"
                },
            },
        },
    }
}


class LiveFrameResult(BaseModel):
    """What the live solver made of one camera frame; the page draws the overlay itself."""

    state: str = Field(description="searching, reading, solved or unsolvable")
    message: str = Field(description="a line to show the user about the state")
    corners: list[list[float]] | None = Field(
        description="grid corners in frame pixels, TL, TR, BR, BL of the upright puzzle"
    )
    puzzle: str | None = Field(description="81 characters read, 0 for empty")
    solution: str | None = Field(description="81 characters, or null")
    entries: str | None = Field(
        description="the person's handwritten entries checked (0 elsewhere), or null"
    )
    wrong_entries: list[WrongEntry] = Field(description="entries that differ from the solution")
    unsure_entries: list[UnsureEntry] = Field(
        description="entries read too unclearly to be checked"
    )
    wrong_candidates: list[WrongCandidates] = Field(
        description="cells whose two or more candidates leave out the answer"
    )
    unsure_candidates: list[str] = Field(
        description='cells of candidates read too unclearly to check, named like "r3c4"'
    )
    width: int
    height: int
    seconds: float


ERRORS: dict[int | str, dict[str, Any]] = {
    413: {"model": ErrorBody, "description": "upload over the size limit"},
    415: {"model": ErrorBody, "description": "the upload is not an image"},
    422: {
        "model": ErrorBody,
        "description": "corrupt image, too many pixels, no grid found, or an illegal puzzle",
    },
}


def default_pool_size() -> int:
    """Worker threads for CPU-heavy work: one per available core."""
    from sudoku_lens.batch import default_jobs

    return max(1, default_jobs())


UPLOADS_PER_WORKER = 2
"""Photos held in memory at once per worker of the pool: one worked on, one read and waiting."""


def create_app(
    *,
    max_upload_mb: float = 15.0,
    pool_size: int | None = None,
    live_sessions: int = 32,
    warm_up: bool = True,
    self_signed_fingerprint: str | None = None,
) -> FastAPI:
    """Build the web app.

    `max_upload_mb` caps each upload (413 above it; at most the image loader's own limit on
    files, MAX_BYTES, which holds everywhere; the pixels of its image are capped by
    `load_image`, the same limit as everywhere, 422 above it), `pool_size` is the number of
    requests whose image work may run at once (others wait their turn), `live_sessions` the number
    of camera sessions kept, and `warm_up` loads the digit model at start-up so the first photo is
    fast. `self_signed_fingerprint` is the fingerprint of the self-signed certificate the page is
    served with, if any: the page then explains, once per certificate, the browser's warning.
    """
    if max_upload_mb <= 0:
        raise ValueError("max_upload_mb must be positive")
    if max_upload_mb * 2**20 > MAX_BYTES:
        raise ValueError(
            f"max_upload_mb must be at most {MAX_BYTES / 2**20:g}: larger image files are refused "
            "when read"
        )
    quiet_opencv()
    upload_limit = int(max_upload_mb * 2**20)
    workers = pool_size if pool_size is not None else default_pool_size()
    if workers < 1:
        raise ValueError("pool_size must be at least 1")
    limiter: list[anyio.CapacityLimiter] = []
    slots: list[anyio.CapacityLimiter] = []
    sessions: SessionCache[LiveSolver] = SessionCache(new_live_solver, capacity=live_sessions)

    async def run_in_pool(func: Callable[[], T]) -> T:
        """Run `func` on a worker thread, at most `workers` at a time, queueing the rest."""
        if not limiter:
            limiter.append(anyio.CapacityLimiter(workers))
        return await anyio.to_thread.run_sync(func, limiter=limiter[0])

    @asynccontextmanager
    async def upload_slot() -> AsyncIterator[None]:
        """Hold one of UPLOADS_PER_WORKER * `workers` places for a photo read into memory and
        worked on: further requests wait before reading theirs (the multipart parser keeps a
        file on disk meanwhile, a raw body stays in the connection), so many uploads at once
        cannot each hold a photo in memory."""
        if not slots:
            slots.append(anyio.CapacityLimiter(UPLOADS_PER_WORKER * workers))
        async with slots[0]:
            yield

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        if warm_up:
            await run_in_pool(_warm_up)
        yield

    # The docs page's scripts ship with fastapi-offline: the server may have no internet.
    app = FastAPIOffline(
        title="sudoku-lens",
        version=__version__,
        description=(
            "Read a Sudoku from a photo, solve it, and draw the answer back onto the picture. "
            'Errors are JSON objects `{"error": "..."}`: 413 for an upload over the size '
            "limit, 415 for a file that is not an image, 422 for a corrupt image, one of too many "
            "pixels, a photo without a grid, or an illegal puzzle."
        ),
        lifespan=lifespan,
    )
    app.add_middleware(BodySizeLimit, upload_limit=upload_limit)
    app.state.upload_limit = upload_limit
    app.state.pool_size = workers
    app.state.live_sessions = sessions
    _add_error_handlers(app)

    async def read_upload(file: StarletteUpload) -> bytes:
        """The uploaded bytes, after the size check and the image check by content."""
        data = await file.read(upload_limit + 1)
        if len(data) > upload_limit:
            raise HTTPException(413, too_large_message(upload_limit))
        return check_image_bytes(data, upload_name(file))

    @app.get("/", include_in_schema=False)
    async def page() -> FileResponse:
        return FileResponse(STATIC_DIR / "index.html", headers=_PAGE_HEADERS)

    @app.get("/api/health", response_model=Health, tags=["service"])
    async def health() -> dict[str, Any]:
        """Liveness check, with the upload limit and the certificate's fingerprint for the page."""
        return {
            "status": "ok",
            "version": __version__,
            "max_upload_mb": max_upload_mb,
            "self_signed_fingerprint": self_signed_fingerprint,
        }

    @app.post("/api/read", response_model=ReadResult, responses=ERRORS, tags=["photos"])
    async def read(file: PhotoFile) -> dict[str, Any]:
        """Read the givens of the Sudoku in a photo."""
        async with upload_slot():
            data = await read_upload(file)
            return await run_in_pool(lambda: _read_json(data, upload_name(file)))

    @app.post(
        "/api/solve", response_model=SolveResult, responses=ERRORS, tags=["photos"], summary="Solve"
    )
    async def solve_route(
        file: PhotoFile,
        grid: GridOverride = None,
        entries: EntriesOverride = None,
        candidates: CandidatesOverride = None,
        check_only: CheckOnly = False,
    ) -> dict[str, Any]:
        """Read, solve and draw the answer onto a photo, optionally with a corrected grid; check
        the person's handwritten entries (or the `entries` sent) and pencilled candidates (or
        the `candidates` sent) against the solution."""
        texts = {}
        for name, value in (("grid", grid), ("entries", entries), ("candidates", candidates)):
            if value is not None and value.strip():
                if len(value) > MAX_PUZZLE_CHARACTERS:
                    raise HTTPException(422, f"{name}: at most {MAX_PUZZLE_CHARACTERS} characters")
                texts[name] = value
        async with upload_slot():
            data = await read_upload(file)
            name = upload_name(file)
            return await run_in_pool(lambda: _solve_json(data, texts, check_only, name))

    @app.post("/api/solve-grid", response_model=GridResult, responses=ERRORS, tags=["puzzles"])
    async def solve_grid(body: GridRequest) -> dict[str, Any]:
        """Solve a puzzle given as text. No unique solution is a 200 with that status."""
        return await run_in_pool(partial(_grid_json, body.puzzle, body.entries, body.candidates))

    @app.post(
        "/api/hint",
        responses=ERRORS,
        tags=["logic"],
        openapi_extra=HINT_BODY,
        summary="Hint",
    )
    async def hint(request: Request) -> dict[str, Any]:
        """The easiest next step, as `sudoku-lens hint --json` prints it (`technique` null when
        none is found), plus `image` (the step drawn into the photo, or into a picture of the
        grid), `grid` (the digits the step was found in) and `after` (`puzzle` and
        `eliminations`: the state once the step is made, to send back for the next hint). Send a
        photo (multipart `file`) or a puzzle (JSON `puzzle`). For a photo the answer adds
        `wrong_entries` and `unsure_entries` (`{"cell": "r3c4", "written": 5}` each, as
        `/api/solve` gives them but without the right digit: entries left out as wrong or too
        unclear to check), `wrong_candidates` (`{"cell": "r4c5", "written": "28"}` each: the
        candidates read, or sent as `candidates`, that leave out the answer), `unsure_candidates`
        (the cells of candidates read too unclearly to check, named "r3c4") and `after.entries`
        (the person's entries, wrong and unsure ones kept, plus the step's digits: send it back as
        `entries`, with `after.eliminations` as `eliminations`, and the next hint reports the same
        wrong entries)."""
        kind = request.headers.get("content-type", "")
        if kind.startswith("multipart/form-data"):
            form = await request.form()
            upload = form.get("file")
            if not isinstance(upload, StarletteUpload):
                raise HTTPException(422, "file: a photo is required (multipart field 'file')")
            fields = {
                key: value.strip()
                for key in ("grid", "entries", "candidates", "eliminations", "technique")
                if isinstance(value := form.get(key), str) and value.strip()
            }
            async with upload_slot():
                data = await read_upload(upload)
                name = upload_name(upload)
                return await run_in_pool(lambda: _photo_hint_json(data, fields, name))
        try:
            body = await request.json()
        except ValueError as exc:
            if "json" in kind:
                raise HTTPException(422, f"the request body is not valid JSON: {exc}") from None
            raise HTTPException(
                422, 'send a photo as multipart field \'file\' or JSON {"puzzle": "..."}'
            ) from None
        return await run_in_pool(partial(_puzzle_hint_json, body))

    @app.post("/api/rate", response_model=RateResult, responses=ERRORS, tags=["logic"])
    async def rate_route(body: RateRequest) -> dict[str, Any]:
        """Rate a puzzle on the Sudoku Explainer scale, with a level word (easy below 2.5,
        medium below 4.0, hard below 6.0, expert below 7.5, extreme), as `sudoku-lens rate
        --json` does."""
        from sudoku_lens.logic import rate

        return await run_in_pool(lambda: rate(body.puzzle).to_json())

    @app.post(
        "/api/live-frame",
        response_model=LiveFrameResult,
        responses=ERRORS,
        tags=["camera"],
        openapi_extra={
            "requestBody": {
                "required": True,
                "description": "one camera frame, JPEG (about 640 pixels wide is plenty)",
                "content": {"image/jpeg": {"schema": {"type": "string", "format": "binary"}}},
            }
        },
    )
    async def live_frame(
        request: Request,
        session: str = Query(
            pattern=SESSION_PATTERN, description="an id the page makes up, one per camera session"
        ),
        t: float | None = Query(
            None,
            allow_inf_nan=False,
            description="when the frame was taken, in seconds on any steady clock",
        ),
    ) -> dict[str, Any]:
        """Process one frame of a camera session: find, read, follow and solve the grid."""
        async with upload_slot():
            data = check_image_bytes(await request.body(), CAMERA_FRAME)

            def work() -> dict[str, Any]:
                frame = load_image(data, name=CAMERA_FRAME)
                with sessions.use(session) as solver:
                    return live_frame_json(solver, frame, t)

            return await run_in_pool(work)

    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    return app


def upload_name(upload: StarletteUpload) -> str:
    """How error messages name an uploaded file: its file name as the client sent it (control
    characters shown as ?), or "the uploaded file" when it came without one."""
    name = "".join(char if char.isprintable() else "?" for char in upload.filename or "")
    return name.strip() or UNNAMED_UPLOAD


def check_image_bytes(data: bytes, name: str = UNNAMED_UPLOAD) -> bytes:
    """Return `data` if it looks like an image; 415 if it is something else, 422 if empty.
    `name` is how the messages call it (see `upload_name`)."""
    if not data:
        raise ImageError(f"{name} is empty")
    if image_format(data) is None:
        other = unsupported_format(data)
        hint = f" ({other} files are not supported: export the photo as JPEG)" if other else ""
        raise HTTPException(415, f"{name} is not an image: send a {SUPPORTED} photo{hint}")
    return data


def _warm_up() -> None:
    """Load the digit model and build the solver's tables before the first request needs them."""
    from sudoku_lens.read.digits import DigitClassifier

    DigitClassifier.default()
    solve("0" * 81)


def _read_json(data: bytes, name: str) -> dict[str, Any]:
    """What `sudoku-lens read PHOTO --json` prints, for the photo `data` called `name`."""
    return read_photo(data, name=name).to_json()


def _solve_json(data: bytes, texts: dict[str, str], check_only: bool, name: str) -> dict[str, Any]:
    """Read and solve the photo `data` called `name` (with the corrected `grid` and the
    `entries` of `texts`, when given, parsed here on a pool thread), check the entries, and draw
    the answer."""
    grid = parse_puzzle(texts["grid"]) if "grid" in texts else None
    entries = parse_puzzle_digits(texts["entries"]) if "entries" in texts else None
    candidates = parse_candidates_text(texts["candidates"]) if "candidates" in texts else None
    result = solve_photo(
        data,
        grid=grid,
        entries=entries,
        candidates=candidates,
        check_only=check_only,
        name=name,
    )
    payload = result.to_json()
    payload["image"] = encode_jpeg_data_url(result.image)
    payload["check_only"] = check_only
    return payload


def _grid_json(
    text: str, entries_text: str | None = None, candidates_sent: list[str] | None = None
) -> dict[str, Any]:
    """Parse puzzle text that must break no rule (PuzzleFormatError, a 422, names the problem),
    solve it and check the person's `entries_text` and pencilled `candidates_sent` (81
    strings) against the solution; on a pool thread, as long text takes a while to parse."""
    from sudoku_lens.pipeline import CheckedEntry, check_candidates
    from sudoku_lens.read.kinds import HANDWRITTEN, PRINTED, candidates_json, kinds_text

    puzzle = parse_puzzle(text)
    solution = solve(puzzle)
    entries = np.zeros((9, 9), np.uint8)
    if entries_text is not None and entries_text.strip():
        entries = np.where(puzzle == 0, parse_puzzle_digits(entries_text), 0).astype(np.uint8)
    candidates = _open_cells_candidates(candidates_sent, (puzzle > 0) | (entries > 0))
    wrong, wrong_candidates = [], []
    if solution.grid is not None:
        wrong = [
            CheckedEntry((int(r), int(c)), int(entries[r, c]), int(solution.grid[r, c]))
            for r, c in np.argwhere((entries > 0) & (entries != solution.grid))
        ]
        wrong_candidates = check_candidates(candidates, solution.grid)
    kinds = np.where(puzzle > 0, PRINTED, np.where(entries > 0, HANDWRITTEN, 0))
    return {
        "puzzle": grid_json(puzzle),
        "status": str(solution.status.value),
        "solution": grid_json(solution.grid),
        "guesses": int(solution.guesses),
        "seconds": round(float(solution.seconds), 7),
        "kinds": kinds_text(kinds),
        "givens": grid_json(puzzle),
        "wrong_entries": [entry.to_json() for entry in wrong],
        "unsure_entries": [],
        "candidates": candidates_json(candidates),
        "wrong_candidates": [cell.to_json() for cell in wrong_candidates],
    }


def _open_cells_candidates(sent: list[str] | None, filled: np.ndarray) -> Any:
    """The candidates `sent` (81 strings; a 422 names what is wrong), none where `filled` (9 x 9
    bool: a given or an entry) or when none are sent."""
    from sudoku_lens.read.kinds import parse_candidates

    parsed = parse_candidates([""] * 81 if sent is None else sent)
    return tuple(tuple(() if filled[r, c] else parsed[r][c] for c in range(9)) for r in range(9))


def _bounded_puzzle(text: str, field: str) -> Any:
    """Puzzle text of at most MAX_PUZZLE_CHARACTERS, parsed (a 422 names the problem)."""
    if len(text) > MAX_PUZZLE_CHARACTERS:
        raise HTTPException(422, f"{field}: at most {MAX_PUZZLE_CHARACTERS} characters")
    return parse_puzzle(text)


def _photo_hint_json(data: bytes, fields: dict[str, str], name: str) -> dict[str, Any]:
    """The next step of the photo `data` called `name`, drawn into it (see /api/hint)."""
    from sudoku_lens.hints import hint_photo

    eliminations = fields.get("eliminations", "").replace(",", " ").split()
    if len(eliminations) > 729:
        raise HTTPException(422, "eliminations: at most 729 candidates")
    found = hint_photo(
        data,
        grid=_bounded_puzzle(fields["grid"], "grid") if "grid" in fields else None,
        entries=parse_puzzle_digits(fields["entries"]) if "entries" in fields else None,
        candidates=parse_candidates_text(fields["candidates"]) if "candidates" in fields else None,
        eliminations=eliminations,
        technique=fields.get("technique"),
        name=name,
    )
    payload = _hint_payload(found.state, found.step)
    payload["image"] = encode_jpeg_data_url(found.image)
    payload["corners"] = corners_json(found.reading.corners)
    payload |= found.photo_json()
    payload["after"]["entries"] = found.entries_after()
    return payload


def _puzzle_hint_json(body: Any) -> dict[str, Any]:
    """The next step of a puzzle given as JSON, drawn into a picture of the grid."""
    from sudoku_lens.draw.hint import draw_step, render_grid
    from sudoku_lens.hints import find_hints
    from sudoku_lens.logic import parse_state
    from sudoku_lens.logic.progress import with_eliminations

    if not isinstance(body, dict) or not isinstance(body.get("puzzle"), str):
        raise HTTPException(422, 'puzzle: send JSON {"puzzle": "<81 characters>"}')
    eliminations = body.get("eliminations", [])
    technique = body.get("technique")
    if not isinstance(eliminations, list) or not all(isinstance(e, str) for e in eliminations):
        raise HTTPException(422, 'eliminations: a list of candidates like ["r1c2<>5"]')
    if len(eliminations) > 729:
        raise HTTPException(422, "eliminations: at most 729 candidates")
    if technique is not None and not isinstance(technique, str):
        raise HTTPException(422, "technique: a technique's name, e.g. x-wing")
    if len(body["puzzle"]) > MAX_PUZZLE_CHARACTERS:
        raise HTTPException(422, f"puzzle: at most {MAX_PUZZLE_CHARACTERS} characters")
    state = with_eliminations(parse_state(body["puzzle"]), eliminations)
    steps = find_hints(state, technique=technique)
    step = steps[0] if steps else None
    payload = _hint_payload(state, step)
    image, corners = render_grid(state)
    if step is not None:
        image = draw_step(image, corners, step, state)
    _, buffer = cv2.imencode(".png", image)
    payload["image"] = "data:image/png;base64," + base64.b64encode(buffer.tobytes()).decode()
    return payload


def _hint_payload(state: Any, step: Any) -> dict[str, Any]:
    """The step's JSON (or `{"technique": null}`), the state's digits, and the state after it."""
    from sudoku_lens.logic.progress import eliminations_since_start

    payload = step.to_json() if step is not None else {"technique": None}
    after = state.copy()
    if step is not None:
        after.apply(step)
    payload["grid"] = state.line()
    payload["after"] = {"puzzle": after.line(), "eliminations": eliminations_since_start(after)}
    return payload


def parse_puzzle_digits(text: str) -> np.ndarray:
    """81 digits that need not make a legal puzzle on their own (a person's entries may be
    wrong: they are checked against the solution later); PuzzleFormatError when not 81 digits."""
    from sudoku_lens.puzzle import grid_from_line
    from sudoku_lens.puzzle.text import parse_line

    return grid_from_line(parse_line(text))


def parse_candidates_text(text: str) -> Any:
    """The person's candidates sent as a JSON list of 81 strings of digits ("45", "" where none,
    as `candidates` is answered); PuzzleFormatError, a 422, naming what is wrong."""
    import json

    from sudoku_lens.read.kinds import parse_candidates

    try:
        cells = json.loads(text)
    except ValueError:
        cells = None
    if not isinstance(cells, list):
        raise PuzzleFormatError(
            'candidates: send a JSON list of 81 strings of digits 1-9, e.g. ["", "45", ...]'
        )
    return parse_candidates(cells)


def encode_jpeg_data_url(image: np.ndarray, max_side: int = MAX_IMAGE_SIDE) -> str:
    """Encode a BGR image as a `data:image/jpeg;base64,...` URL, scaled to `max_side` at most."""
    height, width = image.shape[:2]
    scale = max_side / max(height, width)
    if scale < 1:
        size = (max(1, round(width * scale)), max(1, round(height * scale)))
        image = cv2.resize(image, size, interpolation=cv2.INTER_AREA)
    ok, buffer = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
    if not ok:
        raise RuntimeError("JPEG encoding of the annotated image failed")
    return "data:image/jpeg;base64," + base64.b64encode(buffer.tobytes()).decode("ascii")


def _add_error_handlers(app: FastAPI) -> None:
    """Answer every error as `{"error": "..."}`: 4xx for bad input, a logged 500 for bugs."""

    @app.exception_handler(SudokuLensError)
    async def user_error(_: Request, exc: SudokuLensError) -> JSONResponse:
        return JSONResponse({"error": _shortened(str(exc))}, status_code=422)

    @app.exception_handler(HTTPException)
    async def http_error(_: Request, exc: HTTPException) -> JSONResponse:
        return JSONResponse(
            {"error": _shortened(str(exc.detail))},
            status_code=exc.status_code,
            headers=exc.headers,
        )

    @app.exception_handler(RequestValidationError)
    async def invalid_request(_: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse({"error": _shortened(_validation_message(exc))}, status_code=422)

    @app.exception_handler(Exception)
    async def bug(request: Request, exc: Exception) -> JSONResponse:
        log.error("unhandled error on %s %s", request.method, request.url.path, exc_info=exc)
        return JSONResponse({"error": "internal server error"}, status_code=500)


MAX_ERROR_CHARACTERS = 300
"""Longest error message answered: a message quoting the request (a bad candidate, say) must
not send a huge request back."""


def _shortened(message: str) -> str:
    """`message` cut in the middle to MAX_ERROR_CHARACTERS: the quote goes, what is wrong with
    it (at the end) stays."""
    if len(message) <= MAX_ERROR_CHARACTERS:
        return message
    half = (MAX_ERROR_CHARACTERS - 1) // 2
    return message[:half] + "\u2026" + message[-(MAX_ERROR_CHARACTERS - 1 - half) :]


def _validation_message(exc: RequestValidationError) -> str:
    """One line from FastAPI's validation errors, e.g. "file: Field required"."""
    parts = []
    for error in exc.errors():
        loc = tuple(error.get("loc", ()))
        msg = str(error.get("msg", "invalid"))
        if error.get("type") == "json_invalid":
            reason = (error.get("ctx") or {}).get("error", msg)
            at = "" if reason.endswith(" at") else " at"  # "Unterminated string starting at"
            where = f"{at} character {loc[-1]}" if loc and isinstance(loc[-1], int) else ""
            parts.append(f"the request body is not valid JSON: {reason}{where}")
            continue
        if loc == ("body",) and error.get("type") == "model_attributes_type":
            parts.append(
                'request body: send a JSON object such as {"puzzle": "..."}'
                " with content-type application/json"
            )
            continue
        where = ".".join(str(p) for p in loc if p not in ("body", "query", "form"))
        if "UploadFile" in msg:  # a text field where a file belongs
            msg = "send the photo as a file upload (multipart/form-data)"
        parts.append(f"{where}: {msg}" if where else f"request body: {msg}")
    return "; ".join(parts) or "invalid request"
