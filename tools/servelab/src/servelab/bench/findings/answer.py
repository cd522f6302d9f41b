"""One question's answer from one run: the verdict, the figures behind it, and what it
means, so that two runs' answers compare by meaning (a kind and a set of options), not by
their words."""

from __future__ import annotations

from dataclasses import dataclass

from servelab.bench.findings.evidence import LeftOut

NO_DIFFERENCE = "no measurable difference"
DEPENDS = "depends on where"
CANNOT = "cannot answer here"
# The kinds of answer beside those three.
WINNER = "winner"
YES = "yes"
NO = "no"
SEEN = "seen"


@dataclass(frozen=True)
class Answer:
    question: str
    # The answer itself, with a few words.
    verdict: str
    # The figures behind it, each value with its interval.
    figures: str
    # What the intervals are over.
    sure: str = ""
    left_out: tuple[LeftOut, ...] = ()
    # What the answer means, compared between runs: its kind (WINNER, NO_DIFFERENCE,
    # DEPENDS, CANNOT, YES, NO, SEEN, or "<n> workers") and the options it names.
    kind: str = CANNOT
    names: frozenset[str] = frozenset()

    @property
    def meaning(self) -> tuple[str, frozenset[str]]:
        return (self.kind, self.names)

    @property
    def answered(self) -> bool:
        return self.kind != CANNOT

    def opposes(self, other: Answer) -> bool:
        """Whether the two name opposite answers: different winners, or yes against no."""
        if self.kind == other.kind == WINNER:
            return not self.names & other.names
        return {self.kind, other.kind} == {YES, NO}
