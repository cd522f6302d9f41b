"""docs/results/outage-<drill>.md: what clients saw before, during and after the outage."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from servelab.bench.k6 import k6_binary, k6_version
from servelab.bench.machine import this_machine
from servelab.outage.analysis import Events, Outcome, Window
from servelab.outage.drill import Drill


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
