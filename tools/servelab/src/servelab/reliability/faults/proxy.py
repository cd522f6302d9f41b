"""A TCP forwarder on loopback that a probe can cut: a dependency's outage without touching
the dependency (the machine's MariaDB and Redis are shared, never stopped).

`cut()` closes the listening socket (new connections are refused) and resets every
connection it carries (established ones fail at once, as when a server dies); `stall()`
keeps accepting but forwards nothing either way (a server that hangs, or a network that
drops packets: only the clients' timeouts end a wait); `restore()` listens and forwards
again, on the same port. The forwarder runs its own asyncio loop in a thread.
"""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import Future
from typing import Any

from servelab.stack.attached import Address
from servelab.stack.ports import LOOPBACK

_CHUNK = 65536
_TIMEOUT_S = 5.0


class Proxy:
    """`with Proxy(Address("127.0.0.1", 3306)) as proxy:` clients connect to proxy.port;
    each new connection goes to `target` as it is then (a probe may point it elsewhere)."""

    def __init__(self, target: Address) -> None:
        self.target = target
        self.port = 0
        self.accepted = 0
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        self._flowing = asyncio.Event()
        self._tasks: set[asyncio.Task[None]] = set()

    def __enter__(self) -> Proxy:
        """Listen on a free loopback port (self.port)."""
        self._thread.start()
        self.restore()
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self._thread.is_alive():
            self.cut()
            self._call(self._cancel())
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=_TIMEOUT_S)
        self._loop.close()

    def cut(self) -> None:
        """Refuse new connections and reset the established ones."""
        self._call(self._cut())

    def stall(self) -> None:
        """Accept connections but forward nothing, on new or established ones."""
        self._loop.call_soon_threadsafe(self._flowing.clear)

    def restore(self) -> None:
        """Accept connections and forward again, on the same port."""
        self._call(self._listen())

    def _call(self, coroutine: Any) -> None:
        future: Future[None] = asyncio.run_coroutine_threadsafe(coroutine, self._loop)
        future.result(timeout=_TIMEOUT_S)

    async def _listen(self) -> None:
        if self._server is None:
            self._server = await asyncio.start_server(
                self._serve, LOOPBACK, self.port, reuse_address=True
            )
            self.port = self._server.sockets[0].getsockname()[1]
        self._flowing.set()

    async def _pipe(self, source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
        try:
            while data := await source.read(_CHUNK):
                await self._flowing.wait()
                sink.write(data)
                await sink.drain()
        except OSError:
            return

    async def _cancel(self) -> None:
        """End every connection's task (one may wait for a stall to end)."""
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def _cut(self) -> None:
        if self._server is not None:
            self._server.close()
            self._server = None
        for writer in list(self._writers):
            writer.transport.abort()
        self._writers.clear()

    async def _serve(
        self, client_in: asyncio.StreamReader, client_out: asyncio.StreamWriter
    ) -> None:
        """Forward one client's connection to `target` (once flowing) both ways, until
        either side closes or a cut resets it."""
        self.accepted += 1
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        self._writers.add(client_out)
        closing = [client_out]
        pipes: list[asyncio.Future[None]] = []
        try:
            await self._flowing.wait()
            server_in, server_out = await asyncio.wait_for(
                asyncio.open_connection(self.target.host, self.target.port), _TIMEOUT_S
            )
            self._writers.add(server_out)
            closing.append(server_out)
            pipes = [
                asyncio.ensure_future(self._pipe(client_in, server_out)),
                asyncio.ensure_future(self._pipe(server_in, client_out)),
            ]
            # Either side closing ends the connection: MariaDB and Redis never half-close.
            await asyncio.wait(pipes, return_when=asyncio.FIRST_COMPLETED)
        except (OSError, TimeoutError):
            client_out.transport.abort()
        finally:
            self._tasks.discard(task)
            for pipe in pipes:
                pipe.cancel()
            for writer in closing:
                self._writers.discard(writer)
                writer.close()
