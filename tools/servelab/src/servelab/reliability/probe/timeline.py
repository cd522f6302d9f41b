"""What clients saw second by second, as a Markdown table for a section's notes."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from servelab.reliability.outage.analysis import Answer, per_second


def seconds_table(title: str, answers: Sequence[Answer], events_ms: Mapping[str, float]) -> str:
    """Answers by the second they arrived in (from the first one), with the probe's events
    marked in the second they happened."""
    start = answers[0].at_ms if answers else 0.0
    marks: dict[int, list[str]] = {}
    for name, at_ms in events_ms.items():
        marks.setdefault(int((at_ms - start) // 1000), []).append(name)
    lines = [
        f"{title}:",
        "",
        "| s | answers | 2xx | 503 | other | p50 ms | max ms | probe |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for second in per_second(answers, start):
        at = int(second["second"])
        lines.append(
            f"| {at} | {int(second['answers'])} | {int(second['ok'])} | {int(second['503'])} | "
            f"{int(second['other'])} | {second['p50_ms']:g} | {second['max_ms']:g} | "
            f"{', '.join(marks.get(at, []))} |"
        )
    return "\n".join(lines)
