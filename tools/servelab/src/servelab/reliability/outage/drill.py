"""An outage drill (loadtests/outage/<drill>.toml): what to load, what to do to the stack,
and when.

`kind` names the runner's action (servelab.reliability.outage.actions): `kill` (the default: SIGKILL
the victim's process group at kill_at_s, start it again at restart_at_s), `kill-worker`
(SIGKILL one of the victim's workers at at_s: a process `depth` levels below its master),
`sigterm` (SIGTERM the victim's master at at_s, as Docker and Kubernetes stop a container,
then start it again once it has exited), `rolling-restart` (at at_s, each of `victims` in
turn: SIGTERM, exit, start again, healthy) and `nginx-reload` (SIGHUP the victim, an
nginx, at at_s).
"""

from __future__ import annotations

import signal
from collections.abc import Mapping, Sequence
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
    kill_at_s: float = 0.0
    restart_at_s: float = 0.0
    env: Mapping[str, str] = field(default_factory=dict)
    notes: str = ""
    kind: str = "kill"
    at_s: float = 0.0  # when the runner acts (every kind but `kill`)
    depth: int = 1  # kill-worker: how far below the master the workers are
    worker_match: str = ""  # kill-worker: a worker's command line contains this
    victims: Sequence[str] = ()  # rolling-restart: the replicas, in order
    method: str = "GET"
    body_file: str = ""  # relative to loadtests/
    content_type: str = ""
    # False: a new connection per request. Over a kept-alive connection k6 (Go's HTTP
    # client) sends a GET again when the connection breaks before its answer, so a request
    # the server lost shows only as a slow answer.
    keep_alive: bool = True
    # sigterm: the signal `docker stop` sends, the image's STOPSIGNAL (nginx's: SIGQUIT).
    stop_signal: str = "SIGTERM"

    def k6_env(self, base_url: str) -> dict[str, str]:
        return {
            "BASE_URL": base_url,
            "ENDPOINT": self.endpoint,
            "SHAPE": "vegeta",
            "RATE": str(self.rate),
            "DURATION": f"{self.duration_s:g}s",
            **({"METHOD": self.method} if self.method != "GET" else {}),
            **({"BODY_FILE": self.body_file} if self.body_file else {}),
            **({"CONTENT_TYPE": self.content_type} if self.content_type else {}),
            **({} if self.keep_alive else {"NO_REUSE": "1"}),
        }


KINDS = ("kill", "kill-worker", "sigterm", "rolling-restart", "nginx-reload")


def parse_drill(name: str, raw: Mapping[str, Any]) -> Drill:
    def need(key: str) -> Any:
        return require(raw, key, f"outage drill {name}", DrillError)

    kind = str(raw.get("kind", "kill"))
    if kind not in KINDS:
        raise DrillError(f"outage drill {name}: kind {kind!r} is not one of {', '.join(KINDS)}")
    killing = kind == "kill"
    drill = Drill(
        name=name,
        title=str(raw.get("title", name)),
        profile=str(need("profile")),
        service=str(need("service")),
        victim=str(need("victim")) if kind != "rolling-restart" else str(raw.get("victim", "")),
        endpoint=str(need("endpoint")),
        rate=int(need("rate")),
        duration_s=float(need("duration_s")),
        kill_at_s=float(need("kill_at_s")) if killing else 0.0,
        restart_at_s=float(need("restart_at_s")) if killing else 0.0,
        env={str(k): str(v) for k, v in dict(raw.get("env", {})).items()},
        notes=str(raw.get("notes", "")).strip(),
        kind=kind,
        at_s=0.0 if killing else float(need("at_s")),
        depth=int(raw.get("depth", 1)),
        worker_match=str(raw.get("worker_match", "")),
        victims=[str(v) for v in need("victims")] if kind == "rolling-restart" else (),
        method=str(raw.get("method", "GET")).upper(),
        body_file=str(raw.get("body_file", "")),
        content_type=str(raw.get("content_type", "")),
        keep_alive=bool(raw.get("keep_alive", True)),
        stop_signal=str(raw.get("stop_signal", "SIGTERM")),
    )
    if killing and not 0 < drill.kill_at_s < drill.restart_at_s < drill.duration_s:
        raise DrillError(f"outage drill {name}: needs 0 < kill_at_s < restart_at_s < duration_s")
    if drill.stop_signal not in signal.Signals.__members__:
        raise DrillError(f"outage drill {name}: no signal {drill.stop_signal!r}")
    if not killing and not 0 < drill.at_s < drill.duration_s:
        raise DrillError(f"outage drill {name}: needs 0 < at_s < duration_s")
    return drill


def load_drill(project_dir: Path, name: str) -> Drill:
    return parse_drill(name, read_named(drill_dir(project_dir), name, "outage drill", DrillError))
