"""deploy/gunicorn/base.py: the settings every gunicorn config shares, read from the env."""

from __future__ import annotations

import runpy
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
