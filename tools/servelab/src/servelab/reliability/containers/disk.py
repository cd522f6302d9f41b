"""What a drill left on disk: the files service's object store read from its named volume
on the engine's side (faults.files_stack.Store: complete objects, and any temp file, blob
without metadata or metadata without blob), and a container's writable layer (`docker
diff`)."""

from __future__ import annotations

from pathlib import Path

from servelab.reliability.containers.deployed import Deployed
from servelab.reliability.faults.files_stack import Store

# The engine's own: `init: true` mounts its docker-init there, which `docker diff` lists.
_ENGINE_PATHS = frozenset({"C /usr", "C /usr/sbin", "A /usr/sbin/docker-init"})


def volume_dir(deployed: Deployed, volume: str) -> Path:
    """Where the engine keeps the project's named volume `volume` (compose names it
    <project>_<volume>)."""
    name = f"{deployed.project.name}_{volume}"
    inspected = deployed.project.engine.docker(
        "volume", "inspect", "--format", "{{.Mountpoint}}", name
    )
    return Path(inspected.stdout.strip())


def read_store(deployed: Deployed, volume: str) -> Store:
    """The object store on the named volume `volume`."""
    return Store.of(volume_dir(deployed, volume))


def layer_changes(deployed: Deployed, service: str) -> list[str]:
    """The paths the service's container changed in its writable layer (`docker diff`),
    but the engine's own."""
    container = deployed.container(service)
    changed = deployed.project.engine.docker("diff", container).stdout.splitlines()
    return [line for line in changed if line not in _ENGINE_PATHS]
