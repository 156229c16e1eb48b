"""The 8-bit quantization of the digit model: same readings, head and first layer kept in float."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="onnx is not installed: pip install 'sudoku-lens[dev]'")

from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from sudoku_lens.read.digits import SIZE, DigitClassifier  # noqa: E402
from sudoku_lens.train.quantize import quantize_model  # noqa: E402


def tiny_float_model(path: Path) -> None:
    """A float CNN of the digit model's shape: conv, relu, conv, relu, pool, then a gemm and
    softmax for the digit and a gemm and sigmoid for the pen."""
    rng = np.random.default_rng(0)

    def weight(name: str, *shape: int) -> onnx.TensorProto:
        return numpy_helper.from_array(rng.normal(0, 0.3, shape).astype(np.float32), name)

    nodes = [
        helper.make_node("Conv", ["cells", "w1"], ["c1"], pads=[1, 1, 1, 1], name="first"),
        helper.make_node("Relu", ["c1"], ["r1"]),
        helper.make_node("Conv", ["r1", "w2"], ["c2"], pads=[1, 1, 1, 1], name="middle"),
        helper.make_node("Relu", ["c2"], ["r2"]),
        helper.make_node("MaxPool", ["r2"], ["p"], kernel_shape=[4, 4], strides=[4, 4]),
        helper.make_node("Flatten", ["p"], ["f"]),
        helper.make_node("Gemm", ["f", "w3"], ["logits"], transB=1, name="head"),
        helper.make_node("Softmax", ["logits"], ["probabilities"], axis=1),
        helper.make_node("Gemm", ["f", "w4"], ["pen_logit"], transB=1, name="pen_head"),
        helper.make_node("Sigmoid", ["pen_logit"], ["pen"]),
    ]
    side = SIZE // 4
    graph = helper.make_graph(
        nodes,
        "tiny",
        [helper.make_tensor_value_info("cells", TensorProto.FLOAT, ["n", 1, SIZE, SIZE])],
        [
            helper.make_tensor_value_info("probabilities", TensorProto.FLOAT, ["n", 10]),
            helper.make_tensor_value_info("pen", TensorProto.FLOAT, ["n", 1]),
        ],
        [
            weight("w1", 8, 1, 3, 3),
            weight("w2", 16, 8, 3, 3),
            weight("w3", 10, 16 * side * side),
            weight("w4", 1, 16 * side * side),
        ],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, str(path))


def cells(count: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    images = np.zeros((count, SIZE, SIZE), np.float32)
    for image in images:
        y, x = rng.integers(4, 14, 2)
        image[y : y + 12, x : x + 4] = rng.uniform(0.5, 1.0)
        image[y : y + 4, x : x + 12] = rng.uniform(0.5, 1.0)
    return images


def test_quantized_model_reads_as_the_float_one(tmp_path: Path) -> None:
    float_model, quantized = tmp_path / "float.onnx", tmp_path / "int8.onnx"
    tiny_float_model(float_model)
    quantize_model(float_model, quantized, cells(1024, seed=1))
    test = cells(300, seed=2)
    exact, exact_pen = DigitClassifier(float_model).predict_with_pen(test)
    small, small_pen = DigitClassifier(quantized).predict_with_pen(test)
    assert np.mean(exact.argmax(axis=1) == small.argmax(axis=1)) >= 0.97
    assert small_pen.shape == (300,) and np.mean((exact_pen > 0.5) == (small_pen > 0.5)) >= 0.97
    assert np.abs(small.sum(axis=1) - 1).max() < 1e-5, "the float softmax still gives probabilities"
    assert quantized.stat().st_size < float_model.stat().st_size


def test_first_layer_and_head_stay_float(tmp_path: Path) -> None:
    float_model, quantized = tmp_path / "float.onnx", tmp_path / "int8.onnx"
    tiny_float_model(float_model)
    quantize_model(float_model, quantized, cells(512, seed=3))
    graph = onnx.load(str(quantized)).graph
    made_by = {out: node for node in graph.node for out in node.output}
    by_name = {node.name: node for node in graph.node}

    def reads_dequantized(node: onnx.NodeProto) -> bool:
        return any(
            name in made_by and made_by[name].op_type == "DequantizeLinear"
            for name in node.input[:2]
        )

    assert not reads_dequantized(by_name["first"]), "the input layer sees the raw cells"
    assert reads_dequantized(by_name["middle"]), "the inner convolution runs in 8 bits"
    assert not reads_dequantized(by_name["head"]) and by_name["head"].op_type == "Gemm"
    assert not reads_dequantized(by_name["pen_head"]), "the pen head stays float too"


def test_too_few_calibration_cells(tmp_path: Path) -> None:
    tiny_float_model(tmp_path / "float.onnx")
    with pytest.raises(ValueError, match="at least 256 calibration cells"):
        quantize_model(tmp_path / "float.onnx", tmp_path / "int8.onnx", cells(100, seed=4))
