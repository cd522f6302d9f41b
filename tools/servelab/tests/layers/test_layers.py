"""`servelab layers`: the account of every shipped layer, from a short run of the command."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest
from fastapi import FastAPI

from servelab.layers.drive import Request, UnexpectedAnswer, answer
from servelab.layers.stacks import NotLayered, steps

REPO = Path(__file__).resolve().parents[4]


@pytest.mark.heavy  # imports both services and measures every step, in a process of its own
def test_the_page_accounts_for_every_layer_of_each_request(tmp_path: Path) -> None:
    page = tmp_path / "layers.md"
    # Its own process: prometheus_client picks multiprocess mode when first imported.
    command = ["layers", "--rounds", "2", "--scale", "0.002", "--output", str(page)]
    subprocess.run(
        [sys.executable, "-m", "servelab.cli", *command],
        cwd=REPO,
        check=True,
        capture_output=True,
    )
    text = page.read_text()
    for title in ("hello: GET /hello", "POST /files", "X-Accel-Redirect", "async_read_and_disk"):
        assert title in text
    files = text.split("## files: POST /files", 1)[1].split("## ", 1)[0]
    rows = [line.split("|")[1].strip() for line in files.splitlines() if line.startswith("| ")]
    assert rows[1:] == [
        "empty ASGI app (the driver's own cost)",
        "bare app (FastAPI's own error handlers)",
        "+ error handlers",
        "+ HEAD as GET",
        "+ gate: header limits",
        "+ gate: bearer auth",
        "+ gate: body limit",
        "+ request id",
        "+ metrics",
        "+ access log (as shipped)",
    ]
    assert "Every layer together:" in files
    # hello has no auth and no body limit: no rows for them.
    hello = text.split("## hello", 1)[1].split("## ", 1)[0]
    assert "bearer auth" not in hello
    assert "+ access log (as shipped)" in hello


def test_an_app_without_servicekits_layers_is_refused() -> None:
    with pytest.raises(NotLayered):
        steps(FastAPI())


def test_an_answer_of_another_status_stops_the_run() -> None:
    app = FastAPI()
    with pytest.raises(UnexpectedAnswer, match="answered 404, not 200"):
        asyncio.run(answer(app, Request("GET", "/nowhere")))
