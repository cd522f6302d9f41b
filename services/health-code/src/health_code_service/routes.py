"""The endpoints. POST /analysis/{usage} is registered in the shape ANALYZE_MODE names:
an `async def` that runs the engine on the event loop (async-blocking: the write-up's
code, which serves one request at a time per worker), a `def` that FastAPI runs in
anyio's thread pool (threadpool), or an `async def` that awaits a process pool or the
micro-batcher (process, batched). The body is read by async dependencies in every shape,
before the usage and the body are judged.
"""

from collections.abc import Callable
from typing import Annotated, Any, cast

from fastapi import APIRouter, Depends, Path, Request
from pydantic import BaseModel
from starlette.responses import JSONResponse, Response

from health_code_service import metrics
from health_code_service.bodies import MEDIA_TYPES, image_bytes, read_body
from health_code_service.errors import ApiError
from health_code_service.serving.modes import Batched, Inline, ProcessPool
from health_code_service.settings import Mode, Settings
from health_code_service.usages import Usage
from servicekit.fastapi_app import settings_dependency
from servicekit.openapi import BINARY_STRING, base64_json, error_responses, multipart_file

ANALYSIS_PATH = "/analysis/{usage}"
app_settings = settings_dependency(Settings)


async def get_body(request: Request) -> bytes:
    """The whole body, within MAX_BODY_BYTES (413 early), read before it is judged."""
    settings: Settings = request.app.state.settings
    return await read_body(request, settings.max_body_bytes)


BodyDep = Annotated[bytes, Depends(get_body)]


UsagePath = Annotated[
    str,
    Path(description="What the image shows.", json_schema_extra={"enum": [u.value for u in Usage]}),
]


async def get_usage(
    usage: UsagePath, _: BodyDep, settings: Annotated[Settings, Depends(app_settings)]
) -> Usage:
    """The usage named in the path; an unknown one is a 404 naming the known ones."""
    try:
        known_usage = Usage(usage)
    except ValueError:
        known = ", ".join(u.value for u in Usage)
        message = f"unknown usage {usage!r}: use one of {known}"
        raise ApiError(404, "unknown_usage", message) from None
    metrics.analysis(known_usage.value, settings.analyze_mode)
    return known_usage


async def get_image(
    request: Request, body: BodyDep, _: Annotated[Usage, Depends(get_usage)]
) -> bytes:
    return image_bytes(request.headers.get("content-type"), body)


async def get_inline(request: Request) -> Inline:
    return cast(Inline, request.app.state.mode)


async def get_pool(request: Request) -> ProcessPool:
    return cast(ProcessPool, request.app.state.mode)


async def get_batched(request: Request) -> Batched:
    return cast(Batched, request.app.state.mode)


UsageDep = Annotated[Usage, Depends(get_usage)]
ImageDep = Annotated[bytes, Depends(get_image)]


def answer(result: BaseModel) -> Response:
    return Response(result.model_dump_json(), media_type="application/json")


async def analyze_on_the_loop(
    usage: UsageDep, data: ImageDep, engine: Annotated[Inline, Depends(get_inline)]
) -> Response:
    """async-blocking: blocking work inside `async def` stalls every other request."""
    return answer(engine.analyze(usage, data))


def analyze_in_a_thread(
    usage: UsageDep, data: ImageDep, engine: Annotated[Inline, Depends(get_inline)]
) -> Response:
    """threadpool: a `def` endpoint, run by FastAPI in anyio's thread pool."""
    return answer(engine.analyze(usage, data))


async def analyze_in_a_process(
    usage: UsageDep, data: ImageDep, engine: Annotated[ProcessPool, Depends(get_pool)]
) -> Response:
    """process: the event loop waits while a pool process decodes and analyzes."""
    return answer(await engine.analyze(usage, data))


async def analyze_in_a_batch(
    usage: UsageDep, data: ImageDep, engine: Annotated[Batched, Depends(get_batched)]
) -> Response:
    """batched: the image joins a micro-batch; the engine thread runs one batch at a time."""
    return answer(await engine.analyze(usage, data))


ENDPOINTS: dict[str, Callable[..., Any]] = {
    "async-blocking": analyze_on_the_loop,
    "threadpool": analyze_in_a_thread,
    "process": analyze_in_a_process,
    "batched": analyze_in_a_batch,
    "shared-threadpool": analyze_in_a_thread,
}

_REQUEST_BODY = {
    "required": True,
    "content": {
        **base64_json(),
        **{
            media: {"schema": BINARY_STRING}
            for media in MEDIA_TYPES
            if media.startswith(("image/", "application/octet"))
        },
        **multipart_file(),
    },
}


_ERRORS = error_responses(
    {
        400: "The body is malformed (JSON, base64, multipart).",
        404: "No such usage.",
        413: "The body is over MAX_BODY_BYTES, or the image has too many pixels.",
        415: "The body is not an image this service reads.",
        422: "The image is truncated or corrupt, or a multipart body has no `file`.",
        503: "The engine cannot take the request now, or the images in flight fill the "
        "image budget (busy, with Retry-After).",
    }
)


def analysis_router(mode: Mode) -> APIRouter:
    """POST /analysis/{usage} in the shape of `mode`."""
    analysis = APIRouter(tags=["analysis"])
    analysis.add_api_route(
        ANALYSIS_PATH,
        ENDPOINTS[mode],
        methods=["POST"],
        summary="Read a health code, trip code or nucleic-acid result from an image",
        openapi_extra={"requestBody": _REQUEST_BODY},
        response_class=JSONResponse,
        responses=_ERRORS,
    )
    return analysis
