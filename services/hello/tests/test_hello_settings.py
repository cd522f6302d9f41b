"""The Tornado server's settings: read from the environment, refused when out of range."""

import pytest
from pydantic import ValidationError

from hello_service.settings import Settings

NAMES = ("HOST", "PORT", "WEB_CONCURRENCY", "BACKLOG")


def test_settings_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in zip(NAMES, ("127.0.0.1", "8211", "3", "1000"), strict=True):
        monkeypatch.setenv(name, value)
    assert Settings() == Settings(host="127.0.0.1", port=8211, web_concurrency=3, backlog=1000)


def test_defaults_serve_from_one_process_with_a_long_listen_queue(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in NAMES:
        monkeypatch.delenv(name, raising=False)
    assert Settings() == Settings(host="0.0.0.0", port=8000, web_concurrency=1, backlog=4096)


@pytest.mark.parametrize(
    ("name", "value"),
    [("PORT", "http"), ("PORT", "70000"), ("WEB_CONCURRENCY", "0"), ("BACKLOG", "0")],
)
def test_bad_settings_are_refused(monkeypatch: pytest.MonkeyPatch, name: str, value: str) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(ValidationError):
        Settings()
