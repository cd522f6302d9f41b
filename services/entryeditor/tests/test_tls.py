"""TLS ends at the edge in front of nginx, never in the app (README "TLS"): Django's deploy
check finds nothing in compose's settings given the public host and a SECRET_KEY of the
operator's, and names HSTS once it is turned off; answers to requests the edge took over
HTTPS carry HSTS and https links; plain HTTP (the probes, the local runner, the tests and
benchmarks) is answered as it is, never redirected."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
import yaml
from django.test import Client

from entryeditor_service.config.environment import Environment
from servelab.testing.secretfiles import with_secret_files

PUBLIC_HOST = "entryeditor.example.com"
BASE = "/entryeditor/entryeditor/"
PROBES = ["/healthz", "/healthz/", "/readyz", "/readyz/"]
# As nginx passes requests on: with the Host the client sent, and the scheme.
HTTPS = {"Host": "testserver", "X-Forwarded-Proto": "https"}
HTTP = {"Host": "testserver", "X-Forwarded-Proto": "http"}


def recipe_environment(project_root: Path) -> dict[str, str]:
    """What compose gives the uWSGI app server, each variable at its default."""
    recipe = project_root / "deploy" / "compose" / "entryeditor.yaml"
    services = yaml.safe_load(recipe.read_text())["services"]
    environment: dict[str, Any] = services["entryeditor-uwsgi"]["environment"]
    default = re.compile(r"\$\{\w+:-([^}]*)\}")
    return {name: default.sub(r"\1", str(value)) for name, value in environment.items()}


def deploy_check(
    project_root: Path, *options: str, **changes: str
) -> subprocess.CompletedProcess[str]:
    """`entryeditor-manage check --deploy --fail-level WARNING` in a process of its own with
    the recipe's settings behind TLS: the public host in ALLOWED_HOSTS, the secrets volume's
    files (a SECRET_KEY as long as Django asks for), then `changes`."""
    inherited = {k: v for k, v in os.environ.items() if k not in Environment.model_fields}
    argv = ["check", "--deploy", "--fail-level", "WARNING", *options]
    with tempfile.TemporaryDirectory() as directory:
        env = {
            **inherited,
            **with_secret_files(recipe_environment(project_root), Path(directory)),
            "DJANGO_SETTINGS_MODULE": "entryeditor_service.config.settings",
            "ALLOWED_HOSTS": PUBLIC_HOST,
            **changes,
        }
        return subprocess.run(
            [sys.executable, "-m", "entryeditor_service.manage", *argv],
            capture_output=True,
            text=True,
            env=env,
            check=False,
        )


@pytest.mark.heavy  # the deploy checks generate the OpenAPI schema
def test_the_deploy_check_finds_nothing_behind_tls(project_root: Path) -> None:
    result = deploy_check(project_root)
    assert result.returncode == 0, result.stderr
    assert "System check identified no issues" in result.stdout


def test_the_deploy_check_names_hsts_once_turned_off(project_root: Path) -> None:
    result = deploy_check(project_root, "--tag", "security", SECURE_HSTS_SECONDS="0")
    assert result.returncode == 1
    assert "security.W004" in result.stderr


def two_entries(client: Client) -> None:
    """At least two entries, so that a page of one links to the next."""
    for _ in range(2):
        created = client.post(BASE, {"word": "水"}, content_type="application/json")
        assert created.status_code == 201, created.content


def test_what_the_edge_took_over_https_gets_hsts_and_https_links(client: Client) -> None:
    two_entries(client)
    for path in [*PROBES, f"{BASE}?page_size=1"]:
        response = client.get(path, headers=HTTPS)
        assert response.status_code == 200, path
        assert response.headers["Strict-Transport-Security"] == "max-age=31536000"
    page = client.get(BASE, {"page_size": 1}, headers=HTTPS)
    assert page.json()["next"].startswith("https://testserver/")


def test_plain_http_is_answered_as_it_is(client: Client) -> None:
    """Neither a redirect nor HSTS, whether nginx says http or no proxy is in front."""
    two_entries(client)
    for headers in ({"Host": "testserver"}, HTTP):
        for path in [*PROBES, f"{BASE}?page_size=1"]:
            response = client.get(path, headers=headers)
            assert response.status_code == 200, (path, headers)
            assert "Strict-Transport-Security" not in response.headers
        page = client.get(BASE, {"page_size": 1}, headers=headers)
        assert page.json()["next"].startswith("http://testserver/")
