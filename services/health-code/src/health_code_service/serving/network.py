"""How a request's reader reaches the two networks: the engine called in the request's own
thread (`Direct`), or the engine behind a micro-batcher that many request threads feed
(`Batched`). Either way the reader gets one output per input, in order, and everything
else it does (decoding, the QR code, resizing, box finding, crops, CTC) stays in its thread.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, Protocol

import numpy as np

from health_code_service.engines import Engine
from health_code_service.engines.base import detect_all, recognize_all
from health_code_service.serving.batcher import MicroBatcher

Kind = Literal["detect", "recognize"]
# One request's inputs to one network: a batcher item.
Call = tuple[Kind, Sequence[np.ndarray]]


class Network(Protocol):
    def detect(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Probability maps, one per (3, H, W) detector input."""
        ...

    def recognize(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Character probabilities, one per (3, 48, W) recogniser input."""
        ...


class Direct:
    """The engine, called by the thread that reads."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def detect(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        return detect_all(self.engine, inputs)

    def recognize(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        return recognize_all(self.engine, inputs)

    def run(self, calls: Sequence[Call]) -> list[list[np.ndarray]]:
        """Several requests' calls with one engine call per network and input shape."""
        outcomes: list[list[np.ndarray]] = [[] for _ in calls]
        for kind, network in (("detect", self.detect), ("recognize", self.recognize)):
            picked = [i for i, (k, _) in enumerate(calls) if k == kind]
            outputs = iter(network([tensor for i in picked for tensor in calls[i][1]]))
            for i in picked:
                outcomes[i] = [next(outputs) for _ in calls[i][1]]
        return outcomes


class Batched:
    """The engine behind a MicroBatcher: a reading thread's call waits for the next batch,
    which runs the calls of every thread that joined it in one dedicated thread."""

    def __init__(self, engine: Engine, *, max_size: int, max_wait_s: float) -> None:
        self.batcher: MicroBatcher[Call, list[np.ndarray]] = MicroBatcher(
            Direct(engine).run, max_size=max_size, max_wait_s=max_wait_s, name="engine-batches"
        )

    def _call(self, kind: Kind, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        if not inputs:
            return []
        return self.batcher.submit((kind, list(inputs))).result()

    def detect(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        return self._call("detect", inputs)

    def recognize(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        return self._call("recognize", inputs)

    def close(self) -> None:
        self.batcher.close()
