"""A command stops cleanly on its first stop signal, and a second one cannot cut the
stopping short."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from servelab.interrupts import STOP_SIGNALS, stop_on_signals

# Enters stop_on_signals, says so, waits; on the interrupt "stops its servers" for 1 s
# (writing `stopped` when done) and exits 130, as servelab.cli.main does.
SCRIPT = """
import sys, time
from pathlib import Path
from servelab.interrupts import stop_on_signals
done = Path(sys.argv[1])
with stop_on_signals():
    try:
        print("ready", flush=True)
        time.sleep(60)
    except KeyboardInterrupt:
        print("stopping", flush=True)
        time.sleep(1)
        done.write_text("stopped")
        sys.exit(130)
"""


def _started(tmp_path: Path, ignore_sigint: bool = False) -> subprocess.Popen[str]:
    process = subprocess.Popen(
        [sys.executable, "-c", SCRIPT, str(tmp_path / "done")],
        stdout=subprocess.PIPE,
        text=True,
        # A shell's background job: SIGINT ignored from the start.
        preexec_fn=(lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
        if ignore_sigint
        else None,
    )
    assert process.stdout is not None and process.stdout.readline() == "ready\n"
    return process


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_the_first_signal_stops_and_a_second_waits_for_the_stopping(
    tmp_path: Path, signum: int
) -> None:
    process = _started(tmp_path)
    process.send_signal(signum)
    assert process.stdout is not None and process.stdout.readline() == "stopping\n"
    process.send_signal(signal.SIGINT)
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=10) == 130
    assert (tmp_path / "done").read_text() == "stopped"


def test_ctrl_c_reaches_a_command_started_with_sigint_ignored(tmp_path: Path) -> None:
    process = _started(tmp_path, ignore_sigint=True)
    process.send_signal(signal.SIGINT)
    started = time.monotonic()
    assert process.wait(timeout=10) == 130
    assert time.monotonic() - started < 5
    assert (tmp_path / "done").read_text() == "stopped"


def test_the_handlers_before_it_come_back_afterwards() -> None:
    before = {signum: signal.getsignal(signum) for signum in STOP_SIGNALS}
    with stop_on_signals():
        assert all(signal.getsignal(signum) != before[signum] for signum in STOP_SIGNALS)
    assert {signum: signal.getsignal(signum) for signum in STOP_SIGNALS} == before
