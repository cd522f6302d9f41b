"""Flask on Tornado's WSGIContainer: `python -m hello_service.tornado_server`.

WEB_CONCURRENCY=1 serves from this one process (the write-up's single-process run).
WEB_CONCURRENCY=N binds the listening socket first and forks N processes that accept on it
(the write-up's `bind()` + `start(N)`); the parent restarts a child that crashes.
Each process runs the WSGI app on its event loop thread, one request at a time.
"""

import asyncio
import os
import signal
import socket
from collections.abc import Callable
from types import FrameType

from tornado.httpserver import HTTPServer
from tornado.netutil import bind_sockets
from tornado.process import fork_processes
from tornado.wsgi import WSGIContainer

from hello_service.flask_app import app
from hello_service.settings import Settings

_STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)


async def serve(sockets: list[socket.socket]) -> None:
    """Serve on the bound sockets until SIGTERM or SIGINT, then close connections."""
    server = HTTPServer(WSGIContainer(app))
    server.add_sockets(sockets)
    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()

    def stop(signum: int, frame: FrameType | None) -> None:
        # Ignore the stop signals from now on, also after the loop has closed: in a forked
        # child the parent's SIGTERM to the group may come after the runner's.
        _ignore_stop_signals()
        loop.call_soon_threadsafe(stopping.set)

    for signum in _STOP_SIGNALS:
        signal.signal(signum, stop)
    await stopping.wait()
    server.stop()
    await server.close_all_connections()


def _ignore_stop_signals() -> None:
    for signum in _STOP_SIGNALS:
        signal.signal(signum, signal.SIG_IGN)


def _stop_children(sockets: list[socket.socket]) -> Callable[[int, FrameType | None], None]:
    """In the forking parent: pass the stop on to the children, which then exit cleanly.
    The parent closes its copy of the listening sockets too: with the children's closed,
    a new connection is refused at once rather than queued for nobody until the parent
    exits (`servelab outage sigterm-tornado`)."""

    def stop(signum: int, frame: FrameType | None) -> None:
        _ignore_stop_signals()
        for sock in sockets:
            sock.close()
        os.killpg(os.getpgrp(), signal.SIGTERM)

    return stop


def main() -> None:
    settings = Settings()
    sockets = bind_sockets(settings.port, settings.host, backlog=settings.backlog)
    if settings.web_concurrency > 1:
        for signum in _STOP_SIGNALS:
            signal.signal(signum, _stop_children(sockets))
        # Returns only in a child; the parent waits in here and exits once all children have.
        fork_processes(settings.web_concurrency)
    asyncio.run(serve(sockets))


if __name__ == "__main__":
    main()
