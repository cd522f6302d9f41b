"""connect() and make_server() speak to each other: calls and typed errors cross a real
loopback socket, a read waits at most the timeout, an unreachable server fails at once."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest
from thrift.transport.TTransport import TTransportException

from compute_contract import connect, make_server
from compute_contract.computeidl.ttypes import Neighbor, UnknownSentence
from servelab.stack.ports import free_port


class Handler:
    """Two of compute.thrift's calls: enough to see answers and typed errors cross."""

    def ping(self) -> str:
        return "pong"

    def neighbors(self, sentence_id: int, k: int) -> list[Neighbor]:
        if sentence_id == 0:
            time.sleep(1.0)
        if sentence_id < 0:
            raise UnknownSentence(sentence_id=sentence_id, message="no such sentence")
        return [Neighbor(sentence_id=sentence_id + n, text="", score=1.0) for n in range(k)]


@pytest.fixture
def port(starts_servers: None) -> Iterator[int]:
    port = free_port()
    server = make_server(
        Handler(), host="127.0.0.1", port=port, kind="nonblocking", threads=2, processes=1
    )
    thread = threading.Thread(target=server.serve, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while True:
        try:
            connect("127.0.0.1", port, timeout_s=1.0).close()
            break
        except TTransportException:
            assert time.monotonic() < deadline, "the server did not start listening"
            time.sleep(0.05)
    yield port
    server.stop()
    thread.join(5)
    server.close()


def test_calls_and_typed_errors_cross(port: int) -> None:
    with connect("127.0.0.1", port, timeout_s=2.0) as connection:
        assert connection.client.ping() == "pong"
        assert [n.sentence_id for n in connection.client.neighbors(7, 3)] == [7, 8, 9]
        with pytest.raises(UnknownSentence) as raised:
            connection.client.neighbors(-1, 3)
        assert raised.value.sentence_id == -1
        assert connection.is_open()
    assert not connection.is_open()


def test_a_read_waits_at_most_the_timeout(port: int) -> None:
    with connect("127.0.0.1", port, timeout_s=0.2) as connection:
        with pytest.raises(TTransportException) as raised:
            connection.client.neighbors(0, 1)  # the handler takes 1 s
        assert raised.value.type == TTransportException.TIMED_OUT


def test_an_unreachable_server_fails_to_connect() -> None:
    with pytest.raises(TTransportException) as raised:
        connect("127.0.0.1", free_port(), timeout_s=1.0)
    assert raised.value.type == TTransportException.NOT_OPEN
