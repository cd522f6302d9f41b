"""The ASGI app: `hello_service.asgi:app`, FastAPI answering GET /hello with the same bytes."""

from fastapi import FastAPI, Response

from hello_service.body import BODY, CONTENT_TYPE

app = FastAPI(title="servelab hello", openapi_url=None, docs_url=None, redoc_url=None)


@app.get("/hello", response_class=Response)
async def hello() -> Response:
    return Response(BODY, media_type=CONTENT_TYPE)
