"""service_app: FastAPI's own OpenTelemetry stays off, even where a process has installed a
global tracer provider: servicekit.tracing records the requests' server spans."""

from __future__ import annotations

import subprocess
import sys

_SCRIPT = """
import anyio, httpx
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from servicekit.fastapi_app import service_app

exporter = InMemorySpanExporter()
provider = TracerProvider()
provider.add_span_processor(SimpleSpanProcessor(exporter))
trace.set_tracer_provider(provider)

async def lifespan(app):
    yield

app = service_app(title="t", summary="s", settings=None, lifespan=lifespan)

@app.get("/x")
async def x() -> dict[str, int]:
    return {"x": 1}

async def main() -> None:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://kit") as client:
        assert (await client.get("/x")).status_code == 200

anyio.run(main)
print(len(exporter.get_finished_spans()))
"""


def test_no_fastapi_spans_with_a_global_tracer_provider() -> None:
    env = {"METRICS": "0", "ACCESS_LOG": "0", "PATH": ""}
    done = subprocess.run(
        [sys.executable, "-c", _SCRIPT], capture_output=True, text=True, env=env, check=True
    )
    assert done.stdout.strip() == "0"
