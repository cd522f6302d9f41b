"""Loopback ports for local services."""

from __future__ import annotations

import socket

LOOPBACK = "127.0.0.1"


def is_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind((LOOPBACK, port))
        except OSError:
            return False
    return True


def free_port(preferred: int | None = None) -> int:
    """`preferred` when it is free on loopback, otherwise one the kernel picks."""
    if preferred is not None and is_free(preferred):
        return preferred
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((LOOPBACK, 0))
        return int(sock.getsockname()[1])
