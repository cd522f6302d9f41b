"""Slowloris: a few clients send a request's headers one byte a second, never finishing,
while another client asks normal requests. A sound server times the slow ones out and
serves the other meanwhile."""

from __future__ import annotations

import socket
import time
from dataclasses import dataclass

from servelab.reliability.fuzz.raw import exchange, request_bytes

SLOW_CLIENTS = 5


@dataclass(frozen=True)
class SlowlorisOutcome:
    slow_clients: int
    # Slow connections the server closed (or answered) within the window, and when the
    # last of them was closed.
    closed: int
    last_closed_s: float
    others_asked: int
    others_served: int


def slowloris(port: int, path: str, window_s: float) -> SlowlorisOutcome:
    started = time.monotonic()
    slow: list[socket.socket] = []
    closed_at: dict[int, float] = {}
    asked = served = 0
    try:
        for _ in range(SLOW_CLIENTS):
            sock = socket.create_connection(("127.0.0.1", port), timeout=2)
            sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n".encode())
            sock.setblocking(False)
            slow.append(sock)
        step = 0
        while time.monotonic() - started < window_s:
            for index, sock in enumerate(slow):
                if index not in closed_at and not _alive(sock, step):
                    closed_at[index] = time.monotonic() - started
            asked += 1
            answer = exchange(port, request_bytes("GET", path), timeout_s=5)
            served += answer.status is not None and answer.status < 500
            step += 1
            time.sleep(max(0.0, started + step - time.monotonic()))
    finally:
        for sock in slow:
            sock.close()
    return SlowlorisOutcome(
        slow_clients=len(slow),
        closed=len(closed_at),
        last_closed_s=max(closed_at.values(), default=0.0),
        others_asked=asked,
        others_served=served,
    )


def _alive(sock: socket.socket, step: int) -> bool:
    """Send the next byte of an endless header; False once the server has closed or
    answered (a 408 or 400 ends the request as well)."""
    try:
        if sock.recv(4096, socket.MSG_PEEK):
            return False
    except BlockingIOError:
        pass
    except OSError:
        return False
    try:
        sock.send(b"X-a: b\r\n"[step % 8 : step % 8 + 1])
    except BlockingIOError:
        return True
    except OSError:
        return False
    try:
        return sock.recv(1, socket.MSG_PEEK) != b""
    except BlockingIOError:
        return True
    except OSError:
        return False
