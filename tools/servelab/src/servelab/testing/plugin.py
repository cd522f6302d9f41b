"""servelab's pytest plugin (entry point `pytest11`, loaded wherever servelab is installed).

Tests come in two speeds: the ones marked `stack` start servers (compose services through
the local runner, a service's own server process, nginx) or drive one with k6; `pytest -m
"not stack"` (`make test-fast`) runs the rest. A fixture that starts servers requests
`starts_servers`, and every test that uses it, directly or through other fixtures, gets
the mark at collection; a test that starts servers itself carries `@pytest.mark.stack`.
A test without the mark that starts a process group through the runner fails at once,
so the fast lane cannot start a server by mistake.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import NoReturn

import pytest

from servelab.stack import groups
from servelab.testing import Serve, serve_service

STACK = "stack"


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
