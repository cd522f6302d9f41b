"""What every OCR engine is: the two PP-OCR networks as array-in, array-out functions.

Pre- and post-processing (resizing, normalising, box finding, CTC decoding) are shared numpy
code in `health_code_service.reading.text`, so engines differ only in the runtime that evaluates the
networks, and give the same fields for the same image.
"""

from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Protocol, runtime_checkable

import numpy as np


class Engine(Protocol):
    name: str

    def detect(self, batch: np.ndarray) -> np.ndarray:
        """Text probability maps: float32 (N, 3, H, W) normalised BGR -> (N, H, W) in [0, 1]."""
        ...

    def recognize(self, batch: np.ndarray) -> np.ndarray:
        """Character probabilities: float32 (N, 3, 48, W) -> (N, W/8, classes)."""
        ...


@runtime_checkable
class ShapeBatching(Protocol):
    """An engine that batches inputs of different shapes itself (padding them to a few)."""

    def detect_many(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]: ...

    def recognize_many(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]: ...


def detect_all(engine: Engine, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """A probability map (H, W) for each (3, H, W) input, whatever their shapes: in as few
    calls as the engine can take them (one per shape unless it batches across shapes)."""
    if isinstance(engine, ShapeBatching):
        return engine.detect_many(inputs)
    return _per_shape(engine.detect, inputs)


def recognize_all(engine: Engine, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Character probabilities (W/8, classes) for each (3, 48, W) input, whatever its W."""
    if isinstance(engine, ShapeBatching):
        return engine.recognize_many(inputs)
    return _per_shape(engine.recognize, inputs)


def _per_shape(
    run: Callable[[np.ndarray], np.ndarray], inputs: Sequence[np.ndarray]
) -> list[np.ndarray]:
    by_shape: dict[tuple[int, ...], list[int]] = defaultdict(list)
    for index, tensor in enumerate(inputs):
        by_shape[tensor.shape].append(index)
    results: list[np.ndarray] = [np.empty(0)] * len(inputs)
    for indices in by_shape.values():
        for index, result in zip(indices, run(np.stack([inputs[i] for i in indices])), strict=True):
            results[index] = result
    return results
