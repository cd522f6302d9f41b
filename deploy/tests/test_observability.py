"""The `observability` profile: its scrape configuration lists every app server that
answers /metrics over TCP, and Debian's Prometheus, started against a running stack with a
scrape configuration of its loopback ports, finds every target up and counts the requests
sent."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx2
import pytest
import yaml

from servelab.project import Project
from servelab.stack import Stack, groups
from servelab.stack.compose import load_project
from servelab.stack.ports import LOOPBACK, free_port

ROOT = Path(__file__).resolve().parents[2]
SCRAPE_CONFIG = ROOT / "deploy" / "prometheus" / "prometheus.yml"
PROFILES = ["uvicorn", "gunicorn", "granian", "nginx", "uwsgi", "tornado", "gpu"]
FAMILIES = ["files", "wait", "hello", "health-code", "entryeditor"]
PROMETHEUS = shutil.which("prometheus")
N = 20


def _scraped() -> dict[str, set[str]]:
    document = yaml.safe_load(SCRAPE_CONFIG.read_text())
    return {
        job["job_name"]: {
            target.rsplit(":", 1)[0]
            for static in job["static_configs"]
            for target in static["targets"]
        }
        for job in document["scrape_configs"]
    }


def test_the_scrape_config_lists_every_app_server_on_tcp() -> None:
    """One job per family naming each of its servers that export metrics on a TCP port."""
    project = load_project(Project(ROOT), PROFILES)
    expected: dict[str, set[str]] = {}
    for name, service in project.services.items():
        if "PROMETHEUS_MULTIPROC_DIR" in service.environment and service.local.port_env:
            family = next(f for f in FAMILIES if name.startswith(f + "-"))
            expected.setdefault(family, set()).add(name)
    assert _scraped() == expected


def _start_prometheus(config: Path, url: str, data: Path) -> subprocess.Popen[bytes]:
    assert PROMETHEUS is not None
    argv = [
        PROMETHEUS,
        f"--config.file={config}",
        f"--storage.tsdb.path={data}",
        f"--web.listen-address={url.removeprefix('http://')}",
    ]
    return groups.spawn(argv, env=dict(os.environ), cwd=data, stdout=subprocess.DEVNULL)


def _api(url: str, path: str, **params: str) -> Any:
    response = httpx2.get(f"{url}/api/v1/{path}", params=params, timeout=5)
    response.raise_for_status()
    return response.json()["data"]


def _until(check: Any, timeout: float = 30.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        try:
            found = check()
        except httpx2.HTTPError:
            found = None
        if found or time.monotonic() > deadline:
            return found
        time.sleep(0.5)


@pytest.mark.skipif(PROMETHEUS is None, reason="no prometheus: scripts/bootstrap.sh installs it")
def test_prometheus_scrapes_every_target_and_counts_the_requests(
    starts_servers: None, tmp_path: Path
) -> None:
    url = f"http://{LOOPBACK}:{free_port()}"
    services = ["hello-gunicorn-sync", "hello-uvicorn"]
    with Stack(
        ["gunicorn", "uvicorn"], only=services, env={"WEB_CONCURRENCY": "2"}, log=None
    ) as stack:
        targets = [f"{LOOPBACK}:{stack.port(name)}" for name in services]

        def one(target: str) -> int:
            return httpx2.get(f"http://{target}/hello", headers={"Connection": "close"}).status_code

        with ThreadPoolExecutor(4) as pool:
            assert set(pool.map(one, targets * N)) == {200}

        config = tmp_path / "prometheus.yml"
        job = {"job_name": "hello", "static_configs": [{"targets": targets}]}
        config.write_text(
            yaml.safe_dump({"global": {"scrape_interval": "1s"}, "scrape_configs": [job]})
        )
        data = tmp_path / "data"
        data.mkdir()
        process = _start_prometheus(config, url, data)
        try:

            def all_up() -> list[dict[str, Any]] | None:
                active = _api(url, "targets")["activeTargets"]
                healthy = len(active) == len(targets) and all(t["health"] == "up" for t in active)
                return active if healthy else None

            assert _until(all_up), _api(url, "targets")

            query = 'sum by (instance) (http_requests_total{job="hello", route="/hello"})'

            def counted() -> dict[str, float] | None:
                result = _api(url, "query", query=query)["result"]
                values = {r["metric"]["instance"]: float(r["value"][1]) for r in result}
                return values if len(values) == len(targets) else None

            assert _until(counted) == dict.fromkeys(targets, float(N))
        finally:
            groups.stop_group(process.pid, 10, process)
            process.wait()
