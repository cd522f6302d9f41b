"""A private Redis: redis-server's command, nothing written to disk."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from servelab.stack.servers.process import find

PACKAGE = "redis-server"
# As compose.yaml's cache: no snapshots, no append-only file, bounded memory. The compose
# service's own options come after these, and so win where they repeat one.
OPTIONS = (
    "--save", "", "--appendonly", "no", "--maxmemory", "256mb",
    "--maxmemory-policy", "allkeys-lru",
)  # fmt: skip


def command(directory: Path, port: int, options: Sequence[str] = ()) -> list[str]:
    """redis-server on 127.0.0.1:`port`, working in `directory`."""
    return [
        find("redis-server", PACKAGE), *OPTIONS, *options,
        "--port", str(port), "--bind", "127.0.0.1", "--dir", str(directory), "--daemonize", "no",
    ]  # fmt: skip
