"""Stack.kill and Stack.restart: a crash of one service and its return on the same port."""

from __future__ import annotations

import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path

import pytest

from servelab.project import Project
from servelab.stack import Stack, StackError
from servelab.stack.groups import members

# Every test here runs the local runner.
pytestmark = pytest.mark.stack

SERVER = """\
import http.server, os, subprocess, sys

child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])

class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.end_headers()
        self.wfile.write(str(os.getpid()).encode())

    def log_message(self, *args):
        pass

http.server.HTTPServer(("127.0.0.1", int(os.environ["PORT"])), Handler).serve_forever()
"""


@pytest.fixture
def web(compose_dir: Callable[[str], Path]) -> Path:
    directory = compose_dir(
        """
        services:
          web:
            build: .
            command: ["python", "server.py"]
            environment:
              PORT: "8000"
            healthcheck:
              test: ["CMD-SHELL", "curl -fsS http://127.0.0.1:$${PORT}/"]
              interval: 1s
              retries: 10
            x-local:
              port: PORT
        """
    )
    (directory / "server.py").write_text(SERVER)
    return directory


def answer(url: str) -> str:
    return urllib.request.urlopen(url, timeout=5).read().decode()  # noqa: S310


def test_kill_and_restart_a_service_on_its_port(web: Path) -> None:
    with Stack("web", project=Project(web), log=None) as stack:
        url = stack.url("web")
        first = answer(url)
        killed = stack.running["web"].pgid
        stack.kill("web")
        # The whole group is gone at once (the server's child too), and nothing answers.
        assert members(killed) == []
        with pytest.raises(urllib.error.URLError):
            answer(url)
        stack.restart("web")
        assert stack.url("web") == url
        assert answer(url) != first
        restarted = stack.running["web"].pgid
        with pytest.raises(StackError, match="still running"):
            stack.restart("web")
    assert members(restarted) == []


def test_only_the_stack_s_own_services(web: Path) -> None:
    with (
        Stack("web", project=Project(web), log=None) as stack,
        pytest.raises(StackError, match="not a process of this stack"),
    ):
        stack.kill("db")


SCRATCH_SERVER = """\
import http.server, os
from pathlib import Path

scratch = Path(os.environ["SCRATCH"])
(scratch / str(os.getpid())).touch()

class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.end_headers()
        self.wfile.write(" ".join(sorted(p.name for p in scratch.iterdir())).encode())

    def log_message(self, *args):
        pass

http.server.HTTPServer(("127.0.0.1", int(os.environ["PORT"])), Handler).serve_forever()
"""


def test_a_tmp_placeholder_is_an_empty_directory_on_every_start(
    compose_dir: Callable[[str], Path],
) -> None:
    """{tmp:NAME} stands for a path on the container's tmpfs: empty on each (re)start, as
    PROMETHEUS_MULTIPROC_DIR must be."""
    directory = compose_dir(
        """
        services:
          web:
            build: .
            command: ["python", "server.py"]
            tmpfs: [/tmp]
            environment:
              PORT: "8000"
              SCRATCH: /tmp/scratch
            healthcheck:
              test: ["CMD-SHELL", "curl -fsS http://127.0.0.1:$${PORT}/"]
              interval: 1s
              retries: 10
            x-local:
              port: PORT
              environment:
                SCRATCH: "{tmp:scratch}"
        """
    )
    (directory / "server.py").write_text(SCRATCH_SERVER)
    with Stack("web", project=Project(directory), log=None) as stack:
        url = stack.url("web")
        assert stack.running["web"].env["SCRATCH"] == str(stack.tmp("web", "scratch"))
        first = answer(url)
        assert first == str(stack.running["web"].process.pid)
        stack.kill("web")
        stack.restart("web")
        second = answer(url)
        assert second == str(stack.running["web"].process.pid)
        assert second != first
