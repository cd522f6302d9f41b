"""What the outage drills tell a deployer, judged by the requests clients lost (failed of
those sent under a constant load) and how long until every answer succeeded again, not by
how fast a server refused new work."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from servelab.markdown import table
from servelab.reliability.rows import Row, Section

# Each drill kind's lesson, in the order a deployer meets them.
ADVICE: Mapping[str, str] = {
    "sigterm": (
        "Stopping the only server loses every request sent until a new one listens: run "
        "two or more replicas behind nginx or a load balancer, and restart them one at a time"
    ),
    "rolling-restart": (
        "Replicas behind nginx restarted one at a time: the way to deploy, and a GET loses "
        "nothing; a POST that nginx sent on a kept-alive connection as its replica stopped "
        "gets a 503 with Retry-After (nginx never sends a POST twice): clients retry it"
    ),
    "kill-worker": (
        "A crashed worker costs only the requests it held; the server starts another: keep "
        "requests short, or behind nginx let it retry idempotent ones"
    ),
    "nginx-reload": "Reloading nginx (new config, new certificates) loses nothing",
}


@dataclass(frozen=True)
class _Loss:
    target: str
    failed: int
    answers: int
    back_s: float

    @property
    def shown(self) -> str:
        return f"{self.failed:,} of {self.answers:,}"


def _loss(probe: Row) -> _Loss | None:
    figures = probe.figures
    if "failed" not in figures or "answers" not in figures:
        return None
    target = probe.target.split(" (drill")[0]
    return _Loss(
        target,
        int(figures["failed"]),
        int(figures["answers"]),
        float(figures.get("whole_again_s", 0.0)),
    )


def _lost(loss: _Loss) -> tuple[float, float]:
    """The share of requests lost, then the seconds until every answer succeeded."""
    return loss.failed / max(loss.answers, 1), loss.back_s


def lessons(sections: Sequence[Section]) -> list[str]:
    """The report's opening: per drill kind, its worst and best case by requests lost,
    and what to do; empty where no drill has run."""
    rows: list[tuple[float, list[str]]] = []
    for section in sections:
        advice = ADVICE.get(section.name)
        losses = [loss for probe in section.probes if (loss := _loss(probe)) is not None]
        if advice is None or not losses:
            continue
        worst = max(losses, key=_lost)
        best = min(losses, key=_lost)
        rows.append(
            (
                _lost(worst)[0],
                [
                    f"[{section.title}](#{section.name})",
                    f"{worst.target}: {worst.shown} lost, every answer a 2xx again after "
                    f"{worst.back_s:.1f} s",
                    f"{best.target}: {best.shown} lost",
                    f"{advice}.",
                ],
            )
        )
    if not rows:
        return []
    rows.sort(key=lambda row: -row[0])
    return [
        "## What a deployer must do",
        "",
        "Judged by what clients lost: requests failed (any answer but a 2xx, or none) of "
        "those sent at a constant rate through the event, and how long until every answer "
        "succeeded again. The sections below judge each server by its own goal (how fast it "
        "refuses new work, what it does with the requests in flight).",
        "",
        *table(["event", "worst case", "best case", "what to do"], [row for _, row in rows]),
    ]
