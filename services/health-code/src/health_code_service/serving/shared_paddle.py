"""ANALYZE_MODE=shared-threadpool, kept only to be measured (do not deploy): the write-up's
`def` endpoint, whose one PaddleOCR object every thread of the pool called at once.

`SharedPaddleEngine` holds one pair of Paddle predictors and runs them in whichever thread
calls, with no lock: each run copies its input into the predictor's one input tensor, runs,
and copies out of its one output tensor, so two threads can run on each other's input or
read each other's output. The paddle engine (engines/paddle_engine.py) confines every run
to one thread of its own instead. README "Why the write-up's def endpoint failed" has the
measurement.
"""

import numpy as np

from health_code_service.engines.models import DET, REC, paddle_model_dir
from health_code_service.engines.paddle_engine import _predictor, paddle_device, run_items


class SharedPaddleEngine:
    name = "paddle"

    def __init__(self, device: str = "cpu", threads: int = 1) -> None:
        where = paddle_device(device)
        self._det = _predictor(paddle_model_dir(DET), where, threads)
        self._rec = _predictor(paddle_model_dir(REC), where, threads)

    def detect(self, batch: np.ndarray) -> np.ndarray:
        return run_items(self._det, batch)[:, 0]

    def recognize(self, batch: np.ndarray) -> np.ndarray:
        return run_items(self._rec, batch)
