"""docs/results/outage-<drill>.md: what clients saw before, during and after the outage."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from servelab.bench.load.k6 import k6_binary, k6_version
from servelab.bench.measure.machine import this_machine
from servelab.reliability import Probe
from servelab.reliability.outage.analysis import Events, Outcome, Window
from servelab.reliability.outage.drill import Drill


def _row(name: str, window: Window) -> str:
    return (
        f"| {name} | {window.answers} | {window.ok} | {window.status_503} | "
        f"{window.with_retry_after} | {window.other} | {window.p50_ms:g} | {window.p99_ms:g} | "
        f"{window.max_ms:g} |"
    )


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
    outcome: Outcome,
    events: Events,
    command: Sequence[str],
    marks: Sequence[tuple[str, float]] = (),
    probe: Probe | None = None,
) -> str:
    """The drill's page; `marks`: what the runner did when (unix ms), by default the kill,
    the restart and the healthcheck; `probe`: its row in the reliability report."""
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
        f"{drill.rate} requests/s for {drill.duration_s:g} s; {action(drill)}",
        "",
        *(
            [
                f"- **{probe.verdict.value}**: {probe.observed}",
                f"- goal: {probe.expected}",
            ]
            if probe
            else []
        ),
        *(
            [
                f"- back: `{drill.victim}` passed its healthcheck {outcome.service_back_s:g} s "
                "after it was started again",
                f"- first success {first} after that; every answer a success again after "
                f"{recovered}",
            ]
            if drill.kind == "kill"
            else []
        ),
        f"- every 503: {outcome.unavailable_503.status_503} answers, "
        f"{outcome.unavailable_503.with_retry_after} with Retry-After, p50 "
        f"{outcome.unavailable_503.p50_ms:g} ms, p99 {outcome.unavailable_503.p99_ms:g} ms, "
        f"max {outcome.unavailable_503.max_ms:g} ms",
        "",
        "| window | answers | 2xx | 503 | 503 with Retry-After | other failures "
        "| p50 ms | p99 ms | max ms |",
        "|---|---|---|---|---|---|---|---|---|",
        _row("before the kill" if drill.kind == "kill" else "before the action", outcome.before),
        _row(
            f"{drill.victim} down (kill to healthy)"
            if drill.kind == "kill"
            else "from the first action to the last",
            outcome.down,
        ),
        _row("after it is healthy" if drill.kind == "kill" else "after that", outcome.after),
        "",
        "Second by second (answers by the second they arrived in, from the first one):",
        "",
        "| s | answers | 2xx | 503 | other | p50 ms | max ms | runner |",
        "|---|---|---|---|---|---|---|---|",
    ]
    by_second: dict[int, list[str]] = {}
    for what, at_ms in marks or (
        ("killed", events.killed_ms),
        ("started again", events.restarted_ms),
        ("healthy", events.healthy_ms),
    ):
        by_second.setdefault(int((at_ms - outcome.start_ms) // 1000), []).append(what)
    for second in outcome.seconds:
        lines.append(
            f"| {int(second['second'])} | {int(second['answers'])} | "
            f"{int(second['ok'])} | {int(second['503'])} | {int(second['other'])} | "
            f"{second['p50_ms']:g} | {second['max_ms']:g} | "
            f"{', '.join(by_second.get(int(second['second']), []))} |"
        )
    lines += ["", "k6 command:", "", f"    {' '.join(command)}"]
    if drill.notes:
        lines += ["", drill.notes]
    return "\n".join(lines) + "\n"
