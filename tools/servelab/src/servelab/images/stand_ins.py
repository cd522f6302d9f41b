"""Base images for compose.yaml and the Dockerfiles where the official ones cannot be pulled:
stand-ins built from Debian packages, tagged with the official names so that compose and
`FROM` find them, in the engine the user's docker command line points at or in servelab's
private one.

debootstrap installs a minimal Debian bookworm into the cache once; `docker import` turns it
into servelab/debian:bookworm; each stand-in is a Dockerfile under deploy/images/ built FROM
it. Every stand-in carries a label saying what it is and one with the digest of its
Dockerfile folder, so that an image is rebuilt when (and only when) its sources change.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from servelab.containers.engine import Docker, Engine, cache_dir
from servelab.project import Project

SUITE = "bookworm"
BASE_TAG = f"servelab/debian:{SUITE}"
DEFAULT_MIRROR = "http://deb.debian.org/debian"
SECURITY_MIRROR = "http://deb.debian.org/debian-security"
DESCRIPTION = "org.opencontainers.image.description"
SOURCE = "org.servelab.stand-in.source"
# Certificate authorities the host's administrator added (a TLS-inspecting proxy's, an
# internal registry's): the stand-ins trust them too, so builds from them reach PyPI and
# Debian the way the host does.
HOST_AUTHORITIES = Path("/usr/local/share/ca-certificates")
PULL_TIMEOUT_S = 300
BUILD_TIMEOUT_S = 1800

Say = Callable[[str], None]


class ImagesError(Exception):
    """A step of building the stand-ins failed (the message ends with the step's output)."""


@dataclass(frozen=True)
class StandIn:
    """One official image and the deploy/images/ folder its stand-in is built from."""

    folder: str
    tag: str


STAND_INS = (
    StandIn("python", "python:3.12.12-slim-bookworm"),
    StandIn("mariadb", "mariadb:11"),
    StandIn("redis", "redis:7"),
    StandIn("nginx", "nginx:1.27"),
)

# Official images that get no stand-in, and why. The profiles that use them are not started
# by the container lane, so here they are only validated (`docker compose config`, hadolint).
OFFICIAL_ONLY = {
    "prom/prometheus:v2.53.2": "the observability profile; the local runner's test runs "
    "Debian's prometheus instead",
    "grafana/grafana:11.2.0": "the observability profile; Debian does not package Grafana",
    "node:20.19.6-bookworm-slim": "entryeditor-web's build stage; Debian 12's nodejs is 18 "
    "and the build needs 20.19 or newer",
}


@dataclass(frozen=True)
class ImageOutcome:
    """What `ensure_images` did for one image: present, pulled or built, and how long it took."""

    tag: str
    action: str
    seconds: float


def images_dir(project: Project) -> Path:
    return project.root / "deploy" / "images"


def source_digest(folder: Path) -> str:
    """sha256 over the folder's files: names, executable bits and bytes."""
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        digest.update(str(path.relative_to(folder)).encode() + b"\0")
        digest.update(b"x" if path.stat().st_mode & 0o111 else b"-")
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _run(
    argv: list[str], what: str, timeout: float | None = None
) -> subprocess.CompletedProcess[str]:
    """Run a step (at most `timeout` s), raising ImagesError with the end of its output when
    it fails."""
    result = subprocess.run(argv, capture_output=True, text=True, check=False, timeout=timeout)
    if result.returncode != 0:
        tail = "\n".join((result.stdout + result.stderr).splitlines()[-20:])
        raise ImagesError(f"{what} failed (exit status {result.returncode}):\n{tail}")
    return result


def debootstrap(cache: Path, mirror: str, say: Say) -> Path:
    """A minimal Debian rootfs in the cache, made once: <cache>/debootstrap/bookworm exists
    only once debootstrap finished (it works in bookworm.partial and renames it)."""
    target = cache / "debootstrap" / SUITE
    if target.is_dir():
        return target
    if shutil.which("debootstrap") is None:
        raise ImagesError("no debootstrap: apt-get install debootstrap (the bootstrap does it)")
    partial = target.with_name(f"{SUITE}.partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.parent.mkdir(parents=True, exist_ok=True)
    say(f"debootstrap {SUITE} (minbase) from {mirror} into {target}")
    argv = ["debootstrap", "--variant=minbase", "--include=ca-certificates", SUITE, str(partial)]
    _run([*argv, mirror], "debootstrap", timeout=BUILD_TIMEOUT_S)
    partial.rename(target)
    return target


def _prepare_rootfs(rootfs: Path, mirror: str) -> None:
    """Make the rootfs what a Debian container image is: no service started by a package's
    installation, the apt sources of the official image, the host's added certificate
    authorities, no package lists or archives."""
    policy = rootfs / "usr/sbin/policy-rc.d"
    policy.write_text("#!/bin/sh\n# No service starts while an image is built.\nexit 101\n")
    policy.chmod(0o755)
    (rootfs / "etc/apt/sources.list").unlink(missing_ok=True)
    (rootfs / "etc/apt/sources.list.d/debian.sources").write_text(
        f"Types: deb\nURIs: {mirror}\nSuites: {SUITE} {SUITE}-updates\nComponents: main\n"
        "Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg\n\n"
        f"Types: deb\nURIs: {SECURITY_MIRROR}\nSuites: {SUITE}-security\nComponents: main\n"
        "Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg\n"
    )
    authorities = rootfs / str(HOST_AUTHORITIES).lstrip("/")
    shutil.rmtree(authorities, ignore_errors=True)
    if HOST_AUTHORITIES.is_dir():
        shutil.copytree(HOST_AUTHORITIES, authorities)
    else:
        authorities.mkdir(parents=True)
    _run(["chroot", str(rootfs), "update-ca-certificates", "--fresh"], "update-ca-certificates")
    for leftovers in ("var/lib/apt/lists", "var/cache/apt/archives"):
        for path in (rootfs / leftovers).glob("*"):
            if path.is_file():
                path.unlink()


def import_base(engine: Docker, rootfs: Path, mirror: str) -> None:
    """`tar -C rootfs -c . | docker import - servelab/debian:bookworm`."""
    _prepare_rootfs(rootfs, mirror)
    tar = subprocess.Popen(
        ["tar", "-C", str(rootfs), "--numeric-owner", "-c", "."], stdout=subprocess.PIPE
    )
    label = (
        f'LABEL {DESCRIPTION}="servelab: a minimal Debian {SUITE} from debootstrap, '
        'the base of the stand-ins for official images"'
    )
    try:
        engine.docker(
            "import", "--change", 'CMD ["bash"]', "--change", label, "-", BASE_TAG,
            stdin=tar.stdout, timeout=BUILD_TIMEOUT_S,
        )  # fmt: skip
    except subprocess.CalledProcessError as error:
        raise ImagesError(f"docker import failed:\n{error.stderr}") from None
    finally:
        if tar.stdout is not None:
            tar.stdout.close()
        tar.wait()


def labels(engine: Docker, tag: str) -> dict[str, str] | None:
    """The image's labels, or None when the engine has no image `tag`."""
    found = engine.docker(
        "image", "inspect", "--format", "{{json .Config.Labels}}", tag, check=False
    )
    if found.returncode != 0:
        return None
    return json.loads(found.stdout) or {}


def pull(engine: Docker, tag: str) -> bool:
    """Try the official image; False (quickly, here) when its registry cannot be reached."""
    try:
        pulled = engine.docker("pull", "--quiet", tag, check=False, timeout=PULL_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return False
    return pulled.returncode == 0


def build(engine: Docker, stand_in: StandIn, folder: Path, *, no_cache: bool) -> None:
    """docker build of one stand-in. The classic builder with the host's network: the
    private engine gives containers no route out (engine.py), and apt and pip need one."""
    argv = [
        "build", "--network", "host", "--label", f"{SOURCE}={source_digest(folder)}",
        "--build-arg", f"BASE={BASE_TAG}", "--tag", stand_in.tag,
    ]  # fmt: skip
    if no_cache:
        argv.append("--no-cache")
    try:
        engine.docker(
            *argv, str(folder), timeout=BUILD_TIMEOUT_S, extra_env={"DOCKER_BUILDKIT": "0"}
        )
    except subprocess.CalledProcessError as error:
        tail = "\n".join((error.stdout + error.stderr).splitlines()[-25:])
        raise ImagesError(f"building the stand-in for {stand_in.tag} failed:\n{tail}") from None


def stamp_path(engine_data_root: Path) -> Path:
    return engine_data_root.parent / f"{engine_data_root.name}.images.json"


def expected_stamp(project: Project, data_root: Path) -> dict[str, str]:
    """What the stamp of an up-to-date data root holds: each stand-in's source digest."""
    folder = images_dir(project)
    return {"data_root": str(data_root)} | {
        stand_in.tag: source_digest(folder / stand_in.folder) for stand_in in STAND_INS
    }


def up_to_date(project: Project, data_root: Path) -> bool:
    """True when the last run left every image in place for these sources: the check the
    bootstrap makes on every `make` without starting an engine."""
    stamp = stamp_path(data_root)
    if not stamp.is_file() or not data_root.is_dir():
        return False
    try:
        return bool(json.loads(stamp.read_text()) == expected_stamp(project, data_root))
    except (OSError, ValueError):
        return False


def ensure_images(
    engine: Docker,
    project: Project,
    say: Say,
    *,
    rebuild: bool = False,
    refresh: bool = False,
    try_pull: bool = True,
    mirror: str = DEFAULT_MIRROR,
) -> list[ImageOutcome]:
    """Make every image of STAND_INS present in `engine`: an official image is kept, a
    stand-in kept while built from the current sources of deploy/images/; a missing image
    is pulled when the registry answers, else built. `rebuild` builds every stand-in again
    (Docker's layer cache still applies); `refresh` also debootstraps anew and builds
    without the layer cache (Debian's latest updates). The Debian rootfs is kept in the
    project's cache directory."""
    cache = cache_dir(project.settings)
    registry_answers = try_pull
    if refresh:
        shutil.rmtree(cache / "debootstrap" / SUITE, ignore_errors=True)

    def base() -> str:
        if not refresh and labels(engine, BASE_TAG) is not None:
            return "present"
        rootfs = debootstrap(cache, mirror, say)
        say(f"importing {rootfs} as {BASE_TAG}")
        import_base(engine, rootfs, mirror)
        return "imported"

    def ensure(stand_in: StandIn) -> str:
        nonlocal registry_answers
        found = labels(engine, stand_in.tag)
        source = images_dir(project) / stand_in.folder
        if found is not None and SOURCE not in found:
            return "present (official)"
        current = found is not None and found[SOURCE] == source_digest(source)
        if current and not (rebuild or refresh):
            return "present (stand-in)"
        if found is None and registry_answers:
            say(f"pulling {stand_in.tag}")
            if pull(engine, stand_in.tag):
                return "pulled (official)"
            say(f"{stand_in.tag} cannot be pulled here: building stand-ins from Debian packages")
            registry_answers = False
        say(f"building the stand-in for {stand_in.tag} from {source}")
        build(engine, stand_in, source, no_cache=refresh)
        return "built (stand-in)"

    outcomes = [_timed(BASE_TAG, base)]
    outcomes += [_timed(stand_in.tag, partial(ensure, stand_in)) for stand_in in STAND_INS]
    if isinstance(engine, Engine):
        # The private engine's data root only: the bootstrap's check without an engine.
        stamp_path(engine.data_root).write_text(
            json.dumps(expected_stamp(project, engine.data_root), indent=1) + "\n"
        )
    return outcomes


def _timed(tag: str, action: Callable[[], str]) -> ImageOutcome:
    start = time.monotonic()
    done = action()
    return ImageOutcome(tag, done, time.monotonic() - start)


def describe(outcomes: list[ImageOutcome]) -> Iterator[str]:
    """The summary lines the command prints."""
    width = max(len(outcome.tag) for outcome in outcomes)
    for outcome in outcomes:
        yield f"{outcome.tag:<{width}}  {outcome.action:<20} {outcome.seconds:6.1f} s"
