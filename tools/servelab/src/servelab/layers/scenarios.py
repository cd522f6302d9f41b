"""The requests the account measures, each with the shipped app that answers it.

hello's GET /hello; files' POST /files (a raw 256 KiB body, stored: hashed, its metadata
written, renamed into place), GET /files/{id} sent by the app and answered with
X-Accel-Redirect, and the write-up's streamed upload (upload/stream/async_read_and_disk_write)
with the same body. The services are imported here, in the process measuring them: they
are members of the project's workspace, not dependencies of servelab.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from tempfile import TemporaryDirectory, gettempdir

from servelab.bench.plan.scratch import server_files
from servelab.layers.drive import Request
from servelab.layers.stacks import Step, steps

# The body of every upload: the benchmarks' payload size (loadtests/families/files.toml).
BODY_BYTES = 256 * 1024
# The token the files app is given, new each run, and every request sends (auth runs on each).
TOKEN = secrets.token_urlsafe(24)
# What k6 sends with every request.
_CLIENT = ((b"host", b"127.0.0.1:8000"), (b"user-agent", b"k6/1.1.0 (https://k6.io/)"))
_AUTH = ((b"authorization", f"Bearer {TOKEN}".encode()),)


@dataclass(frozen=True)
class Scenario:
    """`request` through each of `steps`; `tidy` runs after each batch, untimed."""

    key: str
    title: str
    request: Request
    steps: list[Step]
    tidy: Callable[[], None] = lambda: None


def _upload(path: str, expect: int) -> Request:
    body = os.urandom(BODY_BYTES)
    headers = (
        *_CLIENT,
        *_AUTH,
        (b"content-type", b"application/octet-stream"),
        (b"content-length", str(len(body)).encode()),
    )
    return Request("POST", path, headers, body, expect=expect)


def hello() -> list[Scenario]:
    from hello_service.asgi import app

    request = Request("GET", "/hello", _CLIENT)
    return [Scenario("hello", "hello: GET /hello (4 KB JSON)", request, steps(app))]


@contextmanager
def files() -> Iterator[list[Scenario]]:
    """files' scenarios, their store in a temporary directory (removed after)."""
    from files_service.main import create_app
    from files_service.settings import Settings

    # The store on a tmpfs where the machine has one, as the benchmarks' stores are: a
    # disk's writeback would move each round's figure more than a layer does.
    with (
        server_files(Path(gettempdir()), on_disk=False) as where,
        TemporaryDirectory(prefix="servelab-layers-", dir=where.parent) as folder,
    ):
        common = {"storage_dir": Path(folder), "api_token": TOKEN, "fsync": False}
        app = create_app(Settings(**common))  # type: ignore[arg-type]
        accel = create_app(Settings(**common, accel_redirect_prefix="/_protected/"))  # type: ignore[arg-type]
        store = app.state.store
        store.prepare()
        with store.upload() as upload:
            upload.write(os.urandom(BODY_BYTES))
            kept = store.commit(upload, filename="payload.bin", content_type="image/jpeg")

        def forget_uploads() -> None:
            items, _ = store.list(after=None, limit=1 << 20)
            for meta in items:
                if meta.id != kept.id:
                    store.delete(meta.id)

        download = Request("GET", f"/files/{kept.id}", (*_CLIENT, *_AUTH))
        yield [
            Scenario(
                "files-post",
                "files: POST /files, a raw 256 KiB body (FSYNC=false)",
                _upload("/files", 201),
                steps(app),
                forget_uploads,
            ),
            Scenario(
                "files-strategy",
                "files: the write-up's upload/stream/async_read_and_disk_write, 256 KiB",
                _upload("/files/upload/stream/async_read_and_disk_write", 200),
                steps(app),
            ),
            Scenario(
                "files-get",
                "files: GET /files/{id}, 256 KiB sent by the app",
                download,
                steps(app),
            ),
            Scenario(
                "files-accel",
                "files: GET /files/{id} answered with X-Accel-Redirect (nginx sends it)",
                download,
                steps(accel),
            ),
        ]
