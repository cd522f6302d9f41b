"""What every OCR engine is: the two PP-OCR networks as array-in, array-out functions.

Pre- and post-processing (resizing, normalising, box finding, CTC decoding) are shared numpy
code in `health_code_service.text`, so engines differ only in the runtime that evaluates the
networks, and give the same fields for the same image.
"""

from typing import Protocol

import numpy as np


class Engine(Protocol):
    name: str

    def detect(self, batch: np.ndarray) -> np.ndarray:
        """Text probability maps: float32 (N, 3, H, W) normalised BGR -> (N, H, W) in [0, 1]."""
        ...

    def recognize(self, batch: np.ndarray) -> np.ndarray:
        """Character probabilities: float32 (N, 3, 48, W) -> (N, W/8, classes)."""
        ...
