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
from health_code_service.engines.paddle_engine import _predictor, inference, paddle_device


class SharedPaddleEngine:
    name = "paddle"

    def __init__(self, device: str = "cpu", threads: int = 1) -> None:
        where = paddle_device(device)
        self._det = _predictor(paddle_model_dir(DET), where, threads)
        self._rec = _predictor(paddle_model_dir(REC), where, threads)

    @staticmethod
    def _run(predictor: inference.Predictor, batch: np.ndarray) -> np.ndarray:
        """As PaddleOCR's detector and recogniser run their predictor: the shared input and
        output handles, one item at a time."""
        inputs = predictor.get_input_handle(predictor.get_input_names()[0])
        output = predictor.get_output_handle(predictor.get_output_names()[0])
        results = []
        for item in batch:
            inputs.copy_from_cpu(item[None])
            predictor.run()
            results.append(output.copy_to_cpu())
        return np.concatenate(results)

    def detect(self, batch: np.ndarray) -> np.ndarray:
        return self._run(self._det, batch)[:, 0]

    def recognize(self, batch: np.ndarray) -> np.ndarray:
        return self._run(self._rec, batch)
