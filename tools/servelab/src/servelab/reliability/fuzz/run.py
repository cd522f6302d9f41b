"""Run a family's fuzz: each deploy variant started with the local runner, each target
given the schema's cases, the hand-written ones and slowloris clients while the memory of
what serves it is sampled; one report row per case class and target, and one for its memory
against the recipe's limit, saved as the reliability section `fuzz-<family>`."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from itertools import groupby
from pathlib import Path

from servelab.project import Project
from servelab.reliability.fuzz.cases import Case, hand_written, range_cases
from servelab.reliability.fuzz.judge import tally
from servelab.reliability.fuzz.memory import ceiling_watch, memory_probe, serving
from servelab.reliability.fuzz.race import OBJECT_BYTES, race
from servelab.reliability.fuzz.raw import ANSWER_TIMEOUT_S, exchange, request_bytes
from servelab.reliability.fuzz.schema import SchemaRunError, run_schemathesis, schemathesis_argv
from servelab.reliability.fuzz.slowloris import slowloris
from servelab.reliability.report import write_reliability
from servelab.reliability.rows import Row, Verdict, write_section
from servelab.reliability.stacks import started
from servelab.spec.reliability import Fuzz, FuzzTarget
from servelab.stack import Stack

_SHOWN_FAILURES = 3
_SERVERS_ALONE = (
    "App servers alone (uvicorn, gunicorn, uWSGI's http-socket) answer a request their "
    "HTTP parser cannot read (raw bytes in the request line, a NUL in a header) themselves, "
    "in plain text or HTML, before the app runs, and do not reliably cut off clients that "
    "send their headers slowly: the recipes put nginx in front, whose rows show both "
    "answered (a JSON 400; slow clients cut off after client_header_timeout, 10 s). ST204 "
    "behind nginx: nginx refuses TRACE itself, a 405 without Allow (it cannot know each "
    "path's methods). ST201 behind nginx for a query over 8 KiB: nginx's 414, a status "
    "schemathesis does not count as a refusal."
)


class FuzzError(RuntimeError):
    """The family is unknown, or a fuzz could not run."""


@dataclass(frozen=True)
class FuzzOptions:
    """The quick form runs each schemathesis phase once, `examples` per operation, and
    watches slow clients for 15 s; the full form repeats the phases until 600 s a target
    have passed and watches for 60 s. `time_limit_s`, where set, repeats them until that
    many seconds instead, in either form."""

    examples: int = 25
    quick: bool = True
    seed: int = 1
    time_limit_s: int | None = None

    @property
    def max_time_s(self) -> int | None:
        """How long schemathesis repeats its phases; None: each phase once."""
        if self.time_limit_s is not None:
            return self.time_limit_s
        return None if self.quick else 600

    @property
    def slowloris_s(self) -> float:
        return 15.0 if self.quick else 60.0

    @property
    def flags(self) -> str:
        """This form as `servelab fuzz` options."""
        seconds = "" if self.time_limit_s is None else f" --seconds {self.time_limit_s}"
        return f"--examples {self.examples} {'--quick' if self.quick else '--full'}{seconds}"

    @property
    def schema_form(self) -> str:
        """What the schema rows ran, in words."""
        if self.max_time_s is None:
            return f"each phase once, {self.examples} examples per operation"
        return (
            f"{self.examples} examples per operation in each pass of its phases, "
            f"passes repeated until {self.max_time_s} s"
        )


def _verdict(ok: bool) -> Verdict:
    return Verdict.PASS if ok else Verdict.FAIL


def schema_probe(
    target: FuzzTarget, port: int, token: str, options: FuzzOptions, work: Path
) -> Row:
    assert target.openapi is not None
    label = f"{target.service} ({target.server})"
    name = "schema: schemathesis, every check"
    expected = "no 5xx, no hang; every answer as the schema documents it"
    report, log = (work / f"{target.service}.schemathesis.{ext}" for ext in ("json", "log"))
    url = f"http://127.0.0.1:{port}{target.openapi}"
    argv = schemathesis_argv(url, token, options.examples, options.max_time_s, options.seed, report)
    try:
        outcome = run_schemathesis(argv, report, options.max_time_s, log)
    except SchemaRunError as error:
        return Row(name, label, expected, str(error), Verdict.FAIL)
    found = "; ".join(
        f"{code} ×{count} ({', '.join(operations[:2])}{', ...' if len(operations) > 2 else ''})"
        for code, count, operations in outcome.failures
    )
    errors = "; ".join(f"{title} ×{count}" for title, count in outcome.errors)
    observed = (
        f"{outcome.generated} cases over {outcome.operations} operations in "
        f"{outcome.seconds:.0f} s: {outcome.server_errors} 5xx, "
        f"{outcome.failure_count} failures"
        + (f": {found}" if found else "")
        + (f"; errors: {errors}" if errors else "")
    )
    return Row(
        name,
        label,
        expected,
        observed,
        _verdict(not outcome.failures and not outcome.errors),
        {
            "cases": outcome.generated,
            "operations": outcome.operations,
            "failures": outcome.failure_count,
            "server_errors": outcome.server_errors,
            "seconds": round(outcome.seconds, 1),
        },
    )


def case_probes(label: str, port: int, cases: list[Case]) -> Iterator[Row]:
    """One row per case class: every case sent, every answer judged."""
    for klass, group in groupby(cases, key=lambda case: case.klass):
        results = [(case, exchange(port, case.request)) for case in group]
        counted = tally(results)
        statuses = ", ".join(f"{status} ×{n}" for status, n in sorted(counted.statuses.items()))
        shown = "; ".join(counted.failures[:_SHOWN_FAILURES])
        more = len(counted.failures) - _SHOWN_FAILURES
        observed = f"{counted.cases} cases: {statuses}" + (
            f". {len(counted.failures)} failed: {shown}" + (f"; {more} more" if more > 0 else "")
            if counted.failures
            else ""
        )
        yield Row(
            klass,
            label,
            f"within {ANSWER_TIMEOUT_S:.0f} s; no 5xx; a refusal is a JSON 4xx",
            observed,
            _verdict(not counted.failures),
            {
                "cases": counted.cases,
                "failures": len(counted.failures),
                "server_errors": counted.server_errors,
                "hangs": counted.hangs,
                "slowest_s": round(counted.slowest_s, 3),
            },
        )


def stored_object(port: int, family: Fuzz, token: str) -> list[str]:
    """Store 1,000 bytes through the target; the paths that answer them."""
    assert family.upload is not None
    headers: dict[str, str | bytes] = {
        "Authorization": f"Bearer {token}",
        "Content-Type": "application/octet-stream",
    }
    answer = exchange(port, request_bytes("POST", family.upload, headers, bytes(range(250)) * 4))
    if answer.status != 201:
        raise FuzzError(f"storing an object for the Range cases answered {answer.status}")
    object_id = json.loads(answer.body)["id"]
    return [path.format(id=object_id) for path in family.ids]


def race_probe(label: str, port: int, family: Fuzz, token: str) -> Row:
    assert family.upload is not None
    outcome = race(port, family.upload, token)
    shown = "; ".join(outcome.failures[:_SHOWN_FAILURES])
    observed = (
        f"{outcome.rounds} rounds, {outcome.gets} GETs: {outcome.whole} whole, "
        f"{outcome.not_found} clean 404s"
        + (f". {len(outcome.failures)} failed: {shown}" if outcome.failures else "")
    )
    return Row(
        "download racing a DELETE",
        label,
        f"every GET of a {OBJECT_BYTES >> 20} MiB object sent with its DELETE: every byte "
        "(200, or 206 for bytes=0-) or a JSON 404, never a short body",
        observed,
        _verdict(not outcome.failures),
        {**asdict(outcome), "failures": len(outcome.failures), "truncated": outcome.truncated},
    )


def slowloris_probe(label: str, port: int, path: str, window_s: float) -> Row:
    outcome = slowloris(port, path, window_s)
    ok = outcome.closed == outcome.slow_clients and outcome.others_served == outcome.others_asked
    observed = (
        f"{outcome.closed} of {outcome.slow_clients} slow clients cut off"
        + (f" (the last after {outcome.last_closed_s:.0f} s)" if outcome.closed else "")
        + f" in {window_s:.0f} s; {outcome.others_served} of {outcome.others_asked} "
        "other requests served meanwhile"
    )
    return Row(
        "slowloris",
        label,
        f"{outcome.slow_clients} clients sending headers at 1 byte/s cut off within "
        f"{window_s:.0f} s, others served meanwhile",
        observed,
        _verdict(ok),
        {**asdict(outcome), "last_closed_s": round(outcome.last_closed_s, 1)},
    )


def fuzz_target(
    stack: Stack, family: Fuzz, target: FuzzTarget, options: FuzzOptions, work: Path
) -> list[Row]:
    """Every case class against `target`, and the memory of what serves it meanwhile."""
    port = stack.port(target.service)
    label = f"{target.service} ({target.server})"
    probes = []
    with ceiling_watch(serving(stack, target.service)) as peaks:
        if target.openapi:
            probes.append(schema_probe(target, port, stack.api_token, options, work))
        cases = list(hand_written(family, stack.api_token))
        if family.range:
            cases += [
                case
                for path in stored_object(port, family, stack.api_token)
                for case in range_cases(family, path)
            ]
        probes += case_probes(label, port, cases)
        if family.delete_race:
            probes.append(race_probe(label, port, family, stack.api_token))
        probes.append(slowloris_probe(label, port, family.read, options.slowloris_s))
    probes.append(memory_probe(label, peaks()))
    return probes


def fuzz_family(project: Project, family: Fuzz, options: FuzzOptions) -> list[Row]:
    work = project.work("fuzz", family.family)
    work.mkdir(parents=True, exist_ok=True)
    probes: list[Row] = []
    scratch = "ee_fuzz_" if family.database else None
    with (work / "server.log").open("w") as server_log:
        for variant in family.stacks:
            with started(project, variant, server_log, scratch) as (stack, _):
                for target in variant.targets:
                    print(f"servelab: fuzzing {target.service} ({target.server})", flush=True)
                    probes += fuzz_target(stack, family, target, options, work)
    return probes


def run_fuzz(project: Project, family: Fuzz, options: FuzzOptions) -> Path:
    """Fuzz every stack of `family`; write its section and the reliability page."""
    name = family.family
    started = time.monotonic()
    probes = fuzz_family(project, family, options)
    write_section(
        project,
        f"fuzz-{name}",
        f"Fuzz: {name}",
        f"servelab fuzz {name} {options.flags}",
        probes,
        notes=(
            f"{sum(int(p.figures.get('cases', 0)) for p in probes)} cases in "
            f"{time.monotonic() - started:.0f} s. Schema rows: schemathesis, "
            f"{options.schema_form}, past each failure, seed {options.seed}, checks `all`; "
            "its failure codes (ST103 ...) are explained by `schemathesis explain`. "
            "Hand-written rows: raw requests a schema cannot produce "
            f"(servelab/reliability/fuzz/cases.py). {_SERVERS_ALONE} {family.notes}"
        ).strip(),
    )
    return write_reliability(project)
