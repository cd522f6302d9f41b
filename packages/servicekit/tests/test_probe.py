"""`python -m servicekit.probe`: exit 0 on a 200 from the path asked, 1 otherwise, 2 on misuse."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from servicekit.probe import check


class _Paths(BaseHTTPRequestHandler):
    """200 on /readyz, 503 on /healthz (a process alive but not ready would be the
    other way round: here each path's answer just tells which one was asked)."""

    def do_GET(self) -> None:
        status = {"/readyz": 200, "/healthz": 503}.get(self.path, 404)
        self.send_response(status)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def port() -> Iterator[int]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Paths)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


def probe(*args: str) -> int:
    command = [sys.executable, "-m", "servicekit.probe", *args]
    return subprocess.run(command, check=False, capture_output=True).returncode


def test_readyz_is_the_default_path(port: int) -> None:
    assert probe(str(port)) == 0
    assert check(port)


def test_the_path_is_an_argument(port: int) -> None:
    assert probe(str(port), "--path", "/readyz") == 0
    assert probe(str(port), "--path", "/healthz") == 1
    assert probe(str(port), "--path", "/nope") == 1


def test_no_server_is_a_failure() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        free = sock.getsockname()[1]
    assert probe(str(free)) == 1


def test_a_server_that_never_answers_fails_within_the_timeout() -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()  # accepts connections into the queue, never answers
        assert not check(listener.getsockname()[1], timeout=0.2)


@pytest.mark.parametrize("args", [[], ["eighty"], ["80", "--path", "readyz"]])
def test_a_bad_command_line_exits_2(args: list[str]) -> None:
    assert probe(*args) == 2
