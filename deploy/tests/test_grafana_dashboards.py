"""The provisioned Grafana dashboards (deploy/grafana/dashboards): one per Prometheus job,
and every metric their queries name is one the services export, so a renamed or removed
metric cannot leave a panel empty without a failing test."""

from __future__ import annotations

import importlib
import json
import re
from pathlib import Path

import yaml
from prometheus_client import REGISTRY

# A metric selector in PromQL: the name right before its label matchers.
_SELECTOR = re.compile(r"([a-zA-Z_:][a-zA-Z0-9_:]*)\{")
_JOB = re.compile(r'job="([^"]+)"')
# The sample names each metric type exposes, after its family name.
_SUFFIXES = {
    "counter": ("_total",),
    "gauge": ("",),
    "histogram": ("_bucket", "_count", "_sum"),
}
# Prometheus's own series for each target.
_PROMETHEUS = {"up"}
# The default registry's process and interpreter collectors: a multiprocess /metrics
# (every recipe's) builds a registry without them.
_NOT_EXPORTED = ("process_", "python_")


def _exported(project_root: Path) -> set[str]:
    """The sample names of the request metrics and of every service's metrics module."""
    modules = ["servicekit.metrics.http"] + [
        f"{path.parent.name}.metrics"
        for path in sorted(project_root.glob("services/*/src/*/metrics.py"))
    ]
    for module in modules:
        importlib.import_module(module)
    return {
        family.name + suffix
        for family in REGISTRY.collect()
        if not family.name.startswith(_NOT_EXPORTED)
        for suffix in _SUFFIXES.get(family.type, ())
    }


def _queries(path: Path) -> list[str]:
    dashboard = json.loads(path.read_text())
    return [target["expr"] for panel in dashboard["panels"] for target in panel.get("targets", [])]


def test_every_dashboard_query_names_metrics_the_services_export(project_root: Path) -> None:
    exported = _exported(project_root) | _PROMETHEUS
    assert "entryeditor_db_connections_open" in exported
    dashboards = sorted((project_root / "deploy/grafana/dashboards").glob("*.json"))
    assert dashboards
    for path in dashboards:
        queries = _queries(path)
        assert queries, path.name
        for query in queries:
            names = set(_SELECTOR.findall(query))
            assert names, f"{path.name}: no metric selector in {query!r}"
            assert names <= exported, f"{path.name}: {sorted(names - exported)} not exported"


def test_each_scrape_job_has_its_dashboard_and_each_query_its_job(project_root: Path) -> None:
    scrape = yaml.safe_load((project_root / "deploy/prometheus/prometheus.yml").read_text())
    jobs = {job["job_name"] for job in scrape["scrape_configs"]}
    dashboards = {
        path.stem: path for path in (project_root / "deploy/grafana/dashboards").glob("*.json")
    }
    assert set(dashboards) == jobs
    for job, path in dashboards.items():
        for query in _queries(path):
            assert set(_JOB.findall(query)) == {job}, f"{path.name}: {query!r}"
