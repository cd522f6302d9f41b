"""The local runner against throwaway compose projects: ports, env, health, cleanup."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

import pytest

from servelab.project import Project
from servelab.stack import Stack, StackError
from servelab.stack.compose import load_project
from servelab.stack.groups import members

# Every test here runs the local runner on a throwaway compose project.
pytestmark = pytest.mark.stack

SERVER = """\
import http.server, os, subprocess, sys

child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
print("server child", child.pid, flush=True)

class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = f"{os.environ.get('GREETING')} {os.environ.get('DATA')}".encode()
        self.send_response(200)
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass

http.server.HTTPServer(("127.0.0.1", int(os.environ["PORT"])), Handler).serve_forever()
"""


def wait_gone(pgid: int, timeout: float = 10.0) -> list[int]:
    deadline = time.monotonic() + timeout
    while (left := members(pgid)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


@pytest.fixture
def web_project(compose_dir: Callable[[str], Path]) -> Path:
    directory = compose_dir(
        """
        services:
          web:
            profiles: [web]
            build: .
            command: ["python", "server.py"]
            environment:
              PORT: "8000"
              GREETING: ${GREETING:-hello}
              DATA: /data
            volumes: [data:/data]
            healthcheck:
              test: ["CMD-SHELL", "curl -fsS http://127.0.0.1:$${PORT}/"]
              interval: 1s
              retries: 10
            x-local:
              port: PORT
              environment:
                DATA: "{volume:data}"
                SITE: "{project:site/dist}"
          proxy:
            profiles: [web]
            build: .
            command: ["python", "-c", "import time; time.sleep(600)"]
            depends_on:
              web: {condition: service_healthy}
            environment:
              UPSTREAM: web:8000
            healthcheck:
              test: ["CMD-SHELL", "curl -fsS http://$${UPSTREAM}/"]
              interval: 1s
              retries: 5
            x-local:
              environment:
                UPSTREAM: "127.0.0.1:{port:web}"
        volumes:
          data:
        """
    )
    (directory / "server.py").write_text(SERVER)
    return directory


def test_services_run_with_compose_env_local_overrides_and_a_loopback_port(
    web_project: Path,
) -> None:
    with Stack("web", env={"GREETING": "bonjour"}, project=Project(web_project), log=None) as stack:
        assert stack.url("web").startswith("http://127.0.0.1:")
        body = urllib.request.urlopen(stack.url("web"), timeout=5).read().decode()  # noqa: S310
        assert body == f"bonjour {stack.volume('data')}"
        assert stack.volume("data").is_dir()
        assert list(stack.running) == ["web", "proxy"]
        assert stack.running["proxy"].env["UPSTREAM"] == f"127.0.0.1:{stack.port('web')}"
        assert stack.running["web"].env["SITE"] == str(web_project / "site" / "dist")
        pgids = [running.pgid for running in stack.running.values()]
        assert len(members(pgids[0])) == 2
    for pgid in pgids:
        assert wait_gone(pgid, timeout=0) == []


def test_servers_find_packages_where_the_caller_does_and_get_nothing_else(
    web_project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A machine whose packages live outside the venv (a GPU host: wheels installed into
    a folder PYTHONPATH names) must start its servers all the same."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "greeting.py").write_text("WORD = 'from the site folder'\n")
    (web_project / "server.py").write_text(
        SERVER.replace("os.environ.get('GREETING')", "__import__('greeting').WORD")
    )
    monkeypatch.setenv("PYTHONPATH", str(site))
    monkeypatch.setenv("SERVELAB_CALLERS_OWN", "not for the servers")
    with Stack("web", only=["web"], project=Project(web_project), log=None) as stack:
        body = urllib.request.urlopen(stack.url("web"), timeout=5).read().decode()  # noqa: S310
        assert body.startswith("from the site folder ")
        assert "SERVELAB_CALLERS_OWN" not in stack.running["web"].env


def test_only_starts_a_service_with_its_dependencies(web_project: Path) -> None:
    with Stack("web", only=["web"], project=Project(web_project), log=None) as stack:
        assert list(stack.running) == ["web"]


def test_logs_are_prefixed_with_the_service_name(web_project: Path) -> None:
    class Lines(list[str]):
        def write(self, text: str) -> None:
            self.append(text)

        def flush(self) -> None:
            pass

    lines = Lines()
    with Stack("web", only=["web"], project=Project(web_project), log=lines):
        deadline = time.monotonic() + 5
        while not lines and time.monotonic() < deadline:
            time.sleep(0.05)
    assert any(line.startswith("web | server child ") for line in lines)


def test_a_service_that_ignores_sigterm_is_killed_after_its_grace_period(
    compose_dir: Callable[[str], Path],
) -> None:
    directory = compose_dir(
        """
        services:
          stubborn:
            build: .
            command: ["sh", "-c", "trap '' TERM; sleep 600 & sleep 600 & wait"]
            stop_grace_period: 1s
        """
    )
    stack = Stack([], project=Project(directory), log=None)
    with stack:
        pgid = stack.running["stubborn"].pgid
        time.sleep(0.3)
        assert len(members(pgid)) == 3
        started = time.monotonic()
    assert time.monotonic() - started >= 1.0
    assert wait_gone(pgid, timeout=0) == []


def test_unhealthy_service_fails_with_its_log_and_leaves_nothing(
    compose_dir: Callable[[str], Path],
) -> None:
    directory = compose_dir(
        """
        services:
          sick:
            build: .
            command: ["sh", "-c", "echo starting-up; exec sleep 600"]
            healthcheck:
              test: ["CMD", "false"]
              interval: 500ms
              retries: 2
        """
    )
    stack = Stack([], project=Project(directory), log=None)
    with pytest.raises(StackError, match="did not become healthy") as failure:
        stack.start()
    assert "starting-up" in str(failure.value)
    assert stack.running == {}


def test_a_service_that_exits_is_reported_with_its_status(
    compose_dir: Callable[[str], Path],
) -> None:
    directory = compose_dir(
        """
        services:
          crash:
            build: .
            command: ["sh", "-c", "echo missing-setting >&2; sleep 0.3; exit 3"]
            healthcheck:
              test: ["CMD", "false"]
              interval: 1s
              retries: 20
        """
    )
    with pytest.raises(StackError, match="exited with status 3") as failure:
        Stack([], project=Project(directory), log=None).start()
    assert "missing-setting" in str(failure.value)


def test_a_server_that_dies_while_the_next_starts_fails_the_start_at_once(
    compose_dir: Callable[[str], Path],
) -> None:
    # As an app server that cannot bind its second address: healthy (its socket exists), then
    # gone, while nginx in front answers 502 to its own healthcheck.
    directory = compose_dir(
        """
        services:
          app:
            build: .
            command: ["sh", "-c", "sleep 2; echo cannot-bind >&2; exit 1"]
          front:
            build: .
            command: ["sleep", "600"]
            depends_on:
              app: {condition: service_started}
            healthcheck:
              test: ["CMD", "false"]
              interval: 500ms
              retries: 60
              start_period: 60s
        """
    )
    stack = Stack([], project=Project(directory), log=None)
    started = time.monotonic()
    with pytest.raises(StackError, match="app exited with status 1") as failure:
        stack.start()
    assert time.monotonic() - started < 10
    assert "cannot-bind" in str(failure.value)
    assert stack.running == {}


def test_unknown_service_is_a_clear_error(web_project: Path) -> None:
    with pytest.raises(StackError, match="not in the selected profile"):
        Stack("web", only=["nope"], project=Project(web_project), log=None).start()


def _start_cli(directory: Path) -> tuple[subprocess.Popen[str], list[int]]:
    """`servelab up` in `directory`; returns once it says the stack is up, with the pgids."""
    process = subprocess.Popen(
        [sys.executable, "-m", "servelab.cli", "up", "--profile", "web", "--any-port"],
        cwd=directory,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stderr is not None
    for line in process.stderr:
        if "Ctrl-C" in line:
            break
    sessions = list((directory / ".servelab" / "sessions").glob("*.json"))
    assert len(sessions) == 1
    record = json.loads(sessions[0].read_text())
    return process, [leader for leader, _ in record["groups"].values()]


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_cli_up_stops_everything_on_ctrl_c_or_sigterm(web_project: Path, signum: int) -> None:
    process, pgids = _start_cli(web_project)
    process.send_signal(signum)
    assert process.wait(timeout=20) == 0
    for pgid in pgids:
        assert wait_gone(pgid) == []
    assert not list((web_project / ".servelab" / "sessions").glob("*.json"))


def test_cli_down_stops_a_running_up(web_project: Path) -> None:
    process, pgids = _start_cli(web_project)
    down = subprocess.run(
        [sys.executable, "-m", "servelab.cli", "down"],
        cwd=web_project,
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    assert "stopped web" in down.stdout
    assert process.wait(timeout=20) == 0
    for pgid in pgids:
        assert wait_gone(pgid) == []


def test_services_die_with_a_killed_runner(web_project: Path) -> None:
    process, pgids = _start_cli(web_project)
    os.kill(process.pid, signal.SIGKILL)
    process.wait(timeout=5)
    for pgid in pgids:
        assert wait_gone(pgid) == []


def test_each_stack_has_a_bearer_token_its_write_services_get(
    project_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/security.md: a random token per stack unless one is given, in the compose
    environment of the services whose writes need it."""
    monkeypatch.delenv("API_TOKEN", raising=False)
    first, second = Stack("uvicorn"), Stack("uvicorn")
    assert len(first.api_token) >= 32
    assert first.api_token != second.api_token
    given, from_environment = "given", "from-the-environment"
    assert Stack("uvicorn", env={"API_TOKEN": given}).api_token == given
    monkeypatch.setenv("API_TOKEN", from_environment)
    assert Stack("uvicorn").api_token == from_environment
    services = load_project(Project(project_root), ["uvicorn", "uwsgi"], first.env).services
    assert services["files-uvicorn"].environment["API_TOKEN"] == first.api_token
    assert services["entryeditor-uwsgi"].environment["API_TOKEN"] == first.api_token
