"""What an engine needs from compose.yaml's variables to build and run the profiles, found
with two throwaway containers of the Debian base image:

  BUILD_NETWORK=host  a container cannot reach the Debian mirror (an engine without NAT, as
                      servelab's private one): the builds' RUN steps download from Debian and
                      PyPI, so they run on the host's network
  NOFILE_LIMIT=N      the engine cannot raise a container's open-files limit to compose's
                      65536 (its runtime lacks CAP_SYS_RESOURCE): N is the most it gives

Where the docker command line has no buildx plugin, compose warns once that it cannot build
with Bake, then builds the classic way; COMPOSE_BAKE=false only trades that warning for one
that the setting is deprecated (compose 2.40), so the advice says what the warning means
and how to be rid of it (docker's buildx plugin) instead of setting anything.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from urllib.parse import urlsplit

from servelab.containers.engine import Docker
from servelab.images.stand_ins import BASE_TAG, DEFAULT_MIRROR

# compose.yaml's `ulimits: nofile` unless NOFILE_LIMIT is set (deploy/compose/entryeditor.yaml).
COMPOSE_NOFILE = 65536
MIRROR_HOST = urlsplit(DEFAULT_MIRROR).hostname or "deb.debian.org"
PROBE_TIMEOUT_S = 60


@dataclass(frozen=True)
class EngineNeeds:
    """The settings an engine needs; None where compose.yaml's default works."""

    build_network: str | None
    nofile_limit: int | None
    # Whether the docker command line has the buildx plugin compose builds with by default.
    buildx: bool = True


def _run(engine: Docker, *args: str) -> subprocess.CompletedProcess[str]:
    return engine.docker("run", "--rm", *args, check=False, timeout=PROBE_TIMEOUT_S)


def reaches_mirror(engine: Docker, image: str = BASE_TAG) -> bool:
    """True when a container on the engine's default network opens a connection to the
    Debian mirror, as a build's `apt-get` does."""
    probe = f"exec 3<>/dev/tcp/{MIRROR_HOST}/80"
    return _run(engine, image, "timeout", "10", "bash", "-c", probe).returncode == 0


def nofile_ceiling(engine: Docker, image: str = BASE_TAG) -> int | None:
    """None when a container starts with compose's open-files limit, else the hard limit a
    container gets by default (the most the engine can give)."""
    limit = f"nofile={COMPOSE_NOFILE}:{COMPOSE_NOFILE}"
    if _run(engine, "--ulimit", limit, image, "true").returncode == 0:
        return None
    hard = _run(engine, image, "bash", "-c", "ulimit -Hn").stdout.strip()
    return int(hard) if hard.isdigit() else None


def has_buildx(engine: Docker) -> bool:
    """True when `docker buildx` answers: compose then builds with Bake, silently."""
    return engine.docker("buildx", "version", check=False).returncode == 0


def engine_needs(engine: Docker) -> EngineNeeds:
    return EngineNeeds(
        build_network=None if reaches_mirror(engine) else "host",
        nofile_limit=nofile_ceiling(engine),
        buildx=has_buildx(engine),
    )


def advice(needs: EngineNeeds) -> list[str]:
    """What to tell the user, ending with the line to copy."""
    lines = []
    settings = []
    if needs.build_network is not None:
        lines.append(
            f"a container in this engine cannot reach {MIRROR_HOST}, which the builds "
            "download from: BUILD_NETWORK=host runs them on the host's network"
        )
        settings.append(f"BUILD_NETWORK={needs.build_network}")
    if needs.nofile_limit is not None:
        lines.append(
            f"this engine cannot raise a container's open-files limit to {COMPOSE_NOFILE} "
            f"(at most {needs.nofile_limit}): NOFILE_LIMIT lowers compose's"
        )
        settings.append(f"NOFILE_LIMIT={needs.nofile_limit}")
    if not needs.buildx:
        lines.append(
            "the docker command line has no buildx plugin: compose warns once that it cannot "
            "build with Bake, then builds the classic way (docker's buildx plugin, where your "
            "distribution packages it, silences it)"
        )
    if settings:
        lines.append(f"before `docker compose` here: export {' '.join(settings)}")
    else:
        lines.append("this engine builds and runs the profiles with compose.yaml's defaults")
    return lines
