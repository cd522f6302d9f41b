"""The ASGI app: `wait_service.main:app`, built by create_app() from the environment.

GET /sync runs in the thread pool (a `def` endpoint), GET /async on the event loop.
Both answer {"wait": seconds spent}; GET /healthz and /readyz report the settings in
force, and every error answers {"error": {"code", "message"}}.
"""

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from servicekit.fastapi import install_error_handlers
from servicekit.header_limit import HeaderLimit
from servicekit.observe.asgi import ObserveMiddleware
from wait_service.routes import router
from wait_service.settings import Settings
from wait_service.threadpool import set_threadpool_size


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or Settings()

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        set_threadpool_size(settings.threadpool_size)
        yield

    app = FastAPI(
        title="servelab wait",
        summary="Endpoints that wait or burn CPU: sync vs async under uvicorn and gunicorn.",
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.add_middleware(HeaderLimit)
    app.add_middleware(ObserveMiddleware)
    install_error_handlers(app)
    app.include_router(router)
    return app


app = create_app()
