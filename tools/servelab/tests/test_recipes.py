"""The recipes users copy are valid: compose.yaml for every profile, the Dockerfile."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from servelab.compose import compose_binary

ROOT = Path(__file__).resolve().parents[3]
# Every service is built from the one parametrised Dockerfile (its header says why).
DOCKERFILES = [ROOT / "deploy" / "docker" / "service.Dockerfile"]


def profiles() -> list[str]:
    listed = subprocess.run(
        [compose_binary(), "config", "--profiles"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return listed.stdout.split()


def test_every_profile_passes_docker_compose_config() -> None:
    names = profiles()
    assert {"uvicorn", "gunicorn", "granian", "nginx", "reference"} <= set(names)
    for profile in names:
        result = subprocess.run(
            [compose_binary(), "--profile", profile, "config", "--quiet"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=False,
        )
        assert result.returncode == 0, f"{profile}: {result.stderr}"


def test_compose_builds_every_service_from_the_dockerfile() -> None:
    services = sorted(p.parent.name for p in ROOT.glob("services/*/pyproject.toml"))
    built: set[str] = set()
    for path in sorted((ROOT / "deploy" / "compose").glob("*.yaml")):
        for name, spec in yaml.safe_load(path.read_text())["services"].items():
            if "build" in spec:
                build = spec["build"]
                assert ROOT / build["dockerfile"] in DOCKERFILES, (name, build["dockerfile"])
                assert (ROOT / "services" / build["args"]["SERVICE"]).is_dir(), name
                built.add(build["args"]["SERVICE"])
    assert sorted(built) == services


@pytest.mark.parametrize("dockerfile", DOCKERFILES, ids=lambda p: p.name)
def test_dockerfile_is_hadolint_clean(dockerfile: Path) -> None:
    hadolint = Path(sys.executable).parent / "hadolint"
    result = subprocess.run(
        [str(hadolint), "--failure-threshold", "info", str(dockerfile)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
