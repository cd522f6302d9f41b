"""What `servelab soak FAMILY` loads: one deploy variant and one endpoint per family (a GET,
or a POST of a committed body where the family's endpoints are POST-only), and the rate,
half the variant's measured capacity (docs/results/<family>.json's best cell for that
variant and endpoint, in successful answers per second)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from servelab.project import reference_dir, results_dir


class SoakError(RuntimeError):
    """No such family, or no capacity to take half of."""


@dataclass(frozen=True)
class Target:
    family: str
    variant: str  # the variant's name in docs/results/<family>.json
    profile: str
    front: str  # the service k6 sends to
    servers: tuple[str, ...]  # the services whose process groups are sampled
    endpoint: str  # what k6 asks for; {id}: a file uploaded first
    cell_endpoint: str  # the cells of docs/results/<family>.json that measured it
    env: dict[str, str] = field(default_factory=dict)
    temp_dirs: tuple[str, ...] = ()  # volumes' subdirectories holding temporary files
    database: bool = False  # an entry editor stack: a scratch database, its connections counted
    json_body: str | None = None  # a file under loadtests/ POSTed to the endpoint, or a GET

    @property
    def request(self) -> str:
        return f"{'POST' if self.json_body else 'GET'} {self.endpoint}"


TARGETS = {
    "files": Target(
        "files",
        "uvicorn",
        "uvicorn",
        "files-uvicorn",
        ("files-uvicorn",),
        "/files/{id}",
        "GET /files/{id}",
        {"ACCESS_LOG": "0"},
        ("files-data/tmp",),
    ),
    "entryeditor": Target(
        "entryeditor",
        "uwsgi",
        "uwsgi",
        "entryeditor-nginx",
        ("entryeditor-nginx", "entryeditor-uwsgi", "entryeditor-compute"),
        "/entryeditor/entryeditor/47",
        "detail",
        {"ACCESS_LOG": "0"},
        database=True,
    ),
    # The sample the benchmark sends (loadtests/data/health-code.json), on the recipe's
    # default serving mode (threadpool).
    "health-code": Target(
        "health-code",
        "uvicorn-threadpool",
        "uvicorn",
        "health-code-uvicorn",
        ("health-code-uvicorn",),
        "/analysis/health-code",
        "ab POST /analysis/health-code",
        {"ACCESS_LOG": "0", "ANALYZE_MODE": "threadpool"},
        json_body="data/health-code.json",
    ),
    "hello": Target(
        "hello",
        "uvicorn",
        "uvicorn",
        "hello-uvicorn",
        ("hello-uvicorn",),
        "/hello",
        "GET /hello",
        {"ACCESS_LOG": "0"},
    ),
    "wait": Target(
        "wait",
        "uvicorn",
        "uvicorn",
        "wait-uvicorn",
        ("wait-uvicorn",),
        "/async",
        "hey /async",
        {"ACCESS_LOG": "0"},
    ),
}


def measured_capacity(project_dir: Path, target: Target) -> float | None:
    """The most successful requests/s any saved cell of the target's variant and endpoint
    measured, in this run's results or else the committed reference's (a constant-rate
    cell past capacity sheds the rest: its failed share is not capacity)."""
    saved = f"{target.family}.json"
    path = results_dir(project_dir) / saved
    if not path.is_file():
        path = reference_dir(project_dir) / saved
    if not path.is_file():
        return None
    best = 0.0
    for cell in json.loads(path.read_text()).get("cells", []):
        measurement = cell.get("measurement") or {}
        if cell.get("variant") == target.variant and str(cell.get("endpoint", "")).startswith(
            target.cell_endpoint
        ):
            good = float(measurement.get("rps", 0.0)) * (
                1.0 - float(measurement.get("failed_rate", 0.0))
            )
            best = max(best, good)
    return best or None


def target(family: str) -> Target:
    if family not in TARGETS:
        raise SoakError(f"no soak for {family!r} (known: {', '.join(sorted(TARGETS))})")
    return TARGETS[family]
