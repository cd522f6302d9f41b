"""The file service as users run it: compose.yaml's commands, started by servelab.stack."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx2
import pytest

from servelab.stack import Stack

# profile -> compose service
PROFILES = {"uvicorn": "files-uvicorn", "gunicorn": "files-gunicorn", "granian": "files-granian"}
MAX_UPLOAD_SIZE = 1024 * 1024


@dataclass(frozen=True)
class Server:
    profile: str
    url: str
    data_dir: Path
    token: str
    max_upload_size: int = MAX_UPLOAD_SIZE

    def client(self, *, authorized: bool = True) -> httpx2.Client:
        """A client that sends the stack's bearer token (writes need it), or none."""
        headers = {"Authorization": f"Bearer {self.token}"} if authorized else {}
        return httpx2.Client(base_url=self.url, timeout=30, trust_env=False, headers=headers)

    def object_files(self) -> list[str]:
        return sorted(path.name for path in (self.data_dir / "objects").iterdir())

    def temp_files(self) -> list[str]:
        return sorted(path.name for path in (self.data_dir / "tmp").iterdir())

    def wait_until_clean(self, objects_before: list[str], timeout: float = 5.0) -> None:
        """Wait until tmp/ is empty and objects/ is as it was; fail with what is left."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not self.temp_files() and self.object_files() == objects_before:
                return
            time.sleep(0.05)
        assert self.temp_files() == []
        assert self.object_files() == objects_before


@contextmanager
def run_server(profile: str, service: str, *, run_dir: Path | None = None) -> Iterator[Server]:
    """One compose service of `profile`, with a 1 MiB upload limit and one worker."""
    env = {"WEB_CONCURRENCY": "1", "MAX_UPLOAD_SIZE": str(MAX_UPLOAD_SIZE)}
    with Stack(profile, only=[service], env=env, run_dir=run_dir, log=None) as stack:
        yield Server(profile, stack.url(service), stack.volume("files-data"), stack.api_token)


@pytest.fixture(scope="session")
def server_factory(starts_servers: None) -> Callable[..., AbstractContextManager[Server]]:
    return run_server


@pytest.fixture(scope="module", params=sorted(PROFILES))
def server(request: pytest.FixtureRequest, starts_servers: None) -> Iterator[Server]:
    with run_server(request.param, PROFILES[request.param]) as server:
        yield server


@pytest.fixture
def client(server: Server) -> Iterator[httpx2.Client]:
    with server.client() as client:
        yield client
