"""The runner's side of a container drill, one function per kind, run in a thread beside
k6: what it did to the containers and when (outage.actions.Acted), and the figures it
measured itself (`back_s`: from the action until the victim ran and passed its
healthcheck again)."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable

from servelab.reliability.containers.deployed import Deployed
from servelab.reliability.containers.objects import InFlight
from servelab.reliability.outage.actions import Acted, wait_for
from servelab.spec.reliability import ContainerDrill

# In-flight uploads start this long before the kill; the runner waits this long for them
# to end once the victim is back.
UPLOAD_LEAD_S = 1.0
UPLOAD_TIMEOUT_S = 60.0
# How long `up --wait` may take after a `down`.
UP_WAIT_S = 300


def _back(
    deployed: Deployed,
    drill: ContainerDrill,
    acted: Acted,
    started: float,
    since_ms: float,
    pid: int,
) -> None:
    """Wait, until the load's end, for the victim to serve again with another main process
    than `pid` (no hand: its restart policy), and record it."""
    left_s = max(0.0, started + drill.duration_s - time.monotonic())
    back = deployed.wait_serving(drill.victim, left_s, not_pid=pid)
    state = deployed.state(drill.victim)
    acted.figures["restarts"] = state.restarts
    if back is None:
        acted.mark(f"{drill.victim} not serving by the load's end")
        return
    back_ms = acted.mark(f"{drill.victim} healthy", back)
    acted.figures["back_s"] = round((back_ms - since_ms) / 1000, 3)


def docker_kill(deployed: Deployed, drill: ContainerDrill, started: float) -> Acted:
    """`docker kill` (SIGKILL) the victim's container, then wait for its restart policy."""
    wait_for(started, drill.at_s)
    before = deployed.state(drill.victim)
    acted = Acted()
    # Marked once the engine says the container is dead: requests sent before were
    # still answered.
    deployed.project.engine.docker("kill", before.container)
    killed_ms = acted.mark(f"docker kill {drill.victim}")
    _back(deployed, drill, acted, started, killed_ms, before.pid)
    acted.figures["restarts"] -= before.restarts
    return acted


def crash(deployed: Deployed, drill: ContainerDrill, started: float) -> Acted:
    """SIGKILL the victim's main process from the host, as a crash or the kernel's OOM
    killer ends it (the engine did not stop it), then wait for its restart policy."""
    wait_for(started, drill.at_s)
    before = deployed.state(drill.victim)
    acted = Acted()
    killed_ms = acted.mark(f"{drill.victim}'s main process SIGKILLed")
    os.kill(before.pid, signal.SIGKILL)
    _back(deployed, drill, acted, started, killed_ms, before.pid)
    acted.figures["restarts"] -= before.restarts
    return acted


def kill_upload(deployed: Deployed, drill: ContainerDrill, started: float) -> Acted:
    """`uploads` slow uploads of `upload_bytes` started a second before the crash, so that
    they are in flight when the victim's main process is SIGKILLed; how many were stored
    (201) once they ended."""
    uploads = InFlight(deployed.url, deployed.token, drill.upload_bytes)
    wait_for(started, drill.at_s - UPLOAD_LEAD_S)
    uploads.start(drill.uploads)
    acted = crash(deployed, drill, started)
    uploads.join(UPLOAD_TIMEOUT_S)
    acted.figures["uploads"] = len(uploads.outcomes)
    acted.figures["uploads_stored"] = uploads.outcomes.count("201")
    acted.mark(f"uploads in flight ended: {', '.join(sorted(uploads.outcomes))}")
    return acted


def restart_dependency(deployed: Deployed, drill: ContainerDrill, started: float) -> Acted:
    """`docker restart` the victim (a database or cache: stopped within its grace period,
    started again), then wait until it passes its healthcheck."""
    wait_for(started, drill.at_s)
    before = deployed.state(drill.victim)
    acted = Acted()
    restarted_ms = acted.mark(f"docker restart {drill.victim}")
    deployed.project.engine.docker("restart", before.container)
    _back(deployed, drill, acted, started, restarted_ms, before.pid)
    del acted.figures["restarts"]  # by hand, not by its policy
    return acted


# Run by the victim's own Python: `oom_bytes` bytes written (a bytes object of them), so
# that every page counts against the container's memory limit.
_HOG = "import sys; hog = b'x' * int(sys.argv[1])"


def oom(deployed: Deployed, drill: ContainerDrill, started: float) -> Acted:
    """A process in the victim's container writes `oom_bytes`, past the container's memory
    limit: the kernel's OOM killer ends a process of the container (the largest: the hog,
    or else the server), and the victim must serve on or be restarted by its policy."""
    wait_for(started, drill.at_s)
    before = deployed.state(drill.victim)
    acted = Acted()
    pushed_ms = acted.mark(f"a process in {drill.victim} writing {drill.oom_bytes} bytes")
    hog = deployed.project.run(
        "exec", "-T", drill.victim, "python", "-c", _HOG, str(drill.oom_bytes),
        profiles=deployed.profiles, check=False,
    )  # fmt: skip
    acted.mark(f"the process exited ({hog.returncode})")
    acted.figures["hog_exit"] = hog.returncode
    _back(deployed, drill, acted, started, pushed_ms, 0)
    after = deployed.state(drill.victim)
    acted.figures["restarts"] -= before.restarts
    acted.figures["main_process_kept"] = int(after.pid == before.pid)
    acted.figures["oom_killed"] = int(after.oom_killed)
    return acted


def down_up(deployed: Deployed, drill: ContainerDrill, started: float) -> Acted:
    """`docker compose down` (the named volumes kept), then `up --wait` again: `back_s`
    from the `up` until every service is healthy, `down_s` how long the `down` took."""
    wait_for(started, drill.at_s)
    acted = Acted()
    down_ms = acted.mark("docker compose down")
    deployed.project.run("down", profiles=deployed.profiles, timeout=300)
    up_ms = acted.mark("docker compose up --wait")
    deployed.project.up(deployed.profiles, drill.services, wait=UP_WAIT_S)
    healthy_ms = acted.mark("every service healthy")
    acted.figures["down_s"] = round((up_ms - down_ms) / 1000, 3)
    acted.figures["back_s"] = round((healthy_ms - up_ms) / 1000, 3)
    return acted


ACTIONS: dict[str, Callable[[Deployed, ContainerDrill, float], Acted]] = {
    "docker-kill": docker_kill,
    "crash": crash,
    "kill-upload": kill_upload,
    "down-up": down_up,
    "restart-dependency": restart_dependency,
    "oom": oom,
}
