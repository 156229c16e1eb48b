"""The digit classifier network: a small CNN over prepared 28x28 cell images, 10 classes, and
whether a digit looks handwritten; and the optimiser the trainings share."""

from __future__ import annotations

import logging
import warnings
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

import torch
from torch import nn

from sudoku_lens.read.digits import SIZE


def _block(cin: int, cout: int) -> list[nn.Module]:
    return [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU()]


def one_cycle_adamw(
    parameters: Iterable[nn.Parameter], lr: float, steps: int
) -> tuple[torch.optim.Optimizer, torch.optim.lr_scheduler.LRScheduler]:
    """AdamW (weight decay 1e-4) and a one-cycle schedule peaking at `lr` over `steps` steps:
    the optimiser of every training here (digits, pen head, kinds)."""
    opt = torch.optim.AdamW(parameters, lr=lr, weight_decay=1e-4)
    return opt, torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps)


class DigitNet(nn.Module):
    """Three convolution blocks (32, 64, 128 channels) and two heads: a linear layer for the
    digit (10 classes) and a small MLP for whether it looks handwritten rather than printed (one
    logit); about 170k weights. The pen head reads the digit's shape, which the kinds model's
    measurements of size, stroke and colour cannot: a thin grey print beside bold black pen, a
    neat hand. It is trained on the finished digit features (`train_pen_head`)."""

    def __init__(self, dropout: float = 0.3) -> None:
        super().__init__()
        self.features = nn.Sequential(
            *_block(1, 32),
            *_block(32, 32),
            nn.MaxPool2d(2),
            *_block(32, 64),
            *_block(64, 64),
            nn.MaxPool2d(2),
            *_block(64, 128),
            nn.MaxPool2d(2),
        )
        side = SIZE // 8
        self.head = nn.Sequential(
            nn.Flatten(), nn.Dropout(dropout), nn.Linear(128 * side * side, 10)
        )
        with torch.random.fork_rng():
            # made last and from its own draws, so that the digit training (its dropout draws
            # the same random numbers) is the same as without a pen head
            self.pen = nn.Sequential(
                nn.Flatten(), nn.Linear(128 * side * side, 16), nn.ReLU(), nn.Linear(16, 1)
            )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Map a (N, 1, SIZE, SIZE) batch of prepared cells to (N, 10) logits."""
        return self.head(self.features(x))

    def forward_with_pen(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(N, 10) digit logits and (N,) pen logits of a (N, 1, SIZE, SIZE) batch."""
        features = self.features(x)
        return self.head(features), self.pen(features)[:, 0]


class _WithSoftmax(nn.Module):
    def __init__(self, net: nn.Module) -> None:
        super().__init__()
        self.net = net

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(self.net(x), dim=1)


class _DigitOutputs(nn.Module):
    def __init__(self, net: DigitNet) -> None:
        super().__init__()
        self.net = net

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        logits, pen = self.net.forward_with_pen(x)
        return torch.softmax(logits, dim=1), torch.sigmoid(pen)


OPSET = 18
"""The ONNX operator set of the exported models: the oldest that PyTorch's exporter writes
without converting, and one ONNX Runtime 1.16 runs."""

IR_VERSION = 8
"""The ONNX file format version written, the one opset 18 needs. PyTorch's exporter writes 10,
which ONNX Runtime 1.16 (the oldest the package allows) refuses to load."""


@contextmanager
def _quiet_exporter() -> Iterator[None]:
    """Silence what PyTorch's exporter says that concerns PyTorch, not the model: a
    FutureWarning from its own code (torch.export copying a deprecated pytree LeafSpec) and, on
    every export, a logged line for each torchvision operator it cannot register without
    torchvision. Any other warning still shows."""
    registration = logging.getLogger("torch.onnx._internal.exporter._registration")
    level = registration.level
    registration.setLevel(logging.ERROR)
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings(
                "ignore", r"`isinstance\(treespec, LeafSpec\)` is deprecated", FutureWarning
            )
            yield
    finally:
        registration.setLevel(level)


def export_onnx(
    net: nn.Module,
    path: Path,
    *,
    example: torch.Tensor | None = None,
    input_name: str = "cells",
    output_names: tuple[str, ...] | None = None,
) -> None:
    """Write `net` plus a softmax (so it outputs probabilities) as ONNX, batch axis dynamic;
    with `output_names`, `net` as it is (it gives its probabilities itself), its outputs so
    named.

    `example` is an input batch of the right shape (default: two prepared cells, for the digit
    model) and `input_name` the ONNX input's name ("features" for the kinds model). A DigitNet
    also outputs "pen", the probability (N,) that each digit is handwritten.

    Uses PyTorch's torch.export-based exporter (needs `onnxscript`). The file holds the weights
    but not the exporter's notes on where each node came from (metadata of IR version 10, which
    would also write the training checkout's paths into the shipped model)."""
    import onnx

    digits = isinstance(net, DigitNet)
    if output_names is not None:
        wrapper, outputs = net.eval(), list(output_names)
    else:
        wrapper = (_DigitOutputs(net) if digits else _WithSoftmax(net)).eval()
        outputs = ["probabilities", "pen"] if digits else ["probabilities"]
    dummy = torch.zeros(2, 1, SIZE, SIZE) if example is None else example
    with _quiet_exporter():
        program = torch.onnx.export(
            wrapper,
            (dummy,),
            input_names=[input_name],
            output_names=outputs,
            dynamic_shapes=({0: torch.export.Dim("n")},),
            opset_version=OPSET,
            dynamo=True,
            optimize=True,  # batch norms folded into the convolutions (the default from 2.7)
            verbose=False,
        )
    model = program.model_proto
    model.ir_version = IR_VERSION
    graph = model.graph
    for part in (
        graph,
        *graph.input,
        *graph.output,
        *graph.value_info,
        *graph.initializer,
        *graph.node,
    ):
        del part.metadata_props[:]
    path.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(model, str(path))
