"""PyTorch: the packaged ONNX models evaluated by torch, on the CPU or a CUDA device."""

import numpy as np
import torch

from health_code_service.engines.devices import check_gpu, parse_device
from health_code_service.engines.models import DET, REC, onnx_model
from health_code_service.engines.onnx_torch import OnnxModule


def torch_device(name: str) -> torch.device:
    """The torch device OCR_DEVICE names, if torch here can use it (else DeviceUnavailable)."""
    device = parse_device(name, "torch")
    gpus = torch.cuda.device_count() if torch.cuda.is_available() else 0
    if torch.version.cuda is None:
        why_none = f"torch {torch.__version__} is a build without CUDA"
    else:
        why_none = (
            f"torch {torch.__version__} is built for CUDA {torch.version.cuda}, no GPU answers"
        )
    check_gpu(device, "torch", gpus, why_none)
    return torch.device("cpu") if device.kind == "cpu" else torch.device("cuda", device.index)


class TorchEngine:
    name = "torch"

    def __init__(self, device: str = "cpu", threads: int = 1) -> None:
        self.device = torch_device(device)
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
