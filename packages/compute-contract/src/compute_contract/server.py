"""A compute server of any kind, with the transport and protocol every client uses.

Framed transport and the accelerated binary protocol for every kind, so a client works
with whichever kind runs (the nonblocking server always reads framed messages).
"""

from __future__ import annotations

from typing import Literal, Protocol, get_args

from thrift.protocol.TBinaryProtocol import TBinaryProtocolAcceleratedFactory
from thrift.server import TNonblockingServer, TProcessPoolServer, TServer
from thrift.transport import TSocket, TTransport

from compute_contract.computeidl import Compute

ServerKind = Literal["threadpool", "processpool", "nonblocking", "forking"]
SERVER_KINDS: tuple[ServerKind, ...] = get_args(ServerKind)


class Server(Protocol):
    """What every kind offers (TServer's subclasses and TNonblockingServer): serve until
    the process is stopped."""

    def serve(self) -> None: ...


def make_server(
    handler: object,
    *,
    host: str,
    port: int,
    kind: ServerKind,
    threads: int,
    processes: int,
    backlog: int = 1024,
) -> Server:
    """A server answering compute.thrift's calls with `handler`'s methods on host:port.

    `threads`: worker threads (nonblocking) or threads serving one connection each
    (threadpool); `processes`: processes serving one connection each (processpool); the
    forking server forks one process per connection.
    """
    processor = Compute.Processor(handler)
    listener = TSocket.TServerSocket(host=host, port=port)
    listener.setBacklog(backlog)
    protocol = TBinaryProtocolAcceleratedFactory(fallback=False)
    framed = TTransport.TFramedTransportFactory()
    server: Server
    if kind == "nonblocking":
        server = TNonblockingServer.TNonblockingServer(
            processor, listener, protocol, threads=threads
        )
    elif kind == "processpool":
        pool_server = TProcessPoolServer.TProcessPoolServer(processor, listener, framed, protocol)
        pool_server.setNumWorkers(processes)
        server = pool_server
    elif kind == "forking":
        server = TServer.TForkingServer(processor, listener, framed, protocol)
    else:
        threaded = TServer.TThreadPoolServer(processor, listener, framed, protocol, daemon=True)
        threaded.setNumThreads(threads)
        server = threaded
    return server
