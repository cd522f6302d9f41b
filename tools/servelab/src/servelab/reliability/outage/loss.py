"""What a drill's action cost clients: which answers failed, split by whether their request
was sent before the action (in flight when it came) or after it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from servelab.reliability.outage.analysis import TimedAnswer


@dataclass(frozen=True)
class Loss:
    answers: int
    failed: int  # every answer but a 2xx (status 0: no answer at all)
    failed_before: int  # answered before the action
    in_flight: int  # sent before the action, answered after it
    in_flight_failed: int
    failed_after: int  # sent at or after the action
    slowest_failure_ms: float  # the slowest of those
    answered_after: int  # answers that arrived at or after the action
    # From the action to the last failure (0: none after it); None when the run ends on a
    # failure or no answer came after the action: the service was never seen whole again.
    whole_again_s: float | None
    statuses: dict[str, int]  # failures by status ("0": no answer)


def loss(answers: Sequence[TimedAnswer], action_ms: float) -> Loss:
    """Answers cut at `action_ms` (unix ms); a request was sent `duration_ms` before its
    answer arrived."""
    before = [a for a in answers if a.at_ms < action_ms]
    in_flight = [a for a in answers if a.at_ms >= action_ms > a.at_ms - a.duration_ms]
    later = [a for a in answers if a.at_ms - a.duration_ms >= action_ms]
    answered_after = [a for a in answers if a.at_ms >= action_ms]
    failures_after = [a for a in answered_after if not a.ok]
    whole: float | None = 0.0 if answered_after else None
    if failures_after:
        last = failures_after[-1]
        ends_failing = answers[-1] is last
        whole = None if ends_failing else round((last.at_ms - action_ms) / 1000, 3)
    statuses: dict[str, int] = {}
    for answer in answers:
        if not answer.ok:
            statuses[str(answer.status)] = statuses.get(str(answer.status), 0) + 1
    return Loss(
        answers=len(answers),
        failed=sum(not a.ok for a in answers),
        failed_before=sum(not a.ok for a in before),
        in_flight=len(in_flight),
        in_flight_failed=sum(not a.ok for a in in_flight),
        failed_after=sum(not a.ok for a in later),
        slowest_failure_ms=round(max((a.duration_ms for a in later if not a.ok), default=0.0), 1),
        answered_after=len(answered_after),
        whole_again_s=whole,
        statuses=dict(sorted(statuses.items())),
    )
