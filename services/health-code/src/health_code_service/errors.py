"""One JSON error shape for every failure: {"error": {"code": ..., "message": ...}}
(the files service's shape), and the handlers that give it to every error FastAPI raises."""

from collections.abc import Mapping
from http import HTTPStatus
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import ClientDisconnect
from starlette.responses import JSONResponse, Response

# Codes are the status phrase in snake case ("not_found"), except where a plainer word is
# clearer or the phrase changed across RFCs and Python versions.
_CODES = {
    413: "payload_too_large",
    415: "unsupported_media_type",
    422: "validation_error",
}


class ApiError(StarletteHTTPException):
    """An expected failure, answered with its status and the JSON error shape."""

    def __init__(
        self,
        status_code: int,
        message: str,
        *,
        code: str | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(status_code, detail=message, headers=headers)
        self.code = code or code_for(status_code)


def code_for(status_code: int) -> str:
    if status_code in _CODES:
        return _CODES[status_code]
    return HTTPStatus(status_code).phrase.lower().replace(" ", "_").replace("-", "_")


def error_response(
    status_code: int,
    code: str,
    message: str,
    *,
    headers: Mapping[str, str] | None = None,
    details: list[dict[str, Any]] | None = None,
) -> JSONResponse:
    error: dict[str, Any] = {"code": code, "message": message}
    if details is not None:
        error["details"] = details
    return JSONResponse({"error": error}, status_code=status_code, headers=headers)


async def _api_error(_: Request, exc: ApiError) -> Response:
    return error_response(exc.status_code, exc.code, exc.detail, headers=exc.headers)


async def _http_exception(_: Request, exc: StarletteHTTPException) -> Response:
    message = exc.detail if isinstance(exc.detail, str) else HTTPStatus(exc.status_code).phrase
    return error_response(exc.status_code, code_for(exc.status_code), message, headers=exc.headers)


async def _validation_error(_: Request, exc: RequestValidationError) -> Response:
    details = [
        {"loc": [str(part) for part in err["loc"]], "msg": err["msg"], "type": err["type"]}
        for err in exc.errors()
    ]
    first = details[0] if details else {"loc": [], "msg": "invalid request"}
    message = f"{'.'.join(first['loc'])}: {first['msg']}" if first["loc"] else first["msg"]
    return error_response(422, "validation_error", message, details=details)


async def _client_disconnect(_: Request, __: ClientDisconnect) -> Response:
    # The client went away mid-body: nobody reads this answer, and it is no server error.
    # 499 is nginx's "client closed request", so access logs show what happened.
    return Response(status_code=499)


async def _internal_error(_: Request, __: Exception) -> Response:
    # ServerErrorMiddleware re-raises after sending this, so the server still logs the traceback.
    return error_response(500, "internal_error", "internal server error")


def install_error_handlers(app: FastAPI) -> None:
    app.add_exception_handler(ApiError, _api_error)
    app.add_exception_handler(StarletteHTTPException, _http_exception)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(ClientDisconnect, _client_disconnect)
    app.add_exception_handler(Exception, _internal_error)
