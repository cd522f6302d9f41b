"""Every HTML page of the apps compose serves works on a machine without internet access: it
names no other host and every file it loads is served, with the content type a browser takes
for it (servelab.testing.pages). Each app is imported as its server imports it and asked in
the test's process. An app's pages are found from its routes: each GET route without a path
parameter that its OpenAPI document leaves out or documents as text/html, and that answers a
browser with HTML."""

from __future__ import annotations

import importlib
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from fastapi import FastAPI
from fastapi.routing import iter_route_contexts
from fastapi.testclient import TestClient

from servelab.project import Project
from servelab.testing.pages import BROWSER_ACCEPT, page_problems

ROOT = Project.find(Path(__file__).parent).root
# The FastAPI apps compose serves, and the pages each answers: servicekit's docs where the
# app serves its OpenAPI document (hello's and the files strategies' bare app serve none).
PAGES = {
    "files_service.main:app": {"/docs", "/redoc"},
    "health_code_service.main:app": {"/docs", "/redoc"},
    "wait_service.main:app": {"/docs", "/redoc"},
    "hello_service.asgi:app": set[str](),
    "files_service.bare:app": set[str](),
}
# The other apps compose serves. The Flask apps and the benchmarks' floors answer JSON or
# bytes only; the entry editor's HTML (DRF's browsable API, its files from nginx's /static/)
# is checked through nginx in services/entryeditor/tests/test_stack_entryeditor.py.
NOT_HERE = {
    "entryeditor_service.config.wsgi:application",
    "files_service.empty:app",
    "hello_service.empty:asgi",
    "hello_service.empty:wsgi",
    "hello_service.flask_app:app",
    "wait_service.flask_app:app",
}
_APP = re.compile(r"(?<![\w/.])([a-z_]+(?:\.[a-z_]+)+:[a-z_]+)\b")


def served_apps() -> set[str]:
    """The module:attribute of every app a compose command serves, directly or through the
    uWSGI ini it names."""
    found: set[str] = set()
    for path in sorted((ROOT / "deploy" / "compose").glob("*.yaml")):
        for spec in yaml.safe_load(path.read_text())["services"].values():
            command = spec.get("command") or ""
            words = command.split() if isinstance(command, str) else [str(w) for w in command]
            found.update(_APP.findall(" ".join(words)))
            if "--ini" in words:
                ini = (ROOT / words[words.index("--ini") + 1]).read_text()
                found.update(re.findall(r"^module\s*=\s*(\S+)", ini, re.M))
    return found


def html_pages(app: FastAPI, client: TestClient) -> set[str]:
    """The GET routes without a path parameter that the OpenAPI document leaves out or
    documents as text/html, which answer a browser with HTML."""
    documented: dict[str, Any] = app.openapi()["paths"] if app.openapi_url else {}
    pages = set()
    for route in iter_route_contexts(app.routes):
        if route.path is None or "{" in route.path or "GET" not in (route.methods or ()):
            continue
        answer = documented.get(route.path, {}).get("get", {}).get("responses", {}).get("200", {})
        if getattr(route, "include_in_schema", False) and "text/html" not in answer.get(
            "content", {}
        ):
            continue
        served = client.get(route.path, headers={"Accept": BROWSER_ACCEPT})
        if served.headers.get("content-type", "").startswith("text/html"):
            pages.add(route.path)
    return pages


def test_every_app_compose_serves_is_checked_here_or_named() -> None:
    assert served_apps() == set(PAGES) | NOT_HERE


@pytest.mark.parametrize("spec", sorted(PAGES))
def test_every_html_page_loads_everything_from_the_service(spec: str) -> None:
    module, _, attribute = spec.partition(":")
    app = getattr(importlib.import_module(module), attribute)
    client = TestClient(app)
    assert html_pages(app, client) == PAGES[spec]
    for page in sorted(PAGES[spec]):
        assert page_problems(client, page) == []
