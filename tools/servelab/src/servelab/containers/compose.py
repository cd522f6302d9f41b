"""compose.yaml under a Docker engine, as users run it: `docker compose build`, `up --wait`,
`stop`, `down -v`, with the `docker-compose` binary servelab installs pointed at the engine
by DOCKER_HOST. A start that fails raises with the state and the log of every container, so
a test shows why a profile did not come up rather than hanging."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from servelab.containers.engine import Engine
from servelab.project import COMPOSE_FILE
from servelab.stack.compose import compose_binary

# What a project's `down -v` must remove: the objects compose labels with its name.
PROJECT_LABEL = "com.docker.compose.project"
LOG_LINES = 40


class ComposeFailed(Exception):
    """A compose command failed; the message holds its output and the containers' logs."""


@dataclass
class ComposeProject:
    """One compose project (`-p name`) of compose.yaml in `directory`, in `engine`, with
    `env` added to the environment compose interpolates from."""

    engine: Engine
    name: str
    directory: Path
    env: Mapping[str, str] = field(default_factory=dict)

    def run(
        self,
        *args: str,
        profiles: Iterable[str] = (),
        env: Mapping[str, str] | None = None,
        timeout: float = 600,
        check: bool = True,
    ) -> subprocess.CompletedProcess[str]:
        """`docker compose -p NAME [--profile P]... ARGS` against the engine."""
        argv = [compose_binary(), "--project-directory", str(self.directory)]
        argv += ["-f", str(self.directory / COMPOSE_FILE), "-p", self.name]
        for profile in profiles:
            argv += ["--profile", profile]
        result = subprocess.run(
            [*argv, *args],
            cwd=self.directory,
            env=self.engine.env({**self.env, **(env or {})}),
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        if check and result.returncode != 0:
            raise ComposeFailed(
                f"docker compose {' '.join(args)} exited with status {result.returncode}:\n"
                f"{_tail(result.stdout + result.stderr)}"
            )
        return result

    def build(self, profiles: Sequence[str], timeout: float = 1200) -> float:
        """Build the images of the profiles' services; the seconds it took."""
        started = time.monotonic()
        self.run("build", profiles=profiles, timeout=timeout)
        return time.monotonic() - started

    def up(
        self,
        profiles: Sequence[str],
        services: Sequence[str] = (),
        env: Mapping[str, str] | None = None,
        wait: int = 300,
    ) -> float:
        """`up --detach --wait` of the profiles (or of `services` in them) with the images
        already built (nothing is built or pulled); the seconds until every service was
        healthy (or had completed).
        ComposeFailed, with every container's state and log, when one was not within
        `wait` seconds."""
        started = time.monotonic()
        result = self.run(
            "up", "--detach", "--wait", "--wait-timeout", str(wait),
            "--no-build", "--pull", "never", *services,
            profiles=profiles, env=env, timeout=wait + 120, check=False,
        )  # fmt: skip
        if result.returncode != 0:
            raise ComposeFailed(
                f"docker compose {' '.join(f'--profile {p}' for p in profiles)} up --wait "
                f"exited with status {result.returncode}:\n{_tail(result.stderr)}\n\n"
                f"{self.report()}"
            )
        return time.monotonic() - started

    def report(self) -> str:
        """Every container's state and its last log lines."""
        states = self.run("ps", "--all", "--format", "{{.Service}}: {{.Status}}", check=False)
        logs = self.run("logs", "--no-color", "--tail", str(LOG_LINES), check=False)
        return f"containers:\n{states.stdout}\nlogs (last {LOG_LINES} lines each):\n{logs.stdout}"

    def logs(self, service: str) -> str:
        return self.run("logs", "--no-color", "--no-log-prefix", service, check=False).stdout

    def exit_code(self, service: str) -> int:
        """The exit status of the service's (one) container."""
        container = self.run("ps", "--all", "--quiet", service).stdout.split()
        if len(container) != 1:
            raise ComposeFailed(f"{service} has {len(container)} containers, not one")
        inspected = self.engine.docker("inspect", "--format", "{{.State.ExitCode}}", container[0])
        return int(inspected.stdout)

    def down(self, timeout: float = 300) -> None:
        """`down --volumes --remove-orphans` of every profile: containers, networks, volumes."""
        self.run("down", "--volumes", "--remove-orphans", profiles=["*"], timeout=timeout)

    def leftovers(self) -> dict[str, list[str]]:
        """The project's containers, volumes and networks still in the engine."""
        label = f"label={PROJECT_LABEL}={self.name}"
        found = {
            "containers": self.engine.docker("ps", "--all", "--quiet", "--filter", label),
            "volumes": self.engine.docker("volume", "ls", "--quiet", "--filter", label),
            "networks": self.engine.docker("network", "ls", "--quiet", "--filter", label),
        }
        return {kind: result.stdout.split() for kind, result in found.items() if result.stdout}


def _tail(text: str, lines: int = 60) -> str:
    return "\n".join(text.strip().splitlines()[-lines:])
