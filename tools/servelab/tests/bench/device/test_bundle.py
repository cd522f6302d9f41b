"""The GPU machine's bundle: every wheel its Python lacks, k6 that runs, screenshots, and the
compose recipes resolved, all small enough to travel with the working tree in one call."""

from __future__ import annotations

import json
import lzma
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import pytest
from packaging.markers import Marker

from servelab.bench.device.bundle import (
    COMPOSE,
    HARNESS,
    K6_FILE,
    MANIFEST,
    SAMPLES,
    SERVICE,
    WHEELS,
    build_bundle,
    distributions,
    normal_name,
    runtime_needs,
)
from servelab.bench.device.plan import load_plan
from servelab.project import Project
from servelab.spec.device import FORMS, read_device
from servelab.stack.compose import RESOLVED_ENV, load_project

# The bundle's wheels come from PyPI (pip download).
pytestmark = pytest.mark.network


@pytest.fixture(scope="module")
def bundle(project_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("device") / "bundle"
    build_bundle(Project(project_root), folder, say=lambda _: None)  # refused over the limits
    return folder


def test_every_missing_distribution_has_a_wheel_for_the_devices_python(
    bundle: Path, project_root: Path
) -> None:
    wheels = sorted((bundle / WHEELS).glob("*.whl"))
    names = {normal_name(wheel.name.split("-")[0]) for wheel in wheels}
    assert names == set(distributions(read_device(Project(project_root)).machine.has))
    for wheel in wheels:
        tags = wheel.name.removesuffix(".whl").split("-")[-3:]
        stable_abi = tags[1] == "abi3" and int(tags[0].removeprefix("cp3")) <= 12
        assert tags[0] in ("py3", "cp312") or stable_abi, wheel.name
        assert tags[2] == "any" or "x86_64" in tags[2], wheel.name
    manifest = json.loads((bundle / MANIFEST).read_text())
    assert [item["file"] for item in manifest["wheels"]] == [wheel.name for wheel in wheels]
    assert manifest["python"] == "3.12" and manifest["commit"]


def _locked_needs(lock: dict[str, Any], root: str, python: str) -> set[str]:
    """The distributions uv.lock resolves for `root` on the device's Python and platform."""
    packages = {package["name"]: package for package in lock["package"]}
    environment = {"python_full_version": python, "python_version": python.rsplit(".", 1)[0]}
    environment |= {"sys_platform": "linux", "platform_machine": "x86_64"}
    walked: set[tuple[str, tuple[str, ...]]] = set()
    pending: list[tuple[str, tuple[str, ...]]] = [(root, ())]
    while pending:
        name, extras = pending.pop()
        if (name, extras) in walked:
            continue
        walked.add((name, extras))
        package = packages[name]
        edges = list(package.get("dependencies", []))
        for extra in extras:
            edges += package.get("optional-dependencies", {}).get(extra, [])
        for edge in edges:
            if "marker" not in edge or Marker(edge["marker"]).evaluate(environment):
                pending.append((edge["name"], tuple(edge.get("extra", ()))))
    return {name for name, _ in walked}


def test_the_wheels_are_what_the_lock_resolves_for_the_devices_python(project_root: Path) -> None:
    """The GPU machine's servers once failed at import: FastAPI had come to need
    opentelemetry-api, which a list of wheels kept by hand did not have. The wheels follow
    the installed requirements; the lock, read apart, must name the same ones."""
    lock = tomllib.loads((project_root / "uv.lock").read_text())
    locked = _locked_needs(lock, SERVICE, "3.12.3")
    own = {SERVICE, "servelab-servicekit"}
    harness = set().union(*(_locked_needs(lock, name, "3.12.3") for name in HARNESS))
    on_device = read_device(Project(project_root)).machine.has
    assert set(distributions(on_device)) == (locked | harness) - on_device - own
    assert runtime_needs() - own <= locked


def test_the_packed_k6_runs(bundle: Path, tmp_path: Path) -> None:
    binary = tmp_path / "k6"
    binary.write_bytes(lzma.decompress((bundle / K6_FILE).read_bytes()))
    binary.chmod(0o755)
    version = subprocess.run([binary, "version"], capture_output=True, text=True, check=True)
    assert version.stdout.startswith("k6 v1.1.0")


def test_the_screenshots_carry_their_truth(bundle: Path) -> None:
    index = json.loads((bundle / SAMPLES / "samples.json").read_text())
    assert len(index) == len(list((bundle / SAMPLES).glob("*.jpg"))) == 48
    assert {entry["split"] for entry in index} == {"tune", "held-out"}


def test_the_resolved_recipes_read_as_docker_compose_resolves_them(
    bundle: Path, project_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The saved outputs hold no setting of the machine that made them (the tests' own
    # ACCESS_LOG_FLUSH_S among them): the GPU machine's run is the recipe as written.
    monkeypatch.delenv("ACCESS_LOG_FLUSH_S", raising=False)
    stacks = [stack for form in FORMS for stack in load_plan(Project(project_root), form).stacks()]
    direct = {
        s.label: load_project(Project(project_root), [s.variant.profile], s.env) for s in stacks
    }
    monkeypatch.setenv(RESOLVED_ENV, str(bundle / COMPOSE))
    for stack in stacks:
        env = {**stack.env, "API_TOKEN": "any"}
        replayed = load_project(Project(project_root), [stack.variant.profile], env)
        name = stack.variant.service
        assert replayed.services[name] == direct[stack.label].services[name], stack.label
