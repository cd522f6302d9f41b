"""The database the compute service reads: DATABASE_URL's user and server, the password from
the file DATABASE_PASSWORD_FILE names (the recipes' secret), an unusable file refused at start
with the variable's name."""

from __future__ import annotations

from pathlib import Path

import pytest

from compute_service.settings import Settings, SettingsError

URL = "mysql://entryeditor@db.example:3307/entryeditor"


def test_the_password_comes_from_the_file(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    (tmp_path / "password").write_text("from-the-secret\n")
    monkeypatch.setenv("DATABASE_URL", URL)
    monkeypatch.setenv("DATABASE_PASSWORD_FILE", str(tmp_path / "password"))
    address = Settings.from_env().database_address()
    assert (address.user, address.host, address.port) == ("entryeditor", "db.example", 3307)
    assert (address.database, address.password) == ("entryeditor", "from-the-secret")


def test_without_a_file_the_url_says_it_all(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DATABASE_URL", "mysql://reader:in-url@db.example/entryeditor")
    monkeypatch.delenv("DATABASE_PASSWORD_FILE", raising=False)
    assert Settings.from_env().database_address().password == "in-url"  # noqa: S105


@pytest.mark.parametrize("content", [None, "\n"])
def test_a_missing_or_empty_file_stops_the_start(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, content: str | None
) -> None:
    if content is not None:
        (tmp_path / "password").write_text(content)
    monkeypatch.setenv("DATABASE_URL", URL)
    monkeypatch.setenv("DATABASE_PASSWORD_FILE", str(tmp_path / "password"))
    with pytest.raises(SettingsError, match="DATABASE_PASSWORD_FILE"):
        Settings.from_env()
