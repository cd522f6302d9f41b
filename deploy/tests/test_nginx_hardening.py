"""Every nginx server compose runs, as compose mounts and renders it, in front of an app that
is down: security headers on every answer (200, 404, 413, the app-down 503 that replaces
502), no version in Server, JSON 414/431 for oversized requests, JSON 429 past the write
limit (deploy/nginx/include/, docs/security.md); the entry editor's redirect to https of what
the TLS edge took over plain HTTP, and of nothing else; and the replicas' nginx keeps a
replica that refused connections in its rotation."""

from __future__ import annotations

import http.server
import re
import socket
import tempfile
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

import httpx2
import pytest

from servelab.project import Project
from servelab.stack import groups, nginx
from servelab.stack.compose import load_project
from servelab.stack.ports import LOOPBACK, free_port

pytestmark = pytest.mark.stack

# compose service -> a profile that has it
SERVERS = {
    "files-nginx": "nginx",
    "entryeditor-nginx": "uwsgi",
    "entryeditor-gunicorn-nginx": "gunicorn",
    "hello-uwsgi-nginx": "uwsgi",
    "reference-nginx": "reference",
    "hello-reference-nginx": "reference",
    "entryeditor-web": "entryeditor-web",
    "files-replicas": "replicas",
    "hello-replicas": "replicas",
    "health-code-replicas": "replicas",
}
# Those with an app behind them (the others are the benchmarks' physical limit).
PROXIES = [
    "files-nginx",
    "entryeditor-nginx",
    "entryeditor-gunicorn-nginx",
    "hello-uwsgi-nginx",
    "entryeditor-web",
    "files-replicas",
    "hello-replicas",
    "health-code-replicas",
]
# Those in front of an app's writes, with the write limit (include/edge.inc).
LIMITED = ["files-nginx", "entryeditor-nginx", "entryeditor-gunicorn-nginx", "entryeditor-web"]
# A path each passes to its app (the web front end serves its own pages everywhere else).
UPSTREAM_PATH = {"entryeditor-web": "/api/anything"}
HEADERS = {
    "x-content-type-options": "nosniff",
    "referrer-policy": "strict-origin-when-cross-origin",
}
_PLACEHOLDER = re.compile(r"\{(port|volume|project):([\w./-]+)\}")


@contextmanager
def start_nginx(
    project_root: Path,
    tmp_path: Path,
    service: str,
    env: dict[str, str] | None = None,
    lists: Mapping[str, Sequence[str]] | None = None,
) -> Iterator[str]:
    """`service` rendered as the local runner renders it, its upstream a closed port or an
    empty socket directory (or the addresses `lists` gives, a `server` line each); its URL,
    nginx stopped on leaving, a failed assertion included."""
    # The volumes hold unix sockets, whose paths may not pass 107 bytes: a short folder of
    # their own, not pytest's per-test one (its path grows with the test's name, the
    # xdist worker and the number of pytest runs the machine has kept).
    with tempfile.TemporaryDirectory(prefix="ngx-") as short:
        volumes = Path(short)
        project = load_project(Project(project_root), [SERVERS[service]], env)
        spec = project.services[service]
        closed = str(free_port())

        def resolve(value: str) -> str:
            def replace(match: re.Match[str]) -> str:
                kind, name = match.groups()
                if kind == "port":
                    return closed
                if kind == "project":
                    return str(project_root / name)
                (volumes / name).mkdir(exist_ok=True)
                return str(volumes / name)

            return _PLACEHOLDER.sub(replace, value)

        rendered = {
            **spec.environment,
            **{k: resolve(v) for k, v in spec.local.environment.items()},
        }
        port = free_port()
        assert spec.local.port_env is not None
        rendered[spec.local.port_env] = str(port)
        argv = nginx.prepare(spec, rendered, tmp_path / "nginx", lists)
        process = groups.spawn(argv, env={"PATH": "/usr/sbin:/usr/bin:/bin"}, cwd=project_root)
        try:
            deadline = time.monotonic() + 10
            while True:
                try:
                    socket.create_connection((LOOPBACK, port), timeout=1).close()
                    break
                except OSError:
                    assert process.poll() is None, process.stdout.read() if process.stdout else ""
                    assert time.monotonic() < deadline, "nginx did not listen"
                    time.sleep(0.05)
            yield f"http://{LOOPBACK}:{port}"
        finally:
            groups.stop_group(process.pid, 5, process)
            process.wait()


@pytest.fixture
def server(request: pytest.FixtureRequest, project_root: Path, tmp_path: Path) -> Iterator[str]:
    with start_nginx(project_root, tmp_path, request.param) as url:
        yield url


def announce_body(url: str, size: int) -> httpx2.Response:
    """The answer to a POST whose Content-Length announces `size` bytes, none of them sent:
    nginx refuses an oversized body on the headers alone."""
    address = httpx2.URL(url)
    assert address.host and address.port
    with socket.create_connection((address.host, address.port), timeout=10) as sock:
        head = f"POST / HTTP/1.1\r\nHost: test\r\nContent-Length: {size}\r\n\r\n"
        sock.sendall(head.encode())
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
            if b"\r\n\r\n" in answer and answer.endswith(b"}\n"):
                break
    lines, _, body = answer.partition(b"\r\n\r\n")
    status_line, *fields = lines.decode("latin-1").split("\r\n")
    headers = [tuple(field.split(": ", 1)) for field in fields]
    return httpx2.Response(int(status_line.split()[1]), headers=headers, content=body)


def assert_hardened(response: httpx2.Response, status: int) -> None:
    assert response.status_code == status, response.text
    for name, value in HEADERS.items():
        assert response.headers.get(name) == value, (status, dict(response.headers))
    assert "frame-ancestors 'none'" in response.headers["content-security-policy"]
    assert response.headers["server"] == "nginx"  # server_tokens off: no version


@pytest.mark.parametrize("server", sorted(SERVERS), indirect=True)
def test_every_answer_carries_the_security_headers(server: str) -> None:
    with httpx2.Client(base_url=server, timeout=10) as client:
        assert_hardened(client.get("/nginx-health"), 200)
        not_found = client.get("/.nginx-errors/bad-request")  # internal: 404 from outside
        assert_hardened(not_found, 404)
        assert not_found.json()["error"]["code"] == "not_found"
        too_large = announce_body(server, 200 * 1024 * 1024)
        assert_hardened(too_large, 413)
        assert too_large.json()["error"]["code"] == "payload_too_large"


@pytest.mark.parametrize("service", PROXIES)
def test_the_app_down_answer_carries_them_too(
    project_root: Path, tmp_path: Path, service: str
) -> None:
    """nginx's 502 (nothing listens upstream) becomes a JSON 503 with Retry-After."""
    path = UPSTREAM_PATH.get(service, "/anything")
    with start_nginx(project_root, tmp_path, service) as server:
        response = httpx2.get(f"{server}{path}", timeout=10)
        assert_hardened(response, 503)
        assert response.headers["retry-after"] == "1"
        assert response.json()["error"]["code"] in {"unavailable", "overloaded"}
        # Its location has add_header lines of its own, so it repeats observe.inc's request id.
        assert re.fullmatch(r"[0-9a-f]{32}", response.headers["x-request-id"])


@pytest.mark.parametrize("server", sorted(SERVERS), indirect=True)
def test_oversized_request_lines_and_headers_are_json_414_and_431(server: str) -> None:
    with httpx2.Client(base_url=server, timeout=10) as client:
        long_uri = client.get("/corpus/statistics/get_instance", params={"q": "x" * 9000})
        assert_hardened(long_uri, 414)
        assert long_uri.json()["error"]["code"] == "uri_too_long"
        big_header = client.get("/nginx-health", headers={"X-Big": "x" * 9000})
        assert_hardened(big_header, 431)
        assert big_header.json()["error"]["code"] == "request_header_fields_too_large"


@pytest.mark.parametrize("service", LIMITED)
def test_writes_past_the_limit_are_a_json_429_and_reads_are_not_limited(
    project_root: Path, tmp_path: Path, service: str
) -> None:
    env = {"WRITE_RATE_LIMIT": "1r/m", "WRITE_BURST": "1"}
    path = UPSTREAM_PATH.get(service, "/anything")
    with (
        start_nginx(project_root, tmp_path, service, env) as server,
        httpx2.Client(base_url=server, timeout=10) as client,
    ):
        for _ in range(5):
            assert client.get(path).status_code == 503  # the app is down
        # One write at the rate and one of burst pass (to the app, which is down).
        assert [client.post(path).status_code for _ in range(2)] == [503, 503]
        limited = client.post(path)
        assert_hardened(limited, 429)
        assert limited.headers["retry-after"] == "1"
        assert limited.json()["error"]["code"] == "too_many_requests"
        assert re.fullmatch(r"[0-9a-f]{32}", limited.headers["x-request-id"])
        assert client.delete(path).status_code == 429
        assert client.get(path).status_code == 503


@pytest.mark.parametrize("form", ["quick", "full"])
def test_no_benchmark_cell_sends_writes_faster_than_nginx_lets_them(
    project_root: Path, form: str
) -> None:
    """The entry editor's POST cells (execute, init) go through nginx's write limit: its
    matrix lifts the limit above every rate and concurrency it sends writes at."""
    from servelab.bench.plan.matrix import load_matrix

    writes = {"execute", "init"}
    cells = [
        cell
        for cell in load_matrix(Project(project_root), "entryeditor").cells(form)
        if cell.endpoint.env.get("NAME") in writes
    ]
    # vegeta's rates go up to 1000/s and boom's up to 100 VUs in the full form.
    assert cells
    for cell in cells:
        rate = int(cell.server_env["WRITE_RATE_LIMIT"].removesuffix("r/s"))
        # A VU of the boom shape waits for each answer: at most 1000/s even at 1 ms each.
        assert rate >= max(cell.load.rate, cell.load.vus * 1000), cell.label
        assert int(cell.server_env["WRITE_BURST"]) >= cell.load.rate


def test_a_long_query_string_reaches_uwsgi_instead_of_a_503(project_root: Path) -> None:
    """5,000 characters of query string (the entry editor's get_instance): within nginx's header
    buffers, so uWSGI's buffer-size must hold it too, or nginx answers a misleading 503."""
    from servelab.stack import Stack

    with Stack("uwsgi", only=["hello-uwsgi-nginx"], log=None) as stack:
        response = httpx2.get(f"{stack.url('hello-uwsgi-nginx')}/hello", params={"q": "x" * 5000})
    assert response.status_code == 200, response.text


def raw_answer(url: str, request: bytes) -> httpx2.Response:
    """nginx's answer to `request` as sent, byte for byte, read until it closes."""
    address = httpx2.URL(url)
    assert address.host and address.port
    with socket.create_connection((address.host, address.port), timeout=10) as sock:
        sock.sendall(request)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    lines, _, body = answer.partition(b"\r\n\r\n")
    status_line, *fields = lines.decode("latin-1").split("\r\n")
    headers = [tuple(field.split(": ", 1)) for field in fields]
    return httpx2.Response(int(status_line.split()[1]), headers=headers, content=body)


# Requests nginx refuses itself before any location or upstream sees them, with the status
# and the code of the JSON answer.
REFUSED = {
    "http-version": (
        b"GET /nginx-health HTTP/2.0\r\nHost: test\r\n\r\n",
        505,
        "http_version_not_supported",
    ),
    "transfer-encoding": (
        b"POST /nginx-health HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: gzip\r\n"
        b"Connection: close\r\n\r\n",
        501,
        "not_implemented",
    ),
}


@pytest.mark.parametrize("refused", sorted(REFUSED))
@pytest.mark.parametrize("server", sorted(SERVERS), indirect=True)
def test_what_nginx_refuses_itself_is_json(server: str, refused: str) -> None:
    request, status, code = REFUSED[refused]
    response = raw_answer(server, request)
    assert_hardened(response, status)
    assert response.headers["content-type"] == "application/json"
    assert response.json()["error"]["code"] == code


@pytest.mark.parametrize(
    "server", ["entryeditor-nginx", "entryeditor-gunicorn-nginx"], indirect=True
)
def test_a_static_directory_without_an_index_is_a_json_403(server: str) -> None:
    response = httpx2.get(f"{server}/static/", timeout=10)
    assert_hardened(response, 403)
    assert response.json() == {"error": {"code": "forbidden", "message": "Forbidden"}}


# The entry editor's servers, in front of which TLS ends at an edge (include/edge.inc).
BEHIND_TLS = ["entryeditor-nginx", "entryeditor-gunicorn-nginx", "entryeditor-web"]


@pytest.mark.parametrize("service", BEHIND_TLS)
def test_only_what_the_edge_took_over_plain_http_is_redirected_to_https(
    project_root: Path, tmp_path: Path, service: str
) -> None:
    """The edge is this machine (REAL_IP_FROM's default): what it says came over plain HTTP
    is a 308 to https, the probes excepted; what it took over HTTPS, and plain HTTP from any
    other peer whatever it claims, goes on to the app (down here: 503)."""
    path = UPSTREAM_PATH.get(service, "/anything") + "?q=1"
    plain, secure = {"X-Forwarded-Proto": "http"}, {"X-Forwarded-Proto": "https"}
    with (
        start_nginx(project_root, tmp_path, service) as server,
        httpx2.Client(base_url=server, timeout=10) as edge,
    ):
        for method in ("GET", "POST"):
            redirected = edge.request(method, path, headers=plain)
            assert_hardened(redirected, 308)
            assert redirected.headers["location"] == f"https://{LOOPBACK}{path}"
        for probe in ("/healthz", "/readyz/", "/nginx-health"):
            assert edge.get(probe, headers=plain).status_code != 308, probe
        assert edge.get(path, headers=secure).status_code == 503
        assert edge.get(path).status_code == 503
        elsewhere = httpx2.HTTPTransport(local_address="127.0.0.2")
        with httpx2.Client(base_url=server, timeout=10, transport=elsewhere) as other:
            assert other.get(path, headers=plain).status_code == 503


class _Named(http.server.BaseHTTPRequestHandler):
    """Answers any POST with its server's name and closes the connection (HTTP/1.0), so
    nginx keeps no connection to it open."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        assert isinstance(self.server, _Replica)
        body = self.server.name.encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


class _Replica(http.server.ThreadingHTTPServer):
    """A replica named `name` on `port`, serving from a thread of its own."""

    def __init__(self, port: int, name: str) -> None:
        super().__init__((LOOPBACK, port), _Named)
        self.name = name
        threading.Thread(target=self.serve_forever, daemon=True).start()

    def stop(self) -> None:
        """Stop serving and close the socket (again: a no-op)."""
        self.shutdown()
        self.server_close()


def test_the_replicas_nginx_sends_to_a_replica_again_once_it_accepts(
    project_root: Path, tmp_path: Path
) -> None:
    """A rolling restart: replica A refuses connections (restarting) while B answers, then A
    is back and B stops. nginx must send the next POST to A at once. One that left A out
    after its refusal (max_fails) would find no replica left and answer 503."""
    a, b = free_port(), free_port()
    upstream = {"REPLICAS_UPSTREAM": [f"{LOOPBACK}:{a}", f"{LOOPBACK}:{b}"]}
    replica_b = _Replica(b, "b")
    replica_a: _Replica | None = None
    try:
        with (
            start_nginx(project_root, tmp_path, "hello-replicas", lists=upstream) as url,
            httpx2.Client(timeout=10) as client,
        ):
            before = [client.post(f"{url}/work", content=b"x") for _ in range(10)]
            assert [(r.status_code, r.text) for r in before] == [(200, "b")] * 10
            replica_a = _Replica(a, "a")
            replica_b.stop()
            after = [client.post(f"{url}/work", content=b"x") for _ in range(10)]
        assert [(r.status_code, r.text) for r in after] == [(200, "a")] * 10
    finally:
        replica_b.stop()
        if replica_a is not None:
            replica_a.stop()
