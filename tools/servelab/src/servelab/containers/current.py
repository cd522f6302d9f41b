"""The Docker engine the user's docker command line points at: DOCKER_HOST when set, else
the current context (`docker context use`). `docker compose` runs the profiles there, so
that is where `servelab images` puts the base images by default."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from typing import IO

from servelab.containers.engine import EngineUnavailable, docker_cli, run_docker

ANSWER_TIMEOUT_S = 30


@dataclass(frozen=True)
class CurrentEngine:
    """The engine of the docker command line's settings; `name` says which, for messages."""

    name: str

    def docker(
        self,
        *args: str,
        check: bool = True,
        timeout: float | None = 120,
        extra_env: Mapping[str, str] | None = None,
        stdin: IO[bytes] | None = None,
    ) -> subprocess.CompletedProcess[str]:
        """Run the docker command line as the user would, capturing its output."""
        env = {**os.environ, **(extra_env or {})}
        return run_docker(args, env, check=check, timeout=timeout, stdin=stdin)


def describe_target() -> str:
    """The context and endpoint the docker command line uses, e.g.
    `default (unix:///var/run/docker.sock)`."""
    inspected = CurrentEngine("").docker(
        "context",
        "inspect",
        "--format",
        "{{.Name}} ({{.Endpoints.docker.Host}})",
        check=False,
        timeout=ANSWER_TIMEOUT_S,
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
