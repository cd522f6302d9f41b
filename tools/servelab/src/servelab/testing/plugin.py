"""servelab's pytest plugin (entry point `pytest11`, loaded wherever servelab is installed).

Tests come in two speeds: the ones marked `stack` start servers (compose services through
the local runner, a service's own server process, nginx) or drive one with k6; `pytest -m
"not stack"` (`make test-fast`) runs the rest. A fixture that starts servers requests
`starts_servers`, and every test that uses it, directly or through other fixtures, gets
the mark at collection; a test that starts servers itself carries `@pytest.mark.stack`.
A test without the mark that starts a process group through the runner fails at once,
so the fast lane cannot start a server by mistake.

The database and the cache are the machine's where they answer, else private servers
(servelab.stack.servers): one of each per test process at most, started when a test first
needs it and stopped when the session ends.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import NoReturn

import pytest

from servelab.stack import groups
from servelab.stack.servers import servers
from servelab.testing import Serve, serve_service
from servelab.testing.k6 import K6Outcome, K6Smoke, run_k6

# A short k6 run; the scripts' default thresholds fail it on a single failed request or
# check (loadtests/lib/options.js).
SMOKE = {"VUS": "4", "DURATION": "2s"}

STACK = "stack"


_SESSION = ExitStack()


def pytest_sessionstart(session: pytest.Session) -> None:
    _SESSION.enter_context(servers().keeping())


def pytest_sessionfinish(session: pytest.Session) -> None:
    _SESSION.close()


def pytest_collection_modifyitems(items: Sequence[pytest.Item]) -> None:
    for item in items:
        if "starts_servers" in getattr(item, "fixturenames", ()):
            item.add_marker(STACK)


@pytest.fixture(scope="session")
def starts_servers() -> None:
    """Requested by every fixture that starts servers: its tests are marked `stack`."""


@pytest.fixture
def serve(starts_servers: None) -> Serve:
    """serve(profile, service, env): one compose service as compose.yaml runs it, checked
    to stop on SIGTERM alone and to leave no process behind (serve_service)."""
    return serve_service


@pytest.fixture(autouse=True)
def _no_servers_unless_marked(request: pytest.FixtureRequest) -> Iterator[None]:
    """Outside `stack` tests, starting a process group through the runner is an error."""
    if request.node.get_closest_marker(STACK) is not None:
        yield
        return

    def refuse(*args: object, **kwargs: object) -> NoReturn:
        raise RuntimeError(
            f"{request.node.nodeid} starts a server but is not marked `stack`: mark it, "
            "or have the fixture that starts it request `starts_servers`"
        )

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(groups, "spawn", refuse)
        yield


@pytest.fixture
def k6_smoke(project_root: Path, tmp_path: Path, starts_servers: None) -> K6Smoke:
    """Run loadtests/<script> with SMOKE under `env`, its JSON summary read back;
    `open_files` (soft, hard) limits the file descriptors k6 may open. `project_root` is
    the repository's conftest's."""

    def run(
        script: str, env: Mapping[str, str], open_files: tuple[int, int] | None = None
    ) -> K6Outcome:
        return run_k6(project_root, script, {**SMOKE, **env}, tmp_path, open_files=open_files)

    return run
