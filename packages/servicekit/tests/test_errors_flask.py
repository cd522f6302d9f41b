"""install_error_handlers: every failure of a Flask app in the one JSON shape."""

from __future__ import annotations

import logging

import pytest
from flask import Flask, abort
from werkzeug.test import TestResponse

from servicekit.errors import ApiError
from servicekit.errors.flask import install_error_handlers


@pytest.fixture
def app() -> Flask:
    app = Flask(__name__)
    install_error_handlers(app)

    @app.get("/gone")
    def gone() -> str:
        raise ApiError(410, "object_gone", "deleted yesterday", headers={"X-Why": "deleted"})

    @app.get("/aborted")
    def aborted() -> str:
        abort(409, "taken")

    @app.get("/boom")
    def boom() -> str:
        raise RuntimeError("a bug")

    return app


def error_of(response: TestResponse) -> dict[str, object]:
    assert response.mimetype == "application/json"
    body = response.get_json()
    assert list(body) == ["error"]
    error: dict[str, object] = body["error"]
    return error


def test_an_api_error_keeps_its_status_code_message_and_headers(app: Flask) -> None:
    response = app.test_client().get("/gone")
    assert response.status_code == 410
    assert response.headers["X-Why"] == "deleted"
    assert error_of(response) == {"code": "object_gone", "message": "deleted yesterday"}


@pytest.mark.parametrize(
    ("method", "path", "status", "error"),
    [
        ("GET", "/nope", 404, {"code": "not_found", "message": "Not Found"}),
        ("POST", "/gone", 405, {"code": "method_not_allowed", "message": "Method Not Allowed"}),
        ("GET", "/aborted", 409, {"code": "conflict", "message": "taken"}),
    ],
)
def test_http_errors_answer_the_shape(
    app: Flask, method: str, path: str, status: int, error: dict[str, str]
) -> None:
    response = app.test_client().open(path, method=method)
    assert response.status_code == status
    assert error_of(response) == error


def test_a_405_still_names_the_allowed_methods(app: Flask) -> None:
    response = app.test_client().post("/gone")
    assert set(response.headers["Allow"].split(", ")) == {"GET", "HEAD", "OPTIONS"}


def test_a_bug_is_a_json_500_and_its_traceback_is_logged(
    app: Flask, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.ERROR):
        response = app.test_client().get("/boom")
    assert response.status_code == 500
    assert error_of(response) == {"code": "internal_error", "message": "internal server error"}
    assert any(record.exc_info for record in caplog.records)
