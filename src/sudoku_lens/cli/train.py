"""`sudoku-lens train`: train the digit classifier, the kinds model and the cell-content model,
export them to ONNX."""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register the `train` subcommand."""
    parser = subparsers.add_parser(
        "train",
        help="train the digit, kinds and cell-content models (needs the 'train' extra)",
        description=(
            "Train the digit classifier on digits rendered from fonts, on generated and MNIST "
            "handwritten digits, and on the cells of the training photos (photo N is kept for "
            "validation iff N % 5 == 0), then the kinds "
            "model (empty, printed, handwritten, pencil notes) against it on the training "
            "photos and generated hand-filled photos; export both to ONNX and report accuracy "
            "on the validation photos. With --labelled, also the cell-content model (empty, "
            "digit or pencilled candidates, and which candidates) on that folder's training "
            "photos, the training photos of --data and generated candidates, reported on the "
            "folder's validation photos (every fifth puzzle). Same seed, same models."
        ),
    )
    parser.add_argument(
        "--data",
        required=True,
        type=Path,
        help="the folder of labelled photos: printed/ and mixed/ (imageN.jpg beside imageN.dat) "
        "and outlines.csv",
    )
    parser.add_argument(
        "--out", required=True, type=Path, help="where to write the digit model (.onnx)"
    )
    parser.add_argument(
        "--kinds-out",
        type=Path,
        metavar="PATH",
        help="where to write the kinds model (default: kinds.onnx beside --out)",
    )
    parser.add_argument(
        "--kinds-only",
        action="store_true",
        help="keep the digit model at --out and train only the kinds model against it",
    )
    parser.add_argument(
        "--labelled",
        type=Path,
        metavar="DIR",
        help="a cell-labelled folder (images/, labels/ with 10 = candidates, metadata.csv, "
        "candidates.tsv; e.g. kubiesa-train): its training photos' digits and pencilled "
        "candidates are added to the digit model's training, and the cell-content model is "
        "trained on them",
    )
    parser.add_argument(
        "--cells-out",
        type=Path,
        metavar="PATH",
        help="where to write the cell-content model (default: cells.onnx beside --out)",
    )
    parser.add_argument(
        "--cells-only",
        action="store_true",
        help="train only the cell-content model (needs --labelled), leaving the digit and "
        "kinds models as they are",
    )
    parser.add_argument("--epochs", type=int, default=8, help="training epochs (default 8)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument(
        "--fonts",
        type=Path,
        nargs="+",
        metavar="DIR",
        help="font folders or files to render digits from (default: /usr/share/fonts)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Train, write the models, print the validation reports; exit code 0."""
    from sudoku_lens.errors import SudokuLensError

    if args.epochs < 1:
        raise SudokuLensError("--epochs must be at least 1")
    if args.seed < 0:
        raise SudokuLensError("--seed must be 0 or more")
    if not args.data.is_dir():
        raise SudokuLensError(f"--data: no such folder: {args.data}")
    if args.cells_only and args.labelled is None:
        raise SudokuLensError("--cells-only trains on a cell-labelled folder: give --labelled")
    if args.labelled is not None and not args.labelled.is_dir():
        raise SudokuLensError(f"--labelled: no such folder: {args.labelled}")
    outputs = (
        ("--out", args.out),
        ("--kinds-out", args.kinds_out),
        ("--cells-out", args.cells_out),
    )
    for option, path in outputs:
        if path is not None and not path.resolve().parent.is_dir():
            raise SudokuLensError(f"{option}: no such folder: {path.resolve().parent}")
    if args.kinds_only and not args.out.is_file():
        raise SudokuLensError(
            f"--kinds-only trains against the digit model at --out: {args.out} does not exist"
        )
    try:
        from sudoku_lens.train.cells import run_cells_training
        from sudoku_lens.train.kinds import run_kinds_training
        from sudoku_lens.train.pipeline import run_training
    except ModuleNotFoundError as exc:
        raise SudokuLensError(
            f"training needs {exc.name}: pip install 'sudoku-lens[train]'"
        ) from exc
    for module in ("onnx", "onnxscript"):  # used only at the end, to export the models
        if importlib.util.find_spec(module) is None:
            raise SudokuLensError(f"training needs {module}: pip install 'sudoku-lens[train]'")

    def log(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    kinds_out = args.kinds_out or args.out.with_name("kinds.onnx")
    reports: dict = {}
    if not args.kinds_only and not args.cells_only:
        reports |= run_training(
            args.data,
            args.out,
            epochs=args.epochs,
            seed=args.seed,
            font_dirs=args.fonts,
            labelled=args.labelled,
            log=log,
        )
    if not args.cells_only:
        reports |= run_kinds_training(
            args.data, args.out, kinds_out, seed=args.seed, font_dirs=args.fonts, log=log
        )
    if args.labelled is not None:
        cells_out = args.cells_out or args.out.with_name("cells.onnx")
        reports |= run_cells_training(
            args.labelled, args.data, cells_out, seed=args.seed, font_dirs=args.fonts, log=log
        )
    for kind, report in reports.items():
        print(f"{kind}:", *report.lines(), sep="\n")
    return 0
