"""The ASGI app: `files_service.main:app`, built by create_app() from the environment."""

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from starlette.middleware import Middleware

from files_service.errors import install_error_handlers
from files_service.routes import api, download, health, strategies, upload
from files_service.settings import Settings
from files_service.store.storage import ObjectStore
from servicekit.auth import BearerPolicy, read_token
from servicekit.fastapi_app import service_app


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or Settings()
    store = ObjectStore(settings.storage_dir, chunk_size=settings.chunk_size, fsync=settings.fsync)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        store.prepare()
        yield

    token = read_token(settings.api_token, settings.api_token_file)
    app = service_app(
        title="servelab files",
        summary="File upload/download strategies to benchmark, and a production file API.",
        settings=settings,
        lifespan=lifespan,
        # A refused write is answered before its body is read.
        auth=BearerPolicy(token, settings.api_auth_reads),
        max_body_size=settings.max_upload_size,
        install_errors=install_error_handlers,
        # Downloads and uploads in plain ASGI, inside every layer (routes/download.py,
        # routes/upload.py).
        inner=[
            Middleware(download.Downloads, store=store, settings=settings),
            Middleware(upload.Uploads, store=store),
        ],
    )
    app.state.store = store
    app.include_router(health.router(store))
    # The production API before the write-up's strategies: the router tries routes in
    # order, and no strategy path is one a /files route would take.
    app.include_router(api.router)
    app.include_router(strategies.router)
    app.include_router(strategies.multipart_router)
    return app


app = create_app()
