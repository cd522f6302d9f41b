"""What clients saw: k6's answers (its CSV output) cut into before, during and after the
outage, and second by second."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from servelab.bench.load.k6 import read_points
from servelab.bench.measure.percentile import percentile

# The metric loadtests/outage.js records every answer in.
METRIC = "outage_answer"


@dataclass(frozen=True)
class TimedAnswer:
    at_ms: float  # when it arrived (unix ms)
    duration_ms: float
    status: int
    retry_after: bool

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300


def read_answers(csv_path: Path) -> list[TimedAnswer]:
    """The answers outage.js recorded, by the time each arrived."""
    answers = [
        TimedAnswer(p.at_ms, p.value, p.status, p.tags.get("retry_after") == "yes")
        for p in read_points(csv_path)
        if p.metric == METRIC
    ]
    return sorted(answers, key=lambda answer: answer.at_ms)


@dataclass(frozen=True)
class Events:
    """When the runner acted, in unix ms."""

    killed_ms: float
    restarted_ms: float
    healthy_ms: float


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
    def of(cls, answers: Sequence[TimedAnswer]) -> Window:
        durations = [a.duration_ms for a in answers]
        unavailable = [a for a in answers if a.status == 503]
        return cls(
            answers=len(answers),
            ok=sum(a.ok for a in answers),
            status_503=len(unavailable),
            with_retry_after=sum(a.retry_after for a in unavailable),
            other=sum(not a.ok and a.status != 503 for a in answers),
            p50_ms=round(percentile(durations, 0.5), 1),
            p99_ms=round(percentile(durations, 0.99), 1),
            max_ms=round(max(durations, default=0.0), 1),
        )


@dataclass(frozen=True)
class DrillOutcome:
    before: Window
    down: Window  # from the kill until the service passed its healthcheck again
    after: Window
    unavailable_503: Window  # every 503, whenever it came
    service_back_s: float  # restart -> healthy
    first_ok_after_s: float | None  # healthy -> first 2xx
    recovered_after_s: float | None  # healthy -> the last failure (0: none after it)
    start_ms: float  # the first answer
    seconds: list[dict[str, float]]


def analyse(answers: Sequence[TimedAnswer], events: Events) -> DrillOutcome:
    before = [a for a in answers if a.at_ms < events.killed_ms]
    down = [a for a in answers if events.killed_ms <= a.at_ms < events.healthy_ms]
    after = [a for a in answers if a.at_ms >= events.healthy_ms]
    first_ok = next((a for a in after if a.ok), None)
    failures_after = [a for a in after if not a.ok]
    recovered = None
    if after and after[-1].ok:
        last_failure = failures_after[-1].at_ms if failures_after else events.healthy_ms
        recovered = round((last_failure - events.healthy_ms) / 1000, 3)
    return DrillOutcome(
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


def per_second(answers: Sequence[TimedAnswer], start_ms: float) -> list[dict[str, float]]:
    buckets: dict[int, list[TimedAnswer]] = {}
    for answer in answers:
        buckets.setdefault(int((answer.at_ms - start_ms) // 1000), []).append(answer)
    windows = {second: Window.of(group) for second, group in sorted(buckets.items())}
    return [
        {"second": second, "answers": w.answers, "ok": w.ok, "503": w.status_503}
        | {"other": w.other, "p50_ms": w.p50_ms, "max_ms": w.max_ms}
        for second, w in windows.items()
    ]
