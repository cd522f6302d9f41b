"""Requests sent one at a time to the service's ASGI app in this process, each split into the
reading's stages (reading/stages.py) and the rest of its CPU time: the HTTP layer (the
server's middlewares, reading and judging the body, base64, the JSON answer).

CPU time (time.process_time: every thread of this process) rather than wall time, so that a
machine shared with other work still gives the same figures; each stage's median and range
over the requests say how steady they are.
"""

from __future__ import annotations

import asyncio
import base64
import json
import statistics
import time
from collections.abc import MutableMapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from fastapi import FastAPI

from health_code_service.main import create_app
from health_code_service.reading.stages import NETWORKS, STAGES, recording
from health_code_service.settings import Settings
from health_code_service.usages import Usage

HTTP = "HTTP layer"
AROUND = "around the networks"
TOTAL = "request"
# The rows of a profile, in order: every stage, the HTTP layer, then two sums.
ROWS = (*STAGES, HTTP, AROUND, TOTAL)
Body = str  # "json" (the write-up's {"base64": ...}) or "raw" (the JPEG itself)


class ProfileError(Exception):
    """A request the service did not answer with 200."""


@dataclass(frozen=True)
class Shot:
    """One screenshot to send, and the usage to send it to."""

    name: str
    usage: Usage
    jpeg: bytes


@dataclass
class Samples:
    """Milliseconds per row, one figure per request: CPU and wall time."""

    cpu_ms: dict[str, list[float]] = field(default_factory=lambda: {row: [] for row in ROWS})
    wall_ms: dict[str, list[float]] = field(default_factory=lambda: {row: [] for row in ROWS})

    def add(self, cpu: dict[str, float], wall: dict[str, float]) -> None:
        for row in ROWS:
            self.cpu_ms[row].append(cpu.get(row, 0.0) * 1000)
            self.wall_ms[row].append(wall.get(row, 0.0) * 1000)


def request_body(jpeg: bytes, body: Body) -> tuple[bytes, str]:
    """The request's body and content type."""
    if body == "raw":
        return jpeg, "image/jpeg"
    return json.dumps({"base64": base64.b64encode(jpeg).decode()}).encode(), "application/json"


async def _post(app: FastAPI, path: str, body: bytes, content_type: str) -> tuple[int, bytes]:
    """One request through the ASGI app, as a server would pass it: status and body."""
    scope = {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.4"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "query_string": b"",
        "headers": [
            (b"host", b"127.0.0.1"),
            (b"content-type", content_type.encode()),
            (b"content-length", str(len(body)).encode()),
        ],
        "server": ("127.0.0.1", 8000),
        "client": ("127.0.0.1", 40000),
        "state": {},
    }
    sent = False
    status = 0
    answer = bytearray()

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if sent:
            await asyncio.Event().wait()
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: MutableMapping[str, Any]) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]
        elif message["type"] == "http.response.body":
            answer.extend(message.get("body", b""))

    await app(scope, receive, send)
    return status, bytes(answer)


async def _measure(app: FastAPI, shot: Shot, body: Body) -> tuple[dict[str, float], ...]:
    """One request's CPU and wall seconds per row."""
    data, content_type = request_body(shot.jpeg, body)
    with recording() as stages:
        cpu, wall = time.process_time(), time.perf_counter()
        status, answer = await _post(app, f"/analysis/{shot.usage}", data, content_type)
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    if status != 200:
        raise ProfileError(f"{shot.name}: status {status}: {answer[:300]!r}")
    rows = []
    for total, per_stage in ((cpu, stages.cpu_s), (wall, stages.wall_s)):
        row = {name: per_stage.get(name, 0.0) for name in STAGES}
        row[HTTP] = max(0.0, total - sum(row.values()))
        row[TOTAL] = total
        row[AROUND] = total - sum(row[name] for name in NETWORKS)
        rows.append(row)
    return tuple(rows)


async def _profile(settings: Settings, shots: Sequence[Shot], repeat: int, body: Body) -> Samples:
    app = create_app(settings)
    samples = Samples()
    async with app.router.lifespan_context(app):
        for shot in shots:  # the first request of each image builds caches: not counted
            await _measure(app, shot, body)
        for _ in range(repeat):
            for shot in shots:
                cpu, wall = await _measure(app, shot, body)
                samples.add(cpu, wall)
    return samples


def profile(settings: Settings, shots: Sequence[Shot], repeat: int, body: Body) -> Samples:
    """`repeat` requests of every shot, one at a time, after one each not counted."""
    return asyncio.run(_profile(settings, shots, repeat, body))


def spread(values: Sequence[float]) -> dict[str, float]:
    return {
        "median": round(statistics.median(values), 2),
        "min": round(min(values), 2),
        "max": round(max(values), 2),
    }


def as_json(samples: Samples) -> list[dict[str, Any]]:
    """Each row's CPU and wall milliseconds: median, min and max over the requests."""
    return [
        {
            "stage": row,
            "cpu_ms": spread(samples.cpu_ms[row]),
            "wall_ms": spread(samples.wall_ms[row]),
        }
        for row in ROWS
    ]


def render(rows: Sequence[dict[str, Any]]) -> str:
    """The rows as a plain-text table."""
    total = next(row for row in rows if row["stage"] == TOTAL)["cpu_ms"]["median"]
    out = [f"{'stage':<22}{'CPU ms':>8}{'min':>8}{'max':>8}{'share':>7}{'wall ms':>9}"]
    for row in rows:
        cpu, wall = row["cpu_ms"], row["wall_ms"]
        share = cpu["median"] / total if total else 0.0
        out.append(
            f"{row['stage']:<22}{cpu['median']:>8.1f}{cpu['min']:>8.1f}{cpu['max']:>8.1f}"
            f"{share:>7.0%}{wall['median']:>9.1f}"
        )
    return "\n".join(out)
