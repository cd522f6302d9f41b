"""A stack of a family's [faults.store] for a probe (the files service, through its app
server alone or behind nginx): its object store in a directory the probe can look into
(and mount a small tmpfs on)."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path

import httpx2

from servelab.project import Project
from servelab.reliability.stacks import started
from servelab.spec.reliability import Served, StoreFaults
from servelab.stack import Stack, StackError


@dataclass(frozen=True)
class Store:
    """What the object store holds: complete objects, and anything else."""

    objects: int  # blobs with their sidecar
    leftovers: list[str]  # temp files, blobs without a sidecar, sidecars without a blob

    @classmethod
    def of(cls, root: Path) -> Store:
        objects_dir, tmp_dir = root / "objects", root / "tmp"
        names = {path.name for path in objects_dir.iterdir()} if objects_dir.is_dir() else set()
        blobs = {name for name in names if not name.endswith(".json")}
        sidecars = {name.removesuffix(".json") for name in names if name.endswith(".json")}
        temps = [f"tmp/{path.name}" for path in tmp_dir.iterdir()] if tmp_dir.is_dir() else []
        orphans = [f"objects/{name}" for name in sorted(blobs ^ sidecars)]
        return cls(objects=len(blobs & sidecars), leftovers=temps + orphans)


@contextmanager
def mounted_tmpfs(path: Path, size: str) -> Iterator[Path]:
    """A tmpfs of `size` (mount's syntax: 8m) on `path`, unmounted afterwards (needs root)."""
    path.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", str(path)],
        check=True,
        capture_output=True,
    )
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], check=False, capture_output=True)


@contextmanager
def files_stack(
    project: Project, target: StoreFaults, variant: Served, work: Path, tmpfs_size: str = ""
) -> Iterator[tuple[Stack, Path, httpx2.Client]]:
    """The stack, its store's directory (on a tmpfs of `tmpfs_size` if set) and a client of
    its service with its token; the server's log in `work`."""
    run_dir = Path(tempfile.mkdtemp(prefix="servelab-probe-"))
    data = run_dir / "volumes" / target.volume
    data.mkdir(parents=True)
    work.mkdir(parents=True, exist_ok=True)
    try:
        with (
            mounted_tmpfs(data, tmpfs_size) if tmpfs_size else nullcontext(data),
            (work / "server.log").open("w") as server_log,
            started(project, variant, server_log, run_dir=run_dir) as (stack, _),
            httpx2.Client(
                base_url=stack.url(variant.service),
                headers={"Authorization": f"Bearer {stack.api_token}"},
                timeout=30,
            ) as client,
        ):
            yield stack, data, client
    except subprocess.CalledProcessError as error:
        raise StackError(f"cannot mount a tmpfs on {data}: {error.stderr!r}") from None
    finally:
        shutil.rmtree(run_dir, ignore_errors=True)
