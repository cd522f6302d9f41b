"""Constant-rate load (loadtests/outage.js, run as a drill runs it) with a timeline of
faults beside it: every answer k6 got, and when each fault happened."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from servelab.reliability.outage.analysis import Answer
from servelab.reliability.outage.run import load_beside


@dataclass(frozen=True)
class Step:
    """`act` at `at_s` seconds into the load, recorded in the events as `name`."""

    at_s: float
    name: str
    act: Callable[[], None]


@dataclass(frozen=True)
class Loaded:
    answers: list[Answer]
    events_ms: dict[str, float]  # unix ms of each step
    command: list[str]


def run_load(
    project_dir: Path,
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

    answers, command = load_beside(project_dir, env, work, act)
    return Loaded(answers, events, command)
