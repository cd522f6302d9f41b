"""The access log as the recipes run it (ACCESS_LOG_FLUSH_S=1, the default): each worker
writes its lines together within about a second, every request once, and the lines still
waiting when the server stops are written then."""

from __future__ import annotations

import time

import httpx2
import pytest

from servelab.stack import Stack
from servelab.testing import LogLines

pytestmark = pytest.mark.stack

REQUESTS = 20


def request_ids(log: LogLines) -> list[str]:
    """The request ids of hello-uvicorn's access lines for GET /hello (not the probes)."""
    return [
        str(line["request_id"])
        for line in log.json_of("hello-uvicorn")
        if line.get("logger") == "access" and line.get("path") == "/hello"
    ]


def test_lines_come_within_the_flush_interval_and_none_is_lost_at_stop() -> None:
    log = LogLines()
    env = {"ACCESS_LOG": "1", "ACCESS_LOG_FLUSH_S": "1", "WEB_CONCURRENCY": "2"}
    with (
        Stack("uvicorn", only=["hello-uvicorn"], env=env, log=log) as stack,
        httpx2.Client(base_url=stack.url("hello-uvicorn"), timeout=10) as client,
    ):
        sent = [
            client.get("/hello", headers={"X-Request-ID": f"r-{n}"}).headers["x-request-id"]
            for n in range(REQUESTS)
        ]
        deadline = time.monotonic() + 5
        while len(request_ids(log)) < REQUESTS and time.monotonic() < deadline:
            time.sleep(0.1)
        assert sorted(request_ids(log)) == sorted(sent)
        late = client.get("/hello", headers={"X-Request-ID": "r-late"})
        assert late.status_code == 200
    assert sorted(request_ids(log)) == sorted([*sent, "r-late"])
