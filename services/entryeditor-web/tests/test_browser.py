"""The web front end in a real browser (Debian's chromium, driven by Playwright) against
the stack `servelab up --profile entryeditor-web` runs (conftest.py). A screenshot of each
page goes to the test's temporary directory (`<pytest's basetemp>/screenshots*/`)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from servelab.stack import Stack
from servelab.testing.browser import chromium

pytestmark = pytest.mark.stack

# The demo entries (entryeditor-manage seed_entries): 22 and 45 two edits of 必须, 47 水.
WATER, EDIT_A, EDIT_B = 47, 22, 45
PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium() as launched:
        yield launched


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("screenshots")


@pytest.fixture(scope="module")
def frequent(base: str) -> int:
    """A demo entry whose word the CORPUS_LIMIT sentences contain (水 may not be there)."""
    url = f"{base}/api/entryeditor/entryeditor/?page_size=100"
    rows = httpx2.get(url, timeout=10).json()["results"]
    return int(next(row["id"] for row in rows if row["frequency"] > 0))


# Where the app keeps the API token it sends on writes (src/api/token.ts).
TOKEN_KEY = "entryeditor.apiToken"  # noqa: S105 (a storage key, not a secret)


def signed_in(browser: Browser, base: str, token: str, **options: Any) -> BrowserContext:
    """A browser context whose tab holds the API token, as if typed in its field."""
    context = browser.new_context(base_url=base, **options)
    context.add_init_script(f"sessionStorage.setItem({json.dumps(TOKEN_KEY)}, {json.dumps(token)})")
    return context


@pytest.fixture
def page(browser: Browser, base: str, token: str) -> Iterator[Page]:
    context = signed_in(browser, base, token)
    opened = context.new_page()
    outside: list[str] = []
    opened.on(
        "request", lambda r: None if r.url.startswith((base, "data:")) else outside.append(r.url)
    )
    yield opened
    context.close()
    assert outside == [], f"requests outside the site: {outside}"


def test_nginx_serves_the_app_with_its_cache_headers(base: str) -> None:
    with httpx2.Client(base_url=base, timeout=10) as client:
        index = client.get("/entries/47", headers={"Accept-Encoding": "gzip"})
        assert index.status_code == 200
        assert index.headers["cache-control"] == "no-cache"
        script = re.search(r'src="(/assets/index-[\w-]+\.js)"', index.text)
        assert script is not None
        bundle = client.get(script.group(1), headers={"Accept-Encoding": "gzip"})
        assert bundle.status_code == 200
        assert bundle.headers["content-encoding"] == "gzip"
        assert "immutable" in bundle.headers["cache-control"]
        assert client.get("/assets/missing.js").status_code == 404
        api = client.get(f"/api/entryeditor/entryeditor/{WATER}/")
        assert api.json()["word"] == "水"
        assert re.fullmatch(r"[0-9a-f]{32}", api.headers["x-request-id"])
        assert client.get("/metrics").status_code == 404


def test_list_search_and_open(page: Page, shots: Path) -> None:
    page.goto("/entries")
    expect(page.get_by_role("heading", name="Entries")).to_be_visible()
    expect(page.locator("tbody tr")).to_have_count(20)
    page.screenshot(path=shots / "list.png", full_page=True)
    page.get_by_label("Word starts with").fill("必须")
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"word="))
    words = page.locator("tbody tr td:nth-child(2)")
    expect(words.first).to_have_text(re.compile("^必须"))
    assert all(text.startswith("必须") for text in words.all_inner_texts())
    page.get_by_role("button", name="Show all").click()
    expect(page.locator("tbody tr")).to_have_count(20)
    page.get_by_role("button", name="Next").click()
    expect(page).to_have_url(re.compile(r"page=2"))
    expect(page.locator("tbody tr td").first).to_have_text("21")
    page.get_by_label("Word starts with").fill("水")
    page.get_by_role("button", name="Search").click()
    page.get_by_role("link", name="水", exact=True).click()
    expect(page.get_by_role("heading", level=1)).to_contain_text(f"水 entry {WATER}")
    expect(page.get_by_test_id("frequency")).to_have_text(re.compile(r"^\d+$"))
    expect(page.get_by_text(re.compile("^Collocates")).first).to_be_visible()
    page.screenshot(path=shots / "entry.png", full_page=True)


def test_keyboard_and_phone_width(browser: Browser, base: str, token: str, shots: Path) -> None:
    context = signed_in(browser, base, token, viewport=PHONE)
    page = context.new_page()
    page.goto(f"/entries/{WATER}")
    expect(page.get_by_label("Word", exact=True)).to_have_value("水")
    page.keyboard.press("Tab")
    expect(page.get_by_role("link", name="Skip to the content")).to_be_focused()
    page.keyboard.press("Tab")
    expect(page.get_by_role("link", name="Entries", exact=True)).to_be_focused()
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the page scrolls sideways at phone width ({width}px)"
    page.screenshot(path=shots / "entry-phone.png", full_page=True)
    context.close()


def test_edit_saves_a_new_version(page: Page, shots: Path) -> None:
    page.goto(f"/entries/{WATER}")
    heading = page.get_by_role("heading", level=1)
    version = int(re.search(r"version (\d+)", heading.inner_text()).group(1))  # type: ignore[union-attr]
    page.get_by_role("button", name="Add a sense").click()
    definition = page.locator("textarea[id$='-definition']").last
    definition.fill("无色无味的液体")
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.get_by_role("status")).to_have_text(f"Saved: version {version + 1}.")
    page.reload()
    expect(page.locator("textarea[id$='-definition']").last).to_have_value("无色无味的液体")
    page.screenshot(path=shots / "edit.png", full_page=True)


def test_a_save_without_the_token_asks_for_it(browser: Browser, base: str, shots: Path) -> None:
    context = browser.new_context(base_url=base)
    page = context.new_page()
    page.goto(f"/entries/{WATER}")
    expect(page.get_by_label("Word", exact=True)).to_have_value("水")
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.get_by_role("alert")).to_contain_text("needs an API token")
    page.screenshot(path=shots / "token.png", full_page=True)
    context.close()


def test_two_edits_conflict_and_the_second_sees_the_first(
    browser: Browser, page: Page, base: str, token: str, shots: Path
) -> None:
    other = signed_in(browser, base, token).new_page()
    for tab in (page, other):
        tab.goto(f"/entries/{WATER}")
        expect(tab.get_by_label("Word", exact=True)).to_have_value("水")
    other.locator("#pos").fill("ng")
    other.get_by_role("button", name="Save", exact=True).click()
    expect(other.get_by_role("status")).to_contain_text("Saved")
    page.locator("#pos").fill("n")
    page.get_by_role("button", name="Save", exact=True).click()
    conflict = page.get_by_test_id("conflict")
    expect(conflict).to_contain_text("Someone else saved this entry first")
    expect(conflict.locator("dd").nth(1)).to_have_text("ng")
    page.screenshot(path=shots / "conflict.png", full_page=True)
    page.get_by_role("button", name="Save mine over theirs").click()
    expect(page.get_by_role("status")).to_contain_text("Saved")
    expect(conflict).to_have_count(0)
    other.context.close()


def test_query_console_runs_a_command_and_marks_a_bad_one(
    page: Page, frequent: int, shots: Path
) -> None:
    page.goto(f"/entries/{frequent}/query")
    command = page.get_by_label(re.compile("^Command"))
    command.fill("kwic(window=5, limit=5)")
    page.get_by_role("button", name="Run").click()
    keywords = page.locator("table.kwic td.keyword")
    expect(keywords.first).to_be_visible()
    assert 1 <= keywords.count() <= 5
    expect(page.locator("table.kwic td.left").first).to_have_css("text-align", "right")
    page.screenshot(path=shots / "query-kwic.png", full_page=True)
    command.fill("kwic(pattern=水, window=x)")
    command.press("Control+Enter")
    alert = page.get_by_role("alert")
    expect(alert).to_contain_text("Line 1, column 24")
    expect(alert.get_by_test_id("error-mark")).to_have_text("x")
    page.screenshot(path=shots / "query-error.png", full_page=True)


def test_diff_shows_changed_fields_and_folds_the_rest(page: Page, shots: Path) -> None:
    page.goto("/diff")
    page.get_by_label("Entry", exact=True).fill(str(EDIT_A))
    page.get_by_label("with entry").fill(str(EDIT_B))
    page.get_by_role("button", name="Compare").click()
    expect(page.get_by_test_id("diff-summary")).to_contain_text("fields differ")
    expect(page.locator(".changed[data-field='senses']")).to_be_visible()
    folded = page.locator("details.identical")
    expect(folded.first).to_contain_text("identical")
    assert folded.first.get_attribute("open") is None
    page.screenshot(path=shots / "diff.png", full_page=True)


def test_sentence_page_lists_its_neighbours(page: Page, shots: Path) -> None:
    page.goto("/sentences/1")
    expect(page.locator(".neighbours li").first).to_be_visible(timeout=15_000)
    page.screenshot(path=shots / "sentence.png", full_page=True)


def test_compute_outage_is_a_retrying_notice(page: Page, stack: Stack, shots: Path) -> None:
    stack.kill("entryeditor-compute")
    try:
        page.goto("/sentences/2")
        notice = page.get_by_test_id("compute-waiting")
        expect(notice).to_contain_text("The compute service is unavailable, retrying")
        expect(page.get_by_role("alert")).to_have_count(0)
        expect(page.locator(".sentence")).to_be_visible()
        page.screenshot(path=shots / "compute-outage.png", full_page=True)
    finally:
        stack.restart("entryeditor-compute")
    expect(page.locator(".neighbours li").first).to_be_visible(timeout=15_000)
    expect(page.get_by_test_id("compute-waiting")).to_have_count(0)
