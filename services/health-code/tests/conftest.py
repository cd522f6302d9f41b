"""Fixtures: generated screenshots with their expected answers. The service runs as
compose.yaml runs it through servelab's plugin fixture `serve` (servelab.testing)."""

from __future__ import annotations

import asyncio
import base64
import json
import struct
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from importlib.util import find_spec
from typing import Any

import httpx2
import numpy as np
import pytest

from health_code_service.reading.analyzer import Analyzer
from health_code_service.reading.imaging import ImageLimits, decode_image
from health_code_service.settings import Settings
from health_code_service.synth import generate
from health_code_service.usages import Usage

# compose profile -> the health-code service it runs
SERVERS = {"uvicorn": "health-code-uvicorn", "gunicorn": "health-code-gunicorn"}
MODES = ("async-blocking", "threadpool", "process", "batched")
TIMEOUT = 60.0


@dataclass(frozen=True)
class Sample:
    usage: Usage
    jpeg: bytes
    answer: dict[str, Any]


@cache
def sample(usage: Usage, seed: int = 1) -> Sample:
    """A generated screenshot of `usage` at half size (quick to analyze) and the answer the
    service must give for it: the generator's truth."""
    jpeg, truth = generate(usage, seed, scale=0.5)
    answer = {key: value for key, value in truth.items() if key != "synth"}
    return Sample(Usage(usage), jpeg, answer)


def body(kind: str, jpeg: bytes) -> tuple[bytes, str]:
    """The request body and its Content-Type: the write-up's JSON, raw, or multipart."""
    if kind == "json":
        return json.dumps({"base64": base64.b64encode(jpeg).decode()}).encode(), "application/json"
    if kind == "raw":
        return jpeg, "image/jpeg"
    boundary = "testboundary42"
    multipart = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.jpg"\r\n'
            "Content-Type: image/jpeg\r\n\r\n"
        ).encode()
        + jpeg
        + f"\r\n--{boundary}--\r\n".encode()
    )
    return multipart, f"multipart/form-data; boundary={boundary}"


def post(url: str, usage: str, jpeg: bytes, kind: str = "raw") -> httpx2.Response:
    content, content_type = body(kind, jpeg)
    return httpx2.post(
        f"{url}/analysis/{usage}",
        content=content,
        headers={"content-type": content_type},
        timeout=TIMEOUT,
    )


async def _at_once(url: str, requests: Sequence[tuple[str, bytes]]) -> list[httpx2.Response]:
    async with httpx2.AsyncClient(timeout=TIMEOUT) as client:
        return list(
            await asyncio.gather(
                *(
                    client.post(
                        f"{url}/analysis/{usage}",
                        content=jpeg,
                        headers={"content-type": "image/jpeg"},
                    )
                    for usage, jpeg in requests
                )
            )
        )


def post_at_once(url: str, requests: Sequence[tuple[str, bytes]]) -> list[httpx2.Response]:
    """POST every (usage, image) at the same time, each on its own connection."""
    return asyncio.run(_at_once(url, requests))


def grey_png(width: int, height: int) -> bytes:
    """A grey 8-bit PNG built with zlib: a few tens of KB for 24,000,000 pixels."""
    idat = zlib.compress((b"\x00" + b"\x80" * width) * height, 9)

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")
    )


@pytest.fixture(name="grey_png")
def grey_png_fixture() -> Callable[[int, int], bytes]:
    return grey_png


@pytest.fixture(name="sample")
def sample_fixture() -> Callable[..., Sample]:
    return sample


@pytest.fixture(name="body")
def body_fixture() -> Callable[[str, bytes], tuple[bytes, str]]:
    return body


@pytest.fixture(name="post")
def post_fixture() -> Callable[..., httpx2.Response]:
    return post


@pytest.fixture(name="post_at_once")
def post_at_once_fixture() -> Callable[..., list[httpx2.Response]]:
    return post_at_once


# --- recognition core: every engine this machine has installed ---

# engine -> the module it needs; the default engine's is a base dependency.
ENGINE_MODULES = {"onnxruntime": "onnxruntime", "torch": "torch", "paddle": "paddle"}
# The optional engines' tests are `heavy`: importing torch or paddle and loading their
# models takes seconds a test, so `make test-fast` checks the default engine alone.
ENGINES = [
    engine if engine == "onnxruntime" else pytest.param(engine, marks=pytest.mark.heavy)
    for engine, module in ENGINE_MODULES.items()
    if find_spec(module)
]


@cache
def analyzer_for(engine: str) -> Analyzer:
    """One Analyzer per engine for the whole session (loading models takes seconds)."""
    return Analyzer(Settings(ocr_engine=engine))


@cache
def screenshot(usage: Usage, seed: int, **options: Any) -> tuple[np.ndarray, dict[str, Any]]:
    """A generated screenshot, decoded, and the fields its result must have."""
    jpeg, truth = generate(usage, seed, **options)
    fields = {key: value for key, value in truth.items() if key != "synth"}
    return decode_image(jpeg, ImageLimits(25_000_000)), fields


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
def analyzer(engine: str) -> Analyzer:
    return analyzer_for(engine)


@pytest.fixture
def default_analyzer() -> Analyzer:
    """The default engine's (onnxruntime)."""
    return analyzer_for("onnxruntime")


@pytest.fixture(name="screenshot")
def screenshot_fixture() -> Callable[..., tuple[np.ndarray, dict[str, Any]]]:
    return screenshot
