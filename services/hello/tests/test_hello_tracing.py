"""Tracing under a forking server: gunicorn with two sync workers and
OTEL_EXPORTER_OTLP_ENDPOINT set sends one server span per request, from both workers, to an
OTLP/HTTP receiver, continuing the caller's W3C trace context."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx2
import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from servelab.stack import Stack
from servelab.stack.ports import LOOPBACK

Serve = Callable[..., AbstractContextManager[Stack]]

N = 20
TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
TRACEPARENT = f"00-{TRACE_ID}-00f067aa0ba902b7-01"


class Receiver(ThreadingHTTPServer):
    """A minimal OTLP/HTTP trace receiver: keeps every span it is sent."""

    def __init__(self) -> None:
        super().__init__((LOOPBACK, 0), _Handler)
        self.spans: list[dict[str, Any]] = []
        self.lock = threading.Lock()

    @property
    def endpoint(self) -> str:
        return f"http://{LOOPBACK}:{self.server_address[1]}"


class _Handler(BaseHTTPRequestHandler):
    server: Receiver

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        request = ExportTraceServiceRequest.FromString(body)
        found = []
        for resource_spans in request.resource_spans:
            resource = {a.key: a.value for a in resource_spans.resource.attributes}
            for scope_spans in resource_spans.scope_spans:
                for span in scope_spans.spans:
                    attributes = {a.key: a.value for a in span.attributes}
                    found.append(
                        {
                            "name": span.name,
                            "trace_id": span.trace_id.hex(),
                            "pid": resource["process.pid"].int_value,
                            "service": resource["service.name"].string_value,
                            "route": attributes["http.route"].string_value,
                        }
                    )
        with self.server.lock:
            self.server.spans.extend(found)
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    server = Receiver()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def test_two_gunicorn_workers_send_a_span_per_request(serve: Serve, receiver: Receiver) -> None:
    env = {"WEB_CONCURRENCY": "2", "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.endpoint}
    with serve("gunicorn", "hello-gunicorn-sync", env) as stack:
        url = stack.url("hello-gunicorn-sync")

        def one(i: int) -> int:
            headers = {"Connection": "close"}
            if i == 0:
                headers["traceparent"] = TRACEPARENT
            return httpx2.get(url + "/hello", headers=headers).status_code

        with ThreadPoolExecutor(4) as pool:
            assert list(pool.map(one, range(N))) == [200] * N

        deadline = time.monotonic() + 20  # the batch processor sends every 5 s
        while time.monotonic() < deadline:
            with receiver.lock:
                hello = [s for s in receiver.spans if s["route"] == "/hello"]
            if len(hello) >= N:
                break
            time.sleep(0.2)
    assert len(hello) == N
    assert {s["name"] for s in hello} == {"GET /hello"}
    assert {s["service"] for s in hello} == {"hello"}
    assert len({s["pid"] for s in hello}) == 2
    assert [s["trace_id"] for s in hello].count(TRACE_ID) == 1
