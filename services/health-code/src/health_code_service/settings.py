"""Service settings, read once from the environment (no prefix).

Engine fields (which OCR runtime, on which device) and serving fields (how requests
reach the engine, and the limits on what they may send) live in this one object.
"""

from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from health_code_service.reading.imaging import MAX_SIDE

MiB = 1024 * 1024

Engine = Literal["onnxruntime", "torch", "paddle"]
Mode = Literal["async-blocking", "threadpool", "process", "batched", "shared-threadpool"]


class Settings(BaseSettings):
    model_config = SettingsConfigDict(frozen=True)

    # --- engine ---
    ocr_engine: Engine = Field(
        "onnxruntime",
        description="OCR runtime for the packaged PP-OCR models: onnxruntime (default, CPU), "
        "torch (CPU or CUDA, batched) or paddle (PaddlePaddle inference).",
    )
    ocr_device: str = Field(
        "cpu",
        description="Where the engine runs: `cpu`, or `cuda` / `cuda:N` (torch; onnxruntime "
        "with the onnxruntime-gpu extra; paddle with paddlepaddle-gpu). An engine refuses to "
        "start on a device it cannot use.",
    )
    ocr_threads: int = Field(
        0,
        ge=0,
        description="Intra-op threads of each engine session; 0 sizes them to the machine "
        "(sizing.py): 1 where requests run side by side (threadpool, process), the worker's "
        "share of the CPUs where it runs one engine call at a time (async-blocking, batched).",
    )

    ocr_gpu_memory_mb: int = Field(
        2048,
        ge=64,
        description="On a GPU: the most memory one engine may hold for the networks' working "
        "tensors, in MiB. torch splits a batch into parts that fit it; onnxruntime caps its "
        "CUDA arena at it. 2048 keeps 8 workers, each with its CUDA context, under 4 GiB "
        "apiece on an 80 GB card.",
    )
    ocr_half_precision: bool = Field(
        False,
        description="torch on CUDA: run the recogniser in float16 (half its memory and "
        "bandwidth); the detector stays float32, as in float16 it loses text. Refused on "
        "other devices.",
    )

    # --- serving ---
    analyze_mode: Mode = Field(
        "threadpool",
        description="How a request reaches the engine: async-blocking (the write-up's "
        "`async def` calling blocking inference; kept only to be measured), threadpool "
        "(`def` endpoint), process (a process pool), batched (micro-batches), "
        "shared-threadpool (the write-up's `def` endpoint: one paddle engine shared by the "
        "threads without a lock; kept only to be measured, do not deploy).",
    )
    max_body_bytes: int = Field(
        10 * MiB, ge=1024, description="Largest request body accepted, in bytes (413 above it)."
    )
    max_pixels: int = Field(
        25_000_000,
        ge=1,
        description="Largest image accepted, in pixels (width x height), checked before "
        "decoding: a decompression bomb gets a 413/422 instead of eating memory.",
    )
    max_image_side: int = Field(
        MAX_SIDE,
        ge=1,
        le=MAX_SIDE,
        description="Longest side of an image accepted, in pixels, checked with the area "
        "before decoding: a 1 x 24,000,000 image is under MAX_PIXELS, yet no step after "
        "decoding takes it (413).",
    )
    image_budget_bytes: int = Field(
        640 * MiB,
        ge=MiB,
        description="Most bytes the images being analyzed may take at once in one server "
        "process (10 per pixel, from each image's header, before decoding): 640 MiB holds two "
        "images of MAX_PIXELS or 25 phone screenshots (1080 x 2400) at once. A request that "
        "does not fit waits for room (IMAGE_BUDGET_WAIT_S). The process mode decodes in its "
        "engine processes, one image each at a time.",
    )
    image_budget_wait_s: float = Field(
        30.0,
        ge=0,
        description="Longest a request waits for room in the image budget, in seconds; then "
        "503 busy with Retry-After. The budget bounds memory, not latency: 30 s is a client's "
        "usual timeout (ab's), and the write-up's 64 clients on 2 CPUs wait 5-15 s for room.",
    )
    batch_max_size: int = Field(
        8,
        ge=1,
        description="batched: most requests' network calls one batch takes (Triton's max "
        "batch); the engine runs the batch with one call per input shape.",
    )
    batch_max_wait_ms: float = Field(
        5.0,
        ge=0,
        description="batched: longest the oldest waiting call waits for others to join its "
        "batch, in milliseconds (Triton's max queue delay).",
    )
    replicas: int = Field(
        1,
        ge=1,
        description="Copies of this server that share this machine's CPUs (N one-worker "
        "replicas on one host, as compose's deploy.replicas runs them); the CPUs are divided "
        "among replicas x WEB_CONCURRENCY workers. 1 where each copy has CPUs of its own.",
    )
    process_workers: int = Field(
        0,
        ge=0,
        description="process: engine processes per server worker; 0 means the worker's share "
        "of the CPUs this process may run on (os.sched_getaffinity), CPUs // workers.",
    )
