"""compose.yaml under a real Docker engine, as the README tells users to run it: every image
but the GPU one built by `docker compose build`; every profile but gpu (uvicorn, gunicorn,
nginx, uwsgi, granian, tornado, reference, replicas) up with `docker compose up --wait` on the
stand-in base images; the smoke checks the
local runner's tests make, a k6 run with no failed request, a clean stop of a draining
gunicorn, and a `down -v` that leaves nothing behind.

Three settings differ from a user's defaults, each through a variable compose.yaml reads:
BUILD_NETWORK=host (the private engine's containers have no route out, and builds download),
NOFILE_LIMIT=20000 (root here may not raise a container's open files to 65536) and
PUBLISH_ADDRESS, a loopback address of the test's own (below)."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2
import pytest
import yaml

from hello_service.body import BODY, CONTENT_TYPE
from servelab.containers.compose import ComposeFailed, ComposeProject
from servelab.containers.engine import Engine
from servelab.project import Project
from servelab.stack.compose import compose_binary, load_project

# Every profile but gpu (no GPU here). files-uvicorn, files-gunicorn and files-granian all
# publish port 8000, so each of their profiles is in a project of its own, on an address of
# its own; the profiles whose ports do not collide share one `up`. The replicas (two of each
# server, health-code's loading their models) come up on their own, after the others, so
# that fewer servers start at once on two cores.
STACKS = {
    "servers": ("gunicorn", "uwsgi", "nginx"),
    "uvicorn": ("uvicorn",),
    "others": ("granian", "tornado", "reference"),
    "replicas": ("replicas",),
}
# Loopback addresses of the test's own: a developer's server on 127.0.0.1:8000 (or another
# test's) cannot take a port the containers publish. Linux answers on all of 127.0.0.0/8.
ADDRESSES = {
    "servers": "127.0.91.1",
    "uvicorn": "127.0.91.2",
    "others": "127.0.91.3",
    "replicas": "127.0.91.4",
}
CORPUS_LIMIT = 300
WAIT = 1.0
# Every variable is one compose.yaml reads (.env.example lists them).
API_TOKEN = "servelab-container-tests"  # noqa: S105  (a test token)
AUTHORIZATION = {"Authorization": f"Bearer {API_TOKEN}"}
ENV = {
    "BUILD_NETWORK": "host",
    # The bearer token the files service's and the entry editor's writes need.
    "API_TOKEN": API_TOKEN,
    "NOFILE_LIMIT": "20000",
    # The entry editor answers the Host names it knows: its defaults and the test's addresses.
    "ALLOWED_HOSTS": ",".join(["localhost", "127.0.0.1", "[::1]", *ADDRESSES.values()]),
    "CORPUS_LIMIT": str(CORPUS_LIMIT),
    "WAITING_TIME": str(WAIT),
    # One process per server and two threads: some 25 containers share two cores here.
    "WEB_CONCURRENCY": "1",
    "WEB_THREADS": "2",
}
UP_WAIT_S = 420  # health-code loads its models; compute trains on the corpus first
PAYLOAD = os.urandom(300_000 + 7)
DATA = Project.find(Path(__file__).parent).root / "loadtests" / "data"

containers = pytest.mark.containers
bounded = pytest.mark.timeout(1800)


def say(config: pytest.Config, line: str) -> None:
    """A line in pytest's terminal output even while output is captured: the lane's timings."""
    capture = config.pluginmanager.get_plugin("capturemanager")
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if capture is None or reporter is None:
        print(f"containers: {line}", file=sys.stderr)
        return
    with capture.global_and_fixture_disabled():
        reporter.write_line(f"containers: {line}")


@dataclass(frozen=True)
class Stacks:
    """The running projects, and where each service's published port answers."""

    projects: dict[str, ComposeProject]
    urls: dict[str, str]
    grace_periods: dict[str, float]

    def url(self, service: str) -> str:
        return self.urls[service]


def _project(engine: Engine, root: Path, stack: str) -> ComposeProject:
    name = f"servelab-test-{os.getpid()}" + ("" if stack == "servers" else f"-{stack}")
    return ComposeProject(engine, name, root, {**ENV, "PUBLISH_ADDRESS": ADDRESSES[stack]})


@pytest.fixture(scope="session")
def built_images(
    docker_engine: Engine, base_images: object, project_root: Path, pytestconfig: pytest.Config
) -> Engine:
    """Every image the profiles build, built once for the session (Docker's layer cache
    makes a rebuild with no change a matter of seconds)."""
    builder = _project(docker_engine, project_root, "servers")
    profiles = [profile for stack in STACKS.values() for profile in stack]
    seconds = builder.build(profiles)
    say(pytestconfig, f"docker compose build ({', '.join(profiles)}): {seconds:.1f} s")
    return docker_engine


# Module scope: some 25 containers, their healthchecks running every second or two, must not
# idle through the rest of the suite.
@pytest.fixture(scope="module")
def stacks(
    built_images: Engine, project_root: Path, pytestconfig: pytest.Config
) -> Iterator[Stacks]:
    """Both projects up and healthy; afterwards `down -v`, and nothing of them left."""
    projects = {stack: _project(built_images, project_root, stack) for stack in STACKS}
    try:
        urls, grace_periods = {}, {}
        for stack, project in projects.items():
            seconds = project.up(STACKS[stack], wait=UP_WAIT_S)
            say(pytestconfig, f"up --wait {' '.join(STACKS[stack])}: {seconds:.1f} s")
            # The published ports as the local runner reads them from compose.yaml.
            for name, service in load_project(
                Project(project_root), STACKS[stack], project.env
            ).services.items():
                if service.published_port is not None:
                    urls[name] = f"http://{ADDRESSES[stack]}:{service.published_port}"
                grace_periods[name] = service.stop_grace_period
        yield Stacks(projects, urls, grace_periods)
    finally:
        started = time.monotonic()
        failed = []
        for project in projects.values():  # each, even when another one's down fails
            try:
                project.down()
            except ComposeFailed as error:
                failed.append(str(error))
        say(pytestconfig, f"down -v: {time.monotonic() - started:.1f} s")
        assert failed == []
        left = {project.name: project.leftovers() for project in projects.values()}
        assert left == {name: {} for name in left}, f"down -v left {left}"


# --- compose.yaml's variables, without an engine ------------------------------------------


def _config(project_root: Path, profiles: list[str], env: dict[str, str]) -> dict[str, Any]:
    argv = [compose_binary(), "-f", str(project_root / "compose.yaml")]
    for profile in profiles:
        argv += ["--profile", profile]
    result = subprocess.run(
        [*argv, "config"], cwd=project_root, env={**os.environ, **env},
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    document: dict[str, Any] = yaml.safe_load(result.stdout)
    return document


PROFILES = [
    "uvicorn", "gunicorn", "granian", "nginx", "uwsgi", "tornado", "reference", "replicas", "gpu"
]  # fmt: skip


@pytest.mark.parametrize("profile", PROFILES)
def test_every_profile_publishes_on_loopback_unless_told_otherwise(
    project_root: Path, profile: str
) -> None:
    services = _config(project_root, [profile], {})["services"]
    ports = [port for service in services.values() for port in service.get("ports", [])]
    assert ports, profile
    assert {port["host_ip"] for port in ports} == {"127.0.0.1"}
    limits = [s["ulimits"]["nofile"] for s in services.values() if "ulimits" in s]
    assert all(limit == {"soft": 65536, "hard": 65536} for limit in limits)

    told = _config(project_root, [profile], {**ENV, "PUBLISH_ADDRESS": "0.0.0.0"})["services"]
    assert {p["host_ip"] for s in told.values() for p in s.get("ports", [])} == {"0.0.0.0"}
    for service in told.values():
        if "ulimits" in service:
            assert service["ulimits"]["nofile"] == {"soft": 20000, "hard": 20000}
        if "build" in service:
            assert service["build"]["network"] == "host"


# --- under the engine ---------------------------------------------------------------------


@containers
@bounded
@pytest.mark.parametrize(
    "service", ["files-gunicorn", "files-uvicorn", "files-granian", "files-nginx"]
)
def test_a_file_comes_back_byte_for_byte(stacks: Stacks, service: str) -> None:
    with httpx2.Client(base_url=stacks.url(service), timeout=30, headers=AUTHORIZATION) as client:
        stored = client.post(
            "/files", content=PAYLOAD, params={"filename": "report.bin"},
            headers={"content-type": "application/octet-stream"},
        )  # fmt: skip
        assert stored.status_code == 201, stored.text
        meta = stored.json()
        assert meta["size"] == len(PAYLOAD)
        assert meta["sha256"] == hashlib.sha256(PAYLOAD).hexdigest()
        download = client.get(stored.headers["location"])
        assert download.status_code == 200
        assert download.content == PAYLOAD


HELLO = [
    "hello-gunicorn-sync",
    "hello-gunicorn-gthread",
    "hello-gunicorn-gevent",
    "hello-gunicorn-uvicorn",
    "hello-uvicorn",
    "hello-uwsgi-http",
    "hello-uwsgi-nginx",
    "hello-granian",
    "hello-granian-wsgi",
    "hello-tornado",
    "hello-tornado-multi",
    # The limit rows: no framework, and nginx answering the bytes itself.
    "hello-empty-asgi",
    "hello-empty-wsgi",
    "hello-reference-nginx",
]


@containers
@bounded
@pytest.mark.parametrize("service", HELLO)
def test_hello_answers_the_write_ups_bytes(stacks: Stacks, service: str) -> None:
    with httpx2.Client(base_url=stacks.url(service), timeout=30) as client:
        for _ in range(2):  # the second one over the kept-alive connection, if any
            answer = client.get("/hello")
            assert answer.status_code == 200
            assert answer.headers["content-type"] == CONTENT_TYPE
            assert answer.content == BODY


@containers
@bounded
def test_the_reference_nginx_sends_a_payload_file_byte_for_byte(stacks: Stacks) -> None:
    """The files limit row's download side: nginx sending a file of the payload volume with
    sendfile; and its upload side, nginx storing a body in a temporary file of its own
    (where the image's unprivileged worker may write)."""
    lines = 50_000
    stacks.projects["others"].run(
        "exec", "-T", "reference-nginx", "sh", "-c", f"seq 1 {lines} > /payload/smoke.txt",
        profiles=STACKS["others"],
    )  # fmt: skip
    with httpx2.Client(base_url=stacks.url("reference-nginx"), timeout=30) as client:
        sent = client.get("/payload/smoke.txt")
        stored = client.post("/ingest", content=sent.content)
    assert sent.status_code == 200
    assert sent.content == "".join(f"{n}\n" for n in range(1, lines + 1)).encode()
    assert stored.status_code == 200, stored.text
    assert stored.json() == {"stored": True}


@containers
@bounded
@pytest.mark.parametrize(
    "service", ["files-empty-uvicorn", "files-empty-gunicorn", "files-empty-granian"]
)
def test_the_empty_files_apps_answer_200(stacks: Stacks, service: str) -> None:
    with httpx2.Client(base_url=stacks.url(service), timeout=30) as client:
        assert client.post("/", content=b"x" * 262144).status_code == 200
        assert client.get("/").status_code == 200


@containers
@bounded
@pytest.mark.parametrize("service", ["wait-gunicorn", "wait-uvicorn"])
def test_sync_and_async_waits(stacks: Stacks, service: str) -> None:
    for path in ("/sync", "/async"):
        answer = httpx2.get(stacks.url(service) + path, timeout=30)
        assert answer.status_code == 200, answer.text
        assert list(answer.json()) == ["wait"]
        assert answer.json()["wait"] >= 0.95 * WAIT


@containers
@bounded
@pytest.mark.parametrize("service", ["health-code-gunicorn", "health-code-uvicorn"])
def test_health_code_reads_the_screenshot(stacks: Stacks, service: str) -> None:
    answer = httpx2.post(
        stacks.url(service) + "/analysis/health-code",
        content=(DATA / "health-code.jpg").read_bytes(),
        headers={"content-type": "image/jpeg"},
        timeout=120,
    )
    assert answer.status_code == 200, answer.text
    assert answer.json() == json.loads((DATA / "health-code.answer.json").read_text())


@containers
@bounded
@pytest.mark.parametrize("service", ["entryeditor-nginx", "entryeditor-gunicorn-nginx"])
def test_the_entry_editor_lists_executes_and_finds_neighbours_through_nginx(
    stacks: Stacks, service: str
) -> None:
    with httpx2.Client(base_url=stacks.url(service), timeout=60, headers=AUTHORIZATION) as client:
        entries = client.get("/entryeditor/entryeditor/")
        assert entries.status_code == 200, entries.text
        assert entries.json()["count"] >= 51
        executed = client.post(
            "/entryeditor/entryeditor/47/execute/", json={"command": "freq(pattern=水)"}
        )
        assert executed.status_code == 200, executed.text
        neighbours = _retrying(lambda: client.get("/corpus/sentence/100/neighbors/?k=5"))
        assert neighbours.status_code == 200, neighbours.text
        assert len(neighbours.json()["neighbors"]) == 5
        # The corpus is the first CORPUS_LIMIT sentences, loaded by entryeditor-init.
        assert client.get(f"/corpus/sentence/{CORPUS_LIMIT + 1}").status_code == 404


def _retrying(send: Callable[[], httpx2.Response], tries: int = 5) -> httpx2.Response:
    """The answer, after waiting out up to `tries` 503s as their Retry-After says, as a
    client must: the compute service's first call after a start (its index warming up)
    can outlast the entry editor's 0.7 s COMPUTE_TIMEOUT on a slow machine."""
    answer = send()
    for _ in range(tries - 1):
        if answer.status_code != 503:
            break
        time.sleep(float(answer.headers.get("retry-after", "1")))
        answer = send()
    return answer


def _served_connections(project: ComposeProject, service: str, replica: int) -> int:
    """Connections from another container that one replica's server (port 8000) holds."""
    tcp = project.run("exec", "--index", str(replica), service, "cat", "/proc/net/tcp").stdout
    count = 0
    for line in tcp.splitlines()[1:]:
        local, remote, state = line.split()[1:4]
        from_loopback = remote.split(":")[0] == "0100007F"
        if state == "01" and int(local.split(":")[1], 16) == 8000 and not from_loopback:
            count += 1
    return count


@containers
@bounded
@pytest.mark.parametrize("front", ["files-replicas", "hello-replicas", "health-code-replicas"])
def test_the_replicas_nginx_spreads_requests_over_both_replicas(stacks: Stacks, front: str) -> None:
    """nginx resolves the replicas' service name to both containers' addresses: after a few
    requests over one connection, each replica holds a kept-alive connection from nginx."""
    with httpx2.Client(base_url=stacks.url(front), timeout=30) as client:
        for _ in range(6):
            assert client.get("/readyz").status_code == 200
    project = stacks.projects["replicas"]
    replica = front.removesuffix("s")
    served = [_served_connections(project, replica, index) for index in (1, 2)]
    assert all(count >= 1 for count in served), served


@containers
@bounded
def test_k6_against_the_containers_fails_no_request(
    stacks: Stacks, k6_smoke: Callable[..., Any]
) -> None:
    env = {"BASE_URL": stacks.url("hello-gunicorn-sync"), "CHECK_BODY": "1"}
    k6_smoke("hello.js", env).assert_clean()


@containers
@bounded
def test_stop_lets_a_draining_gunicorn_worker_finish(stacks: Stacks) -> None:
    """`docker compose stop` of a gunicorn service while a request is in flight: the request
    is answered, the container exits 0 (not 137: no SIGKILL) within the grace period."""
    project = stacks.projects["servers"]
    service = "wait-flask"  # one sync worker: the in-flight request holds it
    drain = 3.0
    project.up(STACKS["servers"], [service], env={"WAITING_TIME": str(drain)}, wait=120)
    answers: list[httpx2.Response] = []
    request = threading.Thread(
        target=lambda: answers.append(httpx2.get(stacks.url(service) + "/wait", timeout=30))
    )
    request.start()
    time.sleep(1.0)  # the worker holds the request for `drain` seconds
    started = time.monotonic()
    project.run("stop", service, timeout=60)
    stopped_in = time.monotonic() - started
    request.join(30)

    assert answers and answers[0].status_code == 200, answers
    assert answers[0].json()["wait"] >= 0.95 * drain
    assert project.exit_code(service) == 0
    logs = project.logs(service)
    assert "Handling signal: term" in logs
    assert "Shutting down: Master" in logs
    assert "SIGKILL" not in logs, logs
    grace = stacks.grace_periods[service]
    assert stopped_in < grace, f"stop took {stopped_in:.1f} s, the grace period is {grace} s"


@containers
@bounded
def test_a_service_that_never_gets_healthy_fails_the_start_with_its_log(
    base_images: object, docker_engine: Engine, tmp_path: Path
) -> None:
    (tmp_path / "compose.yaml").write_text(
        "services:\n"
        "  sick:\n"
        "    image: redis:7\n"
        "    command: [sh, -c, 'echo missing-setting; exec sleep 600']\n"
        "    healthcheck: {test: [CMD, 'false'], interval: 1s, retries: 2}\n"
    )
    project = ComposeProject(docker_engine, f"servelab-test-{os.getpid()}-sick", tmp_path)
    try:
        started = time.monotonic()
        with pytest.raises(ComposeFailed) as failure:
            project.up([], wait=20)
        assert time.monotonic() - started < 60
        assert "sick: Up" in str(failure.value)
        assert "missing-setting" in str(failure.value)
    finally:
        project.down()
    assert project.leftovers() == {}
