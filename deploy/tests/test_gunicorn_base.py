"""deploy/gunicorn/base.py: the settings every gunicorn config shares, read from the env."""

from __future__ import annotations

import os
import runpy
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest


def settings(project_root: Path, monkeypatch: pytest.MonkeyPatch, **env: str) -> dict[str, Any]:
    for name in ("FORWARDED_ALLOW_IPS", "GUNICORN_ACCESS_LOG"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return runpy.run_path(str(project_root / "deploy" / "gunicorn" / "base.py"))


def test_defaults(project_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = settings(project_root, monkeypatch)
    assert found["worker_tmp_dir"] == found["SHARED_MEMORY"]  # Linux: heartbeats in memory
    assert found["forwarded_allow_ips"] == "127.0.0.1,::1"
    assert found["accesslog"] is None


def test_the_environment_sets_the_proxies_and_the_access_log(
    project_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    found = settings(
        project_root, monkeypatch, FORWARDED_ALLOW_IPS="10.0.0.0/8", GUNICORN_ACCESS_LOG="-"
    )
    assert found["forwarded_allow_ips"] == "10.0.0.0/8"
    assert found["accesslog"] == "-"
    assert "request_id=%({x-request-id}i)s" in found["access_log_format"]


CONFIGS = sorted(path.name for path in (Path(__file__).parents[1] / "gunicorn").glob("*.conf.py"))
# The entry editor's gunicorn listens on a socket in SOCKET_DIR and serves /metrics on
# SCRAPE_HOST:SCRAPE_PORT, as compose sets them.
ENTRYEDITOR_ENV = {"SCRAPE_HOST": "127.0.0.1", "SCRAPE_PORT": "9", "SECRET_KEY": "check-config"}
APPS = {
    "entryeditor.conf.py": "entryeditor_service.config.wsgi:application",
    "files.conf.py": "files_service.main:app",
    "health-code.conf.py": "health_code_service.main:app",
    "hello.conf.py": "hello_service.flask_app:app",
    "wait.conf.py": "wait_service.flask_app:app",
}


def test_every_config_takes_each_shared_setting_or_sets_its_own(project_root: Path) -> None:
    shared = runpy.run_path(str(project_root / "deploy" / "gunicorn" / "base.py"))["__all__"]
    assert sorted(APPS) == CONFIGS
    for name in CONFIGS:
        text = (project_root / "deploy" / "gunicorn" / name).read_text()
        assert "sys.path" not in text and "import *" not in text, name
        for setting in shared:
            own = f"\n{setting} =" in text or f"\ndef {setting}(" in text
            assert own or f"    {setting},\n" in text, f"{name} lacks {setting}"


@pytest.mark.parametrize("name", CONFIGS)
def test_gunicorn_loads_each_config_as_compose_runs_it(
    project_root: Path, tmp_path: Path, name: str
) -> None:
    """`gunicorn --check-config` from the project's root, as compose and the image run it:
    the config imports deploy.gunicorn.base from there, and the app loads."""
    done = subprocess.run(
        [
            str(Path(sys.executable).parent / "gunicorn"),
            "--check-config",
            "-c",
            f"deploy/gunicorn/{name}",
            APPS[name],
        ],
        cwd=project_root,
        env={**os.environ, **ENTRYEDITOR_ENV, "SOCKET_DIR": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
