"""A drill's row in docs/results/reliability.md: the goal of its kind, what clients saw,
and whether the goal was met."""

from __future__ import annotations

from collections.abc import Mapping

from servelab.reliability.outage.drill import Drill
from servelab.reliability.outage.loss import Loss
from servelab.reliability.rows import Row, Verdict

# The goals: a killed worker costs at most its in-flight requests and the service
# is whole again within 2 s; a SIGTERM or a rolling restart loses nothing, and the
# requests a stopping server refuses fail fast: at once, not after a wait for nobody (the
# servers that close their listening socket refuse in well under 0.2 s here).
WHOLE_AGAIN_S = 2.0
FAST_FAILURE_MS = 500.0

EXPECTED = {
    "kill-worker": "at most the in-flight requests lost; every worker and every answer back "
    f"within {WHOLE_AGAIN_S:g} s",
    "sigterm": "0 failed of the requests in flight at the signal; new ones refused in under "
    f"{FAST_FAILURE_MS / 1000:g} s; exit within stop_grace_period",
    "rolling-restart": "0 failed requests",
    "nginx-reload": "0 failed requests",
}

TITLES = {
    "kill-worker": "One worker SIGKILLed under constant load",
    "sigterm": "SIGTERM (docker stop) under constant load",
    "rolling-restart": "A rolling restart of two replicas behind nginx under constant load",
    "nginx-reload": "nginx reloaded (SIGHUP) under constant load",
}

PROBES = {
    "kill-worker": "one worker SIGKILLed under constant load",
    "sigterm": "SIGTERM (docker stop) under constant load",
    "rolling-restart": "rolling restart of two replicas behind nginx under constant load",
    "nginx-reload": "nginx reloaded (SIGHUP) under constant load",
}


def _failures(loss: Loss) -> str:
    kinds = ", ".join(
        f"{count} {'without an answer' if status == '0' else status}"
        for status, count in loss.statuses.items()
    )
    return f"{loss.failed} failed of {loss.answers}" + (f" ({kinds})" if kinds else "")


def _seconds(value: float | None) -> str:
    return "not by the end of the run" if value is None else f"{value:g} s"


def judge(drill: Drill, loss: Loss, measured: Mapping[str, float]) -> Row:
    """The drill's row; `measured`: the runner's own figures (outage.actions)."""
    figures = {
        "answers": float(loss.answers),
        "failed": float(loss.failed),
        "in_flight": float(loss.in_flight),
        "in_flight_failed": float(loss.in_flight_failed),
        "failed_after": float(loss.failed_after),
        **({"whole_again_s": loss.whole_again_s} if loss.whole_again_s is not None else {}),
        **{key: float(value) for key, value in measured.items()},
    }
    whole = loss.whole_again_s
    if drill.kind == "kill-worker":
        back = measured.get("worker_back_s")
        ok = (
            loss.failed_before == 0
            and loss.failed_after == 0
            and back is not None
            and back <= WHOLE_AGAIN_S
            and whole is not None
            and whole <= WHOLE_AGAIN_S
        )
        observed = (
            f"{_failures(loss)}; {loss.in_flight_failed} of the {loss.in_flight} in flight at "
            "the kill failed; "
            + (f"worker replaced after {back:g} s" if back is not None else "never replaced")
            + f"; every answer a 2xx again after {_seconds(whole)}"
        )
    elif drill.kind == "sigterm":
        exit_s, grace = measured["exit_s"], measured["grace_s"]
        ok = (
            loss.failed_before == 0
            and loss.in_flight_failed == 0
            and loss.slowest_failure_ms <= FAST_FAILURE_MS
            and exit_s < grace
        )
        observed = (
            f"{loss.in_flight_failed} failed of {loss.in_flight} in flight at the signal; "
            f"{loss.failed_after} sent after it failed (slowest {loss.slowest_failure_ms:g} ms)"
            f"; exit {int(measured['exit_code'])} after {exit_s:g} s (grace {grace:g} s); "
            f"{_failures(loss)} in all, serving again {measured.get('back_s', 0):g} s after "
            "the signal (started again at once)"
        )
    else:
        ok = loss.failed == 0
        observed = _failures(loss) + (
            f"; {loss.in_flight_failed} of the {loss.in_flight} in flight at the first signal "
            "failed"
        )
    return Row(
        probe=PROBES[drill.kind].replace("SIGTERM", drill.stop_signal),
        target=f"{drill.victim or ' then '.join(drill.victims)}: {drill.method} "
        f"{drill.endpoint} at {drill.rate}/s (drill {drill.name})",
        expected=EXPECTED[drill.kind],
        observed=observed,
        verdict=Verdict.PASS if ok else Verdict.FAIL,
        figures=figures,
    )
