"""Service settings, read once from the environment (no prefix).

Engine fields (which OCR runtime, on which device) and serving fields (how requests
reach the engine, and the limits on what they may send) live in this one object.
"""

from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

MiB = 1024 * 1024

Engine = Literal["onnxruntime", "torch", "paddle"]
Mode = Literal["async-blocking", "threadpool", "process", "batched"]


class Settings(BaseSettings):
    model_config = SettingsConfigDict(frozen=True)

    # --- engine ---
    ocr_engine: Engine = Field(
        "onnxruntime",
        description="OCR runtime for the packaged PP-OCR models: onnxruntime (default, CPU), "
        "torch (CPU or CUDA, batched) or paddle (PaddlePaddle inference).",
    )
    ocr_device: str = Field(
        "cpu", description="Where the engine runs: `cpu`, or `cuda` / `cuda:N` (torch, paddle)."
    )

    # --- serving ---
    analyze_mode: Mode = Field(
        "threadpool",
        description="How a request reaches the engine: async-blocking (the write-up's "
        "`async def` calling blocking inference; kept only to be measured), threadpool "
        "(`def` endpoint), process (a process pool), batched (micro-batches).",
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
