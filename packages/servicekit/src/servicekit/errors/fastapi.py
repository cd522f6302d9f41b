"""The error shape on FastAPI: install_error_handlers(app) answers every failure with it.

ApiError, Starlette's HTTPException (unknown paths, wrong methods, FastAPI's own 4xx),
request validation errors (422, with the failing fields in `details`) and unhandled
exceptions (500, traceback still logged) all answer {"error": {"code", "message"}}.
Needs the `fastapi` extra.
"""

from collections.abc import Mapping
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect
from starlette.responses import JSONResponse, Response
from starlette.routing import Match

from servicekit.errors import CLIENT_CLOSED_REQUEST, ApiError, code_for, error_body, phrase_for
from servicekit.head import answers_head_as_get


def error_response(
    status: int,
    code: str,
    message: str,
    *,
    headers: Mapping[str, str] | None = None,
    **members: Any,
) -> JSONResponse:
    """The error shape as a response, for code that answers before the app does (middleware)."""
    return JSONResponse(error_body(code, message, **members), status, headers=headers)


def api_error_response(error: ApiError) -> JSONResponse:
    """`error` as a response: its status, body and headers, as its handler answers it."""
    return JSONResponse(error.body(), error.status, headers=error.headers)


async def _api_error(_: Request, exc: Exception) -> Response:
    assert isinstance(exc, ApiError)
    return api_error_response(exc)


async def _http_exception(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    # FastAPI turns any exception raised while it parses a body (a form, JSON) into a 400
    # "There was an error parsing the body", raised from the original: an ApiError from the
    # body stream (a size limit cutting a chunked upload off) keeps its own answer.
    if isinstance(exc.__cause__, ApiError):
        return await _api_error(request, exc.__cause__)
    message = exc.detail if isinstance(exc.detail, str) else phrase_for(exc.status_code)
    headers = exc.headers
    if exc.status_code == 405:
        headers = {**(headers or {}), "Allow": ", ".join(sorted(_allowed_methods(request)))}
    return error_response(exc.status_code, code_for(exc.status_code), message, headers=headers)


# The methods a 405's Allow may name.
_METHODS = ("DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT")


def _allowed_methods(request: Request) -> set[str]:
    """Every method some route answers at this path: Starlette's 405 names only the first
    route that matched the path (GET /files and POST /files are two routes). Each method is
    tried against the app's routes as they match a request, so routes of included routers
    count as the app's own; HEAD goes with GET where the app answers HEAD as GET."""
    routes = request.app.router.routes
    allowed = {
        method
        for method in _METHODS
        if any(
            route.matches({**request.scope, "method": method})[0] == Match.FULL for route in routes
        )
    }
    if "GET" in allowed and answers_head_as_get(request.app):
        allowed.add("HEAD")
    return allowed


async def _validation_error(_: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    details: list[dict[str, Any]] = [
        {"loc": [str(part) for part in err["loc"]], "msg": str(err["msg"]), "type": err["type"]}
        for err in exc.errors()
    ]
    message = "invalid request"
    if details:
        loc, msg = details[0]["loc"], details[0]["msg"]
        message = f"{'.'.join(loc)}: {msg}" if loc else msg
    return error_response(422, "validation_error", message, details=details)


async def _client_disconnect(_: Request, __: Exception) -> Response:
    return Response(status_code=CLIENT_CLOSED_REQUEST)


async def _internal_error(_: Request, __: Exception) -> Response:
    # ServerErrorMiddleware re-raises after sending this, so the server still logs the traceback.
    return error_response(500, "internal_error", "internal server error")


def install_error_handlers(app: FastAPI) -> None:
    """Register the handlers; a service adds its own domain mappings after this call."""
    app.add_exception_handler(ApiError, _api_error)
    app.add_exception_handler(HTTPException, _http_exception)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(ClientDisconnect, _client_disconnect)
    app.add_exception_handler(Exception, _internal_error)
