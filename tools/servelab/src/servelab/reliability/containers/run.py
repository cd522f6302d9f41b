"""A container drill from start to end: the private engine, the drill's images built and
its services up, k6 beside the action, the volumes read back, `down -v`."""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from servelab.containers.compose import ComposeProject
from servelab.containers.engine import Engine, cache_dir, private_engine
from servelab.project import Project
from servelab.reliability.containers.actions import ACTIONS, UP_WAIT_S
from servelab.reliability.containers.answers import Seen, read_answers, seen
from servelab.reliability.containers.deployed import Deployed
from servelab.reliability.containers.disk import layer_changes, read_store
from servelab.reliability.containers.objects import (
    Entry,
    compare_entries,
    entries,
    missing,
    seed,
)
from servelab.reliability.containers.verdicts import judge
from servelab.reliability.outage.actions import Acted
from servelab.reliability.outage.run import load_beside
from servelab.reliability.rows import Row
from servelab.spec.reliability import ContainerDrill
from servelab.stack.compose import load_project

# A writable layer's changes shown in a row, at most.
SHOWN_PATHS = 5
# A loopback address of the drills' own: a server on 127.0.0.1 holding a published port
# cannot fail the `up`.
ADDRESS = "127.0.92.1"
# What differs from a user's defaults, each a variable compose.yaml reads: the private
# engine's builds need the host's network, and root here may not raise a container's open
# files to 65536.
ENGINE_ENV = {"BUILD_NETWORK": "host", "NOFILE_LIMIT": "20000", "PUBLISH_ADDRESS": ADDRESS}


@contextmanager
def engine(project: Project) -> Iterator[Engine]:
    """servelab's private engine, on the data root its images are kept in."""
    with private_engine(cache_dir(project.settings) / "docker") as started:
        yield started


@dataclass(frozen=True)
class Ran:
    drill: ContainerDrill
    seen: Seen
    acted: Acted
    disk: str
    row: Row
    command: list[str]


def _env(drill: ContainerDrill) -> dict[str, str]:
    token = secrets.token_urlsafe(24)
    return {**ENGINE_ENV, "API_TOKEN": token, **drill.env}


def _k6_env(drill: ContainerDrill, url: str, endpoint: str) -> dict[str, str]:
    """outage.js's environment: a new connection per request, so that every request a
    dead container loses counts (over a kept-alive one, k6 sends a GET again)."""
    return {
        "BASE_URL": url,
        "ENDPOINT": endpoint,
        "SHAPE": "vegeta",
        "RATE": str(drill.rate),
        "DURATION": f"{drill.duration_s:g}s",
        "NO_REUSE": "1",
        **({"METHOD": drill.method} if drill.method != "GET" else {}),
        **({"BODY_FILE": drill.body_file} if drill.body_file else {}),
        **({"CONTENT_TYPE": drill.content_type} if drill.content_type else {}),
    }


def _entries(deployed: Deployed, before: dict[str, Entry], acted: Acted) -> tuple[str, bool]:
    fared = compare_entries(before, entries(deployed.url))
    acted.figures |= {"entries": len(before), "entries_same": fared["same"]}
    shown = ", ".join(f"{count} {how}" for how, count in fared.items() if count)
    return f"of the {len(before)} entries listed before: {shown}", fared["same"] == len(before)


def _disk(
    deployed: Deployed,
    drill: ContainerDrill,
    stored: dict[str, str],
    listed: dict[str, Entry],
    acted: Acted,
) -> tuple[str, bool]:
    """What was left on disk in words, and whether it meets the goal: every object stored
    before back byte for byte, as many objects as were answered 201, nothing else left in
    the store; every entry listed before the same; for a service without either, its
    writable layer."""
    if drill.entries:
        return _entries(deployed, listed, acted)
    if drill.store:
        store = read_store(deployed, drill.store)
        gone = missing(deployed.url, deployed.token, stored)
        expected = len(stored) + int(acted.figures.get("uploads_stored", 0))
        acted.figures |= {"objects": store.objects, "objects_lost": len(gone)}
        acted.figures["leftovers"] = len(store.leftovers)
        left = ", ".join(f"`{path}`" for path in store.leftovers) or "nothing else"
        words = (
            f"{store.objects} objects (expected {expected}); {len(gone)} of the "
            f"{len(stored)} stored before not back byte for byte; left beside them: {left}"
        )
        return words, not gone and not store.leftovers and store.objects == expected
    changed = layer_changes(deployed, drill.victim)
    if not changed:
        return f"`{drill.victim}`'s writable layer unchanged", True
    paths = ", ".join(f"`{line}`" for line in changed[:SHOWN_PATHS])
    more = f" and {len(changed) - SHOWN_PATHS} more" if len(changed) > SHOWN_PATHS else ""
    return f"`{drill.victim}`'s writable layer changed: {paths}{more}", True


def execute(project: Project, drill: ContainerDrill, docker: Engine) -> Ran:
    """Run the drill in `docker`; its project is taken down with its volumes afterwards."""
    env = _env(drill)
    compose = ComposeProject(docker, f"servelab-drill-{os.getpid()}", project.root, env)
    profiles = (drill.profile,)
    compose.run("build", *drill.services, profiles=profiles, timeout=1200)
    work = project.work("container-drill", drill.name)
    work.mkdir(parents=True, exist_ok=True)
    try:
        compose.up(profiles, drill.services, wait=UP_WAIT_S)
        port = load_project(project, profiles, env).services[drill.service].published_port
        url = f"http://{ADDRESS}:{port}"
        deployed = Deployed(compose, profiles, url, env["API_TOKEN"])
        stored = seed(url, deployed.token, drill.seed)
        listed = entries(url) if drill.entries else {}
        endpoint = drill.endpoint.replace("{id}", next(iter(stored), ""))
        done: list[Acted] = []
        action = ACTIONS[drill.kind]
        _, command = load_beside(
            project,
            _k6_env(drill, url, endpoint),
            work,
            lambda started: done.append(action(deployed, drill, started)),
        )
        acted = done[0]
        what = seen(read_answers(work / "answers.csv"), acted.marks[0][1])
        disk, disk_ok = _disk(deployed, drill, stored, listed, acted)
    finally:
        (work / "containers.log").write_text(compose.report())
        compose.down()
    row = judge(drill, what, acted.figures, disk, disk_ok)
    return Ran(drill, what, acted, disk, row, command)
