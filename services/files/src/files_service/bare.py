"""The write-up's strategies with no production layer: `files_service.bare:app`.

The same functions as the service's (routes/strategies.py) on a FastAPI app with nothing
else: no auth, no header or body limits, no request ids, metrics or access log, FastAPI's
own error handlers; and the probes, after them. A benchmark row of it beside the
service's on the same server is what those layers cost a request (the bare rows of
loadtests/families/files.toml). Only the uploads answer here: the downloads need an object
stored through POST /files first.
"""

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from files_service.routes import health, strategies
from files_service.settings import Settings
from files_service.store.storage import ObjectStore
from servicekit.fastapi_app import NO_FASTAPI_TELEMETRY

settings = Settings()
store = ObjectStore(settings.storage_dir, chunk_size=settings.chunk_size, fsync=settings.fsync)


@asynccontextmanager
async def _lifespan(_: FastAPI) -> AsyncIterator[None]:
    store.prepare()
    yield


app = FastAPI(
    lifespan=_lifespan,
    telemetry=NO_FASTAPI_TELEMETRY,
    openapi_url=None,
    docs_url=None,
    redoc_url=None,
)
app.state.store = store
app.include_router(strategies.router)
app.include_router(strategies.multipart_router)
app.include_router(health.router(store))
