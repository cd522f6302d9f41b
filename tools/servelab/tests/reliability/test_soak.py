"""The soak (servelab.reliability.soak): a few seconds of the files service at a low rate,
sampled, and the verdicts on samples that stay flat or grow."""

from __future__ import annotations

import pytest

from servelab.cli import main
from servelab.project import Project
from servelab.reliability.rows import Verdict
from servelab.reliability.soak import run
from servelab.reliability.soak.run import judge, run_soak
from servelab.reliability.soak.sampling import Sample
from servelab.reliability.soak.targets import measured_capacity, soaks


def test_a_short_soak_samples_and_stays_flat(
    project: Project, starts_servers: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # No saved capacity: a short run of clients back to back measures it, and the soak
    # runs at half of it.
    monkeypatch.setattr(run, "measured_capacity", lambda *_: None)
    monkeypatch.setattr(run, "PROBE_S", 2.0)
    soaked = run_soak(project, "files", duration_s=5, interval_s=1)
    assert soaked.capacity > 0
    assert soaked.rate == max(1, int(soaked.capacity / 2))
    assert "back to back" in soaked.capacity_from
    assert len(soaked.samples) >= 4
    assert all(s.rss_mib > 0 and s.fds > 0 for s in soaked.samples)
    assert soaked.probes[-1].figures["failed"] == 0
    observed = [p.observed for p in soaked.probes]
    assert all(p.verdict is Verdict.PASS for p in soaked.probes), observed


def test_growth_past_the_tolerance_fails(project: Project) -> None:
    samples = [Sample(float(i), 100.0 + 10 * i, 20 + i, 50 + i, 0, 0, 3) for i in range(12)]
    files = soaks(project, ["files"])["files"]
    verdicts = {p.probe.split(": ")[1]: p.verdict for p in judge(files, samples, 12)}
    assert verdicts["memory (RSS)"] is Verdict.FAIL
    assert verdicts["file descriptors (not sockets)"] is Verdict.FAIL
    assert verdicts["sockets left in CLOSE_WAIT"] is Verdict.PASS
    assert verdicts["temp files"] is Verdict.PASS


@pytest.mark.parametrize("family", ["files", "health-code"])
def test_the_capacity_comes_from_the_saved_benchmark(project: Project, family: str) -> None:
    assert measured_capacity(project, soaks(project, [family])[family]) is not None


def test_health_code_is_soaked_with_the_benchmarks_sample_posted(project: Project) -> None:
    chosen = soaks(project, ["health-code"])["health-code"]
    assert chosen.request == "POST /analysis/health-code"
    assert chosen.json_body is not None
    assert (project.loadtests / chosen.json_body).is_file()


def test_an_unknown_family_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["soak", "nothing-like-it"]) == 2
    assert "no soak for" in capsys.readouterr().err
