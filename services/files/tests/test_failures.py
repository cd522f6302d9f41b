"""What a client or the disk can do wrong: oversized bodies, aborts, a full disk."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit

import pytest

BASE64_UPLOAD = "/files/upload/raw/json/base64decode"
RAW_UPLOADS = [
    "/files",
    "/files/upload/stream/async_read_and_memory_write",
    "/files/upload/stream/async_read_and_disk_write",
    "/files/upload/stream/async_read_and_async_write",
]
MULTIPART_UPLOADS = [
    "/files",
    "/files/upload/single",
    "/files/upload/single/sync",
    "/files/upload/single/stream",
    "/files/upload/single/stream/async_read_sync_write",
    "/files/upload/single/stream/sync_read_sync_write",
]
# The uploads that write to a file under tmp/ while the body streams in.
DISK_UPLOADS = [
    "/files",
    "/files/upload/stream/async_read_and_disk_write",
    "/files/upload/stream/async_read_and_async_write",
]
BOUNDARY = "servelab0123456789"
MULTIPART = f"multipart/form-data; boundary={BOUNDARY}"


def connect(server) -> socket.socket:
    url = urlsplit(server.url)
    return socket.create_connection((url.hostname, url.port), timeout=5)


def request_head(path: str, headers: dict[str, str]) -> bytes:
    lines = [f"POST {path} HTTP/1.1", "Host: test", *(f"{k}: {v}" for k, v in headers.items())]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def read_response(sock: socket.socket) -> tuple[int, dict]:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        assert chunk, f"connection closed after {data!r}"
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.lower().split(": ", 1) for line in lines[1:])
    while len(body) < int(headers["content-length"]):
        body += sock.recv(65536)
    return int(lines[0].split()[1]), json.loads(body)


def multipart_head() -> tuple[bytes, bytes]:
    """The bytes before and after the content of a `file` part."""
    start = (
        f"--{BOUNDARY}\r\n"
        'Content-Disposition: form-data; name="file"; filename="big.bin"\r\n'
        "Content-Type: application/octet-stream\r\n\r\n"
    ).encode()
    return start, f"\r\n--{BOUNDARY}--\r\n".encode()


@pytest.mark.parametrize("path", [*RAW_UPLOADS, *MULTIPART_UPLOADS[1:], BASE64_UPLOAD])
def test_413_before_the_body_is_sent(server, path):
    """A Content-Length over the limit is refused without reading a byte of the body."""
    headers = {
        "Content-Type": MULTIPART,
        "Content-Length": str(server.max_upload_size + 1),
        "Authorization": f"Bearer {server.token}",
    }
    with connect(server) as sock:
        sock.sendall(request_head(path, headers))
        status, body = read_response(sock)
    assert status == 413
    assert body["error"]["code"] == "payload_too_large"


@pytest.mark.parametrize(
    ("path", "content_type"),
    [(path, "application/octet-stream") for path in RAW_UPLOADS]
    + [(path, MULTIPART) for path in MULTIPART_UPLOADS]
    + [(BASE64_UPLOAD, "application/json")],
)
def test_413_while_streaming_a_chunked_body(server, client, path, content_type):
    before = server.object_files()
    size = server.max_upload_size + 200_000
    start, end = multipart_head() if content_type == MULTIPART else (b"", b"")

    def chunks():
        yield start
        for _ in range(size // 65536 + 1):
            yield os.urandom(65536)
        yield end

    response = client.post(path, content=chunks(), headers={"content-type": content_type})
    assert response.status_code == 413, response.text
    assert response.json()["error"]["code"] == "payload_too_large"
    server.wait_until_clean(before)


@pytest.mark.parametrize(
    ("path", "content_type"),
    [(path, "image/jpeg") for path in RAW_UPLOADS]
    + [("/files", MULTIPART), ("/files/upload/single/stream", MULTIPART)],
)
def test_client_abort_mid_upload_leaves_nothing(server, client, path, content_type):
    """Headers announce 1 MiB, 100 KiB arrive, then the client is gone."""
    before = server.object_files()
    start = multipart_head()[0] if content_type == MULTIPART else b""
    headers = {
        "Content-Type": content_type,
        "Content-Length": str(1024 * 1024),
        "Authorization": f"Bearer {server.token}",
    }
    with connect(server) as sock:
        sock.sendall(request_head(path, headers) + start)
        sock.sendall(os.urandom(100 * 1024))
        if path in DISK_UPLOADS:
            wait_for(server.temp_files)  # the upload is really under way on disk
        else:
            time.sleep(0.2)
    server.wait_until_clean(before)
    assert client.get("/healthz").status_code == 200


def wait_for(condition, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {condition}"
        time.sleep(0.01)


@contextmanager
def small_tmpfs(path: Path, size: str):
    path.mkdir(parents=True)
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)],
        capture_output=True,
        check=False,
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here (needs root): {mounted.stderr.decode().strip()}")
    try:
        yield path
    finally:
        subprocess.run(["umount", "--lazy", str(path)], check=True)


@pytest.mark.parametrize("profile", ["uvicorn", "gunicorn"])
def test_disk_full_is_507_and_leaves_nothing(server_factory, profile):
    """STORAGE_DIR on a 512 KiB tmpfs: a 900 KB upload runs out of space for real."""
    with tempfile.TemporaryDirectory(prefix="servelab-files-") as run_dir:
        volume = Path(run_dir) / "volumes" / "files-data"
        with (
            small_tmpfs(volume, "512k"),
            server_factory(profile, f"files-{profile}", run_dir=Path(run_dir)) as server,
            server.client() as client,
        ):
            payload = os.urandom(900_000)
            for path in DISK_UPLOADS:
                response = client.post(path, content=payload)
                assert response.status_code == 507, response.text
                assert response.json()["error"]["code"] == "insufficient_storage"
            multipart = client.post("/files", files={"file": ("big.bin", payload)})
            assert multipart.status_code == 507, multipart.text
            server.wait_until_clean([])
            # The space came back: a small upload still fits.
            small = client.post("/files", content=b"x" * 100_000)
            assert small.status_code == 201, small.text


def test_readiness_follows_the_storage_directory(server, client):
    port = str(urlsplit(server.url).port)
    healthcheck = [sys.executable, "-m", "servicekit.probe", port]
    assert client.get("/readyz").status_code == 200
    assert subprocess.run(healthcheck, check=False).returncode == 0

    tmp_dir = server.data_dir / "tmp"
    moved = server.data_dir / "tmp-away"
    tmp_dir.rename(moved)
    try:
        response = client.get("/readyz")
        assert response.status_code == 503
        assert response.json() == {
            "error": {"code": "not_ready", "message": "The storage directory is not writable"}
        }
        assert response.headers["Retry-After"] == "1"
        assert client.get("/healthz").status_code == 200
        assert subprocess.run(healthcheck, check=False).returncode == 1
    finally:
        moved.rename(tmp_dir)
    assert client.get("/readyz").status_code == 200
