"""The families' reliability targets as data (loadtests/families/<family>.toml,
servelab.spec.reliability): every shipped one valid, a variant named that the family's
matrix lacks one line, and `servelab outage --all` running the drills it always ran."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from servelab.cli import main
from servelab.project import Project
from servelab.reliability.outage import cli as outage_cli
from servelab.spec.family import SpecError, families
from servelab.spec.reliability import Drill, TargetStack, every_reliability, reliability

DRILLS = [
    "entryeditor-compute",
    "kill-worker-granian",
    "kill-worker-gunicorn",
    "kill-worker-health-code-pool",
    "kill-worker-uvicorn",
    "kill-worker-uwsgi",
    "kill-worker-wait-gunicorn",
    "kill-worker-wait-uvicorn",
    "nginx-reload-hello-replicas",
    "nginx-reload-hello-uwsgi",
    "rolling-restart-health-code",
    "rolling-restart-hello",
    "sigterm-entryeditor-uwsgi",
    "sigterm-granian",
    "sigterm-gunicorn",
    "sigterm-nginx",
    "sigterm-tornado",
    "sigterm-uvicorn",
    "sigterm-uwsgi",
    "sigterm-wait-gunicorn",
    "sigterm-wait-uvicorn",
]

MATRIX = """
[variants.uvicorn]
profile = "uvicorn"
service = "hello-uvicorn"
env = { A = "1" }

[shapes.steady]
rate = 400
max_vus = 300
"""


def family(tmp_path: Path, reliability_toml: str) -> Project:
    """A project whose one family, hello, has MATRIX and `reliability_toml`."""
    directory = tmp_path / "loadtests" / "families"
    directory.mkdir(parents=True)
    (directory / "hello.toml").write_text(MATRIX + textwrap.dedent(reliability_toml))
    return Project(tmp_path)


def test_every_familys_targets_validate_and_name_variants_of_its_matrix(
    project: Project,
) -> None:
    every = every_reliability(project)
    assert list(every) == families(project)
    assert sorted(name for spec in every.values() for name in spec.drills) == DRILLS
    for spec in every.values():
        named: list[TargetStack | Drill] = [
            *spec.drills.values(),
            *([spec.soak] if spec.soak else []),
        ]
        named += [stack for part in (spec.fuzz, spec.coldstart) if part for stack in part.stacks]
        for stack in named:
            assert stack.profile and stack.service


def test_a_variant_resolves_to_its_profile_service_and_env(tmp_path: Path) -> None:
    spec = reliability(
        family(
            tmp_path,
            """
            [drills.d]
            kind = "sigterm"
            variant = "uvicorn"
            endpoint = "/hello"
            rate = 10
            duration_s = 10
            at_s = 2
            env = { B = "2" }

            [coldstart]
            variants = ["uvicorn"]
            script = "hello.js"
            request = "GET /hello"
            shape = "steady"
            vus = 10
            """,
        ),
        "hello",
    )
    drill = spec.drills["d"]
    assert (drill.profile, drill.service, drill.victim) == (
        "uvicorn",
        "hello-uvicorn",
        "hello-uvicorn",
    )
    assert drill.env == {"A": "1", "B": "2"}
    assert spec.coldstart is not None
    assert (spec.coldstart.rate, spec.coldstart.max_vus) == (400, 300)
    assert spec.coldstart.stacks[0].variant == "uvicorn"


@pytest.mark.parametrize(
    "table",
    [
        '[drills.d]\nvariant = "nope"\nendpoint = "/"\nrate = 1\nduration_s = 9\n',
        '[soak]\nvariant = "nope"\nendpoint = "/"\ncell_endpoint = "x"\n',
        '[[fuzz.stacks]]\nvariant = "nope"\ntargets = [{ server = "x" }]\n',
        '[coldstart]\nvariants = ["nope"]\nscript = "x"\nrequest = "x"\nrate = 1\nvus = 1\n',
    ],
    ids=["drill", "soak", "fuzz", "coldstart"],
)
def test_a_target_naming_a_variant_the_family_lacks_is_one_line(tmp_path: Path, table: str) -> None:
    with pytest.raises(SpecError) as raised:
        reliability(family(tmp_path, table), "hello")
    message = str(raised.value)
    assert "\n" not in message
    assert "no variant 'nope' in the family's matrix (known: uvicorn)" in message


def test_a_bad_value_is_one_line_naming_its_key(tmp_path: Path) -> None:
    table = '[drills.d]\nvariant = "uvicorn"\nendpoint = "/"\nrate = 1\nduration_s = "x"\n'
    with pytest.raises(SpecError, match=r"^hello.toml: drills.d.duration_s: "):
        reliability(family(tmp_path, table), "hello")


def test_outage_all_runs_the_same_drills(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    ran: list[str] = []

    def write_drill(project: Project, name: str) -> Path:
        ran.append(name)
        return project.root / f"outage-{name}.md"

    monkeypatch.setattr(outage_cli, "write_drill", write_drill)
    assert main(["outage", "--all"]) == 0
    assert ran == DRILLS
    assert f"{len(DRILLS)} drills" in capsys.readouterr().err
    ran.clear()
    assert main(["outage", "--kind", "rolling-restart"]) == 0
    assert ran == ["rolling-restart-health-code", "rolling-restart-hello"]
