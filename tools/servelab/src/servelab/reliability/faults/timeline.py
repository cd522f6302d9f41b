"""What clients saw second by second, as a Markdown table for a section's notes."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from servelab.reliability.outage.analysis import Answer, per_second
from servelab.reliability.outage.report import by_second


def seconds_table(title: str, answers: Sequence[Answer], events_ms: Mapping[str, float]) -> str:
    """Answers by the second they arrived in (from the first one), with the probe's events
    marked in the second they happened."""
    start = answers[0].at_ms if answers else 0.0
    rows = by_second(per_second(answers, start), start, events_ms.items(), "probe")
    return "\n".join([f"{title}:", "", *rows]).rstrip()
