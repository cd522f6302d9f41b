"""Service settings, read once from the environment (no prefix)."""

from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(frozen=True)

    model: Literal["wait", "cpu"] = Field(
        "wait",
        description="What a request spends WAITING_TIME on: `wait` sleeps (I/O-like), "
        "`cpu` keeps a core busy, which no event loop or thread pool can overlap.",
    )
    waiting_time: float = Field(1.0, ge=0, description="Seconds each request waits or burns.")
    threadpool_size: int = Field(
        40,
        ge=1,
        description="Threads that run `def` endpoints at once per worker process "
        "(anyio's default limiter; 40 unless set). Further /sync requests queue for a thread.",
    )
