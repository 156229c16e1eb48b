"""The models shipped with the package, run on the CPU by ONNX Runtime: one way to open them,
each opened once per process and shared."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any, ClassVar, Self


def cpu_session(model_path: str | Path, threads: int = 1) -> Any:
    """An ONNX Runtime session of `model_path` on the CPU with `threads` threads for an
    operator (one by default: the batches and the web server run one reading per core), its
    log kept to errors."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    return ort.InferenceSession(str(model_path), options, providers=["CPUExecutionProvider"])


class ShippedModel:
    """A model file run by ONNX Runtime (`session`, its one input named `_input`); `default()`
    is the subclass's model shipped with the package, loaded on first use only."""

    _lock: ClassVar[threading.Lock] = threading.Lock()

    def __init__(self, model_path: str | Path, threads: int = 1) -> None:
        self.session = cpu_session(model_path, threads)
        self._input = self.session.get_inputs()[0].name

    @classmethod
    def default(cls) -> Self:
        """The classifier for the model shipped with the package, loaded on first use only."""
        with ShippedModel._lock:
            model = cls.__dict__.get("_shared")
            if model is None:
                model = cls()
                cls._shared = model
            return model
