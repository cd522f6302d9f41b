"""With nothing set but SECRET_KEY, the service runs on an SQLite file and the local-memory
cache: migrate, load_corpus and a real gunicorn (and uWSGI) serving the API."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx2
import pytest

BIN = Path(sys.executable).parent
UNSET = ("DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE", "DEBUG")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


API_TOKEN = "embedded-test-token"  # noqa: S105  (a test token)


def embedded_env(tmp_path: Path) -> dict[str, str]:
    env = {name: value for name, value in os.environ.items() if name not in UNSET}
    env.update(
        {
            "SECRET_KEY": "embedded-test",
            "SQLITE_PATH": str(tmp_path / "entryeditor.sqlite3"),
            "ALLOWED_HOSTS": "127.0.0.1",
            "API_TOKEN": API_TOKEN,
        }
    )
    return env


def manage(env: dict[str, str], *args: str) -> str:
    done = subprocess.run(
        [BIN / "entryeditor-manage", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_secret_key_is_required_without_debug(tmp_path: Path) -> None:
    env = embedded_env(tmp_path)
    del env["SECRET_KEY"]
    done = subprocess.run(
        [BIN / "entryeditor-manage", "check"], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode != 0
    assert "SECRET_KEY is not set" in done.stderr


APPLICATION = "entryeditor_service.config.wsgi:application"


def server_command(server: str, port: int) -> list[str | Path]:
    """The WSGI app on 127.0.0.1:port under `server`, one worker."""
    if server == "uwsgi":
        return [
            BIN / "uwsgi",
            *("--http-socket", f"127.0.0.1:{port}", "--module", APPLICATION),
            *("--master", "--processes", "1", "--die-on-term", "--need-app"),
        ]
    return [BIN / "gunicorn", "-b", f"127.0.0.1:{port}", "-w", "1", "--threads", "2", APPLICATION]


@contextmanager
def gunicorn(
    env: dict[str, str], cwd: Path, server_name: str = "gunicorn"
) -> Iterator[httpx2.Client]:
    """The WSGI app under a real gunicorn (or uWSGI) on a free loopback port, once it
    answers."""
    port = free_port()
    server = subprocess.Popen(
        server_command(server_name, port), env=env, cwd=cwd, start_new_session=True
    )
    try:
        with httpx2.Client(
            base_url=f"http://127.0.0.1:{port}",
            timeout=10,
            headers={"Authorization": f"Bearer {env['API_TOKEN']}"},
        ) as client:
            deadline = time.monotonic() + 30
            while True:
                try:
                    client.get("/healthz")
                    break
                except httpx2.TransportError:
                    assert time.monotonic() < deadline, "gunicorn did not start"
                    time.sleep(0.2)
            yield client
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)


@pytest.mark.stack
def test_embedded_default_serves_the_api(tmp_path: Path) -> None:
    env = embedded_env(tmp_path)
    with gunicorn(env, tmp_path) as client:
        unmigrated = client.get("/readyz")
        assert unmigrated.status_code == 503
        assert unmigrated.json() == {
            "error": {
                "code": "not_ready",
                "message": "The database answers but its tables cannot be read (not migrated?)",
            }
        }
        assert unmigrated.headers["Retry-After"] == "1"
    manage(env, "migrate", "--noinput")
    assert "Loaded 1200 sentences" in manage(env, "load_corpus", "--limit", "1200")
    assert "nothing to do" in manage(env, "load_corpus", "--limit", "1200")
    manage(env, "check", "--database", "default")
    with gunicorn(env, tmp_path) as client:
        ready = client.get("/readyz").json()
        assert ready["database"]["ok"] is True
        assert "max_connections" not in ready["database"]
        assert ready["cache"] == {"ok": True, "backend": "locmem"}
        sentence = client.get("/corpus/sentence/1000").json()
        assert sentence["text"] == "第二，大力发展两岸经济合作，互补互利、共同繁荣。"
        first = client.get("/corpus/statistics/get_pmi/", params={"word": "发展"})
        again = client.get("/corpus/statistics/get_pmi/", params={"word": "发展"})
        assert (first.headers["X-Cache"], again.headers["X-Cache"]) == ("miss", "local")
        init = client.post("/entryeditor/entryeditor/51/init/", json={"word": "发展"})
        assert init.status_code == 201
        assert init.json()["frequency"] > 0


@pytest.mark.stack
def test_a_database_outage_is_503_json(tmp_path: Path) -> None:
    env = embedded_env(tmp_path)
    env["DATABASE_URL"] = f"mysql://root@127.0.0.1:{free_port()}/ee_test_nowhere"
    with gunicorn(env, tmp_path) as client:
        assert client.get("/healthz").status_code == 200
        ready = client.get("/readyz")
        assert ready.status_code == 503
        assert ready.json() == {
            "error": {"code": "not_ready", "message": "The database is unreachable"}
        }
        assert ready.headers["Retry-After"] == "1"
        for response in (
            client.get("/corpus/sentence/1"),
            client.get("/entryeditor/entryeditor/"),
            client.post("/entryeditor/entryeditor/51/init/", json={"word": "水"}),
        ):
            assert response.status_code == 503
            assert response.json()["error"]["code"] == "database_unavailable"
            assert response.headers["Retry-After"] == "1"


@contextmanager
def broken_database(kind: str) -> Iterator[int]:
    """A loopback port where a "database" accepts connections and never answers (`silent`)
    or closes each one at once (`closing`)."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    held: list[socket.socket] = []

    def accept() -> None:
        while True:
            try:
                connection, _ = listener.accept()
            except OSError:  # the listener was closed: the test is over
                return
            if kind == "closing":
                connection.close()
            else:
                held.append(connection)

    accepting = threading.Thread(target=accept, daemon=True)
    accepting.start()
    try:
        yield listener.getsockname()[1]
    finally:
        listener.shutdown(socket.SHUT_RDWR)
        listener.close()
        accepting.join(timeout=5)
        for connection in held:
            connection.close()


@pytest.mark.stack
@pytest.mark.parametrize("kind", ["silent", "closing"])
def test_readyz_names_a_broken_database_in_its_own_words(tmp_path: Path, kind: str) -> None:
    env = embedded_env(tmp_path)
    env["DB_CONNECT_TIMEOUT"] = "1"
    with broken_database(kind) as port:
        env["DATABASE_URL"] = f"mysql://root@127.0.0.1:{port}/ee_test_nowhere"
        with gunicorn(env, tmp_path) as client:
            ready = client.get("/readyz")
    assert ready.status_code == 503
    assert ready.json() == {
        "error": {"code": "not_ready", "message": "The database is unreachable"}
    }
    assert ready.headers["Retry-After"] == "1"


def raw_answer(port: int, method: str, path: str) -> tuple[int, dict[str, str], bytes]:
    """Status, headers and every byte after them, read to the end of a one-request
    connection: what a client that trusts the status line would see."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as connection:
        request = f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
        connection.sendall(request.encode())
        data = b""
        while chunk := connection.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin-1").split("\r\n")
    headers = {name.lower(): value.strip() for name, _, value in (h.partition(":") for h in lines)}
    return int(status_line.split()[1]), headers, body


# A path of every GET route (the neighbours need compute: both methods answer its 503).
GET_PATHS = (
    "/healthz",
    "/readyz",
    "/api/schema/",
    "/corpus/sentence/1000",
    "/corpus/sentence/1000/neighbors/",
    "/corpus/statistics/get_instance/?word=%E5%8F%91%E5%B1%95",
    "/corpus/statistics/get_count/?word=%E5%8F%91%E5%B1%95",
    "/corpus/statistics/get_pmi/?word=%E5%8F%91%E5%B1%95",
    "/entryeditor/entryeditor/",
    "/entryeditor/entryeditor/51",
    "/entryeditor/entryeditor/51/diff/52",
)


@pytest.mark.stack
@pytest.mark.parametrize("server", ["gunicorn", "uwsgi"])
def test_head_answers_every_get_route_as_get_without_a_body(tmp_path: Path, server: str) -> None:
    env = embedded_env(tmp_path)
    manage(env, "migrate", "--noinput")
    manage(env, "load_corpus", "--limit", "1200")
    manage(env, "seed_entries")
    with gunicorn(env, tmp_path, server) as client:
        port = client.base_url.port
        assert port is not None
        for path in GET_PATHS:
            get_status, get_headers, get_body = raw_answer(port, "GET", path)
            head_status, head_headers, head_body = raw_answer(port, "HEAD", path)
            assert (path, head_status) == (path, get_status)
            assert head_headers["content-type"] == get_headers["content-type"]
            assert head_headers["content-length"] == str(len(get_body))
            assert head_body == b"", path
