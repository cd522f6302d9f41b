"""A service with `deploy.replicas` runs that many processes, each on its own port, and an
nginx in front spreads requests over every one of them, as under Docker."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import httpx2
import pytest

from servelab.project import Project
from servelab.stack import Stack
from servelab.stack.groups import members

pytestmark = pytest.mark.stack

# Answers its own pid: which replica served the request.
SERVER = """\
import http.server, os

class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        body = str(os.getpid()).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass

http.server.ThreadingHTTPServer(("127.0.0.1", int(os.environ["PORT"])), Handler).serve_forever()
"""

TEMPLATE = """\
upstream web {
    server ${UPSTREAM};
    keepalive 8;
}

server {
    listen ${NGINX_PORT};

    location / {
        proxy_pass http://web;
        proxy_http_version 1.1;
        proxy_set_header Connection "";
    }
}
"""


@pytest.fixture
def replicas_project(compose_dir: Callable[[str], Path]) -> Path:
    directory = compose_dir(
        """
        services:
          web:
            build: .
            command: ["python", "server.py"]
            environment:
              PORT: "8000"
            deploy:
              replicas: ${REPLICAS:-2}
            healthcheck:
              test: ["CMD-SHELL", "curl -fsS http://127.0.0.1:$${PORT}/"]
              interval: 1s
              retries: 10
            x-local:
              port: PORT
          front:
            image: nginx:1.27
            depends_on:
              web: {condition: service_healthy}
            environment:
              NGINX_PORT: "8080"
              UPSTREAM: web:8000
            volumes:
              - ./front.conf.template:/etc/nginx/templates/default.conf.template:ro
            # Without one, the stack is up once nginx has started, not once it listens.
            healthcheck:
              test: ["CMD-SHELL", "curl -fsS http://127.0.0.1:$${NGINX_PORT}/"]
              interval: 1s
              retries: 10
            x-local:
              port: NGINX_PORT
              environment:
                UPSTREAM: "127.0.0.1:{port:web}"
        """
    )
    (directory / "server.py").write_text(SERVER)
    (directory / "front.conf.template").write_text(TEMPLATE)
    return directory


def served_by(url: str, requests: int) -> set[str]:
    """The pids that answered `requests` requests over one kept-alive connection."""
    with httpx2.Client(base_url=url, timeout=5) as client:
        return {client.get("/").raise_for_status().text for _ in range(requests)}


def test_each_replica_runs_on_its_own_port_and_nginx_spreads_requests_over_all(
    replicas_project: Path,
) -> None:
    with Stack([], env={"REPLICAS": "3"}, project=Project(replicas_project), log=None) as stack:
        assert list(stack.running) == ["web-1", "web-2", "web-3", "front"]
        ports = stack.replica_ports("web")
        assert len(set(ports)) == 3
        assert stack.port("web") == ports[0]
        conf = (stack.run_dir / "nginx-front" / "conf.d" / "default.conf").read_text()
        assert [line.strip() for line in conf.splitlines() if "server 127" in line] == [
            f"server 127.0.0.1:{port};" for port in ports
        ]
        replicas = {str(stack.running[f"web-{n}"].pgid) for n in (1, 2, 3)}
        assert served_by(stack.url("front"), requests=12) == replicas
        pgids = [running.pgid for running in stack.running.values()]
    assert all(members(pgid) == [] for pgid in pgids)


def test_one_replica_is_the_service_itself(replicas_project: Path) -> None:
    with Stack([], env={"REPLICAS": "1"}, project=Project(replicas_project), log=None) as stack:
        assert list(stack.running) == ["web", "front"]
        assert served_by(stack.url("front"), requests=4) == {str(stack.running["web"].pgid)}


def established_to(port: int) -> int:
    """Open TCP connections (IPv4) whose far end is the loopback `port`."""
    count = 0
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        remote, state = fields[2], fields[3]
        if state == "01" and int(remote.split(":")[1], 16) == port:
            count += 1
    return count


def test_the_hello_replicas_recipe_sends_requests_to_both_replicas() -> None:
    """compose's hello-replicas: nginx keeps its connections to each replica it used
    (upstream keepalive), so both replicas' ports have one open after a few requests."""
    with Stack("hello-replicas", env={"REPLICAS": "2"}, log=None) as stack:
        assert sorted(stack.running) == ["hello-replica-1", "hello-replica-2", "hello-replicas"]
        with httpx2.Client(base_url=stack.url("hello-replicas"), timeout=5) as client:
            for _ in range(10):
                assert client.get("/hello").status_code == 200
        assert all(established_to(port) >= 1 for port in stack.replica_ports("hello-replica"))
