"""PyTorch: the packaged ONNX models evaluated by torch, on the CPU or a CUDA device."""

import numpy as np
import torch

from health_code_service.engines.models import DET, REC, onnx_model
from health_code_service.engines.onnx_torch import OnnxModule


class TorchEngine:
    name = "torch"

    def __init__(self, device: str = "cpu", threads: int = 1) -> None:
        self.device = torch.device(device)
        if self.device.type == "cpu":
            torch.set_num_threads(threads)
        self._det = OnnxModule(onnx_model(DET)).to(self.device).eval()
        self._rec = OnnxModule(onnx_model(REC)).to(self.device).eval()

    def _run(self, module: OnnxModule, batch: np.ndarray) -> np.ndarray:
        with torch.inference_mode():
            out = module(torch.from_numpy(batch).to(self.device))
        return out.float().cpu().numpy()

    def detect(self, batch: np.ndarray) -> np.ndarray:
        return self._run(self._det, batch)[:, 0]

    def recognize(self, batch: np.ndarray) -> np.ndarray:
        return self._run(self._rec, batch)
