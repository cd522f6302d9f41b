"""Stops a stack's process groups if the runner that started them dies.

The runner starts a Python process running `main()` here with a pipe on its stdin and writes
`<pgid> <grace seconds>` for every group it starts. When the runner stops its
stack normally it writes `done`; if the pipe closes without `done` (the runner was
killed, even with SIGKILL), the watchdog stops every group it was told about.
"""

from __future__ import annotations

import signal
import subprocess
import sys

from servelab.stack.groups import stop_group


class Watchdog:
    """The runner's end: a watchdog process fed over a pipe."""

    def __init__(self) -> None:
        self._process = subprocess.Popen(
            # Not `-m servelab.stack.watchdog`: the package imports this module first,
            # and runpy warns about that on the stderr the stack's logs share.
            [sys.executable, "-c", "from servelab.stack.watchdog import main; main()"],
            stdin=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )

    def watch(self, pgid: int, grace: float) -> None:
        self._send(f"{pgid} {grace}")

    def release(self) -> None:
        """The runner stopped its groups itself: let the watchdog exit quietly."""
        self._send("done")
        assert self._process.stdin is not None
        self._process.stdin.close()
        self._process.wait()

    def _send(self, line: str) -> None:
        assert self._process.stdin is not None
        self._process.stdin.write(line + "\n")
        self._process.stdin.flush()


def main() -> None:
    """The watchdog's end: read the groups to watch until `done`, or stop them all."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    watched: list[tuple[int, float]] = []
    for line in sys.stdin:
        if line.strip() == "done":
            return
        group, grace_s = line.split()
        watched.append((int(group), float(grace_s)))
    for pgid, grace in reversed(watched):
        stop_group(pgid, grace)
