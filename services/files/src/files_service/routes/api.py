"""The production file API: create, list, download (ranges, conditional), delete."""

from typing import Annotated

from fastapi import APIRouter, Query, Request
from starlette.responses import JSONResponse, Response

from files_service.deps import settings_of, store_of
from files_service.openapi import FILE_ANSWERS, UPLOAD_ERRORS, WRITE_ERRORS, errors
from files_service.routes.download import download
from files_service.routes.upload import store_upload
from files_service.store.ids import OBJECT_ID_PATTERN
from files_service.transfer.uploads import MAX_FILENAME_PARAMETER
from servicekit.errors import ApiError
from servicekit.openapi import BINARY_STRING, multipart_file

router = APIRouter(prefix="/files", tags=["files"])


# An empty body is an empty file: the body is not required.
_UPLOAD_BODY = {
    "required": False,
    "content": {
        "application/octet-stream": {"schema": BINARY_STRING},
        **multipart_file(),
    },
}


@router.post(
    "",
    status_code=201,
    responses={**UPLOAD_ERRORS, **errors(414, 415)},
    openapi_extra={"requestBody": _UPLOAD_BODY},
)
async def create_object(
    request: Request,
    filename: Annotated[str | None, Query(max_length=MAX_FILENAME_PARAMETER)] = None,
) -> JSONResponse:
    """Upload a file as the raw body (name from ?filename= or X-Filename) or as the
    `file` field of a multipart/form-data body."""
    # In the app, upload.Uploads answers this before the router is reached: this route is
    # what the OpenAPI schema describes, and answers the same where it is reached.
    return await store_upload(request, store_of(request), filename)


@router.get("")
def list_objects(
    request: Request,
    limit: Annotated[int, Query(ge=1)] = 100,
    after: Annotated[str | None, Query(pattern=OBJECT_ID_PATTERN)] = None,
) -> JSONResponse:
    """Objects oldest first, at most LIST_PAGE_MAX a page whatever `limit` asks for;
    pass `next` back as `after` for the following page."""
    page_max = settings_of(request).list_page_max
    items, next_cursor = store_of(request).list(after=after, limit=min(limit, page_max))
    return JSONResponse({"items": [meta.to_json() for meta in items], "next": next_cursor})


@router.get(
    "/{object_id}", operation_id="get_object", response_class=Response, responses=FILE_ANSWERS
)
@router.head(
    "/{object_id}", operation_id="head_object", response_class=Response, responses=FILE_ANSWERS
)
async def get_object(request: Request, object_id: str) -> Response:
    """The file, with Range (206/416), ETag/Last-Modified validators (304) and HEAD."""
    # In the app, download.Downloads answers these before the router is reached: this route
    # is what the OpenAPI schema describes, and answers the same where it is reached.
    return await download(
        request.method, request.scope["headers"], object_id, store_of(request), settings_of(request)
    )


@router.delete("/{object_id}", status_code=204, responses={**WRITE_ERRORS, **errors(404)})
def delete_object(request: Request, object_id: str) -> Response:
    if not store_of(request).delete(object_id):
        raise ApiError(404, "not_found", "object not found")
    return Response(status_code=204)
