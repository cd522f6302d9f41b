"""The ASGI app: `hello_service.asgi:app`, FastAPI answering GET /hello with the same bytes,
and the probes.

A hello app has nothing to wait for, so both probes answer as soon as the process does.
Matching the benchmarked /hello costs what it did without them: Starlette tries routes in
order and /hello comes first.
"""

from fastapi import FastAPI, Response

from hello_service.body import BODY, CONTENT_TYPE
from servicekit.fastapi_app import NO_FASTAPI_TELEMETRY, install_service_layers
from servicekit.health.fastapi import health_router

app = FastAPI(
    title="servelab hello",
    openapi_url=None,
    docs_url=None,
    redoc_url=None,
    telemetry=NO_FASTAPI_TELEMETRY,
)
install_service_layers(app)


@app.get("/hello", response_class=Response)
async def hello() -> Response:
    return Response(BODY, media_type=CONTENT_TYPE)


app.include_router(health_router())
