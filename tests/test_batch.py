"""`sudoku_lens.batch` and `sudoku-lens batch` on worker processes: inputs, records, outputs,
errors per item, resume, order, and workers that die."""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import os
import shutil
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from batch_workers import die_on_crash_photos
from sudoku_lens.batch import FIELDS, Record, SolvedPuzzles, inputs, process, run
from sudoku_lens.batch.records import csv_header, encode
from sudoku_lens.batch.work import PuzzleUnit, Unit, work
from sudoku_lens.cli import main
from sudoku_lens.errors import SudokuLensError
from sudoku_lens.puzzle import format_line
from sudoku_lens.puzzle.text import MAX_LINE_BYTES, read_puzzles
from sudoku_lens.solve import solve_line
from sudoku_lens.synth import EXAMPLE_PATH, example_photo, synth_photo

INKALA = "800000000003600000070090200050007000000045700000100030001000068008500010090000400"
EASY = "003020600900305001001806400008102900700000008006708200002609500800203009005010300"
SEVERAL = "0" * 9 + INKALA[9:]
SOLVED = "534678912672195348198342567859761423426853791713924856961537284287419635345286179"
ILLEGAL = "11" + "0" * 79
GRID = """\
8 . . | . . . | . . .
. . 3 | 6 . . | . . .
. 7 . | . 9 . | 2 . .
------+-------+------
. 5 . | . . 7 | . . .
. . . | . 4 5 | 7 . .
. . . | 1 . . | . 3 .
------+-------+------
. . 1 | . . . | . 6 8
. . 8 | 5 . . | . 1 .
. 9 . | . . . | 4 . ."""


@pytest.fixture(scope="module")
def photos(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """A folder of photos with known solutions: the bundled example and a generated photo in a
    subfolder with no image suffix, beside a text file and a corrupt "photo"."""
    root = tmp_path_factory.mktemp("photos")
    truth = {}
    shutil.copy(EXAMPLE_PATH, root / "a-example.jpg")
    truth["a-example.jpg"] = format_line(example_photo().solution)
    (root / "sub").mkdir()
    photo = synth_photo(21, "easy", size=(800, 600))
    ok, data = cv2.imencode(".png", photo.image)
    assert ok
    (root / "sub" / "b-generated").write_bytes(data.tobytes())
    truth["sub/b-generated"] = format_line(photo.solution)
    (root / "notes.txt").write_text("not a photo\n")
    (root / "c-broken.jpg").write_bytes(b"\xff\xd8\xff" + b"\0" * 100)
    return root, truth


def puzzle_file(path: Path) -> Path:
    """Lines, a grid, comments, blank lines and bad puzzles: every case of a puzzle file."""
    path.write_text(
        f"# a puzzle bank\n{INKALA}\n\n{EASY.replace('0', '.')}\n{SEVERAL}\n{ILLEGAL}\n"
        f"not a puzzle at all\n{GRID}\n\n{EASY}\n"
    )
    return path


def records_of(path: Path) -> list[dict]:
    """The records of a results file, whatever its format, as dicts (CSV blanks as None)."""
    if path.suffix == ".jsonl":
        return [json.loads(line) for line in path.read_text().splitlines()]
    if path.suffix == ".csv":
        rows = list(csv.DictReader(path.open(newline="")))
        for row in rows:
            for key, value in row.items():
                row[key] = None if value == "" else value
            row["line"] = None if row["line"] is None else int(row["line"])
            row["seconds"] = float(row["seconds"])
            row["rating"] = None if row["rating"] is None else float(row["rating"])
            row["givens_doubted"] = (
                None if row["givens_doubted"] is None else row["givens_doubted"] == "True"
            )
            if row["kind"] == "photo" and row["status"] != "error":  # checked: "" when none
                for key in (
                    "wrong_entries",
                    "unsure_entries",
                    "wrong_candidates",
                    "unsure_candidates",
                ):
                    row[key] = row[key] or ""
        return rows
    import pyarrow.parquet as pq

    return pq.read_table(path).to_pylist()


def without_seconds(records: list[dict]) -> list[dict]:
    return [{k: v for k, v in record.items() if k != "seconds"} for record in records]


def test_a_puzzle_file_gives_one_record_per_entry_with_its_verdict(tmp_path: Path) -> None:
    records = list(run([puzzle_file(tmp_path / "bank.txt")], jobs=1))
    assert [(r.line, r.status) for r in records] == [
        (2, "solved"),
        (4, "solved"),
        (5, "several solutions"),
        (6, "error"),
        (7, "error"),
        (8, "solved"),
        (20, "solved"),
    ]
    inkala = solve_line(INKALA).solution
    assert records[0].solution == records[5].solution == inkala
    assert records[1].grid == EASY and records[1].kind == "puzzle"
    assert records[3].error == "not a legal puzzle: 1 appears twice in row 1: r1c1 and r1c2"
    assert records[4].error.startswith("bad character 'n'") and records[4].grid.startswith("not")
    assert all(r.source == str(tmp_path / "bank.txt") and r.rating is None for r in records)


def test_rating_on_rates_the_solved_puzzles_only(tmp_path: Path) -> None:
    from sudoku_lens.batch.work import work_rated
    from sudoku_lens.logic import rate

    records = list(run([puzzle_file(tmp_path / "bank.txt")], jobs=1, worker=work_rated))
    expected = rate(EASY)
    assert (records[1].rating, records[1].level) == (expected.rating, expected.level)
    assert all((r.rating is None) == (r.status != "solved") for r in records)
    levels = {"easy", "medium", "hard", "expert", "extreme"}
    assert all(r.level in levels for r in records if r.rating is not None)
    full = tmp_path / "full.txt"  # a solved grid has nothing to rate: it was 0.0 easy
    full.write_text(f"{SOLVED}\n")
    (record,) = run([full], jobs=1, worker=work_rated)
    assert record.status == "solved" and (record.rating, record.level) == (None, None)


def test_photos_from_a_folder_by_content_with_answers_and_errors(
    photos: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    root, truth = photos
    records = list(run([root], jobs=2, draw_dir=tmp_path / "drawn"))
    by_name = {Path(r.source).relative_to(root).as_posix(): r for r in records}
    assert list(by_name) == ["a-example.jpg", "c-broken.jpg", "sub/b-generated"]
    for name, solution in truth.items():
        record = by_name[name]
        assert record.kind == "photo" and record.status == "solved" and record.line is None
        assert record.solution == solution and record.error is None
        assert record.kinds == "".join("." if d == "0" else "p" for d in record.givens)
    broken = by_name["c-broken.jpg"]
    assert broken.status == "error" and "JPEG" in broken.error
    drawn = {p.name: p.read_bytes()[:4] for p in (tmp_path / "drawn").rglob("*-solved.*")}
    assert drawn == {  # a JPEG photo's picture is a JPEG, a PNG photo's a PNG
        "a-example.jpg-solved.jpg": b"\xff\xd8\xff\xe0",
        "b-generated-solved.png": b"\x89PNG",
    }


def test_patterns_and_lists_of_paths(photos: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    root, _ = photos
    bank = puzzle_file(tmp_path / "bank.txt")
    listing = tmp_path / "list.txt"
    listing.write_text(f"# what to do\n{root / 'a-example.jpg'}\nbank.txt\nmissing.jpg\n")
    records = list(run([listing, str(root / "**" / "b-*")], jobs=2))
    sources = [r.source for r in records]
    assert sources[0] == str(root / "a-example.jpg")
    assert sources[1:8] == [str(tmp_path / "bank.txt")] * 7
    assert sources[8] == str(tmp_path / "missing.jpg") and "no such file" in records[8].error
    assert sources[9] == str(root / "sub" / "b-generated") and records[9].status == "solved"
    assert records[1].line == 2 and bank.exists()


def test_a_line_of_a_list_too_long_for_a_path_is_an_error_record(
    photos: tuple[Path, dict[str, str]], tmp_path: Path, capsys
) -> None:
    root, _ = photos
    listing = tmp_path / "list.txt"
    photo = root / "a-example.jpg"
    listing.write_bytes(b"\xef\xbb\xbf" + f"{photo}\n".encode() + b"x" * 5_000_000 + b"\n")
    with listing.open("ab") as handle:
        handle.write(f"{photo}\n".encode())
    records = list(run([listing], jobs=1))
    assert [r.source for r in records] == [str(photo), f"{listing}:2", str(photo)]
    assert records[0].status == records[2].status == "solved"
    assert records[1].status == "error"
    assert records[1].error == "line 2 is longer than 4,096 bytes: not a path"
    out = tmp_path / "out.jsonl"
    assert main(["batch", str(listing), "-o", str(out), "--jobs", "1"]) == 2  # an error record
    assert main(["batch", str(listing), "-o", str(out), "--jobs", "1", "--resume"]) == 0
    assert [r["source"] for r in records_of(out)] == [r.source for r in records], "none twice"
    capsys.readouterr()


def test_an_input_that_names_nothing_stops_before_any_work(tmp_path: Path, capsys) -> None:
    with pytest.raises(SudokuLensError, match="no such file or folder, and no file matches"):
        list(run([puzzle_file(tmp_path / "bank.txt"), tmp_path / "nothing*.jpg"]))
    folder = tmp_path / "no-photos"
    folder.mkdir()
    puzzle_file(folder / "bank.txt")
    (folder / "notes.jpg").write_text("not a photo")
    results = tmp_path / "results.jsonl"
    assert main(["batch", str(folder), "-o", str(results)]) == 2
    assert capsys.readouterr().err == (
        f"sudoku-lens: error: no photos in the folder {folder} (folders are searched for images "
        "only: name puzzle files themselves)\n"
    )
    assert not results.exists()


@pytest.mark.parametrize("suffix", [".jsonl", ".csv", ".parquet"])
def test_every_format_holds_the_same_records(
    suffix: str, photos: tuple[Path, dict[str, str]], tmp_path: Path, capsys
) -> None:
    root, _ = photos
    bank = puzzle_file(tmp_path / "bank.txt")
    results = tmp_path / f"results{suffix}"
    code = main(["batch", str(bank), str(root / "a-example.jpg"), "-o", str(results)])
    assert code == 2  # bad puzzle lines give error records
    assert capsys.readouterr().err == ""  # quiet when not on a terminal
    expected = [r.to_dict() for r in run([bank, root / "a-example.jpg"], jobs=1)]
    assert without_seconds(records_of(results)) == without_seconds(expected)
    assert list(records_of(results)[0]) == list(FIELDS)


def test_a_bank_of_plain_lines_takes_the_packed_path_with_the_same_rows(tmp_path: Path) -> None:
    bank = tmp_path / "plain.txt"
    bank.write_text(f"{INKALA}\n{EASY}\n" * 6)
    size = bank.stat().st_size
    unit = PuzzleUnit(str(bank), str(bank), 0, size, 1, 12)
    packed = work(unit, None).block
    assert isinstance(packed, SolvedPuzzles)
    resumed = work(PuzzleUnit(str(bank), str(bank), 0, size, 1, 12, b"\x01"), None).block
    assert isinstance(resumed, list) and [r.line for r in resumed] == list(range(2, 13))
    assert without_seconds([r.to_dict() for r in packed.records()][1:]) == without_seconds(
        [r.to_dict() for r in resumed]
    )


@pytest.mark.parametrize(
    "lines",
    [
        [INKALA.replace("0", ".", 1), EASY],  # a '.' for an empty cell
        [INKALA + "\r", EASY + "\r"],  # Windows line ends
        [INKALA[:40], INKALA[40:80], EASY],  # 82 bytes a line on average, but not each
        [INKALA, SEVERAL, ILLEGAL, "x" * 81],  # right lengths, not all with one solution
    ],
)
def test_lines_not_all_plain_puzzles_with_one_solution_give_their_own_records(
    tmp_path: Path, lines: list[str]
) -> None:
    bank = tmp_path / "bank.txt"
    bank.write_text("".join(line + "\n" for line in lines), newline="")
    size = bank.stat().st_size
    block = work(PuzzleUnit(str(bank), str(bank), 0, size, 1, len(lines)), "jsonl")
    rows = parse_jsonl(block.encoded)
    expected = [record.to_dict() for record in run([bank], jobs=1)]
    assert without_seconds(rows) == without_seconds(expected)
    assert [row["line"] for row in rows] == list(range(1, len(lines) + 1))
    if lines[0].startswith(INKALA[:1] + "."):
        assert rows[0]["grid"] == INKALA and rows[0]["status"] == "solved"


@settings(max_examples=40, deadline=None)
@example(first_line=9_995, seconds=[0.5, 9.25, 0.0, 1e-7, 3.3] * 2, source='a "b", c')
@given(
    first_line=st.integers(1, 10**12),
    seconds=st.lists(st.floats(0, 9.4), min_size=1, max_size=30),
    source=st.text(min_size=1, max_size=12),
)
@example(first_line=99_999_990, seconds=[0.5] * 20, source="bank.txt")  # 8 digits, then 9
@example(first_line=1, seconds=[12.5, 0.25, 130.0625, 9.99999995], source="slow.txt")
def test_packed_rows_are_the_rows_of_the_records(
    first_line: int, seconds: list[float], source: str
) -> None:
    import numpy as np

    count = len(seconds)
    block = SolvedPuzzles(
        source,
        first_line,
        (INKALA * count).encode(),
        (solve_line(INKALA).solution * count).encode(),
        np.array(seconds, np.float64).tobytes(),
    )
    records = list(block.records())
    assert parse_jsonl(encode(block, "jsonl")) == parse_jsonl(encode(records, "jsonl"))
    assert parse_csv(encode(block, "csv")) == parse_csv(encode(records, "csv"))


def parse_jsonl(data: bytes) -> list[dict]:
    return [json.loads(line) for line in data.decode().splitlines()]


def parse_csv(data: bytes) -> list[list]:
    rows = list(csv.reader(io.StringIO(data.decode(), newline="")))
    seconds = FIELDS.index("seconds")
    return [[*row[:seconds], float(row[seconds]), *row[seconds + 1 :]] for row in rows]


def units_in_pieces(path: Path, piece: int) -> list[Unit]:
    """`inputs.expand([path])` with the file cut into pieces of about `piece` bytes."""
    original = inputs.PIECE_BYTES
    inputs.PIECE_BYTES = piece
    try:
        return list(inputs.expand([path]))
    finally:
        inputs.PIECE_BYTES = original


@settings(max_examples=30, deadline=None)
@given(
    entries=st.lists(
        st.sampled_from([INKALA, EASY, ILLEGAL, "", "# note", GRID, "123", "x" * 81]),
        min_size=1,
        max_size=40,
    ),
    piece=st.integers(1, 400),
)
def test_a_file_cut_into_pieces_reads_as_a_whole(
    entries: list[str], piece: int, tmp_path_factory: pytest.TempPathFactory
) -> None:
    path = tmp_path_factory.mktemp("cut") / "bank.txt"
    text = "\n".join(entries)
    assume(text)  # an empty file is an error record of its own
    path.write_text(text)
    units = units_in_pieces(path, piece)
    pieces = [
        entry
        for unit in units
        for entry in read_puzzles(unit.read().decode(), first_line=unit.first_line)
    ]
    assert pieces == read_puzzles(text)


@settings(max_examples=40, deadline=None)
@given(
    lengths=st.lists(
        st.sampled_from([0, 81, MAX_LINE_BYTES - 1, MAX_LINE_BYTES, MAX_LINE_BYTES + 1, 25_000]),
        min_size=1,
        max_size=12,
    ),
    piece=st.sampled_from([100, 9_999, 10_001, 30_000, 1 << 20]),
    final_break=st.booleans(),
)
def test_pieces_set_apart_exactly_the_lines_over_the_limit(
    lengths: list[int], piece: int, final_break: bool, tmp_path_factory: pytest.TempPathFactory
) -> None:
    path = tmp_path_factory.mktemp("long") / "bank.txt"
    path.write_text("\n".join("5" * length for length in lengths) + "\n" * final_break)
    assume(path.stat().st_size)  # an empty file is an error record of its own
    units = units_in_pieces(path, piece)
    lines = len(lengths) - (lengths[-1] == 0 and not final_break)  # no empty last line
    assert sum(unit.lines for unit in units) == lines
    assert [unit.first_line for unit in units if unit.too_long] == [
        number for number, length in enumerate(lengths, 1) if length > MAX_LINE_BYTES
    ]
    assert all(unit.lines == 1 for unit in units if unit.too_long)


@pytest.mark.parametrize("piece", [100, 20_000, 1 << 20])
def test_a_line_over_the_limit_is_an_error_record_and_the_batch_goes_on(
    piece: int, tmp_path: Path, monkeypatch
) -> None:
    bank = tmp_path / "bank.txt"
    long_lines = {2: "1" * 50_000, 16: "9" * 20_001}
    bank.write_text(f"{INKALA}\n{long_lines[2]}\n{EASY}\n{'x' * 10_000}\n{GRID}\n{long_lines[16]}")
    monkeypatch.setattr(inputs, "PIECE_BYTES", piece)
    units = list(inputs.expand([bank]))
    assert [(u.first_line, u.size) for u in units if u.too_long] == [(2, 50_001), (16, 20_001)]
    records = list(run([bank], jobs=1))
    assert [(r.line, r.status) for r in records] == [
        (1, "solved"),
        (2, "error"),
        (3, "solved"),
        (4, "error"),
        (5, "solved"),
        (16, "error"),
    ]
    for record in (records[1], records[5]):
        assert record.error == "longer than 10,000 bytes: not a puzzle" and record.grid is None
    assert records[3].error.startswith("bad character 'x'")
    assert records[4].solution == records[0].solution == solve_line(INKALA).solution


def test_records_come_in_input_order_with_a_small_window(tmp_path: Path, monkeypatch) -> None:
    banks = []
    for i in range(3):
        bank = tmp_path / f"bank{i}.txt"
        bank.write_text("\n".join([INKALA, EASY, SEVERAL] * 50) + "\n")
        banks.append(bank)
    monkeypatch.setattr(inputs, "PIECE_BYTES", 300)
    records = list(run(banks, jobs=2, window=3))
    assert [(r.source, r.line) for r in records] == [
        (str(bank), line) for bank in banks for line in range(1, 151)
    ]


def test_resume_skips_what_is_recorded_and_never_writes_twice(
    photos: tuple[Path, dict[str, str]], tmp_path: Path, capsys
) -> None:
    root, _ = photos
    bank = puzzle_file(tmp_path / "bank.txt")
    photo = str(root / "a-example.jpg")
    for suffix in (".jsonl", ".csv"):
        fresh, resumed = tmp_path / f"fresh{suffix}", tmp_path / f"resumed{suffix}"
        main(["batch", str(bank), photo, "-o", str(fresh)])
        whole = fresh.read_bytes()
        cut = whole.index(b"\n", len(whole) // 3) + 1
        resumed.write_bytes(whole[: cut + 25])  # a crash in the middle of a record
        assert main(["batch", str(bank), photo, "-o", str(resumed), "--resume"]) == 2
        records = records_of(resumed)
        assert without_seconds(records) == without_seconds(records_of(fresh))
        assert len({(r["source"], r["line"]) for r in records}) == len(records) == 8
        assert main(["batch", str(bank), photo, "-o", str(resumed), "--resume"]) == 0
        assert len(records_of(resumed)) == 8
    capsys.readouterr()


def test_results_are_never_overwritten_and_parquet_is_not_resumed(tmp_path: Path, capsys) -> None:
    bank = puzzle_file(tmp_path / "bank.txt")
    (tmp_path / "old.jsonl").write_text("")
    assert main(["batch", str(bank), "-o", str(tmp_path / "old.jsonl")]) == 2
    assert "add --resume" in capsys.readouterr().err
    assert main(["batch", str(bank), "-o", str(tmp_path / "r.parquet"), "--resume"]) == 2
    assert "cannot resume" in capsys.readouterr().err
    assert main(["batch", str(bank), "-o", str(tmp_path / "r.txt")]) == 2
    assert "name it .jsonl, .csv or .parquet" in capsys.readouterr().err


def test_the_batch_command_runs_openblas_on_one_thread_unless_told_otherwise(
    tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.setattr(os, "environ", {k: v for k, v in os.environ.items() if "OPENBLAS" not in k})
    bank = puzzle_file(tmp_path / "bank.txt")
    main(["batch", str(bank), "-o", str(tmp_path / "one.jsonl")])
    assert os.environ["OPENBLAS_NUM_THREADS"] == "1"
    os.environ["OPENBLAS_NUM_THREADS"] = "3"
    main(["batch", str(bank), "-o", str(tmp_path / "three.jsonl")])
    assert os.environ["OPENBLAS_NUM_THREADS"] == "3"


@pytest.mark.parametrize(
    ("module", "argv", "message"),
    [
        ("distributed", ["--cluster", "local", "-o", "r.jsonl"], "--cluster needs Dask: pip"),
        ("pyarrow.parquet", ["-o", "r.parquet"], "Parquet output needs pyarrow: pip"),
    ],
)
def test_missing_optional_dependencies_are_one_line(
    module: str, argv: list[str], message: str, tmp_path: Path, monkeypatch, capsys
) -> None:
    monkeypatch.setitem(sys.modules, module, None)  # as if not installed: import fails
    monkeypatch.chdir(tmp_path)
    bank = puzzle_file(tmp_path / "bank.txt")
    assert main(["batch", str(bank), *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err and "sudoku-lens[batch]" in err


def test_a_worker_that_dies_is_replaced_and_its_item_retried_once(
    photos: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    root, truth = photos
    for name in ("crash-once.jpg", "crash-always.jpg"):
        shutil.copy(root / "a-example.jpg", tmp_path / name)
    bank = puzzle_file(tmp_path / "bank.txt")
    sources = [tmp_path / "crash-once.jpg", bank, tmp_path / "crash-always.jpg", bank]
    records = list(run(sources, jobs=2, worker=die_on_crash_photos))
    assert [r.status for r in records if r.kind == "puzzle"] == 2 * [
        "solved",
        "solved",
        "several solutions",
        "error",
        "error",
        "solved",
        "solved",
    ]
    once, always = (r for r in records if r.kind == "photo")
    assert once.status == "solved" and once.solution == truth["a-example.jpg"]
    assert always.status == "error"
    assert always.error == "the worker process died on this item twice (killed by SIGKILL)"


def rows_without_seconds(data: bytes, encoding: str) -> list:
    if encoding == "jsonl":
        return without_seconds(parse_jsonl(data))
    seconds = FIELDS.index("seconds")
    return [row[:seconds] + row[seconds + 1 :] for row in parse_csv(data)]


@pytest.mark.parametrize("encoding", ["jsonl", "csv"])
def test_rows_the_workers_append_are_the_piped_rows_in_order(
    encoding: str, tmp_path: Path, monkeypatch
) -> None:
    from sudoku_lens.batch.output import ResultsWriter

    plain = tmp_path / "plain.txt"
    plain.write_text(f"{INKALA}\n{EASY}\n" * 40)
    mixed = puzzle_file(tmp_path / "mixed.txt")
    monkeypatch.setattr(inputs, "PIECE_BYTES", 500)  # many units of both kinds
    piped = b"".join(done.encoded for done in process([plain, mixed], jobs=2, encoding=encoding))
    appended = tmp_path / f"appended.{encoding}"
    with ResultsWriter(appended):  # creates the file (and the CSV header) the workers append to
        dones = list(process([plain, mixed], jobs=2, encoding=encoding, results=appended))
    assert all(done.written and done.encoded is None for done in dones) and len(dones) > 4
    header = len(csv_header()) if encoding == "csv" else 0
    assert appended.read_bytes()[:header] == csv_header()[:header]
    expected = rows_without_seconds(piped, encoding)
    assert rows_without_seconds(appended.read_bytes()[header:], encoding) == expected
    results = tmp_path / f"results.{encoding}"
    main(["batch", str(plain), str(mixed), "-o", str(results)])
    assert rows_without_seconds(results.read_bytes()[header:], encoding) == expected


def test_workers_that_die_on_photos_leave_every_record_once_in_the_results(
    tmp_path: Path,
) -> None:
    """Workers that die on a photo (the second time too) may hold the rows of puzzle pieces
    done before it: those are run again, and the results hold each record once, in order."""
    from sudoku_lens.batch.output import ResultsWriter

    shutil.copy(EXAMPLE_PATH, tmp_path / "crash-always.jpg")
    bank = puzzle_file(tmp_path / "bank.txt")
    sources = [bank, tmp_path / "crash-always.jpg", bank, bank]
    results = tmp_path / "results.jsonl"
    with ResultsWriter(results) as writer:
        for done in process(
            sources, jobs=2, encoding="jsonl", results=results, worker=die_on_crash_photos
        ):
            writer.write(done)
    piped = [record.to_dict() for record in run(sources, jobs=2, worker=die_on_crash_photos)]
    assert without_seconds(records_of(results)) == without_seconds(piped)
    assert len(piped) == 22 and piped[7]["status"] == "error"


def test_a_unit_whose_worker_died_holding_its_rows_is_run_again(tmp_path: Path) -> None:
    import signal

    from sudoku_lens.batch.local import LocalPool

    bank = puzzle_file(tmp_path / "bank.txt")
    [piped] = [done.encoded for done in process([bank], jobs=1, encoding="jsonl")]
    results = tmp_path / "results.jsonl"
    results.touch()
    pool = LocalPool(1, work, "jsonl", str(results))
    try:
        [unit] = inputs.expand([bank])
        pool.submit(0, unit)
        index, done = pool.next_done()
        assert index == 0 and done.held and results.read_bytes() == b""
        worker = pool._processes[0].process
        os.kill(worker.pid, signal.SIGKILL)
        worker.join()
        done = pool.commit(0, done)
    finally:
        pool.close()
    assert done.written and done.statuses == Counter(
        {"solved": 4, "error": 2, "several solutions": 1}
    )
    assert rows_without_seconds(results.read_bytes(), "jsonl") == rows_without_seconds(
        piped, "jsonl"
    )


@pytest.mark.parametrize("failure", ["dies once", "dies always", "disk full"])
def test_a_worker_that_fails_while_appending_leaves_no_part_of_its_unit(
    tmp_path: Path, failure: str
) -> None:
    """A worker killed halfway through appending a unit's rows: the file is cut back to where
    the unit began and the unit retried once (then recorded as an error); a file that cannot be
    written stops the batch with one line. The workers are forked from the script, so they
    take on its stand-in for `write_rows`."""
    import subprocess

    plain = tmp_path / "plain.txt"
    plain.write_text(f"{INKALA}\n{EASY}\n" * 40)
    results = tmp_path / "results.jsonl"
    script = (
        "import errno, os, signal, sys\n"
        "from pathlib import Path\n"
        "from sudoku_lens.batch import inputs, local\n"
        "from sudoku_lens.cli import main\n"
        "inputs.PIECE_BYTES = 900\n"
        "failure, marker, write = sys.argv[3], Path(sys.argv[2] + '.failed'), local.write_rows\n"
        "def failing(descriptor, rows):\n"
        "    if failure == 'disk full':\n"
        "        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))\n"
        "    if b'\"line\": 23,' in rows and (failure == 'dies always' or not marker.exists()):\n"
        "        marker.touch()\n"
        "        write(descriptor, rows[: len(rows) // 2])\n"
        "        os.kill(os.getpid(), signal.SIGKILL)\n"
        "    write(descriptor, rows)\n"
        "local.write_rows = failing\n"
        "sys.exit(main(['batch', sys.argv[1], '-o', sys.argv[2], '--jobs', '2']))\n"
    )
    ran = subprocess.run(
        [sys.executable, "-c", script, str(plain), str(results), failure],
        capture_output=True,
        text=True,
        timeout=120,
    )
    if failure == "disk full":
        assert ran.returncode == 2
        message = f"sudoku-lens: error: cannot write {results}: No space left on device"
        assert ran.stderr.strip() == message
        return
    assert Path(f"{results}.failed").exists()  # a worker was killed halfway
    records = records_of(results)
    assert [record["line"] for record in records] == list(range(1, 81))
    statuses = Counter(record["status"] for record in records)
    if failure == "dies once":
        assert ran.returncode == 0 and statuses == {"solved": 80}
    else:
        assert ran.returncode == 2 and statuses == {"solved": 69, "error": 11}
        assert {r["error"] for r in records if r["status"] == "error"} == {
            "the worker process died on this item twice (killed by SIGKILL)"
        }


def test_an_interrupted_batch_leaves_whole_units_it_can_resume(tmp_path: Path, monkeypatch) -> None:
    """Stopped after its first unit (as Ctrl-C stops it), the results hold that unit, whole:
    the workers append no rows that were not given their turn; resumed, every line once."""
    from sudoku_lens.batch.output import ResultsWriter

    plain = tmp_path / "plain.txt"
    plain.write_text(f"{INKALA}\n{EASY}\n" * 3000)
    monkeypatch.setattr(inputs, "PIECE_BYTES", 20_000)
    results = tmp_path / "results.jsonl"
    with ResultsWriter(results) as writer:
        done_units = process([plain], jobs=2, encoding="jsonl", results=results)
        first = next(done_units)
        done_units.close()
        writer.write(first)
    assert [record["line"] for record in records_of(results)] == list(range(1, first.count + 1))
    assert first.count < 6000
    main(["batch", str(plain), "-o", str(results), "--resume"])
    assert [record["line"] for record in records_of(results)] == list(range(1, 6001))


@pytest.mark.parametrize("terminal", [True, False])
def test_progress_and_summary_on_a_terminal_only(
    tmp_path: Path, monkeypatch, capsys, terminal: bool
) -> None:
    bank = puzzle_file(tmp_path / "bank.txt")
    monkeypatch.setattr(sys.stderr, "isatty", lambda: terminal)
    main(["batch", str(bank), "-o", str(tmp_path / "r.jsonl"), "--jobs", "1"])
    err = capsys.readouterr().err
    if terminal:
        assert "7 items: 4 solved, 0 no solution, 1 several solutions, 2 errors" in err
        assert f"error: {bank}:6: not a legal puzzle" in err and "items/s" in err
    else:
        assert err == ""


def test_the_summary_names_a_photo_once_in_its_error(tmp_path: Path, monkeypatch, capsys) -> None:
    """A photo's error already names it ('x.jpg is empty'); the summary said 'error: x.jpg:
    x.jpg is empty'. A puzzle line's error does not, so its place is put first."""
    (tmp_path / "empty.jpg").write_bytes(b"")
    (tmp_path / "cut.jpg").write_bytes(Path(EXAMPLE_PATH).read_bytes()[:2000])
    listed = tmp_path / "list.txt"
    listed.write_text("empty.jpg\ncut.jpg\nmissing.jpg\n")
    bank = puzzle_file(tmp_path / "bank.txt")
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    main(["batch", str(listed), str(bank), "-o", str(tmp_path / "r.jsonl"), "--jobs", "1"])
    errors = [line for line in capsys.readouterr().err.splitlines() if "error:" in line]
    assert errors[:4] == [
        f"  error: {tmp_path / 'empty.jpg'} is empty",
        f"  error: {tmp_path / 'cut.jpg'} is a truncated or corrupt JPEG file",
        f"  error: no such file: {tmp_path / 'missing.jpg'}",
        f"  error: {bank}:6: not a legal puzzle: 1 appears twice in row 1: r1c1 and r1c2",
    ]


def test_ctrl_c_says_how_to_go_on(tmp_path: Path, monkeypatch, capsys) -> None:
    """Interrupted, the batch names where its records are and how to go on with them (it said
    'interrupted' alone); resumed, every line is recorded once."""
    import sudoku_lens.batch

    plain = tmp_path / "plain.txt"
    plain.write_text(f"{INKALA}\n{EASY}\n" * 200)
    monkeypatch.setattr(inputs, "PIECE_BYTES", 5_000)
    real = sudoku_lens.batch.process

    def interrupted(*args, **kwargs):
        units = real(*args, **kwargs)
        yield next(units)
        units.close()
        raise KeyboardInterrupt

    monkeypatch.setattr(sudoku_lens.batch, "process", interrupted)
    results = tmp_path / "results.jsonl"
    for resume, again in (
        ([], "add --resume to the command"),
        (["--resume"], "run the same command again"),
    ):
        assert main(["batch", str(plain), "-o", str(results), "--jobs", "1", *resume]) == 130
        assert capsys.readouterr().err == (
            f"sudoku-lens: interrupted; the records so far are in {results}: {again} to go on\n"
        )
    assert 0 < len(records_of(results)) < 400
    parquet = tmp_path / "results.parquet"
    assert main(["batch", str(plain), "-o", str(parquet), "--jobs", "1"]) == 130
    assert capsys.readouterr().err == (
        f"sudoku-lens: interrupted; the records so far are in {parquet} (a Parquet file cannot "
        "be resumed)\n"
    )
    assert 0 < len(records_of(parquet)) < 400
    monkeypatch.setattr(sudoku_lens.batch, "process", real)
    assert main(["batch", str(plain), "-o", str(results), "--jobs", "1", "--resume"]) == 0
    assert [record["line"] for record in records_of(results)] == list(range(1, 401))


def test_records_are_plain_data() -> None:
    values = dict.fromkeys(FIELDS)
    values.update(source="p.txt", line=3, kind="puzzle", grid=INKALA, status="error", seconds=0.0)
    record = Record(**values)
    assert list(record.to_dict()) == list(FIELDS) and record.key == ("p.txt", 3)


@pytest.mark.parametrize("other_thread", [False, True])
def test_workers_are_forked_from_the_batch_unless_it_runs_another_thread(
    tmp_path: Path, other_thread: bool
) -> None:
    """A process running one thread forks its workers itself (they start at once); one running
    another thread (here Python's; OpenCV's pool hung a forked worker) has the fork server
    start them."""
    import subprocess

    bank = puzzle_file(tmp_path / "bank.txt")
    script = (
        "import os, sys, threading\n"
        "from batch_workers import name_the_parent\n"
        "from sudoku_lens.batch import run\n"
        "if sys.argv[2] == 'True':\n"
        "    threading.Thread(target=threading.Event().wait, daemon=True).start()\n"
        "records = run([sys.argv[1]], jobs=2, worker=name_the_parent)\n"
        "starters = {record.error for record in records}\n"
        "print(os.getpid(), *starters)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parent)}
    ran = subprocess.run(
        [sys.executable, "-c", script, str(bank), str(other_thread)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        timeout=120,
    )
    pid, *starters = ran.stdout.split(" ", 1)
    assert len(starters) == 1 and starters[0].startswith("started by ")
    assert (starters[0].split()[-1] == pid) is not other_thread


def test_the_workers_of_a_batch_killed_outright_stop(tmp_path: Path) -> None:
    """Workers forked from the batch do not hold each other's pipes open, so each sees the
    batch gone and exits rather than waiting for work forever."""
    import signal
    import subprocess
    import time

    import psutil

    bank = puzzle_file(tmp_path / "bank.txt")
    script = (
        "import multiprocessing, sys\n"
        "from sudoku_lens.batch import process\n"
        "units = process([sys.argv[1]] * 3, jobs=2)\n"
        "next(units)\n"
        "print(*(child.pid for child in multiprocessing.active_children()), flush=True)\n"
        "sys.stdin.read()\n"
    )
    batch = subprocess.Popen(
        [sys.executable, "-c", script, str(bank)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        workers = [psutil.Process(int(pid)) for pid in batch.stdout.readline().split()]
        assert len(workers) == 2 and all(w.ppid() == batch.pid for w in workers)
    finally:
        batch.send_signal(signal.SIGKILL)
        batch.wait(timeout=30)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and any(_running_process(w) for w in workers):
        time.sleep(0.05)
    assert not any(_running_process(w) for w in workers)


def _running_process(process: Any) -> bool:
    import psutil

    try:
        return process.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def test_a_puzzle_batch_imports_no_numpy_before_its_workers_start() -> None:
    """Workers start with what the command has imported (forked from it) or what the fork
    server preloads: neither needs NumPy for a puzzle file (it took a tenth of a second before
    the first worker could start)."""
    import subprocess

    from sudoku_lens.batch.forkserver import LOCAL_CLUSTER_PRELOAD, PRELOAD, preload

    script = (
        "import sys, importlib\n"
        "for name in ['sudoku_lens.batch', 'sudoku_lens.batch.forkserver', 'sudoku_lens.cli.batch',"
        " 'sudoku_lens.batch.inputs', 'sudoku_lens.batch.output', 'sudoku_lens.batch.local',"
        " *sys.argv[1:]]:\n"
        "    importlib.import_module(name)\n"
        "print(sorted(m for m in ('numpy', 'cv2', 'distributed') if m in sys.modules))"
    )
    imported = subprocess.run(
        [sys.executable, "-c", script, *PRELOAD], capture_output=True, text=True, check=True
    )
    assert imported.stdout.strip() == "[]"
    assert preload(None) == preload(None, "sudoku_lens.batch.work") == PRELOAD
    assert preload("local", "tests_workers") == [*LOCAL_CLUSTER_PRELOAD, *PRELOAD, "tests_workers"]
    assert preload("tcp://10.0.0.1:8786") == PRELOAD


def test_a_worker_reads_photos_with_opencv_on_its_own_thread() -> None:
    """A batch runs a worker per core: OpenCV's pool of threads in each would only take CPU from
    the others, so a worker that reads a photo runs OpenCV on one thread."""
    import subprocess

    script = (
        "import sys, cv2\n"
        "from sudoku_lens.batch.work import PhotoUnit, work\n"
        "done = work(PhotoUnit(sys.argv[1], sys.argv[1]), None)\n"
        "print(done.statuses['solved'], cv2.getNumThreads())"
    )
    ran = subprocess.run(
        [sys.executable, "-c", script, str(EXAMPLE_PATH)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert ran.stdout.split() == ["1", "1"]


def test_a_hand_filled_photo_records_its_checked_entries_and_a_wrong_one_exits_1(
    tmp_path: Path, capsys
) -> None:
    """A batch checks the person's entries as `solve` does: the record names the wrong ones,
    and the batch exits 1 as `solve` on that photo would."""
    from sudoku_lens.pipeline import solve_photo
    from sudoku_lens.synth.handwriting import synth_filled_photo

    sample = synth_filled_photo(3, "easy", mistakes=3, pen="ballpoint-blue", rotation=0)
    photo = tmp_path / "filled.png"
    cv2.imwrite(str(photo), sample.photo.image)
    alone = solve_photo(photo)
    assert alone.solved and alone.wrong_entries, "the sample must hold wrong entries"
    results = tmp_path / "results.jsonl"
    assert main(["batch", str(photo), "-o", str(results), "--jobs", "1"]) == 1
    (record,) = records_of(results)
    assert record["status"] == "solved"
    assert record["wrong_entries"] == " ".join(entry.name for entry in alone.wrong_entries)
    assert record["unsure_entries"] == " ".join(entry.name for entry in alone.unsure_entries)
    assert record["read"] == format_line(alone.reading.grid)
    example = tmp_path / "example.jpg"
    shutil.copy(EXAMPLE_PATH, example)
    assert main(["batch", str(example), "-o", str(tmp_path / "example.jsonl")]) == 0
    (clean,) = records_of(tmp_path / "example.jsonl")
    assert clean["wrong_entries"] == clean["unsure_entries"] == ""
    capsys.readouterr()


@pytest.mark.parametrize("suffix", [".jsonl", ".csv", ".parquet"])
def test_a_file_name_that_is_not_utf8_is_recorded_with_escapes(
    suffix: str, tmp_path: Path, capsys
) -> None:
    folder = os.fsencode(tmp_path)
    odd = os.path.join(folder, b"caf\xe9.jpg")
    shutil.copy(EXAMPLE_PATH, odd)
    broken = os.path.join(folder, b"br\xfbl\xe9.jpg")
    with open(broken, "wb") as handle:
        handle.write(EXAMPLE_PATH.read_bytes()[:2000])
    results = tmp_path / f"results{suffix}"
    assert main(["batch", os.fsdecode(odd), os.fsdecode(broken), "-o", str(results)]) == 2
    first, second = records_of(results)
    assert first["source"] == str(tmp_path / "caf\\xe9.jpg") and first["status"] == "solved"
    assert second["source"] == str(tmp_path / "br\\xfbl\\xe9.jpg")
    assert second["status"] == "error" and "br\\xfbl\\xe9.jpg" in second["error"]
    if suffix != ".parquet":  # not resumable
        assert main(["batch", os.fsdecode(odd), "-o", str(results), "--resume"]) == 0
        assert len(records_of(results)) == 2, "the photo is known again: nothing run twice"
    capsys.readouterr()


def test_a_loop_of_links_in_a_folder_is_passed_over(tmp_path: Path, capsys) -> None:
    folder = tmp_path / "scans"
    folder.mkdir()
    shutil.copy(EXAMPLE_PATH, folder / "b.jpg")
    os.symlink(folder / "loop-2", folder / "a-loop")
    os.symlink(folder / "a-loop", folder / "loop-2")
    results = tmp_path / "results.jsonl"
    assert main(["batch", str(folder), "-o", str(results)]) == 0
    assert [r["source"] for r in records_of(results)] == [str(folder / "b.jpg")]
    capsys.readouterr()


def test_a_file_in_a_folder_named_as_a_photo_that_holds_none_gives_an_error_record(
    tmp_path: Path, capsys
) -> None:
    """Ten photos dropped in a folder, one of them empty, gave nine records and no word: the
    same file named alone gets an 'is empty' record. Hidden files (a Mac's `._a.jpg`) and files
    not named as pictures are still passed over."""
    folder = tmp_path / "scans"
    folder.mkdir()
    shutil.copy(EXAMPLE_PATH, folder / "a.jpg")
    (folder / "._a.jpg").write_bytes(b"\0\5\x16\x07 Mac metadata")
    (folder / "b.jpg").write_bytes(b"")
    (folder / "c.PNG").write_text("not a picture")
    (folder / "notes.txt").write_text("not a picture either")
    results = tmp_path / "results.jsonl"
    assert main(["batch", str(folder), "-o", str(results)]) == 2
    records = records_of(results)
    assert [(Path(r["source"]).name, r["status"]) for r in records] == [
        ("a.jpg", "solved"),
        ("b.jpg", "error"),
        ("c.PNG", "error"),
    ]
    assert records[1]["error"] == f"{folder / 'b.jpg'} is empty"
    assert records[2]["error"].startswith(f"{folder / 'c.PNG'} is not an image (expected JPEG")
    capsys.readouterr()


def test_an_empty_file_named_as_input_gives_an_error_record(tmp_path: Path, capsys) -> None:
    empty = tmp_path / "empty.jpg"
    empty.write_bytes(b"")
    shutil.copy(EXAMPLE_PATH, tmp_path / "b.jpg")
    results = tmp_path / "results.jsonl"
    assert main(["batch", str(empty), str(tmp_path / "b.jpg"), "-o", str(results)]) == 2
    first, second = records_of(results)
    assert first["status"] == "error" and first["error"] == f"{empty} is empty"
    assert second["status"] == "solved"
    capsys.readouterr()


def test_an_error_record_names_the_photo_as_its_source_does(
    tmp_path: Path, monkeypatch, capsys
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("broken.jpg").write_bytes(EXAMPLE_PATH.read_bytes()[:3000])
    assert main(["batch", "broken.jpg", "-o", "results.jsonl"]) == 2
    (record,) = records_of(tmp_path / "results.jsonl")
    assert record["source"] == "broken.jpg"
    assert record["error"].startswith("broken.jpg ") and str(tmp_path) not in record["error"]
    capsys.readouterr()


def test_the_help_names_every_field_of_a_record(capsys: pytest.CaptureFixture[str]) -> None:
    """`batch --help` lists the record's fields as they are written, in their order."""
    from sudoku_lens.cli import main

    with pytest.raises(SystemExit):
        main(["batch", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert ", ".join(FIELDS) in text


def test_a_photo_whose_candidates_leave_out_the_answer_or_are_unsure_is_recorded_so(
    tmp_path: Path, monkeypatch
) -> None:
    """A photo's record names the cells whose pencilled candidates leave out the answer, as
    `solve` names them, and counts as a photo with a mistake marked (exit code 1); candidates
    read too unsure to check are named apart, never as wrong."""
    from conftest import truth_reading
    from sudoku_lens import pipeline
    from sudoku_lens.batch import work as batch_work
    from sudoku_lens.synth.handwriting import synth_filled_photo

    sample = synth_filled_photo(3, "easy", notes=0.5, wrong_notes=2, rotation=0)
    reading = truth_reading(sample)
    monkeypatch.setattr(pipeline, "read_photo", lambda source, **_: reading)
    photo = tmp_path / "notes.png"
    cv2.imwrite(str(photo), sample.photo.image)
    record = batch_work._photo_record(batch_work.PhotoUnit(str(photo), str(photo)), False)
    planted = [f"r{r + 1}c{c + 1}" for r, c in np.argwhere(sample.filled.wrong_candidates)]
    assert record.status == "solved" and record.wrong_candidates == " ".join(planted)
    assert record.unsure_candidates == ""
    done = work(batch_work.PhotoUnit(str(photo), str(photo)), None)
    assert done.wrong == 1
    (r, c), *_ = np.argwhere(sample.filled.wrong_candidates)
    sureness = np.ones((9, 9), np.float32)
    sureness[r, c] = pipeline.CANDIDATES_SURE / 2
    unsure = dataclasses.replace(reading, candidate_sureness=sureness)
    monkeypatch.setattr(pipeline, "read_photo", lambda source, **_: unsure)
    record = batch_work._photo_record(batch_work.PhotoUnit(str(photo), str(photo)), False)
    assert record.unsure_candidates == f"r{r + 1}c{c + 1}"
    assert record.wrong_candidates == " ".join(planted[1:])


def test_a_photo_whose_givens_are_doubted_is_recorded_so(tmp_path: Path, monkeypatch) -> None:
    """A printed digit misread into another unique puzzle that many entries disagree with: the
    record says the givens are doubted and names the entries unsure, none wrong."""
    from conftest import given_misread_to_another_answer, truth_reading
    from sudoku_lens import pipeline
    from sudoku_lens.batch import work as batch_work
    from sudoku_lens.puzzle.text import cell_name
    from sudoku_lens.synth.handwriting import synth_filled_photo

    sample = synth_filled_photo(3, "easy", mistakes=3, pen="ballpoint-blue", rotation=0)
    reading = truth_reading(sample)
    photo = tmp_path / "filled.png"
    cv2.imwrite(str(photo), sample.photo.image)
    unit = batch_work.PhotoUnit(str(photo), str(photo))
    monkeypatch.setattr(pipeline, "read_photo", lambda source, **_: reading)
    assert batch_work._photo_record(unit, False).givens_doubted is False
    misread, other = given_misread_to_another_answer(reading)
    monkeypatch.setattr(pipeline, "read_photo", lambda source, **_: misread)
    record = batch_work._photo_record(unit, False)
    assert record.givens_doubted is True and record.wrong_entries == ""
    disagree = np.flatnonzero((misread.entries > 0) & (misread.entries != other))
    assert record.unsure_entries == " ".join(cell_name(int(i)) for i in disagree)
