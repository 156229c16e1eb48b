"""Turn the trained float model into the shipped 8-bit one (ONNX Runtime static quantization).

The convolutions carry almost all of the model's work; with 8-bit weights (per channel) and
activations (ranges measured on real prepared cells) ONNX Runtime runs them more than twice as
fast on the CPU, and reads every cell of the validation photos as the float model does. The
first layer (it sees the raw input) and the head that turns features into probabilities stay in
float, so the probabilities that orientation, repair and the checking of entries rely on are not
coarsened. Needs the `onnx` package (the `train` extra); the shipped model needs only ONNX
Runtime.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np

from sudoku_lens.read.digits import SIZE

CALIBRATION_BATCH = 256
CALIBRATION_CELLS = 4096
"""Prepared cells, drawn at random, whose activations set the 8-bit ranges."""

FLOAT_OPS = ("Gemm", "MatMul", "Softmax", "Sigmoid")
"""Operators kept in float besides the first layer: the heads (digit and pen)."""


def quantize_model(
    float_model: str | Path, out: str | Path, cells: np.ndarray, *, seed: int = 0
) -> None:
    """Write an 8-bit version of the ONNX model `float_model` to `out`.

    `cells` are prepared (N, SIZE, SIZE) images like those the reader will feed (upright and
    turned, empty and filled); CALIBRATION_CELLS of them, drawn with `seed`, calibrate the
    activation ranges (min-max), so the result is the same for the same inputs.
    """
    from onnxruntime.quantization import (
        CalibrationDataReader,
        CalibrationMethod,
        QuantFormat,
        QuantType,
        quantize_static,
    )
    from onnxruntime.quantization.shape_inference import quant_pre_process

    cells = np.asarray(cells, np.float32).reshape(-1, 1, SIZE, SIZE)
    count = min(len(cells), CALIBRATION_CELLS) // CALIBRATION_BATCH * CALIBRATION_BATCH
    if count == 0:
        raise ValueError(f"quantization needs at least {CALIBRATION_BATCH} calibration cells")
    sample = cells[np.random.default_rng(seed).permutation(len(cells))[:count]]

    class Batches(CalibrationDataReader):
        def __init__(self, input_name: str) -> None:
            self.batches = iter(
                {input_name: sample[i : i + CALIBRATION_BATCH]}
                for i in range(0, count, CALIBRATION_BATCH)
            )

        def get_next(self) -> dict[str, np.ndarray] | None:
            return next(self.batches, None)

    with tempfile.TemporaryDirectory() as tmp:
        prepared = Path(tmp) / "prepared.onnx"
        quant_pre_process(str(float_model), str(prepared), skip_symbolic_shape=True)
        input_name, exclude = _float_nodes(prepared)
        quantize_static(
            str(prepared),
            str(out),
            Batches(input_name),
            quant_format=QuantFormat.QDQ,
            per_channel=True,
            activation_type=QuantType.QUInt8,
            weight_type=QuantType.QInt8,
            calibrate_method=CalibrationMethod.MinMax,
            nodes_to_exclude=exclude,
        )


def _float_nodes(model_path: Path) -> tuple[str, list[str]]:
    """The model's input name and the nodes to keep in float: those reading the input, and the
    head (FLOAT_OPS)."""
    import onnx

    graph = onnx.load(str(model_path)).graph
    input_name = graph.input[0].name
    exclude = [
        node.name for node in graph.node if input_name in node.input or node.op_type in FLOAT_OPS
    ]
    return input_name, exclude
