"""servelab's pytest plugin (entry point `pytest11`, loaded wherever servelab is installed).

Tests come in two speeds: the ones marked `stack` start servers (compose services through
the local runner, a service's own server process, nginx) or drive one with k6; `make
test-fast` runs the rest but those marked `network` or `heavy` (pyproject's markers). A
fixture that starts servers requests `starts_servers`, and every test that uses it,
directly or through other fixtures, gets the mark at collection; a test that starts
servers itself carries `@pytest.mark.stack`. A test without the mark that starts a process
group through the runner fails at once, so the fast lane cannot start a server by mistake.

`make test` spreads the tests over pytest-xdist workers (`--dist loadgroup`). Tests that share
a costly fixture wider than one test (a module's stack, the session's private Docker engine)
form one group, which one worker runs, so that the fixture is made once and two copies of it
never run at once; every other test goes to whichever worker is free. Each worker draws its
ports from a share of its own (SERVELAB_PORT_SHARE), so two stacks starting at once never
pick the same one.

The database and the cache are the machine's where they answer, else private servers
(servelab.stack.servers): one of each per test process (each xdist worker) at most, started
when a test first needs it and stopped when the session ends.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import NoReturn

import pytest
from _pytest.mark.expression import Expression
from _pytest.nodeid import NodeId

from servelab.project import PORT_SHARE, Project
from servelab.stack import groups
from servelab.stack.servers import servers
from servelab.testing import Serve, serve_service
from servelab.testing.k6 import K6Outcome, K6Smoke, run_k6

# A short k6 run; the scripts' default thresholds fail it on a single failed request or
# check (loadtests/lib/options.js).
SMOKE = {"VUS": "4", "DURATION": "2s"}

STACK = "stack"


def pytest_configure(config: pytest.Config) -> None:
    """An xdist worker draws its stacks' ports from a share of its own (servelab.stack.ports),
    so that two workers starting stacks at once never pick the same port."""
    worker = getattr(config, "workerinput", None)
    if worker is not None:
        index = int(str(worker["workerid"]).removeprefix("gw"))
        os.environ[PORT_SHARE] = f"{index}/{worker['workercount']}"


# A test module marked as a whole: `pytestmark = pytest.mark.<name>` on a line of its own.
WHOLE_MODULE_MARK = re.compile(r"^pytestmark = pytest\.mark\.(\w+)$", re.MULTILINE)


@functools.cache
def _compiled(expression: str) -> Expression:
    return Expression.compile(expression)


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Leave a test module unimported when `-m` deselects every test of it by its module mark:
    make test-fast's `not heavy` would otherwise import torch to deselect two modules."""
    expression = config.option.markexpr
    if not expression or not collection_path.name.startswith("test_"):
        return None
    if collection_path.suffix != ".py" or not collection_path.is_file():
        return None
    marks = set(WHOLE_MODULE_MARK.findall(collection_path.read_text(encoding="utf-8")))
    # Deselected whether its tests carry every other mark or none.
    selected = _compiled(expression).evaluate
    if marks and not (
        selected(lambda name, /, **_: name in marks) or selected(lambda *_, **__: True)
    ):
        return True
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: Sequence[pytest.Item]) -> None:
    loadgroup = getattr(config.option, "loadgroup", False)  # set on xdist's workers
    for item in items:
        if "starts_servers" in getattr(item, "fixturenames", ()):
            item.add_marker(STACK)
        group = shared_fixture_group(item)
        if group is not None and item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group(group))
            if loadgroup:
                # What xdist's loadgroup scheduler reads: the group after the test's id. xdist
                # 3.8 writes it where pytest 9.2 no longer looks (pytest-xdist#1386), so the
                # groups would be silently ignored.
                item._id = NodeId.parse(f"{item.nodeid}@{group}")


def shared_fixture_group(item: pytest.Item) -> str | None:
    """The xdist group of a test that shares a fixture wider than one test: a session- or
    package-scoped one that starts servers (requests `starts_servers`, directly or through
    other fixtures) groups by its own name and place, the outermost when one such fixture
    requests another (every test of the private Docker engine shares `docker_engine`); any
    module- or class-scoped one (made once because it is costly: a stack, a bundle, rendered
    manifests) by the module or class it is shared by. Other session-scoped fixtures (a test
    database) are made once per worker."""
    if not isinstance(item, pytest.Function):
        return None
    fixtures = {
        name: definitions[-1]
        for name, definitions in item._fixtureinfo.name2fixturedefs.items()
        if definitions
    }

    def starts(name: str) -> bool:
        return name == "starts_servers" or any(
            starts(argument) for argument in fixtures[name].argnames if argument in fixtures
        )

    widest = [
        name
        for name, fixture in fixtures.items()
        if name != "starts_servers" and fixture.scope in ("session", "package") and starts(name)
    ]
    for name in widest:
        fixture = fixtures[name]
        if not any(argument in widest for argument in fixture.argnames):
            return f"{fixture.baseid}::{name}"
    for scope, collector in (("module", pytest.Module), ("class", pytest.Class)):
        if any(fixture.scope == scope for fixture in fixtures.values()):
            parent = item.getparent(collector)
            return parent.nodeid if parent is not None else None
    return None


@pytest.fixture(scope="session", autouse=True)
def _private_servers_kept() -> Iterator[None]:
    """The private servers a test starts stay up for the tests after it, to the session's end."""
    with servers().keeping():
        yield


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
def project(pytestconfig: pytest.Config) -> Project:
    """The project the tests run in, with the settings the environment holds as the test
    starts (this worker's port share among them)."""
    return Project.find(pytestconfig.rootpath)


@pytest.fixture
def k6_smoke(project: Project, tmp_path: Path, starts_servers: None) -> K6Smoke:
    """Run loadtests/<script> with SMOKE under `env`, its JSON summary read back;
    `open_files` (soft, hard) limits the file descriptors k6 may open."""

    def run(
        script: str, env: Mapping[str, str], open_files: tuple[int, int] | None = None
    ) -> K6Outcome:
        return run_k6(project, script, {**SMOKE, **env}, tmp_path, open_files=open_files)

    return run
