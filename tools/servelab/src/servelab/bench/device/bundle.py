"""`python -m servelab.bench.device bundle`: everything the GPU machine ([device.machine] of
the spec: its Python and what its image has; no network) lacks, in one folder that travels
with the working tree (`.device-bundle/`, git-ignored): wheels of the service's other runtime
needs at this environment's versions (so uv.lock's), k6 stripped and xz-compressed,
screenshots with their truth for the accuracy check (the generator needs CJK fonts that
machine lacks) and the compose recipes resolved. The folder and the tree together must fit
what one call carries.
"""

from __future__ import annotations

import json
import lzma
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Collection
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement

from servelab.bench.device.plan import load_plan
from servelab.bench.load.k6 import k6_binary, k6_version
from servelab.project import Project
from servelab.spec.device import FORMS, GpuMachine, read_device
from servelab.stack.compose import save_resolved

BUNDLE_DIR = ".device-bundle"
MANIFEST = "manifest.json"
K6_FILE = "k6.xz"
WHEELS = "wheels"
SAMPLES = "screenshots"
COMPOSE = "compose"
MiB = 1024 * 1024
# What one call to the GPU machine carries: the working tree and this folder together.
CARRIED_LIMIT = 64 * MiB
BUNDLE_LIMIT = 60 * MiB
# The platforms the device's pip accepts.
PLATFORMS = [f"manylinux_2_{minor}_x86_64" for minor in (28, 27, 24, 17)]
PLATFORMS += ["manylinux2014_x86_64", "manylinux1_x86_64"]
# The service whose runtime needs travel: every distribution it needs here (extras and
# markers followed through its requirements), less those the GPU machine has
# ([device.machine] of the spec), at this environment's versions, so uv.lock's.
SERVICE = "servelab-health-code"
# What the harness's own code may import on the way to the run besides the service's needs
# (servelab.markdown's tables): a wheel too many costs little, one too few the whole call.
HARNESS = ("tabulate",)
# Screenshots per usage and split for the accuracy check.
SAMPLE_COUNT = 8


class BundleError(RuntimeError):
    """A part could not be made, or the folder is larger than one call carries."""


def tree_bytes(root: Path) -> int:
    """The working tree's tracked files: what travels with every call besides the bundle."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=root, capture_output=True, check=True)
    paths = (root / name for name in listed.stdout.decode().split("\0") if name)
    return sum(path.stat().st_size for path in paths if path.is_file())


def _pip() -> list[str]:
    """A Python that has pip: this one, or the one a virtual environment was made from."""
    pythons = (sys.executable, getattr(sys, "_base_executable", ""))
    for pip in ([python, "-m", "pip"] for python in dict.fromkeys(pythons) if python):
        if subprocess.run([*pip, "--version"], capture_output=True, check=False).returncode == 0:
            return pip
    raise BundleError("no pip to download wheels with: install python3-pip")


def normal_name(name: str) -> str:
    """A distribution's name as packaging compares names (PEP 503)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def runtime_needs(root: str = SERVICE) -> set[str]:
    """Every distribution installed here that `root` needs at run time, itself included. A
    requirement this environment does not install (uv.lock overrides rapidocr's
    opencv-python with the headless build) is left out."""
    needs: set[str] = set()
    pending = [Requirement(root)]
    walked: set[tuple[str, frozenset[str]]] = set()
    while pending:
        wanted = pending.pop()
        name = normal_name(wanted.name)
        if (name, frozenset(wanted.extras)) in walked:
            continue
        walked.add((name, frozenset(wanted.extras)))
        try:
            requires = metadata.requires(name) or []
        except metadata.PackageNotFoundError:
            continue
        needs.add(name)
        extras = wanted.extras or {""}
        for line in requires:
            needed = Requirement(line)
            if needed.marker is None or any(
                needed.marker.evaluate({"extra": extra}) for extra in extras
            ):
                pending.append(needed)
    return needs


def distributions(on_device: Collection[str]) -> list[str]:
    """The distributions whose wheels travel: the service's and the harness's runtime needs
    that the GPU machine lacks. The project's own packages travel with the tree."""
    own = {normal_name(SERVICE), "servelab-servicekit"}
    needs = runtime_needs().union(*(runtime_needs(name) for name in HARNESS))
    return sorted(needs - set(on_device) - own)


def download_wheels(folder: Path, machine: GpuMachine) -> list[dict[str, object]]:
    """The pinned wheels for the device's Python, each with its name, version and size."""
    pins = [f"{name}=={metadata.version(name)}" for name in distributions(machine.has)]
    platforms = [arg for platform in PLATFORMS for arg in ("--platform", platform)]
    folder.mkdir(parents=True, exist_ok=True)
    argv = [*_pip(), "download", "--quiet", "--no-deps", "--only-binary=:all:"]
    argv += ["--python-version", machine.python, "--implementation", "cp", *platforms]
    done = subprocess.run(
        [*argv, "--dest", str(folder), *pins], capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise BundleError(f"pip download failed:\n{done.stderr.strip()[-2000:]}")
    return [
        {"file": wheel.name, "bytes": wheel.stat().st_size}
        for wheel in sorted(folder.glob("*.whl"))
    ]


def pack_k6(target: Path) -> dict[str, object]:
    """k6 without its debug symbols, xz-compressed (46 of 66 MB stripped, 11 MB packed)."""
    binary = Path(k6_binary())
    with tempfile.TemporaryDirectory() as scratch:
        stripped = Path(scratch) / "k6"
        shutil.copyfile(binary, stripped)
        if strip := shutil.which("strip"):
            subprocess.run([strip, str(stripped)], check=True)
        target.write_bytes(lzma.compress(stripped.read_bytes(), preset=9))
    return {"version": k6_version(str(binary)), "bytes": target.stat().st_size}


def save_screenshots(folder: Path, count: int = SAMPLE_COUNT) -> int:
    argv = [sys.executable, "-m", "health_code_service.evaluation.eval_cli", "--save"]
    done = subprocess.run(
        [*argv, str(folder), "--count", str(count)], capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise BundleError(f"saving screenshots failed:\n{done.stderr.strip()[-2000:]}")
    return len(list(folder.glob("*.jpg")))


def resolve_compose(project: Project, folder: Path) -> int:
    """`docker-compose config` of every stack of every form, as the runner will ask for it
    (the GPU machine has no docker-compose)."""
    saved = {
        save_resolved(project.root, [stack.variant.profile], stack.env, folder)
        for form in FORMS
        for stack in load_plan(project, form).stacks()
    }
    return len(saved)


def _git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=False)
    return done.stdout.strip()


def source_commit(root: Path) -> str:
    """HEAD's short hash, marked where the tracked files differ from it."""
    head = _git(root, "rev-parse", "--short=12", "HEAD")
    dirty = _git(root, "status", "--porcelain", "--untracked-files=no")
    return f"{head}{' (with uncommitted changes)' if dirty else ''}" if head else "unknown"


def build_bundle(project: Project, out: Path, say: Callable[[str], object] = print) -> None:
    """Make the folder afresh; refused where it, or it and the tree, exceed what a call
    carries."""
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    machine = read_device(project).machine
    say(f"wheels for Python {machine.python} ({len(distributions(machine.has))} distributions)")
    wheels = download_wheels(out / WHEELS, machine)
    say("k6, stripped and compressed")
    k6 = pack_k6(out / K6_FILE)
    say(f"screenshots for the accuracy check ({SAMPLE_COUNT} per usage and split)")
    screenshots = save_screenshots(out / SAMPLES)
    say("the compose recipes of every stack, resolved")
    configs = resolve_compose(project, out / COMPOSE)
    manifest = {
        "commit": source_commit(project.root),
        "made": datetime.now(UTC).isoformat(timespec="seconds"),
        "python": machine.python,
        "wheels": wheels,
        "k6": k6,
        "screenshots": screenshots,
        "compose_configs": configs,
    }
    (out / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n")
    bundle = sum(path.stat().st_size for path in out.rglob("*") if path.is_file()) / MiB
    tree = tree_bytes(project.root) / MiB
    say(
        f"{out}: {bundle:.1f} MiB; with the working tree ({tree:.1f} MiB) {bundle + tree:.1f} "
        f"MiB of the {CARRIED_LIMIT // MiB} MiB one call carries"
    )
    if bundle > BUNDLE_LIMIT // MiB or bundle + tree > CARRIED_LIMIT // MiB:
        raise BundleError(
            f"too large: {bundle:.1f} MiB bundle (at most {BUNDLE_LIMIT // MiB}), "
            f"{bundle + tree:.1f} MiB carried (at most {CARRIED_LIMIT // MiB})"
        )
