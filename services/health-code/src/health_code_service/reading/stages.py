"""Where one request's time goes: the reading's stages, timed only while a profile records
them (`health-code-profile`); outside a recording a stage costs a context-variable lookup.

A recording is a context variable, so it follows the request into the thread FastAPI runs a
`def` endpoint in (anyio copies the context); every stage adds the process's CPU time and the
wall time it took to the recording's totals.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

DECODE = "decode"
QR = "QR code and colour"
DETECTION_INPUT = "detection input"
DETECTION = "detection"
CROPS = "recognition crops"
RECOGNITION = "recognition"
PARSING = "decoding and parsing"
# The stages in the order a request goes through them; the networks are the two whose work
# a GPU takes over.
STAGES = (DECODE, QR, DETECTION_INPUT, DETECTION, CROPS, RECOGNITION, PARSING)
NETWORKS = (DETECTION, RECOGNITION)


@dataclass
class Recording:
    """CPU and wall seconds per stage of one request."""

    cpu_s: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    wall_s: dict[str, float] = field(default_factory=lambda: defaultdict(float))


_recording: ContextVar[Recording | None] = ContextVar("health_code_stages", default=None)


@contextmanager
def stage(name: str) -> Iterator[None]:
    """Time the block as stage `name` when a recording is on."""
    recording = _recording.get()
    if recording is None:
        yield
        return
    cpu, wall = time.process_time(), time.perf_counter()
    try:
        yield
    finally:
        recording.cpu_s[name] += time.process_time() - cpu
        recording.wall_s[name] += time.perf_counter() - wall


@contextmanager
def recording() -> Iterator[Recording]:
    """Record the stages run in this context (and the threads it is copied to)."""
    record = Recording()
    token = _recording.set(record)
    try:
        yield record
    finally:
        _recording.reset(token)
