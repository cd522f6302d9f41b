"""`servelab down`'s view of a runner process: running, or exited even before it is reaped."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from servelab.stack.sessions import exited


def state(pid: int) -> str:
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]


def test_a_running_process_has_not_exited() -> None:
    process = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        assert not exited(process.pid)
    finally:
        process.kill()
        process.wait()
    assert exited(process.pid)


def test_a_process_its_parent_has_not_reaped_yet_has_exited() -> None:
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    while state(process.pid) != "Z":
        time.sleep(0.01)
    assert exited(process.pid)
    process.wait()
