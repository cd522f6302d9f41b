"""The Docker engine the user's docker command line points at: DOCKER_HOST when set, else
the current context (`docker context use`). `docker compose` runs the profiles there, so
that is where `servelab images` puts the base images by default."""

from __future__ import annotations

import os
from dataclasses import dataclass

from servelab.containers.engine import Docker, EngineUnavailable, docker_cli

ANSWER_TIMEOUT_S = 30


@dataclass(frozen=True)
class CurrentEngine(Docker):
    """The engine of the docker command line's settings, as the user runs it; `name` says
    which, for messages."""

    name: str


def describe_target() -> str:
    """The context and endpoint the docker command line uses, e.g.
    `default (unix:///var/run/docker.sock)`."""
    shown = "{{.Name}} ({{.Endpoints.docker.Host}})"
    inspected = CurrentEngine("").docker(
        "context", "inspect", "--format", shown, check=False, timeout=ANSWER_TIMEOUT_S
    )
    if inspected.returncode == 0 and inspected.stdout.strip():
        return inspected.stdout.strip()
    return os.environ.get("DOCKER_HOST", "the docker command line's default engine")


def current_engine() -> CurrentEngine:
    """The engine the docker command line points at, once it answers.

    Raises EngineUnavailable, saying what to do, where there is no docker command line or
    its engine does not answer."""
    if docker_cli() is None:
        raise EngineUnavailable(
            "no docker command line: install Docker (Debian: apt-get install docker.io)"
        )
    engine = CurrentEngine(describe_target())
    version = engine.docker(
        "version", "--format", "{{.Server.Version}}", check=False, timeout=ANSWER_TIMEOUT_S
    )
    if version.returncode != 0:
        reason = (version.stderr.strip().splitlines() or ["no answer"])[-1]
        raise EngineUnavailable(
            f"no Docker engine answers at {engine.name}: {reason}\n"
            "Start your engine or point DOCKER_HOST (or `docker context use`) at one; "
            "`servelab images --engine private` fills servelab's own engine instead "
            "(the container tests')"
        )
    return engine
