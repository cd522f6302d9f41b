"""Which server a stack uses for its database or its cache.

The user's own where a variable names it; else the server at the default address (the
machine's, as compose.yaml's `x-local.server` names it) when something accepts connections
there now; else none of those: the runner starts a private one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from servelab.stack.attached import Address, accepts_connections
from servelab.stack.servers.settings import Setting


@dataclass(frozen=True)
class Choice:
    """`address` to use as it is (`configured`: the user named it), or, with no address, a
    private server to start."""

    address: Address | None
    configured: bool = False

    @property
    def private(self) -> bool:
        return self.address is None


def choose(
    setting: Setting,
    default: Address,
    reachable: Callable[[Address], bool] = accepts_connections,
) -> Choice:
    if setting.private:
        return Choice(None)
    if setting.address is not None:
        return Choice(setting.address, configured=True)
    if reachable(default):
        return Choice(default)
    return Choice(None)
