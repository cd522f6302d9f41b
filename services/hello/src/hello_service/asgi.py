"""The ASGI app: `hello_service.asgi:app`, FastAPI answering GET /hello with the same bytes,
and the probes."""

from fastapi import FastAPI, Response

from hello_service.body import BODY, CONTENT_TYPE
from hello_service.health import ALIVE, HEALTHZ, READY, READYZ
from servicekit.fastapi import install_error_handlers
from servicekit.header_limit import HeaderLimit
from servicekit.observe.asgi import ObserveMiddleware

app = FastAPI(title="servelab hello", openapi_url=None, docs_url=None, redoc_url=None)
app.add_middleware(HeaderLimit)
app.add_middleware(ObserveMiddleware)
install_error_handlers(app)


@app.get("/hello", response_class=Response)
async def hello() -> Response:
    return Response(BODY, media_type=CONTENT_TYPE)


@app.get(HEALTHZ)
async def healthz() -> dict[str, str]:
    return ALIVE


@app.get(READYZ)
async def readyz() -> dict[str, str]:
    return READY
