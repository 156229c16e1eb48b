"""The digit classifier network: a small CNN over prepared 28x28 cell images, 10 classes, and
whether a digit looks handwritten; and the optimiser the trainings share."""

from __future__ import annotations

from collections.abc import Iterable
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


def export_onnx(
    net: nn.Module,
    path: Path,
    *,
    example: torch.Tensor | None = None,
    input_name: str = "cells",
) -> None:
    """Write `net` plus a softmax (so it outputs probabilities) as ONNX, batch axis dynamic.

    `example` is an input batch of the right shape (default: two prepared cells, for the digit
    model) and `input_name` the ONNX input's name ("features" for the kinds model). A DigitNet
    also outputs "pen", the probability (N,) that each digit is handwritten."""
    digits = isinstance(net, DigitNet)
    wrapper = (_DigitOutputs(net) if digits else _WithSoftmax(net)).eval()
    dummy = torch.zeros(2, 1, SIZE, SIZE) if example is None else example
    outputs = ["probabilities", "pen"] if digits else ["probabilities"]
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(
        wrapper,
        (dummy,),
        str(path),
        input_names=[input_name],
        output_names=outputs,
        dynamic_axes={input_name: {0: "n"}, **{name: {0: "n"} for name in outputs}},
        opset_version=17,
        dynamo=False,
    )
