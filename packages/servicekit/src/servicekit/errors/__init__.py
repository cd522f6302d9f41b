"""The one error shape every servelab service answers with, and the one error type.

    {"error": {"code": "not_found", "message": "object not found"}}

`code` is for programs (stable, snake case), `message` for people. An error may say more
in members of its own beside them (a validation error's `details`, a conflict's
`current_version`). No framework is imported here: each adapter (servicekit.errors.fastapi,
.flask, .django) turns ApiError and its framework's own errors into this body.
"""

from collections.abc import Mapping
from http import HTTPStatus
from typing import Any

# Codes are the status phrase in snake case ("not_found"), except where a plainer word is
# clearer or the phrase changed across RFCs and Python versions (413 and 416 were renamed
# in RFC 9110; 422's phrase names WebDAV's "entity").
_CODES = {
    413: "payload_too_large",
    415: "unsupported_media_type",
    416: "range_not_satisfiable",
    422: "validation_error",
    500: "internal_error",
}


# nginx's "client closed request": the client went away before its answer. Nobody reads
# the answer, and it is no server error; the access log shows what happened.
CLIENT_CLOSED_REQUEST = 499


class ApiError(Exception):
    """An expected failure, answered with `status` and {"error": {"code", "message"}};
    `members` are the error object's own further members, `headers` the answer's."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        *,
        headers: Mapping[str, str] | None = None,
        members: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(status, code, message)
        self.status = status
        self.code = code
        self.message = message
        self.headers = dict(headers or {})
        self.members = dict(members or {})

    def body(self) -> dict[str, Any]:
        return error_body(self.code, self.message, **self.members)

    def __str__(self) -> str:
        return f"{self.status} {self.code}: {self.message}"


def code_for(status: int) -> str:
    """The code of an error that has only a status (a framework's 404, 405, ...)."""
    if status in _CODES:
        return _CODES[status]
    return HTTPStatus(status).phrase.lower().replace(" ", "_").replace("-", "_")


def phrase_for(status: int) -> str:
    """The message of an error that has only a status: its reason phrase."""
    return HTTPStatus(status).phrase


def error_body(code: str, message: str, **members: Any) -> dict[str, Any]:
    """The JSON document; `members` go beside code and message (`details=[...]`, what a
    validation error found field by field)."""
    return {"error": {"code": code, "message": message, **members}}
