"""`servelab outage <drill>`: an outage drill (loadtests/outage/<drill>.toml).

The drill starts a compose profile (servelab's Stack), sends requests at a constant rate
with k6 (loadtests/outage.js), SIGKILLs one service's process group `kill_at_s` into the
run, starts it again at `restart_at_s` and waits until its healthcheck passes, all while
k6 keeps sending. Every answer k6 got (when, how long, status, Retry-After) comes back
through k6's CSV output; the drill writes what clients saw before, during and after the
outage, and how soon after the service's return every answer was a success again, to
docs/results/outage-<drill>.md (and .json).
"""

from __future__ import annotations

import csv
import json
import os
import subprocess
import threading
import time
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from servelab.bench.k6 import k6_argv, k6_binary, k6_version
from servelab.bench.machine import this_machine
from servelab.compose import find_project_dir
from servelab.stack import Stack, StackError

METRIC = "outage_answer"
# How long k6 may run past the drill before it counts as hung.
_K6_GRACE_S = 60.0


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


def parse_drill(name: str, raw: Mapping[str, object]) -> Drill:
    def need(key: str) -> object:
        if key not in raw:
            raise DrillError(f"outage drill {name}: missing `{key}`")
        return raw[key]

    drill = Drill(
        name=name,
        title=str(raw.get("title", name)),
        profile=str(need("profile")),
        service=str(need("service")),
        victim=str(need("victim")),
        endpoint=str(need("endpoint")),
        rate=int(need("rate")),  # type: ignore[call-overload]
        duration_s=float(need("duration_s")),  # type: ignore[arg-type]
        kill_at_s=float(need("kill_at_s")),  # type: ignore[arg-type]
        restart_at_s=float(need("restart_at_s")),  # type: ignore[arg-type]
        env={str(k): str(v) for k, v in dict(raw.get("env", {})).items()},  # type: ignore[call-overload]
        notes=str(raw.get("notes", "")).strip(),
    )
    if not 0 < drill.kill_at_s < drill.restart_at_s < drill.duration_s:
        raise DrillError(f"outage drill {name}: needs 0 < kill_at_s < restart_at_s < duration_s")
    return drill


def load_drill(project_dir: Path, name: str) -> Drill:
    path = project_dir / "loadtests" / "outage" / f"{name}.toml"
    if not path.is_file():
        known = sorted(p.stem for p in path.parent.glob("*.toml"))
        raise DrillError(f"no outage drill {name!r} (known: {', '.join(known) or 'none'})")
    with path.open("rb") as file:
        return parse_drill(name, tomllib.load(file))


@dataclass(frozen=True)
class Answer:
    at_ms: float  # when it arrived (unix ms)
    duration_ms: float
    status: int
    retry_after: bool

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300


def read_answers(csv_path: Path) -> list[Answer]:
    answers = []
    with csv_path.open(newline="") as file:
        for row in csv.DictReader(file):
            if row["metric_name"] != METRIC:
                continue
            tags = dict(part.split("=", 1) for part in row["extra_tags"].split("&") if part)
            answers.append(
                Answer(
                    at_ms=float(row["timestamp"]),
                    duration_ms=float(row["metric_value"]),
                    status=int(row["status"] or 0),
                    retry_after=tags.get("retry_after") == "yes",
                )
            )
    return sorted(answers, key=lambda answer: answer.at_ms)


@dataclass(frozen=True)
class Events:
    """When the runner acted, in unix ms."""

    killed_ms: float
    restarted_ms: float
    healthy_ms: float


def _percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


@dataclass(frozen=True)
class Window:
    answers: int
    ok: int
    status_503: int
    with_retry_after: int
    other: int
    p50_ms: float
    p99_ms: float
    max_ms: float

    @classmethod
    def of(cls, answers: Sequence[Answer]) -> Window:
        durations = [a.duration_ms for a in answers]
        unavailable = [a for a in answers if a.status == 503]
        return cls(
            answers=len(answers),
            ok=sum(a.ok for a in answers),
            status_503=len(unavailable),
            with_retry_after=sum(a.retry_after for a in unavailable),
            other=sum(not a.ok and a.status != 503 for a in answers),
            p50_ms=round(_percentile(durations, 0.5), 1),
            p99_ms=round(_percentile(durations, 0.99), 1),
            max_ms=round(max(durations, default=0.0), 1),
        )


@dataclass(frozen=True)
class Outcome:
    before: Window
    down: Window  # from the kill until the service passed its healthcheck again
    after: Window
    unavailable_503: Window  # every 503, whenever it came
    service_back_s: float  # restart -> healthy
    first_ok_after_s: float | None  # healthy -> first 2xx
    recovered_after_s: float | None  # healthy -> the last failure (0: none after it)
    start_ms: float  # the first answer
    seconds: list[dict[str, float]]


def analyse(answers: Sequence[Answer], events: Events) -> Outcome:
    before = [a for a in answers if a.at_ms < events.killed_ms]
    down = [a for a in answers if events.killed_ms <= a.at_ms < events.healthy_ms]
    after = [a for a in answers if a.at_ms >= events.healthy_ms]
    first_ok = next((a for a in after if a.ok), None)
    failures_after = [a for a in after if not a.ok]
    recovered = None
    if after and after[-1].ok:
        last_failure = failures_after[-1].at_ms if failures_after else events.healthy_ms
        recovered = round((last_failure - events.healthy_ms) / 1000, 3)
    return Outcome(
        before=Window.of(before),
        down=Window.of(down),
        after=Window.of(after),
        unavailable_503=Window.of([a for a in answers if a.status == 503]),
        service_back_s=round((events.healthy_ms - events.restarted_ms) / 1000, 3),
        first_ok_after_s=(
            round((first_ok.at_ms - events.healthy_ms) / 1000, 3) if first_ok else None
        ),
        recovered_after_s=recovered,
        start_ms=answers[0].at_ms if answers else 0.0,
        seconds=per_second(answers, answers[0].at_ms if answers else 0.0),
    )


def per_second(answers: Sequence[Answer], start_ms: float) -> list[dict[str, float]]:
    buckets: dict[int, list[Answer]] = {}
    for answer in answers:
        buckets.setdefault(int((answer.at_ms - start_ms) // 1000), []).append(answer)
    return [
        {
            "second": second,
            "answers": len(group),
            "ok": sum(a.ok for a in group),
            "503": sum(a.status == 503 for a in group),
            "other": sum(not a.ok and a.status != 503 for a in group),
            "p50_ms": round(_percentile([a.duration_ms for a in group], 0.5), 1),
            "max_ms": round(max(a.duration_ms for a in group), 1),
        }
        for second, group in sorted(buckets.items())
    ]


def _act(stack: Stack, drill: Drill, started: float, events: dict[str, float]) -> None:
    """The runner's side, in a thread beside k6: kill, then start again and wait healthy."""
    time.sleep(max(0.0, started + drill.kill_at_s - time.monotonic()))
    events["killed_ms"] = time.time() * 1000
    stack.kill(drill.victim)
    time.sleep(max(0.0, started + drill.restart_at_s - time.monotonic()))
    events["restarted_ms"] = time.time() * 1000
    stack.restart(drill.victim)
    events["healthy_ms"] = time.time() * 1000


def run_drill(project_dir: Path, drill: Drill) -> tuple[Outcome, Events, list[str]]:
    work = project_dir / ".servelab" / "outage" / drill.name
    work.mkdir(parents=True, exist_ok=True)
    answers_csv = work / "answers.csv"
    answers_csv.unlink(missing_ok=True)
    events: dict[str, float] = {}
    failures: list[BaseException] = []
    with (
        (work / "server.log").open("w") as server_log,
        # Volumes in the system's temp dir: a unix socket's path must stay under 108 bytes.
        Stack(drill.profile, only=[drill.service], env=drill.env, log=server_log) as stack,
    ):
        argv = k6_argv(
            k6_binary(),
            Path("loadtests") / "outage.js",
            drill.k6_env(stack.url(drill.service)),
            options=["--out", f"csv={answers_csv}"],
        )
        started = time.monotonic()

        def act() -> None:
            try:
                _act(stack, drill, started, events)
            except (StackError, OSError) as error:
                failures.append(error)

        actor = threading.Thread(target=act)
        actor.start()
        try:
            result = subprocess.run(
                argv,
                cwd=project_dir,
                env={**os.environ, "K6_CSV_TIME_FORMAT": "unix_milli"},
                capture_output=True,
                text=True,
                timeout=drill.duration_s + _K6_GRACE_S,
                check=False,
            )
        except subprocess.TimeoutExpired:
            raise DrillError(
                f"k6 still running {_K6_GRACE_S:.0f} s after the drill's end, stopped"
            ) from None
        finally:
            actor.join()
    if failures:
        raise DrillError(f"{drill.victim} did not come back: {failures[0]}")
    if not answers_csv.is_file():
        raise DrillError(
            f"k6 wrote no answers (exit {result.returncode}):\n{result.stdout[-2000:]}"
        )
    when = Events(events["killed_ms"], events["restarted_ms"], events["healthy_ms"])
    command = [arg.replace(str(project_dir) + "/", "") for arg in argv]
    return analyse(read_answers(answers_csv), when), when, command


def _row(name: str, window: Window) -> str:
    return (
        f"| {name} | {window.answers} | {window.ok} | {window.status_503} | "
        f"{window.with_retry_after} | {window.other} | {window.p50_ms:g} | {window.p99_ms:g} | "
        f"{window.max_ms:g} |"
    )


def render(drill: Drill, outcome: Outcome, events: Events, command: Sequence[str]) -> str:
    first = f"{outcome.first_ok_after_s:g} s" if outcome.first_ok_after_s is not None else "never"
    recovered = (
        f"{outcome.recovered_after_s:g} s"
        if outcome.recovered_after_s is not None
        else "not by the end of the run"
    )
    machine = this_machine(k6_version(k6_binary())).describe()
    lines = [
        f"# Outage drill: {drill.title}",
        "",
        f"Written by `servelab outage {drill.name}` "
        f"(loadtests/outage/{drill.name}.toml) on {datetime.now(UTC):%Y-%m-%d %H:%M} UTC.",
        f"Machine: {machine}.",
        "",
        f"`{drill.endpoint}` through `{drill.service}` (profile `{drill.profile}`) at "
        f"{drill.rate} requests/s for {drill.duration_s:g} s; `{drill.victim}`'s process "
        f"group SIGKILLed at {drill.kill_at_s:g} s and started again at "
        f"{drill.restart_at_s:g} s.",
        "",
        f"- back: `{drill.victim}` passed its healthcheck {outcome.service_back_s:g} s after "
        "it was started again",
        f"- first success {first} after that; every answer a success again after {recovered}",
        f"- every 503: {outcome.unavailable_503.status_503} answers, "
        f"{outcome.unavailable_503.with_retry_after} with Retry-After, p50 "
        f"{outcome.unavailable_503.p50_ms:g} ms, p99 {outcome.unavailable_503.p99_ms:g} ms, "
        f"max {outcome.unavailable_503.max_ms:g} ms",
        "",
        "| window | answers | 2xx | 503 | 503 with Retry-After | other failures "
        "| p50 ms | p99 ms | max ms |",
        "|---|---|---|---|---|---|---|---|---|",
        _row("before the kill", outcome.before),
        _row(f"{drill.victim} down (kill to healthy)", outcome.down),
        _row("after it is healthy", outcome.after),
        "",
        "Second by second (answers by the second they arrived in, from the first one):",
        "",
        "| s | answers | 2xx | 503 | other | p50 ms | max ms | runner |",
        "|---|---|---|---|---|---|---|---|",
    ]
    marks: dict[int, list[str]] = {}
    for what, at_ms in (
        ("killed", events.killed_ms),
        ("started again", events.restarted_ms),
        ("healthy", events.healthy_ms),
    ):
        marks.setdefault(int((at_ms - outcome.start_ms) // 1000), []).append(what)
    for second in outcome.seconds:
        lines.append(
            f"| {int(second['second'])} | {int(second['answers'])} | "
            f"{int(second['ok'])} | {int(second['503'])} | {int(second['other'])} | "
            f"{second['p50_ms']:g} | {second['max_ms']:g} | "
            f"{', '.join(marks.get(int(second['second']), []))} |"
        )
    lines += ["", "k6 command:", "", f"    {' '.join(command)}"]
    if drill.notes:
        lines += ["", drill.notes]
    return "\n".join(lines) + "\n"


def write_drill(name: str, *, project_dir: Path | None = None) -> Path:
    """Run the drill loadtests/outage/<name>.toml and write docs/results/outage-<name>.md
    (and .json); returns the report's path."""
    project_dir = project_dir or find_project_dir()
    drill = load_drill(project_dir, name)
    outcome, events, command = run_drill(project_dir, drill)
    results = project_dir / "docs" / "results"
    results.mkdir(parents=True, exist_ok=True)
    report = results / f"outage-{drill.name}.md"
    report.write_text(render(drill, outcome, events, command))
    saved = {"drill": asdict(drill), "events": asdict(events), "outcome": asdict(outcome)}
    (results / f"outage-{drill.name}.json").write_text(json.dumps(saved, indent=1) + "\n")
    return report
