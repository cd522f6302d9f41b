"""pytest fixtures for tests that run containers (a pytest plugin: entry point `pytest11`
of the servelab package, loaded wherever servelab is installed). Both start processes, so
their tests are marked `stack` (servelab.testing.plugin) and stay out of `make test-fast`.

docker_engine   the private dockerd of engine.py for the whole session; the test skips,
                with the reason, where no engine can run on this machine
base_images     the official images compose.yaml and the Dockerfiles name, present in that
                engine (pulled, or stand-ins built from Debian packages: `servelab images`,
                which the bootstrap runs, has normally built them already)
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest

from servelab.containers.engine import Engine, cache_dir, private_engine, unavailable_reason
from servelab.images.stand_ins import ImageOutcome, ensure_images
from servelab.project import Project


def require_engine() -> None:
    """Skip the calling test where no private engine can run here, saying why."""
    if reason := unavailable_reason():
        pytest.skip(f"no container engine can run here: {reason}")


@pytest.fixture(scope="session")
def docker_engine(starts_servers: None, pytestconfig: pytest.Config) -> Iterator[Engine]:
    require_engine()
    settings = Project.find(pytestconfig.rootpath).settings
    with private_engine(cache_dir(settings) / "docker") as engine:
        yield engine


@pytest.fixture(scope="session")
def base_images(docker_engine: Engine, pytestconfig: pytest.Config) -> list[ImageOutcome]:
    def say(line: str) -> None:
        print(f"servelab images: {line}", file=sys.stderr)

    project = Project.find(pytestconfig.rootpath)
    return ensure_images(docker_engine, project, say)
