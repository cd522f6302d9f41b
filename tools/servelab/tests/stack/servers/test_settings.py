"""SERVELAB_MARIADB and SERVELAB_REDIS: where the user points the runner."""

from __future__ import annotations

import pytest

from servelab.project import Settings
from servelab.stack.attached import Address
from servelab.stack.servers.settings import ServerSettings, Setting, SettingsError


def read(mariadb: str = "", redis: str = "") -> ServerSettings:
    return ServerSettings.read(Settings(mariadb=mariadb, redis=redis))


def test_unset_variables_leave_the_choice_to_the_runner() -> None:
    assert read() == ServerSettings(Setting(), Setting())


def test_the_settings_are_the_environments(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SERVELAB_MARIADB", "3307")
    monkeypatch.setenv("SERVELAB_REDIS", "private")
    settings = ServerSettings.read(Settings())
    assert settings == ServerSettings(Setting(Address("127.0.0.1", 3307)), Setting(private=True))


@pytest.mark.parametrize(
    ("value", "address"),
    [
        ("127.0.0.1:3307", Address("127.0.0.1", 3307)),
        ("3307", Address("127.0.0.1", 3307)),
        ("localhost:3307", Address("127.0.0.1", 3307)),
        ("127.0.0.2:3307", Address("127.0.0.2", 3307)),
        ("[::1]:3307", Address("::1", 3307)),
    ],
)
def test_a_loopback_address_names_the_users_server(value: str, address: Address) -> None:
    settings = read(mariadb=value)
    assert settings.of("mariadb") == Setting(address=address)
    assert settings.of("redis") == Setting()


def test_private_asks_for_a_private_server() -> None:
    settings = read(redis="private")
    assert settings.of("redis") == Setting(private=True)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("db.example.com:3306", "loopback only"),
        ("10.0.0.5:6379", "loopback only"),
        ("127.0.0.1:port", "host:port, a port or private"),
        ("127.0.0.1:70000", "host:port, a port or private"),
    ],
)
def test_what_the_runner_cannot_use_is_a_clear_error(value: str, message: str) -> None:
    with pytest.raises(SettingsError, match=f"SERVELAB_REDIS={value}: .*{message}"):
        read(redis=value)
