"""The recipes users copy are valid: compose.yaml for every profile, the Dockerfile."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from servelab.project import Project
from servelab.stack.compose import compose_binary

# Listed at collection, for the parameters: before any fixture (project_root) exists.
ROOT = Project.find(Path(__file__).parent).root
# Every Python service is built from the one parametrised Dockerfile (its header says why);
# the entry editor's web front end (an npm project) from its own, a Node build and nginx.
SERVICE_DOCKERFILE = ROOT / "deploy" / "docker" / "service.Dockerfile"
WEB_DOCKERFILE = ROOT / "deploy" / "docker" / "entryeditor-web.Dockerfile"
DOCKERFILES = [SERVICE_DOCKERFILE, WEB_DOCKERFILE]
# The Debian stand-ins for the official base images (servelab.images.stand_ins).
STAND_IN_DOCKERFILES = sorted(ROOT.glob("deploy/images/*/Dockerfile"))


def profiles(project_root: Path) -> list[str]:
    listed = subprocess.run(
        [compose_binary(), "config", "--profiles"],
        cwd=project_root,
        capture_output=True,
        text=True,
        check=True,
    )
    return listed.stdout.split()


@pytest.mark.heavy  # one docker-compose run per profile
def test_every_profile_passes_docker_compose_config(project_root: Path) -> None:
    names = profiles(project_root)
    assert {"uvicorn", "gunicorn", "granian", "nginx", "reference", "replicas"} <= set(names)
    for profile in names:
        result = subprocess.run(
            [compose_binary(), "--profile", profile, "config", "--quiet"],
            cwd=project_root,
            capture_output=True,
            text=True,
            check=False,
        )
        assert result.returncode == 0, f"{profile}: {result.stderr}"


def test_compose_builds_every_service_from_the_dockerfile(project_root: Path) -> None:
    services = sorted(p.parent.name for p in project_root.glob("services/*/pyproject.toml"))
    built: set[str] = set()
    web_built = False
    for path in sorted((project_root / "deploy" / "compose").glob("*.yaml")):
        for name, spec in yaml.safe_load(path.read_text())["services"].items():
            if "build" in spec:
                build = spec["build"]
                dockerfile = project_root / build["dockerfile"]
                assert dockerfile in DOCKERFILES, (name, build["dockerfile"])
                if dockerfile == WEB_DOCKERFILE:
                    web_built = True
                    continue
                assert (project_root / "services" / build["args"]["SERVICE"]).is_dir(), name
                built.add(build["args"]["SERVICE"])
    assert sorted(built) == services
    assert web_built


@pytest.mark.parametrize(
    "dockerfile",
    DOCKERFILES + STAND_IN_DOCKERFILES,
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_dockerfile_is_hadolint_clean(dockerfile: Path) -> None:
    hadolint = Path(sys.executable).parent / "hadolint"
    result = subprocess.run(
        [str(hadolint), "--failure-threshold", "info", str(dockerfile)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
