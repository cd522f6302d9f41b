"""The kinds of question a write-up asks, as rules over a family's ratios and cells, and
what the findings page says beside our answer."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class About:
    """The write-up's own answer, why ours may differ, and what a bigger machine changes.
    `agrees`: the verdict of ours that would be the write-up's answer (None: it gave none
    we can compare)."""

    write_up: str = ""
    why: str = ""
    bigger: str = ""
    agrees: str | None = None


@dataclass(frozen=True)
class Choice:
    """A question two options answer, settled by a ratio of the first over the second:
    the first of `ratios` that has values (a CPU ratio before its requests/s twin)."""

    question: str
    ratios: tuple[str, ...]
    first: str
    second: str
    about: About = About()


@dataclass(frozen=True)
class Cheapest:
    """Which of the numerator variants of `ratio` (a CPU ratio over a floor) does the job
    at `endpoint` for the least server CPU per request."""

    question: str
    endpoint: str
    ratio: str
    about: About = About()


@dataclass(frozen=True)
class Workers:
    """Which variant gives the most successful requests/s at `endpoint`, and the fewest
    workers that give as many as its best, within the noise."""

    question: str
    endpoint: str
    variants: tuple[str, ...] | None = None
    about: About = About()


@dataclass(frozen=True)
class Within:
    """Does a cost stay within a limit: every value of `ratio` (a CPU ratio, one option
    over the same server without it) at most `maximum`?"""

    question: str
    ratio: str
    maximum: float
    about: About = About()


@dataclass(frozen=True)
class OnDevice:
    """A question only the run on a machine with an NVIDIA GPU answers (`<family>.gpu.json`
    beside the family's runs, from scripts/device/run.sh): the best GPU cell against the
    best CPU cell under each load. Without that run, `needs` says what to run."""

    question: str
    needs: str
    about: About = About()


Question = Choice | Cheapest | Workers | Within | OnDevice
