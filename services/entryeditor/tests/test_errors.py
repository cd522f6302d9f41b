"""One error shape from every layer: domain errors raised as themselves and answered in
entryeditor_service.errors, and Django's own error views answering JSON."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest
from django.core.exceptions import PermissionDenied
from django.http import HttpResponse
from django.test import RequestFactory

from entryeditor_service import errors
from entryeditor_service.entries import store
from entryeditor_service.errors import to_api_error
from servicekit.errors import ApiError

if TYPE_CHECKING:
    from django.test import Client


def test_the_store_raises_its_own_errors(client: Client) -> None:
    created = client.post("/entryeditor/entryeditor/", {"word": "务必"}, "application/json")
    entry_id = created.json()["id"]
    store.update(entry_id, {"pos": "d"}, 1)
    with pytest.raises(store.VersionConflict) as raised:
        store.update(entry_id, {"pos": "v"}, 1)
    assert (raised.value.version, raised.value.current) == (1, 2)
    with pytest.raises(store.EntryNotFound):
        store.get(10**9)
    with pytest.raises(store.EntryNotFound):
        store.update(10**9, {"pos": "v"}, 1)


def test_domain_errors_become_their_http_answers() -> None:
    conflict = to_api_error(store.VersionConflict(7, 1, 2))
    assert isinstance(conflict, ApiError)
    assert (conflict.status, conflict.code) == (409, "conflict")
    assert conflict.body()["error"]["current_version"] == 2
    missing = to_api_error(store.EntryNotFound(7))
    assert isinstance(missing, ApiError)
    assert (missing.status, missing.code, missing.message) == (
        404,
        "not_found",
        "No entry 7",
    )
    assert to_api_error(ValueError("not ours")) is None


@pytest.mark.parametrize(
    ("view", "status", "code"),
    [
        (errors.bad_request, 400, "bad_request"),
        (errors.permission_denied, 403, "forbidden"),
        (errors.not_found, 404, "not_found"),
    ],
)
def test_djangos_error_views_answer_json(
    view: Callable[..., HttpResponse], status: int, code: str
) -> None:
    request = RequestFactory().get("/nowhere")
    response = view(request, PermissionDenied())
    assert response.status_code == status
    assert response["Content-Type"] == "application/json"
    assert json.loads(response.content)["error"]["code"] == code


def test_a_server_error_is_json() -> None:
    response = errors.server_error(RequestFactory().get("/"))
    assert response.status_code == 500
    assert json.loads(response.content) == {
        "error": {"code": "server_error", "message": "Internal server error"}
    }
