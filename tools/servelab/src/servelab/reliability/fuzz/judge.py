"""What a hand-written case's answer means: nothing wrong, or the way it went wrong."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from servelab.reliability.fuzz.cases import Case
from servelab.reliability.fuzz.raw import RawAnswer

# What can go wrong, worst first; `judge` returns one of these or None.
HANG = "hang"
SERVER_ERROR = "5xx"
NO_ANSWER = "closed without an answer"
NOT_JSON = "4xx not in the JSON error shape"
ACCEPTED = "bad input served"
LEAKED = "a file outside the service in the answer"
NO_ALLOW = "405 without the allowed methods in Allow"
HEAD_REFUSED = "HEAD refused where GET is answered"


def unanswered(answer: RawAnswer) -> str | None:
    """What is wrong with an answer whatever was asked: none in time, none at all, a 5xx."""
    if answer.hung:
        return HANG
    if answer.status is None:
        return NO_ANSWER
    return SERVER_ERROR if answer.status >= 500 else None


def judge(case: Case, answer: RawAnswer) -> str | None:
    if broken := unanswered(answer):
        return broken
    assert answer.status is not None
    if b"root:x:0:0" in answer.body:
        return LEAKED
    if answer.status == 405 and not answer.headers.get("allow", "").strip():
        return NO_ALLOW
    if case.request.startswith(b"HEAD "):
        # No body to judge: any answer but a refusal of the method is GET's.
        return HEAD_REFUSED if answer.status == 405 else None
    if answer.status >= 400:
        return None if answer.is_json_error() else NOT_JSON
    return None if case.success_ok else ACCEPTED


@dataclass(frozen=True)
class Tally:
    """The answers to one case class against one target."""

    cases: int
    statuses: Counter[str]
    failures: list[str]
    slowest_s: float

    @property
    def server_errors(self) -> int:
        return sum(failure.endswith(SERVER_ERROR) for failure in self.failures)

    @property
    def hangs(self) -> int:
        return sum(failure.endswith(HANG) for failure in self.failures)


def tally(results: Iterable[tuple[Case, RawAnswer]]) -> Tally:
    statuses: Counter[str] = Counter()
    failures: list[str] = []
    slowest = 0.0
    count = 0
    for case, answer in results:
        count += 1
        slowest = max(slowest, answer.elapsed_s)
        statuses[str(answer.status) if answer.status else "none"] += 1
        wrong = judge(case, answer)
        if wrong is not None:
            got = f" ({answer.status} {answer.content_type or 'no type'})" if answer.status else ""
            failures.append(f"{case.name}{got}: {wrong}")
    return Tally(count, statuses, failures, slowest)
