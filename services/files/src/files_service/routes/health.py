"""Liveness and readiness probes."""

from fastapi import APIRouter, Request
from starlette.responses import JSONResponse

from files_service.deps import store_of
from servicekit.errors import ApiError

router = APIRouter(tags=["health"])


@router.get("/healthz")
async def healthz() -> JSONResponse:
    """The process answers."""
    return JSONResponse({"status": "ok"})


@router.get("/readyz")
def readyz(request: Request) -> JSONResponse:
    """The storage directory takes writes (a `def`, so a stuck disk cannot stall the loop)."""
    if not store_of(request).is_writable():
        raise ApiError(503, "storage_unavailable", "storage directory is not writable")
    return JSONResponse({"status": "ready"})
