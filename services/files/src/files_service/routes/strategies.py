"""The write-up's thirteen upload/download strategies, each doing what its path names.

These exist to be benchmarked against each other, so each keeps its own way of
reading and writing (async or sync, stream or whole, memory or disk). Unlike the
write-up, every upload writes a scratch file of its own under tmp/ (concurrent
uploads never share a path) and removes it once the answer is computed, and every
upload answers the size and SHA-256 of the bytes it received. Raw bodies arrive in
pieces of up to 64 KiB, so their files are written through a CHUNK_SIZE buffer.
"""

import io
import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Annotated, Any

import aiofiles
import pybase64
from fastapi import APIRouter, Depends, File, Query, Request, UploadFile
from starlette.responses import FileResponse, JSONResponse, Response, StreamingResponse
from starlette.types import Receive, Scope, Send

from files_service.deps import find_object, store_of
from files_service.openapi import UPLOAD_ERRORS, errors, file_body
from files_service.store.checksums import Sha256Counter
from files_service.store.storage import ObjectMeta
from files_service.transfer.bodies import MULTIPART_FORM_DATA, require_media_type
from servicekit.errors import ApiError
from servicekit.openapi import BINARY_STRING, base64_json

router = APIRouter(prefix="/files", tags=["strategies"])
_DOWNLOAD = {200: file_body("The whole file, whatever Range asks."), **errors(404, 422)}
# An empty body is an empty file: the body is not required.
_RAW_BODY = {
    "requestBody": {
        "required": False,
        "content": {"application/octet-stream": {"schema": BINARY_STRING}},
    }
}
_BASE64_BODY = {
    "requestBody": {
        "required": True,
        "content": base64_json({"filename": {"type": ["string", "null"]}}),
    }
}


async def _multipart_only(request: Request) -> None:
    await require_media_type(request, MULTIPART_FORM_DATA)


# The UploadFile endpoints share a router whose dependency answers 415 to any other body.
multipart_router = APIRouter(
    prefix="/files",
    tags=["strategies"],
    dependencies=[Depends(_multipart_only)],
    responses={**UPLOAD_ERRORS, **errors(415)},
)

UploadedFile = Annotated[UploadFile, File(description="The file, as field `file`.")]
ObjectIdQuery = Annotated[str, Query(alias="id", description="An id returned by POST /files.")]


# Raw body uploads ---------------------------------------------------------------------------


@router.post(
    "/upload/stream/async_read_and_memory_write", responses=UPLOAD_ERRORS, openapi_extra=_RAW_BODY
)
async def async_read_and_memory_write(request: Request) -> JSONResponse:
    """`async for` over the raw body into an in-memory buffer."""
    received = Sha256Counter()
    buffer = io.BytesIO()
    async for chunk in request.stream():
        buffer.write(chunk)
        received.update(chunk)
    return JSONResponse(received.summary())


@router.post(
    "/upload/stream/async_read_and_disk_write", responses=UPLOAD_ERRORS, openapi_extra=_RAW_BODY
)
async def async_read_and_disk_write(request: Request) -> JSONResponse:
    """`async for` over the raw body, each chunk written to disk synchronously."""
    store = store_of(request)
    received = Sha256Counter()
    with store.scratch() as path, path.open("wb", buffering=store.chunk_size) as file:
        async for chunk in request.stream():
            file.write(chunk)
            received.update(chunk)
    return JSONResponse(received.summary())


@router.post(
    "/upload/stream/async_read_and_async_write", responses=UPLOAD_ERRORS, openapi_extra=_RAW_BODY
)
async def async_read_and_async_write(request: Request) -> JSONResponse:
    """`async for` over the raw body, each chunk written with aiofiles."""
    store = store_of(request)
    received = Sha256Counter()
    with store.scratch() as path:
        async with aiofiles.open(path, "wb", buffering=store.chunk_size) as file:
            async for chunk in request.stream():
                await file.write(chunk)
                received.update(chunk)
    return JSONResponse(received.summary())


# multipart/form-data uploads through FastAPI's UploadFile --------------------------------------


@multipart_router.post("/upload/single")
async def single(request: Request, file: UploadedFile) -> JSONResponse:
    """The whole file with `await file.read()`, written with aiofiles."""
    store = store_of(request)
    received = Sha256Counter()
    data = await file.read()
    with store.scratch() as path:
        async with aiofiles.open(path, "wb") as out:
            await out.write(data)
            received.update(data)
    return JSONResponse(received.summary())


@multipart_router.post("/upload/single/sync")
def single_sync(request: Request, file: UploadedFile) -> JSONResponse:
    """A `def` endpoint (run in the threadpool): the whole file read and written synchronously."""
    store = store_of(request)
    received = Sha256Counter()
    data = file.file.read()
    with store.scratch() as path, path.open("wb") as out:
        out.write(data)
        received.update(data)
    return JSONResponse(received.summary())


@multipart_router.post("/upload/single/stream")
async def single_stream(request: Request, file: UploadedFile) -> JSONResponse:
    """`await file.read(CHUNK_SIZE)` in a loop, each chunk written with aiofiles."""
    store = store_of(request)
    received = Sha256Counter()
    with store.scratch() as path:
        async with aiofiles.open(path, "wb") as out:
            while chunk := await file.read(store.chunk_size):
                await out.write(chunk)
                received.update(chunk)
    return JSONResponse(received.summary())


@multipart_router.post("/upload/single/stream/async_read_sync_write")
async def single_stream_async_read_sync_write(request: Request, file: UploadedFile) -> JSONResponse:
    """`await file.read(CHUNK_SIZE)` in a loop, each chunk written synchronously."""
    store = store_of(request)
    received = Sha256Counter()
    with store.scratch() as path, path.open("wb") as out:
        while chunk := await file.read(store.chunk_size):
            out.write(chunk)
            received.update(chunk)
    return JSONResponse(received.summary())


@multipart_router.post("/upload/single/stream/sync_read_sync_write")
async def single_stream_sync_read_sync_write(request: Request, file: UploadedFile) -> JSONResponse:
    """`file.file.read(CHUNK_SIZE)` on the spooled file, each chunk written synchronously."""
    store = store_of(request)
    received = Sha256Counter()
    with store.scratch() as path, path.open("wb") as out:
        while chunk := file.file.read(store.chunk_size):
            out.write(chunk)
            received.update(chunk)
    return JSONResponse(received.summary())


# JSON with the file as base64 ----------------------------------------------------------------


@router.post(
    "/upload/raw/json/base64decode",
    responses={**UPLOAD_ERRORS, **errors(415)},
    openapi_extra=_BASE64_BODY,
)
async def base64decode(request: Request) -> JSONResponse:
    """`{"base64": "...", "filename": "optional"}`: strict base64 decode, one synchronous write.

    The body is read and parsed as plain JSON, no model: it can be as big as the file.
    pybase64 decodes with SIMD, some 50x faster than the standard library's binascii.
    """
    store = store_of(request)
    await require_media_type(request, "application/json")
    data = _decode_base64_document(await request.body())
    received = Sha256Counter()
    with store.scratch() as path, path.open("wb") as out:
        out.write(data)
        received.update(data)
    return JSONResponse(received.summary())


def _decode_base64_document(body: bytes) -> bytes:
    try:
        document: Any = json.loads(body)
    except ValueError as exc:
        raise ApiError(400, "bad_json", f"body is not valid JSON: {exc}") from None
    if not isinstance(document, dict) or not isinstance(document.get("base64"), str):
        raise ApiError(400, "bad_json", 'expected a JSON object with a "base64" string')
    if not isinstance(document.get("filename", ""), str | None):
        raise ApiError(400, "bad_json", '"filename" must be a string')
    try:
        return pybase64.b64decode(document["base64"], validate=True)
    except ValueError as exc:
        raise ApiError(400, "bad_base64", f"invalid base64: {exc}") from None


# Downloads of a stored object ----------------------------------------------------------------


class WholeFileResponse(FileResponse):
    """A FileResponse that sends the whole file whatever Range asks (a server may ignore
    Range): these strategies measure whole downloads, and FileResponse would answer a
    malformed or unsatisfiable Range in plain text. GET /files/{id} answers ranges."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = [(name, value) for name, value in scope["headers"] if name != b"range"]
        await super().__call__({**scope, "headers": headers}, receive, send)


@router.get("/download/stream/sync_read", response_class=Response, responses=_DOWNLOAD)
async def download_stream_sync_read(
    request: Request, object_id: ObjectIdQuery
) -> StreamingResponse:
    """StreamingResponse over a sync generator (Starlette runs each step in a thread)."""
    store = store_of(request)
    meta = find_object(store, object_id)
    chunks = _read_chunks(Path(store.blob_path(meta)), store.chunk_size)
    return StreamingResponse(chunks, headers=_download_headers(meta))


@router.get("/download/stream/async_read", response_class=Response, responses=_DOWNLOAD)
async def download_stream_async_read(
    request: Request, object_id: ObjectIdQuery
) -> StreamingResponse:
    """StreamingResponse over an async generator reading with aiofiles."""
    store = store_of(request)
    meta = find_object(store, object_id)
    chunks = _aread_chunks(Path(store.blob_path(meta)), store.chunk_size)
    return StreamingResponse(chunks, headers=_download_headers(meta))


@router.get("/download/file", response_class=Response, responses=_DOWNLOAD)
async def download_file(request: Request, object_id: ObjectIdQuery) -> WholeFileResponse:
    """An `async def` returning a plain FileResponse (Starlette's default chunk size)."""
    store = store_of(request)
    meta = find_object(store, object_id)
    return WholeFileResponse(store.blob_path(meta), headers=_download_headers(meta))


@router.get("/download/file/sync", response_class=Response, responses=_DOWNLOAD)
def download_file_sync(request: Request, object_id: ObjectIdQuery) -> WholeFileResponse:
    """A `def` endpoint (run in the threadpool) returning a plain FileResponse."""
    store = store_of(request)
    meta = find_object(store, object_id)
    return WholeFileResponse(store.blob_path(meta), headers=_download_headers(meta))


def _download_headers(meta: ObjectMeta) -> dict[str, str]:
    return {"Content-Type": meta.content_type, "Content-Length": str(meta.size)}


def _read_chunks(path: Path, chunk_size: int) -> Iterator[bytes]:
    with path.open("rb") as file:
        while chunk := file.read(chunk_size):
            yield chunk


async def _aread_chunks(path: Path, chunk_size: int) -> AsyncIterator[bytes]:
    async with aiofiles.open(path, "rb") as file:
        while chunk := await file.read(chunk_size):
            yield chunk
