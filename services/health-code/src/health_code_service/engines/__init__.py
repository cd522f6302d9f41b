"""OCR engines behind one interface; `create_engine` imports only the one asked for."""

from health_code_service.engines.base import Engine
from health_code_service.serving.sizing import sized
from health_code_service.settings import Settings

__all__ = ["Engine", "create_engine"]


def create_engine(settings: Settings) -> Engine:
    # OCR_THREADS=0 means "sized to the machine and its workers" (sizing.py).
    settings = sized(settings)
    threads = settings.ocr_threads
    if settings.ocr_engine == "torch":
        from health_code_service.engines.torch_engine import TorchEngine

        return TorchEngine(
            settings.ocr_device,
            threads,
            settings.ocr_gpu_memory_mb,
            settings.ocr_half_precision,
        )
    if settings.ocr_engine == "paddle":
        from health_code_service.engines.paddle_engine import PaddleEngine

        return PaddleEngine(settings.ocr_device, threads)
    from health_code_service.engines.ort_engine import OnnxRuntimeEngine

    return OnnxRuntimeEngine(settings.ocr_device, threads, settings.ocr_gpu_memory_mb)
