"""Whether an HTML page a service serves works in a browser that reaches nothing but that
service (a machine without internet access): every URL the page names (`src=`, `href=`, an
attribute named like `spec-url`, `url(...)` in its styles, a URL in an inline script) is on
the page's own host, and every file the page loads (scripts, stylesheets, icons and images,
the documents its scripts read, and what its stylesheets load in turn) answers 200 with the
content type a browser takes for it."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from html.parser import HTMLParser
from typing import Protocol
from urllib.parse import urldefrag, urljoin, urlsplit

# What a browser sends when it opens a page.
BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"

# The content types a browser takes for each kind of file a page loads.
_TYPES: dict[str, tuple[str, ...]] = {
    "script": ("text/javascript", "application/javascript"),
    "stylesheet": ("text/css",),
    "image": ("image/",),
    "document": ("application/json", "application/vnd.oai.openapi", "application/yaml"),
}
# Loaded by a stylesheet (fonts, images): a 200 from the page's host is what matters, as
# servers name font types differently (nginx's mime.types has none for .ttf).
_RESOURCE = "resource"
# Named by the page but not loaded with it: a link, a form's target.
_NAVIGATION = "navigation"
# What a check fetches: a data: or blob: URL is part of the page already.
_FETCHED = {"http", "https"}
_ICON_RELS = {"icon", "shortcut", "apple-touch-icon", "mask-icon"}
_CSS_URL = re.compile(
    r"""@import\s+(?:url\(\s*)?(['"]?)(?P<imported>[^'")\s;]+)\1"""
    r"""|url\(\s*(['"]?)(?P<loaded>[^'")]+)\3\s*\)"""
)
# An absolute or scheme-relative URL in script text ('//' alone also starts a comment).
_SCRIPT_URL = re.compile(r"""https?://[^\s"'`<>)\\]+|(?<=["'`(])//[^\s"'`<>)\\]+""")


class Answer(Protocol):
    @property
    def status_code(self) -> int: ...
    @property
    def headers(self) -> Mapping[str, str]: ...
    @property
    def text(self) -> str: ...


class Client(Protocol):
    """A client with a base URL (httpx2.Client, Starlette's TestClient)."""

    @property
    def base_url(self) -> object: ...
    def get(self, url: str, *, headers: Mapping[str, str]) -> Answer: ...


@dataclass(frozen=True)
class Reference:
    url: str
    kind: str  # script, stylesheet, image, document, resource, navigation, inline script
    where: str  # how the page names it: <script src>, url(), ...


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[Reference] = []
        self._inline: str | None = None  # the tag whose text is being read (script, style)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        named = {name: value or "" for name, value in attrs}
        rel = set(named.get("rel", "").lower().split())
        for name, value in named.items():
            if name == "style":
                self.found += css_references(value, "style=")
                continue
            kind = _attribute_kind(tag, name, rel)
            if kind is not None and value.strip():
                self.found.append(Reference(value.strip(), kind, f"<{tag} {name}>"))
        if tag == "script" and "src" not in named:
            self._inline = "script"
        elif tag == "style":
            self._inline = "style"

    def handle_endtag(self, tag: str) -> None:
        if tag == self._inline:
            self._inline = None

    def handle_data(self, data: str) -> None:
        if self._inline == "style":
            self.found += css_references(data, "<style>")
        elif self._inline == "script":
            self.found += [
                Reference(url, _NAVIGATION, "inline <script>") for url in _SCRIPT_URL.findall(data)
            ]


def _attribute_kind(tag: str, name: str, rel: set[str]) -> str | None:
    if name == "src":
        return "script" if tag == "script" else "image"
    if name == "srcset":
        return "image"
    if name == "href" and tag == "link":
        if "stylesheet" in rel:
            return "stylesheet"
        return "image" if rel & _ICON_RELS else _NAVIGATION
    if name in {"href", "action", "formaction"}:
        return _NAVIGATION
    # The document a page's script loads: ReDoc's spec-url, a data-openapi-url.
    if name.endswith("url"):
        return "document"
    return None


def css_references(css: str, where: str) -> list[Reference]:
    """Every url(...) and @import of `css`: what they load (an @import, a stylesheet)."""
    found = []
    for match in _CSS_URL.finditer(css):
        if match["imported"]:
            found.append(Reference(match["imported"], "stylesheet", where))
        elif not match["loaded"].startswith("data:"):
            found.append(Reference(match["loaded"].strip(), _RESOURCE, where))
    return found


def references(html: str) -> list[Reference]:
    """Every URL `html` names, with what a browser does with it."""
    collector = _Collector()
    collector.feed(html)
    collector.close()
    return collector.found


def elsewhere(url: str, page: str) -> bool:
    """Whether `url`, named on the page at the absolute URL `page`, is on another host (a
    data:, blob: or javascript: URL is on none)."""
    target = urlsplit(urljoin(page, url))
    return target.scheme in {"http", "https", ""} and target.netloc != urlsplit(page).netloc


def page_problems(client: Client, path: str) -> list[str]:
    """What keeps the HTML page at `path` on `client`'s host from working with nothing else
    reachable; empty when nothing does."""
    page_url = urljoin(str(client.base_url), path)
    answer = client.get(path, headers={"Accept": BROWSER_ACCEPT})
    problem = _wrong_answer(answer, ("text/html",))
    if problem:
        return [f"{path}: {problem}"]
    problems: list[str] = []
    loaded: set[str] = set()
    for ref in references(answer.text):
        problems += _check(client, ref, page_url, path, loaded)
    return problems


def _check(client: Client, ref: Reference, base: str, named_by: str, loaded: set[str]) -> list[str]:
    if elsewhere(ref.url, base):
        return [f"{named_by}: {ref.where} {ref.url} is on another host"]
    url = urldefrag(urljoin(base, ref.url)).url
    if ref.kind == _NAVIGATION or urlsplit(url).scheme not in _FETCHED or url in loaded:
        return []
    loaded.add(url)
    answer = client.get(url, headers={})
    problem = _wrong_answer(answer, _TYPES.get(ref.kind, ()))
    if problem:
        return [f"{named_by}: {ref.where} {ref.url}: {problem}"]
    if ref.kind != "stylesheet":
        return []
    nested: list[str] = []
    for inner in css_references(answer.text, "url() in a stylesheet"):
        nested += _check(client, inner, url, ref.url, loaded)
    return nested


def _wrong_answer(answer: Answer, types: Iterable[str]) -> str | None:
    if answer.status_code != 200:
        return f"answered {answer.status_code}"
    content_type = answer.headers.get("content-type", "").split(";")[0].strip().lower()
    wanted = tuple(types)
    if wanted and not content_type.startswith(wanted):
        return f"served as {content_type or 'no content type'}, not {' or '.join(wanted)}"
    return None
