"""onnxruntime (the default): the packaged ONNX models on the CPU, or on a GPU through the
CUDA execution provider (the `onnxruntime-gpu` extra)."""

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import onnxruntime
from onnxruntime.capi.onnxruntime_pybind11_state import EPFail, Fail, RuntimeException

from health_code_service.engines.devices import Device, DeviceUnavailable, parse_device
from health_code_service.engines.models import DET, REC, onnx_model

CUDA = "CUDAExecutionProvider"
CPU = "CPUExecutionProvider"
Provider = str | tuple[str, dict[str, Any]]


def providers(device: Device, available: Sequence[str], memory_bytes: int) -> list[Provider]:
    """The execution providers for `device`, given those this onnxruntime build has.

    On CUDA: the arena grows by what is asked, not by doubling, up to `memory_bytes`; and
    convolution algorithms are chosen by heuristic, as an exhaustive search would run again
    for every new input shape (the detector sees many).
    """
    if device.kind == "cpu":
        return [CPU]
    if CUDA not in available:
        raise DeviceUnavailable(
            f"OCR_DEVICE={device} cannot be used by the onnxruntime engine: onnxruntime "
            f"{onnxruntime.__version__} has no {CUDA} (it has {', '.join(available)}); "
            "install the onnxruntime-gpu extra in place of onnxruntime; it can use cpu"
        )
    options = {
        "device_id": device.index,
        "gpu_mem_limit": memory_bytes,
        "arena_extend_strategy": "kSameAsRequested",
        "cudnn_conv_algo_search": "HEURISTIC",
    }
    # The CPU provider runs what CUDA has no kernel for (onnxruntime places each node).
    return [(CUDA, options), CPU]


class OnnxRuntimeEngine:
    name = "onnxruntime"

    def __init__(self, device: str = "cpu", threads: int = 1, memory_mb: int = 2048) -> None:
        where = parse_device(device, self.name)
        if where.kind == "cuda" and CUDA in onnxruntime.get_available_providers():
            # The CUDA and cuDNN libraries of the extra's nvidia-* wheels, before a session.
            onnxruntime.preload_dlls()
        chosen = providers(where, onnxruntime.get_available_providers(), memory_mb * 1024 * 1024)
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.execution_mode = onnxruntime.ExecutionMode.ORT_SEQUENTIAL
        self._det = _session(onnx_model(DET), options, chosen, where)
        self._rec = _session(onnx_model(REC), options, chosen, where)

    def detect(self, batch: np.ndarray) -> np.ndarray:
        return np.asarray(self._det.run(None, {"x": batch})[0][:, 0])

    def recognize(self, batch: np.ndarray) -> np.ndarray:
        return np.asarray(self._rec.run(None, {"x": batch})[0])


def _session(
    path: Path,
    options: onnxruntime.SessionOptions,
    chosen: list[Provider],
    device: Device,
) -> onnxruntime.InferenceSession:
    if device.kind == "cpu":
        return onnxruntime.InferenceSession(str(path), options, providers=chosen)
    try:
        session = onnxruntime.InferenceSession(str(path), options, providers=chosen)
    except (EPFail, Fail, RuntimeException) as error:  # e.g. a device_id past the last GPU
        raise DeviceUnavailable(
            f"OCR_DEVICE={device}: onnxruntime could not open it ({error})"
        ) from error
    # onnxruntime falls back to the CPU, with only a warning, when the CUDA provider cannot
    # load (a missing libcudnn, a driver too old): a GPU deployment must not quietly run there.
    if device.kind == "cuda" and CUDA not in session.get_providers():
        raise DeviceUnavailable(
            f"OCR_DEVICE={device}: onnxruntime {onnxruntime.__version__} could not start "
            f"{CUDA} (it runs on {', '.join(session.get_providers())}); see its warnings above"
        )
    return session
