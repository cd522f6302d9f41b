"""onnxruntime (the default): the packaged ONNX models on the CPU."""

import numpy as np
import onnxruntime

from health_code_service.engines.models import DET, REC, onnx_model


class OnnxRuntimeEngine:
    name = "onnxruntime"

    def __init__(self, device: str = "cpu", threads: int = 1) -> None:
        if device != "cpu":
            raise ValueError(f"the onnxruntime engine runs on the cpu, not {device!r}")
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.execution_mode = onnxruntime.ExecutionMode.ORT_SEQUENTIAL
        providers = ["CPUExecutionProvider"]
        self._det = onnxruntime.InferenceSession(str(onnx_model(DET)), options, providers=providers)
        self._rec = onnxruntime.InferenceSession(str(onnx_model(REC)), options, providers=providers)

    def detect(self, batch: np.ndarray) -> np.ndarray:
        return self._det.run(None, {"x": batch})[0][:, 0]

    def recognize(self, batch: np.ndarray) -> np.ndarray:
        return self._rec.run(None, {"x": batch})[0]
