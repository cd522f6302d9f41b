"""The ASGI app: `health_code_service.main:app`, built by create_app() from the environment.

The engine loads in the lifespan, so a server only listens (and passes its healthcheck)
once it can analyze; the mode's threads and processes stop with the server.
"""

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from anyio import to_thread
from fastapi import FastAPI

from health_code_service.errors import install_error_handlers
from health_code_service.modes import start_mode
from health_code_service.routes import analysis_router, router
from health_code_service.settings import Settings
from servicekit.header_limit import HeaderLimit
from servicekit.observe.asgi import ObserveMiddleware


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or Settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        app.state.mode = await to_thread.run_sync(start_mode, settings)
        try:
            yield
        finally:
            await to_thread.run_sync(app.state.mode.close)

    app = FastAPI(
        title="servelab health-code",
        summary="Health code, trip code and nucleic-acid results read from images.",
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.add_middleware(HeaderLimit)
    app.add_middleware(ObserveMiddleware)
    install_error_handlers(app)
    app.include_router(router)
    app.include_router(analysis_router(settings.analyze_mode))
    return app


app = create_app()
