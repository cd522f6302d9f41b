"""A drill's row in docs/results/reliability.md: the goal of its kind, what clients saw,
and whether the goal was met."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass

from servelab.reliability.outage.drill import Drill
from servelab.reliability.outage.loss import Loss
from servelab.reliability.rows import Row, Verdict

# The goals: a killed worker costs at most its in-flight requests and the service
# is whole again within 2 s; a SIGTERM or a rolling restart loses nothing, and the
# requests a stopping server refuses fail fast: at once, not after a wait for nobody (the
# servers that close their listening socket refuse in well under 0.2 s here).
WHOLE_AGAIN_S = 2.0
FAST_FAILURE_MS = 500.0


@dataclass(frozen=True)
class KindGoal:
    """A drill kind's section title (its rows' name, the first word lower-cased unless an
    acronym), what its goal expects, and the lesson the report's opening draws from it
    (reliability.lessons)."""

    title: str
    expected: str
    advice: str

    @property
    def event(self) -> str:
        first = self.title.split()[0]
        return (
            self.title
            if first.isupper() and len(first) > 1
            else first.lower() + self.title[len(first) :]
        )


GOALS = {
    "kill-worker": KindGoal(
        "One worker SIGKILLed under constant load",
        "at most the in-flight requests lost; every worker and every answer back within "
        f"{WHOLE_AGAIN_S:g} s",
        "A crashed worker costs only the requests it held; the server starts another: keep "
        "requests short, or behind nginx let it retry idempotent ones",
    ),
    "sigterm": KindGoal(
        "SIGTERM (docker stop) under constant load",
        "0 failed of the requests in flight at the signal; new ones refused in under "
        f"{FAST_FAILURE_MS / 1000:g} s; exit within stop_grace_period",
        "Stopping the only server loses every request sent until a new one listens: run "
        "two or more replicas behind nginx or a load balancer, and restart them one at a time",
    ),
    "rolling-restart": KindGoal(
        "A rolling restart of two replicas behind nginx under constant load",
        "0 failed requests",
        "Replicas behind nginx restarted one at a time: the way to deploy, and a GET loses "
        "nothing; a POST that nginx sent on a kept-alive connection as its replica stopped "
        "gets a 503 with Retry-After (nginx never sends a POST twice): clients retry it",
    ),
    "nginx-reload": KindGoal(
        "nginx reloaded (SIGHUP) under constant load",
        "0 failed requests",
        "Reloading nginx (new config, new certificates) loses nothing",
    ),
}


def _failures(loss: Loss) -> str:
    kinds = ", ".join(
        f"{count} {'without an answer' if status == '0' else status}"
        for status, count in loss.statuses.items()
    )
    return f"{loss.failed} failed of {loss.answers}" + (f" ({kinds})" if kinds else "")


def _whole(value: float | None) -> str:
    if value is None:
        return "never whole again (not by the end of the run)"
    return f"every answer a 2xx again after {value:g} s"


def judge(drill: Drill, loss: Loss, measured: Mapping[str, float]) -> Row:
    """The drill's row; `measured`: the runner's own figures (outage.actions)."""
    counted = ("answers", "failed", "in_flight", "in_flight_failed", "failed_after")
    figures = {key: float(value) for key, value in asdict(loss).items() if key in counted}
    if loss.whole_again_s is not None:
        figures["whole_again_s"] = loss.whole_again_s
    figures |= {key: float(value) for key, value in measured.items()}
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
            + f"; {_whole(whole)}"
        )
    elif drill.kind == "sigterm":
        exit_s, grace = measured["exit_s"], measured["grace_s"]
        ok = (
            loss.failed_before == 0
            and loss.in_flight_failed == 0
            and loss.slowest_failure_ms <= FAST_FAILURE_MS
            and exit_s < grace
            and whole is not None
        )
        observed = (
            f"{loss.in_flight_failed} failed of {loss.in_flight} in flight at the signal; "
            f"{loss.failed_after} sent after it failed (slowest {loss.slowest_failure_ms:g} ms)"
            f"; exit {int(measured['exit_code'])} after {exit_s:g} s (grace {grace:g} s); "
            f"{_failures(loss)} in all, serving again {measured.get('back_s', 0):g} s after "
            f"the signal (started again at once); {_whole(whole)}"
        )
    else:
        ok = loss.failed == 0
        observed = _failures(loss) + (
            f"; {loss.in_flight_failed} of the {loss.in_flight} in flight at the first signal "
            "failed"
        )
    if not loss.answered_after:
        ok = False
        observed = f"no answers came after the action; {observed}"
    goal = GOALS[drill.kind]
    return Row(
        probe=goal.event.replace("SIGTERM", drill.stop_signal),
        target=f"{drill.victim or ' then '.join(drill.victims)}: {drill.method} "
        f"{drill.endpoint} at {drill.rate}/s (drill {drill.name})",
        expected=goal.expected,
        observed=observed,
        verdict=Verdict.PASS if ok else Verdict.FAIL,
        figures=figures,
    )
