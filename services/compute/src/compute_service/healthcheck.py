"""`python -m compute_service.healthcheck PORT`: exit 0 if the compute server on
127.0.0.1:PORT answers a Thrift ping (framed transport, binary protocol) within 2 s."""

from __future__ import annotations

import sys

from thrift.protocol.TBinaryProtocol import TBinaryProtocolAccelerated
from thrift.Thrift import TException
from thrift.transport import TSocket, TTransport

from compute_service.computeidl import Compute

TIMEOUT_MS = 2000


def check(port: int, host: str = "127.0.0.1") -> bool:
    sock = TSocket.TSocket(host, port)
    sock.setTimeout(TIMEOUT_MS)
    transport = TTransport.TFramedTransport(sock)
    try:
        transport.open()
        client = Compute.Client(TBinaryProtocolAccelerated(transport, fallback=False))
        return client.ping() == "pong"
    except (TException, OSError):
        return False
    finally:
        transport.close()


def main(argv: list[str]) -> int:
    if len(argv) != 1 or not argv[0].isdigit():
        print("usage: python -m compute_service.healthcheck PORT", file=sys.stderr)
        return 2
    return 0 if check(int(argv[0])) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
