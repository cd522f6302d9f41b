"""The device run's time plan, estimated before it runs: every planned stack within the
call's window at the committed run's rates, and a plan that errs long where it knows less."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from servelab.bench.device.__main__ import main
from servelab.bench.device.plan import load_plan
from servelab.bench.device.results import RESULTS_NAME, load_device_run
from servelab.bench.device.run import BUDGET_S, EVAL_RESERVE_S
from servelab.bench.device.timeplan import UNKNOWN_OVERHEAD_S, UNKNOWN_RPS, time_plan
from servelab.project import Project

# What a call on the GPU machine may take in all (its longest command is 10 minutes), and
# what installing the bundle's wheels takes before the runner starts.
WINDOW_S = 540
INSTALL_S = 20


def test_every_planned_stack_fits_the_call_at_the_committed_runs_rates(
    project_root: Path,
) -> None:
    project = Project(project_root)
    earlier = load_device_run(project.results / f"{RESULTS_NAME}.json")
    timed = time_plan(load_plan(project, "device"), 16, earlier)
    assert len(timed.stacks) == len(load_plan(project, "device").stacks(16))
    assert timed.stacks_s <= BUDGET_S - EVAL_RESERVE_S
    assert timed.after_s <= EVAL_RESERVE_S
    assert INSTALL_S + BUDGET_S <= WINDOW_S


def test_a_stack_the_earlier_run_did_not_measure_takes_its_slowest_figures(
    project_root: Path,
) -> None:
    project = Project(project_root)
    plan = load_plan(project, "device")
    earlier = load_device_run(project.results / f"{RESULTS_NAME}.json")
    timed = {each.stack.label: each for each in time_plan(plan, 16, earlier).stacks}
    measured = [each for each in timed.values() if each.measured]
    unmeasured = [each for each in timed.values() if not each.measured]
    assert measured and unmeasured
    assert min(e.seconds for e in unmeasured) >= max(e.seconds for e in measured) - 0.01
    # With no earlier run at all, the plan's own assumptions.
    stack = plan.stacks(16)[0]
    requests = sum(load.iterations for load in plan.loads.values())
    alone = time_plan(plan, 16, replace(earlier, stacks=[])).stacks[0]
    assert alone.stack == stack
    assert alone.seconds == UNKNOWN_OVERHEAD_S + requests / UNKNOWN_RPS


def test_the_plan_command_says_whether_the_stacks_fit(
    project_root: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project_root)
    assert main(["plan", "--cpus", "16"]) == 0
    out = capsys.readouterr().out
    assert "gpu-batched w8" in out and "fits the 410 s the budget leaves them" in out
    assert main(["plan", "--cpus", "16", "--budget-s", "200"]) == 0
    assert "does NOT fit" in capsys.readouterr().out
