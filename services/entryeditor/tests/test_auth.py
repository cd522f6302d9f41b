"""Every write of the API needs the bearer token (docs/security.md); reads and probes do not."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from django.test import Client, override_settings
from django.urls import URLPattern, URLResolver, get_resolver

from servicekit.auth.django import BearerAuthMiddleware

from .conftest import API_TOKEN

WRITE_METHODS = ("post", "put", "patch", "delete")


def _patterns(
    patterns: list[URLPattern | URLResolver], prefix: str = ""
) -> Iterator[tuple[str, URLPattern]]:
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            yield from _patterns(pattern.url_patterns, prefix + str(pattern.pattern))
        else:
            yield prefix + str(pattern.pattern), pattern


def _example(regex: str) -> str:
    """A concrete path for a route's pattern: ids become 1."""
    path = regex.replace("^", "").replace("/?$", "/").replace("$", "")
    return "/" + re.sub(r"\(\?P<\w+>[^)]*\)", "1", path)


def _writes() -> list[tuple[str, str]]:
    """(method, path) of every route's write methods, from the URLconf itself."""
    found = []
    for regex, pattern in _patterns(get_resolver().url_patterns):
        view_class = getattr(pattern.callback, "cls", None)
        for method in WRITE_METHODS:
            if view_class is not None and hasattr(view_class, method):
                found.append((method.upper(), _example(regex)))
    return found


WRITES = _writes()


def test_the_writes_are_the_entry_editors() -> None:
    assert ("POST", "/entryeditor/entryeditor/") in WRITES
    assert ("PUT", "/entryeditor/entryeditor/1/") in WRITES
    assert ("PATCH", "/entryeditor/entryeditor/1/") in WRITES
    assert ("POST", "/entryeditor/entryeditor/1/execute/") in WRITES
    assert ("POST", "/entryeditor/entryeditor/1/init/") in WRITES


@pytest.mark.parametrize(("method", "path"), WRITES)
def test_every_write_needs_the_token(method: str, path: str) -> None:
    anonymous = Client()
    missing = anonymous.generic(method, path, b"{}", "application/json")
    assert missing.status_code == 401
    assert missing["WWW-Authenticate"].startswith("Bearer")
    assert missing.json()["error"]["code"] == "unauthorized"
    wrong = anonymous.generic(
        method, path, b"{}", "application/json", headers={"Authorization": "Bearer wrong"}
    )
    assert wrong.status_code == 401
    assert wrong.json()["error"]["code"] == "invalid_token"


def test_the_token_opens_writes_and_reads_stay_open(client: Client) -> None:
    created = client.post("/entryeditor/entryeditor/", {"word": "务必"}, "application/json")
    assert created.status_code == 201, created.content
    anonymous = Client()
    assert anonymous.get(f"/entryeditor/entryeditor/{created.json()['id']}").status_code == 200
    assert anonymous.get("/healthz").status_code == 200


def _middleware_answer(method: str, path: str, authorization: str | None = None) -> int:
    from django.http import HttpRequest, HttpResponse

    request = HttpRequest()
    request.method = method
    request.path = request.path_info = path
    if authorization:
        request.META["HTTP_AUTHORIZATION"] = authorization
    response = BearerAuthMiddleware(lambda _: HttpResponse(status=200))(request)
    return response.status_code


def test_with_no_token_configured_writes_are_closed_and_reads_open() -> None:
    with override_settings(API_TOKEN=None):
        assert _middleware_answer("POST", "/entryeditor/entryeditor/", "Bearer x") == 403
        assert _middleware_answer("GET", "/entryeditor/entryeditor/") == 200


def test_reads_can_be_made_to_need_the_token() -> None:
    with override_settings(API_AUTH_READS=True):
        assert _middleware_answer("GET", "/entryeditor/entryeditor/") == 401
        assert _middleware_answer("GET", "/readyz") == 200
        assert _middleware_answer("GET", "/corpus/sentence/1", f"Bearer {API_TOKEN}") == 200
