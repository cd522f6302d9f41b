"""The compute service's Thrift contract, shared by the server and its clients.

- `computeidl`: the Python code generated from compute.thrift (scripts/thrift-gen.sh).
- `connect()`: one client connection (framed transport, accelerated binary protocol).
- `make_server()`: a server of any kind speaking the same transport and protocol.
- thrift's exception types, so that users of the contract import nothing from thrift itself
  (the one thrift pin is this package's).
"""

from thrift.Thrift import TApplicationException, TException
from thrift.transport.TTransport import TTransportException

from compute_contract.client import Connection, connect
from compute_contract.server import SERVER_KINDS, Server, ServerKind, make_server

__all__ = [
    "SERVER_KINDS",
    "Connection",
    "Server",
    "ServerKind",
    "TApplicationException",
    "TException",
    "TTransportException",
    "connect",
    "make_server",
]
