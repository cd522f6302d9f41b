"""The ports a stack hands its services: free, and out of the way of outgoing connections."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from servelab.project import PORT_SHARE, Settings, port_share
from servelab.stack.ports import (
    DEFAULT_EPHEMERAL,
    LOOPBACK,
    candidate_ports,
    ephemeral_range,
    free_port,
)


def test_a_port_lies_outside_the_kernels_ephemeral_range_and_can_be_bound() -> None:
    low, high = ephemeral_range()
    for _ in range(50):
        port = free_port()
        assert not low <= port <= high
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as server:
            server.bind((LOOPBACK, port))


def test_ports_not_yet_bound_are_not_handed_out_twice() -> None:
    ports = [free_port() for _ in range(300)]
    assert len(set(ports)) == len(ports)


def test_a_port_in_use_is_never_handed_out() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as taken:
        taken.bind((LOOPBACK, 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert free_port(preferred=port) != port


def test_a_free_preferred_port_is_kept() -> None:
    port = free_port()
    assert free_port(preferred=port) == port


def test_the_range_is_read_from_the_kernel_or_defaults(tmp_path: Path) -> None:
    source = tmp_path / "ip_local_port_range"
    source.write_text("32768\t60999\n")
    assert ephemeral_range(source) == (32768, 60999)
    source.write_text("garbled")
    assert ephemeral_range(source) == DEFAULT_EPHEMERAL
    assert ephemeral_range(tmp_path / "missing") == DEFAULT_EPHEMERAL


def test_candidates_skip_the_ephemeral_range() -> None:
    candidates = candidate_ports((32768, 60999))
    assert 32767 in candidates and 61000 in candidates
    assert 32768 not in candidates and 60999 not in candidates
    assert min(candidates) >= 1024


def test_a_share_hands_out_only_its_own_ports(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(PORT_SHARE, "2/3")
    assert {free_port() % 3 for _ in range(50)} == {2}
    assert {free_port(settings=Settings(port_share=(1, 3))) % 3 for _ in range(50)} == {1}


def test_shares_split_the_candidates_between_them() -> None:
    every = candidate_ports((32768, 60999))
    shares = [set(candidate_ports((32768, 60999), (index, 3))) for index in range(3)]
    assert set().union(*shares) == set(every)
    assert sum(len(share) for share in shares) == len(every)


@pytest.mark.parametrize("value", ["3/3", "-1/2", "1", "a/b", "0/0"])
def test_a_share_that_is_not_one_of_n_is_refused(
    value: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(ValueError, match=PORT_SHARE):
        port_share(value)
    monkeypatch.setenv(PORT_SHARE, value)
    with pytest.raises(ValueError, match=PORT_SHARE):
        Settings()


def test_no_share_is_every_port() -> None:
    assert port_share("") == (0, 1)
    assert port_share("1/4") == (1, 4)
