"""A family's reliability targets (loadtests/families/<family>.toml): its outage
drills, its drills against the containers, and what `servelab fuzz`, `servelab soak` and
`servelab probe` (its [faults] and [coldstart]) run on it.

A target names one of the family's bench variants (`variant`: the matrix's
`[variants.<name>]` gives its profile, service and env, the target's `env` added over it)
or, for a stack no variant runs, its own `profile` and `service`. A coldstart's `shape`
takes its rate and VUs from the matrix's `[shapes.<shape>]`.
"""

from __future__ import annotations

import signal
from collections.abc import Callable, Sequence
from typing import Annotated, Any, Literal, TypeVar, get_args

from pydantic import AfterValidator, Field, StringConstraints, model_validator

from servelab.project import Project
from servelab.spec.family import Spec, SpecError, families, read_spec, validate

Kind = Literal["kill", "kill-worker", "sigterm", "rolling-restart", "nginx-reload"]
# Report text written over several lines in the spec, read as one line.
OneLine = Annotated[str, AfterValidator(lambda text: " ".join(text.split()))]
KINDS: tuple[str, ...] = get_args(Kind)


class TargetStack(Spec):
    """What a target starts: `Stack(profile, only=[service], env=env)`; `variant` names the
    bench variant it is, where it is one."""

    variant: str = ""
    profile: str
    service: str
    env: dict[str, str] = Field(default_factory=dict)


class Served(TargetStack):
    """A stack whose processes a probe reads: `servers`, the services whose process groups
    it watches (default: the one its requests go to)."""

    servers: tuple[str, ...] = ()

    @property
    def watched(self) -> tuple[str, ...]:
        return self.servers or (self.service,)


class Drill(Spec):
    """An outage drill: k6 at `rate` requests/s to `service` for `duration_s` while the
    runner acts on the stack as `kind` says (servelab.reliability.outage.actions): `kill`
    (SIGKILL `victim`'s process group at kill_at_s, start it again at restart_at_s),
    `kill-worker` (SIGKILL one of the victim's workers at at_s: a process `depth` levels
    below its master whose command line holds `worker_match`), `sigterm` (`stop_signal` to
    the victim's master at at_s, as Docker and Kubernetes stop a container, then start it
    again once it has exited), `rolling-restart` (from at_s, each of `victims` in turn:
    SIGTERM, exit, start again, healthy) and `nginx-reload` (SIGHUP the victim, an nginx,
    at at_s). The victim is the service k6 sends to unless named."""

    name: str
    title: str
    profile: str
    service: str
    victim: str = ""
    endpoint: str
    rate: int = Field(gt=0)
    duration_s: float
    kill_at_s: float = 0.0
    restart_at_s: float = 0.0
    env: dict[str, str] = Field(default_factory=dict)
    notes: Annotated[str, StringConstraints(strip_whitespace=True)] = ""
    kind: Kind = "kill"
    at_s: float = 0.0
    depth: int = 1
    worker_match: str = ""
    victims: tuple[str, ...] = ()
    method: Annotated[str, StringConstraints(to_upper=True)] = "GET"
    body_file: str = ""  # relative to loadtests/
    content_type: str = ""
    # False: a new connection per request. Over a kept-alive connection k6 (Go's HTTP
    # client) sends a GET again when the connection breaks before its answer, so a request
    # the server lost shows only as a slow answer.
    keep_alive: bool = True
    stop_signal: str = "SIGTERM"
    variant: str = ""

    @model_validator(mode="before")
    @classmethod
    def _victim(cls, raw: Any) -> Any:
        if isinstance(raw, dict) and raw.get("kind") != "rolling-restart":
            return {"victim": raw.get("service", ""), **raw}
        return raw

    @model_validator(mode="after")
    def _schedule(self) -> Drill:
        if self.kind == "kill":
            if not 0 < self.kill_at_s < self.restart_at_s < self.duration_s:
                raise ValueError("needs 0 < kill_at_s < restart_at_s < duration_s")
        elif not 0 < self.at_s < self.duration_s:
            raise ValueError("needs 0 < at_s < duration_s")
        if self.kind == "rolling-restart" and not self.victims:
            raise ValueError("a rolling-restart needs victims")
        if self.stop_signal not in signal.Signals.__members__:
            raise ValueError(f"no signal {self.stop_signal!r}")
        return self


ContainerKind = Literal[
    "docker-kill", "crash", "down-up", "kill-upload", "restart-dependency", "oom"
]
CONTAINER_KINDS: tuple[str, ...] = get_args(ContainerKind)


class ContainerDrill(Spec):
    """A drill against the compose stack under a real Docker engine
    (`servelab container-drill`): `services` of `profile` up with `docker compose up
    --wait`, k6 at `rate` requests/s to `service`'s published port for `duration_s`, and at
    `at_s` the runner acts on `victim` (default: `service`) as `kind` says
    (servelab.reliability.containers.actions): `docker-kill` (`docker kill`, then wait for
    the restart policy), `crash` (SIGKILL of the container's main process from the host,
    as a crash or the OOM killer ends it), `kill-upload` (a crash with `uploads` uploads of
    `upload_bytes` in flight), `down-up` (`docker compose down` keeping the named volumes,
    then `up --wait`), `restart-dependency` (`docker restart` of a database or cache) or
    `oom` (a process in the container writing `oom_bytes`, past its memory limit).
    `goal_s` is how soon the stack must serve again; `seed` objects are stored through the
    files service before the load (`{id}` in the endpoint is the first) and read back byte
    for byte after it; `store` the named volume of its object store, read afterwards;
    `entries` whether the entry editor's entries are listed before and after (each the
    same, not created again)."""

    name: str
    title: str
    kind: ContainerKind
    profile: str
    service: str
    services: tuple[str, ...] = ()
    victim: str = ""
    endpoint: str
    method: Annotated[str, StringConstraints(to_upper=True)] = "GET"
    body_file: str = ""  # relative to loadtests/
    content_type: str = ""
    rate: int = Field(gt=0)
    duration_s: float
    at_s: float
    goal_s: float = 30.0
    env: dict[str, str] = Field(default_factory=dict)
    seed: int = 0
    store: str = ""
    entries: bool = False
    oom_bytes: int = 0
    uploads: int = 0
    upload_bytes: int = 0
    notes: OneLine = ""

    @model_validator(mode="before")
    @classmethod
    def _defaults(cls, raw: Any) -> Any:
        if isinstance(raw, dict):
            service = raw.get("service", "")
            return {"victim": service, "services": [service], **raw}
        return raw

    @model_validator(mode="after")
    def _schedule(self) -> ContainerDrill:
        if not 0 < self.at_s < self.duration_s:
            raise ValueError("needs 0 < at_s < duration_s")
        if self.service not in self.services or self.victim not in self.services:
            raise ValueError("services must hold service and victim")
        if self.kind == "kill-upload" and not (self.uploads and self.upload_bytes and self.store):
            raise ValueError("a kill-upload needs uploads, upload_bytes and store")
        if self.kind == "oom" and not self.oom_bytes:
            raise ValueError("an oom drill needs oom_bytes")
        return self


class FuzzTarget(Spec):
    """A service whose port is fuzzed (the stack's own unless named), the server that
    answers there in words, and the path of its OpenAPI document (none: only the
    hand-written cases run)."""

    service: str
    server: str
    openapi: str | None = None


class FuzzStack(TargetStack):
    targets: tuple[FuzzTarget, ...] = Field(min_length=1)


class Fuzz(Spec):
    """What `servelab fuzz` runs on a family: its stacks, and the paths its hand-written
    cases aim at: `read` a GET that takes a query, `ids` GET paths with an `{id}`
    placeholder, `upload` a POST that stores a raw body of `upload_type` (none: the family
    takes no raw upload), `range` whether stored objects answer Range, `bomb` which
    decompression bomb to post, `database` whether the stacks need a scratch database,
    `images` every path that decodes a posted image, `json_bodies` every (method, path)
    that parses a JSON body (`{id}` an object that exists), `delete_race` whether objects
    stored through `upload` are downloaded while a DELETE removes them, `heads` the GET
    paths HEAD is tried on (none: `read` and `ids`), `notes` what the report says about
    failures the family cannot fix, `schema_pass_s` how long one pass of the schema runs
    takes (the plan's estimate)."""

    family: str
    stacks: tuple[FuzzStack, ...] = Field(min_length=1)
    read: str
    ids: tuple[str, ...] = ()
    upload: str | None = None
    upload_type: str = "application/octet-stream"
    range: bool = False
    bomb: Literal["gzip", "png"] | None = None
    database: bool = False
    images: tuple[str, ...] = ()
    json_bodies: tuple[tuple[str, str], ...] = ()
    delete_race: bool = False
    heads: tuple[str, ...] | None = None
    notes: OneLine = ""
    schema_pass_s: float = 0.0


class Soak(Served):
    """What `servelab soak` loads: the variant (whose saved cells give its capacity) at half
    its capacity on `endpoint` ({id}: a file uploaded first), measured by the cells whose
    endpoint starts with `cell_endpoint`, its `servers` sampled; `temp_dirs` the volumes'
    subdirectories of temporary files,
    `database` an entry editor stack (a scratch database, its connections counted),
    `json_body` a file under loadtests/ POSTed to the endpoint (none: a GET)."""

    family: str
    variant: str
    endpoint: str
    cell_endpoint: str
    temp_dirs: tuple[str, ...] = ()
    database: bool = False
    json_body: str | None = None

    @property
    def request(self) -> str:
        return f"{'POST' if self.json_body else 'GET'} {self.endpoint}"


class Coldstart(Spec):
    """What `servelab probe coldstart` runs on a family: each of `stacks` started cold,
    then `script` (loadtests/) at `rate` requests/s from `vus` pre-allocated VUs up to
    `max_vus`, with `env`. The VUs ready at the start hold a quarter second of requests in
    flight (a wait's whole second): k6 makes more only after a request finds none free,
    and drops the requests meanwhile. `server_env` is what each stack starts with (and k6
    reads too, as the benchmark hands it); `database`: a scratch database for each."""

    family: str
    stacks: tuple[TargetStack, ...] = Field(min_length=1)
    script: str
    request: str  # what the report says is sent
    rate: int = Field(gt=0)
    vus: int = Field(gt=0)
    max_vus: int = Field(gt=0)
    env: dict[str, str] = Field(default_factory=dict)
    server_env: dict[str, str] = Field(default_factory=dict)
    database: bool = False


class Dependency(Spec):
    """A dependency `servelab probe dependencies` cuts and stalls: its compose `service`,
    reached through a proxy to `attached` (the machine's server it stands for) or, without
    one, to the stack's own; `endpoint` what the load asks for (an answer that needs it),
    `during` what each answer in the outage should be; `spot` a request sent by hand
    mid-outage (`{n}`: a number no one asked for before; default: `endpoint`) that must be
    a fast 503 JSON with Retry-After or, where `spot_2xx`, may be served."""

    name: str
    service: str
    attached: Literal["mariadb", "redis"] | None = None
    endpoint: str
    during: str
    spot: str = ""
    spot_2xx: bool = True


class Schedule(Spec):
    """A run at `rate` requests/s for `duration_s`, the dependency down from cut_at_s until
    restore_at_s."""

    rate: int = Field(gt=0)
    duration_s: float
    cut_at_s: float
    restore_at_s: float

    @model_validator(mode="after")
    def _order(self) -> Schedule:
        if not 0 < self.cut_at_s < self.restore_at_s < self.duration_s:
            raise ValueError("needs 0 < cut_at_s < restore_at_s < duration_s")
        return self


class Dependencies(Spec):
    """`servelab probe dependencies` on a family: each of `stacks` (an nginx in front, a
    scratch database) under `schedule`'s load, each of `outages` cut, then stalled; `notes`
    what the report says of how they are reached and what ends a wait."""

    family: str
    notes: OneLine = ""
    stacks: tuple[TargetStack, ...] = Field(min_length=1)
    outages: tuple[Dependency, ...] = Field(min_length=1)
    schedule: Schedule


class StoreFaults(Spec):
    """`servelab probe disk-full` and `aborts` on a family: each of `stacks` with its object
    store, the compose volume `volume`, in a directory the probe reads (and mounts a small
    tmpfs on)."""

    family: str
    stacks: tuple[Served, ...] = Field(min_length=1)
    volume: str


class Faults(Spec):
    dependencies: Dependencies | None = None
    store: StoreFaults | None = None


class Reliability(Spec):
    drills: dict[str, Drill] = Field(default_factory=dict)
    container_drills: dict[str, ContainerDrill] = Field(default_factory=dict)
    fuzz: Fuzz | None = None
    soak: Soak | None = None
    coldstart: Coldstart | None = None
    faults: Faults = Field(default_factory=Faults)


def _stack(raw: dict[str, Any], variants: dict[str, Any], where: str) -> dict[str, Any]:
    """`raw` with the profile, service and env of the variant it names."""
    if "variant" not in raw:
        return raw
    name = raw["variant"]
    if name not in variants:
        known = ", ".join(variants) or "none"
        raise SpecError(f"{where}: no variant {name!r} in the family's matrix (known: {known})")
    if "profile" in raw or "service" in raw:
        raise SpecError(f"{where}: a variant, or a profile and service, not both")
    variant = variants[name]
    env = {**variant.get("env", {}), **raw.get("env", {})}
    return {**raw, "profile": variant.get("profile"), "service": variant.get("service"), "env": env}


def _stacks(raw: dict[str, Any], variants: dict[str, Any], where: str) -> dict[str, Any]:
    """`raw` with its `stacks`: those of the `variants` it names, then its own, each with
    the `stack_env` it gives over its own env."""
    raw = dict(raw)
    env = raw.pop("stack_env", {})
    stacks = [{"variant": name} for name in raw.pop("variants", [])] + raw.pop("stacks", [])
    resolved = [_stack(stack, variants, where) for stack in stacks]
    return {**raw, "stacks": [{**s, "env": {**s.get("env", {}), **env}} for s in resolved]}


def reliability(project: Project, family: str) -> Reliability:
    """The family's reliability targets, every variant and shape they name resolved;
    SpecError (one line) for a bad one."""
    spec = read_spec(project, family)
    variants = spec.get("variants", {})
    where = f"{family}.toml"
    drills = {
        name: _stack({"title": name, **raw, "name": name}, variants, f"{where}: drills.{name}")
        for name, raw in spec.get("drills", {}).items()
    }
    containers = {
        name: {"title": name, **raw, "name": name}
        for name, raw in spec.get("container_drills", {}).items()
    }
    joined: dict[str, Any] = {"drills": drills, "container_drills": containers}
    if "fuzz" in spec:
        fuzz = _stacks(spec["fuzz"], variants, f"{where}: fuzz.stacks")
        for stack in fuzz["stacks"]:  # a target's service: its stack's, unless named
            targets = stack.get("targets", [])
            stack["targets"] = [{"service": stack["service"], **target} for target in targets]
        joined["fuzz"] = {**fuzz, "family": family}
    if "soak" in spec:
        joined["soak"] = {**_stack(spec["soak"], variants, f"{where}: soak"), "family": family}
    if "coldstart" in spec:
        cold = dict(spec["coldstart"])
        if (shape := cold.pop("shape", None)) is not None:
            if shape not in spec.get("shapes", {}):
                raise SpecError(
                    f"{where}: coldstart.shape: no [shapes.{shape}] in the family's matrix"
                )
            cold |= {key: spec["shapes"][shape][key] for key in ("rate", "max_vus")}
        joined["coldstart"] = {**_stacks(cold, variants, f"{where}: coldstart"), "family": family}
    joined["faults"] = {
        name: {**_stacks(raw, variants, f"{where}: faults.{name}"), "family": family}
        for name, raw in spec.get("faults", {}).items()
    }
    return validate(Reliability, joined, where)


def every_reliability(project: Project) -> dict[str, Reliability]:
    """Every family's reliability targets, in the families' order."""
    return {family: reliability(project, family) for family in families(project)}


T = TypeVar("T")


def chosen(
    project: Project, part: Callable[[Reliability], T | None], what: str, names: Sequence[str] = ()
) -> dict[str, T]:
    """`part` of each family named (default: every family that has it), by family; SpecError
    naming the first family named without it."""
    every = {
        family: found
        for family, spec in every_reliability(project).items()
        if (found := part(spec)) is not None
    }
    if unknown := [name for name in names if name not in every]:
        raise SpecError(f"no {what} for family {unknown[0]!r} (known: {', '.join(every)})")
    return {name: every[name] for name in names or every}
