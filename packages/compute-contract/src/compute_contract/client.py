"""One client connection to a compute server: framed transport, accelerated binary protocol.

The protocol is built with fallback=False, so a `thrift` without its C extension fails
when the connection is made instead of quietly encoding in pure Python.
"""

from __future__ import annotations

from thrift.protocol.TBinaryProtocol import TBinaryProtocolAccelerated
from thrift.transport import TSocket, TTransport

from compute_contract.computeidl import Compute


class Connection:
    """An open connection and its client; close it (or use it as a context manager)."""

    def __init__(self, sock: TSocket.TSocket, transport: TTransport.TFramedTransport) -> None:
        self._socket = sock
        self.transport = transport
        self.client = Compute.Client(TBinaryProtocolAccelerated(transport, fallback=False))

    def is_open(self) -> bool:
        """False once the server closed the connection (e.g. while it sat in a pool)."""
        return bool(self._socket.isOpen())

    def close(self) -> None:
        self.transport.close()

    def __enter__(self) -> Connection:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def connect(
    host: str, port: int, *, timeout_s: float, connect_timeout_s: float | None = None
) -> Connection:
    """Open a connection to host:port, waiting at most `connect_timeout_s` (default:
    `timeout_s`) for it; every read then waits at most `timeout_s`. Raises
    thrift's TTransportException when the server cannot be reached."""
    sock = TSocket.TSocket(host, port)
    sock.setTimeout((timeout_s if connect_timeout_s is None else connect_timeout_s) * 1000)
    transport = TTransport.TFramedTransport(sock)
    transport.open()
    sock.setTimeout(timeout_s * 1000)
    return Connection(sock, transport)
