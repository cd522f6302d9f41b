"""Loopback ports for local services.

A port is chosen some seconds before its server binds it (a stack hands out every port, then
starts its services one by one). A port the kernel picks with bind(0) lies in its ephemeral
range, which every outgoing connection draws its source port from: a healthcheck's curl or a
database client could take it in between, and the server would then fail to bind. So ports
are drawn from outside that range, and never handed out twice by one process in a row.

Processes that start stacks at the same time (the tests' pytest-xdist workers) could still
draw the same port before either binds it; each is then given a share of the ports of its own
(SERVELAB_PORT_SHARE=i/n: the ports p with p % n == i), which servelab's pytest plugin does.
"""

from __future__ import annotations

import random
import socket
from collections import deque
from functools import cache
from pathlib import Path

from servelab.project import Settings

LOOPBACK = "127.0.0.1"
# Below this, well-known and registered services' ports are more likely to be in use.
LOWEST = 10000
HIGHEST = 65535
# IANA's dynamic range, where the kernel does not say its own.
DEFAULT_EPHEMERAL = (49152, 65535)
EPHEMERAL_RANGE_FILE = Path("/proc/sys/net/ipv4/ip_local_port_range")
# How many recently handed-out ports are not handed out again (a stack's ports may not be
# bound yet when the next is chosen).
REMEMBERED = 4096
TRIES = 200

_handed_out: deque[int] = deque(maxlen=REMEMBERED)


def is_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind((LOOPBACK, port))
        except OSError:
            return False
    return True


def ephemeral_range(source: Path = EPHEMERAL_RANGE_FILE) -> tuple[int, int]:
    """The kernel's source ports for outgoing connections (inclusive)."""
    try:
        low, high = source.read_text().split()
        return int(low), int(high)
    except (OSError, ValueError):
        return DEFAULT_EPHEMERAL


@cache
def candidate_ports(ephemeral: tuple[int, int], share: tuple[int, int] = (0, 1)) -> tuple[int, ...]:
    low, high = ephemeral
    index, count = share
    return tuple(
        port
        for port in range(LOWEST, HIGHEST + 1)
        if not low <= port <= high and port % count == index
    )


def free_port(preferred: int | None = None, settings: Settings | None = None) -> int:
    """`preferred` when it is free on loopback, otherwise a free one outside the kernel's
    ephemeral range, in this process's share (`settings`', default: as the environment
    says now), that it has not handed out lately."""
    if preferred is not None and is_free(preferred):
        return preferred
    share = (settings or Settings()).port_share
    candidates = candidate_ports(ephemeral_range(), share)
    for port in random.sample(candidates, min(TRIES, len(candidates))):
        if port not in _handed_out and is_free(port):
            _handed_out.append(port)
            return port
    raise OSError(f"no free loopback port among {TRIES} tried outside the ephemeral range")
