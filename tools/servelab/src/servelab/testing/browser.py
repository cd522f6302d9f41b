"""Debian's chromium (/usr/bin/chromium), driven by Playwright for Python (the dev group's
`playwright`; its own browser download is never run), for the tests that open pages in a
real browser."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from playwright.sync_api import Browser, sync_playwright

CHROMIUM = Path("/usr/bin/chromium")


@contextmanager
def chromium() -> Iterator[Browser]:
    """Headless chromium, closed on leaving; the test skips where it is not installed
    (scripts/bootstrap.sh installs it where it runs as root)."""
    if not CHROMIUM.exists():
        pytest.skip("chromium is not installed (scripts/bootstrap.sh installs it as root)")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM))
        try:
            yield browser
        finally:
            browser.close()
