"""servelab fuzz against real stacks: files behind nginx (a few schema examples, every
hand-written case, slowloris clients) and hello on uvicorn alone: no 5xx, no hang;
health-code's variants refuse an image past the pixel limit, their memory watched."""

from __future__ import annotations

from pathlib import Path

import pytest

from servelab.project import Project
from servelab.reliability.fuzz.cases import decompression_ratio, hand_written, range_cases
from servelab.reliability.fuzz.memory import ceiling_watch, memory_probe, serving
from servelab.reliability.fuzz.run import (
    FuzzOptions,
    case_probes,
    schema_probe,
    slowloris_probe,
    stored_object,
)
from servelab.reliability.rows import Verdict
from servelab.spec.reliability import FuzzStack, chosen
from servelab.stack import Stack

pytestmark = pytest.mark.stack
FAMILIES = chosen(Project.find(Path(__file__)), lambda spec: spec.fuzz, "fuzz")


def test_files_through_nginx_has_no_5xx_and_no_hang(tmp_path: Path) -> None:
    family = FAMILIES["files"]
    variant = family.stacks[1]
    target = variant.targets[0]
    with Stack(variant.profile, only=[variant.service], env=variant.env, log=None) as stack:
        port = stack.port(target.service)
        token = stack.api_token
        schema = schema_probe(target, port, token, FuzzOptions(examples=2), tmp_path)
        cases = list(hand_written(family, token))
        cases += [
            c for path in stored_object(port, family, token) for c in range_cases(family, path)
        ]
        probes = list(case_probes(target.service, port, cases))
        slow = slowloris_probe(target.service, port, family.read, window_s=12)
    assert schema.figures["cases"] > 0 and schema.figures["server_errors"] == 0, schema.observed
    for probe in probes:
        assert probe.figures["server_errors"] == probe.figures["hangs"] == 0, probe.observed
    # nginx cuts the slow clients off after client_header_timeout and serves the others.
    assert slow.verdict is Verdict.PASS, slow.observed


def test_hello_on_uvicorn_alone_has_no_5xx_and_no_hang() -> None:
    family = FAMILIES["hello"]
    variant = family.stacks[0]
    with Stack(variant.profile, only=[variant.service], log=None) as stack:
        port = stack.port(variant.targets[0].service)
        probes = list(case_probes("hello", port, list(hand_written(family, stack.api_token))))
    assert probes
    for probe in probes:
        assert probe.figures["server_errors"] == probe.figures["hangs"] == 0, probe.observed


@pytest.mark.parametrize(
    ("variant", "watched"),
    [
        (FAMILIES["health-code"].stacks[0], ["health-code-uvicorn"]),
        (FAMILIES["health-code"].stacks[1], ["health-code-replica", "health-code-replicas"]),
    ],
    ids=lambda value: value.profile if isinstance(value, FuzzStack) else None,
)
def test_health_code_refuses_a_decompression_ratio_quickly_under_its_memory_limit(
    variant: FuzzStack, watched: list[str]
) -> None:
    family = FAMILIES["health-code"]
    target = variant.targets[0]
    with Stack(variant.profile, only=[variant.service], env=variant.env, log=None) as stack:
        containers = serving(stack, target.service)
        with ceiling_watch(containers) as peaks:
            cases = decompression_ratio(family, stack.api_token)
            probes = list(case_probes(target.service, stack.port(target.service), cases))
        ceiling = memory_probe(target.service, peaks())
    assert sorted(container.name for container in containers) == watched
    assert [probe.observed for probe in probes] == ["3 cases: 413 ×3"]
    assert probes[0].figures["slowest_s"] < 2.0
    assert ceiling.verdict is Verdict.PASS, ceiling.observed
    assert 0 < ceiling.figures["peak_mib"] < ceiling.figures["limit_mib"]
