"""Every hello variant in compose.yaml, run as compose runs it: the write-up's exact bytes,
the listen queue its recipe sets, and a clean stop."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path

import httpx2
import pytest

from hello_service.body import BODY, CONTENT_TYPE
from servelab.project import Project
from servelab.reliability.fuzz.raw import head_then_get
from servelab.stack import Stack
from servelab.stack.compose import load_project

Serve = Callable[..., AbstractContextManager[Stack]]

# (profile, service, app): "fastapi" and "flask" answer the probes and unknown paths (a
# JSON 404); "bare" (no framework, or nginx itself) is measured on /hello only.
VARIANTS = [
    ("gunicorn", "hello-gunicorn-sync", "flask"),
    ("gunicorn", "hello-gunicorn-gthread", "flask"),
    ("gunicorn", "hello-gunicorn-gevent", "flask"),
    ("gunicorn", "hello-gunicorn-uvicorn", "fastapi"),
    ("uvicorn", "hello-uvicorn", "fastapi"),
    ("granian", "hello-granian", "fastapi"),
    ("granian", "hello-granian-wsgi", "flask"),
    ("uwsgi", "hello-uwsgi-http", "flask"),
    ("uwsgi", "hello-uwsgi-nginx", "flask"),
    ("tornado", "hello-tornado", "flask"),
    ("tornado", "hello-tornado-multi", "flask"),
    ("reference", "hello-empty-asgi", "bare"),
    ("reference", "hello-empty-wsgi", "bare"),
    ("reference", "hello-reference-nginx", "bare"),
]
# Not the compose defaults of any server (uWSGI 100, Tornado 128, nginx 511, granian 1024,
# gunicorn and uvicorn 2048), so a listen queue of this size comes from our recipe.
BACKLOG = 1000
SS = shutil.which("ss")


def listen_queues(*filters: str) -> list[int]:
    """The listen queue sizes of the listening sockets that `ss` selects."""
    assert SS is not None
    out = subprocess.run([SS, "-Hl", *filters], capture_output=True, text=True, check=True)
    queues = []
    for line in out.stdout.splitlines():
        fields = line.split()  # [Netid] State Recv-Q Send-Q ...; Send-Q is the queue's size
        queues.append(int(fields[fields.index("LISTEN") + 2]))
    return queues


def test_every_hello_service_with_a_port_is_tested() -> None:
    profiles = {profile for profile, _, _ in VARIANTS}
    project = load_project(Project.find(Path(__file__)), profiles)
    served = {
        name
        for name, service in project.services.items()
        if name.startswith("hello-") and service.local.port_env
    }
    assert served == {service for _, service, _ in VARIANTS}


@pytest.mark.parametrize(("profile", "service", "app"), VARIANTS, ids=[v[1] for v in VARIANTS])
def test_variant_answers_the_write_up_bytes(
    serve: Serve, profile: str, service: str, app: str
) -> None:
    with serve(profile, service, {"BACKLOG": str(BACKLOG)}) as stack:
        url = stack.url(service)
        with httpx2.Client(base_url=url, timeout=10) as client:
            for _ in range(2):  # the second one over the kept-alive connection, if any
                response = client.get("/hello")
                assert response.status_code == 200
                assert response.headers["content-type"] == CONTENT_TYPE
                assert response.headers["content-length"] == str(len(BODY))
                assert response.content == BODY
            if app != "bare":
                assert client.get("/healthz").json() == {"status": "ok"}
                assert client.get("/readyz").json() == {"status": "ready"}
                missing = client.get("/nope")
                assert missing.status_code == 404
                assert missing.json() == {"error": {"code": "not_found", "message": "Not Found"}}
            if app == "fastapi":
                # HEAD as GET on every route, without a body: the next answer follows at once.
                for path in ("/hello", "/healthz", "/readyz"):
                    head, get = head_then_get(stack.port(service), path)
                    assert (head.status, get.status) == (200, 200), path
                    assert head.headers["content-length"] == get.headers["content-length"], path

        if SS is not None:
            tcp = listen_queues("-tn", f"sport = :{stack.port(service)}")
            assert tcp and set(tcp) == {BACKLOG}
            if "hello-uwsgi" in stack.running and service != "hello-uwsgi":
                socket = stack.volume("hello-uwsgi-socket") / "hello.sock"
                assert listen_queues("-x", f"src {socket}") == [BACKLOG]


def test_tornado_multi_forks_web_concurrency_processes(
    serve: Serve, processes_in_group: Callable[[int], list[int]]
) -> None:
    with serve("tornado", "hello-tornado-multi", {"WEB_CONCURRENCY": "3"}) as stack:
        assert httpx2.get(stack.url("hello-tornado-multi") + "/hello").content == BODY
        assert len(processes_in_group(stack.running["hello-tornado-multi"].pgid)) == 1 + 3


def test_the_reference_nginx_answers_its_own_errors_in_json(serve: Serve) -> None:
    with serve("reference", "hello-reference-nginx", {}) as stack:
        missing = httpx2.get(stack.url("hello-reference-nginx") + "/nope")
        assert missing.status_code == 404
        assert missing.headers["content-type"] == "application/json"
        assert missing.json() == {"error": {"code": "not_found", "message": "Not Found"}}
