"""docs/results/reliability.md joins every saved section: a re-run section replaces only
its own rows, and a failing probe stands out."""

from __future__ import annotations

from pathlib import Path

from servelab.reliability import Probe, Verdict, load_sections, render_reliability, write_section


def _probe(target: str, verdict: Verdict) -> Probe:
    return Probe(
        probe="SIGKILL one worker under load",
        target=target,
        expected="whole again within 2 s",
        observed="whole after 0.4 s",
        verdict=verdict,
        figures={"recovered_s": 0.4},
    )


def test_a_section_run_again_replaces_only_its_own_rows(tmp_path: Path) -> None:
    write_section(tmp_path, "outage", "Outages", "servelab outage", [_probe("a", Verdict.PASS)])
    write_section(tmp_path, "soak", "Soak", "servelab soak", [_probe("b", Verdict.PASS)])
    write_section(tmp_path, "outage", "Outages", "servelab outage", [_probe("c", Verdict.FAIL)])

    sections = load_sections(tmp_path)

    assert [(s.name, [p.target for p in s.probes]) for s in sections] == [
        ("outage", ["c"]),
        ("soak", ["b"]),
    ]
    assert sections[0].probes[0].figures == {"recovered_s": 0.4}


def test_the_page_counts_and_marks_failures(tmp_path: Path) -> None:
    write_section(
        tmp_path,
        "fuzz-files",
        "Fuzzing: files",
        "servelab fuzz files",
        [_probe("files-uvicorn", Verdict.PASS), _probe("files-gunicorn | nginx", Verdict.FAIL)],
    )

    page = render_reliability(load_sections(tmp_path))

    assert "| [Fuzzing: files](#fuzz-files) | 2 | 1 | 1 |" in page
    assert "| files-gunicorn \\| nginx |" in page
    assert page.count("**fail**") == 1
