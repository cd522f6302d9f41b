"""Where the user points the runner's database and cache (servelab.project.Settings), and
which server a stack uses for each.

SERVELAB_MARIADB and SERVELAB_REDIS each take a loopback `host:port` (or a port alone) of a
server the user runs (MariaDB: root without a password; the runner creates each stack's
database there), or `private` for a server of the runner's own even where the default
address answers. Unset, the runner uses the server at compose.yaml's `x-local.server` (the
machine's) when something accepts connections there now, and starts a private one otherwise.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Literal

from servelab.project import Settings
from servelab.stack.attached import Address, accepts_connections

Kind = Literal["mariadb", "redis"]
VARIABLES: Mapping[Kind, str] = {"mariadb": "SERVELAB_MARIADB", "redis": "SERVELAB_REDIS"}
PRIVATE = "private"
_LOOPBACK = "127.0.0.1"


class SettingsError(ValueError):
    """A variable names something the runner cannot use."""


@dataclass(frozen=True)
class Setting:
    """One server's setting: `address` where the user names one, `private` where they ask
    for a private server; neither: the default address if it answers, else private."""

    address: Address | None = None
    private: bool = False


@dataclass(frozen=True)
class ServerSettings:
    mariadb: Setting = Setting()
    redis: Setting = Setting()

    def of(self, kind: Kind) -> Setting:
        return self.mariadb if kind == "mariadb" else self.redis

    @classmethod
    def read(cls, settings: Settings) -> ServerSettings:
        """The settings' SERVELAB_MARIADB and SERVELAB_REDIS, checked."""
        return cls(
            mariadb=_setting(VARIABLES["mariadb"], settings.mariadb),
            redis=_setting(VARIABLES["redis"], settings.redis),
        )


def _setting(variable: str, text: str) -> Setting:
    text = text.strip()
    if not text:
        return Setting()
    if text == PRIVATE:
        return Setting(private=True)
    host, _, port = text.rpartition(":")
    host = host.strip("[]") or _LOOPBACK
    if not port.isdigit() or not 0 < int(port) < 65536:
        raise SettingsError(f"{variable}={text}: give host:port, a port or {PRIVATE}")
    if host != "localhost" and not _is_loopback(host):
        raise SettingsError(
            f"{variable}={text}: the runner reaches servers on loopback only "
            "(127.0.0.0/8, ::1, localhost)"
        )
    return Setting(address=Address(_LOOPBACK if host == "localhost" else host, int(port)))


def _is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True)
class ServerChoice:
    """`address` to use as it is (`configured`: the user named it), or, with no address, a
    private server to start."""

    address: Address | None
    configured: bool = False


def choose(
    setting: Setting, default: Address, reachable: Callable[[Address], bool] = accepts_connections
) -> ServerChoice:
    if setting.private:
        return ServerChoice(None)
    if setting.address is not None:
        return ServerChoice(setting.address, configured=True)
    if reachable(default):
        return ServerChoice(default)
    return ServerChoice(None)
