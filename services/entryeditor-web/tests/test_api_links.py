"""The API through the web front end's nginx (/api/ on its own origin): the links the API
writes into its answers, a page's `next` and `previous`, lead back through the same prefix,
so that a client following them stays on the front end's origin."""

from __future__ import annotations

import httpx2
import pytest

pytestmark = pytest.mark.stack

ENTRIES = "/api/entryeditor/entryeditor/"


def test_the_pages_links_keep_the_api_prefix(base: str) -> None:
    first = httpx2.get(f"{base}{ENTRIES}", params={"page": 1, "page_size": 1}, timeout=30)
    assert first.status_code == 200, first.text
    page = first.json()
    assert page["count"] >= 2, page
    assert page["next"].startswith(f"{base}{ENTRIES}?"), page["next"]
    second = httpx2.get(page["next"], timeout=30)
    assert second.status_code == 200, second.text
    assert second.json()["results"] != page["results"]
    assert second.json()["previous"].startswith(f"{base}{ENTRIES}"), second.json()["previous"]
