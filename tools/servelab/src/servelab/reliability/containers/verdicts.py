"""A container drill's row in docs/results/reliability.md: the goal of its kind, what
clients saw and what was left on disk, and whether the goal was met."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict

from servelab.reliability.containers.answers import RETRY_AFTER, Seen
from servelab.reliability.rows import Row, Verdict
from servelab.spec.reliability import ContainerDrill

# The reliability report's section of the container drills' rows.
SECTION = "containers"
# What every drill expects of clients, whatever its kind.
ANSWERS_GOAL = f"no answer but a 2xx or a {RETRY_AFTER}"

# Each kind's event (its rows' probe) and what a deployer should do about it (the
# report's opening, reliability.lessons), from what the drills saw.
EVENTS = {
    "docker-kill": "An app container SIGKILLed (`docker kill`) under load",
    "crash": "An app container's main process SIGKILLed (a crash) under load",
    "kill-upload": "The files container's main process SIGKILLed with uploads in flight",
    "down-up": "`docker compose down`, then `up`, keeping the named volumes",
    "restart-dependency": "A database or cache container restarted under load",
    "oom": "A process in an app container pushed past its memory limit under load",
}
ADVICE = {
    EVENTS["docker-kill"]: "`docker kill` (like `docker stop`) is a manual stop: `restart: "
    "unless-stopped` leaves the container down until someone starts it (`docker compose up "
    "-d`); the policy restarts only a container whose process died on its own",
    EVENTS["crash"]: "A crashed container is back by its restart policy within seconds, but "
    "one container alone refuses the requests meanwhile: run two replicas behind nginx "
    "(profile replicas) to lose none",
    EVENTS["kill-upload"]: "An upload cut by a crash never shows as an object, and the "
    "restarted workers remove its partial file (no process holds its lock): the client "
    "must send it again, so retry an upload that got no answer",
    EVENTS["down-up"]: "`down` keeps the named volumes (objects, MariaDB's data) and `up` "
    "finds them; only `down -v` deletes them: never script it against data that matters. "
    "The entry editor's init job writes the demo entries 1 to 60 again on every `up`: keep "
    "real entries out of those ids",
    EVENTS["restart-dependency"]: "A restarted database or cache costs seconds of 503s with "
    "Retry-After (or answers without the cache), never a hang or a 500: clients that "
    "honour Retry-After lose nothing",
    EVENTS["oom"]: "The kernel's OOM killer ends the largest process in the container; "
    "`docker inspect` shows OOMKilled only when that was the main process: watch the "
    "container's memory events, and keep the memory limits the benchmarks measured",
}


def _lost(seen: Seen) -> str:
    if not seen.lost:
        return f"0 lost of {seen.answers}"
    kinds = ", ".join(f"{count} {kind}" for kind, count in seen.lost.items())
    return f"{seen.lost_total} lost of {seen.answers} ({kinds})"


def _seconds(value: float | None, never: str) -> str:
    return never if value is None else f"{value:g} s"


def _expected(drill: ContainerDrill) -> str:
    if drill.kind == "down-up":
        kept = (
            "every entry listed before the same"
            if drill.entries
            else "every object stored before back byte for byte; nothing partial or "
            "orphaned in the store"
        )
        return f"every service healthy within {drill.goal_s:g} s of the `up`; {kept}"
    return (
        f"serving again within {drill.goal_s:g} s without a hand; {ANSWERS_GOAL}; "
        "nothing partial or orphaned left on disk, nothing stored lost"
    )


def judge(
    drill: ContainerDrill,
    seen: Seen,
    figures: Mapping[str, float],
    disk: str,
    disk_ok: bool,
) -> Row:
    """The drill's row; `figures` the runner's own (actions), `disk` what it found left
    on disk in words and whether that meets the goal (nothing partial, nothing lost)."""
    back = figures.get("back_s")
    serving = seen.serving_again_s
    # A `down` takes the stack away on purpose: what it must keep is what was stored.
    answered = drill.kind == "down-up" or seen.bad == 0
    ok = (
        answered
        and back is not None
        and back <= drill.goal_s
        and serving is not None
        and disk_ok
        and (drill.kind == "down-up" or serving <= drill.goal_s)
    )
    observed = (
        f"{_lost(seen)}; longest gap between two 2xx {seen.longest_gap_s:g} s; "
        + (f"`down` took {figures['down_s']:g} s; " if "down_s" in figures else "")
        + (
            f"the process past the limit exited {int(figures['hog_exit'])}, the container's "
            f"main process {'kept' if figures['main_process_kept'] else 'replaced'}, "
            f"OOMKilled {'set' if figures['oom_killed'] else 'not set'}; "
            if "hog_exit" in figures
            else ""
        )
        + (
            f"{int(figures['uploads_stored'])} of the {int(figures['uploads'])} uploads in "
            "flight answered 201; "
            if "uploads" in figures
            else ""
        )
        + f"`{drill.victim}` running and healthy again after "
        f"{_seconds(back, 'never (not within the wait)')}"
        + (f" ({int(figures['restarts'])} restart by its policy)" if "restarts" in figures else "")
        + f"; serving again (the first 2xx after the first failure) {_seconds(serving, 'never')}"
        "; "
        f"every answer a 2xx again after {_seconds(seen.whole_again_s, 'never')}; on disk: {disk}"
    )
    numbers = {
        key: float(value)
        for key, value in asdict(seen).items()
        if key != "lost" and value is not None
    }
    return Row(
        probe=EVENTS[drill.kind],
        target=f"{drill.victim}: {drill.method} {drill.endpoint} at {drill.rate}/s "
        f"(drill {drill.name})",
        expected=_expected(drill),
        observed=observed,
        verdict=Verdict.PASS if ok else Verdict.FAIL,
        figures={
            **numbers,
            "failed": float(seen.lost_total),
            "bad": float(seen.bad),
            **{key: float(value) for key, value in figures.items()},
        },
    )
