"""The error shape on Flask: install_error_handlers(app) answers every failure with it.

ApiError, werkzeug's HTTP errors (unknown paths, wrong methods, abort()) and unhandled
exceptions (500; Flask still logs the traceback) all answer {"error": {"code", "message"}}.
Needs the `flask` extra.
"""

import json
from collections.abc import Mapping
from typing import Any

from flask import Flask, Response
from werkzeug.exceptions import HTTPException, InternalServerError

from servicekit.errors import ApiError, code_for, error_body


def error_response(
    status: int, code: str, message: str, *, headers: Mapping[str, str] | None = None
) -> Response:
    return _json(error_body(code, message), status, headers or {})


def _json(body: dict[str, Any], status: int, headers: Mapping[str, str]) -> Response:
    response = Response(json.dumps(body), status, mimetype="application/json")
    response.headers.update(headers)
    return response


def _api_error(exc: ApiError) -> Response:
    return _json(exc.body(), exc.status, exc.headers)


def _http_exception(exc: HTTPException) -> Response:
    status = exc.code or 500
    # werkzeug's default description is a sentence for browsers; the name ("Not Found")
    # is the message FastAPI gives, unless whoever raised it wrote their own.
    message = exc.description if exc.description != type(exc).description else exc.name
    # Headers the error carries (Allow on a 405), without its HTML content type.
    headers = {k: v for k, v in exc.get_headers() if k.lower() != "content-type"}
    return error_response(status, code_for(status), message or exc.name, headers=headers)


def _internal_error(_: InternalServerError) -> Response:
    # A handler for 500 rather than for Exception: Flask logs the traceback first.
    return error_response(500, "internal_error", "internal server error")


def install_error_handlers(app: Flask) -> None:
    app.register_error_handler(ApiError, _api_error)
    app.register_error_handler(HTTPException, _http_exception)
    app.register_error_handler(InternalServerError, _internal_error)
