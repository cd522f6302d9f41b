"""Constant-rate load (loadtests/outage.js, run as a drill runs it) with a timeline of
faults beside it: every answer k6 got, and when each fault happened."""

from __future__ import annotations

import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from servelab.reliability.outage.analysis import Answer, read_answers
from servelab.reliability.outage.run import answers_argv, run_k6

# How long k6 may run past the load's end before it counts as hung.
_GRACE_S = 60.0


class FaultLoadError(RuntimeError):
    """The load under faults did not run: k6 failed or hung, or a fault of the timeline
    failed."""


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
    answers_csv = work / "answers.csv"
    answers_csv.unlink(missing_ok=True)
    env = {"BASE_URL": url, "ENDPOINT": endpoint}
    env |= {"SHAPE": "vegeta", "RATE": str(rate)} if rate else {"SHAPE": "wrk"}
    env["DURATION"] = f"{duration_s:g}s"
    if vus:
        env["VUS"] = str(vus)
    if json_body:
        env |= {"METHOD": "POST", "BODY_FILE": json_body, "CONTENT_TYPE": "application/json"}
    argv = answers_argv(env, answers_csv)
    events: dict[str, float] = {}
    failures: list[BaseException] = []
    started = time.monotonic()

    def act() -> None:
        for step in steps:
            time.sleep(max(0.0, started + step.at_s - time.monotonic()))
            events[step.name] = time.time() * 1000
            try:
                step.act()
            except Exception as error:  # reported as the load's failure
                failures.append(error)
                return

    actor = threading.Thread(target=act)
    actor.start()
    try:
        result = run_k6(argv, project_dir, duration_s + _GRACE_S)
    except subprocess.TimeoutExpired:
        raise FaultLoadError(f"k6 still running {_GRACE_S:.0f} s after the load's end") from None
    finally:
        actor.join()
    if failures:
        raise FaultLoadError(f"a fault step failed: {failures[0]!r}")
    if not answers_csv.is_file():
        raise FaultLoadError(
            f"k6 wrote no answers (exit {result.returncode}):\n{result.stdout[-2000:]}"
        )
    command = [arg.replace(str(project_dir) + "/", "") for arg in argv]
    return Loaded(read_answers(answers_csv), events, command)
