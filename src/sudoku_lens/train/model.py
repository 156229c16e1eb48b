"""The digit classifier network: a small CNN over prepared 28x28 cell images, 10 classes."""

from __future__ import annotations

from pathlib import Path

import torch
from torch import nn

from sudoku_lens.read.digits import SIZE


def _block(cin: int, cout: int) -> list[nn.Module]:
    return [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU()]


class DigitNet(nn.Module):
    """Three convolution blocks (32, 64, 128 channels) and a linear layer: about 150k weights."""

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

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Map a (N, 1, SIZE, SIZE) batch of prepared cells to (N, 10) logits."""
        return self.head(self.features(x))


class _WithSoftmax(nn.Module):
    def __init__(self, net: nn.Module) -> None:
        super().__init__()
        self.net = net

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(self.net(x), dim=1)


def export_onnx(
    net: nn.Module,
    path: Path,
    *,
    example: torch.Tensor | None = None,
    input_name: str = "cells",
) -> None:
    """Write `net` plus a softmax (so it outputs probabilities) as ONNX, batch axis dynamic.

    `example` is an input batch of the right shape (default: two prepared cells, for the digit
    model) and `input_name` the ONNX input's name ("features" for the kinds model)."""
    wrapper = _WithSoftmax(net).eval()
    dummy = torch.zeros(2, 1, SIZE, SIZE) if example is None else example
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(
        wrapper,
        (dummy,),
        str(path),
        input_names=[input_name],
        output_names=["probabilities"],
        dynamic_axes={input_name: {0: "n"}, "probabilities": {0: "n"}},
        opset_version=17,
        dynamo=False,
    )
