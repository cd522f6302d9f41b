"""`servelab images` fills the engine the docker command line points at (DOCKER_HOST, the
docker context), where `docker compose` runs the profiles, and says what that engine needs
from compose.yaml's variables; `--engine private` is servelab's own engine."""

from __future__ import annotations

import argparse
import io
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from servelab.containers.current import current_engine
from servelab.containers.engine import Engine, EngineUnavailable
from servelab.images import cli
from servelab.images.needs import EngineNeeds, advice
from servelab.images.stand_ins import STAND_INS, ImageOutcome
from servelab.project import Project

ROOT = Project.find(Path(__file__).parent).root


def _images(
    env: dict[str, str], *args: str, merged: bool = False
) -> subprocess.CompletedProcess[str]:
    """`servelab images`; `merged`: its stdout and stderr in one stream, as a terminal
    shows them."""
    return subprocess.run(
        [sys.executable, "-m", "servelab.images", *args],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT if merged else subprocess.PIPE,
        text=True,
        timeout=1800,
        check=False,
    )


def test_an_engine_that_does_not_answer_is_named_with_what_to_do(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    if shutil.which("docker") is None:
        pytest.skip("no docker command line here (Debian's docker.io provides one)")
    host = f"unix://{tmp_path / 'docker.sock'}"
    monkeypatch.setenv("DOCKER_HOST", host)
    with pytest.raises(EngineUnavailable) as raised:
        current_engine()
    assert host in str(raised.value)
    assert "--engine private" in str(raised.value)
    result = _images(dict(os.environ))
    assert result.returncode == 2
    assert host in result.stderr


def test_the_advice_ends_with_the_line_to_export() -> None:
    lines = advice(EngineNeeds(build_network="host", nofile_limit=20000))
    assert lines[-1] == "before `docker compose` here: export BUILD_NETWORK=host NOFILE_LIMIT=20000"
    assert advice(EngineNeeds(build_network=None, nofile_limit=None)) == [
        "this engine builds and runs the profiles with compose.yaml's defaults"
    ]


def test_without_buildx_the_advice_explains_compose_s_warning_and_sets_nothing() -> None:
    lines = advice(EngineNeeds(build_network="host", nofile_limit=None, buildx=False))
    assert "no buildx plugin" in lines[1]
    assert "warns once" in lines[1]
    assert lines[-1] == "before `docker compose` here: export BUILD_NETWORK=host"


def test_the_command_ends_on_the_line_to_export(monkeypatch: pytest.MonkeyPatch) -> None:
    """The README tells the user to run what the last line says: after the images' table
    and their total, in the order a terminal shows stdout and stderr together."""
    outcomes = [ImageOutcome(s.tag, "built stand-in", 1.0) for s in STAND_INS]
    monkeypatch.setattr(cli, "current_engine", lambda: SimpleNamespace(name="default"))
    monkeypatch.setattr(cli, "_ensure", lambda *args: outcomes)
    needs = EngineNeeds(build_network="host", nofile_limit=20000)
    monkeypatch.setattr(cli, "engine_needs", lambda engine: needs)
    terminal = io.StringIO()
    monkeypatch.setattr(sys, "stdout", terminal)
    monkeypatch.setattr(sys, "stderr", terminal)
    assert cli.run(argparse.Namespace(engine="current")) == 0
    lines = terminal.getvalue().splitlines()
    assert lines[-1] == (
        "servelab: before `docker compose` here: export BUILD_NETWORK=host NOFILE_LIMIT=20000"
    )
    assert f"servelab: {len(outcomes)} images ready in {len(outcomes)} s" in lines[:-1]
    assert all(any(s.tag in line for line in lines[:-1]) for s in STAND_INS)


@pytest.mark.stack
@pytest.mark.containers
@pytest.mark.timeout(1800)
def test_images_go_into_the_engine_docker_host_names(
    docker_engine: Engine, base_images: object
) -> None:
    """The private engine stands for the user's here: reached through DOCKER_HOST only."""
    result = _images(docker_engine.env(), merged=True)
    assert result.returncode == 0, result.stdout
    assert f"Docker engine default ({docker_engine.host})" in result.stdout
    for stand_in in STAND_INS:
        assert stand_in.tag in result.stdout
    # Its containers have no route out (no NAT), so its builds need the host's network: the
    # line to export is the last.
    last = result.stdout.strip().splitlines()[-1]
    assert last.startswith("servelab: before `docker compose` here: export BUILD_NETWORK=host")
