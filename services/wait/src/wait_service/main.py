"""The ASGI app: `wait_service.main:app`, built by create_app() from the environment.

GET /sync runs in the thread pool (a `def` endpoint), GET /async on the event loop.
Both answer {"wait": seconds spent}; GET /healthz and /readyz report the settings in
force, and every error answers {"error": {"code", "message"}}.
"""

from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager

from fastapi import FastAPI

from servicekit.fastapi_app import service_app
from servicekit.health.fastapi import health_router
from wait_service.routes import router
from wait_service.settings import Settings
from wait_service.threadpool import set_threadpool_size, threadpool_size


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or Settings()

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        set_threadpool_size(settings.threadpool_size)
        yield

    def facts() -> Mapping[str, object]:
        return {
            "model": settings.model,
            "waiting_time": settings.waiting_time,
            "threadpool_size": threadpool_size(),
        }

    app = service_app(
        title="servelab wait",
        summary="Endpoints that wait or burn CPU: sync vs async under uvicorn and gunicorn.",
        settings=settings,
        lifespan=lifespan,
    )
    app.include_router(router)
    # Ready as soon as it answers: the lifespan has sized the thread pool before the
    # server listens, and the service needs nothing else.
    app.include_router(health_router(facts))
    return app


app = create_app()
