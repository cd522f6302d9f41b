"""What the outage drills tell a deployer, judged by the requests clients lost (failed of
those sent under a constant load) and how long until every answer succeeded again, not by
how fast a server refused new work."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from servelab.markdown import table
from servelab.reliability.containers.verdicts import ADVICE
from servelab.reliability.containers.verdicts import SECTION as CONTAINERS
from servelab.reliability.outage.verdicts import GOALS
from servelab.reliability.rows import Row, Section


@dataclass(frozen=True)
class _Loss:
    target: str
    failed: int
    answers: int
    back_s: float | None  # None: never whole again

    @property
    def shown(self) -> str:
        return f"{self.target}: {self.failed:,} of {self.answers:,} lost"

    @property
    def lost(self) -> tuple[float, float]:
        """The share of requests lost, then the seconds until every answer succeeded (never
        whole again: the worst of equal shares)."""
        back = float("inf") if self.back_s is None else self.back_s
        return self.failed / max(self.answers, 1), back


def _loss(row: Row) -> _Loss | None:
    figures = row.figures
    if "failed" not in figures or "answers" not in figures:
        return None
    target = row.target.split(" (drill")[0]
    return _Loss(
        target, int(figures["failed"]), int(figures["answers"]), figures.get("whole_again_s")
    )


def _events(sections: Sequence[Section]) -> list[tuple[str, str, str, list[Row]]]:
    """Each event a drill acted out: its title, its section's name, the advice, its rows.
    An outage drill kind has a section of its own; the container drills share one, an event
    per kind."""
    events = []
    for section in sections:
        if (goal := GOALS.get(section.name)) is not None:
            events.append((section.title, section.name, goal.advice, list(section.probes)))
        elif section.name == CONTAINERS:
            for event, advice in ADVICE.items():
                rows = [row for row in section.probes if row.probe == event]
                events.append((event, section.name, advice, rows))
    return events


def lessons(sections: Sequence[Section]) -> list[str]:
    """The report's opening: per drill kind, its worst and best case by requests lost,
    and what to do; empty where no drill has run."""
    rows: list[tuple[float, list[str]]] = []
    for title, anchor, advice, probes in _events(sections):
        losses = [loss for row in probes if (loss := _loss(row)) is not None]
        if not losses:
            continue
        worst = max(losses, key=lambda loss: loss.lost)
        best = min(losses, key=lambda loss: loss.lost)
        rows.append(
            (
                worst.lost[0],
                [
                    f"[{title}](#{anchor})",
                    f"{worst.shown}, "
                    + (
                        "never whole again"
                        if worst.back_s is None
                        else f"every answer a 2xx again after {worst.back_s:.1f} s"
                    ),
                    best.shown,
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
