"""What the OpenAPI schema (/openapi.json) says each operation may answer besides its
success: the error answers in the one error shape, and file bodies as the bytes they are.
A client generator or an API fuzzer (`servelab fuzz files`) reads these."""

from typing import Any

from servicekit.openapi import BINARY_STRING, error_responses

_MEANINGS = {
    400: "The request or its body is malformed (multipart, JSON, base64).",
    401: "No bearer token, or a wrong one (WWW-Authenticate: Bearer).",
    403: "This server has no API token configured: writes are closed.",
    404: "No such object.",
    413: "The body is larger than MAX_UPLOAD_SIZE.",
    414: "The request line is longer than the server in front accepts.",
    415: "The body is not of the media type the operation reads.",
    416: "No range of the Range header overlaps the file (Content-Range: bytes */size).",
    422: "A parameter is invalid (`details` names each).",
    507: "No space left to store the upload.",
}

Responses = dict[int | str, dict[str, Any]]


def errors(*statuses: int) -> Responses:
    """The error answers an operation may give, in the one error shape."""
    return error_responses({status: _MEANINGS[status] for status in statuses})


def file_body(description: str) -> dict[str, Any]:
    """A response whose body is the stored bytes, of the type they were stored with."""
    return {
        "description": description,
        "content": {"*/*": {"schema": BINARY_STRING}},
    }


# What any write may answer, and what any upload may answer besides.
WRITE_ERRORS = errors(401, 403)
UPLOAD_ERRORS = errors(400, 401, 403, 413, 507)
FILE_ANSWERS: Responses = {
    200: file_body("The whole file."),
    206: file_body("The ranges asked for (several: multipart/byteranges)."),
    304: {"description": "Not modified since the validators given."},
    **errors(404, 416),
}
