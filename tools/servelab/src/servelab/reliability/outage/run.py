"""k6 at a constant rate (loadtests/outage.js) with something acting beside it: a drill's
runner acting on the stack as its kind says (servelab.reliability.outage.actions), or a
fault probe's timeline of faults (`run_load`)."""

from __future__ import annotations

import os
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from servelab.bench.load.k6 import k6_argv, k6_binary
from servelab.project import LOADTESTS, Project
from servelab.reliability.outage.actions import ACTIONS, Acted
from servelab.reliability.outage.analysis import (
    DrillOutcome,
    Events,
    TimedAnswer,
    analyse,
    read_answers,
)
from servelab.reliability.outage.drill import Drill, k6_env
from servelab.stack import Stack

# How long k6 may run past its load's end before it counts as hung.
_K6_GRACE_S = 60.0


class LoadError(RuntimeError):
    """The load did not run: k6 failed or hung, or what ran beside it failed."""


def load_beside(
    project: Project, env: Mapping[str, str], work: Path, act: Callable[[float], object]
) -> tuple[list[TimedAnswer], list[str]]:
    """k6 running loadtests/outage.js under `env` (its DURATION), `act` called in a thread
    beside it with k6's start (time.monotonic()); every answer k6 got, by arrival, and its
    command line."""
    answers_csv = work / "answers.csv"
    answers_csv.unlink(missing_ok=True)
    argv = k6_argv(
        k6_binary(), LOADTESTS / "outage.js", env, options=["--out", f"csv={answers_csv}"]
    )
    failures: list[Exception] = []
    started = time.monotonic()

    def acting() -> None:
        try:
            act(started)
        except Exception as error:  # the load's failure, raised once k6 is done
            failures.append(error)

    actor = threading.Thread(target=acting)
    actor.start()
    try:
        # The CSV's times in Unix milliseconds, as read_answers reads them.
        result = subprocess.run(
            argv,
            cwd=project.root,
            env={**os.environ, "K6_CSV_TIME_FORMAT": "unix_milli"},
            capture_output=True,
            text=True,
            timeout=float(env["DURATION"].rstrip("s")) + _K6_GRACE_S,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise LoadError(f"k6 still running {_K6_GRACE_S:.0f} s after the load's end") from None
    finally:
        actor.join()
    if failures:
        raise LoadError(str(failures[0]))
    if not answers_csv.is_file():
        raise LoadError(f"k6 wrote no answers (exit {result.returncode}):\n{result.stdout[-2000:]}")
    return read_answers(answers_csv), [arg.replace(f"{project.root}/", "") for arg in argv]


@dataclass(frozen=True)
class Step:
    """`act` at `at_s` seconds into the load, recorded in the events as `name`."""

    at_s: float
    name: str
    act: Callable[[], None]


@dataclass(frozen=True)
class Loaded:
    answers: list[TimedAnswer]
    events_ms: dict[str, float]  # unix ms of each step
    command: list[str]


def run_load(
    project: Project,
    url: str,
    endpoint: str,
    *,
    rate: int | None,
    duration_s: float,
    steps: Sequence[Step],
    work: Path,
    vus: int | None = None,
    json_body: str | None = None,
) -> Loaded:
    """GET `url + endpoint` at `rate` per second for `duration_s`, running `steps` on time;
    `vus`: k6's preallocated VUs (each opens a connection of its own when first used). With
    no rate, `vus` clients send back to back (wrk's shape): what the server can answer.
    `json_body`: a file under loadtests/ POSTed as each request's JSON body instead."""
    work.mkdir(parents=True, exist_ok=True)
    env = {"BASE_URL": url, "ENDPOINT": endpoint}
    env |= {"SHAPE": "vegeta", "RATE": str(rate)} if rate else {"SHAPE": "wrk"}
    env["DURATION"] = f"{duration_s:g}s"
    if vus:
        env["VUS"] = str(vus)
    if json_body:
        env |= {"METHOD": "POST", "BODY_FILE": json_body, "CONTENT_TYPE": "application/json"}
    events: dict[str, float] = {}

    def act(started: float) -> None:
        for step in steps:
            time.sleep(max(0.0, started + step.at_s - time.monotonic()))
            events[step.name] = time.time() * 1000
            step.act()

    answers, command = load_beside(project, env, work, act)
    return Loaded(answers, events, command)


@dataclass(frozen=True)
class Ran:
    """A drill's run: what clients saw (`answers`, `outcome`), what the runner did
    (`acted`, `events`) and k6's command line."""

    answers: list[TimedAnswer]
    outcome: DrillOutcome
    events: Events
    acted: Acted
    command: list[str]


def execute(project: Project, drill: Drill) -> Ran:
    """Run the drill, whatever its kind."""
    action = ACTIONS[drill.kind]
    work = project.work("outage", drill.name)
    work.mkdir(parents=True, exist_ok=True)
    done: list[Acted] = []
    with (
        (work / "server.log").open("w") as server_log,
        # Volumes in the system's temp dir: a unix socket's path must stay under 108 bytes.
        Stack(
            drill.profile, only=[drill.service], env=drill.env, log=server_log, project=project
        ) as stack,
    ):
        env = k6_env(drill, stack.url(drill.service))
        answers, command = load_beside(
            project, env, work, lambda started: done.append(action(stack, drill, started))
        )
    events = done[0].events()
    return Ran(answers, analyse(answers, events), events, done[0], command)
