"""Every verdict on docs/findings.md, worked out again from the saved runs beside it
(docs/results/<family>.json, the quick run; <family>.full.json, the full run) by a plain
implementation of the page's rules (simple_verdicts: `json`, `tomllib` and the arithmetic,
none of servelab's findings or ratio code), and compared by meaning: the kind of answer
(an option, no measurable difference, depends on where, yes, no, cannot answer here,
"<n> workers on <c> CPUs") and the options or cells it names.

A page changed by hand, or written by a findings engine that drifted from its own rules,
fails here naming the family, the question and the run. The question on the GPU machine's
run is left to the device report's tests: its line is only looked for.

FINDINGS_RESULTS names another results folder (its findings.md is then the
page, as `servelab findings --results DIR` writes it), FINDINGS_PAGE another page.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from .simple_verdicts import (
    CANNOT,
    DEPENDS,
    GPU_RUN,
    NO_DIFFERENCE,
    WINNER,
    Family,
    Meaning,
    Page,
    Run,
    Unsupported,
    alike,
    load_families,
    meaning_of,
    read_page,
    recompute,
    shown,
    without_note,
    workers,
)

ROOT = Path(__file__).resolve().parents[5]
FAMILIES = ROOT / "loadtests" / "families"
RESULTS = Path(os.environ.get("FINDINGS_RESULTS") or ROOT / "docs" / "results")
PAGE = Path(
    os.environ.get("FINDINGS_PAGE")
    or (
        RESULTS / "findings.md"
        if "FINDINGS_RESULTS" in os.environ
        else ROOT / "docs" / "findings.md"
    )
)


@dataclass(frozen=True, eq=False)
class Asked:
    """One verdict the page owes: a question of a family, answered from one saved run (None:
    the GPU machine's run)."""

    family: Family
    rule: dict[str, Any]
    run: Run | None

    @property
    def question(self) -> str:
        return str(self.rule["question"])

    @property
    def header(self) -> str:
        return self.run.header if self.run is not None else GPU_RUN

    @property
    def id(self) -> str:
        form = self.run.form if self.run is not None else "gpu"
        return f"{self.family.name} {form}: {self.question}"

    def __repr__(self) -> str:
        return f"Asked({self.id!r})"

    def where(self) -> str:
        run = f"{self.header}, {self.run.path.name}" if self.run is not None else self.header
        return f"{self.family.name}: {self.question!r}, {run}"


@cache
def families() -> tuple[Family, ...]:
    return tuple(load_families(FAMILIES, RESULTS))


def asked(found: tuple[Family, ...]) -> list[Asked]:
    return [
        Asked(family, rule, run)
        for family in found
        for rule in family.questions()
        for run in ([None] if rule["rule"] == "on_device" else family.runs)
    ]


_RECOMPUTED: dict[tuple[str, str, str], Meaning] = {}


def expected(item: Asked) -> Meaning:
    """The recomputed verdict's meaning, worked out once per question and run."""
    assert item.run is not None
    key = (item.family.name, item.question, item.run.form)
    if key not in _RECOMPUTED:
        _RECOMPUTED[key] = recompute(item.rule, item.run, item.family)
    return _RECOMPUTED[key]


def problems(item: Asked, page: Page) -> list[str]:
    """Where the page's line for `item` is missing or disagrees with the recomputed verdict."""
    section = page.sections.get(item.family.title)
    if section is None:
        return [f"{item.where()}: the page has no section `## {item.family.title}`"]
    lines = section.get(item.question)
    if lines is None:
        return [f"{item.where()}: the page has no question `### {item.question}`"]
    verdict = lines.runs.get(item.header)
    if verdict is None:
        has = "; ".join(lines.runs) or "none"
        return [
            f"{item.where()}: no line `- **{item.header}:**` on the page (its run lines: {has})"
        ]
    if item.run is None:
        return []
    try:
        ours = expected(item)
    except Unsupported as error:
        return [f"{item.where()}: not re-implemented here: {error}"]
    said = meaning_of(verdict, item.rule)
    if said != ours:
        return [
            f"{item.where()}: the page says {verdict!r}, read as {shown(said)}; "
            f"recomputed from the run: {shown(ours)}"
        ]
    return []


def summary_problems(family: Family, rule: dict[str, Any], page: Page) -> list[str]:
    """The question's `Ours` line and its row at a glance against its runs' recomputed
    verdicts: one verdict where every run that answers means the same, else "the runs
    differ"."""
    items = [Asked(family, rule, run) for run in family.runs]
    try:
        meanings = [expected(item) for item in items]
    except Unsupported:
        return []  # said by the run's own test
    answered = [m for m in meanings if m[0] != CANNOT]
    same = {alike(rule, m) for m in answered}
    where = f"{family.name}: {rule['question']!r}"
    lines = page.sections.get(family.title, {}).get(rule["question"])
    found = []
    for what, text, differ in (
        ("its `Ours` line", lines.ours if lines else None, "the runs differ, each below"),
        (
            "its row at a glance",
            page.glance.get((family.spec.get("family", family.name), rule["question"])),
            "the runs differ: ",
        ),
    ):
        if text is None:
            found.append(f"{where}: the page lacks {what}")
        elif len(same) > 1:
            if not text.startswith(differ):
                found.append(f"{where}: {what} says {text!r}, but the runs answer differently")
        else:
            ours = answered[0] if answered else meanings[0] if meanings else (CANNOT, frozenset())
            said = meaning_of(without_note(text), rule)
            if said != ours:
                found.append(
                    f"{where}: {what} says {text!r} ({shown(said)}); recomputed: {shown(ours)}"
                )
    return found


ASKED = asked(families())


@pytest.fixture(scope="module")
def page() -> Page:
    return read_page(PAGE)


def test_every_family_has_its_saved_runs() -> None:
    """The test reads real runs: a family with questions but no saved run would answer
    nothing here."""
    empty = [f.name for f in families() if f.questions() and not f.runs]
    assert not empty, f"no saved run in {RESULTS} for {empty}"
    assert len([a for a in ASKED if a.run is not None]) >= 20


@pytest.mark.parametrize("item", ASKED, ids=[a.id for a in ASKED])
def test_each_run_verdict_on_the_page_is_the_recomputed_one(item: Asked, page: Page) -> None:
    found = problems(item, page)
    assert not found, f"{PAGE}:\n" + "\n".join(found)


def test_each_question_summary_follows_its_runs(page: Page) -> None:
    found = [
        problem
        for family in families()
        for rule in family.questions()
        if rule["rule"] != "on_device"
        for problem in summary_problems(family, rule, page)
    ]
    assert not found, f"{PAGE}:\n" + "\n".join(found)


def test_the_page_holds_no_verdict_left_unchecked(page: Page) -> None:
    """Every run line on the page belongs to a question of the specs and a saved run."""
    owed = {(a.family.title, a.question, a.header) for a in ASKED}
    titles = {f.title for f in families()}
    extra = [
        f"{title}: {question!r}: {header}"
        for title, questions in page.sections.items()
        for question, lines in questions.items()
        for header in lines.runs
        if (title, question, header) not in owed
    ]
    unknown = [
        f"{title}: {question!r}"
        for title, questions in page.sections.items()
        if title in titles
        for question in questions
        if not any((title, question) == (a.family.title, a.question) for a in ASKED)
    ]
    assert not extra and not unknown, (
        f"{PAGE}: lines no spec question or saved run accounts for:\n" + "\n".join(extra + unknown)
    )


def test_the_quick_and_full_runs_agree_as_often_as_the_page_says() -> None:
    """Repeatability: how many questions both runs of a family answer, and alike."""
    said = re.search(
        r"The quick and the full runs,.*? give the same answer to (\d+) of the (\d+) questions",
        PAGE.read_text(),
    )
    same = compared = 0
    for family in families():
        if len(family.runs) < 2:
            continue
        for rule in family.questions():
            if rule["rule"] == "on_device":
                continue
            quick, full = (expected(Asked(family, rule, run)) for run in family.runs[:2])
            if CANNOT not in (quick[0], full[0]):
                compared += 1
                same += alike(rule, quick) == alike(rule, full)
    if not compared:
        assert said is None, f"{PAGE}: {said[0] if said else ''}, yet no question both answer"
        return
    assert said is not None, f"{PAGE}: no count of the questions the quick and full runs answer"
    assert (int(said[1]), int(said[2])) == (same, compared), (
        f"{PAGE}: {said[0]!r}; recomputed: the same answer to {same} of the {compared}"
    )


def _changed(item: Asked, meaning: Meaning, verdict: str) -> list[str]:
    """Verdicts a hand could write instead of `verdict`, each meaning something else: another
    kind of answer, and where the rule names options or cells, the same kind naming others."""
    rule, kind = item.rule, meaning[0]
    first, second = rule.get("first", ""), rule.get("second", "")
    answered = {
        "choice": first,
        "latency": first,
        "cheapest": f"{NO_DIFFERENCE} between a, b",
        "workers": f"1 worker on {item.run.cpus if item.run else 2} CPUs; someone",
        "within": "yes: +0% at most",
        "unfailed": "none failed: every one answered",
        "under": "yes: every p95 under 1 ms",
        "holds": "every answer a 2xx up to: nothing 1/s",
        "unmeasured": "no: changed by hand",
    }[rule["rule"]]
    if kind == CANNOT:
        return [answered]
    edits = [f"{CANNOT}: changed by hand"]
    if rule["rule"] in ("choice", "latency") and kind == WINNER:
        edits.append(second if meaning[1] == {first} else first)
    elif rule["rule"] in ("choice", "latency") and kind == NO_DIFFERENCE:
        edits.append(first)
    elif rule["rule"] == "choice" and kind == DEPENDS:
        # The other option where the cells split.
        swapped = verdict.replace(f"{first} on ", "\0").replace(f"{second} on ", f"{first} on ")
        edits += [NO_DIFFERENCE, swapped.replace("\0", f"{second} on ")]
    elif rule["rule"] == "cheapest":
        names = sorted(meaning[1])
        edits.append(names[0] if len(names) > 1 else f"{NO_DIFFERENCE} between {names[0]}, someone")
        if len(names) > 2:
            edits.append(f"{NO_DIFFERENCE} between {', '.join(names[:-1])}")
    elif rule["rule"] == "workers":
        count = int(kind.split()[0])
        edits.append(verdict.replace(f"{workers(count)} on", f"{workers(count + 1)} on", 1))
        edits.append(verdict.split(", or alike")[0] + ", or alike someone")
    elif rule["rule"] == "within":
        cell = verdict.rpartition(" on ")[2]
        edits.append(f"{NO_DIFFERENCE} from the limit: +10% on {cell}" if kind == "no" else
                     f"no: +10% on {cell}")  # fmt: skip
        edits.append(verdict.rpartition(" on ")[0] + " on someone, 1 worker")
    elif rule["rule"] in ("unfailed", "under"):
        if kind == "no":
            edits.append(answered)
            edits.append(verdict.rpartition("; ")[0] or verdict + "; someone: 1 by k6")
        else:
            edits.append(
                "some failed: someone, 1 worker, GET /: 1 by k6"
                if rule["rule"] == "unfailed"
                else "no: p95 over 1.0 s on someone, 1 worker, GET /"
            )
    elif rule["rule"] == "holds":
        edits.append(re.sub(r" (\d+)/s", r" \g<1>0/s", verdict, count=1))
    return [edit for edit in edits if edit != verdict]


def test_a_verdict_changed_by_hand_is_caught(page: Page, tmp_path: Path) -> None:
    """Each run line of the page, rewritten to another answer in a copy of the page, is
    caught and named by its question and run."""
    text = PAGE.read_text()
    lines = text.splitlines()
    tried = 0
    for item in ASKED:
        if item.run is None or problems(item, page):
            continue  # the GPU's line is not judged; a line already wrong fails above
        verdict = page.sections[item.family.title][item.question].runs[item.header]
        original = f"- **{item.header}:** {verdict}."
        # The line under this question's heading (the same run line may sit under others).
        heading = lines.index(f"## {item.family.title}")
        at = lines.index(f"### {item.question}", heading)
        at = lines.index(original, at)
        for edit in _changed(item, expected(item), verdict):
            copy = tmp_path / "findings.md"
            copy.write_text(
                "\n".join([*lines[:at], f"- **{item.header}:** {edit}.", *lines[at + 1 :]]) + "\n"
            )
            found = problems(item, read_page(copy))
            assert found, f"{item.where()}: changed to {edit!r} by hand, yet not caught"
            assert item.question in found[0] and item.header in found[0]
            tried += 1
    if not tried:
        pytest.skip(f"{PAGE} has no run line that agrees with its run to change")
