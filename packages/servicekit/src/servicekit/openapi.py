"""What FastAPI services write into their OpenAPI schemas alike: the error answers a route
may give, and the request bodies two services take (base64 in JSON, a multipart file).
Needs the `fastapi` extra.
"""

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel


class ErrorDetail(BaseModel):
    code: str
    message: str


class ErrorBody(BaseModel):
    """The error shape, for OpenAPI schemas: `responses=error_responses({404: "..."})`."""

    error: ErrorDetail


# A JSON string of standard base64 (RFC 4648, padded), as the services decode it:
# `contentEncoding` alone tells a validator or a fuzzer nothing.
BASE64_STRING: dict[str, Any] = {
    "type": "string",
    "contentEncoding": "base64",
    "pattern": "^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$",
}
BINARY_STRING: dict[str, Any] = {"type": "string", "format": "binary"}


def error_responses(meanings: Mapping[int, str]) -> dict[int | str, dict[str, Any]]:
    """A route's `responses=` for the error answers it may give, each with its meaning."""
    return {status: {"model": ErrorBody, "description": text} for status, text in meanings.items()}


def base64_json(properties: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """A request body's `content` entry for {"base64": "..."} in JSON, with `properties`
    beside it."""
    return {
        "application/json": {
            "schema": {
                "type": "object",
                "required": ["base64"],
                "properties": {"base64": BASE64_STRING, **(properties or {})},
            }
        }
    }


def multipart_file() -> dict[str, Any]:
    """A request body's `content` entry for a multipart form whose field `file` is the file."""
    return {
        "multipart/form-data": {
            "schema": {
                "type": "object",
                "required": ["file"],
                "properties": {"file": BINARY_STRING},
            }
        }
    }
