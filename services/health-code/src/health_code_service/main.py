"""The ASGI app: `health_code_service.main:app`, built by create_app() from the environment.

The engine loads in the lifespan, so a server only listens (and passes its healthcheck)
once it can analyze; the mode's threads and processes stop with the server.
"""

from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager

from anyio import to_thread
from fastapi import FastAPI

from health_code_service.routes import analysis_router
from health_code_service.serving.modes import start_mode
from health_code_service.settings import Settings
from servicekit.fastapi_app import service_app
from servicekit.health.fastapi import health_router


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or Settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        app.state.mode = await to_thread.run_sync(start_mode, settings)
        try:
            yield
        finally:
            await to_thread.run_sync(app.state.mode.close)

    def facts() -> Mapping[str, object]:
        return {
            "mode": settings.analyze_mode,
            "engine": settings.ocr_engine,
            "device": settings.ocr_device,
        }

    app = service_app(
        title="servelab health-code",
        summary="Health code, trip code and nucleic-acid results read from images.",
        settings=settings,
        lifespan=lifespan,
    )
    # The lifespan loads the engine before the server listens and an engine that fails to
    # load stops the worker, so a server that answers is ready; the compose healthcheck
    # and a Kubernetes readiness probe ask /readyz all the same, as for every service.
    app.include_router(health_router(facts))
    app.include_router(analysis_router(settings.analyze_mode))
    return app


app = create_app()
