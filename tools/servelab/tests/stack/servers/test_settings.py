"""SERVELAB_MARIADB and SERVELAB_REDIS: where the user points the runner."""

from __future__ import annotations

import pytest

from servelab.stack.attached import Address
from servelab.stack.servers.settings import ServerSettings, Setting, SettingsError


def test_unset_variables_leave_the_choice_to_the_runner() -> None:
    assert ServerSettings.from_env({}) == ServerSettings(Setting(), Setting())


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
    settings = ServerSettings.from_env({"SERVELAB_MARIADB": value})
    assert settings.of("mariadb") == Setting(address=address)
    assert settings.of("redis") == Setting()


def test_private_asks_for_a_private_server() -> None:
    settings = ServerSettings.from_env({"SERVELAB_REDIS": "private"})
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
        ServerSettings.from_env({"SERVELAB_REDIS": value})
