"""The interactive API docs, served by the service itself: Swagger UI at /docs, ReDoc at
/redoc, and every file the two pages load at /docs/static/. Needs the `fastapi` extra.

FastAPI's own pages load Swagger UI and ReDoc from a public CDN and ReDoc's fonts from
Google, so on a machine without internet access they stay blank. The builds here are those
the `fastapi-offline` package ships (its static/ folder; uv.lock pins the version), answered
from that folder.

The pages are written here rather than by FastAPI's get_swagger_ui_html and get_redoc_html,
for the Content-Security-Policy nginx adds to every answer
(deploy/nginx/include/security-headers.inc), which runs a page's scripts from its own origin
only: Swagger UI starts from a file of its own (swagger-ui-init.js, beside this module), not
an inline script, and ReDoc's search is off, as ReDoc runs it in a worker made from a blob:
URL, which the policy refuses (without search it makes none). ReDoc's side menu always
shows Redocly's logo from Redocly's CDN: its bundle is served with that image's address
emptied, so the browser fetches nothing and ReDoc hides the image (its link stays).

    app = FastAPI(docs_url=None, redoc_url=None)
    install_docs(app)
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from html import escape
from importlib.resources import files
from pathlib import Path

from fastapi import APIRouter, FastAPI, Request, Response
from fastapi.responses import FileResponse, HTMLResponse

from servicekit.errors import ApiError

DOCS_PATH = "/docs"
REDOC_PATH = "/redoc"
STATIC_PATH = "/docs/static"

_JAVASCRIPT = "text/javascript"
_CSS = "text/css"
_PNG = "image/png"
# Browsers ask again each time and get a 304 while the file is the same (an upgrade of
# fastapi-offline changes the files under the same names).
_CACHE_CONTROL = "no-cache"


# The logo ReDoc's bundle renders in an <img> of its side menu, from Redocly's CDN.
_REDOC_LOGO = (b'src:"https://cdn.redoc.ly/redoc/logo-mini.svg"', b'src:""')


@dataclass(frozen=True)
class Asset:
    """A file under /docs/static/: answered from disk, or from `body` where the vendor's
    file is served changed, with `etag`, the hash of that body, made once."""

    path: Path
    media_type: str
    stat: os.stat_result
    body: bytes | None = None
    etag: str = ""

    def content(self) -> bytes:
        """What a GET answers."""
        return self.path.read_bytes() if self.body is None else self.body


def _changed(path: Path, old: bytes, new: bytes) -> bytes:
    """The file's bytes with `old` replaced; a vendor file without `old` fails here."""
    data = path.read_bytes()
    if old not in data:
        raise RuntimeError(f"{path} no longer holds {old!r}: check what its pages load")
    return data.replace(old, new)


def asset_table() -> dict[str, Asset]:
    """Every file the two pages load, by its name under /docs/static/; a file missing from
    the installed packages fails here, when the app is made, not when a browser asks."""
    vendor = Path(str(files("fastapi_offline") / "static"))
    own = Path(__file__).parent
    paths = {
        "swagger-ui-bundle.js": (vendor / "swagger-ui-bundle.js", _JAVASCRIPT),
        "swagger-ui.css": (vendor / "swagger-ui.css", _CSS),
        "swagger-ui-init.js": (own / "swagger-ui-init.js", _JAVASCRIPT),
        "redoc.standalone.js": (vendor / "redoc.standalone.js", _JAVASCRIPT),
        "favicon.png": (vendor / "favicon.png", _PNG),
    }
    table = {name: Asset(path, kind, path.stat()) for name, (path, kind) in paths.items()}
    redoc = table["redoc.standalone.js"]
    body = _changed(redoc.path, *_REDOC_LOGO)
    etag = f'"{hashlib.sha256(body).hexdigest()[:32]}"'
    table["redoc.standalone.js"] = Asset(redoc.path, redoc.media_type, redoc.stat, body, etag)
    return table


def _page(title: str, static: str, head: str, body: str) -> HTMLResponse:
    """An HTML page with the docs' favicon from `static` (already escaped), `head` and
    `body` in it."""
    return HTMLResponse(
        f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(title)}</title>
<link rel="icon" type="image/png" href="{static}/favicon.png">
{head}
</head>
<body>
{body}
</body>
</html>
"""
    )


def swagger_ui_html(*, title: str, openapi_url: str, static_url: str) -> HTMLResponse:
    """Swagger UI's page: the files under `static_url`, the document at `openapi_url`
    (which swagger-ui-init.js reads from the page)."""
    static = escape(static_url)
    return _page(
        title,
        static,
        f'<link rel="stylesheet" href="{static}/swagger-ui.css">',
        f'<div id="swagger-ui" data-openapi-url="{escape(openapi_url)}"></div>\n'
        f'<script src="{static}/swagger-ui-bundle.js"></script>\n'
        f'<script src="{static}/swagger-ui-init.js"></script>',
    )


def redoc_html(*, title: str, openapi_url: str, static_url: str) -> HTMLResponse:
    """ReDoc's page: FastAPI's, with its search off and without Google's fonts."""
    static = escape(static_url)
    return _page(
        title,
        static,
        "<style>body { margin: 0; padding: 0; }</style>",
        f'<redoc spec-url="{escape(openapi_url)}" disable-search></redoc>\n'
        f'<script src="{static}/redoc.standalone.js"></script>',
    )


def install_docs(app: FastAPI) -> None:
    """GET /docs, /redoc and /docs/static/{name} on `app` (an app made with docs_url=None
    and redoc_url=None, whose openapi_url is set), none of them in its OpenAPI document.
    The pages' URLs start with the request's root_path, as FastAPI's own do."""
    openapi_url = app.openapi_url
    if openapi_url is None:
        raise ValueError("install_docs needs an app that serves its OpenAPI document")
    assets = asset_table()
    router = APIRouter(include_in_schema=False)

    @router.get(DOCS_PATH)
    async def swagger_ui(request: Request) -> HTMLResponse:
        root = request.scope.get("root_path", "")
        return swagger_ui_html(
            title=f"{app.title} - Swagger UI",
            openapi_url=root + openapi_url,
            static_url=root + STATIC_PATH,
        )

    @router.get(REDOC_PATH)
    async def redoc(request: Request) -> HTMLResponse:
        root = request.scope.get("root_path", "")
        return redoc_html(
            title=f"{app.title} - ReDoc",
            openapi_url=root + openapi_url,
            static_url=root + STATIC_PATH,
        )

    @router.get(STATIC_PATH + "/{name}")
    async def static_file(name: str, request: Request) -> Response:
        asset = assets.get(name)
        if asset is None:
            raise ApiError(404, "not_found", f"no such file: {STATIC_PATH}/{name}")
        answer = _answer(asset)
        etag = answer.headers["etag"]
        if etag in _tags(request.headers.get("if-none-match", "")):
            return Response(
                status_code=304, headers={"ETag": etag, "Cache-Control": _CACHE_CONTROL}
            )
        return answer

    app.include_router(router)


def _answer(asset: Asset) -> Response:
    """The file with its ETag: FileResponse's from disk, the asset's own for a changed body."""
    if asset.body is None:
        return FileResponse(
            asset.path,
            media_type=asset.media_type,
            stat_result=asset.stat,
            headers={"Cache-Control": _CACHE_CONTROL},
        )
    return Response(
        asset.body,
        media_type=asset.media_type,
        headers={"ETag": asset.etag, "Cache-Control": _CACHE_CONTROL},
    )


def _tags(if_none_match: str) -> set[str]:
    """The entity tags an If-None-Match names, weak ones as strong (RFC 9110, 13.1.2)."""
    return {tag.strip().removeprefix("W/") for tag in if_none_match.split(",") if tag.strip()}
