"""The runner's side of a drill, one function per kind, run in a thread beside k6: what it
did to the stack and when (`Acted`)."""

from __future__ import annotations

import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from servelab.reliability.outage.analysis import Events
from servelab.reliability.outage.drill import Drill, DrillError
from servelab.reliability.outage.procs import (
    alive,
    group_processes,
    signal_process,
    wait_until,
    workers,
)
from servelab.stack import Stack

# How long a replaced worker, or nginx's new workers, may take before the drill gives up.
_REPLACE_TIMEOUT_S = 60.0
# How long the drill looks for a worker to kill (one may be between an exit and its
# replacement) before it gives up, naming the processes it saw.
_FIND_TIMEOUT_S = 2.0
# A rolling restart moves to the next replica this long after the last one passed its
# healthcheck (Kubernetes' minReadySeconds). nginx keeps every replica in its rotation
# (max_fails=0, deploy/nginx/replicas.conf.template), so it needs no pause of its own: one
# that left a replica out after a refused connection lost requests whatever the pause, once
# requests took longer than it.
_SETTLE_S = 2.0


@dataclass
class Acted:
    """What the runner did: the timeline's marks ((what, unix ms), in order), the figures it
    measured itself (`worker_back_s`, `exit_s`, ...), and the three moments the analysis
    cuts the answers at (`events`)."""

    marks: list[tuple[str, float]] = field(default_factory=list)
    figures: dict[str, float] = field(default_factory=dict)

    def mark(self, what: str, at_s: float | None = None) -> float:
        at_ms = (at_s if at_s is not None else time.time()) * 1000
        self.marks.append((what, at_ms))
        return at_ms

    def events(self) -> Events:
        """Acted on at the first mark, back (restarted) and whole (healthy) at the last."""
        return Events(self.marks[0][1], self.marks[-1][1], self.marks[-1][1])


def wait_for(started: float, at_s: float) -> None:
    """Sleep until `at_s` seconds after `started` (time.monotonic()): a drill's moment."""
    time.sleep(max(0.0, started + at_s - time.monotonic()))


def kill(stack: Stack, drill: Drill, started: float) -> Acted:
    """SIGKILL the victim's process group; start it again later and wait healthy."""
    acted = Acted()
    wait_for(started, drill.kill_at_s)
    acted.mark("killed")
    stack.kill(drill.victim)
    wait_for(started, drill.restart_at_s)
    acted.mark("started again")
    stack.restart(drill.victim)
    acted.mark("healthy")
    return acted


def kill_worker(stack: Stack, drill: Drill, started: float) -> Acted:
    """SIGKILL the oldest worker; wait until the master has as many workers as before."""
    pgid = stack.running[drill.victim].pgid
    wait_for(started, drill.at_s)
    before: list[int] = []

    def some_worker() -> bool:
        before[:] = workers(pgid, drill.depth, drill.worker_match)
        return bool(before)

    if wait_until(some_worker, _FIND_TIMEOUT_S) is None:
        raise DrillError(
            f"{drill.victim} has no worker {drill.depth} level(s) below its master "
            f"matching {drill.worker_match!r} after {_FIND_TIMEOUT_S:g} s; its processes "
            f"(pid<parent: command line): {'; '.join(group_processes(pgid)) or 'none'}"
        )
    victim = before[0]
    acted = Acted()
    killed_ms = acted.mark(f"worker {victim} killed", signal_process(victim, signal.SIGKILL))

    def replaced() -> bool:
        now = workers(pgid, drill.depth, drill.worker_match)
        return victim not in now and len(now) >= len(before)

    acted.figures["workers"] = len(before)
    # Until the drill's end: a server that shuts down instead fails the drill, not the run.
    back = wait_until(replaced, max(0.0, started + drill.duration_s - time.monotonic()))
    if back is None:
        acted.mark("no worker replaced it")
        return acted
    acted.mark(f"{len(before)} workers again", back)
    acted.figures["worker_back_s"] = round((back * 1000 - killed_ms) / 1000, 3)
    return acted


def _terminate(stack: Stack, name: str, acted: Acted, signum: str = "SIGTERM") -> None:
    """SIGTERM (or `signum`) the process `name` (its master alone, as Docker's init passes
    the signal on), wait up to its stop_grace_period for it to exit, SIGKILL what is left
    as Docker does."""
    running = stack.running[name]
    grace = running.service.stop_grace_period
    sent = signal_process(running.pgid, signal.Signals[signum])
    sent_ms = acted.mark(f"{name} {signum}", sent)
    try:
        code = running.process.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        acted.mark(f"{name} SIGKILL after {grace:g} s")
        acted.figures["exit_s"] = grace
        acted.figures["exit_code"] = -9
    else:
        exited_ms = acted.mark(f"{name} exited ({code})")
        acted.figures["exit_s"] = round((exited_ms - sent_ms) / 1000, 3)
        acted.figures["exit_code"] = code
    acted.figures["grace_s"] = grace
    stack.kill(name)


def sigterm(stack: Stack, drill: Drill, started: float) -> Acted:
    """SIGTERM the server (or its image's STOPSIGNAL), wait for it to exit, start it again
    and wait healthy."""
    wait_for(started, drill.at_s)
    acted = Acted()
    _terminate(stack, drill.victim, acted, drill.stop_signal)
    acted.mark(f"{drill.victim} started again")
    stack.restart(drill.victim)
    healthy_ms = acted.mark(f"{drill.victim} healthy")
    acted.figures["back_s"] = round((healthy_ms - acted.marks[0][1]) / 1000, 3)
    return acted


def rolling_restart(stack: Stack, drill: Drill, started: float) -> Acted:
    """Each replica in turn: SIGTERM, exit, start again, healthy, a settling second."""
    wait_for(started, drill.at_s)
    acted = Acted()
    slowest = 0.0
    for index, name in enumerate(drill.victims):
        if index:
            time.sleep(_SETTLE_S)
        _terminate(stack, name, acted)
        slowest = max(slowest, acted.figures["exit_s"])
        acted.mark(f"{name} started again")
        stack.restart(name)
        acted.mark(f"{name} healthy")
    acted.figures["exit_s"] = slowest
    return acted


def nginx_reload(stack: Stack, drill: Drill, started: float) -> Acted:
    """SIGHUP nginx's master; wait until its old workers have exited."""
    pgid = stack.running[drill.victim].pgid
    wait_for(started, drill.at_s)
    old = workers(pgid)
    acted = Acted()
    sent_ms = acted.mark(f"{drill.victim} SIGHUP", signal_process(pgid, signal.SIGHUP))
    done = wait_until(lambda: not any(alive(pid) for pid in old), _REPLACE_TIMEOUT_S)
    if done is None:
        raise DrillError(f"{drill.victim}: the old workers still run after a reload")
    acted.mark("old workers exited", done)
    acted.figures["old_workers_gone_s"] = round((done * 1000 - sent_ms) / 1000, 3)
    return acted


ACTIONS: dict[str, Callable[[Stack, Drill, float], Acted]] = {
    "kill": kill,
    "kill-worker": kill_worker,
    "sigterm": sigterm,
    "rolling-restart": rolling_restart,
    "nginx-reload": nginx_reload,
}
