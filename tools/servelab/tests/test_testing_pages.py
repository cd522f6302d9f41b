"""servelab.testing.pages: what a page names on other hosts, and what it loads that its own
host does not serve as it should, wherever the page names it."""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.testclient import TestClient

from servelab.testing.pages import page_problems, references

FILES = {
    "/app.js": ("text/javascript", "let x = 1;"),
    "/app.css": (
        "text/css",
        "@import url('/more.css'); b { background: url('img/dot.png?v=1#x'); }",
    ),
    "/more.css": ("text/css", "i { background: url(https://fonts.example/f.woff2); }"),
    "/img/dot.png": ("image/png", "png"),
    "/spec.json": ("text/plain", "{}"),
}
PAGE = """<!DOCTYPE html>
<html><head>
<link rel="stylesheet" href="/app.css">
<link rel="shortcut icon" href="/missing.ico">
<style>body { background: url("//cdn.example/bg.png"); }</style>
</head><body style="color: red">
<a href="https://elsewhere.example/about">about</a> <a href="/no-such-page">here</a>
<img src="data:image/png;base64,AAAA">
<div data-openapi-url="/spec.json"></div>
<script src="/app.js"></script>
<script>
  // a comment is no URL
  const fonts = "https://fonts.googleapis.com/css";
  const self = "/api/";
</script>
</body></html>"""


async def _serve(request: Request) -> Response:
    if request.url.path == "/page":
        return Response(PAGE, media_type="text/html")
    if request.url.path not in FILES:
        return Response("no", status_code=404)
    media_type, body = FILES[request.url.path]
    return Response(body, media_type=media_type)


def test_every_outside_url_and_every_file_served_wrong_is_named() -> None:
    client = TestClient(Starlette(routes=[Route("/{path:path}", _serve)]))
    assert sorted(page_problems(client, "/page")) == sorted(
        [
            "/page: <link href> /missing.ico: answered 404",
            "/page: <style> //cdn.example/bg.png is on another host",
            "/page: <a href> https://elsewhere.example/about is on another host",
            "/page: <div data-openapi-url> /spec.json: served as text/plain, not "
            "application/json or application/vnd.oai.openapi or application/yaml",
            "/page: inline <script> https://fonts.googleapis.com/css is on another host",
            "/more.css: url() in a stylesheet https://fonts.example/f.woff2 is on another host",
        ]
    )


def test_a_page_that_is_not_html_is_one_problem() -> None:
    client = TestClient(Starlette(routes=[Route("/{path:path}", _serve)]))
    assert page_problems(client, "/app.js") == ["/app.js: served as text/javascript, not text/html"]


def test_what_a_page_names_and_how() -> None:
    named = {(ref.url, ref.kind) for ref in references(PAGE)}
    assert ("/app.css", "stylesheet") in named
    assert ("/missing.ico", "image") in named
    assert ("/app.js", "script") in named
    assert ("/spec.json", "document") in named
    assert ("/no-such-page", "navigation") in named
    assert not any(url.startswith("/api") for url, _ in named)
