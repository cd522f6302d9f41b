"""The shipped compose binary as `docker compose` and as `uv run docker-compose`
(servelab.containers.plugin, which the bootstrap runs): each runs compose itself, so a
failing compose command fails with compose's own exit status, and a second run changes
nothing."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from servelab.containers.plugin import (
    PluginError,
    install_console_script,
    install_plugin,
    plugin_path,
    shipped_binary,
)

# A compose command that fails: the compose file it names does not exist.
FAILING = ["-f", "/nonexistent/compose.yaml", "config"]


def _status(argv: list[str], env: dict[str, str] | None = None) -> int:
    return subprocess.run(argv, env=env, capture_output=True, timeout=60, check=False).returncode


@pytest.fixture
def docker_env(tmp_path: Path) -> dict[str, str]:
    """The environment of a Docker command line with a configuration folder of its own."""
    if shutil.which("docker") is None:
        pytest.skip("no docker command line here (Debian's docker.io provides one)")
    return {**os.environ, "DOCKER_CONFIG": str(tmp_path / "docker-config")}


def test_compose_itself_fails_a_failing_command() -> None:
    assert _status([str(shipped_binary()), *FAILING]) != 0


def test_docker_compose_runs_the_shipped_binary_once_installed(docker_env: dict[str, str]) -> None:
    binary = shipped_binary()
    assert _status(["docker", "compose", "version"], docker_env) != 0
    assert install_plugin(binary, docker_env) is not None
    assert plugin_path(docker_env).resolve() == binary.resolve()
    assert _status(["docker", "compose", "version"], docker_env) == 0
    assert _status(["docker", "compose", *FAILING], docker_env) == _status([str(binary), *FAILING])


def test_installing_the_plugin_again_changes_nothing(docker_env: dict[str, str]) -> None:
    binary = shipped_binary()
    install_plugin(binary, docker_env)
    before = plugin_path(docker_env).readlink()
    assert install_plugin(binary, docker_env) is None
    assert plugin_path(docker_env).readlink() == before


def test_a_plugin_that_works_is_left_alone(docker_env: dict[str, str]) -> None:
    own = plugin_path(docker_env)
    own.parent.mkdir(parents=True)
    own.write_text(
        "#!/bin/sh\n"
        '[ "$1" = docker-cli-plugin-metadata ] && '
        'echo \'{"SchemaVersion": "0.1.0", "Vendor": "someone", "Version": "v9"}\'\n'
        "exit 0\n"
    )
    own.chmod(0o755)
    assert install_plugin(shipped_binary(), docker_env) is None
    assert not own.is_symlink()
    assert "someone" in own.read_text()


def test_a_broken_plugin_of_someone_else_is_reported_not_replaced(
    docker_env: dict[str, str],
) -> None:
    own = plugin_path(docker_env)
    own.parent.mkdir(parents=True)
    own.write_text("not a program\n")
    with pytest.raises(PluginError, match="not ours to replace"):
        install_plugin(shipped_binary(), docker_env)
    assert own.read_text() == "not a program\n"


def test_the_console_script_becomes_the_binary(tmp_path: Path) -> None:
    binary = shipped_binary()
    script = tmp_path / "docker-compose"
    script.write_text("#!/bin/sh\n# a console script that drops the exit status\nexit 0\n")
    script.chmod(0o755)
    assert install_console_script(binary, tmp_path) is not None
    assert _status([str(script), *FAILING]) == _status([str(binary), *FAILING]) != 0
    assert install_console_script(binary, tmp_path) is None


def test_the_environments_docker_compose_returns_composes_status() -> None:
    """What `uv run docker-compose` runs (the bootstrap linked it)."""
    found = shutil.which("docker-compose", path=str(Path(sys.prefix) / "bin"))
    assert found is not None
    assert _status([found, *FAILING]) == _status([str(shipped_binary()), *FAILING]) != 0
