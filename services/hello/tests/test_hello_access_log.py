"""The access log as the recipes run it (ACCESS_LOG_FLUSH_S=1, the default): each worker
writes its lines together within about a second, every request once, and the lines still
waiting when the server stops are written then."""

from __future__ import annotations

import json
import time

import httpx
import pytest

from servelab.stack import Stack

pytestmark = pytest.mark.stack

REQUESTS = 20


class Lines:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def write(self, text: str) -> None:
        self.lines.extend(text.splitlines())

    def flush(self) -> None:
        pass

    def request_ids(self) -> list[str]:
        """The request ids of the access lines for GET /hello (not the readiness probes)."""
        found = []
        for line in self.lines:
            _, _, rest = line.partition(" | ")
            if rest.startswith("{"):
                document = json.loads(rest)
                if document.get("logger") == "access" and document.get("path") == "/hello":
                    found.append(str(document["request_id"]))
        return found


def test_lines_come_within_the_flush_interval_and_none_is_lost_at_stop() -> None:
    log = Lines()
    env = {"ACCESS_LOG": "1", "ACCESS_LOG_FLUSH_S": "1", "WEB_CONCURRENCY": "2"}
    with (
        Stack("uvicorn", only=["hello-uvicorn"], env=env, log=log) as stack,
        httpx.Client(base_url=stack.url("hello-uvicorn"), timeout=10) as client,
    ):
        sent = [
            client.get("/hello", headers={"X-Request-ID": f"r-{n}"}).headers["x-request-id"]
            for n in range(REQUESTS)
        ]
        deadline = time.monotonic() + 5
        while len(log.request_ids()) < REQUESTS and time.monotonic() < deadline:
            time.sleep(0.1)
        assert sorted(log.request_ids()) == sorted(sent)
        late = client.get("/hello", headers={"X-Request-ID": "r-late"})
        assert late.status_code == 200
    assert sorted(log.request_ids()) == sorted([*sent, "r-late"])
