"""A drill's compose project under the private engine: its containers' state as `docker
inspect` shows it, and waiting until a container runs and passes its healthcheck again."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from servelab.containers.compose import ComposeFailed, ComposeProject

POLL_S = 0.1


@dataclass(frozen=True)
class State:
    """A container's state: running or not, its health (`healthy`, `starting`,
    `unhealthy`, or "" without a healthcheck), the times the engine restarted it, whether
    the kernel's OOM killer ended its last run, and its main process on the host."""

    container: str
    running: bool
    health: str
    restarts: int
    oom_killed: bool
    exit_code: int
    pid: int

    @property
    def serving(self) -> bool:
        return self.running and self.health in ("healthy", "")


@dataclass
class Deployed:
    """The compose project `project` with `profiles` up; `url` the drill's service on its
    published port, `token` the API token its writes need."""

    project: ComposeProject
    profiles: tuple[str, ...]
    url: str = ""
    token: str = ""

    def container(self, service: str) -> str:
        """The id of the service's one container."""
        found = self.project.run("ps", "--all", "--quiet", service, profiles=self.profiles)
        ids = found.stdout.split()
        if len(ids) != 1:
            raise ComposeFailed(f"{service} has {len(ids)} containers, not one")
        return ids[0]

    def state(self, service: str) -> State:
        container = self.container(service)
        raw: dict[str, Any] = json.loads(
            self.project.engine.docker("inspect", "--format", "{{json .}}", container).stdout
        )
        state = raw["State"]
        return State(
            container=container,
            running=bool(state["Running"]),
            health=(state.get("Health") or {}).get("Status", ""),
            restarts=int(raw.get("RestartCount", 0)),
            oom_killed=bool(state.get("OOMKilled")),
            exit_code=int(state.get("ExitCode", 0)),
            pid=int(state.get("Pid", 0)),
        )

    def wait_serving(self, service: str, timeout_s: float, not_pid: int = 0) -> float | None:
        """Poll until the service's container runs, with a main process other than
        `not_pid` (the one a kill ended), and passes its healthcheck; the time.time() it
        did, None if not within `timeout_s`."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            try:
                state = self.state(service)
                if state.serving and state.pid != not_pid:
                    return time.time()
            except ComposeFailed:
                pass  # between `down` and `up`: no container yet
            time.sleep(POLL_S)
        return None
