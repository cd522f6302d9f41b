"""The reliability suite's plan (servelab.reliability.plan): what `make reliability` and
`make bench` say it will take, phase by phase, before anything runs."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from servelab.bench.progress import clock
from servelab.cli import main
from servelab.project import Project
from servelab.reliability.faults import coldstart
from servelab.reliability.fuzz.run import FuzzOptions
from servelab.reliability.plan import (
    FUZZ_FORMS,
    PROBE_S,
    fuzz_s,
    probe_names,
    probes_s,
    soaks_s,
    suite_plan,
)
from servelab.reliability.soak.targets import soaks
from servelab.spec.reliability import Fuzz, chosen


def fuzzed(project: Project, *names: str) -> list[Fuzz]:
    return list(chosen(project, lambda spec: spec.fuzz, "fuzz", names).values())


def test_the_plan_prints_each_phase_and_the_whole_and_runs_nothing(
    project: Project,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("SERVELAB_RESULTS", str(tmp_path / "results"))
    assert main(["reliability", "--plan", "quick"]) == 0
    line = capsys.readouterr().err.strip()
    phases = suite_plan(project, "quick")
    assert list(phases) == ["drills", "probes", "fuzzing", "soaks"]
    for name, seconds in phases.items():
        assert f"{name} {clock(seconds)}" in line
    assert line.endswith(f"about {clock(sum(phases.values()))}")
    assert not (tmp_path / "results").exists()


def test_the_full_form_adds_nine_minutes_a_soak_and_repeats_the_schema_runs(
    project: Project,
) -> None:
    quick, full = suite_plan(project, "quick"), suite_plan(project, "full")
    assert full["soaks"] - quick["soaks"] == 540 * len(soaks(project))
    assert soaks_s(["files"], "full") - soaks_s(["files"], "quick") == 540
    every = fuzzed(project)
    assert quick["fuzzing"] == fuzz_s(every, FuzzOptions())
    assert full["fuzzing"] == fuzz_s(every, FuzzOptions(time_limit_s=60)) > quick["fuzzing"]
    assert {k: v for k, v in full.items() if k not in ("soaks", "fuzzing")} == {
        k: v for k, v in quick.items() if k not in ("soaks", "fuzzing")
    }


def test_disk_full_is_planned_only_where_it_runs_as_root(project: Project) -> None:
    assert "disk-full" in probe_names(root=True)
    assert "disk-full" not in probe_names(root=False)
    seconds = coldstart.DEFAULT_SECONDS
    as_root = probes_s(project, probe_names(root=True), (), seconds)
    as_user = probes_s(project, probe_names(root=False), (), seconds)
    assert as_root - as_user == PROBE_S["disk-full"]


def test_longer_cold_starts_and_the_full_fuzz_take_longer(project: Project) -> None:
    five = probes_s(project, ["coldstart"], (), 5.0)
    every = coldstart.targets(project)
    assert probes_s(project, ["coldstart"], (), 10.0) - five == 5.0 * len(every)
    assert probes_s(project, ["coldstart"], ["hello"], 5.0) < five
    files = fuzzed(project, "files")
    quick, full = fuzz_s(files, FuzzOptions()), fuzz_s(files, FuzzOptions(quick=False))
    # Two targets, each with a schema run (one pass -> 600 s) and slowloris (15 s -> 60 s).
    assert full - quick == 2 * (600 - files[0].schema_pass_s + 45)
    # Families whose targets serve no schema plan no schema run.
    hello = fuzzed(project, "hello")
    assert fuzz_s(hello, FuzzOptions()) == fuzz_s(hello, FuzzOptions(time_limit_s=60))


def test_make_reliability_runs_the_phases_in_the_planned_order(project: Project) -> None:
    recipe = (project.root / "Makefile").read_text().split("\nreliability: ", 1)[1]
    recipe = recipe.split("\n\n", 1)[0]
    commands = re.findall(r"servelab (outage|probe|fuzz|soak)\b", recipe)
    assert commands == ["outage", "probe", "fuzz", "soak"]
    assert len(commands) == len(suite_plan(project))
    assert "servelab reliability --plan" in recipe


def _shown(project: Project, tmp_path: Path, target: str, form: str) -> str:
    """What `make -n TARGET FORM=form` would run, the bootstrap stubbed out and $(RUN) `run`."""
    stub = tmp_path / "stub.mk"
    stub.write_text("bootstrap:\n\t@:\n")
    make = ["make", "-n", "-s", "-f", "Makefile", "-f", str(stub)]
    return subprocess.run(
        [*make, target, f"FORM={form}", "RUN=run"],
        cwd=project.root,
        capture_output=True,
        text=True,
        check=True,
    ).stdout


@pytest.mark.parametrize("form", ["quick", "full"])
def test_make_reliability_fuzzes_and_soaks_as_its_plan_says(
    project: Project, tmp_path: Path, form: str
) -> None:
    shown = _shown(project, tmp_path, "reliability", form)
    fuzz = re.search(r"run servelab fuzz ?([^|]*?) *\|\|", shown)
    soak = re.search(r"run servelab soak ([^|]*?) *\|\|", shown)
    assert fuzz and soak, shown
    seconds = FUZZ_FORMS[form].time_limit_s
    assert fuzz.group(1) == ("" if seconds is None else f"--seconds {seconds}")
    assert soak.group(1) == f"--{form}"
    assert f"run servelab reliability --plan {form}" in shown


def test_the_full_bench_targets_run_the_full_form(project: Project) -> None:
    makefile = (project.root / "Makefile").read_text()
    for target in ("bench-full", "reference-full"):
        recipe = makefile.split(f"\n{target}: bootstrap\n", 1)[1].split("\n\n", 1)[0]
        assert "servelab bench --full" in recipe
        assert "servelab findings" in recipe
        assert "reliability" not in recipe


@pytest.mark.parametrize("form", ["quick", "full"])
def test_make_bench_all_runs_the_benchmarks_then_the_reliability_suite(
    project: Project, tmp_path: Path, form: str
) -> None:
    shown = _shown(project, tmp_path, "bench-all", form)
    bench = "run servelab bench --quick" if form == "quick" else "run servelab bench --full"
    assert shown.index(bench) < shown.index("run servelab findings")
    assert shown.index("run servelab findings") < shown.index(
        f"run servelab reliability --plan {form}"
    )
