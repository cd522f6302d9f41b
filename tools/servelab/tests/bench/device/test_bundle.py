"""The GPU machine's bundle: every wheel its Python lacks, k6 that runs, screenshots, and the
compose recipes resolved, all small enough to travel with the working tree in one call."""

from __future__ import annotations

import json
import lzma
import subprocess
from pathlib import Path

import pytest

from servelab.bench.device.bundle import (
    BUNDLE_LIMIT,
    CARRIED_LIMIT,
    COMPOSE,
    DISTRIBUTIONS,
    K6_FILE,
    MANIFEST,
    SAMPLES,
    WHEELS,
    build_bundle,
)
from servelab.bench.device.plan import FORMS, load_plan
from servelab.stack.compose import RESOLVED_ENV, load_project

# The bundle's wheels come from PyPI (pip download).
pytestmark = pytest.mark.network


@pytest.fixture(scope="module")
def bundle(project_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("device") / "bundle"
    sizes = build_bundle(project_root, folder, say=lambda _: None)
    assert sizes.bundle <= BUNDLE_LIMIT and sizes.carried <= CARRIED_LIMIT
    return folder


def _normal(name: str) -> str:
    return name.lower().replace("-", "_")


def test_every_missing_distribution_has_a_wheel_for_the_devices_python(bundle: Path) -> None:
    wheels = sorted((bundle / WHEELS).glob("*.whl"))
    names = {_normal(wheel.name.split("-")[0]) for wheel in wheels}
    assert names == {_normal(name) for name in DISTRIBUTIONS}
    for wheel in wheels:
        tags = wheel.name.removesuffix(".whl").split("-")[-3:]
        assert tags[0] in ("py3", "cp312"), wheel.name
        assert tags[2] == "any" or "x86_64" in tags[2], wheel.name
    manifest = json.loads((bundle / MANIFEST).read_text())
    assert [item["file"] for item in manifest["wheels"]] == [wheel.name for wheel in wheels]
    assert manifest["python"] == "3.12" and manifest["commit"]


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
    stacks = [stack for form in FORMS for stack in load_plan(project_root, form).stacks()]
    direct = {s.label: load_project(project_root, [s.variant.profile], s.env) for s in stacks}
    monkeypatch.setenv(RESOLVED_ENV, str(bundle / COMPOSE))
    for stack in stacks:
        env = {**stack.env, "API_TOKEN": "any"}
        replayed = load_project(project_root, [stack.variant.profile], env)
        name = stack.variant.service
        assert replayed.services[name] == direct[stack.label].services[name], stack.label
