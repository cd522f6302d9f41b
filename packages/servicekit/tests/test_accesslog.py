"""The access log writes its lines together, as nginx's buffer=/flush= does: none is lost
at exit, none waits longer than ACCESS_LOG_FLUSH_S, and a forked worker never writes its
parent's lines again."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import threading
import time

from servicekit.observe.accesslog import BUFFER_BYTES, HOLD_BYTES, AccessLog, format_line


def _line(n: int) -> str:
    return format_line(
        method="GET",
        route="/items/{id}",
        path=f"/items/{n}",
        status=200,
        seconds=0.0012345,
        size=12,
        request_id=f"r{n}",
        now=1795434002.123,
    )


def test_a_line_is_the_documented_json_shape() -> None:
    assert json.loads(_line(1)) == {
        "ts": "2026-11-23T11:40:02.123Z",
        "level": "info",
        "logger": "access",
        "method": "GET",
        "route": "/items/{id}",
        "path": "/items/1",
        "status": 200,
        "duration_ms": 1.234,
        "bytes": 12,
        "request_id": "r1",
    }


def test_lines_wait_together_and_are_written_within_the_flush_interval() -> None:
    stream = io.StringIO()
    log = AccessLog(0.2, stream)
    for n in range(3):
        log.write(_line(n))
    assert stream.getvalue() == ""
    deadline = time.monotonic() + 5
    while not stream.getvalue() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert [json.loads(x)["request_id"] for x in stream.getvalue().splitlines()] == [
        "r0",
        "r1",
        "r2",
    ]


def test_flush_s_zero_writes_each_line_at_once() -> None:
    stream = io.StringIO()
    AccessLog(0, stream).write(_line(7))
    assert json.loads(stream.getvalue())["request_id"] == "r7"


def test_lines_waiting_at_exit_are_written() -> None:
    program = (
        "from servicekit.observe.accesslog import access_log, format_line\n"
        "log = access_log(60)\n"
        "for n in range(500):\n"
        "    log.write(format_line(method='GET', route=None, path='/', status=200,"
        " seconds=0.0, size=0, request_id=str(n)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=60, check=True
    )
    assert [json.loads(x)["request_id"] for x in done.stderr.splitlines()] == [
        str(n) for n in range(500)
    ]


def test_a_forked_worker_writes_only_its_own_lines() -> None:
    read_end, write_end = os.pipe()
    with os.fdopen(write_end, "w") as stream:
        log = AccessLog(60, stream)
        log.write(_line(1))  # the parent's, still waiting
        child = os.fork()
        if child == 0:
            log.write(_line(2))
            log.flush()
            os._exit(0)
        os.waitpid(child, 0)
        log.flush()
    with os.fdopen(read_end) as written:
        assert sorted(json.loads(x)["request_id"] for x in written.read().splitlines()) == [
            "r1",
            "r2",
        ]


def test_strings_are_escaped_as_json_and_an_unmatched_route_is_null() -> None:
    line = format_line(
        method="GET",
        route=None,
        path='/a"b\\c\n\u00e9\x01',
        status=404,
        seconds=0.5,
        size=0,
        request_id="r",
        now=1795434002.0,
    )
    document = json.loads(line)
    assert document["path"] == '/a"b\\c\n\u00e9\x01'
    assert document["route"] is None
    assert document["ts"] == "2026-11-23T11:40:02.000Z"
    assert line.endswith("}\n")
    assert line.count("\n") == 1


class _ThreadRecordingStream(io.StringIO):
    """A stream that notes which thread wrote each piece."""

    def __init__(self) -> None:
        super().__init__()
        self.writers: list[str] = []

    def write(self, text: str) -> int:
        self.writers.append(threading.current_thread().name)
        return super().write(text)


def test_a_full_buffer_is_written_by_the_log_thread_not_the_request() -> None:
    stream = _ThreadRecordingStream()
    log = AccessLog(3600, stream)
    line = _line(1)
    for _ in range(BUFFER_BYTES // len(line) + 1):
        log.write(line)
    deadline = time.monotonic() + 5
    while not stream.writers and time.monotonic() < deadline:
        time.sleep(0.02)
    assert stream.writers == ["access-log"]


class _StuckForTheLogThread(_ThreadRecordingStream):
    """A pipe whose reader is behind, as the log thread finds it: its write waits."""

    def __init__(self) -> None:
        super().__init__()
        self.release = threading.Event()

    def write(self, text: str) -> int:
        if threading.current_thread().name == "access-log":
            self.release.wait(10)
        return super().write(text)


def test_a_request_writes_the_lines_itself_once_the_log_thread_is_that_far_behind() -> None:
    stream = _StuckForTheLogThread()
    log = AccessLog(3600, stream)
    line = _line(1)
    try:
        # The thread takes what waits once and is stuck with it: what follows gathers again.
        for _ in range(2 * HOLD_BYTES // len(line) + 2):
            log.write(line)
        assert threading.current_thread().name in stream.writers
    finally:
        stream.release.set()
