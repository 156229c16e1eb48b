"""`sudoku_lens.batch` on a real Dask LocalCluster (worker processes): the same records as local
mode, a killed worker recovered, and a resumed batch complete with no duplicate."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
from pathlib import Path

import pytest

from batch_workers import die_on_crash_photos
from sudoku_lens.batch import run
from sudoku_lens.cli import main
from sudoku_lens.synth import EXAMPLE_PATH

pytest.importorskip("distributed", reason="the Dask tests need sudoku-lens[batch]")

INKALA = "800000000003600000070090200050007000000045700000100030001000068008500010090000400"
EASY = "003020600900305001001806400008102900700000008006708200002609500800203009005010300"
SEVERAL = "0" * 9 + INKALA[9:]


@pytest.fixture
def inputs(tmp_path: Path) -> list[Path]:
    bank = tmp_path / "bank.txt"
    bank.write_text("\n".join([INKALA, EASY, SEVERAL, "11" + "0" * 79, "junk"] * 40) + "\n")
    shutil.copy(EXAMPLE_PATH, tmp_path / "example.jpg")
    return [tmp_path / "example.jpg", bank]


def without_seconds(records: list[dict]) -> list[dict]:
    return [{k: v for k, v in record.items() if k != "seconds"} for record in records]


def test_a_local_cluster_gives_the_records_of_local_mode(inputs: list[Path]) -> None:
    on_dask = [r.to_dict() for r in run(inputs, cluster="local", jobs=2)]
    local = [r.to_dict() for r in run(inputs, jobs=2)]
    assert len(on_dask) == 201 and without_seconds(on_dask) == without_seconds(local)


def test_a_local_cluster_beside_another_one_warns_of_nothing(inputs: list[Path], recwarn) -> None:
    with socket.socket() as taken:  # the port of a LocalCluster's HTTP server, as another holds it
        with contextlib.suppress(OSError):
            taken.bind(("127.0.0.1", 8787))
            taken.listen()
        (record,) = run(inputs[:1], cluster="local", jobs=1)
    assert record.status == "solved"
    shown = [w for w in recwarn if not issubclass(w.category, ResourceWarning)]  # hidden anyway
    assert [str(w.message) for w in shown] == []


def test_tasks_of_several_units_keep_the_input_order(inputs: list[Path], monkeypatch) -> None:
    from sudoku_lens.batch import inputs as batch_inputs

    monkeypatch.setattr(batch_inputs, "PIECE_BYTES", 500)  # some 40 units: tasks of 4
    on_dask = [r.to_dict() for r in run(inputs, cluster="local", jobs=2)]
    assert [(r["source"], r["line"]) for r in on_dask] == [(str(inputs[0]), None)] + [
        (str(inputs[1]), line) for line in range(1, 201)
    ]


def test_a_killed_dask_worker_is_replaced_and_the_item_retried_once(
    inputs: list[Path], tmp_path: Path, monkeypatch
) -> None:
    for name in ("crash-once.jpg", "crash-always.jpg"):
        shutil.copy(EXAMPLE_PATH, tmp_path / name)
    photos = [tmp_path / "crash-once.jpg", tmp_path / "crash-always.jpg", inputs[0]]
    for name in ("PYTHONHASHSEED", "MALLOC_TRIM_THRESHOLD_", "OMP_NUM_THREADS"):
        monkeypatch.delenv(name, raising=False)  # what Dask's nannies would set
    environ = dict(os.environ)
    records = list(run(photos, cluster="local", jobs=2, worker=die_on_crash_photos))
    once, always, plain = records
    assert once.status == plain.status == "solved" and once.solution == plain.solution
    assert always.status == "error"
    assert always.error == "the worker process died on this item twice (Dask: KilledWorker)"
    assert dict(os.environ) == environ  # the nannies that started new workers left nothing set


def test_a_resumed_batch_on_dask_is_complete_with_no_duplicate(
    inputs: list[Path], tmp_path: Path, capsys
) -> None:
    results = tmp_path / "results.jsonl"
    args = ["batch", *map(str, inputs), "-o", str(results), "--cluster", "local", "--jobs", "2"]
    assert main(args) == 2  # bad lines give error records
    whole = results.read_bytes()
    results.write_bytes(whole[: whole.index(b"\n", len(whole) // 2) + 40])  # cut mid-record
    assert main([*args, "--resume"]) == 2
    records = [json.loads(line) for line in results.read_text().splitlines()]
    assert len({(r["source"], r["line"]) for r in records}) == len(records) == 201
    expected = [r.to_dict() for r in run(inputs, jobs=1)]
    assert without_seconds(records) == without_seconds(expected)
    capsys.readouterr()


def test_an_unreachable_scheduler_is_one_line_and_leaves_no_results(
    inputs: list[Path], tmp_path: Path, monkeypatch, capsys
) -> None:
    from sudoku_lens.batch import cluster

    monkeypatch.setattr(cluster, "_CONNECT_SECONDS", 1)
    results = tmp_path / "results.csv"
    argv = ["batch", *map(str, inputs), "-o", str(results), "--cluster", "tcp://127.0.0.1:9"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot reach the Dask scheduler at tcp://127.0.0.1:9" in err
    assert not results.exists()


def test_a_local_cluster_that_cannot_start_is_one_line_and_leaves_no_results(
    inputs: list[Path], tmp_path: Path, monkeypatch, capsys
) -> None:
    import distributed

    def refuse(*args: object, **kwargs: object) -> None:
        raise RuntimeError("Nanny failed to start.")

    monkeypatch.setattr(distributed, "LocalCluster", refuse)
    results = tmp_path / "results.jsonl"
    assert main(["batch", *map(str, inputs), "-o", str(results), "--cluster", "local"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "cannot start a Dask LocalCluster: Nanny failed to start." in err
    assert not results.exists()
