"""The files service's errors: servicekit's handlers, plus the one failure of its own that
is no ApiError, a full disk, answered 507 wherever the upload was when it hit it."""

import errno

from fastapi import FastAPI, Request
from starlette.responses import Response

from servicekit.errors import ApiError
from servicekit.errors.fastapi import api_error_response
from servicekit.errors.fastapi import install_error_handlers as install_kit_handlers

DISK_FULL_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})


def disk_full(exc: OSError) -> ApiError | None:
    """The 507 a full disk is answered with, or None for any other OSError."""
    if exc.errno in DISK_FULL_ERRNOS:
        return ApiError(507, "insufficient_storage", "no space left to store the upload")
    return None


async def _os_error(_: Request, exc: Exception) -> Response:
    assert isinstance(exc, OSError)
    error = disk_full(exc)
    if error is None:
        raise exc
    return api_error_response(error)


def install_error_handlers(app: FastAPI) -> None:
    install_kit_handlers(app)
    app.add_exception_handler(OSError, _os_error)
