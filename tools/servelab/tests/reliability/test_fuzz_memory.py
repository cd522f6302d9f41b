"""The fuzz's memory row: a process group's memory sampled in the background while the
cases run, its peak judged against the recipe's limit even after the memory is freed."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager

from servelab.reliability.fuzz.memory import Container, Peak, ceiling_watch, memory_probe
from servelab.reliability.report import render_reliability
from servelab.reliability.rows import Section, Verdict
from servelab.stack import groups
from servelab.testing.markdown import unpadded

# Holds 200 MiB (every page written) for a second when told to, frees it, and says so.
_SPIKE = """
import os, sys, time
sys.stdin.readline()
block = b"x" * (200 << 20)
time.sleep(1.0)
del block
os.write(1, b"freed\\n")
time.sleep(60)
"""


@contextmanager
def spiking() -> Iterator[subprocess.Popen[bytes]]:
    """A process group of its own that spikes to 200 MiB once a line is written to it."""
    process = subprocess.Popen(
        [sys.executable, "-c", _SPIKE],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        yield process
    finally:
        groups.kill_group(process.pid, process)


def test_a_spike_freed_before_the_end_is_seen_and_fails_the_tighter_limit() -> None:
    with spiking() as process:
        tight = Container("tight", process.pid, limit_mib=150.0)
        roomy = Container("roomy", process.pid, limit_mib=1024.0)
        with ceiling_watch([tight, roomy]) as watch:
            assert process.stdin is not None and process.stdout is not None
            process.stdin.write(b"go\n")
            process.stdin.flush()
            assert process.stdout.readline() == b"freed\n"
        peaks = watch()

    assert [peak.container for peak in peaks] == [tight, roomy]
    for peak in peaks:
        assert peak.peak_mib is not None and 200 <= peak.peak_mib < 300
    probe = memory_probe("alloc (python)", peaks)
    assert probe.verdict is Verdict.FAIL
    assert probe.figures["over_limit"] == 1
    assert probe.figures["limit_mib"] == 150.0 and probe.figures["peak_mib"] >= 200
    assert "tight peak 2" in probe.observed and "of a 150 MiB limit" in probe.observed
    assert memory_probe("alloc (python)", peaks[1:]).verdict is Verdict.PASS


def test_a_group_never_read_fails_and_one_without_a_limit_passes() -> None:
    unread = Peak(Container("gone", 1, limit_mib=128.0), None)
    unlimited = Peak(Container("free", 2, limit_mib=None), 4096.0)
    assert memory_probe("x", [unread, unlimited]).verdict is Verdict.FAIL
    assert "gone not read of a 128 MiB limit" in memory_probe("x", [unread]).observed
    alone = memory_probe("x", [unlimited])
    assert alone.verdict is Verdict.PASS and alone.observed == "free peak 4,096 MiB of no limit"
    assert memory_probe("x", []).verdict is Verdict.FAIL


def test_the_memory_row_is_rendered_in_its_fuzz_section() -> None:
    peaks = [
        Peak(Container("health-code-replica", 1, 1536.0), 1700.4),
        Peak(Container("health-code-replicas", 2, 128.0), 7.0),
    ]
    section = Section(
        "fuzz-health-code",
        "Fuzz: health-code",
        "servelab fuzz health-code",
        "2026-11-27 09:00 UTC",
        "test machine",
        [memory_probe("health-code-replicas (nginx + uvicorn)", peaks)],
    )
    page = unpadded(render_reliability([section]))
    assert (
        "| memory under the recipe's limit | health-code-replicas (nginx + uvicorn) | "
        "every process group's peak summed PSS, sampled every 0.25 s while the cases ran, "
        "under its compose memory limit | health-code-replica peak 1,700 MiB of a 1,536 MiB "
        "limit; health-code-replicas peak 7 MiB of a 128 MiB limit | **fail** |"
    ) in page
