"""Run a compose profile as local processes: `with Stack("uvicorn") as stack: ...`.

Each service runs its compose command with its compose environment (plus the
`x-local` overrides) in a process group of its own, on a loopback port the stack
assigns. Services start in dependency order and the stack waits on each one's own
healthcheck, or for a one-shot service (one that another depends on with
`service_completed_successfully`) until it exits 0. A service whose `x-local.server` names
the default address of a database or cache (MariaDB, Redis) runs no container: the stack
uses the server the user names, the machine's at that address, or a private one it starts
and stops with itself (servelab.stack.servers, servelab.stack.attached). A service with
`deploy.replicas: N` runs N processes, `<service>-1` to `<service>-N`, each on a port of
its own; an nginx in front that names `{port:<service>}` in an upstream gets one `server`
line per replica, as a service name that resolves to every replica's address gives it
under Docker. Leaving the context stops every process group it started.
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

from servelab.project import Project
from servelab.stack import attached, groups, nginx
from servelab.stack.compose import ComposeError, Service, load_project
from servelab.stack.logs import LogPump, Sink
from servelab.stack.ports import LOOPBACK, free_port
from servelab.stack.servers import Lease, servers
from servelab.stack.servers.process import ServerError
from servelab.stack.servers.settings import SettingsError
from servelab.stack.watchdog import Watchdog

_PLACEHOLDER = re.compile(r"\{(port|volume|tmp|project):([\w./-]+)\}")
# Passed on from the caller: the locale and home, and where Python packages and the GPU's
# libraries are found (a machine whose packages live outside the venv, as on a GPU host).
_BASE_ENV = (
    "HOME",
    "LANG",
    "LC_ALL",
    "TZ",
    "TMPDIR",
    "USER",
    "PYTHONPATH",
    "LD_LIBRARY_PATH",
    "CUDA_VISIBLE_DEVICES",
)
_POLL = 0.1
_COMPLETED = "service_completed_successfully"
# How long to wait for a database or cache server when its service has no healthcheck.
_ATTACH_S = 30.0


class StackError(RuntimeError):
    """A service could not be started or did not become healthy."""


@dataclass
class Running:
    service: Service
    # The process's name: the service's, or `<service>-<n>` for one of several replicas.
    name: str
    argv: list[str]
    env: dict[str, str]
    process: subprocess.Popen[bytes]
    log: LogPump

    @property
    def pgid(self) -> int:
        return self.process.pid


class Stack:
    """The services of one or more compose profiles, running locally.

    `only` narrows the start to those services and what they depend on; `env` is the
    environment compose interpolates (${WEB_CONCURRENCY} ...); `cpus` pins every process
    the stack starts; `publish` listens on the compose published ports when they are free.
    Volumes and rendered configs live in `run_dir`, kept afterwards, or else in a fresh
    directory under `run_parent` (default: the system temp dir), removed on stop. `log`
    receives every output line as `service | line`. `api_token` is the bearer token the
    services require for writes (docs/security.md): API_TOKEN from `env` or this process's
    environment, else a random one per stack, which tests, k6 and `servelab up` read here.
    `through` gives services another port for the others to reach them by (a proxy in front,
    which a probe can cut): `{port:S}` in a setting names it, while S itself listens on its
    own (or, attached to the machine's server, is prepared there as before). `project`: the
    project whose compose.yaml and settings the stack follows (default: the one found from
    the working directory, as the environment holds it now).
    """

    def __init__(
        self,
        profiles: str | Iterable[str],
        *,
        only: Iterable[str] | None = None,
        env: Mapping[str, str] | None = None,
        cpus: Iterable[int] | None = None,
        publish: bool = False,
        project: Project | None = None,
        run_dir: Path | None = None,
        run_parent: Path | None = None,
        log: Sink | None = sys.stderr,
        through: Mapping[str, int] | None = None,
    ) -> None:
        self.profiles = [profiles] if isinstance(profiles, str) else list(profiles)
        self.only = list(only) if only else None
        self.env = dict(env or {})
        self.api_token = (
            self.env.get("API_TOKEN") or os.environ.get("API_TOKEN") or secrets.token_urlsafe(32)
        )
        self.env["API_TOKEN"] = self.api_token
        self.cpus = frozenset(cpus) if cpus else None
        self.publish = publish
        self.project = project or Project.find()
        self._given_run_dir = run_dir
        self._run_parent = run_parent
        self.run_dir = run_dir or Path()
        self._log = log
        self.through = dict(through or {})
        # Each service's port (a replicated one's first replica's), and each replica's.
        self.ports: dict[str, int] = {}
        # Every process started, by name: a service's, or `<service>-<n>` for its replicas.
        self.running: dict[str, Running] = {}
        self.replicas: dict[str, list[str]] = {}
        # Services served by a database or cache server (x-local.server), by address, the
        # server each uses (the user's, the machine's or a private one), and the database
        # each of those has there (MariaDB's MARIADB_DATABASE).
        self.attached: dict[str, attached.Address] = {}
        self.leases: dict[str, Lease] = {}
        self.databases: dict[str, str] = {}
        self._one_shots: set[str] = set()
        self._watchdog: Watchdog | None = None

    def __enter__(self) -> Stack:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def url(self, service: str) -> str:
        return f"http://{LOOPBACK}:{self.port(service)}"

    def port(self, service: str) -> int:
        if service not in self.ports:
            raise StackError(f"{service} has no port (is it started, does it set x-local.port?)")
        return self.ports[service]

    def volume(self, name: str) -> Path:
        return self.run_dir / "volumes" / name

    def container_file(self, service: Service, path: str) -> Path:
        """The local file of `path` inside the service's container: under the directory of
        the named volume mounted there (a local run's secrets, sockets), else `path`."""
        for mount in service.mounts:
            if mount.type == "volume" and (path + "/").startswith(mount.target.rstrip("/") + "/"):
                inside = path[len(mount.target.rstrip("/")) :].lstrip("/")
                return self.volume(mount.source) / inside
        return Path(path)

    def command(self, service: str) -> list[str]:
        return list(self.running[service].argv)

    def replica_ports(self, service: str) -> list[int]:
        """The port of each of the service's processes: one, or one per replica."""
        return [self.port(name) for name in self.replicas.get(service, [service])]

    def process_groups(self) -> dict[str, int]:
        """The process group id of every long-running process this stack started, by
        name (a replica's is `<service>-<n>`): the servers and what they fork, not the
        one-shots (which have exited) nor the database and cache servers it attached to."""
        return {running.name: running.pgid for running in self._servers()}

    def exited(self) -> list[str]:
        """The long-running processes (process_groups' names) that are no longer running."""
        return [running.name for running in self._servers() if running.process.poll() is not None]

    def start(self) -> None:
        try:
            recipes = load_project(self.project, self.profiles, self.env)
            names = recipes.closure(self.only or recipes.services)
        except ComposeError as error:
            raise StackError(str(error)) from error
        if not names:
            raise StackError(f"profile {'/'.join(self.profiles)} has no services")
        if self._given_run_dir is None:
            self.run_dir = Path(tempfile.mkdtemp(prefix="servelab-", dir=self._run_parent))
        for volume in recipes.volumes:
            self.volume(volume).mkdir(parents=True, exist_ok=True)
        self._one_shots = {
            dependency
            for name in names
            for dependency, condition in recipes.services[name].depends_on.items()
            if condition == _COMPLETED
        }
        for name in names:
            self.replicas[name] = _replica_names(recipes.services[name])
        width = max(len(replica) for name in names for replica in self.replicas[name])
        self._watchdog = Watchdog()
        try:
            for name in names:
                service = recipes.services[name]
                if service.local.server:
                    self.ports[name] = self._lease(service).address.port
                elif service.local.port_env:
                    preferred = service.published_port if self.publish else None
                    for replica in self.replicas[name]:
                        self.ports[replica] = free_port(
                            preferred if replica == name else None, self.project.settings
                        )
                    self.ports.setdefault(name, self.ports[self.replicas[name][0]])
            for name in names:
                service = recipes.services[name]
                self._wait_dependencies(service)
                if service.local.server:
                    self._attach(service)
                else:
                    for replica in self.replicas[name]:
                        self._launch(service, replica, width)
            for running in self._servers():
                self._wait_healthy(running, watch=self._servers())
        except BaseException:
            self.stop()
            raise

    def kill(self, service: str) -> None:
        """SIGKILL a running service's whole process group, as a crash would (an outage
        drill). It keeps its port: restart() brings it back where clients expect it."""
        running = self._running(service)
        groups.kill_group(running.pgid, running.process)
        running.log.join(timeout=2)

    def restart(self, service: str) -> None:
        """Start a killed or exited service again, with the same command, environment and
        port, and wait until its healthcheck passes."""
        running = self._running(service)
        if running.process.poll() is None:
            raise StackError(f"{service} is still running: kill it first")
        self._launch(running.service, service, max(len(name) for name in self.running))
        self._wait_healthy(self.running[service])

    def stop(self) -> None:
        """Stop every process group this stack started, last started first, then give back
        its database and cache servers (a private one stops once nothing else holds it)."""
        for running in reversed(list(self.running.values())):
            groups.stop_group(running.pgid, running.service.stop_grace_period, running.process)
            running.process.wait()
            running.log.join(timeout=2)
        self.running.clear()
        for lease in reversed(list(self.leases.values())):
            servers().release(lease)
        self.leases.clear()
        if self._watchdog is not None:
            self._watchdog.release()
            self._watchdog = None
        if self._given_run_dir is None and self.run_dir != Path():
            shutil.rmtree(self.run_dir, ignore_errors=True)

    def _environment(
        self, service: Service, name: str, overrides: Mapping[str, list[str]]
    ) -> dict[str, str]:
        """The container's environment: the service's own, then the local overrides (an
        override naming the port of a replicated service reads its first replica's)."""
        env = {key: os.environ[key] for key in _BASE_ENV if key in os.environ}
        env["PATH"] = os.pathsep.join((str(Path(sys.executable).parent), os.environ["PATH"]))
        env["PYTHONUNBUFFERED"] = "1"
        env.update(service.environment)
        env.update({key: values[0] for key, values in overrides.items()})
        if service.local.port_env:
            env[service.local.port_env] = str(self.ports[name])
        return env

    def tmp(self, service: str, name: str) -> Path:
        """The local stand-in of a path on the tmpfs of the service's process (a replica
        has its own) (`{tmp:NAME}`)."""
        return self.run_dir / "tmp" / service / name

    def _overrides(self, service: Service, name: str) -> dict[str, list[str]]:
        """The service's local overrides for its process `name`, each filled in once, or
        once per replica where it names a replicated service's port."""
        return {key: self._resolve(value, name) for key, value in service.local.environment.items()}

    def _resolve(self, value: str, process: str) -> list[str]:
        replicated = {
            name
            for kind, name in _PLACEHOLDER.findall(value)
            if kind == "port" and len(self.replicas.get(name, ())) > 1
        }
        if len(replicated) > 1:
            raise StackError(f"{value!r} names the ports of several replicated services")
        if not replicated:
            return [self._fill(value, process, {})]
        target = replicated.pop()
        return [self._fill(value, process, {target: replica}) for replica in self.replicas[target]]

    def _fill(self, value: str, process: str, chosen: Mapping[str, str]) -> str:
        """`value` with its placeholders filled in for `process`: `{port:S}` with the port
        of `chosen[S]` where S is chosen (one replica of S), else S's own (or the port
        `through` names for S); `{tmp:NAME}` with an empty directory, as a container's
        tmpfs is on every start (and restart)."""

        def replace(match: re.Match[str]) -> str:
            kind, name = match.groups()
            if kind == "port":
                return str(self.through.get(name) or self.port(chosen.get(name, name)))
            if kind == "tmp":
                path = self.tmp(process, name)
                shutil.rmtree(path, ignore_errors=True)
                path.mkdir(parents=True)
                return str(path)
            if kind == "project":
                return str(self.project.root / name)
            return str(self.volume(name))

        return _PLACEHOLDER.sub(replace, value)

    def _argv(
        self, service: Service, name: str, env: Mapping[str, str], lists: Mapping[str, list[str]]
    ) -> list[str]:
        """The command line of the service's process `name`; `lists`: the overrides with a
        value per replica, for an nginx template's upstream."""
        if service.infrastructure == "nginx":
            prefix = self.run_dir / f"nginx-{name}"
            return nginx.prepare(service, env, prefix, lists)
        if service.built:
            if not service.command:
                raise StackError(f"{service.name}: a built service needs a command to run locally")
            return list(service.command)
        raise StackError(
            f"{service.name}: no local mapping for image {service.image!r} (known: nginx)"
        )

    def _launch(self, service: Service, name: str, width: int) -> None:
        """Start the service's process `name`: the service itself, or one of its replicas."""
        overrides = self._overrides(service, name)
        env = self._environment(service, name, overrides)
        lists = {key: values for key, values in overrides.items() if len(values) > 1}
        try:
            argv = self._argv(service, name, env, lists)
            process = groups.spawn(argv, env=env, cwd=self.project.root, cpus=self.cpus)
        except (ComposeError, ServerError, OSError) as error:
            raise StackError(f"{name}: cannot start: {error}") from error
        assert process.stdout is not None
        log = LogPump(name.ljust(width), process.stdout, self._log)
        self.running[name] = Running(service, name, argv, env, process, log)
        assert self._watchdog is not None
        self._watchdog.watch(process.pid, service.stop_grace_period)

    def _running(self, service: str) -> Running:
        if service not in self.running:
            raise StackError(f"{service} is not a process of this stack")
        return self.running[service]

    def _lease(self, service: Service) -> Lease:
        """The server standing in for the service's image: the user's, the machine's at
        x-local.server, or a private one started now."""
        try:
            kind = attached.kind(service)
            default = attached.address(service)
            lease = servers().acquire(
                kind, default, attached.options(service), self.project.settings
            )
        except (ComposeError, ServerError, SettingsError, OSError) as error:
            raise StackError(str(error)) from error
        self.leases[service.name] = lease
        return lease

    def _attach(self, service: Service) -> None:
        check = service.healthcheck
        deadline = check.start_period + check.interval * check.retries if check else _ATTACH_S
        lease = self.leases[service.name]
        try:
            attached.attach(
                service,
                lease.address,
                lease.describe(),
                deadline,
                lambda path: self.container_file(service, path),
            )
            self.attached[service.name] = lease.address
            name = attached.database(service)
            if name:
                self.databases[service.name] = name
        except (ComposeError, OSError, subprocess.TimeoutExpired) as error:
            raise StackError(str(error)) from error

    def _wait_dependencies(self, service: Service) -> None:
        for dependency, condition in service.depends_on.items():
            if dependency in self.attached:
                continue
            for replica in self.replicas[dependency]:
                if condition == "service_healthy":
                    self._wait_healthy(self.running[replica], watch=self._servers())
                elif condition == _COMPLETED:
                    self._wait_completed(self.running[replica])

    def _wait_completed(self, running: Running) -> None:
        """Wait for a one-shot service to exit; anything but status 0 fails the start."""
        running.process.wait()
        if running.process.returncode != 0:
            _raise_exited(running)

    def _servers(self) -> list[Running]:
        """The started processes that should keep running (every one but the one-shots)."""
        return [
            running
            for running in self.running.values()
            if running.service.name not in self._one_shots
        ]

    def _wait_healthy(self, running: Running, watch: Sequence[Running] = ()) -> None:
        """Poll the healthcheck until it passes. While starting, a server in `watch` that
        exits fails the start at once with its own log: nginx in front of an app server that
        died would otherwise answer 502 to its healthcheck until the deadline."""
        check = running.service.healthcheck
        if check is None or (argv := check.argv) is None:
            _ensure_alive(running)
            return
        deadline = time.monotonic() + check.start_period + check.interval * check.retries
        while True:
            for process in (running, *watch):
                _ensure_alive(process)
            try:
                result = subprocess.run(
                    argv,
                    env=running.env,
                    cwd=self.project.root,
                    capture_output=True,
                    timeout=check.timeout,
                    check=False,
                )
                if result.returncode == 0:
                    return
            except subprocess.TimeoutExpired:
                pass
            if time.monotonic() > deadline:
                raise StackError(
                    f"{running.name} did not become healthy "
                    f"(healthcheck: {' '.join(argv)})\n{running.log.tail()}"
                )
            time.sleep(_POLL)


def _ensure_alive(running: Running) -> None:
    if running.process.poll() is not None:
        _raise_exited(running)


def _raise_exited(running: Running) -> NoReturn:
    running.log.join(timeout=2)
    raise StackError(
        f"{running.name} exited with status {running.process.returncode} "
        f"(command: {' '.join(running.argv)})\n{running.log.tail()}"
    )


def _replica_names(service: Service) -> list[str]:
    """The names of a service's processes: its own, or `<service>-1` to `<service>-N`."""
    if service.replicas < 1:
        raise StackError(f"{service.name}: deploy.replicas is {service.replicas}: nothing to run")
    if service.replicas == 1:
        return [service.name]
    return [f"{service.name}-{index}" for index in range(1, service.replicas + 1)]
