"""OpenTelemetry traces, off unless the standard OTEL_* variables ask for them: one server
span per request, exported over OTLP/HTTP. Needs the `tracing` extra.

On when OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is set, or
OTEL_TRACES_EXPORTER=otlp (then the exporter's default, http://localhost:4318); off when
OTEL_TRACES_EXPORTER=none or OTEL_SDK_DISABLED=true. Everything else (OTEL_SERVICE_NAME,
OTEL_RESOURCE_ATTRIBUTES, OTEL_BSP_*, headers, timeouts) is read by the SDK itself.

Forking servers: the SDK's batch processor is a thread, and a thread does not survive a
fork, so a provider made in a parent (gunicorn's master, uWSGI's without lazy-apps, Tornado
before fork_processes) would export nothing from its workers. The provider is made per
process instead, on the first request a process answers (`tracer()` compares the pid),
which holds under every server here without a hook of its own; it is never installed as
the global provider, which can be set once per process and would be inherited half-alive.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from opentelemetry.trace import Tracer

_lock = threading.Lock()
_state: dict[str, object] = {}


def enabled(env: Mapping[str, str] = os.environ) -> bool:
    if env.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return False
    exporter = env.get("OTEL_TRACES_EXPORTER", "").strip().lower()
    if exporter == "none":
        return False
    endpoint = env.get("OTEL_EXPORTER_OTLP_ENDPOINT") or env.get(
        "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
    )
    return bool(endpoint) or exporter == "otlp"


ENABLED = enabled()


def tracer() -> Tracer | None:
    """This process's tracer, made on first use in each process; None when tracing is off."""
    if not ENABLED:
        return None
    pid = os.getpid()
    if _state.get("pid") != pid:
        with _lock:
            if _state.get("pid") != pid:
                _state["tracer"] = _make_tracer(pid)
                _state["pid"] = pid
    found = _state["tracer"]
    return found  # type: ignore[return-value]


def _make_tracer(pid: int) -> Tracer:
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    provider = TracerProvider(resource=Resource.create({"process.pid": pid}))
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    return provider.get_tracer("servicekit")


def record_server_span(
    *,
    method: str,
    route: str | None,
    path: str,
    status: int,
    started_ns: int,
    ended_ns: int,
    request_id: str,
    carrier: Mapping[str, str],
) -> None:
    """One SERVER span for a request that has ended, child of the caller's `traceparent`
    (W3C trace context in `carrier`, lower-case header names) when it sent one."""
    current = tracer()
    if current is None:
        return
    from opentelemetry.propagate import extract
    from opentelemetry.trace import SpanKind, Status, StatusCode

    span = current.start_span(
        f"{method} {route}" if route else method,
        context=extract(carrier),
        kind=SpanKind.SERVER,
        start_time=started_ns,
        attributes={
            "http.request.method": method,
            "http.route": route or "",
            "url.path": path,
            "http.response.status_code": status,
            "servelab.request_id": request_id,
        },
    )
    if status >= 500:
        span.set_status(Status(StatusCode.ERROR))
    span.end(end_time=ended_ns)
