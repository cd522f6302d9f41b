"""Whether two sets of answers say the same: two runs on one machine, or a user's run
against the committed reference. Two answers agree where their gists (the option, the
number of workers, "no measurable difference" or "depends on where") are the same; a
question either side cannot answer is not counted."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from servelab.bench.findings.verdict import CANNOT, Answer


def gist(answer: Answer) -> str:
    """The verdict up to its first colon or semicolon: the option, the number of workers,
    NO_DIFFERENCE or DEPENDS, without the figures that follow."""
    return answer.verdict.split(":")[0].split(";")[0]


@dataclass(frozen=True)
class Agreement:
    same: tuple[str, ...]
    differ: tuple[tuple[str, str, str], ...]

    @property
    def compared(self) -> int:
        return len(self.same) + len(self.differ)

    @property
    def share(self) -> float:
        return len(self.same) / self.compared if self.compared else 1.0

    def summary(self, subject: str) -> str:
        """`subject` ("The quick and the full runs") give the same answer to ..."""
        if not self.compared:
            return f"{subject} share no question both can answer."
        return (
            f"{subject} give the same answer to {len(self.same)} of the {self.compared} "
            f"questions both answer ({self.share:.0%})."
        )


def agreement(
    first: Mapping[str, Sequence[Answer]], second: Mapping[str, Sequence[Answer]]
) -> Agreement:
    """Each family's answers in `first` against the same family's in `second`."""
    same: list[str] = []
    differ: list[tuple[str, str, str]] = []
    for family, answers in first.items():
        theirs = {answer.question: answer for answer in second.get(family, ())}
        for answer in answers:
            other = theirs.get(answer.question)
            if other is None or CANNOT in (gist(answer), gist(other)):
                continue
            asked = f"{family}: {answer.question}"
            if gist(answer) == gist(other):
                same.append(asked)
            else:
                differ.append((asked, answer.verdict, other.verdict))
    return Agreement(tuple(same), tuple(differ))
