from __future__ import annotations

import re

import pytest

from servelab.bench.measure.cpus import (
    CpusError,
    Pinning,
    cpu_list,
    parse_cpus,
    parse_workers,
    plan,
)


def test_server_gets_one_cpu_per_worker_and_k6_the_rest() -> None:
    assert plan([0, 1], 1) == Pinning(frozenset({1}), frozenset({0}))
    assert plan([3, 0, 2, 1], 2) == Pinning(frozenset({2, 3}), frozenset({0, 1}))
    assert plan([0, 1], 1).describe() == "server on CPU 1, k6 on CPU 0"


def test_no_pinning_when_k6_would_get_nothing() -> None:
    assert plan([0, 1], 2) == Pinning(None, None)
    assert plan([0], 1) == Pinning(None, None)
    assert "not pinned" in plan([0, 1], 3).describe()


def test_a_shared_cpu_is_said() -> None:
    pinning = Pinning(frozenset({0, 1, 2}), frozenset({2, 3}))
    assert pinning.describe() == "server on CPU 0-2, k6 on CPU 2-3 (sharing CPU 2)"


def test_cpus_server_and_k6_lists_in_either_order() -> None:
    available = range(8)
    assert parse_cpus("server=0-3,k6=4-7", available) == Pinning(
        frozenset({0, 1, 2, 3}), frozenset({4, 5, 6, 7})
    )
    assert parse_cpus("k6=4,5,server=0-2,7", available) == Pinning(
        frozenset({0, 1, 2, 7}), frozenset({4, 5})
    )
    assert cpu_list({7, 0, 1, 2, 4, 5}) == "0-2,4-5,7"


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("server=0-3", "no k6= list"),
        ("0-3,k6=4", "must start with server= or k6="),
        ("server=0,server=1,k6=2", "server="),
        ("server=3-1,k6=4", "backwards"),
        ("server=a,k6=4", "'a' is not a CPU"),
        ("server=0,k6=9", "CPU 9 not available"),
    ],
)
def test_a_wrong_cpus_option_is_one_clear_error(text: str, says: str) -> None:
    with pytest.raises(CpusError, match=re.escape(says)):
        parse_cpus(text, range(8))


def test_workers_auto_doubles_up_to_the_cpus_and_ends_on_their_count() -> None:
    assert parse_workers("auto", range(1)) == (1,)
    assert parse_workers("auto", range(2)) == (1, 2)
    assert parse_workers("auto", range(6)) == (1, 2, 4, 6)
    assert parse_workers("auto", range(8)) == (1, 2, 4, 8)
    assert parse_workers("8,1,2,2", range(2)) == (1, 2, 8)
    with pytest.raises(CpusError, match="1 or more"):
        parse_workers("0,1", range(2))
    with pytest.raises(CpusError, match="not `auto`"):
        parse_workers("many", range(2))
