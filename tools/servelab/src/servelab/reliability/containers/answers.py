"""What clients saw during a container drill, from k6's CSV output of loadtests/outage.js:
the answers lost by kind, the longest gap between two successes, and when the stack served
again after the action."""

from __future__ import annotations

import itertools
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from servelab.bench.load.k6 import read_points
from servelab.reliability.faults.k6_requests import failure_kind
from servelab.reliability.outage.analysis import METRIC

# lib/errors.js's kinds of a request with no answer, in words.
NO_ANSWER = {
    "connect": "connection refused",
    "read": "connection reset",
    "write": "connection reset",
    "timeout": "timeout",
    "other": "no answer",
}
RETRY_AFTER = "503 with Retry-After"


@dataclass(frozen=True)
class Answer:
    at_ms: float  # when it ended (unix ms)
    duration_ms: float
    lost: str | None  # None for a 2xx, else its kind (`lost_kind`)

    @property
    def sent_ms(self) -> float:
        return self.at_ms - self.duration_ms


def lost_kind(failure: str | None, retry_after: bool) -> str | None:
    """A failure_kind in the drill's words: `connection refused`, `connection reset`,
    `timeout`, `503 with Retry-After`, `503`, `5xx` or `4xx` (`status N` kept for others)."""
    if failure is None:
        return None
    if not failure.startswith("status "):
        return NO_ANSWER[failure]
    status = int(failure.split()[1])
    if status == 503:
        return RETRY_AFTER if retry_after else "503 without Retry-After"
    if 500 <= status < 600 or 400 <= status < 500:
        return f"{status // 100}xx ({status})"
    return failure


def read_answers(csv_path: Path) -> list[Answer]:
    """Every answer outage.js recorded (its `outage_answer` metric: the status, whether a
    Retry-After came and, with no answer, k6's error code and message), by arrival."""
    answers = [
        Answer(
            point.at_ms,
            point.value,
            lost_kind(
                failure_kind(point.status, point.error_code, point.error),
                point.tags.get("retry_after") == "yes",
            ),
        )
        for point in read_points(csv_path)
        if point.metric == METRIC
    ]
    return sorted(answers, key=lambda answer: answer.at_ms)


@dataclass(frozen=True)
class Seen:
    """What clients saw: `answers` sent, `lost` (every answer but a 2xx) by kind, `bad` the
    lost ones that were not a 503 with Retry-After, `longest_gap_s` the longest time between
    two successive 2xx answers (or from the last one to the end of a run that ended
    failing), `serving_again_s` from the action to the first 2xx after the first failure it
    caused, `whole_again_s` from the action to
    the last failure (0: none after it; None: the run ended failing or never served)."""

    answers: int
    lost: dict[str, int] = field(default_factory=dict)
    longest_gap_s: float = 0.0
    serving_again_s: float | None = None
    whole_again_s: float | None = None

    @property
    def lost_total(self) -> int:
        return sum(self.lost.values())

    @property
    def bad(self) -> int:
        return sum(count for kind, count in self.lost.items() if kind != RETRY_AFTER)


def seen(answers: list[Answer], action_ms: float) -> Seen:
    lost = Counter(answer.lost for answer in answers if answer.lost is not None)
    ok = [answer.at_ms for answer in answers if answer.lost is None]
    # Up to the last answer: a run that ends failing ends in its longest gap.
    ends = [*ok, answers[-1].at_ms] if ok and answers[-1].lost is not None else ok
    gaps = [later - earlier for earlier, later in itertools.pairwise(ends)]
    failed_after = [a for a in answers if a.lost is not None and a.at_ms >= action_ms]
    # Serving again: the first 2xx after the first failure the action caused (requests
    # answered as it struck do not count), or, with no failure, the first sent after it.
    since = failed_after[0].at_ms if failed_after else action_ms
    first = next(
        (a for a in answers if a.lost is None and a.sent_ms >= action_ms and a.at_ms > since),
        None,
    )
    whole: float | None = 0.0
    if failed_after:
        last = failed_after[-1]
        whole = None if answers[-1] is last else round((last.at_ms - action_ms) / 1000, 3)
    if first is None:
        whole = None
    return Seen(
        answers=len(answers),
        lost=dict(sorted(lost.items())),
        longest_gap_s=round(max(gaps, default=0.0) / 1000, 3),
        serving_again_s=None if first is None else round((first.at_ms - action_ms) / 1000, 3),
        whole_again_s=whole,
    )
