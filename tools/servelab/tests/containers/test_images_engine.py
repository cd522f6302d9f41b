"""`servelab images` fills the engine the docker command line points at (DOCKER_HOST, the
docker context), where `docker compose` runs the profiles, and says what that engine needs
from compose.yaml's variables; `--engine private` is servelab's own engine."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from servelab.containers.current import current_engine
from servelab.containers.engine import Engine, EngineUnavailable
from servelab.images.needs import EngineNeeds, advice
from servelab.images.stand_ins import STAND_INS
from servelab.project import Project

ROOT = Project.find(Path(__file__).parent).root


def _images(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "servelab.images", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
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


@pytest.mark.stack
@pytest.mark.containers
@pytest.mark.timeout(1800)
def test_images_go_into_the_engine_docker_host_names(
    docker_engine: Engine, base_images: object
) -> None:
    """The private engine stands for the user's here: reached through DOCKER_HOST only."""
    result = _images(docker_engine.env())
    assert result.returncode == 0, result.stderr
    assert f"Docker engine default ({docker_engine.host})" in result.stderr
    for stand_in in STAND_INS:
        assert stand_in.tag in result.stdout
    # Its containers have no route out (no NAT), so its builds need the host's network.
    assert "export BUILD_NETWORK=host" in result.stderr
