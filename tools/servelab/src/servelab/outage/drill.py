"""An outage drill (loadtests/outage/<drill>.toml): what to load, what to kill, and when."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from servelab.project import drill_dir
from servelab.tables import read_named, require


class DrillError(RuntimeError):
    """The drill file is incomplete, or the drill could not run."""


@dataclass(frozen=True)
class Drill:
    name: str
    title: str
    profile: str
    service: str  # the service k6 sends to
    victim: str  # the service killed and started again
    endpoint: str
    rate: int
    duration_s: float
    kill_at_s: float
    restart_at_s: float
    env: Mapping[str, str] = field(default_factory=dict)
    notes: str = ""

    def k6_env(self, base_url: str) -> dict[str, str]:
        return {
            "BASE_URL": base_url,
            "ENDPOINT": self.endpoint,
            "SHAPE": "vegeta",
            "RATE": str(self.rate),
            "DURATION": f"{self.duration_s:g}s",
        }


def parse_drill(name: str, raw: Mapping[str, Any]) -> Drill:
    def need(key: str) -> Any:
        return require(raw, key, f"outage drill {name}", DrillError)

    drill = Drill(
        name=name,
        title=str(raw.get("title", name)),
        profile=str(need("profile")),
        service=str(need("service")),
        victim=str(need("victim")),
        endpoint=str(need("endpoint")),
        rate=int(need("rate")),
        duration_s=float(need("duration_s")),
        kill_at_s=float(need("kill_at_s")),
        restart_at_s=float(need("restart_at_s")),
        env={str(k): str(v) for k, v in dict(raw.get("env", {})).items()},
        notes=str(raw.get("notes", "")).strip(),
    )
    if not 0 < drill.kill_at_s < drill.restart_at_s < drill.duration_s:
        raise DrillError(f"outage drill {name}: needs 0 < kill_at_s < restart_at_s < duration_s")
    return drill


def load_drill(project_dir: Path, name: str) -> Drill:
    return parse_drill(name, read_named(drill_dir(project_dir), name, "outage drill", DrillError))
