"""docs/results/outage-<drill>.md: what clients saw before, during and after the outage."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime

from servelab.bench.load.k6 import k6_binary, k6_version
from servelab.bench.measure.machine import this_machine
from servelab.markdown import table
from servelab.reliability.outage.analysis import DrillOutcome, Events, Window
from servelab.reliability.outage.drill import Drill
from servelab.reliability.rows import Row

_WINDOW = "window,answers,2xx,503,503 with Retry-After,other failures,p50 ms,p99 ms,max ms"


def _row(name: str, w: Window) -> list[object]:
    times = [f"{ms:g}" for ms in (w.p50_ms, w.p99_ms, w.max_ms)]
    return [name, w.answers, w.ok, w.status_503, w.with_retry_after, w.other, *times]


def by_second(
    seconds: Sequence[Mapping[str, float]],
    start_ms: float,
    events_ms: Iterable[tuple[str, float]],
    marked: str,
) -> list[str]:
    """analysis.per_second's rows, with each event (name, unix ms) named in the column
    `marked` in the second it happened (counted from `start_ms`)."""
    marks: dict[int, list[str]] = {}
    for name, at_ms in events_ms:
        marks.setdefault(int((at_ms - start_ms) // 1000), []).append(name)
    header = ["s", "answers", "2xx", "503", "other", "p50 ms", "max ms", marked]
    keys = ("second", "answers", "ok", "503", "other")
    rows = [
        [*(int(s[key]) for key in keys), f"{s['p50_ms']:g}", f"{s['max_ms']:g}", ", ".join(at)]
        for s in seconds
        for at in [marks.get(int(s["second"]), [])]
    ]
    return table(header, rows)


def action(drill: Drill) -> str:
    """What the runner did, in a sentence."""
    if drill.kind == "kill-worker":
        return (
            f"one of `{drill.victim}`'s workers ({drill.depth} level(s) below its master) "
            f"SIGKILLed at {drill.at_s:g} s; its master replaces it."
        )
    if drill.kind == "sigterm":
        return (
            f"`{drill.victim}`'s master sent {drill.stop_signal} at {drill.at_s:g} s, as "
            "`docker stop` does; started again once it had exited."
        )
    if drill.kind == "rolling-restart":
        return (
            f"from {drill.at_s:g} s, {', '.join(f'`{v}`' for v in drill.victims)} in turn: "
            "SIGTERM, exit, started again, healthy."
        )
    if drill.kind == "nginx-reload":
        return f"`{drill.victim}` reloaded (SIGHUP to its master) at {drill.at_s:g} s."
    return (
        f"`{drill.victim}`'s process group SIGKILLed at {drill.kill_at_s:g} s and started "
        f"again at {drill.restart_at_s:g} s."
    )


def render(
    drill: Drill,
    outcome: DrillOutcome,
    events: Events,
    command: Sequence[str],
    marks: Sequence[tuple[str, float]] = (),
    probe: Row | None = None,
) -> str:
    """The drill's page; `marks`: what the runner did when (unix ms), by default the kill,
    the restart and the healthcheck; `probe`: its row in the reliability report."""
    killed = drill.kind == "kill"
    lines = [
        f"# Outage drill: {drill.title}",
        "",
        f"Written by `servelab outage {drill.name}` ([drills.{drill.name}] of its family's "
        f"spec) on {datetime.now(UTC):%Y-%m-%d %H:%M} UTC.",
        f"Machine: {this_machine(k6_version(k6_binary())).describe()}.",
        "",
        f"`{drill.endpoint}` through `{drill.service}` (profile `{drill.profile}`) at "
        f"{drill.rate} requests/s for {drill.duration_s:g} s; {action(drill)}",
        "",
    ]
    if probe:
        lines += [f"- **{probe.verdict.value}**: {probe.observed}", f"- goal: {probe.expected}"]
    if killed:
        first, recovered = outcome.first_ok_after_s, outcome.recovered_after_s
        lines += [
            f"- back: `{drill.victim}` passed its healthcheck {outcome.service_back_s:g} s "
            "after it was started again",
            f"- first success {'never' if first is None else f'{first:g} s'} after that; every "
            "answer a success again after "
            + ("not by the end of the run" if recovered is None else f"{recovered:g} s"),
        ]
    refused = outcome.unavailable_503
    lines += [
        f"- every 503: {refused.status_503} answers, {refused.with_retry_after} with "
        f"Retry-After, p50 {refused.p50_ms:g} ms, p99 {refused.p99_ms:g} ms, max "
        f"{refused.max_ms:g} ms",
        "",
    ]
    names = (
        ("before the kill", f"{drill.victim} down (kill to healthy)", "after it is healthy")
        if killed
        else ("before the action", "from the first action to the last", "after that")
    )
    windows = (outcome.before, outcome.down, outcome.after)
    lines += table(_WINDOW.split(","), map(_row, names, windows))
    lines += ["Second by second (answers by the second they arrived in, from the first one):", ""]
    runner = marks or (
        ("killed", events.killed_ms),
        ("started again", events.restarted_ms),
        ("healthy", events.healthy_ms),
    )
    lines += by_second(outcome.seconds, outcome.start_ms, runner, "runner")
    lines += ["k6 command:", "", f"    {' '.join(command)}"]
    if drill.notes:
        lines += ["", drill.notes]
    return "\n".join(lines) + "\n"
