"""One run of the account: every scenario of the services asked for, then the page."""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path

from servelab.bench.measure.machine import this_machine
from servelab.layers.account import Account, measure
from servelab.layers.page import Conditions, render

# Requests a round per scenario at scale 1: about a second a row on the 2-CPU VM.
COUNTS = {
    "hello": 20000,
    "files-post": 1000,
    "files-strategy": 1500,
    "files-get": 8000,
    "files-accel": 10000,
}


def account_page(
    services: Sequence[str],
    *,
    rounds: int,
    scale: float,
    command: str,
    progress: Callable[[str], None],
) -> str:
    """Measure `services`' scenarios in `rounds` rounds and render the page."""
    from floor_apps import asgi_app

    from servelab.layers import scenarios
    from servicekit.observe.accesslog import access_log

    if rounds < 2:
        raise ValueError("an interval needs at least 2 rounds")
    floor = asgi_app(b"", "application/octet-stream")
    started = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    clock = time.monotonic()
    load = os.getloadavg()[0]
    accounts: list[Account] = []

    def run(found: Sequence[scenarios.Scenario]) -> None:
        for scenario in found:
            count = max(2, round(COUNTS[scenario.key] * scale))
            accounts.append(measure(scenario, floor, rounds=rounds, count=count, progress=progress))

    # The access log's lines go nowhere: its writer thread still formats and writes them.
    with Path(os.devnull).open("w") as sink, contextlib.redirect_stderr(sink):
        if "hello" in services:
            run(scenarios.hello())
        if "files" in services:
            with scenarios.files() as found:
                run(found)
        # What the access log still holds goes the same way, not to the terminal at exit.
        access_log(0).flush()
    conditions = Conditions(
        machine=this_machine(k6="no load generator"),
        started=started,
        wall_s=time.monotonic() - clock,
        rounds=rounds,
        load=(load, os.getloadavg()[0]),
        command=command,
    )
    return render(accounts, conditions)
